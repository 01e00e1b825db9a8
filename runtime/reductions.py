"""Reductions (reference §6.1, §6.4; global-view §5): the loop clause and the directive,
of scalars, arrays and array sections, with location variables, synchronous or under
``async (id)``.  ``Reductions`` is the concern of ``api.Runtime`` that runs them.

A variable that is a section (``k[1][:]``) or has location variables travels as its
address and a description (``var`` below, see ``var_view``).  Location kinds:

* directive ``reduction(max: m /n, k[1][:]/)``: ``m`` becomes the maximum; the location
  variables take the values of the lowest node whose ``m`` was the maximum (highest node
  for lastmax/lastmin);
* loop clause ``reduction(firstmax: v /i/)``: every node has noted in ``key`` the trip
  numbers of the last iteration that changed ``v`` or its location variables (key[0] = 0:
  none did); among the nodes whose ``v`` is the maximum, the one whose key comes first
  (last) in sequential order gives the location variables.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .arrays import read_ints, read_longs
from .collectives import (
    DTYPES,
    REPLAYED_OPS,
    REPLAYED_TYPES,
    VALUE_OP,
    allreduce,
    allreduce_start,
    mpi_op,
    reset_to_identity,
    view,
)
from .cstructs import MAXDIM
from .deferred import Deferred
from .errors import RuntimeFailure, where_text
from .replay_locations import LocationPlans
from .replay_structs import CNodeRef, node_ref
from .shared import Shared
from .tasks import Tasks, read_ref

VAR_INDEX, VAR_TRIPLET = 0, 1   # subscript kinds of a variable description (passes/common/varrefs.py)


def var_view(ptr: int, desc_ptr: int, where: str, raw: bool = False) -> np.ndarray:
    """The part of a C variable a description selects, as a numpy view (no copy).

    ``desc`` = {type, elem size, rank, extents..., nsubs, (kind, a, b, c)...}: an index a,
    or a triplet with base a, length b (-1: to the end) and step c.  With ``raw`` the
    elements are bytes (an extra last axis), whatever their type.
    """
    head = read_longs(desc_ptr, 3)
    type_code, esize, rank = head
    desc = read_longs(desc_ptr, 4 + rank)
    shape, nsubs = tuple(desc[3:3 + rank]), desc[3 + rank]
    subs = read_longs(desc_ptr, 4 + rank + 4 * nsubs)[4 + rank:]
    nbytes = math.prod(shape) * esize
    buf = (ctypes.c_char * nbytes).from_address(ptr)
    if raw or type_code not in DTYPES:
        arr = np.frombuffer(buf, dtype=np.uint8).reshape(shape + (esize,))
    else:
        arr = np.frombuffer(buf, dtype=DTYPES[type_code]).reshape(shape)
    index: list[slice] = []
    for d in range(nsubs):
        kind, a, b, c = subs[4 * d: 4 * d + 4]
        n = shape[d]
        if kind == VAR_INDEX:
            if not 0 <= a < n:
                raise RuntimeFailure(where, f"subscript {a} of dimension {d} is outside 0..{n - 1}")
            index.append(slice(a, a + 1))
            continue
        length = -(-(n - a) // c) if b < 0 else b
        if c <= 0 or a < 0 or length < 0 or (length > 0 and a + (length - 1) * c >= n):
            raise RuntimeFailure(where, f"section [{a}:{length}:{c}] of dimension {d} is outside 0..{n - 1}")
        index.append(slice(a, a + (length - 1) * c + 1 if length else a, c))
    return arr[tuple(index)] if index else arr   # arr[()] would be a scalar, not a view


def _winner(comm: Any, candidate: bool, key: tuple[int, ...] | None, last: bool) -> int:
    """The rank whose location variables win: among candidates, the first (last) key in
    sequential order; None keys (nothing changed: before every iteration) come first;
    equal keys go to the lowest rank (the highest for ``last``)."""
    entries = comm.allgather((candidate, key))
    best, best_rank = None, -1
    for rank, (cand, k) in enumerate(entries):
        if not cand:
            continue
        order = (0,) if k is None else (1,) + k
        if best is None or (order >= best if last else order < best):
            best, best_rank = order, rank
    return best_rank


def _location_kind(op: int) -> tuple[int, bool]:
    """(value operator, last?) of a location reduction (directive max/min: first)."""
    return VALUE_OP.get(op, op), op in (12, 13)


def reduce_with_locations(comm: Any, value: np.ndarray, op: int, locs: list[np.ndarray],
                          key: tuple[int, ...] | None, ordered: bool, where: str) -> None:
    """``value`` becomes the max/min over ``comm``; the location variables come from the
    winning node (by ``key`` when ``ordered``, else by node number)."""
    value_op, last = _location_kind(op)
    mine = value.copy()
    allreduce(comm, value, value_op, where)
    candidate = bool(np.all(mine == value))
    root = _winner(comm, candidate, key if ordered else None, last)
    for loc in locs:
        buf = np.ascontiguousarray(loc)
        comm.Bcast(buf, root=root)
        loc[...] = buf


class Reductions:
    """The loop clause and the directive over the nodes (module doc).  A variable whose
    acc reduction is still deferred (``deferred``, acc.py) is reduced behind it:
    ``on_device`` queues the reduction on the device where NCCL can
    (acc_collectives.py ``reduce_pending``), ``wait`` waits for the deferred results
    (acc.py ``_xmpacc_acc_reductions_wait``)."""

    def __init__(self, shared: Shared, tasks: Tasks, deferred: Deferred,
                 on_device: Callable[[int, Any, int], bool], wait: Callable[[bytes], None]) -> None:
        self.shared, self.tasks, self.deferred = shared, tasks, deferred
        self.on_device, self.wait = on_device, wait
        self._location_plans: LocationPlans | None = None

    @property
    def location_plans(self) -> LocationPlans | None:
        """The C side's plans of location reductions (replay_locations.py), made with the
        replay; None without it."""
        if self._location_plans is None and self.shared.replay is not None:
            self._location_plans = LocationPlans(self.shared.replay)
        return self._location_plans

    def _loop_comm(self, desc: int, loop_dims: int, where: str) -> Any:
        """The nodes that ran different iterations of a loop on a template or on a node
        array (``desc``): they share their coordinates outside the loop's dimensions.
        None on a node outside the node array."""
        shared = self.shared
        if desc in shared.templates:
            tmpl = shared.templates[desc]
            assert tmpl.bounds is not None and tmpl.nodes is not None   # the loop ran on it: distributed
            mask = read_ints(loop_dims, len(tmpl.bounds))
            keep = frozenset(tmpl.node_dims[t] for t in range(len(mask))
                             if mask[t] and tmpl.node_dims[t] >= 0)
            return tmpl.nodes.sub_comm(shared.cache, keep)
        nodes = shared.nodes[desc]
        mask = read_ints(loop_dims, len(nodes.extents))
        return nodes.sub_comm(shared.cache, frozenset(d for d in range(len(mask)) if mask[d]))

    def _dims(self, desc: int, loop_dims: int) -> list[int]:
        """The loop's dimensions of its template or node array ``desc``, as the call passed them."""
        target = self.shared.templates.get(desc)
        ndims = len(target.bounds or ()) if target is not None else len(self.shared.nodes[desc].extents)
        return read_ints(loop_dims, ndims)

    def _xmpacc_loop_reduce_begin(self, desc: int, loop_dims: int, data: int, count: int,
                                  type_code: int, op: int) -> None:
        comm = self._loop_comm(desc, loop_dims, "?")
        if comm is not None and comm.Get_rank() != 0:
            reset_to_identity(view(data, count, type_code, "reduction"), op)

    def _xmpacc_loop_reduce(self, desc: int, where: bytes, loop_dims: int, data: int, count: int,
                            type_code: int, op: int) -> None:
        w = where_text(where)
        comm = self._loop_comm(desc, loop_dims, w)
        if comm is not None:
            allreduce(comm, view(data, count, type_code, w), op, w)
        if self.shared.replay is not None:
            # later calls (and the begin before them): C (replay.py)
            self._offer_reduce(desc, self._dims(desc, loop_dims), data, count, type_code, op, comm, w)

    def _offer_reduce(self, desc: int, dims: list[int], data: int, count: int, type_code: int, op: int,
                      comm: Any, where: str, on: CNodeRef | None = None,
                      section: tuple[list[int], int] | None = None) -> None:
        """A reduction over ``comm`` the C side can repeat: a loop's (over the loop's
        dimensions of ``desc``) or the directive's (desc 0; ``on``: its on clause, comm
        None where this node is not one of its nodes)."""
        replay = self.shared.replay
        if op in REPLAYED_OPS and type_code in REPLAYED_TYPES and replay.steady(data):
            dtype = np.dtype(DTYPES[type_code])
            replay.offer_loop_reduce(desc, dims, data, count, type_code, op, comm, dtype,
                                     mpi_op(op, dtype, where), on, section)

    def _xmpacc_loop_reduce_var_begin(self, desc: int, loop_dims: int, data: int, var: int, op: int) -> None:
        comm = self._loop_comm(desc, loop_dims, "?")
        if comm is not None and comm.Get_rank() != 0:
            reset_to_identity(var_view(data, var, "reduction"), op)

    def _xmpacc_loop_reduce_var(self, desc: int, where: bytes, loop_dims: int, data: int, var: int, op: int,
                                nloc: int, loc_addrs: int, loc_descs: int, nkey: int, key: int) -> None:
        w = where_text(where)
        comm = self._loop_comm(desc, loop_dims, w)
        if comm is None:
            return
        value = var_view(data, var, w)
        if not nloc:
            allreduce(comm, value, op, w)
            self._offer_section(where, data, var, value, op, comm, (desc, self._dims(desc, loop_dims)), None)
            return
        k = read_longs(key, nkey + 1)
        reduce_with_locations(comm, value, op, self._locations(nloc, loc_addrs, loc_descs, w),
                              tuple(k[1:]) if k[0] else None, True, w)
        if self.location_plans is not None:   # later calls: C (replay_locations.py)
            self.location_plans.offer(comm, data, var, op, (nloc, loc_addrs, loc_descs),
                                      (desc, self._dims(desc, loop_dims)), None, nkey, w)

    def _xmpacc_reduce(self, data: int, where: bytes, count: int, type_code: int, op: int,
                       on_nodes: int | None, on_ref: int | None) -> None:
        w = where_text(where)
        if self.deferred.has(data):
            # the variable still waits for a deferred acc reduction (acc.py): reduce it over
            # the nodes behind that on the device where NCCL can, else after it on the host,
            # in order (every node defers alike); under async, now.  Over one node there is
            # nothing to do: the deferred result reaches the variable as it would alone.
            if not self.shared.asyncs.active:
                comm = self.tasks.on_set(on_nodes, on_ref, w)
                if comm is None or comm.Get_size() == 1 or count == 1 and self.on_device(data, comm, op):
                    self._offer_directive(on_nodes, on_ref, data, count, type_code, op, comm, w)
                    return
                self.deferred.add_after(
                    lambda: self._allreduce(comm, view(data, count, type_code, w), op, w))
                return
            self.wait(where)
        comm = self.tasks.on_set(on_nodes, on_ref, w)
        if comm is not None:
            self._allreduce(comm, view(data, count, type_code, w), op, w)
        self._offer_directive(on_nodes, on_ref, data, count, type_code, op, comm, w)

    def _offer_directive(self, on_nodes: int | None, on_ref: int | None, data: int, count: int,
                         type_code: int, op: int, comm: Any, where: str) -> None:
        """Later calls of a reduction directive: C (replay.py), as the loop reductions'
        plans, made with no template; one with an on clause for the nodes the reference
        denotes now (the C side compares the reference's values at each call)."""
        on = node_ref(on_nodes or 0, read_ref(on_ref))
        if self.shared.replay is not None and not self.shared.asyncs.active and on is not None:
            self._offer_reduce(0, [], data, count, type_code, op, comm, where, on)

    def _xmpacc_reduce_var(self, where: bytes, data: int, var: int, op: int, on_nodes: int | None,
                           on_ref: int | None, nloc: int, loc_addrs: int, loc_descs: int) -> None:
        w = where_text(where)
        comm = self.tasks.on_set(on_nodes, on_ref, w)
        if comm is None:
            return
        value = var_view(data, var, w)
        if nloc:   # completes at once, also under async (allowed: async permits overlap)
            reduce_with_locations(comm, value, op, self._locations(nloc, loc_addrs, loc_descs, w), None,
                                  False, w)
            on = node_ref(on_nodes or 0, read_ref(on_ref))
            if self.location_plans is not None and not self.shared.asyncs.active and on is not None:
                self.location_plans.offer(comm, data, var, op, (nloc, loc_addrs, loc_descs), None, on, 0, w)
        else:
            self._allreduce(comm, value, op, w)
            on = node_ref(on_nodes or 0, read_ref(on_ref))
            if on is not None:   # a reference the C side can compare
                self._offer_section(where, data, var, value, op, comm, (0, []), on)

    def _offer_section(self, where: bytes, data: int, var: int, value: np.ndarray, op: int, comm: Any,
                       loop: tuple[int, list[int]], on: CNodeRef | None) -> None:
        """Later calls of a section's reduction: C (replay.py), where its elements are
        contiguous, as the reductions' plans with the section's description; ``loop``: the
        loop clause's template and dimensions ((0, []): the directive, ``on`` its on clause)."""
        type_code, _esize, rank = read_longs(var, 3)
        if self.shared.replay is None or self.shared.asyncs.active or not value.flags.c_contiguous \
                or rank > MAXDIM or type_code not in DTYPES:
            return
        nsubs = read_longs(var + 8 * (3 + rank), 1)[0]
        if nsubs <= MAXDIM:
            self._offer_reduce(*loop, data, value.size, type_code, op, comm, where_text(where), on,
                               (read_longs(var, 4 + rank + 4 * nsubs), int(value.ctypes.data) - data))

    def _allreduce(self, comm: Any, data: np.ndarray, op: int, where: str) -> None:
        asyncs = self.shared.asyncs
        if asyncs.active:
            asyncs.add(allreduce_start(comm, data, op, where))
        else:
            allreduce(comm, data, op, where)

    def _locations(self, n: int, addrs: int, descs: int, where: str) -> list[np.ndarray]:
        a = list((ctypes.c_void_p * n).from_address(addrs))
        d = list((ctypes.c_void_p * n).from_address(descs))
        return [var_view(a[k] or 0, d[k] or 0, where, raw=True) for k in range(n)]
