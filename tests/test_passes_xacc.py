"""Passes acc_data and acc_comm (XcalableACC §1, §3, §4): a small C function in, the runtime
calls out (tests/test_xacc.py runs whole programs and has the golden host C)."""

from __future__ import annotations

import re
from pathlib import Path

from pycparser import c_ast
from test_passes import DECLS, assert_lowered, errors_of, function, normalised, run_passes, to_c

from xmpacc.passes.common.blocks import construct_statement, is_construct

SCALAR = "double x;\ndouble v[10];\n"


def test_update_with_async_and_if_present(tmp_path: Path) -> None:
    assert_lowered(tmp_path, DECLS + SCALAR + """
void f(void)
{
#pragma acc update self(x) async(2) if_present
}
""", """
void f(void)
{
    {
        _xmpacc_acc_update("unit.c:11", 1, &x, sizeof(x), "x", 0, 1 | 2, (long long) 2);
    }
}
""")


def test_enter_data_wait_clause_and_section(tmp_path: Path) -> None:
    assert_lowered(tmp_path, DECLS + SCALAR + """
void f(void)
{
#pragma acc enter data pcopyin(v[2:3]) create(x) wait(1)
}
""", """
void f(void)
{
    {
        _xmpacc_acc_wait("unit.c:11", 1, (const long long []){(long long) 1});
        _xmpacc_acc_enter_data("unit.c:11", 2, (const void *[]){v, &x},
            (const long long []){sizeof(v), sizeof(x)},
            (const char *[]){"v", "x"}, (const long long []){1, 3},
            (const void *[]){(const long long []){1, sizeof(v[0]), 10, 1, 2, 3, 1}, 0}, 1, -1);
    }
}
""")


def test_barrier_and_wait_async_acc_wait_for_every_queue(tmp_path: Path) -> None:
    assert_lowered(tmp_path, DECLS + """
void f(void)
{
#pragma xmp barrier acc
#pragma xmp wait_async (1) acc
}
""", """
void f(void)
{
    _xmpacc_acc_wait("unit.c:9", -1, 0);
    _xmpacc_barrier("unit.c:9", 0, 0);
    _xmpacc_acc_wait("unit.c:10", -1, 0);
    _xmpacc_wait_async("unit.c:10", 1, (const long long []){(1)}, 0, 0);
}
""")


def test_data_region_makes_its_arrays_present_for_xmp_acc_loops(tmp_path: Path) -> None:
    unit, ctx = run_passes(tmp_path, DECLS + """
void f(void)
{
    int i;
#pragma acc data copy(a)
    {
#pragma xmp loop on t[i] acc
        for (i = 0; i < 100; i++) a[i] = i;
    }
}
""")
    assert len(ctx.kernels) == 1 and ctx.device_data


def test_declare_names_undeclared_variable_at_its_column(tmp_path: Path) -> None:
    errors = errors_of(tmp_path, DECLS + """
void f(void)
{
#pragma acc declare create(nothere)
}
""")
    assert [(e.loc.line, e.loc.col, e.message) for e in errors] == [(9, 28, "'nothere' is not declared")]


def test_orthogonal_reflects_on_device_copies(tmp_path: Path) -> None:
    """reflect ... orthogonal acc and reflect_init ... orthogonal acc: the host reflect's
    slab list without corners, on the device copy."""
    unit, _ctx = run_passes(tmp_path, DECLS + "#pragma xmp shadow a[1]\n" + """
void f(void)
{
#pragma acc data copy(a)
  {
#pragma xmp reflect (a) orthogonal acc
#pragma xmp reflect_init (a) width(1) orthogonal acc
#pragma xmp reflect_do (a) acc
  }
}
""")
    lines = [ln.strip() for ln in to_c(function(unit, "f")).splitlines()]
    assert lines[5:8] == [
        '_xmpacc_reflect_orthogonal_acc(&_xmpacc_a_a, "unit.c:12", 0);',
        '_xmpacc_reflect_init_acc(&_xmpacc_a_a, "unit.c:13", (const long long []){1, 1, 0}, 1);',
        '_xmpacc_reflect_do_acc(&_xmpacc_a_a, "unit.c:14");'], lines


def test_gmove_acc_passes_both_sides_and_their_names(tmp_path: Path) -> None:
    """gmove acc: one runtime call on the device copies, local = local too; a constant
    source is a host value (flags GMOVE_ACC_HOST_SOURCE)."""
    assert_lowered(tmp_path, DECLS + SCALAR + """
void f(void)
{
#pragma xmp gmove acc
    v[0:4] = a[2:4];
#pragma xmp gmove acc
    x = v[3];
#pragma xmp gmove acc async(2)
    a[0:10] = 1.5;
}
""", """
void f(void)
{
    _xmpacc_gmove_acc("unit.c:11", 0, 0, (void *) v, (const long long []){1, sizeof(v[0]), 10, 1, 0, 4, 1},
        &_xmpacc_a_a, 0, (const long long []){1, sizeof(*a), 100, 1, 2, 4, 1}, "v", "a");
    _xmpacc_gmove_acc("unit.c:13", 0, 0, (void *) &x, (const long long []){0, sizeof(x)},
        0, (void *) v, (const long long []){1, sizeof(v[0]), 10, 0, 3, 1, 1}, "x", "v");
    {
        double _xmpacc_c = 1.5;
        _xmpacc_async_begin(2);
        _xmpacc_gmove_acc("unit.c:15", 1, &_xmpacc_a_a, 0,
            (const long long []){1, sizeof(*a), 100, 1, 0, 10, 1},
            0, (void *) &_xmpacc_c, (const long long []){0, sizeof(_xmpacc_c)}, "a", "(constant)");
        _xmpacc_async_end();
    }
}
""")


