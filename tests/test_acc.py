"""XMP-ACC on machines without a GPU: the host backend, the generated .cu, acc diagnostics.

Every XMP-ACC sample runs on the host backend under 1-4 processes and prints what its
serial build prints; each generated .cu compiles with nvcc (when nvcc is installed) and
matches its golden file (``XMPACC_UPDATE_GOLDEN=1`` rewrites the golden files).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import (
    REPO,
    SAMPLES,
    SharedBuilds,
    build_serial,
    nvcc_compile,
    once,
    repo_builds,
    run_mpi,
    run_xmpacc,
    runtime_stats,
)
from test_samples import SAMPLE_LIST, sample_builds

ACC_SAMPLES = [
    ("nbody/nbody_acc.c", "nbody/nbody_serial.c"),
    ("fig3/fig3_acc.c", "fig3/fig3_serial.c"),
    ("laplace/laplace_acc.c", "laplace/laplace_serial.c"),
    ("xacc/laplace_xacc.c", "laplace/laplace_serial.c"),     # the same programs in XcalableACC
    ("xacc/nbody_xacc.c", "nbody/nbody_serial.c"),
]
PROGRAMS = Path(__file__).parent / "acc_programs"
GOLDEN = Path(__file__).parent / "golden"
HOST = {"XMPACC_DEVICE": "host"}
OVERLAP_ENV = "XMPACC_REFLECT_OVERLAP"   # compile time (passes/locality/overlap.py)
OVERLAP_BYTES = "XMPACC_OVERLAP_BYTES"    # run time (runtime/acc_comm.py)
_NUM = re.compile(r"[-+]?\d+\.\d*(?:[eE][-+]?\d+)?")


def same_output(got: str, expected: str, rel: float) -> None:
    """Equal text, except floating-point numbers, which agree to a relative tolerance."""
    assert _NUM.sub("#", got) == _NUM.sub("#", expected), f"got:\n{got}\nexpected:\n{expected}"
    for a, b in zip(_NUM.findall(got), _NUM.findall(expected), strict=False):
        assert float(a) == pytest.approx(float(b), rel=rel, abs=1e-300), f"{a} != {b}"


class _AccSamples(dict[str, tuple[Path, str]]):
    """sample -> (executable with its kept .cu, serial output), each built on first use and
    once per test run: the samples of samples/MANIFEST are tests/test_samples.py's builds."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        super().__init__()
        self.factory = tmp_path_factory

    def __missing__(self, acc: str) -> tuple[Path, str]:
        shown = {s.xmp: s.name for s in SAMPLE_LIST}
        if acc in shown:
            b = sample_builds(self.factory)[shown[acc]]
            assert b.error is None, b.error
            self[acc] = (b.exe, b.expected)
            return self[acc]
        serial = dict(ACC_SAMPLES)[acc]

        def make(tmp: Path) -> tuple[Path, str]:
            exe = tmp / Path(acc).stem
            r = run_xmpacc(str(SAMPLES / acc), "-o", str(exe), "--keep")
            assert r.returncode == 0, r.stderr
            ref = build_serial(SAMPLES / serial, tmp / (Path(serial).stem + "_serial"))
            return exe, subprocess.run([str(ref)], capture_output=True, text=True, check=True).stdout

        self[acc] = once(self.factory, f"acc-sample-{Path(acc).stem}", make)
        return self[acc]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    return _AccSamples(tmp_path_factory)


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 3, 4])
@pytest.mark.parametrize("sample", [a for a, _s in ACC_SAMPLES])
def test_acc_sample_on_host_backend(built: dict[str, tuple[Path, str]], sample: str, nprocs: int) -> None:
    exe, expected = built[sample]
    r = run_mpi(nprocs, exe, env=HOST)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected, rel=1e-9)


def test_auto_without_gpu_says_so_once(built: dict[str, tuple[Path, str]]) -> None:
    exe, _ = built[ACC_SAMPLES[0][0]]
    r = run_mpi(2, exe, env={"XMPACC_DEVICE": "auto"})
    if "uses GPU" in r.stderr or r.stderr.count("host backend") == 0:
        pytest.skip("this machine has a GPU")
    assert r.returncode == 0
    assert r.stderr.count("host backend") == 1


def test_cuda_without_gpu_fails_cleanly(built: dict[str, tuple[Path, str]]) -> None:
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            pytest.skip("this machine has a GPU")
    except Exception:  # noqa: BLE001 - no CuPy: the case under test
        pass
    exe, _ = built[ACC_SAMPLES[0][0]]
    r = run_mpi(2, exe, env={"XMPACC_DEVICE": "cuda"}, timeout=60)
    assert r.returncode != 0
    assert "no GPU device found" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("sample", [a for a, _s in ACC_SAMPLES])
