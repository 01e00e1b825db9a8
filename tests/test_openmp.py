"""XMP + OpenMP (issue 30): OpenMP lines next to a loop directive end up directly above the
node's own ``for``, in either order; <omp.h> parses; code that OpenMP runs on several
threads or on the GPU may not hold XMP directives or OpenMP lines.  The programs of
tests/omni run such loops under mpirun (test_omni_apps.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_passes import DECLS, errors_of, function, run_passes

from xmpacc.cbuild import to_c

OPENMP = ("-fopenmp",)   # what cli.py gives the front end for -fopenmp, -omp and --openmp

@pytest.mark.parametrize("lines", [
    "#pragma xmp loop on t[i] reduction(+:s)\n#pragma omp parallel for reduction(+:s)",
    "#pragma omp parallel for reduction(+:s)\n#pragma xmp loop on t[i] reduction(+:s)",
], ids=["xmp-omp", "omp-xmp"])
def test_openmp_line_goes_above_the_nodes_own_for(tmp_path: Path, lines: str) -> None:
    """The loop is lowered as without the line, which stands right above the node's own
    for: the schedule and the reduction's calls stay outside the threads."""
    def c_of(directives: str) -> list[str]:
        source = DECLS + f"void f(void)\n{{\n    int i;\n    double s = 0;\n{directives}\n" \
                         "    for (i = 0; i < 100; i++)\n        s += a[i];\n}\n"
        unit, _ctx = run_passes(tmp_path, source, cpp_args=OPENMP)
        return to_c(function(unit, "f")).splitlines()

    xmp = next(line for line in lines.splitlines() if "xmp" in line)
    plain = c_of("\n" + xmp if lines.startswith("#pragma omp") else xmp + "\n")   # same line numbers
    hybrid = c_of(lines)
    k = next(k for k, line in enumerate(hybrid) if line.strip().startswith("#pragma omp"))
    assert hybrid[k].strip() == "#pragma omp parallel for reduction(+:s)"
    assert hybrid[k + 1].strip().startswith("for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)")
    assert hybrid[:k] + hybrid[k + 1:] == plain


def lowered(tmp_path: Path, decls: str, body: str, cpp_args: tuple[str, ...] = OPENMP) -> str:
    unit, _ctx = run_passes(tmp_path, decls + "void f(void)\n{\n    int i, j;\n" + body + "}\n",
                            cpp_args=cpp_args)
    return to_c(function(unit, "f"))


DECLS_2D = """\
#pragma xmp nodes p[2][2]
#pragma xmp template t[20][30]
#pragma xmp distribute t[block][cyclic(2)] onto p
double a[20][30];
#pragma xmp align a[i][j] with t[i][j]
"""
COLLAPSED = """\
#pragma xmp loop (i, j) on t[i][j]
#pragma omp parallel for collapse(2)
    for (i = 0; i < 20; i++)
        for (j = {j0}; j < 30; j++)
            a[i][j] = i + j;
"""


def test_collapse_hoists_the_inner_schedules(tmp_path: Path) -> None:
    """collapse(2) needs the two loops perfectly nested: the inner loop's schedule goes
    above the nest; its loop over positions declares the column index, private to each
    thread as the index of a collapsed loop is."""
    c = lowered(tmp_path, DECLS_2D, COLLAPSED.format(j0="0"))
    nest = c[c.index("_xmpacc_sched_t _xmpacc_s_i"):]
    assert nest.index("_xmpacc_s_j = _xmpacc_schedule_pos") < nest.index("#pragma omp")
    assert "#pragma omp parallel for collapse(2)\n" \
           "        for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)\n" \
           "          for (long long _xmpacc_p_j = " in c
    assert "int j = _xmpacc_tdim_glb(&_xmpacc_t_t.dim[1], _xmpacc_p_j);" in c


def test_inner_schedule_that_uses_the_outer_index_stays(tmp_path: Path) -> None:
    """A triangular nest cannot be collapsed: its schedule stays, and the host compiler
    says that the loops are not perfectly nested."""
    c = lowered(tmp_path, DECLS_2D, COLLAPSED.format(j0="i"))
    assert c.index("#pragma omp") < c.index("_xmpacc_s_j = _xmpacc_schedule_pos")


def test_cyclic_index_is_private_to_each_thread(tmp_path: Path) -> None:
    decls = DECLS.replace("t[block]", "t[cyclic(3)]")
    body = "#pragma omp parallel for\n#pragma xmp loop on t[i]\n" \
           "    for (i = 0; i < 100; i++)\n        a[i] = i;\n"
    c = lowered(tmp_path, decls, body)
    assert "#pragma omp parallel for\n" \
           "        for (long long _xmpacc_p_i = _xmpacc_s_i.first;" in c
    assert "int i = _xmpacc_tdim_glb(&_xmpacc_t_t.dim[0], _xmpacc_p_i);" in c
    plain = lowered(tmp_path, decls, body.replace("#pragma omp parallel for\n", ""))
    assert " i = _xmpacc_tdim_glb(" in plain and "int i = _xmpacc_tdim_glb" not in plain


def test_margin_cells_keep_the_line_above_each_cells_loop(tmp_path: Path) -> None:
    decls = DECLS + "#pragma xmp shadow a[1]\n"
    c = lowered(tmp_path, decls, "#pragma xmp loop on t[i] margin(1)\n#pragma omp parallel for\n"
                                 "    for (i = 0; i < 100; i++)\n        a[i] = i;\n")
    cells = c.index("for (int _xmpacc_cell_1 = 0;")
    assert cells < c.index("#pragma omp parallel for\n          for (i = _xmpacc_s_i.first;")


