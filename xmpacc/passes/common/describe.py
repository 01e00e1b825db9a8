"""What ``--info`` reports of a directive, made from the passes' own symbols (facts.py holds
the frozen values, info.py renders them).  Each pass that decides something about a
directive appends an ``InfoFact`` to ``ctx.info``; for example the gpu pass, after
outlining ``loop on t(i) acc``:

    ctx.info.append(describe.kernel(d, tmpl, indices, kernel, kv, plan))
        -> InfoFact(nbody_acc.c:65:13, KernelFacts(kernel='_xmpacc_loop_nbody_acc_c_65', lanes='j', ...))
"""

from __future__ import annotations

from pycparser import c_ast, c_generator

from xmpacc import facts
from xmpacc.directives import ast as xd
from xmpacc.passes.common.descriptors import kept_view
from xmpacc.passes.common.values import Kernel, KernelVars, LanePlan, Replicated
from xmpacc.runtime.contract import LAUNCH_ARRED
from xmpacc.symbols import ArraySym, Scope, TemplateSym


def _c(node: c_ast.Node) -> str:
    return c_generator.CGenerator().visit(node)



def _type_name(t: c_ast.Node) -> str:
    inner = getattr(t, "type", None)
    return " ".join(inner.names) \
        if isinstance(t, c_ast.TypeDecl) and isinstance(inner, c_ast.IdentifierType) else ""



def var_facts(name: str, decl: c_ast.Decl) -> facts.VarFacts:
    t, extents = decl.type, []
    while isinstance(t, c_ast.ArrayDecl):
        extents.append(_c(t.dim) if t.dim is not None else "?")
        t = t.type
    return facts.VarFacts(name, _type_name(t), tuple(extents))



def var_ref_facts(ref: xd.VarRef, decl: c_ast.Decl) -> facts.VarFacts:
    """A variable, element or section named in a directive (``bcast (a[0:5])``): its
    extents are the section's lengths ("?" where the length is omitted)."""
    whole = var_facts(ref.name.name, decl)
    if ref.subs is None:
        return whole
    extents = [] if len(ref.subs) > len(whole.extents) else list(whole.extents)
    kept = []
    for k, sub in enumerate(ref.subs):
        if isinstance(sub, xd.SectionTriplet):
            kept.append(sub.length.text if sub.length is not None else
                        ("?" if k >= len(extents) or sub.base is not None else extents[k]))
    return facts.VarFacts(_written(ref), whole.elem, tuple(kept + extents[len(ref.subs):]))



def _written(ref: xd.VarRef) -> str:
    def part(sub: xd.VarSub) -> str:
        if isinstance(sub, xd.Expr):
            return sub.text
        texts = [x.text if x is not None else "" for x in (sub.base, sub.length, sub.step)]
        return ":".join(texts if texts[2] else texts[:2])
    return ref.name.name + "".join(f"[{part(s)}]" for s in ref.subs or ())



def _node_extents(tmpl: TemplateSym) -> list[str | None]:
    """For each template dimension, how many nodes it is spread over (None: unknown)."""
    out: list[str | None] = []
    k = 0
    extents = tmpl.nodes.decl.extents if tmpl.nodes is not None else ()
    for f in tmpl.distribute.formats if tmpl.distribute else ():
        e = extents[k] if f.kind != "none" and k < len(extents) else None
        k += f.kind != "none"
        out.append(e.text if isinstance(e, xd.Expr) else None)
    return out



def _count(td: xd.TemplateDim | xd.Colon) -> str | None:
    """The number of indices of a template dimension, as C text."""
    return f"({td.upper.text})-({td.lower.text})+1" if isinstance(td, xd.TemplateDim) else None



