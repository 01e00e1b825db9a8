"""Pass loops: ``#pragma xmp loop`` gets this node's bounds (reference §6.1).

Before:                                   After:
    #pragma xmp loop on t[i]                  {
    for (i = 1; i < N - 1; i++)                 _xmpacc_sched_t _xmpacc_s_i =
      a[i] = ...;                                 _xmpacc_schedule(&_xmpacc_t_t.dim[0], 1, (N - 1) - 1, 1);
                                                for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last;
                                                     i += _xmpacc_s_i.step)
                                                  a[i] = ...;
                                              }

The control variable keeps global values, so the body is unchanged.  Each distributed
loop of a nest gets its schedule right before it.  ``cyclic(w)`` dimensions iterate over
positions (``_xmpacc_schedule_pos``) and skip the indices that are off the loop's
progression.  Reduction clauses reset non-first copies to the identity before the nest
and combine after it.  ``loop ... acc`` is left to the gpu pass.
"""

from __future__ import annotations

from pycparser import c_ast

from xmpacc import cbuild, facts
from xmpacc.cbuild import walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import AlreadyReported, XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.attach import pragma_id
from xmpacc.passes.canonical import CanonicalLoop, canonical
from xmpacc.passes.reductions import loop_reduction_calls
from xmpacc.scoping import ScopedWalker
from xmpacc.symbols import Scope, ScopeTree, TemplateSym


def _nested_for(body: c_ast.Node) -> c_ast.For | None:
    """The loop directly nested in ``body`` (perfect nesting), if any."""
    if isinstance(body, c_ast.For):
        return body
    if isinstance(body, c_ast.Compound) and body.block_items and len(body.block_items) == 1:
        return _nested_for(body.block_items[0])
    return None


def loop_indices(loop: xd.Loop) -> list[tuple[str, int]]:
    """(control variable, template dimension) of the distributed loops, on-ref order."""
    where: dict[str, int] = {}
    for t, sub in enumerate(loop.on.subs):
        if isinstance(sub, xd.LoopIndex):
            if sub.name.name in where:
                raise XmpError(sub.name.loc, f"loop index '{sub.name.name}' appears twice in the on-ref")
            if sub.offset is not None:
                raise XmpError(sub.name.loc, "template subscripts with an offset in 'loop on' are not supported yet")
            where[sub.name.name] = t
    names = [n for n in loop.indices] if loop.indices is not None else None
    if names is None:
        return list(where.items())
    out = []
    for n in names:
        if n.name not in where:
            raise XmpError(n.loc, f"cannot find index '{n.name}' in the on-ref of the loop directive")
        out.append((n.name, where[n.name]))
    return out


_COLLECTIVES = {xd.Reflect: "reflect", xd.ReductionDirective: "reduction", xd.Bcast: "bcast",
                xd.Barrier: "barrier"}


def loop_template(loop: xd.Loop, scope: Scope) -> TemplateSym:
    """The distributed template of a loop's on-ref, checked (shared with the gpu pass)."""
    tmpl = scope.find_template(loop.on.template.name)
    if scope.is_broken(loop.on.template.name):
        raise AlreadyReported
    if tmpl is None:
        name = loop.on.template.name
        if scope.find_nodes(name) is not None:
            raise XmpError(loop.on.template.loc, "'loop on' a node array is not supported yet")
        raise XmpError(loop.on.template.loc, f"template '{name}' is not declared")
    if tmpl.distribute is None:
        raise XmpError(loop.on.template.loc, f"template '{tmpl.name}' is not distributed")
    if len(loop.on.subs) != tmpl.ndims:
        raise XmpError(loop.on.loc, f"template '{tmpl.name}' has {tmpl.ndims} dimension(s) but the "
                                    f"on-ref gives {len(loop.on.subs)}")
    return tmpl


class _LoopLowering(ScopedWalker):
    def __init__(self, tree: ScopeTree, ctx: Context) -> None:
        super().__init__(tree)
        self.ctx = ctx

    def visit_Compound(self, node: c_ast.Compound) -> None:
        items = node.block_items or []
        out: list[c_ast.Node] = []
        i = 0
        while i < len(items):
            item = items[i]
            loop = self._loop_directive(item)
            if loop is None:
                self.visit(item)
                out.append(item)
                i += 1
                continue
            nxt = items[i + 1] if i + 1 < len(items) else None
            if not isinstance(nxt, c_ast.For):
                self.ctx.diags.error(loop.loc, "the loop directive must be followed by a for statement")
                i += 1
                continue
            self.visit(nxt)  # inner directives first
            try:
                out.append(self._lower(loop, nxt))
            except XmpError as err:
                self.ctx.diags.add(err)
                out.append(nxt)  # so that later passes still check the body
            except AlreadyReported:
                out.append(nxt)
            i += 2
        node.block_items = out

    def _check_body(self, body: c_ast.Node) -> None:
        """Communication inside a distributed loop runs on the owners of one iteration only,
        which deadlocks the others (reference §6.1: LATER, rejected)."""
        for node in walk(body):
            for d in self.ctx.directives.get(id(node), []) if pragma_id(node) is not None else []:
                if type(d) in _COLLECTIVES:
                    name = _COLLECTIVES[type(d)]
                    raise XmpError(d.loc, f"'{name}' inside the body of a loop directive is not "
                                          "supported yet")

    def _loop_directive(self, item: c_ast.Node) -> xd.Loop | None:
        if pragma_id(item) is None:
            return None
        ds = [d for d in self.ctx.directives.get(id(item), []) if isinstance(d, xd.Loop)]
        if ds and ds[0].acc is not None:
            return None  # the gpu pass owns loop ... acc
        return ds[0] if ds else None

    def _template(self, loop: xd.Loop) -> TemplateSym:
        return loop_template(loop, self.scope)

    def _lower(self, loop: xd.Loop, node: c_ast.For) -> c_ast.Node:
        tmpl = self._template(loop)
        self._check_body(node.stmt)
        indices = dict(loop_indices(loop))
        pending = dict(indices)
        nest = _distribute_nest(node, pending, tmpl)
        if pending:
            name = next(iter(pending))
            raise XmpError(loop.loc, f"cannot find the loop statement of index '{name}' in the loop nest")
        mask = [0] * tmpl.ndims
        for t in indices.values():
            mask[t] = 1
        before, after = loop_reduction_calls(loop, tmpl, mask, self.scope, node.coord)
        self.ctx.info.append(facts.loop(loop, tmpl, indices))
        return c_ast.Compound(before + [nest] + after, node.coord)


