"""Inputs that used to end in an internal error (issue 10): bytes that are not UTF-8,
programs nested thousands of levels deep, and pragmas wherever pycparser accepts them.
Each is tested at the lowest layer that shows it; tests/test_fuzz.py covers the rest."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest
from conftest import run_mpi, run_xmpacc
from pycparser import c_ast

from xmpacc import cli, deepstack
from xmpacc.cbuild import walk
from xmpacc.diagnostics import SourceLoc, XmpError, XmpErrors, format_error
from xmpacc.directives.parser import parse_directive
from xmpacc.driver import Options, translate
from xmpacc.frontend import rawbytes
from xmpacc.frontend.cparse import parse_c
from xmpacc.frontend.preprocess import preprocess

HEAD = b"#pragma xmp nodes p[4]\n#pragma xmp template t[100]\n#pragma xmp distribute t[block] onto p\n"


def compile_in_process(path: Path, *args: str) -> tuple[int, str, str]:
    """``xmpacc PATH ARGS`` in this process: (status, stderr, stdout)."""
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        rc = cli.main([str(path), *args])
    return rc, err.getvalue(), out.getvalue()


# ---------------------------------------------------------------- bytes that are not UTF-8


@pytest.mark.parametrize("text, escaped", [
    ('char *s = "a\udcffb";', 'char *s = "a\\377b";'),
    ("int c = '\udcfe';", "int c = '\\376';"),
    ('char *s = "\\\\\udcff";', 'char *s = "\\\\\\377";'),     # escaped backslash, then the byte
    ('char *s = "\\\udcff";', 'char *s = "\\377";'),          # gcc: unknown escape = the byte
    ("#pragma weird \udc80", "#pragma weird \\200"),
    ("int plain = 1;", "int plain = 1;"),
])
def test_escape_for_c(text: str, escaped: str) -> None:
    assert rawbytes.escape_for_c(text) == escaped


def test_messages_and_display_name_raw_bytes() -> None:
    assert rawbytes.describe_char("\udcff") == "'\\377'" and rawbytes.describe_char("x") == "'x'"
    assert rawbytes.for_display("a\udcffb") == "a\ufffdb"
    err = XmpError(SourceLoc("f.c", 0, 0), "bad 'x\udcff'")
    assert format_error(err) == "f.c:0:0: error: bad 'x\\377'"


def test_preprocess_keeps_raw_bytes(tmp_path: Path) -> None:
    src = tmp_path / "b.c"
    src.write_bytes(HEAD + b'/* \xfe in a comment */\nchar *s = "\xff\xc3";\n')
    pre = preprocess(str(src), [])
    assert 'char *s = "\udcff\udcc3";' in pre.text and "\udcfe" not in pre.text


def test_raw_bytes_reach_the_program_byte_for_byte(tmp_path: Path) -> None:
    src = tmp_path / "b.c"
    src.write_bytes(HEAD + b'/* caf\xe9 */\nchar *s = "\xff\xe9t\xc3\xa9";\n'
                    b'int main(void) { return s[0]; }\n')
    rc, err, host = compile_in_process(src, "--stop-after=emit")
    assert rc == 0, err
    assert 'char *s = "\\377\\351t\u00e9";' in host  # valid UTF-8 stays as it is


def test_raw_bytes_in_an_included_header(tmp_path: Path) -> None:
    """cpp copies the header's bytes into its output, which is read back byte for byte."""
    (tmp_path / "h.h").write_bytes(b'static const char *banner = "\xff\xfe";\n')
    src = tmp_path / "b.c"
    src.write_bytes(HEAD + b'#include "h.h"\nint main(void) { return banner[0]; }\n')
    rc, err, host = compile_in_process(src, "--stop-after=emit")
    assert rc == 0, err
    assert 'banner = "\\377\\376";' in host


