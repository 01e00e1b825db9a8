"""Location variables of a loop's ``firstmax``/``firstmin``/``lastmax``/``lastmin``
reduction (global-view §5): each node notes which iteration last changed the reduction
variable or its location variables, so that the runtime can pick, among the nodes that
hold the result, the one whose iteration comes first (last) in sequential order.

    #pragma xmp loop on t[i] reduction(firstmax: v /idx/)
    for (i = 0; i < N; i++)                 long long _xmpacc_key_1[2] = {0};
      if (a[i] > v) { v = a[i]; idx = i; }   unsigned char _xmpacc_lv_1_0[sizeof(v)], _xmpacc_lv_1_1[sizeof(idx)];
                                            <the nest, whose innermost distributed body becomes:>
      { __builtin_memcpy(_xmpacc_lv_1_0, &v, sizeof(v)); ... (idx too)
        do { if (a[i] > v) { ... } } while (0);
        if (__builtin_memcmp(_xmpacc_lv_1_0, &v, sizeof(v)) != 0 || ...)
          { _xmpacc_key_1[0] = 1; _xmpacc_key_1[1] = (i - (0)) / (1); } }

The key holds the trip number of every loop from the governed ``for`` down to the
innermost distributed one: lexicographic order of keys is sequential order.  ``continue``
in the body still reaches the check (the do-while ends instead).  GPU loops track the same
per thread (kernel_locations.py).

``margin`` runs the rim cell by cell and ``peel_and_wait`` the interior, then the rim: each
part runs in sequential order, but the parts do not (a rim cell may come first in sequential
order and run last), so a part would not see the ties of the parts before it.  Each part
starts again from the values before the loop, and its record replaces the node's best one
where it beats it, by value and then by key (``_xmpacc_loc_better``, as the threads of a GPU
loop compare theirs):

    { _xmpacc_key_1_0[0] = 0; <v, idx from their values before the loop>   (Parts.begin)
      <the part>
      if (_xmpacc_loc_better(_xmpacc_key_1_0, _xmpacc_kb_1_0, 2, v > _xmpacc_vb_1_0, v < _xmpacc_vb_1_0, 0))
        { _xmpacc_vb_1_0 = v; <v, idx and the key into the best record> } }   (Parts.end)
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.canonical import canonical
from xmpacc.passes.kernels import declaration
from xmpacc.passes.varrefs import declared, shape
from xmpacc.symbols import Scope


def _chain(top: c_ast.For, indices: dict[str, int]) -> list[c_ast.For]:
    """The loops from ``top`` down to the innermost distributed one (perfectly nested)."""
    from xmpacc.passes.loops import _control_var, _nested_for as nested   # loops imports this module

    chain: list[c_ast.For] = []
    pending: set[str] = set(indices)
    current: c_ast.For | None = top
    while current is not None and pending:
        chain.append(current)
        pending.discard(_control_var(current) or "")
        current = nested(current.stmt) if pending else None
    return chain


def check_not_indices(var: xd.ReductionVar, indices: set[str]) -> None:
    """The loop's own indices change between iterations, not in them, so the change that
    keys a record cannot be seen in them: an error where the program asks for that."""
    for k, ref in enumerate((var.ref,) + var.locations):
        name = ref.name.name
        if name in indices:
            what = "a location variable" if k else "the variable of a reduction"
            raise XmpError(ref.name.loc, f"'{name}' is an index of this loop, so it cannot be {what}: the loop, "
                                         "not the body, changes it; note the index in a variable of your own, "
                                         f"as in 'if (a[{name}] > v) {{ v = a[{name}]; at = {name}; }}' with /at/")


@dataclass(frozen=True, slots=True)
class Parts:
    """C text around the parts of a ``margin`` or ``peel_and_wait`` loop (module docstring)."""

    start: str    # after the reductions' begin calls: the values before the loop, the first best record
    begin: str    # before each part: the located variables start again from those values
    end: str      # after each part: its record becomes the best one where it beats it
    finish: str   # after the last part: the best record into the variables and the key

    def around(self, nest: c_ast.Node, cell: str | None) -> c_ast.Node:
        """``nest`` as parts: each cell of a margin nest's loop over ``cell``, else the nest."""
        coord = nest.coord
        if cell is not None and isinstance(nest, c_ast.For) and isinstance(nest.stmt, c_ast.Compound):
            nest.stmt.block_items = (cbuild.stmts(self.begin, coord) + (nest.stmt.block_items or [])
                                     + cbuild.stmts(self.end, coord))
            return nest
        return c_ast.Compound(cbuild.stmts(self.begin, coord) + [nest] + cbuild.stmts(self.end, coord), coord)


