"""Stage 2, parse: the preprocessed text through pycparser, with located errors.

pycparser's columns are columns of the cpp output; ``srcmap.ColumnMap`` moves every
node's coord (and a syntax error's place) back to the column the user wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pycparser import c_ast, c_parser

from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.frontend.preprocess import is_system_path
from xmpacc.frontend.sections import rewrite_sections
from xmpacc.frontend.srcmap import ColumnMap

_PARSE_ERROR_RE = re.compile(r"^(.*?):(\d+):(\d+): (.*)$", re.DOTALL)


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
    Array sections are rewritten first (``sections.py``): pycparser does not know them."""
    text = rewrite_sections(text)
    columns = ColumnMap(text, is_system_path)
    try:
        ast = _LocatingParser().parse(text, path)
    except c_parser.ParseError as e:
        raise _located(str(e), path, columns) from None
    columns.fix_coords(ast)
    return ast


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
    for _name, child in node.children():
        _relocate(child, loc)
    node.coord = loc


def _located(message: str, path: str, columns: ColumnMap) -> XmpError:
    m = _PARSE_ERROR_RE.match(message)
    if not m:
        return XmpError(SourceLoc(path, 0, 0), f"syntax error: {message}")
    file, line = m.group(1), int(m.group(2))
    col = columns.column(file, line, int(m.group(3)))
    detail = m.group(4)
    if detail == "before: :" and _coarray_at(file, line, col):
        detail = "coarrays ('a[n]:[*]', global-view §11) are not supported yet"
    elif detail.startswith("before: "):
        detail = f"syntax error before '{detail[len('before: '):]}'"
    elif detail == "At end of input":
        detail = "syntax error at end of input (a missing '}'?)"
    else:
        detail = f"syntax error: {detail[:1].lower()}{detail[1:]}"
    return XmpError(SourceLoc(file, line, col), detail)


def _coarray_at(file: str, line: int, col: int) -> bool:
    """Is the ':' at this place of the user's file the one of a coarray (``a[10]:[*]``,
    ``x = a[i]:[k]``)?"""
    try:
        with open(file, encoding="utf-8", errors="replace") as f:
            text = next((t for k, t in enumerate(f, 1) if k == line), "")
    except OSError:
        return False
    before, after = text[:col - 1].rstrip(), text[col - 1:]
    return before.endswith("]") and re.match(r":\s*\[", after) is not None
