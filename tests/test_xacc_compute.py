"""XcalableACC compute constructs (XcalableACC.md §2): ``acc parallel loop``, ``kernels
loop``, ``parallel``/``kernels`` regions with ``acc loop``, with and without an XMP loop.

The programs of tests/xacc_compute/ run on the host backend under mpirun and print what
their serial builds (cc, pragmas ignored) print; the generated host C and .cu of basic.c
are golden (``XMPACC_UPDATE_GOLDEN=1`` rewrites them, compiled from the repository root
with a relative path so that the #line markers do not depend on the machine); the
mistakes are reported at their column.  The GPU runs are marked ``gpu``.
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
    SharedBuilds,
    gpu_count,
    nvcc_compile,
    repo_builds,
    run_mpi,
    run_source,
    run_xmpacc,
    runtime_stats,
    same_output,
    serial_output,
)

PROGRAMS = Path(__file__).parent / "xacc_compute"
GOLDEN = Path(__file__).parent / "golden"
HOST = {"XMPACC_DEVICE": "host"}
# a test on both backends; the cuda one is a GPU test
BACKENDS = [pytest.param(HOST, id="host"),
            pytest.param({"XMPACC_DEVICE": "cuda"}, id="cuda",
                         marks=[pytest.mark.gpu,
                                pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")])]
CASES = {"basic.c": (1, 2, 3, 4), "ops.c": (2, 4), "atomics.c": (1, 2), "async_compute.c": (1, 2, 3),
         "region_statements.c": (1, 2, 3), "call_sites.c": (1, 2), "cyclic_w.c": (1, 2, 3, 4),
         "deferred_reductions.c": (1, 2, 3, 4), "margin_peel.c": (1, 2, 3, 4),
         "private_sections.c": (1, 2, 3), "kernels_auto.c": (1, 2, 3),
         "clause_sections.c": (1, 2, 3, 4), "locations.c": (1, 2, 3, 4), "region_scalars.c": (1, 2, 3),
         "array_reductions.c": (1, 2, 3, 4), "user_types.c": (1, 2, 3, 4), "c_math.c": (1,),
         "c_dialect.c": (1, 2, 3), "routine_globals.c": (1, 2, 3), "reduction_targets.c": (1, 2, 3, 4),
         "device_loop_reductions.c": (1, 2, 3, 4), "routine_pointers.c": (1, 2, 4),
         "xmp_loops_in_regions.c": (1, 2, 3, 4), "const_tables.c": (1, 2, 3, 4),
         "jumps_and_bools.c": (1,), "variable_rows.c": (1, 2, 3, 4), "derefs.c": (1, 2, 3, 4),
         "private_blocks.c": (1, 2, 3, 4), "routine_bodies.c": (1, 2, 3, 4),
         "dynamic_templates.c": (1, 2, 3, 4), "members.c": (1, 2, 3, 4), "waits_on_device.c": (1, 2, 3, 4),
         "wrapped_waits.c": (1, 2), "private_two_queues.c": (1, 2, 3)}



@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    # relative to the repository: the generated files' #line names are those of the goldens
    return repo_builds(tmp_path_factory, "tests/xacc_compute", CASES)


@pytest.mark.mpi
@pytest.mark.parametrize("name,nprocs", [(n, p) for n, counts in CASES.items() for p in counts])
def test_compute_program_on_host_backend(built: dict[str, tuple[Path, str]], name: str, nprocs: int) -> None:
    exe, expected = built[name]
    r = run_mpi(nprocs, exe, env=HOST)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("name,nprocs", [(n, p) for n, counts in CASES.items() for p in counts])
def test_compute_program_on_gpu(built: dict[str, tuple[Path, str]], name: str, nprocs: int) -> None:
    exe, expected = built[name]
    r = run_mpi(nprocs, exe, env={"XMPACC_DEVICE": "cuda"})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


@pytest.mark.parametrize("suffix", [".cu", ".host.c"])
@pytest.mark.parametrize("name", ["basic.c", "cyclic_w.c", "margin_peel.c", "kernels_auto.c",
                                  "private_sections.c",
                                  "locations.c", "region_scalars.c", "array_reductions.c",
                                  "device_loop_reductions.c", "variable_rows.c", "derefs.c",
                                  "private_blocks.c", "routine_bodies.c", "dynamic_templates.c", "members.c"])
def test_golden_generated_code(built: dict[str, tuple[Path, str]], name: str, suffix: str) -> None:
    exe, _ = built[name]
    # the version
    text = re.sub(r"xmpacc [0-9][\w.+-]*", "xmpacc", exe.with_suffix(suffix).read_text(), count=1)
    assert str(REPO) not in text, "a machine-dependent path in the generated code"
    golden = GOLDEN / f"xacc_compute_{Path(name).stem}{suffix}"
    if os.environ.get("XMPACC_UPDATE_GOLDEN"):
        golden.write_text(text)
    assert golden.exists(), f"no golden file {golden}: run with XMPACC_UPDATE_GOLDEN=1"
    assert text == golden.read_text()


def test_one_kernel_generator_lane_split_inner_vector_reduction(built: dict[str, tuple[Path, str]]) -> None:
    """The inner 'acc loop vector reduction(+:r)' is shared by lanes, like an XMP-ACC loop's."""
    exe, _ = built["basic.c"]
    cu = exe.with_suffix(".cu").read_text()
    kernel = cu[cu.index("_XMPACC_KERNEL _xmpacc_loop_basic_c_43("):]
    kernel = kernel[:kernel.index("#ifndef __CUDACC__")]
    assert "_xmpacc_lanes_arg" in kernel and "_XMPACC_LANES_SUM(r, _xmpacc_lanes);" in kernel


VECTOR_NEST = """\
#include <stdio.h>
#define N 8
#define M 16
float a[N][M], g;
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i][*] with t[i]
int main(void)
{
    int i, k;
    float s0;
#pragma xmp loop on t[i] reduction(+:g)
#pragma acc parallel loop reduction(+:g) copy(a)
    for (i = 0; i < N; i++) {
#pragma acc loop vector reduction(+:g) private(s0)
        for (k = 0; k < M; k++) {
            s0 = a[i][k] * 2.0f;
            g += s0;
        }
    }
#pragma xmp task on p[0]
    printf("g = %.1f\\n", g);
    return 0;
}
"""


def test_inner_vector_loop_joins_the_thread_space(tmp_path: Path) -> None:
    """An inner 'acc loop vector' over the whole body is the kernel's innermost thread
    dimension (coalesced along k, as an OpenACC compiler maps vector), not a loop per thread."""
    src = tmp_path / "vec.c"
    src.write_text(VECTOR_NEST)
    r = run_xmpacc(str(src), "-S", "-o", str(tmp_path / "vec"))
    assert r.returncode == 0, r.stderr
    cu = (tmp_path / "vec.cu").read_text()
    head = cu[cu.index("_XMPACC_KERNEL "):]
    head = head[:head.index("{")]   # the kernel's signature
    assert "_xmpacc_sched_t _xmpacc_s_i" in head and "_xmpacc_sched_t _xmpacc_s_k" in head


# ------------------------------------------------------------------ mistakes