def _control_var(node: c_ast.For) -> str | None:
    init = node.init
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    if isinstance(init, c_ast.DeclList) and init.decls:
        return init.decls[0].name
    return None


def _distribute_nest(node: c_ast.For, pending: dict[str, int], tmpl: TemplateSym) -> c_ast.Node:
    """The replacement of ``node``: every loop of the perfect nest whose control variable is
    in ``pending`` is distributed (and removed from ``pending``), outermost first."""
    var = _control_var(node)
    if var is None and pending:
        canonical(node)  # reports what is wrong with the loop's initialisation
    tdim = pending.pop(var) if var in pending else None
    info = canonical(node) if tdim is not None else None
    inner = _nested_for(node.stmt)
    if pending and inner is not None:
        _replace_nested(node, inner, _distribute_nest(inner, pending, tmpl))
    if info is None or tdim is None:
        return node
    return _distributed_for(node, info, tmpl, tdim)


def _replace_nested(parent: c_ast.For, old: c_ast.For, new: c_ast.Node) -> None:
    if parent.stmt is old:
        parent.stmt = new
        return
    holder = parent.stmt
    while isinstance(holder, c_ast.Compound) and holder.block_items[0] is not old:
        holder = holder.block_items[0]
    holder.block_items[0] = new


def _distributed_for(node: c_ast.For, info: CanonicalLoop, tmpl: TemplateSym, tdim: int) -> c_ast.Compound:
    v = info.var
    dim = f"&{tmpl.c_name}.dim[{tdim}]"
    cmp = "<=" if info.upward else ">="
    decl_type = _declared_type(info)
    if _is_block_cyclic(tmpl, tdim):
        return _position_for(node, info, dim, decl_type)
    text = (f"_xmpacc_sched_t _xmpacc_s_{v} = _xmpacc_schedule({dim}, {info.init}, {info.last}, {info.step});"
            f"for ({decl_type}{v} = _xmpacc_s_{v}.first; {v} {cmp} _xmpacc_s_{v}.last; "
            f"{v} += _xmpacc_s_{v}.step) ;")
    items = cbuild.stmts(text, node.coord)
    items[-1].stmt = node.stmt
    return c_ast.Compound(items, node.coord)


def _declared_type(info: CanonicalLoop) -> str:
    if info.declared is None:
        return ""
    t = info.declared.type
    return " ".join(getattr(t.type, "names", ["long long"])) + " "


def _is_block_cyclic(tmpl: TemplateSym, tdim: int) -> bool:
    assert tmpl.distribute is not None
    f = tmpl.distribute.formats[tdim]
    return f.kind == "cyclic" and f.arg is not None


def _position_for(node: c_ast.For, info: CanonicalLoop, dim: str, decl_type: str) -> c_ast.Compound:
    v = info.var
    p = f"_xmpacc_p_{v}"
    cmp, inc = ("<=", "++") if info.upward else (">=", "--")
    assign = f"{decl_type}{v} = _xmpacc_tdim_glb({dim}, {p});"
    text = (f"long long _xmpacc_i0_{v} = {info.init}, _xmpacc_st_{v} = {info.step};"
            f"_xmpacc_sched_t _xmpacc_s_{v} = _xmpacc_schedule_pos({dim}, _xmpacc_i0_{v}, {info.last}, _xmpacc_st_{v});"
            f"for (long long {p} = _xmpacc_s_{v}.first; {p} {cmp} _xmpacc_s_{v}.last; {p}{inc}) {{"
            f"  {assign} if (!_xmpacc_on_progression({v}, _xmpacc_i0_{v}, _xmpacc_st_{v})) continue; }}")
    items = cbuild.stmts(text, node.coord)
    loop = items[-1]
    loop.stmt.block_items.append(node.stmt)
    return c_ast.Compound(items, node.coord)


def run(unit: Unit, ctx: Context) -> Unit:
    assert ctx.scopes is not None
    _LoopLowering(ctx.scopes, ctx).visit(unit.ast)
    return unit  # errors stay collected until the check stage


distributed_for = _distributed_for   # shared with the array directive (passes/array.py)
