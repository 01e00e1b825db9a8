"""The benchmark suite's CPU mode (host backend, tiny sizes) as a smoke test.

Nothing is timed here: it checks that every benchmark program builds and runs on 1 and 2
processes, and that the device-resident path (``reflect ... acc``) computes what the
paper's host path computes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, mpirun_path, xmpacc_command


@pytest.mark.mpi
def test_bench_cpu_mode(tmp_path: Path) -> None:
    if mpirun_path() is None:
        pytest.skip("no mpirun")
    env = {**os.environ, "PATH": f"{Path(xmpacc_command()[0]).parent}:{Path(mpirun_path()).parent}:"
                                 + os.environ.get("PATH", "")}
    r = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--cpu", "--out", str(tmp_path)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    runs = json.loads((tmp_path / "cpu-smoke.json").read_text())["runs"]
    for n in (1, 2):
        acc, host = runs[f"nbody, {n} proc"]["values"], runs[f"nbody host path, {n} proc"]["values"]
        assert acc["kinetic"] == pytest.approx(host["kinetic"], rel=1e-12)
        assert acc["sum_x"] == pytest.approx(host["sum_x"], rel=1e-12)
    assert runs["laplace, 1 proc"]["values"]["checksum"] == pytest.approx(
        runs["laplace, 2 proc"]["values"]["checksum"], rel=1e-12)
    two = runs["laplace, 2 proc"]["stats"]
    assert sum(s.get("reflect_bytes", 0) for s in two) == sum(s.get("reflect_shadow_bytes", 0) for s in two) > 0
    for n in (2, 4):  # block x block on p[*][2]: halos on four sides, through reflect ... acc
        assert runs[f"laplace 2-D grid, {n} proc"]["values"]["checksum"] == pytest.approx(
            runs["laplace, 1 proc"]["values"]["checksum"], rel=1e-12)
    assert runs["launch, 1 proc"]["values"]["a"] == 101.0


@pytest.mark.mpi
def test_cpu_bench_quick(tmp_path: Path) -> None:
    """``--cpu-bench --quick``: the xmpacc programs and the hand-written C + MPI ones build
    (the latter with the MPI's mpicc) and print the same checksums; no timing is checked."""
    if mpirun_path() is None:
        pytest.skip("no mpirun")
    env = {**os.environ, "PATH": f"{Path(xmpacc_command()[0]).parent}:{Path(mpirun_path()).parent}:"
                                 + os.environ.get("PATH", "")}
    r = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--cpu-bench", "--quick", "--reps", "1",
                        "--out", str(tmp_path)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    record = json.loads(next(tmp_path.glob("cpu-*-quick.json")).read_text())
    assert set(record["goals"]) == {"CPU1", "CPU2"}
    assert len(record["cases"]) == 12
    assert all(c["checksums_match"] for c in record["cases"].values()), record["cases"]