BASE = """\
#include <stdio.h>
#define N 16
double a[N], b[N], c[N];
double *ptr;
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
double helper(double x) {{ return x; }}
int main(void) {{
  int i, j; double s = 0;
{body}
  return 0;
}}
"""

ERRORS = [
    # (body, line, column, fragment)
    ("#pragma acc parallel loop\n  for (i = 0; i < N; i++) s = c[i];", 14, 27,
     "scalar 's' is assigned in the acc loop"),
    ("#pragma acc parallel loop copy(ptr)\n  for (i = 0; i < N; i++) c[i] = 1;", 13, 32,
     "'ptr' is a pointer of unknown extent: name it with its extent, copy(ptr[0:n])"),
    ("#pragma acc parallel loop collapse(2)\n  for (i = 0; i < N; i++) c[i] = 1;", 13, 36,
     "collapse(2) needs 2 perfectly nested for loops, found 1"),
    ("#pragma acc parallel loop collapse(2)\n  for (i = 0; i < N; i++)\n"
     "    for (j = i; j < N; j++) c[j] = 1;",
     15, 5, "the bounds of loop 'j' depend on 'i'"),
    ("#pragma acc parallel loop\n  for (i = 0; i < N; i++) {\n#pragma xmp barrier\n  c[i] = 1; }", 15, 9,
     "XMP directives are not allowed inside an acc loop"),
    ("#pragma acc parallel loop\n  for (i = 0; i < N; i++) c[i] = helper(1.0);", 14, 34, "call of 'helper'"),
    ("#pragma acc parallel copy(c)\n  {\n  double t[2] = {[1] = c[0]};\n  }", 15, 10,
     "an array declared in 'acc parallel' with an initializer that reads device data names its elements in "
     "order, in braces for each dimension"),
    ("#pragma acc parallel\n  {\n  double t[i];\n  }", 15, 10,
     "an array declared in 'acc parallel' needs constant extents"),
    ("#pragma acc parallel\n  {\n#pragma acc wait\n  s += 1;\n  }", 15, 13,
     "'acc wait' is not allowed inside an OpenACC compute construct ('acc parallel')"),
    ("#pragma acc parallel\n  {\n#pragma xmp barrier\n  s += 1;\n  }", 15, 13,
     "'xmp barrier' is not allowed inside an OpenACC compute construct ('acc parallel'): "
     "of the XMP directives only loop may stand there"),
    ("#pragma acc parallel\n  {\n#pragma acc atomic\n  }", 15, 13,
     "'acc atomic' must be followed by a statement"),
    # a construct applies to any statement (issue 30: 'acc parallel' + 's = 1;' compiles), but
    # there must be one; a combined construct's is a for loop
    ("  {\n#pragma acc parallel\n  }", 14, 13, "'acc parallel' must be followed by a statement"),
    ("  {\n#pragma acc data copy(c)\n#pragma acc parallel\n  }", 15, 13,
     "'acc parallel' must be followed by a statement"),
    ("#pragma acc parallel loop\n  { c[0] = 1; }", 13, 13,
     "'acc parallel loop' must be followed by a for loop"),
    ("#pragma acc kernels loop\n#pragma acc loop\n  for (i = 0; i < N; i++) c[i] = 1;", 13, 13,
     "'acc kernels loop' must be followed by a for loop"),
    # an XMP loop pairs with a loop construct only: 'parallel' + for is no for loop
    ("#pragma xmp loop on t[i]\n#pragma acc parallel\n  for (i = 0; i < N; i++) a[i] = 1;", 13, 13,
     "the loop directive must be followed by a for statement"),
    ("#pragma acc parallel loop default(none)\n  for (i = 0; i < N; i++) c[i] = 1;", 14, 27,
     "array 'c' is not named in a data clause of 'acc parallel loop', which has default(none)"),
    ("#pragma acc parallel loop\n  for (i = 0; i < N; i++) {\n#pragma acc data copy(b)\n  { c[i] = 1; } }",
     15, 13,
     "'acc data' is not allowed inside a kernel (an OpenACC compute construct or an XMP-ACC 'loop ... acc')"),
    ("#pragma xmp loop on t[j]\n#pragma acc parallel loop\n  for (i = 0; i < N; i++) {\n    c[i] = 0;\n"
     "    for (j = 0; j < N; j++) a[j] = 1; }", 13, 13,
     "cannot find the loop statement of index 'j' in the loop nest (the loops an XMP loop distributes are "
     "perfectly nested, under an OpenACC construct too)"),
    ("#pragma acc parallel loop deviceptr(c)\n  for (i = 0; i < N; i++) c[i] = 1;", 13, 37,
     "deviceptr takes pointer variables that hold device addresses; 'c' is not one"),
    ("#pragma acc parallel loop\n  for (i = 0; i < N; i++) {\n#pragma acc atomic capture\n  c[i] += 1; }", 15,
     13, "this is not a form of 'acc atomic capture': OpenACC's are v = u, with u one of x++"),
    ("#pragma acc parallel loop\n  for (i = 0; i < N; i++) {\n#pragma acc atomic capture\n"
     "  { c[i] += 1; c[i] += 2; } }", 15, 13,
     "this is not a form of 'acc atomic capture': OpenACC's are {v = x; x op= e;}"),
    ("#pragma acc parallel loop private(ptr[0:0])\n  for (i = 0; i < N; i++) c[i] = 1;", 13, 35,
     "private subarray 'ptr[0:0]' of a pointer: the base must be >= 0 and the length >= 1"),
    ("#pragma acc parallel loop private(ptr[2:])\n  for (i = 0; i < N; i++) c[i] = 1;", 13, 35,
     "private subarray 'ptr[...]' of a pointer needs a length: 'ptr[lo:len]'"),
    ("#pragma acc loop\n  for (i = 0; i < N; i++) c[i] = 1;", 13, 13,
     "'acc loop' outside an OpenACC compute construct: put the loop inside 'acc parallel' or 'acc kernels', "
     "or write 'acc parallel loop'"),
    ("#pragma acc atomic update\n  s = s * 2 + 1;", 13, 13, "this is not a form of 'acc atomic update'"),
    ("  {\n#pragma acc atomic\n  }", 14, 13, "'acc atomic' must be followed by a statement"),
    ("#pragma acc routine seq\n  int nope;", 13, 13,
     "'acc routine' must stand before a function definition or prototype"),
    ("#pragma acc parallel loop firstprivate(ptr[-1:2])\n  for (i = 0; i < N; i++) c[i] = ptr[0];", 13, 40,
     "firstprivate subarray 'ptr[-1:2]' of a pointer: the base must be >= 0 and the length >= 1"),
    ("#pragma acc parallel loop private(s[0])\n  for (i = 0; i < N; i++) c[i] = 1;", 13, 35,
     "private 's' with a subscript: 's' is not an array or a pointer"),
    ("#pragma acc parallel loop\n  for (i = 0; i < N; i++) {\n#pragma acc atomic\n  c[i] = c[i] * c[i]; }",
     15, 13, "this is not a form of 'acc atomic update': OpenACC's are x++, x--"),
]


