"""``reflect``: fill shadow slots from the neighbours' owned elements (reference §6.3,
global-view §7).

Dimensions are exchanged one after the other.  For dimension d the exchanged slab spans
the whole allocated extent of the dimensions already exchanged and the owned range of
the others, so corner slots arrive in the later exchange and every byte received lands in
a shadow slot: the bytes moved are exactly the shadow's (counted in ``stats``).
``orthogonal`` exchanges every slab over the owned range of the other dimensions only:
no corners.

Normal shadow ``lo:hi`` on node k: its ``lo`` lower slots receive the highest owned
elements of the previous owning node, its ``hi`` upper slots the lowest of the next one.
Full shadow: an all-gather of the owned blocks along the node dimension; on a cyclic
dimension the owned indices are scattered, so the slabs are index arrays.

Under ``async (id)`` the steps run as non-blocking MPI (``StepsPending``): the first one
starts at once, the others when the previous one completes (at ``wait_async`` or while
``xmp_test_async`` finds it done).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .arrays import DistArray
from .errors import RuntimeFailure
from .nodes import CommCache
from .transport import MpiTransport, gather_pairs


@dataclass(frozen=True, slots=True)
class Width:
    lo: int
    hi: int
    periodic: bool


Step = tuple[Any, ...]   # ("exchange", comm, sends, recvs)


def reflect(arr: DistArray, widths: list[Width] | None, cache: CommCache, where: str,
            stats: dict[str, int], view: Any = None, transport: Any = None,
            orthogonal: bool = False, asyncs: Any = None) -> None:
    """Fill the shadow of ``arr``: in its host buffer, or in ``view`` (a device copy of the
    same layout) moved by ``transport`` (transport.py; host MPI by default).  The steps
    are planned once per array and widths and then replayed (reflect runs every iteration).
    With ``asyncs`` active (``reflect ... async``) host steps are left in flight."""
    view = arr.bytes_view() if view is None else view
    transport = MpiTransport() if transport is None else transport
    steps = [s for s in _plan(arr, widths, cache, where, orthogonal) if active_step(s)]
    if asyncs is not None and asyncs.active and isinstance(transport, MpiTransport) \
            and type(transport) is MpiTransport:
        asyncs.add(StepsPending([_starter(transport, s, view, stats) for s in steps]))
        return
    for step in steps:
        transport.exchange(step[1], view, step[2], step[3], stats)


def prepare(arr: DistArray, widths: list[Width] | None, cache: CommCache, where: str, view: Any,
            transport: Any, orthogonal: bool = False) -> None:
    """``reflect_init ... acc``: the plan, and the transport's buffers for each exchange
    of it on ``view`` (transport.SlabPlans), made before the first ``reflect_do``."""
    for step in _plan(arr, widths, cache, where, orthogonal):
        if active_step(step):
            transport.prepare(view, step[2], step[3])


def _plan_key(widths: list[Width] | None, orthogonal: bool) -> tuple[Any, bool]:
    return (None if widths is None else tuple(widths), orthogonal)


def _plan(arr: DistArray, widths: list[Width] | None, cache: CommCache,
          where: str, orthogonal: bool) -> list[Step]:
    key = _plan_key(widths, orthogonal)
    plan = arr.reflect_plans.get(key)
    if plan is None:
        plan = arr.reflect_plans[key] = plan_reflect(arr, widths, cache, where, orthogonal)
    return plan


def planned_steps(arr: DistArray, widths: list[Width] | None, orthogonal: bool) -> list[Step] | None:
    """The steps a reflect of ``arr`` with these widths already planned (None: not yet):
    what the C side repeats (fast_reflect.py, replay.py)."""
    return arr.reflect_plans.get(_plan_key(widths, orthogonal))


def active_step(step: Step) -> bool:
    return bool(step[2] or step[3])   # a neighbour exists


def _starter(transport: MpiTransport, step: Step, view: Any, stats: dict[str, int]) -> Callable[[], Any]:
    return lambda: transport.start_exchange(step[1], view, step[2], step[3], stats)


class StepsPending:
    """Steps that must run one after the other, each started when the previous completes."""

    def __init__(self, starters: list[Callable[[], Any]]) -> None:
        self.starters = starters
        self.next = 0
        self.current: Any = None
        self._advance()

    def _advance(self) -> None:
        self.current = None
        if self.next < len(self.starters):
            self.current = self.starters[self.next]()
            self.next += 1

    def test(self) -> bool:
        while self.current is not None and self.current.test():
            self._advance()
        return self.current is None

    def wait(self) -> None:
        while self.current is not None:
            self.current.wait()
            self._advance()


def plan_reflect(arr: DistArray, widths: list[Width] | None, cache: CommCache, where: str,
                 orthogonal: bool = False) -> list[Step]:
    steps: list[Step] = []
    done: set[int] = set()
    for d, lay in enumerate(arr.layouts):
        if lay.dist is None or lay.dist.kind == "none":
            continue
        w = widths[d] if widths is not None else None
        if lay.full_shadow:
            if w is not None and w.periodic:
                raise RuntimeFailure(where, f"/periodic/ in the width of dimension {d} of '{arr.name}', "
                                            "which has a full shadow", collective=True)
            if w is None or w.lo or w.hi:
                steps.append(_gather_full(arr, d, done, cache))
        elif lay.shadow_lo or lay.shadow_hi:
            w = w if w is not None else Width(lay.shadow_lo, lay.shadow_hi, False)
            check_width(arr, d, w, where, "reflect")
            steps.append(_exchange(arr, d, w, done, cache, where))
        if not orthogonal:
            done.add(d)
    return steps


def check_width(arr: DistArray, d: int, w: Width, where: str, what: str) -> None:
    lay = arr.layouts[d]
    if w.lo > lay.shadow_lo or w.hi > lay.shadow_hi or w.lo < 0 or w.hi < 0:
        raise RuntimeFailure(where, f"{what} width {w.lo}:{w.hi} of dimension {d} of '{arr.name}' "
                                    f"exceeds its shadow {lay.shadow_lo}:{lay.shadow_hi}", collective=True)


def owned_slice(lay: Any) -> slice:
    """The owned slots of one dimension in the local buffer (cyclic: by position)."""
    if lay.dist is not None and lay.dist.kind == "cyclic" and not lay.full_shadow:
        lo, hi = lay._cyclic_span()
        return slice(lo, hi)
    return slice(lay.shadow_lo, lay.shadow_lo + lay.owned_count)


def region(arr: DistArray, d: int, done: set[int], along: Any) -> tuple[Any, ...]:
    """Index of the slab exchanged for dimension d (``along`` selects the d range)."""
    idx: list[Any] = []
    for e, lay in enumerate(arr.layouts):
        if e == d:
            idx.append(along)
        elif e in done or lay.dist is None or lay.dist.kind == "none" or lay.full_shadow:
            idx.append(slice(0, lay.lext))
        else:
            idx.append(owned_slice(lay))
    return tuple(idx)


def line(arr: DistArray, d: int, cache: CommCache) -> Any:
    nodes = arr.template.nodes
    assert nodes is not None
    nd = arr.template.node_dims[arr.tdims[d]]
    return nodes.sub_comm(cache, frozenset([nd]))


def owning_neighbours(arr: DistArray, d: int,
                      k: int, periodic: bool) -> tuple[int | None, int | None, list[int]]:
    """Coordinates of the previous and next nodes that own elements, and all counts."""
    lay = arr.layouts[d]
    assert lay.dist is not None
    counts = [arr.layout_of(d, c).owned_count for c in range(lay.dist.nprocs)]
    owners = [c for c, n in enumerate(counts) if n > 0]
    if counts[k] == 0 or not owners:
        return None, None, counts
    i = owners.index(k)
    # periodic with a single owner: it is its own neighbour on both sides
    prev = owners[i - 1] if i > 0 else (owners[-1] if periodic else None)
    nxt = owners[i + 1] if i + 1 < len(owners) else (owners[0] if periodic else None)
    return prev, nxt, counts


def check_owned(arr: DistArray, d: int, w: Width, counts: list[int], where: str) -> None:
    """A shadow wider than a neighbour's block would reach past that neighbour (reflect and
    reduce_shadow exchange with the next owner only)."""
    too_small = [c for c, n in enumerate(counts) if 0 < n < max(w.lo, w.hi)]
    if too_small:
        raise RuntimeFailure(where, f"shadow size is too big: node {too_small[0]} along dimension {d} "
                                    f"owns {counts[too_small[0]]} element(s) of '{arr.name}', fewer "
                                    f"than the shadow width {max(w.lo, w.hi)}", collective=True)


def _exchange(arr: DistArray, d: int, w: Width, done: set[int], cache: CommCache, where: str) -> Step:
    comm = line(arr, d, cache)
    if comm is None:   # not a member of the template's node array: nothing to exchange
        return ("exchange", None, [], [])
    k = comm.Get_rank()
    lay = arr.layouts[d]
    prev, nxt, counts = owning_neighbours(arr, d, k, w.periodic)
    check_owned(arr, d, w, counts, where)
    lo, own = lay.shadow_lo, lay.owned_count
    sends, recvs = [], []
    if nxt is not None and w.lo:   # my top w.lo owned -> next node's lower shadow
        sends.append((nxt, 1, region(arr, d, done, slice(lo + own - w.lo, lo + own))))
    if prev is not None and w.hi:  # my bottom w.hi owned -> previous node's upper shadow
        sends.append((prev, 2, region(arr, d, done, slice(lo, lo + w.hi))))
    if prev is not None and w.lo:
        recvs.append((prev, 1, region(arr, d, done, slice(lo - w.lo, lo))))
    if nxt is not None and w.hi:
        recvs.append((nxt, 2, region(arr, d, done, slice(lo + own, lo + own + w.hi))))
    return ("exchange", comm, sends, recvs)


def _owned_along(arr: DistArray, d: int, c: int) -> Any:
    """Node c's owned indices of a full-shadow dimension d (whole buffer: loc = glb)."""
    p = arr.layout_of(d, c)
    if p.dist is not None and p.dist.kind == "cyclic":
        return np.array(p.owned_indices(), dtype=np.intp)
    return slice(p.owned_first, p.owned_first + p.owned_count)


def _gather_full(arr: DistArray, d: int, done: set[int], cache: CommCache) -> Step:
    """Full shadow: every node gets every owned block of dimension d (an all-gather), as the
    messages of transport.py ``gather_pairs``: an exchange like any other step, so every
    transport, the persistent reflect and the C side's plans run it the same way."""
    comm = line(arr, d, cache)
    lay = arr.layouts[d]
    assert lay.dist is not None
    if comm is None:
        return ("exchange", None, [], [])
    parts: list[tuple[Any, ...] | None] = []
    for c in range(lay.dist.nprocs):
        parts.append(region(arr, d, done, _owned_along(arr, d, c))
                     if arr.layout_of(d, c).owned_count else None)
    return ("exchange", comm, *gather_pairs(comm, parts[comm.Get_rank()] or region(arr, d, done, slice(0, 0)),
                                            parts))
