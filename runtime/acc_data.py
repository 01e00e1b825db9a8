"""OpenACC data directives of XcalableACC (XcalableACC.md §1, §3): data regions, enter/exit
data, update, host_data and the wait queues.

The present table is ``AccRuntime.copies``, the one ``acc replicate`` fills, so the two
dialects mix both ways: a variable replicated by ``acc replicate`` is present for OpenACC
and the reverse.  Each ``DeviceCopy`` counts its references (OpenACC 2.5): ``refs`` for
structured ones (data regions, ``acc replicate``), ``dynamic`` for ``enter data``.  A
data clause on a present variable only counts; the copy is freed (after ``copyout``)
when both counts reach 0.

A variable's key is its host address (a distributed array's: its descriptor, whose device
copy mirrors the local block with shadows); ``sizes[i]`` is its size in bytes, -1 for a
distributed array, -2 for a pointer (the size comes from its section).  ``secs[i]`` is
NULL (the whole variable) or a section (runtime/sections.py): global indices for a
distributed array, of which each node moves the elements it owns.

Queues (§3): on GPUs queue n is a CUDA stream, made on first use; ``update`` and
``enter data`` with ``async`` copy whole variables on it (sections, exit data and region
ends copy synchronously), and ``wait`` synchronises the streams.  The streams are
blocking ones, so kernels on the default stream stay ordered after them.  On the host
backend every operation completes in order when it is issued, which is what ordered
queues guarantee; ``wait`` then has nothing left to wait for.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

import numpy as np

from .acc import DeviceCopy, read_clause
from .contract import (
    ACC_COPY,
    ACC_COPYIN,
    ACC_COPYOUT,
    ACC_CREATE,
    ACC_DELETE,
    ACC_DEVICEPTR,
    ACC_PRESENT,
    ACC_SYNC,
)
from .device import device_number, devices_text
from .errors import RuntimeFailure, where_text
from .sections import Section, SectionError, check_section, local_view, numpy_index, read_section

_CLAUSE = {ACC_COPY: "copy", ACC_COPYIN: "copyin", ACC_COPYOUT: "copyout", ACC_CREATE: "create",
           ACC_PRESENT: "present", ACC_DELETE: "delete", ACC_DEVICEPTR: "deviceptr"}


class DataItem:
    """One variable of a data clause, read from the arrays generated code passes."""

    def __init__(self, key: int, size: int, name: str, kind: int, sec: Section | None) -> None:
        self.key, self.size, self.name, self.kind, self.sec = key, size, name, kind, sec


def _items(n: int, keys: int, sizes: int, names: int, kinds: int, secs: int) -> list[DataItem]:
    kind_list = list((ctypes.c_longlong * n).from_address(kinds)) if n else []
    sec_list = list((ctypes.c_void_p * n).from_address(secs)) if secs else [None] * n
    return [DataItem(k, s, nm, kd, read_section(p) if p else None)
            for (k, s, nm), kd, p in zip(read_clause(n, keys, sizes, names), kind_list,
                                         sec_list, strict=True)]


class AccDataRuntime:
    """Mixed into ``api.Runtime`` after ``AccRuntime`` (whose state it uses)."""

    backend: Any
    copies: dict[int, DeviceCopy]
    present_lock: Any
    arrays: dict[int, Any]
    stats: dict[str, int]
    generation: int
    replay: Any

    def _acc_data_init(self) -> None:
        self.data_regions: dict[int, list[DataItem]] = {}
        self.next_data_region = 1
        self.queues: dict[int, Any] = {}    # async queue -> CUDA stream
        self.queue_events: dict[int, Any] = {}   # async queue -> its event for acc waits on the device
        self.join_event: Any = None         # the compute stream's event for them
        self.moved_host: set[int] = set()   # queues whose async updates the host has not waited for
        # XMPACC_WAIT_ON_DEVICE=0: every acc wait blocks the host where it is written
        self.wait_on_host = os.environ.get("XMPACC_WAIT_ON_DEVICE", "1") == "0"

    # ------------------------------------------------------------ entries
    def _xmpacc_acc_data_begin(self, where: bytes, n: int, keys: int, sizes: int, names: int, kinds: int,
                               secs: int, cond: int) -> int:
        if not cond:
            return 0
        w = where_text(where)
        self._need_backend(w)  # type: ignore[attr-defined]
        items = _items(n, keys, sizes, names, kinds, secs)
        for item in items:
            if item.kind != ACC_DEVICEPTR:
                self._attach(item, w, dynamic=False)
        region = self.next_data_region
        self.next_data_region += 1
        self.data_regions[region] = items
        return region

    def _xmpacc_acc_data_end(self, region: int) -> None:
        for item in reversed(self.data_regions.pop(region, [])):
            copy = self.copies.get(item.key)
            if copy is None or item.kind == ACC_DEVICEPTR:
                continue
            copy.refs -= 1
            self._release(copy, item, "end of acc data")

    def _xmpacc_acc_enter_data(self, where: bytes, n: int, keys: int, sizes: int, names: int, kinds: int,
                               secs: int, cond: int, queue: int) -> None:
        if cond:
            w = where_text(where)
            self._need_backend(w)  # type: ignore[attr-defined]
            stream = self._stream(queue)
            if stream is not None:
                self._moved_host(queue, True)
            for item in _items(n, keys, sizes, names, kinds, secs):
                self._attach(item, w, dynamic=True, stream=stream)

    def _xmpacc_acc_exit_data(self, where: bytes, n: int, keys: int, sizes: int, names: int, kinds: int,
                              secs: int, flags: int) -> None:
        """flags: 1 = the if condition holds, 2 = finalize."""
        if not flags & 1:
            return
        for item in _items(n, keys, sizes, names, kinds, secs):
            copy = self.copies.get(item.key)
            if copy is None:
                continue   # OpenACC: exit data of an absent variable does nothing
            copy.dynamic = 0 if flags & 2 else max(copy.dynamic - 1, 0)
            self._release(copy, item, where_text(where))

    def _xmpacc_acc_update(self, where: bytes, direction: int, key: int, size: int, name: bytes,
                           sec: int, flags: int, queue: int) -> None:
        """direction 0: device (host to device), 1: host; flags: 1 = if holds, 2 = if_present."""
        if not flags & 1:
            return
        w, n = where_text(where), name.decode()
        copy = self.copies.get(key or 0)
        if copy is None:
            if flags & 2:
                return
            raise RuntimeFailure(w, f"'{n}' is not present on the device: 'acc update' needs it in an "
                                    f"'acc data' region, 'acc enter data', 'acc declare' or 'acc replicate'")
        self.backend.wait()
        stream = self._stream(queue)
        if stream is not None:
            self._moved_host(queue, True)
        item = DataItem(key, size, n, 0, read_section(sec) if sec else None)
        self._move(copy, item, direction, w, stream)
        if self.replay is not None and not sec and copy.nbytes:
            # later calls: C (replay.py)
            self.replay.offer_update(key, size, direction, flags, queue, copy.host_addr,
                                     int(self.backend.ptr(copy.buffer)), copy.nbytes,
                                     int(stream.ptr) if stream is not None else 0)

    def _xmpacc_acc_wait(self, where: bytes, n: int, queues: int) -> None:
        """``acc wait`` (n = -1: every queue) or ``wait(q...)``."""
        if getattr(self, "backend", None) is None:
            return
        self.backend.wait()
        for q in self._wanted(n, queues):
            stream = self.queues.get(q)
            if stream is not None:
                stream.synchronize()
                self._moved_host(q, False)

    def _xmpacc_acc_wait_on_device(self, where: bytes, n: int, queues: int) -> None:
        """An ``acc wait`` the host may pass: the compiler saw only device work after it
        until the host's own wait (passes/gpu/acc_reduction_wait.py).  Every stream waits
        for the queues on the device instead (the compute stream for each queue's event,
        then every queue for the compute stream's), so what is queued next runs after
        them, as after the host's wait; the host goes on.  A queue that moved host memory
        since the host last waited for it is waited for by the host, as written
        (include/xmpacc_replay.h does the same in C)."""
        backend = getattr(self, "backend", None)
        if backend is None or backend.name != "cuda":
            return   # the host backend ran every kernel at its launch
        wanted = [q for q in self._wanted(n, queues) if q in self.queues]
        if self.wait_on_host or any(self._has_moved_host(q) for q in wanted):
            self._xmpacc_acc_wait(where, n, queues)
            return
        compute = backend.cupy.cuda.get_current_stream()
        for q in wanted:
            event = self.queue_events[q]
            event.record(self.queues[q])
            compute.wait_event(event)
        if self.queues:
            self.join_event.record(compute)
            for stream in self.queues.values():
                stream.wait_event(self.join_event)
            backend.pending = where_text(where)   # the compute stream holds the queues' work
        self.stats["acc_waits_on_device"] = self.stats.get("acc_waits_on_device", 0) + 1

    def _wanted(self, n: int, queues: int) -> list[int]:
        return list(self.queues) if n < 0 else list((ctypes.c_longlong * n).from_address(queues))

    def _moved_host(self, queue: int, moved: bool) -> None:
        if moved:
            self.moved_host.add(queue)
        else:
            self.moved_host.discard(queue)
        if self.replay is not None:
            self.replay.queue_moved_host(queue, moved)

    def _has_moved_host(self, queue: int) -> bool:
        # an async update the C side replayed marks its queue there only
        return queue in self.moved_host or (self.replay is not None and self.replay.moved_host(queue))

    def _xmpacc_acc_wait_devnum(self, where: bytes, devnum: int, n: int, queues: int) -> None:
        """``wait(devnum: d : q...)``.  A process queues work on its own device only, so on
        another device of the node there is nothing of its own to wait for."""
        backend = getattr(self, "backend", None)
        mine, count = device_number(backend) if backend is not None else (0, 1)
        if not 0 <= devnum < count:
            raise RuntimeFailure(where_text(where), f"wait(devnum: {devnum}): this node has "
                                                    f"{devices_text(count)}")
        if devnum == mine:
            self._xmpacc_acc_wait(where, n, queues)

    def _stream(self, queue: int) -> Any:
        """The CUDA stream of an async queue; None without async or on the host backend."""
        if queue == ACC_SYNC or self.backend.name != "cuda":
            return None
        stream = self.queues.get(queue)
        if stream is None:
            cuda = self.backend.cupy.cuda
            stream = self.queues[queue] = cuda.Stream(non_blocking=False)
            event = self.queue_events[queue] = cuda.Event(block=False, disable_timing=True)
            if self.join_event is None:
                self.join_event = cuda.Event(block=False, disable_timing=True)
            if self.replay is not None:   # acc wait in C waits for it too
                self.replay.add_queue(queue, stream.ptr, event.ptr, self.join_event.ptr)
        return stream

    def _xmpacc_acc_deviceptr(self, where: bytes, key: int, name: bytes) -> int:
        """``host_data use_device(a)``: the address of a's device copy."""
        copy = self.copies.get(key or 0)
        if copy is None:
            raise RuntimeFailure(where_text(where), f"'{name.decode()}' in use_device is not present on the "
                                                    f"device (put it in an 'acc data' region first)")
        return int(self.backend.ptr(copy.buffer))

    # ------------------------------------------------------------ the present table
    def _attach(self, item: DataItem, where: str, dynamic: bool, stream: Any = None) -> None:
        copy = self.copies.get(item.key)
        if copy is None:
            copy = self._part_of_present(item)
        if copy is None and item.kind == ACC_PRESENT:
            raise RuntimeFailure(where, f"'{item.name}' in a present clause is not present on the device "
                                        f"(no enclosing 'acc data', 'acc enter data', 'acc declare' or "
                                        f"'acc replicate' holds it)")
        if copy is None:
            copy = self._new_copy(item, where)
            if item.kind in (ACC_COPY, ACC_COPYIN):
                self._move(copy, item, 0, where, stream)
            # in the table once its data are there: a gmove agent serves other nodes from
            # the table while this thread runs
            self.copies[item.key] = copy
        copy.openacc = True
        if dynamic:
            copy.dynamic += 1
        else:
            copy.refs += 1

    def _new_copy(self, item: DataItem, where: str) -> DeviceCopy:
        """A device copy for ``item``; the caller puts it in the present table."""
        size = item.size
        if size == -2:   # a pointer: as many elements as its section reaches
            if item.sec is None:
                raise RuntimeFailure(where, f"'{item.name}' is a pointer: give its extent in the data "
                                            f"clause ('{item.name}[0:n]')")
            size = int(np.prod(local_view(item.key, item.sec).shape))
        copy = self._device_copy(item.key, size, item.name, where, self.backend)  # type: ignore[attr-defined]
        copy.refs = 0
        self.generation += 1
        return copy

    def _part_of_present(self, item: DataItem) -> DeviceCopy | None:
        """A variable inside a present one (``present(x[0:n])`` with ``x`` pointing into an
        array of an enclosing data region, or a pointer of unknown extent that a compute
        construct uses, size -2 without a section): OpenACC finds it present, so it gets a part of
        that copy (same device memory, no data movement), registered under its own key for
        this region and holding a reference to the whole copy meanwhile.  Only plain
        (non-distributed) copies are searched: a distributed array's key is its descriptor."""
        size = int(np.prod(local_view(item.key, item.sec).shape)) if item.size == -2 and item.sec \
            else item.size
        whole = self._copy_holding(item.key) if (size > 0 or size == -2) and item.key else None  # type: ignore[attr-defined]
        start = item.key - whole.host_addr if whole is not None else 0
        if size == -2 and whole is not None:   # a pointer of unknown extent: to the end of the copy
            size = whole.nbytes - start
        if whole is None or whole.desc_ptr or start + size > whole.nbytes:
            return None
        part = DeviceCopy(item.name, item.key, size, whole.buffer[start:start + size], refs=0, openacc=True,
                          parent=whole)
        whole.refs += 1
        self.copies[item.key] = part
        return part

    def _release(self, copy: DeviceCopy, item: DataItem, where: str) -> None:
        if copy.refs > 0 or copy.dynamic > 0:
            return
        if copy.parent is not None:   # a part of a present copy: its data stay there
            self.copies.pop(item.key, None)
            copy.parent.refs -= 1
            return
        with self.present_lock:
            self.copies.pop(item.key, None)
        if item.kind in (ACC_COPY, ACC_COPYOUT):
            self.backend.wait()
            self._move(copy, item, 1, where)
        self.backend.unpin(copy.host_addr, copy.nbytes)
        self.generation += 1

    # ------------------------------------------------------------ moving data
    def _move(self, copy: DeviceCopy, item: DataItem, direction: int, where: str, stream: Any = None) -> None:
        """Host to device (0) or back (1): the whole variable, or the elements of its section
        (of a distributed array: those this node owns).  With a stream (an async queue on a
        GPU) a whole variable moves on it."""
        counter = "sync_in_bytes" if direction == 0 else "sync_out_bytes"
        if item.sec is None or (item.size == -1 and _whole(item.sec)):
            if copy.nbytes and stream is not None:
                mem, host = copy.buffer.data, ctypes.c_void_p(copy.host_addr)
                if direction == 0:
                    mem.copy_from_host_async(host, copy.nbytes, stream)
                else:
                    mem.copy_to_host_async(host, copy.nbytes, stream)
            elif copy.nbytes:
                (self.backend.copy_in if direction == 0 else self.backend.copy_out)(
                    copy.buffer, copy.host_addr, copy.nbytes)
            self.stats[counter] = self.stats.get(counter, 0) + copy.nbytes
            return
        host, dev, hindex, dindex = self._views(copy, item, where)
        if direction == 0:
            part = host[hindex]
            dev[dindex] = self.backend.xp.asarray(part)
        else:
            part = dev[dindex]
            host[hindex] = part.get() if hasattr(part, "get") else part
        self.stats[counter] = self.stats.get(counter, 0) + int(part.size)

    def _views(self, copy: DeviceCopy, item: DataItem, where: str) -> tuple[Any, Any, Any, Any]:
        """The host and device byte views of the variable, and the section's index into each
        (the same one, except that the device view of a distributed array takes CuPy index
        arrays where the host view takes NumPy ones)."""
        sec = item.sec
        assert sec is not None
        arr = self.arrays.get(item.key) if item.size == -1 else None
        if arr is not None:
            host = arr.bytes_view()
            index: Any = _owned_index(arr, sec, item.name, where)
            dindex = index if self.backend.xp is np else tuple(self.backend.xp.asarray(i) for i in index)
        else:
            try:
                check_section(sec, item.name)
            except SectionError as e:
                raise RuntimeFailure(where, str(e)) from None
            host = local_view(copy.host_addr, sec)
            index = dindex = numpy_index(sec)
        if host.size > copy.nbytes:
            raise RuntimeFailure(where, f"{sec.text(item.name)} reaches beyond the device copy "
                                        f"of '{item.name}'")
        dev = self.backend.view(copy.buffer, np.uint8, host.size).reshape(host.shape)
        return host, dev, index, dindex


def _whole(sec: Section) -> bool:
    return all(s.triplet and s.base == 0 and s.step == 1 and s.length == ext
               for s, ext in zip(sec.subs, sec.extents, strict=True))


def _owned_index(arr: Any, sec: Section, name: str, where: str) -> tuple[np.ndarray, ...]:
    """The local buffer indices (an ``np.ix_`` index) of the section's elements this node owns."""
    from .distribution import DistributionError, local_index, owned_array_indices

    if len(sec.subs) != len(arr.layouts):
        raise RuntimeFailure(where, f"{sec.text(name)} has {len(sec.subs)} subscript(s); '{name}' has "
                                    f"{len(arr.layouts)} dimension(s)")
    try:
        check_section(sec, name)
    except SectionError as e:
        raise RuntimeFailure(where, str(e)) from None
    per_dim = []
    for s, lay in zip(sec.subs, arr.layouts, strict=True):
        wanted = [s.base + j * s.step for j in range(s.length)] if s.triplet else [s.base]
        owned = set(owned_array_indices(lay).tolist()) if lay.dist is not None else None
        try:
            per_dim.append(np.array([local_index(lay, g) for g in wanted if owned is None or g in owned],
                                    dtype=np.int64))
        except DistributionError as e:
            raise RuntimeFailure(where, f"{sec.text(name)}: {e}") from None
    return np.ix_(*per_dim)