@pytest.mark.parametrize("body,line,col,fragment", ERRORS)
def test_compute_diagnostics(tmp_path: Path, body: str, line: int, col: int, fragment: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(BASE.format(body=body))
    out = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(out))
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"{src}:{line}:{col}: error:"), r.stderr
    assert fragment in r.stderr, r.stderr
    assert "not supported yet" not in r.stderr or "not supported yet" in fragment, r.stderr
    assert "Traceback" not in r.stderr
    assert not out.exists()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_routine_storing_through_an_element_pointer_compiles_with_nvcc(built: dict[str, tuple[Path, str]],
                                                                      tmp_path: Path) -> None:
    """routine_pointers.c: add(&r[it][x], &q[..], ...) stores into r through its first
    parameter, so the kernel's r is not const (NVRTC rejects passing a const pointer
    there); q goes to pointer-to-const parameters and stays const."""
    exe, _ = built["routine_pointers.c"]
    cu = exe.with_suffix(".cu").read_text()
    assert "quark_t * _XMPACC_RESTRICT r," in cu and "const quark_t * _XMPACC_RESTRICT q," in cu
    r = nvcc_compile(exe.with_suffix(".cu"), tmp_path / "k.o")
    assert r.returncode == 0, r.stderr



@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_variable_rows_compile_with_nvcc(built: dict[str, tuple[Path, str]], tmp_path: Path) -> None:
    """variable_rows.c: a kernel takes an array of variable-length rows as its elements'
    address and row extents, and declares it again as _xmpacc_vla (kernel_vla.py) in CUDA."""
    exe, _ = built["variable_rows.c"]
    cu = exe.with_suffix(".cu").read_text()
    assert "int *_xmpacc_v_c, long long _xmpacc_x_c_1, long long _xmpacc_x_c_2" in cu
    assert "_xmpacc_vla<int, 2> c(_xmpacc_v_c, _xmpacc_x_c_1, _xmpacc_x_c_2);" in cu
    assert "int (*c)[_xmpacc_x_c_1][_xmpacc_x_c_2] = (void *) _xmpacc_v_c;" in cu
    host = exe.with_suffix(".host.c").read_text()
    assert "(long long){(long long) ((sizeof(c[0][0])) / (sizeof(c[0][0][0])))}" in host
    r = nvcc_compile(exe.with_suffix(".cu"), tmp_path / "k.o")
    assert r.returncode == 0, r.stderr


RUN_TIME_ERRORS = [
    # (body, processes, what the run-time error says at line 13)
    ("#pragma acc parallel loop present(c)\n  for (i = 0; i < N; i++) c[i] = 1;", 2,
     "'c' is not present on the device (present clause)"),
    # a pointer a construct uses in no clause is the present data it points into (an
    # enclosing 'acc data copy(p[0:n])'); absent, an error
    ("#pragma acc parallel loop\n  for (i = 0; i < N; i++) c[i] = ptr[i];", 1,
     "pointer 'ptr' of unknown extent is not present on the device: name it in a data "
     "clause with its extent, copy(ptr[0:n])"),
    ("#pragma acc wait(devnum: N : 1)", 1, "wait(devnum: 16): this node has device 0"),
]


@pytest.mark.parametrize("body,nprocs,fragment", RUN_TIME_ERRORS)
def test_run_time_errors(tmp_path: Path, body: str, nprocs: int, fragment: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(BASE.format(body=body))
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(nprocs, exe, env=HOST)
    assert r.returncode != 0
    assert "prog.c:13" in r.stderr and fragment in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


KERNELS_LOOPS = [
    # (loop in 'acc kernels', what --info says of it; None: no analysis)
    ("for (i = 0; i < N; i++) c[i] = a[i] + b[i];", "iterations independent: one GPU thread per iteration"),
    ("for (i = 0; i < N; i++) { j = i * 2; c[i] = j; }",
     "iterations independent: one GPU thread per iteration (private j)"),
    ("for (i = 0; i < N; i++) { s -= c[i]; }", "(reduction(+: s))"),
    ("for (i = 1; i < N; i++) c[i] = c[i - 1];", "'c' is written, and not every access to it has 'i' alone"),
    ("for (i = 0; i < N; i++) { if (c[i] > 3) break; c[i] = 1; }",
     "runs in order in one GPU thread: it has a 'break'"),
    ("for (i = 0; i < N; i++) for (j = 0; j < N; j++) { if (j > i) break; c[i] += 1; }",
     "iterations independent"),
    ("for (i = 0; i < N; i++) { c[i] = 1; i += 0; }", "it assigns its control variable 'i'"),
    ("for (i = 0; i < N; i++) { s = s * 2 + c[i]; }", "the scalar 's' carries a value from one iteration"),
    ("for (i = 0; i < N; i++) { double *q = &c[i]; q[0] = 1; }", "it takes the address of an array element"),
    ("for (i = 0; i < N; i++) { ptr = c; }", "is used other than through subscripts"),
    ("for (i = 0; i * i < N; i++) c[i] = 1;", "runs in order in one GPU thread: it is not a counted loop"),
    ("for (i = 0; i < N; i++) { struct { double v[2]; } w; w.v[0] = c[i]; c[i] = w.v[0]; }",
     "it stores through 'w.v'"),
    # 'kernels loop' and 'acc loop' without independent are 'auto' too; collapse(2) asks for both loops
    ("#pragma acc loop\n  for (i = 1; i < N; i++) c[i] = c[i - 1];", "runs in order in one GPU thread"),
    ("#pragma acc loop collapse(2)\n  for (i = 0; i < 4; i++) for (j = 0; j < 4; j++) c[i] = j;",
     "'c' is written, and not every access to it has 'j' alone"),
    ("#pragma acc loop independent\n  for (i = 1; i < N; i++) c[i] = c[i - 1];", None),
]


@pytest.mark.parametrize("loop,remark", KERNELS_LOOPS)
def test_kernels_loop_without_acc_loop(tmp_path: Path, loop: str, remark: str | None) -> None:
    """acc_kernels_auto.py's verdict on a for loop of 'acc kernels' without 'acc loop'."""
    src = tmp_path / "prog.c"
    src.write_text(BASE.format(body=f"#pragma acc kernels copy(c)\n  {{\n  {loop}\n  }}"))
    r = run_xmpacc(str(src), "--info", "-o", str(tmp_path / "prog"))
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if "info: for: in 'acc kernels'" in ln]
    if remark is None:   # independent: the programmer's word, no analysis
        assert not lines, lines
        return
    assert len(lines) == 1 and remark in lines[0], lines


