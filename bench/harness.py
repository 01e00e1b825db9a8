"""What every benchmark group of bench/run.py shares: the tools, building and running an
xmpacc program, the hand-written baselines, and the goal records.

A module of its own so that the groups (stencil_goals.py, himeno_goals.py, gmove_bench.py)
import it rather than bench/run.py, which imports them (no import cycle).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ENV_BASE = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "PYTHONUNBUFFERED": "1"}


def tool(name: str) -> str:
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if found is None:
        raise SystemExit(f"bench: '{name}' not found (install xmpacc first, see the README)")
    return found


def sh(cmd: list[str], env: dict[str, str] | None = None, timeout: float = 900) -> str:
    full = {**os.environ, **ENV_BASE, **(env or {})}
    p = subprocess.run(cmd, capture_output=True, text=True, env=full, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return p.stdout + p.stderr


def build(src: str, out: Path, defines: dict[str, Any], extra: list[str] = (),  # type: ignore[assignment]
          env: dict[str, str] | None = None) -> Path:
    args = [f"-D{k}={v}" if v is not None else f"-D{k}" for k, v in defines.items()]
    sh([tool("xmpacc"), "-O2", *args, *extra, str(HERE / src), "-o", str(out)], env)
    return out


def numbers(text: str) -> dict[str, float]:
    return {k: float(v) for k, v in re.findall(r"^(\w+) = ([-+0-9.eE]+)", text, re.M)}


def stats(text: str) -> list[dict[str, int]]:
    return [json.loads(m) for m in re.findall(r"xmpacc-stats: (\{[^{}]*\})", text)]


def run_prog(exe: Path, nprocs: int, env: dict[str, str]) -> dict[str, Any]:
    out = sh([tool("mpirun"), "-np", str(nprocs), str(exe)], {**env, "XMPACC_STATS": "1"})
    return {"values": numbers(out), "stats": stats(out)}


def baselines(case: str, nprocs: int, args: list[str]) -> list[dict[str, Any]]:
    out = sh([tool("mpirun"), "-np", str(nprocs), sys.executable, str(HERE / "baselines.py"), case, *args])
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def close(a: float, b: float, rtol: float) -> bool:
    return abs(a - b) <= rtol * max(abs(a), abs(b))


def goal(value: float | None, target: float, smaller_is_better: bool) -> dict[str, Any]:
    met = value is not None and (value <= target if smaller_is_better else value >= target)
    return {"value": None if value is None else round(value, 4), "target": target, "met": bool(met)}


def copy_bandwidth() -> dict[str, Any]:
    """The device-to-device copy bandwidth (``copy_gbs``), the bound of the memory-bound
    goals (S1, S2, H2): measured once per run and given to every group that needs it."""
    return baselines("copy", 1, [])[0]
