"""reflect's steady state without Python: persistent requests started from C.

A ``reflect (a)`` runs every time step, and through the general path (reflect.py) each
call crosses from C into Python (ctypes), looks up the plan and builds its requests:
about 10-15 us even with no neighbour, more than the exchange itself for small shadows.
After the second general reflect of an array the runtime binds each step of its plan to
MPI persistent requests on the array's own buffer (a contiguous slab as bytes, any other
through an MPI subarray type: nothing is packed) and hands them to the program's glue
(include/xmpacc_fast.h, ``_xmpacc_fast_reflect_set``); a full shadow's all-gather is such
a step too (transport.py ``gather_pairs``).  Later calls of ``_xmpacc_reflect``
(and ``_xmpacc_reflect_orthogonal``) for that descriptor run in C: ``MPI_Startall`` and
``MPI_Waitall`` per step, through the function pointers of the MPI library that mpi4py
uses.  The runtime keeps owning MPI: initialisation, communicators, plans, freeing.

Each kind of reflect (declared or explicit widths, orthogonal or not) has a table of its
own in C, with a chain of plans per array: one per set of widths (``width(1:0,
/periodic/1)``), compared with the call's widths in C.  Under ``async (id)`` the same
requests stay in flight until ``wait_async`` (fast_async.py).  The general path keeps what
the fast path does not cover: full shadows, checked runs (every call is seen there).  A
plan is dropped when its array is released or aligned again, and the C side also
compares the descriptor's buffer with the one the requests were bound to.

``FastReflect`` is the runtime's concern for all this, made by api.Runtime and owning
its state: the plans, the library once the launcher started it, the glue's async side
(``fast_async``) and its pause flag.  The others hold it or its methods: the runtime
(``offer`` after a reflect, ``forget`` at an align, ``pause`` at async), dynamic.py
(``forget``, at a release) and shadows.py (``offer``, after an orthogonal reflect); the
launcher starts it and folds its counters into XMPACC_STATS at the end.
"""

from __future__ import annotations

import ctypes
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .arrays import DistArray
from .errors import InternalError
from .fast_async import FastAsync
from .reflect import active_step, planned_steps
from .shared import Shared

_MAXDIM = 7
WIDTH_SETS = 4   # plans kept per array and kind reflected with explicit widths
# kinds of reflect, one C table each: 2 * orthogonal + (explicit widths)
KINDS = 4


class CFastReflect(ctypes.Structure):
    """_xmpacc_fast_reflect_t of templates/glue.c.j2."""

    _fields_ = [("base", ctypes.c_void_p), ("nrounds", ctypes.c_int), ("count", ctypes.c_int * _MAXDIM),
                ("requests", ctypes.c_void_p * _MAXDIM), ("statuses", ctypes.c_void_p),
                ("startall", ctypes.c_void_p), ("waitall", ctypes.c_void_p), ("calls", ctypes.c_longlong),
                ("bytes", ctypes.c_longlong), ("nwidths", ctypes.c_int), ("widths", ctypes.c_void_p),
                ("next", ctypes.c_void_p), ("testall", ctypes.c_void_p), ("started", ctypes.c_int),
                ("async_calls", ctypes.c_longlong)]


@dataclass
class FastPlan:
    """One array's persistent requests and what keeps them valid."""

    c: CFastReflect
    requests: list[Any]                       # mpi4py Prequest objects
    keep: list[Any] = field(default_factory=list)
    sent: int = 0                             # bytes per call (runtime counters)
    received: int = 0
    widths: bytes | None = None               # explicit widths, as the call passes them
    orthogonal: bool = False
    retired: bool = False                     # dropped while in flight: freed once complete

    def free(self) -> None:
        for r in self.requests:
            r.Free()
        for k in self.keep:
            if hasattr(k, "Free") and not isinstance(k, np.ndarray):
                k.Free()
        self.requests, self.keep = [], []


