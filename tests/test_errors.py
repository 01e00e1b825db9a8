"""User mistakes (reference §10): one table of small programs, each with one mistake.

Every mistake must print ``file:line:col: error: message``, the source line and a caret,
exit with status 1, show no Python traceback and leave no file behind.  The expected place
is marked in each program with ``@`` (removed before the file is written), so the table
stays right when a program is edited; the message fragment is the third column.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_xmpacc

from xmpacc import cli
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import InternalError

MARK = "@"
MAIN = "int main(void) { return 0; }\n"

# The declarations most programs start from: a 1-D block template and an aligned array.
HEAD = """\
#pragma xmp nodes p[4]
#pragma xmp template t[100]
#pragma xmp distribute t[block] onto p
double a[100];
#pragma xmp align a[i] with t[i]
"""


def in_main(body: str, head: str = HEAD) -> str:
    """A complete program: ``head`` at file scope, ``body`` inside ``main``."""
    return (f"{head}\nint main(void)\n{{\n    int i, j, x = 0;\n    double s = 0;\n"
            f"{body}\n    return x + (int) s;\n}}\n")


def at_top(decls: str, head: str = HEAD) -> str:
    """A complete program: ``head``, then ``decls`` at file scope, then an empty ``main``."""
    return head + decls + MAIN


def lines(*text: str) -> str:
    return "".join(t + "\n" for t in text)


def place(marked: str) -> tuple[str, int, int]:
    """The program without its marker, and the marker's 1-based line and column."""
    assert marked.count(MARK) == 1, "mark exactly one place"
    before = marked[:marked.index(MARK)]
    line = before.count("\n") + 1
    col = len(before) - (before.rfind("\n") + 1) + 1
    return marked.replace(MARK, ""), line, col


# An unfixed template and an aligned pointer (global-view §4).
DYN_HEAD = """\
#pragma xmp nodes p[4]
#pragma xmp template t[:]
#pragma xmp distribute t[block] onto p
double *d;
#pragma xmp align d[i] with t[i]
"""

