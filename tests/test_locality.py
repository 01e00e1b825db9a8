"""The locality pass (xmpacc/passes/locality/locality.py): reads and writes in ``loop`` that may
leave the node's block and shadow, and shadow reads with no ``reflect`` since the array's
last write.

Each positive case marks the place of the one diagnostic with ``@`` (removed before the
file is written) and gives its severity and a fragment of its message; each negative
case must say nothing.  Then: no C program of the repository (samples, labs, every test
folder, benchmarks) gets a locality diagnostic except the deliberate mistakes, and the
command line prints the warning gcc-style and still builds.  The constructs of the rest of
the global view and XcalableACC have their cases in tests/test_locality_global_view.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, SAMPLES, run_mpi, run_xmpacc, same_output, serial_output

from xmpacc.context import Context, Unit
from xmpacc.diagnostics import XmpError, XmpErrors
from xmpacc.driver import PASSES
from xmpacc.frontend.cparse import parse_c
from xmpacc.frontend.preprocess import preprocess

MARK = "@"
# every message of the pass contains one of these
LOCALITY = ("may be on another node", "reads the shadow of", "writes a shadow slot",
            "written outside this node's block")

HEAD_1D = """\
#include <stdio.h>
#define N 100
double a[N], b[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[{dist}] onto p
#pragma xmp align a[i] with t[i{off}]
#pragma xmp align b[i] with t[i]
{shadow}
"""


def one_d(body: str, shadow: str = "", dist: str = "block", off: str = "") -> str:
    return HEAD_1D.format(dist=dist, shadow=shadow, off=off) + \
        f"int main(void)\n{{\n    int i, j, step;\n    double s = 0;\n{body}\n    return (int) s;\n}}\n"


HEAD_2D = """\
#define N 8
double u[N][N], w[N][N];
#pragma xmp nodes p[2][2]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][block] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align w[i][j] with t[i][j]
{shadow}
"""


def two_d(body: str, shadow: str = "") -> str:
    return HEAD_2D.format(shadow=shadow) + \
        f"int main(void)\n{{\n    int i, j, k;\n    double s = 0;\n{body}\n    return (int) s;\n}}\n"


INIT = "#pragma xmp loop on t[i]\n    for (i = 0; i < N; i++) a[i] = i;\n"
STENCIL = "#pragma xmp loop on t[i]\n    for (i = 1; i < N - 1; i++)\n        b[i] = @a[i - 1] + a[i + 1];\n"


def file_diagnostics(src: Path) -> list[XmpError]:
    """The locality diagnostics (warnings and errors) of the program in ``src``."""
    return [d for d in stage_diagnostics(src) if any(m in d.message for m in LOCALITY)]


def stage_diagnostics(src: Path) -> list[XmpError]:
    """Every diagnostic of the stages up to locality (not later: constructs that later
    stages reject still count), in source order."""
    ctx = Context()
    try:
        pre = preprocess(str(src), [], "cc", False)
        unit = Unit(str(src), pre, parse_c(pre.text, str(src)))
        for name, passes in PASSES:
            for run in passes:
                unit = run(unit, ctx)
            if name == "locality":
                break
        found = ctx.diags.errors + ctx.diags.warnings
    except XmpErrors as e:
        found = e.errors + ctx.diags.warnings
    return sorted(found, key=lambda d: (d.loc.line, d.loc.col))


def diagnostics(tmp_path: Path, source: str) -> list[XmpError]:
    src = tmp_path / "prog.c"
    src.write_text(source)
    return file_diagnostics(src)


def place(marked: str) -> tuple[str, int, int]:
    assert marked.count(MARK) == 1, "mark exactly one place"
    before = marked[:marked.index(MARK)]
    return marked.replace(MARK, ""), before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


POSITIVE = [
    # ---- the wrong-answer stencil of the labs: no shadow, no reflect
    ("stencil-no-shadow", one_d(INIT + STENCIL), "warning",
     "a[i - 1] may be on another node: this loop runs each iteration on the owner of t[i], "
     "and a[i - 1] lies 1 element below that node's block; declare '#pragma xmp shadow a[1]' and add "
     "'#pragma xmp reflect (a)' before the loop"),
    ("stencil-upper-side", one_d(INIT + STENCIL.replace("@a[i - 1] + a[i + 1]", "a[i] + @a[i + 1]")),
     "warning", "a[i + 1] may be on another node: this loop runs each iteration on the owner of t[i], "
                "and a[i + 1] lies 1 element above that node's block; declare '#pragma xmp shadow a[0:1]'"),
    ("shadow-too-narrow", one_d(INIT + "#pragma xmp reflect (a)\n" +
                                STENCIL.replace("a[i + 1]", "a[i + 2]").replace("@a[i - 1] + ",
                                                                                "a[i - 1] + @"),
                                "#pragma xmp shadow a[1]"), "warning",
     "a[i + 2] may be on another node: this loop runs each iteration on the owner of t[i], "
     "and a[i + 2] lies 2 elements above that node's block, beyond the shadow of 'a'; widen it to "
     "'#pragma xmp shadow a[1:2]'"),
    # ---- shadow declared, reflect missing: straight line and loop-carried
    ("no-reflect-after-write", one_d(INIT + STENCIL, "#pragma xmp shadow a[1]"), "warning",
     "a[i - 1] reads the shadow of 'a', which is stale here: 'a' is written at line 15 and not "
     "reflected since; add '#pragma xmp reflect (a)' before this loop"),
    ("no-reflect-in-time-loop", one_d(INIT + "#pragma xmp reflect (a)\n"
                                             "    for (step = 0; step < 10; step++) {\n"
                                      + STENCIL + "#pragma xmp loop on t[i]\n    for (i = 1; i < N - 1; i++)"
                                      " a[i] = b[i];\n    }\n", "#pragma xmp shadow a[1]"), "warning",
     "'a' is written at line 22 (in the previous iteration) and not reflected since"),
    ("no-reflect-after-branch", one_d(INIT + "#pragma xmp reflect (a)\n    if (s > 0) {\n" + INIT + "    }\n"
                                      + STENCIL, "#pragma xmp shadow a[1]"), "warning",
     "'a' is written at line 19 and not reflected since"),
    ("no-reflect-acc-loop", one_d(INIT + "#pragma xmp acc replicate (a, b)\n    {\n"
                                  "#pragma xmp acc replicate_sync in (a)\n"
                                  + STENCIL.replace("on t[i]\n", "on t[i] acc\n") + "    }\n",
                                  "#pragma xmp shadow a[1]"), "warning", "reads the shadow of 'a'"),
    # ---- writes
    ("write-outside-block", one_d("#pragma xmp loop on t[i]\n    for (i = 0; i < N - 1; i++) @a[i + 1] = 0;"),
     "error", "a[i + 1] is written outside this node's block: this loop runs each iteration on the "
              "owner of t[i], and a[i + 1] lies 1 element above that node's block; a distributed "
              "loop may write only the elements of its node"),
    ("write-into-shadow", one_d("#pragma xmp loop on t[i]\n    for (i = 0; i < N - 1; i++) @a[i + 1] = 0;",
                                "#pragma xmp shadow a[1]"), "warning",
     "a[i + 1] writes a shadow slot of 'a'"),
    # what only may leave the block is a warning (issue 30: Omni compiles it), what certainly
    # does an error
    ("write-every-element", one_d("#pragma xmp loop on t[i]\n    for (i = 0; i < N; i++)\n"
                                  "        for (j = 0; j < N; j++) @a[j] = 0;"), "warning",
     "a[j] may be written outside this node's block: this loop runs each iteration on the owner of "
     "t[i], which need not hold a[j]"),
    ("write-constant-subscript", one_d("#pragma xmp loop on t[i]\n    for (i = 0; i < 1; i++) @a[0] = 1;"),
     "warning", "a[0] may be written outside this node's block"),
    ("2d-write-certain-and-may", two_d("#pragma xmp loop (i, j) on t[i][j]\n    for (i = 0; i < N; i++)\n"
                                       "        for (j = 0; j < N - 1; j++) @u[0][j + 1] = 0;"),
     "error", "u[0][j + 1] is written outside this node's block: this loop runs each iteration on the "
              "owner of t[i][j], and u[0][j + 1] lies 1 element above that node's block"),
    # ---- subscripts that do not follow the loop's index
    ("inner-loop-index", one_d("#pragma xmp loop on t[i]\n    for (i = 0; i < N; i++)\n"
                               "        for (j = 0; j < N; j++)\n            if (i != j) s += @a[j];"),
     "warning",
     "a[j] may be on another node: this loop runs each iteration on the owner of t[i], which need not "
     "hold a[j]; declare '#pragma xmp shadow a[*]' and add '#pragma xmp reflect (a)' before the loop"),
    ("constant-subscript", one_d("#pragma xmp loop on t[i]\n    for (i = 0; i < N; i++) b[i] = @a[0];"),
     "warning", "a[0] may be on another node"),
    ("cyclic-neighbour", one_d(INIT + STENCIL, dist="cyclic"), "warning",
     "a[i - 1] may be on another node: this loop runs each iteration on the owner of t[i], and t is "
     "cyclic-distributed, so neighbouring elements are on different nodes; cyclic dimensions take no shadow"),
    ("align-offset", one_d("#pragma xmp loop on t[i]\n    for (i = 0; i < N - 1; i++) b[i] = @a[i];",
                           off=" + 1"), "warning", "a[i] may be on another node"),
    # ---- full shadow: never outside, but it needs a reflect after a write
    ("full-shadow-not-reflected", one_d(INIT + "#pragma xmp loop on t[i]\n    for (i = 0; i < N; i++)\n"
                                        "        for (j = 0; j < N; j++) b[i] += @a[j];",
                                        "#pragma xmp shadow a[*]"),
     "warning", "a[j] reads the shadow of 'a', which is stale here"),
    # ---- two dimensions
    ("switch-case-without-reflect",
     one_d(INIT + "    switch ((int) s) {\n    case 0:\n#pragma xmp reflect (a)\n        break;\n"
           "    default:\n        s = 1;\n        break;\n    }\n" + STENCIL, "#pragma xmp shadow a[1]"),
     "warning", "reads the shadow of 'a', which is stale here"),
    ("switch-without-default", one_d(INIT + "    switch ((int) s) {\n    case 0:\n        s = 2;\n"
                                     "#pragma xmp reflect (a)\n        break;\n    }\n" + STENCIL,
                                     "#pragma xmp shadow a[1]"),
     "warning", "reads the shadow of 'a', which is stale here"),
    ("2d-column-neighbour", two_d("#pragma xmp loop (i, j) on t[i][j]\n    for (i = 0; i < N; i++)\n"
                                  "        for (j = 1; j < N; j++) w[i][j] = @u[i][j - 1];",
                                  "#pragma xmp shadow u[1][0]"),
     "warning", "u[i][j - 1] may be on another node: this loop runs each iteration on the owner of t[i][j], "
                "and u[i][j - 1] lies 1 element below that node's block, beyond the shadow "
                "of 'u'; widen it to '#pragma xmp shadow u[1][1:0]'"),
    ("2d-transposed", two_d("#pragma xmp loop (i, j) on t[i][j]\n    for (i = 0; i < N; i++)\n"
                            "        for (j = 0; j < N; j++) w[i][j] = @u[j][i];"),
     "warning", "u[j][i] may be on another node"),
    ("2d-star-dimension", two_d("#pragma xmp loop (i) on t[i][*]\n    for (i = 0; i < N; i++)\n"
                                "        for (j = 0; j < N; j++) s += @u[i][j];"),
     "warning", "u[i][j] may be on another node: this loop runs each iteration on every node that owns "
                "part of t[i][*]"),
]


@pytest.mark.parametrize("name, marked, severity, fragment", POSITIVE, ids=[c[0] for c in POSITIVE])
def test_locality_diagnostic(tmp_path: Path, name: str, marked: str, severity: str, fragment: str) -> None:
    source, line, col = place(marked)
    found = diagnostics(tmp_path, source)
    assert found, f"{name}: nothing reported"
    first = found[0]
    assert (first.loc.line, first.loc.col, first.severity) == (line, col, severity), \
        "\n".join(str(d) for d in found)
    assert fragment in first.message, first.message


NEGATIVE = [
    ("shadow-and-reflect", one_d(INIT + "#pragma xmp reflect (a)\n" + STENCIL, "#pragma xmp shadow a[1]")),
    ("reflect-every-step", one_d(INIT + "    for (step = 0; step < 10; step++) {\n#pragma xmp reflect (a)\n"
                                 + STENCIL + "#pragma xmp loop on t[i]\n    for (i = 1; i < N - 1; i++)"
                                 " a[i] = b[i];\n    }\n", "#pragma xmp shadow a[1]")),
    ("reflect-do-every-step", one_d(INIT + "#pragma xmp reflect_init (a)\n"
                                    "    for (step = 0; step < 10; step++) {\n"
                                    "#pragma xmp reflect_do (a)\n" + STENCIL + "#pragma xmp loop on t[i]\n"
                                    "    for (i = 1; i < N - 1; i++) a[i] = b[i];\n    }\n",
                                    "#pragma xmp shadow a[1]")),
    ("no-write-before", one_d(STENCIL, "#pragma xmp shadow a[1]")),      # a function starts clean
    ("own-element",
     one_d("#pragma xmp loop on t[i]\n    for (i = 0; i < N; i++) { a[i] = i; b[i] = a[i] * 2; }")),
    ("align-offset-follows", one_d("#pragma xmp loop on t[i]\n    for (i = 1; i < N; i++) b[i] = a[i - 1];",
                                   off=" + 1")),
    ("guarded-by-equality", one_d("#pragma xmp loop on t[i]\n    for (i = 0; i < N; i++)\n"
                                  "        for (j = 0; j < N; j++) if (j == i) s += a[j];")),
    ("guarded-constant",
     one_d("#pragma xmp loop on t[i]\n    for (i = 0; i < N; i++) if (i == 0) a[0] = 1;")),
    ("inner-range-follows-index", one_d("#pragma xmp loop on t[i]\n    for (i = 1; i < N - 1; i++)\n"
                                        "        for (j = i; j <= i; j++) s += a[j];")),
    ("unknown-subscript",
     one_d("#pragma xmp loop on t[i]\n    for (i = 0; i < N; i++) b[i] = a[(i * 7) % N];")),
    ("full-shadow-reflected", one_d(INIT + "#pragma xmp reflect (a)\n#pragma xmp loop on t[i]\n"
                                    "    for (i = 0; i < N; i++)\n"
                                    "        for (j = 0; j < N; j++) b[i] += a[j];",
                                    "#pragma xmp shadow a[*]")),
    ("outside-loops", one_d("    a[0] = 1; s = a[N - 1];")),
    ("reflect-in-helper", one_d(INIT + "    exchange();\n" + STENCIL, "#pragma xmp shadow a[1]")
     .replace("int main(void)", "void exchange(void)\n{\n#pragma xmp reflect (a)\n}\nint main(void)")),
    ("2d-collapsed-columns", """\
#define N 8
double u[N][N], w[N][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align u[i][*] with t[i]
#pragma xmp align w[i][*] with t[i]
int main(void)
{
    int i, j;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        for (j = 1; j < N; j++) w[i][j] = u[i][j - 1] + u[i][0];
    return 0;
}
"""),
    ("2d-star-template-dimension", two_d("", "").replace("[block][block] onto p", "[block][*] onto p")
     .replace("nodes p[2][2]", "nodes p[*]") .replace("int main(void)", "int f(void)")
     + "int main(void)\n{\n    int i, j;\n#pragma xmp loop (i, j) on t[i][j]\n    for (i = 0; i < N; i++)\n"
       "        for (j = 1; j < N; j++) w[i][j] = u[i][j - 1];\n    return 0;\n}\n"),
    ("one-node", one_d(INIT + STENCIL).replace("nodes p[*]", "nodes p[1]")),
    # every case reflects (after other statements: case_blocks.py), then leaves the switch
    ("switch-every-case-reflects",
     one_d(INIT + "    switch ((int) s) {\n    case 0:\n        s = 2;\n#pragma xmp reflect (a)\n"
           "        break;\n    case 1:\n#pragma xmp reflect (a)\n        s = 3;\n        break;\n"
           "    default:\n#pragma xmp reflect (a)\n        break;\n    }\n" + STENCIL,
           "#pragma xmp shadow a[1]")),
    ("other-template", one_d("#pragma xmp loop on t2[i]\n    for (i = 1; i < N; i++) b[i] = a[i - 1];")
     .replace("#pragma xmp align b", "#pragma xmp template t2[N]\n#pragma xmp distribute t2[block] onto p\n"
              "#pragma xmp align b")),
]


@pytest.mark.parametrize("name, source", NEGATIVE, ids=[c[0] for c in NEGATIVE])
def test_no_locality_diagnostic(tmp_path: Path, name: str, source: str) -> None:
    assert diagnostics(tmp_path, source.replace(MARK, "")) == []


# programs that contain the mistake on purpose (tests/test_check_mode.py runs them)
DELIBERATE = {"tests/check_programs/stencil.c": 2, "tests/check_programs/stencil_acc.c": 2,
              # a write the check cannot follow, in a correct program (below)
              "tests/locality_programs/point_source.c": 1}


def _programs() -> list[Path]:
    """Every C program of the repository: samples (labs included), the test programs in
    every folder, the benchmarks (tests/golden holds generated code, not programs)."""
    found = sorted(SAMPLES.rglob("*.c")) + sorted((REPO / "tests").rglob("*.c")) + \
        sorted((REPO / "bench").glob("*.c"))
    return [p for p in found if (REPO / "tests" / "golden") not in p.parents]


@pytest.mark.parametrize("path", _programs(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_sample_lab_or_test_program_gets_a_locality_diagnostic(path: Path) -> None:
    found = file_diagnostics(path)
    assert len(found) == DELIBERATE.get(str(path.relative_to(REPO)), 0), "\n".join(map(str, found))


def test_command_line_prints_the_warning_and_builds(tmp_path: Path) -> None:
    source, line, col = place(one_d(INIT + STENCIL))
    src = tmp_path / "stencil.c"
    src.write_text(source)
    r = run_xmpacc(str(src), "-o", str(tmp_path / "stencil"))
    assert r.returncode == 0, r.stderr
    assert f"{src}:{line}:{col}: warning: a[i - 1] may be on another node" in r.stderr
    assert f"{src}:{line}:{col + 11}: warning: a[i + 1] may be on another node" in r.stderr
    assert "        b[i] = a[i - 1] + a[i + 1];" in r.stderr and (tmp_path / "stencil").exists()


MAY_WRITE = one_d("#pragma xmp loop on t[i]\n    for (i = 0; i < 1; i++) @a[0] = 1;")


def test_a_write_that_may_leave_the_block_warns_and_builds(tmp_path: Path) -> None:
    """Issue 30: only what is certain stops a build; -Werror makes the warning an error,
    -w silences it."""
    source, line, col = place(MAY_WRITE)
    src = tmp_path / "m.c"
    src.write_text(source)
    r = run_xmpacc(str(src), "-o", str(tmp_path / "m"))
    assert r.returncode == 0 and (tmp_path / "m").exists(), r.stderr
    assert f"{src}:{line}:{col}: warning: a[0] may be written outside this node's block" in r.stderr
    r = run_xmpacc("-Werror", str(src), "-o", str(tmp_path / "m2"))
    assert r.returncode == 1 and not (tmp_path / "m2").exists()
    assert f"{src}:{line}:{col}: error: a[0] may be written outside this node's block" in r.stderr
    assert "[-Werror]" in r.stderr
    r = run_xmpacc("-w", str(src), "-o", str(tmp_path / "m3"))
    assert r.returncode == 0 and "may be written" not in r.stderr, r.stderr


def test_write_outside_the_block_stops_the_build(tmp_path: Path) -> None:
    source, line, col = place(one_d("#pragma xmp loop on t[i]\n"
                                    "    for (i = 0; i < N - 1; i++) @a[i + 1] = 0;"))
    src = tmp_path / "w.c"
    src.write_text(source)
    r = run_xmpacc(str(src), "-o", str(tmp_path / "w"))
    assert r.returncode == 1 and f"{src}:{line}:{col}: error: a[i + 1] is written outside" in r.stderr
    assert not (tmp_path / "w").exists()


POINT_SOURCE = REPO / "tests" / "locality_programs" / "point_source.c"


@pytest.fixture(scope="module")
def point_source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("point_source")
    exe = tmp / "point_source"
    r = run_xmpacc(str(POINT_SOURCE), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("warning:") == 1 and \
        f"{POINT_SOURCE}:39:7: warning: u[21] may be written outside this node's block" in r.stderr, r.stderr
    return exe, serial_output(POINT_SOURCE, tmp)


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_a_program_with_a_may_write_builds_and_runs(point_source: tuple[Path, str], nprocs: int) -> None:
    """Issue 30: a finding that only may be (the source term u[SRC] in a loop of one
    iteration on its owner) is a warning; the program builds and prints what its serial
    build prints, as Omni's does."""
    exe, expected = point_source
    r = run_mpi(nprocs, exe, timeout=60)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)
