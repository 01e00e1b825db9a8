"""The benchmark suite's CPU mode (host backend, tiny sizes) as a smoke test.

Nothing is timed here: it checks that every benchmark program builds and runs on 1 and 2
processes, and that the device-resident path (``reflect ... acc``) computes what the
paper's host path computes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, mpirun_path, xmpacc_command


def _bench_env() -> dict[str, str]:
    """The environment with xmpacc and mpirun on PATH, for bench/run.py."""
    return {**os.environ, "PATH": f"{Path(xmpacc_command()[0]).parent}:{Path(mpirun_path()).parent}:"
                                  + os.environ.get("PATH", "")}


@pytest.mark.mpi
def test_bench_cpu_mode(tmp_path: Path) -> None:
    if mpirun_path() is None:
        pytest.skip("no mpirun")
    env = _bench_env()
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
    assert sum(s.get("reflect_bytes", 0) for s in two) \
        == sum(s.get("reflect_shadow_bytes", 0) for s in two) > 0
    for n in (2, 4):  # block x block on p[*][2]: halos on four sides, through reflect ... acc
        assert runs[f"laplace 2-D grid, {n} proc"]["values"]["checksum"] == pytest.approx(
            runs["laplace, 1 proc"]["values"]["checksum"], rel=1e-12)
    assert runs["launch, 1 proc"]["values"]["a"] == 101.0
    assert runs["jacobi3d, 1 proc"]["values"]["checksum"] == pytest.approx(
        runs["jacobi3d, 2 proc"]["values"]["checksum"], rel=1e-12)


def stencil_record() -> dict[str, object]:
    """A stencil group's record of made-up times: S1 at 8192^2 95 % of copy bandwidth."""
    def prog(ms: float) -> dict[str, object]:
        return {"values": {"iter_ms": ms, "checksum": 1.0}, "stats": []}

    def lap(n: int, one: float, nccl: float, staged: float) -> dict[str, object]:
        return {"n": n, "xmpacc": {"xmpacc, 1 GPU": prog(one),
                                   "xmpacc, 2 GPUs, reflect acc (NCCL)": prog(nccl),
                                   "xmpacc, 2 GPUs, reflect acc (staged)": prog(staged)},
                "baselines": [{"nodes": 2, "halo": "nccl", "iter_ms": 1.0, "checksum": 1.0},
                              {"nodes": 2, "variant": "fused kernel, host halo", "iter_ms": 0.25,
                               "checksum": 1.0},
                              {"nodes": 1, "halo": None, "iter_ms": 0.5, "checksum": 1.0}]}

    copy_gbs = 4000.0
    one_8k = 16 * 8190 ** 2 / (0.95 * copy_gbs * 1e9) * 1e3      # 95 % of the copy bandwidth
    return {"copy": {"copy_gbs": copy_gbs},
            "stencil": {"laplace": {"8192": lap(8192, one_8k, 2.0, 0.3),
                                    "16384": lap(16384, 10.0, 1.04, 1.0)},
                        "jacobi3d": {"n": 512, "xmpacc": {"xmpacc, 1 GPU": prog(1.0)}, "baselines": []}}}


def test_stencil_goals_from_a_record() -> None:
    """S1-S3 and C3 as bench/run.py computes them, from made-up times (no GPU needed)."""
    sys.path.insert(0, str(REPO / "bench"))
    import stencil_goals

    record = stencil_record()
    g = stencil_goals.goals(record)
    assert g["S1-8192"]["value"] == pytest.approx(0.95, rel=1e-3) and g["S1-8192"]["met"]
    assert not g["S1-16384"]["met"] and not g["S1"]["met"]
    assert g["S2"]["value"] == pytest.approx(16 * 510 ** 3 / 1e-3 / 4e12, rel=1e-3)
    assert g["S3"]["value"] == pytest.approx(1.04) and g["S3"]["met"]
    assert g["C3"]["value"] == pytest.approx(1.2) and not g["C3"]["met"]


