"""Passes (test layer 3): a tiny C string in, the expected C out, both through pycparser.

Each test writes a small XMP program, runs the front end and the passes with
``driver.translate`` and compares one function of the result with the expected C.  The
expected text is parsed and printed by pycparser's generator too, so only the structure
counts, not spacing or parentheses.  Also here: a file without XMP directives comes out
unchanged (layer 4), macros in directives, and the columns of the front end.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pycparser import c_ast, c_parser

from xmpacc.cbuild import to_c
from xmpacc.context import Context, Unit, init_function_name
from xmpacc.diagnostics import XmpError, XmpErrors
from xmpacc.driver import Options, translate
from xmpacc.frontend.preprocess import is_system_coord

# The runtime's types, so that expected C that uses them parses.
PRELUDE = ("typedef int _xmpacc_sched_t; typedef int _xmpacc_nodes_t; "
           "typedef int _xmpacc_template_t; typedef int _xmpacc_array_t;\n")

DECLS = """\
#pragma xmp nodes p[4]
#pragma xmp template t[100]
#pragma xmp distribute t[block] onto p
double a[100];
#pragma xmp align a[i] with t[i]
"""


def run_passes(tmp_path: Path, source: str, stop_after: str = "check",
               cpp_args: tuple[str, ...] = ()) -> tuple[Unit, Context]:
    src = tmp_path / "unit.c"
    src.write_text(source)
    return translate(str(src), Options(cpp_args=list(cpp_args), stop_after=stop_after))


def user_items(unit: Unit) -> list[c_ast.Node]:
    """The file's own external declarations: not those of headers that xmpacc supplies
    (the XMP API every translated file sees), which the host C leaves out."""
    return [item for item in unit.ast.ext if not is_system_coord(item.coord)]


def errors_of(tmp_path: Path, source: str, stop_after: str = "check",
              cpp_args: tuple[str, ...] = ()) -> list[XmpError]:
    """The user errors that translating ``source`` reports."""
    try:
        run_passes(tmp_path, source, stop_after, cpp_args)
    except XmpErrors as e:
        return e.errors
    except XmpError as e:
        return [e]
    raise AssertionError("no error reported")


def function(unit: Unit, name: str) -> c_ast.FuncDef:
    found = [x for x in unit.ast.ext if isinstance(x, c_ast.FuncDef) and x.decl.name == name]
    assert len(found) == 1, f"no function '{name}'"
    return found[0]


def normalised(c_text: str) -> str:
    """``c_text`` (one function) printed by pycparser's generator."""
    return to_c(c_parser.CParser().parse(PRELUDE + c_text).ext[-1])


def assert_lowered(tmp_path: Path, source: str, expected: str, name: str = "f") -> None:
    unit, _ctx = run_passes(tmp_path, source)
    assert to_c(function(unit, name)) == normalised(expected)


def test_block_loop_gets_a_schedule(tmp_path: Path) -> None:
    assert_lowered(tmp_path, DECLS + """
void f(void)
{
    int i;
#pragma xmp loop on t[i]
    for (i = 1; i < 99; i++)
        a[i] = i;
}
""", """
void f(void)
{
    int i;
    {
        {
            _xmpacc_array_t _xmpacc_ha_a = _xmpacc_a_a;
            double * restrict const _xmpacc_hp_a = a;
            {
                _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule(&_xmpacc_t_t.dim[0], 1, 99 - 1, 1);
                for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)
                    _xmpacc_hp_a[_XMPACC_L(_xmpacc_ha_a, 0, i)] = i;
            }
        }
    }
}
""")


def test_downward_loop_with_declared_index(tmp_path: Path) -> None:
    assert_lowered(tmp_path, DECLS + """
void f(void)
{
#pragma xmp loop on t[i]
    for (int i = 99; i >= 0; i -= 3)
        a[i] = 0;
}
""", """
void f(void)
{
    {
        {
            _xmpacc_array_t _xmpacc_ha_a = _xmpacc_a_a;
            double * restrict const _xmpacc_hp_a = a;
            {
                _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule(&_xmpacc_t_t.dim[0], 99, 0, -3);
                for (int i = _xmpacc_s_i.first; i >= _xmpacc_s_i.last; i += -3)
                    _xmpacc_hp_a[_XMPACC_L(_xmpacc_ha_a, 0, i)] = 0;
            }
        }
    }
}
""")


