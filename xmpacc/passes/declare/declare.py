"""Pass declare: build the symbol table from nodes/template/distribute/align/shadow.

``ctx.scopes`` gets one ``Scope`` per C scope with its XMP objects, and every declaration
mistake is reported (reference §10, "Names and declarations").  The AST only loses the
``static_desc`` pragmas (Omni's hint to keep descriptors across calls: checked, remarked
with ``--info``, nothing to generate).  Example:

    #pragma xmp nodes p[4]                       Scope(file).nodes['p']
    #pragma xmp template t[N]                    Scope(file).templates['t']
    #pragma xmp distribute t[block] onto p         .distribute, .nodes = p
    double a[N];                                 Scope(file).arrays['a']: dims[0].tdim = 0
    #pragma xmp align a[i] with t[i]
    #pragma xmp shadow a[1]                        shadow_lo = shadow_hi = "1"
"""

from __future__ import annotations

import dataclasses

from pycparser import c_ast

from xmpacc.context import Context, Unit
from xmpacc.diagnostics import XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.common import describe
from xmpacc.passes.common.pragmas import directives_of, pragma_id
from xmpacc.passes.declare.align import resolve_align
from xmpacc.passes.declare.member_align import check_member_shadow, resolve_member_align
from xmpacc.scoping import build_scopes, scope_items
from xmpacc.symbols import NodesSym, Scope, TemplateSym, is_member_path

MAX_RANK = 7


def run(unit: Unit, ctx: Context) -> Unit:
    ctx.scopes = build_scopes(unit.ast)
    scopes = _all_scopes(ctx)
    # the file scope first; an align inside a function may name a file-scope array, so
    # the shadows are checked once every scope's aligns are known (align.py)
    shadows: dict[int, list[xd.Shadow]] = {}
    for scope in scopes:
        shadows[id(scope)] = _declare_scope(scope, ctx, shadows)
    for scope in scopes:
        _check_scope(scope, shadows[id(scope)], ctx)
    # Errors stay collected: the later passes report their own mistakes too, and the
    # check stage raises them all.
    return unit


def _all_scopes(ctx: Context) -> list[Scope]:
    assert ctx.scopes is not None
    return [ctx.scopes.root] + [s for s in ctx.scopes.by_node.values() if s is not ctx.scopes.root]


def _declare_scope(scope: Scope, ctx: Context, outer_shadows: dict[int, list[xd.Shadow]]) -> list[xd.Shadow]:
    """Enter the scope's XMP objects; its shadow directives."""
    aligns: list[xd.Align] = []
    shadows: list[xd.Shadow] = []
    for item in scope_items(scope):
        if pragma_id(item) is None:
            continue
        for d in ctx.directives.get(id(item), []):
            if isinstance(d, xd.NodesDecl):
                _declare_nodes(d, scope, ctx)
            elif isinstance(d, xd.TemplateDecl):
                _declare_template(d, scope, ctx)
            elif isinstance(d, xd.Distribute):
                _distribute(d, scope, ctx)
            elif isinstance(d, xd.Align):
                aligns.append(d)
            elif isinstance(d, xd.Shadow):
                shadows.append(d)
    # align and shadow may come before the array's declaration (reference decision 5),
    # so they are resolved once the whole scope is known.
    for align in aligns:
        if any(is_member_path(n.name) for n in align.arrays):
            resolve_member_align(align, shadows, scope, ctx)
        else:
            resolve_align(align, shadows, scope, ctx, outer_shadows)
    return shadows


def _check_scope(scope: Scope, shadows: list[xd.Shadow], ctx: Context) -> None:
    static_descs = [d for item in scope_items(scope) for d in directives_of(item, ctx)
                    if isinstance(d, xd.StaticDesc)]
    for shadow in shadows:
        for name in shadow.arrays:
            if is_member_path(name.name):
                check_member_shadow(name, scope, ctx)
            elif not _shadow_taken(name.name, shadow, scope):
                ctx.diags.error(name.loc, f"shadow of '{name.name}', which is not an aligned array")
    for d in static_descs:
        _check_static_desc(d, scope, ctx)
        scope.static_descs.update(n.name for n in d.names)   # aligned parameters: lower_decls
    for item in scope_items(scope):
        if pragma_id(item) is not None:
            ctx.info += describe.declarations(ctx.directives.get(id(item), []), scope)
    _warn_order(scope, ctx)
    _warn_clashes(scope, ctx)
    if static_descs:
        _drop_static_descs(scope, ctx)


