"""``gmove`` between host arrays in C after its first call at a site.

NPB's CG moves its product vector from the row layout to the column layout with one
gmove per matvec; its plan is cached (gmove.py), but running it entered Python at every
call: the element copies through numpy, one Isend and Irecv per peer.  Here the general
path runs the first call at a site as always and then hands the glue what it did
(include/xmpacc_gmove.h): each peer's elements as pieces of the sides' element views,
the buffers they go through, and MPI persistent requests on those buffers or in place.
Later calls with the same arrays, sections and descriptors (blocks and layouts), under
the same executing nodes and distributions, run in C.

What stays general: gmove in/out (one-sided), gmove ... acc, a gmove that fills an array
from one value, gmoves under ``async``, and plans whose element views are no arrays'
blocks or local bases.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from .cstructs import CArray
from .fast_reflect import CFastReflect, FastPlan, request_handles
from .gmove_exec import GMOVE_TAG, Runner, Transfer
from .replay import Held, Replay


class CGmovePart(ctypes.Structure):
    """_xmpacc_gmove_part_t of include/xmpacc_gmove.h."""

    _fields_ = [("npieces", ctypes.c_longlong), ("size", ctypes.c_longlong), ("starts", ctypes.c_void_p),
                ("buffer", ctypes.c_void_p)]


class CGmovePlan(ctypes.Structure):
    """_xmpacc_gmove_plan_t of include/xmpacc_gmove.h."""

    _fields_ = [("mode", ctypes.c_int), ("lhs_array", ctypes.c_void_p), ("rhs_array", ctypes.c_void_p),
                ("lhs_base", ctypes.c_void_p), ("rhs_base", ctypes.c_void_p),
                ("lhs_sec", ctypes.c_void_p), ("rhs_sec", ctypes.c_void_p),
                ("lhs_nsec", ctypes.c_longlong), ("rhs_nsec", ctypes.c_longlong),
                ("lhs_desc", ctypes.c_void_p), ("rhs_desc", ctypes.c_void_p), ("exec", ctypes.c_size_t),
                ("layout", ctypes.c_longlong), ("esize", ctypes.c_longlong), ("dst", ctypes.c_void_p),
                ("src", ctypes.c_void_p), ("nsends", ctypes.c_int), ("nrecvs", ctypes.c_int),
                ("sends", ctypes.c_void_p), ("recvs", ctypes.c_void_p), ("stay_src", CGmovePart),
                ("stay_dst", CGmovePart), ("requests", ctypes.c_void_p), ("calls", ctypes.c_longlong),
                ("bytes", ctypes.c_longlong), ("next", ctypes.c_void_p)]


def _hold(keep: list[Any], item: Any) -> int:
    """Keep ``item`` (bytes, a numpy array or a ctypes object) alive in ``keep``; its address."""
    if isinstance(item, bytes):
        item = ctypes.create_string_buffer(item, len(item))
    keep.append(item)
    return int(item.ctypes.data) if isinstance(item, np.ndarray) else ctypes.addressof(item)


class GmovePlans:
    """The C side's gmove plans, by site (a concern of the gmove runtime, made with the replay)."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.plans: dict[int, list[Held]] = {}
        replay.more.append(self.plans)
        replay.bind_setters("_xmpacc_gmove_plan_set")

    def offer(self, where: bytes, call: tuple[int, int | None, int | None, int, int | None, int | None, int],
              runner: Runner, comm: Any, dst: np.ndarray, src: np.ndarray, same: bool) -> None:
        """The collective gmove the general path just ran at ``where`` (``call``: mode and
        both sides' array, base and section pointers as the call passed them; ``runner``:
        its plan bound to ``comm``; ``dst``/``src``: the sides' element views)."""
        replay = self.replay
        site = replay.c.where or 0
        if not site or ctypes.string_at(site) != where or not replay.steady(site) or replay.requests is None:
            return
        mode, lhs_array, lhs_base, lhs_sec, rhs_array, rhs_base, rhs_sec = call
        esize = dst.itemsize
        kept = FastPlan(CFastReflect(), [])   # the requests and what the plan points into
        p = CGmovePlan(mode, lhs_array or None, rhs_array or None, None if lhs_array else lhs_base,
                       None if rhs_array else rhs_base)
        for side, sec, array in (("lhs", lhs_sec, lhs_array), ("rhs", rhs_sec, rhs_array)):
            n = 2 + 5 * ctypes.c_longlong.from_address(sec).value
            setattr(p, f"{side}_sec", _hold(kept.keep, ctypes.string_at(sec, 8 * n)))
            setattr(p, f"{side}_nsec", n)
            if array:
                setattr(p, f"{side}_desc", _hold(kept.keep, ctypes.string_at(array, ctypes.sizeof(CArray))))
        p.exec, p.layout, p.esize = replay.c.exec, replay.c.layout, esize
        p.dst, p.src = int(dst.ctypes.data), int(src.ctypes.data)
        requests: list[Any] = []
        recvs = []
        for t in runner.recvs:   # in place where the elements are one block, as run_collective
            target = dst[t.starts[0]: t.starts[0] + t.count] if t.contiguous else np.empty(t.count, dst.dtype)
            recvs.append(self._part(t, kept, None if t.contiguous else target))
            requests.append(comm.Recv_init([target.view(np.uint8), _byte()], t.peer, GMOVE_TAG))
        sends = []
        for t in runner.sends:   # from a buffer, gathered first, wherever a receive could land on them
            in_place = t.contiguous and not same
            data = src[t.starts[0]: t.starts[0] + t.count] if in_place else np.empty(t.count, src.dtype)
            sends.append(self._part(t, kept, None if in_place else data))
            requests.append(comm.Send_init([data.view(np.uint8), _byte()], t.peer, GMOVE_TAG))
        kept.requests = requests
        p.nsends, p.nrecvs = len(sends), len(recvs)
        p.sends = _hold(kept.keep, (CGmovePart * max(len(sends), 1))(*sends))
        p.recvs = _hold(kept.keep, (CGmovePart * max(len(recvs), 1))(*recvs))
        if runner.self_src is not None and runner.self_dst is not None:
            stay = np.empty(runner.self_src.count, src.dtype)
            p.stay_src = self._part(runner.self_src, kept, stay)
            p.stay_dst = self._part(runner.self_dst, kept, stay)
        q = kept.c
        q.startall, q.waitall = replay.requests[:2]
        q.nrounds, q.count[0] = 1, len(requests)
        q.requests[0] = _hold(kept.keep, request_handles(requests))
        q.statuses = _hold(kept.keep, ctypes.create_string_buffer(_status_size() * max(len(requests), 1)))
        p.requests = ctypes.addressof(q)
        p.bytes = runner.nbytes
        replay._register(self.plans, site, "_xmpacc_gmove_plan_set",
                         Held(p, [kept, dst, src], counters=("gmove_calls", "replayed_gmoves"),
                              bytes_counter="gmove_bytes"))

    @staticmethod
    def _part(t: Transfer, kept: FastPlan, buffer: np.ndarray | None) -> CGmovePart:
        starts = np.ascontiguousarray(t.starts, dtype=np.int64)
        return CGmovePart(len(starts), t.size, _hold(kept.keep, starts),
                          _hold(kept.keep, buffer) if buffer is not None else None)


def _byte() -> Any:
    from mpi4py import MPI

    return MPI.BYTE


def _status_size() -> int:
    from mpi4py import MPI

    return int(MPI._sizeof(MPI.Status))