NEST = """\
#pragma xmp nodes p[2][2]
#pragma xmp template t[8][6]
#pragma xmp distribute t[block][block] onto p
double u[8][6];
#pragma xmp align u[i][j] with t[i][j]
"""


def test_nest_gets_two_schedules_and_2d_subscripts(tmp_path: Path) -> None:
    assert_lowered(tmp_path, NEST + """
void f(void)
{
    int i, j;
#pragma xmp loop (j, i) on t[j][i]
    for (j = 0; j < 8; j++)
        for (i = 0; i < 6; i++)
            u[j][i] = u[j][i] + 1;
}
""", """
void f(void)
{
    int i;
    int j;
    {
        {
            _xmpacc_array_t _xmpacc_ha_u = _xmpacc_a_u;
            double * restrict const _xmpacc_hp_u = u;
            {
                _xmpacc_sched_t _xmpacc_s_j = _xmpacc_schedule(&_xmpacc_t_t.dim[0], 0, 8 - 1, 1);
                for (j = _xmpacc_s_j.first; j <= _xmpacc_s_j.last; j += 1)
                {
                    _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule(&_xmpacc_t_t.dim[1], 0, 6 - 1, 1);
                    for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)
                        _xmpacc_hp_u[_XMPACC_AT2(_xmpacc_ha_u, _XMPACC_L(_xmpacc_ha_u, 0, j),
                            _XMPACC_L(_xmpacc_ha_u, 1, i))] = _xmpacc_hp_u[_XMPACC_AT2(_xmpacc_ha_u,
                            _XMPACC_L(_xmpacc_ha_u, 0, j), _XMPACC_L(_xmpacc_ha_u, 1, i))] + 1;
                }
            }
        }
    }
}
""")


def test_partial_subscript_is_a_row_address(tmp_path: Path) -> None:
    assert_lowered(tmp_path, NEST + """
void g(double *row);
void f(void)
{
    g(u[3]);
}
""", """
void f(void)
{
    g(&u[_XMPACC_AT2(_xmpacc_a_u, _XMPACC_L(_xmpacc_a_u, 0, 3), 0)]);
}
""")


def test_block_cyclic_loop_iterates_positions(tmp_path: Path) -> None:
    assert_lowered(tmp_path, """
#pragma xmp nodes q[3]
#pragma xmp template c[30]
#pragma xmp distribute c[cyclic(3)] onto q
void f(void)
{
    int i, s = 0;
#pragma xmp loop on c[i]
    for (i = 0; i < 30; i += 2)
        s += i;
}
""", """
void f(void)
{
    int i;
    int s = 0;
    {
        {
            long long _xmpacc_i0_i = 0;
            long long _xmpacc_st_i = 2;
            _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule_pos(&_xmpacc_t_c.dim[0], _xmpacc_i0_i, (30) - 1,
                                                               _xmpacc_st_i);
            for (long long _xmpacc_p_i = _xmpacc_s_i.first; _xmpacc_p_i <= _xmpacc_s_i.last; _xmpacc_p_i++)
            {
                i = _xmpacc_tdim_glb(&_xmpacc_t_c.dim[0], _xmpacc_p_i);
                if (!_xmpacc_on_progression(i, _xmpacc_i0_i, _xmpacc_st_i))
                    continue;
                s += i;
            }
        }
    }
}
""")


def test_cyclic_array_uses_cyclic_index(tmp_path: Path) -> None:
    assert_lowered(tmp_path, """
#pragma xmp nodes q[3]
#pragma xmp template c[30]
#pragma xmp distribute c[cyclic] onto q
int b[30];
#pragma xmp align b[i] with c[i]
void f(void)
{
    b[7] = 1;
}
""", """
void f(void)
{
    b[_XMPACC_LC(_xmpacc_a_b, 0, 7)] = 1;
}
""")


def test_local_variable_hiding_an_aligned_array_is_not_rewritten(tmp_path: Path) -> None:
    assert_lowered(tmp_path, DECLS + """
void f(int k)
{
    a[k] = 1;
    {
        double a[3];
        a[k] = 2;
    }
    for (int a = 0; a < 2; a++)
        k += a;
}
""", """
void f(int k)
{
    a[_XMPACC_L(_xmpacc_a_a, 0, k)] = 1;
    {
        double a[3];
        a[k] = 2;
    }
    for (int a = 0; a < 2; a++)
        k += a;
}
""")


