"""Kernel launches: ``loop ... acc`` and the OpenACC compute constructs call
``_xmpacc_launch``, and the reductions of a launch reach their variables at once or, when
deferred, at ``_xmpacc_acc_reductions_wait`` (deferred.py).

A launch's parameters are device copies of the present table (device_memory.py), values,
and buffers made here for its reductions and private arrays.  ``Kernels`` is the concern
of ``api.Runtime`` that owns the prepared launches and the deferred results.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .acc_arrays import ArrayTemporary, temporary
from .acc_locations import LocatedPartials, pick, restart
from .acc_push import PushStruct
from .arrays import read_longs
from .collectives import DTYPES, view
from .contract import (
    LAUNCH_ARRED,
    LAUNCH_DEVBUF,
    LAUNCH_DEVDESC,
    LAUNCH_GRID2,
    LAUNCH_LANES,
    LAUNCH_LOCATED,
    LAUNCH_LOCFIELD,
    LAUNCH_PUSH,
    LAUNCH_REDUCTION,
    LAUNCH_SCRATCH,
    LAUNCH_VALUE,
    LOCATED_IN_PARTS,
    REDUCTION_TO_HOST,
)
from .cstructs import CSched
from .deferred import Deferred
from .device import grid_pad
from .device_memory import DeviceCopy, DeviceMemory
from .device_results import EmptyResult, PresentResult
from .errors import RuntimeFailure, where_text
from .replay_locations import located_records
from .shared import Shared

_INT64 = 11   # _XMPACC_TYPE of long long


@dataclass(frozen=True)
class KernelKinds:
    """What a kernel's parameters are (static per kernel: read once)."""

    kinds: list[list[int]]
    has_lanes: bool
    grid2_sched: int | None   # parameter index of the innermost schedule, for 2-D grids
    rows: int = 1             # threads per block along y the compiler asks for (2-D grids)
    scratch: tuple[int, ...] = ()   # indices of LAUNCH_SCRATCH parameters (bytes per thread at the address)
    per_queue: bool = False   # buffers of its own per launch (partials, private arrays): one per queue
    push: int | None = None   # index of its LAUNCH_PUSH parameter (acc_push.py)


def _kinds(kinds: int, nparams: int) -> KernelKinds:
    flat = list((ctypes.c_longlong * (3 * nparams)).from_address(kinds))
    k3 = [flat[3 * i: 3 * i + 3] for i in range(nparams)]
    grid2 = next((i + k[1] for i, k in enumerate(k3) if k[0] == LAUNCH_GRID2), None)
    rows = next((k[2] for k in k3 if k[0] == LAUNCH_GRID2), 1)
    scratch = tuple(i for i, k in enumerate(k3) if k[0] == LAUNCH_SCRATCH)
    own = any(k[0] in (LAUNCH_REDUCTION, LAUNCH_LOCATED, LAUNCH_SCRATCH) for k in k3)
    push = next((i for i, k in enumerate(k3) if k[0] == LAUNCH_PUSH), None)
    return KernelKinds(k3, any(k[0] == LAUNCH_LANES for k in k3), grid2, max(rows, 1), scratch, own, push)


@dataclass
class Launch:
    """A prepared launch: the parameter array and what keeps its pointers alive."""

    params: Any
    holders: list[Any]
    reductions: list[Any]     # backend.result of each (device_results.py), made once per launch
    shape: Any                # backend's LaunchShape
    lanes: int
    located: list[LocatedPartials] = field(default_factory=list)   # reductions with location variables
    arrays: list[ArrayTemporary] = field(default_factory=list)     # reductions of arrays and sections