def contiguous_offset(shape: list[int], starts: list[int], sizes: list[int]) -> int | None:
    """The flat offset of a box of a row-major array when its elements are one run, else
    None: the dimensions before the last partial one must have one index each."""
    if any(n == 0 for n in sizes):
        return 0
    partial = [d for d in range(len(sizes)) if sizes[d] != shape[d]]
    if partial and any(sizes[d] != 1 for d in range(partial[-1])):
        return None
    return int(np.ravel_multi_index(starts, shape))


def _message(view: np.ndarray, region: tuple[Any, ...], keep: list[Any]) -> tuple[list[Any], int] | None:
    """An MPI message naming the slab in place: bytes of a contiguous run, else a subarray."""
    from mpi4py import MPI

    if any(not isinstance(s, slice) for s in region):
        return None
    shape = list(view.shape)
    starts = [s.start for s in region] + [0]
    sizes = [max(s.stop - s.start, 0) for s in region] + [shape[-1]]
    nbytes = int(np.prod(sizes))
    flat = view.reshape(-1)
    offset = contiguous_offset(shape, starts, sizes)
    if offset is not None:
        return [flat[offset: offset + nbytes], MPI.BYTE], nbytes
    dtype = MPI.BYTE.Create_subarray(shape, sizes, starts).Commit()
    keep.append(dtype)
    return [flat, 1, dtype], nbytes


def raw_widths(widths: Any, ptr: int | None) -> bytes | None:
    """The explicit widths of a reflect as the call passes them (3 long longs each: what
    the C side compares), None for the declared ones."""
    return ctypes.string_at(ptr, 24 * len(widths)) if widths and ptr else None


def link_chain(chain: list[Any]) -> None:
    """Each plan's C ``next`` at the plan after it (the C side walks a site's plans so)."""
    for a, b in zip(chain, chain[1:] + [None], strict=True):
        a.c.next = ctypes.addressof(b.c) if b is not None else None


def mpi_functions(*names: str) -> tuple[int, ...] | None:
    """The addresses of MPI functions of the library mpi4py loaded (the C side calls them
    itself: this module, replay.py); None when the library lacks one."""
    from mpi4py import MPI

    try:
        mpi = ctypes.CDLL(MPI.__file__)
        return tuple(ctypes.cast(getattr(mpi, n), ctypes.c_void_p).value or 0 for n in names)
    except (AttributeError, OSError):
        return None


