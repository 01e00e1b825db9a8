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
"""

from __future__ import annotations

import ctypes
import os
import socket
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import acc_gmove_agent as agent
from .errors import RuntimeFailure, where_text
from .sections import Section


@dataclass
class DeviceSide:
    """A coarray's device copy on this image and the ways to reach the others'."""

    copy: Any                    # the DeviceCopy of the present table (acc.py)
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


class DeviceCoarrayRuntime:
    """Mixed into ``api.Runtime`` through ``CoarrayRuntime``; uses the coarray helpers of
    coarray.py, the present table (acc.py) and the gmove agent (acc_gmove.py)."""

    world: Any
    backend: Any
    copies: dict[int, Any]
    generation: int

    # ------------------------------------------------------------------ start-up
    def _xmpacc_coarray_device_init(self, base: int, where: bytes) -> None:
        w = where_text(where)
        co = self._coarray(base, w)   # type: ignore[attr-defined]
        copy = self.copies.get(base)
        if copy is None or copy.nbytes != co.nbytes:
            raise RuntimeFailure(w, f"coarray '{co.name}' has no device copy after its 'acc declare' "
                                    "(this is a bug in xmpacc)", collective=True)
        if co.device is not None:   # declared on the device in a second file too
            return
        devices = self._coarray_state().setdefault("devices", [])   # type: ignore[attr-defined]
        if self.backend.name == "cuda":
            self._ipc_buffer(copy)
        co.device = DeviceSide(copy, ((), len(devices)))
        devices.append(co)
        self._connect(co, w)

    def _ipc_buffer(self, copy: Any) -> None:
        """The copy moved into an allocation of its own, which CUDA IPC can export."""
        cp = self.backend.cupy
        mem = cp.cuda.memory.Memory(max(copy.nbytes, 1))
        buf = cp.ndarray((max(copy.nbytes, 1),), dtype=np.uint8, memptr=cp.cuda.MemoryPointer(mem, 0))
        buf[:copy.nbytes] = copy.buffer[:copy.nbytes]
        copy.buffer, copy.view = buf, None
        self.generation += 1   # launches prepared with the old buffer are stale

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
        self._xmpacc_gmove_agent_init(where.encode())   # type: ignore[attr-defined]
        copy = side.copy
        self._gmove_state()["agent"].offer(   # type: ignore[attr-defined]
            side.key, lambda esize: self.backend.view(copy.buffer, "uint8", copy.nbytes).reshape(-1, esize))

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

    def _device_quiet(self) -> None:
        """Before an image-control statement: this image's device work is done (module doc)."""
        state = self.__dict__.get("_coarrays")
        if state and state.get("devices"):
            self.backend.wait()
            self.backend.wait_all()

    # ------------------------------------------------------------------ entries
    def _xmpacc_coarray_put_acc(self, base: int, where: bytes, image: int, remote_sec: int, local: int,
                                local_sec: int, flags: int) -> None:
        self._transfer(base, where, image, remote_sec, local, local_sec, flags, put=True)   # type: ignore[attr-defined]

    def _xmpacc_coarray_get_acc(self, base: int, where: bytes, image: int, remote_sec: int, local: int,
                                local_sec: int, flags: int) -> None:
        self._transfer(base, where, image, remote_sec, local, local_sec, flags, put=False)   # type: ignore[attr-defined]

    def _xmpacc_coarray_get_elem_acc(self, base: int, where: bytes, image: int, elem: int,
                                     nbytes: int) -> int:
        w = where_text(where)
        co = self._device_coarray(base, w)
        rank = self._image(co, image, w)   # type: ignore[attr-defined]
        disp = self._offset(co, elem, nbytes, w, base)   # type: ignore[attr-defined]
        # rows of the element's size where it is aligned to it (always, for C elements)
        esize, offsets = (nbytes, np.array([disp // nbytes])) if disp % nbytes == 0 else \
            (1, np.arange(disp, disp + nbytes, dtype=np.int64))
        data = to_host(self._remote_read(co, rank, True, offsets, esize, w))
        buf = self._scratch(nbytes)   # type: ignore[attr-defined]
        buf[:nbytes] = data.reshape(-1)
        self._count("get", nbytes)   # type: ignore[attr-defined]
        return int(buf.ctypes.data)

    # ------------------------------------------------------------------ the two sides
    def _device_coarray(self, base: int, where: str) -> Any:
        """The coarray whose device copy starts at ``base`` (use_device gave its address)."""
        for co in self._coarray_state().get("devices", []):   # type: ignore[attr-defined]
            if self.backend.ptr(co.device.copy.buffer) == base:
                return co
        raise RuntimeFailure(where, "a coarray in use_device whose device copy is not a coarray: a coarray "
                                    "gets one only from '#pragma acc declare create(...)' at file scope")

    def _device_local_rows(self, addr: int, offsets: np.ndarray, esize: int, where: str) -> Any:
        """This image's side at a device address (a use_device name) as rows of ``esize``
        bytes, far enough to hold ``offsets``: a part of the device copy that holds it."""
        nbytes = (int(offsets.max()) + 1) * esize
        for copy in self.copies.values():
            start = addr - self.backend.ptr(copy.buffer)
            if 0 <= start < max(copy.nbytes, 1):
                if start + nbytes > copy.nbytes:
                    raise RuntimeFailure(where, f"the local side of this coarray statement reaches beyond "
                                                f"the device copy of '{copy.name}' ({copy.nbytes} bytes)")
                view = self.backend.view(copy.buffer, "uint8", copy.nbytes)
                return view[start:start + nbytes].reshape(-1, esize)
        raise RuntimeFailure(where, "the local side of this coarray statement is no device copy "
                                    "(this is a bug in xmpacc)")

    def _remote_write(self, co: Any, rank: int, on_device: bool, offsets: np.ndarray, data: Any,
                      where: str) -> None:
        esize = int(data.shape[1])
        if not on_device:   # the host copy of image k: its MPI window
            self._window_move(co, rank, offsets, to_host(data), True, where)   # type: ignore[attr-defined]
            return
        rows = self._coarray_rows(co, rank, esize)
        if rows is not None:
            rows[agent.selector(offsets, self.backend.xp)] = self.backend.xp.asarray(data)
            self._device_done(rank)
            return
        self._ask(co, rank, agent.PUT, offsets, esize, to_host(data).reshape(-1), where)

    def _remote_read(self, co: Any, rank: int, on_device: bool, offsets: np.ndarray, esize: int,
                     where: str) -> Any:
        if not on_device:
            data = np.empty((len(offsets), esize), dtype=np.uint8)
            self._window_move(co, rank, offsets, data, False, where)   # type: ignore[attr-defined]
            return data
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
        ga = self._gmove_state()["agent"]   # type: ignore[attr-defined]
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
