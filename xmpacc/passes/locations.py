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
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.canonical import canonical


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


def instrument(loop: xd.Loop, top: c_ast.For, indices: dict[str, int],
               number: int) -> tuple[list[c_ast.Node], dict[str, tuple[str, int]]]:
    """Declarations to put before the nest and, per located variable, its key array and
    length; the innermost distributed loop's body is wrapped in place."""
    located = [v for r in loop.reductions for v in r.variables if v.locations]
    if not located:
        return [], {}
    chain = _chain(top, indices)
    loops = [canonical(node) for node in chain]
    trips = [f"({lp.var} - ({lp.init})) / ({lp.step})" for lp in loops]
    for var in located:
        check_not_indices(var, {lp.var for lp in loops})
    inner = chain[-1]
    decls: list[c_ast.Node] = []
    keys: dict[str, tuple[str, int]] = {}
    saves: list[str] = []
    checks: list[str] = []
    for k, var in enumerate(located):
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
    return decls, keys
