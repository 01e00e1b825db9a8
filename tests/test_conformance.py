"""Conformance fixes of issue 30 (part 7): constructs that Omni's own test programs use
and that gave wrong answers, errors or crashes.  Each has a lowering test here and a
program in tests/conformance/ shaped like an application, run under mpirun on the host
backend and compared with its serial build (pragmas ignored, sections as plain loops in
the programs' #else branches).

* reductions and bcast of array parameters (``int plus(int a[N])``: a pointer in C, so
  the count is the declared extent, not sizeof), operators in capitals;
* the array directive on arrays aligned in another dimension order than the template, on
  a section shorter than the template, on an array with a collapsed dimension;
* align inside a function for a file-scope array; aligned pointer parameters in a
  template_fix program; free() of xmp_malloc's memory;
* reduce_shadow at 16 nodes, xmp_sort_up at 8, the inquiry functions on a 3 x 4 grid.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import SharedBuilds, assert_prints, run_mpi, run_xmpacc, xmpacc_and_serial
from test_passes import errors_of, function, run_passes

from xmpacc.cbuild import to_c

PROGRAMS = Path(__file__).parent / "conformance"

# program -> the process counts it runs with against its serial build
CASES: dict[str, tuple[int, ...]] = {
    "array_parameters.c": (1, 2, 4),
    "array_alignment.c": (1, 2, 3, 4),
    "function_declarations.c": (1, 2, 4),
    "sort_many.c": (1, 4),
    "reduce_shadow_many.c": (1, 3),
}
# oversubscribed (the counts the programs crashed at)
MANY_PROCS: dict[str, tuple[int, ...]] = {
    "sort_many.c": (8,),
    "reduce_shadow_many.c": (16,),
}

DECLS = """\
#pragma xmp nodes p[*]
#pragma xmp template t[16]
#pragma xmp distribute t[block] onto p
"""


def lowered(tmp_path: Path, source: str, name: str) -> str:
    """The function ``name`` as pycparser prints it, spacing folded."""
    unit, _ctx = run_passes(tmp_path, source)
    return " ".join(to_c(function(unit, name)).split())


# ---------------------------------------------------------------- array parameters

def test_array_parameters_reduce_their_declared_extent(tmp_path: Path) -> None:
    """sizeof of an array parameter is a pointer's: the declared extent counts (the rows
    by sizeof), a parameter without one reduces the section it names from its address."""
    text = lowered(tmp_path, DECLS + """
void f(int a[8], long g[8][3], int n, int h[], int v[4])
{
#pragma xmp reduction(+:a)
#pragma xmp reduction(MAX:g)
#pragma xmp reduction(MIN:h[0:n])
#pragma xmp bcast (v)
}
""", "f")
    assert '_xmpacc_reduce(a, "unit.c:7", 8, _XMPACC_TYPE(a[0]), 1, 0, 0);' in text
    assert ('_xmpacc_reduce(g, "unit.c:8", 8 * ((sizeof(g[0])) / (sizeof(g[0][0]))), '
            '_XMPACC_TYPE(g[0][0]), 8, ') in text
    assert ("(void *) h, (const long long []){_XMPACC_TYPE(h[0]), sizeof(h[0]), 1, 0 + n, "
            "1, 1, 0, n, 1}") in text
    assert '_xmpacc_bcast(v, "unit.c:10", 4 * (sizeof(v[0])), ' in text


def test_loop_locations_in_an_array_parameter_are_its_elements(tmp_path: Path) -> None:
    """The record of a location section in an array parameter watches the elements the
    parameter points to, not the pointer."""
    text = lowered(tmp_path, DECLS + """
