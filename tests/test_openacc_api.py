"""The OpenACC runtime library (openacc.h; runtime/acc_api.py, include/xmpacc_openacc.c,
passes/common/openacc_calls.py): _OPENACC, what the routines do to device data as a GPU shows it
(the host backend keeps separate copies), their run-time errors with the call's line, and
the compile-time errors of device code that calls them.  tests/xacc_programs/openacc_api.c
runs every routine against its serial build (test_xacc.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO, gpu_count, run_mpi, run_xmpacc

from xmpacc.passes.common import openacc_calls
from xmpacc.runtime import contract

HOST = {"XMPACC_DEVICE": "host"}
INCLUDE = REPO / "runtime" / "include"


def test_openacc_is_defined_as_by_openacc_compilers(tmp_path: Path) -> None:
    src = tmp_path / "v.c"
    src.write_text("#include <openacc.h>\n#ifdef _OPENACC\nlong v = _OPENACC;\n#endif\n")
    r = run_xmpacc("-E", str(src))
    assert r.returncode == 0, r.stderr
    assert "long v = 201711;" in r.stdout


def test_host_c_includes_xmpaccs_own_header(tmp_path: Path) -> None:
    """The host C names xmpacc_openacc.h: a C compiler's own openacc.h (GCC's says
    acc_device_nvidia = 5, ours 4) stood before ours on the device machine."""
    src = tmp_path / "h.c"
    src.write_text("#include <openacc.h>\nint main(void) { return "
                   "acc_get_num_devices(acc_device_nvidia) < 0; }\n")
    r = run_xmpacc(str(src), "--keep", "-o", str(tmp_path / "h"))
    assert r.returncode == 0, r.stderr
    host = (tmp_path / "h.host.c").read_text()
    assert "#include <xmpacc_openacc.h>" in host and "#include <openacc.h>" not in host


def test_glue_codes_agree_with_the_contract() -> None:
    text = (INCLUDE / "xmpacc_openacc.c").read_text()
    codes = dict(re.findall(r"_XMPACC_OACC_(\w+) = (-?\d+)", text))
    assert {k: int(v) for k, v in codes.items()} == {
        "COPYIN": contract.ACC_COPYIN, "COPYOUT": contract.ACC_COPYOUT, "CREATE": contract.ACC_CREATE,
        "DELETE": contract.ACC_DELETE, "SYNC": contract.ACC_SYNC}
    header = (INCLUDE / "xmpacc_openacc.h").read_text()
    assert f"#define acc_async_sync ({contract.ACC_SYNC})" in header
    assert f"#define acc_async_noval ({contract.ACC_ASYNC_NOVAL})" in header


def test_every_routine_is_declared_and_defined() -> None:
    """The compiler's list of routines, openacc.h and the glue say the same."""
    header = (INCLUDE / "xmpacc_openacc.h").read_text()
    glue = (INCLUDE / "xmpacc_openacc.c").read_text()
    for name in openacc_calls.ROUTINES:
        assert re.search(rf"\b{name}\(", header), name
        short = name[len("acc_"):]
        assert re.search(rf"\b{name}\(|_XMPACC_OACC_\w+\({short},", glue), name
    for name in openacc_calls.LOCATED:
        located = openacc_calls.PREFIX + name[len("acc_"):]
        assert re.search(rf"\b{located}\(const char \*where, const char \*what", header), located


