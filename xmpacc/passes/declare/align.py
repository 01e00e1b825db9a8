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


def resolve_align(align: xd.Align, shadows: list[xd.Shadow], scope: Scope, ctx: Context,
                  outer_shadows: dict[int, list[xd.Shadow]] | None = None) -> None:
    """Enter the arrays of ``align`` (in ``scope``) with their ``shadows`` into the scope
    that declares them.  That is ``scope`` itself, or an enclosing one: Omni accepts
    ``align a[i] with t[i]`` inside a function for a file-scope ``a``, whose mapping it
    then is, everywhere (the array's shadow may stand beside either; ``outer_shadows``
    holds the enclosing scopes' by id)."""
    tmpl = _aligned_template(align, scope, ctx)
    for name in align.arrays:
        home = _home(name, align, scope, tmpl, ctx)
        if home is None:
            continue
        mine = shadows if home is scope else shadows + (outer_shadows or {}).get(id(home), [])
        sym = None if tmpl is None else _align_one(name, align, tmpl, mine, home, ctx)
        if sym is not None:
            home.arrays[name.name] = sym
        elif name.name not in home.arrays:
            # reported here or with the template: uses of the array stay silent
            home.broken_arrays.add(name.name)


def _home(name: xd.Name, align: xd.Align, scope: Scope, tmpl: TemplateSym | None,
          ctx: Context) -> Scope | None:
    """The scope whose array ``name`` is: the one that declares it (``scope`` when none
    does: the error is reported there); None after an error reported here."""
    if name.name in scope.c_decls:
        return scope
    found = scope.find_c(name.name)
    if found is None or scope.parent is None:
        return scope
    home = found[0]
    if tmpl is not None and home.find_template(tmpl.name) is not tmpl:
        ctx.diags.error(name.loc, f"'{name.name}' is declared outside this block but template '{tmpl.name}' "
                                  "inside it; an array aligned here must be declared in this block, or "
                                  "aligned with a template declared where the array is")
        return None
    sym = home.arrays.get(name.name)
    if sym is not None and _mapping(sym.align) == _mapping(align):
        return None   # aligned the same way already (every function that uses it may say so)
    return home


def _mapping(align: xd.Align) -> tuple[object, ...]:
    """What an align says, without where it says it."""
    def entry(e: object) -> object:
        if isinstance(e, xd.AlignSubscript):
            return e.dummy.name, e.offset.text if e.offset else "0"
        return e.name if isinstance(e, xd.Name) else type(e).__name__
    return align.template.name, tuple(map(entry, align.sources)), tuple(map(entry, align.subscripts))


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


def array_shape(decl: c_ast.Decl) -> tuple[list[c_ast.Node | None], c_ast.Node]:
    """Extents (outermost first) and the element type of an array declaration."""
    dims: list[c_ast.Node | None] = []
    t = decl.type
    while isinstance(t, c_ast.ArrayDecl):
        dims.append(t.dim)
        t = t.type
    return dims, t


def pointer_shape(decl: c_ast.Decl, rank: int) -> tuple[list[c_ast.Node | None], c_ast.Node] | None:
    """An aligned pointer (global-view §4): ``double *a`` of any rank (extents from
    xmp_malloc, None here), or ``double (*a)[M]``, whose row extents are declared; None
    when ``decl`` is no pointer."""
    if not isinstance(decl.type, c_ast.PtrDecl):
        return None
    inner: list[c_ast.Node | None] = []
    t = decl.type.type
    while isinstance(t, c_ast.ArrayDecl):
        inner.append(t.dim)
        t = t.type
    return ([None] * rank if not inner else [None] + inner), t


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
    is_param = arr in scope.params
    pointer = pointer_shape(decl, len(align.sources))
    extents, elem = pointer if pointer is not None else array_shape(decl)
    if not extents:
        ctx.diags.error(name.loc, f"'{arr}' is not an array; only arrays can be aligned")
        return None
    # a parameter describes the block of the array passed to it: the extents it does not
    # declare ('double *a', 'double a[]', as template_fix programs pass xmp_malloc'ed
    # arrays) are that array's, at run time (runtime/dynamic.py)
    if not check_decl(name, decl, extents, elem, pointer is not None or is_param, ctx, scope.parent is None):
        return None
    if is_param:
        return array_sym(name, decl, extents, elem, align, tmpl, shadows, f"_xmpacc_a_{arr}",
                         False, False, ctx, is_param=True)
    if pointer is None and tmpl.is_dynamic:
        ctx.diags.error(name.loc, f"array '{arr}' has a fixed shape but template '{tmpl.name}' is only "
                                  f"fixed by template_fix: declare '{arr}' as a pointer and allocate it "
                                  "with xmp_malloc after template_fix (global-view §4: the storage of an "
                                  "array on such a template exists only once its size is known)")
        return None
    return array_sym(name, decl, extents, elem, align, tmpl, shadows, f"_xmpacc_a_{arr}",
                     scope.parent is None, pointer is not None, ctx)


