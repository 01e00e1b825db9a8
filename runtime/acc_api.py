"""The OpenACC runtime library (openacc.h, OpenACC 2.6 §3): the routines that no data
directive's entry covers.  acc_copyin, acc_create, acc_copyout and acc_delete are the enter /
exit data entries of acc_data.py, called by the glue (include/xmpacc_openacc.c), so the API
and the directives share one present table; acc_update_* move just their bytes, which may be
part of a present copy (the update directive moves variables or sections).

Devices: xmpacc gives each process one GPU, node-local rank modulo the GPUs of the node
(device.py ``CudaBackend``); the routines report it and accept a request for that one.  The
host backend stands in for one NVIDIA GPU, number 0, so that a GPU program runs unchanged on
it (``acc_set_device_num(rank % ngpus, acc_device_nvidia)`` included); it accepts
``acc_device_host`` too, the kernels running on the CPU.  A program without device code has
only the host.

Memory: ``acc_malloc`` blocks are backend buffers kept here by device address, outside the
present table (they have no host data).  A device address is one inside such a block or
inside a device copy of the present table; ``acc_memcpy_*`` and ``acc_free`` check that.
"""

from __future__ import annotations

import ctypes
from typing import Any

from .acc_queues import Queues
from .device import device_number, devices_text
from .device_memory import DeviceCopy, DeviceMemory
from .errors import RuntimeFailure, where_text
from .shared import Shared

# acc_device_t (openacc.h)
ACC_DEVICE_NONE, ACC_DEVICE_DEFAULT, ACC_DEVICE_HOST, ACC_DEVICE_NOT_HOST, ACC_DEVICE_NVIDIA = 0, 1, 2, 3, 4
_TYPE_NAMES = {ACC_DEVICE_NONE: "acc_device_none", ACC_DEVICE_DEFAULT: "acc_device_default",
               ACC_DEVICE_HOST: "acc_device_host", ACC_DEVICE_NOT_HOST: "acc_device_not_host",
               ACC_DEVICE_NVIDIA: "acc_device_nvidia"}
_GPU_TYPES = (ACC_DEVICE_DEFAULT, ACC_DEVICE_NOT_HOST, ACC_DEVICE_NVIDIA)


def type_name(t: int) -> str:
    return _TYPE_NAMES.get(t, f"device type {t}")


