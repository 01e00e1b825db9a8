"""The element bookkeeping of the collective intrinsics (runtime/intrinsic_data.py) for
every simulated node, without MPI.

Random node arrays (their nodes in a random order of world ranks, as for a node subset),
distributions (block, cyclic, cyclic(w), gblock, '*'), align offsets, collapsed and
replicated dimensions and shadows (the strategies of test_gmove_plan.py).  Properties:
the elements a node ``held`` are exactly those whose ``holders`` name it, at distinct
offsets inside its local block that ``offsets_at`` agrees with; exactly one node sends
each element (``primary``); ``source`` reads a holder, the reader itself when it holds one.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from test_gmove_plan import SETTINGS, side

from xmpacc.runtime.distribution import ArrayDimLayout
from xmpacc.runtime.intrinsic_data import Global, Group


class _Comm:
    """What Group.me needs of a communicator."""

    def __init__(self, rank: int) -> None:
        self.rank = rank

    def Get_rank(self) -> int:   # noqa: N802 (mpi4py's name)
        return self.rank


@st.composite
def arrays(draw: st.DrawFn) -> tuple[int, Global]:
    nprocs = draw(st.integers(1, 6))
    rank = draw(st.integers(1, 2))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(rank))
    s = draw(side(nprocs, shape, False))
    dims = tuple(d for d, sub in zip(s.dims, s.section.subs, strict=True))
    family = np.asarray(draw(st.permutations(range(nprocs))), dtype=np.int64)
    assert s.node_extents is not None
    g = Global("a", dims, s.node_extents, family, np.zeros(0, dtype=np.uint8), np.dtype(np.float64))
    return nprocs, g


def _local_size(g: Global, node: int) -> int:
    size = 1
    for d in g.dims:
        coord = int(g.map.coord(node, d.node_dim)) if d.distributed else 0
        lay = ArrayDimLayout(d.dist if d.distributed else None, d.extent, d.offset if d.distributed else 0,
                             d.shadow_lo, d.shadow_hi, d.full_shadow, coord)
        size *= lay.lext
    return size


def _everyone(nprocs: int, me: int) -> Group:
    return Group(_Comm(me), np.arange(nprocs, dtype=np.int64), np.arange(nprocs, dtype=np.int64))


@SETTINGS
@given(arrays())
def test_held_holders_and_offsets_agree(case: tuple[int, Global]) -> None:
    nprocs, g = case
    every = [np.asarray(i, dtype=np.int64)
             for i in zip(*itertools.product(*(range(n) for n in g.shape)), strict=True)]
    holders = g.holders(every)
    for node in range(math.prod(g.node_extents)):
        idx, off = g.held(node)
        mine = set(zip(*(i.tolist() for i in idx), strict=True))
        expected = {tuple(int(i[k]) for i in every) for k in range(len(every[0])) if node in holders[k]}
        assert mine == expected
        assert len(set(off.tolist())) == len(off)
        assert ((off >= 0) & (off < _local_size(g, node))).all()
        if len(off):
            assert (g.offsets_at(idx, np.full((len(off), 1), node))[:, 0] == off).all()


@SETTINGS
@given(arrays())
def test_one_sender_per_element_and_readers_read_holders(case: tuple[int, Global]) -> None:
    nprocs, g = case
    sends = {}
    for node in range(nprocs):
        world = int(g.family[node])
        idx, _off = g.held(node)
        keep = g.primary(idx, node, _everyone(nprocs, world), "t.c:1")
        for k in np.flatnonzero(keep):
            element = tuple(int(i[k]) for i in idx)
            assert element not in sends
            sends[element] = node
    assert len(sends) == g.size
    every = [np.asarray(i, dtype=np.int64)
             for i in zip(*itertools.product(*(range(n) for n in g.shape)), strict=True)]
    holders = g.holders(every)
    for reader in range(nprocs):
        src = g.source(every, int(g.family[reader]), _everyone(nprocs, int(g.family[reader])), "t.c:1")
        assert all(src[k] in holders[k] for k in range(len(src)))
        assert all(src[k] == reader for k in range(len(src)) if reader in holders[k])