def test_block_scope_array_gets_a_cleanup_descriptor(tmp_path: Path) -> None:
    unit, _ctx = run_passes(tmp_path, DECLS + """
void f(void)
{
    double b[100];
#pragma xmp align b[i] with t[i]
    b[5] = 1;
}
""")
    body = function(unit, "f").body.block_items
    descriptor, pointer, align, assign = body
    assert isinstance(descriptor, c_ast.Decl) and descriptor.name == "_xmpacc_a_b"
    assert descriptor.funcspec == ["_XMPACC_CLEANUP(_xmpacc_array_release)"]
    assert to_c(descriptor.type) == "_xmpacc_array_t"
    assert to_c(pointer) == "double *b"
    assert to_c(align).startswith("b = (double *) _xmpacc_align(&_xmpacc_a_b, ")
    assert to_c(assign) == "b[_XMPACC_L(_xmpacc_a_b, 0, 5)] = 1"


def test_file_scope_array_becomes_a_pointer_set_up_by_the_init_function(tmp_path: Path) -> None:
    unit, ctx = run_passes(tmp_path, DECLS + "void f(void) { }\n", stop_after="entry")
    assert [to_c(x) for x in user_items(unit) if isinstance(x, c_ast.Decl)] == ["double *a"]
    init = to_c(function(unit, init_function_name(unit)))
    assert init.index("_xmpacc_nodes_init(&_xmpacc_n_p") < init.index("_xmpacc_template_init(&_xmpacc_t_t") \
        < init.index("_xmpacc_distribute(&_xmpacc_t_t") \
        < init.index("a = (double *) _xmpacc_align(&_xmpacc_a_a")
    assert [to_c(d) for d in ctx.file_decls] == ["static _xmpacc_nodes_t _xmpacc_n_p",
                                                 "static _xmpacc_template_t _xmpacc_t_t",
                                                 "_xmpacc_array_t _xmpacc_a_a"]   # a's linkage


def test_reduction_clause_resets_then_combines(tmp_path: Path) -> None:
    assert_lowered(tmp_path, DECLS + """
void f(void)
{
    int i;
    double s = 0;
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < 100; i++)
        s += a[i];
}
""", """
void f(void)
{
    int i;
    double s = 0;
    {
        _xmpacc_loop_reduce_begin(&_xmpacc_t_t, (const int []){1}, &s, 1, _XMPACC_TYPE(s), 1);
        {
            _xmpacc_array_t _xmpacc_ha_a = _xmpacc_a_a;
            double * restrict const _xmpacc_hp_a = a;
            {
                _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule(&_xmpacc_t_t.dim[0], 0, 100 - 1, 1);
                for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)
                    s += _xmpacc_hp_a[_XMPACC_L(_xmpacc_ha_a, 0, i)];
            }
        }
        _xmpacc_loop_reduce(&_xmpacc_t_t, "unit.c:11", (const int []){1}, &s, 1, _XMPACC_TYPE(s), 1);
    }
}
""")


def test_comm_directives_become_runtime_calls(tmp_path: Path) -> None:
    assert_lowered(tmp_path, DECLS + """
#pragma xmp shadow a[1]
void f(void)
{
    int x = 0;
#pragma xmp reflect (a)
#pragma xmp bcast (x) from p[2]
#pragma xmp barrier
}
""", """
void f(void)
{
    int x = 0;
    _xmpacc_reflect(&_xmpacc_a_a, "unit.c:11", 0);
    _xmpacc_bcast(&x, "unit.c:12", sizeof(x), &_xmpacc_n_p, (const long long []){1, 0, (2), 0, 0}, 0, 0);
    _xmpacc_barrier("unit.c:13", 0, 0);
}
""")


# ---------------------------------------------------------------- sections, gmove, array (global-view §1-§3)

SECTION_DECLS = DECLS + """\
#pragma xmp template u[100]
#pragma xmp distribute u[cyclic] onto p
double b[100], la[10], lc[4][5];
#pragma xmp align b[i] with u[i]
"""


def test_local_array_assignment_becomes_a_loop_nest(tmp_path: Path) -> None:
    assert_lowered(tmp_path, SECTION_DECLS + """
void f(double x)
{
    lc[1:3][2] = 2.0 * la[0:3] + x;
    lc[:][:] = lc[:][:] * x;
}
""", """
void f(double x)
{
    {
        for (long long _xmpacc_i0 = 0; _xmpacc_i0 < 3; _xmpacc_i0++)
            lc[1 + _xmpacc_i0][2] = 2.0 * la[_xmpacc_i0] + x;
    }
    {
        for (long long _xmpacc_i0 = 0; _xmpacc_i0 < 4; _xmpacc_i0++)
            for (long long _xmpacc_i1 = 0; _xmpacc_i1 < 5; _xmpacc_i1++)
                lc[_xmpacc_i0][_xmpacc_i1] = lc[_xmpacc_i0][_xmpacc_i1] * x;
    }
}
""")


