"""XcalableACC front end: ``#pragma acc`` lines through cpp, pycparser, attach and the
interim check, and the XMP ``loop`` / OpenACC construct pairs of ``passes/common/acc_nest.py``.

Programs are translated in-process with ``driver.translate``; places are marked with ``@``
in the source (removed before it is written).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pycparser import c_ast

from xmpacc.cbuild import to_c
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import SourceLoc, XmpError, XmpErrors
from xmpacc.directives import ast as xd
from xmpacc.directives import openacc_ast as O
from xmpacc.driver import Options, translate
from xmpacc.frontend.preprocess import preprocess
from xmpacc.passes.common import acc_nest
from xmpacc.passes.common.pragmas import pragma_id

HEAD = """\
#pragma xmp nodes p[2]
#pragma xmp template t[100]
#pragma xmp distribute t[block] onto p
double a[100], b[100][8];
#pragma xmp align a[i] with t[i]
"""


def program(body: str, head: str = HEAD) -> str:
    return f"{head}int main(void)\n{{\n    int i, j;\n    double s = 0;\n{body}\n    return (int) s;\n}}\n"


def marks(marked: str) -> tuple[str, list[tuple[int, int]]]:
    """The source without its ``@`` marks and the (line, column) of each mark."""
    places, lines = [], []
    for n, line in enumerate(marked.split("\n"), start=1):
        while "@" in line:
            places.append((n, line.index("@") + 1))
            line = line.replace("@", "", 1)
        lines.append(line)
    return "\n".join(lines), places


def run(tmp_path: Path, source: str, stop_after: str = "check",
        cpp_args: tuple[str, ...] = ()) -> tuple[Unit, Context]:
    src = tmp_path / "unit.c"
    src.write_text(source)
    return translate(str(src), Options(cpp_args=list(cpp_args), stop_after=stop_after))


def errors_of(tmp_path: Path, source: str, stop_after: str = "check",
              cpp_args: tuple[str, ...] = ()) -> list[XmpError]:
    try:
        run(tmp_path, source, stop_after, cpp_args)
    except XmpErrors as e:
        return e.errors
    except XmpError as e:
        return [e]
    raise AssertionError("no error reported")


def where(errors: list[XmpError]) -> list[tuple[int, int]]:
    return [(e.loc.line, e.loc.col) for e in errors]


def main_items(unit: Unit) -> list[c_ast.Node]:
    main = next(x for x in unit.ast.ext if isinstance(x, c_ast.FuncDef) and x.decl.name == "main")
    return main.body.block_items


# ---------------------------------------------------------------- preprocess


def test_macros_expand_inside_acc_directives(tmp_path: Path) -> None:
    marked = "#define N 2\nint x;\n#pragma acc parallel loop collapse(@N) vector_length(@VL)\n"
    source, [n_at, vl_at] = marks(marked)
    (tmp_path / "m.c").write_text(source)
    pre = preprocess(str(tmp_path / "m.c"), ["-DVL=128"])
    (raw,) = pre.directives.values()
    assert raw.dialect == "acc" and raw.text == "parallel loop collapse(2) vector_length(128)"
    assert raw.loc == SourceLoc(str(tmp_path / "m.c"), 3, 9)
    assert f"#pragma acc_{raw.id}" in pre.text.splitlines()
    d = run(tmp_path, source, "attach", ("-DVL=128",))[1].acc_directives
    (compute,) = d.values()
    assert isinstance(compute, O.AccCompute) and compute.loop is not None
    assert compute.loop.collapse is not None and compute.vector_length is not None
    assert (compute.loop.collapse.loc.line, compute.loop.collapse.loc.col) == n_at
    assert (compute.vector_length.loc.line, compute.vector_length.loc.col) == vl_at


def test_one_id_space_for_both_dialects(tmp_path: Path) -> None:
    source = program("#pragma acc data copy(a)\n    {\n#pragma xmp barrier\n    }")
    unit, ctx = run(tmp_path, source, "attach")
    dialects = {raw.id: raw.dialect for raw in unit.pre.directives.values()}
    assert list(dialects.values()).count("acc") == 1 and len(dialects) == 6
    pragmas = [n for n in _walk(unit.ast) if isinstance(n, c_ast.Pragma)]
    accs = [n for n in pragmas if pragma_id(n, "acc") is not None]
    assert len(accs) == 1 and pragma_id(accs[0]) is None
    assert id(accs[0]) in ctx.acc_directives and id(accs[0]) not in ctx.directives
    assert not any(isinstance(d, O.AccData) for ds in ctx.directives.values() for d in ds)


def test_continuation_lines_keep_their_places(tmp_path: Path) -> None:
    source, [(line, col)] = marks(program("#pragma acc data copy(a) \\\n        @bogus(b)\n    { }"))
    (err,) = errors_of(tmp_path, source, "attach")
    assert (err.loc.line, err.loc.col) == (line, col) and "unknown clause 'bogus'" in err.message


def test_macro_expansion_errors_point_at_the_macro(tmp_path: Path) -> None:
    source, [place] = marks("#define Z 0\n" + program("#pragma acc parallel loop collapse(@Z)\n"
                                                      "    for (i = 0; i < 10; i++) s += i;"))
    (err,) = errors_of(tmp_path, source, "attach")
    assert (err.loc.line, err.loc.col) == place and "'collapse' needs a positive constant" in err.message


def test_expressions_are_checked_as_c(tmp_path: Path) -> None:
    source, [place] = marks(program("#pragma acc update device(a) if(@i ++ j)"))
    (err,) = errors_of(tmp_path, source, "attach")
    assert (err.loc.line, err.loc.col) == place and err.message == "invalid C expression 'i ++ j'"


def test_directive_in_an_included_file(tmp_path: Path) -> None:
    """Headers' directives are read like the file's own (frontend/headers.py): parsed, and
    their errors reported at the header's line."""
    (tmp_path / "h.h").write_text("#include <stdlib.h>\n#pragma acc routine seq\nint f(div_t d);\n")
    (err,) = errors_of(tmp_path, '#include "h.h"\nint main(void) { return 0; }\n', "check")
    assert err.loc.file.endswith("h.h") and err.loc.line == 2
    assert "'acc routine' function 'f' of another file has a parameter or result of type 'div_t'" \
        in err.message


