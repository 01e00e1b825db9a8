"""Pass localize (1/2): declarative directives become runtime calls, arrays local blocks.

Before (file scope):                     After:
    #pragma xmp nodes p[4]                   static _xmpacc_nodes_t _xmpacc_n_p;   (top of file)
    #pragma xmp template t[N]                ...
    #pragma xmp distribute t[block] onto p   double *a;                 /* local block */
    double a[N];                             /* in _xmpacc_init_<file>(), before main: */
    #pragma xmp align a[i] with t[i]         _xmpacc_nodes_init(&_xmpacc_n_p, "f.c:1", "p", 1, ...);
                                             ...
                                             a = (double *) _xmpacc_align(&_xmpacc_a_a, ...);

Linkage, as in C: nodes and templates declared in the file itself are the file's own
(``static`` descriptors); those declared in a header are one object of the program, shared
by every file that includes the header (weak descriptors, ``_XMPACC_SHARED``: the first
start-up call creates the object, the runtime checks that the others declare the same).
An aligned array's descriptor has the array's linkage: ``static double a[N]`` gets a
static one, ``double a[N]`` a global one, and a file that only declares
``extern double a[N]`` (with its align, usually in a header) refers to the defining file's
descriptor and leaves the align call to that file.

In a block the calls stay where the directives were, the descriptors are block-scope
variables, and the nodes, templates and array buffers are released on every exit from the
block (cleanup attributes), so ``return`` in the middle of a function leaks nothing.  An
aligned pointer (``double *a``) only gets its mapping here: ``xmp_malloc`` allocates it
(pass library); an aligned parameter describes the caller's block.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.context import Context, Unit
from xmpacc.directives import ast as xd
from xmpacc.passes.attach import pragma_id
from xmpacc.passes.declare import scope_items
from xmpacc.passes.onrefs import on_ref
from xmpacc.symbols import ArraySym, NodesSym, Scope, TemplateSym

_DECLARATIVE = (xd.NodesDecl, xd.TemplateDecl, xd.Distribute, xd.Align, xd.Shadow)
KIND_CODES = {"none": 2100, "block": 2101, "cyclic": 2102, "gblock": 2103}


def nodes_init(sym: NodesSym, scope: Scope | None = None) -> str:
    ext = ", ".join("-1" if isinstance(e, xd.Star) else f"({e.text})" for e in sym.decl.extents)
    head = f"&{sym.c_name}, {cbuild.where_literal(sym.decl.loc)}, \"{sym.name}\", {sym.ndims}, (const int []){{{ext}}}"
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
        if sym.is_param:
            extents = ", ".join(f"({cbuild.to_c(d.extent)})" for d in sym.dims)  # type: ignore[arg-type]
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
    return c_ast.Decl(sym.name, old.quals, old.align, list(old.storage), old.funcspec, _pointer_type(sym), None,
                      None, old.coord)


def _pointer_type(sym: ArraySym) -> c_ast.PtrDecl:
    t = sym.elem_type
    return c_ast.PtrDecl([], c_ast.TypeDecl(sym.name, t.quals, None, t.type), sym.decl.coord)


def _array_linkage(unit: Unit, name: str) -> str:
    """'static', '' (defined here, global) or 'extern' (only declared here)."""
    decls = [d for d in unit.ast.ext if isinstance(d, c_ast.Decl) and d.name == name]
    if any("static" in d.storage for d in decls):
        return "static"
    return "" if any("extern" not in d.storage for d in decls) else "extern"


def _descriptor(ctype: str, c_name: str, linkage: str) -> list[c_ast.Node]:
    if linkage != "_XMPACC_SHARED":
        return [cbuild.stmt(f"{linkage} {ctype} {c_name};".lstrip())]
    decl = cbuild.stmt(f"{ctype} {c_name};")
    decl.funcspec = ["_XMPACC_SHARED"]   # a GNU attribute, which pycparser does not know
    return [decl]


def _xmp_linkage(unit: Unit, loc_file: str) -> str:
    return "static" if loc_file == unit.path else "_XMPACC_SHARED"


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    _lower_file_scope(unit, ctx, ctx.scopes.root)
    for scope in ctx.scopes.by_node.values():
        if scope is not ctx.scopes.root and isinstance(scope.node, c_ast.Compound):
            _lower_block(scope, ctx)
    _match_prototypes(unit, ctx)
    return unit


def _match_prototypes(unit: Unit, ctx: Context) -> None:
    """An aligned parameter became ``T *a`` in its function; its prototypes follow."""
    assert ctx.scopes is not None
    for fn in unit.ast.ext:
        if not isinstance(fn, c_ast.FuncDef) or id(fn.body) not in ctx.scopes.by_node:
            continue
        body = ctx.scopes.scope_of(fn.body)
        params = getattr(fn.decl.type.args, "params", None) or []
        changed = {k: body.arrays[p.name] for k, p in enumerate(params)
                   if isinstance(p, c_ast.Decl) and p.name in body.arrays and body.arrays[p.name].is_param}
        if not changed:
            continue
        for proto in unit.ast.ext:
            if isinstance(proto, c_ast.Decl) and proto.name == fn.decl.name and \
                    isinstance(proto.type, c_ast.FuncDecl) and proto.type.args is not None:
                for k, sym in changed.items():
                    if k < len(proto.type.args.params):
                        p = proto.type.args.params[k]
                        t = sym.elem_type
                        p.type = c_ast.PtrDecl([], c_ast.TypeDecl(getattr(p, "name", None), t.quals, None, t.type))


def _lower_file_scope(unit: Unit, ctx: Context, scope: Scope) -> None:
    for sym in scope.nodes.values():
        ctx.file_decls += _descriptor("_xmpacc_nodes_t", sym.c_name, _xmp_linkage(unit, sym.decl.loc.file))
    for tsym in scope.templates.values():
        ctx.file_decls += _descriptor("_xmpacc_template_t", tsym.c_name,
                                      _xmp_linkage(unit, tsym.decl.loc.file))
    linkage = {name: _array_linkage(unit, name) for name in scope.arrays}
    for asym in scope.arrays.values():
        ctx.file_decls += _descriptor("_xmpacc_array_t", asym.c_name, linkage[asym.name])
    new_ext: list[c_ast.Node] = []
    for item in unit.ast.ext:
        if pragma_id(item) is not None:
            directives = ctx.directives.get(id(item), [])
            ctx.init_stmts += _declarative_calls(directives, scope, item.coord)
            if not all(isinstance(d, _DECLARATIVE) for d in directives):
                new_ext.append(item)  # reported by the leftovers check
            continue
        if isinstance(item, c_ast.Decl) and scope.arrays.get(item.name or "") is not None \
                and (isinstance(item.type, c_ast.ArrayDecl) or scope.arrays[item.name].decl is item):
            new_ext.append(pointer_decl(scope.arrays[item.name], item))
            continue
        new_ext.append(item)
    unit.ast.ext = new_ext
    for asym in scope.arrays.values():
        if linkage[asym.name] != "extern":   # the defining file allocates
            ctx.init_stmts += cbuild.stmts(align_call(asym), asym.align.loc)


def _declarative_calls(directives: list[xd.Directive], scope: Scope, coord: object) -> list[c_ast.Node]:
    """Runtime calls for nodes/template/distribute directives (align is placed separately)."""
    out: list[c_ast.Node] = []
    for d in directives:
        if isinstance(d, xd.NodesDecl) and d.name.name in scope.nodes:
            out += cbuild.stmts(nodes_init(scope.nodes[d.name.name], scope), coord)
        elif isinstance(d, xd.TemplateDecl) and d.name.name in scope.templates:
            out += cbuild.stmts(template_init(scope.templates[d.name.name]), coord)
        elif isinstance(d, xd.Distribute):
            tsym = scope.find_template(d.template.name)
            if tsym is not None and tsym.distribute is d:
                out += cbuild.stmts(distribute_call(tsym), coord)
    return out


def _lower_block(scope: Scope, ctx: Context) -> None:
    block = scope.node
    assert isinstance(block, c_ast.Compound)
    items = scope_items(scope)
    # where each array's align call goes: after its declaration, align and shadow
    place: dict[str, int] = {}
    for pos, item in enumerate(items):
        for d in ctx.directives.get(id(item), []) if pragma_id(item) is not None else []:
            if isinstance(d, (xd.Align, xd.Shadow)):
                for n in d.arrays:
                    if n.name in scope.arrays:  # not one whose align was in error
                        place[n.name] = max(place.get(n.name, -1), pos)
        if isinstance(item, c_ast.Decl) and item.name in scope.arrays and scope.arrays[item.name].decl is item:
            place[item.name] = max(place.get(item.name, -1), pos)
    out: list[c_ast.Node] = []
    for pos, item in enumerate(items):
        out += _lower_block_item(item, scope, ctx)
        for name, p in place.items():
            if p == pos:
                out += _align_in_block(scope.arrays[name], item.coord)
    block.block_items = out


def _align_in_block(sym: ArraySym, coord: object) -> list[c_ast.Node]:
    """The align call; an aligned parameter gets its descriptor here (it has no declaration
    in the block) and becomes a plain pointer to the caller's local block."""
    out: list[c_ast.Node] = []
    if sym.is_param:
        sym.decl.type = _pointer_type(sym)
        out.append(cbuild.cleanup_decl(f"_xmpacc_array_t {sym.c_name} = {{0}};", "_xmpacc_array_release", coord))
    return out + cbuild.stmts(align_call(sym), coord)


