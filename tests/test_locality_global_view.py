"""The locality pass on the rest of the global view (global-view §2-§8) and XcalableACC
nests: reflect width(...) and orthogonal, reflect_init/reflect_do, async reflects and their
waits, expand/margin/peel_and_wait, reduce_shadow, gmove and array assignments, aligned pointers and
structure members, on-ref offsets, node-array loops, tasks, location reductions, and
OpenACC loop constructs paired with ``loop``.

Same layout as tests/test_locality.py: each positive case marks its one diagnostic with
``@``, each negative case must say nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_locality import INIT, MARK, STENCIL, diagnostics, one_d, place, stage_diagnostics, two_d

SH1 = "#pragma xmp shadow a[1]"
WRITE_A = "#pragma xmp loop on t[i]\n    for (i = 1; i < N - 1; i++) a[i] = b[i];\n"
READ_A = "#pragma xmp loop on t[i]\n    for (i = 1; i < N - 1; i++)\n        b[i] = a[i - 1] + a[i + 1];\n"
SCATTER = "#pragma xmp loop on t[i]\n    for (i = 1; i < N - 1; i++) { a[i - 1] += 1; a[i + 1] += 2; }\n"


def expand_loop(clause: str, body: str = "a[i] = i;") -> str:
    return f"#pragma xmp loop on t[i] {clause}\n    for (i = 0; i < N; i++) {body}\n"


STRUCT = """\
#define N 64
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
struct field {{ double v[N]; double w; }};
#pragma xmp align field.v[i] with t[i]
{shadow}
struct field c;
double b[N];
#pragma xmp align b[i] with t[i]
void exchange(struct field *f)
{{
#pragma xmp reflect (f->v)
}}
int main(void)
{{
    int i;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) c.v[i] = i;
{body}
    return 0;
}}
"""


def struct(body: str, shadow: str = "#pragma xmp shadow field.v[1]") -> str:
    return STRUCT.format(shadow=shadow, body=body)


MALLOC = """\
#include <xmp.h>
#pragma xmp nodes p[*]
#pragma xmp template t[:]
#pragma xmp distribute t[block] onto p
double *a, *b;
#pragma xmp align [i] with t[i] :: a, b
{shadow}
int main(void)
{{
    int i, n = 40;
#pragma xmp template_fix t[n]
    a = (double *) xmp_malloc(xmp_desc_of(a), n);
    b = (double *) xmp_malloc(xmp_desc_of(b), n);
#pragma xmp loop on t[i]
    for (i = 0; i < n; i++) a[i] = i;
{body}
    return 0;
}}
"""


def malloc(body: str, shadow: str = SH1) -> str:
    return MALLOC.format(shadow=shadow, body=body)


ACC_XMP_FIRST = "#pragma xmp loop on t[i]\n#pragma acc parallel loop\n    for (i = 1; i < N - 1; i++)\n" \
                "        b[i] = @a[i - 1] + a[i + 1];\n"
ACC_FIRST = "#pragma acc parallel loop\n#pragma xmp loop on t[i]\n    for (i = 1; i < N - 1; i++)\n" \
            "        b[i] = @a[i - 1] + a[i + 1];\n"
ACC_WRITE = "#pragma acc parallel loop present(a, b)\n#pragma xmp loop on t[i]\n" \
            "    for (i = 0; i < N; i++) a[i] = i;\n"

INIT_2D = "#pragma xmp loop (i, j) on t[i][j]\n    for (i = 0; i < N; i++)\n" \
          "        for (j = 0; j < N; j++) u[i][j] = i;\n"
READ_2D = "#pragma xmp loop (i, j) on t[i][j]\n    for (i = 1; i < N - 1; i++)\n" \
          "        for (j = 1; j < N - 1; j++) w[i][j] = u[i - 1][j] + u[i + 1][j] + @u[i][j - 1];\n"

FULL_READ = "#pragma xmp loop on t[i]\n    for (i = 0; i < N; i++)\n" \
            "        for (j = 0; j < N; j++) b[i] += @a[j];"

POSITIVE = [
    # ---- reflect_init / reflect_do
    ("reflect-init-alone", one_d(INIT + "#pragma xmp reflect_init (a)\n" + STENCIL, SH1), "warning",
     "'a' is written at line 15 and not reflected since; add '#pragma xmp reflect (a)'"),
    ("reflect-do-before-the-write", one_d("#pragma xmp reflect_init (a)\n#pragma xmp reflect_do (a)\n" + INIT
                                          + STENCIL, SH1), "warning", "'a' is written at line 17"),
    # ---- reflect width(...) and orthogonal: a shadow refreshed in part
    ("reflect-width-too-small", one_d(INIT + "#pragma xmp reflect (a) width(1)\n"
                                      + STENCIL.replace("@a[i - 1]", "@a[i - 2]"), "#pragma xmp shadow a[2]"),
     "warning", "a[i - 2] reads the shadow of 'a' 2 elements below the block, beyond what the "
                "'reflect (a) width(1)' of line 16 refreshes (1); widen its width to 'width(2:1)'"),
    ("reflect-width-one-side", one_d(INIT + "#pragma xmp reflect (a) width(1:0)\n" + STENCIL.replace(
        "b[i] = @a[i - 1] + a[i + 1]", "b[i] = a[i - 1] + @a[i + 1]"), SH1), "warning",
     "a[i + 1] reads the shadow of 'a' 1 element above the block, beyond what the "
     "'reflect (a) width(1:0)' of line 16 refreshes (0); widen its width to 'width(1)'"),
    ("reflect-width-async", one_d(INIT + "#pragma xmp reflect (a) width(1) async (2)\n"
                                         "#pragma xmp wait_async (2)\n"
                                  + STENCIL.replace("@a[i - 1]", "@a[i - 2]"), "#pragma xmp shadow a[2]"),
     "warning", "beyond what the 'reflect (a) width(1) async (2)' of line 16 refreshes (1)"),
    ("reflect-do-init-width", one_d("#pragma xmp reflect_init (a) width(/periodic/ 1)\n" + INIT
                                    + "#pragma xmp reflect_do (a)\n"
                                    + STENCIL.replace("@a[i - 1]", "@a[i - 2]"),
                                    "#pragma xmp shadow a[2]"), "warning",
     "beyond what the 'reflect_do (a)' of line 17 refreshes (1); widen the width of its reflect_init to "
     "'width(2:1)'"),
    ("reflect-width-on-one-path", one_d(INIT + "    if (s > 0) {\n#pragma xmp reflect (a)\n    } else {\n"
                                        "#pragma xmp reflect (a) width(1)\n    }\n"
                                        + STENCIL.replace("@a[i - 1]", "@a[i - 2]"),
                                        "#pragma xmp shadow a[2]"),
     "warning", "beyond what the 'reflect (a) width(1)' of line 19 refreshes"),
    ("reflect-width-zero-dim", two_d(INIT_2D + "#pragma xmp reflect (u) width(1, 0)\n" + READ_2D,
                                     "#pragma xmp shadow u[1][1]"), "warning",
     "u[i][j - 1] reads the shadow of 'u' 1 element below the block, beyond what the "
     "'reflect (u) width(1, 0)' of line 16 refreshes (0); widen its width to 'width(1, 1:0)'"),
    ("orthogonal-corner", two_d(INIT_2D + "#pragma xmp reflect (u) orthogonal\n"
                                + READ_2D.replace("@u[i][j - 1]", "u[i][j - 1] + @u[i - 1][j - 1]"),
                                "#pragma xmp shadow u[1][1]"), "warning",
     "u[i - 1][j - 1] reads the shadow of 'u' in a corner, which the 'reflect (u) "
     "orthogonal' of line 16 does not exchange; drop 'orthogonal' there"),
    ("orthogonal-reflect-do-corner", two_d("#pragma xmp reflect_init (u) orthogonal\n" + INIT_2D
                                           + "#pragma xmp reflect_do (u)\n"
                                           + READ_2D.replace("@u[i][j - 1]", "@u[i + 1][j + 1]"),
                                           "#pragma xmp shadow u[1][1]"), "warning",
     "reads the shadow of 'u' in a corner, which the 'reflect_do (u)' of line 17"),
    ("full-shadow-width-zero", one_d(INIT + "#pragma xmp reflect (a) width(0)\n" + FULL_READ,
                                     "#pragma xmp shadow a[*]"), "warning",
     "beyond what the 'reflect (a) width(0)' of line 16 refreshes (0); widen its width to 'width(1)'"),
    # ---- async reflects
    ("reflect-async-no-wait", one_d(INIT + "#pragma xmp reflect (a) async (1)\n" + STENCIL, SH1), "warning",
     "a[i - 1] reads the shadow of 'a', which is stale here: the 'reflect (a) async (1)' "
     "of line 16 may still be running; add '#pragma xmp wait_async (1)' before this loop"),
    ("reflect-async-other-id", one_d(INIT + "#pragma xmp reflect (a) async (1)\n#pragma xmp wait_async (2)\n"
                                     + STENCIL, SH1), "warning", "add '#pragma xmp wait_async (1)'"),
    ("reflect-do-async-no-wait", one_d(INIT + "#pragma xmp reflect_init (a)\n"
                                              "#pragma xmp reflect_do (a) async (4)\n"
                                       + STENCIL, SH1), "warning",
     "the 'reflect_do (a) async (4)' of line 17 may still be running; add '#pragma xmp wait_async (4)'"),
    ("wait-on-one-branch", one_d(INIT + "#pragma xmp reflect (a) async (1)\n    if (s > 0) {\n"
                                 "#pragma xmp wait_async (1)\n    }\n" + STENCIL, SH1), "warning",
     "may still be running"),
    ("peel-and-wait-other-id", one_d(INIT + "#pragma xmp reflect (a) async (1)\n#pragma xmp loop on t[i] "
                                     "peel_and_wait(2, 1)\n    for (i = 1; i < N - 1; i++)\n"
                                     "        b[i] = @a[i - 1] + a[i + 1];\n", SH1), "warning",
     "may still be running"),
    # ---- expand / margin
    ("expand-fresh-to-its-width", one_d(expand_loop("expand(1)") + STENCIL.replace("@a[i - 1]", "@a[i - 2]"),
                                        "#pragma xmp shadow a[2]"), "warning",
     "a[i - 2] reads the shadow of 'a', which is stale here: 'a' is written at line 15"),
    ("expand-beyond-the-shadow", one_d(expand_loop("expand(2)", "@a[i] = i;"), SH1), "error",
     "a[i] is written outside this node's block: this loop runs each iteration on the "
     "owner of t[i] (and, with expand(2), the iterations next to that node's block), and a[i] "
     "lies 2 elements below that node's block"),
    ("expand-reads-without-shadow", one_d(expand_loop("expand(1)", "b[i] = @a[i];"),
                                          "#pragma xmp shadow b[1]"), "warning",
     "a[i] may be on another node: this loop runs each iteration on the owner of t[i] (and, "
     "with expand(1), the iterations next to that node's block), and a[i] lies 1 element below that "
     "node's block; declare '#pragma xmp shadow a[1]'"),
    ("expand-reads-stale-shadow", one_d(INIT + expand_loop("expand(1)", "b[i] = @a[i];"),
                                        "#pragma xmp shadow a[1]\n#pragma xmp shadow b[1]"), "warning",
     "a[i] reads the shadow of 'a', which is stale here: 'a' is written at line 16"),
    ("expand-write-shifted", one_d(expand_loop("expand(1)", "@a[i - 1] = i;"), "#pragma xmp shadow a[2]"),
     "warning", "a[i - 1] writes a shadow slot of 'a'"),
    ("margin-rim-is-a-write",
     one_d(INIT + "#pragma xmp reflect (a)\n" + expand_loop("margin(-1)") + STENCIL, SH1),
     "warning", "'a' is written at line 18"),
    ("margin-shrink-still-reads-shadow", one_d(INIT + "#pragma xmp loop on t[i] margin(-1)\n"
                                               "    for (i = 1; i < N - 1; i++)\n        b[i] = @a[i - 1];\n",
                                               SH1),
     "warning", "reads the shadow of 'a'"),
    # ---- reduce_shadow
    ("read-after-reduce-shadow", one_d(expand_loop("expand(1)", "a[i] = 0;") + SCATTER
                                       + "#pragma xmp reduce_shadow (a)\n" + STENCIL, SH1), "warning",
     "'a' is changed by reduce_shadow at line 18 and not reflected since"),
    ("scatter-without-reduce-shadow", one_d(expand_loop("expand(1)", "a[i] = 0;")
                                            + SCATTER.replace("{ a[i - 1]", "{ @a[i - 1]"), SH1), "warning",
     "a[i - 1] writes a shadow slot of 'a'"),
    # ---- gmove and array write owned elements
    ("gmove-section-into-a", one_d(INIT + "#pragma xmp reflect (a)\n#pragma xmp gmove\n    a[0:N] = b[0:N];\n"
                                   + STENCIL, SH1), "warning",
     "'a' is written at line 18 and not reflected since"),
    ("gmove-element-into-a", one_d(INIT + "#pragma xmp reflect (a)\n#pragma xmp gmove\n    a[3] = s;\n"
                                   + STENCIL, SH1), "warning", "'a' is written at line 18"),
    ("gmove-async-into-a", one_d(INIT + "#pragma xmp reflect (a)\n"
                                 "#pragma xmp gmove async (1)\n    a[:] = b[:];\n"
                                 "#pragma xmp wait_async (1)\n" + STENCIL, SH1), "warning",
     "'a' is written at line 18"),
    ("array-directive-into-a", one_d(INIT + "#pragma xmp reflect (a)\n#pragma xmp array on t[:]\n"
                                     "    a[:] = 2 * b[:];\n" + STENCIL, SH1), "warning",
     "'a' is written at line 18"),
    # ---- on-ref offsets: the iteration runs on the owner of t[i+1]
    ("on-offset", one_d("#pragma xmp loop on t[i+1]\n    for (i = 0; i < N - 1; i++) b[i + 1] = @a[i];"),
     "warning", "a[i] may be on another node: this loop runs each iteration on the owner "
                "of t[i + 1], and a[i] lies 1 element below that node's block"),
    ("on-offset-minus", one_d("#pragma xmp loop on t[i-1]\n    for (i = 1; i < N; i++) b[i - 1] = @a[i];"),
     "warning", "a[i] lies 1 element above that node's block"),
    # ---- aligned structure members, pointers, template_fix
    ("struct-member-no-shadow", struct("#pragma xmp loop on t[i]\n"
                                       "    for (i = 1; i < N; i++) b[i] = @c.v[i - 1];",
                                       ""), "warning",
     "c.v[i - 1] may be on another node: this loop runs each iteration on the owner of t[i]"),
    ("struct-member-not-reflected", struct("#pragma xmp loop on t[i]\n    for (i = 1; i < N; i++) "
                                           "b[i] = @c.v[i - 1];"), "warning",
     "c.v[i - 1] reads the shadow of 'c.v', which is stale here: 'c.v' is written at line 19"),
    ("struct-member-through-pointer", struct("").replace(
        "#pragma xmp reflect (f->v)\n", "    int i;\n#pragma xmp loop on t[i]\n"
        "    for (i = 0; i < N; i++) f->v[i] = i;\n"
        "#pragma xmp loop on t[i]\n    for (i = 1; i < N; i++) b[i] = @f->v[i - 1];\n"), "warning",
     "f->v[i - 1] reads the shadow of 'f->v', which is stale here: 'f->v' is written at line 15"),
    ("malloc-pointer-not-reflected", malloc(READ_A.replace("a[i - 1]", "@a[i - 1]").replace("N", "n")),
     "warning", "a[i - 1] reads the shadow of 'a', which is stale here: 'a' is written at line 15"),
    ("malloc-pointer-no-shadow", malloc(READ_A.replace("a[i - 1]", "@a[i - 1]").replace("N", "n"), ""),
     "warning", "a[i - 1] may be on another node"),
    # ---- tasks, location reductions
    ("write-in-a-task", one_d("#pragma xmp task on p[0]\n    {\n" + INIT + "    }\n" + STENCIL, SH1),
     "warning", "'a' is written at line 17"),
    ("write-in-tasks", one_d("#pragma xmp tasks\n    {\n#pragma xmp task on p[0]\n    {\n" + INIT
                             + "    }\n#pragma xmp task on p[1]\n    {\n    }\n    }\n" + STENCIL, SH1),
     "warning", "'a' is written at line 19"),
    ("location-reduction", one_d("#pragma xmp loop on t[i] reduction(firstmax: s /j/)\n"
                                 "    for (i = 1; i < N; i++) if (@a[i - 1] > s) { s = a[i - 1]; j = i; }"),
     "warning", "a[i - 1] may be on another node"),
    # ---- OpenACC loop constructs paired with loop (XcalableACC), in either order
    ("acc-xmp-loop-first", one_d(INIT + ACC_XMP_FIRST), "warning", "a[i - 1] may be on another node"),
    ("acc-parallel-loop-first", one_d(INIT + ACC_FIRST), "warning", "a[i - 1] may be on another node"),
    ("acc-nest-not-reflected", one_d(ACC_WRITE + "#pragma acc update host(a)\n" + ACC_XMP_FIRST, SH1),
     "warning", "'a' is written at line 16 and not reflected since"),
    ("acc-data-region",
     one_d("#pragma acc data copy(a, b)\n    {\n" + ACC_WRITE + ACC_FIRST + "    }\n", SH1),
     "warning", "'a' is written at line 18"),
    ("acc-parallel-region", one_d(INIT + "#pragma acc parallel\n    {\n#pragma xmp loop on t[i]\n"
                                  "#pragma acc loop gang vector\n"
                                  "    for (i = 1; i < N - 1; i++) b[i] = @a[i - 1];\n"
                                  "    }\n"), "warning", "a[i - 1] may be on another node"),
    ("acc-write-outside", one_d("#pragma xmp loop on t[i]\n#pragma acc kernels loop\n"
                                "    for (i = 0; i < N - 1; i++) @a[i + 1] = 0;"), "error",
     "a[i + 1] is written outside this node's block"),
]


@pytest.mark.parametrize("name, marked, severity, fragment", POSITIVE, ids=[c[0] for c in POSITIVE])
def test_locality_diagnostic(tmp_path: Path, name: str, marked: str, severity: str, fragment: str) -> None:
    if MARK not in marked:   # the stencil's first read is the place
        marked = marked.replace("b[i] = a[i - 1]", "b[i] = @a[i - 1]", 1)
    source, line, col = place(marked)
    found = diagnostics(tmp_path, source)
    assert found, f"{name}: nothing reported"
    first = found[0]
    assert (first.loc.line, first.loc.col, first.severity) == (line, col, severity), \
        "\n".join(str(d) for d in found)
    assert fragment in first.message, first.message


STENCIL_PLAIN = STENCIL.replace(MARK, "")
NEGATIVE = [
    # ---- reflect_init / reflect_do
    ("reflect-do", one_d(INIT + "#pragma xmp reflect_init (a)\n#pragma xmp reflect_do (a)\n" + STENCIL, SH1)),
    ("reflect-do-every-step", one_d(INIT + "#pragma xmp reflect_init (a)\n"
                                    "    for (step = 0; step < 9; step++) {\n"
                                    "#pragma xmp reflect_do (a)\n" + STENCIL + WRITE_A + "    }\n", SH1)),
    # ---- reflect width(...) and orthogonal
    ("reflect-width-enough", one_d(INIT + "#pragma xmp reflect (a) width(1)\n" + STENCIL,
                                   "#pragma xmp shadow a[2]")),
    ("reflect-width-not-constant", one_d(INIT + "#pragma xmp reflect (a) width(step)\n"
                                         + STENCIL.replace("a[i - 1]", "a[i - 2]"),
                                         "#pragma xmp shadow a[2]")),
    ("reflect-width-periodic", one_d(INIT + "#pragma xmp reflect (a) width(/periodic/ 1)\n" + STENCIL, SH1)),
    ("reflect-width-then-full", one_d(INIT + "#pragma xmp reflect (a) width(1)\n#pragma xmp reflect (a)\n"
                                      + STENCIL.replace("a[i - 1]", "a[i - 2]"), "#pragma xmp shadow a[2]")),
    ("reflect-widths-add-up", one_d(INIT + "#pragma xmp reflect (a) width(1:0)\n"
                                           "#pragma xmp reflect (a) width(0:1)\n"
                                    + STENCIL, SH1)),
    ("reflect-async-widths-unite", one_d(INIT + "#pragma xmp reflect (a) width(1) async (1)\n"
                                         "#pragma xmp reflect (a) async (2)\n#pragma xmp wait_async (1)\n"
                                         + STENCIL.replace("a[i - 1]", "a[i - 2]"),
                                         "#pragma xmp shadow a[2]")),
    ("reflect-do-init-width-enough", one_d("#pragma xmp reflect_init (a) width(1)\n" + INIT
                                           + "#pragma xmp reflect_do (a)\n" + STENCIL,
                                           "#pragma xmp shadow a[2]")),
    ("full-shadow-any-width", one_d(INIT + "#pragma xmp reflect (a) width(1)\n" + FULL_READ,
                                    "#pragma xmp shadow a[*]")),
    ("orthogonal-faces", two_d(INIT_2D + "#pragma xmp reflect (u) orthogonal\n" + READ_2D,
                               "#pragma xmp shadow u[1][1]")),
    ("orthogonal-after-expand", two_d("#pragma xmp loop (i, j) on t[i][j] expand(1, 1)\n"
                                      "    for (i = 0; i < N; i++)\n"
                                      "        for (j = 0; j < N; j++) u[i][j] = i;\n"
                                      "#pragma xmp reflect (u) orthogonal\n"
                                      + READ_2D.replace("u[i][j - 1]", "u[i - 1][j - 1]"),
                                      "#pragma xmp shadow u[1][1]")),
    ("orthogonal-width-zero", two_d(INIT_2D + "#pragma xmp reflect (u) width(1, 0) orthogonal\n"
                                    + READ_2D.replace(" + @u[i][j - 1]", ""), "#pragma xmp shadow u[1][1]")),
    # ---- async reflects
    ("reflect-async-waited", one_d(INIT + "#pragma xmp reflect (a) async (1)\n#pragma xmp wait_async (1)\n"
                                   + STENCIL, SH1)),
    ("wait-several-ids", one_d(INIT + "#pragma xmp reflect (a) async (3)\n#pragma xmp wait_async (1, 3)\n"
                               + STENCIL, SH1)),
    ("reflect-do-async-waited", one_d(INIT + "#pragma xmp reflect_init (a)\n"
                                      "    for (step = 0; step < 9; step++) {\n"
                                      "#pragma xmp reflect_do (a) async (1)\n"
                                      + expand_loop("expand(-1)", "b[i] = a[i];")
                                      + "#pragma xmp wait_async (1)\n" + STENCIL + WRITE_A + "    }\n", SH1)),
    ("async-id-not-constant", one_d(INIT + "#pragma xmp reflect (a) async (step)\n"
                                    "#pragma xmp wait_async (step + 1)\n"
                                    + STENCIL, SH1)),
    ("test-async-loop", one_d(INIT + "#pragma xmp reflect (a) async (1)\n"
                                     "    while (!xmp_test_async(1)) s++;\n"
                              + STENCIL, SH1)),
    ("peel-and-wait", one_d(INIT + "#pragma xmp reflect (a) async (5)\n"
                            "#pragma xmp loop on t[i] peel_and_wait(5, 1)\n"
                            "    for (i = 1; i < N - 1; i++) b[i] = a[i - 1] + a[i + 1];\n", SH1)),
    ("wait-in-helper", one_d(INIT + "#pragma xmp reflect (a) async (2)\n    finish();\n" + STENCIL, SH1)
     .replace("int main(void)", "void finish(void)\n{\n#pragma xmp wait_async (2)\n}\nint main(void)")),
    ("reflect-async-of-fresh-array", one_d("#pragma xmp reflect (a) async (1)\n" + STENCIL, SH1)),
    # ---- expand / margin
    ("expand-computes-the-shadow", one_d(expand_loop("expand(1)") + STENCIL, SH1)),
    ("expand-reads-fresh-shadow", one_d(INIT + "#pragma xmp reflect (a)\n"
                                        + expand_loop("expand(1)", "b[i] = a[i];"),
                                        "#pragma xmp shadow a[1]\n#pragma xmp shadow b[1]")),
    ("expand-unbound", one_d(expand_loop("expand(/unbound/ 1)") + STENCIL, SH1)),
    ("margin-after-a-write", one_d(INIT + expand_loop("margin(1)") + STENCIL, SH1)),
    ("expand-then-margin-lo-hi", one_d(expand_loop("expand(0:2)") + expand_loop("margin(1:0)")
                                       + STENCIL.replace("a[i + 1]", "a[i + 2]"),
                                       "#pragma xmp shadow a[1:2]")),
    ("expand-interior-needs-no-shadow", one_d(expand_loop("expand(-1)", "b[i] = a[i - 1] + a[i + 1];"))),
    ("expand-interior-write-keeps-edges", one_d(INIT + "#pragma xmp reflect (a)\n"
                                                + expand_loop("expand(-1)", "a[i] = 2 * b[i];") + STENCIL,
                                                SH1)),
    ("margin-negative-after-reflect", one_d(INIT + "#pragma xmp reflect (a)\n"
                                            + expand_loop("margin(-1)", "b[i] = a[i - 1] + a[i + 1];"), SH1)),
    ("expand-width-not-constant", one_d(expand_loop("expand(step)", "a[i] = i;") + STENCIL, SH1)),
    ("expand-2d-frame", two_d("#pragma xmp loop (i, j) on t[i][j]\n    for (i = 0; i < N; i++)\n"
                              "        for (j = 0; j < N; j++) u[i][j] = i;\n"
                              "#pragma xmp loop (i, j) on t[i][j] margin(1, 1)\n    for (i = 0; i < N; i++)\n"
                              "        for (j = 0; j < N; j++) u[i][j] = i;\n"
                              "#pragma xmp loop (i, j) on t[i][j]\n    for (i = 1; i < N - 1; i++)\n"
                              "        for (j = 1; j < N - 1; j++) w[i][j] = u[i - 1][j - 1] "
                              "+ u[i + 1][j + 1];\n",
                              "#pragma xmp shadow u[1][1]")),
    # ---- reduce_shadow
    ("scatter-then-reduce-shadow", one_d(expand_loop("expand(1)", "a[i] = 0;") + SCATTER
                                         + "#pragma xmp reduce_shadow (a)\n", SH1)),
    ("reduce-shadow-then-reflect", one_d(expand_loop("expand(1)", "a[i] = 0;") + SCATTER
                                         + "#pragma xmp reduce_shadow (a) async (1)\n"
                                           "#pragma xmp wait_async (1)\n"
                                         + "#pragma xmp reflect (a)\n" + STENCIL, SH1)),
    # ---- gmove and array
    ("gmove-reads-a", one_d(INIT + "#pragma xmp reflect (a)\n#pragma xmp gmove\n    b[0:N] = a[0:N];\n"
                            "#pragma xmp gmove\n    s = a[N - 1];\n" + STENCIL, SH1)),
    ("gmove-then-reflect",
     one_d("#pragma xmp gmove\n    a[:] = b[:];\n#pragma xmp reflect (a)\n" + STENCIL, SH1)),
    ("array-then-reflect", one_d("#pragma xmp array on t[:]\n    a[:] = 1.0;\n#pragma xmp reflect (a)\n"
                                 + STENCIL, SH1)),
    # ---- on-ref offsets
    ("on-offset-local",
     one_d("#pragma xmp loop on t[i+1]\n    for (i = 0; i < N - 1; i++) b[i + 1] = a[i + 1];")),
    ("on-offset-with-align-offset", one_d("#pragma xmp loop on t[i+1]\n"
                                          "    for (i = 0; i < N - 1; i++) b[i + 1] = a[i];",
                                          off=" + 1")),
    ("on-offset-expand", one_d("#pragma xmp loop on t[i+1] expand(1)\n"
                               "    for (i = 0; i < N - 1; i++) a[i + 1] = 0;\n"
                               + STENCIL, SH1)),
    # ---- node arrays, structure members, pointers, template_fix, tasks
    ("loop-on-nodes", one_d("#pragma xmp loop on p[i]\n    for (i = 0; i < 4; i++) s += i;\n" + WRITE_A)),
    ("struct-member-reflected", struct("#pragma xmp reflect (c.v)\n#pragma xmp loop on t[i]\n"
                                       "    for (i = 1; i < N; i++) b[i] = c.v[i - 1];")),
    ("struct-member-reflected-by-helper", struct("    exchange(&c);\n#pragma xmp loop on t[i]\n"
                                                 "    for (i = 1; i < N; i++) b[i] = c.v[i - 1];")),
    ("struct-member-own-element", struct("#pragma xmp loop on t[i]\n"
                                         "    for (i = 0; i < N; i++) b[i] = c.v[i];", "")),
    ("malloc-pointer-reflected", malloc("#pragma xmp reflect (a)\n" + READ_A.replace("N", "n"))),
    ("task-body-reflects", one_d(INIT + "#pragma xmp reflect (a)\n#pragma xmp task on p[0]\n    {\n"
                                 + STENCIL + "    }\n", SH1)),
    ("location-reduction-own", one_d("#pragma xmp loop on t[i] reduction(lastmin: s /j/)\n"
                                     "    for (i = 0; i < N; i++) if (a[i] < s) { s = a[i]; j = i; }")),
    # ---- OpenACC: data and update directives neither reflect nor write
    ("acc-nest-reflected", one_d(ACC_WRITE + "#pragma xmp reflect (a) acc\n" + ACC_XMP_FIRST, SH1)),
    ("acc-update-is-no-write", one_d(INIT + "#pragma xmp reflect (a)\n#pragma acc update device(a)\n"
                                     "#pragma acc data copyin(a)\n    {\n" + ACC_FIRST + "    }\n", SH1)),
    ("acc-expand", one_d("#pragma acc parallel loop\n#pragma xmp loop on t[i] expand(1)\n"
                         "    for (i = 0; i < N; i++) a[i] = i;\n" + ACC_XMP_FIRST, SH1)),
]


@pytest.mark.parametrize("name, source", NEGATIVE, ids=[c[0] for c in NEGATIVE])
def test_no_locality_diagnostic(tmp_path: Path, name: str, source: str) -> None:
    """Nothing at all: the program is correct, so no stage up to locality says anything
    (a case that stopped early with an unrelated error would prove nothing)."""
    src = tmp_path / "prog.c"
    src.write_text(source.replace(MARK, ""))
    found = stage_diagnostics(src)
    assert found == [], "\n".join(map(str, found))
