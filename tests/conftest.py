"""Shared helpers: run the xmpacc CLI and launch programs under mpirun."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"


def mpirun_path() -> str | None:
    """The mpirun next to this Python (the MPICH wheel), else the one on PATH."""
    here = Path(sys.executable).parent / "mpirun"
    return str(here) if here.exists() else shutil.which("mpirun")


def run_xmpacc(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``xmpacc ARGS`` in a subprocess, as a user runs it."""
    cmd = [sys.executable, "-m", "xmpacc.cli", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def run_mpi(nprocs: int, exe: Path | str, *args: str, timeout: float = 120,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    mpirun = mpirun_path()
    if mpirun is None:
        pytest.skip("no mpirun")
    cmd = [mpirun, "-np", str(nprocs), str(exe), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def build_serial(src: Path, out: Path) -> Path:
    """The oracle: the same program built by plain cc with its pragmas ignored."""
    subprocess.run(["cc", "-O2", "-w", str(src), "-o", str(out), "-lm"], check=True)
    return out
