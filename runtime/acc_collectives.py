"""``bcast (x) acc`` and ``reduction (op:x) acc`` (XcalableACC.md §4) on the device copies.

Whole variables and elements (``_xmpacc_bcast_acc`` / ``_xmpacc_reduce_acc``, called with
the arguments of the host entries; the device copy is the one that holds the address):

* between GPUs, NCCL on the device copy: ``bcast`` for bcast, ``allReduce`` for
  ``+ - * max min`` on the types NCCL has (8/32/64-bit integers, float, double), on the
  on-set's communicator (one NCCL communicator per MPI communicator, made collectively
  on first use, cached);
* otherwise (the host backend's "device" buffers, two ranks sharing a GPU, the other
  operators ``& | ^ && ||``, other types) MPI on the device values: in place on the host
  backend, through host memory for GPU buffers.

Sections and location reductions keep the swap path of passes/common/acc_comm.py.  Both
complete at once (``async`` permits overlap, it does not require it); on GPUs they are
ordered on the stream like the kernels around them.  After the first call at a site
over the executing nodes (no on or from clause, outside async) later calls run in C
(replay_collectives.py), as this path ran the first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .collectives import DTYPES, allreduce
from .deferred import Deferred
from .device_memory import DeviceMemory
from .errors import RuntimeFailure, where_text
from .replay_collectives import AccCall, AccCollectivePlans
from .shared import Shared
from .tasks import Tasks

# XMP operator code (contract.REDUCTION_OPS) -> NCCL operator name
_NCCL_OPS = {1: "NCCL_SUM", 2: "NCCL_PROD", 8: "NCCL_MAX", 9: "NCCL_MIN"}
_NCCL_TYPES = {np.dtype(np.int8): "NCCL_INT8", np.dtype(np.uint8): "NCCL_UINT8",
               np.dtype(np.int32): "NCCL_INT32", np.dtype(np.uint32): "NCCL_UINT32",
               np.dtype(np.int64): "NCCL_INT64", np.dtype(np.uint64): "NCCL_UINT64",
               np.dtype(np.float32): "NCCL_FLOAT32", np.dtype(np.float64): "NCCL_FLOAT64"}


class AccCollectives:
    """``bcast``/``reduction ... acc`` (a concern of ``api.Runtime``) and the NCCL
    communicators it made: on the device copies of ``device``, over the on-sets of
    ``tasks``; ``deferred``: the launches' deferred results (acc.py)."""

    def __init__(self, shared: Shared, device: DeviceMemory, tasks: Tasks, deferred: Deferred) -> None:
        self.shared, self.device, self.tasks, self.deferred = shared, device, tasks, deferred
        self.nccl_comms: dict[tuple[int, bool], Any] = {}   # (MPI communicator (py2f), side) -> NCCL
        self.plans: AccCollectivePlans | None = None   # made with the first plan

    @property
    def backend(self) -> Any:
        return self.device.backend

    def _xmpacc_bcast_acc(self, data: int, where: bytes, nbytes: int, from_nodes: int | None,
                          from_ref: int | None, on_nodes: int | None,
                          on_ref: int | None, name: bytes) -> None:
        w = where_text(where)
        comm = self.tasks.on_set(on_nodes, on_ref, w)
        if comm is None:
            return
        root = self.tasks.bcast_root(comm, from_nodes, from_ref, w)
        dev = self._device_part(data, nbytes, w, "bcast", name.decode())
        nccl_comm = self._nccl_comm(comm)
        kind = (0, 0)
        if nccl_comm is not None:
            from cupy.cuda import nccl

            stream = self.backend.xp.cuda.get_current_stream()
            nccl_comm.bcast(dev.data.ptr, nbytes, nccl.NCCL_UINT8, root, stream.ptr)
            kind = (nccl.NCCL_UINT8, 0)
        else:
            host = self._host_values(dev)
            comm.Bcast(host, root=root)
            self._put_back(dev, host)
        if not (from_nodes or from_ref or on_nodes or on_ref):
            staged = self.backend.name != "host"
            self._offer(where, AccCall(data, nbytes, 0, 0, np.uint8, self.backend.ptr(dev), nbytes, comm,
                                       root, nccl_comm, kind, staged))

    def _xmpacc_reduce_acc(self, data: int, where: bytes, count: int, type_code: int, op: int,
                           on_nodes: int | None, on_ref: int | None, name: bytes) -> None:
        w = where_text(where)
        comm = self.tasks.on_set(on_nodes, on_ref, w)
        if comm is None:
            return
        dtype = DTYPES.get(type_code)
        if dtype is None:
            raise RuntimeFailure(w, "unsupported type of a reduction variable")
        dtype = np.dtype(dtype)
        dev = self._device_part(data, count * dtype.itemsize, w, "reduction", name.decode()).view(dtype)
        nccl_comm = self._nccl_comm(comm) if op in _NCCL_OPS and dtype in _NCCL_TYPES else None
        kind = (0, 0)
        if nccl_comm is not None:
            from cupy.cuda import nccl

            kind = (getattr(nccl, _NCCL_TYPES[dtype]), getattr(nccl, _NCCL_OPS[op]))
            stream = self.backend.xp.cuda.get_current_stream()
            nccl_comm.allReduce(dev.data.ptr, dev.data.ptr, count, *kind, stream.ptr)
        else:
            host = self._host_values(dev)
            allreduce(comm, host, op, w)
            self._put_back(dev, host)
        if not (on_nodes or on_ref):
            self._offer(where, AccCall(data, count, type_code, op, dtype, self.backend.ptr(dev),
                                       count * dtype.itemsize, comm, 0, nccl_comm, kind,
                                       self.backend.name != "host"))

    def _offer(self, where: bytes, call: AccCall) -> None:
        """Later calls at this site, over the executing nodes: C (replay_collectives.py).
        The on-set of an ``on`` clause is split at each call, and under async the general
        path keeps the order of the operations: those stay here."""
        replay = self.shared.replay
        if replay is None or self.shared.asyncs.active:
            return
        if call.nccl is None and self.backend.name != "host" and self.device.transport is None \
                and call.comm.Get_size() != self.shared.world.Get_size():
            return   # MPI only until the transport is chosen (_nccl_comm): a later call may take NCCL
        if self.plans is None:
            self.plans = AccCollectivePlans(replay)
        self.plans.offer(where, call)

    def reduce_pending(self, data: int, comm: Any, op: int) -> bool:
        """``#pragma xmp reduction (op: v)`` where v's deferred acc reduction is still on
        its way (reductions.py): on a GPU, queue it behind that result on the side
        stream, NCCL over ``comm``, so that the host need not wait for the kernel first
        and the kernels after it need not wait for the reduction (in Himeno's loop,
        gosa).  False where it is not so (the host backend, operators and types NCCL
        lacks): the host runs it after the wait.  The answer is the same on every node,
        as the path must be."""
        found = [r for r in self.deferred.results() if r.host.ctypes.data == data]
        if len(found) != 1 or not getattr(found[0], "over_nodes_ok", False) or op not in _NCCL_OPS:
            return False
        dtype = found[0].host.dtype
        nccl_comm = self._nccl_comm(comm, side=True) if dtype in _NCCL_TYPES else None
        if nccl_comm is None:
            return False
        from cupy.cuda import nccl

        kind, nccl_op = getattr(nccl, _NCCL_TYPES[dtype]), getattr(nccl, _NCCL_OPS[op])
        found[0].reduce_over_nodes(lambda ptr, stream: nccl_comm.allReduce(ptr, ptr, 1, kind, nccl_op,
                                                                           stream.ptr))
        replay = self.shared.replay
        if replay is not None and not self.shared.asyncs.active:
            # later calls in C (replay_collectives.py), while a C record holds the result
            if self.plans is None:
                self.plans = AccCollectivePlans(replay)
            self.plans.offer_over_nodes(data, found[0], nccl_comm, (kind, nccl_op))
        return True

    def _device_part(self, addr: int, nbytes: int, w: str, what: str, name: str) -> Any:
        """The bytes of the device copy that mirror host ``addr .. addr + nbytes``."""
        copy = self.device.copy_holding(addr)
        if copy is None or addr + nbytes > copy.host_addr + copy.nbytes:
            raise RuntimeFailure(w, f"'{what} ... acc' of '{name}', which is not present on the device "
                                    "(no acc data, enter data, declare or acc replicate holds it)")
        offset = addr - copy.host_addr
        return self.backend.view(copy.buffer, "uint8", copy.nbytes)[offset: offset + nbytes]

    def _nccl_comm(self, comm: Any, side: bool = False) -> Any:
        """The NCCL communicator over ``comm``'s ranks, or None where MPI moves the values.
        ``side``: one of its own, for the reductions on the side stream (device_results.py):
        operations of one communicator on two streams could run at once."""
        from .transport import NcclTransport

        if self.backend.name == "host":
            return None
        world = self.shared.world
        if self.device.transport is None and comm.Get_size() != world.Get_size():
            return None   # choosing the transport is collective over every node: not from a subset
        transport = self.device.device_transport()
        if not isinstance(transport, NcclTransport):
            return None
        from mpi4py import MPI

        if not side and MPI.Comm.Compare(comm, world) in (MPI.IDENT, MPI.CONGRUENT):
            return transport.comm   # every node in world order: reflect's communicator serves
        key = (comm.py2f(), side)
        found = self.nccl_comms.get(key)
        if found is None:
            from cupy.cuda import nccl

            uid = nccl.get_unique_id() if comm.Get_rank() == 0 else None
            uid = comm.bcast(uid, root=0)
            found = self.nccl_comms[key] = nccl.NcclCommunicator(comm.Get_size(), uid, comm.Get_rank())
        return found

    def _host_values(self, dev: Any) -> np.ndarray:
        if self.backend.name == "host":
            return dev   # the host backend's device buffer is host memory: in place
        self.backend.wait()
        return np.ascontiguousarray(dev.get())

    def _put_back(self, dev: Any, host: np.ndarray) -> None:
        if host is not dev:
            dev[...] = self.backend.xp.asarray(host)