double x[16];
#pragma xmp align x[i] with t[i]
double f(int at[2])
{
    double best = -1;
#pragma xmp loop on t[i] reduction(lastmax:best /at[0:2]/)
    for (int i = 0; i < 16; i++)
        if (x[i] >= best) { best = x[i]; at[0] = i; }
    return best;
}
""", "f")
    assert "sizeof(at)" not in text and "&at)" not in text
    assert "((char *) at) + _xmpacc_off" in text and "(void *[]){(void *) at}" in text


@pytest.mark.parametrize("body,fragment", [
    ("#pragma xmp reduction(+:a)", "'a' is an array parameter declared without an extent ('a[]')"),
    ("#pragma xmp bcast (a)", "or name its elements as a section, 'a[0:n]'"),
])
def test_array_parameter_without_extent_needs_a_section(tmp_path: Path, body: str, fragment: str) -> None:
    errors = errors_of(tmp_path, DECLS + f"void f(int a[], int n)\n{{\n{body}\n}}\n")
    assert len(errors) == 1 and fragment in errors[0].message
    assert (errors[0].loc.line, errors[0].loc.col) == (6, body.index("a", body.index("(")) + 1)


# ---------------------------------------------------------------- the array directive

ARRAY_DECLS = DECLS + """\
#pragma xmp template t2(0:5, 0:9)
#pragma xmp distribute t2(block, *) onto p
double a2[6][10], x[16][4], u[16];
#pragma xmp align a2[i][j] with t2(i, j)
#pragma xmp align x[i][*] with t[i]
#pragma xmp align u[i] with t[i]
"""


def test_array_directive_follows_the_left_hand_sides_alignment(tmp_path: Path) -> None:
    """a2[i][j] with t2(i,j) is aligned with t2[j][i]: its first dimension is scheduled on
    the template's second; x's collapsed dimension is a plain loop; u[0:15] runs on the
    owners of its elements although t[:] has 16."""
    text = lowered(tmp_path, ARRAY_DECLS + """
void f(void)
{
#pragma xmp array on t2(:, :)
    a2[:][:] = 1.0;
#pragma xmp array on t[:]
    x[:][:] = 2.0;
#pragma xmp array on t[:]
    u[0:15] = 3.0;
}
""", "f")
    first, second, third = text.split("_xmpacc_sched_t _xmpacc_s__xmpacc_g0")[1:]
    assert first.startswith(" = _xmpacc_schedule(&_xmpacc_t_t2.dim[1], 0, 0 + ((6 - 1) * 1), 1);")
    assert "_xmpacc_schedule(&_xmpacc_t_t2.dim[0], 0, 0 + ((10 - 1) * 1), 1)" in first
    assert "for (long long _xmpacc_g1 = 0; _xmpacc_g1 <= (0 + ((4 - 1) * 1)); _xmpacc_g1 += 1)" in second
    assert third.startswith(" = _xmpacc_schedule(&_xmpacc_t_t.dim[0], 0, 0 + ((15 - 1) * 1), 1);")
    assert "_xmpacc_section_error" not in text   # the left-hand side is local by construction


@pytest.mark.parametrize("body,fragment", [
    ("#pragma xmp array on t[0:8]\n    u[0:10] = 1.0;", "'t' has shape [8] but 'u' has shape [10]"),
    ("#pragma xmp array on t[*]\n    u[:] = 1.0;", "'t' has 0 dimension(s) but 'u' has 1"),
])
def test_array_directive_still_checks_explicit_template_sections(tmp_path: Path, body: str,
                                                                 fragment: str) -> None:
    errors = errors_of(tmp_path, ARRAY_DECLS + f"void f(void)\n{{\n    {body}\n}}\n")
    assert len(errors) == 1 and fragment in errors[0].message


# ---------------------------------------------------------------- declarations

def test_align_in_a_function_maps_the_file_scope_array(tmp_path: Path) -> None:
    """Omni allows it: the file-scope array is distributed (allocated at start-up) and
    every function sees its mapping; the shadow may stand at file scope."""
    source = DECLS + """
