"""The small-size overhead cases and goals of issue 32, measured by bench/run.py in one job
(``--only overhead``; also part of the default full run).

bench/laplace_bench.c (xmpacc, ``reflect ... acc``) runs next to bench/cuda/laplace_cuda.cu,
the same 2-D Jacobi in hand-written CUDA C with NCCL halos (one kernel launch per sweep,
no host synchronisation in the timed loop; built by bench/cuda/build.sh), at 256^2 on 1
GPU and at 1024^2 and 4096^2 on 1 and 2 GPUs (2 only where the machine has them); both
print the same checksum, compared here to 1e-10.  bench/launch_bench.c runs next to
bench/cuda/launch_cuda.cu, the same REPS launches of a one-element kernel in hand-written C
through the driver's cuLaunchKernel (also built by build.sh), and next to the CuPy driver
launch of bench/baselines.py (launch; the reference of C2, kept in the record as
``cupy_driver_us``).

* O1: 256^2 on 1 GPU, xmpacc ms per sweep / CUDA C ms per sweep <= 1.5;
* O2: host cost per ``loop ... acc`` launch beyond the driver's launch call
  (launch_bench's launch_us - launch_cuda's) <= 1.0 us (it replaces C2, <= 20 us); where the
  CUDA C does not build or run, the CuPy driver launch is the reference and the record's
  ``reference`` says "cupy driver launch";
* O3a: 1024^2 on 2 GPUs, xmpacc / CUDA C + NCCL <= 1.2;
* O3b: 4096^2, strong-scaling efficiency of xmpacc from 1 to 2 GPUs, t1 / (2 t2) >= 0.9.
On a machine with one GPU, O3a and O3b have no value and say "not run: one GPU"; a goal
whose runs disagree in their checksums is not met, and O2 is not met where a launch program
ends with ``a`` other than LAUNCH_REPS + 1.  Each program runs REPEATS times; the median by
time counts (all times are recorded).

``--cpu --only overhead`` builds the xmpacc programs at a tiny size and runs them on the
host backend, the Laplace one on 1 and 2 processes (a smoke test: no CUDA C, no timing
claimed).
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import harness  # bench/harness.py: build, run_prog, baselines, sh, tool, close, goal

HERE = Path(__file__).resolve().parent
CUDA = {"XMPACC_DEVICE": "cuda"}
HOST = {"XMPACC_DEVICE": "host"}
SMALL, MID, BIG = 256, 1024, 4096   # the grid sides of O1, O3a, O3b
# grid side -> timed sweeps (even): a few tenths of a second of xmpacc per run
SIZES = {SMALL: 20000, MID: 4000, BIG: 1000}
TWO_GPU_SIZES = (MID, BIG)
CPU_SIZES = {32: 20}   # --cpu: one tiny grid, a smoke test
REPEATS = 3
LAUNCH_REPS = 20000
LAUNCHES = LAUNCH_REPS + 1   # the warm-up launch and the timed ones: the `a` both launch programs print
CUDA_C_LAUNCH, CUPY_LAUNCH = "CUDA C cuLaunchKernel", "cupy driver launch"   # O2's references
RTOL = 1e-10        # the checksum of the same sweeps, summed in another order
XMP, HAND = "xmpacc", "CUDA C"
GENERAL = ", general path (XMPACC_REPLAY=0)"   # every runtime call through Python, for comparison
# built without overlapping the reflect before the sweep (passes/locality/overlap.py; the
# default overlaps it where a GPU's block holds XMPACC_OVERLAP_BYTES), for comparison
EXCHANGE_FIRST = ", reflect not overlapped (XMPACC_REFLECT_OVERLAP=0)"
# the default build with every overlapped reflect overlapping, whatever the block's size
ALWAYS = ", always overlapped (XMPACC_OVERLAP_BYTES=0)"


def run_name(prog: str, gpus: int) -> str:
    """'xmpacc, 1 GPU', 'CUDA C + NCCL, 2 GPUs'"""
    if prog == HAND and gpus > 1:
        prog = "CUDA C + NCCL"
    return f"{prog}, {gpus} GPU{'s' if gpus > 1 else ''}"


def build_launch(work: Path) -> tuple[Path, str]:
    """bench/cuda/launch_cuda.cu for LAUNCH_REPS launches: (the program, what build.sh
    printed: how it reaches cuLaunchKernel, and why it built for sm_90 where it did)."""
    out = work / "cuda"
    log = harness.sh(["bash", str(HERE / "cuda" / "build.sh"), str(out), "launch", str(LAUNCH_REPS)])
    return out / f"launch_cuda_{LAUNCH_REPS}", log.strip()


def median_launch(runs: list[dict[str, float]]) -> dict[str, Any]:
    """The median ``launch_us`` of a launch program's runs, with every run's (and its ``a``)."""
    runs = sorted(runs, key=lambda v: v["launch_us"])
    out: dict[str, Any] = {"launch_us": runs[len(runs) // 2]["launch_us"],
                           "launch_us_of_runs": [v["launch_us"] for v in runs]}
    if all("a" in v for v in runs):
        out["a_of_runs"] = [v["a"] for v in runs]
    return out


def launch(work: Path) -> dict[str, Any]:
    """Host cost per ``loop ... acc`` launch beyond the driver's launch call (O2; C2 before):
    launch_bench.c's launch_us - launch_cuda.cu's, medians of REPEATS runs each, with the CuPy
    driver launch (``cupy_driver_us``, C2's reference) beside them.  A CUDA C program that
    does not build or run leaves the CuPy launch as the reference (``reference`` says which);
    no ``overhead_us`` where neither ran.  launch_bench.c failing is an error (RuntimeError)."""
    exe = harness.build("launch_bench.c", work / "launch", {"REPS": LAUNCH_REPS})
    xmp = median_launch([harness.run_prog(exe, 1, CUDA)["values"] for _ in range(REPEATS)])
    out: dict[str, Any] = {"reps": LAUNCH_REPS, "xmpacc_us": xmp["launch_us"], "runs": {XMP: xmp}}
    general = {**CUDA, "XMPACC_REPLAY": "0"}
    out["runs"][XMP + GENERAL] = median_launch([harness.run_prog(exe, 1, general)["values"]
                                                for _ in range(REPEATS)])
    try:
        hand, out["cuda_c_build"] = build_launch(work)
        out["runs"][HAND] = median_launch([harness.numbers(harness.sh([str(hand)])) for _ in range(REPEATS)])
        out["cuda_c_us"] = out["runs"][HAND]["launch_us"]
    except (RuntimeError, KeyError) as err:   # no nvcc, no GPU for it: CuPy's launch is the reference
        out["cuda_c_error"] = str(err)[-3000:]
    try:
        out["runs"]["cupy"] = median_launch([harness.baselines("launch", 1, ["--reps", str(LAUNCH_REPS)])[0]
                                             for _ in range(REPEATS)])
        out["cupy_driver_us"] = out["runs"]["cupy"]["launch_us"]
    except (RuntimeError, IndexError, KeyError) as err:
        out["cupy_driver_error"] = str(err)[-3000:]
    if "cuda_c_us" in out:
        out["reference"], ref = CUDA_C_LAUNCH, out["cuda_c_us"]
    elif "cupy_driver_us" in out:
        out["reference"], ref = CUPY_LAUNCH, out["cupy_driver_us"]
        out["reference_note"] = "the CUDA C launch (bench/cuda/launch_cuda.cu) did not build or run"
    else:
        return out
    out["overhead_us"] = out["xmpacc_us"] - ref
    out["a_match"] = all(a == LAUNCHES for r in out["runs"].values() for a in r.get("a_of_runs", []))
    return out


def build_cuda(work: Path, n: int, iters: int) -> tuple[Path, str]:
    """bench/cuda/laplace_cuda.cu for an n x n grid, with the MPI of harness.tool's mpirun
    and NCCL from this Python's nvidia-nccl wheel: (the program, what build.sh printed:
    the NCCL it found, and why it built for sm_90 where -arch=native did not do)."""
    env = {"PYTHON": sys.executable}
    try:
        env["MPICC"] = harness.tool("mpicc")
    except SystemExit:   # none beside Python or on PATH: build.sh asks mpi4py
        pass
    out = work / "cuda"
    log = harness.sh(["bash", str(HERE / "cuda" / "build.sh"), str(out), str(n), str(n), str(iters)], env)
    return out / f"laplace_cuda_{n}x{n}_{iters}", log.strip()


def median_run(exe: Path, nprocs: int, env: dict[str, str]) -> dict[str, Any]:
    """The median of REPEATS runs by ms per sweep, with every run's time; a run that fails
    is recorded as {"error": ...} (the job goes on)."""
    try:
        runs = sorted((harness.run_prog(exe, nprocs, env) for _ in range(REPEATS)),
                      key=lambda r: r["values"]["iter_ms"])
    except RuntimeError as err:
        return {"error": str(err)[-3000:]}
    mid = runs[len(runs) // 2]
    mid["iter_ms_of_runs"] = [r["values"]["iter_ms"] for r in runs]
    mid["checksums_of_runs"] = [r["values"]["checksum"] for r in runs]
    return mid


def cases(work: Path, gpus: int, record: dict[str, Any]) -> None:
    """The overhead cases; the launch record of the core group is reused when it was just measured."""
    sizes: dict[str, Any] = {}
    built: dict[str, str] = {}
    for n, iters in SIZES.items():
        defines = {"NX": n, "NY": n, "ITER": iters}
        exe = harness.build("laplace_bench.c", work / f"overhead{n}", defines)
        first = None
        if n in TWO_GPU_SIZES and gpus >= 2:
            first = harness.build("laplace_bench.c", work / f"overhead{n}-first", defines,
                                  env={"XMPACC_REFLECT_OVERLAP": "0"})
        hand: Path | None = None
        try:
            hand, built[str(n)] = build_cuda(work, n, iters)
        except RuntimeError as err:   # no NCCL, no mpicc: the xmpacc side is still measured
            built[str(n)] = f"failed: {str(err)[-3000:]}"
        runs = {}
        for g in (1, 2) if n in TWO_GPU_SIZES and gpus >= 2 else (1,):
            runs[run_name(XMP, g)] = median_run(exe, g, CUDA)
            if hand is not None:
                runs[run_name(HAND, g)] = median_run(hand, g, {})
            # the same program with every call through the Python runtime: what replay saves
            runs[run_name(XMP, g) + GENERAL] = median_run(exe, g, {**CUDA, "XMPACC_REPLAY": "0"})
            if first is not None:   # what overlapping the halo exchange with the interior saves
                runs[run_name(XMP, g) + EXCHANGE_FIRST] = median_run(first, g, CUDA)
                if g == 2:
                    always = {**CUDA, "XMPACC_OVERLAP_BYTES": "0"}
                    runs[run_name(XMP, g) + ALWAYS] = median_run(exe, g, always)
        sizes[str(n)] = {"n": n, "iter": iters, "runs": runs, "checksums_match": _check(runs)}
    try:
        launched: dict[str, Any] = record.get("launch") or launch(work)
    except RuntimeError as err:
        launched = {"error": str(err)[-3000:]}
    record["overhead"] = {"gpus": gpus, "repeats": REPEATS, "sizes": sizes, "cuda_builds": built,
                          "launch": launched}


def _check(runs: dict[str, dict[str, Any]]) -> bool:
    """Every run's checksum against the first hand-written one (or the first run): each run
    gets ``checksums_match``; True when all runs ran and agree."""
    ok = [r for r in runs.values() if "values" in r]
    ref_run = next((r for name, r in runs.items() if name.startswith(HAND) and "values" in r), None)
    ref = (ref_run or (ok[0] if ok else {"values": {"checksum": 0.0}}))["values"]["checksum"]
    for r in ok:
        r["checksums_match"] = all(harness.close(c, ref, RTOL)
                                   for c in r.get("checksums_of_runs", [r["values"]["checksum"]]))
    return len(ok) == len(runs) and all(r["checksums_match"] for r in ok)


def _ms(size: dict[str, Any] | None, prog: str, gpus: int, variant: str = "") -> tuple[float | None, bool]:
    """(ms per sweep, checksums agree) of one run of a size (``variant``: EXCHANGE_FIRST's),
    (None, False) where it did not run."""
    r = (size or {}).get("runs", {}).get(run_name(prog, gpus) + variant, {})
    if "values" not in r:
        return None, False
    return r["values"]["iter_ms"], bool(r.get("checksums_match"))


def _goal(value: float | None, ok: bool, target: float, smaller_is_better: bool,
          missing: str, wrong: str = "checksums differ") -> dict[str, Any]:
    """harness.goal, not met where a checksum disagrees (``wrong`` says so); ``missing``
    says why there is no value."""
    g = harness.goal(value, target, smaller_is_better)
    if value is None:
        g["note"] = missing
    elif not ok:
        g["met"] = False
        g["note"] = wrong
    return g


def goals(record: dict[str, Any]) -> dict[str, Any]:
    oh = record.get("overhead")
    if not oh:
        return {}
    sizes = oh["sizes"]
    out: dict[str, Any] = {}
    x, ok_x = _ms(sizes.get(str(SMALL)), XMP, 1)
    c, ok_c = _ms(sizes.get(str(SMALL)), HAND, 1)
    out["O1"] = _goal(x / c if x and c else None, ok_x and ok_c, 1.5, True,
                      "not run: no CUDA C build or a failed run")
    la = oh["launch"]
    out["O2"] = _goal(la.get("overhead_us"), la.get("a_match", True), 1.0, True,
                      "not run: launch_bench, or both the CUDA C and the CuPy launch, failed",
                      f"a launch program's a is not {LAUNCHES}")
    if la.get("reference") == CUPY_LAUNCH and "note" not in out["O2"]:   # more than the driver's call
        out["O2"]["note"] = f"reference: {CUPY_LAUNCH} ({la['reference_note']})"
    if oh["gpus"] < 2:
        for k, target, smaller in (("O3a", 1.2, True), ("O3b", 0.9, False)):
            out[k] = _goal(None, False, target, smaller, "not run: one GPU")
        return out
    x2, ok_x2 = _ms(sizes.get(str(MID)), XMP, 2)
    c2, ok_c2 = _ms(sizes.get(str(MID)), HAND, 2)
    out["O3a"] = _goal(x2 / c2 if x2 and c2 else None, ok_x2 and ok_c2, 1.2, True,
                       "not run: no CUDA C build or a failed run")
    t1, ok1 = _ms(sizes.get(str(BIG)), XMP, 1)
    t2, ok2 = _ms(sizes.get(str(BIG)), XMP, 2)
    out["O3b"] = _goal(t1 / (2 * t2) if t1 and t2 else None, ok1 and ok2, 0.9, False, "not run: a failed run")
    # the same two goals built without the overlap, and run with it at every size, for
    # comparison (no goals of the issue)
    for suffix, variant in (("not_overlapped", EXCHANGE_FIRST), ("always_overlapped", ALWAYS)):
        p2, okp2 = _ms(sizes.get(str(MID)), XMP, 2, variant)
        p1, okp1 = _ms(sizes.get(str(BIG)), XMP, 2, variant)
        out[f"O3a_{suffix}"] = _goal(p2 / c2 if p2 and c2 else None, okp2 and ok_c2, 1.2, True,
                                     "not run: a failed run")
        out[f"O3b_{suffix}"] = _goal(t1 / (2 * p1) if t1 and p1 else None, ok1 and okp1, 0.9, False,
                                     "not run: a failed run")
    return out


def cpu_smoke(work: Path) -> dict[str, Any]:
    """Host backend, tiny sizes: the group's xmpacc programs build and run, the Laplace one on
    1 and 2 processes with one checksum per size (no timing claimed, no CUDA C)."""
    record: dict[str, Any] = {"mode": "cpu smoke test of the overhead group (host backend); times are not "
                                      "benchmarks", "runs": {}, "agree": {}}
    jobs: dict[int | str, tuple[str, Path, dict[str, Any]]] = {
        n: ("laplace_bench.c", work / f"overhead{n}", {"NX": n, "NY": n, "ITER": iters})
        for n, iters in CPU_SIZES.items()}
    jobs["launch"] = ("launch_bench.c", work / "launch", {"REPS": 100})
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:   # xmpacc runs are independent
        exes = dict(zip(jobs, pool.map(lambda job: harness.build(*job), jobs.values()), strict=True))
    for n in CPU_SIZES:
        sums = []
        for p in (1, 2):
            r = harness.run_prog(exes[n], p, HOST)
            record["runs"][f"laplace {n}, {p} proc"] = r
            sums.append(r["values"]["checksum"])
        record["agree"][str(n)] = all(harness.close(s, sums[0], RTOL) for s in sums)
    record["runs"]["launch, 1 proc"] = harness.run_prog(exes["launch"], 1, HOST)
    return record
