"""``reflect``, ``reflect_init``/``reflect_do`` and ``reduce_shadow`` as runtime calls (pass comm; a
``reflect`` among the statements of ``loop ... acc`` too, pass gpu; reference §6.3,
global-view §7).

    #pragma xmp reflect (u) width(1, 0) orthogonal
        -> _xmpacc_reflect_orthogonal(&_xmpacc_a_u, "f.c:8", (const long long []){(1), (1), 0, (0), (0), 0});
    #pragma xmp reflect_init (u)         -> _xmpacc_reflect_init(&_xmpacc_a_u, "f.c:9", 0, 0);
    #pragma xmp reflect_do (u)           -> _xmpacc_reflect_do(&_xmpacc_a_u, "f.c:11");
    #pragma xmp reduce_shadow (u)        -> _xmpacc_reduce_shadow(&_xmpacc_a_u, "f.c:12", 0,
                                                                  _XMPACC_TYPE((double) 0));

Widths travel as (lo, hi, periodic) per array dimension; ``0`` means the whole shadow.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.diagnostics import AlreadyReported, XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.common.descriptors import elem_type_name
from xmpacc.symbols import ArraySym, Scope


def shadow_array(name: xd.Name, scope: Scope, what: str) -> ArraySym:
    """The aligned array with a shadow that ``what`` (reflect, reduce_shadow ...) names."""
    sym = scope.find_array(name.name)
    if sym is None and scope.is_broken_array(name.name):
        raise AlreadyReported
    if sym is None:
        kind = "not declared" if scope.find_c(name.name) is None else "not an aligned array"
        raise XmpError(name.loc, f"{what} of '{name.name}', which is {kind}")
    if not sym.has_shadow:
        use = "reflecting it" if what == "reflect" else f"its {what}"
        raise XmpError(name.loc, f"the aligned array '{name.name}' has no shadow; declare one "
                                 f"with '#pragma xmp shadow' before {use}")
    return sym


def widths_arg(widths: tuple[xd.ReflectWidth, ...] | None, sym: ArraySym, loc: object) -> str:
    if widths is None:
        return "0"
    if len(widths) != sym.ndims:
        raise XmpError(loc, f"width() gives {len(widths)} entries for the "   # type: ignore[arg-type]
                            f"{sym.ndims}-dimensional array '{sym.name}'")
    for w, dim in zip(widths, sym.dims, strict=True):
        if dim.full_shadow and w.periodic:
            raise XmpError(w.lower.loc, f"/periodic/ on a full-shadow dimension of '{sym.name}'")
    return "(const long long []){" + ", ".join(
        f"({w.lower.text}), ({w.upper.text}), {int(w.periodic)}" for w in widths) + "}"


def _each(arrays: tuple[xd.Name, ...], scope: Scope, what: str) -> list[ArraySym]:
    out = []
    for name in arrays:
        try:
            out.append(shadow_array(name, scope, what))
        except AlreadyReported:
            continue
    return out


def reflect_init_calls(d: xd.ReflectInit, scope: Scope, coord: object) -> list[c_ast.Node]:
    out: list[c_ast.Node] = []
    for sym in _each(d.arrays, scope, "reflect_init"):
        out += cbuild.stmts(f"_xmpacc_reflect_init(&{sym.c_name}, {cbuild.where_literal(d.loc)}, "
                            f"{widths_arg(d.widths, sym, d.loc)}, {int(d.orthogonal)});", coord)
    return out


def reflect_do_calls(d: xd.ReflectDo, scope: Scope, coord: object) -> list[c_ast.Node]:
    out: list[c_ast.Node] = []
    for sym in _each(d.arrays, scope, "reflect_do"):
        out += cbuild.stmts(f"_xmpacc_reflect_do(&{sym.c_name}, {cbuild.where_literal(d.loc)});", coord)
    return out


def reduce_shadow_calls(d: xd.ReduceShadow, scope: Scope, coord: object) -> list[c_ast.Node]:
    out: list[c_ast.Node] = []
    for sym in _each(d.arrays, scope, "reduce_shadow"):
        ctype = elem_type_name(sym)
        out += cbuild.stmts(f"_xmpacc_reduce_shadow(&{sym.c_name}, {cbuild.where_literal(d.loc)}, "
                            f"{widths_arg(d.widths, sym, d.loc)}, _XMPACC_TYPE(({ctype}) 0));", coord)
    return out


@dataclass(frozen=True)
class OverlapCalls:
    """The runtime calls around the loop of an overlapped reflect (include/xmpacc_replay.h):
    ``split``, an expression, says whether an exchange is still in flight (else the loop is
    one launch); ``rim`` puts the rim's launches behind the exchange; ``join`` makes later
    device work wait for the exchange."""

    split: str
    rim: str
    join: str
    push: str = ""   # the site's _xmpacc_push_t (include/xmpacc_push.h), where the kernel may push


def push_name(d: xd.Reflect, peel: tuple[tuple[int, int], ...]) -> str:
    """The variable of an overlapped reflect's push (the loop's kernel stores the halo into
    the neighbours itself: runtime/acc_push.py), where it can: one array, and a rim to wait
    for (a loop that reads no shadow slot keeps the exchange on the exchange stream)."""
    if len(d.arrays) != 1 or d.widths or not any(lo or hi for lo, hi in peel):
        return ""   # (widths: the push's slabs are planned once, a width may change per call)
    return f"_xmpacc_push_{d.loc.line}_{d.loc.col}"


def overlap_calls(d: xd.Reflect, push: str = "") -> OverlapCalls:
    where = cbuild.where_literal(d.loc)
    return OverlapCalls(f"_xmpacc_reflect_acc_split({where})", f"_xmpacc_reflect_acc_rim({where});",
                        f"_xmpacc_reflect_acc_join({where});", push)


def reflect_calls(d: xd.Reflect, scope: Scope, coord: object, overlap: bool = False,
                  push: str = "") -> list[c_ast.Node]:
    """Host reflect calls; ``reflect (u) acc`` exchanges the shadow slots of u's device
    copy, wherever it came from (an enclosing region, one in a caller, enter data,
    declare): the runtime stops at the line, naming u, when there is none.  ``overlap``:
    the next loop's interior runs during the exchange (passes/locality/overlap.py);
    ``push``: the variable through which its kernel may make the exchange (push_name)."""
    out: list[c_ast.Node] = []
    if push:   # static: the kernel's launch plans keep its address (include/xmpacc_push.h)
        out += cbuild.stmts(f"static _xmpacc_push_t {push};", coord)
    for name in d.arrays:
        try:
            sym = shadow_array(name, scope, "reflect")
        except AlreadyReported:
            continue
        widths = widths_arg(d.widths, sym, d.loc)
        call = ("_xmpacc_reflect_orthogonal_acc" if d.orthogonal else "_xmpacc_reflect_acc") if d.acc else \
            ("_xmpacc_reflect_orthogonal" if d.orthogonal else "_xmpacc_reflect")
        orthogonal = ""
        if overlap:
            target = f"&{push}" if push else "0"
            call, orthogonal = "_xmpacc_reflect_acc_overlap", f", {int(d.orthogonal)}, {target}"
        out += cbuild.stmts(f"{call}(&{sym.c_name}, {cbuild.where_literal(d.loc)}, {widths}{orthogonal});",
                            coord)
    return out
