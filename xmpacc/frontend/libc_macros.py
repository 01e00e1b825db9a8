"""Which names the real C library defines as macros (INT_MAX, M_PI, errno, RAND_MAX ...).

cpp reads pycparser-fake-libc's headers, and our shim leaves libc macros undefined so
that the generated C gets their real values (preprocess.py).  To pycparser they are
undeclared names.  The directive checker (passes/directive_exprs.py) must accept them in
directive expressions and would like to know their type: ``LibcMacros`` asks the host
preprocessor, once per file and only when a directive uses such a name, which macros the
real headers that the file includes define (``cc -E -dM``), and classifies a macro by
what it expands to: a floating-point literal or ``__builtin_nan``/``inf``/``huge_val`` makes
it floating, an integer literal an integer, anything else (``errno``) unknown.

    #include <limits.h>      kind("INT_MAX") == "integer"     kind("N") is None
    #include <math.h>        kind("M_PI")    == "floating"
"""

from __future__ import annotations

import re
import subprocess
from typing import Literal

MacroKind = Literal["integer", "floating", "unknown"]

_DEFINE = re.compile(r"#define ([A-Za-z_]\w*)(\([^)]*\))? ?(.*)$")
_TOKEN = re.compile(r"[A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.])*|\S")
_FLOAT_LITERAL = re.compile(r"(?:\d+\.\d*|\.\d+|\d+[eE][-+]?\d+|0[xX][\w.]*[pP][-+]?\d+)\w*")
_INT_LITERAL = re.compile(r"(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*")
_FLOAT_BUILTIN = re.compile(r"__builtin_(?:nan|inf|huge_val)\w*")
_MAX_EXPANSION = 8


class LibcMacros:
    """The real headers' macros for one file (``headers`` as in ``#include <h>``)."""

    def __init__(self, cc: str, cpp_args: list[str], headers: list[str], include_dirs: list[str]) -> None:
        self._cmd = [cc, "-E", "-dM", *cpp_args, *[f"-I{d}" for d in include_dirs], "-x", "c", "-"]
        self._source = "".join(f"#include <{h}>\n" for h in headers)
        self._defs: dict[str, str] | None = None

    def _definitions(self) -> dict[str, str] | None:
        if self._defs is None:
            try:
                proc = subprocess.run(self._cmd, input=self._source, capture_output=True, text=True,
                                      errors="replace", timeout=60)
            except (OSError, subprocess.SubprocessError):
                return None
            if proc.returncode != 0:
                return None
            self._defs = {}
            for line in proc.stdout.splitlines():
                m = _DEFINE.match(line)
                if m:
                    self._defs[m.group(1)] = m.group(3)
        return self._defs

    def kind(self, name: str) -> MacroKind | None:
        """How the macro ``name`` of the real headers expands, None if it is not one.
        Without a working preprocessor, names in capitals are taken as unknown macros."""
        defs = self._definitions()
        if defs is None:
            return "unknown" if re.fullmatch(r"[A-Z_][A-Z0-9_]*", name) else None
        if name not in defs:
            return None
        tokens = self._expand(defs[name], defs, {name}, 0)
        if any(_FLOAT_LITERAL.fullmatch(t) or _FLOAT_BUILTIN.fullmatch(t) for t in tokens):
            return "floating"
        if any(_INT_LITERAL.fullmatch(t) for t in tokens) and "void" not in tokens:
            return "integer"
        return "unknown"

    def _expand(self, body: str, defs: dict[str, str], seen: set[str], depth: int) -> list[str]:
        out: list[str] = []
        for tok in _TOKEN.findall(body):
            if tok in defs and tok not in seen and depth < _MAX_EXPANSION:
                out += self._expand(defs[tok], defs, seen | {tok}, depth + 1)
            else:
                out.append(tok)
        return out

