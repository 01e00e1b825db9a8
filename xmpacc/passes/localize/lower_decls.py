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
from xmpacc.passes.common.descriptors import (
    align_call,
    distribute_call,
    kept_view,
    nodes_init,
    pointer_decl,
    pointer_type,
    template_init,
)
from xmpacc.passes.common.pragmas import directives_of, pragma_id
from xmpacc.scoping import scope_items
from xmpacc.symbols import ArraySym, Scope

_DECLARATIVE = (xd.NodesDecl, xd.TemplateDecl, xd.Distribute, xd.Align, xd.Shadow)


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
                        p.type = c_ast.PtrDecl([], c_ast.TypeDecl(getattr(p, "name", None),
                                                                  t.quals, None, t.type))


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
        for d in directives_of(item, ctx):
            if isinstance(d, (xd.Align, xd.Shadow)):
                for n in d.arrays:
                    if n.name in scope.arrays:  # not one whose align was in error
                        place[n.name] = max(place.get(n.name, -1), pos)
        if isinstance(item, c_ast.Decl) and item.name in scope.arrays \
                and scope.arrays[item.name].decl is item:
            place[item.name] = max(place.get(item.name, -1), pos)
    out: list[c_ast.Node] = []
    for pos, item in enumerate(items):
        out += _lower_block_item(item, scope, ctx)
        for name, p in place.items():
            if p == pos:
                out += _align_in_block(scope.arrays[name], item.coord, name in scope.static_descs)
    block.block_items = out


def _align_in_block(sym: ArraySym, coord: object, static: bool = False) -> list[c_ast.Node]:
    """The align call; an aligned parameter gets its descriptor here (it has no declaration
    in the block) and becomes a plain pointer to the caller's local block."""
    if not sym.is_param:
        return cbuild.stmts(align_call(sym), coord)
    sym.decl.type = pointer_type(sym)
    if static and kept_view(sym):
        # static_desc (Omni): the descriptor outlives the call, and a call that passes the
        # block it describes keeps it: no runtime call (the runtime zeroes its id when that
        # block goes, runtime/dynamic.py _drop_block)
        return cbuild.stmts(f"static _xmpacc_array_t {sym.c_name}; "
                            f"if (!{sym.c_name}.id || {sym.c_name}.base != (void *) {sym.name}) "
                            f"{{ {align_call(sym)} }}", coord)
    return [cbuild.cleanup_decl(f"_xmpacc_array_t {sym.c_name} = {{0}};", "_xmpacc_array_release", coord),
            *cbuild.stmts(align_call(sym), coord)]


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
            return [c_ast.Decl(item.name, item.quals, item.align, ["extern"], item.funcspec,
                               pointer_type(sym), None, None, item.coord)]
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
            out.append(cbuild.cleanup_decl(
                f"_xmpacc_template_t {scope.templates[d.name.name].c_name} = {{0}};",
                "_xmpacc_template_release", coord))
    return out
