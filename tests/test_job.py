"""An xmpacc executable as a job: arguments, exit status, exit() on one node, output
that must all arrive, and a node array that does not match the number of processes.

MPICH's mpirun (hydra) exits with the largest exit status of its processes: main
returning 3 everywhere gives 3, main returning 5 on one node gives 5.  When a node calls
exit(n) the runtime aborts the job (MPI_Abort(n)); the status mpirun then reports depends
on which process it sees end first, so only "not zero" is asserted.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from conftest import run_mpi, run_xmpacc

PROGRAMS = Path(__file__).parent / "programs"

pytestmark = pytest.mark.mpi


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("job") / "job_control"
    r = run_xmpacc(str(PROGRAMS / "job_control.c"), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    return exe


@pytest.fixture(scope="module")
def mismatch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("job") / "nodes_mismatch"
    r = run_xmpacc(str(PROGRAMS / "nodes_mismatch.c"), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    return exe


def run_alone(exe: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``./prog ARGS``: one process, no mpirun."""
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60,
                          check=False)


def test_executable_is_one_file_that_runs_as_one_process(job: Path) -> None:
    assert [p.name for p in job.parent.iterdir()] == [job.name]
    r = run_alone(job, "echo", "a", "b")
    assert (r.returncode, r.stdout) == (0, "argc = 4\nargv[1] = echo\nargv[2] = a\nargv[3] = b\n")


def test_mpirun_passes_the_arguments_to_main(job: Path) -> None:
    r = run_mpi(2, job, "echo", "a", "b c", timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "argc = 4\nargv[1] = echo\nargv[2] = a\nargv[3] = b c\n"


def test_exit_status_is_mains_return_value(job: Path) -> None:
    single = run_alone(job, "return", "3")
    assert single.returncode == 3
    assert run_mpi(2, job, "return", "3", timeout=60).returncode == 3
    assert run_mpi(3, job, "return1", "5", timeout=60).returncode == 5   # only node 1 returns 5
    assert run_mpi(2, job, "return", "0", timeout=60).returncode == 0


def test_exit_on_one_node_ends_the_whole_job(job: Path) -> None:
    start = time.monotonic()
    try:
        r = run_mpi(3, job, "exit1", "2", timeout=10)
    except subprocess.TimeoutExpired:
        pytest.fail("exit(2) on node 1 left the job hanging")
    assert time.monotonic() - start < 10
    assert r.returncode != 0
    # every node printed before the first barrier: none of it is lost
    assert sorted(r.stdout.splitlines()) == [f"node {k} before the barrier" for k in range(3)]
    assert "Traceback" not in r.stderr


def test_large_output_arrives_complete(job: Path) -> None:
    n, nprocs = 10000, 3
    r = run_mpi(nprocs, job, "print", str(n), timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == n * nprocs
    for k in range(nprocs):
        assert [ln for ln in lines if ln.startswith(f"node {k} ")] == \
            [f"node {k} line {i}" for i in range(n)]


@pytest.mark.parametrize("nprocs", [2, 3])
def test_nodes_mismatch_is_reported_once(mismatch: Path, nprocs: int) -> None:
    try:
        r = run_mpi(nprocs, mismatch, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail(f"nodes p(4) on {nprocs} processes hangs")
    assert r.returncode != 0
    assert r.stdout == ""
    errors = [ln for ln in r.stderr.splitlines() if "error" in ln]
    assert len(errors) == 1, r.stderr
    assert errors[0].startswith("nodes_mismatch.c:5:"), errors[0]
    assert "4 nodes" in errors[0] and f"{nprocs} processes" in errors[0], errors[0]
    assert "Traceback" not in r.stderr


def test_nodes_match(mismatch: Path) -> None:
    r = run_mpi(4, mismatch, timeout=60)
    assert (r.returncode, r.stdout) == (0, "running\n" * 4), r.stderr
