"""The C expressions of directives: the type checker (ctypecheck.py), the libc macro
probe (frontend/libc_macros.py) and the pass that checks them where the directive
stands (passes/declare/directive_exprs.py).  Wrong programs and their exact columns are rows of
tests/test_errors.py; here the checker's answers, and valid programs that must compile."""

from __future__ import annotations

from pathlib import Path

import pytest
from pycparser import c_ast, c_parser

from xmpacc.ctypecheck import CType, Entity, ExprProblem, ExprTypes, constant_value
from xmpacc.diagnostics import XmpErrors
from xmpacc.directives import ast as xd
from xmpacc.driver import Options, translate
from xmpacc.frontend.libc_names import LibcNames
from xmpacc.passes.declare.directive_exprs import DEFAULT, kind_of

DECLS = """
typedef double real;
typedef int count_t;
typedef struct { int n; double h; } cfg_t;
struct pt { int x; struct { long deep; }; };
enum color { RED, GREEN = 5, BLUE };
int n, *ip, arr[4], f(int);
unsigned long ul;
char c;
_Bool flag;
double d, *dp, darr[3];
float fl;
real r;
count_t cnt;
cfg_t cfg;
struct pt pt, *ptp;
int (*fp)(void);
"""


class _Names:
    """The file-scope names of ``DECLS``, as the pass would see them at a directive."""

    def __init__(self, decls: str) -> None:
        self.entities: dict[str, Entity] = {}
        self.tags: dict[str, c_ast.Node] = {}
        for item in c_parser.CParser().parse(decls).ext:
            kind = "typedef" if isinstance(item, c_ast.Typedef) else \
                "function" if isinstance(item.type, c_ast.FuncDecl) else "object"
            if item.name:
                self.entities[item.name] = Entity(kind, item)  # type: ignore[arg-type]
            inner = item.type if isinstance(item.type, (c_ast.Struct, c_ast.Enum)) else \
                getattr(item.type, "type", None)
            if isinstance(inner, c_ast.Struct) and inner.name and inner.decls is not None:
                self.tags[f"struct {inner.name}"] = inner
            if isinstance(inner, c_ast.Enum):
                value = 0
                for e in inner.values.enumerators:
                    value = constant_value(e.value, self) if e.value is not None else value
                    self.entities[e.name] = Entity("enumerator", e, value)
                    value += 1

    def lookup(self, name: str) -> Entity | None:
        return self.entities.get(name)

    def struct(self, tag: str) -> c_ast.Node | None:
        return self.tags.get(tag)

    def undeclared(self, node: c_ast.ID, call: bool) -> CType:
        raise ExprProblem(node, f"'{node.name}' undeclared")


NAMES = _Names(DECLS)


def type_of(text: str) -> CType:
    typedefs = "typedef int real; typedef int count_t; typedef int cfg_t;"
    tree = c_parser.CParser().parse(f"{typedefs} void g(void) {{ ({text}); }}").ext[-1].body.block_items[0]
    return ExprTypes(NAMES).type_of(tree)


@pytest.mark.parametrize("text, kind, spelling", [
    ("n * 2 + 1", "integer", "int"),
    ("GREEN + BLUE", "integer", "int"),
    ("ul % 3", "integer", "unsigned long"),
    ("c + flag", "integer", "int"),
    ("c", "integer", "char"),
    ("flag", "integer", "_Bool"),
    ("cnt", "integer", "count_t"),
    ("sizeof(real) * 2", "integer", "long unsigned int"),
    ("sizeof darr / sizeof darr[0]", "integer", "long unsigned int"),
    ("(int) d", "integer", "int"),
    ("arr[1] + arr[n]", "integer", "int"),
    ("2[arr]", "integer", "int"),
    ("*ip", "integer", "int"),
    ("f(3)", "integer", "int"),
    ("fp()", "integer", "int"),
    ("cfg.n", "integer", "int"),
    ("ptp->x + pt.deep", "integer", "long"),
    ("ptp->x + cnt", "integer", "count_t"),
    ("n > 0 ? n : 1", "integer", "int"),
    ("d > 1.0", "integer", "int"),
    ("'a'", "integer", "char"),
    ("10UL", "integer", "unsigned long int"),
    ("1.5", "floating", "double"),
    ("2.0f", "floating", "float"),
    ("n / 2.0", "floating", "double"),
    ("r", "floating", "real"),
    ("cfg.h", "floating", "double"),
    ("(real) n", "floating", "real"),
    ("n ? d : 1", "floating", "double"),
    ("ip + 1", "pointer", "int *"),
    ("&n", "pointer", "int *"),
    ("darr", "array", "double[3]"),
    ("\"text\"", "pointer", "char *"),
    ("pt", "struct", "struct pt"),
    ("f", "function", "int (*)()"),
])
def test_type_of(text: str, kind: str, spelling: str) -> None:
    t = type_of(text)
    assert (t.kind, t.spelling) == (kind, spelling)


