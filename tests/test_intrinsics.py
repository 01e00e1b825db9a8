"""The collective intrinsics of XMP (global-view §9): xmp_gather, xmp_scatter, xmp_pack,
xmp_unpack, xmp_transpose, xmp_matmul, xmp_sort_up, xmp_sort_down.

Programs (tests/programs/intrinsics/) are built by xmpacc and run under mpirun at each
process count of ``CASES``; the oracle is the same file built by plain cc, where
tests/programs/serial_xmp.h gives every intrinsic its serial meaning (loops in row-major
order).  Then the compile-time mistakes (at the argument, with a caret), the run-time
ones (the line and the values), and the generated host C of one program (golden).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import REPO, SharedBuilds, run_mpi, run_xmpacc, same_output, xmpacc_and_serial
from test_errors import Compile, assert_clean_failure, assert_error_at, compile_, place  # noqa: F401

from xmpacc import __version__

PROGRAMS = Path(__file__).parent / "programs" / "intrinsics"
GOLDEN = Path(__file__).parent / "golden"
UPDATE = bool(os.environ.get("XMPACC_UPDATE_GOLDEN"))

CASES: dict[str, tuple[int, ...]] = {
    "intrinsics_1d.c": (1, 2, 3, 4),
    "matmul_transpose.c": (1, 2, 3, 4),
    "intrinsics_2d.c": (4,),             # nodes p[2][2] and q[4]
    "descriptor_variables.c": (1, 3, 4),
    "node_families.c": (2, 4),           # nodes row[2] = g[*][:]: one node array per row
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    """program -> (executable, serial output), each built once per test run."""
    return SharedBuilds(tmp_path_factory, "intrinsics", CASES, xmpacc_and_serial(PROGRAMS))


# test_intrinsics_are_counted makes this run of CASES (checking the serial output too, with
# XMPACC_STATS=1, which only prints the counters at the end)
RUN_ELSEWHERE = {("matmul_transpose.c", 2)}


def test_every_program_is_listed() -> None:
    assert {p.name for p in PROGRAMS.glob("*.c")} == set(CASES)
    assert all(n in CASES[name] for name, n in RUN_ELSEWHERE)


@pytest.mark.mpi
@pytest.mark.parametrize("name,nprocs", [pytest.param(n, k, id=f"{Path(n).stem}-np{k}")
                                         for n, counts in CASES.items() for k in counts
                                         if (n, k) not in RUN_ELSEWHERE])
def test_program_prints_what_serial_build_prints(built: dict[str, tuple[Path, str]], name: str,
                                                 nprocs: int) -> None:
    exe, expected = built[name]
    r = run_mpi(nprocs, exe, timeout=120)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


@pytest.mark.mpi
def test_intrinsics_are_counted(built: dict[str, tuple[Path, str]]) -> None:
    exe, expected = built["matmul_transpose.c"]
    r = run_mpi(2, exe, timeout=60, env={"XMPACC_STATS": "1"})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)
    stats = [line for line in r.stderr.splitlines() if line.startswith("xmpacc-stats:")]
    assert len(stats) == 2 and all('"xmp_matmul": 4' in s and '"xmp_transpose": 3' in s for s in stats)


def test_golden_host_c(tmp_path: Path) -> None:
    """The lowered calls of every intrinsic (tests/programs/intrinsics/intrinsics_2d.c)."""
    r = run_xmpacc("-S", "tests/programs/intrinsics/intrinsics_2d.c", "-o", str(tmp_path / "intrinsics_2d"),
                   cwd=REPO)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "intrinsics_2d.host.c").read_text()
    golden = GOLDEN / "intrinsics_2d.host.c"
    if UPDATE:
        golden.write_text(text)

    def body(t: str) -> str:
        first, _, rest = t.partition("\n")
        return rest if __version__ in first else t
    assert body(text) == body(golden.read_text()), \
        "generated host C differs from tests/golden/intrinsics_2d.host.c (XMPACC_UPDATE_GOLDEN=1 rewrites it)"


# ---------------------------------------------------------------- compile-time mistakes

HEAD = """\
#include <xmp.h>
#pragma xmp nodes p[4]
#pragma xmp template t[100]
#pragma xmp template t2[10][10]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute t2[block][*] onto p
double a[100], b[100], m[10][10], loc[100];
float f[100];
int ix[100], im[10][10];
double _Complex z[100];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp align f[i] with t[i]
#pragma xmp align ix[i] with t[i]
#pragma xmp align z[i] with t[i]
#pragma xmp align m[i][j] with t2[i][j]
#pragma xmp align im[i][j] with t2[i][j]
"""


def in_main(body: str) -> str:
    return (HEAD + "int main(void)\n{\n    xmp_desc_t d = xmp_desc_of(a);\n" + body
            + "\n    return d == 0;\n}\n")


MISTAKES = [
    ("count", "    @xmp_pack(xmp_desc_of(a), xmp_desc_of(b));",
     "xmp_pack takes 3 arguments (v, a, mask); 2 given"),
    ("too-few-gather", "    @xmp_gather(xmp_desc_of(b), xmp_desc_of(a));",
     "xmp_gather takes x, a and one index array"),
    ("template", "    xmp_gather(xmp_desc_of(a), xmp_desc_of(@t), xmp_desc_of(ix));",
     "argument 2 (a) must be a distributed array; 't' is a template or a node array"),
    ("local-array", "    xmp_scatter(xmp_desc_of(b), xmp_desc_of(@loc), xmp_desc_of(ix));",
     "'loc' is not a distributed array"),
    ("rank", "    xmp_transpose(@xmp_desc_of(a), xmp_desc_of(m), 0);",
     "the matrix 'a' has 1 dimension(s); it must have 2"),
    ("sort-rank", "    xmp_sort_down(xmp_desc_of(b), @xmp_desc_of(m));", "the array 'm' has 2 dimension(s)"),
    ("types", "    xmp_gather(xmp_desc_of(f), @xmp_desc_of(a), xmp_desc_of(ix));",
     "'a' has elements of type double but 'f' of type float"),
    ("index-type", "    xmp_gather(xmp_desc_of(b), xmp_desc_of(a), @xmp_desc_of(f));",
     "the index array 'f' has elements of type float; it must be of an integer type"),
    ("mask-type", "    xmp_unpack(xmp_desc_of(a), xmp_desc_of(b), @xmp_desc_of(b));",
     "the mask 'b' has elements of type double"),
    ("index-count", "    @xmp_gather(xmp_desc_of(b), xmp_desc_of(m), xmp_desc_of(ix));",
     "'m' has 2 dimension(s) but 1 index array(s) are given"),
    ("index-rank", "    xmp_scatter(xmp_desc_of(m), xmp_desc_of(a), xmp_desc_of(ix), @xmp_desc_of(im));",
     "the index array 'im' has 2 dimension(s); it must have 1"),
    ("complex-sort", "    xmp_sort_up(xmp_desc_of(z), @xmp_desc_of(z));",
     "it sorts integer and floating-point arrays"),
    ("matmul-rank", "    xmp_matmul(xmp_desc_of(m), @xmp_desc_of(a), xmp_desc_of(m));",
     "the matrix 'a' has 1"),
]


@pytest.mark.parametrize("marked, fragment", [pytest.param(in_main(b), f, id=i) for i, b, f in MISTAKES])
def test_mistake_at_the_argument(marked: str, fragment: str, compile_: Compile, tmp_path: Path) -> None:  # noqa: F811 - the fixture imported above
    source, line, col = place(marked)
    proc, src, _out = compile_(source)
    assert_clean_failure(proc, tmp_path, {src.name})
    assert_error_at(proc.stderr, src, line, col, fragment)


def test_descriptor_variable_where_only_sizes_matter(compile_: Compile, tmp_path: Path) -> None:  # noqa: F811 - the fixture imported above
    proc, _src, out = compile_(in_main("    xmp_pack(d, xmp_desc_of(b), xmp_desc_of(ix));"))
    assert proc.returncode == 0, proc.stderr
    assert out.exists()


def test_descriptor_variable_records_the_element_type(tmp_path: Path) -> None:
    """xmp_desc_of outside an intrinsic call records the element type in the descriptor
    (xmp_sort_up(d, ...) then reads it at run time); inside a library call it does not."""
    src = tmp_path / "prog.c"
    src.write_text(in_main("    xmp_desc_t e = xmp_desc_of(f);\n    xmp_sort_up(e, d);\n"
                           "    int n = xmp_array_ndims(xmp_desc_of(b), &n);"))
    r = run_xmpacc("-S", str(src), "-o", str(tmp_path / "prog"))
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "prog.host.c").read_text()
    assert "xmp_desc_t d = _xmpacc_typed_desc(&_xmpacc_a_a, _XMPACC_TYPE((double) 0));" in text
    assert "xmp_desc_t e = _xmpacc_typed_desc(&_xmpacc_a_f, _XMPACC_TYPE((float) 0));" in text
    assert "_xmpacc_sort(\"prog.c:22\", e, d, 0, 0);" in text
    assert "xmp_array_ndims((void *) (&_xmpacc_a_b), &n)" in text


# ---------------------------------------------------------------- run-time mistakes

RUN_HEAD = """\
#include <xmp.h>
#pragma xmp nodes p[*]
#pragma xmp template t[16]
#pragma xmp template u[8]
#pragma xmp template w[:]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute u[cyclic] onto p
#pragma xmp distribute w[block] onto p
double a[16], b[16], v[8], *dp;
int ix[16], mk[16], iv[8];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp align ix[i] with t[i]
#pragma xmp align mk[i] with t[i]
#pragma xmp align v[i] with u[i]
#pragma xmp align iv[i] with u[i]
#pragma xmp align dp[i] with w[i]
"""

RUNTIME = [
    ("index-range", "int i;\n#pragma xmp loop on t[i]\n"
     "    for (i = 0; i < 16; i++) ix[i] = i == 9 ? 16 : i;\n"
     "    xmp_gather(xmp_desc_of(b), xmp_desc_of(a), xmp_desc_of(ix));", 2,
     "prog.c:23: error: xmp_gather: ix[9] = 16 is outside dimension 0 of 'a' (0..15)"),
    ("scatter-negative", "int i;\n#pragma xmp loop on t[i]\n    for (i = 0; i < 16; i++) ix[i] = -i;\n"
     "    xmp_scatter(xmp_desc_of(b), xmp_desc_of(a), xmp_desc_of(ix));", 1,
     "prog.c:23: error: xmp_scatter: ix[1] = -1 is outside dimension 0 of 'b' (0..15)"),
    ("pack-too-small", "int i;\n#pragma xmp loop on t[i]\n"
     "    for (i = 0; i < 16; i++) mk[i] = i % 2 == 0 || i == 3;\n"
     "    xmp_pack(xmp_desc_of(v), xmp_desc_of(a), xmp_desc_of(mk));", 3,
     "prog.c:23: error: xmp_pack: 'mk' has 9 true elements but 'v' has only 8"),
    ("gather-shapes", "xmp_gather(xmp_desc_of(v), xmp_desc_of(a), xmp_desc_of(ix));", 2,
     "prog.c:20: error: xmp_gather: 'v' has shape [8] but 'ix' has shape [16]; they must be the same"),
    ("sort-shapes", "#pragma xmp template_fix w[12]\n    dp = xmp_malloc(xmp_desc_of(dp), 12);\n"
     "    xmp_sort_up(xmp_desc_of(dp), xmp_desc_of(a));", 2,
     "prog.c:22: error: xmp_sort_up: 'dp' [12] and 'a' [16] must be one-dimensional arrays of one size"),
    ("not-allocated", "xmp_sort_up(xmp_desc_of(dp), xmp_desc_of(a));", 2,
     "prog.c:20: error: template 'w' is not fixed yet"),
    ("template-variable", "xmp_desc_t d = xmp_desc_of(t);\n    xmp_pack(d, xmp_desc_of(a), xmp_desc_of(mk));",
     2, "prog.c:21: error: xmp_pack: argument 1 (v) is the descriptor of a template"),
    ("outside-task", "#pragma xmp task on p[0]\n    xmp_sort_up(xmp_desc_of(b), xmp_desc_of(a));", 2,
     "prog.c:21: error: only 8 of the 16 elements of 'a' are held by nodes of the executing node set"),
]


@pytest.mark.mpi
@pytest.mark.parametrize("name,body,nprocs,message", RUNTIME, ids=[c[0] for c in RUNTIME])
def test_runtime_error_names_the_line_and_the_values(tmp_path: Path, name: str, body: str, nprocs: int,
                                                     message: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(RUN_HEAD + f"int main(void)\n{{\n    {body}\n    return 0;\n}}\n")
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(nprocs, exe, timeout=60)
    assert r.returncode != 0
    assert message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
