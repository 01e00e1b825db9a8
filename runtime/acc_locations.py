"""Reductions with location variables of GPU loops (passes/kernel_locations.py): the
node's record among those a kernel left, one per warp (per thread on the host backend).

A record is key[0] (1: a thread of the warp changed the watched variables), the trip
numbers of that thread's iteration, and the values of the reduction variable and of its
location variables at its end.  The node's record is, among the changed ones, the one
with the best value and, on equal values, the first key in sequential order (the last for
lastmax / lastmin).  It goes to the host variables and to the loop's key array, which
``_xmpacc_loop_reduce_var`` then compares over the nodes (reductions.py); when no record
changed, nothing does and key[0] stays 0.
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


def _on_host(x: Any) -> np.ndarray:
    return x.get() if hasattr(x, "get") else np.asarray(x)


def pick(rec: LocatedPartials, xp: Any) -> None:
    """Write the node's record (see above) to the host; the kernel has finished."""
    changed = rec.keys[:, 0] != 0
    if not bool(changed.any()):
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
    rec.host_key[...] = keys[at]
    for host, partials in rec.fields:
        host[0] = _on_host(partials[row:row + 1])[0]