@pytest.mark.mpi
def test_raw_bytes_in_strings_run(tmp_path: Path) -> None:
    src = tmp_path / "run.c"
    src.write_bytes(HEAD.replace(b"p[4]", b"p[*]") + b'#include <stdio.h>\n#include <xmp.h>\n'
                          b'char *s = "\xff\x80A";\n'
                          b'int main(void) {\n    /* \xfe\xfd */\n'
                          b'    if (xmpc_node_num() == 0) printf("%d %d %d\\n", (unsigned char) s[0], '
                          b'(unsigned char) s[1], s[2]);\n    return 0;\n}\n')
    exe = tmp_path / "run"
    proc = run_xmpacc(str(src), "-o", str(exe))
    assert proc.returncode == 0, proc.stderr
    run = run_mpi(2, exe)
    assert run.returncode == 0 and run.stdout == "255 128 65\n", run.stderr


def test_stray_byte_in_code_is_located(tmp_path: Path) -> None:
    src = tmp_path / "b.c"
    src.write_bytes(HEAD + b"int main(void) { int x = 1; \xff x = 2; return x; }\n")
    with pytest.raises(XmpError) as err:
        parse_c(preprocess(str(src), []).text, str(src))
    assert (err.value.loc.line, err.value.loc.col) == (4, 29)
    assert err.value.message == "stray '\\377' in program"


def test_stray_byte_in_directive_is_located(tmp_path: Path) -> None:
    src = tmp_path / "b.c"
    src.write_bytes(b"#pragma xmp nodes p[4] \xff\nint main(void) { return 0; }\n")
    rc, err, _ = compile_in_process(src)
    assert rc == 1
    assert err.splitlines() == [f"{src}:1:24: error: unexpected character '\\377' in directive",
                                "    1 | #pragma xmp nodes p[4] \ufffd",
                                "      |                        ^"]


def test_columns_after_a_raw_byte(tmp_path: Path) -> None:
    """One column per byte that is not UTF-8, as gcc counts: the caret stays right."""
    src = tmp_path / "b.c"
    src.write_bytes(HEAD + b'int main(void) { char *s = "\xff\xfe"; int x = ; return x; }\n')
    rc, err, _ = compile_in_process(src)
    assert rc == 1
    assert err.splitlines()[0] == f"{src}:4:42: error: syntax error: invalid expression"
    assert err.splitlines()[2] == "      | " + " " * 41 + "^"


# ---------------------------------------------------------------- deep nesting


def _deep(fn):  # type: ignore[no-untyped-def]
    return deepstack.call(fn)


def test_deepstack_call_returns_and_raises() -> None:
    limit = sys.getrecursionlimit()
    assert deepstack.call(lambda: sys.getrecursionlimit()) == deepstack.RECURSION_LIMIT
    with pytest.raises(KeyError):
        deepstack.call(lambda: {}["missing"])
    assert sys.getrecursionlimit() == limit