MEM = HEAD + "struct s { int v[100]; int h; };\n#pragma xmp align s.v[i] with t[i]\nstruct s o, o2, os[2];\n"
CASES = [
    # ---- directive syntax
    ("unknown-directive", in_main("#pragma xmp @frobnicate"), "unknown XMP directive 'frobnicate'"),
    ("empty-directive", in_main("#pragma xmp@"), "expected an XMP directive name"),
    ("unknown-clause", in_main("#pragma xmp loop on t[i] @bogus(x)\n    for (i = 0; i < 100; i++) a[i] = 0;"),
     "unknown clause 'bogus'"),
    ("missing-onto", at_top("", HEAD.replace("onto p", "@p")), "expected 'onto'"),
    ("unbalanced", in_main("#pragma xmp reflect @(a"), "unbalanced '('"),
    ("extra-tokens", in_main("#pragma xmp barrier on p @junk"), "unknown clause 'junk'"),
    ("int-expr-not-c", at_top(lines("#pragma xmp template t[@10 ++ 3]",
                                    "#pragma xmp distribute t[block] onto p"),
                              "#pragma xmp nodes p[4]\n"), "invalid C expression '10 ++ 3'"),
    ("int-expr-juxtaposed", at_top("#pragma xmp template t[10 @20]\n", ""), "unexpected '20'"),
    # ---- C syntax and the preprocessor
    ("c-syntax", in_main("    x = @;"), "syntax error"),
    ("c-syntax-missing-semicolon", in_main("    for (i = 0; i < 10; i++) {\n        x += i\n    @}"),
     "syntax error before '}'"),
    ("c-syntax-after-tab-and-macro", "#define N 1000\n" + in_main("\tx  =  N  @N;"), "syntax error"),
    ("cpp-missing-include", '#include @"missing_header.h"\n' + in_main(""), "missing_header.h"),
    # ---- names and declarations
    ("undeclared-nodes", at_top("", HEAD.replace("onto p", "onto @q")), "nodes 'q' is not declared"),
    ("undeclared-template-distribute",
     at_top("#pragma xmp distribute @u[block] onto p\n", "#pragma xmp nodes p[4]\n"),
     "template 'u' is not declared"),
    ("undeclared-template-align", at_top("", HEAD.replace("with t[i]", "with @u[i]")),
     "template 'u' is not declared"),
    ("undeclared-array-align", at_top("#pragma xmp align @b[i] with t[i]\n"), "array 'b' is not declared"),
    ("redeclared-nodes", at_top("#pragma xmp nodes @p[2]\n"), "nodes 'p' is already declared"),
    ("redeclared-template", at_top("#pragma xmp template @t[10]\n"), "template 't' is already declared"),
    ("distributed-twice", at_top("#pragma xmp @distribute t[cyclic] onto p\n"), "already distributed"),
    ("dist-format-count", at_top(lines("#pragma xmp nodes p[4]", "#pragma xmp template t[10][10]",
                                       "#pragma xmp @distribute t[block] onto p"), ""), "dist-format"),
    ("distributed-vs-nodes-rank", at_top(lines("#pragma xmp nodes p[2][2]", "#pragma xmp template t[10]",
                                               "#pragma xmp @distribute t[block] onto p"), ""), "must match"),
    ("align-non-array", at_top("int n;\n#pragma xmp align @n[i] with t[i]\n"), "not an array"),
    ("align-wrong-rank", at_top("double b[10][10];\n#pragma xmp align @b[i] with t[i]\n"),
     "has 2 dimension(s)"),
    ("align-dummy-missing", at_top("double b[10];\n#pragma xmp align b[@j] with t[i]\n"), "cannot find 'j'"),
    ("align-template-subscripts", at_top("double b[10];\n#pragma xmp align b[i] with @t[i][*]\n"),
     "template 't' has 1 dimension(s)"),
    ("align-initializer", at_top("double b[4] = {1, 2, 3, 4};\n#pragma xmp align @b[i] with t[i]\n"),
     "initializer"),
    ("align-undistributed-template", at_top("#pragma xmp template u[10]\ndouble b[10];\n"
                                            "#pragma xmp align b[i] with @u[i]\n"), "not distributed"),
    ("aligned-twice", at_top("#pragma xmp align @a[i] with t[i]\n"), "already aligned"),
    ("shadow-count", at_top("#pragma xmp @shadow a[1][1]\n"), "gives 2"),
    ("shadow-non-aligned", at_top("double b[10];\n#pragma xmp shadow @b[1]\n"), "not an aligned array"),
    ("shadow-collapsed", at_top(lines("double b[100][4];", "#pragma xmp align b[i][*] with t[i]",
                                      "#pragma xmp shadow b[1][@1]")), "not distributed"),
    ("shadow-cyclic", at_top("#pragma xmp shadow a[@1]\n", HEAD.replace("[block]", "[cyclic]")), "cyclic"),
    ("shadow-negative", at_top("#pragma xmp shadow a[@-1]\n"), "negative"),
    ("shadow-twice", at_top("#pragma xmp shadow a[1]\n#pragma xmp @shadow a[2]\n"), "declared twice"),
    ("block-scope-undeclared-template", in_main("    double b[10];\n#pragma xmp align b[i] with @u[i]"),
     "template 'u' is not declared"),
    # ---- loops
    ("loop-undeclared-template", in_main("#pragma xmp loop on @u[i]\n    for (i = 0; i < 10; i++) x++;"),
     "template 'u' is not declared"),
    ("loop-undistributed", in_main("#pragma xmp loop on @u[i]\n    for (i = 0; i < 10; i++) x++;",
                                   HEAD + "#pragma xmp template u[10]\n"), "not distributed"),
    ("loop-not-for", in_main("#pragma xmp @loop on t[i]\n    x = 1;"), "followed by a for"),
    ("loop-at-end-of-block", in_main("    {\n#pragma xmp @loop on t[i]\n    }"), "followed by a for"),
    ("loop-index-not-in-on-ref",
     in_main("#pragma xmp loop (@j) on t[i]\n    for (j = 0; j < 100; j++) a[j] = 0;"),
     "cannot find index 'j'"),
    ("loop-on-ref-rank", in_main("#pragma xmp loop on @t[i][j]\n    for (i = 0; i < 100; i++) a[i] = 0;"),
     "has 1 dimension(s)"),
    ("loop-index-missing-in-nest",
     in_main("#pragma xmp @loop (i) on t[i]\n    for (j = 0; j < 100; j++) a[j] = 0;"),
     "cannot find the loop"),
    ("loop-not-canonical-step",
     in_main("#pragma xmp loop on t[i]\n    for (i = 1; i < 100; @i *= 2) a[i] = 0;"), "not canonical"),
    ("loop-not-canonical-cond", in_main("#pragma xmp loop on t[i]\n    for (i = 0; @j < 100; i++) a[i] = 0;"),
     "not canonical"),
    ("loop-not-canonical-init", in_main("#pragma xmp loop on t[i]\n    @for (; i < 100; i++) a[i] = 0;"),
     "not canonical"),
    ("loop-on-nodes-rank", in_main("#pragma xmp loop on @p[i][j]\n    for (i = 0; i < 4; i++) x++;"),
     "nodes 'p' has 1 dimension(s) but the on-ref gives 2"),
    ("collective-in-loop-body", in_main("#pragma xmp loop on t[i]\n    for (i = 0; i < 100; i++) {\n"
                                        "#pragma xmp @barrier\n    }"), "not supported yet"),
    ("reduction-aligned",
     in_main("#pragma xmp loop on t[i] reduction(+:@a)\n    for (i = 0; i < 100; i++) a[i] = 0;"), "aligned"),
    ("reduction-undeclared", in_main("#pragma xmp loop on t[i] reduction(+:@zz)\n"
                                     "    for (i = 0; i < 100; i++) s += a[i];"), "'zz' is not declared"),
    ("reduction-bitwise-double", in_main("#pragma xmp loop on t[i] reduction(&:@s)\n"
                                         "    for (i = 0; i < 100; i++) s += a[i];"), "bitwise"),
    ("reduction-directive-aligned", in_main("#pragma xmp reduction(+:@a)"), "aligned"),
    # ---- communication and tasks
    ("reflect-no-shadow", in_main("#pragma xmp reflect (@a)"), "has no shadow"),
    ("reflect-not-aligned", in_main("#pragma xmp reflect (@x)"), "not an aligned array"),
    ("reflect-undeclared", in_main("#pragma xmp reflect (@nope)"), "not declared"),
    ("bcast-distributed", in_main("#pragma xmp bcast (@a)"), "distributed array"),
    ("bcast-multi-node-source", in_main("#pragma xmp bcast (x) from p[@0:2]"), "single node"),
    ("bcast-undeclared", in_main("#pragma xmp bcast (@y)"), "'y' is not declared"),
    ("task-undeclared-nodes", in_main("#pragma xmp task on @q[0]\n    x = 1;"), "nodes 'q' is not declared"),
    ("task-no-statement", in_main("    {\n#pragma xmp @task on p[0]\n    }"), "followed by a statement"),
    ("task-before-directive", in_main("#pragma xmp @task on p[0]\n#pragma xmp barrier"),
     "followed by a statement"),
    ("task-before-declaration", in_main("#pragma xmp @task on p[0]\n    int y = 0;"),
     "followed by a statement"),
    ("barrier-undeclared-nodes", in_main("#pragma xmp barrier on @q"), "nodes 'q' is not declared"),
    ("executable-at-file-scope", at_top("#pragma xmp @barrier\n"), "inside a function"),
    ("loop-at-file-scope", at_top("#pragma xmp @loop on t[i]\n"), "inside a function"),
    # ---- reference §6.8 and other LATER features: "not supported yet"
    ("coarray", in_main("#pragma xmp @coarray x : [*]"), "not supported yet"),
    ("local_alias", in_main("#pragma xmp @local_alias la => a"), "not supported yet"),
    ("post-template", in_main("#pragma xmp post (@t[0], 1)"), "'post' needs a node reference"),
    ("coarray-initializer", at_top("int @z[3]:[*] = {1, 2, 3};\n"), "cannot have an initializer"),
    ("coindex-not-coarray", in_main("    x = (int) @a[0]:[1];"), "'a' is not a coarray"),
    ("acc-reflect", in_main("#pragma xmp acc @reflect (a)"), "not supported yet"),
    # reductions with location variables of GPU loops (kernel_locations.py); arrays and
    # sections become their elements' scalars (kernel_location_elements.py)
    ("acc-loop-location-large-array", in_main("    int k[10][10] = {{0}};\n"
                                              "#pragma xmp loop on t[i] reduction(firstmax: s "
                                              "/x, @k[1][:]/) acc\n"
                                              "    for (i = 0; i < 100; i++) { x++; k[1][0] = i; }"),
     "'k' has 100 elements; a location array of a GPU loop has at most 64 (each element "
     "is a kernel parameter)"),
    ("acc-loop-location-section-outside", in_main("    int k[2] = {0, 0};\n"
                                                  "#pragma xmp loop on t[i] "
                                                  "reduction(lastmin: s /@k[1:2]/) acc\n"
                                                  "    for (i = 0; i < 100; i++) x++;"),
     "the section of location variable 'k' lies outside its 2 elements"),
    ("acc-loop-location-array-twice", in_main("    int k[2] = {0, 0};\n"
                                              "#pragma xmp loop on t[i] reduction(firstmax: s /k[0]/) "
                                              "reduction(lastmin: x /@k[0:2]/) acc\n"
                                              "    for (i = 0; i < 100; i++) { s = i; x = -i; }"),
     "'k[0]' is a location variable of two reductions of this loop: a variable takes part in one reduction"),
    ("acc-loop-location-subscripted-scalar", in_main("#pragma xmp loop on t[i] "
                                                     "reduction(lastmin: s /@x[1]/) acc\n"
                                                     "    for (i = 0; i < 100; i++) s++;"),
     "'x' is subscripted but is not an array"),
    ("acc-loop-location-index", in_main("#pragma xmp loop on t[i] reduction(firstmax: s /x, @i/) acc\n"
                                        "    for (i = 0; i < 100; i++) x++;"),
     "'i' is an index of this loop, so it cannot be a location variable: the loop, not the body, changes it; "
     "note the index in a variable of your own, as in 'if (a[i] > v) { v = a[i]; at = i; }' with /at/"),
    ("loop-location-index", in_main("#pragma xmp loop on t[i] reduction(lastmax: s /x, @i/)\n"
                                    "    for (i = 0; i < 100; i++) if (a[i] >= s) s = a[i];"),
     "'i' is an index of this loop, so it cannot be a location variable"),
    ("loop-location-index-value", in_main("#pragma xmp loop on t[i] reduction(firstmin: @i /x/)\n"
                                          "    for (i = 0; i < 100; i++) x++;"),
     "'i' is an index of this loop, so it cannot be the variable of a reduction"),
    ("xacc-location-private", in_main("#pragma xmp loop on t[i] reduction(lastmax: s /x/)\n"
                                      "#pragma acc @parallel loop private(x)\n"
                                      "    for (i = 0; i < 100; i++) if (a[i] >= s) { s = a[i]; x = i; }"),
     "'x' of a reduction with location variables is private in this GPU loop: the reduction sets it after "
     "the loop, a private copy ends with its thread; take it out of private(...)"),
    ("xacc-location-reduced-twice", in_main("#pragma xmp loop on t[i] reduction(lastmax: s /x/)\n"
                                            "#pragma acc @parallel loop reduction(max: x)\n"
                                            "    for (i = 0; i < 100; i++) if (a[i] >= s) "
                                            "{ s = a[i]; x = i; }"),
     "'x' of a reduction with location variables is reduced by another reduction clause too: a variable "
     "takes part in one reduction"),
    # reductions of arrays and sections on GPU loops (kernel_arrays.py)
    ("acc-array-reduction-op", in_main("    int h[4] = {0};\n"
                                       "#pragma xmp loop on t[i] reduction(&&: h) acc\n"
                                       "    for (i = 0; i < 100; i++) @h[i % 4] = h[i % 4] || a[i];"),
     "as in h[e] = h[e] && v and h[e] = v && h[e]"),
    ("acc-array-reduction-read", in_main("    int h[4] = {0};\n"
                                         "#pragma xmp loop on t[i] reduction(+: h) acc\n"
                                         "    for (i = 0; i < 100; i++) { h[i % 4] += 1; x = @h[0]; }"),
     "'h' is a reduction array of this GPU loop: the loop may only update its elements, as in h[e] += v"),
    ("acc-array-reduction-wrong-form", in_main("    double m[4] = {0};\n"
                                               "#pragma xmp loop on t[i] reduction(max: m) acc\n"
                                               "    for (i = 0; i < 100; i++) @m[i % 4] += a[i];"),
     "as in h[e] = fmax(h[e], v), h[e] = h[e] > v ? h[e] : v and if (v > h[e]) h[e] = v"),
    ("acc-array-reduction-long-double", in_main("    long double h[4] = {0};\n"
                                                "#pragma xmp loop on t[i] reduction(+: @h) acc\n"
                                                "    for (i = 0; i < 100; i++) h[i % 4]++;"),
     "'h' has type 'long double' in a GPU loop's reduction: GPUs have no long double (CUDA computes it as "
     "double, in bytes laid out unlike the host's); use double"),
    ("xacc-array-reduction-pointer", in_main("    int *q = 0;\n"
                                             "#pragma acc parallel loop reduction(+: @q)\n"
                                             "    for (i = 0; i < 100; i++) q[i % 4]++;"),
     "'q' is a pointer: name the elements its GPU loop reduces as a section, 'q[lo:len]'"),
    ("xacc-array-reduction-float-bitwise", in_main("    float h[4] = {0};\n"
                                                   "#pragma xmp loop on t[i] reduction(|: @h)\n"
                                                   "#pragma acc parallel loop\n"
                                                   "    for (i = 0; i < 100; i++) h[i % 4] = 1;"),
     "bitwise reduction '|' on floating-point variable 'h'"),
    ("xacc-array-reduction-assigned", in_main("    int h[4] = {0};\n"
                                              "#pragma acc parallel loop reduction(+: h[0:4])\n"
                                              "    for (i = 0; i < 100; i++) @h[i % 4] = i;"),
     "'h' is a reduction array of this GPU loop: the loop may only update its elements"),
    ("xacc-array-reduction-captured", in_main("    int h[4] = {0};\n"
                                              "#pragma acc parallel loop reduction(+: h)\n"
                                              "    for (i = 0; i < 100; i++) x = @h[i % 4]++;"),
     "'h' is a reduction array of this GPU loop: the loop may only update its elements"),
    ("xacc-array-reduction-unsized-parameter", "int f(int h[]) {\n    int i;\n"
                                               "#pragma acc parallel loop reduction(+: @h)\n"
                                               "    for (i = 0; i < 100; i++) h[i % 4]++;\n"
                                               "    return 0;\n}\n",
     "'h' is a pointer: name the elements its GPU loop reduces as a section, 'h[lo:len]'"),
    # ---- global-view §5-7
    ("tasks-not-compound", in_main("#pragma xmp @tasks\n    x = 1;"),
     "must be followed by a compound statement"),
    ("tasks-other-statement", in_main("#pragma xmp tasks\n    {\n    @x = 1;\n    }"),
     "only task constructs may appear in a tasks construct"),
    ("tasks-empty", in_main("#pragma xmp @tasks\n    {\n    }"), "holds no task"),
    ("nocomm-collective", in_main("#pragma xmp task on p[0] nocomm\n    {\n#pragma xmp @barrier\n    }"),
     "'barrier' inside a 'task ... nocomm'"),
    ("nocomm-loop-reduction", in_main("#pragma xmp task on p[0:2] nocomm\n    {\n"
                                      "#pragma xmp @loop on t[i] reduction(+:s)\n"
                                      "    for (i = 0; i < 100; i++) s += a[i];\n    }"),
     "'loop with a reduction clause' inside a 'task ... nocomm'"),
    ("loop-expand-count",
     in_main("#pragma xmp @loop on t[i] expand(1, 1)\n    for (i = 0; i < 100; i++) x++;"),
     "'expand' gives 2 width(s) for the 1 subscript(s)"),
    ("loop-expand-cyclic", in_main("#pragma xmp loop on t[i] expand(@1)\n    for (i = 0; i < 100; i++) x++;",
                                   HEAD.replace("[block]", "[cyclic]")),
     "'expand' on a cyclic dimension of template 't'"),
    # a variable takes part in one reduction; two may track different elements of an array (locations.py)
    ("loop-location-peel-shared", in_main("    double m = 99;\n"
                                          "#pragma xmp loop on t[i] peel_and_wait(1, 1) "
                                          "reduction(firstmax: s /x/) "
                                          "reduction(lastmin: m /@x/)\n"
                                          "    for (i = 0; i < 100; i++) if (a[i] > s) { s = a[i]; x = i; }"),
     "'x' takes part in the reductions of both 's' and 'm': two reductions may only track "
     "sections of constant bounds of one array"),
    ("loop-location-shared-scalar", in_main("    double m = 99;\n"
                                            "#pragma xmp loop on t[i] reduction(firstmax: s /x/) "
                                            "reduction(lastmin: m /@x/)\n"
                                            "    for (i = 0; i < 100; i++) "
                                            "if (a[i] > s) { s = a[i]; x = i; }"),
     "'x' takes part in the reductions of both 's' and 'm'"),
    ("loop-location-shared-element", in_main("    double m = 99;\n    int w[2][2];\n"
                                             "#pragma xmp loop on t[i] reduction(firstmax: s /w[0][:]/) "
                                             "reduction(lastmin: m /@w[0][1]/)\n"
                                             "    for (i = 0; i < 100; i++) "
                                             "if (a[i] > s) { s = a[i]; w[0][0] = i; }"),
     "'w[0][1]' is a location variable of two reductions of this loop: "
     "a variable takes part in one reduction"),
    ("loop-location-shared-variable-bounds", in_main("    double m = 99;\n    int w[2][2];\n"
                                                     "#pragma xmp loop on t[i] "
                                                     "reduction(firstmax: s /w[x][:]/) "
                                                     "reduction(lastmin: m /@w[1][:]/)\n"
                                                     "    for (i = 0; i < 100; i++) if (a[i] > s) s = a[i];"),
     "two reductions may only track sections of constant bounds of one array"),
    ("nodes-subset-undeclared", at_top("#pragma xmp nodes q[2] = @r[0:2]\n"), "nodes 'r' is not declared"),
    ("nodes-subset-rank", at_top("#pragma xmp nodes q[2] = @p[0][1]\n"), "nodes 'p' has 1 dimension(s)"),
    ("template-ref-rank", in_main("#pragma xmp barrier on @t[1][2]"), "template 't' has 1 dimension(s)"),
    ("bcast-from-template-triplet", in_main("#pragma xmp bcast (x) from t[@0:2]"), "single node"),
    ("location-not-scalar", in_main("    int k[2] = {0, 0};\n#pragma xmp reduction(max: @k /x/)"),
     "'k' has location variables, so it must be a scalar"),
    ("location-undeclared", in_main("#pragma xmp reduction(max: s /@nope/)"),
     "variable 'nope' is not declared"),
    ("reduction-complex-max", in_main("    double _Complex z = 0;\n#pragma xmp reduction(max: @z)"),
     "reduction 'max' of the complex variable 'z'"),
    ("reduction-section-rank", in_main("    int k[2] = {0, 0};\n#pragma xmp reduction(+: @k[0][1])"),
     "'k' has 1 dimension(s) but 2 subscript(s) are given"),
    ("reduction-section-aligned", in_main("#pragma xmp reduction(+: @a[0:2])"),
     "distributed (aligned) array"),
    ("reduce-shadow-no-shadow", in_main("#pragma xmp reduce_shadow (@a)"), "has no shadow"),
    ("reflect-do-undeclared", in_main("#pragma xmp reflect_do (@nope)"),
     "reflect_do of 'nope', which is not declared"),
    ("reflect-init-width-count",
     in_main("#pragma xmp @reflect_init (a) width(1, 1)", HEAD + "#pragma xmp shadow a[1]\n"),
     "width() gives 2 entries"),
    ("reflect-periodic-full",
     in_main("#pragma xmp reflect (a) width(/periodic/ @1)", HEAD + "#pragma xmp shadow a[*]\n"),
     "/periodic/ on a full-shadow dimension"),
    ("acc-replicate-not-compound", in_main("#pragma xmp @acc replicate (x)\n    x = 1;"),
     "compound statement"),
    # ---- XcalableACC (OpenACC directives) in places where they mean nothing
    ("openacc-loop-outside-compute", in_main("#pragma acc @loop\n    for (i = 0; i < 100; i++) a[i] = i;"),
     "'acc loop' outside an OpenACC compute construct"),
    ("openacc-only-file",
     "int main(void)\n{\n    int x = 0, i;\n#pragma acc @loop\n"
     "    for (i = 0; i < 4; i++) x += i;\n    return x;\n}\n",
     "'acc loop' outside an OpenACC compute construct"),
    ("openacc-wrong-clause", in_main("#pragma acc update @copy(a)"),
     "clause 'copy' is not allowed on 'acc update'"),
    ("openacc-with-xmp-loop", in_main("#pragma acc @loop\n#pragma xmp loop on t[i]\n"
                                      "    for (i = 0; i < 100; i++) a[i] = i;"),
     "'acc loop' outside an OpenACC compute construct"),
    # ---- dynamic global data (global-view §4)
    ("template-fix-fixed-size", in_main("#pragma xmp template_fix @t[100]"), "declared with its extents"),
    ("template-fix-undeclared", in_main("#pragma xmp template_fix @u[100]"), "template 'u' is not declared"),
    ("template-fix-format-mismatch", in_main("#pragma xmp template_fix [@cyclic] t[100]", DYN_HEAD),
     "must match the distribute directive of 't': dimension 0 is 'block' there, 'cyclic' here"),
    ("template-fix-format-count", in_main("#pragma xmp @template_fix [block][block] t[100]", DYN_HEAD),
     "gives 2 dist-format(s)"),
    ("template-fix-dims-count", in_main("#pragma xmp template_fix @t[10][10]", DYN_HEAD),
     "has 1 dimension(s)"),
    ("template-fix-no-size", in_main("#pragma xmp template_fix [block] @t", DYN_HEAD),
     "must give its extents"),
    ("template-fix-no-gblock-map", in_main("#pragma xmp @template_fix t[100]",
                                           DYN_HEAD.replace("[block]", "[gblock(*)]")), "must give the map"),
    ("template-fix-gblock-star", in_main("#pragma xmp template_fix [@gblock(*)] t[100]",
                                         DYN_HEAD.replace("[block]", "[gblock(*)]")), "not gblock(*)"),
    ("template-fix-at-file-scope", at_top("#pragma xmp @template_fix t[10]\n", DYN_HEAD),
     "inside a function"),
    ("fixed-array-on-unfixed-template",
     at_top("double b[100];\n#pragma xmp align @b[i] with t[i]\n", DYN_HEAD),
     "declare 'b' as a pointer and allocate it with xmp_malloc after template_fix"),
    ("template-fix-part-differs", in_main("#pragma xmp template_fix @u[10][5]",
                                          DYN_HEAD + "#pragma xmp template u[:][4]\n"
                                                     "#pragma xmp distribute u[block][*] onto p\n"),
     "dimension 1 of template 'u' is declared 0..3 but template_fix gives 0..4"),
    ("xmp-malloc-not-aligned", in_main("    double *b;\n    b = @xmp_malloc(xmp_desc_of(b), 100);"),
     "xmp_malloc of 'b', which is not aligned"),
    ("xmp-malloc-fixed-array", in_main("    a = @xmp_malloc(xmp_desc_of(a), 100);"),
     "xmp_malloc of 'a', which is not an aligned pointer"),
    ("xmp-malloc-rank", in_main("    d = @xmp_malloc(xmp_desc_of(d), 10, 10);", DYN_HEAD),
     "xmp_malloc gives 2 extent(s) for the 1-dimensional array 'd'"),
    ("xmp-desc-of-plain", in_main("    void *q = xmp_desc_of(@x);"),
     "xmp_desc_of: 'x' is not a distributed array"),
    # (a parameter 'double c[]' or 'double *c' takes its extents from the array passed)
    ("aligned-parameter-scalar", at_top("void f(double c)\n{\n#pragma xmp align @c[i] with t[i]\n}\n"),
     "'c' is not an array; only arrays can be aligned"),
    # ---- structures (global-view §8)
    ("member-align-no-member", at_top("struct s { int v[100]; };\n#pragma xmp align @s.w[i] with t[i]\n"),
     "structure 's' has no member 'w'"),
    ("member-align-not-struct", at_top("#pragma xmp align @q.v[i] with t[i]\n"),
     "'q' is not a structure type"),
    ("member-object-initializer", at_top("struct s { int v[100]; };\n#pragma xmp align s.v[i] with t[i]\n"
                                         "struct s @o = {{0}};\n"), "initializer is not supported yet"),
    ("gmove-member-not-aligned", in_main("#pragma xmp gmove\n    @o.w[0:2] = a[0:2];",
                                         HEAD + "struct s { int w[4]; };\nstruct s o;\n"),
     "gmove of structure members that are not aligned are not supported yet"),
    ("member-section-outside-gmove",
     in_main("    @o.w[0:2] = 1;", HEAD + "struct s { int w[4]; };\nstruct s o;\n"),
     "sections of structure members outside gmove are not supported yet"),
    ("member-shadow-not-aligned", at_top("struct s { int v[100]; };\n#pragma xmp shadow @s.v[1]\n"),
     "not an aligned structure member"),
    # aligned members on the device: replicated or in data clauses themselves, not their object
    ("member-in-acc-loop-object-replicated", in_main("#pragma xmp acc replicate (o)\n    {\n"
                                                     "#pragma xmp loop on t[i] acc\n"
                                                     "    for (i = 0; i < 100; i++) @o.v[i] = 0;\n    }",
                                                     MEM),
     "array 'o.v' is used in an acc loop but has no device copy: put the loop inside "
     "'#pragma acc data copy(o.v)'"),
    ("member-of-element-in-acc-loop", in_main("#pragma xmp loop on t[i]\n#pragma acc parallel loop\n"
                                              "    for (i = 0; i < 100; i++) @os[x].v[i] = 0;", MEM),
     "aligned structure member 'os[x].v' in an acc loop: not supported yet"),
    ("acc-data-plain-member", in_main("#pragma acc data copy(@o.h)\n    { }", MEM),
     "'o.h' is not an aligned member: of structure members, only aligned ones (global-view "
     "§8) can be named here"),
    ("acc-update-plain-member",
     in_main("#pragma acc data copy(o.v)\n    {\n#pragma acc update host(@o.h)\n    }", MEM),
     "'o.h' is not an aligned member"),
    ("acc-compute-clause-plain-member", in_main("#pragma acc parallel loop copy(@o.h)\n"
                                                "    for (i = 0; i < 100; i++) x += i;", MEM),
     "'o.h' is not an aligned member"),
    ("acc-replicate-plain-member", in_main("#pragma xmp acc replicate (@o.h)\n    { }", MEM),
     "'o.h' is not an aligned member"),
    ("acc-replicate-member-twice", in_main("#pragma xmp acc replicate (o.v, @o.v)\n    { }", MEM),
     "'o.v' is already replicated in this or an enclosing region"),
    ("acc-replicate-sync-other-object", in_main("#pragma xmp acc replicate (o.v)\n    {\n"
                                                "#pragma xmp acc replicate_sync in (@o2.v)\n    }", MEM),
     "'o2.v' is not replicated"),
    ("member-default-none", in_main("#pragma xmp loop on t[i]\n#pragma acc parallel loop default(none)\n"
                                    "    for (i = 0; i < 100; i++) @o.v[i] = 0;", MEM),
     "array 'o.v' is not named in a data clause of 'acc parallel loop', which has default(none)"),
]

