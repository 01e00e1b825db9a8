"""XcalableACC data, async and XMP-on-device directives (XcalableACC.md §1, §3, §4) on the
host backend: programs of tests/xacc_programs/ under 1-4 processes against their serial
builds, the device semantics a GPU shows (stale copies without update), run-time and
compile-time errors, and the golden host C of a data program.  The same programs on the
cuda backend are marked ``gpu`` (skipped without a GPU).

    XMPACC_UPDATE_GOLDEN=1 pytest tests/test_xacc.py -k golden     # after a deliberate change
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import SharedBuilds, gpu_count, once, repo_builds, run_mpi, run_xmpacc, same_output
from test_samples import _without_version

PROGRAMS = Path(__file__).parent / "xacc_programs"
GOLDEN = Path(__file__).parent / "golden"
HOST = {"XMPACC_DEVICE": "host"}
CASES: dict[str, tuple[int, ...]] = {
    "data_regions.c": (1, 2, 3, 4),
    "enter_exit_sections.c": (1, 2, 3, 4),
    "xmp_on_device.c": (1, 2, 3, 4),
    "file_scope_declare.c": (1, 3),
    "reflect_orthogonal_acc.c": (4,),     # nodes p[2][2]
    "collectives_acc.c": (1, 2, 3, 4),
    "device_pointers.c": (1, 2, 4),        # deviceptr on compute constructs
    "openacc_api.c": (1, 2, 3, 4),         # the OpenACC runtime library (openacc.h)
    "conj_grad.c": (1, 2, 3, 4),           # NPB-CG's shape: the solver in a function of its own
    "jacobi_functions.c": (1, 2, 3, 4),    # reflect_init/do, async, gmove acc in called functions
    "stacked_constructs.c": (1, 2, 4),     # constructs stacked without braces (issue 30)
    "fixed_subscript_acc.c": (2, 4),       # nodes p[*][2]: loop (j) on t[i][j] runs on row i's owners
}
SPECIAL = {"device_semantics.c"}   # no serial oracle: expected lines below


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    return repo_builds(tmp_path_factory, "tests/xacc_programs", CASES)


@pytest.fixture(scope="module")
def device_semantics(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """device_semantics.c built once per test run."""
    def make(work: Path) -> Path:
        r = run_xmpacc(str(PROGRAMS / "device_semantics.c"), "-o", str(work / "prog"))
        assert r.returncode == 0, r.stderr
        return work / "prog"

    return once(tmp_path_factory, "xacc-device_semantics", make)


def test_every_program_is_listed() -> None:
    assert {p.name for p in PROGRAMS.glob("*.c")} == set(CASES) | SPECIAL


@pytest.mark.mpi
@pytest.mark.parametrize("name,nprocs", [(n, k) for n, ks in CASES.items() for k in ks])
def test_xacc_program_on_host_backend(built: dict[str, tuple[Path, str]], name: str, nprocs: int) -> None:
    exe, expected = built[name]
    r = run_mpi(nprocs, exe, env=HOST, timeout=60)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 3])
def test_host_backend_shows_what_a_gpu_shows(device_semantics: Path, nprocs: int) -> None:
    """Stale host data without update host, no copy back of copyin or of a present
    variable, update of global-index sections by their owners, and the present table
    shared with acc replicate (device_semantics.c explains each number)."""
    r = run_mpi(nprocs, device_semantics, env=HOST, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "28 328 1250 40 28 36 1000 -5 8 7\n"


HOST_DATA = """#include <stdio.h>
#include <xmp.h>
#define N 8
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N];
#pragma xmp align a[i] with t[i]
double v[4] = {1, 2, 3, 4};
static double sum(const double *d, int n) { double s = 0; for (int k = 0; k < n; k++) s += d[k]; return s; }
int main(void) {
  int i; double h, d, l;
#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) a[i] = 1;
#pragma acc data copyin(v, a)
  {
    v[0] = 100;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = 2;
#pragma acc host_data use_device(v, a)
    { d = sum(v, 4); l = a[0]; }
    h = sum(v, 4);
  }
  if (xmpc_node_num() == 0) printf("%.0f %.0f %.0f\\n", h, d, l);
  return 0;
}
"""


@pytest.mark.mpi
def test_host_data_names_the_device_copy_on_the_host_backend(tmp_path: Path) -> None:
    """Inside host_data the names are the device buffers (on a GPU, addresses for CUDA code
    only; the host backend's can be read, and hold the values copied in)."""
    src = tmp_path / "prog.c"
    src.write_text(HOST_DATA)
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(2, exe, env=HOST, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "109 10 1\n"


BASE = """#include <stdio.h>
#include <xmp.h>
#define N 8
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N];
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[1]
double v[N];
double x;
int main(void) {{
  int i;
{body}
  return 0;
}}
"""

RUN_ERRORS = [
    # (body, message fragment): each names the directive's line and the variable
    ("#pragma acc data present(a)\n  { }",
     "prog.c:14: error: 'a' in a present clause is not present on the device"),
    ("#pragma acc update host(v)",
     "prog.c:14: error: 'v' is not present on the device: 'acc update' needs it"),
    ("#pragma xmp bcast (x) acc", "prog.c:14: error: 'bcast ... acc' of 'x', which is not present"),
    ("#pragma xmp reflect_init (a) acc\n#pragma xmp reflect_do (a) acc",
     "prog.c:15: error: 'reflect_do ... acc' of 'a', which is not present on the device"),
    ("#pragma acc enter data copyin(v)\n#pragma acc exit data delete(v)\n#pragma acc update device(v)",
     "prog.c:16: error: 'v' is not present"),
    ("#pragma acc host_data use_device(v)\n  { }", "prog.c:14: error: 'v' in use_device is not present"),
    # no region around it here, and none in a caller: at run time (a caller's may hold it)
    ("#pragma xmp reflect (a) acc",
     "prog.c:14: error: 'reflect ... acc' of 'a', which is not present on the device"),
]


@pytest.mark.mpi
@pytest.mark.parametrize("body,fragment", RUN_ERRORS)
def test_run_time_errors_name_line_and_variable(tmp_path: Path, body: str, fragment: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(BASE.format(body=body))
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(2, exe, env=HOST, timeout=60)
    assert r.returncode != 0
    assert fragment in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


COMPILE_ERRORS = [
    # (body, line, column, fragment)
    ("#pragma acc data copyin(nothere)\n  { }", 14, 25, "'nothere' is not declared"),
    ("#pragma acc update host(x[0:2])", 14, 25, "'x' has 0 dimension(s) but 1 subscript(s) are given"),
    ("#pragma acc host_data use_device(x)\n  { }", 14, 34, "'x' is not an array or a pointer"),
    ("#pragma acc update device(v[0:20])", 14, 29, "out of bounds"),
    # a const variable's host memory may be read-only: nothing comes back into it
    ("  const double w[2] = {1, 2};\n#pragma acc data copy(w)\n  { }", 15, 23,
     "'w' is const: 'copy' would write its device copy back into it (const data only go to the device"),
    ("  const double w[2] = {1, 2};\n#pragma acc enter data copyin(w)\n#pragma acc update self(w)", 16, 25,
     "'w' is const: 'update self' would write its device copy back into it"),
    # a construct's statement: a line that is no construct (update) is not one, nor the block's end
    ("#pragma acc data copy(v)\n#pragma acc update host(v)", 14, 13,
     "'acc data' must be followed by a statement"),
    ("  {\n#pragma acc data copy(v)\n#pragma acc host_data use_device(v)\n  }", 16, 13,
     "'acc host_data' must be followed by a statement"),
    ("  const double w[2] = {1, 2};\n#pragma acc exit data copyout(w)", 15, 31,
     "'w' is const: 'copyout' would write its device copy back into it"),
]


@pytest.mark.parametrize("body,line,col,fragment", COMPILE_ERRORS)
def test_compile_errors_at_their_column(tmp_path: Path, body: str, line: int, col: int,
                                        fragment: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(BASE.format(body=body))
    r = run_xmpacc(str(src), "-o", str(tmp_path / "prog"))
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"{src}:{line}:{col}: error:"), r.stderr
    assert fragment in r.stderr, r.stderr
    assert not (tmp_path / "prog").exists()


def test_golden_host_c_of_a_data_program(built: SharedBuilds) -> None:
    """data, update (sections too), enter/exit data, declare, host_data, wait as runtime calls."""
    exe, _ = built["enter_exit_sections.c"]   # --keep, from the repository root
    text = exe.with_suffix(".host.c").read_text()
    golden = GOLDEN / "xacc_enter_exit_sections.host.c"
    if os.environ.get("XMPACC_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert golden.exists(), f"no golden file {golden}: run with XMPACC_UPDATE_GOLDEN=1"
    assert _without_version(text) == _without_version(golden.read_text())


@pytest.fixture(scope="module")
def stacked_kept(built: SharedBuilds) -> Path:
    """The folder of stacked_constructs.c's generated files (--keep, compiled once)."""
    return built["stacked_constructs.c"][0].parent


@pytest.mark.parametrize("suffix", [".host.c", ".cu"])
def test_golden_code_of_stacked_constructs(stacked_kept: Path, suffix: str) -> None:
    """stacked_constructs.c: each construct stacked without braces is lowered as the same
    construct with its statement in braces would be (acc_compute, acc_data)."""
    text = (stacked_kept / f"stacked_constructs{suffix}").read_text()
    golden = GOLDEN / f"xacc_stacked_constructs{suffix}"
    if os.environ.get("XMPACC_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert golden.exists(), f"no golden file {golden}: run with XMPACC_UPDATE_GOLDEN=1"
    assert _without_version(text) == _without_version(golden.read_text())


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("name,nprocs", [(n, k) for n, ks in CASES.items() for k in (1, 2, 4) if k in ks])
def test_xacc_program_on_gpu(built: dict[str, tuple[Path, str]], name: str, nprocs: int) -> None:
    exe, expected = built[name]
    r = run_mpi(nprocs, exe, env={"XMPACC_DEVICE": "cuda"}, timeout=300)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("nprocs", [1, 2])
def test_gpu_shows_the_same_device_semantics(device_semantics: Path, nprocs: int) -> None:
    r = run_mpi(nprocs, device_semantics, env={"XMPACC_DEVICE": "cuda"}, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "28 328 1250 40 28 36 1000 -5 8 7\n"