class FastReflect:
    """The fast reflect, a concern of api.Runtime: offers plans to the glue and keeps them in
    step.  Owns the program's library once ``start`` found the glue's side (``lib``; None
    before and in checked runs), each array's chains of plans by kind (``plans``), every
    plan not freed yet (``live``), the reflects seen once (``seen``), the glue's ``async``
    side (``fast_async``) and the flag that pauses the C side inside ``async``."""

    def __init__(self, shared: Shared) -> None:
        self.arrays, self.stats, self.asyncs = shared.arrays, shared.stats, shared.asyncs
        self.lib: ctypes.CDLL | None = None
        self.plans: dict[tuple[int, int], list[FastPlan]] = {}   # (descriptor, kind) -> plans, newest first
        self.live: dict[int, FastPlan] = {}   # every plan not freed yet, by its C structure's address
        # (descriptor, kind, widths) -> the array reflected once so, not planned yet
        self.seen: dict[tuple[int, int, bytes | None], DistArray] = {}
        self.mpi_calls: tuple[int, ...] = ()
        self.paused_flag: ctypes.c_int | None = None
        self.fast_async: FastAsync | None = None

    def start(self, lib: ctypes.CDLL) -> None:
        """Called by the launcher for plain and profiled runs (not checked ones)."""
        calls = mpi_functions("MPI_Startall", "MPI_Waitall", "MPI_Testall")
        if calls is None:
            return   # an MPI library without these symbols: the general path only
        self.mpi_calls = calls
        try:
            setter = lib._xmpacc_fast_reflect_set
            setter.argtypes, setter.restype = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p], ctypes.c_int
            self.paused_flag = ctypes.c_int.in_dll(lib, "_xmpacc_fast_paused")
            self.fast_async = FastAsync(lib, self.plan_at, self.release)
        except (AttributeError, OSError, ValueError):
            return   # an MPI library without these symbols: the general path only
        self.lib = lib
        self.asyncs.c_side = self.fast_async
        self.fast_async.start()

    def watch_pause(self, lib: ctypes.CDLL) -> None:
        """The glue's pause flag also when only the per-iteration calls run in C (replay.py):
        async pauses the C side's collectives too."""
        if self.paused_flag is None:
            self.paused_flag = ctypes.c_int.in_dll(lib, "_xmpacc_fast_paused")

    def pause(self, paused: bool) -> None:
        """Inside ``async`` every reflect, and every collective the C side could replay
        (replay.py), goes through the general path (non-blocking); where async_begin runs
        in C (fast_async.py), C sets the flag itself."""
        if self.paused_flag is not None:
            self.paused_flag.value = int(paused)

    def offer(self, ptr: int, arr: DistArray, widths: Any, widths_ptr: int | None,
              orthogonal: bool = False) -> None:
        """After a general reflect of ``arr`` (``widths`` as decoded, ``widths_ptr`` as the
        call passed them): its requests for the C side, from its second reflect on."""
        if self.lib is None or ptr not in self.arrays:
            return   # (a copy of a descriptor, in a structure passed by value: general path)
        raw = raw_widths(widths, widths_ptr)
        kind = 2 * orthogonal + (widths is not None)
        chain = self.plans.get((ptr, kind), [])
        if any(p.widths == raw for p in chain):
            return
        if self.seen.get((ptr, kind, raw)) is not arr:   # its first reflect: an array aligned anew at
            self.seen[(ptr, kind, raw)] = arr            # every call of a function, reflected once
            return                                       # there, never gets requests
        plan = planned_steps(arr, widths, orthogonal)
        if plan is None:
            return
        built = self._build(arr, [s for s in plan if active_step(s)])
        if built is None:
            return
        built.orthogonal = orthogonal
        if raw is not None:   # the C side compares the call's widths with these
            buffer = ctypes.create_string_buffer(raw, max(len(raw), 1))
            built.keep.append(buffer)
            built.widths, built.c.nwidths, built.c.widths = raw, len(raw) // 8, ctypes.addressof(buffer)
        self._register(self.lib, ptr, kind, [built] + chain)

    def _register(self, lib: ctypes.CDLL, ptr: int, kind: int, chain: list[FastPlan]) -> None:
        """A kind of reflect of one array: its chain of plans, one per set of widths
        (WIDTH_SETS kept, the newest first)."""
        kept, dropped = chain[:WIDTH_SETS], chain[WIDTH_SETS:]
        link_chain(kept)
        if lib._xmpacc_fast_reflect_set(ptr, kind, ctypes.addressof(kept[0].c)):
            self.plans[(ptr, kind)] = kept
        else:   # the table is full: none of the array's plans of this kind stays
            lib._xmpacc_fast_reflect_set(ptr, kind, None)
            self.plans.pop((ptr, kind), None)
            dropped = chain
        for plan in dropped:
            self._retire(plan)

    def _build(self, arr: DistArray, steps: list[Any]) -> FastPlan | None:
        built = build_requests(arr.bytes_view(), int(arr.buffer.ctypes.data), steps, self.mpi_calls)
        if built is not None:
            self.live[ctypes.addressof(built.c)] = built
        return built

    def forget(self, ptr: int) -> None:
        """Descriptor ``ptr`` is released or aligned again: the C side drops its plans."""
        for key in [k for k in self.seen if k[0] == ptr]:
            del self.seen[key]
        for kind in range(KINDS):
            chain = self.plans.pop((ptr, kind), [])
            if chain and self.lib is not None:
                self.lib._xmpacc_fast_reflect_set(ptr, kind, None)
            for plan in chain:
                self._retire(plan)

    def _retire(self, plan: FastPlan) -> None:
        """A plan the C side no longer finds: freed now, or, while an async reflect has its
        requests in flight, once they complete (Python takes them over: fast_async.py)."""
        if not plan.c.started:
            self.release(plan)
            return
        plan.retired = True
        assert self.fast_async is not None
        for async_id in self.fast_async.ids_of(plan):
            self.asyncs.take_over(async_id)

    def release(self, plan: FastPlan) -> None:
        """Free ``plan`` (complete, and no longer in the C side's tables)."""
        self.live.pop(ctypes.addressof(plan.c), None)
        self._count(plan)
        plan.free()

    def plan_at(self, address: int) -> FastPlan:
        """The plan whose C structure is at ``address`` (fast_async.py)."""
        plan = self.live.get(address)
        if plan is None:
            raise InternalError(f"no reflect plan at {address:#x}")
        return plan

    def _count(self, plan: FastPlan) -> None:
        """Fold the calls the C side made into the runtime counters (XMPACC_STATS)."""
        calls, plan.c.calls = plan.c.calls, 0
        in_async, plan.c.async_calls = plan.c.async_calls, 0
        for key, n in (("reflect_bytes", calls * plan.sent), ("reflect_shadow_bytes", calls * plan.received),
                       ("reflect_fast_calls", calls), ("reflect_fast_async_calls", in_async),
                       ("reflect_fast_orthogonal_calls", calls if plan.orthogonal else 0)):
            if n:
                self.stats[key] = self.stats.get(key, 0) + n

    def fold(self) -> None:
        """The calls and async waits and tests the C side made so far, into the runtime
        counters (XMPACC_STATS, at the end of a run)."""
        for chain in self.plans.values():
            for plan in chain:
                self._count(plan)
        if self.fast_async is not None:
            self.fast_async.count(self.stats)


