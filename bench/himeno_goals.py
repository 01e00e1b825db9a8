"""The Himeno cases and goals of issue 11 (item 8), measured by bench/run.py in one job.

bench/himeno_xacc.c (XcalableACC, built by xmpacc) and bench/himeno_hand.py (hand-written
CuPy + NCCL, every kernel variant) at one size (L by default) on 1, 2 and 4 GPUs, as many
as the machine has, and the device copy bandwidth of the same machine:

* H1: 1 GPU, xmpacc MFLOPS >= 0.9 x the fastest hand-written variant that keeps the
  benchmark's data flow (sweep into wrk2, copy back to p; the pointer-swap variant, which
  skips the copy, is recorded for information only);
* H2: 1 GPU, xmpacc MFLOPS >= 0.8 x the memory-bandwidth bound: 68 bytes per updated
  point and iteration (himeno_ref.BYTES_PER_POINT) at the copy bandwidth measured here;
* H3 (issue 32) on a machine with 2 or 3 GPUs, H4 on 4 to 7, H8 on 8: xmpacc's strong-scaling
  efficiency from 1 to n GPUs, MFLOPS(n) / (n x MFLOPS(1)), over the hand-written version's
  in the same job (its fastest variant on 1 and on n GPUs) >= 0.95 (H3) or 0.9 (H4, H8),
  and the spread of xmpacc's five runs on n GPUs, (max - min) / median, <= 0.05; the entry
  names n and keeps both efficiencies.  Issue 11's absolute form (>= 0.9 on 2, >= 0.8 on 4)
  is kept as ``H3_issue11`` for the record.

The same program built with -DCOLLAPSE3 (its sweeps as ``acc parallel loop collapse(3)``,
one device thread per point) runs on 1 GPU for information; the goals use Himeno's usual
``collapse(2)`` + inner ``acc loop vector`` form.

Each xmpacc case is the median of five runs (``median_run``; all five are recorded).
Every xmpacc run is checked against the hand-written run on as many GPUs: gosa to fp32
summation-order tolerance (2e-4), psum (a double sum of p) to 1e-5.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import harness  # bench/harness.py: build, run_prog, sh, tool, close, goal
from himeno_ref import BYTES_PER_POINT, FLOP_PER_POINT

HERE = Path(__file__).resolve().parent
CUDA = {"XMPACC_DEVICE": "cuda"}
GOSA_RTOL, PSUM_RTOL = 2e-4, 1e-5


def hand(case: str, nprocs: int, args: list[str]) -> list[dict[str, Any]]:
    out = harness.sh([harness.tool("mpirun"), "-np", str(nprocs), sys.executable,
                      str(HERE / "himeno_hand.py"), case, *args])
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def cases(work: Path, gpus: int, record: dict[str, Any], copy: dict[str, Any], size: str = "L",
          iters: int = 200) -> None:
    """The Himeno cases; ``copy``: this run's copy bandwidth (harness.copy_bandwidth), the H2 bound."""
    exe = harness.build("himeno_xacc.c", work / f"himeno_{size}", {f"SIZE_{size}": None, "NN": iters})
    runs, base = {}, []
    # for information: the same program with its sweeps as collapse(3), one thread per point
    flat = harness.build("himeno_xacc.c", work / f"himeno_{size}_c3",
                         {f"SIZE_{size}": None, "NN": iters, "COLLAPSE3": None})
    runs["xmpacc, 1 GPU, collapse(3)"] = median_run(flat, 1)
    for n in (n for n in (1, 2, 4) if n <= gpus):
        runs[f"xmpacc, {n} GPU"] = median_run(exe, n)
        base += hand("himeno", n, ["--size", size, "--iter", str(iters)])
    for name, x in runs.items():
        ref = best(base, _gpus(name))
        x["gosa_rel_diff"] = abs(x["values"]["gosa"] - ref["gosa"]) / abs(ref["gosa"])
        x["checksums_match"] = harness.close(x["values"]["gosa"], ref["gosa"], GOSA_RTOL) and \
            harness.close(x["values"]["psum"], ref["psum"], PSUM_RTOL)
    record["himeno"] = {"size": size, "iter": iters, "bytes_per_point": BYTES_PER_POINT,
                        "flop_per_point": FLOP_PER_POINT, "copy_bandwidth": copy,
                        "bound_mflops": copy["copy_gbs"] * 1e9 / BYTES_PER_POINT * FLOP_PER_POINT * 1e-6,
                        "xmpacc": runs, "baselines": base}


