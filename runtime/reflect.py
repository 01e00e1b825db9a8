"""``reflect``: fill shadow slots from the neighbours' owned elements (reference §6.3).

Dimensions are exchanged one after the other.  For dimension d the exchanged slab spans
the whole allocated extent of the dimensions already exchanged and the owned range of
the others, so corner slots arrive in the later exchange and every byte received lands in
a shadow slot: the bytes moved are exactly the shadow's (counted in ``stats``).

Normal shadow ``lo:hi`` on node k: its ``lo`` lower slots receive the highest owned
elements of the previous owning node, its ``hi`` upper slots the lowest of the next one.
Full shadow: an all-gather of the owned blocks along the node dimension.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .arrays import DistArray
from .errors import RuntimeFailure
from .nodes import CommCache
from .transport import MpiTransport


@dataclass(frozen=True, slots=True)
class Width:
    lo: int
    hi: int
    periodic: bool


def reflect(arr: DistArray, widths: list[Width] | None, cache: CommCache, where: str,
            stats: dict[str, int], view: Any = None, transport: Any = None) -> None:
    """Fill the shadow of ``arr``: in its host buffer, or in ``view`` (a device copy of the
    same layout) moved by ``transport`` (transport.py; host MPI by default).  The steps
    are planned once per array and widths and then replayed (reflect runs every iteration)."""
    view = arr.bytes_view() if view is None else view
    transport = MpiTransport() if transport is None else transport
    key = None if widths is None else tuple(widths)
    plan = arr.reflect_plans.get(key)
    if plan is None:
        plan = arr.reflect_plans[key] = _plan(arr, widths, cache, where)
    for step in plan:
        if step[0] == "gather":
            if sum(part is not None for part in step[3]) > 1:   # someone else owns a block
                transport.allgather(step[1], view, step[2], step[3], stats)
        elif step[2] or step[3]:                                 # a neighbour exists
            transport.exchange(step[1], view, step[2], step[3], stats)


def _plan(arr: DistArray, widths: list[Width] | None, cache: CommCache, where: str) -> list[tuple[Any, ...]]:
    steps: list[tuple[Any, ...]] = []
    done: set[int] = set()
    for d, lay in enumerate(arr.layouts):
        if lay.dist is None or lay.dist.kind == "none":
            continue
        if lay.full_shadow:
            steps.append(_gather_full(arr, d, done, cache))
        elif lay.shadow_lo or lay.shadow_hi:
            w = widths[d] if widths is not None else Width(lay.shadow_lo, lay.shadow_hi, False)
            if w.lo > lay.shadow_lo or w.hi > lay.shadow_hi or w.lo < 0 or w.hi < 0:
                raise RuntimeFailure(where, f"reflect width {w.lo}:{w.hi} of dimension {d} of "
                                            f"'{arr.name}' exceeds its shadow {lay.shadow_lo}:{lay.shadow_hi}",
                                     collective=True)
            steps.append(_exchange(arr, d, w, done, cache, where))
        done.add(d)
    return steps


def _region(arr: DistArray, d: int, done: set[int], along: slice) -> tuple[slice, ...]:
    """Index of the slab exchanged for dimension d (``along`` selects the d range)."""
    idx = []
    for e, lay in enumerate(arr.layouts):
        if e == d:
            idx.append(along)
        elif e in done or lay.dist is None or lay.dist.kind == "none" or lay.full_shadow:
            idx.append(slice(0, lay.lext))
        else:
            idx.append(slice(lay.shadow_lo, lay.shadow_lo + lay.owned_count))
    return tuple(idx)


def _line(arr: DistArray, d: int, cache: CommCache):  # type: ignore[no-untyped-def]
    nodes = arr.template.nodes
    assert nodes is not None
    nd = arr.template.node_dims[arr.tdims[d]]
    return nodes.sub_comm(cache, frozenset([nd])), nd


def _owning_neighbours(arr: DistArray, d: int, k: int, periodic: bool) -> tuple[int | None, int | None, list[int]]:
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


def _exchange(arr: DistArray, d: int, w: Width, done: set[int], cache: CommCache,
              where: str) -> tuple[Any, ...]:
    comm, nd = _line(arr, d, cache)
    k = comm.Get_rank()
    lay = arr.layouts[d]
    prev, nxt, counts = _owning_neighbours(arr, d, k, w.periodic)
    too_small = [c for c, n in enumerate(counts) if 0 < n < max(w.lo, w.hi)]
    if too_small:
        raise RuntimeFailure(where, f"shadow size is too big: node {too_small[0]} along dimension {d} "
                                    f"owns {counts[too_small[0]]} element(s) of '{arr.name}', fewer "
                                    f"than the shadow width {max(w.lo, w.hi)}", collective=True)
    lo, own = lay.shadow_lo, lay.owned_count
    sends, recvs = [], []
    if nxt is not None and w.lo:   # my top w.lo owned -> next node's lower shadow
        sends.append((nxt, 1, _region(arr, d, done, slice(lo + own - w.lo, lo + own))))
    if prev is not None and w.hi:  # my bottom w.hi owned -> previous node's upper shadow
        sends.append((prev, 2, _region(arr, d, done, slice(lo, lo + w.hi))))
    if prev is not None and w.lo:
        recvs.append((prev, 1, _region(arr, d, done, slice(lo - w.lo, lo))))
    if nxt is not None and w.hi:
        recvs.append((nxt, 2, _region(arr, d, done, slice(lo + own, lo + own + w.hi))))
    return ("exchange", comm, sends, recvs)


def _gather_full(arr: DistArray, d: int, done: set[int], cache: CommCache) -> tuple[Any, ...]:
    """Full shadow: every node gets every owned block of dimension d (an all-gather)."""
    comm, _nd = _line(arr, d, cache)
    lay = arr.layouts[d]
    assert lay.dist is not None
    parts: list[tuple[slice, ...] | None] = []
    for c in range(lay.dist.nprocs):
        p = arr.layout_of(d, c)
        parts.append(_region(arr, d, done, slice(p.owned_first, p.owned_first + p.owned_count))
                     if p.owned_count else None)
    mine = _region(arr, d, done, slice(lay.owned_first, lay.owned_first + lay.owned_count))
    return ("gather", comm, mine, parts)
