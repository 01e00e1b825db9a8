"""``XMPACC_REFLECT=staged``: reflect's device slabs through page-locked host memory and MPI.

For GPUs without NCCL between them (or two ranks on one GPU).  Per array and exchange
pattern a *plan* is made once and reused by every later reflect: a page-locked host
buffer per slab sent and received, and a device staging buffer per slab that is not
contiguous in the array (a column halo), so that packing runs on the device and one
contiguous copy crosses the bus.  Each reflect then

    1. posts the receives into the host buffers;
    2. per direction, on its own stream (after the kernels that wrote the array): packs
       the slab on the device and copies it to the host, both directions at once;
    3. sends each slab as soon as its copy is done; waits for the exchange;
    4. copies the received slabs back on the compute stream (unpacking on the device),
       so the next kernel is ordered after them and the host does not wait.

With numpy as the "device" (the host backend: ``XMPACC_DEVICE=host XMPACC_REFLECT=staged``)
the same plans and steps run with plain copies, which is how the CPU-only tests check it.
Slabs selected by index arrays (cyclic full shadows) take the simple path of transport.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .transport import MpiTransport, Planned, Region, Slab, SlabPlans, region_on_device


class StagedTransport(Planned, MpiTransport):
    """Plans: transport.SlabPlans, with a page-locked host buffer per slab."""

    name = "staged"

    def __init__(self, xp: Any) -> None:
        self.xp = xp
        self.device = xp is not np
        self.slab_plans = SlabPlans(self._buffers)
        self.streams: list[Any] = []    # one per direction of an exchange
        self.copied: Any = None         # the last copies out of the receive buffers (an event)

    def address(self, view: Any) -> int:
        return int(view.data.ptr) if self.device else int(view.__array_interface__["data"][0])

    def _buffers(self, view: Any, region: Region) -> Slab:
        part = view[region]
        if self.device:
            import cupyx

            host = cupyx.empty_pinned(part.shape, dtype=np.uint8)
        else:
            host = np.empty(part.shape, dtype=np.uint8)
        contiguous = part.flags.c_contiguous
        stage = None if contiguous else self.xp.empty(part.shape, dtype=np.uint8)
        return Slab(region, host.nbytes, stage, self.address(part) if contiguous and self.device else 0, host)

    def _stream(self, k: int) -> Any:
        while len(self.streams) <= k:
            self.streams.append(self.xp.cuda.Stream(non_blocking=True))
        return self.streams[k]

    def exchange(self, comm: Any, view: Any, sends: list[tuple[int, int, Region]],
                 recvs: list[tuple[int, int, Region]], stats: dict[str, int]) -> None:
        plan = self.slab_plans.find(view, self.address(view), sends, recvs)
        if plan.selected:
            super().exchange(comm, _HostSlabs(self.xp, view) if self.device else view, sends, recvs, stats)
            return
        if self.copied is not None:   # the receive buffers are free again (done long ago, normally)
            self.copied.synchronize()
        requests = [comm.Irecv(s.host, source=src, tag=tag)
                    for (src, tag, _r), s in zip(recvs, plan.recvs, strict=False)]
        self._copy_out(view, plan.sends)
        for k, ((dst, tag, _r), s) in enumerate(zip(sends, plan.sends, strict=False)):
            if self.device:
                self._stream(k).synchronize()
            requests.append(comm.Isend(s.host, dest=dst, tag=tag))
            stats["reflect_bytes"] = stats.get("reflect_bytes", 0) + s.host.nbytes
        _wait_all(requests)
        self._copy_in(view, plan.recvs)
        for s in plan.recvs:
            stats["reflect_shadow_bytes"] = stats.get("reflect_shadow_bytes", 0) + s.host.nbytes

    def _copy_out(self, view: Any, slabs: list[Slab]) -> None:
        """Device -> host, one stream per direction, after the work queued so far."""
        if not self.device:
            for s in slabs:
                s.host[...] = view[s.region]
            return
        ready = self.xp.cuda.get_current_stream().record()
        for k, s in enumerate(slabs):
            stream = self._stream(k)
            stream.wait_event(ready)
            if s.device:   # contiguous: one raw copy, no array objects made per call
                self.xp.cuda.runtime.memcpyAsync(s.host.ctypes.data, s.device, s.host.nbytes,
                                                 self.xp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
                continue
            with stream:
                src = view[s.region]
                if s.stage is not None:
                    s.stage[...] = src      # packed on the device
                    src = s.stage
                src.get(stream=stream, out=s.host)

    def _copy_in(self, view: Any, slabs: list[Slab]) -> None:
        """Host -> device on the compute stream: the next kernel is ordered after it."""
        if not self.device:
            for s in slabs:
                view[s.region] = s.host
            return
        stream = self.xp.cuda.get_current_stream()
        for s in slabs:
            if s.device:
                self.xp.cuda.runtime.memcpyAsync(s.device, s.host.ctypes.data, s.host.nbytes,
                                                 self.xp.cuda.runtime.memcpyHostToDevice, stream.ptr)
            elif s.stage is None:
                view[s.region].set(s.host, stream=stream)
            else:
                s.stage.set(s.host, stream=stream)
                view[s.region] = s.stage    # unpacked on the device
        self.copied = stream.record()


def _wait_all(requests: list[Any]) -> None:
    if requests:
        type(requests[0]).Waitall(requests)


class _HostSlabs:
    """Looks like an array to MpiTransport: reading a slab copies it to the host, writing
    one copies it back to the device (slabs selected by index arrays, full shadows)."""

    def __init__(self, cupy: Any, view: Any) -> None:
        self.cupy, self.view = cupy, view
        self.shape = view.shape

    def __getitem__(self, region: Region) -> np.ndarray:
        return self.cupy.asnumpy(self.view[region_on_device(self.cupy, region)])

    def __setitem__(self, region: Region, value: np.ndarray) -> None:
        self.view[region_on_device(self.cupy, region)] = self.cupy.asarray(value)