def test_cu_golden(built: dict[str, tuple[Path, str]], sample: str) -> None:
    exe, _ = built[sample]
    text = exe.with_suffix(".cu").read_text()
    text = text.replace(str(SAMPLES) + "/", "samples/")
    golden = GOLDEN / (Path(sample).stem + ".cu")
    if os.environ.get("XMPACC_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text)
    assert golden.exists(), f"no golden file {golden}: run with XMPACC_UPDATE_GOLDEN=1"
    assert text == golden.read_text()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
@pytest.mark.parametrize("sample", [a for a, _s in ACC_SAMPLES])
def test_cu_compiles_with_nvcc(built: dict[str, tuple[Path, str]], sample: str, tmp_path: Path) -> None:
    exe, _ = built[sample]
    r = nvcc_compile(exe.with_suffix(".cu"), tmp_path / "k.o")
    assert r.returncode == 0, r.stderr


def test_kernel_named_after_line_with_recognisable_body(built: dict[str, tuple[Path, str]]) -> None:
    exe, _ = built["nbody/nbody_acc.c"]
    cu = exe.with_suffix(".cu").read_text()
    kernels = re.findall(r"_XMPACC_KERNEL (_xmpacc_loop_nbody_acc_c_\d+)\(", cu)
    assert len(kernels) == 2
    assert "r = sqrt(r2);" in cu and "acc_x += (a * (x_j - x_i)) / r;" in cu


@pytest.mark.mpi
def test_missing_sync_out_shows_stale_host_data(tmp_path: Path) -> None:
    exe = tmp_path / "stale"
    r = run_xmpacc(str(PROGRAMS / "stale_without_sync.c"), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(2, exe, env=HOST)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "sum = 40\n"   # the serial build prints 80: the kernel's 2s stay on the device


@pytest.mark.mpi
def test_acc_features_on_2x2_grid(programs: SharedBuilds) -> None:
    exe, expected = programs["acc_features.c"]
    r = run_mpi(4, exe, env=HOST)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected, rel=1e-9)


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    """program of tests/acc_programs -> (executable, serial output), each built once per run
    (by xmpacc and by plain cc) for the tests that run it, at several process counts."""
    return repo_builds(tmp_path_factory, "tests/acc_programs",
                       ["acc_fixed_subscript.c", "acc_expand_offset.c", "acc_full_shadow_cyclic.c",
                        "stream_cyclic.c", "acc_features.c", "acc_cyclic_w.c"])


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [2, 4])
def test_fixed_subscript_runs_on_its_owners(programs: SharedBuilds, nprocs: int) -> None:
    """loop (j) on t[i][j] ... acc: the nodes without row i launch nothing, and keep the
    reduction variable (nodes p[*][2])."""
    exe, expected = programs["acc_fixed_subscript.c"]
    r = run_mpi(nprocs, exe, env=HOST)
    assert r.returncode == 0, r.stderr
    assert r.stdout == expected


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 3])
@pytest.mark.parametrize("program", ["acc_expand_offset.c", "acc_full_shadow_cyclic.c", "stream_cyclic.c"])
def test_global_view_acc_on_host_backend(programs: SharedBuilds, program: str, nprocs: int) -> None:
    """loop ... acc with expand and an on-ref offset; reflect ... acc of a cyclic full shadow;
    a stencil over a cyclic dimension (not streamed)."""
    exe, expected = programs[program]
    r = run_mpi(nprocs, exe, env=HOST)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected, rel=1e-12)


@pytest.fixture(scope="module")
def cyclic_w(programs: SharedBuilds) -> tuple[Path, str]:
    return programs["acc_cyclic_w.c"]   # --keep, from the repository root: its golden files


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 3, 4])
def test_cyclic_w_acc_on_host_backend(cyclic_w: tuple[Path, str], nprocs: int) -> None:
    """loop ... acc over cyclic(3) and block x cyclic(2) templates (acc_cyclic_w.c)."""
    exe, expected = cyclic_w
    r = run_mpi(nprocs, exe, env=HOST)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected, rel=1e-12)


