"""Reductions with location variables on GPU loops (global-view §5; XcalableACC §2, §4):
``firstmax``/``firstmin``/``lastmax``/``lastmin`` with ``/loc, .../`` on ``loop ... acc`` and
on an XMP ``loop`` around an OpenACC compute construct.

The host loop's scheme (locations.py), one thread at a time.  Each thread starts from the
values that the reduction variable and its location variables had before the loop (they
are firstprivate: kernel parameters by value), runs its iteration with them watched, and
keeps a key when the iteration changed one: key[0] = 1, then the trip number of every loop
of the thread space (lexicographic order of keys is sequential order).  A warp keeps its
best thread's record (the better value; on equal values the key that comes first, or last
for lastmax / lastmin; a thread that changed nothing loses), its lane 0 writes it to the
per-warp partials, and the runtime picks the node's record among them and writes the
variables and the host key array, which the XMP reduction then compares over the nodes.

    #pragma xmp loop on t[i] reduction(firstmax: v /idx/) acc
    for (i = 0; i < N; i++)
      if (a[i] > v) { v = a[i]; idx = i; }
->  host C:  { long long _xmpacc_lkey_0[2] = {0};  <reduce_var_begin>  <launch>
               _xmpacc_loop_reduce_var(..., 1, (void *[]){&idx}, ..., 1, _xmpacc_lkey_0); }
    kernel:  (..., double v, int idx, long long *_xmpacc_lkp_0, double *_xmpacc_lvp_0_0, int *_xmpacc_lvp_0_1)
             long long _xmpacc_lk_0[2] = {0};
             { double _xmpacc_ls_0_0 = v; int _xmpacc_ls_0_1 = idx;
               do { if (a[...] > v) { ... } } while (0);
               if (_xmpacc_differ(&_xmpacc_ls_0_0, &v, sizeof(v)) || ...)
                 { _xmpacc_lk_0[0] = 1; _xmpacc_lk_0[1] = (i - (0)) / (1); } }
             _XMPACC_WARP_STEPS { <the butterfly partner's record, kept if better> }
             lane 0: _xmpacc_lkp_0[...] = _xmpacc_lk_0[...]; _xmpacc_lvp_0_0[...] = v; ...

Such kernels neither stream nor split lanes: one thread runs one iteration.

``margin`` launches the kernel once per rim cell and ``peel_and_wait`` over the interior,
then the rim (kernel_ranges.py): the launches do not run in sequential order, so each must
start from the values before the loop, not from the record of the launches before it, and
the node's record is the better of the launches' records, by value and then by key.  The
host key array goes on with the count of launches and those values (a word each:
device types are at most 8 bytes), which the runtime keeps there and compares
(runtime/acc_locations.py, LOCATED_IN_PARTS):

    long long _xmpacc_lkey_0[2 + 1 + 2] = {0};   (key; launches; v, idx before the loop)
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import InternalError, SourceLoc, XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.common.canonical import CanonicalLoop
from xmpacc.passes.common.reductions import check_not_indices
from xmpacc.passes.common.values import KernelVars, Param
from xmpacc.passes.common.varrefs import declared, shape
from xmpacc.passes.kernel.kernels import base_type_names, declaration
from xmpacc.runtime.contract import LAUNCH_LOCATED, LAUNCH_LOCFIELD, LOCATED_IN_PARTS, REDUCTION_OPS
from xmpacc.symbols import Scope

LOCATED_OPS = ("firstmax", "firstmin", "lastmax", "lastmin")
_DEVICE_TYPES = {"char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool"}


@dataclass(frozen=True, slots=True)
class Located:
    """One reduction variable with location variables, as a kernel tracks it."""

    number: int                     # its place among the kernel's: names its C variables
    value: str                      # the reduction variable
    op: str                         # one of LOCATED_OPS
    locations: tuple[str, ...]
    trips: tuple[str, ...]          # C: the trip number of each loop of the thread space
    in_parts: bool = False          # margin / peel_and_wait: a launch per part (module docstring)

    @property
    def watched(self) -> tuple[str, ...]:
        """The variables whose change an iteration records (a name once)."""
        return tuple(dict.fromkeys((self.value,) + self.locations))

    @property
    def host_key(self) -> str:
        return f"_xmpacc_lkey_{self.number}"

    @property
    def nkey(self) -> int:
        return len(self.trips) + 1

    @property
    def host_words(self) -> int:
        """The host key array's length: the key, and in parts the launches and the start values."""
        return self.nkey + (1 + len(self.watched) if self.in_parts else 0)