def array_sym(name: xd.Name, decl: c_ast.Decl, extents: list[c_ast.Node | None], elem: c_ast.Node,
              align: xd.Align, tmpl: TemplateSym, shadows: list[xd.Shadow], c_name: str, file_scope: bool,
              is_pointer: bool, ctx: Context, is_param: bool = False) -> ArraySym | None:
    """The mapping of one aligned array (or structure member), checked against its align
    and shadow directives; None after a reported error."""
    arr = name.name
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
    return ArraySym(arr, decl, align, shadow, tmpl, tuple(dims), elem, c_name, file_scope, is_pointer,
                    is_param)


def check_decl(name: xd.Name, decl: c_ast.Decl, extents: list[c_ast.Node | None],
                elem: c_ast.Node, pointer: bool, ctx: Context, file_scope: bool) -> bool:
    arr = name.name
    if decl.init is not None and not pointer:   # a pointer's (= NULL) is replaced by xmp_malloc's
        ctx.diags.error(name.loc, f"aligned array '{arr}' cannot have an initializer")
        return False
    if not pointer and any(e is None for e in extents):
        ctx.diags.error(name.loc, f"aligned array '{arr}' needs every extent declared")
        return False
    if not isinstance(elem, c_ast.TypeDecl):
        ctx.diags.error(name.loc, f"aligned array '{arr}' must have scalar or struct elements")
        return False
    if "static" in decl.storage and not file_scope:
        # its block is made at each entry of the function and released at the exit, so the
        # values would not survive from one call to the next as C's 'static' promises
        ctx.diags.error(name.loc, f"a static aligned array in a function ('{arr}') is not supported yet: "
                                  "its values would not survive from one call to the next; declare it at "
                                  "file scope")
        return False
    if "extern" in decl.storage and not file_scope:
        # at file scope, 'extern double a[N];' + align (in a header) is the way to share
        # a distributed array between files (lower_decls.py)
        ctx.diags.error(name.loc, f"an aligned array declared extern inside a function ('{arr}') "
                                  "is not supported yet; declare it extern at file scope")
        return False
    return True


def _match_dummies(align: xd.Align, ctx: Context) -> list[tuple[int, str]] | None:
    """For each array dimension: (template dimension or -1, align offset as C text).

    A ':' source is paired with a ':' subscript, the k-th with the k-th in C order (S: the
    array's from the right with a parenthesised template's from the left, which the parser
    has reversed), and means what a dummy of its own would: ``align a[:] with t(*, :)`` is
    ``align a[i] with t(*, i)``."""
    colons = _paired_colons(align, ctx)
    if colons is None:
        return None
    where: dict[str, tuple[int, str]] = {}
    for t, sub in enumerate(align.subscripts):
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
            result.append((colons.pop(0), "0"))
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


def _paired_colons(align: xd.Align, ctx: Context) -> list[int] | None:
    """The template dimensions of the ':' subscripts, in C order; None (reported) when the
    sources do not have as many ':' as the subscripts."""
    sources = [s for s in align.sources if isinstance(s, xd.Colon)]
    subs = [(t, s) for t, s in enumerate(align.subscripts) if isinstance(s, xd.Colon)]
    if len(sources) == len(subs):
        return [t for t, _ in subs]
    extra = sources[len(subs)] if len(sources) > len(subs) else subs[len(sources)][1]
    ctx.diags.error(extra.loc, f"the array side of align has {len(sources)} ':' and the template side "
                               f"{len(subs)}; each ':' of the array is paired with one of the template")
    return None


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
        if nonzero and kind == "cyclic" and not full:
            ctx.diags.error(loc, f"dimension {k} of '{arr}' is cyclic-distributed; it takes only a full "
                                 "shadow '[*]' (widths are only allowed on block and gblock dimensions)")
            return None
        out.append((lo, hi, full))
    return out
