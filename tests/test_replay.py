"""The per-iteration path in C (runtime/replay.py, runtime/include/xmpacc_replay.h): a
program whose time loop the C side replays gives the serial program's results and the
same output as the general path (``XMPACC_REPLAY=0``), under 1, 2 and 4 processes on the
host backend, whose kernels and "device" reflects replay through the same plans as a
GPU's; the runtime counters show the calls really ran in C.  The geometry of the strided
slabs that a GPU reflect packs with 2-D copies is checked against numpy."""

from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    SharedBuilds,
    gpu_count,
    once,
    repo_builds,
    run_mpi,
    run_xmpacc,
    runtime_stats,
    same_output,
    serial_output,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from xmpacc.runtime.acc_push import PushDesc, PushStruct
from xmpacc.runtime.byte_boxes import section_box
from xmpacc.runtime.device import INCLUDE_DIR
from xmpacc.runtime.device_results import CResult
from xmpacc.runtime.fast_reflect import CFastReflect
from xmpacc.runtime.replay import (
    CAccReflectPlan,
    CBcastPlan,
    CComputePlan,
    CEvent,
    CLaunchPlan,
    CLoopReducePlan,
    CNodeRef,
    CReplay,
    CSlabOp,
    CSwapPlan,
    CUpdatePlan,
    strided_copies,
)
from xmpacc.runtime.replay_collectives import CAccCollectivePlan, CAccCollectives, COverNodesPlan
from xmpacc.runtime.replay_gmove import CGmovePart, CGmovePlan
from xmpacc.runtime.replay_locations import CLocated, CLocationPlan
from xmpacc.runtime.replay_params import CParamPlan, CParamView
from xmpacc.runtime.replay_tasks import CTaskEntered, CTaskPlan

PROGRAM = Path(__file__).parent / "programs" / "replay_paths.c"
ONE_SITE = Path(__file__).parent / "programs" / "replay_one_site.c"
REDUCTIONS = Path(__file__).parent / "programs" / "replay_reductions.c"
HOST = {"XMPACC_DEVICE": "host", "XMPACC_STATS": "1"}


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    """tests/programs/replay_*.c -> (executable, serial output), each built once per test run
    (the tests below run them at several process counts)."""
    names = sorted(p.name for p in PROGRAM.parent.glob("replay_*.c"))
    return repo_builds(tmp_path_factory, "tests/programs", names)


@pytest.fixture(scope="module")
def built(programs: SharedBuilds) -> tuple[Path, str]:
    return programs[PROGRAM.name]


def _both_ways(exe: Path, nprocs: int, env: dict[str, str], expected: str) -> tuple[str, str]:
    """stderr of a replayed run and of the general path's (``XMPACC_REPLAY=0``), after
    checking both print what the serial program prints, and the same."""
    replayed = run_mpi(nprocs, exe, env=env)
    assert replayed.returncode == 0, replayed.stderr
    same_output(replayed.stdout, expected)
    general = run_mpi(nprocs, exe, env={**env, "XMPACC_REPLAY": "0"})
    assert general.returncode == 0, general.stderr
    assert general.stdout == replayed.stdout
    return replayed.stderr, general.stderr


@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_replayed_run_agrees_with_serial_and_general_path(built: tuple[Path, str], nprocs: int) -> None:
    on, off = (runtime_stats(err) for err in _both_ways(built[0], nprocs, HOST, built[1]))
    assert len(on) == len(off) == nprocs
    by_rank = {s["rank"]: s for s in off}
    for s in on:
        # The stencil and the async sweep replay in every other sweep: the data region of
        # scale, every other sweep, makes and frees a device copy, which makes every plan
        # stale (the next call plans again).  The copy never replays its launch (its bounds
        # differ from those of the sweep before), nor does the construct that copies scale
        # in (its data region makes a copy); the reduction's launch replays with its result
        # (include/xmpacc_results.h); the data regions of four constructs replay (all but
        # scale's).
        assert s["replayed_launches"] == 12, s
        assert s["replayed_computes"] == 16, s
        assert s["replayed_reflects"] >= 4, s
        for counter in ("kernel_launches", "reflect_bytes", "reflect_shadow_bytes"):   # the same work
            assert s.get(counter, 0) == by_rank[s["rank"]].get(counter, 0), counter
    assert all(not any(k.startswith("replayed_") for k in s) for s in off)


