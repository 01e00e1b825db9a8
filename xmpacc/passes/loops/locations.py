"""Location variables of a loop's ``firstmax``/``firstmin``/``lastmax``/``lastmin``
reduction (global-view §5): each node notes which iteration last changed the reduction
variable or its location variables, so that the runtime can pick, among the nodes that
hold the result, the one whose iteration comes first (last) in sequential order.

    #pragma xmp loop on t[i] reduction(firstmax: v /idx/)
    for (i = 0; i < N; i++)                 long long _xmpacc_key_1[2] = {0};
      if (a[i] > v) { v = a[i]; idx = i; }   unsigned char _xmpacc_lv_1_0[sizeof(v)],
                                                           _xmpacc_lv_1_1[sizeof(idx)];
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
from xmpacc.passes.common.canonical import canonical
from xmpacc.passes.common.loopnest import control_var, nested_for
from xmpacc.passes.common.reductions import check_not_indices
from xmpacc.passes.common.varrefs import declared, outer_extent, place, shape
from xmpacc.passes.kernel.kernel_location_elements import constant_extents, section_indices
from xmpacc.passes.kernel.kernels import declaration
from xmpacc.symbols import Scope


def _chain(top: c_ast.For, indices: dict[str, int]) -> list[c_ast.For]:
    """The loops from ``top`` down to the innermost distributed one (perfectly nested)."""
    chain: list[c_ast.For] = []
    pending: set[str] = set(indices)
    current: c_ast.For | None = top
    while current is not None and pending:
        chain.append(current)
        pending.discard(control_var(current) or "")
        current = nested_for(current.stmt) if pending else None
    return chain


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
    _check_apart([var for var, _op in located], scope)
    inner = chain[-1]
    decls: list[c_ast.Node] = []
    keys: dict[str, tuple[str, int]] = {}
    saves: list[str] = []
    checks: list[str] = []
    for k, (var, _op) in enumerate(located):
        key = f"_xmpacc_key_{number}_{k}"
        keys[var.name.name] = (key, len(trips))
        decls += cbuild.stmts(f"long long {key}[{len(trips) + 1}] = {{0}};", top.coord)
        changed, walks = [], []
        for j, name in enumerate(_watched(var)):
            buf = f"_xmpacc_lv_{number}_{k}_{j}"
            at, size = _place(var, name, scope)
            decls += cbuild.stmts(f"unsigned char {buf}[{size}];", top.coord)
            saves.append(f"__builtin_memcpy({buf}, {at}, {size});")
            sections = _sections(var, name)
            if sections is None:
                changed.append(f"__builtin_memcmp({buf}, {at}, {size}) != 0")
            else:   # only the elements it tracks: another reduction may track others of the array
                walks += [_walk(ref, scope, f"if (__builtin_memcmp({buf} + _xmpacc_off, (char *) {at} + "
                                            f"_xmpacc_off, _xmpacc_esz)) _xmpacc_ch = 1;")
                          for ref in sections]
        sets = " ".join(f"{key}[{t + 1}] = {trip};" for t, trip in enumerate(trips))
        checks.append(f"{{ int _xmpacc_ch = {' || '.join(changed) or '0'}; {''.join(walks)} "
                      f"if (_xmpacc_ch) {{ {key}[0] = 1; {sets} }} }}")
    body = cbuild.stmts(" ".join(saves) + " do ; while (0); " + " ".join(checks), inner.coord)
    body[len(saves)].stmt = inner.stmt
    inner.stmt = c_ast.Compound(body, inner.coord)
    if loop.margin is None and loop.peel_and_wait is None:
        return decls, keys, None
    records = [_record(var, op, f"{number}_{k}", len(trips) + 1, scope)
               for k, (var, op) in enumerate(located)]
    if any(r is None for r in records):
        return decls, keys, None   # loop_reduction_calls reports the variable that is no scalar
    texts = [r for r in records if r is not None]
    decls += cbuild.stmts("".join(r[0] for r in texts), top.coord)
    return decls, keys, Parts(*("".join(r[i] for r in texts) for i in range(1, 5)))


def _watched(var: xd.ReductionVar) -> list[str]:
    """The variables ``var``'s record watches: the reduction variable, then its location
    variables, each once."""
    return list(dict.fromkeys([var.name.name] + [loc.name.name for loc in var.locations]))


def _place(var: xd.ReductionVar, name: str, scope: Scope) -> tuple[str, str]:
    """(address, bytes) of a watched variable: an array parameter is a pointer, whose
    elements go as far as its extent or the location section names (varrefs.place)."""
    ref = next(r for r in (var.ref,) + var.locations if r.name.name == name)
    return place(ref, scope)


def _copy_back(var: xd.ReductionVar, name: str, kept: str, scope: Scope) -> str:
    """C: ``name`` from the best record's copy ``kept``; of an array, only the elements
    ``var`` tracks, since another reduction may track others (_check_apart)."""
    sections = _sections(var, name)
    at, size = _place(var, name, scope)
    if sections is None:
        return f"__builtin_memcpy({at}, {kept}, {size});"
    return "".join(_walk(ref, scope, f"__builtin_memcpy((char *) {at} + _xmpacc_off, "
                                     f"{kept} + _xmpacc_off, _xmpacc_esz);") for ref in sections)


def _sections(var: xd.ReductionVar, name: str) -> list[xd.VarRef] | None:
    """The sections (or elements) of ``name`` that ``var``'s record tracks, None where it
    tracks the whole variable."""
    refs = [ref for ref in var.locations if ref.name.name == name]
    if name == var.name.name or not refs or any(ref.subs is None for ref in refs):
        return None
    return refs


def _walk(ref: xd.VarRef, scope: Scope, body: str) -> str:
    """C: ``body`` for every element of the section ``ref`` (trailing dimensions whole), with
    ``_xmpacc_off`` the element's byte offset in the array and ``_xmpacc_esz`` its size."""
    name, subs = ref.name.name, ref.subs or ()
    decl = declared(ref, scope, "a location variable")
    rank = shape(decl)[0]
    loops, index = [], []
    for d in range(rank):
        sub = subs[d] if d < len(subs) else None
        if isinstance(sub, xd.Expr):
            index.append(f"({sub.text})")
            continue
        base = f"({sub.base.text})" if sub is not None and sub.base is not None else "0"
        step = f"({sub.step.text})" if sub is not None and sub.step is not None else "1"
        if sub is not None and sub.length is not None:
            length = f"({sub.length.text})"
        else:   # to the end: an array parameter's outer extent is its declared one
            extent = outer_extent(ref, decl, scope) if d == 0 else cbuild.extent_of(name, d, d + 1)
            length = f"((long long) ({extent}) - {base} + {step} - 1) / {step}"
        k = f"_xmpacc_e{d}"
        loops.append(f"for (long long {k} = 0; {k} < {length}; {k}++) ")
        index.append(f"{base} + {k} * {step}")
    element = name + "".join(f"[{i}]" for i in index)
    return (f"{{ const long long _xmpacc_esz = sizeof({name}{'[0]' * rank}); {''.join(loops)}"
            f"{{ long long _xmpacc_off = (char *) &{element} - (char *) {place(ref, scope)[0]}; {body} }} }}")


