"""The spelling benchmark of issue 31: one loop nest written in many OpenACC spellings must
run at one speed.  Measured by bench/run.py in one job (``--only spelling``; also part of
the default full run).

Programs (bench/spelling/, one source each, the spelling picked by ``-DSPELLING=n``; the
names are those of LAPLACE, JACOBI, STENCIL27 and HIMENO below, which the programs print):

* laplace2d_spell.c: 2-D 5-point Jacobi, fp64, 8192^2, eight spellings;
* jacobi3d_spell.c: 3-D 7-point Jacobi, 512^3, fp32 and fp64, six spellings each;
* stencil27_spell.c: 3-D 27-point full-weighting stencil, 512^3, fp32 and fp64, the same
  six spellings;
* himeno_spell.c: Himeno L as XcalableACC users write it ("quoted") and three others.

Every program runs on 1 GPU next to the device copy bandwidth (harness.copy_bandwidth)
and the best hand-written kernel: the register-reuse kernels of bench/stencil_baselines.py
(``laplace-reuse``; ``jacobi3d`` and ``stencil27`` in fp64 and fp32), bench/himeno_hand.py
for Himeno.

* Y1: every spelling >= 0.90 x the fastest spelling of the same nest;
* Y2: 3-D 7-point 512^3, every spelling, fp32 and fp64: sweep bandwidth (one read and one
  write of the element per interior cell) >= 0.85 x the copy bandwidth; Y2x, our own
  extension, the same of the 27-point sweep;
* Y3: Himeno L, the quoted spelling >= 0.90 x the best hand-written variant (MFLOPS, the
  benchmark's data flow); every spelling >= 0.85 x;
* Y4: the async spelling >= 0.97 x its synchronous twin of the same nest (2-D and 3-D).

A goal is met only when every checksum it rests on agrees with the hand-written one.
``--quick`` keeps the sizes and cuts the timed iterations and the Himeno repeats (a first
look, in less device time); ``--cpu --only spelling`` builds and runs every
spelling on the host backend at tiny sizes (a smoke test: no timing is claimed).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import harness  # bench/harness.py: build, sh, tool, numbers, stats, baselines, close, goal
import himeno_goals  # bench/himeno_goals.py: hand, best, GOSA_RTOL, PSUM_RTOL
from himeno_ref import BYTES_PER_POINT, FLOP_PER_POINT, extents

CUDA = {"XMPACC_DEVICE": "cuda"}
HOST = {"XMPACC_DEVICE": "host"}
LAPLACE = ("collapse2", "gang_vector", "kernels", "acc_first", "async", "vlength128", "xmp_acc",
           "gang_worker")
JACOBI = ("collapse3", "gang_worker", "kernels", "collapse2_vl64", "xmp_acc", "async")
STENCIL27 = JACOBI   # the same six spellings of the 3-D nest, around a 27-point body
HIMENO = ("quoted", "collapse3", "xmp_acc", "gang_vector")
QUOTED = "quoted"
# Y4: the nests with an async spelling, and the synchronous spelling it adds 'async' to
ASYNC_TWIN = {"laplace2d": "collapse2", "jacobi3d-float": "collapse3", "jacobi3d-double": "collapse3",
              "stencil27-float": "collapse3", "stencil27-double": "collapse3"}
# Y2: the 3-D nests, measured against the copy bandwidth at 512^3 -> their hand-written case
# in bench/baselines.py.  The 27-point sweep's bound is the 7-point one's: from memory it
# still reads each cell once and writes it once (its 27 reads per cell, 9 per plane with
# reuse along k, are cache hits); the same 0.85 x copy.
HAND_3D = {"jacobi3d-float": "jacobi3d", "jacobi3d-double": "jacobi3d", "stencil27-float": "stencil27",
           "stencil27-double": "stencil27"}
ELEMENT = {"float": 4, "double": 8}
CHECKSUM_RTOL = {"float": 1e-6, "double": 1e-9}   # sums of equal cells in another order
RUN_TIMEOUT_S = 240   # one run of one spelling; a hung one is recorded as failed, the job goes on


@dataclass(frozen=True)
class Sizes:
    """Problem sizes and timed iterations of one run of the group."""

    laplace: int
    laplace_iter: int
    jacobi: int
    jacobi_iter: int
    himeno: str
    himeno_iter: int
    himeno_repeats: int   # runs per Himeno spelling, the median counts (himeno_goals.median_run)


FULL = Sizes(8192, 100, 512, 50, "L", 100, 3)
QUICK = Sizes(8192, 40, 512, 20, "L", 40, 1)
CPU = Sizes(48, 6, 16, 4, "XS", 3, 1)


@dataclass(frozen=True)
class Nest:
    """One loop nest: its program, its spellings (``-DSPELLING`` = position + 1), the
    defines of its size, and its element type."""

    key: str
    source: str
    spellings: tuple[str, ...]
    defines: dict[str, Any]
    real: str


def nests(s: Sizes) -> list[Nest]:
    """The nests; ``XMPACC_SPELLING_NESTS=laplace2d,himeno`` keeps only those (a shorter job)."""
    jac = {"N": s.jacobi, "ITER": s.jacobi_iter}
    keep = [k for k in os.environ.get("XMPACC_SPELLING_NESTS", "").split(",") if k]
    return [n for n in _all_nests(s, jac) if not keep or n.key in keep]


def _all_nests(s: Sizes, jac: dict[str, Any]) -> list[Nest]:
    return [Nest("laplace2d", "spelling/laplace2d_spell.c", LAPLACE, {"N": s.laplace, "ITER": s.laplace_iter},
                 "double"),
            Nest("jacobi3d-float", "spelling/jacobi3d_spell.c", JACOBI, {**jac, "REAL": "float"}, "float"),
            Nest("jacobi3d-double", "spelling/jacobi3d_spell.c", JACOBI, {**jac, "REAL": "double"}, "double"),
            *(Nest(f"stencil27-{real}", "spelling/stencil27_spell.c", STENCIL27, {**jac, "REAL": real}, real)
              for real in ("float", "double")),
            Nest("himeno", "spelling/himeno_spell.c", HIMENO, {f"SIZE_{s.himeno}": None, "NN": s.himeno_iter},
                 "float")]


def build_all(work: Path, all_nests: list[Nest]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every spelling of every nest, built by xmpacc (``-xacc``) on as many threads as the
    machine has cores: (nest, spelling) -> {"exe", "compile_s"}, or {"error", "compile_s"}
    where xmpacc failed (the job goes on: one device command measures everything it can)."""
    def one(nest: Nest, k: int, name: str) -> tuple[tuple[str, str], dict[str, Any]]:
        t0 = time.perf_counter()
        try:
            out = {"exe": harness.build(nest.source, work / f"{nest.key}-{name}",
                                        {**nest.defines, "SPELLING": k + 1}, ["-xacc"])}
        except RuntimeError as err:
            out = {"error": _tail(err)}
        return (nest.key, name), {**out, "compile_s": time.perf_counter() - t0}

    jobs = [(n, k, name) for n in all_nests for k, name in enumerate(n.spellings)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(pool.map(lambda job: one(*job), jobs))


def _tail(err: BaseException) -> str:
    return str(err)[-3000:]


_SPELLING = re.compile(r"^spelling = (\w+)$", re.M)


def run_spelling(exe: Path, nprocs: int, env: dict[str, str], expected: str) -> dict[str, Any]:
    """One run: the numbers it prints (harness.numbers), the runtime's counters, and a check
    that it is the spelling asked for."""
    out = harness.sh([harness.tool("mpirun"), "-np", str(nprocs), str(exe)], {**env, "XMPACC_STATS": "1"},
                     timeout=RUN_TIMEOUT_S)
    printed = _SPELLING.findall(out)
    if printed != [expected]:
        raise RuntimeError(f"{exe} printed spelling {printed}, expected {expected}:\n{out}")
    return {"values": harness.numbers(out), "stats": harness.stats(out)}


def _median(exe: Path, name: str, repeats: int) -> dict[str, Any]:
    """The median of ``repeats`` runs by time, every run's MFLOPS kept (the Himeno runs vary
    from run to run: himeno_goals.median_run)."""
    runs = sorted((run_spelling(exe, 1, CUDA, name) for _ in range(repeats)),
                  key=lambda r: r["values"]["time_s"])
    mid = runs[len(runs) // 2]
    mid["mflops_of_runs"] = [r["values"]["mflops"] for r in runs]
    return mid


Measure = Callable[[Path, str], dict[str, Any]]


def _runs(nest: Nest, built: dict[tuple[str, str], dict[str, Any]], measure: Measure) -> dict[str, Any]:
    """spelling -> what ``measure(exe, name)`` gives, or {"error"} where the build or the run
    failed; every entry with the spelling's compile time."""
    runs = {}
    for name in nest.spellings:
        b = built[nest.key, name]
        try:
            if "exe" not in b:
                raise RuntimeError(b["error"])
            r = measure(b["exe"], name)
        except (RuntimeError, KeyError, subprocess.TimeoutExpired) as err:
            r = {"error": _tail(err)}
        runs[name] = {**r, "compile_s": b["compile_s"]}
    return runs


def _baselines(get: Callable[[], list[dict[str, Any]]]) -> tuple[list[dict[str, Any]], str | None]:
    """The hand-written runs, or none and the error (the goals that need them are missed)."""
    try:
        return get(), None
    except (RuntimeError, subprocess.TimeoutExpired) as err:
        return [], _tail(err)


def _stencil(nest: Nest, built: dict[tuple[str, str], dict[str, Any]], copy_gbs: float) -> dict[str, Any]:
    n, it = nest.defines["N"], nest.defines["ITER"]
    if nest.key == "laplace2d":
        args, cells = ("laplace-reuse", 1, ["--nx", str(n), "--ny", str(n), "--iter", str(it)]), (n - 2) ** 2
    else:
        args = (HAND_3D[nest.key], 1, ["--nz", str(n), "--ny", str(n), "--nx", str(n), "--iter", str(it),
                                       "--real", nest.real])
        cells = (n - 2) ** 3
    base, error = _baselines(lambda: harness.baselines(*args))
    nbytes = 2 * ELEMENT[nest.real] * cells   # one read and one write per interior cell
    ref, rtol = (base[0]["checksum"] if base else None), CHECKSUM_RTOL[nest.real]

    def measure(exe: Path, name: str) -> dict[str, Any]:
        r = run_spelling(exe, 1, CUDA, name)
        r["checksums_match"] = ref is not None and harness.close(r["values"]["checksum"], ref, rtol)
        r["copy_fraction"] = nbytes / (r["values"]["iter_ms"] * 1e-3) / (copy_gbs * 1e9)
        return r

    runs = _runs(nest, built, measure)
    for b in base:
        b["checksums_match"] = harness.close(b["checksum"], ref, rtol)
        b["copy_fraction"] = nbytes / (b["iter_ms"] * 1e-3) / (copy_gbs * 1e9)
    return {"n": n, "iter": it, "real": nest.real, "bytes_per_sweep": nbytes, "spellings": runs,
            "baselines": base, "baseline_error": error}


def _himeno(nest: Nest, built: dict[tuple[str, str], dict[str, Any]], copy_gbs: float,
            s: Sizes) -> dict[str, Any]:
    base, error = _baselines(lambda: himeno_goals.hand("himeno", 1, ["--size", s.himeno,
                                                                     "--iter", str(s.himeno_iter)]))
    ref = himeno_goals.best(base, 1) if base else None
    bound = copy_gbs * 1e9 / BYTES_PER_POINT * FLOP_PER_POINT * 1e-6

    def measure(exe: Path, name: str) -> dict[str, Any]:
        r = _median(exe, name, s.himeno_repeats)
        v = r["values"]
        r["checksums_match"] = ref is not None and \
            harness.close(v["gosa"], ref["gosa"], himeno_goals.GOSA_RTOL) and \
            harness.close(v["psum"], ref["psum"], himeno_goals.PSUM_RTOL)
        r["copy_fraction"] = v["mflops"] / bound
        return r

    runs = _runs(nest, built, measure)
    for b in base:
        b["copy_fraction"] = b["mflops"] / bound
    return {"size": s.himeno, "iter": s.himeno_iter, "points": _points(s.himeno), "bound_mflops": bound,
            "spellings": runs, "baselines": base, "baseline_error": error}


def _points(size: str) -> int:
    imax, jmax, kmax = extents(size)
    return (imax - 2) * (jmax - 2) * (kmax - 2)


def cases(work: Path, record: dict[str, Any], copy: dict[str, Any], quick: bool = False) -> None:
    """The spelling group; ``copy``: this run's copy bandwidth (harness.copy_bandwidth)."""
    s = QUICK if quick else FULL
    all_nests = nests(s)
    t0 = time.perf_counter()
    built = build_all(work, all_nests)
    out: dict[str, Any] = {"quick": quick, "sizes": asdict(s), "copy": copy,
                           "build_all_s": time.perf_counter() - t0, "nests": {}}
    for nest in all_nests:
        out["nests"][nest.key] = (_himeno(nest, built, copy["copy_gbs"], s) if nest.key == "himeno"
                                  else _stencil(nest, built, copy["copy_gbs"]))
        # what is measured so far, should the job be stopped before bench/run.py writes its record
        (work / "spelling-partial.json").write_text(json.dumps(out, indent=1, default=str))
    record["spelling"] = out


def _speeds(nest: dict[str, Any]) -> dict[str, float]:
    """Higher is faster, of every spelling that ran: 1 / ms per sweep, or MFLOPS."""
    out = {}
    for name, r in nest["spellings"].items():
        if "values" in r:
            v = r["values"]
            out[name] = v["mflops"] if "mflops" in v else 1.0 / v["iter_ms"]
    return out


def _checked(value: float | None, target: float, runs: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """harness.goal (higher is better), met only when the checksums of ``runs`` agree (a run
    that failed has none)."""
    g = harness.goal(value, target, False)
    ok = all(r.get("checksums_match", False) for r in runs)
    return {**g, "met": g["met"] and ok, "checksums_match": ok, **extra}


def _overall(parts: dict[str, dict[str, Any]], target: float) -> dict[str, Any]:
    """The goal of several parts: the smallest value, met when every part is."""
    vals = [p["value"] for p in parts.values() if p["value"] is not None]
    g = harness.goal(min(vals) if vals else None, target, False)
    return {**g, "met": all(p["met"] for p in parts.values())}


def _nest_goals(key: str, nest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Y1, and Y2 / Y4 where they apply, of one nest: goal name -> goal.  A spelling that
    failed to build or run makes every goal over it missed (``failed`` names it)."""
    runs, speeds = nest["spellings"], _speeds(nest)
    failed = {"failed": sorted(set(runs) - set(speeds))} if set(runs) - set(speeds) else {}
    if not speeds:
        return {"Y1": _checked(None, 0.90, list(runs.values()), **failed)}
    slow, fast = min(speeds, key=speeds.__getitem__), max(speeds, key=speeds.__getitem__)
    out = {"Y1": _checked(speeds[slow] / speeds[fast], 0.90, list(runs.values()), slowest=slow, fastest=fast,
                          **failed)}
    if key in HAND_3D and nest["n"] == 512:
        # the Y2 is the 7-point sweep; the 27-point one is our own extension (Y2x)
        low = min(speeds, key=lambda name: runs[name]["copy_fraction"])
        out["Y2" if HAND_3D[key] == "jacobi3d" else "Y2x"] = _checked(
            runs[low]["copy_fraction"], 0.85, list(runs.values()), slowest=low, **failed)
    twin = ASYNC_TWIN.get(key)
    if twin and "async" in runs:
        ratio = speeds["async"] / speeds[twin] if {"async", twin} <= set(speeds) else None
        out["Y4"] = _checked(ratio, 0.97, [runs["async"], runs[twin]], sync=twin)
    return out


def goals(record: dict[str, Any]) -> dict[str, Any]:
    """Y1-Y4 from a results record: per nest (``Y1-laplace2d``, ...) and overall (``Y1``)."""
    sp = record.get("spelling")
    if not sp:
        return {}
    parts: dict[str, dict[str, dict[str, Any]]] = {"Y1": {}, "Y2": {}, "Y2x": {}, "Y4": {}}
    for key, nest in sp["nests"].items():
        for name, g in _nest_goals(key, nest).items():
            parts[name][key] = g
    out: dict[str, Any] = {}
    for name, target in (("Y1", 0.90), ("Y2", 0.85), ("Y2x", 0.85), ("Y4", 0.97)):
        out.update({f"{name}-{k}": v for k, v in parts[name].items()})
        if parts[name]:
            out[name] = _overall(parts[name], target)
    h = sp["nests"].get("himeno")
    if h and h["size"] == "L":
        out.update(_himeno_goals(h))
    return out


def _himeno_goals(h: dict[str, Any]) -> dict[str, Any]:
    """Y3: the quoted spelling / the best hand-written variant, and the slowest spelling's."""
    hand = himeno_goals.best(h["baselines"], 1)["mflops"] if h["baselines"] else None
    runs, speeds = h["spellings"], _speeds(h)
    low = min(speeds, key=speeds.__getitem__) if speeds else None
    ok = hand is not None and low is not None
    quoted = speeds[QUOTED] / hand if hand and QUOTED in speeds else None
    return {"Y3": _checked(quoted, 0.90, [runs[QUOTED]]),
            "Y3-all": _checked(speeds[low] / hand if ok else None, 0.85, list(runs.values()), slowest=low)}


def plot(record: dict[str, Any], path: Path) -> None:
    """Fraction of the copy-bandwidth bound per spelling (blue) and of the best hand-written
    kernel (gray), one group of bars per nest."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = []
    for key, nest in record["spelling"]["nests"].items():
        for name, r in nest["spellings"].items():
            color = "tab:blue" if r.get("checksums_match") else "tab:red"
            label = f"{key}: {name}" + ("" if "values" in r else " (failed)")
            rows.append((label, r.get("copy_fraction", 0.0), color))
        hand = [b for b in nest["baselines"]
                if b.get("dataflow", "copy") == "copy" and b.get("checksums_match", True)]
        if hand:
            best = max(hand, key=lambda b: b["copy_fraction"])
            rows.append((f"{key}: hand-written, {best['variant']}", best["copy_fraction"], "tab:gray"))
    fig, ax = plt.subplots(figsize=(11, 0.3 * len(rows) + 2))
    ax.barh(range(len(rows)), [r[1] for r in rows], color=[r[2] for r in rows])
    ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.axvline(0.85, color="tab:red", linestyle="--", label="Y2 target (3-D): 0.85 of copy")
    ax.legend(fontsize=8)
    ax.set_xlabel("fraction of the copy-bandwidth bound (higher is better; Himeno: 68 B per point)")
    ax.set_title(f"One loop, many OpenACC spellings, 1 GPU of {record.get('gpu', '?')}: xmpacc (blue; red: "
                 "checksum differs), best hand-written (gray)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def cpu_smoke(work: Path) -> dict[str, Any]:
    """Host backend, tiny sizes: every spelling builds and runs on 1 and 2 processes; the
    record says whether the spellings of each nest print one checksum (no timing claimed)."""
    record: dict[str, Any] = {"mode": "cpu smoke test of the spelling group (host backend); times are not "
                                      "benchmarks", "runs": {}, "agree": {}}
    all_nests = nests(CPU)
    built = build_all(work, all_nests)
    failed = [f"{k} {s}:\n{b['error']}" for (k, s), b in built.items() if "error" in b]
    if failed:   # a smoke test stops at the first thing that does not build
        raise RuntimeError("\n".join(failed))
    for nest in all_nests:
        key = "gosa" if nest.key == "himeno" else "checksum"
        sums = []
        for name in nest.spellings:
            for n in (1, 2):
                r = run_spelling(built[nest.key, name]["exe"], n, HOST, name)
                record["runs"][f"{nest.key} {name}, {n} proc"] = r
                sums.append(r["values"][key])
        rtol = 5e-4 if key == "gosa" else CHECKSUM_RTOL[nest.real]   # gosa: fp32 sums in another order
        record["agree"][nest.key] = all(harness.close(v, sums[0], rtol) for v in sums)
    return record
