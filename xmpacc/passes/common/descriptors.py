"""The runtime calls that declare XMP objects, as C text: a node array, a template, its
distribution and an aligned array (contract.py names them).  Pass lower_decls puts them
where the directives stood; members, the intrinsic calls and the shadow directives reuse
the pieces.

    #pragma xmp nodes p[4]             _xmpacc_nodes_init(&_xmpacc_n_p, "f.c:3", "p", 1, (const int []){4});
    #pragma xmp template t[N]          _xmpacc_template_init(&_xmpacc_t_t, "f.c:4", "t", 1, ...);
    #pragma xmp distribute t[block]    _xmpacc_distribute(&_xmpacc_t_t, "f.c:5", &_xmpacc_n_p, ...);
    #pragma xmp align a[i] with t[i]   a = (double *) _xmpacc_align(&_xmpacc_a_a, "f.c:6", "a", ...);
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.directives import ast as xd
from xmpacc.passes.common.accesses import const_value
from xmpacc.passes.common.onrefs import on_ref
from xmpacc.symbols import ArraySym, NodesSym, Scope, TemplateSym

KIND_CODES = {"none": 2100, "block": 2101, "cyclic": 2102, "gblock": 2103}



def nodes_init(sym: NodesSym, scope: Scope | None = None) -> str:
    ext = ", ".join("-1" if isinstance(e, xd.Star) else f"({e.text})" for e in sym.decl.extents)
    head = (f"&{sym.c_name}, {cbuild.where_literal(sym.decl.loc)}, \"{sym.name}\", {sym.ndims}, "
            f"(const int []){{{ext}}}")
    mapping = sym.decl.mapping
    if mapping is None:
        return f"_xmpacc_nodes_init({head});"
    parent, ref = ("0", "0") if isinstance(mapping, xd.Star) or scope is None else \
        on_ref(mapping, _outer_view(scope, sym))
    return f"_xmpacc_nodes_subset({head}, {parent}, {ref});"



def _outer_view(scope: Scope, sym: NodesSym) -> Scope:
    """A subset's reference is looked up where the subset is not declared yet (``nodes p[2]
    = p[0:2]`` in a block names the outer p)."""
    if scope.nodes.get(sym.name) is not sym:
        return scope
    view = Scope(scope.node, scope.parent, dict(scope.nodes), scope.templates, scope.arrays,
                 scope.c_decls, scope.broken_xmp, scope.broken_arrays)
    del view.nodes[sym.name]
    return view



def template_init(sym: TemplateSym) -> str:
    """The template directive; an unfixed one (``t[:]``) gets its bounds from template_fix."""
    if sym.unfixed_size:
        bounds = "0"
    else:
        bounds = "(const long long []){" + ", ".join(
            f"({d.lower.text}), ({d.upper.text})" for d in sym.decl.dims) + "}"  # type: ignore[union-attr]
    return (f"_xmpacc_template_init(&{sym.c_name}, {cbuild.where_literal(sym.decl.loc)}, \"{sym.name}\", "
            f"{sym.ndims}, {bounds});")



def distribute_call(sym: TemplateSym) -> str:
    d = sym.distribute
    assert d is not None and sym.nodes is not None
    kinds = ", ".join(str(KIND_CODES[f.kind]) for f in d.formats)
    widths = ", ".join(f"({f.arg.text})" if f.kind in ("cyclic", "block") and isinstance(f.arg, xd.Expr)
                       else ("1" if f.kind == "cyclic" else "0") for f in d.formats)
    maps = ", ".join(f"({f.arg.text})" if f.kind == "gblock" and isinstance(f.arg, xd.Expr) else "0"
                     for f in d.formats)
    return (f"_xmpacc_distribute(&{sym.c_name}, {cbuild.where_literal(d.loc)}, &{sym.nodes.c_name}, "
            f"(const int []){{{kinds}}}, (const long long []){{{widths}}}, "
            f"(const void *[]){{{maps}}});")



def elem_type_name(sym: ArraySym) -> str:
    t = sym.elem_type
    typename = c_ast.Typename(None, t.quals, None, c_ast.TypeDecl(None, t.quals, None, t.type))
    return cbuild.to_c(typename)



def _builtin_elem(sym: ArraySym) -> bool:
    """Is the element type spelled without typedef names (generated C parses it alone)?"""
    names = getattr(sym.elem_type.type, "names", None)
    return names is None or all(n in BUILTIN_TYPE_WORDS for n in names)



BUILTIN_TYPE_WORDS = frozenset({"void", "char", "short", "int", "long", "float", "double", "signed",
                                "unsigned", "_Bool", "_Complex"})



def _mapping_args(sym: ArraySym) -> tuple[str, str, str]:
    tdims = ", ".join(str(d.tdim) for d in sym.dims)
    offsets = ", ".join(f"({d.offset})" for d in sym.dims)
    shadows = ", ".join("-1, -1" if d.full_shadow else f"({d.shadow_lo}), ({d.shadow_hi})" for d in sym.dims)
    return (f"(const int []){{{tdims}}}", f"(const long long []){{{offsets}}}",
            f"(const long long []){{{shadows}}}")



def kept_view(sym: ArraySym) -> bool:
    """Whether a static_desc parameter's view can outlive the call (lower_decls.py): its
    template lives for the whole run and its extents are constants (or the argument's),
    so that the same block means the same view."""
    return sym.is_param and sym.template.file_scope and \
        all(d.extent is None or const_value(d.extent) is not None for d in sym.dims)


def align_call(sym: ArraySym, target: str | None = None, desc: str | None = None,
               label: str | None = None) -> str:
    """The runtime call(s) of an align directive.  ``target`` is the C lvalue of the local
    block (the array's name, or ``c.a`` for a structure member), ``desc`` its descriptor.

    Arrays of fixed shape are allocated here; an aligned pointer only gets its mapping
    (xmp_malloc allocates it); an aligned parameter describes the caller's block.
    """
    target = target or sym.name
    desc = desc or sym.c_name
    label = cbuild.c_string(label or target)   # the array's name in run-time messages
    where = cbuild.where_literal(sym.align.loc)
    # sizeof(*target): typedef names do not parse in generated statements
    ctype = elem_type_name(sym) if _builtin_elem(sym) else None
    size = f"sizeof({ctype})" if ctype else f"sizeof(*{target})"
    cast = f"({ctype} *) " if ctype else ""
    tdims, offsets, shadows = _mapping_args(sym)
    if sym.is_pointer or sym.is_param:
        text = (f"_xmpacc_align_pointer(&{desc}, {where}, {label}, &{sym.template.c_name}, "
                f"{size}, {sym.ndims}, {tdims}, {offsets}, {shadows});")
        if sym.is_param:   # -1: an extent the parameter does not declare (the argument's)
            extents = ", ".join("-1" if d.extent is None else f"({cbuild.to_c(d.extent)})" for d in sym.dims)
            text += (f"{target} = {cast}_xmpacc_malloc(&{desc}, {where}, {sym.ndims}, "
                     f"(const long long []){{{extents}}}, {target});")
        return text
    extents = ", ".join(f"({cbuild.to_c(d.extent)})" for d in sym.dims)  # type: ignore[arg-type]
    return (f"{target} = {cast}_xmpacc_align(&{desc}, {where}, "
            f"{label}, &{sym.template.c_name}, {size}, {sym.ndims}, "
            f"(const long long []){{{extents}}}, {tdims}, {offsets}, {shadows});")



def pointer_decl(sym: ArraySym, old: c_ast.Decl | None = None) -> c_ast.Decl:
    """``double u[N][M]`` becomes ``double *u``: the base of the local block (``old``: the
    declaration to replace, its storage class kept: an ``extern`` array of a header stays
    extern, lower_decls gives its descriptor the array's linkage)."""
    old = old or sym.decl
    return c_ast.Decl(sym.name, old.quals, old.align, list(old.storage), old.funcspec, pointer_type(sym),
                      None, None, old.coord)



def pointer_type(sym: ArraySym) -> c_ast.PtrDecl:
    t = sym.elem_type
    return c_ast.PtrDecl([], c_ast.TypeDecl(sym.name, t.quals, None, t.type), sym.decl.coord)
