"""``bcast (x) acc`` and ``reduction (op: s) acc`` in C after their first call.

A time loop that reduces a residual on the device (``reduction (max: err) acc``) or
broadcasts a device value crossed into Python at every call for one small collective.
Here the general path (acc_collectives.py) runs the first call at a site as always and
then hands the glue what it did (include/xmpacc_acc_collectives.h): the device bytes
of the variable and how they moved, NCCL in place on the compute stream (its
communicator, type and operator as the general path chose them) or MPI on host memory:
the host backend's "device" buffer in place, or, between GPUs that share one or for
operators and types NCCL lacks, a stage the bytes go through after the compute stream's
wait.  Later calls with the same variable, count, type and operator, under the same
device table and executing node set, run in C.

What stays general: ``on`` and ``from`` clauses (the on-set's communicator is split from
the reference's values at each call, as the host reduction's), async regions, and the
operators and types the host reduction's plans leave general (``&& ||``, bool, long double,
complex), since the general path reduces those on converted copies.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np

from .collectives import REPLAYED_OPS, REPLAYED_TYPES, mpi_op
from .replay import Held, Replay, loaded_library


class CAccCollectivePlan(ctypes.Structure):
    """_xmpacc_acc_collective_plan_t of include/xmpacc_acc_collectives.h."""

    _fields_ = [("data", ctypes.c_void_p), ("count", ctypes.c_longlong), ("type", ctypes.c_int),
                ("op", ctypes.c_int), ("generation", ctypes.c_longlong), ("exec", ctypes.c_size_t),
                ("device", ctypes.c_size_t), ("nbytes", ctypes.c_longlong), ("nccl", ctypes.c_void_p),
                ("nccl_type", ctypes.c_int), ("nccl_op", ctypes.c_int), ("root", ctypes.c_int),
                ("size", ctypes.c_int), ("comm", ctypes.c_size_t), ("datatype", ctypes.c_size_t),
                ("mpi_op", ctypes.c_size_t), ("stage", ctypes.c_void_p), ("scratch", ctypes.c_void_p),
                ("calls", ctypes.c_longlong), ("next", ctypes.c_void_p)]


class COverNodesPlan(ctypes.Structure):
    """_xmpacc_over_nodes_plan_t of include/xmpacc_acc_collectives.h."""

    _fields_ = [("data", ctypes.c_void_p), ("type", ctypes.c_int), ("op", ctypes.c_int),
                ("exec", ctypes.c_size_t), ("nccl", ctypes.c_void_p), ("nccl_type", ctypes.c_int),
                ("nccl_op", ctypes.c_int), ("calls", ctypes.c_longlong), ("next", ctypes.c_void_p)]


class CAccCollectives(ctypes.Structure):
    """_xmpacc_acc_collectives_t: NCCL's collectives."""

    _fields_ = [("allreduce", ctypes.c_void_p), ("broadcast", ctypes.c_void_p)]


@dataclass(frozen=True)
class AccCall:
    """A ``bcast``/``reduction ... acc`` as the general path just ran it, over the
    executing nodes (``comm``)."""

    data: int              # the host address the call passed
    count: int             # reduction: elements; bcast: bytes
    type_code: int         # the reduction's (bcast: 0)
    op: int                # the reduction's operator (bcast: 0)
    dtype: Any             # the elements' numpy type (bcast: uint8)
    device: int            # the device bytes that mirror the variable
    nbytes: int
    comm: Any
    root: int              # bcast's source rank in comm
    nccl: Any              # the NcclCommunicator it used; None: MPI on host memory
    nccl_kind: tuple[int, int] = (0, 0)   # NCCL's type and operator codes
    staged: bool = False   # GPU bytes through host memory (MPI between GPUs)


