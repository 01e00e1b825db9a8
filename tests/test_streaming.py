"""Streaming stencil kernels (passes/streaming.py): the legality table, the generated code,
runs on the host backend against the serial oracle, nvcc, and (marked gpu) a real GPU."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, build_serial, run_mpi, run_xmpacc
from test_passes import run_passes

from xmpacc.passes.canonical import CanonicalLoop
from xmpacc.passes.streaming import block_threads, walk_length

PROGRAM = Path(__file__).parent / "acc_programs" / "stream_stencils.c"
GOLDEN = Path(__file__).parent / "golden" / "stream_stencils.cu"
HOST = {"XMPACC_DEVICE": "host"}

HEAD = """\
#define N 64
double a[N][N], b[N][N], c[N][N], s, g[N + 2][N];
int m[N][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][*] onto p
#pragma xmp align a[i][j] with t[i][j]
#pragma xmp align b[i][j] with t[i][j]
#pragma xmp align c[i][j] with t[i][j]
#pragma xmp align m[i][j] with t[i][j]
#pragma xmp shadow a[2][0]
void f(void) {
  int i, j; double x = 0;
#pragma xmp acc replicate (a, b, c, m, s, g)
  {
"""
LOOP = "#pragma xmp loop (i, j) on t[i][j] acc\n"

# (nest, "streamed" or a fragment of the reason it is not)
TABLE = [
    ("for (i = 1; i < N - 1; i++) for (j = 1; j < N - 1; j++) b[i][j] = a[i-1][j] + a[i+1][j];",
     "streamed: 4 rows of 'i' per thread, windows a[i-1..i+1]"),
    ("for (i = 2; i < N - 2; i++) for (j = 0; j < N; j++) { double d = a[i+2][j] - a[i-2][j]; b[i][j] = d; }",
     "windows a[i-2..i+2]"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) b[i][j] = b[i][j] * a[i+1][j] + a[i][j];",
     "windows a[i+0..i+1]"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) { b[i][j] = a[i-1][j]; c[i][j] = a[i+1][j]; }",
     "streamed"),
    # two patterns: a[.][j] and a[.][j+1]
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N - 1; j++) b[i][j] = a[i-1][j] + a[i][j] + a[i+1][j+1] + a[i][j+1];",
     "windows a[i-1..i+0], a[i+0..i+1]"),
    # not legal, or nothing to gain
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) b[i][j] = a[i][j] + a[i][j+1];",
     "no array is re-read"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) b[i][j] = b[i-1][j] + a[i+1][j] + a[i-1][j];",
     "'b' is written and read at another subscript"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) g[i+1][j] = a[i+1][j] + a[i-1][j];",
     "without the walked index 'i' bare"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) g[0][j] = a[i+1][j] + a[i-1][j];",
     "without the walked index 'i' bare"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) g[i][j] = a[i+1][j] + a[i-1][j];",
     "streamed"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) { b[i][j] = a[i+1][j]; b[i][j+1] = a[i-1][j]; }",
     "'b' is written at two different subscripts"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) { if (j > 2) b[i][j] = a[i+1][j] + a[i-1][j]; }",
     "no array is re-read"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) b[i][j] = j > 2 ? a[i+1][j] : a[i-1][j];",
     "no array is re-read"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) { int k; for (k = 0; k < 2; k++) b[i][j] += a[i+k][j]; }",
     "the body has a 'for'"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) { s = a[i+1][j] + a[i-1][j]; }",
     "replicated scalar"),
    ("for (i = N - 2; i > 0; i--) for (j = 0; j < N; j++) b[i][j] = a[i+1][j] + a[i-1][j];",
     "does not go up by 1"),
    ("for (i = 1; i < N - 1; i += 2) for (j = 0; j < N; j++) b[i][j] = a[i+1][j] + a[i-1][j];",
     "does not go up by 1"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) b[i][j] = a[i+1][j] * a[i-1][j] + a[i*1][j];",
     "streamed"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) b[i][j] = a[i+1][i] + a[i-1][j];",
     "no array is re-read"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) m[i][j] = m[i+1][j] + m[i-1][j];",
     "'m' is written and read at another subscript"),
]


def _kernel_info(tmp_path: Path, nest: str, loop: str = LOOP, env: dict[str, str] | None = None) -> str:
    old = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        _unit, ctx = run_passes(tmp_path, HEAD + loop + nest + "\n  }\n}\n", stop_after="gpu")
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert len(ctx.kernels) == 1
    return str(ctx.kernels[0].info["stream"])


@pytest.mark.parametrize("nest,expected", TABLE, ids=[str(k) for k in range(len(TABLE))])
def test_legality_table(tmp_path: Path, nest: str, expected: str) -> None:
    info = _kernel_info(tmp_path, nest, env={"XMPACC_STREAM_WALK": "4"})
    assert expected in info, info


def test_reductions_and_single_loops_keep_the_mapping(tmp_path: Path) -> None:
    red = "#pragma xmp loop (i, j) on t[i][j] reduction(+:x) acc\n"
    nest = "for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) x += a[i+1][j] + a[i-1][j];"
    assert "reduction" in _kernel_info(tmp_path, nest, red)
    one = "#pragma xmp loop (i) on t[i][*] acc\n"
    nest = "for (i = 1; i < N - 1; i++) b[i][3] = a[i+1][3] + a[i-1][3];"
    assert "single distributed loop" in _kernel_info(tmp_path, nest, one)


def test_switch_off(tmp_path: Path) -> None:
    nest = TABLE[0][0]
    assert _kernel_info(tmp_path, nest, env={"XMPACC_STREAM": "0"}) == "XMPACC_STREAM=0"


def _loops(*extents: int) -> list[CanonicalLoop]:
    return [CanonicalLoop(f"i{k}", None, "0", f"{e} - 1", "1", True) for k, e in enumerate(extents)]


def test_walk_length_from_the_nest() -> None:
    assert walk_length(_loops(8192, 8192), 2) == 4         # 2-D: four rows
    assert walk_length(_loops(512, 512, 512), 2) == 8      # 3-D: eight planes
    assert walk_length(_loops(64, 64), 2) == 2             # too few threads for longer walks
    assert walk_length(_loops(16384, 16384), 4) == 8       # a window of five rows: twice its span
    unknown = [CanonicalLoop("i", None, "lo", "hi", "1", True), CanonicalLoop("j", None, "0", "n", "1", True)]
    assert walk_length(unknown, 2) == 4
    assert block_threads(_loops(512, 100)) == 128
    assert block_threads(_loops(512, 8192)) == 0            # the runtime's default


def test_generated_kernel_golden(tmp_path: Path) -> None:
    exe = tmp_path / "prog"
    r = run_xmpacc(str(PROGRAM), "-o", str(exe), "--keep", env={"XMPACC_STREAM_WALK": ""})
    assert r.returncode == 0, r.stderr
    text = exe.with_suffix(".cu").read_text().replace(str(PROGRAM.parent) + "/", "")
    assert text.count("streamed:") == 3
    if os.environ.get("XMPACC_UPDATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_nvcc_keeps_the_window_in_registers(tmp_path: Path) -> None:
    r = run_xmpacc(str(PROGRAM), "-S", "-o", str(tmp_path / "prog"))
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(tmp_path / "prog.cu"), "-I", str(REPO / "runtime" / "include"),
                        "-Xptxas", "-v", "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    frames = re.findall(r"(\d+) bytes stack frame", r.stderr)
    assert frames and all(f == "0" for f in frames), r.stderr   # no local memory: registers only


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> str:
    ref = build_serial(PROGRAM, tmp_path_factory.mktemp("serial") / "serial")
    return subprocess.run([str(ref)], capture_output=True, text=True, check=True).stdout


@pytest.mark.mpi
@pytest.mark.parametrize("walk,counts", [("", (1, 2, 3)), ("3", (2,)), ("8", (3,)), ("off", (2,))])
def test_streamed_program_matches_serial(tmp_path: Path, expected: str, walk: str, counts: tuple[int, ...]) -> None:
    env = {"XMPACC_STREAM": "0"} if walk == "off" else {"XMPACC_STREAM_WALK": walk}
    exe = tmp_path / "prog"
    r = run_xmpacc(str(PROGRAM), "-o", str(exe), env=env)
    assert r.returncode == 0, r.stderr
    for n in counts:
        r = run_mpi(n, exe, env=HOST)
        assert r.returncode == 0, r.stderr
        assert r.stdout == expected, f"{n} processes, walk {walk or 'default'}"


def _gpus() -> int:
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - no CuPy or no driver
        return 0


@pytest.mark.gpu
@pytest.mark.skipif(_gpus() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("walk", ["", "3"])
def test_streamed_program_on_gpu(tmp_path: Path, expected: str, walk: str) -> None:
    exe = tmp_path / "prog"
    r = run_xmpacc(str(PROGRAM), "-o", str(exe), env={"XMPACC_STREAM_WALK": walk})
    assert r.returncode == 0, r.stderr
    for n in (1, 2):
        r = run_mpi(n, exe, env={"XMPACC_DEVICE": "cuda"})
        assert r.returncode == 0, r.stderr
        assert r.stdout == expected
