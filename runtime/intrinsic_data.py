"""Distributed arrays seen whole, for the collective intrinsics (global-view §9).

``Global`` is one array as the intrinsics need it: its shape, where each global element
lives (``gmove_plan.SideMap``: the same owner and local-offset arithmetic gmove plans with)
and this node's local buffer.  Node numbers inside a ``Global`` are *linear node indices*
of its node array (row-major coordinates); ``family`` turns them into world ranks, so an
array on a node subset and a temporary spread over the executing node set work alike.

``Route`` sends per-element values to computed peers of the executing communicator with
one ``Alltoallv`` per column, and back again; ``move`` copies one array into another
through a global index map (the identity, or transposed), touching only the elements a
node holds.  Nothing here allocates in proportion to a global extent.

Pure numpy and mpi4py (imported inside the functions that communicate).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .arrays import DistArray
from .distribution import DimDistribution
from .errors import RuntimeFailure
from .gmove_exec import elem_dtype
from .gmove_plan import PlanError, Side, SideDim, SideMap, array_dims
from .sections import Section, Sub

Index = list[np.ndarray]    # one int64 array per array dimension, all of one length


@dataclass
class Group:
    """The executing node set: world ranks in communicator order and the inverse table."""

    comm: Any
    ranks: np.ndarray               # world rank of each communicator rank
    inverse: np.ndarray             # communicator rank of each world rank, -1 outside

    @classmethod
    def of(cls, comm: Any, world: Any) -> Group:
        from mpi4py import MPI

        group = comm.Get_group()
        ranks = MPI.Group.Translate_ranks(group, list(range(comm.Get_size())), world.Get_group())
        group.Free()
        inverse = np.full(world.Get_size(), -1, dtype=np.int64)
        inverse[np.asarray(ranks, dtype=np.int64)] = np.arange(len(ranks))
        return cls(comm, np.asarray(ranks, dtype=np.int64), inverse)

    @property
    def size(self) -> int:
        return len(self.ranks)

    @property
    def me(self) -> int:
        return int(self.comm.Get_rank())


@dataclass
class Global:
    """A distributed array (or a temporary one) as a whole."""

    name: str
    dims: tuple[SideDim, ...]
    node_extents: tuple[int, ...]
    family: np.ndarray              # world rank of each linear node index
    buffer: np.ndarray              # this node's local block, bytes (shadows included)
    dtype: np.dtype
    map: SideMap = field(init=False)

    def __post_init__(self) -> None:
        shape = self.shape
        side = Side(self.dims, Section(self.dtype.itemsize, shape, tuple(Sub(True, 0, n, 1) for n in shape)),
                    self.node_extents)
        self.map = SideMap(side)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(d.extent for d in self.dims)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def values(self) -> np.ndarray:
        return self.buffer.view(self.dtype)

    def lin(self, world_rank: int) -> int:
        """My linear node index in this array's node array (-1: not in it)."""
        hit = np.flatnonzero(self.family == world_rank)
        return int(hit[0]) if len(hit) else -1

    def members(self, group: Group) -> np.ndarray:
        """Per linear node index: whether that node is in the executing node set."""
        return group.inverse[self.family] >= 0

    def held(self, me: int) -> tuple[Index, np.ndarray]:
        """Global indices (row-major order) and local offsets of the elements node ``me``
        holds (owned, not shadow slots)."""
        js = self.map.held(me) if me >= 0 else None
        if js is None or any(len(j) == 0 for j in js):
            return [np.zeros(0, dtype=np.int64) for _ in self.dims], np.zeros(0, dtype=np.int64)
        grids = np.meshgrid(*js, indexing="ij")
        idx = [g.reshape(-1).astype(np.int64) for g in grids]
        off = np.broadcast_to(self.map.offsets(idx, me), idx[0].shape)
        return idx, np.asarray(off, dtype=np.int64)

    def primary(self, idx: Index, me: int, group: Group, where: str) -> np.ndarray:
        """Which of the elements ``me`` holds it is the one node to send (one replica per
        element: the one the first member of the executing set would read)."""
        member = self.members(group)
        first = np.flatnonzero(member)
        if len(first) == 0 or len(idx[0]) == 0:
            return np.zeros(len(idx[0]), dtype=bool)
        try:
            chosen = self.map.choose(idx, np.asarray(first[0], dtype=np.int64), member)
        except PlanError as e:
            raise RuntimeFailure(where, f"'{self.name}': {e}") from None
        return np.broadcast_to(chosen, idx[0].shape) == me

    def sent(self, me_world: int, group: Group, where: str) -> tuple[Index, np.ndarray]:
        """``held`` restricted to the elements this node sends (one holder each); the
        executing node set must hold the whole array."""
        me = self.lin(me_world)
        idx, off = self.held(me)
        keep = self.primary(idx, me, group, where)
        total = group.comm.allreduce(int(keep.sum()))
        if total != self.size:
            raise RuntimeFailure(where, f"only {total} of the {self.size} elements of '{self.name}' are held "
                                        "by nodes of the executing node set (inside a task, the arrays of an "
                                        "intrinsic must be distributed onto the task's nodes)")
        return [i[keep] for i in idx], off[keep]

    def holders(self, idx: Index) -> np.ndarray:
        """(n, R): the linear node indices that hold each element (R replicas)."""
        n = len(idx[0])
        base = np.broadcast_to(np.asarray(self.map.owner_base(idx), dtype=np.int64), (n,))
        reps = np.zeros(1, dtype=np.int64)
        for nd in self.map.replicated:
            steps = np.arange(self.node_extents[nd], dtype=np.int64) * self.map.nstrides[nd]
            reps = (reps[:, None] + steps[None, :]).reshape(-1)
        return base[:, None] + reps[None, :]

    def offsets_at(self, idx: Index, nodes: np.ndarray) -> np.ndarray:
        """Local offsets of each element on each of ``nodes`` (n, R)."""
        off = self.map.offsets([i[:, None] for i in idx], nodes)
        return np.broadcast_to(np.asarray(off, dtype=np.int64), nodes.shape)

    def source(self, idx: Index, me_world: int, group: Group, where: str) -> np.ndarray:
        """The linear node index to read each element from: my own copy when I hold one,
        else a holder in the executing set."""
        member = self.members(group)
        me = self.lin(me_world)
        if me < 0 or not member[me]:
            me = int(np.flatnonzero(member)[0]) if member.any() else 0
        try:
            chosen = self.map.choose(idx, np.asarray(me, dtype=np.int64), member)
        except PlanError as e:
            raise RuntimeFailure(where, f"'{self.name}': {e}") from None
        return np.broadcast_to(np.asarray(chosen, dtype=np.int64), idx[0].shape)