@pytest.mark.parametrize("source,line,col,fragment", [
    ("double h(double x) { return x; }\n#pragma acc routine seq\ndouble f(double x) { return h(x); }\n", 3,
     29, "call of 'h' in 'acc routine' function 'f'"),
    # one mistake, one message: the loop line of a routine that failed its checks is no orphan
    ("double h(double x) { return x; }\n#pragma acc routine seq\ndouble f(double *x) {\n"
     "  double t = 0; int k;\n"
     "#pragma acc loop seq\n  for (k = 0; k < 4; k++) t += h(x[k]);\n  return t; }\n", 6, 32,
     "call of 'h' in 'acc routine' function 'f'"),
    ("double g;\n#pragma acc routine seq\ndouble f(double x) { g = x; return x; }\n", 3, 22,
     "'acc routine' function 'f' assigns the file-scope scalar 'g': a routine gets its value"),
    ("#define N 8\ndouble d[N];\n#pragma xmp nodes p[*]\n#pragma xmp template t[N]\n"
     "#pragma xmp distribute t[block] onto p\n#pragma xmp align d[i] with t[i]\n"
     "#pragma acc routine seq\ndouble f(int i) { return d[i]; }\n", 8, 26,
     "'acc routine' function 'f' uses the distributed array 'd': pass its elements as arguments"),
    ("#pragma acc routine seq\nint k;\n", 1, 13, "'acc routine' must stand before a function definition"),
    ("#pragma acc routine seq\ndouble f(int n) { double t[n]; t[0] = n; return t[0]; }\n", 2, 26,
     "'t' is a variable-length array in 'acc routine' function 'f': "
     "arrays declared in GPU code need constant"),
    ("#pragma acc routine seq\ndouble f(long double x) { return x; }\n", 2, 22,
     "'x' has type 'long double' in 'acc routine' function 'f': GPUs have no long double"),
    ("#pragma acc routine seq\ndouble f(double *x) {\n  double t = 0; int k;\n"
     "#pragma acc loop vector reduction(+:t)\n"
     "  for (k = 0; k < 4; k++) t += x[k];\n  return t; }\n", 4, 18,
     "'acc loop vector' in 'acc routine seq' function 'f': a seq routine runs in one "
     "thread of the kernel that calls it, so its loops are seq"),
    ("#pragma acc routine seq\nvoid f(int *h) {\n#pragma acc atomic update\n  h[0] = h[0] * h[1] - 3; }\n", 3,
     13, "this is not a form of 'acc atomic update'"),
    ("#pragma acc routine seq\nvoid f(int *h) {\n#pragma acc loop seq\n  h[0] = 1; }\n", 3, 13,
     "'acc loop' must be followed by a for loop"),
    ("double a[4];\n#pragma acc enter data copyin(a)\n", 2, 13,
     "the 'acc enter data' directive must be inside a function (at file scope: 'acc "
     "declare' and 'acc routine')"),
    ("#pragma acc routine(nowhere) seq\n", 1, 13,
     "'acc routine' function 'nowhere' is neither defined nor declared in this file"),
    ("#include <stdlib.h>\n#pragma acc routine seq\ndouble other(div_t d);\n", 2, 13,
     "'acc routine' function 'other' of another file has a parameter or result of type "
     "'div_t', which the GPU kernel file cannot declare (a type of a system header"),
])
def test_routine_diagnostics(tmp_path: Path, source: str, line: int, col: int, fragment: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(source + "int main(void) { return 0; }\n")
    r = run_xmpacc(str(src), "-o", str(tmp_path / "prog"))
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"{src}:{line}:{col}: error:"), r.stderr
    assert fragment in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_atomic_forms_compile_with_nvcc(built: dict[str, tuple[Path, str]], tmp_path: Path) -> None:
    """The compare-and-swap forms of acc atomic update/capture (acc_atomic.py) in CUDA."""
    exe, _ = built["atomics.c"]
    cu = exe.with_suffix(".cu").read_text()
    assert "s = _XMPACC_RMW_ADD(counter[0], 1, 0);" in cu and "sw = _XMPACC_RMW_SWAP(last[0], i);" in cu
    assert "fl = _XMPACC_RMW_RSUB(xr[0], 3, 1);" in cu and "_XMPACC_ATOMIC_ADD(fsub[0], -0.5f);" in cu
    r = nvcc_compile(exe.with_suffix(".cu"), tmp_path / "k.o")
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_location_reductions_compile_with_nvcc(built: dict[str, tuple[Path, str]], tmp_path: Path) -> None:
    """locations.c: the per-warp records of the reductions with location variables in CUDA;
    the construct's own reduction(max: v) gives way to the XMP firstmax of v (no partials)."""
    exe, _ = built["locations.c"]
    cu = exe.with_suffix(".cu").read_text()
    assert "_xmpacc_red_v" not in cu and "long long *_xmpacc_lkp_0, double *_xmpacc_lvp_0_0" in cu
    r = nvcc_compile(exe.with_suffix(".cu"), tmp_path / "k.o")
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_array_reductions_compile_with_nvcc(built: dict[str, tuple[Path, str]], tmp_path: Path) -> None:
    """array_reductions.c: the atomic updates of the reduction arrays' temporaries in CUDA;
    the implicit data of the constructs leave them out (no device copy of a reduction array)."""
    exe, _ = built["array_reductions.c"]
    cu = exe.with_suffix(".cu").read_text()
    assert "_XMPACC_ATOMIC_ADD(_xmpacc_ra_part[v[i] % 6], v[i]);" in cu \
        and "_XMPACC_RMW_MIN(_xmpacc_ra_mn" in cu
    host = exe.with_suffix(".host.c").read_text()
    assert '(const char *[]){"v"}' in host and '{"whole"}' not in host and '{"part"}' not in host
    r = nvcc_compile(exe.with_suffix(".cu"), tmp_path / "k.o")
    assert r.returncode == 0, r.stderr


RUN_TIME_ERRORS = [
    # a reduction section of which a data region put only some elements on the device:
    # neither the device copy nor a temporary holds them all
    ("  int h[4] = {0}, *q = h;\n#pragma acc data copy(q[0:2])\n  {\n"
     "#pragma acc parallel loop reduction(+: q[0:4])\n"
     "  for (i = 0; i < N; i++) q[i % 4]++;\n  }", 1,
     "prog.c:16: error: a reduction array of this acc loop is only partly on the device ('q')"),
    # XcalableACC's 'acc' on an XMP loop's reduction: the variables must be on the device
    ("#pragma xmp loop on t[i] reduction(+: s) acc\n#pragma acc parallel loop\n"
     "  for (i = 0; i < N; i++) s += a[i];", 2,
     "prog.c:13: error: 'loop ... reduction(...) acc' of 's', which is not present on the device"),
]


