"""Pass locality: reads and writes inside ``loop`` that may leave the node's block.

A ``loop on t[i]`` runs iteration i on the node that owns t[i]; an aligned array element
is in that node's memory when it is owned or in a declared shadow, and a shadow slot holds
the neighbour's value only after a ``reflect``.  For each access of an aligned array in a
loop (host ``loop`` and ``loop ... acc``) and each distributed dimension:

* subscript ``i + c`` where i is the index the loop maps to that template dimension:
  local when c plus the align offset is 0; else inside the shadow (block, gblock) or
  outside it (always outside for cyclic);
* a constant, another distributed index of the loop, or the control variable of an inner
  loop whose bounds do not depend on the loop's indices: may be anywhere, unless the
  dimension has a full shadow;
* anything else, a dimension that is not distributed or has a full shadow, a template
  other than the loop's: nothing is said (no warning is ever wrong).

Reads outside block + shadow are warnings, writes outside it errors (writes into a shadow
slot a warning: Omni runs them).  A read inside a shadow is checked against the data flow
of reflect_flow.py: the array written and not reflected since is a warning that names the
missing ``reflect``.  Nothing in the AST changes.

    #pragma xmp loop on t[i]                       (a aligned with t, no shadow)
    for (i = 1; i < N - 1; i++)
      b[i] = a[i - 1] + a[i + 1];
    -> warning: a[i - 1] may be on another node: ... add '#pragma xmp shadow a[1]' and
       '#pragma xmp reflect (a)' before the loop
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import AlreadyReported, SourceLoc, XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes import locality_messages as msg
from xmpacc.passes.accesses import (
    Access,
    BodyFacts,
    accesses,
    affine,
    body_facts,
    for_control,
    names_in,
    restricts,
    text_value,
)
from xmpacc.passes.loops import _nested_for, loop_indices
from xmpacc.passes.reflect_flow import FlowWalker, State, Summary
from xmpacc.symbols import ArrayDim, Scope, TemplateSym

STAR = "*"   # the on-ref has '*' or ':' there: every node along that dimension runs it


@dataclass(frozen=True)
class LoopInfo:
    loop: xd.Loop
    tmpl: TemplateSym
    governing: dict[int, str]          # template dimension -> loop index or STAR
    indices: frozenset[str]
    facts: BodyFacts
    nest: c_ast.For

    @property
    def on(self) -> str:
        parts = []
        for sub in self.loop.on.subs:
            if isinstance(sub, xd.LoopIndex):
                parts.append(sub.name.name + (f" + {sub.offset.text}" if sub.offset else ""))
            else:
                parts.append({xd.Star: "*", xd.Colon: ":"}.get(type(sub), getattr(sub, "text", "?")))
        return self.tmpl.name + "".join(f"[{p}]" for p in parts)


def loop_info(d: xd.Loop, node: c_ast.For, scope: Scope) -> LoopInfo | None:
    """What the analysis needs of a loop directive; None when it is in error (the loops
    and gpu passes report that) or not analysable."""
    tmpl = scope.find_template(d.on.template.name)
    if tmpl is None or tmpl.distribute is None or len(d.on.subs) != tmpl.ndims:
        return None
    try:
        indices = dict(loop_indices(d))
    except (XmpError, AlreadyReported):
        return None
    controls, current = set(), node
    while current is not None:           # the perfect nest must hold every distributed loop
        controls.add(for_control(current))
        current = _nested_for(current.stmt)
    if not set(indices) <= controls:
        return None
    governing: dict[int, str] = {}
    for t, sub in enumerate(d.on.subs):
        if isinstance(sub, (xd.Star, xd.Colon)):
            governing[t] = STAR
        elif isinstance(sub, xd.LoopIndex) and sub.offset is None and indices.get(sub.name.name) == t:
            governing[t] = sub.name.name
    return LoopInfo(d, tmpl, governing, frozenset(indices), body_facts(node), node)


def _one_node(tmpl: TemplateSym, tdim: int) -> bool:
    """Is template dimension tdim distributed over a node dimension of constant extent 1?"""
    assert tmpl.distribute is not None and tmpl.nodes is not None
    nd = sum(1 for f in tmpl.distribute.formats[:tdim] if f.kind != "none")
    extents = tmpl.nodes.decl.extents
    return nd < len(extents) and isinstance(extents[nd], xd.Expr) and text_value(extents[nd].text) == 1


def _independent(var: str, acc: Access, info: LoopInfo) -> bool:
    """Is ``var`` the control variable of an inner loop whose range does not follow the
    distributed indices (so it takes the same values on every node)?"""
    loops = [f for f in acc.fors if for_control(f) == var]
    if not loops or var in info.indices:
        return False
    inner = loops[-1]
    bound = (names_in(inner.init) | names_in(inner.cond)) - {var}
    if bound & (info.indices | info.facts.declared | info.facts.assigned):
        return False
    allowed = {id(n) for f in walk(info.nest) if isinstance(f, c_ast.For) and for_control(f) == var
               for part in (f.init, f.next) if part is not None for n in walk(part)}
    for n in walk(info.nest):
        target = n.lvalue if isinstance(n, c_ast.Assignment) else (
            n.expr if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&") else None)
        if isinstance(target, c_ast.ID) and target.name == var and id(n) not in allowed:
            return False
    return True


@dataclass(frozen=True)
class Finding:
    """How one dimension of an access relates to the node's block."""

    kind: str            # "shadow": inside the shadow; "outside": beyond it; "anywhere": moving
    dim: int
    delta: int = 0       # "shadow"/"outside" with an index: distance from the iteration's element


