"""How reflect moves shadow slabs: host MPI, device-to-device NCCL, or staged through the host.

``reflect.py`` decides *what* moves (which slab of the local buffer goes to which
neighbour); a transport moves it.  Slabs are numpy arrays for host buffers (and for the
"device" buffers of the host backend) and CuPy arrays for GPU buffers.  The MPI
communicator given is the line of nodes along one node dimension; ranks are positions in it.

* ``MpiTransport``: mpi4py on host memory (the paper's path, and the host backend).
* ``NcclTransport``: ``cupy.cuda.nccl`` point-to-point calls between device buffers; peers
  are translated to world ranks of one world-wide NCCL communicator.  Contiguous slabs
  (halo rows of a row-block distribution) go straight from and into the buffer; the
  others through device buffers of their own, packed and unpacked on the device.
* ``StagedTransport`` (staging.py): GPU buffers without NCCL: only the slabs go device ->
  page-locked host buffers -> MPI -> host -> device, never the whole array.

The two device transports keep a *plan* per array and exchange pattern (``SlabPlans``),
made by the first exchange and replayed by every later one: ``reflect_init ... acc``
plans, ``reflect_do ... acc`` allocates nothing (XcalableACC §4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

Region = tuple[slice, ...]
PLANS_KEPT = 64   # plans are per array and pattern; more than this and the cache starts over


@dataclass
class Slab:
    """One slab of a plan: where its bytes leave from or arrive into."""
    region: Region
    nbytes: int
    stage: Any = None   # a contiguous device buffer when the slab is not contiguous in the array
    device: int = 0     # a contiguous slab on a GPU: its device address (no array objects per call)
    host: Any = None    # the staged transport's page-locked host buffer of the slab


@dataclass
class Plan:
    sends: list[Slab]
    recvs: list[Slab]
    # slabs selected by index arrays (cyclic full shadows): no buffers; the transport's
    # simple path moves them (found out once per pattern, not at every exchange)
    selected: bool = False
    # the exchange lists it was made for (reflect's cached plan passes the same lists at
    # every call: an identity test finds the plan without hashing the regions again)
    send_list: Any = None
    recv_list: Any = None


def _region_key(region: Region) -> tuple[Any, ...]:
    return tuple((s.start, s.stop, s.step) if isinstance(s, slice) else ("idx", s.tobytes()) for s in region)


class SlabPlans:
    """Plans by array address and exchange pattern; ``slab(view, region)`` makes the
    buffers of one slab.  Plans hold no reference to the arrays (only their address,
    shape and slabs), so a freed device copy is not kept alive; the slab views are taken
    again at each call where they are needed."""

    def __init__(self, slab: Callable[[Any, Region], Slab]) -> None:
        self.slab = slab
        self.plans: dict[tuple[Any, ...], Plan] = {}
        self.recent: dict[tuple[int, int, int], Plan] = {}   # (id(sends), id(recvs), address) -> plan

    def find(self, view: Any, ptr: int, sends: list[tuple[int, int, Region]],
             recvs: list[tuple[int, int, Region]]) -> Plan:
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
            if any(fancy(r) for _p, _t, r in sends + recvs):
                plan = self.plans[key] = Plan([], [], selected=True)
            else:
                plan = self.plans[key] = Plan([self.slab(view, r) for _p, _t, r in sends],
                                              [self.slab(view, r) for _p, _t, r in recvs])
        plan.send_list, plan.recv_list = sends, recvs
        if len(self.recent) >= PLANS_KEPT:   # callers that make new lists per call
            self.recent.clear()
        self.recent[(id(sends), id(recvs), ptr)] = plan
        return plan


def _count(stats: dict[str, int], key: str, n: int) -> None:
    stats[key] = stats.get(key, 0) + n


def region_shape(view: Any, region: Region) -> tuple[int, ...]:
    """Shape of ``view[region]`` without indexing the view (on a device an index-array
    slab would be copied just to learn its shape).  An axis of a slab is a slice or an
    index array (cyclic full shadows, at most one per slab); the last axis of a view
    holds the element's bytes."""
    axes = tuple(len(s) if isinstance(s, np.ndarray) else max(s.stop - s.start, 0) for s in region)
    return axes + tuple(int(n) for n in view.shape[len(region):])