@pytest.mark.parametrize("body,nprocs,fragment", RUN_TIME_ERRORS)
def test_reduction_run_time_errors(tmp_path: Path, body: str, nprocs: int, fragment: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(BASE.format(body=body))
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(nprocs, exe, env=HOST)
    assert r.returncode != 0
    assert fragment in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_async_compute_constructs_launch_on_their_queue(built: dict[str, tuple[Path, str]]) -> None:
    """async(n): the kernels between queue_begin/queue_end (runtime/acc_compute.py puts
    them on queue n's stream); wait(n): a wait before the construct's data region."""
    exe, _ = built["async_compute.c"]
    host = [ln.strip() for ln in exe.with_suffix(".host.c").read_text().splitlines()
            if not ln.startswith("#line")]
    at = host.index('_xmpacc_acc_wait("async_compute.c:34", 1, (const long long []){(long long) 1});')
    assert host[at + 1].startswith("int _xmpacc_acc_") and "_xmpacc_acc_compute_begin(" in host[at + 1]
    assert host[at + 2] == '_xmpacc_acc_queue_begin("async_compute.c:34", (long long) 2);'
    assert '_xmpacc_acc_queue_begin("async_compute.c:45", -2);' in host   # async without a queue
    assert host.count("_xmpacc_acc_queue_end();") == 6
    assert '_xmpacc_acc_wait_devnum("async_compute.c:50", (long long) 0, 1, ' \
        '(const long long []){(long long) 4});' in host


FIRSTPRIVATE = """\
#include <stdio.h>
#define N 8
double c[N];
int main(void)
{
    int i;
    double x = 1.5;
#pragma acc parallel copy(c)
    {
        x = 2 * x;
        int n = N - 2;
#pragma acc loop
        for (i = 0; i < n; i++) c[i] = x * i;
    }
    printf("%.1f %.1f %.1f\\n", x, c[1], c[N - 1]);
    return 0;
}
"""


@pytest.mark.mpi
def test_region_scalars_are_firstprivate(tmp_path: Path) -> None:
    """Statements on scalars in 'acc parallel' run on the host on a copy: the loop sees
    x = 3, the host's x stays 1.5 (OpenACC's firstprivate), which a serial build cannot show."""
    assert run_source(tmp_path, "fp", FIRSTPRIVATE, HOST) == "1.5 3.0 0.0\n"


DEVICE_ASSIGNED = """\
#include <stdio.h>
double c[4] = {1, 2, 3, 4};
int main(void) {
    double m = -1, k = -1;
#pragma acc parallel copy(c)
    {
        m = c[2];
        c[0] = m;
    }
#pragma acc kernels copy(c)
    {
        k = c[3];
        c[1] = k;
    }
    printf("%.1f %.1f %.1f %.1f\\n", m, k, c[0], c[1]);
    return 0;
}
"""


def test_scalars_assigned_on_the_device_follow_openacc(tmp_path: Path) -> None:
    """A scalar a device statement assigns lives on the device for the construct: in
    'parallel' it is firstprivate (the host's m stays -1), in 'kernels' copied back (k = 4),
    as OpenACC 2.5 says; the statements after it see the device value either way."""
    assert run_source(tmp_path, "da", DEVICE_ASSIGNED, HOST) == "-1.0 4.0 3.0 4.0\n"


FIRSTPRIVATE_ARRAYS = """\
#include <stdio.h>
#define N 16
double a[N];
int main(void) {
  int i; double tmp[3] = {1, 2, 3}; double g[2][2] = {{1, 2}, {3, 4}};
#pragma acc parallel loop firstprivate(tmp, g[0:2][:]) copyout(a)
  for (i = 0; i < N; i++) {
    tmp[i % 3] += i;
    g[1][1] *= 2;
    a[i] = tmp[0] + tmp[1] + tmp[2] + g[1][1];
  }
  double s = 0;
  for (i = 0; i < N; i++) s += a[i];
  printf("%g %g %g\\n", s, tmp[0], g[1][1]);
  return 0;
}
"""


FIRSTPRIVATE_PRESENT = """#include <stdio.h>
int main(void) {
  int i; double x = 1, out[8];
#pragma acc data copy(x) create(out)
  {
#pragma acc parallel loop firstprivate(x)
    for (i = 0; i < 8; i++) { x = x + i; out[i] = x; }
#pragma acc update host(out, x)
  }
  printf("%g %g %g\\n", out[0], out[7], x);
  return 0;
}
"""


@pytest.mark.parametrize("env", BACKENDS)
def test_firstprivate_scalar_with_a_device_copy_is_each_threads_own(tmp_path: Path,
                                                                    env: dict[str, str]) -> None:
    """firstprivate(x) where a data region holds x on the device: each iteration's copy
    starts from the encountering thread's value (OpenACC), and the device copy stays 1
    (it was one copy that every thread wrote: 1 29 29)."""
    assert run_source(tmp_path, "fpp", FIRSTPRIVATE_PRESENT, env) == "1 8 1\n"


@pytest.mark.parametrize("env", BACKENDS)
def test_firstprivate_arrays_start_from_the_host_values(tmp_path: Path, env: dict[str, str]) -> None:
    """firstprivate(tmp) of a C array (a subarray names the array): each iteration's copy
    starts from the construct's start value (a[i] = 6 + i + 8), the host's stays; a serial
    build cannot show it (its iterations share tmp)."""
    assert run_source(tmp_path, "fpa", FIRSTPRIVATE_ARRAYS, env) == "344 1 4\n"


PRIVATE_BLOCKS = """\
#include <stdio.h>
#define N 12
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double w[N], b[N], u[N], b2[N];
#pragma xmp align w[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp align u[i] with t[i]
#pragma xmp align b2[i] with t[i]
#pragma xmp shadow w[1]
int main(void) {
  int i;
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) { w[i] = i; u[i] = 1; b[i] = 0; b2[i] = 0; }
#pragma acc data copy(w, b, u, b2)
  {
#pragma xmp reflect (w) acc
#pragma xmp loop on t[i]
#pragma acc parallel loop firstprivate(w)
    for (i = 1; i < N; i++) { w[i] += 100; b[i] = w[i] + w[i - 1]; }
#pragma xmp loop on t[i]
#pragma acc parallel loop private(u)
    for (i = 0; i < N; i++) { u[i] = 5 * i; b2[i] = u[i]; }
  }
#pragma xmp loop on t[i] reduction(+: s1, s2, s3, s4)
  for (i = 0; i < N; i++) { s1 += b[i]; s2 += w[i]; s3 += b2[i]; s4 += u[i]; }
#pragma xmp task on p[0]
  printf("%g %g %g %g\\n", s1, s2, s3, s4);
  return 0;
}
"""


@pytest.mark.mpi
@pytest.mark.parametrize("env", BACKENDS)
def test_private_distributed_arrays_are_each_threads_block(tmp_path: Path, env: dict[str, str]) -> None:
    """firstprivate(w), private(u) of distributed arrays: each iteration's copy of the
    node's block (w from the device copy, its shadow reflected: b[i] = i + 100 + i - 1);
    the device copies, and so the host's after the data region, keep their values (w sums
    to 66, u to 12); a serial build cannot show it (its iterations share the arrays).
    Before, firstprivate(w) used the shared copy (b[i] = 2i + 199 from i = 2) and
    private(u) failed in the C compiler; then both were refused."""
    src = tmp_path / "pb.c"
    src.write_text(PRIVATE_BLOCKS)
    r = run_xmpacc(str(src), "-o", str(tmp_path / "pb"))
    assert r.returncode == 0, r.stderr
    for nprocs in (1, 3):
        r = run_mpi(nprocs, tmp_path / "pb", env=env)
        assert r.returncode == 0, r.stderr
        assert r.stdout == "1221 66 330 12\n", nprocs


ENUMS = """\
#include <stdio.h>
#define N 8
enum { TWO = 2, THREE };
typedef enum { RED, GREEN = 5 } color_t;
double a[N];
int main(void) {
    int i;
#pragma acc parallel loop copyout(a)
    for (i = 0; i < N; i++) a[i] = i * TWO + THREE + GREEN;
    printf("%g\\n", a[N - 1]);
    return 0;
}
"""


def test_enum_constants_in_kernels(tmp_path: Path) -> None:
    """The .cu file holds the file's enum definitions: their constants were undeclared
    there (found by the OpenACC-library helper); the kernels compile with nvcc too."""
    assert run_source(tmp_path, "en", ENUMS, HOST, "--keep") == "22\n"
    cu = tmp_path / "en.cu"
    assert "TWO = 2" in cu.read_text() and "memory_order" not in cu.read_text()   # not the headers' enums
    if shutil.which("nvcc"):
        r = nvcc_compile(cu, tmp_path / "en.o")
        assert r.returncode == 0, r.stderr


def test_reduction_results_reach_the_host_where_it_reads_them(built: dict[str, tuple[Path, str]]) -> None:
    """passes/gpu/acc_reduction_wait.py: the host waits for a construct's reductions after the
    statements that do not use them, before the first one that may."""
    exe, _ = built["deferred_reductions.c"]
    host = [line.strip() for line in exe.with_suffix(".host.c").read_text().splitlines()
            if line.strip() and not line.startswith("#line")]

    def at(fragment: str, start: int = 0) -> int:
        return next(k for k in range(start, len(host)) if fragment in host[k])

    first = at("_xmpacc_acc_defer_reductions();")
    # s: its XMP reduction and the next (independent) construct pass; the construct that
    # reads s does not
    reduce_s = at('_xmpacc_reduce(&s, "deferred_reductions.c:44"', first)
    independent = at('_xmpacc_launch("deferred_reductions.c:46"', first)
    wait_s = at('_xmpacc_acc_reductions_wait("deferred_reductions.c:41");', first)
    reads_s = at('_xmpacc_acc_compute_begin("deferred_reductions.c:51"', first)
    assert first < reduce_s < independent < wait_s < reads_s
    # m: waited for right after its XMP reduction, before the host's 'if'
    second = at("_xmpacc_acc_defer_reductions();", first + 1)
    wait_m = at('_xmpacc_acc_reductions_wait("deferred_reductions.c:56");', second)
    assert host[wait_m + 1].startswith("if (m < 1e-3)")
    # r: its address is taken in the function: no deferral at all
    # Himeno's loop: the results are discarded by the stores at the top of the body, and
    # the host waits after the loop, before the printf that reads them
    loop = at("for (it = 0; it < 30; it++)", wait_m)
    assert host[loop + 2:loop + 6] == ["_xmpacc_acc_reductions_discard(&m);",
                                       "_xmpacc_acc_reductions_discard(&q);",
                                       "_xmpacc_acc_reductions_discard(&s);", "s = 0.0;"]
    third = at("_xmpacc_acc_defer_reductions();", loop)
    after = at('_xmpacc_acc_reductions_wait("deferred_reductions.c:89");', third)
    assert host[after - 2:after] == ["}", "}"] and "printf" in host[after + 2]
    # a body that reads s before it stores into it waits in every iteration
    fourth = at("_xmpacc_acc_defer_reductions();", after)
    assert host[at('_xmpacc_acc_reductions_wait("deferred_reductions.c:109");', fourth) + 1] == "it++;"
    assert sum("_xmpacc_acc_defer_reductions();" in line for line in host) == 5
    assert sum("_xmpacc_acc_reductions_discard" in line for line in host) == 3


def test_acc_waits_the_host_may_pass_are_made_on_the_device(built: dict[str, tuple[Path, str]]) -> None:
    """passes/gpu/acc_reduction_wait.py: an acc wait followed by device work only is made on
    the device, and the host waits (as the acc wait is written) before the first statement
    that could observe the queues, or after the loop whose body ends with it."""
    exe, _ = built["waits_on_device.c"]
    host = [line.strip() for line in exe.with_suffix(".host.c").read_text().splitlines()
            if line.strip() and not line.startswith("#line")]

    def at(fragment: str, start: int = 0) -> int:
        return next(k for k in range(start, len(host)) if fragment in host[k])

    def waits(kind: str, line: int) -> int:
        return at(f'_xmpacc_acc_wait{kind}("waits_on_device.c:{line}"')

    # 1. Himeno's iteration: both waits on the device; gosa discarded at the top of the
    # body; after the loop the host waits for every queue, then for gosa, before the return
    loop = at("for (n = 0; n < 6; n++)")
    assert host[loop + 2] == "_xmpacc_acc_reductions_discard(&gosa);"
    assert loop < at("_xmpacc_acc_defer_reductions();", loop) < waits("_on_device", 69) \
        < at('_xmpacc_reduce(&gosa, "waits_on_device.c:70"') < waits("_on_device", 75)
    after = waits("", 75)
    assert host[after:after + 3] == ['_xmpacc_acc_wait("waits_on_device.c:75", -1, 0);',
                                     '_xmpacc_acc_reductions_wait("waits_on_device.c:63");', "return gosa;"]
    # 2. wait(1) and wait(2) in a time loop: on the device, each for its own queue
    assert "1, (const long long []){(long long) 1});" in host[waits("_on_device", 104)]
    assert "1, (const long long []){(long long) 2});" in host[waits("_on_device", 107)]
    # 3. a host store passes it (the run-time check keeps it on the host: an async update);
    # the loop that reads y waits first
    assert host[waits("_on_device", 117) + 1].startswith("sum = y[1]")
    assert host[waits("", 117) + 1].startswith("for (i = 0;")
    # 4. a call (a timer) waits at the acc wait; 5. a loop condition that calls a function
    assert host[waits("", 127) + 1] == "t0 = xmp_wtime();"
    assert waits("", 138)
    assert not any(f'_xmpacc_acc_wait_on_device("waits_on_device.c:{n}"' in line
                   for line in host for n in (127, 138))
    # 6. the static function that ends with acc wait: made on the device, its callers owe
    # it (the loop of its calls: the host waits after the loop); a pointed-to one is
    # wrapped: its copy makes the wait on the device, the function as written on the host
    assert waits("_on_device", 44) < at("static void _xmpacc_owed_sweep_pointed(void)") \
        < waits("_on_device", 52) < at("static void sweep_pointed(void)") < waits("", 47)
    calls = at("sweep_owed();", waits("", 47))
    assert host[calls + 1:calls + 4] == ["}", '_xmpacc_acc_wait("waits_on_device.c:148", -1, 0);',
                                         "pointed();"]
    assert sum("_xmpacc_acc_wait_on_device" in line for line in host) == 8
    # 7. a kernels region on a queue, acc wait(8), k++ in a while loop: on the device, the
    # host waits after the loop
    assert "1, (const long long []){(long long) 8});" in host[waits("_on_device", 162)]
    assert host[waits("", 162) - 1] == "}"


def test_a_function_others_may_call_is_wrapped(built: dict[str, tuple[Path, str]]) -> None:
    """acc_wait_functions.py: sweep() is not static: its body becomes the static copy whose
    last acc wait is made on the device, which run()'s loop calls; sweep() as written (a
    function pointer calls it) calls the copy and waits on the host."""
    exe, _ = built["wrapped_waits.c"]
    host = [line.strip() for line in exe.with_suffix(".host.c").read_text().splitlines()
            if line.strip() and not line.startswith("#line")]
    proto = host.index("static void _xmpacc_owed_sweep(int k, double *scale);")
    assert host[proto - 1] == "void sweep(int k, double *scale);"
    copy = host.index("static void _xmpacc_owed_sweep(int k, double *scale)")
    written = host.index("void sweep(int k, double *scale)")
    assert proto < copy < written
    assert any(line.startswith('_xmpacc_acc_wait_on_device("wrapped_waits.c:') for line in host[copy:written])
    assert host[written + 2:written + 4] == ["_xmpacc_owed_sweep(k, scale);",
                                             '_xmpacc_acc_wait("wrapped_waits.c:28", -1, 0);']
    assert "_xmpacc_owed_sweep(k, &sc);" in host and "void (*f)(int, double *) = sweep;" in host


def test_info_says_where_the_host_waits(tmp_path: Path) -> None:
    """--info: each acc wait made on the device, and where the host waits instead."""
    r = run_xmpacc("--info", "-S", "tests/xacc_compute/waits_on_device.c", "-o", str(tmp_path / "w"),
                   cwd=REPO)
    assert r.returncode == 0, r.stderr
    said = {int(line.split(":")[1]): line.split("info: ")[1] for line in r.stderr.splitlines()
            if "info: acc wait" in line}
    # (117: the run-time check keeps it the host's)
    assert sorted(said) == [44, 52, 69, 75, 104, 107, 117, 162]
    assert said[44].endswith("the host waits in the callers of sweep_owed")
    assert said[52].endswith("the host waits in the callers of sweep_pointed")
    assert said[69].startswith("acc wait: made on the device: every stream waits there for the queues")
    assert said[75].endswith("the host waits before line 77")   # return gosa;
    assert said[117].endswith("the host waits before line 119")   # the loop that reads y


REGION_CLAUSE = """\
#include <stdio.h>
#define N 64
float p[N], q[N];
#pragma xmp nodes n(*)
#pragma xmp template t(0:N-1)
#pragma xmp distribute t(block) onto n
#pragma xmp align p[i] with t(i)
#pragma xmp align q[i] with t(i)
int main(void)
{
    int i, it;
    float gosa = 1.0f, eps = 0.5f;
#pragma acc data copy(p, q)
    for (it = 0; it < 4; it++) {
        gosa = 0;
#pragma xmp loop (i) on t(i)
#pragma acc parallel loop reduction(+:gosa) async
        for (i = 0; i < N; i++) { q[i] = p[i] + 1; gosa += q[i]; }
#pragma acc wait
#pragma acc parallel if(gosa > eps)
        {
#pragma xmp loop (i) on t(i)
#pragma acc loop
            for (i = 0; i < N; i++) p[i] = q[i] * 0.5f;
        }
    }
    printf("%f\\n", gosa);
    return 0;
}
"""


def test_a_region_whose_clause_reads_the_result_waits_on_the_host(tmp_path: Path) -> None:
    """The host evaluates a parallel region's clauses (``if(gosa > eps)``): an acc wait
    before it stays the host's, with the deferred gosa's wait (it was made on the device,
    and the if read gosa before the sweep's reduction: 64 where the serial program says 120)."""
    src = tmp_path / "region.c"
    src.write_text(REGION_CLAUSE)
    r = run_xmpacc("-xacc", str(src), "-o", str(tmp_path / "region"), "--keep")
    assert r.returncode == 0, r.stderr
    host = (tmp_path / "region.host.c").read_text()
    assert '_xmpacc_acc_wait("region.c:19"' in host and "_xmpacc_acc_wait_on_device" not in host
    out = run_mpi(1, tmp_path / "region", env={"XMPACC_DEVICE": "host"})
    assert out.returncode == 0 and out.stdout.strip() == serial_output(src, tmp_path).strip(), out


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
def test_acc_waits_on_the_device_on_a_gpu(built: dict[str, tuple[Path, str]]) -> None:
    """On a GPU the waits the host may pass are made on the device (2 per iteration of
    cases 1 and 2, 1 of cases 6 and 7, the pointed-to function's copy once; case 3's async
    update keeps its wait on the host), with the output of
    the program whose host waits where it says, which XMPACC_WAIT_ON_DEVICE=0 runs."""
    exe, expected = built["waits_on_device.c"]
    env = {"XMPACC_DEVICE": "cuda", "XMPACC_STATS": "1"}
    on = run_mpi(1, exe, env=env)
    off = run_mpi(1, exe, env={**env, "XMPACC_WAIT_ON_DEVICE": "0"})
    assert on.returncode == off.returncode == 0, on.stderr + off.stderr
    same_output(on.stdout, expected)
    same_output(off.stdout, expected)
    assert [s.get("acc_waits_on_device", 0) for s in runtime_stats(on.stderr)] == [37]
    assert [s.get("acc_waits_on_device", 0) for s in runtime_stats(off.stderr)] == [0]


def test_kernel_file_carries_the_types_its_kernels_use(built: dict[str, tuple[Path, str]]) -> None:
    """kernel_types.py: the .cu file holds the file's struct, union, enum and typedef
    definitions that kernels and routines name, and those they name in turn, in source
    order; a type no kernel uses (a struct with a FILE * member) stays out."""
    exe, _ = built["user_types.c"]
    cu = "\n".join(line for line in exe.with_suffix(".cu").read_text().splitlines()
                   if not line.startswith("#line"))
    order = ["NDIM = 3", "typedef double real;", "} cplx;", "struct particle", "} bits;", "enum mode",
             "typedef int mode_kind;", "cplx cmul(cplx a, cplx b)"]   # enum types are int (C++)
    at = [cu.find(text) for text in order]
    assert -1 not in at and at == sorted(at), dict(zip(order, at, strict=True))
    assert "logger" not in cu and "FILE" not in cu
    if shutil.which("nvcc"):
        r = nvcc_compile(exe.with_suffix(".cu"), exe.with_suffix(".o"))
        assert r.returncode == 0, r.stderr


TYPE_ERRORS = [
    ("  int m = 3;\n#pragma acc parallel loop copyout(a)\n"
     "  for (i = 0; i < N; i++) { double t[m]; t[0] = i; a[i] = t[0]; }\n",
     "9:36",
     "'t' is a variable-length array in an acc loop: arrays declared in GPU code need constant sizes"),
    ("  div_t d = div(7, 2);\n#pragma acc parallel loop copyout(a)\n"
     "  for (i = 0; i < N; i++) a[i] = d.quot;\n",
     "9:3", "'d' has type 'div_t', which the GPU kernel file cannot declare"),
    ("  pair q = {1, 2};\n#pragma acc parallel loop reduction(+:q)\n"
     "  for (i = 0; i < N; i++) a[i] = i + q.x;\n",
     "8:13", "reduction variable 'q' of a GPU loop has type 'pair': reductions take arithmetic types"),
    ("  pair h[2];\n#pragma acc parallel loop reduction(+:h)\n  for (i = 0; i < N; i++) a[i] = i + h[0].x;\n",
     "8:39", "'h' has elements of type 'pair': reductions take arithmetic types"),
    # long double: CUDA computes it as double in the host's 16 bytes (kernel_types.check_long_double)
    ("  long double s = 0;\n#pragma acc parallel loop reduction(+:s) copyin(a)\n"
     "  for (i = 0; i < N; i++) s += a[i];\n",
     "9:3", "'s' has type 'long double' in an acc loop: GPUs have no long double"),
    ("  real2 r[N];\n#pragma acc parallel loop copyin(a) copyout(r)\n"
     "  for (i = 0; i < N; i++) r[i] = a[i];\n",
     "9:3", "'r' has type 'long double' in an acc loop"),
    ("#pragma acc parallel loop copy(a)\n  for (i = 0; i < N; i++) a[i] = (long double) a[i] / 3;\n",
     "8:35", "'long double' in an acc loop: GPUs have no long double"),
    ("#pragma acc parallel loop copy(a)\n  for (i = 0; i < N; i++) { long double t = a[i]; a[i] = t; }\n",
     "8:41", "'t' has type 'long double' in an acc loop"),
]


@pytest.mark.parametrize("body,line,fragment", TYPE_ERRORS)
def test_kernel_scalars_of_types_a_kernel_cannot_declare(tmp_path: Path, body: str, line: str,
                                                         fragment: str) -> None:
    """A system header's struct by value, or a struct reduction variable: an error at the
    construct, not the GPU compiler's."""
    src = tmp_path / "te.c"
    src.write_text("#include <stdlib.h>\n#define N 8\n"
                   "typedef struct { int x, y; } pair; typedef long double real2;\n"
                   "double a[N];\n"
                   "int main(void) {\n  int i;\n" + body + "  return 0;\n}\n")
    r = run_xmpacc(str(src), "-o", str(tmp_path / "te"))
    assert r.returncode == 1 and f"te.c:{line}: error: {fragment}" in r.stderr, r.stderr


@pytest.mark.parametrize("env", BACKENDS)
def test_two_files_share_types_and_a_routine(tmp_path: Path, env: dict[str, str]) -> None:
    """tests/xacc_multifile: both files' kernels use a struct, an enum and a static routine
    of one header, and main.c's kernel calls routines of parts.c, one taking and returning
    structures; the program gives the serial build's output on 1 and 2 processes."""
    files = [str(REPO / "tests" / "xacc_multifile" / f) for f in ("main.c", "parts.c")]
    r = run_xmpacc(*files, "-o", str(tmp_path / "mf"))
    assert r.returncode == 0, r.stderr
    subprocess.run(["cc", "-w", *files, "-o", str(tmp_path / "serial")], check=True)
    expected = subprocess.run([str(tmp_path / "serial")], capture_output=True, text=True, check=True).stdout
    for nprocs in (1, 2):
        r = run_mpi(nprocs, tmp_path / "mf", env=env)
        assert r.returncode == 0, r.stderr
        assert r.stdout == expected * nprocs


def test_routine_for_other_files_cannot_use_file_scope_variables(tmp_path: Path) -> None:
    """acc_routine_files.py: a routine whose directive stands in a header (other files call
    it) and that uses a file-scope array: other files' kernels could not pass it."""
    (tmp_path / "w.h").write_text("#pragma acc routine seq\ndouble weight(int k);\n")
    src = tmp_path / "w.c"
    src.write_text('#include "w.h"\ndouble table[4];\ndouble weight(int k) { return table[k % 4]; }\n'
                   "int main(void) { return 0; }\n")
    r = run_xmpacc(str(src), "-o", str(tmp_path / "w"))
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"{tmp_path / 'w.h'}:1:13: error: 'acc routine' function "
                               "'weight', declared in a header for other files, uses the file-scope "
                               "variable 'table'"), r.stderr