@pytest.mark.parametrize("text, fragment", [
    ("m + 1", "'m' undeclared"),
    ("n % d", "invalid operands to binary % (have 'int' and 'double')"),
    ("d << 1", "invalid operands to binary <<"),
    ("~d", "wrong type argument to unary '~'"),
    ("pt + 1", "invalid operands to binary +"),
    ("n(2)", "called 'n' is not a function"),
    ("n[2]", "subscripted value is neither array nor pointer"),
    ("arr[d]", "array subscript is not an integer"),
    ("*n", "invalid type argument of unary '*'"),
    ("cfg.zz", "'cfg_t' {aka 'struct'} has no member named 'zz'"),
    ("n.x", "request for member 'x' in something not a structure or union"),
    ("n->x", "invalid type argument of '->'"),
    ("f(undeclared_arg)", "'undeclared_arg' undeclared"),
    ("sizeof(nothing)", "'nothing' undeclared"),
])
def test_type_errors(text: str, fragment: str) -> None:
    with pytest.raises(ExprProblem) as err:
        type_of(text)
    assert fragment in err.value.message


def test_int_sized_for_gblock_maps() -> None:
    """gblock maps are read as C ints: int arrays (and enums) are, long or size_t are not."""
    assert type_of("arr").target is not None and type_of("arr").target.int_sized  # type: ignore[union-attr]
    assert not type_of("ul").int_sized
    assert type_of("cnt").int_sized


def test_constant_value() -> None:
    tree = c_parser.CParser().parse("int x = (BLUE + 2) * 0x10 - 010 % 3;").ext[0].init
    assert constant_value(tree, NAMES) == (6 + 2) * 16 - 8 % 3
    assert constant_value(c_parser.CParser().parse("int x = n + 1;").ext[0].init, NAMES) is None
    # literals are read as the access analysis reads them (a hex 'b' digit is no suffix)
    assert constant_value(c_parser.CParser().parse("int x = 0xab + 0b11 + 7uLL;").ext[0].init, NAMES) \
        == 171 + 3 + 7


def test_libc_names_come_from_the_real_headers() -> None:
    names = LibcNames("cc", [], ["limits.h", "math.h", "stdlib.h", "errno.h", "float.h"], [])
    assert names.kind("INT_MAX") == "integer"
    assert names.kind("RAND_MAX") == "integer"
    assert names.kind("M_PI") == "floating"
    assert names.kind("DBL_EPSILON") == "floating"
    assert names.kind("HUGE_VAL") == "floating"
    assert names.kind("errno") == "unknown"
    assert names.kind("abs") == "unknown"     # a function: declared, type not known here
    assert names.kind("N") is None
    assert names.kind("printf") is None       # <stdio.h> is not included


def test_libc_names_compiler_with_words() -> None:
    # $CC may have words (ccache gcc), as for every other compiler run of xmpacc
    assert LibcNames("env cc", [], ["limits.h"], []).kind("INT_MAX") == "integer"


def test_libc_names_without_a_compiler() -> None:
    names = LibcNames("/nonexistent/cc", [], ["limits.h"], [])
    assert names.kind("INT_MAX") == "unknown" and names.kind("n") is None


def test_kind_table() -> None:
    loc = xd.Expr("1", None).loc  # type: ignore[arg-type]
    cyclic, gblock = xd.DistFormat("cyclic", None, loc), xd.DistFormat("gblock", None, loc)
    dist = xd.Distribute(xd.Name("t", loc), (cyclic,), xd.Name("p", loc), loc)
    assert kind_of(cyclic, "arg", dist).what == "cyclic width"
    assert kind_of(gblock, "arg", dist).gblock
    assert kind_of(object(), "async_id", dist).what == "async id"
    assert kind_of(object(), "anything_new", dist) == DEFAULT and DEFAULT.integer


