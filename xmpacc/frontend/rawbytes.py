r"""Source bytes that are not UTF-8 go through xmpacc unchanged, as through gcc.

A source file is decoded as UTF-8 with ``surrogateescape``: a byte such as 0xff that is
not part of a UTF-8 character becomes one lone surrogate (U+DCFF), so cpp, pycparser and
the passes see ordinary text and columns still count one per such byte.  gcc accepts these
bytes in comments (cpp drops them) and in string and character literals; elsewhere
pycparser rejects them, and the message names the byte as gcc does (``'\377'``).

The generated C must be valid text again: ``escape_for_c`` writes each byte that survives
in a literal as its octal escape, which is the same byte in the compiled program.

    source bytes:   char *s = "a<0xff>b";     /* <0xfe> */
    generated C:    char *s = "a\377b";
"""

from __future__ import annotations

import re

ENCODING = "utf-8"
ERRORS = "surrogateescape"

_RAW = re.compile("[\udc80-\udcff]")
_LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_LITERAL_PIECE = re.compile(r"\\.|.", re.DOTALL)


def read_source(path: str) -> str:
    """The text of a source file; bytes that are not UTF-8 become lone surrogates."""
    with open(path, encoding=ENCODING, errors=ERRORS) as f:
        return f.read()


def octal(ch: str) -> str:
    """``\\377`` for the surrogate that stands for byte 0xff."""
    return "\\%03o" % (ord(ch) - 0xDC00)


def describe_char(ch: str) -> str:
    """A character for a message: ``'x'``, or ``'\\377'`` for a byte that is not UTF-8."""
    return f"'{octal(ch)}'" if _RAW.fullmatch(ch) else f"'{ch}'"


def for_messages(text: str) -> str:
    """``text`` printable: each raw byte as its octal escape (messages quote source text)."""
    return _RAW.sub(lambda m: octal(m.group()), text) if _RAW.search(text) else text


def for_display(text: str) -> str:
    """A source line to show under a message: one U+FFFD per raw byte, so that the caret
    (one column per byte there) stays under the right character."""
    return _RAW.sub("\ufffd", text) if _RAW.search(text) else text


def escape_for_c(text: str) -> str:
    """Generated C as valid text: raw bytes inside literals become octal escapes (the same
    bytes in the program); elsewhere (a pass-through ``#pragma``) the escape's text."""
    if not _RAW.search(text):
        return text
    return for_messages(_LITERAL.sub(lambda m: _escape_literal(m.group()), text))


def _escape_literal(literal: str) -> str:
    # '\' before a raw byte is gcc's "unknown escape sequence", which stands for the byte
    return "".join(octal(p[-1]) if _RAW.search(p) else p for p in _LITERAL_PIECE.findall(literal))