def array_facts(sym: ArraySym) -> facts.ArrayFacts:
    tmpl, nodes = sym.template, _node_extents(sym.template)
    dims = []
    for d in sym.dims:
        shadow = None if d.full_shadow else (d.shadow_lo, d.shadow_hi)
        if d.tdim < 0 or tmpl.distribute is None:
            dims.append(facts.Dim(_c(d.extent), -1, "none", None, None, None, shadow))
            continue
        f = tmpl.distribute.formats[d.tdim]
        width = f.arg.text if f.kind == "cyclic" and isinstance(f.arg, xd.Expr) else None
        dims.append(facts.Dim(_c(d.extent), d.tdim, f.kind, width, _count(tmpl.decl.dims[d.tdim]),
                              nodes[d.tdim], shadow))
    return facts.ArrayFacts(sym.name, sym.c_name, _type_name(sym.elem_type), tmpl.name, tuple(dims))



def declarations(directives: list[xd.Directive], scope: Scope) -> list[facts.InfoFact]:
    """Facts of the declarative directives of one pragma in ``scope`` (none for mistakes)."""
    out: list[facts.InfoFact] = []
    for d in directives:
        found: facts.Facts | None = None
        if isinstance(d, xd.NodesDecl) and d.name.name in scope.nodes:
            found = facts.NodesFacts(d.name.name,
                                     tuple(e.text if isinstance(e, xd.Expr) else None for e in d.extents),
                                     scope.nodes[d.name.name].c_name)
        elif isinstance(d, xd.TemplateDecl) and d.name.name in scope.templates:
            found = facts.TemplateFacts(d.name.name, tuple((b.lower.text, b.upper.text) for b in d.dims
                                                     if isinstance(b, xd.TemplateDim)),
                                  scope.templates[d.name.name].c_name)
        elif isinstance(d, xd.Distribute):
            tmpl = scope.find_template(d.template.name)
            if tmpl is not None and tmpl.distribute is d and tmpl.nodes is not None:
                dims = tuple((f.kind, f.arg.text if f.kind == "cyclic" and isinstance(f.arg, xd.Expr)
                              else None, n, _count(td))
                             for f, n, td in zip(d.formats, _node_extents(tmpl), tmpl.decl.dims,
                                                 strict=False))
                found = facts.DistributeFacts(tmpl.name, tmpl.nodes.name, dims)
        elif isinstance(d, (xd.Align, xd.Shadow)):
            syms = [scope.arrays[n.name] for n in d.arrays if n.name in scope.arrays]
            if syms:
                found = facts.AlignFacts(tuple(array_facts(s) for s in syms), isinstance(d, xd.Shadow))
        elif isinstance(d, xd.StaticDesc):
            found = _static_desc(d, scope)
        if found is not None:
            out.append(facts.InfoFact(d.loc, found))
    return out


def _static_desc(d: xd.StaticDesc, scope: Scope) -> facts.StaticDescFacts | None:
    """The XMP objects a static_desc names, by the lifetime of their descriptors."""
    where: dict[bool, list[str]] = {True: [], False: []}
    kept: list[str] = []
    for n in d.names:
        sym = scope.find_nodes(n.name) or scope.find_template(n.name) or scope.find_array(n.name)
        if isinstance(sym, ArraySym) and kept_view(sym):
            kept.append(n.name)
        elif sym is not None:
            where[sym.file_scope].append(n.name)
    if not where[True] and not where[False] and not kept:
        return None
    return facts.StaticDescFacts(tuple(where[True]), tuple(where[False]), tuple(kept))


def _loop_facts(d: xd.Loop, tmpl: TemplateSym, indices: dict[str, int]) -> facts.LoopFacts:
    loops = []
    for var, tdim in indices.items():
        f = tmpl.distribute.formats[tdim] if tmpl.distribute else None
        width = f.arg.text if f is not None and f.kind == "cyclic" and isinstance(f.arg, xd.Expr) else None
        loops.append((var, tdim, f.kind if f else "none", width))
    reductions = tuple((r.op, tuple(v.name.name for v in r.variables)) for r in d.reductions)
    return facts.LoopFacts(tmpl.name, tuple(loops), reductions)