@pytest.mark.mpi
def test_cpu_bench_quick(tmp_path: Path) -> None:
    """``--cpu-bench --quick``: the xmpacc programs and the hand-written C + MPI ones build
    (the latter with the MPI's mpicc) and print the same checksums; no timing is checked."""
    if mpirun_path() is None:
        pytest.skip("no mpirun")
    env = _bench_env()
    r = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--cpu-bench", "--quick", "--reps",
                        "1", "--out", str(tmp_path)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    record = json.loads(next(tmp_path.glob("cpu-*-quick.json")).read_text())
    assert set(record["goals"]) == {"CPU1", "CPU2"}
    assert len(record["cases"]) == 12
    assert all(c["checksums_match"] for c in record["cases"].values()), record["cases"]


@pytest.mark.mpi
def test_bench_cpu_mode_spelling(tmp_path: Path) -> None:
    """``--cpu --only spelling``: every spelling of a nest of the spelling benchmark
    (bench/spelling_goals.py) builds, runs on 1 and 2 processes of the host backend, prints
    the spelling it was built with, and the spellings of the nest print one checksum.  Only
    the fp32 3-D nest here (XMPACC_SPELLING_NESTS): tests/test_spelling.py runs every spelling
    of every nest against its serial build; this test is about the benchmark's own driver."""
    if mpirun_path() is None:
        pytest.skip("no mpirun")
    sys.path.insert(0, str(REPO / "bench"))
    import spelling_goals

    cmd = [sys.executable, str(REPO / "bench" / "run.py"), "--cpu", "--only", "spelling",
           "--out", str(tmp_path)]
    nests = ("jacobi3d-float",)
    env = {**_bench_env(), "XMPACC_SPELLING_NESTS": ",".join(nests)}
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    record = json.loads((tmp_path / "cpu-smoke-spelling.json").read_text())
    assert record["agree"] == dict.fromkeys(nests, True)
    names = [(n.key, s) for n in spelling_goals.nests(spelling_goals.CPU) if n.key in nests
             for s in n.spellings]
    assert sorted(record["runs"]) == sorted(f"{k} {s}, {p} proc" for k, s in names for p in (1, 2))
    assert len(names) == 6 and all(v["values"]["iter_ms" if "checksum" in v["values"] else "mflops"] > 0
                                    for v in record["runs"].values())


