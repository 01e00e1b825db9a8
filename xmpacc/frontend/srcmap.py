"""Columns of cpp output mapped back to the columns the user wrote.

cpp keeps line numbers (through its line markers) but not columns: it squeezes runs of
blanks, turns a tab into one space, drops comments and expands macros.  pycparser
therefore reports columns of the cpp output.  ``ColumnMap`` aligns the tokens of each
output line with the tokens of the source line it came from and moves a column to the
token the user wrote; a token that came out of a macro gets the macro name's column.

    source:      \tint  x =   N  + ;        (N defined as 100)
    cpp output:   int x = 100 + ;
    pycparser:   column 15 (';')   ->   ColumnMap: column 17
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

from pycparser import c_ast

from xmpacc.frontend import rawbytes

_LINEMARK_RE = re.compile(r'^#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"')
_TOKEN_RE = re.compile(
    r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|/\*.*?(?:\*/|$)|//.*$'
    r"|[A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.])*"
    r"|<<=|>>=|\.\.\.|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|##|\S")

Token = tuple[str, int]  # text and 0-based start


def _tokens(line: str) -> list[Token]:
    return [(m.group(), m.start()) for m in _TOKEN_RE.finditer(line)
            if not m.group().startswith(("/*", "//"))]


def _logical_lines(text: str) -> dict[tuple[str, int], str]:
    """(file, line) -> the cpp output line that holds it (the first one)."""
    out: dict[tuple[str, int], str] = {}
    file, line = "", 1
    for physical in text.split("\n"):
        mark = _LINEMARK_RE.match(physical)
        if mark:
            file, line = mark.group(2), int(mark.group(1))
            continue
        out.setdefault((file, line), physical)
        line += 1
    return out


Opcode = tuple[str, int, int, int, int]
MAX_DIFF_WORK = 1_000_000  # token pairs compared at most: SequenceMatcher is quadratic


def token_opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    """``difflib.SequenceMatcher(a, b).get_opcodes()``, fast on long lines: the common
    prefix and suffix are matched first (a macro expansion changes a few tokens in the
    middle), and a middle too long to compare becomes one 'replace' block."""
    n = min(len(a), len(b))
    pre = 0
    while pre < n and a[pre] == b[pre]:
        pre += 1
    suf = 0
    while suf < n - pre and a[len(a) - 1 - suf] == b[len(b) - 1 - suf]:
        suf += 1
    a_mid, b_mid = a[pre:len(a) - suf], b[pre:len(b) - suf]
    ops: list[Opcode] = [("equal", 0, pre, 0, pre)] if pre else []
    if len(a_mid) * len(b_mid) > MAX_DIFF_WORK:
        ops.append(("replace", pre, pre + len(a_mid), pre, pre + len(b_mid)))
    elif a_mid or b_mid:
        matcher = difflib.SequenceMatcher(a=a_mid, b=b_mid, autojunk=False)
        ops += [(tag, a0 + pre, a1 + pre, b0 + pre, b1 + pre)
                for tag, a0, a1, b0, b1 in matcher.get_opcodes()]
    if suf:
        ops.append(("equal", len(a) - suf, len(a), len(b) - suf, len(b)))
    return ops


def _line_map(out: str, src: str) -> list[int]:
    """For each 0-based position of ``out`` (and one past its end), the position in ``src``."""
    out_toks, src_toks = _tokens(out), _tokens(src)
    starts = [len(src)] * len(out_toks)
    exact = [False] * len(out_toks)
    for tag, a0, a1, b0, b1 in token_opcodes([t for t, _ in src_toks], [t for t, _ in out_toks]):
        for j in range(b0, b1):
            if tag == "equal":
                starts[j], exact[j] = src_toks[a0 + j - b0][1], True
            elif a1 - a0 == b1 - b0:  # macros that expand to one token each: N N -> 8 8
                starts[j] = src_toks[a0 + j - b0][1]
            elif a0 < len(src_toks):  # out of a macro expansion: the macro's name
                starts[j] = src_toks[a0][1]
    positions: list[int] = []
    j = 0
    for k in range(len(out) + 1):
        while j < len(out_toks) and out_toks[j][1] + len(out_toks[j][0]) <= k:
            j += 1
        if j == len(out_toks):
            positions.append(len(src))
        elif k < out_toks[j][1] or not exact[j]:
            positions.append(starts[j])
        else:
            positions.append(starts[j] + k - out_toks[j][1])
    return positions


class ColumnMap:
    """Source columns for positions in one cpp output ``text``.

    ``skip(path)`` says which files to leave alone (system headers: nobody reads their
    columns and they are many).
    """

    def __init__(self, text: str, skip: Callable[[str], bool] = lambda _path: False) -> None:
        self._out = _logical_lines(text)
        self._skip = skip
        self._maps: dict[tuple[str, int], list[int] | None] = {}
        self._files: dict[str, list[str] | None] = {}

    def output_line(self, path: str, line: int) -> str:
        """The cpp output line that holds ``path``:``line`` ("" if none)."""
        return self._out.get((path, line), "")

    def _source_lines(self, path: str) -> list[str] | None:
        if path not in self._files:
            lines = None
            if not self._skip(path):
                try:
                    lines = rawbytes.read_source(path).split("\n")
                except OSError:
                    lines = None
            self._files[path] = lines
        return self._files[path]

    def _map(self, path: str, line: int) -> list[int] | None:
        key = (path, line)
        if key not in self._maps:
            src_lines = self._source_lines(path)
            out = self._out.get(key)
            if src_lines is None or out is None or not 0 < line <= len(src_lines) \
                    or src_lines[line - 1] == out:
                self._maps[key] = None
            else:
                self._maps[key] = _line_map(out, src_lines[line - 1])
        return self._maps[key]

    def column(self, path: str, line: int, column: int) -> int:
        """The 1-based source column of 1-based output ``column`` on ``path``:``line``."""
        positions = self._map(path, line)
        if positions is None or column < 1:
            return column
        return positions[min(column - 1, len(positions) - 1)] + 1

    def fix_coords(self, ast: c_ast.Node) -> None:
        """Move the column of every node's coord to the source (each coord once)."""
        seen: set[int] = set()
        stack = [ast]
        while stack:
            node = stack.pop()
            coord = node.coord
            if coord is not None and id(coord) not in seen:
                seen.add(id(coord))
                if coord.column and coord.file and coord.line:
                    coord.column = self.column(coord.file, coord.line, coord.column)
            stack.extend(child for _name, child in node.children())