def instrument(loop: xd.Loop, top: c_ast.For, indices: dict[str, int], number: int,
               scope: Scope) -> tuple[list[c_ast.Node], dict[str, tuple[str, int]], Parts | None]:
    """Declarations to put before the nest, per located variable its key array and length,
    and, for a loop with ``margin`` or ``peel_and_wait``, the text around its parts; the
    innermost distributed loop's body is wrapped in place."""
    located = [(v, r.op) for r in loop.reductions for v in r.variables if v.locations]
    if not located:
        return [], {}, None
    chain = _chain(top, indices)
    loops = [canonical(node) for node in chain]
    trips = [f"({lp.var} - ({lp.init})) / ({lp.step})" for lp in loops]
    for var, _op in located:
        check_not_indices(var, {lp.var for lp in loops})
    inner = chain[-1]
    decls: list[c_ast.Node] = []
    keys: dict[str, tuple[str, int]] = {}
    saves: list[str] = []
    checks: list[str] = []
    for k, (var, _op) in enumerate(located):
        key = f"_xmpacc_key_{number}_{k}"
        keys[var.name.name] = (key, len(trips))
        decls += cbuild.stmts(f"long long {key}[{len(trips) + 1}] = {{0}};", top.coord)
        watched = [var.name.name] + [loc.name.name for loc in var.locations]
        changed = []
        for j, name in enumerate(dict.fromkeys(watched)):
            buf = f"_xmpacc_lv_{number}_{k}_{j}"
            decls += cbuild.stmts(f"unsigned char {buf}[sizeof({name})];", top.coord)
            saves.append(f"__builtin_memcpy({buf}, &{name}, sizeof({name}));")
            changed.append(f"__builtin_memcmp({buf}, &{name}, sizeof({name})) != 0")
        sets = " ".join(f"{key}[{t + 1}] = {trip};" for t, trip in enumerate(trips))
        checks.append(f"if ({' || '.join(changed)}) {{ {key}[0] = 1; {sets} }}")
    body = cbuild.stmts(" ".join(saves) + " do ; while (0); " + " ".join(checks), inner.coord)
    body[len(saves)].stmt = inner.stmt
    inner.stmt = c_ast.Compound(body, inner.coord)
    if loop.margin is None and loop.peel_and_wait is None:
        return decls, keys, None
    _check_apart([var for var, _op in located])
    records = [_record(var, op, f"{number}_{k}", len(trips) + 1, scope) for k, (var, op) in enumerate(located)]
    if any(r is None for r in records):
        return decls, keys, None   # loop_reduction_calls reports the variable that is no scalar
    texts = [r for r in records if r is not None]
    decls += cbuild.stmts("".join(r[0] for r in texts), top.coord)
    return decls, keys, Parts(*("".join(r[i] for r in texts) for i in range(1, 5)))


def _check_apart(located: list[xd.ReductionVar]) -> None:
    """Each part restarts a reduction's variables whole (a location array with every element):
    a variable that two reductions watch would restart, and end, as one of them left it."""
    owner: dict[str, str] = {}
    for var in located:
        for ref in dict((r.name.name, r) for r in (var.ref,) + var.locations).values():
            first = owner.setdefault(ref.name.name, var.name.name)
            if first != var.name.name:
                raise XmpError(ref.name.loc, f"'{ref.name.name}' takes part in the reductions of both '{first}' "
                                             f"and '{var.name.name}': with location variables in a host loop with "
                                             "'margin' or 'peel_and_wait' this is not supported yet; give each "
                                             "reduction variables (and arrays) of its own")


def _record(var: xd.ReductionVar, op: str, suffix: str, nkey: int, scope: Scope) -> tuple[str, ...] | None:
    """C text of one located variable's best record (Parts): its declarations, then its
    start, begin, end and finish; None where the reduction variable is no scalar."""
    decl = declared(var.ref, scope, "a reduction variable")
    if var.subs is not None or shape(decl)[0] != 0:
        return None
    key, best_key, best = f"_xmpacc_key_{suffix}", f"_xmpacc_kb_{suffix}", f"_xmpacc_vb_{suffix}"
    v = var.name.name
    watched = list(dict.fromkeys([v] + [loc.name.name for loc in var.locations]))
    first = [f"_xmpacc_l0_{suffix}_{j}" for j in range(len(watched))]    # the values before the loop
    kept = [f"_xmpacc_lb_{suffix}_{j}" for j in range(len(watched))]     # the best record's
    decls = (f"long long {best_key}[{nkey}] = {{0}}; {declaration(decl, best)};"
             + "".join(f"unsigned char {a}[sizeof({n})]; unsigned char {b}[sizeof({n})];"
                       for a, b, n in zip(first, kept, watched)))
    start = "".join(f"__builtin_memcpy({a}, &{n}, sizeof({n})); __builtin_memcpy({b}, &{n}, sizeof({n}));"
                    for a, b, n in zip(first, kept, watched)) + f"{best} = {v};"
    begin = f"{key}[0] = 0;" + "".join(f"__builtin_memcpy(&{n}, {a}, sizeof({n}));" for a, n in zip(first, watched))
    above, below = (f"{v} > {best}", f"{v} < {best}") if op.endswith("max") else (f"{v} < {best}", f"{v} > {best}")
    end = (f"if (_xmpacc_loc_better({key}, {best_key}, {nkey}, {above}, {below}, {int(op.startswith('last'))})) "
           f"{{ {best} = {v}; "
           + "".join(f"__builtin_memcpy({b}, &{n}, sizeof({n}));" for b, n in zip(kept, watched))
           + f"__builtin_memcpy({best_key}, {key}, sizeof({key})); }}")
    finish = "".join(f"__builtin_memcpy(&{n}, {b}, sizeof({n}));" for b, n in zip(kept, watched)) + \
        f"__builtin_memcpy({key}, {best_key}, sizeof({key}));"
    return decls, start, begin, end, finish