@pytest.mark.parametrize("suffix", [".cu", ".host.c"])
def test_cyclic_w_golden(cyclic_w: tuple[Path, str], suffix: str) -> None:
    """The position schedules, the posmap parameters and the kernels' index mapping."""
    exe, _ = cyclic_w
    text = re.sub(r"xmpacc [0-9][\w.+-]*", "xmpacc", exe.with_suffix(suffix).read_text(), count=1)
    assert str(REPO) not in text, "a machine-dependent path in the generated code"
    golden = GOLDEN / f"acc_cyclic_w{suffix}"
    if os.environ.get("XMPACC_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert golden.exists(), f"no golden file {golden}: run with XMPACC_UPDATE_GOLDEN=1"
    assert text == golden.read_text()


# Reductions with location variables and of arrays on loop ... acc, aligned structure
# members on the device, and overlapped reflects: each program against its serial build at
# 1-4 processes, its golden code, and its .cu through nvcc.
REDUCTION_PROGRAMS = {
    # firstmax/firstmin/lastmax/lastmin: ties inside a node and across nodes, cyclic(3), a 2-D thread space
    "acc_locations": "the CUDA side of the warp combine (shuffles of every record field)",
    # + on int, long, float and double arrays, a section, max/min, * | ^, 2-D, cyclic(3) going
    # down; start values counted once over the nodes
    "acc_array_reductions": "atomicAdd and the compare-and-swap loops (max, min, *, |, ^) on the temporaries",
    # acc replicate / replicate_sync of members (c.v, p->v), reflect and reflect_init/do acc of one
    "acc_members": "the kernel parameters that stand for the members (kernel_members.py)",
    # reflect ... acc and the loop after it: interior, rim, join (passes/locality/overlap.py);
    # the host backend holds each exchange back until the rim, so a wrong peel shows
    "reflect_overlap": "the interior's and the rim's schedules around the join",
}


@pytest.fixture(scope="module", params=sorted(REDUCTION_PROGRAMS))
def reduction_program(request: pytest.FixtureRequest,
                      tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    name = f"{request.param}.c"
    return repo_builds(tmp_path_factory, "tests/acc_programs", [name])[name]


def run_env(name: str) -> dict[str, str]:
    """reflect_overlap.c runs with every overlapped reflect overlapping (its blocks are far
    below the size from which the runtime overlaps)."""
    return {OVERLAP_BYTES: "0"} if Path(name).stem == "reflect_overlap" else {}


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 3, 4])
def test_reduction_program_on_host_backend(reduction_program: tuple[Path, str], nprocs: int) -> None:
    exe, expected = reduction_program
    r = run_mpi(nprocs, exe, env={**HOST, **run_env(exe.name)})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected, rel=1e-12)


