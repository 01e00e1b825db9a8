"""Which names the real C library declares or defines (INT_MAX, M_PI, errno, abs ...).

cpp reads pycparser-fake-libc's headers, which declare types but no functions, and our
shim leaves libc macros undefined so that the generated C gets their real values
(preprocess.py).  To pycparser such names are undeclared.  The directive checker
(passes/declare/directive_exprs.py) must accept them in directive expressions and would like to
know their type.  ``LibcNames`` asks the host compiler, once per file and only when a
directive uses a name that C does not declare:

* which macros the real headers that the file includes define (``cc -E -dM``); a macro
  is classified by what it expands to: a floating-point literal or
  ``__builtin_nan``/``inf``/``huge_val`` makes it floating, an integer literal an
  integer, anything else (``errno``) unknown;
* for another name, whether those headers declare it (``cc -fsyntax-only`` of
  ``__typeof__(name)``): a function such as ``abs``, of unknown type here.

    #include <limits.h>      kind("INT_MAX") == "integer"     kind("N") is None
    #include <math.h>        kind("M_PI")    == "floating"    kind("sqrt") == "unknown"
"""

from __future__ import annotations

import re
import shlex
import subprocess
from typing import Literal

from xmpacc.hostcc import child_env

NameKind = Literal["integer", "floating", "unknown"]

_DEFINE = re.compile(r"#define ([A-Za-z_]\w*)(\([^)]*\))? ?(.*)$")
_TOKEN = re.compile(r"[A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.])*|\S")
_EXPONENT = r"(?:[eE][-+]?\d+)?"
_FLOAT_LITERAL = re.compile(rf"(?:\d+\.\d*{_EXPONENT}|\.\d+{_EXPONENT}|\d+[eE][-+]?\d+"
                            r"|0[xX][0-9a-fA-F.]*[pP][-+]?\d+)[fFlL]?")
_INT_LITERAL = re.compile(r"(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*")
_FLOAT_BUILTIN = re.compile(r"__builtin_(?:nan|inf|huge_val)\w*")
_MAX_EXPANSION = 8
# <mpi.h> needs the -I of mpi4py's MPI, which only the build step asks for (mpi_flags.py),
# and xmp.h includes it; xmp.h's own names are declared to the parser already.  Names of
# MPI are taken as of unknown type when the file includes either.
_MPI_HEADERS = ("mpi.h", "xmp.h")
_MPI_NAME = re.compile(r"P?MPIX?_\w+")


class LibcNames:
    """The real headers' names for one file (``headers`` as in ``#include <h>``)."""

    def __init__(self, cc: str, cpp_args: list[str], headers: list[str], include_dirs: list[str]) -> None:
        self._cc = cc
        self._flags = [*cpp_args, *[f"-I{d}" for d in include_dirs]]
        self._source = "".join(f"#include <{h}>\n" for h in headers if h not in _MPI_HEADERS)
        self._mpi = any(h in _MPI_HEADERS for h in headers)
        self._defs: dict[str, str] | None = None
        self._defs_failed = False   # asked once: a compiler that failed is not asked again
        self._declared: dict[str, bool] = {}

    def _run(self, args: list[str], source: str) -> subprocess.CompletedProcess[str] | None:
        try:
            # the compiler may have words (``ccache gcc``) and runs with the guard every
            # command of xmpacc gets (hostcc.py), like the preprocessor run
            return subprocess.run([*shlex.split(self._cc), *args, *self._flags, "-x", "c", "-"],
                                  input=source, capture_output=True, text=True, errors="replace",
                                  timeout=60, env=child_env())
        except (OSError, subprocess.SubprocessError, ValueError):
            return None

    def _definitions(self) -> dict[str, str] | None:
        if self._defs is None and not self._defs_failed:
            proc = self._run(["-E", "-dM"], self._source)
            if proc is None or proc.returncode != 0:
                self._defs_failed = True
                return None
            self._defs = {}
            for line in proc.stdout.splitlines():
                m = _DEFINE.match(line)
                if m:
                    self._defs[m.group(1)] = m.group(3)
        return self._defs

    def kind(self, name: str) -> NameKind | None:
        """What ``name`` is in the real headers, None if they do not know it.  Without a
        working compiler, names in capitals are taken as macros of unknown type."""
        if self._mpi and _MPI_NAME.fullmatch(name):
            return "unknown"
        defs = self._definitions()
        if defs is None:
            return "unknown" if re.fullmatch(r"[A-Z_][A-Z0-9_]*", name) else None
        if name in defs:
            return self._macro_kind(defs[name], defs, name)
        return "unknown" if self._is_declared(name) else None

    def _macro_kind(self, body: str, defs: dict[str, str], name: str) -> NameKind:
        tokens = self._expand(body, defs, {name}, 0)
        if any(_FLOAT_LITERAL.fullmatch(t) or _FLOAT_BUILTIN.fullmatch(t) for t in tokens):
            return "floating"
        if any(_INT_LITERAL.fullmatch(t) for t in tokens) and "void" not in tokens:
            return "integer"
        return "unknown"

    def _is_declared(self, name: str) -> bool:
        if name not in self._declared:
            proc = self._run(["-fsyntax-only", "-w"],
                             f"{self._source}__typeof__({name}) *_xmpacc_probe;\n")
            self._declared[name] = proc is not None and proc.returncode == 0
        return self._declared[name]

    def _expand(self, body: str, defs: dict[str, str], seen: set[str], depth: int) -> list[str]:
        out: list[str] = []
        for tok in _TOKEN.findall(body):
            if tok in defs and tok not in seen and depth < _MAX_EXPANSION:
                out += self._expand(defs[tok], defs, seen | {tok}, depth + 1)
            else:
                out.append(tok)
        return out