double a[16];
#pragma xmp shadow a[1]
void g(void)
{
    a[3] = 1.0;
}
void f(void)
{
#pragma xmp align a[i] with t[i]
    a[2] = 0.0;
}
"""
    unit, ctx = run_passes(tmp_path, source)
    assert ctx.scopes is not None and ctx.scopes.root.arrays["a"].dims[0].shadow_lo == "1"
    assert any(to_c(s).startswith("a = (double *) _xmpacc_align(&_xmpacc_a_a") for s in ctx.init_stmts)
    for name in ("f", "g"):
        assert "_XMPACC_L(_xmpacc_a_a, 0, " in to_c(function(unit, name))


@pytest.mark.parametrize("body,fragment", [
    ("void f(void)\n{\n#pragma xmp align a[i] with t[i]\n}\n"
     "void g(void)\n{\n#pragma xmp align a[i] with u[i]\n}", "array 'a' is already aligned"),
    ("void f(void)\n{\n#pragma xmp template w[16]\n#pragma xmp distribute w[block] onto p\n"
     "#pragma xmp align a[i] with w[i]\n}", "'a' is declared outside this block but template 'w' inside it"),
])
def test_align_in_a_function_mistakes(tmp_path: Path, body: str, fragment: str) -> None:
    source = DECLS + "#pragma xmp template u[16]\n#pragma xmp distribute u[cyclic] onto p\n" \
        "double a[16];\n" + body
    errors = errors_of(tmp_path, source + "\n")
    assert len(errors) == 1 and fragment in errors[0].message


def test_aligned_pointer_parameters_take_the_arguments_extents(tmp_path: Path) -> None:
    """'double *b' and 'double a[][4]' aligned in a function: -1 for the extents the
    parameter does not declare, which the runtime takes from the array passed."""
    text = lowered(tmp_path, DECLS + """
void f(double a[][4], double *b)
{
#pragma xmp align a[i][*] with t[i]
#pragma xmp align b[i] with t[i]
}
""", "f")
    assert "(const long long []){-1, 4}, a);" in text
    assert "(const long long []){-1}, b);" in text


# ---------------------------------------------------------------- programs

def _params(table: dict[str, tuple[int, ...]], marks: tuple = ()) -> list[object]:
    return [pytest.param(name, n, id=f"{Path(name).stem}-np{n}", marks=marks)
            for name, counts in table.items() for n in counts]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    """program -> (executable, serial output), each built once per test run, by xmpacc
    without a warning and by plain cc."""
    return SharedBuilds(tmp_path_factory, "conformance", CASES, xmpacc_and_serial(PROGRAMS, warnings=False))


def test_every_program_is_listed() -> None:
    assert {p.name for p in PROGRAMS.glob("*.c")} - {"inquiry_grid.c", "free_helper.c"} == set(CASES)


@pytest.mark.mpi
@pytest.mark.parametrize("name,nprocs", _params(CASES) + _params(MANY_PROCS, (pytest.mark.many_procs,)))
def test_program_prints_what_its_serial_build_prints(built: dict[str, tuple[Path, str]], name: str,
                                                     nprocs: int) -> None:
    exe, expected = built[name]
    assert_prints(exe, nprocs, expected)


INQUIRY_3X4 = """\
nodes_size(p) 3 4  grid covered 12  mismatches 0
dim 1: template 0:9 format 2101 block 4 axis 1 | array ubound 6 align_axis 2 replicated 0 lshadow 0
dim 2: template 0:6 format 2102 block 1 axis 2 | array ubound 9 align_axis 1 replicated 0 lshadow 1
tq dim 1 ubound 9  elements owned 70
"""


@pytest.mark.mpi
@pytest.mark.many_procs
def test_inquiry_functions_on_a_3x4_grid(tmp_path: Path) -> None:
    """Dimension numbers as Omni's: nodes p(3,4) has 3 nodes along dimension 1; a table
    indexed by the node indices stays in bounds (it overran, and the job aborted)."""
    exe = tmp_path / "inquiry_grid"
    r = run_xmpacc(str(PROGRAMS / "inquiry_grid.c"), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(12, exe, timeout=180)
    assert r.returncode == 0, r.stderr
    assert r.stdout == INQUIRY_3X4


@pytest.mark.mpi
def test_free_of_xmp_malloc_memory_in_a_plain_c_object(tmp_path: Path) -> None:
    """A block that xmp_malloc returned, freed by a function of a file compiled by plain
    cc (its free is wrapped at the link too); the pointer then gets new blocks."""
    helper = tmp_path / "free_helper.o"
    subprocess.run(["cc", "-c", "-fPIC", str(PROGRAMS / "free_helper.c"), "-o", str(helper)], check=True)
    src = tmp_path / "prog.c"
    src.write_text(DYNAMIC + """