@pytest.mark.mpi
def test_bench_cpu_mode_overhead(tmp_path: Path) -> None:
    """``--cpu --only overhead``: the overhead group's xmpacc programs (bench/overhead_goals.py)
    build and run on the host backend, the Laplace one on 1 and 2 processes with one checksum."""
    if mpirun_path() is None:
        pytest.skip("no mpirun")
    cmd = [sys.executable, str(REPO / "bench" / "run.py"), "--cpu", "--only", "overhead",
           "--out", str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=_bench_env(), timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    record = json.loads((tmp_path / "cpu-smoke-overhead.json").read_text())
    assert record["agree"] == {"32": True}
    assert sorted(record["runs"]) == ["laplace 32, 1 proc", "laplace 32, 2 proc", "launch, 1 proc"]
    assert record["runs"]["launch, 1 proc"]["values"]["a"] == 101.0


def test_overhead_goals_from_a_record() -> None:
    """O1-O3 as bench/run.py computes them, from made-up times (no GPU needed): a checksum
    that disagrees unmeets a goal, and one GPU leaves O3 without a value."""
    sys.path.insert(0, str(REPO / "bench"))
    import overhead_goals as og

    def run(ms: float, checksum: float = 1.0) -> dict[str, object]:
        return {"values": {"iter_ms": ms, "checksum": checksum}, "checksums_match": checksum == 1.0}

    def size(runs: dict[str, dict[str, object]]) -> dict[str, object]:
        return {"runs": runs}

    sizes = {"256": size({"xmpacc, 1 GPU": run(0.006), "CUDA C, 1 GPU": run(0.004)}),
             "1024": size({"xmpacc, 2 GPUs": run(0.013, 2.0), "CUDA C + NCCL, 2 GPUs": run(0.01)}),
             "4096": size({"xmpacc, 1 GPU": run(0.1), "xmpacc, 2 GPUs": run(0.0625)})}
    launch = {"xmpacc_us": 3.0, "cuda_c_us": 2.2, "cupy_driver_us": 6.0, "reference": og.CUDA_C_LAUNCH,
              "overhead_us": 0.8, "a_match": True}
    record = {"overhead": {"gpus": 2, "launch": launch, "sizes": sizes}}
    g = og.goals(record)
    assert g["O1"]["value"] == pytest.approx(1.5) and g["O1"]["met"]
    assert g["O2"] == {"value": pytest.approx(0.8), "target": 1.0, "met": True}
    assert g["O3a"]["value"] == pytest.approx(1.3) and not g["O3a"]["met"]
    assert g["O3a"]["note"] == "checksums differ"
    assert g["O3b"]["value"] == pytest.approx(0.8) and not g["O3b"]["met"]
    record["overhead"]["gpus"] = 1
    g = og.goals(record)
    assert g["O3a"] == {"value": None, "target": 1.2, "met": False, "note": "not run: one GPU"}
    assert g["O3b"]["value"] is None and g["O3b"]["note"] == "not run: one GPU"


def test_overhead_launch_reference(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """O2's record (bench/overhead_goals.py launch) from faked runs (no GPU needed): medians of
    REPEATS runs, launch_bench - the CUDA C cuLaunchKernel, the CuPy driver launch kept beside
    (C2's reference); CuPy's launch is O2's reference only where the CUDA C fails, and a run
    whose ``a`` is not REPS + 1 unmeets O2."""
    sys.path.insert(0, str(REPO / "bench"))
    import harness
    import overhead_goals as og
    import run

    n = og.LAUNCHES
    xmp = iter([4.0, 3.0, 5.0, 3.0, 4.0, 5.0])
    hand = iter([2.5, 2.0, 9.0, 2.5, 2.0, 9.0])
    cupy = iter([7.0, 6.0, 8.0, 7.0, 6.0, 8.0])
    built: list[list[str]] = []

    def sh(cmd: list[str], env: dict[str, str] | None = None) -> str:
        if cmd[0] == "bash":
            built.append(cmd)
            if "broken" in cmd[2]:
                raise RuntimeError("nvcc failed")
            return "driver: cuLaunchKernel, linked with -lcuda\n" + cmd[2] + "/launch_cuda_20000\n"
        return f"launch_us = {next(hand)}\na = {n}.0\n"

    monkeypatch.setattr(harness, "build", lambda src, out, defines: out)
    monkeypatch.setattr(harness, "run_prog", lambda exe, p, env: {"values": {
        "launch_us": 9.0 if env.get("XMPACC_REPLAY") == "0" else next(xmp), "a": n}})   # the general path: 9
    monkeypatch.setattr(harness, "sh", sh)
    monkeypatch.setattr(harness, "baselines", lambda case, p, args: [{"launch_us": next(cupy)}])
    la = og.launch(tmp_path)
    assert built[0][-2:] == ["launch", str(og.LAUNCH_REPS)]
    assert la["xmpacc_us"] == 4.0 and la["cuda_c_us"] == 2.5 and la["cupy_driver_us"] == 7.0
    assert la["runs"]["CUDA C"]["launch_us_of_runs"] == [2.0, 2.5, 9.0]
    assert la["runs"]["xmpacc" + og.GENERAL]["launch_us"] == 9.0
    assert la["reference"] == og.CUDA_C_LAUNCH and la["overhead_us"] == pytest.approx(1.5)
    assert la["a_match"] and la["cuda_c_build"].startswith("driver: cuLaunchKernel")
    record = {"launch": la, "overhead": {"gpus": 1, "launch": la, "sizes": {}}}
    assert og.goals(record)["O2"] == {"value": 1.5, "target": 1.0, "met": False}
    assert "C2" not in run.goals(record)   # O2 replaces C2
    del record["overhead"]
    assert run.goals(record)["C2"] == {"value": pytest.approx(-3.0), "target": 20.0, "met": True}

    la = og.launch(tmp_path / "broken")   # no CUDA C: CuPy's launch is the reference, and says so
    assert "cuda_c_us" not in la and "nvcc failed" in la["cuda_c_error"]
    assert la["reference"] == og.CUPY_LAUNCH and la["overhead_us"] == pytest.approx(4.0 - 7.0)
    g = og.goals({"overhead": {"gpus": 1, "launch": la, "sizes": {}}})["O2"]
    assert g["met"] and g["note"].startswith("reference: cupy driver launch")

    la = {**la, "a_match": False}
    g = og.goals({"overhead": {"gpus": 1, "launch": la, "sizes": {}}})["O2"]
    assert not g["met"] and g["note"] == f"a launch program's a is not {n}"
    g = og.goals({"overhead": {"gpus": 1, "launch": {"error": "launch_bench failed"}, "sizes": {}}})["O2"]
    assert g["value"] is None and g["note"].startswith("not run")


def test_launch_cuda_builds(tmp_path: Path) -> None:
    """bench/cuda/build.sh OUTDIR launch REPS compiles bench/cuda/launch_cuda.cu (nvcc, no GPU
    needed: sm_90 where -arch=native finds none) and says how it reaches cuLaunchKernel."""
    if shutil.which("nvcc") is None:
        pytest.skip("no nvcc")
    r = subprocess.run(["bash", str(REPO / "bench" / "cuda" / "build.sh"), str(tmp_path), "launch", "100"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.split()
    assert r.stdout.startswith("driver: cuLaunchKernel") and lines[-1] == str(tmp_path / "launch_cuda_100")
    assert os.access(lines[-1], os.X_OK)
    r = subprocess.run(["bash", str(REPO / "bench" / "cuda" / "build.sh"), str(tmp_path), "launch", "1", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 64 and "usage" in r.stderr


def test_results_of_several_commands_merge(tmp_path: Path) -> None:
    """bench/run.py --merge: the records of two device commands (another group each) become
    one file with the goals of both computed over it and each part named; two parts that
    measured the same group, or parts of two machine kinds, are refused."""
    def prog(ms: float) -> dict[str, object]:
        return {"values": {"iter_ms": ms, "checksum": 1.0}, "stats": [], "checksums_match": True}

    machine = {"date": "2026-11-30", "gpu": "NVIDIA H200", "gpus": 2, "versions": {"cupy": "14.2"}}
    stencil = {**machine, "machine": "a", "groups": ["stencil"], "nbody": {}, "tree": "abc",
               **stencil_record(), "goals": {"stale": {}}}
    sizes = {"256": {"runs": {"xmpacc, 1 GPU": prog(0.006), "CUDA C, 1 GPU": prog(0.004)}}}
    overhead = {**machine, "machine": "b", "groups": ["overhead"], "nbody": {}, "wall_s": 400.0,
                "overhead": {"gpus": 2, "sizes": sizes, "launch": {}}}
    files = []
    for name, rec in (("stencil.json", stencil), ("overhead.json", overhead)):
        files.append(tmp_path / name)
        files[-1].write_text(json.dumps(rec))
    run = [sys.executable, str(REPO / "bench" / "run.py"), "--out", str(tmp_path / "out"), "--merge"]
    r = subprocess.run([*run, *map(str, files)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    merged = json.loads((tmp_path / "out" / "all-2026-11-30-NVIDIA-H200-x2.json").read_text())
    assert merged["goals"]["S2"]["value"] == pytest.approx(16 * 510 ** 3 / 1e-3 / 4e12, rel=1e-3)
    assert merged["goals"]["O1"]["value"] == pytest.approx(1.5) and "stale" not in merged["goals"]
    assert [(p["file"], p["machine"], p["groups"]) for p in merged["parts"]] == [
        ("stencil.json", "a", ["stencil"]), ("overhead.json", "b", ["overhead"])]
    assert merged["parts"][0]["tree"] == "abc" and merged["parts"][1]["wall_s"] == 400.0
    again = subprocess.run([*run, str(files[0]), str(files[0])], capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and "both measured 'copy'" in again.stderr
    files[1].write_text(json.dumps({**overhead, "gpus": 4}))
    other = subprocess.run([*run, *map(str, files)], capture_output=True, text=True, timeout=120)
    assert other.returncode == 1 and "gpus 4" in other.stderr
    bad = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--only", "core,bogus"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "unknown group 'bogus' (groups: core, stencil, himeno" in bad.stderr
