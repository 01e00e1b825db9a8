"""Iteration ranges of ``loop ... expand / margin`` and of loops on node arrays
(global-view §6, §7): the C helpers of include/xmpacc_loops.h, run through ctypes,
against a brute-force Python model of the specification:

* R = the iterations of the loop; O' = the ones this node owns (a plain loop directive);
* E' = the progression of the loop inside [first owned - lo, last owned + hi], inside the
  range of R unless /unbound/ (nothing for a node that owns nothing);
* expand runs E' in the loop's direction, margin runs E' xor O' (symmetric difference);
  in two dimensions, margin is the symmetric difference of the boxes E0 x E1 and O0 x O1,
  which the generated code runs cell by cell (loopsched.margin_guard).
"""

from __future__ import annotations

import ctypes
import itertools
import subprocess
from ctypes import POINTER, Structure, c_int, c_longlong

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_distribution import distributions

from xmpacc.runtime import cstructs
from xmpacc.runtime.cstructs import CNodes, CSched, CTDim, set_fields
from xmpacc.runtime.distribution import DimDistribution

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class CRange(Structure):
    """_xmpacc_range_t"""

    _fields_ = [("elo", c_longlong), ("ehi", c_longlong), ("lo", c_longlong * 3), ("hi", c_longlong * 3),
                ("in_e", c_int * 3), ("in_o", c_int * 3), ("n", c_int)]


WRAPPERS = r"""
#include "xmpacc_loops.h"
void w_range(const _xmpacc_tdim_t *d, long long i, long long l, long long s, long long wlo, long long whi,
             int unbound, _xmpacc_range_t *out) { *out = _xmpacc_range(d, i, l, s, wlo, whi, unbound); }
void w_span(long long i, long long s, long long lo, long long hi, _xmpacc_sched_t *out) {
  *out = _xmpacc_schedule_span(i, s, lo, hi);
}
void w_range_sched(const _xmpacc_range_t *r, long long k, long long i, long long s, _xmpacc_sched_t *out) {
  *out = _xmpacc_range_sched(r, k, i, s);
}
void w_schedule(const _xmpacc_tdim_t *d, long long i, long long l, long long s, _xmpacc_sched_t *out) {
  *out = _xmpacc_schedule(d, i, l, s);
}
void w_nodes_tdim(const _xmpacc_nodes_t *p, int dim, long long base, _xmpacc_tdim_t *out) {
  *out = _xmpacc_nodes_tdim(p, dim, base);
}
"""

_LL = c_longlong
SIGNATURES = {
    "w_range": ([POINTER(CTDim), _LL, _LL, _LL, _LL, _LL, c_int, POINTER(CRange)], None),
    "w_span": ([_LL, _LL, _LL, _LL, POINTER(CSched)], None),
    "w_range_sched": ([POINTER(CRange), _LL, _LL, _LL, POINTER(CSched)], None),
    "w_schedule": ([POINTER(CTDim), _LL, _LL, _LL, POINTER(CSched)], None),
    "w_nodes_tdim": ([POINTER(CNodes), c_int, _LL, POINTER(CTDim)], None),
}