class AccCollectivePlans:
    """The C side's plans of ``bcast``/``reduction ... acc``, per site (``where``), kept
    and counted as the other sites' plans of ``replay``."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.plans: dict[int, list[Held]] = {}
        replay.more.append(self.plans)
        replay.bind_setters("_xmpacc_acc_collective_plan_set", "_xmpacc_over_nodes_plan_set")
        self.nccl = CAccCollectives.in_dll(replay.lib, "_xmpacc_acc_collectives")
        self.over_nodes: dict[int, list[Held]] = {}
        replay.more.append(self.over_nodes)

    def offer(self, where: bytes, call: AccCall) -> None:
        """Later calls of the site whose general call just ran ``call``: C, where it can."""
        replay = self.replay
        site = replay.c.where or 0
        if not site or ctypes.string_at(site) != where or not replay.steady(site):
            return
        if call.nccl is None and not self._mpi_ready(call):
            return
        if call.nccl is not None and not self._bind_nccl():
            return
        p = CAccCollectivePlan(call.data, call.count, call.type_code, call.op, replay.c.generation,
                               replay.c.exec, call.device, call.nbytes)
        p.root, p.size = call.root, call.comm.Get_size()
        keep: list[Any] = [call.comm]
        if call.nccl is not None:
            p.nccl, (p.nccl_type, p.nccl_op) = call.nccl.comm, call.nccl_kind
            keep.append(call.nccl)
        else:
            self._mpi_plan(p, call, keep)
        name = "replayed_acc_reductions" if call.op else "replayed_acc_bcasts"
        replay._register(self.plans, site, "_xmpacc_acc_collective_plan_set", Held(p, keep, counters=(name,)))

    def offer_over_nodes(self, data: int, result: Any, nccl: Any, nccl_kind: tuple[int, int]) -> None:
        """The reduction directive of a variable whose deferred launch result ``result``
        the general path just reduced over the nodes behind it (acc_collectives.py
        ``reduce_pending``, NCCL's side communicator ``nccl``): later calls in C while
        a C record holds the result (include/xmpacc_acc_collectives.h)."""
        replay = self.replay
        c = getattr(result, "c", None)
        if c is None or not c.function or not replay.steady(data) or not self._bind_nccl():
            return
        plan = COverNodesPlan(data, c.type, c.op, replay.c.exec, nccl.comm, *nccl_kind)
        replay._register(self.over_nodes, data, "_xmpacc_over_nodes_plan_set",
                         Held(plan, [nccl], counters=("replayed_reductions_over_nodes",)))

    def _mpi_ready(self, call: AccCall) -> bool:
        c = self.replay.c
        if not (c.allreduce and c.bcast) or call.nbytes > 0x7fffffff:
            return False
        return not call.op or call.op in REPLAYED_OPS and call.type_code in REPLAYED_TYPES

    def _mpi_plan(self, p: CAccCollectivePlan, call: AccCall, keep: list[Any]) -> None:
        from mpi4py import MPI

        p.comm = MPI._handleof(call.comm)
        if call.op:
            p.datatype = MPI._handleof(MPI._typedict[np.dtype(call.dtype).char])
            p.mpi_op = MPI._handleof(mpi_op(call.op, np.dtype(call.dtype), ""))
            scratch = ctypes.create_string_buffer(max(call.nbytes, 1))
            p.scratch = ctypes.addressof(scratch)
            keep.append(scratch)
        else:
            p.datatype = self.replay.c.byte_type
        if call.staged:
            stage = ctypes.create_string_buffer(max(call.nbytes, 1))
            p.stage = ctypes.addressof(stage)
            keep.append(stage)

    def _bind_nccl(self) -> bool:
        """ncclAllReduce and ncclBroadcast of the NCCL CuPy loaded (once)."""
        if self.nccl.allreduce:
            return True
        path = loaded_library("libnccl")
        if path is None:
            return False
        try:
            lib = ctypes.CDLL(path)
            found = [ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
                     for name in ("ncclAllReduce", "ncclBroadcast")]
        except (OSError, AttributeError):
            return False
        if not all(found):
            return False
        self.nccl.allreduce, self.nccl.broadcast = found
        return True