# What a GPU shows, commented by line; the host backend has the same separate copies.
SEMANTICS = r"""#include <stdio.h>
#include <openacc.h>
#define N 8
double a[N], b[N], c[N];
#pragma acc routine seq
double where_am_i(void) { return acc_on_device(acc_device_not_host) ? 1000 : 0; }
int main(void) {
  int i;
  acc_set_device_num(0, acc_device_nvidia);
  for (i = 0; i < N; i++) { a[i] = i; b[i] = 0; }
  acc_copyin(a, sizeof a);
  acc_create(b, sizeof b);
  for (i = 0; i < N; i++) a[i] = 100 + i;              /* the host only */
  acc_update_device(a + 2, 2 * sizeof(double));        /* a[2], a[3] */
#pragma acc parallel loop present(a, b)
  for (i = 0; i < N; i++) b[i] = a[i] + where_am_i();
  acc_update_self(b + 1, 3 * sizeof(double));          /* b[1..3] */
  printf("%g %g %g %g %g\n", b[0], b[1], b[2], b[3], b[4]);
  acc_copyout(b, sizeof b);
  printf("%g %g %d %d\n", b[0], b[7], acc_is_present(b, 1), acc_is_present(a + 7, sizeof(double)));
  acc_copyout(a, sizeof a);                            /* the device copy: 0 1 102 103 4 .. 7 */
  double *d = acc_malloc(N * sizeof(double));
  acc_memcpy_to_device(d, a, sizeof a);
#pragma acc parallel loop deviceptr(d)
  for (i = 0; i < N; i++) d[i] += 0.5;
  acc_memcpy_from_device(c + 6, d + 6, 2 * sizeof(double));
  printf("%g %g %g %p\n", c[5], c[6], a[7], acc_hostptr(d));
  acc_free(d);
  return 0;
}
"""
SEMANTICS_OUT = "0 1001 1102 1103 0\n1000 1007 0 1\n0 6.5 7 (nil)\n"


def _build(tmp_path: Path, text: str) -> Path:
    src = tmp_path / "prog.c"
    src.write_text(text)
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    return exe


