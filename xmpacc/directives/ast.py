"""Directives as frozen value objects: what ``#pragma xmp ...`` lines mean.

The directive parser (``parser.py``) turns the text of one directive into one of the
classes below; no later pass reads pragma text.  The parser *normalises* both C syntaxes
of XcalableMP (reference §3):

* every list is in **C order** (the parenthesised style writes Fortran order and is
  reversed by the parser);
* node indices are **0-based** (parenthesised node references are 1-based; for a
  ``Ref`` the shift is applied by ``Ref.node_subs()``, see below);
* template dimensions are given by inclusive ``lower``/``upper`` bounds
  (``t[N]`` becomes ``0 .. (N)-1``; ``t(N)`` becomes ``1 .. N``);
* triplets in references are ``start``/``last`` (inclusive)/``step``: the parser turns a
  bracketed ``[start:length:step]`` into its inclusive last index (a missing start with
  a length given becomes ``0``, as §3 defines).  Whether a ``Ref`` names nodes or a
  template is only known after name lookup, so ``Ref.subs`` keep the indices as
  written; ``Ref.node_subs()`` gives the 0-based node view (``p(2:3)`` and ``p[1:2]``
  both give start 1, last 2).

Integer expressions stay C text (``Expr``), after macro expansion; the passes parse them
with pycparser and evaluate them at run time in the generated C, so file-scope ``int N``
works as well as ``#define N``.  ``style`` is kept for messages and for
``Ref.node_subs()``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from xmpacc.diagnostics import SourceLoc
from xmpacc.directives.exprs import minus_one

Style = Literal["paren", "bracket"]


# One frozen dataclass per directive, clause and reference (STYLE.md): the classes below
# repeat the shape of a declaration (decorator, a few fields, ``loc``), which `duplicates`
# lists as alike; each says something different.
@dataclass(frozen=True, slots=True)
class Expr:
    """A C integer expression from a directive, as text (macros already expanded)."""

    text: str
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class Name:
    """An identifier in a directive (array, template, node array or variable name).

    A structure member (global-view §8) is one ``Name`` holding the path as written
    without spaces: ``align b.a[i] ...`` gives ``"b.a"`` (struct type ``b``, member
    ``a``), ``reflect (c.a, p->a)`` gives ``"c.a"`` and ``"p->a"`` (objects).
    """

    name: str
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class Star:
    """``*`` wherever the grammar allows it (nodes extent, dist-format, align, shadow, refs)."""

    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class Colon:
    """``:`` alone (unfixed template extent, align ``:`` form, loop subscript)."""

    loc: SourceLoc


# ---------------------------------------------------------------- references (§3)


@dataclass(frozen=True, slots=True)
class Triplet:
    """``lo:hi:step`` / ``start:length:step`` normalised to start, inclusive last, step.

    ``None`` means the default (start: first index, last: last index, step: 1).
    """

    start: Expr | None
    last: Expr | None
    step: Expr | None
    loc: SourceLoc


RefSub = Expr | Triplet | Star


@dataclass(frozen=True, slots=True)
class Ref:
    """``p``, ``p[1][*]``, ``p(2)``, ``t[i]`` ... in ``on``/``from`` clauses and subsets.

    ``subs`` is ``None`` for a bare name (the whole node array or template; ``style`` is
    then "bracket"), otherwise one entry per dimension in C order.  Whether it names nodes
    or a template is decided by the passes (name lookup), not by the parser, so ``subs``
    keep the index values as written: template indices are absolute in both styles and
    are used as they are; for nodes call ``node_subs()``, which shifts the 1-based
    parenthesised indices to 0-based.  Bracketed triplets are already ``start:last``.
    """

    name: Name
    subs: tuple[RefSub, ...] | None
    style: Style
    loc: SourceLoc

    def node_subs(self) -> tuple[RefSub, ...] | None:
        """``subs`` as 0-based node indices: ``p(1, k)`` gives ``(k)-1, 0``."""
        if self.subs is None or self.style == "bracket":
            return self.subs
        return tuple(_node_sub_from_paren(sub) for sub in self.subs)


def _node_sub_from_paren(sub: RefSub) -> RefSub:
    if isinstance(sub, Expr):
        return _expr_minus_one(sub)
    if isinstance(sub, Triplet):
        start = None if sub.start is None else _expr_minus_one(sub.start)
        last = None if sub.last is None else _expr_minus_one(sub.last)
        return Triplet(start, last, sub.step, sub.loc)
    return sub


def _expr_minus_one(expr: Expr) -> Expr:
    return Expr(minus_one(expr.text), expr.loc)


# ---------------------------------------------------------------- variables and sections


@dataclass(frozen=True, slots=True)
class SectionTriplet:
    """``[base:length:step]`` of an array section (global-view §1); ``None`` = omitted.

    Unlike a node/template ``Triplet`` the middle number is a **length**: ``a[10:5:2]`` is
    a[10], a[12], ..., a[18].  Omitted base is 0, omitted length "to the end of the
    dimension", omitted step 1.
    """

    base: Expr | None
    length: Expr | None
    step: Expr | None
    loc: SourceLoc


VarSub = Expr | SectionTriplet


@dataclass(frozen=True, slots=True)
class VarRef:
    """A variable named in a directive list: ``x``, ``k[1]``, ``a[0:5]``, ``k[1][:]``.

    ``subs`` is ``None`` for a bare name, else one entry per subscript written, outermost
    first; it is a section when any entry is a ``SectionTriplet``.
    """

    name: Name
    subs: tuple[VarSub, ...] | None
    loc: SourceLoc

    @property
    def is_section(self) -> bool:
        return self.subs is not None and any(isinstance(s, SectionTriplet) for s in self.subs)


# ---------------------------------------------------------------- declarations (§4)


@dataclass(frozen=True, slots=True)
class NodesDecl:
    """``nodes p(4)``, ``nodes p[2][2]``, ``nodes p[*][2]`` (extents in C order)."""

    name: Name
    extents: tuple[Expr | Star, ...]
    mapping: Ref | Star | None  # ``= p[0:4]`` / ``= *`` (LATER: rejected by the passes)
    style: Style
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class TemplateDim:
    lower: Expr
    upper: Expr  # inclusive


@dataclass(frozen=True, slots=True)
class TemplateDecl:
    """``template t(0:N-1)``, ``template t[N][M]`` (dims in C order; Colon = unfixed)."""

    name: Name
    dims: tuple[TemplateDim | Colon, ...]
    style: Style
    loc: SourceLoc


DistKind = Literal["block", "cyclic", "gblock", "none"]


@dataclass(frozen=True, slots=True)
class DistFormat:
    """One dist-format: ``block``, ``block(n)``, ``cyclic``, ``cyclic(w)``, ``gblock(W)``, ``*``.

    ``arg`` is the parenthesised argument (``None`` without one); for ``gblock(*)`` (map
    given by ``template_fix``) it is a ``Star``; for ``gblock(W)`` an ``Expr`` naming the
    mapping array; for ``block(n)`` the block size.  ``*`` is kind "none".
    """

    kind: DistKind
    arg: Expr | Star | None
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class Distribute:
    template: Name
    formats: tuple[DistFormat, ...]  # C order
    onto: Name
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class TemplateFix:
    """``template_fix [gblock(m)] t[0:n-1]``, ``template_fix (block) t(0:n-1)``,
    ``template_fix t[n]``, ``template_fix [gblock(m)] t`` (global-view §4).

    ``formats`` is the dist-format list in C order (None when not given); ``dims`` the
    new bounds in C order (None: the template keeps its declared size).  Bracketed dims
    are ``[n]`` (0..n-1) or ``[lo:hi]`` (inclusive), parenthesised ones as in ``template``.
    """

    formats: tuple[DistFormat, ...] | None
    template: Name
    dims: tuple[TemplateDim, ...] | None
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AlignSubscript:
    """A template-side subscript ``i``, ``i+2``, ``i-c`` (offset text, ``None`` for none)."""

    dummy: Name
    offset: Expr | None


AlignSource = Name | Star | Colon
AlignSub = AlignSubscript | Star | Colon


@dataclass(frozen=True, slots=True)
class Align:
    """``align a[i][*] with t(i)`` or the list form ``align [i] with t(i) :: a, b``.

    ``sources`` are the array-side entries (C order, one per array dimension);
    ``subscripts`` the template-side ones (C order, one per template dimension).
    """

    arrays: tuple[Name, ...]
    sources: tuple[AlignSource, ...]
    template: Name
    subscripts: tuple[AlignSub, ...]
    style: Style
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class ShadowWidth:
    lower: Expr
    upper: Expr


@dataclass(frozen=True, slots=True)
class Shadow:
    """``shadow a[1][0]``, ``shadow a[1:2]``, ``shadow [*] :: x, y`` (C order)."""

    arrays: tuple[Name, ...]
    widths: tuple[ShadowWidth | Star, ...]  # Star = full shadow
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class StaticDesc:
    """``static_desc :: a, b`` (Omni): keep the descriptors of these node arrays, templates
    and aligned arrays across calls; xmpacc checks the names and has nothing to do
    (global-view §8a)."""

    names: tuple[Name, ...]
    loc: SourceLoc


# ---------------------------------------------------------------- executable (§6)

ReductionOp = Literal[
    "+", "-", "*", "&", "|", "^", "&&", "||", "max", "min",
    "firstmax", "firstmin", "lastmax", "lastmin",
]


@dataclass(frozen=True, slots=True)
class ReductionVar:
    """``v``, ``k[1][:]`` (element-wise over a section) and ``v /i, k[1][:]/``."""

    name: Name
    locations: tuple[VarRef, ...]  # ``/i, j/`` location variables (global-view §5)
    subs: tuple[VarSub, ...] | None = None  # ``k[1][:]``: the reduced part of ``k``

    @property
    def ref(self) -> VarRef:
        return VarRef(self.name, self.subs, self.name.loc)


@dataclass(frozen=True, slots=True)
class Reduction:
    """``reduction(op: v [, v]...)`` as a loop clause or in the reduction directive."""

    op: ReductionOp  # normalised to lower case
    variables: tuple[ReductionVar, ...]
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AccClauses:
    """The ``acc`` clause of ``loop`` and what follows it (XMP-ACC, reference §7.4)."""

    private: tuple[Name, ...]
    firstprivate: tuple[Name, ...]
    shared: tuple[Name, ...]
    num_threads: tuple[Expr, ...]  # () when absent, else 1..3 values (x, y, z)
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class LoopIndex:
    """A template subscript of a loop on-ref: ``i`` (offset ``None``) or ``i+1``."""

    name: Name
    offset: Expr | None


LoopSub = LoopIndex | Star | Colon | Expr


@dataclass(frozen=True, slots=True)
class OnTemplate:
    """The on-ref of a loop: ``t(i)``, ``t[j][i]``, ``t[i][*]`` (subs in C order)."""

    template: Name
    subs: tuple[LoopSub, ...]
    style: Style
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class LoopWidth:
    """One entry of ``expand``/``margin``/``peel_and_wait``: ``n`` (= ``n:n``), ``lo:hi``,
    ``/unbound/ n`` (global-view §7); negative widths shrink the range."""

    lower: Expr
    upper: Expr
    unbound: bool


@dataclass(frozen=True, slots=True)
class PeelAndWait:
    """``peel_and_wait(id, w...)``: the interior, ``wait_async(id)``, then the rim."""

    async_id: Expr
    widths: tuple[LoopWidth, ...]   # C order, one per on-ref subscript


@dataclass(frozen=True, slots=True)
class Loop:
    """``loop (i) on t[i] ...``; ``on`` may also name a node array (``loop on p[i]``:
    iteration i runs on node i), told apart by name lookup in the passes."""

    indices: tuple[Name, ...] | None  # the ``(j, i)`` list, None when omitted
    on: OnTemplate
    reductions: tuple[Reduction, ...]
    acc: AccClauses | None
    loc: SourceLoc
    expand: tuple[LoopWidth, ...] | None = None   # C order, one per on-ref subscript
    margin: tuple[LoopWidth, ...] | None = None
    peel_and_wait: PeelAndWait | None = None


@dataclass(frozen=True, slots=True)
class ReductionDirective:
    reduction: Reduction
    on: Ref | None
    loc: SourceLoc
    async_id: Expr | None = None   # ``async (id)``: completed by wait_async
    acc: bool = False              # XcalableACC: on the device copy (XcalableACC.md §4)


@dataclass(frozen=True, slots=True)
class ReflectWidth:
    lower: Expr
    upper: Expr
    periodic: bool


@dataclass(frozen=True, slots=True)
class Reflect:
    """``reflect (a, b) [width(...)] [acc]``; ``reflect a, b`` without parentheses too."""

    arrays: tuple[Name, ...]
    widths: tuple[ReflectWidth, ...] | None  # C order, one per array dimension
    acc: bool  # XACC-style device reflect (planned extension)
    loc: SourceLoc
    async_id: Expr | None = None
    orthogonal: bool = False   # no corner exchange


@dataclass(frozen=True, slots=True)
class ReflectInit:
    """``reflect_init (a, b) [width(...)] [orthogonal]``: a persistent reflect, run by
    ``reflect_do`` (global-view §7)."""

    arrays: tuple[Name, ...]
    widths: tuple[ReflectWidth, ...] | None
    orthogonal: bool
    loc: SourceLoc
    acc: bool = False              # XcalableACC: the device copy's shadows


@dataclass(frozen=True, slots=True)
class ReflectDo:
    arrays: tuple[Name, ...]
    loc: SourceLoc
    async_id: Expr | None = None
    acc: bool = False


@dataclass(frozen=True, slots=True)
class ReduceShadow:
    """``reduce_shadow (a) [width(...)] [async(id)]``: owners add their neighbours'
    shadow copies of their elements (the reverse of reflect)."""

    arrays: tuple[Name, ...]
    widths: tuple[ReflectWidth, ...] | None
    loc: SourceLoc
    async_id: Expr | None = None


@dataclass(frozen=True, slots=True)
class Bcast:
    variables: tuple[VarRef, ...]   # ``x``, ``k[1]``, ``a[0:5]`` (sections of local arrays)
    source: Ref | None  # ``from``
    on: Ref | None
    loc: SourceLoc
    async_id: Expr | None = None
    acc: bool = False              # XcalableACC: on the device copies


@dataclass(frozen=True, slots=True)
class WaitAsync:
    """``wait_async (id [, id]...) [on ref]``: complete the operations started with these ids."""

    ids: tuple[Expr, ...]
    on: Ref | None
    loc: SourceLoc
    acc: bool = False              # XcalableACC: also the device's queues


@dataclass(frozen=True, slots=True)
class Barrier:
    on: Ref | None
    loc: SourceLoc
    acc: bool = False              # XcalableACC: device queues first


@dataclass(frozen=True, slots=True)
class Task:
    on: Ref
    nocomm: bool
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class Tasks:
    """``tasks``: the task constructs of the next compound statement, on disjoint sets."""

    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AccReplicate:
    variables: tuple[Name, ...]
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class SyncClause:
    direction: Literal["in", "out"]
    variables: tuple[Name, ...]


@dataclass(frozen=True, slots=True)
class AccReplicateSync:
    clauses: tuple[SyncClause, ...]
    loc: SourceLoc


GmoveMode = Literal["collective", "in", "out"]


@dataclass(frozen=True, slots=True)
class Gmove:
    """``gmove [in | out] [async (id)] [acc]``: the next statement is a global assignment
    (global-view §2) between local, replicated and distributed data; with ``acc``
    (XcalableACC §4) between their device copies."""

    mode: GmoveMode
    loc: SourceLoc
    async_id: Expr | None = None
    acc: bool = False


@dataclass(frozen=True, slots=True)
class ArrayDirective:
    """``array on t[:][:]``: the next array assignment statement runs element by element
    on the owners of the template elements (global-view §3)."""

    on: Ref
    loc: SourceLoc


Declaration = NodesDecl | TemplateDecl | Distribute | Align | Shadow | StaticDesc
Directive = (
    NodesDecl | TemplateDecl | Distribute | Align | Shadow | StaticDesc | TemplateFix
    | Loop | ReductionDirective | Reflect | Bcast | Barrier | Task | WaitAsync
    | AccReplicate | AccReplicateSync | Gmove | ArrayDirective
    | ReflectInit | ReflectDo | ReduceShadow | Tasks
)


def parts(value: object, found: Callable[[object], bool]) -> Iterator[object]:
    """Every part of a directive object (frozen dataclasses, tuples, lists, nested) for
    which ``found`` holds, in field order; the parts found are not looked into."""
    if found(value):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from parts(item, found)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from parts(getattr(value, f.name), found)