def request_handles(requests: list[Any]) -> Any:
    """mpi4py requests as the C side's MPI_Request array (in the MPI's handle size)."""
    from mpi4py import MPI

    size = MPI._sizeof(MPI.Request)
    handles = (ctypes.c_char * (size * max(len(requests), 1)))()
    mask = (1 << (8 * size)) - 1
    for i, r in enumerate(requests):
        raw = (MPI._handleof(r) & mask).to_bytes(size, sys.byteorder)
        ctypes.memmove(ctypes.addressof(handles) + i * size, raw, size)
    return handles


def build_requests(view: np.ndarray, base: int, steps: list[Any], calls: tuple[int, ...]) -> FastPlan | None:
    """The persistent requests of ``steps`` (exchanges of reflect.py) on the byte view of a
    buffer at ``base`` (an array's own, or the host backend's device copy of it, replay.py);
    ``calls``: MPI_Startall, MPI_Waitall and (async) MPI_Testall.  None when a slab cannot be
    named in place."""
    from mpi4py import MPI

    c = CFastReflect()
    c.base = base
    c.startall, c.waitall = calls[:2]
    if len(calls) > 2:   # MPI_Testall: async reflects (fast_async.py)
        c.testall = calls[2]
    plan = FastPlan(c, [], [view])
    most = 0
    for k, (_kind, comm, sends, recvs) in enumerate(steps):
        round_requests = []
        moved = [0, 0]   # bytes received, sent
        for way, (start, messages) in enumerate(((comm.Recv_init, recvs), (comm.Send_init, sends))):
            for peer, tag, region in messages:
                msg = _message(view, region, plan.keep)
                if msg is None:
                    plan.free()
                    return None
                round_requests.append(start(msg[0], peer, tag))   # (buf, source or dest, tag)
                moved[way] += msg[1]
        plan.received += moved[0]
        plan.sent += moved[1]
        handles = request_handles(round_requests)
        plan.keep.append(handles)
        plan.requests += round_requests
        c.count[k], c.requests[k] = len(round_requests), ctypes.addressof(handles)
        most = max(most, len(round_requests))
    c.nrounds = len(steps)
    c.bytes = plan.sent
    statuses = (ctypes.c_char * (MPI._sizeof(MPI.Status) * max(most, 1)))()
    plan.keep.append(statuses)
    c.statuses = ctypes.addressof(statuses)
    return plan
