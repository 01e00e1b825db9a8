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
variables, and the array's buffer is released on every exit from the block (a cleanup
attribute), so ``return`` in the middle of a function leaks nothing.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.context import Context, Unit
from xmpacc.directives import ast as xd
from xmpacc.passes.attach import pragma_id
from xmpacc.passes.declare import scope_items
from xmpacc.symbols import ArraySym, NodesSym, Scope, TemplateSym

_DECLARATIVE = (xd.NodesDecl, xd.TemplateDecl, xd.Distribute, xd.Align, xd.Shadow)
KIND_CODES = {"none": 2100, "block": 2101, "cyclic": 2102, "gblock": 2103}


def nodes_init(sym: NodesSym) -> str:
    ext = ", ".join("-1" if isinstance(e, xd.Star) else f"({e.text})" for e in sym.decl.extents)
    return (f"_xmpacc_nodes_init(&{sym.c_name}, {cbuild.where_literal(sym.decl.loc)}, \"{sym.name}\", "
            f"{sym.ndims}, (const int []){{{ext}}});")


def template_init(sym: TemplateSym) -> str:
    bounds = ", ".join(f"({d.lower.text}), ({d.upper.text})" for d in sym.decl.dims)  # type: ignore[union-attr]
    return (f"_xmpacc_template_init(&{sym.c_name}, {cbuild.where_literal(sym.decl.loc)}, \"{sym.name}\", "
            f"{sym.ndims}, (const long long []){{{bounds}}});")


def distribute_call(sym: TemplateSym) -> str:
    d = sym.distribute
    assert d is not None and sym.nodes is not None
    kinds = ", ".join(str(KIND_CODES[f.kind]) for f in d.formats)
    widths = ", ".join(f"({f.arg.text})" if f.kind == "cyclic" and isinstance(f.arg, xd.Expr)
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


def align_call(sym: ArraySym) -> str:
    ctype = elem_type_name(sym)
    extents = ", ".join(f"({cbuild.to_c(d.extent)})" for d in sym.dims)
    tdims = ", ".join(str(d.tdim) for d in sym.dims)
    offsets = ", ".join(f"({d.offset})" for d in sym.dims)
    shadows = ", ".join("-1, -1" if d.full_shadow else f"({d.shadow_lo}), ({d.shadow_hi})" for d in sym.dims)
    return (f"{sym.name} = ({ctype} *) _xmpacc_align(&{sym.c_name}, {cbuild.where_literal(sym.align.loc)}, "
            f"\"{sym.name}\", &{sym.template.c_name}, sizeof({ctype}), {sym.ndims}, "
            f"(const long long []){{{extents}}}, (const int []){{{tdims}}}, "
            f"(const long long []){{{offsets}}}, (const long long []){{{shadows}}});")


def pointer_decl(sym: ArraySym, old: c_ast.Decl | None = None) -> c_ast.Decl:
    """``double u[N][M]`` becomes ``double *u``: the base of the local block (``old``: the
    declaration to replace, its storage class kept)."""
    old = old or sym.decl
    t = sym.elem_type
    ptr = c_ast.PtrDecl([], c_ast.TypeDecl(sym.name, t.quals, None, t.type), old.coord)
    return c_ast.Decl(sym.name, old.quals, old.align, list(old.storage), old.funcspec, ptr, None, None,
                      old.coord)


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
    return unit


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
                and isinstance(item.type, c_ast.ArrayDecl):
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
            out += cbuild.stmts(nodes_init(scope.nodes[d.name.name]), coord)
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
                out += cbuild.stmts(align_call(scope.arrays[name]), item.coord)
    block.block_items = out


def _lower_block_item(item: c_ast.Node, scope: Scope, ctx: Context) -> list[c_ast.Node]:
    if pragma_id(item) is not None:
        directives = ctx.directives.get(id(item), [])
        if all(isinstance(d, _DECLARATIVE) for d in directives):
            return _block_descriptors(directives, scope, item.coord) + \
                _declarative_calls(directives, scope, item.coord)
        return [item]
    if isinstance(item, c_ast.Decl) and item.name in scope.arrays and scope.arrays[item.name].decl is item:
        sym = scope.arrays[item.name]
        release = cbuild.cleanup_decl(f"_xmpacc_array_t {sym.c_name} = {{0}};", "_xmpacc_array_release",
                                      item.coord)
        return [release, pointer_decl(sym)]
    return [item]


def _block_descriptors(directives: list[xd.Directive], scope: Scope, coord: object) -> list[c_ast.Node]:
    out: list[c_ast.Node] = []
    for d in directives:
        if isinstance(d, xd.NodesDecl) and d.name.name in scope.nodes:
            out += cbuild.stmts(f"_xmpacc_nodes_t {scope.nodes[d.name.name].c_name} = {{0}};", coord)
        elif isinstance(d, xd.TemplateDecl) and d.name.name in scope.templates:
            out += cbuild.stmts(f"_xmpacc_template_t {scope.templates[d.name.name].c_name} = {{0}};", coord)
    return out
