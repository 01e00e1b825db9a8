"""The distributed nest of one ``loop`` directive on the host (part of pass loops).

Every loop of the perfect nest whose control variable is distributed gets its schedule
(loopsched.py) right before it and iterates it; the others are left alone:

    for (i = 1; i < N - 1; i++)  ->  { _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule(...);
      body                             for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last;
                                            i += _xmpacc_s_i.step) body }

``cyclic(w)`` dimensions iterate over positions (``_xmpacc_schedule_pos``) and skip the
indices that are off the loop's progression.  A margin nest is run once per cell:

    for (int _xmpacc_cell_9 = 0; _xmpacc_cell_9 < 3; _xmpacc_cell_9++) { <nest whose
      innermost distributed body is guarded by loopsched.margin_guard> }
"""

from __future__ import annotations

import re

from pycparser import c_ast

from xmpacc import cbuild
from xmpacc.passes.common.canonical import CanonicalLoop, canonical
from xmpacc.passes.common.loopsched import DimSched, is_block_cyclic, margin_guard, sched_text, target_dim
from xmpacc.symbols import NodesSym, TemplateSym


def nested_for(body: c_ast.Node) -> c_ast.For | None:
    """The loop directly nested in ``body`` (perfect nesting), if any."""
    if isinstance(body, c_ast.For):
        return body
    if isinstance(body, c_ast.Compound) and body.block_items and len(body.block_items) == 1:
        return nested_for(body.block_items[0])
    return None


def control_var(node: c_ast.For) -> str | None:
    init = node.init
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    if isinstance(init, c_ast.DeclList) and init.decls:
        return init.decls[0].name
    return None


class NestBuilder:
    """Lowers one nest; ``scheds`` maps each distributed control variable to its schedule."""

    def __init__(self, target: TemplateSym | NodesSym, style: str, scheds: dict[str, DimSched],
                 cell: str | None) -> None:
        self.target, self.style, self.scheds, self.cell = target, style, scheds, cell
        self.pending = dict(scheds)
        self.guarded = False

    def build(self, node: c_ast.For) -> c_ast.Node:
        nest = self._nest(node)
        if self.cell is None:
            return nest
        cells = 3 ** sum(1 for d in self.scheds.values() if d.width is not None)
        loop = cbuild.stmt(f"for (int {self.cell} = 0; {self.cell} < {cells}; {self.cell}++) {{ }}",
                           node.coord)
        loop.stmt.block_items = [nest]
        return loop

    def _nest(self, node: c_ast.For) -> c_ast.Node:
        var = control_var(node)
        if var is None and self.pending:
            canonical(node)  # reports what is wrong with the loop's initialisation
        d = self.pending.pop(var) if var in self.pending else None
        info = canonical(node) if d is not None else None
        inner = nested_for(node.stmt)
        if self.pending and inner is not None:
            _replace_nested(node, inner, self._nest(inner))
        if info is None or d is None:
            return node
        if self.cell is not None and not self.pending and not self.guarded:
            self._guard(node)   # the first to get here is the innermost distributed loop
        return self._distributed_for(node, info, d)

    def _guard(self, node: c_ast.For) -> None:
        """The innermost distributed body of a margin nest runs only in margin cells."""
        self.guarded = True
        guard = cbuild.stmt(f"if ({margin_guard(list(self.scheds.values()))}) ;", node.coord)
        guard.iftrue = node.stmt
        node.stmt = guard

    def _distributed_for(self, node: c_ast.For, info: CanonicalLoop, d: DimSched) -> c_ast.Compound:
        v = info.var
        decls, dim = target_dim(self.target, v, d.tdim, self.style)
        if is_block_cyclic(self.target, d.tdim):
            return _position_for(node, info, dim, d.offset, decls)
        cmp = "<=" if info.upward else ">="
        text = (decls + sched_text(d, info, dim) +
                f"for ({_declared_type(info)}{v} = _xmpacc_s_{v}.first; {v} {cmp} _xmpacc_s_{v}.last; "
                f"{v} += {self._step(info, d)}) ;")
        items = cbuild.stmts(text, node.coord)
        items[-1].stmt = node.stmt
        return c_ast.Compound(items, node.coord)

    def _step(self, info: CanonicalLoop, d: DimSched) -> str:
        """A constant step where the schedule keeps the loop's own (every dimension but a
        cyclic one): cc can count the iterations and vectorise (hoist.py)."""
        if _constant_step(info.step) and not _is_cyclic(self.target, d.tdim):
            return info.step
        return f"_xmpacc_s_{info.var}.step"


_CONSTANT_STEP = re.compile(r"-?\(?\d+\)?")


def _constant_step(step: str) -> bool:
    return _CONSTANT_STEP.fullmatch(step.replace(" ", "")) is not None


def distributed_for(node: c_ast.For, info: CanonicalLoop, tmpl: TemplateSym, tdim: int) -> c_ast.Compound:
    """One plain distributed loop over template dimension ``tdim`` (the array directive's
    loops over a template section use it too, passes/localize/array.py)."""
    builder = NestBuilder(tmpl, "bracket", {}, None)
    return builder._distributed_for(node, info, DimSched(info.var, tdim, None, "plain", None))


def _replace_nested(parent: c_ast.For, old: c_ast.For, new: c_ast.Node) -> None:
    if parent.stmt is old:
        parent.stmt = new
        return
    holder = parent.stmt
    while isinstance(holder, c_ast.Compound) and holder.block_items[0] is not old:
        holder = holder.block_items[0]
    holder.block_items[0] = new


def _declared_type(info: CanonicalLoop) -> str:
    if info.declared is None:
        return ""
    t = info.declared.type
    return " ".join(getattr(t.type, "names", ["long long"])) + " "


def _is_cyclic(target: TemplateSym | NodesSym, tdim: int) -> bool:
    if not isinstance(target, TemplateSym):
        return False
    assert target.distribute is not None
    return target.distribute.formats[tdim].kind == "cyclic"


def _position_for(node: c_ast.For, info: CanonicalLoop, dim: str, offset: str | None,
                  decls: str) -> c_ast.Compound:
    """cyclic(w): positions of this node's owned indices of t(i+c), then i = index - c."""
    v = info.var
    p = f"_xmpacc_p_{v}"
    cmp, inc = ("<=", "++") if info.upward else (">=", "--")
    off = "" if offset is None else f" + ({offset})"
    glb = f"_xmpacc_tdim_glb({dim}, {p})"
    assign = f"{_declared_type(info)}{v} = {glb};" if offset is None else \
        f"{_declared_type(info)}{v} = {glb} - ({offset});"
    text = (decls + f"long long _xmpacc_i0_{v} = {info.init}{off}, _xmpacc_st_{v} = {info.step};"
            f"_xmpacc_sched_t _xmpacc_s_{v} = _xmpacc_schedule_pos({dim}, _xmpacc_i0_{v}, "
            f"({info.last}){off}, _xmpacc_st_{v});"
            f"for (long long {p} = _xmpacc_s_{v}.first; {p} {cmp} _xmpacc_s_{v}.last; {p}{inc}) {{"
            f"  {assign} if (!_xmpacc_on_progression({v}{off}, _xmpacc_i0_{v}, _xmpacc_st_{v})) continue; }}")
    items = cbuild.stmts(text, node.coord)
    loop = items[-1]
    loop.stmt.block_items.append(node.stmt)
    return c_ast.Compound(items, node.coord)