VALID = """\
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stddef.h>
#define NX 16
typedef double real;
typedef long big_t;
enum { K = 2, NY = NX * K };
struct cfg { int n; long widths[2]; } cfg = { 8, { 1, 1 } };
int W[4] = {4, 4, 4, 4};
int sizes[] = {16, 0, 8, 8};
const int halo = 1;
static int count(void) { return 4; }
#pragma xmp nodes p[4]
#pragma xmp nodes q(K, 2)
#pragma xmp template t[NX * K]
#pragma xmp template t2(0:NY-1)
#pragma xmp template t3[INT_MAX / 100000000 + (int) sizeof(real) + (int) M_PI]
#pragma xmp template t4[(size_t) 3 * sizeof(big_t) + RAND_MAX % 2 + 'a' - 'a' + (char) 1]
#pragma xmp template t5[cfg.n * W[0] + count() + (K > 1 ? 3 : 1) + abs(-2)]
#pragma xmp template t6[32]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute t6[gblock(sizes)] onto p
#pragma xmp distribute t2[cyclic(K)] onto p
double a[NX * K], b[32];
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[halo:cfg.widths[1]]
#pragma xmp align b[i] with t6[i]
#pragma xmp shadow b[(int) 1.0]

int main(void)
{
    int i, me = 1;
    long w = 1;
    double s = 0;
    {
        int inner = 2;
#pragma xmp template local[inner * NX]
#pragma xmp distribute local[block] onto p
    }
    for (int k = 0; k < 2; k++) {
#pragma xmp barrier on p[k]
    }
#pragma xmp reflect (a) width(w) async(K + 1)
#pragma xmp wait_async (K + 1)
#pragma xmp bcast (s) from p[me - 1] on p[0:NX / 8]
#pragma xmp reduction (+:s) on p[0:2]
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < NX * K; i++)
        s += a[i];
    return (int) s;
}
"""


def test_valid_expressions_compile(tmp_path: Path) -> None:
    """Enumerators, typedef names in sizeof and casts, libc macros, struct members,
    array elements, calls, block scopes and for-scopes: no false error."""
    src = tmp_path / "valid.c"
    src.write_text(VALID)
    translate(str(src), Options(stop_after="declare"))


def test_directive_sees_only_what_is_declared_before_it(tmp_path: Path) -> None:
    src = tmp_path / "order.c"
    src.write_text("#pragma xmp nodes p[4]\n#pragma xmp template t[n]\nint n = 4;\n"
                   "int main(void) { return 0; }\n")
    with pytest.raises(XmpErrors) as err:
        translate(str(src), Options(stop_after="declare"))
    (e,) = err.value.errors
    assert (e.loc.line, e.loc.col) == (2, 24)
    assert e.message == "'n' undeclared here: it is declared after this directive (line 3)"


def test_shadowed_typedef_is_a_variable(tmp_path: Path) -> None:
    """A typedef name that a block-scope variable hides is that variable in a directive."""
    src = tmp_path / "shadow.c"
    src.write_text("typedef double n;\n#pragma xmp nodes p[4]\n"
                   "int main(void)\n{\n    int n = 8;\n#pragma xmp template t[n]\n    return 0;\n}\n")
    translate(str(src), Options(stop_after="declare"))


def test_errors_in_several_directives_all_reported(tmp_path: Path) -> None:
    src = tmp_path / "many.c"
    src.write_text("#pragma xmp nodes p[4]\n#pragma xmp template t[A]\n#pragma xmp template u[1.5]\n"
                   "#pragma xmp template v(B:C)\nint main(void) { return 0; }\n")
    with pytest.raises(XmpErrors) as err:
        translate(str(src), Options(stop_after="declare"))
    assert [(e.loc.line, e.loc.col) for e in err.value.errors] == [(2, 24), (3, 24), (4, 24), (4, 26)]


LOOP_HEAD = ("#pragma xmp nodes p[4]\n#pragma xmp template t[100]\n#pragma xmp distribute t[block] onto p\n"
             "double a[100];\n#pragma xmp align a[i] with t[i]\nint main(void)\n{\n"
             "    int i;\n    double s = 0;\n")


@pytest.mark.parametrize("directive, col, message", [
    ("loop on t[i+s]", 24, "loop subscript offset must be an integer expression (it has type 'double')"),
    ("loop on t[2 * s]", 23, "template subscript must be an integer expression (it has type 'double')"),
    ("loop on t[i] acc num_threads(32, s)", 46, "thread count must be an integer expression"),
    ("loop on t[i] reduction(+:late)", 38, "'late' undeclared here: it is declared after this directive"),
    ("loop on t[i] reduction(firstmax:s/late/)", 47, "'late' undeclared here"),
    ("reflect (a) width(/periodic/ s)", 42, "reflect width must be an integer expression"),
    ("barrier on p[(int) s:2]", 23, None),
    ("barrier on p[0:s]", 28, "triplet end must be an integer expression (it has type 'double')"),
    ("task on t[s]", 23, "subscript of 't' must be an integer expression"),
])
def test_executable_directive_expressions(directive: str, col: int, message: str | None,
                                          tmp_path: Path) -> None:
    """Checked in the declare stage, before the passes that use (and may reject) them."""
    src = tmp_path / "loop.c"
    src.write_text(LOOP_HEAD + f"#pragma xmp {directive}\n    for (i = 0; i < 100; i++) s += a[i];\n"
                   "    int late = 0;\n    return late;\n}\n")
    if message is None:
        translate(str(src), Options(stop_after="declare"))
        return
    with pytest.raises(XmpErrors) as err:
        translate(str(src), Options(stop_after="declare"))
    (e,) = err.value.errors
    assert (e.loc.line, e.loc.col) == (10, col) and message in e.message, e
