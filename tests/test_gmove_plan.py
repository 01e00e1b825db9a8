"""gmove plans (runtime/gmove_plan.py) for every simulated rank, without MPI.

Random node arrays, distributions (block, cyclic, cyclic(w), gblock, '*'), align offsets,
collapsed and replicated dimensions, shadows, sections with positive and negative steps
and scalar subscripts, local sides, 1 to 6 processes: each rank plans on its own, then the
plans are executed on simulated local buffers.  Properties: a sender and its receiver
agree on the count; every destination element a node holds is received exactly once and
nothing else is written; each value comes from a holder of its source element (shadow
slots and non-owned slots hold a poison value, so a wrong source shows); the result is
the serial meaning of the assignment.  Also the vectorised distribution helpers against
their scalar twins.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xmpacc.runtime.distribution import (
    ArrayDimLayout,
    DimDistribution,
    owned_array_indices,
    owners,
    positions,
)
from xmpacc.runtime.gmove_plan import (
    PlanError,
    Side,
    SideDim,
    SideMap,
    collective_plan,
    get_plan,
    plan_writes,
    put_plan,
    put_writes,
)
from xmpacc.runtime.sections import Section, Sub

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
POISON = -1.0


# ---------------------------------------------------------------- strategies

@st.composite
def dim_distribution(draw: st.DrawFn, extent: int, nprocs: int) -> DimDistribution:
    kind = draw(st.sampled_from(["block", "cyclic", "gblock"]))
    lower = draw(st.integers(-3, 3))
    if kind == "cyclic":
        return DimDistribution("cyclic", lower, lower + extent - 1, nprocs, draw(st.integers(1, 4)))
    if kind == "gblock":
        cuts = sorted(draw(st.lists(st.integers(0, extent), min_size=nprocs - 1, max_size=nprocs - 1)))
        sizes = [b - a for a, b in zip([0] + cuts, cuts + [extent], strict=True)]
        return DimDistribution("gblock", lower, lower + extent - 1, nprocs, 1, tuple(sizes))
    return DimDistribution("block", lower, lower + extent - 1, nprocs)


def factorisations(n: int) -> list[tuple[int, ...]]:
    out = [(n,)]
    out += [(a, n // a) for a in range(1, n + 1) if n % a == 0]
    return out


@st.composite
def side(draw: st.DrawFn, nprocs: int, shape: tuple[int, ...], local: bool) -> Side:
    rank = len(shape) + draw(st.integers(0 if shape else 1, 2 if len(shape) < 2 else 1))
    extents = [draw(st.integers(1, 9)) for _ in range(rank)]
    triplet_dims = sorted(draw(st.permutations(range(rank)))[:len(shape)])
    for q, d in enumerate(triplet_dims):
        extents[d] = max(extents[d], shape[q] if draw(st.booleans()) else 1)
    subs, ext_final = [], []
    for d in range(rank):
        if d in triplet_dims:
            n = shape[triplet_dims.index(d)]
            step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
            span = (n - 1) * abs(step) + 1
            extent = max(extents[d], span + draw(st.integers(0, 3)))
            first = draw(st.integers(0, extent - span))
            base = first if step > 0 else first + span - 1
            subs.append(Sub(True, base, n, step))
        else:
            extent = extents[d]
            subs.append(Sub(False, draw(st.integers(0, extent - 1)), 1, 1))
        ext_final.append(extent)
    section = Section(8, tuple(ext_final), tuple(subs))
    if local:
        return Side(tuple(SideDim(e) for e in ext_final), section, None)
    # a node array over all the ranks in order, or over a subset of them in any order
    subset = draw(st.booleans())
    size = draw(st.integers(1, nprocs)) if subset else nprocs
    node_ext = draw(st.sampled_from(factorisations(size)))
    ranks = tuple(draw(st.permutations(range(nprocs)))[:size]) if subset else None
    free = list(range(len(node_ext)))
    dims = []
    for e in ext_final:
        choice = draw(st.integers(0, 2))
        if choice == 0 or not free:          # collapsed, or aligned with a '*' template dimension
            dist = DimDistribution("none", 0, e + 1, 1) if draw(st.booleans()) else None
            dims.append(SideDim(e, dist, -1))
            continue
        nd = free.pop(draw(st.integers(0, len(free) - 1)))
        offset = draw(st.integers(0, 3))
        dist = draw(dim_distribution(e + offset + draw(st.integers(0, 2)), node_ext[nd]))
        shadowable = dist.kind != "cyclic"
        full = shadowable and draw(st.integers(0, 4)) == 0
        lo, hi = (draw(st.integers(0, 2)), draw(st.integers(0, 2))) if shadowable and not full else (0, 0)
        dims.append(SideDim(e, dist, nd, dist.lower + offset, lo, hi, full))
    return Side(tuple(dims), section, tuple(node_ext), ranks)


@st.composite
def problem(draw: st.DrawFn) -> tuple[int, Side, Side]:
    nprocs = draw(st.integers(1, 6))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=0, max_size=2)))
    dst_local, src_local = draw(st.sampled_from([(False, False), (False, False), (True, False),
                                                 (False, True)]))
    return nprocs, draw(side(nprocs, shape, dst_local)), draw(side(nprocs, shape, src_local))


# ---------------------------------------------------------------- simulation

def node_index(s: Side, rank: int) -> int:
    """The node of ``rank`` in the side's node array (-1: not in it)."""
    if s.ranks is None:
        return rank
    return s.ranks.index(rank) if rank in s.ranks else -1