# ---- array sections, gmove, array (global-view §1-§3, §10)
SEC = HEAD + "double b[100], la[10], lb[10], lc[4][5];\nint ia[10];\n#pragma xmp align b[i] with t[i]\n"
CASES += [
    ("section-length-0", in_main("    la[@0:0] = lb[0:3];", SEC), "must be > 0, not 0"),
    ("section-step-0", in_main("    la[@0:3:0] = lb[0:3];", SEC), "must not be 0"),
    ("section-shapes", in_main("    la[2:3] = lb[@0:4];", SEC), "'la' has shape [3] but 'lb' has shape [4]"),
    ("section-2d-shapes", in_main("    lc[:][1] = lb[@0:5];", SEC),
     "'lc' has shape [4] but 'lb' has shape [5]"),
    ("section-ranks", in_main("    lc[:][:] = @lb[0:4];", SEC), "'lc' has 2 dimension(s) but 'lb' has 1"),
    ("section-bounds", in_main("    la[@5:6] = lb[0:6];", SEC),
     "reaches index 10, out of bounds of dimension 0"),
    ("section-empty-omitted", in_main("    la[@12:] = 1.0;", SEC), "must be > 0, not 0"),
    ("section-pointer-length", in_main("    double *q = la;\n    q[@2:] = 1.0;", SEC),
     "the length of a section of 'q' must be given"),
    ("section-assigns", in_main("    la[0:3] = @x++ + lb[0:3];", SEC), "must not assign"),
    ("section-distributed", in_main("    @a[0:10] = lb[0:10];", SEC), "'#pragma xmp gmove'"),
    ("section-distributed-rhs", in_main("    la[0:10] = @a[0:10];", SEC), "'#pragma xmp array on ...'"),
    ("section-elsewhere", in_main("    s = f(la[@0:3]);", "double f(double *);\n" + SEC),
     "array section ('[base:length:step]') outside an array assignment statement"),
    ("section-scalar-lhs", in_main("    s = la[@0:3];", SEC), "outside an array assignment statement"),
    ("gmove-arithmetic", in_main("#pragma xmp gmove\n    b[0:10] = @a[0:10] + 1;", SEC),
     "no arithmetic, no calls"),
    ("gmove-call", in_main("#pragma xmp gmove\n    s = @sqrt(a[0]);", "double sqrt(double);\n" + SEC),
     "no arithmetic, no calls"),
    ("gmove-types", in_main("#pragma xmp gmove\n    @ia[0:10] = a[0:10];", SEC),
     "element types differ ('int' and 'double')"),
    ("gmove-not-assignment", in_main("#pragma xmp @gmove\n    for (i = 0; i < 10; i++) x++;", SEC),
     "the statement after gmove must be an assignment"),
    ("gmove-compound-assignment", in_main("#pragma xmp @gmove\n    b[0:10] += a[0:10];", SEC),
     "the statement after gmove must be an assignment"),
    ("gmove-at-end", in_main("    {\n#pragma xmp @gmove\n    }", SEC), "the statement after gmove"),
    ("gmove-shapes", in_main("#pragma xmp gmove\n    b[0:10] = a[@0:9];", SEC),
     "'b' has shape [10] but 'a' has shape [9]"),
    ("gmove-bounds", in_main("#pragma xmp gmove\n    b[@95:10] = a[0:10];", SEC), "out of bounds"),
    ("gmove-index-bounds", in_main("#pragma xmp gmove\n    s = b[@100];", SEC), "index 100 is out of bounds"),
    ("gmove-in-loop", in_main("#pragma xmp loop on t[i]\n    for (i = 0; i < 100; i++) {\n"
                              "#pragma xmp @gmove\n    s = b[0];\n    }", SEC), "not supported yet"),
    ("array-not-assignment", in_main("#pragma xmp @array on t[:]\n    x = 1;", SEC),
     "must be an array assignment statement"),
    ("array-undeclared", in_main("#pragma xmp array on @u[:]\n    a[:] = 1.0;", SEC),
     "template 'u' is not declared"),
    ("array-nodes", in_main("#pragma xmp array on @p[:]\n    a[:] = 1.0;", SEC),
     "'array on' takes a template"),
    ("array-shapes", in_main("#pragma xmp array on t[0:50]\n    a[@0:60] = b[0:60];", SEC),
     "'t' has shape [50] but 'a' has shape [60]"),
    ("array-star-shape", in_main("#pragma xmp array on t[*]\n    @a[:] = 1.0;", SEC),
     "shapes do not conform: 't' has 0 dimension(s) but 'a' has 1"),
    ("array-rank", in_main("#pragma xmp array on @t[:][:]\n    a[:] = 1.0;", SEC),
     "1 dimension(s) but the reference gives 2"),
    ("bcast-distributed-section", in_main("#pragma xmp bcast (@a[0:5])", SEC), "distributed array"),
    ("bcast-section-bounds", in_main("#pragma xmp bcast (la[@5:6])", SEC), "out of bounds"),
    # ---- the C expressions inside directives, checked where the directive stands
    ("expr-undeclared", at_top("#pragma xmp template u(0:@N-1)\n"),
     "'N' undeclared (first use in this directive)"),
    ("expr-undeclared-in-macro", "#define EXT (M * 2)\n" + at_top("#pragma xmp template u[@EXT]\n"),
     "'M' undeclared (first use in this directive)"),
    ("expr-undeclared-second-operand", at_top("#pragma xmp template u[100 + @nx]\n"), "'nx' undeclared"),
    ("expr-float-extent", at_top("#pragma xmp template u[@1.5]\n"),
     "template extent must be an integer expression (it has type 'double')"),
    ("expr-double-bound", at_top("double w = 2;\n#pragma xmp template u(0:@w)\n"),
     "template upper bound must be an integer expression (it has type 'double')"),
    ("expr-typedef-double", at_top("typedef double real;\n#pragma xmp template u[@(real) 4]\n"),
     "(it has type 'real' {aka 'double'})"),
    ("expr-nodes-extent", at_top("#pragma xmp nodes q[@2.0f]\n"),
     "node extent must be an integer expression (it has type 'float')"),
    ("expr-shadow-width", at_top("double w = 1;\n#pragma xmp shadow a[@w]\n"),
     "shadow width must be an integer expression (it has type 'double')"),
    ("expr-align-offset", at_top("double b[100];\ndouble off = 1;\n#pragma xmp align b[i] with t[i@+off]\n"),
     "align offset must be an integer expression"),
    ("expr-cyclic-width", at_top("", "double w = 2;\n" + HEAD.replace("[block]", "[cyclic(@w)]")),
     "cyclic width must be an integer expression (it has type 'double')"),
    ("expr-gblock-type", at_top("", "long W[4];\n" + HEAD.replace("[block]", "[gblock(@W)]")),
     "the gblock argument must be an int array with one entry per node (it has type 'long[4]')"),
    ("expr-gblock-length", at_top("", "int W[] = {50, 50, 0};\n" + HEAD.replace("[block]", "[gblock(@W)]")),
     "the gblock argument has 3 entries but nodes 'p' has 4 in this dimension"),
    ("expr-reflect-width", in_main("#pragma xmp reflect (a) width(@s)", HEAD + "#pragma xmp shadow a[1]\n"),
     "reflect width must be an integer expression (it has type 'double')"),
    ("expr-async-id", in_main("#pragma xmp reflect (a) async(@s)", HEAD + "#pragma xmp shadow a[1]\n"),
     "async id must be an integer expression (it has type 'double')"),
    ("expr-wait-async-undeclared", in_main("#pragma xmp wait_async (@id)"), "'id' undeclared"),
    ("expr-bcast-from-undeclared", in_main("#pragma xmp bcast (x) from p[@k]"), "'k' undeclared"),
    ("expr-on-subscript-double", in_main("#pragma xmp barrier on p[@s]"),
     "subscript of 'p' must be an integer expression (it has type 'double')"),
    ("expr-invalid-operands", in_main("#pragma xmp barrier on p[@x % s]"),
     "invalid operands to binary % (have 'int' and 'double')"),
    ("expr-block-scope-later", in_main("#pragma xmp template u[@m]\n    int m = 4;"),
     "'m' undeclared here: it is declared after this directive (line 12)"),
    ("expr-inner-block-variable", in_main("    { int k = 1; x += k; }\n#pragma xmp barrier on p[@k]"),
     "'k' undeclared (first use in this directive)"),
    ("expr-implicit-function", at_top("#pragma xmp template u[@f(3)]\n"),
     "implicit declaration of function 'f'"),
    ("expr-not-a-function", at_top("int g;\n#pragma xmp template u[@g(3)]\n"),
     "called 'g' is not a function"),
    ("expr-struct-member", at_top("struct cfg { int n; } cfg;\n#pragma xmp template u[cfg.@zz]\n"),
     "'struct cfg' has no member named 'zz'"),
    ("expr-pointer-extent", at_top("int *ptr;\n#pragma xmp template u[@ptr]\n"),
     "template extent must be an integer expression (it has type 'int *')"),
    ("expr-bcast-variable-later", in_main("#pragma xmp bcast (@later)\n    int later = 0;"),
     "'later' undeclared here: it is declared after this directive"),
    ("reduction-of-a-function", in_main("#pragma xmp reduction (+:@main)"),
     "'main' is a function, not a variable"),
    ("nodes-used-before-declaration", in_main("#pragma xmp barrier on @q\n#pragma xmp nodes q[4]"),
     "nodes 'q' is used before its declaration (line 12)"),
    ("template-used-before-declaration", at_top("double b[8];\n#pragma xmp align b[i] with @u[i]\n"
                                                "#pragma xmp template u[8]\n"
                                                "#pragma xmp distribute u[block] onto p\n"),
     "template 'u' is used before its declaration (line 8)"),
    ("acc-loop-without-index", in_main("#pragma xmp acc replicate (a)\n    {\n#pragma xmp loop on @t[5] acc\n"
                                       "        for (i = 0; i < 100; i++) a[i] = 0;\n    }"),
     "'loop ... acc' whose on-ref names no loop index"),
]


