"""reflect's C fast path (runtime/fast_reflect.py, runtime/include/xmpacc_fast.h): the
same results as the general path and the serial program, the calls really taken in C
(XMPACC_STATS counts them), and the slab geometry it relies on."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import run_mpi, runtime_stats, same_output, xmpacc_and_serial
from hypothesis import given, settings
from hypothesis import strategies as st

from xmpacc.runtime.fast_reflect import contiguous_offset

PROGRAM = Path(__file__).parent / "programs" / "reflect_fast.c"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return xmpacc_and_serial(PROGRAM.parent)(PROGRAM.name, tmp_path_factory.mktemp("fast_reflect"))


@pytest.mark.parametrize("nprocs", [2, 4])
def test_fast_path_agrees_with_serial_and_general_path(built: tuple[Path, str], nprocs: int) -> None:
    exe, expected = built
    fast = run_mpi(nprocs, exe, env={"XMPACC_STATS": "1"})
    assert fast.returncode == 0, fast.stderr
    same_output(fast.stdout, expected)
    general = run_mpi(nprocs, exe, env={"XMPACC_STATS": "1", "XMPACC_FAST_REFLECT": "0"})
    assert general.returncode == 0, general.stderr
    assert general.stdout == fast.stdout
    on, off = runtime_stats(fast.stderr), runtime_stats(general.stderr)
    assert len(on) == len(off) == nprocs
    # a, g and c: 6 reflects each, the first two through Python; w is aligned anew in every
    # call and reflected once there, so it never gets requests
    assert all(s["reflect_fast_calls"] == 12 for s in on)
    assert all("reflect_fast_calls" not in s for s in off)
    by_rank = {s["rank"]: s for s in off}
    for s in on:   # the counters see the same bytes either way
        assert s["reflect_bytes"] == by_rank[s["rank"]]["reflect_bytes"]
        assert s["reflect_shadow_bytes"] == by_rank[s["rank"]]["reflect_shadow_bytes"]


def test_profiled_run_shows_the_fast_path(built: tuple[Path, str], tmp_path: Path) -> None:
    """A profiled run takes the C path too, and its table says which reflects ran there."""
    exe, expected = built
    r = run_mpi(2, exe, env={"XMPACC_STATS": "1", "XMPACC_PROFILE": str(tmp_path / "p.json")})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)
    fast = sum(s.get("reflect_fast_calls", 0) for s in runtime_stats(r.stderr))
    rows = [line.split() for line in r.stderr.splitlines() if " reflect [C] " in line]
    assert fast > 0 and rows and sum(int(row[3]) for row in rows) == fast


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=4).flatmap(
    lambda shape: st.tuples(st.just(shape), st.tuples(*[st.tuples(st.integers(0, n - 1), st.integers(1, n))
                                                         for n in shape]))))
def test_contiguous_offset_matches_numpy(case: tuple[list[int], tuple[tuple[int, int], ...]]) -> None:
    shape, boxes = case
    starts = [lo for lo, _ in boxes]
    sizes = [min(n, s - lo) for (lo, n), s in zip(boxes, shape, strict=True)]
    flat = np.arange(int(np.prod(shape))).reshape(shape)[
        tuple(slice(a, a + n) for a, n in zip(starts, sizes, strict=True))].ravel()
    one_run = bool(np.all(np.diff(flat) == 1))
    got = contiguous_offset(list(shape), starts, sizes)
    assert (got is not None) == one_run
    if got is not None:
        assert got == flat[0]


WIDTHS = Path(__file__).parent / "programs" / "reflect_widths_fast.c"


@pytest.mark.parametrize("nprocs", [2, 4])
def test_explicit_widths_in_c(tmp_path: Path, nprocs: int) -> None:
    """reflect with explicit widths gets requests of its own per set of widths, from its
    second call: four sets by turns on a (15 steps: 2 + 2 + 2 + 1 calls in C), five on d
    (more than an array keeps: each is planned again, none replays), one on the 2-D g
    (13); the same results as the general path and the serial program."""
    exe, expected = xmpacc_and_serial(WIDTHS.parent)(WIDTHS.name, tmp_path)
    fast = run_mpi(nprocs, exe, env={"XMPACC_STATS": "1"})
    assert fast.returncode == 0, fast.stderr
    same_output(fast.stdout, expected)
    general = run_mpi(nprocs, exe, env={"XMPACC_STATS": "1", "XMPACC_FAST_REFLECT": "0"})
    assert general.returncode == 0 and general.stdout == fast.stdout, general.stderr
    on, off = runtime_stats(fast.stderr), runtime_stats(general.stderr)
    assert [s["reflect_fast_calls"] for s in on] == [7 + 13] * nprocs
    by_rank = {s["rank"]: s for s in off}
    for s in on:
        assert s["reflect_bytes"] == by_rank[s["rank"]]["reflect_bytes"]
        assert s["reflect_shadow_bytes"] == by_rank[s["rank"]]["reflect_shadow_bytes"]
