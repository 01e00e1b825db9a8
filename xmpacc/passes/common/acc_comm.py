"""XMP communication directives with XcalableACC's ``acc`` clause (XcalableACC.md §4), for
the comm pass: they work on the device copies of their variables.

Before:                                  After:
    #pragma xmp reflect_init (u) acc         _xmpacc_reflect_init_acc(&_xmpacc_a_u, "f.c:10", 0, 0);
    #pragma xmp reflect_do (u) acc           _xmpacc_reflect_do_acc(&_xmpacc_a_u, "f.c:12");
    #pragma xmp bcast (x) acc                _xmpacc_bcast_acc(&x, "f.c:14", sizeof(x), ..., "x");
    #pragma xmp reduction (+:s) acc          _xmpacc_reduce_acc(&s, "f.c:15", 1, _XMPACC_TYPE(s), 1, 0, 0,
                                                                "s");
    #pragma xmp bcast (k[0:2]) acc           { _xmpacc_acc_swap("f.c:16", k, sizeof(k), "k");
                                               _xmpacc_bcast_section(k, ...);
                                               _xmpacc_acc_swap("f.c:16", k, sizeof(k), "k"); }
    #pragma xmp barrier acc                  _xmpacc_acc_wait("f.c:18", -1, 0); _xmpacc_barrier(...);

An XMP loop's reduction around an OpenACC construct (``loop_reduction_swaps``) swaps the
same way, at run time only the variables that are on the device: there the construct's
reduction left the node's result in the device copy (runtime/acc.py), so the reset
before the kernel and the reduction over the nodes after it work on the device values:

    #pragma xmp loop on t[i] reduction(+:s) acc     _xmpacc_acc_swap_reduced("f.c:20", &s, sizeof(s), "s", 1);
    #pragma acc parallel loop                       _xmpacc_loop_reduce_begin(&_xmpacc_t_t, ..., &s, ...);
    for (...) s += a[i];                            _xmpacc_acc_swap_reduced(... the same ...);
                                                    <the launch>, then the same around _xmpacc_loop_reduce

Without the loop's ``acc`` (last argument 0) a variable on no device copy is the host's.
A reduction with location variables swaps its variables once around all of those calls.

``bcast`` and ``reduction`` with ``acc`` of whole variables and elements call the device
forms of the host entries (runtime/acc_collectives.py: NCCL between GPUs).  Sections and
location reductions run the host collective on the device values: the first swap
exchanges the host and device copies of each variable (an error naming the line when one
is not present), the second puts the result on the device and the host value back, so
the host copy is untouched as on a GPU.  With ``acc`` they complete at once (``async``
permits overlap, it does not require it).
"""

from __future__ import annotations

import copy

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.directives import ast as xd
from xmpacc.passes.common import shadows
from xmpacc.passes.common.acc_clauses import var_key
from xmpacc.passes.common.varrefs import param_bytes
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


# host entries with a device form of the same arguments; the others may stand beside them
_DEVICE_FORMS = {"_xmpacc_bcast": "_xmpacc_bcast_acc", "_xmpacc_reduce": "_xmpacc_reduce_acc"}
_NEUTRAL = {"_xmpacc_async_begin", "_xmpacc_async_end"}


def _device_forms(host_calls: list[c_ast.Node]) -> list[c_ast.Node] | None:
    """``host_calls`` with each collective renamed to its device form; None when one of
    them has none (sections, location reductions: the swap path)."""
    out = copy.deepcopy(host_calls)
    named = [c for node in out for c in cbuild.walk(node) if isinstance(c, c_ast.FuncCall)
             and isinstance(c.name, c_ast.ID) and c.name.name.startswith("_xmpacc_")]
    if not any(c.name.name in _DEVICE_FORMS for c in named) or \
            any(c.name.name not in _DEVICE_FORMS and c.name.name not in _NEUTRAL for c in named):
        return None
    for c in named:
        if c.name.name in _DEVICE_FORMS:
            c.name.name = _DEVICE_FORMS[c.name.name]
            c.args.exprs.append(c_ast.Constant("string", cbuild.c_string(_variable(c.args.exprs[0]))))
    return out


def _variable(node: c_ast.Node) -> str:
    """The variable a data argument (``&x``, ``&k[1]``, ``v``) addresses, for messages."""
    return next((n.name for n in cbuild.walk(node) if isinstance(n, c_ast.ID)), "?")


def loop_reduction_swaps(loop: xd.Loop, scope: Scope, located: bool = False) -> str:
    """C text: one swap of each reduction variable of an XMP loop with an OpenACC construct (the
    module docstring), those without location variables; ``located``: instead, of each
    variable of a reduction with location variables and of its location variables.  The
    kernel reads those by value and leaves the node's record in host memory
    (kernel_locations.py), so their swaps stand around all of the loop's calls: the kernel
    starts from the device values, and the result over the nodes goes to the device."""
    where = cbuild.where_literal(loop.loc)
    first: dict[str, tuple[xd.VarRef, bool]] = {}   # each variable once, as first named; required?
    for v in (v for r in loop.reductions for v in r.variables if bool(v.locations) == located):
        first.setdefault(v.name.name, (v.ref, loop.acc is not None))
        for ref in v.locations:   # on the device where a data clause put them, else the host's
            first.setdefault(ref.name.name, (ref, False))
    out = []
    for name, (ref, required) in first.items():
        key, size = var_key(ref.name, scope)
        # an array parameter is a pointer (size -2, "no extent"), but the swap finds the
        # copies that overlap the elements the reduction names: as far as its extent goes
        size = param_bytes(ref, scope) or size
        out.append(f"_xmpacc_acc_swap_reduced({where}, {key}, {size}, {cbuild.c_string(name)}, "
                   f"{int(required)});")
    return "".join(out)


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
            f"_xmpacc_reflect_do_acc(&{shadows.shadow_array(name, scope, 'reflect_do').c_name}, {where});",
            coord)]
    if isinstance(d, (xd.Bcast, xd.ReductionDirective)):
        direct = _device_forms(host_calls)
        if direct is not None:
            return direct
    if isinstance(d, xd.Bcast):
        return _swapped([v.name for v in d.variables], host_calls, where, scope, coord)
    if isinstance(d, xd.ReductionDirective):
        return _swapped([v.name for v in d.reduction.variables], host_calls, where, scope, coord)
    if isinstance(d, (xd.Barrier, xd.WaitAsync)):  # every queue of the device, then the host directive
        return cbuild.stmts(f"_xmpacc_acc_wait({where}, -1, 0);", coord) + host_calls
    return host_calls
