"""Distribution arithmetic: Python properties, the reference's worked examples, and the C
header (include/xmpacc_dist.h) run through ctypes against the Python oracle."""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from ctypes import POINTER, c_int, c_longlong
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xmpacc.runtime import cstructs
from xmpacc.runtime.cstructs import CArray, CSched, CTDim, CTemplate, set_fields
from xmpacc.runtime.distribution import ArrayDimLayout, DimDistribution, DistributionError, local_index

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------- strategies


@st.composite
def distributions(draw: st.DrawFn, kinds: tuple[str, ...] = ("none", "block", "cyclic",
                                                             "gblock")) -> DimDistribution:
    """Any valid DimDistribution with N <= 60, P <= 6."""
    kind = draw(st.sampled_from(kinds))
    lower = draw(st.integers(-10, 10))
    n = draw(st.integers(1, 60))
    nprocs = 1 if kind == "none" else draw(st.integers(1, 6))
    width = draw(st.integers(1, 6)) if kind == "cyclic" else 1
    sizes: tuple[int, ...] = ()
    if kind == "gblock":
        cuts = sorted(draw(st.lists(st.integers(0, n), min_size=nprocs - 1,
                                    max_size=nprocs - 1)))
        sizes = tuple(b - a for a, b in zip([0, *cuts], [*cuts, n], strict=True))
    # block(b): any b with N <= b * P (0: plain block)
    bsize = draw(st.sampled_from((0, draw(st.integers(-(-n // nprocs), n + 3))))) if kind == "block" else 0
    return DimDistribution(kind, lower, lower + n - 1, nprocs, width, sizes, bsize)


@st.composite
def dist_and_coord(draw: st.DrawFn) -> tuple[DimDistribution, int]:
    d = draw(distributions())
    return d, draw(st.integers(0, d.nprocs - 1))


@st.composite
def loops(draw: st.DrawFn, d: DimDistribution) -> tuple[int, int, int]:
    """(init, last, step) of a loop that may start, end or lie outside the template."""
    init = draw(st.integers(d.lower - 15, d.upper + 15))
    last = draw(st.integers(d.lower - 15, d.upper + 15))
    step = draw(st.integers(1, 9)) * draw(st.sampled_from((1, -1)))
    return init, last, step


@st.composite
def layouts(draw: st.DrawFn) -> tuple[ArrayDimLayout, ...]:
    """One valid ArrayDimLayout per node coordinate (same dimension on every node)."""
    d = draw(st.one_of(st.none(), distributions()))
    if d is None:
        return (ArrayDimLayout(None, draw(st.integers(1, 40))),)
    extent = draw(st.integers(1, d.extent))
    offset = draw(st.integers(d.lower, d.upper - extent + 1))
    lo = hi = 0
    full = False
    if d.kind in ("block", "gblock"):
        full = draw(st.booleans()) and draw(st.booleans())
        if not full:
            lo, hi = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    elif d.kind == "cyclic":   # cyclic takes a full shadow only (global-view §7)
        full = draw(st.booleans())
    return tuple(ArrayDimLayout(d, extent, offset, lo, hi, full, k) for k in range(d.nprocs))


# ---------------------------------------------------------------- Python properties


@SETTINGS
@given(distributions())
def test_owned_sets_partition_the_template(d: DimDistribution) -> None:
    seen: list[int] = []
    for k in range(d.nprocs):
        owned = d.owned_indices(k)
        assert owned == [g for g in range(d.lower, d.upper + 1) if d.owner(g) == k]
        assert len(owned) == d.owned_count(k)
        if owned:
            assert owned[0] == d.owned_first(k)
        seen += owned
    assert sorted(seen) == list(range(d.lower, d.upper + 1))


@SETTINGS
@given(distributions())
def test_pos_and_glb_are_inverse(d: DimDistribution) -> None:
    for g in range(d.lower, d.upper + 1):
        k, p = d.owner(g), d.pos(g)
        assert 0 <= p < d.owned_count(k)
        assert d.glb(k, p) == g


@SETTINGS
@given(dist_and_coord())
def test_count_below(dk: tuple[DimDistribution, int]) -> None:
    d, k = dk
    owned = set(d.owned_indices(k))
    for g in range(d.lower - 3, d.upper + 4):
        assert d.count_below(k, g) == sum(1 for x in owned if x < g)


@SETTINGS
@given(layouts())
def test_array_layout(per_node: tuple[ArrayDimLayout, ...]) -> None:
    seen: list[int] = []
    for lay in per_node:
        owned = lay.owned_indices()
        assert len(owned) == lay.owned_count
        if lay.dist is not None:
            k = lay.coord
            assert owned == [i for i in range(lay.extent) if lay.dist.owns(k, i + lay.offset)]
        seen += owned
        _check_local_indices(lay, owned)
    assert sorted(seen) == list(range(per_node[0].extent))


def _held(lay: ArrayDimLayout) -> list[int]:
    """Array indices the local buffer holds: owned ones and valid shadow ones."""
    if lay.kind == cstructs.DIST_NONE:
        return list(range(lay.extent))
    if lay.kind == cstructs.DIST_CYCLIC:
        return lay.owned_indices()
    if lay.owned_count == 0:
        return []
    lo, hi = lay.owned_first - lay.shadow_lo, lay.owned_first + lay.owned_count + lay.shadow_hi
    return list(range(max(lo, 0), min(hi, lay.extent)))


def _check_local_indices(lay: ArrayDimLayout, owned: list[int]) -> None:
    held = _held(lay)
    locs = [local_index(lay, i) for i in held]
    assert len(set(locs)) == len(locs)
    assert all(0 <= loc < lay.lext for loc in locs)
    if lay.kind == cstructs.DIST_CYCLIC:
        assert lay.lext == (max(locs) + 1 if locs else 0)
    if lay.kind in (cstructs.DIST_BLOCK, cstructs.DIST_GBLOCK) and owned:
        assert [local_index(lay, i) for i in owned] == \
            list(range(lay.shadow_lo, lay.shadow_lo + len(owned)))
        assert lay.lext == lay.shadow_lo + len(owned) + lay.shadow_hi
    for i in set(range(lay.extent)) - set(held):
        with pytest.raises(DistributionError):
            local_index(lay, i)


# ---------------------------------------------------------------- worked examples (§5, §11)


def _ranges(d: DimDistribution) -> list[list[int]]:
    return [d.owned_indices(k) for k in range(d.nprocs)]


def _span(*pairs: tuple[int, int]) -> list[int]:
    return [g for a, b in pairs for g in range(a, b + 1)]


def test_block_uneven_sizes() -> None:
    d9 = DimDistribution("block", 0, 8, 4)
    assert [d9.owned_count(k) for k in range(4)] == [3, 3, 3, 0]
    assert d9.owned_first(3) == 9  # L + k*B even when empty
    d22 = DimDistribution("block", 0, 21, 3)
    assert [d22.owned_count(k) for k in range(3)] == [8, 8, 6]


def test_cyclic_examples() -> None:
    assert [DimDistribution("cyclic", 0, 21, 3).owned_count(k) for k in range(3)] == [8, 7, 7]
    d = DimDistribution("cyclic", 0, 21, 3, width=3)
    assert _ranges(d) == [_span((0, 2), (9, 11), (18, 20)), _span((3, 5), (12, 14), (21, 21)),
                          _span((6, 8), (15, 17))]


def test_block_n_example() -> None:
    """block(4) of 10 indices on 3 nodes (reference decision 6): 0-3, 4-7, 8-9."""
    d = DimDistribution("block", 0, 9, 3, bsize=4)
    assert _ranges(d) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_gblock_example() -> None:
    d = DimDistribution("gblock", 0, 21, 3, gblock=(6, 11, 5))
    assert _ranges(d) == [_span((0, 5)), _span((6, 16)), _span((17, 21))]


def test_example_11_1_block_shadow() -> None:
    lay = ArrayDimLayout(DimDistribution("block", 0, 99, 4), 100, shadow_lo=1, shadow_hi=1,
                         coord=1)
    assert (lay.owned_first, lay.owned_count, lay.lext, lay.gtol) == (25, 25, 27, 24)
    assert [local_index(lay, i) for i in range(24, 51)] == list(range(27))


def test_example_11_2_two_dims() -> None:
    rows, cols = DimDistribution("block", 0, 7, 2), DimDistribution("block", 0, 7, 2)
    assert rows.owned_indices(1) == [4, 5, 6, 7] and cols.owned_indices(0) == [0, 1, 2, 3]


def test_example_11_3_cyclic_loop() -> None:
    d = DimDistribution("cyclic", 0, 9, 3)
    assert d.owned_indices(1) == [1, 4, 7]
    assert [d.pos(g) for g in (1, 4, 7)] == [0, 1, 2]
    assert d.schedule(1, 2, 9, 1) == [4, 7]


@pytest.mark.parametrize("args, message", [
    (("block", 5, 3, 2), "lower bound 5 > upper bound 3"),
    (("block", 0, 9, 0), "node extent must be >= 1"),
    (("cyclic", 0, 9, 2, 0), "cyclic width must be >= 1"),
    (("block", 0, 9, 2, 3), "only cyclic(w) takes one"),
    (("gblock", 0, 9, 2, 1, (4, 5)), "sum to 9 but the template extent is 10"),
    (("gblock", 0, 9, 2, 1, (12, -2)), "must be >= 0"),
    (("gblock", 0, 9, 2, 1, (10,)), "1 sizes for 2 nodes"),
    (("block", 0, 9, 2, 1, (5, 5)), "gblock sizes given for a block"),
    (("none", 0, 9, 2), "nprocs must be 1"),
    (("blok", 0, 9, 2), "unknown distribution kind"),
    (("block", 0, 9, 2, 1, (), 4),
     "block(4) on 2 node(s) holds at most 8 indices but the template extent is 10"),
    (("cyclic", 0, 9, 2, 1, (), 4), "block size 4 given for a cyclic dimension"),
])
def test_distribution_errors(args: tuple, message: str) -> None:
    with pytest.raises(DistributionError, match=re.escape(message)):
        DimDistribution(*args)


@pytest.mark.parametrize("kwargs, message", [
    ({"dist": DimDistribution("cyclic", 0, 9, 2), "extent": 10, "shadow_lo": 1},
     "shadow on a cyclic dimension"),
    ({"dist": DimDistribution("none", 0, 9, 1), "extent": 10, "full_shadow": True},
     "shadow on a none dimension"),
    ({"dist": DimDistribution("block", 0, 9, 2), "extent": 10, "offset": 1},
     "out of template bound"),
    ({"dist": DimDistribution("block", 0, 9, 2), "extent": 10, "shadow_lo": -1},
     "must be >= 0"),
    ({"dist": DimDistribution("block", 0, 9, 2), "extent": 10, "full_shadow": True,
      "shadow_hi": 1}, "full shadow takes no"),
    ({"dist": None, "extent": 10, "shadow_hi": 1}, "collapsed"),
    ({"dist": DimDistribution("block", 0, 9, 2), "extent": 4, "coord": 2}, "coordinate 2"),
])
def test_layout_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(DistributionError, match=message):
        ArrayDimLayout(**kwargs)


def test_distribution_module_imports_no_heavy_packages(tmp_path: Path) -> None:
    code = ("import sys, xmpacc.runtime.distribution; "
            "bad = [m for m in ('mpi4py', 'cupy', 'pycparser', 'jinja2') if m in sys.modules];"
            "assert not bad, bad")
    # run outside the checkout: the installed package, not the source tree on sys.path
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)


# ---------------------------------------------------------------- C against Python

WRAPPERS = r"""
#include "xmpacc_dist.h"
int w_owns(const _xmpacc_tdim_t *d, long long g) { return _xmpacc_tdim_owns(d, g); }
long long w_pos(const _xmpacc_tdim_t *d, long long g) { return _xmpacc_tdim_pos(d, g); }
long long w_glb(const _xmpacc_tdim_t *d, long long p) { return _xmpacc_tdim_glb(d, p); }
long long w_count_below(const _xmpacc_tdim_t *d, long long g) {
  return _xmpacc_tdim_count_below(d, g);
}
int w_by_pos(const _xmpacc_tdim_t *d) { return _xmpacc_sched_by_pos(d); }
void w_schedule(const _xmpacc_tdim_t *d, long long i, long long l, long long s,
                _xmpacc_sched_t *out) { *out = _xmpacc_schedule(d, i, l, s); }
void w_schedule_pos(const _xmpacc_tdim_t *d, long long i, long long l, long long s,
                    _xmpacc_sched_t *out) { *out = _xmpacc_schedule_pos(d, i, l, s); }
long long w_posmap_var(const _xmpacc_tdim_t *d, long long i, long long s, long long c, long long p) {
  return _xmpacc_posmap_var(_xmpacc_posmap(d, i, s, c), p);
}
int w_posmap_on(const _xmpacc_tdim_t *d, long long i, long long s, long long c, long long v) {
  return _xmpacc_posmap_on(_xmpacc_posmap(d, i, s, c), v);
}
long long w_loc(const _xmpacc_array_t *a, int dim, long long g) { return _xmpacc_loc(a, dim, g); }
long long w_loc_block(const _xmpacc_array_t *a, int dim, long long g) {
  return _xmpacc_loc_block(a, dim, g);
}
long long w_loc_cyclic(const _xmpacc_array_t *a, int dim, long long g) {
  return _xmpacc_loc_cyclic(a, dim, g);
}
"""

_TD, _AR, _LL = POINTER(CTDim), POINTER(CArray), c_longlong
SIGNATURES = {
    "w_owns": ([_TD, _LL], c_int), "w_pos": ([_TD, _LL], _LL), "w_glb": ([_TD, _LL], _LL),
    "w_count_below": ([_TD, _LL], _LL), "w_by_pos": ([_TD], c_int),
    "w_schedule": ([_TD, _LL, _LL, _LL, POINTER(CSched)], None),
    "w_schedule_pos": ([_TD, _LL, _LL, _LL, POINTER(CSched)], None),
    "w_posmap_var": ([_TD, _LL, _LL, _LL, _LL], _LL), "w_posmap_on": ([_TD, _LL, _LL, _LL, _LL], c_int),
    "w_loc": ([_AR, c_int, _LL], _LL), "w_loc_block": ([_AR, c_int, _LL], _LL),
    "w_loc_cyclic": ([_AR, c_int, _LL], _LL),
}


@pytest.fixture(scope="session")
def clib(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    """The wrappers above, compiled once per session with warnings as errors."""
    tmp = tmp_path_factory.mktemp("xmpacc_dist")
    src, lib = tmp / "wrappers.c", tmp / "libwrappers.so"
    src.write_text(WRAPPERS)
    subprocess.run(["cc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-shared",
                    "-fPIC", "-O1", "-I", str(cstructs.INCLUDE_DIR), str(src), "-o", str(lib)],
                   check=True)
    dll = ctypes.CDLL(str(lib))
    for name, (argtypes, restype) in SIGNATURES.items():
        fn = getattr(dll, name)
        fn.argtypes, fn.restype = argtypes, restype
    return dll


def test_ctypes_mirrors_match_the_header() -> None:
    assert cstructs.layout_mismatches() == []


def _tdim(d: DimDistribution, k: int) -> CTDim:
    return set_fields(CTDim(), {**d.tdim_fields(k), "node_dim": -1 if d.kind == "none" else 0})


def _run_c_loop(first: int, last: int, step: int, limit: int) -> Iterator[int]:
    """What ``for (x = first; step > 0 ? x <= last : x >= last; x += step)`` visits."""
    x, n = first, 0
    while (x <= last) if step > 0 else (x >= last):
        yield x
        x, n = x + step, n + 1
        assert n <= limit, "runaway loop"


def _c_schedule(clib: ctypes.CDLL, fn: str, td: CTDim, init: int, last: int,
                step: int) -> list[int]:
    """Expand the C schedule into template indices (filtering the position form)."""
    s = CSched()
    getattr(clib, fn)(ctypes.byref(td), init, last, step, ctypes.byref(s))
    visited = list(_run_c_loop(s.first, s.last, s.step, limit=200))
    assert len(visited) == s.count
    by_pos = fn == "w_schedule_pos" or clib.w_by_pos(ctypes.byref(td))
    if not by_pos:
        return visited
    assert s.step == (1 if step > 0 else -1)
    glbs = [clib.w_glb(ctypes.byref(td), p) for p in visited]
    return [g for g in glbs if (g - init) % step == 0]


@SETTINGS
@given(dist_and_coord())
def test_c_owns_pos_glb(clib: ctypes.CDLL, dk: tuple[DimDistribution, int]) -> None:
    d, k = dk
    td = ctypes.byref(_tdim(d, k))
    assert clib.w_by_pos(td) == (d.kind == "cyclic" and d.width > 1)
    for g in range(d.lower - 3, d.upper + 4):
        assert clib.w_owns(td, g) == d.owns(k, g), g
        assert clib.w_count_below(td, g) == d.count_below(k, g), g
    for p, g in enumerate(d.owned_indices(k)):
        assert clib.w_pos(td, g) == p == d.pos(g)
        assert clib.w_glb(td, p) == g


@SETTINGS
@given(st.data())
def test_c_schedule(clib: ctypes.CDLL, data: st.DataObject) -> None:
    d, k = data.draw(dist_and_coord())
    td = _tdim(d, k)
    for _ in range(5):
        init, last, step = data.draw(loops(d))
        expected = d.schedule(k, init, last, step)
        assert _c_schedule(clib, "w_schedule", td, init, last, step) == expected
        assert _c_schedule(clib, "w_schedule_pos", td, init, last, step) == expected


@SETTINGS
@given(st.data())
def test_c_kernel_threads_of_a_cyclic_w_loop(clib: ctypes.CDLL, data: st.DataObject) -> None:
    """A kernel's cyclic(w) loop (loop on t[i+c]): thread l takes position s.first + l *
    s.step of the position schedule, _xmpacc_posmap_var turns it into i, and the threads
    that _xmpacc_posmap_on rejects idle; the others run exactly this node's iterations, in
    order."""
    d, k = data.draw(dist_and_coord())
    td = ctypes.byref(_tdim(d, k))
    for _ in range(5):
        init, last, step = data.draw(loops(d))
        c = data.draw(st.integers(-3, 3))
        s = CSched()
        clib.w_schedule_pos(td, init + c, last + c, step, ctypes.byref(s))
        run = [clib.w_posmap_var(td, init + c, step, c, s.first + tid * s.step) for tid in range(s.count)]
        run = [i for i in run if clib.w_posmap_on(td, init + c, step, c, i)]
        assert run == [g - c for g in d.schedule(k, init + c, last + c, step)]


def test_c_schedule_example_11_3(clib: ctypes.CDLL) -> None:
    s = CSched()
    clib.w_schedule(ctypes.byref(_tdim(DimDistribution("cyclic", 0, 9, 3), 1)), 2, 9, 1,
                    ctypes.byref(s))
    assert (s.first, s.last, s.step, s.count) == (4, 7, 3, 2)


def _c_array(lay: ArrayDimLayout, adim: int, tdim: int) -> CArray:
    """A one-dimension-used array descriptor at dim[adim], aligned with template dim[tdim]."""
    tmpl = CTemplate(ndims=cstructs.MAXDIM, distributed=1)
    arr = CArray(ndims=cstructs.MAXDIM, elem_size=8)
    if lay.dist is not None:
        tmpl.dim[tdim] = _tdim(lay.dist, lay.coord)
    set_fields(arr.dim[adim], {**lay.adim_fields(), "tdim": -1 if lay.dist is None else tdim})
    arr.tmpl = ctypes.pointer(tmpl)  # ctypes keeps tmpl alive through the pointer
    return arr


@SETTINGS
@given(layouts(), st.integers(0, cstructs.MAXDIM - 1), st.integers(0, cstructs.MAXDIM - 1))
def test_c_local_index(clib: ctypes.CDLL, per_node: tuple[ArrayDimLayout, ...], adim: int,
                       tdim: int) -> None:
    for lay in per_node:
        arr = ctypes.byref(_c_array(lay, adim, tdim))
        own = clib.w_loc_cyclic if lay.kind == cstructs.DIST_CYCLIC else clib.w_loc_block
        for i in _held(lay):
            assert clib.w_loc(arr, adim, i) == own(arr, adim, i) == local_index(lay, i), i


KERNEL = r"""
#include "xmpacc_dist.h"
__global__ void k(_xmpacc_tdim_t d, _xmpacc_array_t a, long long init, long long last,
                  long long step, long long *out) {
  _xmpacc_sched_t s = _xmpacc_schedule(&d, init, last, step);
  long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (tid < s.count) {
    long long g = s.first + tid * s.step;
    out[tid] = _xmpacc_loc_cyclic_t(&d, &a.dim[0], g) + _xmpacc_loc_block(&a, 0, g)
               + _xmpacc_tdim_owns(&d, g) + _xmpacc_schedule_pos(&d, init, last, step).count;
  }
}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_header_compiles_as_device_code(tmp_path: Path) -> None:
    """_XMPACC_HD makes every helper callable from a kernel (compile only, no GPU)."""
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    subprocess.run(["nvcc", "-Werror", "all-warnings", "-I", str(cstructs.INCLUDE_DIR), "-c",
                    str(src), "-o", str(tmp_path / "k.o")], check=True)