def test_overlapping_assignment_goes_through_a_temporary(tmp_path: Path) -> None:
    assert_lowered(tmp_path, SECTION_DECLS + """
void f(int n)
{
    la[1:n] = la[0:n];
}
""", """
void f(int n)
{
    {
        if (n <= 0)
            _xmpacc_section_error("unit.c:13", 1, "la", (const long long []){0, n}, 0);
        double *_xmpacc_tmp = __builtin_malloc((n) * sizeof(*_xmpacc_tmp) + 1);
        long long _xmpacc_k = 0;
        for (long long _xmpacc_i0 = 0; _xmpacc_i0 < n; _xmpacc_i0++)
            _xmpacc_tmp[_xmpacc_k++] = la[_xmpacc_i0];
        _xmpacc_k = 0;
        for (long long _xmpacc_i0 = 0; _xmpacc_i0 < n; _xmpacc_i0++)
            la[1 + _xmpacc_i0] = _xmpacc_tmp[_xmpacc_k++];
        __builtin_free(_xmpacc_tmp);
    }
}
""")


def test_gmove_becomes_one_runtime_call_per_statement(tmp_path: Path) -> None:
    assert_lowered(tmp_path, SECTION_DECLS + """
void f(int i)
{
    double x;
#pragma xmp gmove
    b[0:50:2] = a[i:50];
#pragma xmp gmove in async (3)
    x = b[i];
#pragma xmp gmove
    la[:] = 1.5;
}
""", """
void f(int i)
{
    double x;
    _xmpacc_gmove("unit.c:14", 0, &_xmpacc_a_b, 0, (const long long []){1, sizeof(*b), 100, 1, 0, 50, 2},
                  &_xmpacc_a_a, 0, (const long long []){1, sizeof(*a), 100, 1, i, 50, 1});
    _xmpacc_async_begin(3);
    _xmpacc_gmove("unit.c:16", 1, 0, (void *) (&x), (const long long []){0, sizeof(x)},
                  &_xmpacc_a_b, 0, (const long long []){1, sizeof(*b), 100, 0, i, 1, 1});
    _xmpacc_async_end();
    {
        for (long long _xmpacc_i0 = 0; _xmpacc_i0 < 10; _xmpacc_i0++)
            la[_xmpacc_i0] = 1.5;
    }
}
""")


def test_array_directive_loops_over_the_owned_template_elements(tmp_path: Path) -> None:
    assert_lowered(tmp_path, SECTION_DECLS + """
void f(void)
{
#pragma xmp array on t[10:80]
    a[10:80] = 2.0 * a[10:80] + b[0:80];
}
""", """
void f(void)
{
    {
        {
            _xmpacc_sched_t _xmpacc_s__xmpacc_g0 = _xmpacc_schedule(&_xmpacc_t_t.dim[0], 10,
                10 + ((80 - 1) * 1), 1);
            for (long long _xmpacc_g0 = _xmpacc_s__xmpacc_g0.first; _xmpacc_g0 <= _xmpacc_s__xmpacc_g0.last;
                _xmpacc_g0 += 1)
            {
                long long _xmpacc_i0 = _xmpacc_g0 - 10;
                {
                    if (!_xmpacc_is_local(&_xmpacc_a_b, 0, _xmpacc_i0))
                        _xmpacc_section_error("unit.c:13", 3, "b", (const long long []){1, _xmpacc_i0}, 0);
                    a[_XMPACC_L(_xmpacc_a_a, 0, 10 + _xmpacc_i0)] = (2.0 * a[_XMPACC_L(_xmpacc_a_a, 0,
                        10 + _xmpacc_i0)]) + b[_XMPACC_LC(_xmpacc_a_b, 0, _xmpacc_i0)];
                }
            }
        }
    }
}
""")


# ---------------------------------------------------------------- pass-through (layer 4)

