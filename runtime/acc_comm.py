"""XMP directives with XcalableACC's ``acc`` clause (XcalableACC.md §4) on device copies:
``reflect``, ``reflect_init``/``reflect_do ... acc`` and the swap that ``bcast``/``reduction
... acc`` run their host collective through (xmpacc/passes/common/acc_comm.py says how they
are called).

``reflect_init ... acc`` plans the exchange once (the steps of reflect.py, and the
transport: NCCL between GPUs, host MPI on the host backend); ``reflect_do ... acc``
replays it on the device copy without planning or allocating again.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from .acc_push import Pushes
from .device_memory import DeviceCopy, DeviceMemory
from .errors import RuntimeFailure, where_text
from .fast_reflect import raw_widths
from .reflect import Width, planned_steps, prepare, reflect
from .replay import REFLECT_DO, offer_device_reflect, priority_stream, reflect_kind
from .shared import Shared

# the array of a reflect's descriptor, its widths and where (api.Runtime._reflect_args)
OVERLAP_BYTES = "XMPACC_OVERLAP_BYTES"
# Below this many bytes of an array's local block (owned elements and shadows) an
# overlapped reflect exchanges at once and its loop is one launch: the interior of a
# smaller block takes less time than the exchange it would hide and the two extra launches
# cost (two H200s: a Laplace sweep of 1024^2, 4 MiB a GPU, ran 40 % slower overlapped;
# 4096^2, 64 MiB, 8 % faster; docs/performance.md).
OVERLAP_DEFAULT = 16 << 20


def overlap_min_bytes() -> int:
    """The block size from which an overlapped reflect overlaps (``XMPACC_OVERLAP_BYTES``:
    0 always, a large number never)."""
    value = os.environ.get(OVERLAP_BYTES, "")
    return int(value) if value.isdigit() else OVERLAP_DEFAULT

ReflectArgs = Callable[[int, bytes, int | None], tuple[Any, list[Width] | None, str]]


class AccComm:
    """The ``acc`` clause of reflect, bcast and reduction (a concern of ``api.Runtime``):
    the planned ``reflect_init ... acc`` by descriptor, on the device copies of ``device``;
    ``reflect_args`` reads a reflect's arguments as the host reflect does."""

    def __init__(self, shared: Shared, device: DeviceMemory, reflect_args: ReflectArgs) -> None:
        self.shared, self.device, self.reflect_args = shared, device, reflect_args
        # descriptor -> widths, orthogonal
        self.reflects: dict[int, tuple[list[Width] | None, bool]] = {}
        self.exchange: tuple[Any, Any, Any] | None = None   # overlapped reflects: stream, two events
        self.held: list[tuple[int, bytes, int | None, int]] = []   # and on the host backend, until the join
        self.overlap_min_bytes = overlap_min_bytes()
        self.pushes = Pushes(device, shared)   # sites whose kernels make the exchange (acc_push.py)

    def _device_copy_of(self, key: int, name: str, where: str, what: str) -> DeviceCopy:
        copy = self.device.copies.get(key or 0)
        if copy is None:
            raise RuntimeFailure(where, f"'{what} ... acc' of '{name}', which is not present on the device "
                                        f"(no acc data, enter data, declare or acc replicate holds it)")
        return copy

    def _xmpacc_acc_swap(self, where: bytes, key: int, size: int, name: bytes) -> None:
        """Exchange the host and the device copy of a variable (bcast/reduction ... acc run
        between two swaps: on the device values, the host's put back afterwards)."""
        w = where_text(where)
        copy = self._device_copy_of(key, name.decode(), w, "bcast/reduction")
        self.device.backend.wait()
        self._swap(copy)

    def _xmpacc_acc_swap_reduced(self, where: bytes, key: int, size: int, name: bytes, required: int) -> None:
        """The swap around an XMP loop's reduction calls where the loop has an OpenACC
        construct (passes/common/acc_comm.py): the construct's reduction left the node's result
        in the device copies that hold the variable (acc.py, acc_arrays.py), so the XMP
        reduction combines those; a variable on no device copy has it in the host
        variable, and is left alone unless the loop says ``acc`` (XcalableACC.md §4)."""
        held = [c for c in self.device.copies.values()
                if c.parent is None and not c.desc_ptr and c.host_addr < key + size
                and key < c.host_addr + c.nbytes]
        if not held and required:
            raise RuntimeFailure(where_text(where), f"'loop ... reduction(...) acc' of '{name.decode()}', "
                                                    "which is not present on the device (no acc data, enter "
                                                    "data, declare or data clause of the construct holds it)")
        if held:
            self.device.backend.wait()
        elif self.shared.replay is not None:   # nothing held: the C side does nothing the next times
            self.shared.replay.offer_swap(key, size)
        for copy in held:
            self._swap(copy)

    def _swap(self, copy: DeviceCopy) -> None:
        if not copy.nbytes:
            return
        saved = np.empty(copy.nbytes, np.uint8)
        ctypes.memmove(saved.ctypes.data, copy.host_addr, copy.nbytes)
        self.device.backend.copy_out(copy.buffer, copy.host_addr, copy.nbytes)
        self.device.backend.copy_in(copy.buffer, int(saved.ctypes.data), copy.nbytes)

    def _xmpacc_reflect_acc(self, ptr: int, where: bytes, widths: int | None) -> None:
        self._reflect_widths(ptr, where, widths, False)

    def _xmpacc_reflect_init_acc(self, ptr: int, where: bytes, widths: int | None, orthogonal: int) -> None:
        arr, ws, w = self.reflect_args(ptr, where, widths)
        transport = self.device.device_transport()   # collective, made once
        copy = self.device.copies.get(ptr)   # absent: reflect_do says so
        view = None if copy is None else self.device.device_view(copy, arr)
        prepare(arr, ws, self.shared.cache, w, view, transport, bool(orthogonal))
        self.reflects[ptr] = (ws, bool(orthogonal))
        if self.shared.replay is not None:   # planned again: reflect_do's C plan is stale
            self.shared.replay.forget_reflect(ptr, (REFLECT_DO,))

    def _xmpacc_reflect_do_acc(self, ptr: int, where: bytes) -> None:
        arr, _, w = self.reflect_args(ptr, where, None)
        if ptr not in self.reflects:
            raise RuntimeFailure(w, f"reflect_do ... acc of '{arr.name}' before its reflect_init ... acc",
                                 collective=True)
        ws, orthogonal = self.reflects[ptr]
        self._reflect_device(arr, ptr, ws, w, "reflect_do", orthogonal, (REFLECT_DO, None))

    def _xmpacc_reflect_orthogonal_acc(self, ptr: int, where: bytes, widths: int | None) -> None:
        self._reflect_widths(ptr, where, widths, True)

    def _xmpacc_reflect_acc_overlap(self, ptr: int, where: bytes, widths: int | None,
                                    orthogonal: int, push: int | None = None) -> None:
        """A reflect ... acc that the next loop's interior may overlap, here where C had no
        plan for it: on a GPU a blocking one (the join then has nothing to wait for); the
        host backend holds it back until the join, as C does (include/xmpacc_replay.h), so
        that a loop that read a shadow slot in its interior would see the old value.  C's
        later calls run the exchange on the exchange stream, or, where ``push`` (the
        site's _xmpacc_push_t) was planned after the first call, leave it to the kernel."""
        replay = self.shared.replay
        if push and self.pushes.call(push, ptr):
            return
        arr, ws, _ = self.reflect_args(ptr, where, widths)
        if replay is not None and self.device.backend.name != "cuda" \
                and arr.buffer.nbytes >= self.overlap_min_bytes:
            self.held.append((ptr, where, widths, orthogonal))
            replay.hold_overlaps(True)
            return
        self._join_overlap()
        self._reflect_widths(ptr, where, widths, bool(orthogonal))
        if push and self.device.backend.name == "cuda":
            copy = self.device.copies[ptr]
            self.pushes.plan(push, ptr, arr, ws, bool(orthogonal), self.device.device_view(copy, arr),
                             self.device.device_transport())
        self._exchange_stream()

    def _xmpacc_reflect_acc_split(self, where: bytes) -> int:
        """Whether an exchange is still in flight, so that the loop runs as interior, rim and
        join (1), or every exchange was made (0: one launch).  Python's exchanges on a GPU
        are made at once; the host backend's held ones wait for the rim."""
        replay = self.shared.replay
        return int(bool(self.held) or (replay is not None and replay.overlap_open()))

    def _xmpacc_reflect_acc_rim(self, where: bytes) -> None:
        self._join_overlap()

    def _xmpacc_reflect_acc_join(self, where: bytes) -> None:
        self._join_overlap()

    def _join_overlap(self) -> None:
        """The exchanges held back for the join (the host backend), or, where C started one
        and could not order the compute stream after it, a wait for the whole device."""
        replay = self.shared.replay
        if replay is None:
            return
        held, self.held = self.held, []
        replay.hold_overlaps(False)
        for ptr, at, widths, orthogonal in held:
            self._reflect_widths(ptr, at, widths, bool(orthogonal))
        if replay.overlap_open():
            self.device.backend.wait_all()
            replay.overlap_closed()

    def _exchange_stream(self) -> None:
        """The stream C runs overlapped exchanges on (made once, with NCCL between GPUs):
        non-blocking, so that it never waits for the compute stream unless told, and of the
        highest priority, so that NCCL's blocks are dispatched before the interior kernel's
        that wait beside them.  Made through the driver (replay.priority_stream): a CuPy
        without stream priorities would give it the default one."""
        replay = self.shared.replay
        if replay is None or self.exchange is not None or self.device.backend.name != "cuda" \
                or self.device.device_transport().name != "nccl":
            return
        stream = priority_stream()
        if not stream:
            return   # no driver: the exchanges stay blocking, on the compute stream
        cuda = self.device.backend.cupy.cuda
        events = [cuda.Event(block=False, disable_timing=True) for _ in range(2)]
        self.exchange = (stream, *events)
        replay.set_exchange_stream(stream, events[0].ptr, events[1].ptr)

    def _reflect_widths(self, ptr: int, where: bytes, widths: int | None, orthogonal: bool) -> None:
        """reflect ... acc with the declared widths or explicit ones; the later calls with
        the same widths (the bytes the call passes) run in C (replay.py)."""
        arr, ws, w = self.reflect_args(ptr, where, widths)
        raw = raw_widths(ws, widths)
        self._reflect_device(arr, ptr, ws, w, "reflect", orthogonal, (reflect_kind(orthogonal, raw), raw))

    def _reflect_device(self, arr: Any, ptr: int, ws: list[Width] | None, w: str, what: str,
                        orthogonal: bool, replayed: tuple[int, bytes | None]) -> None:
        """The host reflect's slabs (orthogonal: without corners) on the device copy; its
        later calls of the same kind of replay.py and widths (``replayed``: the kind and the
        widths as the call passed them; reflect_do's are reflect_init's) run in C."""
        copy = self._device_copy_of(ptr, arr.name, w, what)
        view = self.device.device_view(copy, arr)
        transport = self.device.device_transport()
        reflect(arr, ws, self.shared.cache, w, self.shared.stats, view, transport, orthogonal=orthogonal)
        replay, (kind, raw) = self.shared.replay, replayed
        if replay is not None and not self.shared.asyncs.active and not replay.has_reflect(ptr, kind, raw):
            # the steps reflect() planned: reflect_plans' key
            steps = planned_steps(arr, ws, orthogonal)
            offer_device_reflect(replay, ptr, (kind, raw), steps, arr, view, transport)