def located(loop: xd.Loop, loops: list[CanonicalLoop], scope: Scope) -> tuple[Located, ...]:
    """The loop's reductions with location variables, checked; ``loops`` is the kernel's
    thread space, outermost first; ``loop``'s location arrays and sections are scalars
    already (kernel_location_elements.scalarize)."""
    out: list[Located] = []
    for red in loop.reductions:
        for var in red.variables:
            if not var.locations:
                continue
            _check_scalar(var.ref, scope, "has location variables, so it must be a scalar")
            check_not_indices(var, {lp.var for lp in loops})
            for ref in var.locations:   # arrays and sections are scalars by now (kernel_location_elements.py)
                _check_scalar(ref, scope, "is subscripted but is not an array")
            out.append(Located(len(out), var.name.name, red.op, tuple(r.name.name for r in var.locations),
                               tuple(f"({lp.var} - ({lp.init})) / ({lp.step})" for lp in loops),
                               loop.margin is not None or loop.peel_and_wait is not None))
    return tuple(out)


def _check_scalar(ref: xd.VarRef, scope: Scope, problem: str) -> None:
    decl = declared(ref, scope, "a location variable")
    name = ref.name.name
    rank, _t = shape(decl)
    if isinstance(decl.type, c_ast.PtrDecl):
        raise XmpError(ref.name.loc, f"'{name}' is a pointer; reductions with location variables of "
                                     "a GPU loop take scalars")
    if rank or ref.subs is not None:
        raise XmpError(ref.name.loc, f"'{name}' {problem}")
    names = base_type_names(decl.type)
    if not names or any(n not in _DEVICE_TYPES for n in names):
        shown = " ".join(names) if names else "a struct or union"
        raise XmpError(ref.name.loc, f"'{name}' has type '{shown}', which acc loops do not support yet "
                                     "(use int, long, float, double ...)")


def value_names(located_vars: tuple[Located, ...]) -> list[str]:
    """Every watched variable: firstprivate in the kernel."""
    return list(dict.fromkeys(n for loc in located_vars for n in loc.watched))


def host_decls(located_vars: tuple[Located, ...],
               coord: object) -> tuple[list[c_ast.Node], dict[str, tuple[str, int]]]:
    """The host key arrays (zero: no thread changed anything; in parts, no launch yet) and,
    per reduction variable, its key array and length for ``loop_reduction_calls``."""
    decls: list[c_ast.Node] = []
    for loc in located_vars:
        decls += cbuild.stmts(f"long long {loc.host_key}[{loc.host_words}] = {{0}};", coord)
    return decls, {loc.value: (loc.host_key, len(loc.trips)) for loc in located_vars}


def instrument(body: c_ast.Node, located_vars: tuple[Located, ...],
               scope: Scope, coord: object) -> c_ast.Node:
    """``body`` between the saves of the watched variables and the checks that record the
    key (``continue`` in the body ends the do-while, so it still reaches the checks)."""
    saves: list[str] = []
    checks: list[str] = []
    for loc in located_vars:
        changed = []
        for j, name in enumerate(loc.watched):
            saved = f"_xmpacc_ls_{loc.number}_{j}"
            found = scope.find_c(name)
            assert found is not None   # located() checked it
            decl = found[1]
            saves.append(f"{declaration(decl, saved)} = {name};")
            changed.append(f"_xmpacc_differ(&{saved}, &{name}, sizeof({name}))")
        key = f"_xmpacc_lk_{loc.number}"
        sets = " ".join(f"{key}[{t + 1}] = {trip};" for t, trip in enumerate(loc.trips))
        checks.append(f"if ({' || '.join(changed)}) {{ {key}[0] = 1; {sets} }}")
    items = cbuild.stmts(" ".join(saves) + " do ; while (0); " + " ".join(checks), coord)
    items[len(saves)].stmt = body
    return c_ast.Compound(items, coord)