class Kernels:
    """The launches prepared per call site and per kernel, and the launches' deferred
    results (deferred.py), which the XMP reductions (reductions.py) and the collectives on
    device copies (acc_collectives.py) are given too."""

    def __init__(self, shared: Shared, device: DeviceMemory) -> None:
        self.shared, self.device = shared, device
        self.launch_cache: dict[tuple[Any, ...], Launch] = {}
        self.kernel_kinds: dict[bytes, KernelKinds] = {}
        self.deferred = Deferred()

    @property
    def backend(self) -> Any:
        return self.device.backend

    def _xmpacc_launch(self, where: bytes, kernel: bytes, total: int, nthreads: int, nparams: int,
                       args: int, kinds: int) -> None:
        """Run one ``loop ... acc``.  Its parameter array is prepared once per call site
        (same kernel, argument addresses, iteration counts and device copies) and replayed,
        so a launch costs little more than the driver call."""
        self.shared.count("kernel_launches")
        defer = self.deferred.next
        self.deferred.next = False
        info = self.kernel_kinds.get(kernel)
        if info is None:
            info = self.kernel_kinds[kernel] = _kinds(kinds, nparams)
        pushing = total <= 0 and info.push is not None and self._pushing(info.push, args)
        if total <= 0 and not pushing:   # no iterations here (a distributed loop's range misses the block)
            if defer:
                self._defer_unchanged(where, info, args, nparams)
            return
        raw = ctypes.string_at(args, 8 * nparams)
        inner = pad = 0
        if info.grid2_sched is not None:  # the innermost loop's count shapes a 2-D grid
            s = CSched.from_address(int.from_bytes(raw[8 * info.grid2_sched: 8 * info.grid2_sched + 8],
                                                   "little"))
            inner, pad = s.count, grid_pad(s.first, s.step)
        # the private arrays' sizes are values (the same address may hold another size)
        sizes = tuple(read_longs(int.from_bytes(raw[8 * i: 8 * i + 8], "little"), 1)[0]
                      for i in info.scratch) if info.scratch else ()
        # a launch's partials and private arrays are its plan's: one per queue (stream), so
        # that the same site launched on two queues at once does not share them
        stream = self.backend.stream_ptr() if info.per_queue else 0
        key = (kernel, raw, total, inner, pad, nthreads, self.device.generation, sizes, stream)
        prepared = self.launch_cache.get(key)
        if prepared is None:
            if len(self.launch_cache) > 512:
                self.backend.wait_all()   # no reduction still reads the partials freed here
                self.launch_cache.clear()
            prepared = self.launch_cache[key] = self._prepare(where, info, max(total, 1), (inner, pad),
                                                              nthreads, args, nparams)
        if prepared.reductions and self.deferred.holds_any(prepared.reductions):
            # its partials and result buffers are about to be rewritten
            self._xmpacc_acc_reductions_wait(where)
        for temp in prepared.arrays:
            temp.copy_in(where_text(where), self._present_section)
        for r in prepared.reductions:
            r.before_launch()
        earlier = [restart(rec) for rec in prepared.located]   # margin / peel_and_wait: a launch per part
        self.backend.launch(kernel.decode(), prepared.shape, prepared.params,
                            where_text(where), prepared.lanes)
        replay = self.shared.replay
        located = located_records(self.backend, prepared.located) \
            if replay is not None and prepared.located else None
        on_host = (prepared.located and located is None) or prepared.arrays \
            or not all(hasattr(r, "c") for r in prepared.reductions)
        if replay is not None and not on_host:
            # the C side repeats it (replay.py), its scalar reductions by their records, its
            # location records picked in C (replay_locations.py)
            replay.offer_launch(self.backend, kernel.decode(), where_text(where), prepared, info, total,
                                nthreads, nparams, args, (inner, pad), located)
        for r in prepared.reductions:
            r.start()
        if defer:
            self.deferred.add(prepared.reductions)
        else:
            self._combine(prepared.reductions)
        if prepared.located or any(temp.to_host for temp in prepared.arrays):
            # never deferred: the XMP reduction over the nodes, or the host, reads them next
            self.backend.wait()
            for rec, before in zip(prepared.located, earlier, strict=True):
                pick(rec, self.backend.xp, before)
            for temp in prepared.arrays:
                temp.copy_out()

    def _pushing(self, at: int, args: int) -> bool:
        """Whether a kernel with no iterations here makes a reflect's exchange all the same
        (acc_push.py): it is launched (its threads have no iteration), stores this node's
        rows and waits for the neighbours', who wait for its rows."""
        push = (ctypes.c_void_p * (at + 1)).from_address(args)[at] or 0
        return bool(push) and bool(PushStruct.from_address(push).active)

    def _xmpacc_acc_defer_reductions(self) -> None:
        """The next launch (a compute construct with reductions, passes/gpu/acc_reduction_wait.py)
        leaves its result on the device: the host goes on launching the statements after
        it that do not use the reduction variables, and waits at
        ``_xmpacc_acc_reductions_wait``, which the compiler puts before the first statement
        that does.  In a time loop the next kernel is then queued before the host waits, so
        the device does not idle while the host combines the result and prepares it."""
        self.deferred.next = True

    def _defer_unchanged(self, where: bytes, info: KernelKinds, args: int, nparams: int) -> None:
        """A deferred launch without iterations here: its scalar reductions are pending
        (EmptyResult) as on the nodes that launched it, so that what follows takes the
        same path on every node."""
        w = where_text(where)
        arg_list = list((ctypes.c_void_p * nparams).from_address(args))
        for i, (kind, type_code, code) in enumerate(info.kinds):
            addr = arg_list[i] or 0
            if kind != LAUNCH_REDUCTION or not addr or self._present_copy(addr, code) is not None:
                continue   # a present variable's result is never pending
            if self.deferred.has(addr):
                self._xmpacc_acc_reductions_wait(where)   # as a relaunch of a pending launch does
            empty = EmptyResult(self.backend, view(addr, 1, type_code, w), code % REDUCTION_TO_HOST)
            self.deferred.add([empty])

    def _xmpacc_acc_reductions_discard(self, data: int) -> None:
        """The host stores into the variable at ``data`` before it reads it again
        (passes/gpu/acc_reduction_wait.py: the next iteration's ``gosa = 0`` at the top of a
        loop body): its deferred result is not needed, and the host does not wait for it.
        What was queued for it on the device goes on.  An XMP reduction that would run on
        the host at the wait (MPI: the host backend, operators NCCL lacks) is collective,
        so then the host waits as before."""
        if not self.deferred.has(data):
            return
        if self.deferred.has_after():
            self._xmpacc_acc_reductions_wait(b"")
            return
        self.deferred.discard(data)

    def _xmpacc_acc_reductions_wait(self, where: bytes) -> None:
        pending, after = self.deferred.take()
        self._combine(pending)
        for run in after:   # e.g. the XMP reduction of the same variable over the nodes
            run()

    def _combine(self, reductions: list[Any]) -> None:
        """Each host variable op= its reduction, once its kernel has finished (on a GPU:
        the reduction queued behind the kernel, not the kernels queued after it)."""
        for r in reductions:
            r.finish()

    def _prepare(self, where: bytes, info: KernelKinds, total: int, inner: tuple[int, int], nthreads: int,
                 args: int, nparams: int) -> Launch:
        """``inner``: the innermost loop's count and the grid's padding (2-D grids)."""
        w = where_text(where)
        backend = self.device.need_backend(w)
        if nthreads < 0 or nthreads > 1024:
            raise RuntimeFailure(w, f"too many threads are requested for GPU: {nthreads} per block (1..1024)"
                                 if nthreads > 0 else f"num_threads must be positive, got {nthreads}")
        arg_list = list((ctypes.c_void_p * nparams).from_address(args))
        lanes = backend.lanes(total, nthreads) if info.has_lanes else 1
        count, pad = inner if info.grid2_sched is not None else (0, 0)
        shape = backend.shape(total * lanes, nthreads, lanes, count, info.rows, pad)
        launch = Launch((ctypes.c_void_p * nparams)(), [], [], shape, lanes)
        in_parts: list[tuple[LocatedPartials, int]] = []
        for i, (kind, a, b) in enumerate(info.kinds):
            if kind == LAUNCH_PUSH:   # by value, as LAUNCH_VALUE (acc_push.py)
                launch.params[i] = arg_list[i]
            elif kind in (LAUNCH_LANES, LAUNCH_GRID2):
                holder = ctypes.c_int(lanes if kind == LAUNCH_LANES else int(shape.grid2))
                launch.holders.append(holder)
                launch.params[i] = ctypes.addressof(holder)
            elif kind == LAUNCH_REDUCTION:
                launch.params[i] = self._partials(a, shape.partials, launch.holders, w)
                launch.reductions.append(self._scalar_result(arg_list[i] or 0, a, b, launch.holders[-2], w))
            elif kind == LAUNCH_LOCATED:   # a keys per record; its LAUNCH_LOCFIELDs follow
                launch.params[i] = self._partials(_INT64, shape.partials * a, launch.holders, w)
                launch.located.append(LocatedPartials(launch.holders[-2].reshape(shape.partials, a),
                                                      view(arg_list[i] or 0, a, _INT64, w),
                                                      b % LOCATED_IN_PARTS))
                if b & LOCATED_IN_PARTS:   # the tail's length counts the fields: made below
                    in_parts.append((launch.located[-1], (arg_list[i] or 0) + 8 * a))
            elif kind == LAUNCH_LOCFIELD:
                launch.params[i] = self._partials(a, shape.partials, launch.holders, w)
                launch.located[-1].fields.append((view(arg_list[i] or 0, 1, a, w), launch.holders[-2]))
            elif kind == LAUNCH_ARRED:
                launch.params[i] = self._array_temporary(arg_list[i] or 0, a, launch, w)
            elif kind == LAUNCH_SCRATCH:
                launch.params[i] = self._private_arrays(read_longs(arg_list[i], 1)[0],
                                                        shape, launch.holders, w)
            else:
                launch.params[i] = self._param(kind, arg_list[i], launch.holders, w)
        for rec, tail in in_parts:   # the launches so far, a word per field (acc_locations.py)
            rec.tail = view(tail, 1 + len(rec.fields), _INT64, w)
        return launch

    def _private_arrays(self, nbytes: int, shape: Any, holders: list[Any], where: str) -> int:
        """Each thread's private array of ``nbytes`` (passes/kernel/kernel_private.py): a slot per
        thread id of the launch; holders keep the buffer until the launch is done."""
        slots = self.backend.scratch_slots(shape)
        return self._held(self.backend.alloc(max(nbytes, 1) * slots, "private arrays of an acc loop", where),
                          holders)

    def _scalar_result(self, addr: int, type_code: int, code: int, partials: Any, where: str) -> Any:
        """How a scalar reduction of a launch reaches its variable (device_results.py): the
        host variable, or (an OpenACC construct's) the device copy where it is present."""
        op = code % REDUCTION_TO_HOST
        host = view(addr, 1, type_code, where)
        copy = self._present_copy(addr, code)
        if copy is None:
            return self.backend.result(host, partials, op, type_code, where)
        scratch = np.zeros(1, host.dtype)
        start = addr - copy.host_addr
        return PresentResult(self.backend, copy.buffer[start:start + host.nbytes], scratch,
                             self.backend.result(scratch, partials, op, type_code, where))

    def _present_copy(self, addr: int, code: int) -> DeviceCopy | None:
        """The device copy that a scalar reduction (``code``: operator and flags) goes
        into, or None where it goes to the host variable."""
        copy = self.device.copy_holding(addr) if addr and not code & REDUCTION_TO_HOST else None
        return None if copy is None or copy.desc_ptr else copy

    def _array_temporary(self, desc: int, type_code: int, launch: Launch, where: str) -> int:
        """A reduction array (acc_arrays.py) as a kernel parameter: the address of its
        holder, which each launch points at the temporary or the present device copy."""
        temp = temporary(self.backend, desc, type_code, where)
        launch.arrays.append(temp)
        return ctypes.addressof(temp.holder)

    def _present_section(self, addr: int, nbytes: int, to_host: bool, where: str) -> int | None:
        """The device address of the host bytes [addr, addr + nbytes) of a reduction array
        where a device copy holds them, else None (acc_arrays.py; always None for XMP-ACC's
        ``loop ... acc``, whose results go to the host arrays)."""
        copy = None if to_host else self.device.copy_holding(addr)
        if copy is None:
            return None
        if addr + nbytes > copy.host_addr + copy.nbytes or copy.desc_ptr:
            what = "a distributed array's" if copy.desc_ptr else "only partly"
            raise RuntimeFailure(where, f"a reduction array of this acc loop is {what} on the device "
                                        f"('{copy.name}'): its reduced elements must all be present, or none")
        return self.backend.ptr(copy.buffer) + (addr - copy.host_addr)

    def _param(self, kind: int, arg: int, holders: list[Any], where: str) -> int:
        if kind == LAUNCH_VALUE:
            return arg
        if kind not in (LAUNCH_DEVBUF, LAUNCH_DEVDESC):
            raise RuntimeFailure(where, f"bad kernel parameter kind {kind}")
        copy = self.device.copies.get(arg)
        if copy is None:
            raise RuntimeFailure(where, "a variable of this acc loop has no device copy")
        if kind == LAUNCH_DEVDESC:
            return copy.desc_ptr   # by value: the address of the descriptor itself
        holder = ctypes.c_void_p(self.backend.ptr(copy.buffer))
        holders.append(holder)
        return ctypes.addressof(holder)

    def _partials(self, type_code: int, count: int, holders: list[Any], where: str) -> int:
        """A fresh buffer for ``count`` partial results; holders gets [view, pointer]."""
        dtype = DTYPES.get(type_code)
        if dtype is None:
            raise RuntimeFailure(where, "unsupported type of a reduction variable in an acc loop")
        buf = self.backend.alloc(max(count, 1) * np.dtype(dtype).itemsize, "reduction partials", where)
        return self._held(buf, holders, self.backend.view(buf, dtype, count))

    def _held(self, buf: Any, holders: list[Any], *keep: Any) -> int:
        """A kernel parameter pointing at ``buf``: holders gets [buf, *keep, pointer] (they
        live as long as the prepared launch), and the pointer's address is returned."""
        holder = ctypes.c_void_p(self.backend.ptr(buf))
        holders += [buf, *keep, holder]
        return ctypes.addressof(holder)