PLAIN = """\
struct point { int x, y; struct point *next; };
typedef int (*binop)(int, int);
enum colour { RED, GREEN = 4 };
static int add(int a, int b) { return a + b; }
binop table[2] = { add, 0 };
int apply(binop f, int a, int b) { return f(a, b); }

int work(int n, struct point *p)
{
    int total = 0, k;
#pragma omp parallel for reduction(+:total)
    for (k = 0; k < n; k++)
        total += table[0](k, p->x);
    switch (n) {
    case 0:
        goto done;
    case RED:
    default:
        total += p ? p->y : -1;
        break;
    }
    do { total--; } while (total > 100);
done:
    return total + sizeof(struct point) + (int) GREEN;
}
"""


def structure(node: c_ast.Node) -> str:
    """The AST as text, without coordinates."""
    import io

    out = io.StringIO()
    node.show(buf=out, attrnames=True, nodenames=True, showcoord=False)
    return out.getvalue()


def test_file_without_xmp_directives_passes_through(tmp_path: Path) -> None:
    unit, _ctx = run_passes(tmp_path, PLAIN, stop_after="entry")
    *items, init = user_items(unit)
    assert isinstance(init, c_ast.FuncDef) and init.decl.name == init_function_name(unit)
    assert init.body.block_items in (None, [])
    expected = c_parser.CParser().parse(PLAIN)
    assert structure(c_ast.FileAST(items)) == structure(expected)
    assert to_c(c_ast.FileAST(items)) == to_c(expected)


# ---------------------------------------------------------------- macros and columns


def test_macros_in_directives_are_expanded_with_D(tmp_path: Path) -> None:
    _unit, ctx = run_passes(tmp_path, "#pragma xmp nodes p(4)\n#pragma xmp template t(0:N-1)\n"
                           "#pragma xmp distribute t(block) onto p\nvoid f(void) { }\n",
                           stop_after="entry", cpp_args=("-DN=100",))
    calls = [to_c(s) for s in ctx.init_stmts]
    assert 'const long long []){0, 100 - 1})' in calls[1], calls
    assert (tmp_path / "unit.c").read_text().count("N-1") == 1


def test_directive_expressions_may_use_typedefs(tmp_path: Path) -> None:
    _unit, ctx = run_passes(tmp_path, "typedef double real;\n#pragma xmp nodes p[*]\n"
                            "#pragma xmp template t[(int) sizeof(real) * 2]\nvoid f(void) { }\n",
                            stop_after="entry")
    assert "sizeof(real)" in to_c(ctx.init_stmts[1])


def test_error_in_expanded_directive_points_at_source_column(tmp_path: Path) -> None:
    # 'N' becomes '1000', so the stray token sits 3 columns further in the expanded text.
    source = "#pragma xmp nodes p[4]\n#pragma xmp template t[N][N] bad\nvoid f(void) { }\n"
    [err] = errors_of(tmp_path, source, cpp_args=("-DN=1000",))
    assert (err.loc.line, err.loc.col) == (2, source.splitlines()[1].index("bad") + 1)
    assert "extra tokens" in err.message


def test_error_from_a_macro_points_at_the_macro_name(tmp_path: Path) -> None:
    source = "#define W 2 3\n#pragma xmp nodes p[4]\n#pragma xmp template t[W]\nvoid f(void) { }\n"
    [err] = errors_of(tmp_path, source)
    assert (err.loc.line, err.loc.col) == (3, source.splitlines()[2].index("W") + 1)


def test_c_columns_are_source_columns_after_cpp(tmp_path: Path) -> None:
    """cpp squeezes blanks, drops comments and expands macros; coords still fit the source."""
    line = "\tint  x = /* c */ N  +   k;"
    unit, _ctx = run_passes(tmp_path, f"#define N 1000\nvoid f(int k)\n{{\n{line}\n}}\n", stop_after="parse")
    decl = function(unit, "f").body.block_items[0]
    plus = decl.init
    assert (decl.coord.line, plus.left.coord.column, plus.right.coord.column) == \
        (4, line.index("N") + 1, line.index("k;") + 1)


@pytest.mark.parametrize("line, token", [
    ("\tx  =   /* c */ ;", ";"),
    ("    x = N N;", "N;"),
    ("    x = 1   return;", "return"),
])
def test_c_syntax_error_column_is_source_column(tmp_path: Path, line: str, token: str) -> None:
    source = f"#define N 1000\nvoid f(void)\n{{\n    int x;\n{line}\n}}\n"
    [err] = errors_of(tmp_path, source, stop_after="parse")
    assert (err.loc.line, err.loc.col) == (5, line.index(token) + 1), err
    assert err.message.startswith("syntax error")