def test_without_openmp_the_line_stays_and_nothing_is_checked(tmp_path: Path) -> None:
    """cc ignores OpenMP lines without -fopenmp: one thread, so XMP inside is fine."""
    body = "#pragma omp parallel\n    {\n#pragma xmp loop on t[i]\n    for (i = 0; i < 100; i++)\n" \
           "        a[i] = i;\n    }\n"
    c = lowered(tmp_path, DECLS, body, cpp_args=())
    assert c.index("#pragma omp parallel") < c.index("_xmpacc_schedule(")


def test_omp_h_and_the_openmp_macros(tmp_path: Path) -> None:
    """<omp.h> parses with or without OpenMP (the real header is included in the generated
    C); with it, _OPENMP is defined and macros expand in OpenMP lines, as cc does."""
    source = DECLS + """\
#include <omp.h>
#define CHUNK 4
omp_lock_t lock;
int f(void)
{
    int i;
#ifdef _OPENMP
    omp_sched_t kind;
    omp_get_schedule(&kind, &i);
#endif
#pragma xmp loop on t[i]
#pragma omp parallel for schedule(static, CHUNK)
    for (i = 0; i < 100; i++)
        a[i] = omp_get_thread_num();
    return omp_get_max_threads();
}
"""
    for cpp_args, schedule in ((OPENMP, "schedule(static, 4)"), ((), "schedule(static, CHUNK)")):
        unit, _ctx = run_passes(tmp_path, source, cpp_args=cpp_args)
        assert "omp.h" in unit.pre.system_includes
        c = to_c(function(unit, "f"))
        assert f"#pragma omp parallel for {schedule}\n" in c
        assert ("omp_get_schedule" in c) == bool(cpp_args)


ERRORS = [
    ("#pragma omp parallel\n    {\n#pragma xmp loop on t[i]\n    for (i = 0; i < 100; i++) a[i] = i;\n"
     "    }\n",
     (12, 13), "'loop' inside code that '#pragma omp parallel' (line 10) runs on several threads: the XMP "
              "runtime runs on one thread of each node"),
    ("#pragma omp parallel for\n    for (j = 0; j < 4; j++) {\n#pragma xmp barrier\n    }\n",
     (12, 13), "'barrier' inside code that '#pragma omp parallel for' (line 10)"),
    ("#pragma omp parallel sections\n    {\n#pragma xmp gmove\n    a[0:10] = a[10:10];\n    }\n",
     (13, 5), "an XMP directive inside code that '#pragma omp parallel sections' (line 10)"),
    ("#pragma xmp loop on t[i]\n#pragma omp parallel for\n    for (i = 0; i < 100; i++) {\n"
     "#pragma xmp loop on t[j] reduction(+:s)\n    for (j = 0; j < 100; j++) s += a[j];\n    }\n",
     (13, 13), "'loop' inside a loop that '#pragma omp parallel for' (line 11) runs on several threads"),
    ("#pragma xmp loop on t[i] reduction(firstmax: s /j/)\n#pragma omp parallel for\n"
     "    for (i = 0; i < 100; i++) if (a[i] > s) { s = a[i]; j = i; }\n",
     (10, 26), "a reduction with location variables on a loop that '#pragma omp parallel for' splits over "
              "threads is not supported yet: its records are kept per node, not per thread"),
    ("#pragma xmp acc replicate (a)\n    {\n#pragma omp parallel for\n#pragma xmp loop on t[i] acc\n"
     "    for (i = 0; i < 100; i++) a[i] = i;\n    }\n",
     (12, 9), "'#pragma omp parallel for' on a 'loop ... acc', which runs on the GPU: OpenMP splits host "
             "loops over threads (next to a loop directive without acc)"),
    ("#pragma xmp acc replicate (a)\n    {\n#pragma xmp loop on t[i] acc\n#pragma omp parallel for\n"
     "    for (i = 0; i < 100; i++) a[i] = i;\n    }\n",
     (13, 9), "'#pragma omp parallel for' on a 'loop ... acc'"),
    ("#pragma xmp acc replicate (a)\n    {\n#pragma xmp loop on t[i] acc\n    for (i = 0; i < 100; i++) {\n"
     "#pragma omp simd\n    for (j = 0; j < 4; j++) a[i] += j;\n    }\n    }\n",
     (14, 9), "'#pragma omp simd' inside an acc loop, which runs on the GPU"),
    ("#pragma acc data copy(a)\n    {\n#pragma xmp loop on t[i]\n#pragma omp parallel for\n"
     "#pragma acc parallel loop\n    for (i = 0; i < 100; i++) a[i] = i;\n    }\n",
     (13, 9), "'#pragma omp parallel for' on an OpenACC compute construct, which runs on the GPU"),
]


@pytest.mark.parametrize("body,at,message", ERRORS, ids=[
    "xmp-in-parallel-region", "barrier-in-parallel-for", "gmove-in-sections", "nested-xmp-loop",
    "location-reduction", "omp-above-loop-acc", "omp-below-loop-acc", "omp-in-acc-loop-body",
    "omp-on-acc-compute"])
def test_openmp_mistakes_are_located(tmp_path: Path, body: str, at: tuple[int, int], message: str) -> None:
    source = DECLS + "void f(void)\n{\n    int i, j;\n    double s = 0;\n" + body + "}\n"
    errors = errors_of(tmp_path, source, cpp_args=OPENMP)
    assert [(e.loc.line, e.loc.col) for e in errors] == [at] and message in errors[0].message, \
        [str(e) for e in errors]
