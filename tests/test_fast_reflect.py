"""reflect's C fast path (runtime/fast_reflect.py, runtime/include/xmpacc_fast.h; under
async: fast_async.py, xmpacc_async.h): the same results as the general path and the serial
program, the calls really taken in C (XMPACC_STATS counts them), and the slab geometry it
relies on."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import SharedBuilds, run_mpi, runtime_stats, same_output, xmpacc_and_serial
from hypothesis import given, settings
from hypothesis import strategies as st

from xmpacc.runtime.fast_reflect import contiguous_offset

PROGRAM = Path(__file__).parent / "programs" / "reflect_fast.c"


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    """The programs below -> (executable, serial output), each built once per test run."""
    return SharedBuilds(tmp_path_factory, "fast_reflect",
                        ["reflect_fast.c", "reflect_widths_fast.c", "reflect_async_fast.c"],
                        xmpacc_and_serial(PROGRAM.parent))


@pytest.fixture(scope="module")
def built(programs: SharedBuilds) -> tuple[Path, str]:
    return programs[PROGRAM.name]


# tests/test_programs.py leaves reflect_fast.c's runs on 2 and 4 processes to this test
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
    # a, g and c: 6 reflects each, the first two through Python, and a's async one in C; w is
    # aligned anew in every call and reflected once there, so it never gets requests
    assert all(s["reflect_fast_calls"] == 13 and s["reflect_fast_async_calls"] == 1 for s in on)
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
def test_explicit_widths_in_c(programs: SharedBuilds, nprocs: int) -> None:
    """reflect with explicit widths gets requests of its own per set of widths, from its
    second call: four sets by turns on a (15 steps: 2 + 2 + 2 + 1 calls in C), five on d
    (more than an array keeps: each is planned again, none replays), one on the 2-D g
    (13); the same results as the general path and the serial program."""
    exe, expected = programs[WIDTHS.name]
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


ASYNC = Path(__file__).parent / "programs" / "reflect_async_fast.c"
STATS = {"XMPACC_STATS": "1"}


@pytest.fixture(scope="module")
def built_async(programs: SharedBuilds) -> tuple[Path, str]:
    return programs[ASYNC.name]


@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_async_and_orthogonal_in_c(built_async: tuple[Path, str], nprocs: int) -> None:
    """reflect ... async and orthogonal run in C from their plan on: the same output and
    bytes as the general path, and these calls in C on every rank (the first two of each
    array, kind and widths plan in Python; a reflect under an id Python holds stays there):
    line, 5 steps: a's three declared reflects under ids 1, 3, 5 (13 of 15), the periodic
    b and a under id 2 (3 + 3), b after a bcast under id 4 (none); w (3 of 4); grid, 5 steps:
    g under id 1 (3), periodic g and a under id 2 (3 + 3: id 2 is Python's while g has no
    plan), g orthogonal (3), with widths (3), periodic under id 3 (3).  wait_async in C:
    4 + 3 of the line's, 1 of w's, 3 + 3 + 3 of the grid's, and the last one, of w's
    reflect, which Python took over when w went, on one process where nothing was in
    flight."""
    exe, expected = built_async
    fast = run_mpi(nprocs, exe, env=STATS)
    assert fast.returncode == 0, fast.stderr
    same_output(fast.stdout, expected)
    general = run_mpi(nprocs, exe, env={**STATS, "XMPACC_FAST_REFLECT": "0"})
    assert general.returncode == 0 and general.stdout == fast.stdout, general.stderr
    on, off = runtime_stats(fast.stderr), runtime_stats(general.stderr)
    assert len(on) == len(off) == nprocs
    by_rank = {s["rank"]: s for s in off}
    for s in on:
        assert (s["reflect_fast_calls"], s["reflect_fast_async_calls"], s["reflect_fast_orthogonal_calls"],
                s["wait_async_fast_calls"]) == (39, 33, 9, 17 + (nprocs == 1))
        assert s["test_async_fast_calls"] >= 10   # polled: at least once per step, and once after
        for key in ("reflect_bytes", "reflect_shadow_bytes"):
            assert s[key] == by_rank[s["rank"]][key]
    assert not any(key.endswith("_fast_calls") for s in off for key in s)


def test_profile_marks_async_and_orthogonal(built_async: tuple[Path, str], tmp_path: Path) -> None:
    """Each call that ran in C is a row of the profile marked [C]: reflects, orthogonal
    reflects, wait_async, xmp_test_async, and the async clause's begin and end."""
    exe, expected = built_async
    r = run_mpi(2, exe, env={**STATS, "XMPACC_PROFILE": str(tmp_path / "p.json")})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)
    stats = runtime_stats(r.stderr)

    def calls(directive: str) -> int:
        rows = [line.split() for line in r.stderr.splitlines() if f" {directive} [C] " in line]
        return sum(int(row[3]) for row in rows)

    def counted(key: str) -> int:
        return sum(s[key] for s in stats)

    assert calls("reflect") + calls("reflect_orthogonal") == counted("reflect_fast_calls")
    assert calls("reflect_orthogonal") == counted("reflect_fast_orthogonal_calls")
    assert calls("wait_async") == counted("wait_async_fast_calls")
    assert calls("test_async") == counted("test_async_fast_calls")
    assert calls("async_begin") == calls("async_end") > counted("reflect_fast_async_calls")