def test_two_call_sites_with_one_where(programs: SharedBuilds) -> None:
    """A sweep included twice reports one file:line for both expansions of its directives:
    each keeps its own plans, and both replay from the second time step (12 steps)."""
    exe, expected = programs[ONE_SITE.name]
    for nprocs in (1, 2):
        replayed, _general = _both_ways(exe, nprocs, HOST, expected)
        for s in runtime_stats(replayed):
            assert s["replayed_launches"] == 2 * 11 and s["replayed_computes"] == 2 * 11, s
            assert s["replayed_reflects"] == 2 * 11, s


DEFERRED_SITES = Path(__file__).parent / "programs" / "replay_deferred_sites.c"
COLLECTIVES = Path(__file__).parent / "programs" / "replay_collectives.c"


@pytest.mark.parametrize("nprocs", [2, 3])
def test_barrier_and_bcast_over_the_executing_nodes_in_c(programs: SharedBuilds, nprocs: int) -> None:
    """barrier and bcast without on or from clauses run in C from the first call (the
    executing set's communicator needs no plan), in a task over the task's nodes; with a
    from clause from the second call (its source's rank is planned); under async they
    stay general.  Six steps: x and v every step, a barrier, y from p[1] (5 in C), and in
    the task (node 1 only) one more barrier and bcast."""
    exe, expected = programs[COLLECTIVES.name]
    replayed, general = _both_ways(exe, nprocs, HOST, expected)
    for stats in runtime_stats(replayed):
        in_task = stats["rank"] == 0
        assert stats["replayed_barriers"] == 6 * (1 + in_task), stats
        assert stats["replayed_bcasts"] == 6 * (2 + in_task) + 5, stats
    assert all("replayed_bcasts" not in s for s in runtime_stats(general))


@pytest.mark.parametrize("nprocs", [1, 2])
def test_deferred_results_at_an_unsteady_site(programs: SharedBuilds, nprocs: int) -> None:
    """Deferred sum and max at a site whose bounds take seven values by turns (more than
    a site's plans): replayed where a plan matches, planned again where not, the same
    results as the general path and the serial program."""
    exe, expected = programs[DEFERRED_SITES.name]
    replayed, _general = _both_ways(exe, nprocs, HOST, expected)
    assert all(s.get("replayed_launches", 0) > 0 for s in runtime_stats(replayed))


UPDATES = Path(__file__).parent / "programs" / "replay_updates.c"


