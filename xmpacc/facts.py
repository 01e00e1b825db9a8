"""What ``--info`` reports, recorded by the passes (rendered by ``info.py``).

Each pass that decides something about a directive appends an ``InfoFact`` to
``ctx.info``: the directive's location and a small frozen value made by the builders
below from the pass's own symbols (no text is formatted here; the sizes they imply are
worked out at the end, for ``info.py``).  For example the gpu pass,
after outlining ``loop on t(i) acc``:

    ctx.info.append(facts.kernel(d, tmpl, indices, kernel, kv, plan))
        -> InfoFact(nbody_acc.c:65:13, KernelFacts(kernel='_xmpacc_loop_nbody_acc_c_65', lanes='j', ...))
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pycparser import c_ast, c_generator

from xmpacc.diagnostics import SourceLoc
from xmpacc.directives import ast as xd
from xmpacc.runtime.contract import LAUNCH_ARRED
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
    reduced_arrays: tuple[str, ...] = ()   # reduction arrays: atomic updates of a temporary (kernel_arrays.py)


@dataclass(frozen=True, slots=True)
class ReflectFacts:
    arrays: tuple[ArrayFacts, ...]
    widths: tuple[tuple[str, str], ...] | None
    acc: bool


@dataclass(frozen=True, slots=True)
class CopyFacts:
    """acc replicate (direction "alloc") and acc replicate_sync ("in", "out", "in/out")."""

    direction: str
    variables: tuple[ArrayFacts | VarFacts, ...]
    file_scope: bool = False


@dataclass(frozen=True, slots=True)
class CommFacts:
    kind: str                        # reduction, bcast, barrier, task
    op: str = ""
    variables: tuple[VarFacts, ...] = ()
    on: bool = False


@dataclass(frozen=True, slots=True)
class GmoveFacts:
    """gmove: the statement and what each side is (distributed, local, scalar)."""

    statement: str
    lhs: str
    rhs: str
    mode: str                        # collective, in, out
    async_id: str | None
    acc: bool = False                # gmove ... acc: between the device copies


@dataclass(frozen=True, slots=True)
class OwnerFacts:
    """The array directive: the owners of the template elements compute."""

    statement: str
    template: str
    checked: tuple[str, ...]         # arrays whose locality is checked at run time
    temporary: bool


@dataclass(frozen=True, slots=True)
class ForFacts:
    """A for loop without 'acc loop' in an 'acc kernels' region (acc_kernels_auto.py)."""

    why: str                         # why it runs in one thread; "" = one thread per iteration
    reductions: tuple[tuple[str, str], ...] = ()
    private: tuple[str, ...] = ()


Facts = (NodesFacts | TemplateFacts | DistributeFacts | AlignFacts | LoopFacts | KernelFacts | ReflectFacts
         | CopyFacts | CommFacts | GmoveFacts | OwnerFacts | ForFacts)


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


def var_ref_facts(ref: xd.VarRef, decl: c_ast.Decl) -> VarFacts:
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
    return VarFacts(_written(ref), whole.elem, tuple(kept + extents[len(ref.subs):]))


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
    why = str(k.info.get("lanes", ""))
    return InfoFact(d.loc, KernelFacts(
        _loop_facts(d, tmpl, indices), k.name, plan.loop.var if plan else None, why,
        _firsts(plan.accumulators) if plan else (), tuple(r.written or r.name for r in kv.arrays),
        tuple(r.name for r in kv.device_scalars), _firsts(kv.by_value), _firsts(kv.private),
        tuple(e.text for e in d.acc.num_threads) if d.acc else (),
        tuple(p.name.removeprefix("_xmpacc_ra_") for p in k.params if p.kind == LAUNCH_ARRED)))


def _firsts(items: list[tuple[str, ...]] | tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    return tuple(item[0] for item in items)


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
        directions = "/".join(sorted({c.direction for c in d.clauses}))
        return [InfoFact(d.loc, CopyFacts(directions, tuple(_replicated(r) for r in reps)))]
    if isinstance(d, xd.ReductionDirective):
        found = [(v.name.name, scope.find_c(v.name.name)) for v in d.reduction.variables]
        return [InfoFact(d.loc, CommFacts("reduction", d.reduction.op,
                                          tuple(var_facts(n, f[1]) for n, f in found if f), d.on is not None))]
    if isinstance(d, xd.Bcast):
        found = [(v, scope.find_c(v.name.name)) for v in d.variables]
        return [InfoFact(d.loc, CommFacts("bcast", "", tuple(var_ref_facts(v, f[1]) for v, f in found if f),
                                          d.on is not None))]
    if isinstance(d, (xd.Barrier, xd.Task)):
        return [InfoFact(d.loc, CommFacts(type(d).__name__.lower(), on=d.on is not None))]
    return []

# ---------------------------------------------------------------- sizes implied by the facts


def value(text: str | None) -> int | None:
    """The value of an integer constant expression in C text, None if it is not one."""
    try:
        return _eval(ast.parse(text.strip(), mode="eval").body) if text else None
    except (SyntaxError, ValueError):
        return None


def _eval(n: ast.AST) -> int | None:
    if isinstance(n, ast.Constant):
        return n.value if type(n.value) is int else None
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
        v = _eval(n.operand)
        return None if v is None else (-v if isinstance(n.op, ast.USub) else v)
    if not isinstance(n, ast.BinOp):
        return None
    a, b = _eval(n.left), _eval(n.right)
    if a is None or b is None:
        return None
    if isinstance(n.op, (ast.Add, ast.Sub, ast.Mult)):
        return a + b if isinstance(n.op, ast.Add) else a - b if isinstance(n.op, ast.Sub) else a * b
    if isinstance(n.op, (ast.Div, ast.Mod)) and b != 0:
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)   # C truncates toward zero
        return q if isinstance(n.op, ast.Div) else a - q * b
    return None


_SIZES = {"char": 1, "_Bool": 1, "short": 2, "int": 4, "float": 4, "long": 8, "long long": 8,
          "double": 8, "long double": 16}


def elem_size(ctype: str) -> int | None:
    words = [w for w in ctype.split() if w not in ("const", "volatile", "signed", "unsigned")]
    if "int" in words and len(words) > 1:
        words.remove("int")
    return _SIZES.get(" ".join(words) or "int") if ctype else None


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True, slots=True)
class Extent:
    """Elements along one dimension on one node: ``n`` is exact (whole), a bound for
    every node (``per_node``), or the one-node case when the node count is unknown."""

    n: int | None
    exact: bool = False
    per_node: bool = True


def owned(d: Dim) -> Extent:
    e = value(d.extent)
    if d.tdim < 0 or d.dist == "none":
        return Extent(e, exact=True)
    p, t = value(d.nodes), value(d.tmpl_extent)
    if e is None or p is None or t is None or p <= 0 or d.dist == "gblock":
        return Extent(e, per_node=False)
    w = value(d.width) if d.width else 1
    if w is None or w <= 0:
        return Extent(e, per_node=False)
    return Extent(min(e, _ceil(_ceil(t, w), p) * w))


def allocated(d: Dim) -> Extent:
    """The local buffer's extent: the owned block and its shadow slots (all of it for a
    full shadow)."""
    if d.shadow is None:
        return Extent(value(d.extent), exact=True)
    own = owned(d)
    if own.exact or own.n is None:
        return own
    lo, hi = value(d.shadow[0]), value(d.shadow[1])
    return Extent(None if lo is None or hi is None else own.n + lo + hi, per_node=own.per_node)


def buffer_bytes(a: ArrayFacts | VarFacts) -> Extent:
    """Bytes of the local buffer (shadows included) of an array, or of a variable."""
    size = elem_size(a.elem)
    ext = [allocated(d) for d in a.dims] if isinstance(a, ArrayFacts) else \
        [Extent(value(e), exact=True) for e in a.extents]
    if size is None or any(x.n is None for x in ext):
        return Extent(None)
    n = size
    for x in ext:
        n *= x.n  # type: ignore[operator]
    return Extent(n, all(x.exact for x in ext), all(x.per_node for x in ext))