def test_directive_inside_a_macro_invocation(tmp_path: Path) -> None:
    source = "#define F(x) x\nint main(void)\n{\n    int k = F(1\n#pragma acc wait\n    );\n" \
             "    return k;\n}\n"
    (err,) = errors_of(tmp_path, source, "attach")
    assert err.loc.line == 5 and "an OpenACC directive cannot appear inside a macro invocation" in err.message


def _walk(node: c_ast.Node):  # type: ignore[no-untyped-def]
    yield node
    for _, child in node.children():
        yield from _walk(child)


# ---------------------------------------------------------------- XMP loop / OpenACC pairs

XMP_FIRST = """\
#pragma xmp loop on t[i]
#pragma acc parallel loop collapse(2) reduction(+:s)
    for (i = 0; i < 100; i++)
        for (j = 0; j < 8; j++)
            s += b[i][j];"""
ACC_FIRST = """\
#pragma acc parallel loop gang
#pragma xmp loop on t[i]
    for (i = 0; i < 100; i++) {
#pragma acc loop vector reduction(+:s)
        for (j = 0; j < 8; j++)
            s += b[i][j];
    }"""


@pytest.mark.parametrize("body", [XMP_FIRST, ACC_FIRST], ids=["xmp-first", "acc-first"])
def test_nest_in_either_order(body: str, tmp_path: Path) -> None:
    unit, ctx = run(tmp_path, program(body), "attach")
    items = main_items(unit)
    k = next(n for n, item in enumerate(items) if isinstance(item, c_ast.For))
    nest = acc_nest.nest_at(items, k, ctx)
    assert nest is not None and nest.loop is items[k]
    assert isinstance(nest.xmp, xd.Loop) and isinstance(nest.acc, O.AccCompute) and nest.acc.loop
    assert nest.pragmas == (items[k - 2], items[k - 1])
    assert {id(nest.xmp_pragma), id(nest.acc_pragma)} == {id(items[k - 2]), id(items[k - 1])}
    for i in (k - 2, k - 1):
        assert acc_nest.nest_of_pragma(items, i, ctx) is not None
        assert acc_nest.has_acc_construct(items, i, ctx)
    inner = nest.inner
    assert len(inner) == (1 if body is ACC_FIRST else 0)
    if inner:
        assert inner[0].directive.loop.vector is not None
        assert isinstance(inner[0].loop, c_ast.For) and inner[0].loop is not nest.loop


