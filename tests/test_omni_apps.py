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
tests/test_gpu_programs.py."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, gpu_count, run_mpi, same_output, serial_output, xmpacc_command

OMNI = REPO / "tests" / "omni"
THREADS = {"OMP_NUM_THREADS": "2", "XMPACC_DEVICE": "host"}


@pytest.fixture(scope="module")
def triad(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/omni/triad built by its Makefile with this environment's xmpacc."""
    work = tmp_path_factory.mktemp("omni") / "triad"
    shutil.copytree(OMNI / "triad", work)
    xmpacc = xmpacc_command()[0]
    r = subprocess.run(["make", f"MPICC={xmpacc}"], cwd=work, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"make failed:\n{r.stdout}\n{r.stderr}"
    assert "warning" not in r.stderr, r.stderr   # every Omni option is understood
    assert f"{xmpacc} -omp -O2 --Wn-O2 -o triad triad.o --Wl-lm" in r.stdout
    return work


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
    """tests/omni/himeno built by its Makefile with this environment's xmpacc."""
    work = tmp_path_factory.mktemp("omni") / "himeno"
    shutil.copytree(OMNI / "himeno", work)
    xmpacc = xmpacc_command()[0]
    r = subprocess.run(["make", f"MPICC={xmpacc}", "himeno", "serial"], cwd=work, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, f"make failed:\n{r.stdout}\n{r.stderr}"
    assert "warning" not in r.stderr, r.stderr   # every Omni option is understood
    assert f"{xmpacc} -xacc --device=Kepler --Wn-O2 -O2 -c himeno.c" in r.stdout
    return work


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
