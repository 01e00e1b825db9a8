"""Running gmove plans (runtime/gmove.py makes them): element offsets turned into copies
and MPI messages.

A peer's offsets become a ``Transfer``: one contiguous block (sent or received in place),
pieces of equal length at a constant stride (one strided copy through a 2-D view), or
any offsets (an indexed copy).  ``run_collective`` reads every source element before a
message can land in the destination, so a gmove within one array is well defined;
``run_one_sided`` gets or puts through MPI windows (passive target: the other side runs
no code).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .asyncs import MpiPending
from .errors import RuntimeFailure
from .gmove_plan import Plan

GMOVE_TAG = 7301   # the tag of a collective gmove's messages (replay_gmove.py sends with it too)
_DTYPES = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def elem_dtype(size: int) -> np.dtype:
    return np.dtype(_DTYPES.get(size, f"V{size}"))



def runs(off: np.ndarray) -> tuple[int, np.ndarray]:
    """``off`` as pieces of L consecutive offsets: (L, first offset of each piece)."""
    if len(off) < 2:
        return max(len(off), 1), off
    breaks = np.flatnonzero(np.diff(off) != 1) + 1
    lengths = np.diff(np.concatenate(([0], breaks, [len(off)])))
    size = int(np.gcd.reduce(lengths))
    return size, off[::size]


@dataclass
class Transfer:
    """The offsets of one peer in a runnable form: one contiguous block (sent or received
    in place), equal pieces at a constant stride (one strided copy), or any offsets
    (an indexed copy)."""

    peer: int                      # rank in the gmove communicator (or the window's group)
    count: int
    size: int                      # elements per piece
    starts: np.ndarray
    offsets: np.ndarray
    stride: int                    # distance between pieces when constant, else 0

    @classmethod
    def of(cls, peer: int, off: np.ndarray) -> Transfer:
        size, starts = runs(off)
        gaps = np.diff(starts)
        stride = int(gaps[0]) if len(gaps) and (gaps == gaps[0]).all() and gaps[0] > 0 else 0
        return cls(peer, len(off), size, starts, off, stride if len(starts) > 1 else size)

    @property
    def contiguous(self) -> bool:
        return self.size == self.count

    def _pieces(self, view: np.ndarray) -> np.ndarray:
        """The pieces as a 2-D strided view of ``view`` (constant stride only)."""
        item = view.itemsize
        return np.lib.stride_tricks.as_strided(view[self.starts[0]:], shape=(len(self.starts), self.size),
                                               strides=(self.stride * item, item))

    def as_view(self, view: np.ndarray) -> np.ndarray | None:
        """The elements as a (pieces, size) view of ``view``, when they have that form."""
        if self.contiguous:
            return view[self.starts[0]: self.starts[0] + self.count].reshape(1, -1)
        return self._pieces(view) if self.stride else None

    def gather(self, view: np.ndarray, out: np.ndarray) -> None:
        if self.contiguous:
            out[...] = view[self.starts[0]: self.starts[0] + self.count]
        elif self.stride:
            np.copyto(out.reshape(-1, self.size), self._pieces(view))
        else:
            np.take(view, self.offsets, out=out)

    def scatter(self, view: np.ndarray, data: np.ndarray) -> None:
        if self.contiguous:
            view[self.starts[0]: self.starts[0] + self.count] = data
        elif self.stride:
            self._pieces(view)[...] = data.reshape(-1, self.size)
        else:
            view[self.offsets] = data


@dataclass
class Runner:
    """A plan bound to a communicator: what ``run_collective`` needs, built once."""

    plan: Plan
    sends: list[Transfer]
    recvs: list[Transfer]
    self_src: Transfer | None      # elements that stay on this node
    self_dst: Transfer | None
    nbytes: int
    busy: bool = False
    buffers: dict[str, list[np.ndarray]] = field(default_factory=dict)


@dataclass
class OneSided:
    """A one-sided plan (the plan cache keys it by both sides' layouts, as a Runner)."""

    plan: Plan


def make_runner(plan: Plan, members: list[int], me: int, esize: int, w: str) -> Runner:
    rank_of = {r: k for k, r in enumerate(members)}
    outside = sorted(set(plan.sends) - set(rank_of))
    if outside:
        raise RuntimeFailure(w, f"gmove: node {outside[0]} holds destination elements but is not in the "
                                "executing node set (use 'gmove out' inside a task)")
    sends = [Transfer.of(rank_of[p], off) for p, off in sorted(plan.sends.items()) if p != me]
    recvs = [Transfer.of(rank_of[p], off) for p, off in sorted(plan.recvs.items()) if p != me]
    nbytes = sum(t.count for t in sends) * esize
    stay = me in plan.sends and len(plan.sends[me]) > 0
    return Runner(plan, sends, recvs, Transfer.of(me, plan.sends[me]) if stay else None,
                  Transfer.of(me, plan.recvs[me]) if stay else None, nbytes)


def _buffers(runner: Runner, dtype: np.dtype) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Message buffers: the runner's own, or fresh ones while an async use holds them."""
    if runner.busy or not runner.buffers:
        bufs = {"send": [np.empty(t.count, dtype) for t in runner.sends],
                "recv": [np.empty(t.count, dtype) for t in runner.recvs]}
        if runner.busy:
            return bufs["send"], bufs["recv"]
        runner.buffers = bufs
    return runner.buffers["send"], runner.buffers["recv"]


def _stay(src_t: Transfer, dst_t: Transfer | None, src: np.ndarray, dst: np.ndarray) -> np.ndarray | None:
    """The elements that stay on this node: copied at once when both sides are blocks of
    the same shape (numpy copes with overlap), else gathered for a later scatter."""
    a, b = src_t.as_view(src), dst_t.as_view(dst) if dst_t is not None else None
    if a is not None and b is not None and a.size == b.size:
        b[...] = a.reshape(b.shape)
        return None
    out = np.empty(src_t.count, dst.dtype)
    src_t.gather(src, out)
    return out


def run_collective(runner: Runner, comm: Any, dst: np.ndarray, src: np.ndarray, same: bool,
                   stats: dict[str, int], asyncs: Any, keep: Any = None) -> None:
    """Every read of the source happens before any message can land in the destination,
    so ``gmove a[1:n] = a[0:n]`` is well defined."""
    from mpi4py import MPI

    send_bufs, recv_bufs = _buffers(runner, dst.dtype)
    outgoing = []
    for t, buf in zip(runner.sends, send_bufs, strict=True):
        if t.contiguous and not same:
            outgoing.append(src[t.starts[0]: t.starts[0] + t.count])
        else:
            t.gather(src, buf)
            outgoing.append(buf)
    local = None
    if runner.self_src is not None:
        local = _stay(runner.self_src, runner.self_dst, src, dst)
    requests, unpack = [], []
    for t, buf in zip(runner.recvs, recv_bufs, strict=True):
        target = dst[t.starts[0]: t.starts[0] + t.count] if t.contiguous else buf
        requests.append(comm.Irecv([target.view(np.uint8), MPI.BYTE], source=t.peer, tag=GMOVE_TAG))
        if not t.contiguous:
            unpack.append((t, buf))
    for t, data in zip(runner.sends, outgoing, strict=True):
        requests.append(comm.Isend([np.ascontiguousarray(data).view(np.uint8), MPI.BYTE],
                                   dest=t.peer, tag=GMOVE_TAG))
    if local is not None and runner.self_dst is not None:
        runner.self_dst.scatter(dst, local)
    stats["gmove_bytes"] = stats.get("gmove_bytes", 0) + runner.nbytes

    def finish() -> None:
        for t, buf in unpack:
            t.scatter(dst, buf)
        runner.busy = False

    runner.busy = True
    asyncs.add(MpiPending(requests, finish, keep=(outgoing, recv_bufs, keep)))


def run_one_sided(plan: Plan, how: str, win: Any, win_ranks: dict[int, int], dst: np.ndarray,
                  src: np.ndarray, me: int, esize: int, stats: dict[str, int], w: str) -> None:
    """gmove in: Get from each holder; gmove out: Put to each holder (MPI passive target)."""
    from mpi4py import MPI

    if me in plan.recvs and me in plan.sends:
        dst[plan.recvs[me]] = src[plan.sends[me]]
    moved = 0
    for peer, theirs in sorted(plan.remote.items()):
        if peer not in win_ranks:
            raise RuntimeFailure(w, f"gmove {how}: node {peer} holds data of the array but was not "
                                    "among the nodes that aligned it")
        size, starts = runs(theirs)
        target = MPI.BYTE.Create_indexed_block(size * esize, [int(s) * esize for s in starts]).Commit()
        mine = plan.recvs[peer] if how == "in" else plan.sends[peer]
        buf = np.empty(len(mine), dtype=dst.dtype)
        rank = win_ranks[peer]
        win.Lock(rank, MPI.LOCK_SHARED)
        if how == "in":
            win.Get([buf.view(np.uint8), MPI.BYTE], rank, (0, 1, target))
        else:
            np.take(src, mine, out=buf)
            win.Put([buf.view(np.uint8), MPI.BYTE], rank, (0, 1, target))
        win.Unlock(rank)
        if how == "in":
            dst[mine] = buf
        target.Free()
        moved += buf.nbytes
    stats["gmove_bytes"] = stats.get("gmove_bytes", 0) + moved
