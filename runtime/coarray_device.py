"""Coarrays on the device (XcalableACC §5a): puts and gets between device copies.

A coarray gets a device copy from ``#pragma acc declare create(a)`` (or ``copyin``) at file
scope: the declare's enter data makes it, then ``_xmpacc_coarray_device_init`` (start-up,
collective) makes it a coarray of its own, reachable from every image:

* from this image: its own buffer;
* from another process on the same host, GPU to GPU: CUDA IPC.  Each copy is a
  ``cudaMalloc`` of its own (an IPC handle maps an allocation from its start), whose handle
  the images of the host exchange and open; a put or get is then a copy kernel on this
  image's stream into or out of the peer's memory (``XMPACC_COARRAY_IPC=0`` turns it off);
* otherwise (other hosts, the host backend, an IPC that fails): the gmove agent of the
  target image (acc_gmove_agent.py), a thread that gathers or scatters its device copy on
  request, the data travelling through host memory by MPI.  The MPI need not be
  CUDA-aware, nor provide windows.

Inside ``host_data use_device(a, b)`` the generated code hands the runtime device addresses
(``flags`` say which sides are device copies, contract.py): the coarray is found by its
device copy's address and an element by its offset from it, the same offset on image k.

Completion is the host local view's (coarray.py): a put or get is complete when its
statement ends (a put is in image k's device copy, a get's data in the local side).  In a
program with device coarrays every image-control statement (``sync_all``, ``sync_memory``,
``sync_images``, ``post``, ``wait``, ``lock``, ``unlock``, ``critical``) first waits for
this image's queued device work (kernels, async updates), so that what a kernel wrote
before the statement is what another image gets after its matching statement, and a put
made after it lands behind the kernels that read the old values.

``DeviceCoarrays`` is the device side of ``coarray.Coarrays``, which holds one: the device
coarrays of this image, found through ``shared.Device`` (the backend, the present table)
and served to images out of reach by the gmove agent (``AccGmove``).
"""

from __future__ import annotations

import ctypes
import os
import socket
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import acc_gmove_agent as agent
from .acc_gmove import AccGmove
from .errors import RuntimeFailure
from .sections import Section
from .shared import Device


@dataclass
class DeviceSide:
    """A coarray's device copy on this image and the ways to reach the others'."""

    copy: Any                    # the DeviceCopy of the present table (device_memory.py)
    key: agent.Key               # its name for the gmove agents: ((), registration order)
    peers: dict[int, Any] = field(default_factory=dict)   # world rank -> its copy, mapped by IPC


def element_offsets(sec: Section) -> np.ndarray:
    """The section's elements as offsets (in elements) from the array's start, in row-major
    order of the section's shape (a scalar or element: one offset)."""
    strides = [1] * len(sec.extents)
    for d in range(len(sec.extents) - 2, -1, -1):
        strides[d] = strides[d + 1] * sec.extents[d + 1]
    offsets = np.zeros((), dtype=np.int64)
    for s, stride in zip(sec.subs, strides, strict=True):
        if s.triplet:
            offsets = np.add.outer(offsets, (np.arange(s.length, dtype=np.int64) * s.step + s.base) * stride)
        else:
            offsets = offsets + np.int64(s.base) * stride
    return offsets.reshape(-1)


def host_rows(addr: int, offsets: np.ndarray, esize: int) -> np.ndarray:
    """Host memory at ``addr`` as rows of ``esize`` bytes, far enough to hold ``offsets``."""
    nbytes = (int(offsets.max()) + 1) * esize
    raw = (ctypes.c_char * nbytes).from_address(addr)
    return np.frombuffer(raw, dtype=np.uint8, count=nbytes).reshape(-1, esize)


def to_host(data: Any) -> np.ndarray:
    """Rows as contiguous host bytes (a GPU's copied)."""
    return np.ascontiguousarray(data if isinstance(data, np.ndarray) else data.get())