def test_nest_without_openacc(tmp_path: Path) -> None:
    unit, ctx = run(tmp_path, program("#pragma xmp loop on t[i]\n    for (i = 0; i < 100; i++) a[i] = i;"),
                    "attach")
    items = main_items(unit)
    k = next(n for n, item in enumerate(items) if isinstance(item, c_ast.For))
    nest = acc_nest.nest_at(items, k, ctx)
    assert nest is not None and nest.acc is None and nest.xmp is not None
    assert not acc_nest.has_acc_construct(items, k - 1, ctx)


def test_acc_loop_inside_a_parallel_region(tmp_path: Path) -> None:
    body = ("#pragma acc parallel\n    {\n#pragma xmp loop on t[i]\n#pragma acc loop\n"
            "    for (i = 0; i < 100; i++) a[i] = i;\n    }")
    unit, ctx = run(tmp_path, program(body), "attach")
    region = next(x for x in main_items(unit) if isinstance(x, c_ast.Compound))
    nest = acc_nest.nest_at(region.block_items, 2, ctx)
    assert nest is not None and isinstance(nest.acc, O.AccLoop) and nest.xmp is not None


def test_unrelated_pragma_between_is_no_pair(tmp_path: Path) -> None:
    source, [place] = marks(program("#pragma xmp @loop on t[i]\n#pragma acc update device(a)\n"
                                    "    for (i = 0; i < 100; i++) a[i] = i;"))
    errors = errors_of(tmp_path, source)
    assert any(where([e]) == [place] and "followed by a for statement" in e.message for e in errors)


# ---------------------------------------------------------------- the whole subset compiles

EVERY_DIRECTIVE = """\
#pragma acc declare create(s)
#pragma acc data copy(a) pcopyin(b)
    {
#pragma acc enter data copyin(a[0:100]) async(1)
#pragma acc update host(a) wait(1)
#pragma acc host_data use_device(a)
        { }
#pragma acc parallel num_gangs(2)
        { }
#pragma acc kernels
        { }
#pragma acc kernels loop independent reduction(+:s)
        for (i = 0; i < 10; i++) s += i;
#pragma acc parallel loop reduction(+:s)
        for (i = 0; i < 10; i++) {
#pragma acc loop seq
            for (j = 0; j < 8; j++) s += j;
#pragma acc atomic update
            a[0] += 1;
        }
#pragma acc wait(1)
#pragma acc exit data delete(a)
    }"""


def test_every_openacc_directive_compiles(tmp_path: Path) -> None:
    """Every directive of the subset together: data, asynchrony and compute (each
    construct's own tests are in test_xacc.py and test_xacc_compute.py)."""
    source, places = marks(program(EVERY_DIRECTIVE))
    assert places == []
    _unit, ctx = run(tmp_path, source)
    assert len(ctx.kernels) == 2   # kernels loop and parallel loop (the empty regions make none)