STRUCT_KERNELS = """\
#include <stdio.h>
#define N 64
typedef struct { double x, v[3]; } part;
part ps[N];
double a[N];
int main(void)
{
    for (int i = 0; i < N; i++) { ps[i].x = i; a[i] = 0; }
#pragma acc kernels copy(ps, a)
    {
        for (int i = 0; i < N; i++) { ps[i].v[0] = 2 * ps[i].x; ps[i].v[1] = ps[i].v[0] + 1; }
        for (int i = 1; i < N; i++) ps[i].x = ps[i - 1].x + 1;
        for (int i = 0; i < N; i++) a[i] = ps[i].v[1];
    }
    double s = 0;
    for (int i = 0; i < N; i++) s += a[i] + ps[i].x;
    printf("%g\\n", s);
    return 0;
}
"""


def test_kernels_loops_over_members_of_array_elements(tmp_path: Path) -> None:
    """acc_kernels_auto.py: stores into members of array elements (ps[i].v[0]) are the
    element's; independent when every access to ps has i alone, else one thread."""
    src = tmp_path / "sk.c"
    src.write_text(STRUCT_KERNELS)
    r = run_xmpacc(str(src), "--info", "-o", str(tmp_path / "sk"))
    assert r.returncode == 0, r.stderr
    said = [ln.split("info: for: in 'acc kernels', ")[1] for ln in r.stderr.splitlines()
            if "info: for:" in ln]
    assert said[0] == said[2] == "iterations independent: one GPU thread per iteration", said
    assert said[1].startswith("runs in order in one GPU thread: 'ps' is written, and not every access"), said
    assert run_mpi(1, tmp_path / "sk", env=HOST).stdout == serial_output(src, tmp_path) == "6112\n"