def loop(d: xd.Loop, tmpl: TemplateSym, indices: dict[str, int]) -> facts.InfoFact:
    return facts.InfoFact(d.loc, _loop_facts(d, tmpl, indices))



def kernel(d: xd.Loop, tmpl: TemplateSym, indices: dict[str, int], k: Kernel, kv: KernelVars,
           plan: LanePlan | None) -> facts.InfoFact:
    why = str(k.info.get("lanes", ""))
    return facts.InfoFact(d.loc, facts.KernelFacts(
        _loop_facts(d, tmpl, indices), k.name, plan.loop.var if plan else None, why,
        _firsts(plan.accumulators) if plan else (), tuple(r.written or r.name for r in kv.arrays),
        tuple(r.name for r in kv.device_scalars), _firsts(kv.by_value), _firsts(kv.private),
        str(k.info.get("block", "")), k.info.get("stream_walk") or str(k.info.get("stream", "")),  # type: ignore[arg-type]
        tuple(p.name.removeprefix("_xmpacc_ra_") for p in k.params if p.kind == LAUNCH_ARRED)))



def _firsts(items: list[tuple[str, ...]] | tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    return tuple(item[0] for item in items)



def _replicated(r: Replicated) -> facts.ArrayFacts | facts.VarFacts:
    return array_facts(r.array) if r.array is not None else var_facts(r.name, r.decl)



def replicate(d: xd.AccReplicate, reps: list[Replicated], file_scope: bool = False) -> facts.InfoFact:
    return facts.InfoFact(d.loc, facts.CopyFacts("alloc", tuple(_replicated(r) for r in reps), file_scope))



def directive(d: xd.Directive | None, scope: Scope, active: list[Replicated] | None = None,
              overlap: tuple[tuple[int, int], ...] = (), push: bool = False) -> list[facts.InfoFact]:
    """Facts of an executable directive (reflect, with the peel of the loop that overlaps
    its exchange and whether that loop's kernel may push the rows, reduction, bcast,
    barrier, task, replicate_sync with the replicated variables ``active``); [] for the
    others."""
    if isinstance(d, xd.Reflect):
        arrays = tuple(array_facts(s) for s in (scope.find_array(n.name) for n in d.arrays) if s is not None)
        widths = tuple((w.lower.text, w.upper.text) for w in d.widths) if d.widths is not None else None
        found = facts.ReflectFacts(arrays, widths, d.acc, overlap, push)
        return [facts.InfoFact(d.loc, found)] if arrays else []
    if isinstance(d, xd.AccReplicateSync):
        found = [scope.find_c(n.name) for c in d.clauses for n in c.variables]
        reps = [r for f in found for r in active or [] if f is not None and r.decl is f[1]]
        directions = "/".join(sorted({c.direction for c in d.clauses}))
        return [facts.InfoFact(d.loc, facts.CopyFacts(directions, tuple(_replicated(r) for r in reps)))]
    if isinstance(d, xd.ReductionDirective):
        found = [(v.name.name, scope.find_c(v.name.name)) for v in d.reduction.variables]
        return [facts.InfoFact(d.loc, facts.CommFacts("reduction", d.reduction.op,
                                                      tuple(var_facts(n, f[1]) for n, f in found if f),
                                                      d.on is not None))]
    if isinstance(d, xd.Bcast):
        found = [(v, scope.find_c(v.name.name)) for v in d.variables]
        return [facts.InfoFact(d.loc, facts.CommFacts("bcast", "",
                                                      tuple(var_ref_facts(v, f[1]) for v, f in found if f),
                                                      d.on is not None))]
    if isinstance(d, (xd.Barrier, xd.Task)):
        return [facts.InfoFact(d.loc, facts.CommFacts(type(d).__name__.lower(), on=d.on is not None))]
    return []