def _check_apart(located: list[xd.ReductionVar], scope: Scope) -> None:
    """A variable takes part in one reduction (after the loop each reduction sets its own):
    two reductions may track different elements of one array, as on GPU loops
    (kernel_location_elements.py), with sections of constant bounds, but not one element."""
    users: dict[str, list[tuple[str, xd.VarRef]]] = {}
    for var in located:
        for ref in (var.ref,) + var.locations:
            users.setdefault(ref.name.name, []).append((var.name.name, ref))
    for name, uses in users.items():
        if len({owner for owner, _ref in uses}) < 2:
            continue
        first = uses[0][0]
        second, at = next((owner, ref) for owner, ref in uses if owner != first)
        sections = [(owner, ref, _elements(ref, scope)) for owner, ref in uses]
        if any(elements is None for _owner, _ref, elements in sections):
            raise XmpError(at.name.loc, f"'{name}' takes part in the reductions of both '{first}' and "
                                        f"'{second}': two reductions may only track sections of "
                                        "constant bounds of one array")
        tracked: dict[tuple[int, ...], str] = {}
        for owner, ref, elements in sections:
            for e in elements or ():
                if tracked.setdefault(e, owner) != owner:
                    shown = name + "".join(f"[{k}]" for k in e)
                    raise XmpError(ref.loc, f"'{shown}' is a location variable of two reductions of this "
                                            "loop: a variable takes part in one reduction")


