"""Values that several stages pass along (and --info reports, passes/common/describe.py):
an outlined kernel with its parameters, the variables of its body sorted by what they
become on the device, a variable that lives on the device, and how a kernel splits its
inner loop over lanes (kernel/lanes.py).

    loop on t(i) acc      ->  Kernel("_xmpacc_loop_f_c_42",
                                     params=[Param("x", "double *x", "x", LAUNCH_DEVBUF), ...])
    acc replicate (x)     ->  Replicated("x", decl, array=None, key="x")
    its body's names      ->  KernelVars(computed=["i"], arrays=[Replicated("x", ...)],
                                         by_value=[("dt", decl)], ...)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from xmpacc.passes.common.canonical import CanonicalLoop
from xmpacc.symbols import ArraySym


@dataclass(frozen=True, slots=True)
class Param:
    name: str            # parameter name in the kernel
    decl: str            # C declaration in the kernel, e.g. "double *x"
    host_arg: str        # C expression: the host address handed to the runtime
    kind: int            # LAUNCH_* of contract.py
    a: str = "0"         # VALUE: byte size; REDUCTION: type code; DEVBUF: LAUNCH_READS | WRITES
    b: str = "0"         # REDUCTION: operator code



@dataclass
class Kernel:
    name: str
    params: list[Param]
    prologue: list[str]            # C statements before the body
    body: c_ast.Node
    epilogue: list[str]
    source: str                    # file:line for messages
    coord: object = None
    info: dict[str, object] = field(default_factory=dict)
    guard: str = ""                 # C text before the body's do-while (see body_guard)
    walk: object = None             # streaming.WalkCode of a streaming kernel, else None
    vector_bodies: list[c_ast.Node] = field(default_factory=list)   # a vector walk's body per point


@dataclass
class Replicated:
    """A variable named in an enclosing ``acc replicate`` region."""

    name: str
    decl: c_ast.Decl
    array: ArraySym | None          # aligned array, else None
    key: str                        # C expression of its runtime key (an address)
    written: str = ""               # the name as the program writes it, where ``name`` is a kernel's own
                                    # (c.a)

    @property
    def member(self) -> bool:
        """An aligned structure member (``c.a``: global-view §8), which shares its object's
        declaration with the object and its other members (kernel_members.py)."""
        return self.array is not None and ("." in self.array.name or "->" in self.array.name)

    @property
    def identity(self) -> tuple[int, str]:
        """Which variable: its declaration, and for a member which member (its key)."""
        return identity_of(self.decl, self.key if self.member else "")



def identity_of(decl: c_ast.Decl, member_key: str = "") -> tuple[int, str]:
    """``Replicated.identity`` of the variable ``decl`` declares (``member_key``: of that
    object's aligned member with this key)."""
    return id(decl), member_key



@dataclass
class KernelVars:
    computed: list[str] = field(default_factory=list)
    private: list[tuple[str, c_ast.Decl]] = field(default_factory=list)
    reductions: list[tuple[str, c_ast.Decl, str]] = field(default_factory=list)   # name, decl, op
    arrays: list[Replicated] = field(default_factory=list)          # device arrays
    device_scalars: list[Replicated] = field(default_factory=list)
    by_value: list[tuple[str, c_ast.Decl]] = field(default_factory=list)
    written_arrays: set[str] = field(default_factory=set)   # arrays the body stores into
    read_vars: set[str] = field(default_factory=set)        # variables the body reads
    written_vars: set[str] = field(default_factory=set)     # variables the body stores into
    # the variables of reductions with location variables (kernel_locations.py): by value,
    # and every thread, past the end too, takes part in their warp-level combine
    located: list[str] = field(default_factory=list)
    # firstprivate C arrays and pointer subarrays: each thread's own copy, from the device
    # copy (kv.arrays holds it as _xmpacc_fp_<name>) from the element ``first`` on
    firstprivate_arrays: list[tuple[str, c_ast.Decl, int]] = field(default_factory=list)
    # distributed arrays of a private (False) or firstprivate (True) clause: each thread's
    # copy of its node's block with shadows (kernel_private.py); they are in ``arrays`` too,
    # for their descriptor (the subscripts' index math) and device copy (the start values)
    private_blocks: list[tuple[str, bool]] = field(default_factory=list)

    @property
    def combines(self) -> bool:
        """Does every thread reach the epilogue (reductions of any kind)?"""
        return bool(self.reductions or self.located)


@dataclass(frozen=True, slots=True)
class LanePlan:
    """How to split: the inner loop's position in the body and the accumulators."""

    index: int                             # position of the inner for in the body compound
    loop: CanonicalLoop
    accumulators: tuple[tuple[str, str], ...]   # (name, combine op: '+', '*', 'max', 'min')


@dataclass(frozen=True, slots=True)
class ReflectOverlap:
    """A ``reflect ... acc`` whose exchange the next loop's interior overlaps
    (passes/locality/overlap.py decides, the gpu pass lowers both)."""

    loop: int                            # id of the loop's pragma
    peel: tuple[tuple[int, int], ...]    # per on-ref subscript (template dimension): below, above