@pytest.fixture(scope="module")
def clib(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    tmp = tmp_path_factory.mktemp("xmpacc_loops")
    src, lib = tmp / "wrappers.c", tmp / "libwrappers.so"
    src.write_text(WRAPPERS)
    subprocess.run(["cc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-O1",
                    "-I", str(cstructs.INCLUDE_DIR), str(src), "-o", str(lib)], check=True)
    dll = ctypes.CDLL(str(lib))
    for name, (argtypes, restype) in SIGNATURES.items():
        fn = getattr(dll, name)
        fn.argtypes, fn.restype = argtypes, restype
    return dll


# ---------------------------------------------------------------- the model


def iterations(init: int, last: int, step: int) -> list[int]:
    return list(range(init, last + (1 if step > 0 else -1), step))


def model(d: DimDistribution, k: int, loop: tuple[int, int, int], w: tuple[int, int, bool]
          ) -> tuple[list[int], list[int]]:
    """(E' in loop order, O' in loop order) of node k."""
    init, last, step = loop
    its = iterations(init, last, step)
    owned = [g for g in its if d.owns(k, g)]
    if not its or d.owned_count(k) == 0:
        return [], owned
    lo = d.owned_first(k) - w[0]
    hi = d.owned_first(k) + d.owned_count(k) - 1 + w[1]
    if not w[2]:
        lo, hi = max(lo, min(its)), min(hi, max(its))
    expanded = [g for g in range(lo, hi + 1) if (g - init) % abs(step) == 0]
    return (expanded if step > 0 else expanded[::-1]), owned


# ---------------------------------------------------------------- running the C helpers


def _visit(s: CSched) -> list[int]:
    out, x = [], s.first
    while (x <= s.last) if s.step > 0 else (x >= s.last):
        out.append(x)
        x += s.step
        assert len(out) <= 1000, "runaway loop"
    assert len(out) == s.count
    return out


def _tdim(d: DimDistribution, k: int) -> CTDim:
    return set_fields(CTDim(), {**d.tdim_fields(k), "node_dim": -1 if d.kind == "none" else 0})


def c_range(clib: ctypes.CDLL, td: CTDim, loop: tuple[int, int, int], w: tuple[int, int, bool]) -> CRange:
    r = CRange()
    clib.w_range(ctypes.byref(td), *loop, w[0], w[1], int(w[2]), ctypes.byref(r))
    return r


def c_expand(clib: ctypes.CDLL, r: CRange, loop: tuple[int, int, int]) -> list[int]:
    s = CSched()
    clib.w_span(loop[0], loop[2], r.elo, r.ehi, ctypes.byref(s))
    return _visit(s)


def c_segment(clib: ctypes.CDLL, r: CRange, k: int, loop: tuple[int, int, int]) -> list[int]:
    s = CSched()
    clib.w_range_sched(ctypes.byref(r), k, loop[0], loop[2], ctypes.byref(s))
    return _visit(s)


# ---------------------------------------------------------------- properties


@st.composite
def cases(draw: st.DrawFn) -> tuple[DimDistribution, int, tuple[int, int, int], tuple[int, int, bool]]:
    d = draw(distributions(("none", "block", "gblock")))
    k = draw(st.integers(0, d.nprocs - 1))
    init = draw(st.integers(d.lower - 5, d.upper + 5))
    last = draw(st.integers(d.lower - 5, d.upper + 5))
    step = draw(st.integers(1, 4)) * draw(st.sampled_from((1, -1)))
    w = (draw(st.integers(-4, 4)), draw(st.integers(-4, 4)), draw(st.booleans()))
    return d, k, (init, last, step), w


@SETTINGS
@given(cases())
def test_expand_runs_the_widened_range(clib: ctypes.CDLL, case: tuple) -> None:
    d, k, loop, w = case
    expanded, _owned = model(d, k, loop, w)
    assert c_expand(clib, c_range(clib, _tdim(d, k), loop, w), loop) == expanded


@SETTINGS
@given(cases())
def test_segments_split_expanded_and_owned(clib: ctypes.CDLL, case: tuple) -> None:
    """Segments are disjoint and increasing; those in E' cover E', those in O' cover O',
    and margin (E' xor O') is the segments in exactly one of them."""
    d, k, loop, w = case
    expanded, owned = model(d, k, loop, w)
    r = c_range(clib, _tdim(d, k), loop, w)
    segments = [(c_segment(clib, r, s, loop), r.in_e[s], r.in_o[s]) for s in range(r.n)]
    bounds = [(r.lo[s], r.hi[s]) for s in range(r.n)]
    assert all(a <= b for a, b in bounds) \
        and all(b1 < a2 for (_, b1), (a2, _) in zip(bounds, bounds[1:], strict=False))
    assert all(e or o for _its, e, o in segments)
    assert sorted(g for its, e, _o in segments if e for g in its) == sorted(expanded)
    assert sorted(g for its, _e, o in segments if o for g in its) == sorted(owned)
    margin = [g for its, e, o in segments if e != o for g in its]
    assert len(margin) == len(set(margin))
    assert set(margin) == set(expanded) ^ set(owned)
    assert c_segment(clib, r, r.n, loop) == []   # a missing segment runs nothing


@SETTINGS
@given(cases(), cases())
def test_margin_of_two_dimensions(clib: ctypes.CDLL, c0: tuple, c1: tuple) -> None:
    """The cells the generated nest runs: 9 cells, segment (cell / 3^k) % 3 of dimension k,
    the body where the cell is in exactly one of the boxes E0 x E1 and O0 x O1."""
    ranges, models = [], []
    for d, k, loop, w in (c0, c1):
        ranges.append((c_range(clib, _tdim(d, k), loop, w), loop))
        e, o = model(d, k, loop, w)
        models.append((set(e), set(o)))
    ran: list[tuple[int, int]] = []
    for cell in range(9):
        digits = [(cell // 3 ** k) % 3 for k in range(2)]
        (r0, l0), (r1, l1) = ranges
        if digits[0] >= r0.n or digits[1] >= r1.n:
            continue
        in_e = r0.in_e[digits[0]] and r1.in_e[digits[1]]
        in_o = r0.in_o[digits[0]] and r1.in_o[digits[1]]
        if bool(in_e) != bool(in_o):
            ran += itertools.product(c_segment(clib, r0, digits[0], l0), c_segment(clib, r1, digits[1], l1))
    (e0, o0), (e1, o1) = models
    expected = set(itertools.product(e0, e1)) ^ set(itertools.product(o0, o1))
    assert len(ran) == len(set(ran))
    assert set(ran) == expected


@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
@settings(max_examples=100, deadline=None)
def test_loop_on_a_node_array(clib: ctypes.CDLL, extents: list[int], data: st.DataObject) -> None:
    """loop on p[i]: node k of the dimension runs iteration base + k only (one index per
    node, like a block distribution of a template as long as the node dimension)."""
    dim = data.draw(st.integers(0, len(extents) - 1))
    base = data.draw(st.sampled_from((0, 1)))
    member = data.draw(st.booleans())
    coord = [data.draw(st.integers(0, e - 1)) for e in extents]
    p = CNodes()
    p.ndims, p.is_member = len(extents), int(member)
    for k, (e, c) in enumerate(zip(extents, coord, strict=True)):
        p.extent[k], p.coord[k] = e, c if member else -1
    td, s = CTDim(), CSched()
    clib.w_nodes_tdim(ctypes.byref(p), dim, base, ctypes.byref(td))
    init, last = base - 2, base + extents[dim] + 2
    clib.w_schedule(ctypes.byref(td), init, last, 1, ctypes.byref(s))
    assert _visit(s) == ([base + coord[dim]] if member else [])
