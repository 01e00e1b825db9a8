"""Array sections in C code, rewritten so that pycparser can read them (global-view §1).

pycparser does not know ``:`` inside ``[]``.  Before it parses the cpp output, every
subscript that holds a triplet at its own bracket level becomes a call-like form that the
passes recognise (``xmpacc/sections.py``); an omitted part becomes ``_XMPACC_OMIT``:

    a[0:10][3][:]        ->   a[_xmpacc_triplet(0,10,_XMPACC_OMIT)][3]
                                [_xmpacc_triplet(_XMPACC_OMIT,_XMPACC_OMIT,_XMPACC_OMIT)]
    b[i ? 1 : 2]         ->   unchanged (the ':' closes a '?')
    c[f(x ? 1 : 2)]      ->   unchanged (the ':' is inside parentheses)

Every section is rewritten, wherever it stands; the passes lower those after ``gmove``
and ``array`` and in array assignment statements, and report any other one at its place.
Line breaks inside a section are kept, so line numbers do not move; columns of the
rewritten tokens are recovered by ``srcmap.ColumnMap`` like those of a macro expansion.
Lines that are preprocessor output (line markers, pragmas) are left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TRIPLET = "_xmpacc_triplet"
OMIT = "_XMPACC_OMIT"

# Literals first, so that brackets and colons inside them are not seen; then the
# punctuation that matters; any other run of characters is copied as it is.
_TOKEN = re.compile(
    r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
    r"|[\[\](){}?:]"
    r"|[^\"'\[\](){}?:\n]+|\n|.")
_DIRECTIVE_LINE = re.compile(r"[ \t]*#")


@dataclass
class _Frame:
    opener: str
    parts: list[str] = field(default_factory=list)
    colons: list[int] = field(default_factory=list)  # offsets into "".join(parts)
    questions: int = 0

    def text(self) -> str:
        return "".join(self.parts)


def rewrite_sections(text: str) -> str:
    """``text`` with every array-section subscript in call form (see the module doc)."""
    if ":" not in text or "[" not in text:
        return text
    out: list[str] = []
    stack: list[_Frame] = []
    for line in text.splitlines(keepends=True):
        if _DIRECTIVE_LINE.match(line) and not stack:
            out.append(line)
            continue
        for m in _TOKEN.finditer(line):
            _feed(m.group(), stack, out)
    while stack:  # unbalanced: give the text back as it was, pycparser reports it
        frame = stack.pop()
        _emit(frame.opener + frame.text(), stack, out)
    return "".join(out)


def _emit(piece: str, stack: list[_Frame], out: list[str]) -> None:
    (stack[-1].parts if stack else out).append(piece)


def _feed(tok: str, stack: list[_Frame], out: list[str]) -> None:
    if tok in ("[", "(", "{"):
        stack.append(_Frame(tok))
        return
    if tok in ("]", ")", "}") and stack and {"[": "]", "(": ")", "{": "}"}[stack[-1].opener] == tok:
        frame = stack.pop()
        _emit(_close(frame, tok), stack, out)
        return
    if stack and tok == "?":
        stack[-1].questions += 1
    elif stack and tok == ":" and stack[-1].opener == "[":
        frame = stack[-1]
        if frame.questions:
            frame.questions -= 1
        else:
            frame.colons.append(len(frame.text()))
            return  # the colon itself is not copied: _close splits here
    _emit(tok, stack, out)


def _close(frame: _Frame, closer: str) -> str:
    body = frame.text()
    if frame.opener != "[" or not frame.colons or len(frame.colons) > 2:
        # not a section (or a malformed one with 3+ colons: restore, pycparser reports it)
        for offset in reversed(frame.colons):
            body = body[:offset] + ":" + body[offset:]
        return frame.opener + body + closer
    cuts = [0, *frame.colons, len(body)]
    pieces = [body[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
    pieces += [""] * (3 - len(pieces))
    args = ",".join(p if p.strip() else (p + OMIT if p else OMIT) for p in pieces)
    return f"[{TRIPLET}({args})]"