Compile = Callable[..., tuple[subprocess.CompletedProcess[str], Path, Path]]


@pytest.fixture
def compile_(tmp_path: Path) -> Compile:
    """Write ``source`` to tmp_path/prog.c and run ``xmpacc prog.c -o prog EXTRA...``."""
    def run(source: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
        src = tmp_path / "prog.c"
        src.write_text(source)
        out = tmp_path / "prog"
        proc = run_xmpacc(str(src), "-o", str(out), *extra)
        return proc, src, out
    return run


def assert_clean_failure(proc: subprocess.CompletedProcess[str], tmp_path: Path, keep: set[str]) -> None:
    """Exit 1, no traceback, and nothing left in the folder but the user's files."""
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    left = {p.name for p in tmp_path.iterdir()}
    assert left == keep, f"stray files: {sorted(left - keep)}"


def assert_error_at(stderr: str, src: Path, line: int, col: int, fragment: str) -> None:
    lines = stderr.splitlines()
    head = f"{src}:{line}:{col}: error:"
    assert lines and lines[0].startswith(head), f"expected {head} ...\n{stderr}"
    assert fragment in lines[0], stderr
    text = src.read_text().splitlines()[line - 1].expandtabs(1)  # a tab is one column
    assert lines[1] == f"{line:5d} | {text}", stderr
    assert lines[2] == "      | " + " " * (col - 1) + "^", stderr


@pytest.mark.parametrize("marked, fragment", [pytest.param(m, f, id=i) for i, m, f in CASES])
def test_mistake(marked: str, fragment: str, compile_: Compile, tmp_path: Path) -> None:
    source, line, col = place(marked)
    proc, src, _out = compile_(source)
    assert_clean_failure(proc, tmp_path, {src.name})
    assert_error_at(proc.stderr, src, line, col, fragment)
    assert proc.stderr.count(": error:") == 1, f"one mistake, one error:\n{proc.stderr}"


def test_directive_in_a_header(compile_: Compile, tmp_path: Path) -> None:
    """A header's directives are read where the header is included; a mistake in one is
    reported in the header, at its column."""
    (tmp_path / "decls.h").write_text("#pragma xmp barrier\n")
    proc, src, _ = compile_('#pragma xmp nodes p[4]\n#include "decls.h"\nint main(void) { return 0; }\n')
    assert_clean_failure(proc, tmp_path, {src.name, "decls.h"})
    assert_error_at(proc.stderr, tmp_path / "decls.h", 1, 13, "must be inside a function")


def test_header_directive_mistake_at_its_column(compile_: Compile, tmp_path: Path) -> None:
    """The columns of a header's directive are those of the header's text, also after a
    macro (defined in the source before the #include) expanded in the line."""
    (tmp_path / "decls.h").write_text("#pragma xmp nodes p[*]\n#pragma xmp template t[N]\n"
                                      "#pragma xmp distribute t[FORMAT] onto q\n")
    proc, _src, _ = compile_('#define N 8\n#define FORMAT block\n#include "decls.h"\n'
                             'int main(void) { return 0; }\n')
    col = len("#pragma xmp distribute t[FORMAT] onto ") + 1
    assert_error_at(proc.stderr, tmp_path / "decls.h", 3, col, "nodes 'q' is not declared")


def test_directive_from_pragma_operator_is_not_supported_yet(compile_: Compile, tmp_path: Path) -> None:
    proc, src, _ = compile_('#pragma xmp nodes p[4]\n#define BARRIER _Pragma("xmp barrier")\n'
                            'int main(void)\n{\n    BARRIER\n    return 0;\n}\n')
    assert_clean_failure(proc, tmp_path, {src.name})
    assert_error_at(proc.stderr, src, 5, 12, "not supported yet")


def test_lookalike_pragma_is_not_a_directive(compile_: Compile, tmp_path: Path) -> None:
    proc, _src, _ = compile_(in_main("#pragma xmp_loop on t[i]\n#pragma xmploop"), "--stop-after=check")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


def test_stop_after_reports_errors_of_the_stages_run(compile_: Compile, tmp_path: Path) -> None:
    proc, src, _ = compile_(HEAD.replace("with t[i]", "with u[i]") + "int main(void) { return 0; }\n",
                            "--stop-after=declare")
    assert proc.returncode == 1 and f"{src}:5:29: error: template 'u'" in proc.stderr, proc.stderr


def test_two_unknown_directives_both_reported(compile_: Compile, tmp_path: Path) -> None:
    proc, src, _ = compile_(in_main("#pragma xmp frob\n    x = 1;\n#pragma xmp loop on t[i] bogus\n"
                                    "    for (i = 0; i < 100; i++) x++;"))
    assert_clean_failure(proc, tmp_path, {src.name})
    errors = [ln for ln in proc.stderr.splitlines() if ": error:" in ln]
    assert len(errors) == 2, proc.stderr
    assert "unknown XMP directive 'frob'" in errors[0] and "unknown clause 'bogus'" in errors[1]


def test_mistakes_of_different_stages_both_reported(compile_: Compile, tmp_path: Path) -> None:
    """A declaration error and a loop error: one run reports both, in source order."""
    source = HEAD.replace("with t[i]", "with u[i]") + "\nint main(void)\n{\n    int i;\n" \
        "#pragma xmp loop on v[i]\n    for (i = 0; i < 10; i++) ;\n#pragma xmp reflect (w)\n" \
        "    return 0;\n}\n"
    proc, src, _ = compile_(source)
    assert_clean_failure(proc, tmp_path, {src.name})
    errors = [ln for ln in proc.stderr.splitlines() if ": error:" in ln]
    assert [e.split(": error:")[0] for e in errors] == [f"{src}:5:29", f"{src}:10:21", f"{src}:12:22"], \
        proc.stderr
    assert "template 'u'" in errors[0] and "template 'v'" in errors[1] and "'w'" in errors[2]


def test_all_preprocessor_errors_reported(compile_: Compile, tmp_path: Path) -> None:
    proc, src, _ = compile_(lines("#pragma xmp nodes p[4]", "#error first", "#if 1", "#error second",
                                  "#endif"))
    assert_clean_failure(proc, tmp_path, {src.name})
    assert_error_at(proc.stderr, src, 2, 2, "first")
    assert f"{src}:4:2: error: #error second" in proc.stderr


def test_many_errors_in_one_pass(compile_: Compile, tmp_path: Path) -> None:
    """Several mistakes that the same pass finds are all reported, not only the first."""
    proc, src, _ = compile_(in_main("#pragma xmp bcast (a)\n#pragma xmp reflect (a)\n"
                                    "#pragma xmp loop on t[i] reduction(+:zz)\n"
                                    "    for (i = 0; i < 100; i++) s += a[i];\n"
                                    "#pragma xmp loop on t[i]\n    for (i = 0; i < 100; i *= 2) x++;"))
    assert_clean_failure(proc, tmp_path, {src.name})
    errors = [ln for ln in proc.stderr.splitlines() if ": error:" in ln]
    assert len(errors) == 4, proc.stderr


def test_macro_in_directive_points_at_source(compile_: Compile, tmp_path: Path) -> None:
    """After -D expansion an error still points at the column the user wrote."""
    source, line, col = place("#pragma xmp nodes p[4]\n#pragma xmp template t[N][N] @junk\n"
                              "int main(void) { return 0; }\n")
    proc, src, _ = compile_(source, "-DN=100")
    assert_clean_failure(proc, tmp_path, {src.name})
    assert_error_at(proc.stderr, src, line, col, "extra tokens")


def test_error_after_macro_expansion_in_directive(compile_: Compile, tmp_path: Path) -> None:
    source, line, col = place("#define W 2 3\n#pragma xmp nodes p[4]\n#pragma xmp template t[100]\n"
                              "#pragma xmp distribute t[block] onto p\ndouble a[100];\n"
                              "#pragma xmp align a[i] with t[i]\n#pragma xmp shadow a[@W]\n"
                              "int main(void) { return 0; }\n")
    proc, src, _ = compile_(source)
    assert_clean_failure(proc, tmp_path, {src.name})
    assert_error_at(proc.stderr, src, line, col, "unexpected '3'")


def test_plain_c_file_syntax_error(compile_: Compile, tmp_path: Path) -> None:
    """A file without directives goes straight to cc; its error still ends the build cleanly."""
    proc, src, _ = compile_("int main(void)\n{\n    return 0\n}\n")
    assert_clean_failure(proc, tmp_path, {src.name})
    assert re.search(rf"^{re.escape(str(src))}:3:\d+: error:", proc.stderr, re.MULTILINE), proc.stderr


def test_missing_input_file(tmp_path: Path) -> None:
    missing = tmp_path / "nothere.c"
    proc = run_xmpacc(str(missing), "-o", str(tmp_path / "prog"))
    assert_clean_failure(proc, tmp_path, set())
    assert "nothere.c" in proc.stderr and "error" in proc.stderr


def test_unknown_option(tmp_path: Path) -> None:
    src = tmp_path / "prog.c"
    src.write_text("int main(void) { return 0; }\n")
    proc = run_xmpacc("--frobnicate", str(src), "-o", str(tmp_path / "prog"))
    assert_clean_failure(proc, tmp_path, {"prog.c"})
    assert "unknown option '--frobnicate'" in proc.stderr


@pytest.mark.parametrize("exc", [RuntimeError, InternalError])
def test_internal_error_is_reported_as_bug(exc: type[Exception], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from xmpacc import driver
    from xmpacc.passes.comm import comm

    def broken(unit: Unit, ctx: Context) -> Unit:
        raise exc("invariant broken")

    monkeypatch.setattr(driver, "PASSES", tuple(
        (name, tuple(broken if run is comm.run else run for run in runs)) for name, runs in driver.PASSES))
    src = tmp_path / "prog.c"
    src.write_text(in_main("#pragma xmp barrier"))
    rc = cli.main([str(src), "-o", str(tmp_path / "prog")])
    err = capsys.readouterr().err
    assert rc != 0 and rc != 1
    assert "bug in xmpacc" in err and "invariant broken" in err
    assert "Traceback" not in err
    assert {p.name for p in tmp_path.iterdir()} == {"prog.c"}


def test_decision_warnings_do_not_stop_the_build(tmp_path: Path) -> None:
    """Reference decisions 4 and 5: a template named like a C variable, and align before
    the array's declaration, are accepted with a located warning."""
    src = tmp_path / "w.c"
    src.write_text("#pragma xmp nodes p[*]\n#pragma xmp template t[8]\n"
                   "#pragma xmp distribute t[block] onto p\n"
                   "#pragma xmp align a[i] with t[i]\ndouble a[8];\n"
                   "int main(void) { int t = 0; return t; }\n")
    out = tmp_path / "w"
    r = run_xmpacc(str(src), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert f"{src}:4:19: warning: 'a' is declared after this directive" in r.stderr
    assert f"{src}:2:22: warning: template 't' has the name of a C variable" in r.stderr
    assert out.exists()
