"""Resolution of ``align`` and ``shadow`` into ``ArraySym`` entries (part of pass declare).

``align a[i][*] with t(i)`` is matched by dummy name (reference §4.4): array dimension 0
follows template dimension 0, dimension 1 is collapsed.  The matching ``shadow`` gives the
widths per array dimension.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc.context import Context
from xmpacc.directives import ast as xd
from xmpacc.symbols import ArrayDim, ArraySym, Scope, TemplateSym


def resolve_align(align: xd.Align, shadows: list[xd.Shadow], scope: Scope, ctx: Context) -> None:
    tmpl = _aligned_template(align, scope, ctx)
    for name in align.arrays:
        sym = None if tmpl is None else _align_one(name, align, tmpl, shadows, scope, ctx)
        if sym is not None:
            scope.arrays[name.name] = sym
        elif name.name not in scope.arrays:
            # reported here or with the template: uses of the array stay silent
            scope.broken_arrays.add(name.name)


def _aligned_template(align: xd.Align, scope: Scope, ctx: Context) -> TemplateSym | None:
    """The distributed template of ``align``; None after an error (reported here unless the
    template's own declaration was wrong)."""
    tname = align.template.name
    tmpl = scope.find_template(tname)
    if scope.is_broken(tname):
        return None
    if tmpl is None:
        ctx.diags.error(align.template.loc, f"template '{tname}' is not declared")
        return None
    if tmpl.distribute is None:
        ctx.diags.error(align.template.loc, f"template '{tname}' is not distributed")
        return None
    return tmpl


def _array_shape(decl: c_ast.Decl) -> tuple[list[c_ast.Node | None], c_ast.Node]:
    """Extents (outermost first) and the element type of an array declaration."""
    dims: list[c_ast.Node | None] = []
    t = decl.type
    while isinstance(t, c_ast.ArrayDecl):
        dims.append(t.dim)
        t = t.type
    return dims, t


def _align_one(name: xd.Name, align: xd.Align, tmpl: TemplateSym, shadows: list[xd.Shadow],
               scope: Scope, ctx: Context) -> ArraySym | None:
    arr = name.name
    if arr in scope.arrays:
        ctx.diags.error(name.loc, f"array '{arr}' is already aligned")
        return None
    decl = scope.c_decls.get(arr)
    if decl is None:
        ctx.diags.error(name.loc, f"array '{arr}' is not declared")
        return None
    extents, elem = _array_shape(decl)
    if not extents:
        ctx.diags.error(name.loc, f"'{arr}' is not an array; only arrays can be aligned")
        return None
    if not _check_decl(name, decl, extents, elem, ctx, scope.parent is None):
        return None
    if len(align.sources) != len(extents):
        ctx.diags.error(name.loc, f"array '{arr}' has {len(extents)} dimension(s) but the align "
                                  f"directive gives {len(align.sources)}")
        return None
    if len(align.subscripts) != tmpl.ndims:
        ctx.diags.error(align.template.loc, f"template '{tmpl.name}' has {tmpl.ndims} dimension(s) "
                                            f"but the align directive gives {len(align.subscripts)}")
        return None
    tdims = _match_dummies(align, ctx)
    if tdims is None:
        return None
    shadow = _find_shadow(arr, shadows, ctx)
    widths = _shadow_widths(arr, shadow, tdims, tmpl, ctx)
    if widths is None:
        return None
    dims = []
    for k, ext in enumerate(extents):
        tdim, offset = tdims[k]
        lo, hi, full = widths[k]
        kind = tmpl.dist_kind(tdim) if tdim >= 0 else "none"
        index_kind = "cyclic" if kind == "cyclic" and not full else "offset"
        dims.append(ArrayDim(ext, tdim, offset, lo, hi, full, index_kind))
    return ArraySym(arr, decl, align, shadow, tmpl, tuple(dims), elem, f"_xmpacc_a_{arr}",
                    scope.parent is None)


def _check_decl(name: xd.Name, decl: c_ast.Decl, extents: list[c_ast.Node | None],
                elem: c_ast.Node, ctx: Context, file_scope: bool) -> bool:
    arr = name.name
    if decl.init is not None:
        ctx.diags.error(name.loc, f"aligned array '{arr}' cannot have an initializer")
        return False
    if any(e is None for e in extents):
        ctx.diags.error(name.loc, f"aligned array '{arr}' needs every extent declared")
        return False
    if not isinstance(elem, c_ast.TypeDecl):
        ctx.diags.error(name.loc, f"aligned array '{arr}' must have scalar or struct elements")
        return False
    if "extern" in decl.storage and not file_scope:
        # at file scope, 'extern double a[N];' + align (in a header) is the way to share
        # a distributed array between files (lower_decls.py)
        ctx.diags.error(name.loc, f"an aligned array declared extern inside a function ('{arr}') "
                                  "is not supported yet; declare it extern at file scope")
        return False
    return True


def _match_dummies(align: xd.Align, ctx: Context) -> list[tuple[int, str]] | None:
    """For each array dimension: (template dimension or -1, align offset as C text)."""
    where: dict[str, tuple[int, str]] = {}
    for t, sub in enumerate(align.subscripts):
        if isinstance(sub, xd.Colon):
            ctx.diags.error(align.loc, "the ':' form of align is not supported yet")
            return None
        if isinstance(sub, xd.AlignSubscript):
            if sub.dummy.name in where:
                ctx.diags.error(sub.dummy.loc, f"align dummy '{sub.dummy.name}' is used twice")
                return None
            where[sub.dummy.name] = (t, sub.offset.text if sub.offset else "0")
    result: list[tuple[int, str]] = []
    seen: set[str] = set()
    for src in align.sources:
        if isinstance(src, xd.Star):
            result.append((-1, "0"))
        elif isinstance(src, xd.Colon):
            ctx.diags.error(src.loc, "the ':' form of align is not supported yet")
            return None
        else:
            if src.name in seen:
                ctx.diags.error(src.loc, f"align dummy '{src.name}' is used twice")
                return None
            seen.add(src.name)
            if src.name not in where:
                ctx.diags.error(src.loc, f"cannot find '{src.name}' in the template subscripts of align")
                return None
            result.append(where[src.name])
    for dummy in where:
        if dummy not in seen:
            ctx.diags.error(align.loc, f"align dummy '{dummy}' does not appear in the array subscripts")
            return None
    return result


def _find_shadow(arr: str, shadows: list[xd.Shadow], ctx: Context) -> xd.Shadow | None:
    found = [s for s in shadows if any(n.name == arr for n in s.arrays)]
    if len(found) > 1:
        ctx.diags.error(found[1].loc, f"shadow of '{arr}' is declared twice")
    return found[0] if found else None


def _shadow_widths(arr: str, shadow: xd.Shadow | None, tdims: list[tuple[int, str]],
                   tmpl: TemplateSym, ctx: Context) -> list[tuple[str, str, bool]] | None:
    if shadow is None:
        return [("0", "0", False)] * len(tdims)
    if len(shadow.widths) != len(tdims):
        ctx.diags.error(shadow.loc, f"array '{arr}' has {len(tdims)} dimension(s) but the shadow "
                                    f"directive gives {len(shadow.widths)}")
        return None
    out: list[tuple[str, str, bool]] = []
    for k, w in enumerate(shadow.widths):
        tdim = tdims[k][0]
        kind = tmpl.dist_kind(tdim) if tdim >= 0 else "none"
        if isinstance(w, xd.Star):
            lo, hi, full = "0", "0", True
            loc = w.loc
        else:
            lo, hi, full, loc = w.lower.text, w.upper.text, False, w.lower.loc
            for text in (lo, hi):
                if text.lstrip().startswith("-"):
                    ctx.diags.error(loc, f"shadow width '{text}' is negative")
                    return None
        nonzero = full or lo != "0" or hi != "0"
        if nonzero and kind == "none":
            ctx.diags.error(loc, f"dimension {k} of '{arr}' is not distributed; its shadow width must be 0")
            return None
        if nonzero and kind == "cyclic":
            ctx.diags.error(loc, f"dimension {k} of '{arr}' is cyclic-distributed; shadows are only "
                                 "allowed on block and gblock dimensions")
            return None
        out.append((lo, hi, full))
    return out