def rank_coords(s: Side, rank: int) -> tuple[int, ...]:
    node = node_index(s, rank)
    return tuple(int(c) for c in np.unravel_index(node, s.node_extents)) if s.node_extents else ()


def layouts(s: Side, rank: int) -> list[ArrayDimLayout | None]:
    coords = rank_coords(s, rank)
    return [ArrayDimLayout(d.dist, d.extent, d.offset, d.shadow_lo, d.shadow_hi, d.full_shadow,
                           coords[d.node_dim])
            if d.distributed else None for d in s.dims]


def owned(s: Side, rank: int, participants: list[int]) -> list[tuple[int, ...]]:
    """The global indices ``rank`` holds (all of them for local data of a participant)."""
    if s.node_extents is None:
        return list(itertools.product(*(range(d.extent) for d in s.dims))) if rank in participants else []
    if node_index(s, rank) < 0:
        return []
    per_dim = [range(d.extent) if lay is None else owned_array_indices(lay).tolist()
               for d, lay in zip(s.dims, layouts(s, rank), strict=True)]
    return list(itertools.product(*per_dim))


def buffer(s: Side, rank: int) -> np.ndarray:
    if s.node_extents is None:
        return np.full(math.prod(d.extent for d in s.dims), POISON)
    if node_index(s, rank) < 0:
        return np.full(0, POISON)
    lext = [d.extent if lay is None else lay.lext for d, lay in zip(s.dims, layouts(s, rank), strict=True)]
    return np.full(math.prod(lext), POISON)


def offset_of(s: Side, rank: int, index: tuple[int, ...]) -> int:
    return int(SideMap(s).offsets([np.int64(i) for i in index], rank))


def global_value(s: Side, index: tuple[int, ...]) -> float:
    return float(np.ravel_multi_index(index, [d.extent for d in s.dims]) + 1) if s.dims else 1.0


def fill_source(s: Side, nprocs: int, participants: list[int]) -> list[np.ndarray]:
    bufs = []
    for r in range(nprocs):
        buf = buffer(s, r)
        for index in owned(s, r, participants):
            buf[offset_of(s, r, index)] = global_value(s, index)
        bufs.append(buf)
    return bufs


def positions_of(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(n) for n in shape)))


def index_at(s: Side, pos: tuple[int, ...]) -> tuple[int, ...]:
    out, q = [], 0
    for sub in s.section.subs:
        if sub.triplet:
            out.append(sub.base + pos[q] * sub.step)
            q += 1
        else:
            out.append(sub.base)
    return tuple(out)


def expected(dst: Side, src: Side, nprocs: int, participants: list[int],
             receivers: list[int]) -> list[dict[int, float]]:
    """Per rank: destination offset -> the value it must hold after the gmove."""
    want: list[dict[int, float]] = [{} for _ in range(nprocs)]
    held = {r: set(owned(dst, r, participants)) for r in receivers}
    for pos in positions_of(dst.section.shape):
        di, si = index_at(dst, pos), index_at(src, pos)
        for r in receivers:
            if di in held[r]:
                want[r][offset_of(dst, r, di)] = global_value(src, si)
    return want


def check_result(dst: Side, bufs: list[np.ndarray], want: list[dict[int, float]],
                 received: list[list[int]]) -> None:
    for r, buf in enumerate(bufs):
        assert sorted(received[r]) == sorted(want[r]), f"rank {r} received {received[r]}, holds {want[r]}"
        assert len(received[r]) == len(set(received[r])), f"rank {r} received an element twice"
        for off, value in want[r].items():
            assert buf[off] == value, f"rank {r} offset {off}: {buf[off]} != {value}"
        untouched = set(range(len(buf))) - set(want[r])
        assert all(buf[k] == POISON for k in untouched)


