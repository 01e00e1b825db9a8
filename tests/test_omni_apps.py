"""Applications written for Omni (``xmpcc``), built by their own Makefiles with only the
compiler swapped (``make MPICC=xmpacc``), and run under mpirun against their serial build
(plain cc: directives and OpenMP lines ignored).

tests/omni/triad: STREAM's kernels as an XcalableMP + OpenMP hybrid, with Omni's options in
its Makefile (``-omp``, ``--Wn-O2``, ``--Wl-lm``); each node's loops run on two OpenMP
threads.

tests/omni/himeno: a Himeno-like XcalableACC program as Omni's users write it (the
parenthesised syntax, combined align directives, shadows wider on one side, gang/vector
loops with async queues, MPI calls of xmp.h under _XCALABLEMP), built by a Makefile that
passes ``-xacc --device=Kepler --Wn-O2``; on the host backend here, on a GPU in
tests/test_gpu_programs.py.

The rest are the shapes of the applications distributed with Omni, each in a folder with its
Makefile (``MPICC=xmpcc``, ``-O2 --Wn-O2``; ``make serial`` is plain cc on the same file),
run under 1, 2 and 4 processes on the host backend against the serial build:

- tests/omni/ep: NPB EP (batches of an LCG stream skipped ahead, in blocks over a template;
  ``reduction (+:sx, sy)`` and of the array ``q``; ``bcast``; ``task on p(1)``).
- tests/omni/randomaccess: HPCC RandomAccess in the local view (the table a coarray, updates
  bucketed and put into the owners' inbox coarrays, ``xmp_sync_all(NULL)``).
- tests/omni/himeno_lv: Himeno in the local view (slabs with halo planes in a coarray,
  section puts to the neighbours, gosa by MPI_Allreduce over ``xmp_get_mpi_comm()``).
- tests/omni/cg_lv: NPB CG in the local view (gathers by coindexed section gets through a
  coarray dummy argument, dot products by ``reduction``).

The coarray programs hide their coindexed statements from cc under ``#ifdef _XCALABLEMP``
(one image there): their serial build is the one-image program."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, SharedBuilds, gpu_count, once, run_mpi, same_output, serial_output, xmpacc_command

OMNI = REPO / "tests" / "omni"
THREADS = {"OMP_NUM_THREADS": "2", "XMPACC_DEVICE": "host"}


@pytest.fixture(scope="module")
def triad(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/omni/triad built by its Makefile with this environment's xmpacc, once per test run."""
    def make(tmp: Path) -> Path:
        work = tmp / "triad"
        shutil.copytree(OMNI / "triad", work, dirs_exist_ok=True)
        xmpacc = xmpacc_command()[0]
        r = subprocess.run(["make", f"MPICC={xmpacc}"], cwd=work, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"make failed:\n{r.stdout}\n{r.stderr}"
        assert "warning" not in r.stderr, r.stderr   # every Omni option is understood
        assert f"{xmpacc} -omp -O2 --Wn-O2 -o triad triad.o --Wl-lm" in r.stdout
        return work

    return once(tmp_path_factory, "omni-triad", make)


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_triad_runs_like_its_serial_build(triad: Path, nprocs: int, tmp_path: Path) -> None:
    r = run_mpi(nprocs, triad / "triad", env=THREADS)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, serial_output(OMNI / "triad" / "triad.c", tmp_path))
    assert "Solution Validates" in r.stdout
    assert "OpenMP threads per node: 2" in r.stderr, "each node's loops ran on its two threads"


@pytest.mark.mpi
def test_triad_on_a_2x2_grid_runs_like_its_serial_build(triad: Path, tmp_path: Path) -> None:
    """Rows in blocks and columns cyclic(2) over 2 x 2 nodes, both loops of each nest
    collapsed by OpenMP: the inner loops' schedules are hoisted, each thread has its own
    column index."""
    r = run_mpi(4, triad / "triad2d", env=THREADS)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, serial_output(OMNI / "triad" / "triad2d.c", tmp_path))
    assert "b validates" in r.stdout