@pytest.mark.parametrize("before,after", [
    ("*(p + i) = 1;", "p[i] = 1;"),
    ("*(i + p) = 1;", "p[i] = 1;"),
    ("x = *(p + i - 1);", "x = p[i - 1];"),
    ("x = *(p - 1);", "x = p[-1];"),
    ("x = *p;", "x = p[0];"),
    ("x = *(p + idx[i]);", "x = p[idx[i]];"),
    ("x = (c + i)->re;", "x = c[i].re;"),
    ("c->im = 2;", "c[0].im = 2;"),
    ("x = *(double *) v;", "x = *((double *) v);"),    # a cast: as written
    ("x = *(p + (q - p));", "x = *(p + (q - p));"),    # a pointer difference in it: as written
    ("{ double *r = p; x = *r; }", "{ double *r = p; x = *r; }"),   # the body's own pointer
])
def test_dereferences_become_subscripts(before: str, after: str) -> None:
    """kernel_deref: C's *(p + e) is p[e]; only a named outside pointer plus or minus
    integers is rewritten."""
    from pycparser import CParser

    from xmpacc import cbuild
    from xmpacc.passes.gpu import kernel_deref

    decls = {"p": "double *p", "q": "double *q", "c": "cplx *c", "v": "void *v", "idx": "int idx[4]"}

    class Scope:   # what pointer_names asks of a scope
        def find_c(self, name: str):   # type: ignore[no-untyped-def]
            text = decls.get(name)
            if text is None:
                return None
            ast = CParser().parse("typedef struct { double re, im; } cplx; " + text + ";")
            return None, ast.ext[-1]

    body = CParser().parse(f"typedef struct {{ double re, im; }} cplx; "
                           f"void f(void) {{ {before} }}").ext[-1].body
    body = kernel_deref.as_subscripts(body, kernel_deref.pointer_names(body, Scope()))   # type: ignore[arg-type]
    assert " ".join(cbuild.to_c(body).split()) == " ".join(f"{{ {after} }}".split())
