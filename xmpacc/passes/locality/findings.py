"""Where one subscript of an aligned array in a ``loop`` may fall (pass locality): the loop
as the analysis sees it (``LoopInfo``) and, per distributed dimension of an access, a
``Finding`` (owned, inside the shadow, outside it, or unknown).  Pass locality decides
what to report; locality_messages.py words it.

    #pragma xmp loop on t[i]        a[i - 1]  ->  Finding(kind="shadow", dim=0, below=1, above=0)
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.diagnostics import AlreadyReported, XmpError
from xmpacc.directives import ast as xd
from xmpacc.passes.common.accesses import (
    Access,
    BodyFacts,
    affine,
    body_facts,
    for_control,
    names_in,
    restricts,
    text_value,
)
from xmpacc.passes.common.loopnest import nested_for
from xmpacc.passes.common.onrefs import loop_indices
from xmpacc.passes.locality.shadow_state import INF, LoopRange, loop_range
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
        current = nested_for(current.stmt)
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



def stray_write(acc: Access, f: Finding, info: LoopInfo) -> bool:
    """Does a write land in a shadow slot where no expand/margin puts an iteration (a full
    shadow holds every element: writing it is the owner's business)?"""
    if acc.sym.dims[f.dim].full_shadow:
        return False
    e_lo, e_hi = info.range.reach(acc.sym.dims[f.dim].tdim)
    return f.below > max(e_lo, 0) or f.above > max(e_hi, 0)
