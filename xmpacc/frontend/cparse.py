"""Stage 2, parse: the preprocessed text through pycparser, with located errors.

pycparser's columns are columns of the cpp output; ``srcmap.ColumnMap`` moves every
node's coord (and a syntax error's place) back to the column the user wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pycparser import c_ast, c_parser

from xmpacc import deepstack
from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.frontend.coarrays import rewrite_coarrays
from xmpacc.frontend.preprocess import is_system_path
from xmpacc.frontend.sections import rewrite_sections
from xmpacc.frontend.srcmap import ColumnMap

_PARSE_ERROR_RE = re.compile(r"^(.*?):(\d+):(\d+): (.*)$", re.DOTALL)
_PRAGMA_LINE = re.compile(r"\s*#\s*pragma\b")
_ILLEGAL = re.compile(r"[Ii]llegal character (.*)$")


def _raw_byte(quoted: str) -> str:
    """pycparser's repr of a character, as gcc names it: '\\udcff' (a byte that is not
    UTF-8, see rawbytes.py) is '\\377'."""
    m = re.fullmatch(r"'\\udc([89a-f][0-9a-f])'", quoted)
    return f"'\\{int(m.group(1), 16):03o}'" if m else quoted


class _LocatingParser(c_parser.CParser):
    """pycparser reports some errors with the file name only; add the next token's place
    (or, at the end of the input, the last token's)."""

    def _parse_error(self, msg, coord):  # type: ignore[no-untyped-def]
        if isinstance(coord, str) or coord is None:
            tok = self._tokens.peek(1) or self._last_token()
            if tok is not None:
                coord = self._tok_coord(tok)
        super()._parse_error(msg, coord)

    def _last_token(self):  # type: ignore[no-untyped-def]
        seen = [t for t in getattr(self._tokens, "_buffer", []) if t is not None]
        return seen[-1] if seen else None


def parse_c(text: str, path: str) -> c_ast.FileAST:
    """Parse preprocessed C; a syntax error becomes an XmpError at its source location.
    Coarray parts and array sections are rewritten first (``coarrays.py``, ``sections.py``):
    pycparser does not know them."""
    text = rewrite_sections(rewrite_coarrays(text))
    columns = ColumnMap(text, is_system_path)
    deepest = deepstack.deepest_bracket(text)
    if deepest is not None:
        file, line, col = deepest
        raise XmpError(SourceLoc(file, line, columns.column(file, line, col)), deepstack.too_deep_message())
    parser = _LocatingParser()
    try:
        ast = parser.parse(text, path)
    except c_parser.ParseError as e:
        raise _located(str(e), path, columns) from None
    except RecursionError:
        raise _too_deep(parser, path, columns) from None
    columns.fix_coords(ast)
    return ast


def _too_deep(parser: _LocatingParser, path: str, columns: ColumnMap) -> XmpError:
    """Nesting beyond the recursion limit without brackets (``- - - ... 1``): at the
    token the parser had reached."""
    tok = parser._last_token()
    if tok is None:
        return XmpError(SourceLoc(path, 1, 1), "program nested too deeply for xmpacc")
    coord = parser._tok_coord(tok)
    where = SourceLoc(coord.file, coord.line, columns.column(coord.file, coord.line, coord.column))
    return XmpError(where, "expression or statement nested too deeply for xmpacc; "
                           "split it into smaller pieces")


def parse_expr(text: str, loc: SourceLoc, typedefs: Iterable[str] = ()) -> c_ast.Node:
    """Parse a C expression taken from a directive (e.g. a template bound).

    ``typedefs`` are the type names of the file, so that ``sizeof(real)`` or a cast
    parses.  A mistake is reported at ``loc``, the expression's place in the directive.
    """
    prelude = "".join(f"typedef int {name};" for name in typedefs)
    try:
        ast = _LocatingParser().parse(f"{prelude} void _xmpacc_f(void) {{ ({text}); }}", loc.file)
    except c_parser.ParseError:
        raise XmpError(loc, f"invalid C expression '{text}'") from None
    expr = ast.ext[-1].body.block_items[0]
    _relocate(expr, loc)
    return expr


def _relocate(node: c_ast.Node, loc: SourceLoc) -> None:
    """Expressions parsed out of a directive report the directive's location."""
    stack = [node]
    while stack:
        node = stack.pop()
        node.coord = loc
        stack.extend(child for _name, child in node.children())


def _located(message: str, path: str, columns: ColumnMap) -> XmpError:
    m = _PARSE_ERROR_RE.match(message)
    if not m:
        return XmpError(SourceLoc(path, 1, 1), f"syntax error: {message}")
    file, line = m.group(1), int(m.group(2))
    col = columns.column(file, line, int(m.group(3)))
    detail = m.group(4)
    if detail.startswith("before: "):
        detail = f"syntax error before '{detail[len('before: '):]}'"
    elif detail == "At end of input":
        detail = "syntax error at end of input (a missing '}'?)"
    elif (stray := _ILLEGAL.match(detail)) is not None:
        detail = f"stray {_raw_byte(stray.group(1))} in program"
    else:
        detail = f"syntax error: {detail[:1].lower()}{detail[1:]}"
    pragma = _pragma_near(columns, file, line, int(m.group(3)))
    if pragma is not None:
        detail = f"{detail} (a '#pragma' {pragma} is not supported yet at this place)"
    return XmpError(SourceLoc(file, line, col), detail)


def _pragma_near(columns: ColumnMap, file: str, line: int, col: int) -> str | None:
    """'here' when the error is on a pragma line, 'just before' when it is at the first
    token after one: pycparser accepts pragmas only between declarations and statements
    (and before a statement), gcc almost anywhere."""
    here = columns.output_line(file, line)
    if _PRAGMA_LINE.match(here):
        return "line here"
    first_token = len(here) - len(here.lstrip()) + 1 == col
    if first_token and _PRAGMA_LINE.match(columns.output_line(file, line - 1)):
        return "line just before"
    return None

