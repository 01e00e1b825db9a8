"""The combined directive (global-view §8a), ``static_desc``, the ':' form of align and the
bracketed loop index list, past the parser (tests/test_directive_parser.py has their
syntax):

* a program written with combined directives and one written with a directive per
  attribute generate the same host C (only the places differ);
* mistakes the declare stage finds (names of static_desc, unpaired ':' of align) are
  located errors;
* tests/omni/loop_brackets_xacc.c (combined declarations, ':' align, ``loop [i][j]`` on
  OpenACC and host loops) prints what its serial build prints under 1, 2 and 4 processes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import run_mpi, run_xmpacc, same_output, serial_output
from test_errors import Compile, assert_clean_failure, assert_error_at, compile_, place  # noqa: F401

OMNI = Path(__file__).parent / "omni"
HOST = {"XMPACC_DEVICE": "host"}

# The same program with a directive per attribute and with combined directives.
MAIN = """\
int main(void)
{{
    int i, j;
#pragma xmp loop {indices} on t(j, i)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            a[i][j] = b[i][j] = i + j + v[i];
#pragma xmp reflect (a)
    return 0;
}}
"""
SEPARATE = """\
#define N 16
#pragma xmp nodes p(2, 2)
#pragma xmp template t(0:N-1, 0:N-1)
#pragma xmp distribute t(block, block) onto p
double a[N][N], b[N][N], v[N];
#pragma xmp align a[i][j] with t(j, i)
#pragma xmp align b[i][j] with t(j, i)
#pragma xmp shadow a[1][1]
#pragma xmp shadow b[1][1]
#pragma xmp align v[i] with t(*, i)
""" + MAIN.format(indices="(i, j)")
COMBINED = """\
#define N 16
#pragma xmp nodes :: p(2, 2)
#pragma xmp template, distribute(block, block) onto p :: t(0:N-1, 0:N-1)
double a[N][N], b[N][N], v[N];
#pragma xmp align (j, i) with t(j, i), shadow (1, 1) :: a, b
#pragma xmp align [:] with t(*, :) :: v
#pragma xmp static_desc :: p, t, a, b, v
""" + MAIN.format(indices="[i][j]")


def _host_c(tmp: Path, name: str, source: str) -> str:
    """The generated host C without what names the file and its lines."""
    (tmp / f"{name}.c").write_text(source)
    r = run_xmpacc("-S", f"{name}.c", "-o", name, cwd=tmp)
    assert r.returncode == 0, r.stderr
    text = (tmp / f"{name}.host.c").read_text()
    text = "\n".join(line for line in text.splitlines()[1:] if not line.startswith("#line"))
    return re.sub(rf"(\b|_){name}(\.c:\d+|\.record|_c\b|\b)", "F", text)


def test_combined_generates_the_code_of_one_directive_per_attribute(tmp_path: Path) -> None:
    assert _host_c(tmp_path, "combined", COMBINED) == _host_c(tmp_path, "separate", SEPARATE)


HEAD = """\
#pragma xmp nodes p[*]
#pragma xmp template, distribute [block] onto p :: t[8]
double a[8], y[4];
"""
STUB = "int main(void) { return 0; }\n"
MISTAKES = [
    ("static-desc-plain-array", HEAD + "#pragma xmp align [i] with t[i] :: a\n"
     "#pragma xmp static_desc :: a, @y\n" + STUB,
     "'y' is not a node array, template or aligned array: static_desc names XMP objects"),
    ("static-desc-undeclared", HEAD + "#pragma xmp static_desc :: @zz\n" + STUB, "'zz' is not declared"),
    ("static-desc-outer-name-in-function", HEAD + "int f(void)\n{\n#pragma xmp static_desc :: t, @q\n"
     "    return 0;\n}\n" + STUB, "'q' is not declared"),
    ("colon-unpaired-source", "#pragma xmp nodes p[*]\n#pragma xmp template t[8][8]\n"
     "#pragma xmp distribute t[block][*] onto p\ndouble b[8][8];\n"
     "#pragma xmp align [:][@:] with t[:][*] :: b\n" + STUB,
     "the array side of align has 2 ':' and the template side 1"),
    ("colon-unpaired-subscript", HEAD + "#pragma xmp align a[i] with t[@:]\n" + STUB,
     "the array side of align has 0 ':' and the template side 1"),
    ("distribute-undeclared-template", HEAD + "#pragma xmp distribute [block] onto p :: @u\n" + STUB,
     "template 'u' is not declared"),
    ("static-array-in-function", HEAD + "int f(void)\n{\n    static double b[8];\n"
     "#pragma xmp align [i] with t[i] :: @b\n#pragma xmp static_desc :: b\n    return 0;\n}\n" + STUB,
     "a static aligned array in a function ('b') is not supported yet"),
    ("combined-undeclared-array", HEAD + "#pragma xmp align [i] with t[i], shadow [1] :: a, @c\n" + STUB,
     "array 'c' is not declared"),
]


@pytest.mark.parametrize("marked, fragment", [pytest.param(m, f, id=i) for i, m, f in MISTAKES])
def test_declare_stage_mistake(marked: str, fragment: str, compile_: Compile, tmp_path: Path) -> None:  # noqa: F811 - the fixture imported above
    source, line, col = place(marked)
    proc, src, _out = compile_(source)
    assert proc.stderr.count(": error:") == 1, proc.stderr   # one mistake, one message
    assert_error_at(proc.stderr, src, line, col, fragment)
    assert_clean_failure(proc, tmp_path, {src.name})


@pytest.fixture(scope="module")
def brackets(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("brackets")
    src = OMNI / "loop_brackets_xacc.c"
    r = run_xmpacc(str(src), "-o", str(tmp / "prog"))
    assert r.returncode == 0, r.stderr
    return tmp / "prog", serial_output(src, tmp)


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_bracketed_loops_on_host_and_openacc_loops(brackets: tuple[Path, str], nprocs: int) -> None:
    exe, expected = brackets
    r = run_mpi(nprocs, exe, env=HOST)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


KEPT = HEAD + """\
double kept(double v[8])
{
#pragma xmp align [i] with t[i] :: v
#pragma xmp static_desc :: v
    return v[0];
}
double plain(double v[8])
{
#pragma xmp align [i] with t[i] :: v
    return v[0];
}
double local_template(double v[8])
{
#pragma xmp template, distribute [block] onto p :: s[8]
#pragma xmp align [i] with s[i] :: v
#pragma xmp static_desc :: v
    return v[0];
}
double run_time_extent(int n, double v[n])
{
#pragma xmp align [i] with t[i] :: v
#pragma xmp static_desc :: v
    return v[0];
}
""" + STUB


def test_static_desc_keeps_a_parameter_descriptor(tmp_path: Path) -> None:
    """An aligned parameter named by static_desc gets a static descriptor that a call
    passing the block it describes keeps without a runtime call (lower_decls.py); one
    aligned with a template of the function, or with an extent known at run time only,
    is described at each call as without static_desc."""
    host = _host_c(tmp_path, "params", KEPT)
    bodies = {name: host[host.index(f"double {name}("):] for name in ("kept", "plain", "local_template",
                                                                        "run_time_extent")}
    kept = bodies["kept"][:bodies["kept"].index("}")]
    assert "static _xmpacc_array_t _xmpacc_a_v;" in kept
    assert "if ((!_xmpacc_a_v.id) || (_xmpacc_a_v.base != ((void *) v)))" in kept
    assert "_xmpacc_array_release" not in kept
    per_call = "_XMPACC_CLEANUP(_xmpacc_array_release) _xmpacc_array_t _xmpacc_a_v = {0};"
    for name in ("plain", "local_template", "run_time_extent"):
        body = bodies[name]
        assert per_call in body and "static _xmpacc_array_t" not in body[:body.index("return")], name
    r = run_xmpacc("--info", "-S", "params.c", "-o", "info", cwd=tmp_path)
    remarks = [line for line in r.stderr.splitlines() if "info: static_desc" in line]
    assert len(remarks) == 3 and "parameters v are kept from call to call" in remarks[0], remarks
    assert all("made at each entry of their block" in line for line in remarks[1:]), remarks
