"""Directives in the user's headers (part of stage preprocess).

preprocess.py hides the directives of the source file from cpp so that their macros
expand; cpp reads headers itself, so a ``#pragma xmp`` line of a header comes out of cpp
as it was written (cpp leaves pragmas alone), at its place in the text:

    # 1 "common.h" 1
    #pragma xmp template t[N]                 (line 5 of common.h, N not expanded)

Each such line gets the macros that were defined at that point: cpp runs once more with
``-dD``, which writes every ``#define``/``#undef`` where it happens, and a third time on
just those definitions with each directive's text behind a marker:

    #define N 64
    __xmpacc_directive_7__ template t[N]  ->  __xmpacc_directive_7__ template t[64]

The directive's original text and columns come from the header file itself, so errors
point into the header.  A file whose headers have no directive costs nothing more.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from xmpacc.frontend import rawbytes
from xmpacc.hostcc import child_env

RAW_PRAGMA = re.compile(r"^\s*#\s*pragma\s+(?:xmp|acc)\b")   # XMP and OpenACC (XcalableACC)
_LINEMARK = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"')
_DEFINE = re.compile(r"^#(define|undef)\s")


@dataclass(frozen=True, slots=True)
class HeaderPragma:
    index: int            # line of the cpp output
    file: str
    line: int


def _positions(lines: list[str]) -> Iterator[tuple[int, str, int, str]]:
    """(output index, file, source line, text) of every line that is not a line marker."""
    file, line = "", 0
    for n, text in enumerate(lines):
        m = _LINEMARK.match(text)
        if m:
            file, line = m.group(2), int(m.group(1))
            continue
        yield n, file, line, text
        line += 1


def header_pragmas(lines: list[str], is_system: Callable[[str], bool]) -> list[HeaderPragma]:
    return [HeaderPragma(n, f, ln) for n, f, ln, text in _positions(lines)
            if RAW_PRAGMA.match(text) and not is_system(f)]


def expand(cmd: list[str], macros_cmd: list[str], stdin: str, texts: list[tuple[int, str] | None],
           is_system: Callable[[str], bool], verbose: bool) -> dict[int, str]:
    """Directive id -> its text with the macros of its place expanded.  ``cmd`` is the
    preprocessing command (reading ``stdin``); ``texts`` has the (id, raw text) of each
    header directive in output order (None for one to leave alone); ``macros_cmd`` runs
    cpp on the definitions."""
    if verbose:
        print(" ".join(cmd + ["-dD"]), flush=True)
    traced = subprocess.run(cmd + ["-dD"], input=stdin, capture_output=True,
                            encoding=rawbytes.ENCODING, errors=rawbytes.ERRORS, env=child_env()).stdout
    stream: list[str] = []
    pending = iter(texts)
    for _n, file, _line, text in _positions(traced.split("\n")):
        if _DEFINE.match(text) and file != "<built-in>":
            stream.append(text)
        elif RAW_PRAGMA.match(text) and not is_system(file):
            item = next(pending, None)
            if item is not None:
                stream.append(f"__xmpacc_directive_{item[0]}__ {item[1]}")
    if verbose:
        print(" ".join(macros_cmd), flush=True)
    proc = subprocess.run(macros_cmd, input="\n".join(stream) + "\n", capture_output=True,
                          encoding=rawbytes.ENCODING, errors=rawbytes.ERRORS, env=child_env())
    out: dict[int, str] = {}
    for line in proc.stdout.split("\n"):
        m = re.search(r"__xmpacc_directive_(\d+)__ ?(.*)$", line)
        if m:
            out[int(m.group(1))] = m.group(2).strip()
    return out
