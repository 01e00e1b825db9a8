"""gmove plans (global-view §2): which local elements go to which node, computed by one
node from the two sides' mappings without touching the global extent.

A *side* is the data on one side of ``lhs = rhs``: a distributed array (its dimensions'
distributions over a node array) or local data that every participant holds.  Elements
are paired by their *position* in the section's shape (row-major); both sides' shapes are
equal.  For one node ``me`` the plan lists, per peer, the local element offsets it sends
(source side) and receives (destination side), each in increasing position order, so
that a sender and its receiver agree without exchanging indices.  The work is
proportional to the elements ``me`` owns in the sections plus the number of peers:
ownership is decided per dimension on ``me``'s owned range (vectorised, distribution.py)
and combined by broadcasting.

Which copy is sent when the source is replicated (a ``*`` dimension of the node array, or
local data): the one on the node whose coordinates along the replicated node dimensions
are the receiver's own (so a node that holds the value copies it locally), or, if that
node does not take part, the participant of lowest rank that holds one.

Pure numpy: no MPI here (runtime/gmove.py executes the plans); tests/test_gmove_plan.py
runs it for every simulated rank.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .distribution import ArrayDimLayout, DimDistribution, owned_array_indices, owners, positions
from .sections import Section, SectionError, shape_text


@dataclass(frozen=True)
class SideDim:
    """One array dimension: ``dist`` None (or kind "none") means every holder has all of it."""

    extent: int
    dist: DimDistribution | None = None
    node_dim: int = -1
    offset: int = 0
    shadow_lo: int = 0
    shadow_hi: int = 0
    full_shadow: bool = False

    @property
    def distributed(self) -> bool:
        return self.dist is not None and self.dist.kind != "none" and self.node_dim >= 0


def array_dims(arr: Any) -> tuple[SideDim, ...]:
    """The dimensions of a distributed array (arrays.DistArray) as a side sees them: each
    one's layout and the node dimension its template dimension is distributed over."""
    tmpl = arr.template
    return tuple(SideDim(lay.extent, lay.dist, tmpl.node_dims[arr.tdims[k]] if arr.tdims[k] >= 0 else -1,
                         lay.offset, lay.shadow_lo, lay.shadow_hi, lay.full_shadow)
                 for k, lay in enumerate(arr.layouts))


@dataclass(frozen=True)
class Side:
    """A distributed array (``node_extents`` of its node array) or local data
    (``node_extents`` None) and the section of it.  ``ranks`` gives the world rank of each
    node of the node array (row-major): a node subset (``nodes h[2] = p[2:2]``), permuted
    or not; None: node k is rank k (callers that plan in node indices pass None)."""

    dims: tuple[SideDim, ...]
    section: Section
    node_extents: tuple[int, ...] | None = None
    ranks: tuple[int, ...] | None = None


class PlanError(SectionError):
    """No participating node holds an element that must move."""