def classify(acc: Access, info: LoopInfo) -> list[Finding]:
    """One finding per distributed dimension that is not the iteration's own element."""
    if acc.sym.template.decl is not info.tmpl.decl:
        return []
    out = []
    for k, dim in enumerate(acc.sym.dims):
        f = _classify_dim(acc, info, k, dim)
        if f is not None:
            out.append(f)
    return out


def _classify_dim(acc: Access, info: LoopInfo, k: int, dim: ArrayDim) -> Finding | None:
    if dim.tdim < 0 or info.tmpl.dist_kind(dim.tdim) == "none" or _one_node(info.tmpl, dim.tdim):
        return None
    gov = info.governing.get(dim.tdim)
    off, af = text_value(dim.offset), affine(acc.subs[k])
    if gov is None or off is None or af is None:
        return None
    if gov != STAR and af.var == gov:
        delta = af.const + off
        if delta == 0:
            return None
        if dim.full_shadow:
            return Finding("shadow", k, delta)
        lo, hi = text_value(dim.shadow_lo), text_value(dim.shadow_hi)
        if lo is None or hi is None:
            return None
        width = lo if delta < 0 else hi
        inside = info.tmpl.dist_kind(dim.tdim) != "cyclic" and abs(delta) <= width
        return Finding("shadow" if inside else "outside", k, delta)
    moving = af.var is None or af.var in info.indices or _independent(af.var, acc, info)
    if not moving:
        return None
    if dim.full_shadow:
        return Finding("shadow", k)
    return None if any(restricts(g) for g in acc.guards) else Finding("anywhere", k)


class _Locality:
    def __init__(self, unit: Unit, ctx: Context) -> None:
        assert ctx.scopes is not None
        self.unit, self.ctx, self.tree = unit, ctx, ctx.scopes
        self.functions = {f.decl.name: f for f in unit.ast.ext if isinstance(f, c_ast.FuncDef)}
        self.summaries: dict[str, Summary] = {}
        self.reported: dict[tuple[SourceLoc, str], tuple[str, str]] = {}

    def function(self, fn: c_ast.FuncDef) -> None:
        FlowWalker(self.ctx, self.tree, self.check_loop, self.summary).stmt(fn.body, self.tree.root, {})

    def summary(self, name: str) -> Summary | None:
        fn = self.functions.get(name)
        if fn is None:
            return None
        if name not in self.summaries:
            file_arrays = {id(s) for s in self.tree.root.arrays.values()}
            self.summaries[name] = Summary(set(file_arrays), {})   # recursion: it may reflect anything
            walker = FlowWalker(self.ctx, self.tree, lambda *a: None, self.summary)
            end = walker.stmt(fn.body, self.tree.root, {})
            self.summaries[name] = Summary(walker.reflected & file_arrays,
                                           {k: v for k, v in end.items() if k in file_arrays})
        return self.summaries[name]

    def check_loop(self, d: xd.Loop, node: c_ast.For, scope: Scope, state: State) -> None:
        info = loop_info(d, node, scope)
        if info is None:
            return
        found = [(acc, classify(acc, info)) for acc in accesses(node, self.tree, scope)]
        for acc, findings in found:
            self._locality(acc, findings, info, found)
        stale = {}
        for acc, findings in found:
            if acc.reads and any(f.kind == "shadow" for f in findings) and id(acc.sym) in state:
                stale.setdefault(id(acc.sym), acc)
        for key, acc in stale.items():
            self._say("warning", acc.loc, msg.stale_shadow(acc, state[key], d.loc))

    def _locality(self, acc: Access, findings: list, info: LoopInfo, found: list) -> None:
        outside = [f for f in findings if f.kind in ("outside", "anywhere")]
        if outside:
            self._say("error" if acc.writes else "warning", acc.loc,
                      msg.outside(acc, outside[0], info, [a for a, _f in found if a.sym is acc.sym],
                                  lambda a: classify(a, info)))
        elif acc.writes and any(f.kind == "shadow" and f.delta != 0 and not acc.sym.dims[f.dim].full_shadow
                                for f in findings):
            self._say("warning", acc.loc, msg.writes_shadow(acc, info))

    def _say(self, severity: str, loc: SourceLoc, text: str) -> None:
        self.reported.setdefault((loc, text), (severity, text))

    def flush(self) -> None:
        for (loc, _t), (severity, text) in sorted(self.reported.items(), key=lambda kv: (kv[0][0].line,
                                                                                         kv[0][0].col)):
            (self.ctx.diags.error if severity == "error" else self.ctx.diags.warning)(loc, text)


def run(unit: Unit, ctx: Context) -> Unit:
    checker = _Locality(unit, ctx)
    for fn in checker.functions.values():
        checker.function(fn)
    checker.flush()
    return unit