def fancy(region: Region | None) -> bool:
    """Does the slab select by index array (so that view[region] is a copy, not a view)?"""
    return region is not None and any(not isinstance(s, slice) for s in region)


TAG_GATHER = 3   # a full shadow's all-gather as pairs (gather_pairs); an exchange's tags are 1 and 2


Message = tuple[int, int, Region]   # (peer, tag, slab)


def gather_pairs(comm: Any, mine: Region, parts: list[Region | None]) -> tuple[list[Message], list[Message]]:
    """A full shadow's all-gather as point-to-point messages: this node's block (where it
    owns one) to every other node, every other owner's block from it: reflect.py plans it so
    (``_gather_full``), and every transport, the persistent reflect and the C side's plans
    run it as an exchange, so that a node on the general path and one on a plan meet."""
    me = comm.Get_rank()
    owner = parts[me] is not None
    sends = [(k, TAG_GATHER, mine) for k in range(comm.Get_size()) if k != me and owner]
    recvs = [(k, TAG_GATHER, p) for k, p in enumerate(parts) if k != me and p is not None]
    return sends, recvs


class MpiTransport:
    name = "mpi"

    def prepare(self, view: Any, sends: list[tuple[int, int, Region]],
                recvs: list[tuple[int, int, Region]]) -> None:
        """Buffers of an exchange made ahead (reflect_init): none here."""

    def exchange(self, comm: Any, view: Any, sends: list[tuple[int, int, Region]],
                 recvs: list[tuple[int, int, Region]], stats: dict[str, int]) -> None:
        self.start_exchange(comm, view, sends, recvs, stats).wait()

    def start_exchange(self, comm: Any, view: Any, sends: list[tuple[int, int, Region]],
                       recvs: list[tuple[int, int, Region]], stats: dict[str, int]) -> Any:
        """The exchange as non-blocking requests; the received slabs land in ``view`` when
        the returned Pending (asyncs.py) completes."""
        from .asyncs import MpiPending

        buffers, requests = [], []
        for src, tag, region in recvs:
            buf = np.empty(region_shape(view, region), dtype=np.uint8)
            buffers.append((buf, region))
            requests.append(comm.Irecv(buf, source=src, tag=tag))
            _count(stats, "reflect_shadow_bytes", buf.nbytes)
        for dst, tag, region in sends:
            data = np.ascontiguousarray(view[region])
            _count(stats, "reflect_bytes", data.nbytes)
            buffers.append((data, None))
            requests.append(comm.Isend(data, dest=dst, tag=tag))

        def unpack() -> None:
            for buf, region in buffers:
                if region is not None:
                    view[region] = buf
        return MpiPending(requests, unpack, keep=buffers)


def region_on_device(cupy: Any, region: Region) -> Region:
    """A slab's index arrays as CuPy arrays, to index a device view."""
    return tuple(cupy.asarray(s) if isinstance(s, np.ndarray) else s for s in region)


class Planned:
    """A device transport whose exchanges run on plans (``slab_plans``)."""

    slab_plans: SlabPlans

    def address(self, view: Any) -> int:
        return int(view.data.ptr)

    def prepare(self, view: Any, sends: list[tuple[int, int, Region]],
                recvs: list[tuple[int, int, Region]]) -> None:
        """The plan of an exchange on ``view`` made ahead (reflect_init), where there is a view."""
        if view is not None:
            self.slab_plans.find(view, self.address(view), sends, recvs)