@pytest.mark.parametrize("suffix", [".cu", ".host.c"])
def test_reduction_program_golden(reduction_program: tuple[Path, str], suffix: str) -> None:
    exe, _ = reduction_program
    text = re.sub(r"xmpacc [0-9][\w.+-]*", "xmpacc", exe.with_suffix(suffix).read_text(), count=1)
    assert str(REPO) not in text, "a machine-dependent path in the generated code"
    golden = GOLDEN / f"{exe.name}{suffix}"
    if os.environ.get("XMPACC_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert golden.exists(), f"no golden file {golden}: run with XMPACC_UPDATE_GOLDEN=1"
    assert text == golden.read_text()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_reduction_program_compiles_with_nvcc(reduction_program: tuple[Path, str], tmp_path: Path) -> None:
    exe, _ = reduction_program
    cu = exe.with_suffix(".cu").read_text()
    if exe.name == "acc_array_reductions":
        assert "_XMPACC_RMW_MAX(_xmpacc_ra_mx[i % 4]" in cu and "int (*_xmpacc_ra_h2)[4]" in cu
    r = nvcc_compile(exe.with_suffix(".cu"), tmp_path / "k.o")
    assert r.returncode == 0, f"{REDUCTION_PROGRAMS[exe.name]}: {r.stderr}"


# ------------------------------------------------------------------ diagnostics

BASE = """\
#include <stdio.h>
#include <stdlib.h>
#define N 16
double a[N], b[N];
double *ptr;
double loc[N];
int k;
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
double helper(double x) {{ return x; }}
int main(void) {{
  int i; double s = 0;
{body}
  return 0;
}}
"""

ACC_ERRORS = [
    # (body, line, column, fragment)
    ("#pragma xmp loop on t[i] acc\n  for (i = 0; i < N; i++) a[i] = 1;", 17, 27,
     "array 'a' is used in an acc loop but has no device copy"),
    ("#pragma xmp acc replicate (a)\n  {\n#pragma xmp loop on t[i] acc\n"
     "  for (i = 0; i < N; i++) { s = a[i]; }\n  }",
     19, 29, "scalar 's' is assigned in the acc loop"),
    ("#pragma xmp acc replicate_sync in (a)", 16, 36, "'a' is not replicated"),
    ("#pragma xmp acc replicate (a)\n  {\n#pragma xmp loop on t[i] acc\n"
     "  for (i = 0; i < N; i++) a[i] = helper(1.0);\n  }",
     19, 34, "call of 'helper' in an acc loop"),
    ("#pragma xmp acc replicate (a)\n  {\n#pragma xmp loop on t[i] acc\n"
     "  for (i = 0; i < N; i++) a[i] = *ptr;\n  }",
     19, 35, "pointer dereference"),
    ("#pragma xmp acc replicate (a)\n  {\n#pragma xmp loop on t[i] acc\n  for (i = 0; i < N; i++) {\n"
     "#pragma xmp barrier\n  a[i] = 1; }\n  }", 20, 9, "XMP directives are not allowed inside an acc loop"),
    ("#pragma xmp acc replicate (a)\n  {\n#pragma xmp loop on t[i] acc private(loc)\n"
     "  for (i = 0; i < N; i++) a[i] = 1;\n  }",
     18, 38, "'loc' is an array; private and firstprivate take scalars only"),
    ("#pragma xmp acc replicate (ptr)\n  { }", 16, 28, "'ptr' is a pointer"),
    ("#pragma xmp acc replicate (a)\n  {\n#pragma xmp acc replicate (a)\n  { }\n  }", 18, 28,
     "already replicated"),
    ("#pragma xmp acc replicate (a)\n  s = 1;", 16, 13, "must be followed by a compound statement"),
    ("#pragma xmp acc replicate (nothere)\n  { }", 16, 28, "'nothere' in acc replicate is not declared"),
    ("#pragma xmp acc replicate (a)\n  {\n#pragma xmp loop on t[i] acc\n"
     "  for (i = 0; i < N; i++) a[i] = loc[i];\n  }",
     19, 34, "array 'loc' is used in an acc loop but has no device copy"),
    ("#pragma xmp acc replicate (a)\n  {\n#pragma xmp loop on t[i] acc\n  for (i = 0; i < N; i++) {\n"
     "#pragma xmp template u[N]\n  a[i] = 1; }\n  }", 20, 9, "'template' directive inside an acc loop"),
]


@pytest.mark.parametrize("body,line,col,fragment", ACC_ERRORS)
def test_acc_diagnostics(tmp_path: Path, body: str, line: int, col: int, fragment: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(BASE.format(body=body))
    out = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(out))
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"{src}:{line}:{col}: error:"), r.stderr
    assert fragment in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert not out.exists()


def test_every_scalar_problem_of_an_acc_loop_is_reported(tmp_path: Path) -> None:
    body = ("#pragma xmp acc replicate (a)\n  {\n#pragma xmp loop on t[i] acc\n"
            "  for (i = 0; i < N; i++) { s = a[i]; k = 2; }\n  }")
    src = tmp_path / "prog.c"
    src.write_text(BASE.format(body=body))
    r = run_xmpacc(str(src), "-o", str(tmp_path / "prog"))
    assert r.returncode == 1
    assert "scalar 's' is assigned" in r.stderr and "scalar 'k' is assigned" in r.stderr


REPLICATED_REDUCTION = """\
#include <stdio.h>
#define N 40
double a[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
int main(void) {
  int i; double s = 1; int h[3] = {1, 0, 0};
#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) a[i] = i;
#pragma xmp acc replicate (a, s, h)
  {
#pragma xmp acc replicate_sync in (a)
#pragma xmp loop on t[i] reduction(+:s, h) acc
    for (i = 0; i < N; i++) { s += a[i]; h[i % 3] += 1; }
  }
#pragma xmp task on p[0]
  printf("%g %d %d %d\\n", s, h[0], h[1], h[2]);
  return 0;
}
"""


@pytest.fixture(scope="module")
def replicated_reduction(tmp_path_factory: pytest.TempPathFactory) -> Path:
    def make(tmp: Path) -> Path:
        src = tmp / "rr.c"
        src.write_text(REPLICATED_REDUCTION)
        r = run_xmpacc(str(src), "-o", str(tmp / "rr"))
        assert r.returncode == 0, r.stderr
        return tmp / "rr"

    return once(tmp_path_factory, "acc-replicated_reduction", make)


@pytest.mark.parametrize("nprocs", [1, 2])
def test_reduction_of_a_replicated_scalar_reaches_the_host(replicated_reduction: Path, nprocs: int) -> None:
    """XMP-ACC (reference §7.4): a loop ... acc reduction goes to the host variables, also
    when they are replicated, scalar and array (an OpenACC construct's would go to their
    device copies)."""
    r = run_mpi(nprocs, replicated_reduction, env={"XMPACC_DEVICE": "host"})
    assert r.returncode == 0, r.stderr
    assert r.stdout == "781 15 13 13\n"   # 1 + 0 + 1 + ... + 39; 1 + 14, 13, 13


