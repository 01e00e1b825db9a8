"""XMP communication directives with XcalableACC's ``acc`` clause (XcalableACC.md §4), for
the comm pass: they work on the device copies of their variables.

Before:                                  After:
    #pragma xmp reflect_init (u) acc         _xmpacc_reflect_init_acc(&_xmpacc_a_u, "f.c:10", 0, 0);
    #pragma xmp reflect_do (u) acc           _xmpacc_reflect_do_acc(&_xmpacc_a_u, "f.c:12");
    #pragma xmp bcast (x) acc                { _xmpacc_acc_swap("f.c:14", &x, sizeof(x), "x");
                                               _xmpacc_bcast(&x, ...);
                                               _xmpacc_acc_swap("f.c:14", &x, sizeof(x), "x"); }
    #pragma xmp barrier acc                  _xmpacc_acc_wait("f.c:16", -1, 0); _xmpacc_barrier(...);

``bcast`` and ``reduction`` with ``acc`` run the host collective on the device values:
the first swap exchanges the host and device copies of each variable (an error naming the
line when one is not present), the second puts the result on the device and the host
value back, so the host copy is untouched as on a GPU.  With ``acc`` they complete at
once (``async`` permits overlap, it does not require it).
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes import shadows
from xmpacc.passes.acc_data import var_key
from xmpacc.symbols import Scope


def _swapped(names: list[xd.Name], calls: list[c_ast.Node], where: str, scope: Scope,
             coord: object) -> list[c_ast.Node]:
    first: dict[str, xd.Name] = {}
    for n in names:
        first.setdefault(n.name, n)
    swaps = []
    for name, found in first.items():
        key, size = var_key(found, scope)
        swaps.append(f"_xmpacc_acc_swap({where}, {key}, {size}, {cbuild.c_string(name)});")
    text = "".join(swaps)
    return [c_ast.Compound(cbuild.stmts(text, coord) + calls + cbuild.stmts(text, coord), coord)]


def lower(d: xd.Directive, scope: Scope, coord: object, host_calls: list[c_ast.Node]) -> list[c_ast.Node]:
    """The device form of ``d`` (its ``acc`` clause set); ``host_calls`` is its host form."""
    where = cbuild.where_literal(d.loc)  # type: ignore[attr-defined]
    if isinstance(d, xd.ReflectInit):
        out: list[c_ast.Node] = []
        for name in d.arrays:
            sym = shadows.shadow_array(name, scope, "reflect_init")
            out += cbuild.stmts(f"_xmpacc_reflect_init_acc(&{sym.c_name}, {where}, "
                                f"{shadows.widths_arg(d.widths, sym, d.loc)}, {int(d.orthogonal)});", coord)
        return out
    if isinstance(d, xd.ReflectDo):
        return [s for name in d.arrays for s in cbuild.stmts(
            f"_xmpacc_reflect_do_acc(&{shadows.shadow_array(name, scope, 'reflect_do').c_name}, {where});", coord)]
    if isinstance(d, xd.Bcast):
        return _swapped([v.name for v in d.variables], host_calls, where, scope, coord)
    if isinstance(d, xd.ReductionDirective):
        return _swapped([v.name for v in d.reduction.variables], host_calls, where, scope, coord)
    if isinstance(d, (xd.Barrier, xd.WaitAsync)):  # every queue of the device, then the host directive
        return cbuild.stmts(f"_xmpacc_acc_wait({where}, -1, 0);", coord) + host_calls
    return host_calls
