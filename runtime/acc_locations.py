"""Reductions with location variables of GPU loops (passes/kernel/kernel_locations.py): the
node's record among those a kernel left, one per warp (per thread on the host backend).

A record is key[0] (1: a thread of the warp changed the watched variables), the trip
numbers of that thread's iteration, and the values of the reduction variable and of its
location variables at its end.  The node's record is, among the changed ones, the one
with the best value and, on equal values, the first key in sequential order (the last for
lastmax / lastmin).  It goes to the host variables and to the loop's key array, which
``_xmpacc_loop_reduce_var`` then compares over the nodes (reductions.py); when no record
changed, nothing does and key[0] stays 0.

A loop with ``margin`` or ``peel_and_wait`` launches its kernel once per part
(LOCATED_IN_PARTS), not in sequential order: ``restart`` puts the values before the loop
back into the host variables before each launch after the first (the threads start from
them, as in one launch) and returns the record of the earlier launches, which ``pick`` keeps
where the new launch's does not beat it, by value and then by key (as ``_xmpacc_loc_better``
of the kernel's warps).  The host key array holds the count of launches and those values
after the key (``tail``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .collectives import OP_NAMES, VALUE_OP

_MAX = 8   # VALUE_OP of firstmax and lastmax: the value reduces as max


@dataclass
class LocatedPartials:
    """One reduction's per-warp records and the host variables they end in."""

    keys: Any                  # (records, numbers per key) int64, on the backend
    host_key: np.ndarray       # the loop's key array (numbers per key) on the host
    op: int
    fields: list[tuple[np.ndarray, Any]] = field(default_factory=list)   # (host variable, per-warp values)
    tail: np.ndarray | None = None   # in parts: the launches so far, then a word per field (its start value)


Record = tuple[np.ndarray, list[np.ndarray]]   # a node's record: the key and the value of each field


def _on_host(x: Any) -> np.ndarray:
    return x.get() if hasattr(x, "get") else np.asarray(x)


def restart(rec: LocatedPartials) -> Record | None:
    """Before a launch of a loop in parts: the record of the loop's earlier launches (None
    before the first), and the host variables back at their values before the loop."""
    if rec.tail is None:
        return None
    starts = rec.tail[1:].view(np.uint8).reshape(len(rec.fields), 8)
    earlier = None
    if rec.tail[0] == 0:   # the first launch: the variables hold their values before the loop
        for k, (host, _p) in enumerate(rec.fields):
            starts[k, :host.itemsize] = host.view(np.uint8)
    else:
        earlier = (rec.host_key.copy(), [host.copy() for host, _p in rec.fields])
        for k, (host, _p) in enumerate(rec.fields):
            host.view(np.uint8)[...] = starts[k, :host.itemsize]
        rec.host_key[...] = 0
    rec.tail[0] += 1
    return earlier


def pick(rec: LocatedPartials, xp: Any, earlier: Record | None = None) -> None:
    """Write the node's record (see above) to the host; the kernel has finished.  ``earlier``:
    that of the loop's earlier launches (``restart``), kept where this launch's is not better."""
    changed = rec.keys[:, 0] != 0
    if not bool(changed.any()):
        if earlier is not None:
            _write(rec, earlier)
        return
    values = rec.fields[0][1]
    kept = values[changed]
    best = kept.max() if VALUE_OP[rec.op] == _MAX else kept.min()
    rows = xp.nonzero(changed & (values == best))[0]
    if int(rows.size) == 0:   # a NaN best equals nothing: choose among every changed record by key
        rows = xp.nonzero(changed)[0]
    keys = _on_host(rec.keys[rows])
    at = 0
    if keys.shape[1] > 1:
        order = np.lexsort(keys[:, :0:-1].T)   # lexsort's primary key is its last: trip 1
        at = int(order[-1] if OP_NAMES[rec.op].startswith("last") else order[0])
    row = int(_on_host(rows)[at])
    mine = (keys[at], [_on_host(partials[row:row + 1]) for _host, partials in rec.fields])
    _write(rec, earlier if earlier is not None and not _better(mine, earlier, rec.op) else mine)


def _better(w: Record, m: Record, op: int) -> bool:
    """Does record ``w`` beat ``m``?  (``_xmpacc_loc_better`` of xmpacc_loops.h)"""
    if not w[0][0]:
        return False
    if not m[0][0]:
        return True
    a, b = w[1][0][0], m[1][0][0]
    above, below = (a > b, a < b) if VALUE_OP[op] == _MAX else (a < b, a > b)
    if above or below:
        return bool(above)
    differ = np.nonzero(w[0][1:] != m[0][1:])[0]
    if differ.size == 0:
        return False
    k = 1 + int(differ[0])
    return bool(w[0][k] > m[0][k] if OP_NAMES[op].startswith("last") else w[0][k] < m[0][k])


def _write(rec: LocatedPartials, record: Record) -> None:
    rec.host_key[...] = record[0]
    for (host, _p), value in zip(rec.fields, record[1], strict=True):
        host[0] = value[0]
