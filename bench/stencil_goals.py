"""The stencil cases and goals of issue 12, measured by bench/run.py in one job.

* S1: Laplace 8192^2 and 16384^2 on 1 GPU: sweep bandwidth at 16 B per interior cell
  >= 0.90 x the device-to-device copy bandwidth measured in the same run;
* S2: 3-D 7-point Jacobi 512^3 fp64 on 1 GPU (bench/jacobi3d_bench.c): >= 0.85 x copy;
* S3: Laplace 16384^2 on 2 GPUs: xmpacc <= 1.05 x the best hand-written kernel + NCCL halo;
* C3: Laplace 8192^2 on 2 GPUs, ``XMPACC_REFLECT=staged`` <= 1.15 x the best hand-written
  host-staged halo exchange.
Every xmpacc program is built twice: streaming kernels (the default) and the fallback
mapping (``XMPACC_STREAM=0`` at compile time), so the record shows what streaming buys.
Strong scaling: Laplace 16384^2 on 1, 2, 4, 8 GPUs, as many as the machine has.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import harness  # bench/harness.py: build, run_prog, baselines, close, goal

LAPLACE_SIZES = (8192, 16384)
JACOBI = 512
CUDA = {"XMPACC_DEVICE": "cuda"}


def _checked(runs: dict[str, dict[str, Any]], base: list[dict[str, Any]]) -> None:
    ref = base[0]["checksum"]
    for v in runs.values():
        v["checksums_match"] = harness.close(v["values"]["checksum"], ref, 1e-9)
    for b in base:
        b["checksums_match"] = harness.close(b["checksum"], ref, 1e-9)


def _laplace(work: Path, gpus: int, n: int) -> dict[str, Any]:
    d = {"NX": n, "NY": n, "ITER": 100}
    exe = harness.build("laplace_bench.c", work / f"lap{n}", d)
    off = harness.build("laplace_bench.c", work / f"lap{n}_nostream", d, env={"XMPACC_STREAM": "0"})
    args = ["--nx", str(n), "--ny", str(n), "--iter", "100"]
    runs = {"xmpacc, 1 GPU": harness.run_prog(exe, 1, CUDA),
            "xmpacc, 1 GPU, XMPACC_STREAM=0": harness.run_prog(off, 1, CUDA)}
    base = harness.baselines("laplace-reuse", 1, args) + harness.baselines("laplace", 1, args)
    if gpus >= 2:
        runs["xmpacc, 2 GPUs, reflect acc (NCCL)"] = harness.run_prog(exe, 2, CUDA)
        runs["xmpacc, 2 GPUs, reflect acc (staged)"] = harness.run_prog(exe, 2,
                                                                        {**CUDA, "XMPACC_REFLECT": "staged"})
        for halo in ("nccl", "host"):
            base += harness.baselines("laplace-reuse", 2, args + ["--halo", halo])
            base += harness.baselines("laplace", 2, args + ["--halo", halo])
    _checked(runs, base)
    return {"n": n, "xmpacc": runs, "baselines": base}


def _jacobi(work: Path) -> dict[str, Any]:
    d = {"NZ": JACOBI, "NY": JACOBI, "NX": JACOBI, "ITER": 50}
    exe = harness.build("jacobi3d_bench.c", work / "jacobi3d", d)
    off = harness.build("jacobi3d_bench.c", work / "jacobi3d_nostream", d, env={"XMPACC_STREAM": "0"})
    runs = {"xmpacc, 1 GPU": harness.run_prog(exe, 1, CUDA),
            "xmpacc, 1 GPU, XMPACC_STREAM=0": harness.run_prog(off, 1, CUDA)}
    base = harness.baselines("jacobi3d", 1, ["--nz", str(JACOBI), "--ny", str(JACOBI), "--nx", str(JACOBI),
                                       "--iter", "50"])
    _checked(runs, base)
    return {"n": JACOBI, "xmpacc": runs, "baselines": base}


def _scaling(work: Path, gpus: int) -> list[dict[str, Any]]:
    n = LAPLACE_SIZES[-1]
    exe = work / f"lap{n}"
    out = []
    for g in (1, 2, 4, 8):
        if g > gpus:
            break
        ours = harness.run_prog(exe, g, CUDA)["values"]["iter_ms"]
        base = harness.baselines("laplace-reuse", g,
                                 ["--nx", str(n), "--ny", str(n), "--iter", "100", "--halo", "nccl"])
        out.append({"gpus": g, "xmpacc_ms": ours, "hand_ms": min(b["iter_ms"] for b in base)})
    return out


def cases(work: Path, gpus: int, record: dict[str, Any], copy: dict[str, Any]) -> None:
    """The stencil cases; ``copy``: this run's copy bandwidth (harness.copy_bandwidth)."""
    record["copy"] = copy
    record["stencil"] = {"laplace": {str(n): _laplace(work, gpus, n) for n in LAPLACE_SIZES},
                         "jacobi3d": _jacobi(work)}
    record["stencil"]["scaling"] = _scaling(work, gpus)


def _best(base: list[dict[str, Any]], nodes: int, halo: str | None = None) -> float | None:
    vals = [b["iter_ms"] for b in base if b.get("nodes") == nodes and b.get("checksums_match", True)
            and (halo is None or b.get("halo", _halo_of(b)) == halo)]
    return min(vals) if vals else None


def _halo_of(b: dict[str, Any]) -> str | None:
    """Halo kind of a bench/baselines.py laplace record (its variant names it)."""
    v = str(b.get("variant", ""))
    return "nccl" if "nccl" in v else "host" if "host" in v else None


def sweep_bandwidth(iter_ms: float, interior_cells: int) -> float:
    """Bytes per second at 16 B per interior cell (8 read, 8 written)."""
    return 16 * interior_cells / (iter_ms * 1e-3)


def goals(record: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    st = record.get("stencil")
    if not st:
        return out
    copy = record["copy"]["copy_gbs"] * 1e9
    for n, case in st["laplace"].items():
        ms = case["xmpacc"]["xmpacc, 1 GPU"]["values"]["iter_ms"]
        out[f"S1-{n}"] = harness.goal(sweep_bandwidth(ms, (int(n) - 2) ** 2) / copy, 0.90, False)
    out["S1"] = harness.goal(min(out[k]["value"] for k in out if k.startswith("S1-")), 0.90, False)
    jac = st["jacobi3d"]
    ms = jac["xmpacc"]["xmpacc, 1 GPU"]["values"]["iter_ms"]
    out["S2"] = harness.goal(sweep_bandwidth(ms, (JACOBI - 2) ** 3) / copy, 0.85, False)
    big = st["laplace"][str(LAPLACE_SIZES[-1])]
    two = big["xmpacc"].get("xmpacc, 2 GPUs, reflect acc (NCCL)")
    hand = _best(big["baselines"], 2, "nccl")
    out["S3"] = harness.goal(two["values"]["iter_ms"] / hand if two and hand else None, 1.05, True)
    small = st["laplace"][str(LAPLACE_SIZES[0])]
    staged = small["xmpacc"].get("xmpacc, 2 GPUs, reflect acc (staged)")
    hand = _best(small["baselines"], 2, "host")
    out["C3"] = harness.goal(staged["values"]["iter_ms"] / hand if staged and hand else None, 1.15, True)
    return out