def test_deepstack_without_room_for_a_large_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``ulimit -v`` the thread cannot start: the compiler runs as it is (deep
    programs then get the located errors of the guards)."""
    import threading

    def no_room(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", no_room)
    limit = sys.getrecursionlimit()
    assert deepstack.call(lambda: 42) == 42 and sys.getrecursionlimit() == limit


def test_walk_is_iterative() -> None:
    node: c_ast.Node = c_ast.ID("x")
    for _ in range(20000):
        node = c_ast.UnaryOp("-", node)
    assert sum(1 for _ in walk(node)) == 20001  # no RecursionError at the default limit


def _parse_program(tmp_path: Path, body: bytes) -> c_ast.FileAST:
    src = tmp_path / "deep.c"
    src.write_bytes(HEAD + b"int main(void) {\n    int x = 0;\n" + body + b"\n    return x;\n}\n")
    return _deep(lambda: parse_c(preprocess(str(src), []).text, str(src)))


def test_thousands_of_parentheses_parse(tmp_path: Path) -> None:
    _parse_program(tmp_path, b"    x = " + b"(" * 3000 + b"1" + b")" * 3000 + b";")


def test_nesting_limit_is_located(tmp_path: Path) -> None:
    n = deepstack.MAX_NESTING
    with pytest.raises(XmpError) as err:
        _parse_program(tmp_path, b"    x = " + b"(" * (n + 5) + b"1" + b")" * (n + 5) + b";")
    # main's '{' is the first level: the n-th parenthesis crosses the limit
    assert (err.value.loc.line, err.value.loc.col) == (6, 8 + n)
    assert "nested more than 10000 levels deep" in err.value.message


def test_nesting_without_brackets_beyond_the_recursion_limit(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deepstack, "RECURSION_LIMIT", 20000)
    with pytest.raises(XmpError) as err:
        _parse_program(tmp_path, b"    x = " + b"- " * 15000 + b"1;")
    assert err.value.loc.line == 6 and "nested too deeply" in err.value.message


def test_directive_nesting_limit() -> None:
    n = deepstack.MAX_NESTING + 1
    text = "template t[" + "(" * n + "8" + ")" * n + "]"
    locs = [SourceLoc("f.c", 1, 13 + k) for k in range(len(text) + 1)]
    with pytest.raises(XmpError) as err:
        parse_directive(text, locs)
    assert err.value.loc.col == 13 + len("template t[") + n - 1


@pytest.mark.parametrize("body", [
    b"    x = " + b"(" * 3000 + b"1" + b")" * 3000 + b";",
    b"{" * 3000 + b"x = 1;" + b"}" * 3000,
    b"    x = " + b"-(" * 3000 + b"1" + b")" * 3000 + b";",
    b"    x = " + b"1 + " * 3000 + b"1;",
    b"    if (x) x = 1;" + b" else if (x) x = 1;" * 3000,
], ids=["parentheses", "braces", "unary", "binary", "else-if"])
def test_deep_programs_compile(tmp_path: Path, body: bytes) -> None:
    """What gcc compiles, xmpacc compiles (every pass and the generator recurse)."""
    src = tmp_path / "deep.c"
    src.write_bytes(HEAD + b"double a[100];\n#pragma xmp align a[i] with t[i]\nint main(void)\n{\n"
                           b"    int i, x = 0;\n" + body + b"\n#pragma xmp loop on t[i]\n"
                           b"    for (i = 0; i < 100; i++) a[i] = x;\n    return x;\n}\n")
    rc, err, host = compile_in_process(src, "--stop-after=emit")
    assert rc == 0, err
    assert "_xmpacc_schedule" in host


def test_deep_directive_expression_compiles(tmp_path: Path) -> None:
    src = tmp_path / "deep.c"
    src.write_bytes(b"#pragma xmp nodes p[4]\n#pragma xmp template t[" + b"(" * 3000 + b"64"
                    + b")" * 3000 + b"]\n#pragma xmp distribute t[block] onto p\n"
                                    b"int main(void) { return 0; }\n")
    rc, err, _ = compile_in_process(src, "--stop-after=emit")
    assert rc == 0, err


# ---------------------------------------------------------------- pragma positions

POSITIONS = {
    "declarator-body": "int f(void)\n{P}\n{{ return 0; }}\n",
    "knr-before-declarations": "int f(b)\n{P}\nint b;\n{{ return b; }}\n",
    "knr-after-declarations": "int f(b)\nint b;\n{P}\n{{ return b; }}\n",
    "struct": "struct S {{ int m;\n{P}\n int n; }};\n",
    "struct-end": "struct S {{ int m;\n{P}\n}};\n",
    "union": "union U {{ int m;\n{P}\n double d; }};\n",
    "enum": "enum E {{ A,\n{P}\n B }};\n",
    "label": "int f(void) {{ int i;\nL:\n{P}\n i = 0; return i; }}\n",
    "label-at-end": "int f(void) {{ int i = 0; goto L;\nL:\n{P}\n}}\n",
    "if-body": "int f(void) {{ int i = 0; if (i)\n{P}\n i = 1; return i; }}\n",
    "else-body": "int f(void) {{ int i = 0; if (i) i = 2; else\n{P}\n i = 1; return i; }}\n",
    "for-body": "int f(void) {{ int i; for (i = 0; i < 4; i++)\n{P}\n i += 0; return i; }}\n",
    "while-body": "int f(void) {{ int i = 0; while (i)\n{P}\n i--; return i; }}\n",
    "do-body": "int f(void) {{ int i = 0; do\n{P}\n i--; while (i); return i; }}\n",
    "case": "int f(int i) {{ switch (i) {{ case 1:\n{P}\n i = 2; }} return i; }}\n",
    "case-at-end": "int f(int i) {{ switch (i) {{ case 1:\n{P}\n }} return i; }}\n",
    "end-of-compound": "int f(void) {{ int i = 0;\n{P}\n}}\n",
    "after-return": "int f(void) {{ return 0;\n{P}\n}}\n",
    "two-before-statement": "int f(void) {{ int i = 0; if (i)\n{P}\n{P}\n i = 1; return i; }}\n",
    "initializer": "int arr[2] = {{ 1,\n{P}\n 2 }};\n",
    "parameters": "int f(int b,\n{P}\n int c) {{ return b; }}\n",
    "expression": "int f(void) {{ int i = 1 +\n{P}\n 2; return i; }}\n",
    "for-header": "int f(void) {{ int i; for (i = 0;\n{P}\n i < 3; i++) ; return i; }}\n",
}
DIRECTIVES = ("barrier", "nodes q[2]", "loop on t[i]", "template u[N]")


@pytest.mark.parametrize("position", sorted(POSITIONS))
def test_pragma_positions(position: str, tmp_path: Path) -> None:
    """Every directive in every position: compiled, or a located error; never a crash."""
    for directive in DIRECTIVES:
        src = tmp_path / f"{position}.c"
        text = POSITIONS[position].format(P="#pragma xmp " + directive)
        src.write_text(HEAD.decode() + "double a[100];\n#pragma xmp align a[i] with t[i]\n" + text
                       + "int main(void) { return 0; }\n")
        try:
            _deep(lambda src=src: translate(str(src), Options(stop_after="check")))
        except (XmpError, XmpErrors) as e:
            errors = e.errors if isinstance(e, XmpErrors) else [e]
            assert all(err.loc.file == str(src) and err.loc.line > 0 for err in errors), errors


@pytest.mark.parametrize("position, fragment", [
    ("knr-after-declarations", "the 'barrier' directive is not allowed here"),
    ("struct", "the 'barrier' directive is not allowed here"),
    ("declarator-body", "a '#pragma' line just before is not supported yet at this place"),
    ("initializer", "a '#pragma' line here is not supported yet at this place"),
])
def test_pragma_position_messages(position: str, fragment: str, tmp_path: Path) -> None:
    src = tmp_path / "pos.c"
    src.write_text(HEAD.decode() + POSITIONS[position].format(P="#pragma xmp barrier")
                   + "int main(void) { return 0; }\n")
    with pytest.raises((XmpError, XmpErrors)) as err:
        translate(str(src), Options(stop_after="check"))
    assert fragment in str(err.value)


def test_directive_as_if_body_applies_to_the_statement(tmp_path: Path) -> None:
    """pycparser reads 'if (c) <pragma> stmt' as 'if (c) { <pragma> stmt }'."""
    src = tmp_path / "if.c"
    src.write_text(HEAD.decode() + "int main(void)\n{\n    int i = 0;\n    if (i)\n#pragma xmp barrier\n"
                   "        i = 1;\n    return i;\n}\n")
    rc, err, host = compile_in_process(src, "--stop-after=emit")
    assert rc == 0, err
    assert "if (i)\n" in host and "_xmpacc_barrier(" in host.split("if (i)")[1].split("return")[0]


def test_plain_pragmas_in_odd_places_still_build(tmp_path: Path) -> None:
    """Other pragmas go to the host compiler where pycparser keeps them."""
    src = tmp_path / "omp.c"
    src.write_text(HEAD.decode() + "struct S { int m;\n#pragma pack(1)\n int n; };\n"
                   "int main(void)\n{\n    int i = 0;\n    if (i)\n#pragma omp atomic\n        i += 1;\n"
                   "    return i;\n}\n")
    proc = run_xmpacc(str(src), "-o", str(tmp_path / "omp"))
    assert proc.returncode == 0, proc.stderr


def test_missing_preprocessor_is_an_error_not_a_crash(tmp_path: Path) -> None:
    src = tmp_path / "m.c"
    src.write_bytes(HEAD)
    with pytest.raises(XmpError, match="cannot run the C preprocessor '/nonexistent/cc'"):
        preprocess(str(src), [], cc="/nonexistent/cc")