def _lower_block_item(item: c_ast.Node, scope: Scope, ctx: Context) -> list[c_ast.Node]:
    if pragma_id(item) is not None:
        directives = ctx.directives.get(id(item), [])
        if all(isinstance(d, _DECLARATIVE) for d in directives):
            return _block_descriptors(directives, scope, item.coord) + \
                _declarative_calls(directives, scope, item.coord)
        return [item]
    if isinstance(item, c_ast.Decl) and "extern" in item.storage and item.name not in scope.arrays:
        sym = scope.find_array(item.name or "")
        if sym is not None and sym.file_scope:   # a block-scope extern of a file-scope aligned array
            return [c_ast.Decl(item.name, item.quals, item.align, ["extern"], item.funcspec, _pointer_type(sym),
                               None, None, item.coord)]
    if isinstance(item, c_ast.Decl) and item.name in scope.arrays and scope.arrays[item.name].decl is item:
        sym = scope.arrays[item.name]
        release = cbuild.cleanup_decl(f"_xmpacc_array_t {sym.c_name} = {{0}};", "_xmpacc_array_release",
                                      item.coord)
        return [release, pointer_decl(sym)]
    return [item]


def _block_descriptors(directives: list[xd.Directive], scope: Scope, coord: object) -> list[c_ast.Node]:
    out: list[c_ast.Node] = []
    for d in directives:
        # released on every exit from the block, like the arrays (global-view §4)
        if isinstance(d, xd.NodesDecl) and d.name.name in scope.nodes:
            out.append(cbuild.cleanup_decl(f"_xmpacc_nodes_t {scope.nodes[d.name.name].c_name} = {{0}};",
                                           "_xmpacc_nodes_release", coord))
        elif isinstance(d, xd.TemplateDecl) and d.name.name in scope.templates:
            out.append(cbuild.cleanup_decl(f"_xmpacc_template_t {scope.templates[d.name.name].c_name} = {{0}};",
                                           "_xmpacc_template_release", coord))
    return out