def of_array(arr: DistArray, dtype: np.dtype | None, where: str,
             family: tuple[int, ...] | None = None) -> Global:
    """``family``: the node array (of several, '*' in its reference) this node works in."""
    nodes = arr.template.nodes
    assert nodes is not None
    families = (family,) if family is not None else nodes.all_families()
    if len(families) != 1:
        raise RuntimeFailure(where, f"'{arr.name}' is distributed onto a node array that is a different set "
                                    "of nodes on different nodes ('*' in its nodes reference): not supported "
                                    "yet in the collective intrinsics", collective=True)
    dims = array_dims(arr)
    dt = dtype if dtype is not None and dtype.itemsize == arr.elem_size else elem_dtype(arr.elem_size)
    return Global(arr.name, tuple(dims), tuple(nodes.extents), np.asarray(families[0], dtype=np.int64),
                  arr.buffer, np.dtype(dt))


def like(g: Global, name: str, dtype: np.dtype) -> Global:
    """A temporary with ``g``'s mapping and another element type (zeros)."""
    count = len(g.buffer) // g.dtype.itemsize
    return Global(name, g.dims, g.node_extents, g.family,
                  np.zeros(count * dtype.itemsize, dtype=np.uint8), dtype)


def row_blocks(name: str, shape: tuple[int, ...], group: Group, dtype: np.dtype) -> Global:
    """A temporary of ``shape`` whose first dimension is block-distributed over the
    executing node set (communicator order), the others whole."""
    p = group.size
    dist = DimDistribution("block", 0, shape[0] - 1, p)
    dims = (SideDim(shape[0], dist, 0),) + tuple(SideDim(n) for n in shape[1:])
    rows = dist.owned_count(group.me)
    count = rows * math.prod(shape[1:])
    return Global(name, dims, (p,), group.ranks, np.zeros(count * dtype.itemsize, dtype=np.uint8), dtype)