def check_firstprivate(located_vars: tuple[Located, ...], kv: KernelVars, where: SourceLoc) -> None:
    """Every watched variable must have become a per-thread copy of its value before the
    loop (not a private variable, nor another reduction's).  One with a device copy is by
    value too, as every firstprivate scalar is (kernel_vars.py): the XcalableACC path swaps
    the device values in around the loop's calls (acc_comm.loop_reduction_swaps); the
    XMP-ACC path reduces into the host variables, as it does without location variables."""
    per_thread = {name for name, _d in kv.by_value}
    for loc in located_vars:
        for name in loc.watched:
            if name in per_thread:
                continue
            # private or a second reduction contradicts the reduction, which sets the
            # variable after the loop
            if any(p == name for p, _d in kv.private):
                raise XmpError(where, f"'{name}' of a reduction with location variables is private in this "
                                      "GPU loop: the reduction sets it after the loop, a private copy ends "
                                      "with its thread; take it out of private(...)")
            if any(r == name for r, _d, _op in kv.reductions):
                raise XmpError(where, f"'{name}' of a reduction with location variables is reduced by "
                                      "another reduction clause too: a variable takes part in one reduction")
            raise InternalError(f"'{name}' of a reduction with location variables is not by "
                                "value in a kernel")


def prologue(located_vars: tuple[Located, ...]) -> list[str]:
    return [f"long long _xmpacc_lk_{loc.number}[{loc.nkey}] = {{0}};" for loc in located_vars]


def params(located_vars: tuple[Located, ...], kv: KernelVars) -> list[Param]:
    """Per reduction: the per-warp keys, then the per-warp values of each watched variable."""
    decls = dict(kv.by_value)
    out: list[Param] = []
    for loc in located_vars:
        n = loc.number
        out.append(Param(f"_xmpacc_lkp_{n}", f"long long *_xmpacc_lkp_{n}", loc.host_key, LAUNCH_LOCATED,
                         str(loc.nkey),
                         str(REDUCTION_OPS[loc.op] + (LOCATED_IN_PARTS if loc.in_parts else 0))))
        for j, name in enumerate(loc.watched):
            out.append(Param(f"_xmpacc_lvp_{n}_{j}",
                             declaration(decls[name], f"_xmpacc_lvp_{n}_{j}", pointer=True),
                             f"&{name}", LAUNCH_LOCFIELD, f"_XMPACC_TYPE({name})"))
    return out


def epilogue(located_vars: tuple[Located, ...], kv: KernelVars) -> list[str]:
    """Each warp's best record, written by its lane 0 (every thread of the host backend)."""
    decls = dict(kv.by_value)
    lines: list[str] = []
    for loc in located_vars:
        n, key, other = loc.number, f"_xmpacc_lk_{loc.number}", f"_xmpacc_wk_{loc.number}"
        fields = [(name, f"_xmpacc_wv_{n}_{j}") for j, name in enumerate(loc.watched)]
        shuffles = [f"long long {other}[{loc.nkey}];"]
        shuffles += [f"{other}[{j}] = _XMPACC_SHFL_XOR({key}[{j}]);" for j in range(loc.nkey)]
        shuffles += [f"{declaration(decls[name], w)} = _XMPACC_SHFL_XOR({name});" for name, w in fields]
        v, w = loc.value, fields[0][1]
        above, below = (f"{w} > {v}", f"{w} < {v}") if loc.op.endswith("max") \
            else (f"{w} < {v}", f"{w} > {v}")
        last = int(loc.op.startswith("last"))
        take = [f"{key}[{j}] = {other}[{j}];" for j in range(loc.nkey)] + \
            [f"{name} = {w};" for name, w in fields]
        writes = [f"_xmpacc_lkp_{n}[_xmpacc_p * {loc.nkey} + {j}] = {key}[{j}];" for j in range(loc.nkey)]
        writes += [f"_xmpacc_lvp_{n}_{j}[_xmpacc_p] = {name};" for j, (name, _w) in enumerate(fields)]
        lines += ["_XMPACC_WARP_STEPS {", *(f"  {s}" for s in shuffles),
                  f"  if (_xmpacc_loc_better({other}, {key}, {loc.nkey}, {above}, {below}, {last})) "
                  f"{{ {' '.join(take)} }}", "}",
                  "{", "  long long _xmpacc_p = _XMPACC_PARTIAL_SLOT(_xmpacc_gid);",
                  f"  if (_xmpacc_p >= 0) {{ {' '.join(writes)} }}", "}"]
    return lines
