"""Stage 2, parse: the preprocessed text through pycparser, with located errors."""

from __future__ import annotations

import re

from pycparser import c_ast, c_parser

from xmpacc.diagnostics import SourceLoc, XmpError

_PARSE_ERROR_RE = re.compile(r"^(.*?):(\d+):(\d+): (.*)$", re.S)


class _LocatingParser(c_parser.CParser):
    """pycparser reports some errors with the file name only; add the next token's place."""

    def _parse_error(self, msg, coord):  # type: ignore[no-untyped-def]
        if isinstance(coord, str) or coord is None:
            tok = self._tokens.peek(1)
            if tok is not None:
                coord = self._tok_coord(tok)
        super()._parse_error(msg, coord)


def parse_c(text: str, path: str) -> c_ast.FileAST:
    """Parse preprocessed C; a syntax error becomes an XmpError at its location."""
    try:
        return _LocatingParser().parse(text, path)
    except c_parser.ParseError as e:
        raise _located(str(e), path) from None


def parse_expr(text: str, loc: SourceLoc) -> c_ast.Node:
    """Parse a C expression taken from a directive (e.g. a template bound)."""
    try:
        ast = _LocatingParser().parse(f"void _xmpacc_f(void) {{ ({text}); }}", loc.file)
    except c_parser.ParseError:
        raise XmpError(loc, f"invalid C expression '{text}'") from None
    expr = ast.ext[0].body.block_items[0]
    _relocate(expr, loc)
    return expr


def _relocate(node: c_ast.Node, loc: SourceLoc) -> None:
    """Expressions parsed out of a directive report the directive's location."""
    for _name, child in node.children():
        _relocate(child, loc)
    node.coord = loc


def _located(message: str, path: str) -> XmpError:
    m = _PARSE_ERROR_RE.match(message)
    if not m:
        return XmpError(SourceLoc(path, 0, 0), message)
    detail = m.group(4)
    detail = re.sub(r"^before: ", "syntax error before '", detail)
    if detail.startswith("syntax error before '"):
        detail += "'"
    return XmpError(SourceLoc(m.group(1), int(m.group(2)), int(m.group(3))), detail)
