"""The CPU benchmark (``bench/run.py --cpu-bench``): xmpacc's CPU path next to the same
programs written by hand in C + MPI, built with the ``mpicc`` of the MPI that mpi4py uses
and run in the same job under the same ``mpirun``.

* CPU1: 1-D heat, 4,000,000 points, and 2-D Laplace 4096^2 (bench/cpu/*_xmp.c and
  *_mpi.c), 1, 2 and 4 processes: time per step (one sweep with its reflect).
* CPU2: one reflect of a 1-element shadow between 2 processes against the hand-written
  pair of MPI_Sendrecv (bench/cpu/reflect_*.c): microseconds per call.

Runs alternate between the two programs and the minimum of ``--reps`` runs counts (the
machine may be shared; the minimum is the run least disturbed).  Checksums must agree.
Both sides are compiled with the same flags (-O3).  For reference the general reflect
path (XMPACC_FAST_REFLECT=0) and small sizes, where the per-call cost shows, are measured
too.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "cpu"
FLAGS = ["-O3"]


def _define(defs: dict[str, Any]) -> list[str]:
    return [f"-D{k}={v}" for k, v in defs.items()]


def cpu_bench(out_dir: Path, reps: int, tool: Callable[[str], str], sh: Callable[..., str],
              numbers: Callable[[str], dict[str, float]], quick: bool = False) -> dict[str, Any]:
    work = out_dir / "build-cpu"
    work.mkdir(parents=True, exist_ok=True)
    mpirun = tool("mpirun")

    def build(src: str, defs: dict[str, Any], tag: str) -> tuple[Path, Path]:
        x, h = work / f"{tag}_xmpacc", work / f"{tag}_mpi"
        sh([tool("xmpacc"), *FLAGS, *_define(defs), str(HERE / f"{src}_xmp.c"), "-o", str(x)])
        sh([tool("mpicc"), *FLAGS, *_define(defs), str(HERE / f"{src}_mpi.c"), "-o", str(h)])
        return x, h

    def run(exe: Path, n: int, env: dict[str, str] | None = None) -> dict[str, float]:
        return numbers(sh([mpirun, "-np", str(n), str(exe)], {"XMPACC_DEVICE": "host", **(env or {})}))

    def compare(x: Path, h: Path, n: int, key: str, env: dict[str, str] | None = None) -> dict[str, Any]:
        xs, hs, xv, hv = [], [], {}, {}
        for _ in range(reps):
            xv, hv = run(x, n, env), run(h, n)
            xs.append(xv[key])
            hs.append(hv[key])
        same = all(abs(xv[k] - hv[k]) <= 1e-12 * max(abs(xv[k]), abs(hv[k]), 1e-300)
                   for k in xv if k in hv and k not in (key, "nodes"))
        return {"xmpacc_us": min(xs), "hand_us": min(hs), "ratio": min(xs) / min(hs),
                "difference_us": min(xs) - min(hs), "xmpacc_runs_us": xs, "hand_runs_us": hs,
                "checksums_match": same}

    sizes = {"heat": {"N": 4000000, "STEPS": 40}, "laplace": {"NX": 4096, "NY": 4096, "STEPS": 10},
             "heat_small": {"N": 4000, "STEPS": 20000}, "reflect": {"N": 1024, "REPS": 100000}}
    if quick:
        sizes = {"heat": {"N": 40000, "STEPS": 20}, "laplace": {"NX": 256, "NY": 256, "STEPS": 4},
                 "heat_small": {"N": 4000, "STEPS": 200}, "reflect": {"N": 1024, "REPS": 1000}}
    record: dict[str, Any] = {
        "date": datetime.date.today().isoformat(), "machine": platform.node(), "cores": os.cpu_count(),
        "cc": subprocess.run(["cc", "--version"], capture_output=True, text=True).stdout.splitlines()[0],
        "mpi": sh([sys.executable, "-c",
                   "from mpi4py import MPI; print(MPI.Get_library_version())"]).split("\n")[0],
        "flags": FLAGS, "reps": reps,
        "sizes": sizes, "cases": {}}
    for prog in ("heat", "laplace"):
        x, h = build(prog, sizes[prog], prog)
        for n in (1, 2, 4):
            record["cases"][f"{prog}, {n} proc"] = compare(x, h, n, "step_us")
    x, h = build("heat", sizes["heat_small"], "heat_small")
    for n in (1, 2):
        record["cases"][f"heat 4000 points, {n} proc"] = compare(x, h, n, "step_us")
        record["cases"][f"heat 4000 points, {n} proc, general reflect path"] = \
            compare(x, h, n, "step_us", {"XMPACC_FAST_REFLECT": "0"})
    x, h = build("reflect", sizes["reflect"], "reflect")
    record["cases"]["reflect, 2 proc"] = compare(x, h, 2, "reflect_us")
    record["cases"]["reflect, 2 proc, general reflect path"] = compare(x, h, 2, "reflect_us",
                                                                      {"XMPACC_FAST_REFLECT": "0"})
    record["goals"] = goals(record)
    if (os.cpu_count() or 1) < 4:
        record["note"] = (f"{os.cpu_count()} cores: the 4-process runs are oversubscribed (two processes "
                          "share a core), for xmpacc and the hand-written program alike")
    return record


def goals(record: dict[str, Any]) -> dict[str, Any]:
    cases = record["cases"]
    cpu1 = [cases[f"{p}, {n} proc"]["ratio"] for p in ("heat", "laplace") for n in (1, 2, 4)]
    cpu2 = cases["reflect, 2 proc"]["difference_us"]
    ok = all(c["checksums_match"] for c in cases.values())
    return {"CPU1": {"value": round(max(cpu1), 4), "target": 1.05, "met": max(cpu1) <= 1.05 and ok,
                     "what": "worst xmpacc / hand-written time per step over heat and "
                             "Laplace, 1, 2, 4 processes"},
            "CPU2": {"value": round(cpu2, 3), "target": 3.0, "met": cpu2 <= 3.0 and ok,
                     "what": "us per reflect of a 1-element shadow, 2 processes, beyond the "
                             "pair of MPI_Sendrecv"}}