@pytest.mark.mpi
def test_host_backend_shows_what_a_gpu_shows(tmp_path: Path) -> None:
    """Separate copies: only the bytes an update names move, a kernel reads the device copy
    and says it is on the device, acc_copyout brings it back, acc_memcpy_* move their bytes."""
    r = run_mpi(2, _build(tmp_path, SEMANTICS), env=HOST, timeout=60)
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.splitlines()) == sorted(SEMANTICS_OUT.splitlines() * 2)   # both nodes print


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
def test_gpu_shows_the_same(tmp_path: Path) -> None:
    r = run_mpi(1, _build(tmp_path, SEMANTICS), env={"XMPACC_DEVICE": "cuda"}, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout == SEMANTICS_OUT


@pytest.mark.mpi
def test_a_program_with_only_library_calls_has_its_device(tmp_path: Path) -> None:
    exe = _build(tmp_path, """#include <stdio.h>
#include <openacc.h>
int main(void) {
  double x = 2.5, y = 0, *d = acc_malloc(sizeof x);
  acc_memcpy_to_device(d, &x, sizeof x);
  acc_memcpy_from_device(&y, d, sizeof y);
  acc_free(d);
  printf("%g %d %d\\n", y, acc_get_device_type() == acc_device_nvidia,
         acc_get_num_devices(acc_device_nvidia));
  return 0;
}
""")
    r = run_mpi(1, exe, env=HOST, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "2.5 1 1\n"


BASE = """#include <stdio.h>
#include <openacc.h>
double v[8], w[8];
int main(void) {{
  double *d;
  void (*set)(int, acc_device_t) = acc_set_device_num;
{body}
  return 0;
}}
"""

RUN_ERRORS = [
    # (body, message fragment): the call's line, the routine and its argument
    ("  acc_update_device(v, sizeof v);",
     "prog.c:7: error: acc_update_device: 'v' (64 bytes) is not present on the device"),
    ("  acc_copyin(v, 4 * sizeof(double));\n  acc_update_self(v + 2, 4 * sizeof(double));",
     "prog.c:8: error: acc_update_self: 'v + 2' (32 bytes) is not present"),
    ("  acc_copyin(v, sizeof v);\n  acc_delete(v, sizeof v);\n  acc_update_self(v, sizeof v);",
     "prog.c:9: error: acc_update_self: 'v' (64 bytes) is not present"),
    ("  acc_free(w);", "prog.c:7: error: acc_free(w): it is not a block that acc_malloc returned"),
    ("  d = acc_malloc(64);\n  acc_free(d + 1);",
     "prog.c:8: error: acc_free(d + 1): it points 8 bytes into a block"),
    ("  d = acc_malloc(64);\n  acc_free(d);\n  acc_free(d);",
     "prog.c:9: error: acc_free(d): it is not a block"),
    ("  acc_memcpy_to_device(w, v, sizeof v);",
     "prog.c:7: error: acc_memcpy_to_device: the 64 bytes at device address"),
    ("  d = acc_malloc(16);\n  acc_memcpy_from_device(w, d, sizeof w);",
     "prog.c:8: error: acc_memcpy_from_device: the 64 bytes at device address"),
    ("  acc_set_device_num(1, acc_device_nvidia);",
     ("prog.c:7: error: acc_set_device_num(1, acc_device_nvidia): xmpacc gives each process one GPU, its "
      "node-local rank modulo the node's GPUs; this process has GPU 0 (the node has device 0)")),
    ("  acc_set_device_type(acc_device_none);",
     "prog.c:7: error: acc_set_device_type(acc_device_none): acc_device_none is not a device type"),
    ("  set(2, acc_device_nvidia);", "acc_set_device_num: error: acc_set_device_num(2, acc_device_nvidia)"),
]


@pytest.mark.mpi
@pytest.mark.parametrize("body,fragment", RUN_ERRORS)
def test_run_time_errors_name_the_call_and_its_line(tmp_path: Path, body: str, fragment: str) -> None:
    r = run_mpi(2, _build(tmp_path, BASE.format(body=body)), env=HOST, timeout=60)
    assert r.returncode != 0
    assert fragment in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


COMPILE_ERRORS = [
    # (body, line, column, fragment)
    ("#pragma acc parallel loop copy(v)\n  for (int i = 0; i < 8; i++) acc_copyin(v, 8);", 8, 31,
     "call of 'acc_copyin' in device code: the OpenACC runtime library runs on the host"),
    ("#pragma acc parallel loop copy(v)\n  for (int i = 0; i < 8; i++) v[i] = "
     "acc_get_num_devices(acc_device_nvidia);",
     8, 38, "call of 'acc_get_num_devices' in device code"),
]


@pytest.mark.parametrize("body,line,col,fragment", COMPILE_ERRORS)
def test_device_code_calls_acc_on_device_only(tmp_path: Path, body: str, line: int, col: int,
                                              fragment: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(BASE.format(body=body))
    r = run_xmpacc(str(src), "-o", str(tmp_path / "prog"))
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"{src}:{line}:{col}: error:"), r.stderr
    assert fragment in r.stderr, r.stderr


def test_acc_routine_may_not_call_host_routines(tmp_path: Path) -> None:
    src = tmp_path / "prog.c"
    src.write_text("#include <openacc.h>\n#pragma acc routine seq\n"
                   "static void *f(void) { return acc_malloc(8); }\n"
                   "int main(void) { double v[4];\n#pragma acc parallel loop copy(v)\n"
                   "  for (int i = 0; i < 4; i++) v[i] = f() != 0;\n  return 0; }\n")
    r = run_xmpacc(str(src), "-o", str(tmp_path / "prog"))
    assert r.returncode == 1, r.stderr
    assert f"{src}:3:" in r.stderr and "call of 'acc_malloc' in device code" in r.stderr, r.stderr


def test_distributed_arrays_go_through_the_directives(tmp_path: Path) -> None:
    src = tmp_path / "prog.c"
    src.write_text("#include <openacc.h>\n#pragma xmp nodes p[*]\n#pragma xmp template t[8]\n"
                   "#pragma xmp distribute t[block] onto p\ndouble a[8];\n#pragma xmp align a[i] with t[i]\n"
                   "int main(void) {\n  acc_copyin(a, sizeof a);\n  return 0;\n}\n")
    r = run_xmpacc(str(src), "-o", str(tmp_path / "prog"))
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"{src}:8:14: error: acc_copyin of the distributed array 'a'"), r.stderr
