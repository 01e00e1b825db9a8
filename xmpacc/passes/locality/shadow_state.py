"""What the locality analysis knows about an aligned array's shadow at one point of a
function: the values of passes/locality/reflect_flow.py, and the iteration range of a ``loop``
with ``expand``/``margin`` (global-view §7) that both passes/locality/locality.py and
reflect_flow.py read.

A shadow is fresh (no entry in the ``State``) after a ``reflect``; a write of the array
makes it ``Stale``.  An entry may still hold part of the shadow fresh (``fresh``: the
widths that an ``expand``/``margin`` loop computed redundantly on this node) and may wait
for an asynchronous reflect (``pending``: its async ids; the ``wait_async`` of one of them
makes the shadow fresh):

    #pragma xmp loop on t[i]                 a: Stale(line 2)
    for (...) a[i] = ...;
    #pragma xmp loop on t[i] expand(1)       a: Stale(line 4, fresh=((1, 1),))
    for (...) a[i] = ...;
    #pragma xmp reflect (a) async (3)        a: Stale(line 4, fresh=((1, 1),), pending={3})
    #pragma xmp wait_async (3)               a: fresh (no entry)
    for (...) a[i] = ...;                    a: Stale(line 7)
    #pragma xmp reflect (a) width(1)         a: Stale(line 7, fresh=((1, 1),), partial=line 8)

A reflect with ``width(w)`` refreshes the shadow within w only, ``orthogonal`` the faces
without the corners (``corners``): the entry stays, with what it made fresh and where it
is (``partial_loc``), so that a read beyond says which width is too small.

Where two paths meet, an array stale on either is stale (the warning says "on some
path"), with the smaller fresh widths.  Where the analysis is unsure it says less: the
pending ids of two paths are united (a wait of either completes the reflect), an async id
that is not a constant matches every id, ``recomputed`` keeps the larger widths.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from xmpacc.diagnostics import SourceLoc
from xmpacc.directives import ast as xd
from xmpacc.passes.common.accesses import text_value
from xmpacc.symbols import ArraySym

# An array bound to its object: (id of the declaration, name as written: ``a``, ``c.a``).
# Aligned structure members are bound anew at each access, so the symbol's id would differ.
Key = tuple[int, str]
ANY = "?"          # an async id that is not a constant: it may be any id
Widths = tuple[tuple[int, int], ...]   # per array dimension: (below, above)
INF = 1 << 30      # the reach of a subscript that may name any element


def key_of(sym: ArraySym) -> Key:
    return (id(sym.decl), sym.name)


def async_id(text: str) -> int | str:
    value = text_value(text)
    return ANY if value is None else value


def _matches(ids: Iterable[int | str], waited: Iterable[int | str]) -> bool:
    waited = set(waited)
    if not waited:
        return False
    return ANY in waited or any(i == ANY or i in waited for i in ids)


@dataclass(frozen=True)
class Stale:
    """Why an array's shadow is stale, and what of it holds its neighbours' values anyway."""

    loc: SourceLoc                            # the write (or reduce_shadow) that made it so
    cause: str = "written"                    # "written" or "changed by reduce_shadow"
    fresh: Widths | None = None               # recomputed by expand/margin; None: nothing
    pending: frozenset[int | str] | None = None   # async ids of reflects started since
    reflect_loc: SourceLoc | None = None      # the first of those reflects
    reflect_text: str = ""                    # it as written: "reflect_do (a) async (1)"
    reflect_id: str = ""                      # its async id, as written
    reflect_widths: Widths | None = None      # what that reflect refreshes (None: all)
    reflect_orthogonal: bool = False
    corners: bool = True                      # the fresh widths hold the corners too
    partial_loc: SourceLoc | None = None      # the last reflect, with a width or orthogonal
    partial_text: str = ""                    # it as written: "reflect (a) width(1)"

    def covers(self, reach: dict[int, tuple[int, int]]) -> bool:
        """Do the fresh widths hold every shadow element ``reach`` (dimension -> (below,
        above)) touches?"""
        if self.fresh is None or not self.within(reach):
            return False
        return self.corners or sum(1 for lo, hi in reach.values() if lo > 0 or hi > 0) <= 1

    def within(self, reach: dict[int, tuple[int, int]]) -> bool:
        """Is each dimension of ``reach`` within the fresh widths (corners aside)?"""
        assert self.fresh is not None
        return all(lo <= self.fresh[k][0] and hi <= self.fresh[k][1] for k, (lo, hi) in reach.items())


State = dict[Key, Stale]


def _join_one(a: Stale, b: Stale) -> Stale:
    fresh = None if a.fresh is None or b.fresh is None else \
        tuple((min(x[0], y[0]), min(x[1], y[1])) for x, y in zip(a.fresh, b.fresh, strict=False))
    corners = a.corners and b.corners
    if a.pending is None or b.pending is None:   # stale on a path with no reflect in flight
        # the message follows the worse path: no reflect in flight, then nothing fresh
        first = min((a, b), key=lambda s: (s.pending is not None, s.fresh is not None))
        return replace(first, fresh=fresh, corners=corners)
    return replace(a, fresh=fresh, corners=corners, pending=a.pending | b.pending)


def join(a: State, b: State) -> State:
    """Where two paths meet: stale on either path."""
    out = dict(a)
    for k, v in b.items():
        out[k] = _join_one(out[k], v) if k in out else v
    return out


def wait(state: State, ids: Iterable[int | str]) -> State:
    """``wait_async (ids)``: the reflects started with one of those ids are complete."""
    ids = list(ids)
    out: State = {}
    for k, v in state.items():
        if v.pending is None or not _matches(v.pending, ids):
            out[k] = v
            continue
        assert v.reflect_loc is not None
        done = _reflected(replace(v, pending=None), v.reflect_widths, v.reflect_orthogonal,
                          v.reflect_loc, v.reflect_text)
        if done is not None:
            out[k] = done
    return out


_NOWHERE = SourceLoc("", 0, 0)   # a spec's place, until the directive that runs it is known


@dataclass(frozen=True)
class ReflectSpec:
    """What one reflect of one array refreshes: ``widths`` per array dimension (INF: the
    whole shadow of that dimension; None: all of it, corners included), ``orthogonal``: no
    corners; ``text`` as written."""

    loc: SourceLoc
    text: str
    widths: Widths | None = None
    orthogonal: bool = False


def reflect_spec(given: tuple[xd.ReflectWidth, ...] | None, orthogonal: bool,
                 full: tuple[bool, ...]) -> ReflectSpec:
    """The widths of ``width(...)`` for an array whose dimensions have a full shadow where
    ``full`` says (a width that is not a constant: the whole shadow of that dimension; a
    full shadow is gathered whole for any width but 0); ``text``: the clauses as written
    (`` width(1) orthogonal``)."""
    text = ""
    widths: Widths | None = None
    ndims = len(full)
    if given is not None and len(given) == ndims:
        values = [(text_value(w.lower.text), text_value(w.upper.text)) for w in given]
        widths = tuple((INF, INF) if lo is None or hi is None or (whole and (lo or hi)) else (lo, hi)
                       for (lo, hi), whole in zip(values, full, strict=True))
        parts = [("/periodic/ " if w.periodic else "")
                 + (w.lower.text if w.lower.text == w.upper.text else f"{w.lower.text}:{w.upper.text}")
                 for w in given]
        text = f" width({', '.join(parts)})"
    if orthogonal:
        widths = widths or tuple((INF, INF) for _ in range(ndims))
        text += " orthogonal"
    return ReflectSpec(_NOWHERE, text, widths, orthogonal)


def widest(specs: list[ReflectSpec]) -> ReflectSpec:
    """Several reflects that may have run (the ``reflect_init`` of an array, reflects in
    flight together): say less, take the widest (none given: the whole shadow)."""
    widths = [s.widths for s in specs if s.widths is not None]
    if not specs or len(widths) < len(specs):
        return ReflectSpec(_NOWHERE, "")
    wide = tuple((max(w[k][0] for w in widths), max(w[k][1] for w in widths)) for k in range(len(widths[0])))
    return replace(specs[0], widths=wide, orthogonal=all(s.orthogonal for s in specs))


def reflected(state: State, key: Key, spec: ReflectSpec) -> State:
    """A (completed) ``reflect``/``reflect_do`` of the array."""
    old = state.get(key)
    if old is None:
        return state
    out = {k: v for k, v in state.items() if k != key}
    done = _reflected(replace(old, pending=None), spec.widths, spec.orthogonal, spec.loc, spec.text)
    return out if done is None else {**out, key: done}


def _reflected(old: Stale, widths: Widths | None, orthogonal: bool,
               loc: SourceLoc, text: str) -> Stale | None:
    """``old`` after a reflect; None when the whole shadow is fresh (``widths`` None: the
    whole shadow, corners included)."""
    if widths is None:
        return None
    fresh = widths if old.fresh is None else \
        tuple((max(x[0], y[0]), max(x[1], y[1])) for x, y in zip(old.fresh, widths, strict=False))
    corners = not orthogonal or (old.fresh is not None and old.corners)
    return replace(old, fresh=fresh, corners=corners, partial_loc=loc, partial_text=text)


def reflect_async(state: State, key: Key, ident: xd.Expr, spec: ReflectSpec) -> State:
    """``reflect (a) async (id)`` (``spec.text``): the shadow becomes fresh at the matching
    wait."""
    old = state.get(key)
    if old is None:
        return state
    pending = (old.pending or frozenset()) | {async_id(ident.text)}
    if old.pending is None:
        return {**state, key: replace(old, pending=pending, reflect_loc=spec.loc, reflect_text=spec.text,
                                      reflect_id=ident.text, reflect_widths=spec.widths,
                                      reflect_orthogonal=spec.orthogonal)}
    # a wait of any of the ids counts as the wait of all (saying less): the widest refresh
    both = widest([ReflectSpec(spec.loc, "", old.reflect_widths, old.reflect_orthogonal), spec])
    return {**state, key: replace(old, pending=pending, reflect_widths=both.widths,
                                  reflect_orthogonal=both.orthogonal)}


def recomputed(state: State, key: Key, loc: SourceLoc, widths: Widths, clause: str) -> State:
    """A loop with ``expand``/``margin`` wrote the array: it also computed the shadow
    elements within the positive ``widths`` (per array dimension) on this node."""
    if not any(lo > 0 or hi > 0 for lo, hi in widths):
        # expand(-1) changes the interior only, which no neighbour's shadow holds;
        # margin(-1) changes the rim of the block, which they do hold
        return state if clause == "expand" else {**state, key: Stale(loc)}
    old = state.get(key)
    if old is None and clause == "margin" and all(lo >= 0 and hi >= 0 for lo, hi in widths):
        return state   # margin(1) writes shadow slots only: the owned values did not change
    fresh = widths if old is None or old.fresh is None else \
        tuple((max(x[0], y[0]), max(x[1], y[1])) for x, y in zip(old.fresh, widths, strict=False))
    return {**state, key: Stale(loc, fresh=tuple((max(lo, 0), max(hi, 0)) for lo, hi in fresh))}


@dataclass(frozen=True)
class LoopRange:
    """The iteration range of a ``loop`` relative to the node's block, per template dimension:
    ``expand(w)`` widens it by w (negative: shrinks), ``margin(w)`` runs the part of the
    widened range outside the block, or the rim of the block for negative widths, so it
    reaches no further than max(w, 0); ``peel_and_wait`` runs the whole block."""

    clause: str | None                      # "expand", "margin" or None
    widths: tuple[tuple[int, int], ...]     # as written, per template dimension

    def reach(self, tdim: int) -> tuple[int, int]:
        """How far beyond the block (below, above) the iterations may go; negative: they
        stay that far inside."""
        if self.clause is None:
            return 0, 0
        lo, hi = self.widths[tdim]
        return (lo, hi) if self.clause == "expand" else (max(lo, 0), max(hi, 0))

    def text(self) -> str:
        parts = [str(lo) if lo == hi else f"{lo}:{hi}" for lo, hi in self.widths]
        return f"{self.clause}({', '.join(parts)})"


def loop_range(d: xd.Loop, ndims: int) -> LoopRange | None:
    """``d``'s range; None when a width is not a constant (nothing can be said)."""
    clause, given = ("expand", d.expand) if d.expand is not None else ("margin", d.margin)
    if given is None:
        return LoopRange(None, ((0, 0),) * ndims)
    widths = [(text_value(w.lower.text), text_value(w.upper.text)) for w in given]
    if len(widths) != ndims or any(lo is None or hi is None for lo, hi in widths):
        return None
    return LoopRange(clause, tuple(widths))  # type: ignore[arg-type]