class NcclTransport(Planned):
    name = "nccl"

    def __init__(self, cupy: Any, world: Any) -> None:
        from cupy.cuda import nccl

        self.cupy, self.nccl, self.world = cupy, nccl, world
        uid = nccl.get_unique_id() if world.Get_rank() == 0 else None
        uid = world.bcast(uid, root=0)
        self.comm = nccl.NcclCommunicator(world.Get_size(), uid, world.Get_rank())
        self.world_ranks: dict[int, list[int]] = {}
        self.slab_plans = SlabPlans(self._slab)

    def world_ranks_of(self, comm: Any) -> list[int]:
        """The world rank of each rank of ``comm`` (NCCL's peers), asked once per communicator."""
        key = comm.py2f()
        if key not in self.world_ranks:
            self.world_ranks[key] = comm.allgather(self.world.Get_rank())
        return self.world_ranks[key]

    def _slab(self, view: Any, region: Region) -> Slab:
        part = view[region]
        if part.flags.c_contiguous:
            return Slab(region, part.nbytes, device=int(part.data.ptr))
        return Slab(region, part.nbytes, stage=self.cupy.empty(part.shape, dtype=np.uint8))

    def exchange(self, comm: Any, view: Any, sends: list[tuple[int, int, Region]],
                 recvs: list[tuple[int, int, Region]], stats: dict[str, int]) -> None:
        """One group of sends and receives on the compute stream, after the kernels that
        wrote the array and before those that read the shadow: the host never waits."""
        plan = self.slab_plans.find(view, self.address(view), sends, recvs)
        if plan.selected:
            self._exchange_selected(comm, view, sends, recvs, stats)
            return
        ranks = self.world_ranks_of(comm)
        stream = self.cupy.cuda.get_current_stream().ptr
        kind, nccl = self.nccl.NCCL_UINT8, self.comm
        self.nccl.groupStart()
        for (dst, _tag, _region), s in zip(sends, plan.sends, strict=False):
            if s.stage is not None:
                s.stage[...] = view[s.region]   # packed on the device
            nccl.send(s.device or s.stage.data.ptr, s.nbytes, kind, ranks[dst], stream)
            _count(stats, "reflect_bytes", s.nbytes)
        for (src, _tag, _region), s in zip(recvs, plan.recvs, strict=False):
            nccl.recv(s.device or s.stage.data.ptr, s.nbytes, kind, ranks[src], stream)
            _count(stats, "reflect_shadow_bytes", s.nbytes)
        self.nccl.groupEnd()
        for s in plan.recvs:
            if s.stage is not None:
                view[s.region] = s.stage        # unpacked on the device

    def _exchange_selected(self, comm: Any, view: Any, sends: list[tuple[int, int, Region]],
                           recvs: list[tuple[int, int, Region]], stats: dict[str, int]) -> None:
        """Slabs selected by index arrays (cyclic full shadows): gathered and scattered
        through buffers made per call."""
        ranks = self.world_ranks_of(comm)
        stream = self.cupy.cuda.get_current_stream()
        staged = []
        self.nccl.groupStart()
        for dst, _tag, region in sends:
            data = view[region_on_device(self.cupy, region)]
            if not data.flags.c_contiguous:
                data = self.cupy.ascontiguousarray(data)
            staged.append(data)
            self.comm.send(data.data.ptr, data.nbytes, self.nccl.NCCL_UINT8, ranks[dst], stream.ptr)
            _count(stats, "reflect_bytes", data.nbytes)
        unpack = []
        for src, _tag, region in recvs:
            shape = region_shape(view, region)
            region = region_on_device(self.cupy, region)
            # an index-array slab is a copy: receive into a fresh buffer, never index the view
            target = None if fancy(region) else view[region]
            buf = target if target is not None and target.flags.c_contiguous else \
                self.cupy.empty(shape, dtype=np.uint8)
            if buf is not target:
                unpack.append((region, buf))
            staged.append(buf)
            self.comm.recv(buf.data.ptr, buf.nbytes, self.nccl.NCCL_UINT8, ranks[src], stream.ptr)
            _count(stats, "reflect_shadow_bytes", buf.nbytes)
        self.nccl.groupEnd()
        for region, buf in unpack:
            view[region] = buf
        # No host wait: kernels and copies use the same stream, so everything that reads the
        # shadow is ordered after the exchange; the host only sees device data through
        # replicate_sync, which waits for the stream.