class AccApi:
    """The OpenACC library routines (a concern of ``api.Runtime``) and the ``acc_malloc``
    blocks; the present table is ``device``'s, the queues ``queues``'."""

    def __init__(self, shared: Shared, device: DeviceMemory, queues: Queues) -> None:
        self.shared, self.device, self.queues = shared, device, queues
        self.blocks: dict[int, tuple[int, Any]] = {}   # acc_malloc: device address -> (bytes, buffer)

    def _device(self) -> Any:
        return self.device.backend

    def _my_device(self) -> tuple[int, int]:
        """(number of this process's device, devices of its type on the node)."""
        backend = self._device()
        return device_number(backend) if backend is not None else (-1, 0)

    # ------------------------------------------------------------ devices
    def _xmpacc_acclib_num_devices(self, t: int) -> int:
        if t == ACC_DEVICE_HOST:
            return 1
        return self._my_device()[1] if t in _GPU_TYPES else 0

    def _xmpacc_acclib_device_type(self) -> int:
        return ACC_DEVICE_HOST if self._device() is None else ACC_DEVICE_NVIDIA

    def _xmpacc_acclib_device_num(self, t: int) -> int:
        if t == ACC_DEVICE_HOST:
            return 0
        return self._my_device()[0] if t in _GPU_TYPES else -1

    def _xmpacc_acclib_set_device(self, where: bytes, call: bytes, num: int, t: int) -> None:
        """acc_set_device_num(num, t), acc_set_device_type(t) (num -1: any device of the type)."""
        w, c = where_text(where), call.decode()
        args = f"{c}({'' if c.endswith('_type') else f'{num}, '}{type_name(t)})"
        backend = self._device()
        if t == ACC_DEVICE_HOST:
            if backend is not None and backend.name == "cuda":
                raise RuntimeFailure(w, f"{args}: xmpacc runs this program's compute constructs on GPU "
                                        f"{backend.device_id}; it cannot switch to the host")
            if num > 0:
                raise RuntimeFailure(w, f"{args}: the host is device 0")
            return
        if t not in _GPU_TYPES:
            raise RuntimeFailure(w, f"{args}: {type_name(t)} is not a device type (acc_device_nvidia, "
                                    f"acc_device_not_host, acc_device_default or acc_device_host)")
        mine, count = self._my_device()
        if backend is None:
            raise RuntimeFailure(w, f"{args}: this program has no device code (no OpenACC or 'loop ... acc' "
                                    f"construct), so it has no device")
        if num not in (-1, mine):
            raise RuntimeFailure(w, f"{args}: xmpacc gives each process one GPU, its node-local rank modulo "
                                    f"the node's GPUs; this process has GPU {mine} (the node has "
                                    f"{devices_text(count)})")

    # ------------------------------------------------------------ queues
    def _xmpacc_acclib_async_test(self, n: int, queues: int) -> int:
        """1 if the queues (n = -1: all) have nothing in flight.  The host backend's
        operations complete when they are issued."""
        backend = self._device()
        if backend is None or backend.name != "cuda":
            return 1
        return int(self.queues.done(n, queues))

    # ------------------------------------------------------------ addresses
    def _present_part(self, h: int, nbytes: int) -> tuple[DeviceCopy, int] | None:
        """The device copy holding the ``nbytes`` host bytes at ``h``, and h's offset in it."""
        copy = self.device.copies.get(h)
        if copy is not None and nbytes <= copy.nbytes:
            return copy, 0
        for c in self.device.copies.values():
            if c.parent is None and c.nbytes and c.host_addr <= h and h + nbytes <= c.host_addr + c.nbytes:
                return c, h - c.host_addr
        return None

    def _xmpacc_acclib_update(self, where: bytes, direction: int, name: bytes, h: int, nbytes: int) -> None:
        """acc_update_device (direction 0) or acc_update_self (1) of the ``nbytes`` at ``h``."""
        backend = self._device()
        found = self._present_part(h, nbytes) if backend is not None else None
        if found is None:
            raise RuntimeFailure(where_text(where), f"acc_update_{'self' if direction else 'device'}: "
                                                    f"'{name.decode()}' ({nbytes} bytes) is not present on "
                                                    "the device: acc_copyin, acc_create, 'acc enter data' or "
                                                    "an 'acc data' region puts it there")
        copy, offset = found
        backend.wait()
        part = copy.buffer[offset:offset + nbytes]
        (backend.copy_in if direction == 0 else backend.copy_out)(part, h, nbytes)
        self.shared.count("sync_in_bytes" if direction == 0 else "sync_out_bytes", nbytes)

    def _xmpacc_acclib_is_present(self, h: int, nbytes: int) -> int:
        return int(bool(h) and self._device() is not None
                   and self._present_part(h, max(nbytes, 1)) is not None)

    def _xmpacc_acclib_deviceptr(self, h: int) -> int:
        found = self._present_part(h, 1) if h and self._device() is not None else None
        return 0 if found is None else self.device.backend.ptr(found[0].buffer) + found[1]

    def _xmpacc_acclib_hostptr(self, d: int) -> int:
        backend = self._device()
        if not d or backend is None:
            return 0
        for c in self.device.copies.values():
            start = backend.ptr(c.buffer)
            if c.nbytes and start <= d < start + c.nbytes:
                return c.host_addr + (d - start)
        return 0   # not a device copy of host data (an acc_malloc block has none)

    def _device_span(self, d: int, nbytes: int) -> bool:
        """Are the ``nbytes`` at ``d`` device memory (an acc_malloc block or a device copy)?"""
        spans = [(a, n) for a, (n, _) in self.blocks.items()]
        spans += [(self.device.backend.ptr(c.buffer), c.nbytes) for c in self.device.copies.values()]
        return any(a <= d and d + nbytes <= a + n for a, n in spans)

    # ------------------------------------------------------------ device memory
    def _xmpacc_acclib_malloc(self, where: bytes, nbytes: int) -> int:
        w = where_text(where)
        backend = self._device()
        if backend is None:
            raise RuntimeFailure(w, f"acc_malloc({nbytes}): this program has no device code (no OpenACC or "
                                    f"'loop ... acc' construct), so it has no device")
        if nbytes <= 0:
            return 0
        buf = backend.alloc(nbytes, "acc_malloc", w)
        addr = int(backend.ptr(buf))
        self.blocks[addr] = (nbytes, buf)
        return addr

    def _xmpacc_acclib_free(self, where: bytes, name: bytes, d: int) -> None:
        if self.blocks.pop(d, None) is not None:
            return
        what = name.decode()
        inside = next((a for a, (n, _) in self.blocks.items() if a < d < a + n), None)
        why = (f"it points {d - inside} bytes into a block, not at its start" if inside is not None else
               "it is not a block that acc_malloc returned (or it was freed already)")
        raise RuntimeFailure(where_text(where), f"acc_free({what}): {why}")

    def _xmpacc_acclib_memcpy(self, where: bytes, direction: int, dst: int, src: int, nbytes: int) -> None:
        """direction 0: acc_memcpy_to_device(dst, src), 1: acc_memcpy_from_device(dst, src)."""
        w = where_text(where)
        call, dev = ("acc_memcpy_to_device", dst) if direction == 0 else ("acc_memcpy_from_device", src)
        backend = self._device()
        if backend is None or not self._device_span(dev, nbytes):
            raise RuntimeFailure(w, f"{call}: the {nbytes} bytes at device address {dev:#x} are not device "
                                    f"memory (acc_malloc, acc_copyin, acc_create and acc_deviceptr give "
                                    f"device addresses)")
        backend.wait()
        if backend.name == "cuda":
            rt = backend.cupy.cuda.runtime
            rt.memcpy(dst, src, nbytes, rt.memcpyHostToDevice if direction == 0 else rt.memcpyDeviceToHost)
        else:
            ctypes.memmove(dst, src, nbytes)
