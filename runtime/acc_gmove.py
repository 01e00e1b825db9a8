"""``gmove ... acc`` (XcalableACC.md §4): a gmove between the device copies of both sides.

The plan is the host gmove's (gmove_plan.py, made and cached by runtime/gmove.py: per peer
the element offsets to send and to receive); only its execution differs.  Every side is
viewed as rows of ``elem_size`` bytes of its device copy (a distributed array's copy
mirrors its local buffer with shadows, so the plan's offsets index it as they index the
host buffer), and:

* the elements to send and those that stay are gathered on the device first (index
  arrays on the device, or a slice for a contiguous block), so that a gmove within one
  array reads every source before anything lands;
* the messages move by NCCL point-to-point calls in one group between GPUs (the world
  communicator of ``transport.NcclTransport``), else by MPI on the gmove communicator:
  directly from the host backend's "device" buffers, through host memory for GPU buffers
  (two ranks sharing one GPU, or ``XMPACC_REFLECT=staged``);
* received pieces are scattered into the destination's device copy.

A constant source (``a[0:n] = 1.5``) is a host value; a scalar source is broadcast as the
host gmove does: first a gmove into a one-element device buffer on every node, then from it.
``async`` is accepted and the move completes at once (async permits overlap, it does not
require it).

``gmove in/out ... acc`` plan as the host's one-sided gmove does; the elements on other
nodes are got from or put to their device copies by those nodes' agents
(acc_gmove_agent.py), the program's control flow there running no code for it.

``AccGmove`` is a concern of ``api.Runtime``: it plans through the host's ``Gmove`` (which
also holds the agent) and reaches the device copies through ``shared.Device``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import acc_gmove_agent as agent
from .acc_gmove_agent import GmoveAgent
from .contract import (
    GMOVE_ACC_HOST_SOURCE,
    GMOVE_ACC_IN,
    GMOVE_ACC_OUT,
    GMOVE_COLLECTIVE,
    GMOVE_IN,
    GMOVE_OUT,
)
from .errors import RuntimeFailure, where_text
from .gmove import Gmove, Operand, fills, one_sided
from .gmove_exec import make_runner
from .gmove_plan import Side, SideDim, collective_plan
from .sections import Section, Sub, local_view
from .shared import Device, Shared

_TAG = 7302
Selector = Any   # a slice, or an index array (numpy or CuPy)


@dataclass
class DeviceRunner:
    """A gmove plan with its selectors on the device: built once per call site."""

    sends: list[tuple[int, Selector, int]]     # (world rank, source rows, count)
    recvs: list[tuple[int, Selector, int]]     # (world rank, destination rows, count)
    comm_sends: list[int]                      # the same peers as ranks of the gmove communicator
    comm_recvs: list[int]
    stay: tuple[Selector, Selector] | None     # (source rows, destination rows) on this node
    nbytes: int


@dataclass
class OneSidedRunner:
    """A gmove in/out plan with this node's selectors on the device: built once per call
    site.  ``peers``: (world rank, my rows, the peer's rows) -- for ``in`` my rows receive,
    for ``out`` they are sent."""

    peers: list[tuple[int, Selector, np.ndarray]]
    stay: tuple[Selector, Selector] | None
    nbytes: int


def _one_sided_runner(how: str, me: int, esize: int, xp: Any) -> Any:
    def make(plan: Any) -> OneSidedRunner:
        mine = plan.recvs if how == "in" else plan.sends
        peers = [(peer, agent.selector(mine[peer], xp), theirs)
                 for peer, theirs in sorted(plan.remote.items())]
        stay = None
        if me in plan.sends and me in plan.recvs:
            stay = (agent.selector(plan.sends[me], xp), agent.selector(plan.recvs[me], xp))
        nbytes = esize * sum(len(theirs) for theirs in plan.remote.values())
        return OneSidedRunner(peers, stay, nbytes)
    return make


def _read(rows: Any, sel: Selector, aliased: bool) -> Any:
    """The rows ``sel`` selects: a copy where they could be overwritten before they are used
    (an index array already gives one)."""
    picked = rows[sel]
    return picked.copy() if aliased and isinstance(sel, slice) else picked


def _device_runner(runner: Any, members: list[int], xp: Any) -> DeviceRunner:
    sends = [(members[t.peer], agent.selector(t.offsets, xp), t.count) for t in runner.sends]
    recvs = [(members[t.peer], agent.selector(t.offsets, xp), t.count) for t in runner.recvs]
    stay = None
    if runner.self_src is not None and runner.self_dst is not None:
        stay = (agent.selector(runner.self_src.offsets, xp), agent.selector(runner.self_dst.offsets, xp))
    return DeviceRunner(sends, recvs, [t.peer for t in runner.sends], [t.peer for t in runner.recvs],
                        stay, runner.nbytes)


class AccGmove:
    """gmove ... acc and this node's agent; ``gmove`` plans (and holds the agent),
    ``device`` has the backend and the present table."""

    def __init__(self, shared: Shared, gmove: Gmove, device: Device) -> None:
        self.shared, self.gmove, self.device = shared, gmove, device
        self.world = shared.world

    @property
    def backend(self) -> Any:
        return self.device.backend

    @property
    def agent(self) -> GmoveAgent | None:
        """This node's agent, once started (``start_agent``)."""
        return self.gmove.agent

    def _xmpacc_gmove_acc(self, where: bytes, flags: int, lhs_array: int | None, lhs_base: int | None,
                          lhs_sec: int, rhs_array: int | None, rhs_base: int | None, rhs_sec: int,
                          lhs_name: bytes, rhs_name: bytes) -> None:
        w, dst, src = self.gmove.sides(where, (lhs_array, lhs_base, lhs_sec),
                                       (rhs_array, rhs_base, rhs_sec), (lhs_name, rhs_name))
        esize = dst.side.section.elem_size
        dst_rows = self._device_rows(dst, lhs_array, w)
        if flags & GMOVE_ACC_HOST_SOURCE:   # a constant: its host value, on the device
            src_rows = self.backend.xp.asarray(np.array(src.view()).view(np.uint8).reshape(-1, esize))
        else:
            src_rows = self._device_rows(src, rhs_array, w)
        mode = GMOVE_IN if flags & GMOVE_ACC_IN else GMOVE_OUT if flags & GMOVE_ACC_OUT else GMOVE_COLLECTIVE
        if fills(dst, src):
            self._acc_gmove_fill(w, mode, dst, src, dst_rows, src_rows)
        else:
            self._acc_gmove_move(w, mode, dst, src, dst_rows, src_rows)

    def _acc_gmove_move(self, w: str, mode: int, dst: Operand, src: Operand,
                        dst_rows: Any, src_rows: Any) -> None:
        how = one_sided(mode, dst, src)
        if how is not None:
            self._acc_gmove_one_sided(w, how, dst, src, dst_rows, src_rows)
        else:
            self._acc_gmove_run(w, dst, src, dst_rows, src_rows)

    def _device_rows(self, op: Operand, arr_ptr: int | None, w: str) -> Any:
        """The device copy of a side as rows of one element each."""
        esize = op.side.section.elem_size
        if op.array is not None:
            copy = self.device.copies.get(arr_ptr or 0)
            offset, need = 0, int(op.array.buffer.nbytes)
        else:
            copy = self.device.copy_holding(op.base)
            offset = op.base - copy.host_addr if copy is not None else 0
            need = int(local_view(op.base, op.side.section).nbytes) if op.side.section.subs else esize
        rows = self._rows_of(copy, offset, need, esize)
        if isinstance(rows, int) and rows == agent.ABSENT:
            raise RuntimeFailure(w, f"'gmove ... acc' of '{op.name}', which is not present on the "
                                    "device (no acc data, enter data, declare or acc replicate holds it)")
        if isinstance(rows, int):
            raise RuntimeFailure(w, f"'gmove ... acc': '{op.name}' is only partly present on the device "
                                    f"({copy.nbytes} bytes of '{copy.name}' are)")
        return rows

    def _rows_of(self, copy: Any, offset: int, need: int, esize: int) -> Any:
        """Bytes ``offset`` to ``offset + need`` of a device copy as rows of ``esize`` bytes,
        or why not (agent.ABSENT: no copy, agent.PARTLY: the copy does not hold them)."""
        if copy is None:
            return agent.ABSENT
        if offset % esize or offset + need > copy.nbytes:
            return agent.PARTLY
        return self.backend.view(copy.buffer, "uint8", copy.nbytes)[offset: offset + need].reshape(-1, esize)

    def _acc_gmove_fill(self, w: str, mode: int, dst: Operand, src: Operand,
                        dst_rows: Any, src_rows: Any) -> None:
        """``a[0:n] = x``: x's device value to every node (a gmove into a one-element
        device buffer), then from there into each owner's part of a (as the host's
        _gmove_fill: ``in`` may read x, ``out`` write a, on other nodes)."""
        esize = src.side.section.elem_size
        ndim = len(dst.side.section.shape)
        value_rows = self.backend.xp.zeros((1, esize), dtype=np.uint8)
        holder = np.zeros(esize, dtype=np.uint8)   # the operands' host address: never read here
        scalar = Operand("(value)", Side((), Section(esize, (), ()), None), None, int(holder.ctypes.data))
        self._acc_gmove_move(w, mode if mode == GMOVE_IN else GMOVE_COLLECTIVE, scalar, src,
                             value_rows, src_rows)
        shape = dst.side.section.shape
        spread = Operand("(value)", Side(tuple(SideDim(1) for _ in range(ndim)),
                                         Section(esize, (1,) * ndim,
                                                 tuple(Sub(True, 0, n, 0) for n in shape)),
                                         None), None, int(holder.ctypes.data))
        self._acc_gmove_move(w, mode if mode == GMOVE_OUT else GMOVE_COLLECTIVE, dst, spread,
                             dst_rows, value_rows)

    def _acc_gmove_one_sided(self, w: str, how: str, dst: Operand, src: Operand, dst_rows: Any,
                             src_rows: Any) -> None:
        """``in``: my destination rows from the holders' device copies; ``out``: my source
        rows to them.  The rows that stay are read before anything lands."""
        remote = src if how == "in" else dst
        ga = self.gmove.agent
        key = ga.key_of(remote.array) if ga is not None else None
        if ga is None or key is None:
            raise RuntimeFailure(w, f"gmove {how} ... acc: '{remote.name}' has no agent key "
                                    "(this is a bug in xmpacc)")
        xp, esize = self.backend.xp, dst.side.section.elem_size
        r = self.gmove.one_sided_plan(w, how, dst, src, f"acc {how}",
                                      _one_sided_runner(how, self.world.Get_rank(), esize, xp))
        staying = _read(src_rows, r.stay[0], bool(xp.may_share_memory(src_rows, dst_rows))) \
            if r.stay is not None else None
        items = [(peer, theirs, self._host_bytes(src_rows[mine]) if how == "out" else None)
                 for peer, mine, theirs in r.peers]
        answers = ga.request(agent.GET if how == "in" else agent.PUT, key, esize, items)
        for (peer, mine, _), (code, data) in zip(r.peers, answers, strict=True):
            if code != agent.OK:
                detail = bytes(data).rstrip(b"\0").decode(errors="replace")
                raise RuntimeFailure(w, f"gmove {how} ... acc: "
                                        f"{agent.reason(code, remote.name, peer, detail)}")
            if how == "in":
                dst_rows[mine] = xp.asarray(data)
        if staying is not None and r.stay is not None:
            dst_rows[r.stay[1]] = staying
        self.shared.count("gmove_bytes", r.nbytes)

    # ------------------------------------------------------------------ the agent
    def _xmpacc_gmove_agent_init(self, where: bytes) -> None:
        """The program has gmove in/out acc: start this node's agent (collective, before
        any align; ``where``: the first such gmove)."""
        self.start_agent(where_text(where))

    def start_agent(self, where: str) -> GmoveAgent:
        """This node's agent, started on the first call (collective: gmove in/out acc, a
        device coarray that some image cannot reach directly)."""
        if self.gmove.agent is not None:
            return self.gmove.agent
        from mpi4py import MPI

        if MPI.Query_thread() < MPI.THREAD_MULTIPLE:
            raise RuntimeFailure(where, "'gmove in/out ... acc' needs an MPI library "
                                        "that provides MPI_THREAD_MULTIPLE (this one does not)",
                                 collective=True)
        import atexit

        device = self.device
        ga = GmoveAgent(self.world, self._agent_rows, lambda: getattr(device, "backend", None),
                              device.present_lock)
        atexit.register(self.stop_agent)   # before mpi4py finalizes MPI (LIFO)
        self.gmove.use_agent(ga)
        return ga

    def stop_agent(self) -> None:
        from mpi4py import MPI

        ga = self.gmove.agent
        if ga is not None and not MPI.Is_finalized():
            ga.stop(self.world)

    def _agent_rows(self, ptr: int, esize: int) -> Any:
        """For the agent: the device copy of the array of descriptor ``ptr`` as rows, or why not."""
        arr = self.shared.arrays.get(ptr)
        if arr is None:
            return agent.UNKNOWN
        return self._rows_of(self.device.copies.get(ptr), 0, int(arr.buffer.nbytes), esize)

    def _acc_gmove_run(self, w: str, dst: Operand, src: Operand, dst_rows: Any, src_rows: Any) -> None:
        comm, members = self.gmove.communicator(w, dst, src)
        me = self.world.Get_rank()
        key = (w, "acc", dst.key(), src.key(), comm.py2f())
        xp = self.backend.xp

        def build() -> DeviceRunner:
            size = self.world.Get_size()
            plan = self.gmove.plan(w, "", lambda: collective_plan(dst.side, src.side, me, members, size))
            runner = make_runner(plan, members, me, dst.side.section.elem_size, w)
            self.gmove.check_complete(w, "", comm, plan.recvs, dst, members)
            return _device_runner(runner, members, xp)

        dr = self.gmove.cached(key, build)
        # every read before any write: a slice is a view, so within one array (a shift,
        # a[1:n] = a[0:n-1]) it is copied -- CuPy, unlike NumPy, copies overlapping views
        # element by element in parallel, and NCCL receives in place
        aliased = bool(xp.may_share_memory(src_rows, dst_rows))
        outgoing = [_read(src_rows, sel, aliased) for _, sel, _ in dr.sends]
        staying = _read(src_rows, dr.stay[0], aliased) if dr.stay is not None else None
        incoming = self._acc_gmove_messages(comm, dr, outgoing, dst_rows)
        if staying is not None and dr.stay is not None:
            dst_rows[dr.stay[1]] = staying
        for (_, sel, _), buf in zip(dr.recvs, incoming, strict=True):
            if buf is not None:
                dst_rows[sel] = buf
        self.shared.count("gmove_bytes", dr.nbytes)

    def _acc_gmove_messages(self, comm: Any, dr: DeviceRunner,
                            outgoing: list[Any], dst_rows: Any) -> list[Any]:
        """The messages; returns per receive the buffer to scatter (None: received in place)."""
        from .transport import NcclTransport

        xp, esize = self.backend.xp, int(dst_rows.shape[1])
        transport = None
        # choosing the transport is collective over every node: not from a subset (a task)
        if self.backend.name != "host" and (getattr(self.device, "transport", None) is not None
                                            or comm.Get_size() == self.world.Get_size()):
            transport = self.device.device_transport()
        if isinstance(transport, NcclTransport):
            nccl, stream = transport.nccl, xp.cuda.get_current_stream()
            incoming, targets = [], []
            for _, sel, count in dr.recvs:
                inplace = isinstance(sel, slice)
                target = dst_rows[sel] if inplace else xp.empty((count, esize), dtype=np.uint8)
                incoming.append(None if inplace else target)
                targets.append(target)
            nccl.groupStart()
            for (peer, _, _), data in zip(dr.sends, outgoing, strict=True):
                transport.comm.send(data.data.ptr, data.nbytes, nccl.NCCL_UINT8, peer, stream.ptr)
            for (peer, _, _), target in zip(dr.recvs, targets, strict=True):
                transport.comm.recv(target.data.ptr, target.nbytes, nccl.NCCL_UINT8, peer, stream.ptr)
            nccl.groupEnd()
            return incoming
        return self._acc_gmove_mpi(comm, dr, outgoing, esize)

    def _host_bytes(self, rows: Any) -> np.ndarray:
        """Rows of a device copy as contiguous host bytes, for MPI: the host backend's as
        they are, a GPU's copied (after the queued work that writes them)."""
        return np.ascontiguousarray(rows if self.backend.name == "host" else rows.get()).reshape(-1)

    def _acc_gmove_mpi(self, comm: Any, dr: DeviceRunner, outgoing: list[Any], esize: int) -> list[Any]:
        """MPI on the gmove communicator: the host backend's buffers as they are, GPU
        buffers through host memory."""
        from mpi4py import MPI

        if self.backend.name != "host":
            self.backend.wait()
        bufs = [np.empty(count * esize, dtype=np.uint8) for _, _, count in dr.recvs]
        requests = [comm.Irecv([b, MPI.BYTE], source=peer, tag=_TAG)
                    for b, peer in zip(bufs, dr.comm_recvs, strict=True)]
        hosts = [self._host_bytes(data) for data in outgoing]
        requests += [comm.Isend([h, MPI.BYTE], dest=peer, tag=_TAG)
                     for h, peer in zip(hosts, dr.comm_sends, strict=True)]
        MPI.Request.Waitall(requests)
        xp = self.backend.xp
        return [xp.asarray(b.reshape(-1, esize)) for b in bufs]