class Route:
    """Elements sent to per-element destinations (communicator ranks), in one
    ``Alltoallv`` per column; ``back`` answers each received element to its sender and
    returns the answers in the order the elements were given."""

    def __init__(self, comm: Any, dest: np.ndarray) -> None:
        from mpi4py import MPI

        self.comm, p = comm, comm.Get_size()
        self.order = np.argsort(dest, kind="stable")
        self.counts = np.bincount(dest, minlength=p).astype(np.int64)
        self.recv_counts = np.zeros(p, dtype=np.int64)
        comm.Alltoall([self.counts, MPI.INT64_T], [self.recv_counts, MPI.INT64_T])

    @staticmethod
    def _move(comm: Any, data: np.ndarray, send: np.ndarray, recv: np.ndarray) -> np.ndarray:
        from mpi4py import MPI

        data = np.ascontiguousarray(data)
        row = data.dtype.itemsize * math.prod(data.shape[1:])
        out = np.empty((int(recv.sum()),) + data.shape[1:], dtype=data.dtype)
        sc, rc = send * row, recv * row
        sd = np.concatenate(([0], np.cumsum(sc)[:-1]))
        rd = np.concatenate(([0], np.cumsum(rc)[:-1]))
        comm.Alltoallv([data.view(np.uint8).reshape(-1), (sc, sd), MPI.BYTE],
                       [out.view(np.uint8).reshape(-1), (rc, rd), MPI.BYTE])
        return out

    def send(self, *columns: np.ndarray) -> list[np.ndarray]:
        return [self._move(self.comm, c[self.order], self.counts, self.recv_counts) for c in columns]

    def back(self, *columns: np.ndarray) -> list[np.ndarray]:
        out = []
        for c in columns:
            got = self._move(self.comm, c, self.recv_counts, self.counts)
            unsorted = np.empty_like(got)
            unsorted[self.order] = got
            out.append(unsorted)
        return out


def comm_ranks(g: Global, nodes: np.ndarray, group: Group, where: str) -> np.ndarray:
    """Communicator ranks of linear node indices of ``g``; every one must be a member."""
    ranks = group.inverse[g.family[nodes]]
    if (ranks < 0).any():
        raise RuntimeFailure(where, f"elements of '{g.name}' are held by nodes outside the executing node "
                                    "set (call the intrinsic where every node of its arrays executes)")
    return ranks


def deliver(dst: Global, idx: Index, values: np.ndarray, group: Group, where: str,
            order: np.ndarray | None = None) -> None:
    """Every holder of ``dst[idx[k]]`` gets ``values[k]`` (one Alltoallv).  With
    ``order``, an element written several times keeps the value of the largest order."""
    nodes = dst.holders(idx)
    dest = comm_ranks(dst, nodes, group, where).reshape(-1)
    off = dst.offsets_at(idx, nodes).reshape(-1)
    reps = nodes.shape[1]
    cols = [off, np.repeat(values, reps)] + ([np.repeat(order, reps)] if order is not None else [])
    got = Route(group.comm, dest).send(*cols)
    off, vals = got[0], got[1]
    if order is not None and len(off):
        by = np.argsort(got[2], kind="stable")
        off, vals = off[by][::-1], vals[by][::-1]
        _, first = np.unique(off, return_index=True)   # the last write of each element
        off, vals = off[first], vals[first]
    dst.values()[off] = vals


def move(src: Global, dst: Global, group: Group, me_world: int, where: str,
         index_map: Callable[[Index], Index] = lambda idx: idx) -> None:
    """``dst[index_map(i)] = src[i]`` for every element of ``src``: each element is sent
    once (by one holder) to every holder of its destination."""
    idx, off = src.sent(me_world, group, where)
    deliver(dst, index_map(idx), src.values()[off], group, where)
