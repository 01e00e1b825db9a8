"""Pass locality: reads and writes inside ``loop`` that may leave the node's block.

A ``loop on t[i]`` runs iteration i on the node that owns t[i] (``loop on t[i+1]``: the
owner of t[i+1]); an aligned array element is in that node's memory when it is owned or
in a declared shadow, and a shadow slot holds the neighbour's value only after a
``reflect``.  For each access of an aligned array or structure member in a loop (host
``loop``, ``loop ... acc``, a ``loop`` paired with an OpenACC loop construct) and each
distributed dimension:

* subscript ``i + c`` where i is the index the loop maps to that template dimension:
  local when c plus the align offset minus the on-ref offset is 0, else that far from
  the iteration's element; ``expand(w)`` (negative: shrink) and ``margin(w)`` move the
  iterations up to w beyond the block, so the element may be further out (or, for
  ``expand(-1)`` and ``a[i - 1]``, never leave the block); beyond the block it is inside
  the shadow (block, gblock) or outside it (always outside for cyclic);
* a constant, another distributed index of the loop, or the control variable of an inner
  loop whose bounds do not depend on the loop's indices: may be anywhere, unless the
  dimension has a full shadow;
* anything else, a dimension that is not distributed or has a full shadow, a template
  other than the loop's, a node array (``loop on p[i]``), widths that are not constants:
  nothing is said (no warning is ever wrong).

Reads outside block + shadow are warnings, writes outside it errors; a write into a
shadow slot is a warning (Omni runs it) unless ``expand``/``margin`` puts iterations
there or a ``reduce_shadow`` of the array adds the slots to their owners.  A read inside
a shadow is checked against the data flow of reflect_flow.py: the array written (or
changed by ``reduce_shadow``, or with its asynchronous reflect not waited for) and not
reflected since is a warning that names the missing ``reflect`` or ``wait_async``, or
the ``width``/``orthogonal`` reflect that refreshed too little of it.
Nothing in the AST changes.

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
from xmpacc.passes.reflect_flow import FlowWalker, Summary
from xmpacc.passes.shadow_state import INF, Key, LoopRange, State, key_of, loop_range
from xmpacc.symbols import ArrayDim, Scope, TemplateSym

STAR = "*"   # the on-ref has '*' or ':' there: every node along that dimension runs it


@dataclass(frozen=True)
class LoopInfo:
    loop: xd.Loop
    tmpl: TemplateSym
    governing: dict[int, tuple[str, int]]   # template dimension -> (loop index or STAR, on-ref offset)
    indices: frozenset[str]
    facts: BodyFacts
    nest: c_ast.For
    range: LoopRange                        # expand/margin: how far the iterations reach

    @property
    def on(self) -> str:
        parts = []
        for sub in self.loop.on.subs:
            if isinstance(sub, xd.LoopIndex):
                parts.append(sub.name.name + _offset_text(sub.offset))
            else:
                parts.append({xd.Star: "*", xd.Colon: ":"}.get(type(sub), getattr(sub, "text", "?")))
        return self.tmpl.name + "".join(f"[{p}]" for p in parts)


def _offset_text(offset: xd.Expr | None) -> str:
    if offset is None:
        return ""
    value = text_value(offset.text)
    if value is None:
        return f" + {offset.text}"
    return f" + {value}" if value >= 0 else f" - {-value}"


def loop_info(d: xd.Loop, node: c_ast.For, scope: Scope) -> LoopInfo | None:
    """What the analysis needs of a loop directive; None when it is in error (the loops
    and gpu passes report that) or not analysable (``loop on p[i]`` over a node array,
    widths that are not constants)."""
    tmpl = scope.find_template(d.on.template.name)
    if tmpl is None or tmpl.distribute is None or len(d.on.subs) != tmpl.ndims:
        return None
    rng = loop_range(d, tmpl.ndims)
    try:
        indices = dict(loop_indices(d))
    except (XmpError, AlreadyReported):
        return None
    controls, current = set(), node
    while current is not None:           # the perfect nest must hold every distributed loop
        controls.add(for_control(current))
        current = _nested_for(current.stmt)
    if rng is None or not set(indices) <= controls:
        return None
    governing: dict[int, tuple[str, int]] = {}
    for t, sub in enumerate(d.on.subs):
        if isinstance(sub, (xd.Star, xd.Colon)):
            governing[t] = (STAR, 0)
        elif isinstance(sub, xd.LoopIndex) and indices.get(sub.name.name) == t:
            # loop on t[i+1]: iteration i runs on the owner of t[i+1]
            offset = text_value(sub.offset.text) if sub.offset is not None else 0
            if offset is not None:
                governing[t] = (sub.name.name, offset)
    return LoopInfo(d, tmpl, governing, frozenset(indices), body_facts(node), node, rng)


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
    below: int = INF     # how far below the block the access may go (0: not below)
    above: int = INF


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
    gov, on_offset = info.governing.get(dim.tdim, (None, 0))
    off, af = text_value(dim.offset), affine(acc.subs[k])
    if gov is None or off is None or af is None:
        return None
    if gov != STAR and af.var == gov:
        return _near(info, k, dim, af.const + off - on_offset)
    moving = af.var is None or af.var in info.indices or _independent(af.var, acc, info)
    if not moving:
        return None
    if dim.full_shadow:
        return Finding("shadow", k)
    return None if any(restricts(g) for g in acc.guards) else Finding("anywhere", k)


def _near(info: LoopInfo, k: int, dim: ArrayDim, delta: int) -> Finding | None:
    """The element ``delta`` template elements from the iteration's own, from iterations
    that reach ``info.range`` beyond the block (expand, margin)."""
    e_lo, e_hi = info.range.reach(dim.tdim)
    below, above = max(0, e_lo - delta), max(0, e_hi + delta)
    if below == 0 and above == 0:
        return None
    if dim.full_shadow:
        return Finding("shadow", k, below, above)
    lo, hi = text_value(dim.shadow_lo), text_value(dim.shadow_hi)
    cyclic = info.tmpl.dist_kind(dim.tdim) == "cyclic"
    if lo is None or hi is None or (cyclic and info.range.clause is not None):
        return None
    inside = not cyclic and below <= lo and above <= hi
    return Finding("shadow" if inside else "outside", k, below, above)


def _stray_write(acc: Access, f: Finding, info: LoopInfo) -> bool:
    """Does a write land in a shadow slot where no expand/margin puts an iteration (a full
    shadow holds every element: writing it is the owner's business)?"""
    if acc.sym.dims[f.dim].full_shadow:
        return False
    e_lo, e_hi = info.range.reach(acc.sym.dims[f.dim].tdim)
    return f.below > max(e_lo, 0) or f.above > max(e_hi, 0)


class _Locality:
    def __init__(self, unit: Unit, ctx: Context) -> None:
        assert ctx.scopes is not None
        self.unit, self.ctx, self.tree = unit, ctx, ctx.scopes
        self.functions = {f.decl.name: f for f in unit.ast.ext if isinstance(f, c_ast.FuncDef)}
        self.summaries: dict[str, Summary] = {}
        self.reported: dict[tuple[SourceLoc, str], tuple[str, str]] = {}
        # writes into shadow slots of these are meant to be added to their owners
        self.reduced = {n.name for ds in ctx.directives.values() for d in ds
                        if isinstance(d, xd.ReduceShadow) for n in d.arrays}

    def function(self, fn: c_ast.FuncDef) -> None:
        FlowWalker(self.ctx, self.tree, self.check_loop, self.summary).stmt(fn.body, self.tree.root, {})

    def summary(self, name: str) -> Summary | None:
        fn = self.functions.get(name)
        if fn is None:
            return None
        if name not in self.summaries:
            self.summaries[name] = Summary(reflects_all=True)   # recursion: it may reflect anything
            walker = FlowWalker(self.ctx, self.tree, lambda *a: None, self.summary)
            end = walker.stmt(fn.body, self.tree.root, {})
            self.summaries[name] = Summary(walker.reflected & walker.file_level,
                                           {k: v for k, v in end.items() if k in walker.file_level},
                                           walker.waited, reflects_args=walker.reflects_args)
        return self.summaries[name]

    def check_loop(self, d: xd.Loop, node: c_ast.For, scope: Scope, state: State) -> None:
        info = loop_info(d, node, scope)
        if info is None:
            return
        found = [(acc, classify(acc, info)) for acc in accesses(node, self.tree, scope)]
        for acc, findings in found:
            self._locality(acc, findings, info, found)
        stale: dict[Key, tuple[Access, dict[int, tuple[int, int]]]] = {}
        for acc, findings in found:
            shadow = {f.dim: (f.below, f.above) for f in findings if f.kind == "shadow"}
            entry = state.get(key_of(acc.sym))
            if acc.reads and shadow and entry is not None and not entry.covers(shadow):
                stale.setdefault(key_of(acc.sym), (acc, shadow))
        for key, (acc, shadow) in stale.items():
            # one per access: inside a loop the last pass, with the loop's whole state, wins
            self.reported[(acc.loc, "stale")] = ("warning", msg.stale_shadow(acc, state[key], d.loc, shadow))

    def _locality(self, acc: Access, findings: list[Finding], info: LoopInfo,
                  found: list[tuple[Access, list[Finding]]]) -> None:
        outside = [f for f in findings if f.kind in ("outside", "anywhere")]
        if outside:
            same = [a for a, _f in found if key_of(a.sym) == key_of(acc.sym)]
            self._say("error" if acc.writes else "warning", acc.loc,
                      msg.outside(acc, outside[0], info, same, lambda a: classify(a, info)))
        elif acc.writes and acc.sym.name not in self.reduced and \
                any(_stray_write(acc, f, info) for f in findings):
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
