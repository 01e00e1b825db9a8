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

from dataclasses import dataclass
from typing import Any

import numpy as np

from .transport import MpiTransport, Region, _on_device, fancy

PLANS_KEPT = 64   # plans are per array and pattern; more than this and the cache starts over


@dataclass
class _Slab:
    region: Region
    host: np.ndarray          # page-locked (GPU) host buffer of the slab, reused
    stage: Any                # contiguous device buffer when the slab is not contiguous, else None
    device: int = 0           # contiguous slab on a GPU: its device address (raw copies), else 0


@dataclass
class _Plan:
    sends: list[_Slab]
    recvs: list[_Slab]
    # the exchange lists it was made for (reflect's cached plan passes the same lists at
    # every call: an identity test finds the plan without hashing the regions again)
    send_list: Any = None
    recv_list: Any = None


def _region_key(region: Region) -> tuple[Any, ...]:
    return tuple((s.start, s.stop, s.step) if isinstance(s, slice) else ("idx", s.tobytes()) for s in region)


class StagedTransport(MpiTransport):
    """Plans hold no reference to the arrays (only their address, shape and slabs), so a
    freed device copy is not kept alive; the slab views are taken again at each call."""

    name = "staged"

    def __init__(self, xp: Any) -> None:
        self.xp = xp
        self.device = xp is not np
        self.plans: dict[tuple[Any, ...], _Plan] = {}
        self.recent: dict[tuple[int, int, int], _Plan] = {}   # (id(sends), id(recvs), address) -> plan
        self.streams: list[Any] = []    # one per direction of an exchange
        self.copied: Any = None         # the last copies out of the receive buffers (an event)

    def _ptr(self, view: Any) -> int:
        return int(view.data.ptr) if self.device else int(view.__array_interface__["data"][0])

    def _buffers(self, view: Any, region: Region) -> _Slab:
        part = view[region]
        if self.device:
            import cupyx

            host = cupyx.empty_pinned(part.shape, dtype=np.uint8)
        else:
            host = np.empty(part.shape, dtype=np.uint8)
        contiguous = part.flags.c_contiguous
        stage = None if contiguous else self.xp.empty(part.shape, dtype=np.uint8)
        return _Slab(region, host, stage, self._ptr(part) if contiguous and self.device else 0)

    def _plan(self, view: Any, sends: list[tuple[int, int, Region]], recvs: list[tuple[int, int, Region]]) -> _Plan:
        ptr = self._ptr(view)
        plan = self.recent.get((id(sends), id(recvs), ptr))
        if plan is not None and plan.send_list is sends and plan.recv_list is recvs:
            return plan
        key = (ptr, view.shape, tuple((p, t, _region_key(r)) for p, t, r in sends),
               tuple((p, t, _region_key(r)) for p, t, r in recvs))
        plan = self.plans.get(key)
        if plan is None:
            if len(self.plans) >= PLANS_KEPT:
                self.plans.clear()
                self.recent.clear()
            plan = self.plans[key] = _Plan([self._buffers(view, r) for _p, _t, r in sends],
                                           [self._buffers(view, r) for _p, _t, r in recvs])
        plan.send_list, plan.recv_list = sends, recvs
        if len(self.recent) >= PLANS_KEPT:   # callers that make new lists per call
            self.recent.clear()
        self.recent[(id(sends), id(recvs), ptr)] = plan
        return plan

    def _stream(self, k: int) -> Any:
        while len(self.streams) <= k:
            self.streams.append(self.xp.cuda.Stream(non_blocking=True))
        return self.streams[k]

    def exchange(self, comm: Any, view: Any, sends: list[tuple[int, int, Region]],
                 recvs: list[tuple[int, int, Region]], stats: dict[str, int]) -> None:
        if any(fancy(r) for _p, _t, r in sends + recvs):
            super().exchange(comm, _HostSlabs(self.xp, view) if self.device else view, sends, recvs, stats)
            return
        plan = self._plan(view, sends, recvs)
        if self.copied is not None:   # the receive buffers are free again (done long ago, normally)
            self.copied.synchronize()
        requests = [comm.Irecv(s.host, source=src, tag=tag) for (src, tag, _r), s in zip(recvs, plan.recvs)]
        self._copy_out(view, plan.sends)
        for k, ((dst, tag, _r), s) in enumerate(zip(sends, plan.sends)):
            if self.device:
                self._stream(k).synchronize()
            requests.append(comm.Isend(s.host, dest=dst, tag=tag))
            stats["reflect_bytes"] = stats.get("reflect_bytes", 0) + s.host.nbytes
        _wait_all(requests)
        self._copy_in(view, plan.recvs)
        for s in plan.recvs:
            stats["reflect_shadow_bytes"] = stats.get("reflect_shadow_bytes", 0) + s.host.nbytes

    def _copy_out(self, view: Any, slabs: list[_Slab]) -> None:
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

    def _copy_in(self, view: Any, slabs: list[_Slab]) -> None:
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

    def allgather(self, comm: Any, view: Any, mine: Region, parts: list[Region | None],
                  stats: dict[str, int]) -> None:
        super().allgather(comm, _HostSlabs(self.xp, view) if self.device else view, mine, parts, stats)


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
        return self.cupy.asnumpy(self.view[_on_device(self.cupy, region)])

    def __setitem__(self, region: Region, value: np.ndarray) -> None:
        self.view[_on_device(self.cupy, region)] = self.cupy.asarray(value)
