"""The OpenACC async queues (XcalableACC.md §3): ``wait``, ``wait(devnum: ...)`` and the
queue a compute construct with ``async(n)`` runs on.

On GPUs queue n is a CUDA stream, made on first use; ``update`` and ``enter data`` with
``async`` copy whole variables on it (acc_data.py), and ``wait`` synchronises the streams.
The streams are blocking ones, so kernels on the default stream stay ordered after them.
``_xmpacc_acc_queue_begin`` makes queue n's stream the current one, so the construct's
kernels are launched there and the host goes on; ``_xmpacc_acc_queue_end`` restores the
stream before.  A queue's kernels run in order, ``acc wait`` synchronises it.  On the
host backend every operation completes in order when it is issued, which is what ordered
queues guarantee; ``wait`` then has nothing left to wait for.

The C side switches queues itself once Python has made their streams
(include/xmpacc_queues.h); ``_xmpacc_replay_sync`` brings CuPy's current stream and the
stack of constructs back in step before a call runs in Python.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

from .contract import ACC_SYNC
from .device import device_number, devices_text
from .device_memory import DeviceMemory
from .errors import RuntimeFailure, where_text
from .shared import Shared


def _queue_list(n: int, queues: int) -> list[int]:
    return list((ctypes.c_longlong * n).from_address(queues))


class Queues:
    """The streams of the async queues and the stack of the streams before each async
    construct (a concern of ``api.Runtime``)."""

    def __init__(self, shared: Shared, device: DeviceMemory) -> None:
        self.shared, self.device = shared, device
        self.streams: dict[int, Any] = {}   # async queue -> CUDA stream
        self.stack: list[Any] = []          # the streams before each async construct
        self.events: dict[int, Any] = {}    # async queue -> its event for acc waits on the device
        self.join_event: Any = None         # the compute stream's event for them
        self.host_moves: set[int] = set()   # queues whose async updates the host has not waited for
        # XMPACC_WAIT_ON_DEVICE=0: every acc wait blocks the host where it is written
        self.wait_on_host = os.environ.get("XMPACC_WAIT_ON_DEVICE", "1") == "0"

    def stream(self, queue: int) -> Any:
        """The CUDA stream of an async queue; None without async or on the host backend."""
        if queue == ACC_SYNC or self.device.backend.name != "cuda":
            return None
        stream = self.streams.get(queue)
        if stream is None:
            cuda = self.device.backend.cupy.cuda
            stream = self.streams[queue] = cuda.Stream(non_blocking=False)
            event = self.events[queue] = cuda.Event(block=False, disable_timing=True)
            if self.join_event is None:
                self.join_event = cuda.Event(block=False, disable_timing=True)
            if self.shared.replay is not None:   # acc wait in C waits for it too
                self.shared.replay.add_queue(queue, stream.ptr, event.ptr, self.join_event.ptr)
        return stream

    def moved_host(self, queue: int, moved: bool) -> None:
        """Queue ``queue`` has an async update or enter data since the host last waited
        for it (its next acc wait is the host's, as written), or, after that wait, not."""
        if moved:
            self.host_moves.add(queue)
        else:
            self.host_moves.discard(queue)
        if self.shared.replay is not None:
            self.shared.replay.queue_moved_host(queue, moved)

    def _wanted(self, n: int, queues: int) -> list[int]:
        """The queues of a wait (n = -1: every one made so far)."""
        return list(self.streams) if n < 0 else _queue_list(n, queues)

    def _has_moved_host(self, queue: int) -> bool:
        # an async update the C side replayed marks its queue there only
        replay = self.shared.replay
        return queue in self.host_moves or (replay is not None and replay.moved_host(queue))

    def done(self, n: int, queues: int) -> bool:
        """Have the queues (n = -1: every one) nothing in flight?"""
        wanted = self._wanted(n, queues)
        return all(self.streams[q].done for q in wanted if q in self.streams)

    def wait_all(self) -> None:
        self._xmpacc_acc_wait(b"", -1, 0)

    # ------------------------------------------------------------ entries
    def _xmpacc_acc_wait(self, where: bytes, n: int, queues: int) -> None:
        """``acc wait`` (n = -1: every queue) or ``wait(q...)``."""
        backend = self.device.backend
        if backend is None:
            return
        backend.wait()
        wanted = self._wanted(n, queues)
        for q in wanted:
            stream = self.streams.get(q)
            if stream is not None:
                stream.synchronize()
                self.moved_host(q, False)

    def _xmpacc_acc_wait_on_device(self, where: bytes, n: int, queues: int) -> None:
        """An ``acc wait`` the host may pass: the compiler saw only device work after it
        until the host's own wait (passes/gpu/acc_reduction_wait.py).  Every stream waits
        for the queues on the device instead (the compute stream for each queue's event,
        then every queue for the compute stream's), so what is queued next runs after
        them, as after the host's wait; the host goes on.  A queue that moved host memory
        since the host last waited for it is waited for by the host, as written
        (include/xmpacc_replay.h does the same in C)."""
        backend = self.device.backend
        if backend is None or backend.name != "cuda":
            return   # the host backend ran every kernel at its launch
        wanted = [q for q in self._wanted(n, queues) if q in self.streams]
        if self.wait_on_host or any(self._has_moved_host(q) for q in wanted):
            self._xmpacc_acc_wait(where, n, queues)
            return
        compute = backend.cupy.cuda.get_current_stream()
        for q in wanted:
            self.events[q].record(self.streams[q])
            compute.wait_event(self.events[q])
        if self.streams:
            self.join_event.record(compute)
            for stream in self.streams.values():
                stream.wait_event(self.join_event)
            backend.pending = where_text(where)   # the compute stream holds the queues' work
        stats = self.shared.stats
        stats["acc_waits_on_device"] = stats.get("acc_waits_on_device", 0) + 1

    def _xmpacc_acc_wait_devnum(self, where: bytes, devnum: int, n: int, queues: int) -> None:
        """``wait(devnum: d : q...)``.  A process queues work on its own device only, so on
        another device of the node there is nothing of its own to wait for."""
        backend = self.device.backend
        mine, count = device_number(backend) if backend is not None else (0, 1)
        if not 0 <= devnum < count:
            raise RuntimeFailure(where_text(where), f"wait(devnum: {devnum}): this node has "
                                                    f"{devices_text(count)}")
        if devnum == mine:
            self._xmpacc_acc_wait(where, n, queues)

    def _xmpacc_acc_queue_begin(self, where: bytes, queue: int) -> None:
        stream = self.stream(queue)
        previous = self.device.backend.cupy.cuda.get_current_stream() if stream is not None else None
        self.stack.append(previous)
        if stream is not None:
            stream.use()
            if self.shared.replay is not None:
                self.shared.replay.set_stream(stream.ptr)

    def _xmpacc_replay_sync(self) -> None:
        """Before a call runs in Python: the async queues the C side switched
        (include/xmpacc_queues.h) become CuPy's current streams as if begun here, and the
        ends of those constructs run here."""
        c = self.shared.replay.c
        streams = {int(s.ptr): s for s in self.streams.values()}
        depth = c.queue_depth
        for d in range(depth):
            if c.queue_switched[d]:
                self.stack.append(self.device.backend.cupy.cuda.get_current_stream())
                streams[(c.queue_saved[d + 1] if d + 1 < depth else c.stream) or 0].use()
            else:
                self.stack.append(None)
        c.queue_depth = c.dirty = 0

    def _xmpacc_acc_queue_end(self) -> None:
        previous = self.stack.pop() if self.stack else None
        if previous is not None:
            previous.use()
            if self.shared.replay is not None:
                self.shared.replay.set_stream(previous.ptr)