# reflect_overlap.c: which reflects overlap the loop after them (--info says so), and the
# exchanges that ran overlapped (XMPACC_STATS), on the host backend
OVERLAPPED = {72: "1 below, 2 above", 91: "reads no shadow slot", 98: "1 below, 1 above",
              114: "1 below, 1 above", 121: "1 below, 1 above"}   # 121: XcalableACC
NOT_OVERLAPPED = (83, 107)   # the loop writes b; a[i / 2 * 2] is no i + c


@pytest.mark.parametrize("setting", ["1", "0", None])
def test_reflect_overlap_decisions(tmp_path: Path, setting: str | None,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """By default and with XMPACC_REFLECT_OVERLAP=1; with 0, none."""
    monkeypatch.delenv(OVERLAP_ENV, raising=False)
    r = run_xmpacc("tests/acc_programs/reflect_overlap.c", "-S", "--info", "-o", str(tmp_path / "ro"),
                   cwd=REPO, env={OVERLAP_ENV: setting} if setting is not None else None)
    assert r.returncode == 0, r.stderr
    found = re.finditer(r"reflect_overlap\.c:(\d+):\d+: info: (reflect.*)", r.stderr)
    lines = {int(m.group(1)): m.group(2) for m in found}
    assert sorted(lines) == sorted([*OVERLAPPED, *NOT_OVERLAPPED])
    for line, what in OVERLAPPED.items():
        assert ("overlapped" in lines[line] and what in lines[line]) == (setting != "0"), lines[line]
    for line in NOT_OVERLAPPED:
        assert "overlapped" not in lines[line], lines[line]
    host = (tmp_path / "ro.host.c").read_text()
    on = setting != "0"
    assert host.count("_xmpacc_reflect_acc_overlap(") == (6 if on else 0)
    assert host.count("_xmpacc_reflect_acc_join(") == (5 if on else 0)
    # the four loops that read shadow slots: split at run time, the rim behind the exchange
    assert host.count("_xmpacc_reflect_acc_split(") == (4 if on else 0)
    assert host.count("_xmpacc_reflect_acc_rim(") == (4 if on else 0)


@pytest.mark.mpi
@pytest.mark.parametrize("min_bytes", ["0", None])
def test_reflect_overlap_exchanges_at_the_rim(reduction_program: tuple[Path, str],
                                              min_bytes: str | None) -> None:
    """The host backend's C side holds the overlapped exchanges until the rim: 6 per step
    of 3, those of the first step in Python but for sweep 3's and sweep 7's, whose plans
    (c's, a's) sweep 1's join made.  With the default XMPACC_OVERLAP_BYTES its blocks are
    too small to overlap: every exchange is made at once and each loop is one launch."""
    exe, expected = reduction_program
    if exe.name != "reflect_overlap":
        pytest.skip("reflect_overlap.c only")
    env = {**HOST, "XMPACC_STATS": "1", **({OVERLAP_BYTES: min_bytes} if min_bytes else {})}
    r = run_mpi(2, exe, env=env)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected, rel=1e-12)
    stats = runtime_stats(r.stderr)
    assert len(stats) == 2 and all(s.get("overlapped_reflects", 0) == (14 if min_bytes else 0)
                                   for s in stats), stats


FIXED_ROW = """#define N 16
double a[N][N], b[N][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][*] onto p
#pragma xmp align a[i][j] with t[i][j]
#pragma xmp align b[i][j] with t[i][j]
#pragma xmp shadow a[1][0]
int main(void)
{
    int i = 5, j;
#pragma xmp acc replicate (a, b)
    {
#pragma xmp reflect (a) acc
#pragma xmp loop (j) on t[i][j] acc
        for (j = 0; j < N; j++)
            b[i][j] = a[i - 1][j];
    }
    return 0;
}
"""


def test_no_overlap_where_some_nodes_skip_the_loop(tmp_path: Path) -> None:
    """loop (j) on t[i][j] runs on the owners of row i only: the other nodes would never
    reach the join, so the reflect is not overlapped."""
    src = tmp_path / "fixed_row.c"
    src.write_text(FIXED_ROW)
    r = run_xmpacc(str(src), "-S", "--info", "-o", str(tmp_path / "fr"))
    assert r.returncode == 0, r.stderr
    assert "info: reflect (a) acc" in r.stderr and "overlapped" not in r.stderr
