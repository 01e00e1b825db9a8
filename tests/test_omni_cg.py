"""An application shaped like NPB CG's XcalableMP port (tests/omni/cg/, our own program):
a conjugate-gradient solver on a 2-D node grid declared with combined directives,
``task on`` node rows and columns, reductions on node subsets (``on p(:, *)``), ``gmove``
for the transpose, ``static_desc``, bracketed loop index lists.

It is built as a user builds it, with its own Makefile (``MPICC=xmpacc``, one executable
per process count as NPB does: grids 1 x 1, 2 x 1 and 2 x 2) and ``make serial`` (plain
cc, directives ignored), and each run prints what the serial build prints.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import once, run_mpi, same_output

CG = Path(__file__).parent / "omni" / "cg"
HOST = {"XMPACC_DEVICE": "host"}
COUNTS = (1, 2, 4)


def _make(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """make with this environment's xmpacc and mpirun first on PATH, no CC or CFLAGS of
    the caller's (the Makefile's defaults: MPICC=xmpacc, CFLAGS=-O2)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CC", "CFLAGS", "MPICC", "XMPFLAGS")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    r = subprocess.run(["make", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"make {' '.join(args)} failed:\n{r.stdout}\n{r.stderr}"
    return r


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A copy of tests/omni/cg with cg.1, cg.2, cg.4 and cg.serial built (once per test
    run); the serial output."""
    def make(tmp: Path) -> tuple[Path, str]:
        work = tmp / "cg"
        shutil.copytree(CG, work, dirs_exist_ok=True)
        r = _make(work, "-j2", *(f"cg.{n}" for n in COUNTS), "serial")
        assert "xmpacc  -O2 -DNPROCS=4 -o cg.4 cg.c -lm" in r.stdout, r.stdout
        serial = subprocess.run([str(work / "cg.serial")], capture_output=True, text=True, check=True,
                                timeout=60)
        return work, serial.stdout

    return once(tmp_path_factory, "omni-cg", make)


def test_serial_build_converges(built: tuple[Path, str]) -> None:
    """The oracle itself: NPB's output shape, a residual well above round-off (so that the
    parallel runs can be compared digit by digit), zeta settled."""
    lines = built[1].splitlines()
    assert lines[0].startswith("CG: NA = 256, ") and len(lines) == 7, built[1]
    residuals = [float(line.split("||r|| = ")[1].split()[0]) for line in lines[1:6]]
    assert all(1e-8 < r < 1e-2 for r in residuals) and residuals == sorted(residuals, reverse=True)
    assert lines[6].startswith("zeta = 3.00781"), built[1]


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", COUNTS)
def test_cg_prints_what_its_serial_build_prints(built: tuple[Path, str], nprocs: int) -> None:
    work, expected = built
    r = run_mpi(nprocs, work / f"cg.{nprocs}", env=HOST, timeout=180)
    assert r.returncode == 0, r.stderr
    assert "disagree" not in r.stdout
    same_output(r.stdout, expected)


@pytest.mark.mpi
def test_omni_flags_for_the_back_end(tmp_path: Path) -> None:
    """The Makefile as Omni users set it: XMPFLAGS=--Wn-O2 (flags for the back-end compiler)."""
    work = tmp_path / "cg"
    shutil.copytree(CG, work)
    _make(work, "-j2", "XMPFLAGS=--Wn-O2", "CFLAGS=", "cg.2", "serial")
    serial = subprocess.run([str(work / "cg.serial")], capture_output=True, text=True, check=True, timeout=60)
    r = run_mpi(2, work / "cg.2", env=HOST, timeout=180)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, serial.stdout)