void release(double *p);
int main(void)
{
    int n = 12, k, i;
    double s = 0;
#pragma xmp template_fix t[n]
    for (k = 0; k < 3; k++) {
        x = (double *) xmp_malloc(xmp_desc_of(x), n);
#pragma xmp loop on t[i] reduction(+:s)
        for (i = 0; i < n; i++) { x[i] = i + k; s += x[i]; }
        release(x);
    }
    if (xmpc_node_num() == 0) printf("s = %.1f\\n", s);
    return 0;
}
""")
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), str(helper), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(2, exe, timeout=60, env={"XMPACC_STATS": "1"})
    assert r.returncode == 0, r.stderr
    assert r.stdout == "s = 234.0\n"
    # the runtime dropped the freed blocks' arrays: only p, t and x's mapping are left
    assert r.stderr.count('"descriptors": 3') == 2, r.stderr


DYNAMIC = """\
#include <stdio.h>
#include <stdlib.h>
#include <xmp.h>
#pragma xmp nodes p[*]
#pragma xmp template t[:]
#pragma xmp distribute t[block] onto p
double *x;
#pragma xmp align x[i] with t[i]
"""

RUNTIME_ERRORS = [
    ("use-after-free", "    free(x);\n#pragma xmp loop on t[i]\n    for (i = 0; i < n; i++) x[i] = 1;", 2,
     "prog.c:16: error: 'x' is not allocated: call xmp_malloc before using it"),
    ("xmp-free-after-free", "    free(x);\n    xmp_free(x);", 2,
     "prog.c:15: error: xmp_free of a pointer that xmp_malloc did not return (or that was freed already)"),
]


@pytest.mark.mpi
@pytest.mark.parametrize("name,body,nprocs,message", RUNTIME_ERRORS, ids=[c[0] for c in RUNTIME_ERRORS])
def test_freed_block_is_reported_not_reused(tmp_path: Path, name: str, body: str, nprocs: int,
                                            message: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(DYNAMIC + "int main(void)\n{\n    int n = 8, i;\n#pragma xmp template_fix t[n]\n"
                   "    x = (double *) xmp_malloc(xmp_desc_of(x), n);\n" + body + "\n    return 0;\n}\n")
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(nprocs, exe, timeout=60)
    assert r.returncode != 0 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and "free()" not in r.stderr


@pytest.mark.mpi
def test_reduce_shadow_wider_than_a_neighbours_block_is_an_error(tmp_path: Path) -> None:
    """It added the shadow copies into the wrong elements (a silent wrong answer), where
    reflect says the shadow is too big."""
    src = tmp_path / "prog.c"
    src.write_text("""\
#pragma xmp nodes p[*]
#pragma xmp template t[8]
#pragma xmp distribute t[block] onto p
double a[8];
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[3]
int main(void)
{
#pragma xmp reduce_shadow (a)
    return 0;
}
""")
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(4, exe, timeout=60)
    assert r.returncode != 0
    assert ("prog.c:9: error: shadow size is too big: node 0 along dimension 0 owns 2 element(s) of 'a', "
            "fewer than the shadow width 3") in r.stderr, r.stderr