@pytest.mark.parametrize("body", [XMP_FIRST, ACC_FIRST], ids=["xmp-first", "acc-first"])
def test_xmp_loop_with_openacc_makes_one_kernel(body: str, tmp_path: Path) -> None:
    """Either order: one kernel (acc_compute.py), no "must be followed by a for statement"."""
    _unit, ctx = run(tmp_path, program(body))
    assert len(ctx.kernels) == 1


def test_xmp_acc_clauses_on_a_loop_with_openacc(tmp_path: Path) -> None:
    """XcalableACC's bare 'acc' on the XMP loop is accepted (its reduction works on the
    device copies); XMP-ACC's clauses after it belong on the OpenACC directive."""
    source, [place] = marks(program("#pragma xmp loop on t[i] @acc private(j)\n#pragma acc parallel loop\n"
                                    "    for (i = 0; i < 100; i++) a[i] = i;"))
    (err,) = errors_of(tmp_path, source)
    assert where([err]) == [place] and "takes no XMP-ACC clauses after 'acc'" in err.message
    _unit, ctx = run(tmp_path, program("#pragma xmp loop on t[i] acc\n#pragma acc parallel loop\n"
                                       "    for (i = 0; i < 100; i++) a[i] = i;"))
    assert len(ctx.kernels) == 1


def test_openacc_update_inside_an_xmp_acc_loop(tmp_path: Path) -> None:
    body = ("#pragma xmp acc replicate (a)\n    {\n#pragma xmp loop on t[i] acc\n"
            "    for (i = 0; i < 100; i++) {\n#pragma acc atomic\n        a[i] += 1;\n"
            "#pragma acc @update host(s)\n    }\n    }")
    source, [place] = marks(program(body))
    (err,) = errors_of(tmp_path, source)
    assert where([err]) == [place]
    assert err.message == "'acc update' is not allowed inside a kernel (an OpenACC compute construct " \
                          "or an XMP-ACC 'loop ... acc')"


def test_openacc_lines_inside_an_xmp_acc_loop(tmp_path: Path) -> None:
    """The two dialects mix: an acc atomic statement in an XMP-ACC kernel is atomic on the
    device, as in an OpenACC construct's (acc_atomic.py); an inner acc loop line goes, its
    private list and its reduction of an outside variable joining the kernel's (before,
    both were refused; tests/xacc_compute/routine_bodies.c runs them)."""
    _unit, ctx = run(tmp_path, program("#pragma xmp acc replicate (a)\n    {\n#pragma xmp loop on t[i] acc\n"
                                       "    for (i = 0; i < 100; i++) {\n#pragma acc atomic\n"
                                       "        a[i % 4] += 1;\n"
                                       "#pragma acc loop seq reduction(+: s) private(j)\n"
                                       "        for (j = 0; j < 8; j++) s += j;\n    }\n    }"))
    assert not ctx.diags.errors
    (kernel,) = ctx.kernels
    assert "_XMPACC_ATOMIC_ADD(a[" in to_c(kernel.body) and "pragma" not in to_c(kernel.body)
    assert "_xmpacc_red_s" in [p.name for p in kernel.params]


def test_openacc_update_inside_an_xmp_loop_body(tmp_path: Path) -> None:
    """An update is no collective: it may stand in the body of a distributed loop."""
    _unit, ctx = run(tmp_path, program("#pragma acc data copy(a)\n    {\n#pragma xmp loop on t[i]\n"
                                       "    for (i = 0; i < 100; i++) {\n#pragma acc update device(a)\n"
                                       "        a[i] = i;\n    }\n    }"))
    assert not ctx.diags.errors


def test_lookalike_pragma_is_not_openacc(tmp_path: Path) -> None:
    unit, ctx = run(tmp_path, program("#pragma acc_0\n#pragma accel\n    s = 1;"))
    assert ctx.acc_directives == {} and not ctx.diags.errors
