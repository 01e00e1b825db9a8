"""The benchmark suite: xmpacc programs next to hand-written CUDA + MPI baselines, one job.

    python3 bench/run.py                 # on a GPU machine: writes bench/results/<date>-<gpu>.json + .png
    python3 bench/run.py --cpu --out DIR # host backend, small sizes: a smoke test (CI), no timings claimed
    python3 bench/run.py --only core     # just P1-P3, L1, L2, C1, C2 (n-body, Laplace, launch)
    python3 bench/run.py --only overhead # just the overhead goals O1-O3 (bench/overhead_goals.py):
                                         # small Laplace grids next to hand-written CUDA C + NCCL
    python3 bench/run.py --cpu --only overhead --out DIR   # its xmpacc programs on the host backend
    bash bench/overhead_device.sh DIR    # the overhead group as one device command, results in DIR
    python3 bench/run.py --only stencil  # just the stencil goals S1-S3, C3 (bench/stencil_goals.py)
    python3 bench/run.py --only himeno   # just the Himeno goals H1-H3 (bench/himeno_goals.py)
    python3 bench/run.py --only spelling # just the spelling goals Y1-Y4 (bench/spelling_goals.py);
                                         # --quick: fewer timed iterations, one run per Himeno case
    python3 bench/run.py --cpu --only spelling --out DIR   # every spelling on the host backend
    bash bench/spelling_device.sh DIR    # the spelling group as one device command (after
                                         # `. tests/device_env.sh`), results copied into DIR
    python3 bench/run.py --only core,stencil,himeno   # several groups; then another command:
    python3 bench/run.py --merge A.json B.json --out DIR  # one file, all-<date>-<gpu>-x<n>.json,
                                         # of the groups several commands measured (a device
                                         # command runs at most ten minutes; the whole run longer)
    python3 bench/run.py --cpu-bench     # CPU1/CPU2: the CPU path vs hand-written C + MPI:
                                         # bench/results/cpu-<host>.json

Every xmpacc program (bench/*_bench.c) and every baseline (bench/baselines.py) prints a
checksum; a result counts only when the checksums agree.  The goals of the performance
issue (P1-P3, L1, L2, C1, C2), of issue 11 (H1-H3: bench/himeno_goals.py), of issue 12
(S1-S3, C3: bench/stencil_goals.py), of issue 31 (Y1-Y4: bench/spelling_goals.py) and of
issue 32 (O1-O3: bench/overhead_goals.py) are computed from the times measured in this run,
on as many GPUs as the machine has.  O2 replaces C2: a run with the overhead group reports
O2 and no C2 (the core group's launch record stays, and O2 is computed from it).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GROUPS = ("core", "stencil", "himeno", "spelling", "overhead")
sys.path.insert(0, str(HERE))
import himeno_goals  # noqa: E402 - bench/ is no package
import overhead_goals  # noqa: E402 - bench/ is no package
import spelling_goals  # noqa: E402 - bench/ is no package
import stencil_goals  # noqa: E402 - bench/ is no package
from harness import baselines, build, close, copy_bandwidth, goal, numbers, run_prog, sh, tool  # noqa: E402


def gpu_info() -> tuple[str, int, dict[str, str]]:
    import cupy

    n = cupy.cuda.runtime.getDeviceCount()
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    versions = {"cupy": cupy.__version__, "cuda_runtime": str(cupy.cuda.runtime.runtimeGetVersion())}
    return name, n, versions


def nbody_cases(work: Path, gpus: int, record: dict[str, Any]) -> None:
    cuda = {"XMPACC_DEVICE": "cuda"}
    for n in (16384, 65536):
        exe = build("nbody_bench.c", work / f"nbody{n}", {"N": n, "STEPS": 10})
        host = build("nbody_bench.c", work / f"nbody{n}_host", {"N": n, "STEPS": 10, "HOST_PATH": None})
        base = baselines("nbody", 1, ["--n", str(n), "--steps", "10"])
        runs = {"xmpacc, 1 GPU": run_prog(exe, 1, cuda),
                "xmpacc, 1 GPU, paper mapping (XMPACC_LANES=1)":
                    run_prog(exe, 1, {**cuda, "XMPACC_LANES": "1"}),
                "xmpacc, 1 GPU, host reflect path": run_prog(host, 1, cuda)}
        if gpus >= 2:
            runs["xmpacc, 2 GPUs"] = run_prog(exe, 2, cuda)
        ref = base[0]
        for r in runs.values():
            v = r["values"]
            r["checksums_match"] = (close(v["kinetic"], ref["kinetic"], 1e-8)
                                    and close(v["sum_x"], ref["sum_x"], 1e-8))
            r["ginteractions_per_s"] = n * (n - 1) / (v["step_ms"] * 1e-3) / 1e9
        record["nbody"][str(n)] = {"xmpacc": runs, "baselines": base}


def laplace_cases(work: Path, gpus: int, record: dict[str, Any], nx: int) -> None:
    cuda = {"XMPACC_DEVICE": "cuda"}
    exe = build("laplace_bench.c", work / "laplace", {"NX": nx, "NY": nx, "ITER": 100})
    host = build("laplace_bench.c", work / "laplace_host",
                 {"NX": nx, "NY": nx, "ITER": 100, "HOST_PATH": None})
    args = ["--nx", str(nx), "--ny", str(nx), "--iter", "100"]
    base = baselines("laplace", 1, args)
    runs = {"xmpacc, 1 GPU": run_prog(exe, 1, cuda)}
    if gpus >= 2:
        base += baselines("laplace", 2, args + ["--halo", "nccl"]) \
            + baselines("laplace", 2, args + ["--halo", "host"])
        runs["xmpacc, 2 GPUs, reflect acc (NCCL)"] = run_prog(exe, 2, cuda)
        runs["xmpacc, 2 GPUs, reflect acc (staged)"] = run_prog(exe, 2, {**cuda, "XMPACC_REFLECT": "staged"})
        runs["xmpacc, 2 GPUs, host reflect path"] = run_prog(host, 2, cuda)
        grid2d = build("laplace_bench.c", work / "laplace2d",
                       {"NX": nx, "NY": nx, "ITER": 100, "GRID2D": None})
        runs["xmpacc, 2 GPUs, 2-D grid p[1][2] (column halos)"] = run_prog(grid2d, 2, cuda)
    for r in runs.values():
        r["checksums_match"] = close(r["values"]["checksum"], base[0]["checksum"], 1e-10)
    record["laplace"] = {"nx": nx, "xmpacc": runs, "baselines": base}


def launch_case(work: Path, record: dict[str, Any]) -> None:
    record["launch"] = overhead_goals.launch(work)


def reflect_ratio(record: dict[str, Any]) -> float | None:
    """Bytes sent by every reflect over the shadow bytes they filled (runtime counters)."""
    sent = shadow = 0
    for case in (record.get("laplace", {}).get("xmpacc", {}),
                 *(v["xmpacc"] for v in record.get("nbody", {}).values())):
        for run in case.values():
            for s in run["stats"]:
                sent += s.get("reflect_bytes", 0)
                shadow += s.get("reflect_shadow_bytes", 0)
    return sent / shadow if shadow else None


def goals(record: dict[str, Any]) -> dict[str, Any]:
    def best(base: list[dict[str, Any]], key: str, **match: Any) -> float | None:
        vals = [b[key] for b in base if all(b.get(k) == v for k, v in match.items())]
        return min(vals) if vals else None

    out: dict[str, Any] = {}
    nb = record.get("nbody", {})
    if "65536" in nb:
        x1 = nb["65536"]["xmpacc"]["xmpacc, 1 GPU"]["values"]["step_ms"]
        out["P1"] = goal(x1 / best(nb["65536"]["baselines"], "step_ms"), 1.05, True)
        two = nb["65536"]["xmpacc"].get("xmpacc, 2 GPUs")
        out["P2"] = goal(x1 / two["values"]["step_ms"] if two else None, 1.8, False)
    if "16384" in nb:
        x = nb["16384"]["xmpacc"]["xmpacc, 1 GPU"]["values"]["step_ms"]
        out["P3"] = goal(best(nb["16384"]["baselines"], "step_ms") / x, 0.9, False)
    lap = record.get("laplace")
    if lap:
        one = lap["xmpacc"]["xmpacc, 1 GPU"]["values"]["iter_ms"]
        out["L1"] = goal(one / best(lap["baselines"], "iter_ms", nodes=1), 1.1, True)
        two = lap["xmpacc"].get("xmpacc, 2 GPUs, reflect acc (NCCL)")
        base2 = best(lap["baselines"], "iter_ms", nodes=2, variant="fused kernel, nccl halo")
        out["L2"] = goal(two["values"]["iter_ms"] / base2 if two and base2 else None, 1.15, True)
        out["C1"] = goal(reflect_ratio(record), 1.05, True)   # core group only: its 2-GPU Laplace runs
    if "launch" in record and "overhead" not in record:   # O2 (overhead_goals) replaces C2
        la = record["launch"]   # C2's reference is the CuPy driver launch (O2's the CUDA C one)
        c2 = la["xmpacc_us"] - la["cupy_driver_us"] if "cupy_driver_us" in la else None
        out["C2"] = goal(c2, 20.0, True)
    return out


def all_goals(record: dict[str, Any]) -> dict[str, Any]:
    """Every group's goals that the record's measurements give."""
    return {**goals(record), **stencil_goals.goals(record), **himeno_goals.goals(record),
            **spelling_goals.goals(record), **overhead_goals.goals(record)}


def groups_arg(text: str) -> list[str]:
    """--only: one group or several, comma-separated, in GROUPS."""
    names = [g for g in text.split(",") if g]
    bad = [g for g in names if g not in GROUPS]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"unknown group {', '.join(bad) or text!r} "
                                         f"(groups: {', '.join(GROUPS)})")
    return names


# what a merged record keeps of each part: the machine fields, which must agree
SAME_MACHINE = ("gpu", "gpus")
PART_FIELDS = ("date", "machine", "groups", "tree", "wall_s", "versions")


def merge(paths: list[Path], out: Path) -> int:
    """One results file from the results files of several device commands on one machine kind
    (a device command runs at most ten minutes, the whole benchmark about fifteen): each
    group's measurements as they were, the goals computed over all of them, and ``parts``
    saying which command measured what, when and where.  Parts that measured the same group
    are refused, as are parts of different machine kinds."""
    records = [json.loads(p.read_text()) for p in paths]
    first = records[0]
    for p, r in zip(paths, records, strict=True):
        if any(r.get(k) != first.get(k) for k in SAME_MACHINE):
            print(f"bench: {p}: {', '.join(f'{k} {r.get(k)!r}' for k in SAME_MACHINE)} differ from "
                  f"{paths[0]}'s", file=sys.stderr)
            return 1
    merged: dict[str, Any] = {k: first[k] for k in ("date", *SAME_MACHINE)}
    merged["parts"] = [{"file": p.name, **{k: r[k] for k in PART_FIELDS if k in r}}
                       for p, r in zip(paths, records, strict=True)]
    merged["nbody"] = {}
    seen: dict[str, str] = {}
    for p, r in zip(paths, records, strict=True):
        for key, value in r.items():
            if key in PART_FIELDS or key in SAME_MACHINE or key == "goals" or (key == "nbody" and not value):
                continue
            if key in seen:
                print(f"bench: {p} and {seen[key]} both measured {key!r}", file=sys.stderr)
                return 1
            seen[key] = p.name
            merged[key] = value
    merged["goals"] = all_goals(merged)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"all-{merged['date']}-{merged['gpu'].replace(' ', '-')}-x{merged['gpus']}.json"
    path.write_text(json.dumps(merged, indent=1, default=str))
    try:
        replot(merged, path)
    except ImportError:
        print("bench: matplotlib missing, no plot", file=sys.stderr)
    print(json.dumps(merged["goals"], indent=1))
    print(f"bench: wrote {path}", file=sys.stderr)
    return 0


def plot(record: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(15, 7), gridspec_kw={"width_ratios": [1.3, 1]})
    labels, values, colors = [], [], []
    for n, case in sorted(record.get("nbody", {}).items(), key=lambda kv: int(kv[0])):
        for name, r in case["xmpacc"].items():
            labels.append(f"N={n}: {name}")
            values.append(r["ginteractions_per_s"])
            colors.append("tab:blue")
        for b in case["baselines"]:
            labels.append(f"N={n}: hand-written, {b['variant']}")
            values.append(b["ginteractions_per_s"])
            colors.append("tab:gray")
    axes[0].barh(range(len(values)), values, color=colors)
    axes[0].set_yticks(range(len(values)), labels, fontsize=7)
    axes[0].invert_yaxis()
    axes[0].set_xlabel("G interactions / s (higher is better)")
    axes[0].set_title(f"n-body on {record.get('gpu', '?')}: xmpacc (blue), hand-written CUDA (gray)",
                      fontsize=9)
    lap = record.get("laplace")
    if lap:
        names = list(lap["xmpacc"]) + [f"hand-written {b['variant']} ({b['nodes']} GPU)"
                                       for b in lap["baselines"]]
        vals = ([r["values"]["iter_ms"] for r in lap["xmpacc"].values()]
                + [b["iter_ms"] for b in lap["baselines"]])
        cols = ["tab:blue"] * len(lap["xmpacc"]) + ["tab:gray"] * len(lap["baselines"])
        axes[1].barh(range(len(vals)), vals, color=cols)
        axes[1].set_yticks(range(len(vals)), names, fontsize=7)
        axes[1].invert_yaxis()
        axes[1].set_xscale("log")
        axes[1].set_xlabel("ms per iteration, log scale (lower is better)")
        axes[1].set_title(f"Laplace {lap['nx']}^2 Jacobi", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def replot(record: dict[str, Any], path: Path) -> None:
    """The PNGs of a results file: the main one, the Himeno one (``-himeno.png`` next to a
    main one) and the spelling one (``-spelling.png`` next to another)."""
    main = bool(record.get("nbody") or record.get("laplace"))
    if main:
        plot(record, path.with_suffix(".png"))
    if "himeno" in record:
        himeno_goals.plot(record, path.with_name(path.stem + ("-himeno" if main else "") + ".png"))
    if "spelling" in record:
        other = main or "himeno" in record
        spelling_goals.plot(record, path.with_name(path.stem + ("-spelling" if other else "") + ".png"))


def cpu_smoke(out_dir: Path) -> dict[str, Any]:
    """Host backend, tiny sizes: every program builds, runs on 1 and 2 processes and prints
    its numbers.  No timing is claimed from this mode."""
    work = out_dir / "build"
    work.mkdir(parents=True, exist_ok=True)
    host = {"XMPACC_DEVICE": "host"}
    record: dict[str, Any] = {"mode": "cpu smoke test (host backend); times are not benchmarks", "runs": {}}
    progs = {"nbody": build("nbody_bench.c", work / "nbody", {"N": 256, "STEPS": 2}),
             "nbody host path": build("nbody_bench.c", work / "nbody_h",
                                      {"N": 256, "STEPS": 2, "HOST_PATH": None}),
             "laplace": build("laplace_bench.c", work / "laplace", {"NX": 40, "NY": 33, "ITER": 4}),
             "laplace 2-D grid": build("laplace_bench.c", work / "laplace2d",
                                       {"NX": 40, "NY": 33, "ITER": 4, "GRID2D": None}),
             "launch": build("launch_bench.c", work / "launch", {"REPS": 100}),
             "jacobi3d": build("jacobi3d_bench.c", work / "jacobi3d",
                               {"NZ": 12, "NY": 10, "NX": 9, "ITER": 4})}
    for name, exe in progs.items():
        for n in {"launch": (1,), "laplace 2-D grid": (2, 4)}.get(name, (1, 2)):
            record["runs"][f"{name}, {n} proc"] = run_prog(exe, n, host)
    return record


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", action="store_true", help="host backend smoke test with small sizes")
    ap.add_argument("--cpu-bench", action="store_true",
                    help="CPU1/CPU2: the CPU path next to hand-written C + MPI (bench/cpu_bench.py)")
    ap.add_argument("--reps", type=int, default=5,
                    help="--cpu-bench: runs of each program (the minimum counts)")
    ap.add_argument("--quick", action="store_true",
                    help="--cpu-bench with small sizes (a smoke test); the spelling group with fewer "
                         "timed iterations and one run per Himeno spelling")
    ap.add_argument("--out", type=Path, default=HERE / "results")
    ap.add_argument("--laplace-n", type=int, default=8192)
    ap.add_argument("--replot", type=Path, help="redraw the PNG of an existing results file")
    ap.add_argument("--only", type=groups_arg, metavar="GROUP[,GROUP...]",
                    help=f"run only these groups of cases ({', '.join(GROUPS)}); "
                         "the CPU smoke modes take one")
    ap.add_argument("--merge", type=Path, nargs="+", metavar="FILE",
                    help="merge results files of one machine kind, each of other groups, into one "
                         "(all-<date>-<gpu>-x<n>.json in --out) with every goal computed over them")
    ap.add_argument("--himeno-size", choices=["S", "M", "L"], default="L")
    ap.add_argument("--himeno-iter", type=int, default=200)
    args = ap.parse_args()
    if args.replot:
        replot(json.loads(args.replot.read_text()), args.replot)
        return 0
    if args.merge:
        return merge(args.merge, args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.cpu_bench:
        from cpu_bench import cpu_bench

        record = cpu_bench(args.out, args.reps, tool, sh, numbers, args.quick)
        name = f"cpu-{platform.node()}{'-quick' if args.quick else ''}.json"
        (args.out / name).write_text(json.dumps(record, indent=1))
        print(json.dumps({k: (v["xmpacc_us"], v["hand_us"], round(v["ratio"], 3), v["checksums_match"])
                          for k, v in record["cases"].items()}, indent=1))
        print(json.dumps(record["goals"], indent=1))
        return 0
    if args.cpu and args.only == ["himeno"]:
        record = {"mode": "cpu smoke test (host backend); times are not benchmarks", "runs": {}}
        (args.out / "build").mkdir(exist_ok=True)
        himeno_goals.cpu_smoke(args.out / "build", record)
        (args.out / "cpu-smoke-himeno.json").write_text(json.dumps(record, indent=1))
        print(json.dumps({k: v["values"] for k, v in record["runs"].items()}, indent=1))
        return 0
    if args.cpu and args.only == ["spelling"]:
        (args.out / "build").mkdir(exist_ok=True)
        record = spelling_goals.cpu_smoke(args.out / "build")
        (args.out / "cpu-smoke-spelling.json").write_text(json.dumps(record, indent=1, default=str))
        print(json.dumps({k: v["values"] for k, v in record["runs"].items()}, indent=1))
        print(json.dumps(record["agree"]))
        return 0 if all(record["agree"].values()) else 1
    if args.cpu and args.only == ["overhead"]:
        (args.out / "build").mkdir(exist_ok=True)
        record = overhead_goals.cpu_smoke(args.out / "build")
        (args.out / "cpu-smoke-overhead.json").write_text(json.dumps(record, indent=1))
        print(json.dumps({k: v["values"] for k, v in record["runs"].items()}, indent=1))
        print(json.dumps(record["agree"]))
        return 0 if all(record["agree"].values()) else 1
    if args.cpu:
        record = cpu_smoke(args.out)
        (args.out / "cpu-smoke.json").write_text(json.dumps(record, indent=1))
        print(json.dumps({k: v["values"] for k, v in record["runs"].items()}, indent=1))
        return 0
    gpu, count, versions = gpu_info()
    started = time.time()
    record = {"date": datetime.date.today().isoformat(), "machine": platform.node(), "gpu": gpu,
              "gpus": count, "versions": {**versions, "python": platform.python_version()},
              "groups": sorted(args.only or GROUPS), "nbody": {}}
    if os.environ.get("XMPACC_BENCH_TREE"):   # the commit the carried tree was made at
        record["tree"] = os.environ["XMPACC_BENCH_TREE"]
    work = args.out / "build"
    work.mkdir(exist_ok=True)

    def want(group: str) -> bool:
        return not args.only or group in args.only

    if want("core"):   # the goals of the first performance issue
        nbody_cases(work, count, record)
        laplace_cases(work, count, record, args.laplace_n)
        launch_case(work, record)
    # one copy-bandwidth measurement per run: the bound of S1/S2, H2 and Y2
    copy = copy_bandwidth() if any(map(want, ("stencil", "himeno", "spelling"))) else None
    if want("stencil"):
        stencil_goals.cases(work, count, record, copy)
    if want("himeno"):
        himeno_goals.cases(work, count, record, copy, args.himeno_size, args.himeno_iter)
    if want("spelling"):
        spelling_goals.cases(work, record, copy, args.quick)
    if want("overhead"):
        overhead_goals.cases(work, count, record)
    record["wall_s"] = round(time.time() - started, 1)
    record["goals"] = all_goals(record)
    only = "-".join(g for g in GROUPS if g in args.only) + "-" if args.only else ""
    stem = f"{only}{record['date']}-{gpu.replace(' ', '-')}-x{count}"
    (args.out / f"{stem}.json").write_text(json.dumps(record, indent=1, default=str))
    try:
        replot(record, args.out / f"{stem}.json")
    except ImportError:
        print("bench: matplotlib missing, no plot", file=sys.stderr)
    print(json.dumps(record["goals"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