def test_gmove_in_out_acc_set_their_flags_and_start_the_agent(tmp_path: Path) -> None:
    """gmove in/out acc: flags GMOVE_ACC_IN (2) and GMOVE_ACC_OUT (4); the start-up code
    starts the gmove agent once, located at the first of them, and makes no MPI windows."""
    unit, ctx = run_passes(tmp_path, DECLS + SCALAR + """
void f(void)
{
#pragma xmp gmove in acc
    x = a[7];
#pragma xmp gmove out acc
    a[0:10] = 1.5;
}
""")
    assert to_c(function(unit, "f")) == normalised("""
void f(void)
{
    _xmpacc_gmove_acc("unit.c:11", 2, 0, (void *) &x, (const long long []){0, sizeof(x)},
        &_xmpacc_a_a, 0, (const long long []){1, sizeof(*a), 100, 0, 7, 1, 1}, "x", "a");
    {
        double _xmpacc_c = 1.5;
        _xmpacc_gmove_acc("unit.c:13", 5, &_xmpacc_a_a, 0,
            (const long long []){1, sizeof(*a), 100, 1, 0, 10, 1},
            0, (void *) &_xmpacc_c, (const long long []){0, sizeof(_xmpacc_c)}, "a", "(constant)");
    }
}
""")
    init = [to_c(s).strip() for s in ctx.init_stmts]
    assert init[0] == '_xmpacc_gmove_agent_init("unit.c:11")', init   # first: before any align
    assert sum("agent_init" in s for s in init) == 1, init
    assert not any("rma_init" in s for s in init), init


def test_bcast_and_reduction_acc_call_the_device_forms(tmp_path: Path) -> None:
    """Whole variables and elements: the device entries (NCCL between GPUs), with the
    variable's name; a section keeps the swap around the host collective."""
    assert_lowered(tmp_path, DECLS + SCALAR + """
void f(void)
{
#pragma xmp reduction (max: x) acc
#pragma xmp bcast (v[2]) acc
#pragma xmp bcast (v[0:2]) acc
}
""", """
void f(void)
{
    _xmpacc_reduce_acc(&x, "unit.c:11", 1, _XMPACC_TYPE(x), 8, 0, 0, "x");
    {
        _xmpacc_bcast_acc(&v[2], "unit.c:12", sizeof(v[2]), 0, 0, 0, 0, "v");
    }
    {
        _xmpacc_acc_swap("unit.c:13", v, sizeof(v), "v");
        {
            _xmpacc_bcast_section((void *) v, "unit.c:13",
                (const long long []){1, sizeof(v[0]), 10, 1, 0, 2, 1},
                0, 0, 0, 0);
        }
        _xmpacc_acc_swap("unit.c:13", v, sizeof(v), "v");
    }
}
""")


# ------------------------------------------------------------ constructs stacked without braces

STACK = """
void f(void)
{
    int i;
#pragma acc data copy(x)
#pragma acc data copy(v)
#pragma xmp loop on t[i]
#pragma acc parallel loop
    for (i = 0; i < 10; i++) a[i] = v[i] + x;
#pragma acc kernels
#pragma acc loop
    for (i = 0; i < 10; i++) v[i] = 2 * v[i];
}
"""
BRACED = """
void f(void)
{
    int i;
#pragma acc data copy(x)
    {
#pragma acc data copy(v)
    {
#pragma xmp loop on t[i]
#pragma acc parallel loop
    for (i = 0; i < 10; i++) a[i] = v[i] + x;
    }
    }
#pragma acc kernels
    {
#pragma acc loop
    for (i = 0; i < 10; i++) v[i] = 2 * v[i];
    }
}
"""


def _without_lines(c_text: str) -> str:
    """Generated code without the source lines it names (the braces move the lines)."""
    return re.sub(r"unit(\.c:|_c_)\d+", r"unit\1L", c_text)


def test_stacked_constructs_lower_as_the_same_constructs_in_braces(tmp_path: Path) -> None:
    """A construct line with its statement is the statement of the line above it (OpenACC:
    a construct applies to the structured block after it)."""
    stacked, _ = run_passes(tmp_path, DECLS + SCALAR + STACK)
    braced, _ = run_passes(tmp_path, DECLS + SCALAR + BRACED)
    text = to_c(function(stacked, "f"))
    assert "_xmpacc_acc_data_begin" in text and text.count("_xmpacc_launch(") == 2
    assert _without_lines(text) == _without_lines(to_c(function(braced, "f")))


def test_construct_statement_takes_the_lines_stacked_on_it(tmp_path: Path) -> None:
    unit, ctx = run_passes(tmp_path, DECLS + SCALAR + """
void f(void)
{
    int i;
#pragma acc data copy(x)
#pragma acc host_data use_device(v)
    x = v[0];
#pragma acc data copy(v)
    i = 1;
#pragma acc data copy(v)
#pragma acc update host(v)
    i = 2;
#pragma acc data copy(x)
}
""", stop_after="attach")
    items = function(unit, "f").body.block_items
    stacked, end = construct_statement(items, 1, ctx)
    assert isinstance(stacked, c_ast.Compound) and stacked.block_items == items[2:4] and end == 4
    assert construct_statement(items, 4, ctx) == (items[5], 6)         # the statement itself
    assert construct_statement(items, 6, ctx) == (None, 7)             # update is no statement
    assert construct_statement(items, 9, ctx) == (None, 10)            # the end of the block
    assert is_construct(items[2], ctx) and not is_construct(items[7], ctx)
