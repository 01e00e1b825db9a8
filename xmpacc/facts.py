"""What ``--info`` reports, recorded by the passes (rendered by ``info.py``).

Each pass that decides something about a directive appends an ``InfoFact`` to
``ctx.info``: the directive's location and a small frozen value made by the builders
below from the pass's own symbols (no text is formatted here).  For example the gpu pass,
after outlining ``loop on t(i) acc``:

    ctx.info.append(facts.kernel(d, tmpl, indices, kernel, kv, plan))
        -> InfoFact(nbody_acc.c:65:13, KernelFacts(kernel='_xmpacc_loop_nbody_acc_c_65', lanes='j', ...))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from pycparser import c_ast, c_generator

from xmpacc.diagnostics import SourceLoc
from xmpacc.directives import ast as xd
from xmpacc.symbols import ArraySym, Scope, TemplateSym

if TYPE_CHECKING:
    from xmpacc.passes.kernel_vars import KernelVars, Replicated
    from xmpacc.passes.kernels import Kernel
    from xmpacc.passes.lanes import LanePlan

# ---------------------------------------------------------------- facts


@dataclass(frozen=True, slots=True)
class Dim:
    """One dimension of an aligned array as the runtime lays it out (C texts)."""

    extent: str
    tdim: int                        # template dimension; -1: collapsed
    dist: str                        # block, cyclic, gblock, none
    width: str | None                # cyclic(w)
    tmpl_extent: str | None          # number of template indices
    nodes: str | None                # nodes along it; None: '*' (known at run time)
    shadow: tuple[str, str] | None   # (lo, hi); None: full shadow


@dataclass(frozen=True, slots=True)
class ArrayFacts:
    name: str
    descriptor: str
    elem: str                        # C type of an element
    template: str
    dims: tuple[Dim, ...]


@dataclass(frozen=True, slots=True)
class VarFacts:
    """A plain C variable (replicated, broadcast, reduced)."""

    name: str
    elem: str                        # "" when not a basic type
    extents: tuple[str, ...]         # () for a scalar


@dataclass(frozen=True, slots=True)
class NodesFacts:
    name: str
    extents: tuple[str | None, ...]  # None: '*'
    descriptor: str


@dataclass(frozen=True, slots=True)
class TemplateFacts:
    name: str
    bounds: tuple[tuple[str, str], ...]
    descriptor: str


@dataclass(frozen=True, slots=True)
class DistributeFacts:
    template: str
    nodes: str
    dims: tuple[tuple[str, str | None, str | None, str | None], ...]   # kind, cyclic width, nodes, indices


@dataclass(frozen=True, slots=True)
class AlignFacts:
    arrays: tuple[ArrayFacts, ...]
    shadow: bool = False             # the shadow directive of these arrays


@dataclass(frozen=True, slots=True)
class LoopFacts:
    template: str
    loops: tuple[tuple[str, int, str, str | None], ...]    # var, template dim, kind, width
    reductions: tuple[tuple[str, tuple[str, ...]], ...]    # op, variables


@dataclass(frozen=True, slots=True)
class KernelFacts:
    loop: LoopFacts
    kernel: str
    lanes: str | None                # the inner loop split over lanes
    why: str                         # why not split
    accumulators: tuple[str, ...]
    arrays: tuple[str, ...]
    scalars: tuple[str, ...]         # replicated scalars, shared on the device
    by_value: tuple[str, ...]
    private: tuple[str, ...]
    num_threads: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReflectFacts:
    arrays: tuple[ArrayFacts, ...]
    widths: tuple[tuple[str, str], ...] | None
    acc: bool


@dataclass(frozen=True, slots=True)
class CopyFacts:
    """acc replicate (direction "alloc") and acc replicate_sync ("in" / "out")."""

    direction: str
    variables: tuple[ArrayFacts | VarFacts, ...]
    file_scope: bool = False


@dataclass(frozen=True, slots=True)
class CommFacts:
    kind: str                        # reduction, bcast, barrier, task
    op: str = ""
    variables: tuple[VarFacts, ...] = ()
    on: bool = False


Facts = Union[NodesFacts, TemplateFacts, DistributeFacts, AlignFacts, LoopFacts, KernelFacts,
              ReflectFacts, CopyFacts, CommFacts]


@dataclass(frozen=True, slots=True)
class InfoFact:
    loc: SourceLoc
    facts: Facts

# ---------------------------------------------------------------- builders (called by passes)


def _c(node: c_ast.Node) -> str:
    return c_generator.CGenerator().visit(node)


def _type_name(t: c_ast.Node) -> str:
    inner = getattr(t, "type", None)
    return " ".join(inner.names) if isinstance(t, c_ast.TypeDecl) and isinstance(inner, c_ast.IdentifierType) else ""


def var_facts(name: str, decl: c_ast.Decl) -> VarFacts:
    t, extents = decl.type, []
    while isinstance(t, c_ast.ArrayDecl):
        extents.append(_c(t.dim) if t.dim is not None else "?")
        t = t.type
    return VarFacts(name, _type_name(t), tuple(extents))


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


def array_facts(sym: ArraySym) -> ArrayFacts:
    tmpl, nodes = sym.template, _node_extents(sym.template)
    dims = []
    for d in sym.dims:
        shadow = None if d.full_shadow else (d.shadow_lo, d.shadow_hi)
        if d.tdim < 0 or tmpl.distribute is None:
            dims.append(Dim(_c(d.extent), -1, "none", None, None, None, shadow))
            continue
        f = tmpl.distribute.formats[d.tdim]
        width = f.arg.text if f.kind == "cyclic" and isinstance(f.arg, xd.Expr) else None
        dims.append(Dim(_c(d.extent), d.tdim, f.kind, width, _count(tmpl.decl.dims[d.tdim]), nodes[d.tdim], shadow))
    return ArrayFacts(sym.name, sym.c_name, _type_name(sym.elem_type), tmpl.name, tuple(dims))


def declarations(directives: list[xd.Directive], scope: Scope) -> list[InfoFact]:
    """Facts of the declarative directives of one pragma in ``scope`` (none for mistakes)."""
    out: list[InfoFact] = []
    for d in directives:
        facts: Facts | None = None
        if isinstance(d, xd.NodesDecl) and d.name.name in scope.nodes:
            facts = NodesFacts(d.name.name, tuple(e.text if isinstance(e, xd.Expr) else None for e in d.extents),
                               scope.nodes[d.name.name].c_name)
        elif isinstance(d, xd.TemplateDecl) and d.name.name in scope.templates:
            facts = TemplateFacts(d.name.name, tuple((b.lower.text, b.upper.text) for b in d.dims
                                                     if isinstance(b, xd.TemplateDim)),
                                  scope.templates[d.name.name].c_name)
        elif isinstance(d, xd.Distribute):
            tmpl = scope.find_template(d.template.name)
            if tmpl is not None and tmpl.distribute is d and tmpl.nodes is not None:
                dims = tuple((f.kind, f.arg.text if f.kind == "cyclic" and isinstance(f.arg, xd.Expr) else None, n,
                              _count(td)) for f, n, td in zip(d.formats, _node_extents(tmpl), tmpl.decl.dims))
                facts = DistributeFacts(tmpl.name, tmpl.nodes.name, dims)
        elif isinstance(d, (xd.Align, xd.Shadow)):
            syms = [scope.arrays[n.name] for n in d.arrays if n.name in scope.arrays]
            if syms:
                facts = AlignFacts(tuple(array_facts(s) for s in syms), isinstance(d, xd.Shadow))
        if facts is not None:
            out.append(InfoFact(d.loc, facts))
    return out


def _loop_facts(d: xd.Loop, tmpl: TemplateSym, indices: dict[str, int]) -> LoopFacts:
    loops = []
    for var, tdim in indices.items():
        f = tmpl.distribute.formats[tdim] if tmpl.distribute else None
        width = f.arg.text if f is not None and f.kind == "cyclic" and isinstance(f.arg, xd.Expr) else None
        loops.append((var, tdim, f.kind if f else "none", width))
    reductions = tuple((r.op, tuple(v.name.name for v in r.variables)) for r in d.reductions)
    return LoopFacts(tmpl.name, tuple(loops), reductions)


def loop(d: xd.Loop, tmpl: TemplateSym, indices: dict[str, int]) -> InfoFact:
    return InfoFact(d.loc, _loop_facts(d, tmpl, indices))


def kernel(d: xd.Loop, tmpl: TemplateSym, indices: dict[str, int], k: Kernel, kv: KernelVars,
           plan: LanePlan | None) -> InfoFact:
    names = lambda pairs: tuple(p[0] for p in pairs)  # noqa: E731
    why = str(k.info.get("lanes", ""))
    return InfoFact(d.loc, KernelFacts(
        _loop_facts(d, tmpl, indices), k.name, plan.loop.var if plan else None, why,
        names(plan.accumulators) if plan else (), tuple(r.name for r in kv.arrays),
        tuple(r.name for r in kv.device_scalars), names(kv.by_value), names(kv.private),
        tuple(e.text for e in d.acc.num_threads) if d.acc else ()))


def _replicated(r: Replicated) -> ArrayFacts | VarFacts:
    return array_facts(r.array) if r.array is not None else var_facts(r.name, r.decl)


def replicate(d: xd.AccReplicate, reps: list[Replicated], file_scope: bool = False) -> InfoFact:
    return InfoFact(d.loc, CopyFacts("alloc", tuple(_replicated(r) for r in reps), file_scope))


def directive(d: xd.Directive | None, scope: Scope, active: list[Replicated] | None = None) -> list[InfoFact]:
    """Facts of an executable directive (reflect, reduction, bcast, barrier, task,
    replicate_sync with the replicated variables ``active``); [] for the others."""
    if isinstance(d, xd.Reflect):
        arrays = tuple(array_facts(s) for s in (scope.find_array(n.name) for n in d.arrays) if s is not None)
        widths = tuple((w.lower.text, w.upper.text) for w in d.widths) if d.widths is not None else None
        return [InfoFact(d.loc, ReflectFacts(arrays, widths, d.acc))] if arrays else []
    if isinstance(d, xd.AccReplicateSync):
        found = [scope.find_c(n.name) for c in d.clauses for n in c.variables]
        reps = [r for f in found for r in active or [] if f is not None and r.decl is f[1]]
        return [InfoFact(d.loc, CopyFacts(d.clauses[0].direction, tuple(_replicated(r) for r in reps)))]
    if isinstance(d, xd.ReductionDirective):
        found = [(v.name.name, scope.find_c(v.name.name)) for v in d.reduction.variables]
        return [InfoFact(d.loc, CommFacts("reduction", d.reduction.op,
                                          tuple(var_facts(n, f[1]) for n, f in found if f), d.on is not None))]
    if isinstance(d, xd.Bcast):
        found = [(v.name, scope.find_c(v.name)) for v in d.variables]
        return [InfoFact(d.loc, CommFacts("bcast", "", tuple(var_facts(n, f[1]) for n, f in found if f),
                                          d.on is not None))]
    if isinstance(d, (xd.Barrier, xd.Task)):
        return [InfoFact(d.loc, CommFacts(type(d).__name__.lower(), on=d.on is not None))]
    return []
