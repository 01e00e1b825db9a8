"""OpenACC data directives of XcalableACC (XcalableACC.md §1, §3): data regions, enter/exit
data, update and host_data.

The present table is ``DeviceMemory.copies`` (device_memory.py), the one ``acc replicate``
fills, so the two dialects mix both ways: a variable replicated by ``acc replicate`` is
present for OpenACC and the reverse.  Each ``DeviceCopy`` counts its references (OpenACC
2.5): ``refs`` for structured ones (data regions, compute constructs' implicit regions,
``acc replicate``), ``dynamic`` for ``enter data``.  A data clause on a present variable
only counts; the copy is freed (after ``copyout``) when both counts reach 0.

A variable's key is its host address (a distributed array's: its descriptor, whose device
copy mirrors the local block with shadows); ``sizes[i]`` is its size in bytes, -1 for a
distributed array, -2 for a pointer (the size comes from its section).  ``secs[i]`` is
NULL (the whole variable) or a section (runtime/sections.py): global indices for a
distributed array, of which each node moves the elements it owns.

``update`` and ``enter data`` with ``async`` copy whole variables on the queue's stream
(acc_queues.py); sections, exit data and region ends copy synchronously.  The later
calls of an ``update`` with the same variable or section run in C (replay.py).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from .acc_queues import Queues
from .byte_boxes import section_box
from .contract import ACC_COPY, ACC_COPYIN, ACC_COPYOUT, ACC_CREATE, ACC_DELETE, ACC_DEVICEPTR, ACC_PRESENT
from .device_memory import DeviceCopy, DeviceMemory
from .errors import RuntimeFailure, where_text
from .sections import Section, SectionError, check_section, local_view, numpy_index, raw_section, read_section
from .shared import Shared

_CLAUSE = {ACC_COPY: "copy", ACC_COPYIN: "copyin", ACC_COPYOUT: "copyout", ACC_CREATE: "create",
           ACC_PRESENT: "present", ACC_DELETE: "delete", ACC_DEVICEPTR: "deviceptr"}


def read_clause(n: int, keys: int, sizes: int, names: int) -> list[tuple[int, int, str]]:
    """The (key, size, name) of each of the ``n`` variables whose arrays generated code
    passes to a replicate, data region or compute construct entry."""
    if not n:
        return []
    key_list = (ctypes.c_void_p * n).from_address(keys)
    size_list = (ctypes.c_longlong * n).from_address(sizes)
    name_list = [ctypes.cast(p, ctypes.c_char_p).value.decode()
                 for p in (ctypes.c_void_p * n).from_address(names)]
    return [(k or 0, s, nm) for k, s, nm in zip(key_list, size_list, name_list, strict=True)]


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


class AccData:
    """The data regions (a concern of ``api.Runtime``) and the present table's reference
    counting, which the compute constructs' implicit regions share (acc_compute.py)."""

    def __init__(self, shared: Shared, device: DeviceMemory, queues: Queues) -> None:
        self.shared, self.device, self.queues = shared, device, queues
        self.regions: dict[int, list[DataItem]] = {}
        self.next_region = 1

    # ------------------------------------------------------------ entries
    def _xmpacc_acc_data_begin(self, where: bytes, n: int, keys: int, sizes: int, names: int, kinds: int,
                               secs: int, cond: int) -> int:
        if not cond:
            return 0
        w = where_text(where)
        self.device.need_backend(w)
        items = _items(n, keys, sizes, names, kinds, secs)
        for item in items:
            if item.kind != ACC_DEVICEPTR:
                self.attach(item, w, dynamic=False)
        region = self.next_region
        self.next_region += 1
        self.regions[region] = items
        return region

    def _xmpacc_acc_data_end(self, region: int) -> None:
        for item in reversed(self.regions.pop(region, [])):
            copy = self.device.copies.get(item.key)
            if copy is None or item.kind == ACC_DEVICEPTR:
                continue
            copy.refs -= 1
            self.release(copy, item, "end of acc data")

    def _xmpacc_acc_enter_data(self, where: bytes, n: int, keys: int, sizes: int, names: int, kinds: int,
                               secs: int, cond: int, queue: int) -> None:
        if cond:
            w = where_text(where)
            self.device.need_backend(w)
            stream = self.queues.stream(queue)
            if stream is not None:
                self.queues.moved_host(queue, True)
            for item in _items(n, keys, sizes, names, kinds, secs):
                self.attach(item, w, dynamic=True, stream=stream)

    def _xmpacc_acc_exit_data(self, where: bytes, n: int, keys: int, sizes: int, names: int, kinds: int,
                              secs: int, flags: int) -> None:
        """flags: 1 = the if condition holds, 2 = finalize."""
        if not flags & 1:
            return
        for item in _items(n, keys, sizes, names, kinds, secs):
            copy = self.device.copies.get(item.key)
            if copy is None:
                continue   # OpenACC: exit data of an absent variable does nothing
            copy.dynamic = 0 if flags & 2 else max(copy.dynamic - 1, 0)
            self.release(copy, item, where_text(where))

    def _xmpacc_acc_update(self, where: bytes, direction: int, key: int, size: int, name: bytes,
                           sec: int, flags: int, queue: int) -> None:
        """direction 0: device (host to device), 1: host; flags: 1 = if holds, 2 = if_present."""
        if not flags & 1:
            return
        w, n = where_text(where), name.decode()
        copy = self.device.copies.get(key or 0)
        if copy is None:
            if flags & 2:
                return
            raise RuntimeFailure(w, f"'{n}' is not present on the device: 'acc update' needs it in an "
                                    f"'acc data' region, 'acc enter data', 'acc declare' or 'acc replicate'")
        self.device.backend.wait()
        stream = self.queues.stream(queue)
        if stream is not None:
            self.queues.moved_host(queue, True)
        item = DataItem(key, size, n, 0, read_section(sec) if sec else None)
        views = self._move(copy, item, direction, w, stream)
        replay = self.shared.replay
        if replay is not None and copy.nbytes:
            # later calls with the same section as passed: C (replay.py), its bytes as a box
            box = None if views is None else section_box(views[0], views[2])
            if views is None or box is not None:
                host = copy.host_addr if views is None else int(views[0].ctypes.data)
                replay.offer_update(key, size, direction, flags, queue, host,
                                    int(self.device.backend.ptr(copy.buffer)), copy.nbytes,
                                    int(stream.ptr) if stream is not None else 0,
                                    (raw_section(sec), box) if sec else None)

    def _xmpacc_acc_deviceptr(self, where: bytes, key: int, name: bytes) -> int:
        """``host_data use_device(a)``: the address of a's device copy."""
        copy = self.device.copies.get(key or 0)
        if copy is None:
            raise RuntimeFailure(where_text(where), f"'{name.decode()}' in use_device is not present on the "
                                                    f"device (put it in an 'acc data' region first)")
        return int(self.device.backend.ptr(copy.buffer))

    # ------------------------------------------------------------ the present table
    def attach(self, item: DataItem, where: str, dynamic: bool, stream: Any = None) -> None:
        """One more reference to ``item``'s device copy, made (and moved in) when it is
        not present."""
        copy = self.device.copies.get(item.key)
        if copy is None:
            copy = self.part_of_present(item)
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
            self.device.copies[item.key] = copy
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
        copy = self.device.new_copy(item.key, size, item.name, where)
        copy.refs = 0
        self.device.generation += 1
        return copy

    def part_of_present(self, item: DataItem) -> DeviceCopy | None:
        """A variable inside a present one (``present(x[0:n])`` with ``x`` pointing into an
        array of an enclosing data region, or a pointer of unknown extent that a compute
        construct uses, size -2 without a section): OpenACC finds it present, so it gets a part of
        that copy (same device memory, no data movement), registered under its own key for
        this region and holding a reference to the whole copy meanwhile.  Only plain
        (non-distributed) copies are searched: a distributed array's key is its descriptor."""
        size = int(np.prod(local_view(item.key, item.sec).shape)) if item.size == -2 and item.sec \
            else item.size
        whole = self.device.copy_holding(item.key) if (size > 0 or size == -2) and item.key else None
        start = item.key - whole.host_addr if whole is not None else 0
        if size == -2 and whole is not None:   # a pointer of unknown extent: to the end of the copy
            size = whole.nbytes - start
        if whole is None or whole.desc_ptr or start + size > whole.nbytes:
            return None
        part = DeviceCopy(item.name, item.key, size, whole.buffer[start:start + size], refs=0, openacc=True,
                          parent=whole)
        whole.refs += 1
        self.device.copies[item.key] = part
        return part

    def release(self, copy: DeviceCopy, item: DataItem, where: str) -> None:
        """``copy`` leaves the table (moved out first for copy and copyout) once it has no
        reference left."""
        if copy.refs > 0 or copy.dynamic > 0:
            return
        device = self.device
        if copy.parent is not None:   # a part of a present copy: its data stay there
            device.copies.pop(item.key, None)
            copy.parent.refs -= 1
            return
        with device.present_lock:
            device.copies.pop(item.key, None)
        if item.kind in (ACC_COPY, ACC_COPYOUT):
            device.backend.wait()
            self._move(copy, item, 1, where)
        device.backend.unpin(copy.host_addr, copy.nbytes)
        device.generation += 1

    # ------------------------------------------------------------ moving data
    def _move(self, copy: DeviceCopy, item: DataItem, direction: int, where: str,
              stream: Any = None) -> tuple[Any, Any, Any, Any] | None:
        """Host to device (0) or back (1): the whole variable, or the elements of its section
        (of a distributed array: those this node owns).  With a stream (an async queue on a
        GPU) a whole variable moves on it.  A section's views and indices (``_views``)
        come back, None for the whole variable."""
        counter = "sync_in_bytes" if direction == 0 else "sync_out_bytes"
        backend = self.device.backend
        if item.sec is None or (item.size == -1 and _whole(item.sec)):
            if copy.nbytes and stream is not None:
                mem, host = copy.buffer.data, ctypes.c_void_p(copy.host_addr)
                if direction == 0:
                    mem.copy_from_host_async(host, copy.nbytes, stream)
                else:
                    mem.copy_to_host_async(host, copy.nbytes, stream)
            elif copy.nbytes:
                (backend.copy_in if direction == 0 else backend.copy_out)(copy.buffer, copy.host_addr,
                                                                          copy.nbytes)
            self.shared.count(counter, copy.nbytes)
            return None
        views = host, dev, hindex, dindex = self._views(copy, item, where)
        if direction == 0:
            part = host[hindex]
            dev[dindex] = backend.xp.asarray(part)
        else:
            part = dev[dindex]
            host[hindex] = part.get() if hasattr(part, "get") else part
        self.shared.count(counter, int(part.size))
        return views

    def _views(self, copy: DeviceCopy, item: DataItem, where: str) -> tuple[Any, Any, Any, Any]:
        """The host and device byte views of the variable, and the section's index into each
        (the same one, except that the device view of a distributed array takes CuPy index
        arrays where the host view takes NumPy ones)."""
        sec, xp = item.sec, self.device.backend.xp
        assert sec is not None
        arr = self.shared.arrays.get(item.key) if item.size == -1 else None
        if arr is not None:
            host = arr.bytes_view()
            index: Any = _owned_index(arr, sec, item.name, where)
            dindex = index if xp is np else tuple(xp.asarray(i) for i in index)
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
        dev = self.device.backend.view(copy.buffer, np.uint8, host.size).reshape(host.shape)
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