REPEATS = 5   # H3's spread is read over five runs


def median_run(exe: Path, nprocs: int) -> dict[str, Any]:
    """The median of REPEATS runs by time, with every run's MFLOPS: the per-iteration host
    work of the runtime (Python) makes single runs vary by up to 15 % on the lent machines
    (1.22 and 1.42 M MFLOPS for the same binary, one after the other), so one run says
    little.  The hand-written side is the fastest of its ten variants, each run once."""
    runs = sorted((harness.run_prog(exe, nprocs, CUDA) for _ in range(REPEATS)),
                  key=lambda r: r["values"]["time_s"])
    mid = runs[len(runs) // 2]
    mid["mflops_of_runs"] = [r["values"]["mflops"] for r in runs]
    return mid


def _gpus(run_name: str) -> int:
    """'xmpacc, 2 GPU[, ...]' -> 2"""
    return int(run_name.split(", ")[1].split()[0])


def best(base: list[dict[str, Any]], nodes: int) -> dict[str, Any]:
    """The fastest hand-written variant on ``nodes`` GPUs with the benchmark's data flow."""
    return max((b for b in base if b["nodes"] == nodes and b["dataflow"] == "copy"),
               key=lambda b: b["mflops"])


def goals(record: dict[str, Any]) -> dict[str, Any]:
    h = record.get("himeno")
    if not h:
        return {}
    one = h["xmpacc"]["xmpacc, 1 GPU"]["values"]["mflops"]
    out = {"H1": harness.goal(one / best(h["baselines"], 1)["mflops"], 0.9, False),
           "H2": harness.goal(one / h["bound_mflops"], 0.8, False)}
    n = max(_gpus(name) for name in h["xmpacc"])
    if n > 1:
        many = h["xmpacc"][f"xmpacc, {n} GPU"]
        eff = many["values"]["mflops"] / (n * one)
        hand_eff = best(h["baselines"], n)["mflops"] / (n * best(h["baselines"], 1)["mflops"])
        runs = sorted(many.get("mflops_of_runs", [many["values"]["mflops"]]))
        spread = (runs[-1] - runs[0]) / runs[len(runs) // 2]
        name, target = ("H3", 0.95) if n < 4 else ("H4", 0.9) if n < 8 else ("H8", 0.9)
        g = harness.goal(eff / hand_eff, target, False)
        out[name] = {**g, "met": g["met"] and spread <= 0.05, "gpus": n, "efficiency": round(eff, 4),
                     "hand_efficiency": round(hand_eff, 4), "spread": round(spread, 4),
                     "runs": len(runs)}
        out["H3_issue11"] = {**harness.goal(eff, 0.8 if n >= 4 else 0.9, False), "gpus": n}
    return out


def plot(record: dict[str, Any], path: Path) -> None:
    """MFLOPS of every xmpacc run and hand-written variant, with the bandwidth bound."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    h = record["himeno"]
    rows = [(name, x["values"]["mflops"], "tab:blue") for name, x in h["xmpacc"].items()]
    rows += [(f"hand-written, {b['nodes']} GPU, {b['variant']}"
              + (", swap" if b["dataflow"] == "swap" else ""),
              b["mflops"], "tab:gray") for b in h["baselines"]]
    fig, ax = plt.subplots(figsize=(11, 0.3 * len(rows) + 2))
    ax.barh(range(len(rows)), [row[1] for row in rows], color=[row[2] for row in rows])
    ax.set_yticks(range(len(rows)), [row[0] for row in rows], fontsize=7)
    ax.invert_yaxis()
    ax.axvline(h["bound_mflops"], color="tab:red", linestyle="--", label="1-GPU bandwidth bound")
    ax.legend(fontsize=8)
    ax.set_xlabel("MFLOPS (higher is better)")
    ax.set_title(f"Himeno {h['size']} on {record.get('gpu', '?')}: xmpacc XcalableACC (blue), "
                 "hand-written CuPy + NCCL (gray)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def cpu_smoke(work: Path, record: dict[str, Any]) -> None:
    """Host backend, size XS, 1, 2 and 4 processes: builds and runs, numbers printed."""
    exe = harness.build("himeno_xacc.c", work / "himeno", {"SIZE_XS": None, "NN": 5})
    for n in (1, 2, 4):
        record["runs"][f"himeno, {n} proc"] = harness.run_prog(exe, n, {"XMPACC_DEVICE": "host"})