class SideMap:
    """A side with its per-coordinate layout tables."""

    def __init__(self, side: Side) -> None:
        self.side, self.sec = side, side.section
        self.local = side.node_extents is None
        ext = side.node_extents or ()
        self.nstrides = [int(np.prod(ext[k + 1:], dtype=np.int64)) for k in range(len(ext))]
        self.tables = [self._table(d) for d in side.dims]
        covered = {d.node_dim for d in side.dims if d.distributed}
        self.replicated = [k for k in range(len(ext)) if k not in covered]
        # node index <-> rank: plans speak ranks, the layout arithmetic node indices
        self.to_rank = None if side.ranks is None else np.asarray(side.ranks, dtype=np.int64)
        self.to_node = None
        if self.to_rank is not None:
            self.to_node = np.full(int(self.to_rank.max(initial=-1)) + 1, -1, dtype=np.int64)
            self.to_node[self.to_rank] = np.arange(len(self.to_rank))

    def node_of(self, rank: np.ndarray | int) -> np.ndarray | int:
        """The node index of each rank (-1: not in the node array)."""
        if self.to_node is None:
            return rank
        r = np.asarray(rank, dtype=np.int64)
        inside = r < len(self.to_node)
        out = np.where(inside, self.to_node[np.where(inside, r, 0)], -1)
        return int(out) if out.ndim == 0 else out

    def rank_of(self, node: np.ndarray | int) -> np.ndarray | int:
        return node if self.to_rank is None else self.to_rank[node]

    def _table(self, d: SideDim) -> tuple[list[ArrayDimLayout], np.ndarray, np.ndarray] | None:
        if not d.distributed:
            return None
        lays = [ArrayDimLayout(d.dist, d.extent, d.offset, d.shadow_lo, d.shadow_hi, d.full_shadow, k)
                for k in range(d.dist.nprocs)]
        return (lays, np.array([lay.lext for lay in lays], dtype=np.int64),
                np.array([lay.owned_first for lay in lays], dtype=np.int64))

    def coord(self, rank: np.ndarray | int, node_dim: int) -> np.ndarray | int:
        ext = self.side.node_extents
        assert ext is not None
        return (rank // self.nstrides[node_dim]) % ext[node_dim]

    # ---- which positions a node holds
    def held(self, me: int) -> list[np.ndarray] | None:
        """Per shape dimension, the sorted positions whose elements ``me`` holds (None:
        none at all: a scalar subscript names an element of another node)."""
        js = []
        node = self.node_of(me) if not self.local else me
        if node < 0:
            return None
        for d, (dim, sub) in enumerate(zip(self.side.dims, self.sec.subs, strict=False)):
            k = self.coord(node, dim.node_dim) if dim.distributed else 0
            if not sub.triplet:
                if dim.distributed and int(owners(dim.dist, sub.base + dim.offset)) != k:
                    return None
                continue
            if dim.distributed:   # no arange over the whole dimension: only what this node owns
                js.append(self._owned_positions(d, dim, sub, int(k)))
            else:
                js.append(np.arange(sub.length, dtype=np.int64))
        return js

    def _owned_positions(self, d: int, dim: SideDim, sub, k: int) -> np.ndarray:
        lay = self.tables[d][0][k]
        if lay.owned_count == 0:
            return np.zeros(0, dtype=np.int64)
        if sub.length <= lay.owned_count:   # cheaper to test each position of the section
            j = np.arange(sub.length, dtype=np.int64)
            return j[owners(dim.dist, sub.base + j * sub.step + dim.offset) == k]
        rel = owned_array_indices(lay) - sub.base
        jj = rel // sub.step
        keep = (rel % sub.step == 0) & (jj >= 0) & (jj < sub.length)
        return np.sort(jj[keep])

    # ---- indices, holders, offsets (arrays broadcast over the shape axes)
    def indices(self, js: list[np.ndarray], ndim: int) -> list[np.ndarray | int]:
        """Per array dimension, the index of each position (axis q for shape dimension q)."""
        out: list[np.ndarray | int] = []
        q = 0
        for sub in self.sec.subs:
            if not sub.triplet:
                out.append(sub.base)
                continue
            shape = [1] * ndim
            shape[q] = len(js[q])
            out.append((sub.base + js[q] * sub.step).reshape(shape))
            q += 1
        return out

    def owner_base(self, idx: list[np.ndarray | int]) -> np.ndarray | int:
        """The rank contribution of the covered node dimensions (owner coordinates)."""
        base: np.ndarray | int = 0
        for dim, i in zip(self.side.dims, idx, strict=False):
            if dim.distributed:
                base = base + owners(dim.dist, np.asarray(i) + dim.offset) * self.nstrides[dim.node_dim]
        return base

    def offsets(self, idx: list[np.ndarray | int], rank: np.ndarray | int) -> np.ndarray:
        """Local element offsets of indices ``idx`` in the buffer of holder ``rank``."""
        off: np.ndarray | int = 0
        node = rank if self.local else self.node_of(rank)
        for d, (dim, i) in enumerate(zip(self.side.dims, idx, strict=False)):
            i = np.asarray(i, dtype=np.int64)
            table = self.tables[d]
            if self.local or table is None or dim.full_shadow:
                loc, lext = i, dim.extent
            elif dim.dist.kind == "cyclic":
                loc, lext = positions(dim.dist, i + dim.offset), table[1][self.coord(node, dim.node_dim)]
            else:
                k = self.coord(node, dim.node_dim)
                loc, lext = dim.shadow_lo + i - table[2][k], table[1][k]
            off = off * lext + loc
        return np.asarray(off, dtype=np.int64)

    def holders(self, idx: list[np.ndarray | int], ndim: int,
                participants: np.ndarray) -> np.ndarray:
        """Every rank that holds each position, on extra trailing axes (replicas)."""
        if self.local:
            return participants.reshape([1] * ndim + [-1])
        ranks = np.asarray(self.owner_base(idx))
        ranks = ranks.reshape(ranks.shape + (1,) * (ndim - ranks.ndim))
        for nd in self.replicated:
            ext = self.side.node_extents[nd]
            steps = np.arange(ext, dtype=np.int64) * self.nstrides[nd]
            ranks = ranks[..., None] + steps
        return np.asarray(self.rank_of(ranks))

    def choose(self, idx: list[np.ndarray | int], receivers: np.ndarray,
               member: np.ndarray | None) -> np.ndarray:
        """The holder that sends each element to each receiver (see the module doc)."""
        if self.local:
            assert member is not None
            first = int(np.flatnonzero(member)[0])
            return np.where(member[receivers], receivers, first)
        base = np.asarray(self.owner_base(idx))
        base = base.reshape(base.shape + (1,) * (receivers.ndim - base.ndim))
        cand = base
        # a receiver outside this node array reads the copy at coordinate 0
        rnode = np.maximum(self.node_of(receivers), 0)
        for nd in self.replicated:
            cand = cand + self.coord(rnode, nd) * self.nstrides[nd]
        cand = np.asarray(self.rank_of(np.broadcast_to(cand, np.broadcast_shapes(np.shape(cand),
                                                                                 np.shape(receivers)))))
        if member is None or member[cand].all():
            return cand
        return self._fallback(base, cand, member)

    def _fallback(self, base: np.ndarray, cand: np.ndarray, member: np.ndarray) -> np.ndarray:
        out = np.where(member[cand], cand, -1)
        exts = [self.side.node_extents[nd] for nd in self.replicated]
        combos = sorted(sum(c * self.nstrides[nd] for c, nd in zip(cs, self.replicated, strict=True))
                        for cs in itertools.product(*(range(e) for e in exts)))
        for extra in combos:
            alt = np.asarray(self.rank_of(np.broadcast_to(base, out.shape) + extra))
            out = np.where((out < 0) & member[alt], alt, out)
        if (out < 0).any():
            raise PlanError("an element to move is held only by nodes outside the executing node "
                            "set (use 'gmove in' or 'gmove out' inside a task)")
        return out


@dataclass
class Plan:
    """What one node does: per peer rank, its own element offsets to send and to receive
    (position order) and, for one-sided plans, the offsets on the peer."""

    sends: dict[int, np.ndarray] = field(default_factory=dict)
    recvs: dict[int, np.ndarray] = field(default_factory=dict)
    remote: dict[int, np.ndarray] = field(default_factory=dict)


def _flat(*arrays: np.ndarray) -> list[np.ndarray]:
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return [np.broadcast_to(a, shape).reshape(-1) for a in arrays]


def _group(peer: np.ndarray, *values: np.ndarray) -> dict[int, tuple[np.ndarray, ...]]:
    """Split ``values`` by ``peer``, keeping their order within a peer: one mask per peer
    when there are few (linear), a stable sort otherwise."""
    if len(peer) == 0:
        return {}
    counts = np.bincount(peer)
    peers = np.flatnonzero(counts)
    if len(peers) == 1:
        return {int(peers[0]): values}
    if len(peers) <= 32:
        out = {}
        for p in peers:
            mask = peer == p
            out[int(p)] = tuple(v[mask] for v in values)
        return out
    order = np.argsort(peer, kind="stable")
    ends = np.cumsum(counts)
    return {int(p): tuple(v[order[ends[p] - counts[p]: ends[p]]] for v in values) for p in peers}


def check_sides(dst: Side, src: Side) -> None:
    if dst.section.shape != src.section.shape:
        raise SectionError(f"shapes do not conform: the left-hand side has shape "
                           f"{shape_text(dst.section.shape)} but the right-hand side has shape "
                           f"{shape_text(src.section.shape)}")


def _membership(participants: np.ndarray, world: int) -> np.ndarray:
    member = np.zeros(world, dtype=bool)
    member[participants] = True
    return member


def _sides(dst: Side, src: Side, participants: list[int],
           world: int) -> tuple[np.ndarray, np.ndarray, SideMap, SideMap, int]:
    """What every plan starts from: the participants (sorted) and who is one, each side's
    layout tables, and the section's rank."""
    check_sides(dst, src)
    parts = np.asarray(sorted(participants), dtype=np.int64)
    return parts, _membership(parts, world), SideMap(dst), SideMap(src), len(dst.section.shape)


def collective_plan(dst: Side, src: Side, me: int, participants: list[int], world: int) -> Plan:
    """Plan of ``me`` when every participant runs the gmove (two-sided messages)."""
    parts, member, d, s, ndim = _sides(dst, src, participants, world)
    plan = Plan()
    js = d.held(me)
    if js is not None:   # receiving: my elements of the destination
        dst_off = d.offsets(d.indices(js, ndim), me)
        sidx = s.indices(js, ndim)
        source = s.choose(sidx, np.asarray(me, dtype=np.int64), member)
        if s.local:
            src_off = s.offsets(sidx, me)
            off, srco = _flat(dst_off, src_off)
            plan.recvs[me], plan.sends[me] = off, srco
        else:
            peer, off = _flat(source, dst_off)
            plan.recvs = {p: v[0] for p, v in _group(peer, off).items()}
    if not s.local:
        js = s.held(me)
        if js is not None:   # sending: my elements of the source
            sidx = s.indices(js, ndim)
            src_off = s.offsets(sidx, me)
            receivers = d.holders(d.indices(js, ndim), ndim, parts)
            src_off = src_off.reshape(src_off.shape + (1,) * (receivers.ndim - src_off.ndim))
            keep = s.choose(sidx, receivers, member) == me
            peer, off, ok = _flat(receivers, src_off, keep)
            plan.sends = {p: v[0] for p, v in _group(peer[ok], off[ok]).items()}
    return plan


def get_plan(dst: Side, src: Side, me: int, world: int) -> Plan:
    """``gmove in``: ``me`` pulls its destination elements from their holders anywhere."""
    check_sides(dst, src)
    d, s, plan = SideMap(dst), SideMap(src), Plan()
    ndim = len(dst.section.shape)
    js = d.held(me)
    if js is None:
        return plan
    dst_off = d.offsets(d.indices(js, ndim), me)
    sidx = s.indices(js, ndim)
    source = np.asarray(me, dtype=np.int64) if s.local \
        else s.choose(sidx, np.asarray(me, dtype=np.int64), None)
    src_off = s.offsets(sidx, source)
    peer, off, remote = _flat(source, dst_off, src_off)
    for p, (mine, theirs) in _group(peer, off, remote).items():
        plan.recvs[p] = mine
        (plan.sends if p == me else plan.remote)[p] = theirs
    return plan


def put_writes(dst: Side, participants: list[int]) -> int:
    """How many (element, holder) writes a ``gmove out`` makes in all: the plans of the
    participants must add up to it, else some source element lies outside them."""
    n = int(np.prod(dst.section.shape, dtype=np.int64))
    if dst.node_extents is None:
        return n * len(participants)
    m = SideMap(dst)
    return n * int(np.prod([dst.node_extents[nd] for nd in m.replicated], dtype=np.int64))


def plan_writes(plan: Plan) -> int:
    return sum(len(v) for v in plan.sends.values())


def put_plan(dst: Side, src: Side, me: int, participants: list[int], world: int) -> Plan:
    """``gmove out``: ``me`` pushes the source elements it is responsible for to every
    holder of their destination, anywhere."""
    parts, member, d, s, ndim = _sides(dst, src, participants, world)
    plan = Plan()
    js = s.held(me)
    if js is None:
        return plan
    sidx, didx = s.indices(js, ndim), d.indices(js, ndim)
    src_off = s.offsets(sidx, me)
    receivers = d.holders(didx, ndim, parts)
    keep = s.choose(sidx, receivers, member) == me
    dst_off = d.offsets([np.asarray(i).reshape(np.shape(i) + (1,) * (receivers.ndim - np.ndim(i)))
                         for i in didx], receivers)
    src_off = src_off.reshape(src_off.shape + (1,) * (receivers.ndim - src_off.ndim))
    peer, mine, theirs, ok = _flat(receivers, src_off, dst_off, keep)
    for p, (m, t) in _group(peer[ok], mine[ok], theirs[ok]).items():
        plan.sends[p] = m
        (plan.recvs if p == me else plan.remote)[p] = t
    return plan
