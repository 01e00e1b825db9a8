"""Coarray syntax in C code, rewritten so that pycparser can read it (global-view §11).

XMP C writes the codimensions of a coarray and the image of a coindexed reference after
a colon: ``int a[10]:[*];``, ``x = a[i]:[k];``, ``s:[k] = 1;``.  In C a ``:`` is never
followed by ``[`` (a label, ``case``, a bit-field or ``?:`` is followed by a statement or
an expression, which cannot start with ``[``), so every ``:[`` of the cpp output opens a
coarray part.  It becomes one more subscript, a call-like form the passes recognise
(``passes/declare/coarray_decls.py``, ``passes/localize/coarrays.py``); a ``*`` becomes ``_XMPACC_STAR``:

    int a[10]:[2][*];    ->   int a[10][_xmpacc_coindex(2,_XMPACC_STAR)];
    x = a[i]:[k] + 1;    ->   x = a[i][_xmpacc_coindex(k)] + 1;
    s:[k] = 0;           ->   s[_xmpacc_coindex(k)] = 0;

Runs before the array-section rewrite (``sections.py``), which then handles
``a[0:5][_xmpacc_coindex(k)]`` like any section.  Line breaks are kept, so line numbers do
not move; columns are recovered by ``srcmap.ColumnMap``.  Directive lines are left alone:
the directive parser reads ``lock (l:[k])`` itself.
"""

from __future__ import annotations

import re

COINDEX = "_xmpacc_coindex"
STAR = "_XMPACC_STAR"

# A directive line, a literal, a colon opening a coarray part, or anything else.
_TOKEN = re.compile(
    r'(?m)^[ \t]*#[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
    r"|:(?=\s*\[)|[^\"':\n]+|\n|.")
_GROUP_START = re.compile(r"\s*\[")


def rewrite_coarrays(text: str) -> str:
    """``text`` with every coarray part in call form (see the module doc)."""
    if ":" not in text or "[" not in text:
        return text
    out: list[str] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # pragma: no cover - the pattern matches any character
            out.append(text[pos:])
            break
        if m.group() == ":" and _GROUP_START.match(text, m.end()):
            replaced, end = _coindex(text, m.end())
            if replaced is not None:
                out.append(replaced)
                pos = end
                continue
        out.append(m.group())
        pos = m.end()
    return "".join(out)


def _coindex(text: str, pos: int) -> tuple[str | None, int]:
    """The call form of the bracket groups starting at ``pos`` (after the ``:``) and where
    they end; None when a group is unbalanced (pycparser then reports the text)."""
    groups: list[str] = []
    breaks = ""
    while (m := _GROUP_START.match(text, pos)) is not None:
        body_end = _closing(text, m.end())
        if body_end is None:
            return None, pos
        breaks += "\n" * text.count("\n", pos, m.end())
        groups.append(text[m.end():body_end])
        pos = body_end + 1
    # a '*' group keeps its line breaks too: line numbers never move
    args = ",".join(STAR + "\n" * g.count("\n") if g.strip() == "*" else g for g in groups)
    return f"[{COINDEX}({args})]{breaks}", pos


def _closing(text: str, pos: int) -> int | None:
    """The index of the ``]`` that closes the bracket opened just before ``pos``."""
    depth = 0
    for k in range(pos, len(text)):
        ch = text[k]
        if ch in "[(":
            depth += 1
        elif ch in ")]":
            if depth == 0:
                return k if ch == "]" else None
            depth -= 1
        elif ch in "{};":
            return None
    return None