# ---------------------------------------------------------------- properties

@SETTINGS
@given(problem())
def test_collective_plan_moves_every_element_once_from_its_owner(p: tuple[int, Side, Side]) -> None:
    nprocs, dst, src = p
    everyone = list(range(nprocs))
    plans = [collective_plan(dst, src, r, everyone, nprocs) for r in everyone]
    srcbufs = fill_source(src, nprocs, everyone)
    dstbufs = [buffer(dst, r) for r in everyone]
    received: list[list[int]] = [[] for _ in everyone]
    for r in everyone:
        for s, offs in plans[r].recvs.items():
            sent = plans[s].sends.get(r, np.zeros(0, dtype=np.int64))
            assert len(sent) == len(offs), f"{s} sends {len(sent)} to {r}, which expects {len(offs)}"
            dstbufs[r][offs] = (srcbufs[s] if src.node_extents is not None or s == r else srcbufs[r])[sent]
            received[r] += offs.tolist()
    for s in everyone:
        assert set(plans[s].sends) <= {r for r in everyone if s in plans[r].recvs}
    check_result(dst, dstbufs, expected(dst, src, nprocs, everyone, everyone), received)


@SETTINGS
@given(problem(), st.data())
def test_one_sided_plans_reach_nodes_outside_the_executing_set(p: tuple[int, Side, Side],
                                                               data: st.DataObject) -> None:
    nprocs, dst, src = p
    everyone = list(range(nprocs))
    members = sorted(data.draw(st.lists(st.sampled_from(everyone), min_size=1, unique=True)))
    srcbufs = fill_source(src, nprocs, members)
    # gmove in: the executing nodes pull their destination elements
    if dst.node_extents is not None and src.node_extents is not None:
        dstbufs = [buffer(dst, r) for r in everyone]
        received: list[list[int]] = [[] for _ in everyone]
        for r in members:
            plan = get_plan(dst, src, r, nprocs)
            for s, mine in plan.recvs.items():
                theirs = plan.sends[s] if s == r else plan.remote[s]
                dstbufs[r][mine] = srcbufs[s][theirs]
                received[r] += mine.tolist()
        check_result(dst, dstbufs, expected(dst, src, nprocs, members, members), received)
    # gmove out: the executing nodes push to every holder of the destination
    if dst.node_extents is not None:
        dstbufs = [buffer(dst, r) for r in everyone]
        received = [[] for _ in everyone]
        try:
            plans = {r: put_plan(dst, src, r, members, nprocs) for r in members}
        except PlanError:
            return  # a replicated source held only outside the set: reported to the user
        held = set().union(*(owned(src, r, members) for r in members))
        complete = all(index_at(src, pos) in held for pos in positions_of(src.section.shape))
        # the count the runtime checks (one allreduce) says whether any source element
        # lies outside the executing set
        assert (sum(plan_writes(p) for p in plans.values()) == put_writes(dst, members)) == complete
        if not complete:
            return
        for r, plan in plans.items():
            for t, mine in plan.sends.items():
                theirs = plan.recvs[t] if t == r else plan.remote[t]
                dstbufs[t][theirs] = srcbufs[r][mine]
                received[t] += theirs.tolist()
        check_result(dst, dstbufs, expected(dst, src, nprocs, members, everyone), received)


@SETTINGS
@given(st.data())
def test_vectorised_index_math_matches_the_scalar_formulas(data: st.DataObject) -> None:
    nprocs = data.draw(st.integers(1, 6))
    d = data.draw(dim_distribution(data.draw(st.integers(1, 40)), nprocs))
    g = np.arange(d.lower, d.upper + 1)
    assert owners(d, g).tolist() == [d.owner(x) for x in g]
    assert positions(d, g).tolist() == [d.pos(x) for x in g]
    extent = data.draw(st.integers(1, d.extent))
    offset = d.lower + data.draw(st.integers(0, d.extent - extent))
    for k in range(nprocs):
        lay = ArrayDimLayout(d, extent, offset, 0, 0, False, k)
        assert owned_array_indices(lay).tolist() == lay.owned_indices()


def test_section_shapes_must_agree() -> None:
    a = Side((SideDim(4),), Section(8, (4,), (Sub(True, 0, 4, 1),)), None)
    b = Side((SideDim(4),), Section(8, (4,), (Sub(True, 0, 3, 1),)), None)
    with pytest.raises(ValueError, match=r"shape \[4\].*shape \[3\]"):
        collective_plan(a, b, 0, [0], 1)