@pytest.fixture(scope="module")
def himeno(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/omni/himeno built by its Makefile with this environment's xmpacc, once per test run."""
    def make(tmp: Path) -> Path:
        work = tmp / "himeno"
        shutil.copytree(OMNI / "himeno", work, dirs_exist_ok=True)
        xmpacc = xmpacc_command()[0]
        r = subprocess.run(["make", f"MPICC={xmpacc}", "himeno", "serial"], cwd=work, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, f"make failed:\n{r.stdout}\n{r.stderr}"
        assert "warning" not in r.stderr, r.stderr   # every Omni option is understood
        assert f"{xmpacc} -xacc --device=Kepler --Wn-O2 -O2 -c himeno.c" in r.stdout
        return work

    return once(tmp_path_factory, "omni-himeno", make)


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_himeno_xacc_runs_like_its_serial_build(himeno: Path, nprocs: int) -> None:
    serial = subprocess.run([str(himeno / "himeno.serial")], capture_output=True, text=True, check=True,
                            timeout=120)
    r = run_mpi(nprocs, himeno / "himeno", env={"XMPACC_DEVICE": "host"})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, serial.stdout, rel=1e-4)   # fp32 sums of 58,000 terms in another order
    # xmp.h's MPI under _XCALABLEMP: every node named its processor
    assert sorted(line.split(" (")[0] for line in r.stderr.splitlines() if line.startswith("node ")) == \
        [f"node {k}" for k in range(1, nprocs + 1)]


@pytest.mark.gpu
@pytest.mark.mpi
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_himeno_xacc_on_the_gpu(himeno: Path, nprocs: int) -> None:
    """The same executable on the cuda backend: its kernels and reflects on the GPU."""
    serial = subprocess.run([str(himeno / "himeno.serial")], capture_output=True, text=True, check=True,
                            timeout=120)
    r = run_mpi(nprocs, himeno / "himeno", env={"XMPACC_DEVICE": "cuda"}, timeout=180)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, serial.stdout, rel=1e-4)


APPS = ["ep", "randomaccess", "himeno_lv", "cg_lv"]


def _make_app(name: str, work: Path) -> tuple[Path, str]:
    """SharedBuilds' ``make``: tests/omni/NAME copied into ``work``, ``make MPICC=xmpacc
    NAME serial`` (every Omni option understood: no warning), the serial build run."""
    shutil.copytree(OMNI / name, work, dirs_exist_ok=True)
    xmpacc = xmpacc_command()[0]
    r = subprocess.run(["make", f"MPICC={xmpacc}", name, "serial"], cwd=work, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, f"make failed:\n{r.stdout}\n{r.stderr}"
    assert "warning" not in r.stderr, r.stderr
    assert f"{xmpacc} -O2 --Wn-O2 " in r.stdout, r.stdout
    serial = subprocess.run([str(work / f"{name}.serial")], capture_output=True, text=True, check=True,
                            timeout=60)
    return work / name, serial.stdout


@pytest.fixture(scope="module")
def apps(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    """ep, randomaccess, himeno_lv and cg_lv, each built once per test run by its Makefile."""
    return SharedBuilds(tmp_path_factory, "omni-apps", APPS, _make_app)


def _run_app(apps: SharedBuilds, name: str, nprocs: int) -> tuple[str, str]:
    """What ``mpirun -np nprocs`` of the program prints, and what its serial build prints."""
    exe, serial = apps[name]
    r = run_mpi(nprocs, exe, env={"XMPACC_DEVICE": "host"})
    assert r.returncode == 0, r.stderr
    return r.stdout, serial


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_ep_runs_like_its_serial_build(apps: SharedBuilds, nprocs: int) -> None:
    """Every batch draws the same numbers on any number of nodes: the counts are exact, sx
    and sy the same 823,573 terms added in another order (seen: 3e-14 apart; NPB's own
    verification asks 1e-8)."""
    got, serial = _run_app(apps, "ep", nprocs)
    same_output(got, serial, rel=1e-10)
    assert "Verification = SUCCESSFUL" in got and "Gaussian pairs = 823573" in got


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_randomaccess_runs_like_its_serial_build(apps: SharedBuilds, nprocs: int) -> None:
    """XOR commutes: the table, its checksums and the error count are exact."""
    got, serial = _run_app(apps, "randomaccess", nprocs)
    assert got == serial
    assert "errors = 0\nPASSED" in got


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_himeno_local_view_runs_like_its_serial_build(apps: SharedBuilds, nprocs: int) -> None:
    """p is updated element by element with the serial arithmetic, so the probes fetched
    from their owners are exact and psum (a double sum of the same floats) differs by
    rounding only; gosa is an fp32 sum of 55,800 terms in one sequence (serial) or in 2 or
    4 (images), each a few 1e-5 off the exact sum (seen: -1.6e-5 serial, +3.4e-5 on 2)."""
    got, serial = _run_app(apps, "himeno_lv", nprocs)
    gosa = [line for line in got.splitlines() if line.startswith("gosa = ")]
    expected = [line for line in serial.splitlines() if line.startswith("gosa = ")]
    assert len(gosa) == len(expected) == 1, got
    same_output(gosa[0], expected[0], rel=2e-4)
    same_output(got.replace(gosa[0], ""), serial.replace(expected[0], ""), rel=1e-12)
    assert got.count("p(") == 4


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_cg_local_view_runs_like_its_serial_build(apps: SharedBuilds, nprocs: int) -> None:
    """Dot products reduced in another order differ by rounding; twelve CG steps keep the
    residuals (1e-2 .. 4e-7) far above it, so the outputs agree to 1e-9 (as tests/omni/cg)."""
    got, serial = _run_app(apps, "cg_lv", nprocs)
    same_output(got, serial)
    assert got.splitlines()[-1].startswith("zeta = 3.61978848")