class DeviceCoarrays:
    """The device copies of this image's coarrays and the ways to reach other images' copies."""

    def __init__(self, world: Any, device: Device, agents: AccGmove) -> None:
        self.world, self.device, self.agents = world, device, agents
        self.devices: list[Any] = []   # coarray.Coarray with a device copy, in registration order

    @property
    def backend(self) -> Any:
        return self.device.backend

    # ------------------------------------------------------------------ start-up
    def attach(self, co: Any, where: str) -> None:
        """``co`` gets its device copy (``_xmpacc_coarray_device_init``, collective)."""
        copy = self.device.copies.get(co.base)
        if copy is None or copy.nbytes != co.nbytes:
            raise RuntimeFailure(where, f"coarray '{co.name}' has no device copy after its 'acc declare' "
                                        "(this is a bug in xmpacc)", collective=True)
        if co.device is not None:   # declared on the device in a second file too
            return
        if self.backend.name == "cuda":
            self._ipc_buffer(copy)
        co.device = DeviceSide(copy, ((), len(self.devices)))
        self.devices.append(co)
        self._connect(co, where)

    def _ipc_buffer(self, copy: Any) -> None:
        """The copy moved into an allocation of its own, which CUDA IPC can export."""
        cp = self.backend.cupy
        mem = cp.cuda.memory.Memory(max(copy.nbytes, 1))
        buf = cp.ndarray((max(copy.nbytes, 1),), dtype=np.uint8, memptr=cp.cuda.MemoryPointer(mem, 0))
        buf[:copy.nbytes] = copy.buffer[:copy.nbytes]
        copy.buffer, copy.view = buf, None
        self.device.generation += 1   # launches prepared with the old buffer are stale

    def _connect(self, co: Any, where: str) -> None:
        """Collective: map the same host's copies by CUDA IPC; the agents serve the rest."""
        from mpi4py import MPI

        size, me = self.world.Get_size(), self.world.Get_rank()
        if size == 1:
            return
        side = co.device
        ipc = self.backend.name == "cuda" and os.environ.get("XMPACC_COARRAY_IPC", "1") != "0"
        handle = self.backend.cupy.cuda.runtime.ipcGetMemHandle(self.backend.ptr(side.copy.buffer)) \
            if ipc else None
        host = socket.gethostname()
        for rank, (their_host, their_handle) in enumerate(self.world.allgather((host, handle))):
            if rank != me and their_host == host and handle is not None and their_handle is not None:
                side.peers[rank] = self._open_ipc(their_handle, side.copy.nbytes)
        side.peers = {r: rows for r, rows in side.peers.items() if rows is not None}
        if not self.world.allreduce(len(side.peers) < size - 1, op=MPI.LOR):
            return
        if MPI.Query_thread() < MPI.THREAD_MULTIPLE:
            raise RuntimeFailure(where, f"coarray '{co.name}' on the device: its puts and gets through "
                                        "host memory need an MPI library that provides MPI_THREAD_MULTIPLE "
                                        "(this one does not)", collective=True)
        copy, backend = side.copy, self.backend
        self.agents.start_agent(where).offer(
            side.key, lambda esize: backend.view(copy.buffer, "uint8", copy.nbytes).reshape(-1, esize))

    def _open_ipc(self, handle: bytes, nbytes: int) -> Any:
        """A peer's copy as bytes on this GPU (peer access is enabled with the mapping); None
        where IPC fails (then its agent serves it)."""
        cp = self.backend.cupy
        try:
            ptr = cp.cuda.runtime.ipcOpenMemHandle(handle)
        except Exception:  # noqa: BLE001 - an IPC this system refuses: the agent instead
            return None
        # this device's id: the kernels that copy run here, reaching the peer's memory
        mem = cp.cuda.UnownedMemory(ptr, max(nbytes, 1), handle, self.backend.device_id)
        return cp.ndarray((max(nbytes, 1),), dtype=np.uint8, memptr=cp.cuda.MemoryPointer(mem, 0))[:nbytes]

    def quiet(self) -> None:
        """Before an image-control statement: this image's device work is done (module doc)."""
        if self.devices:
            self.backend.wait()
            self.backend.wait_all()

    # ------------------------------------------------------------------ the two sides
    def find(self, base: int, where: str) -> Any:
        """The coarray whose device copy starts at ``base`` (use_device gave its address)."""
        for co in self.devices:
            if self.backend.ptr(co.device.copy.buffer) == base:
                return co
        raise RuntimeFailure(where, "a coarray in use_device whose device copy is not a coarray: a coarray "
                                    "gets one only from '#pragma acc declare create(...)' at file scope")

    def local_rows(self, addr: int, offsets: np.ndarray, esize: int, where: str) -> Any:
        """This image's side at a device address (a use_device name) as rows of ``esize``
        bytes, far enough to hold ``offsets``: a part of the device copy that holds it."""
        nbytes = (int(offsets.max()) + 1) * esize
        for copy in self.device.copies.values():
            start = addr - self.backend.ptr(copy.buffer)
            if 0 <= start < max(copy.nbytes, 1):
                if start + nbytes > copy.nbytes:
                    raise RuntimeFailure(where, f"the local side of this coarray statement reaches beyond "
                                                f"the device copy of '{copy.name}' ({copy.nbytes} bytes)")
                view = self.backend.view(copy.buffer, "uint8", copy.nbytes)
                return view[start:start + nbytes].reshape(-1, esize)
        raise RuntimeFailure(where, "the local side of this coarray statement is no device copy "
                                    "(this is a bug in xmpacc)")

    def write(self, co: Any, rank: int, offsets: np.ndarray, data: Any, where: str) -> None:
        """Rows ``data`` into image ``rank``'s device copy at element ``offsets``."""
        esize = int(data.shape[1])
        rows = self._coarray_rows(co, rank, esize)
        if rows is not None:
            rows[agent.selector(offsets, self.backend.xp)] = self.backend.xp.asarray(data)
            self._device_done(rank)
            return
        self._ask(co, rank, agent.PUT, offsets, esize, to_host(data).reshape(-1), where)

    def read(self, co: Any, rank: int, offsets: np.ndarray, esize: int, where: str) -> Any:
        """Rows of image ``rank``'s device copy at element ``offsets``."""
        rows = self._coarray_rows(co, rank, esize)
        if rows is not None:
            data = rows[agent.selector(offsets, self.backend.xp)].copy()   # may be the local side's memory
            self._device_done(rank)
            return data
        return self._ask(co, rank, agent.GET, offsets, esize, None, where)

    def _coarray_rows(self, co: Any, rank: int, esize: int) -> Any:
        """Image ``rank``'s device copy as rows, where this image reaches it directly (its own;
        a peer's by IPC), else None (its agent serves it)."""
        side = co.device
        if rank == self.world.Get_rank():
            return self.backend.view(side.copy.buffer, "uint8", side.copy.nbytes).reshape(-1, esize)
        peer = side.peers.get(rank)
        return peer.reshape(-1, esize) if peer is not None else None

    def _device_done(self, rank: int) -> None:
        """A move into or out of a peer's memory is complete when its statement ends."""
        if self.backend.name == "cuda" and rank != self.world.Get_rank():
            self.backend.cupy.cuda.get_current_stream().synchronize()

    def _ask(self, co: Any, rank: int, op: int, offsets: np.ndarray, esize: int, data: np.ndarray | None,
             where: str) -> np.ndarray:
        """Image ``rank``'s agent puts or gets the elements (the answer is complete on its device)."""
        ga = self.agents.agent
        if ga is None:   # pragma: no cover - _connect started it for every image it cannot reach
            raise RuntimeFailure(where, f"coarray '{co.name}': no gmove agent (this is a bug in xmpacc)")
        ((code, answer),) = ga.request(op, co.device.key, esize, [(rank, offsets, data)])
        if code != agent.OK:
            detail = bytes(answer).rstrip(b"\0").decode(errors="replace") if code == agent.BROKEN else \
                "its device copy is not registered there"
            what = "put into" if op == agent.PUT else "get from"
            raise RuntimeFailure(where, f"the {what} the device copy of coarray '{co.name}' on image {rank} "
                                        f"failed: {detail}")
        return answer
