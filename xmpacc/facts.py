"""What ``--info`` reports: one frozen value per decision of a pass about a directive, and
the sizes those values imply (rendered by ``info.py``).

The passes make them from their own symbols (passes/common/describe.py) and append them
to ``ctx.info`` with the directive's location; no text is formatted here:

    InfoFact(nbody_acc.c:65:13, KernelFacts(kernel='_xmpacc_loop_nbody_acc_c_65', lanes='j', ...))
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from xmpacc.diagnostics import SourceLoc

# ---------------------------------------------------------------- facts


@dataclass(frozen=True, slots=True)
class Dim:
    """One dimension of an aligned array as the runtime lays it out (C texts)."""

    extent: str
    tdim: int                        # template dimension; -1: collapsed
    dist: str                        # block, cyclic, gblock, none
    width: str | None                # cyclic(w)
    tmpl_extent: str | None          # number of template indices
    nodes: str | None                # nodes along it; None: '*' (known at run time)
    shadow: tuple[str, str] | None   # (lo, hi); None: full shadow


@dataclass(frozen=True, slots=True)
class ArrayFacts:
    name: str
    descriptor: str
    elem: str                        # C type of an element
    template: str
    dims: tuple[Dim, ...]


@dataclass(frozen=True, slots=True)
class VarFacts:
    """A plain C variable (replicated, broadcast, reduced)."""

    name: str
    elem: str                        # "" when not a basic type
    extents: tuple[str, ...]         # () for a scalar


@dataclass(frozen=True, slots=True)
class NodesFacts:
    name: str
    extents: tuple[str | None, ...]  # None: '*'
    descriptor: str


@dataclass(frozen=True, slots=True)
class TemplateFacts:
    name: str
    bounds: tuple[tuple[str, str], ...]
    descriptor: str


@dataclass(frozen=True, slots=True)
class DistributeFacts:
    template: str
    nodes: str
    dims: tuple[tuple[str, str | None, str | None, str | None], ...]   # kind, cyclic width, nodes, indices


@dataclass(frozen=True, slots=True)
class AlignFacts:
    arrays: tuple[ArrayFacts, ...]
    shadow: bool = False             # the shadow directive of these arrays


@dataclass(frozen=True, slots=True)
class LoopFacts:
    template: str
    loops: tuple[tuple[str, int, str, str | None], ...]    # var, template dim, kind, width
    reductions: tuple[tuple[str, tuple[str, ...]], ...]    # op, variables


@dataclass(frozen=True, slots=True)
class KernelFacts:
    loop: LoopFacts
    kernel: str
    lanes: str | None                # the inner loop split over lanes
    why: str                         # why not split
    accumulators: tuple[str, ...]
    arrays: tuple[str, ...]
    scalars: tuple[str, ...]         # replicated scalars, shared on the device
    by_value: tuple[str, ...]
    private: tuple[str, ...]
    block: str                       # the block size the program gave, as honoured (block_shape.py)
    # streaming (streaming.py): (rows per thread, the walked variable, its windows, points of
    # the innermost loop per thread), or why not
    walk: tuple[int, str, str, int] | str
    reduced_arrays: tuple[str, ...] = ()   # reduction arrays: atomic updates of a temporary
                                           # (kernel_arrays.py)


@dataclass(frozen=True, slots=True)
class ReflectFacts:
    arrays: tuple[ArrayFacts, ...]
    widths: tuple[tuple[str, str], ...] | None
    acc: bool
    # the next loop's interior overlaps the exchange (passes/locality/overlap.py): the
    # peel (below, above) of each on-ref subscript; () when it does not
    overlap: tuple[tuple[int, int], ...] = ()
    push: bool = False   # between GPUs of one host the loop's kernel may push the rows (acc_push.py)


@dataclass(frozen=True, slots=True)
class CopyFacts:
    """acc replicate (direction "alloc") and acc replicate_sync ("in", "out", "in/out")."""

    direction: str
    variables: tuple[ArrayFacts | VarFacts, ...]
    file_scope: bool = False


@dataclass(frozen=True, slots=True)
class CommFacts:
    kind: str                        # reduction, bcast, barrier, task
    op: str = ""
    variables: tuple[VarFacts, ...] = ()
    on: bool = False


@dataclass(frozen=True, slots=True)
class GmoveFacts:
    """gmove: the statement and what each side is (distributed, local, scalar)."""

    statement: str
    lhs: str
    rhs: str
    mode: str                        # collective, in, out
    async_id: str | None
    acc: bool = False                # gmove ... acc: between the device copies


@dataclass(frozen=True, slots=True)
class OwnerFacts:
    """The array directive: the owners of the template elements compute."""

    statement: str
    template: str
    checked: tuple[str, ...]         # arrays whose locality is checked at run time
    temporary: bool


@dataclass(frozen=True, slots=True)
class ForFacts:
    """A for loop without 'acc loop' in an 'acc kernels' region (acc_kernels_auto.py)."""

    why: str                         # why it runs in one thread; "" = one thread per iteration
    reductions: tuple[tuple[str, str], ...] = ()
    private: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StaticDescFacts:
    """static_desc (Omni): the objects named, by where their descriptors live."""

    file_scope: tuple[str, ...]      # for the whole run already
    block_scope: tuple[str, ...]     # made at each entry of their block
    kept: tuple[str, ...] = ()       # aligned parameters: kept while calls pass the same block


@dataclass(frozen=True, slots=True)
class WaitFacts:
    """acc wait made on the device (passes/gpu/acc_reduction_wait.py): where the host waits."""

    host_waits: str                  # "before line 52", "after the loop", "in the callers of f"


Facts = (NodesFacts | TemplateFacts | DistributeFacts | AlignFacts | LoopFacts | KernelFacts | ReflectFacts
         | CopyFacts | CommFacts | GmoveFacts | OwnerFacts | ForFacts | StaticDescFacts | WaitFacts)


@dataclass(frozen=True, slots=True)
class InfoFact:
    loc: SourceLoc
    facts: Facts

# ---------------------------------------------------------------- sizes implied by the facts


def value(text: str | None) -> int | None:
    """The value of an integer constant expression in C text, None if it is not one."""
    try:
        return _eval(ast.parse(text.strip(), mode="eval").body) if text else None
    except (SyntaxError, ValueError):
        return None


def _eval(n: ast.AST) -> int | None:
    if isinstance(n, ast.Constant):
        return n.value if type(n.value) is int else None
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
        v = _eval(n.operand)
        return None if v is None else (-v if isinstance(n.op, ast.USub) else v)
    if not isinstance(n, ast.BinOp):
        return None
    a, b = _eval(n.left), _eval(n.right)
    if a is None or b is None:
        return None
    if isinstance(n.op, (ast.Add, ast.Sub, ast.Mult)):
        return a + b if isinstance(n.op, ast.Add) else a - b if isinstance(n.op, ast.Sub) else a * b
    if isinstance(n.op, (ast.Div, ast.Mod)) and b != 0:
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)   # C truncates toward zero
        return q if isinstance(n.op, ast.Div) else a - q * b
    return None


_SIZES = {"char": 1, "_Bool": 1, "short": 2, "int": 4, "float": 4, "long": 8, "long long": 8,
          "double": 8, "long double": 16}


def elem_size(ctype: str) -> int | None:
    words = [w for w in ctype.split() if w not in ("const", "volatile", "signed", "unsigned")]
    if "int" in words and len(words) > 1:
        words.remove("int")
    return _SIZES.get(" ".join(words) or "int") if ctype else None


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True, slots=True)
class Extent:
    """Elements along one dimension on one node: ``n`` is exact (whole), a bound for
    every node (``per_node``), or the one-node case when the node count is unknown."""

    n: int | None
    exact: bool = False
    per_node: bool = True


def owned(d: Dim) -> Extent:
    e = value(d.extent)
    if d.tdim < 0 or d.dist == "none":
        return Extent(e, exact=True)
    p, t = value(d.nodes), value(d.tmpl_extent)
    if e is None or p is None or t is None or p <= 0 or d.dist == "gblock":
        return Extent(e, per_node=False)
    w = value(d.width) if d.width else 1
    if w is None or w <= 0:
        return Extent(e, per_node=False)
    return Extent(min(e, _ceil(_ceil(t, w), p) * w))


def allocated(d: Dim) -> Extent:
    """The local buffer's extent: the owned block and its shadow slots (all of it for a
    full shadow)."""
    if d.shadow is None:
        return Extent(value(d.extent), exact=True)
    own = owned(d)
    if own.exact or own.n is None:
        return own
    lo, hi = value(d.shadow[0]), value(d.shadow[1])
    return Extent(None if lo is None or hi is None else own.n + lo + hi, per_node=own.per_node)


def buffer_bytes(a: ArrayFacts | VarFacts) -> Extent:
    """Bytes of the local buffer (shadows included) of an array, or of a variable."""
    size = elem_size(a.elem)
    ext = [allocated(d) for d in a.dims] if isinstance(a, ArrayFacts) else \
        [Extent(value(e), exact=True) for e in a.extents]
    if size is None or any(x.n is None for x in ext):
        return Extent(None)
    n = size
    for x in ext:
        n *= x.n  # type: ignore[operator]
    return Extent(n, all(x.exact for x in ext), all(x.per_node for x in ext))