def _check_static_desc(d: xd.StaticDesc, scope: Scope, ctx: Context) -> None:
    """Each name must be an XMP object visible here (Omni checks them too)."""
    for name in d.names:
        n = name.name
        if scope.find_nodes(n) or scope.find_template(n) or scope.find_array(n) or scope.is_broken(n):
            continue
        found = scope.find_c(n)
        if found is not None and n in found[0].broken_arrays:
            continue
        what = "is not declared" if found is None else "is not a node array, template or aligned array"
        ctx.diags.error(name.loc, f"'{n}' {what}: static_desc names XMP objects (nodes, templates, "
                                  "aligned arrays)")


def _drop_static_descs(scope: Scope, ctx: Context) -> None:
    """static_desc generates nothing: its pragmas leave the tree, so that no later pass
    meets a directive it does not know."""
    def kept(item: c_ast.Node) -> bool:
        ds = directives_of(item, ctx)
        return not ds or not all(isinstance(d, xd.StaticDesc) for d in ds)
    node = scope.node
    if isinstance(node, c_ast.FileAST):
        node.ext = [item for item in node.ext if kept(item)]
    elif isinstance(node, c_ast.Compound):
        node.block_items = [item for item in node.block_items or [] if kept(item)]


def _shadow_taken(name: str, shadow: xd.Shadow, scope: Scope) -> bool:
    """Does an aligned array take ``shadow`` (or was its align in error)?  The array of
    this scope, or a file-scope one aligned inside a function, with its shadow beside
    either directive."""
    if name in scope.arrays or name in scope.broken_arrays or scope.is_broken_array(name):
        return True
    sym = scope.find_array(name)
    return sym is not None and sym.shadow is shadow


def _warn_order(scope: Scope, ctx: Context) -> None:
    """align/shadow before the array's declaration: accepted (P, M), but S forbids it
    (reference decision 5), so say so."""
    position = {id(item): k for k, item in enumerate(scope_items(scope))}
    for item in scope_items(scope):
        for d in directives_of(item, ctx):
            if not isinstance(d, (xd.Align, xd.Shadow)):
                continue
            for name in d.arrays:
                sym = scope.arrays.get(name.name)
                if sym is not None and position.get(id(sym.decl), -1) > position[id(item)]:
                    ctx.diags.warning(name.loc, f"'{name.name}' is declared after this directive; "
                                                "XcalableMP expects the declaration first (accepted)")


def _warn_clashes(scope: Scope, ctx: Context) -> None:
    """XMP names live in their own namespace (decision 4): a C variable of the same name
    (P's n-body uses t for the template and the time step) is only worth a warning."""
    assert ctx.scopes is not None
    if not scope.nodes and not scope.templates:
        return  # most scopes: no need to gather every C name of the file
    c_names = {n for s in [ctx.scopes.root, *ctx.scopes.by_node.values()] for n in s.c_decls}
    for sym in [*scope.nodes.values(), *scope.templates.values()]:
        if sym.name in c_names:
            kind = "nodes" if sym in scope.nodes.values() else "template"
            ctx.diags.warning(sym.decl.name.loc, f"{kind} '{sym.name}' has the name of a C variable; "
                                                 "XMP names have their own namespace, so both work")