@pytest.mark.parametrize("device", ["host", pytest.param("cuda", marks=[
    pytest.mark.gpu, pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")])])
def test_acc_updates_in_c(programs: SharedBuilds, device: str) -> None:
    """acc update of whole present variables replays from its second call (8 steps: the
    device update of c, the host and the async device update of u, 7 each, and the host
    update under an if clause true every other step, 3); a false if clause does nothing,
    the section too (7: test_section_updates_in_c); the same bytes move as through the
    general path."""
    exe, expected = programs[UPDATES.name]
    replayed, general = _both_ways(exe, 1, {**HOST, "XMPACC_DEVICE": device}, expected)
    (on,), (off,) = runtime_stats(replayed), runtime_stats(general)
    assert on["replayed_updates"] == 7 + 7 + 7 + 3 + 7 and on["replayed_section_updates"] == 7, on
    assert (on["sync_in_bytes"], on["sync_out_bytes"]) == (off["sync_in_bytes"], off["sync_out_bytes"])


PRIVATE = Path(__file__).parent / "programs" / "replay_private.c"


@pytest.mark.parametrize("nprocs", [1, 2])
def test_launches_with_private_arrays_in_c(programs: SharedBuilds, nprocs: int) -> None:
    """A kernel with a private array of a run-time size (its scratch buffer made for that
    size), the size 3 and 5 by turns over 8 steps: a plan per size, each replayed from its
    second step (6 launches in C), the serial program's sum."""
    exe, expected = programs[PRIVATE.name]
    replayed, _general = _both_ways(exe, nprocs, HOST, expected)
    assert [s["replayed_launches"] for s in runtime_stats(replayed)] == [6] * nprocs


OVER_NODES = Path(__file__).parent / "programs" / "replay_over_nodes.c"


@pytest.mark.parametrize("device,nprocs", [
    ("host", 1), ("host", 2), ("host", 4),
    pytest.param("cuda", 2, marks=[pytest.mark.gpu,
                                   pytest.mark.skipif(gpu_count() < 2, reason="needs two GPUs (NCCL)")])])
def test_deferred_reduction_over_nodes_in_c(programs: SharedBuilds, device: str, nprocs: int) -> None:
    """Himeno's loop in small (a deferred gosa, acc wait on the device, the XMP reduction
    after it), 10 steps: the serial program's gosa; on GPUs of their own the reduction
    over the nodes runs in C behind the deferred result from the second step (NCCL),
    and the discard too; the host backend reduces it after the wait, in Python."""
    exe, expected = programs[OVER_NODES.name]
    replayed, _general = _both_ways(exe, nprocs, {**HOST, "XMPACC_DEVICE": device}, expected)
    for s in runtime_stats(replayed):
        assert s["replayed_launches"] == 18, s
        assert s.get("replayed_reductions_over_nodes", 0) == (9 if device == "cuda" else 0), s


OVERLAP = Path(__file__).parent / "acc_programs" / "reflect_overlap.c"


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 2, reason="needs two GPUs (NCCL)")
def test_overlapped_reflects_on_two_gpus(tmp_path: Path) -> None:
    """reflect ... acc overlapped by the next loop's interior: from the second call at a
    site the NCCL exchange runs on the exchange stream while the interior computes, the
    rim behind it on that stream, or, at the sites of one array whose loop reads a shadow
    slot, the loop's kernel stores the rows into the neighbour itself (acc_push.py); the
    serial program's numbers, as the general path's."""
    exe, expected = tmp_path / "reflect_overlap", serial_output(OVERLAP, tmp_path)
    built = run_xmpacc(str(OVERLAP), "-o", str(exe))
    assert built.returncode == 0, built.stderr
    env = {"XMPACC_DEVICE": "cuda", "XMPACC_STATS": "1", "XMPACC_OVERLAP_BYTES": "0"}
    replayed, _general = _both_ways(exe, 2, env, expected)
    for s in runtime_stats(replayed):
        # 14 as on the host backend (test_acc.py), the pushed ones among them
        assert s.get("overlapped_reflects", 0) + s.get("pushed_reflects", 0) == 14, s
        assert s.get("pushed_reflects", 0) > 0, s


REDUCE_ON = Path(__file__).parent / "programs" / "replay_reduce_on.c"


@pytest.mark.parametrize("nprocs", [1, 2, 3, 4])
def test_reductions_with_on_and_bcasts_with_from_clauses_in_c(programs: SharedBuilds, nprocs: int) -> None:
    """Two reduction directives on p(1:m), one of a section (w[2:4]), and a bcast from
    p(m), m = 1 .. nprocs by turns over 12 steps: a plan per reference, each replayed from
    its second use (3 x (12 - nprocs) reductions and 12 - nprocs bcasts in C on every
    node; the section's only on the nodes of the on-set), and every node holds what the
    formula says."""
    exe, expected = programs[REDUCE_ON.name]
    replayed, _general = _both_ways(exe, nprocs, HOST, expected)
    stats = runtime_stats(replayed)
    # node n is in p(1:m) for nprocs - n + 1 values of m, each 12 // nprocs times, the
    # first time of each planned (rank = n - 1)
    sections = [(12 // nprocs - 1) * (nprocs - s["rank"]) for s in stats]
    assert [s.get("replayed_reductions", 0) for s in stats] == [2 * (12 - nprocs) + n for n in sections]
    assert [s.get("replayed_bcasts", 0) for s in stats] == [12 - nprocs] * nprocs


REFLECT_WIDTHS = Path(__file__).parent / "programs" / "replay_reflect_widths.c"


@pytest.fixture(scope="module")
def widths_built(programs: SharedBuilds) -> tuple[Path, str]:
    return programs[REFLECT_WIDTHS.name]


def _same_moves(on: list[dict[str, int]], off: list[dict[str, int]]) -> None:
    by_rank = {s["rank"]: s for s in off}
    for s in on:
        for counter in ("reflect_bytes", "reflect_shadow_bytes"):
            assert s.get(counter, 0) == by_rank[s["rank"]].get(counter, 0), counter


@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_device_reflects_with_explicit_widths_in_c(widths_built: tuple[Path, str], nprocs: int) -> None:
    """reflect ... acc with explicit widths replays per set of widths from its second call
    (12 steps): three sets by turns on a (3 + 3 + 3), none of the five sets on d (more than
    an array keeps: planned again at every call), on g the orthogonal one with the declared
    widths and with explicit ones by turns (5 + 5) and a plain one with explicit widths
    (11); the same results and moves as the general path and the serial program."""
    replayed, general = _both_ways(widths_built[0], nprocs, HOST, widths_built[1])
    on, off = runtime_stats(replayed), runtime_stats(general)
    for s in on:
        assert (s["replayed_reflects"], s["replayed_reflects_widths"], s["replayed_reflects_orthogonal"]) \
            == (9 + 5 + 5 + 11, 9 + 5 + 11, 5 + 5), s
    _same_moves(on, off)
    assert all(not any(k.startswith("replayed_") for k in s) for s in off)


def _fails_as_in_python(exe: Path, src: Path, directive: str, error: str) -> None:
    """Run with an argument (the program's error case), replayed and not: both report
    ``error`` at the line of ``src`` that holds ``directive``, without a traceback."""
    line = next(n for n, text in enumerate(src.read_text().splitlines(), 1) if directive in text)
    for env in (HOST, {**HOST, "XMPACC_REPLAY": "0"}):
        r = run_mpi(2, exe, "bad", env=env)
        assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
        assert f"{src.name}:{line}: error: {error}" in r.stderr, r.stderr


def test_device_reflect_width_error_as_in_python(widths_built: tuple[Path, str]) -> None:
    """A's variable width grows past its shadow after its plans replayed: the call falls
    back to Python, which reports it at the reflect's line, as without replay."""
    _fails_as_in_python(widths_built[0], REFLECT_WIDTHS, "reflect (a) width (wa) acc",
                        "reflect width 3:3 of dimension 0 of 'a' exceeds its shadow 2:2")


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("nprocs", [1, 2])
def test_device_reflects_with_explicit_widths_on_the_gpu(widths_built: tuple[Path, str], nprocs: int) -> None:
    """The same on GPUs: NCCL plans per set of widths (two ranks on one GPU take the staged
    transport, which stays general)."""
    cuda = {"XMPACC_DEVICE": "cuda", "XMPACC_STATS": "1"}
    replayed, general = _both_ways(widths_built[0], nprocs, cuda, widths_built[1])
    on = runtime_stats(replayed)
    if gpu_count() >= nprocs:
        for s in on:
            assert (s["replayed_reflects"], s["replayed_reflects_widths"],
                    s["replayed_reflects_orthogonal"]) == (30, 25, 10), s
    _same_moves(on, runtime_stats(general))


SECTIONS = Path(__file__).parent / "programs" / "replay_update_sections.c"


@pytest.fixture(scope="module")
def sections_built(programs: SharedBuilds) -> tuple[Path, str]:
    return programs[SECTIONS.name]


def _section_updates(built: tuple[Path, str], nprocs: int, device: str) -> None:
    """8 steps, from the second call: the async device update of a's section by turns of
    two bounds (6), the whole a as a section, b's 2-D section both ways, c's upper half,
    the rows of the block and of the cyclic array (7 each); c's section whose start moves
    at every step never replays.  The same bytes move as through the general path."""
    replayed, general = _both_ways(built[0], nprocs, {**HOST, "XMPACC_DEVICE": device}, built[1])
    on, off = runtime_stats(replayed), runtime_stats(general)
    by_rank = {s["rank"]: s for s in off}
    for s in on:
        assert s["replayed_updates"] == s["replayed_section_updates"] == 6 + 6 * 7, s
        for counter in ("sync_in_bytes", "sync_out_bytes"):
            assert s[counter] == by_rank[s["rank"]][counter], counter


@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_section_updates_in_c(sections_built: tuple[Path, str], nprocs: int) -> None:
    _section_updates(sections_built, nprocs, "host")


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("nprocs", [1, 2])
def test_section_updates_on_the_gpu(sections_built: tuple[Path, str], nprocs: int) -> None:
    """The same with 2-D copies of the CUDA driver (cuMemcpy2DAsync and the host's wait)."""
    _section_updates(sections_built, nprocs, "cuda")


def test_section_error_as_in_python(sections_built: tuple[Path, str]) -> None:
    """The last step's section of a runs past the array after its plans replayed: the
    call falls back to Python, which reports it at the update's line, as without replay."""
    _fails_as_in_python(sections_built[0], SECTIONS, "update device(a[lo:len])",
                        "a[2:32] reaches index 33, out of bounds of dimension 0 (0..31)")


def test_profile_shows_sections_and_widths_in_c(sections_built: tuple[Path, str],
                                                widths_built: tuple[Path, str], tmp_path: Path) -> None:
    """XMPACC_PROFILE=1: section updates and reflects with explicit widths (orthogonal too)
    are rows made in C."""
    for (exe, _), rows in ((sections_built, ("acc_update [C]",)),
                           (widths_built, ("reflect acc [C]", "reflect_orthogonal_acc [C]"))):
        env = {"XMPACC_DEVICE": "host", "XMPACC_PROFILE": str(tmp_path / "p.json")}
        r = run_mpi(1, exe, env=env)
        assert r.returncode == 0, r.stderr
        for row in rows:
            assert any(row in " ".join(line.split()) for line in r.stderr.splitlines()), (row, r.stderr)


def _slice(picked: np.ndarray, step: int) -> slice:
    stop = int(picked[-1]) + (1 if step > 0 else -1)
    return slice(int(picked[0]), stop if stop >= 0 else None, step)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=3).flatmap(
    lambda shape: st.tuples(st.just(shape), st.tuples(*[st.tuples(st.integers(0, n - 1), st.integers(1, n),
                                                                   st.sampled_from([1, 2, -1, -2]))
                                                         for n in shape]),
                            st.integers(1, 8), st.booleans())))
def test_section_box_holds_the_sections_bytes(case: tuple[list[int], tuple[tuple[int, int, int], ...], int,
                                                          bool]) -> None:
    """The box of a section (slices, or np.ix_ arrays as a distributed array's owned
    elements) holds exactly the section's bytes, or the section needs more than 64 2-D
    copies."""
    shape, subs, elem, as_arrays = case
    full = np.arange(int(np.prod(shape)) * elem, dtype=np.int64).reshape(*shape, elem)
    host = np.zeros(full.shape, np.uint8)   # the byte view the box is relative to
    picks = [np.arange(n)[lo::step][:length] for (lo, length, step), n in zip(subs, shape, strict=True)]
    index = np.ix_(*picks) if as_arrays else tuple(
        _slice(picked, step) for picked, (_, _, step) in zip(picks, subs, strict=True))
    box = section_box(host, index)
    if box is None:
        assert sum(len(picked) > 1 for picked in picks) >= 3
        return
    got = sorted(box.offset + k * box.stride + r * box.pitch + b
                 for k in range(box.copies) for r in range(box.height) for b in range(box.width))
    assert got == sorted(int(x) for x in full[index].reshape(-1))


HIMENO = Path(__file__).parent.parent / "bench" / "spelling" / "himeno_spell.c"


def _himeno(spelling: int, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bench/spelling/himeno_spell.c in ``spelling``, built once per test run."""
    def make(work: Path) -> Path:
        exe = work / f"himeno{spelling}"
        r = run_xmpacc(str(HIMENO), "-DSIZE_XS", "-DNN=5", f"-DSPELLING={spelling}", "-o", str(exe))
        assert r.returncode == 0, r.stderr
        return exe

    return once(tmp_path_factory, f"replay-himeno{spelling}", make)


def _results(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith(("gosa", "psum"))]


# spelling -> processes -> (replayed launches, replayed reduction directives) per rank: 8
# iterations (3 + NN) of two launches and one reduction of gosa, the first general
_HIMENO_REPLAYS = {1: {1: (14, 7), 2: (14, 0)},    # async queue, gosa deferred past acc wait (on the device)
                   2: {1: (14, 7), 2: (14, 0)},    # deferred gosa: over 2 nodes the host reduces
                   3: {1: (14, 0), 2: (14, 0)}}    # XMP-ACC: a loop reduction, no directive


@pytest.mark.parametrize("spelling", sorted(_HIMENO_REPLAYS))
def test_himeno_spellings_replay_their_reductions(tmp_path_factory: pytest.TempPathFactory,
                                                  spelling: int) -> None:
    """Himeno as users write it (bench/spelling/himeno_spell.c): from the second iteration
    the sweep with its gosa reduction (deferred to the host's wait; under async(n)
    past the acc waits, made on the device) and the copy kernel launch in C, async
    queues switch in C, and the reduction directive of gosa over the executing nodes
    runs in C where its result is the variable's (over one node, or after an immediate
    result), with the same gosa as the general path, bit for bit."""
    exe = _himeno(spelling, tmp_path_factory)
    for nprocs, (launches, reductions) in _HIMENO_REPLAYS[spelling].items():
        on = run_mpi(nprocs, exe, env=HOST)
        off = run_mpi(nprocs, exe, env={**HOST, "XMPACC_REPLAY": "0"})
        assert on.returncode == off.returncode == 0, on.stderr + off.stderr
        assert _results(on.stdout) == _results(off.stdout) and len(_results(on.stdout)) == 2
        for stats in runtime_stats(on.stderr):
            assert stats["replayed_launches"] == launches, stats
            assert stats.get("replayed_reductions", 0) == reductions, stats
            assert stats.get("replayed_loop_reductions", 0) == (7 if spelling == 3 else 0), stats


def test_profile_names_the_calls_made_in_c(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """XMPACC_PROFILE=1 on the async spelling: the queue switches, the reduction's launch
    and the reduction directive appear as rows made in C."""
    env = {"XMPACC_DEVICE": "host", "XMPACC_PROFILE": str(tmp_path / "p.json")}   # the trace: here
    r = run_mpi(1, _himeno(1, tmp_path_factory), env=env)
    assert r.returncode == 0, r.stderr
    rows = [line for line in r.stderr.splitlines() if "[C]" in line]
    for row in ("c:113 acc_queue_begin", "acc_queue_end", "c:153 reduction", "c:113 loop acc (kernel)"):
        assert any(" ".join(line.split()).startswith(f"himeno_spell.{row} [C]") or f" {row} [C]" in line
                   for line in rows), (row, r.stderr)


@pytest.mark.parametrize("nprocs", [2, 4])
def test_loop_reductions_replayed(programs: SharedBuilds, nprocs: int) -> None:
    """Loop reductions over all nodes, over a row of a 2-D node array and inside a task
    replay from the second time step (5 steps): the 8 of the main loop whose operators
    and types the C side takes and its 2 of array sections, the row's, and the task's on
    its nodes; && and || stay general."""
    exe, expected = programs[REDUCTIONS.name]
    replayed, _general = _both_ways(exe, nprocs, HOST, expected)
    by_rank = {s["rank"]: s["replayed_loop_reductions"] for s in runtime_stats(replayed)}
    in_task = {0, 1}   # p[0][:]
    assert by_rank == {r: (5 - 1) * (8 + 2 + 1 + (r in in_task)) for r in range(nprocs)}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=4).flatmap(
    lambda shape: st.tuples(st.just(shape), st.tuples(*[st.tuples(st.integers(0, n - 1), st.integers(1, n))
                                                         for n in shape]), st.integers(1, 8))))
def test_strided_copies_cover_the_box(case: tuple[list[int], tuple[tuple[int, int], ...], int]) -> None:
    """The 2-D copies that pack a box of a row-major array (a slab of a reflect) visit
    exactly its bytes, in C order, or the box is refused."""
    shape, corners, elem = case
    full = np.arange(int(np.prod(shape)) * elem, dtype=np.int64).reshape(*shape, elem)
    box = tuple(slice(lo, min(lo + n, size)) for (lo, n), size in zip(corners, shape, strict=True))
    part = full[box]
    strides = tuple(s // full.itemsize for s in part.strides)   # in elements of the byte view
    got = strided_copies(part.shape, strides)
    if got is None:
        assert sum(1 for n in part.shape if n != 1) >= 3
        return
    pitch, width, height, copies, stride = got
    origin = int(part.reshape(-1)[0])
    packed = [origin + k * stride + r * pitch + b
              for k in range(copies) for r in range(height) for b in range(width)]
    assert packed == [int(x) for x in part.reshape(-1)]


ACC_COLLECTIVES = Path(__file__).parent / "programs" / "replay_acc_collectives.c"


@pytest.fixture(scope="module")
def acc_collectives_built(programs: SharedBuilds) -> tuple[Path, str]:
    return programs[ACC_COLLECTIVES.name]


def _acc_collectives(built: tuple[Path, str], nprocs: int, device: str) -> None:
    """6 steps; every site's plans go stale at step 3 (a device copy made again), so each
    variable replays 4 times: 11 reduced in C (&& and the on clause stay general), x and
    y broadcast in C, the element of e whose subscript changes by turns at steps 2 and 5
    only (its plans at step 3 and 4 are made anew).  The same moves as the general path."""
    replayed, general = _both_ways(built[0], nprocs, {**HOST, "XMPACC_DEVICE": device}, built[1])
    on, off = runtime_stats(replayed), runtime_stats(general)
    assert len(on) == nprocs
    for s in on:
        assert (s["replayed_acc_reductions"], s["replayed_acc_bcasts"]) == (11 * 4, 2 * 4 + 2), s
    assert all(not any(k.startswith("replayed_acc_") for k in s) for s in off)


@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_acc_collectives_in_c(acc_collectives_built: tuple[Path, str], nprocs: int) -> None:
    """reduction ... acc and bcast ... acc over the executing nodes: MPI on the host
    backend's device buffers, from C."""
    _acc_collectives(acc_collectives_built, nprocs, "host")


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("nprocs", [1, 2])
def test_acc_collectives_on_the_gpu(acc_collectives_built: tuple[Path, str], nprocs: int) -> None:
    """The same on GPUs: ncclAllReduce and ncclBroadcast in place on the compute stream,
    and MPI through a host stage for & | ^ and unsigned short (and for everything when two
    ranks share one GPU: no NCCL)."""
    _acc_collectives(acc_collectives_built, nprocs, "cuda")


def test_acc_collective_error_as_in_python(acc_collectives_built: tuple[Path, str]) -> None:
    """g's device copy is deleted before the last step's reduction, after its plans
    replayed: the call falls back to Python, which reports it at the line, as without
    replay."""
    _fails_as_in_python(acc_collectives_built[0], ACC_COLLECTIVES, "reduction (max: g) acc",
                        "'reduction ... acc' of 'g', which is not present on the device")


def test_profile_shows_acc_collectives_in_c(acc_collectives_built: tuple[Path, str], tmp_path: Path) -> None:
    env = {"XMPACC_DEVICE": "host", "XMPACC_PROFILE": str(tmp_path / "p.json")}
    r = run_mpi(2, acc_collectives_built[0], env=env)
    assert r.returncode == 0, r.stderr
    for row in ("reduction acc [C]", "bcast acc [C]", "reduction acc "):
        assert any(row in " ".join(line.split()) for line in r.stderr.splitlines()), (row, r.stderr)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("nprocs", [1, 2])
def test_replayed_on_the_gpu(built: tuple[Path, str], nprocs: int) -> None:
    """The same on a GPU: launches through cuLaunchKernel, reflects through NCCL (two
    ranks on one GPU take the staged transport, which stays general), waits in C."""
    cuda = {"XMPACC_DEVICE": "cuda", "XMPACC_STATS": "1"}
    replayed, _general = _both_ways(built[0], nprocs, cuda, built[1])
    for s in runtime_stats(replayed):
        assert s["replayed_launches"] == 12 and s["replayed_computes"] == 16, s   # as on the host
        if gpu_count() >= nprocs:
            assert s["replayed_reflects"] >= 4, s


MIRRORS = {"_xmpacc_replay_t": CReplay, "_xmpacc_launch_plan_t": CLaunchPlan,
           "_xmpacc_compute_plan_t": CComputePlan, "_xmpacc_slab_op_t": CSlabOp,
           "_xmpacc_loop_reduce_plan_t": CLoopReducePlan, "_xmpacc_swap_plan_t": CSwapPlan,
           "_xmpacc_acc_reflect_plan_t": CAccReflectPlan, "struct _xmpacc_replay_event": CEvent,
           "_xmpacc_fast_reflect_t": CFastReflect, "_xmpacc_result_t": CResult,
           "_xmpacc_update_plan_t": CUpdatePlan, "_xmpacc_acc_collective_plan_t": CAccCollectivePlan,
           "_xmpacc_acc_collectives_t": CAccCollectives, "_xmpacc_over_nodes_plan_t": COverNodesPlan,
           "_xmpacc_bcast_plan_t": CBcastPlan, "_xmpacc_node_ref_t": CNodeRef,
           "_xmpacc_gmove_plan_t": CGmovePlan, "_xmpacc_gmove_part_t": CGmovePart,
           "_xmpacc_param_view_t": CParamView, "_xmpacc_param_plan_t": CParamPlan,
           "_xmpacc_task_plan_t": CTaskPlan, "_xmpacc_task_entered_t": CTaskEntered,
           "_xmpacc_location_plan_t": CLocationPlan, "_xmpacc_located_t": CLocated,
           "_xmpacc_push_t": PushStruct, "_xmpacc_push_desc_t": PushDesc}
# the driver's CUDA_MEMCPY2D, field by field, as include/xmpacc_fast.h spells it
MEMCPY2D = {"src_x": "srcXInBytes", "src_y": "srcY", "src_type": "srcMemoryType", "src_host": "srcHost",
            "src_device": "srcDevice", "src_array": "srcArray", "src_pitch": "srcPitch",
            "dst_x": "dstXInBytes", "dst_y": "dstY", "dst_type": "dstMemoryType", "dst_host": "dstHost",
            "dst_device": "dstDevice", "dst_array": "dstArray", "dst_pitch": "dstPitch",
            "width": "WidthInBytes", "height": "Height"}


def _layout(tmp_path: Path, lines: list[str], header: str) -> list[str]:
    src = tmp_path / "layout.c"
    src.write_text(f"#include <stdio.h>\n#include <stddef.h>\n{header}\nint main(void) {{\n"
                   + "".join(f"  printf(\"%zu\\n\", (size_t)({e}));\n" for e in lines) + "  return 0;\n}\n")
    exe = tmp_path / "layout"
    r = subprocess.run(["cc", f"-I{INCLUDE_DIR}", str(src), "-o", str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()


def test_c_structures_match_their_ctypes_mirrors(tmp_path: Path) -> None:
    """The plans are written by Python and read by C: every field at the same offset."""
    exprs, expected = [], []
    for c_name, mirror in MIRRORS.items():
        exprs.append(f"sizeof({c_name})")
        expected.append(ctypes.sizeof(mirror))
        for name, *_ in mirror._fields_:
            exprs.append(f"offsetof({c_name}, {name})")
            expected.append(getattr(mirror, name).offset)
    got = _layout(tmp_path, exprs, '#include "xmpacc_fast.h"')
    assert [int(g) for g in got] == expected


@pytest.mark.skipif(not Path("/usr/local/cuda/include/cuda.h").exists(), reason="needs the CUDA headers")
def test_memcpy2d_is_the_drivers(tmp_path: Path) -> None:
    """cuMemcpy2DAsync_v2 reads the packing copies in the driver's own layout."""
    exprs = ["sizeof(_xmpacc_memcpy2d_t)", "sizeof(CUDA_MEMCPY2D)"]
    for ours, theirs in MEMCPY2D.items():
        exprs += [f"offsetof(_xmpacc_memcpy2d_t, {ours})", f"offsetof(CUDA_MEMCPY2D, {theirs})"]
    got = _layout(tmp_path, exprs, '#include "/usr/local/cuda/include/cuda.h"\n#include "xmpacc_fast.h"')
    assert got[0::2] == got[1::2]


@pytest.mark.skipif(not Path("/usr/local/cuda/include/cuda.h").exists(), reason="needs the CUDA headers")
def test_launch_config_is_the_drivers(tmp_path: Path) -> None:
    """cuLaunchKernelEx reads the dependent launch's configuration in the driver's layout,
    with the attribute's number and value where cuda.h puts them."""
    pairs = [("sizeof(_xmpacc_launch_attr_t)", "sizeof(CUlaunchAttribute)"),
             ("offsetof(_xmpacc_launch_attr_t, value)", "offsetof(CUlaunchAttribute, value)"),
             ("6", "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION"),
             ("0", "offsetof(CUlaunchAttributeValue, programmaticStreamSerializationAllowed)"),
             ("sizeof(_xmpacc_launch_config_t)", "sizeof(CUlaunchConfig)")]
    for ours, theirs in (("grid", "gridDimX"), ("block", "blockDimX"), ("shared", "sharedMemBytes"),
                         ("stream", "hStream"), ("attrs", "attrs"), ("nattrs", "numAttrs")):
        pairs.append((f"offsetof(_xmpacc_launch_config_t, {ours})", f"offsetof(CUlaunchConfig, {theirs})"))
    got = _layout(tmp_path, [e for pair in pairs for e in pair],
                  '#include "/usr/local/cuda/include/cuda.h"\n#include "xmpacc_fast.h"')
    assert got[0::2] == got[1::2]


def test_dependent_launch_is_on_unless_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """XMPACC_DEPENDENT_LAUNCH=0 makes every launch in C a plain one (docs/xmpacc.md)."""
    from xmpacc.runtime.replay import dependent_launch
    monkeypatch.delenv("XMPACC_DEPENDENT_LAUNCH", raising=False)
    assert dependent_launch()
    monkeypatch.setenv("XMPACC_DEPENDENT_LAUNCH", "0")
    assert not dependent_launch()


def _shared_library(tmp_path: Path, name: str, text: str) -> ctypes.CDLL:
    src, lib = tmp_path / f"{name}.c", tmp_path / f"lib{name}.so"
    src.write_text(text)
    r = subprocess.run(["cc", "-shared", "-fPIC", f"-I{INCLUDE_DIR}", str(src), "-o", str(lib)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return ctypes.CDLL(str(lib))


@pytest.mark.parametrize("ex", [True, False])
def test_the_driver_is_bound_with_or_without_launch_ex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       ex: bool) -> None:
    """bind_driver takes the glue's driver functions from libcuda (replay.driver); a driver
    without cuLaunchKernelEx (older than CUDA 12) leaves launch_ex 0, so that launches are
    plain, and binds the rest all the same."""
    import xmpacc.runtime.replay as replay_module
    names = [n for _, n in replay_module._DRIVER] + (["cuLaunchKernelEx"] if ex else [])
    stubs = "".join(f"int {n}(void) {{ return 0; }}\n" for n in names)
    fake = _shared_library(tmp_path, f"cuda{int(ex)}", stubs)
    glue = _shared_library(tmp_path, f"glue{int(ex)}", '#include "xmpacc_fast.h"\n')
    monkeypatch.setattr(replay_module, "driver", lambda: fake)
    assert replay_module.bind_driver(glue)
    c = CReplay.in_dll(glue, "_xmpacc_replay")
    assert c.launch and c.synchronize and bool(c.launch_ex) == ex