def _elements(ref: xd.VarRef, scope: Scope) -> list[tuple[int, ...]] | None:
    """The indices of the elements of the section ``ref`` of a constant-size array (None
    where it is no such section)."""
    found = scope.find_c(ref.name.name)
    extents = constant_extents(found[1]) if found is not None and ref.subs is not None else []
    if not extents or None in extents:
        return None
    try:
        return section_indices(ref, [n for n in extents if n is not None])
    except XmpError:   # bounds that are not constants (or outside the array): not checkable here
        return None


def _record(var: xd.ReductionVar, op: str, suffix: str, nkey: int, scope: Scope) -> tuple[str, ...] | None:
    """C text of one located variable's best record (Parts): its declarations, then its
    start, begin, end and finish; None where the reduction variable is no scalar."""
    decl = declared(var.ref, scope, "a reduction variable")
    if var.subs is not None or shape(decl)[0] != 0:
        return None
    key, best_key, best = f"_xmpacc_key_{suffix}", f"_xmpacc_kb_{suffix}", f"_xmpacc_vb_{suffix}"
    v = var.name.name
    watched = [_place(var, n, scope) for n in _watched(var)]   # (address, bytes)
    first = [f"_xmpacc_l0_{suffix}_{j}" for j in range(len(watched))]    # the values before the loop
    kept = [f"_xmpacc_lb_{suffix}_{j}" for j in range(len(watched))]     # the best record's
    decls = (f"long long {best_key}[{nkey}] = {{0}}; {declaration(decl, best)};"
             + "".join(f"unsigned char {a}[{n}]; unsigned char {b}[{n}];"
                       for a, b, (_at, n) in zip(first, kept, watched, strict=True)))
    start = "".join(f"__builtin_memcpy({a}, {at}, {n}); __builtin_memcpy({b}, {at}, {n});"
                    for a, b, (at, n) in zip(first, kept, watched, strict=True)) + f"{best} = {v};"
    begin = f"{key}[0] = 0;" + "".join(f"__builtin_memcpy({at}, {a}, {n});"
                                       for a, (at, n) in zip(first, watched, strict=True))
    above, below = (f"{v} > {best}", f"{v} < {best}") if op.endswith("max") \
        else (f"{v} < {best}", f"{v} > {best}")
    end = (f"if (_xmpacc_loc_better({key}, {best_key}, {nkey}, {above}, {below}, "
           f"{int(op.startswith('last'))})) {{ {best} = {v}; "
           + "".join(f"__builtin_memcpy({b}, {at}, {n});" for b, (at, n) in zip(kept, watched, strict=True))
           + f"__builtin_memcpy({best_key}, {key}, sizeof({key})); }}")
    finish = "".join(_copy_back(var, n, b, scope) for b, n in zip(kept, _watched(var), strict=True)) + \
        f"__builtin_memcpy({key}, {best_key}, sizeof({key}));"
    return decls, start, begin, end, finish