def _declare_nodes(d: xd.NodesDecl, scope: Scope, ctx: Context) -> None:
    name = d.name.name
    if name in scope.nodes:
        ctx.diags.error(d.name.loc, f"nodes '{name}' is already declared in this scope")
        return
    if isinstance(d.mapping, xd.Ref) and not _subset_parent_ok(d, d.mapping, scope, ctx):
        scope.broken_xmp.add(name)
        return
    if len(d.extents) > MAX_RANK:
        ctx.diags.error(d.loc, f"nodes '{name}' has more than {MAX_RANK} dimensions")
        scope.broken_xmp.add(name)
        return
    file_scope = scope.parent is None
    scope.nodes[name] = NodesSym(d, f"_xmpacc_n_{name}", file_scope)


def _subset_parent_ok(d: xd.NodesDecl, ref: xd.Ref, scope: Scope, ctx: Context) -> bool:
    """``nodes q[2] = p[0:2]``: p must be a node array declared before, with as many
    dimensions as the reference gives (global-view §6)."""
    parent = scope.find_nodes(ref.name.name)   # declared before (and, for q = q[...], outside)
    if parent is None:
        if not scope.is_broken(ref.name.name):
            what = "a template, not a node array" if scope.find_template(ref.name.name) else "not declared"
            ctx.diags.error(ref.name.loc, f"nodes '{ref.name.name}' is {what}")
        return False
    if ref.subs is not None and len(ref.subs) != parent.ndims:
        ctx.diags.error(ref.loc, f"nodes '{parent.name}' has {parent.ndims} dimension(s) but the "
                                 f"reference gives {len(ref.subs)}")
        return False
    return True


def _declare_template(d: xd.TemplateDecl, scope: Scope, ctx: Context) -> None:
    name = d.name.name
    if name in scope.templates:
        ctx.diags.error(d.name.loc, f"template '{name}' is already declared in this scope")
        return
    if len(d.dims) > MAX_RANK:
        ctx.diags.error(d.loc, f"template '{name}' has more than {MAX_RANK} dimensions")
        scope.broken_xmp.add(name)
        return
    scope.templates[name] = TemplateSym(d, f"_xmpacc_t_{name}", scope.parent is None)


def _distribute(d: xd.Distribute, scope: Scope, ctx: Context) -> None:
    tname = d.template.name
    tmpl = scope.find_template(tname)
    if tmpl is None:
        if not scope.is_broken(tname):
            ctx.diags.error(d.template.loc, f"template '{tname}' is not declared")
        return
    if tmpl.distribute is not None:
        ctx.diags.error(d.loc, f"template '{tname}' is already distributed")
        return
    owner = _owning_scope(scope, tname)
    nodes = scope.find_nodes(d.onto.name)
    mistake = _distribute_mistake(d, tmpl, nodes, scope)
    if nodes is None or mistake is not None:
        # The template's mapping is unknown now: its aligns and loops stay silent.
        owner.broken_xmp.add(tname)
        if mistake is not None:
            ctx.diags.add(mistake)
        return
    owner.templates[tname] = dataclasses.replace(tmpl, distribute=d, nodes=nodes)


def _distribute_mistake(d: xd.Distribute, tmpl: TemplateSym, nodes: NodesSym | None,
                        scope: Scope) -> XmpError | None:
    """What is wrong with a distribute of the declared template ``tmpl`` (None: nothing,
    or only the nodes' own declaration, which has been reported)."""
    tname = tmpl.name
    if nodes is None:
        return None if scope.is_broken(d.onto.name) else \
            XmpError(d.onto.loc, f"nodes '{d.onto.name}' is not declared")
    if len(d.formats) != tmpl.ndims:
        return XmpError(d.loc, f"template '{tname}' has {tmpl.ndims} dimension(s) but "
                                f"{len(d.formats)} dist-format(s) are given")
    distributed = sum(1 for f in d.formats if f.kind != "none")
    if distributed != nodes.ndims:
        return XmpError(d.loc, f"{distributed} distributed dimension(s) of '{tname}' but nodes "
                                f"'{nodes.name}' has {nodes.ndims} dimension(s); they must match")
    return None


def _owning_scope(scope: Scope, tname: str) -> Scope:
    s: Scope | None = scope
    while s is not None:
        if tname in s.templates:
            return s
        s = s.parent
    raise AssertionError(tname)
