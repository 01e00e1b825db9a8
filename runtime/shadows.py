"""The other shadow operations of global-view §7: ``reflect ... orthogonal``, the
persistent ``reflect_init``/``reflect_do`` and ``reduce_shadow``: ``Shadows``, a concern
of ``api.Runtime``.

* ``reflect_init (a) width(...)`` plans the reflect of ``a`` once and binds MPI persistent
  requests (``Send_init``/``Recv_init``) to fixed slab buffers; each ``reflect_do (a)``
  copies the slabs in, starts the requests, waits, and copies the slabs out: nothing is
  allocated per call.  The contents moved are those at the time of the ``reflect_do``.
* ``reduce_shadow (a)`` is reflect run backwards: each node sends the values its shadow
  slots hold to their owners, which add them into their own elements.  Dimensions go in
  reverse order over the same slabs as reflect, so corner slots reach their owner in two
  hops.  A full-shadow dimension is summed over its line of nodes (an allreduce).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .arrays import DistArray, read_longs
from .asyncs import MpiPending
from .collectives import DTYPES
from .errors import RuntimeFailure, where_text
from .reflect import (
    StepsPending,
    Width,
    check_owned,
    check_width,
    line,
    owning_neighbours,
    plan_reflect,
    reflect,
    region,
)
from .shared import Shared

_TAG_LO, _TAG_HI = 4, 5


class PersistentReflect:
    """A reflect bound to persistent requests and fixed buffers (one round per step)."""

    def __init__(self, arr: DistArray, steps: list[tuple[Any, ...]]) -> None:
        view = arr.bytes_view()
        self.view = view
        self.rounds: list[tuple[list[Any], list[tuple[np.ndarray, Any]], list[tuple[np.ndarray, Any]]]] = []
        for step in steps:
            requests: list[Any] = []
            packs: list[tuple[np.ndarray, Any]] = []
            unpacks: list[tuple[np.ndarray, Any]] = []
            comm = step[1]
            if comm is None:
                continue
            pairs = [("send", dst, tag, r) for dst, tag, r in step[2]] + \
                [("recv", src, tag, r) for src, tag, r in step[3]]
            for kind, peer, tag, reg in pairs:
                buf = np.empty(view[reg].shape, dtype=np.uint8)
                if kind == "send":
                    packs.append((buf, reg))
                    requests.append(comm.Send_init(buf, dest=peer, tag=tag))
                else:
                    unpacks.append((buf, reg))
                    requests.append(comm.Recv_init(buf, source=peer, tag=tag))
            if requests:
                self.rounds.append((requests, packs, unpacks))

    def _start(self, k: int) -> MpiPending:
        from mpi4py import MPI

        requests, packs, unpacks = self.rounds[k]
        for buf, reg in packs:
            np.copyto(buf, self.view[reg])
        MPI.Prequest.Startall(requests)

        def unpack() -> None:
            for buf, reg in unpacks:
                self.view[reg] = buf
        return MpiPending(requests, unpack)

    def run(self, asyncs: Any) -> None:
        pending = StepsPending([lambda k=k: self._start(k) for k in range(len(self.rounds))])
        if asyncs.active:
            asyncs.add(pending)
        else:
            pending.wait()

    def free(self) -> None:
        for requests, _p, _u in self.rounds:
            for r in requests:
                r.Free()
        self.rounds = []


def plan_reduce_shadow(arr: DistArray, widths: list[Width] | None,
                       cache: Any, where: str) -> list[tuple[Any, ...]]:
    steps: list[tuple[Any, ...]] = []
    for d in reversed(range(len(arr.layouts))):
        lay = arr.layouts[d]
        if lay.dist is None or lay.dist.kind == "none":
            continue
        done = set(range(d))   # reflect exchanged these before d: full extent in the slab
        comm = line(arr, d, cache)
        if comm is None:
            continue
        if lay.full_shadow:
            steps.append(("sum", comm, region(arr, d, done, slice(0, lay.lext))))
            continue
        w = widths[d] if widths is not None else Width(lay.shadow_lo, lay.shadow_hi, False)
        check_width(arr, d, w, where, "reduce_shadow")
        if lay.shadow_lo or lay.shadow_hi:
            steps.append(_add_step(arr, d, w, done, comm, where))
    return steps


def _add_step(arr: DistArray, d: int, w: Width, done: set[int], comm: Any, where: str) -> tuple[Any, ...]:
    prev, nxt, counts = owning_neighbours(arr, d, comm.Get_rank(), w.periodic)
    check_owned(arr, d, w, counts, where)
    lay = arr.layouts[d]
    lo, own = lay.shadow_lo, lay.owned_count
    sends, recvs = [], []
    if prev is not None and w.lo:   # my lower shadow holds prev's top elements
        sends.append((prev, _TAG_LO, region(arr, d, done, slice(lo - w.lo, lo))))
    if nxt is not None and w.hi:    # my upper shadow holds next's bottom elements
        sends.append((nxt, _TAG_HI, region(arr, d, done, slice(lo + own, lo + own + w.hi))))
    if nxt is not None and w.lo:
        recvs.append((nxt, _TAG_LO, region(arr, d, done, slice(lo + own - w.lo, lo + own))))
    if prev is not None and w.hi:
        recvs.append((prev, _TAG_HI, region(arr, d, done, slice(lo, lo + w.hi))))
    return ("add", comm, sends, recvs)


def _typed(a: np.ndarray, dtype: Any) -> np.ndarray:
    return a.view(dtype)[..., 0]


def _start_reduce_step(step: tuple[Any, ...], view: np.ndarray, dtype: Any) -> MpiPending:
    from mpi4py import MPI

    comm = step[1]
    if step[0] == "sum":
        work = np.array(_typed(view[step[2]], dtype))   # a copy: the buffer stays as it is in flight
        reg = step[2]

        def store() -> None:
            _typed(view[reg], dtype)[...] = work
        return MpiPending([comm.Iallreduce(MPI.IN_PLACE, work, op=MPI.SUM)], store, keep=work)
    requests, received = [], []
    for dst, tag, reg in step[2]:
        data = np.ascontiguousarray(view[reg])
        received.append((data, None))
        requests.append(comm.Isend(data, dest=dst, tag=tag))
    for src, tag, reg in step[3]:
        buf = np.empty(view[reg].shape, dtype=np.uint8)
        received.append((buf, reg))
        requests.append(comm.Irecv(buf, source=src, tag=tag))

    def add() -> None:
        for buf, reg in received:
            if reg is not None:
                target = _typed(view[reg], dtype)
                target += _typed(buf, dtype)
    return MpiPending(requests, add, keep=received)


class Shadows:
    """The entries of the other shadow operations; no state of their own (the plans of
    ``reflect_init`` live in the arrays)."""

    def __init__(self, shared: Shared, offer: Callable[..., None]) -> None:
        self.arrays, self.cache = shared.arrays, shared.cache
        self.stats, self.asyncs = shared.stats, shared.asyncs
        self.offer = offer   # later calls of an orthogonal reflect: C (fast_reflect.py)

    def _array(self, ptr: int, where: str, what: str) -> DistArray:
        arr = self.arrays.get(ptr)
        if arr is None:
            raise RuntimeFailure(where, f"{what} of an array whose align has not run")
        return arr

    def _widths(self, arr: DistArray, widths: int | None) -> list[Width] | None:
        if not widths:
            return None
        raw = read_longs(widths, 3 * len(arr.layouts))
        return [Width(raw[3 * d], raw[3 * d + 1], bool(raw[3 * d + 2])) for d in range(len(arr.layouts))]

    def _xmpacc_reflect_orthogonal(self, ptr: int, where: bytes, widths: int | None) -> None:
        w = where_text(where)
        arr = self._array(ptr, w, "reflect")
        ws = self._widths(arr, widths)
        reflect(arr, ws, self.cache, w, self.stats, orthogonal=True, asyncs=self.asyncs)
        self.offer(ptr, arr, ws, widths, True)

    def _xmpacc_reflect_init(self, ptr: int, where: bytes, widths: int | None, orthogonal: int) -> None:
        w = where_text(where)
        arr = self._array(ptr, w, "reflect_init")
        if arr.persistent is not None:
            arr.persistent.free()
        steps = plan_reflect(arr, self._widths(arr, widths), self.cache, w, bool(orthogonal))
        arr.persistent = PersistentReflect(arr, steps)

    def _xmpacc_reflect_do(self, ptr: int, where: bytes) -> None:
        w = where_text(where)
        arr = self._array(ptr, w, "reflect_do")
        if arr.persistent is None:
            raise RuntimeFailure(w, f"reflect_do of '{arr.name}' before its reflect_init", collective=True)
        arr.persistent.run(self.asyncs)

    def _xmpacc_reduce_shadow(self, ptr: int, where: bytes, widths: int | None, type_code: int) -> None:
        w = where_text(where)
        arr = self._array(ptr, w, "reduce_shadow")
        dtype = DTYPES.get(type_code)
        if dtype is None or np.dtype(dtype).itemsize != arr.elem_size:
            raise RuntimeFailure(w, f"reduce_shadow of '{arr.name}': its elements are not numbers",
                                 collective=True)
        ws = self._widths(arr, widths)
        key = ("reduce_shadow", None if ws is None else tuple(ws))
        steps = arr.reflect_plans.get(key)
        if steps is None:
            steps = arr.reflect_plans[key] = plan_reduce_shadow(arr, ws, self.cache, w)
        view = arr.bytes_view()
        pending = StepsPending([lambda s=s: _start_reduce_step(s, view, dtype) for s in steps
                                if s[0] == "sum" or s[2] or s[3]])
        if self.asyncs.active:
            self.asyncs.add(pending)
        else:
            pending.wait()
