"""xmp_sort_up / xmp_sort_down (global-view §9): a sample sort over the executing node set.

Each element is keyed by (value, its index in the source), so keys are distinct and the
regular samples split any input, duplicates included, into buckets of at most about
2 N / P elements.  The sorted buckets, in node order, are the sorted array: an element's
rank is the number of elements in the buckets before it plus its place in its own, and
it is sent to every holder of that element of the destination (from the end for
``sort_down``).
"""

from __future__ import annotations

import numpy as np

from .intrinsic_data import Global, Group, Route, deliver


def _below(vals: np.ndarray, lins: np.ndarray, sv: object, sl: int) -> int:
    """How many keys of the sorted (vals, lins) are smaller than (sv, sl)."""
    lo = int(np.searchsorted(vals, sv, side="left"))
    hi = int(np.searchsorted(vals, sv, side="right"))
    return lo + int(np.searchsorted(lins[lo:hi], sl, side="left"))


def _splitters(vals: np.ndarray, lins: np.ndarray, group: Group) -> list[tuple[object, int]]:
    """P - 1 keys that cut the global key order into P parts of similar size."""
    p = group.size
    n = len(vals)
    picks = (np.arange(1, p) * n) // p if n else np.zeros(0, dtype=np.int64)
    samples = group.comm.allgather((vals[picks], lins[picks]))
    sv = np.concatenate([s[0] for s in samples]).astype(vals.dtype)
    sl = np.concatenate([s[1] for s in samples]).astype(np.int64)
    order = np.lexsort((sl, sv))
    sv, sl = sv[order], sl[order]
    if len(sv) == 0:
        return []
    cut = (np.arange(1, p) * len(sv)) // p
    return [(sv[k], int(sl[k])) for k in cut]


def sort(dst: Global, src: Global, descending: bool, group: Group, me_world: int, where: str) -> None:
    (lins,), off = src.sent(me_world, group, where)
    vals = src.values()[off].astype(src.dtype, copy=True)
    order = np.lexsort((lins, vals))
    vals, lins = vals[order], lins[order]
    if group.size > 1:
        cuts = [_below(vals, lins, sv, sl) for sv, sl in _splitters(vals, lins, group)]
        bucket = np.zeros(len(vals), dtype=np.int64)
        for c in cuts:
            bucket[c:] += 1
        vals, lins = Route(group.comm, bucket).send(vals, lins)
        order = np.lexsort((lins, vals))
        vals = vals[order]
    first = group.comm.exscan(len(vals)) or 0
    rank = first + np.arange(len(vals), dtype=np.int64)
    if descending:
        rank = src.size - 1 - rank
    deliver(dst, [rank], vals, group, where)
