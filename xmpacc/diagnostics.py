"""Source locations and the two kinds of compiler error.

A user mistake is an ``XmpError``: it carries a ``SourceLoc`` and is printed gcc-style,

    laplace.c:12:25: error: template 'u' is not declared
       12 | #pragma xmp loop on u(i)
          |                     ^

A broken invariant inside xmpacc is an ``InternalError``; the CLI prints it as a bug
report instead of a traceback.  ``Diagnostics`` collects several errors so that one run
reports every mistake of a file, like a C compiler.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TextIO

from xmpacc.frontend.rawbytes import ENCODING, ERRORS, for_display, for_messages


@dataclass(frozen=True, slots=True)
class SourceLoc:
    """A 1-based line and column in a source file (columns count characters)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def shifted(self, cols: int) -> SourceLoc:
        return SourceLoc(self.file, self.line, self.col + cols)


UNKNOWN_LOC = SourceLoc("<unknown>", 0, 0)


class XmpError(Exception):
    """A mistake in the user's program, reported at ``loc``."""

    def __init__(self, loc: SourceLoc, message: str, severity: str = "error") -> None:
        super().__init__(f"{loc}: {severity}: {message}")
        self.loc = loc
        self.message = message
        self.severity = severity


class XmpErrors(Exception):
    """Several user mistakes, raised once a stage has collected all of them."""

    def __init__(self, errors: list[XmpError]) -> None:
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors


class AlreadyReported(Exception):
    """Abandon a construct that uses a name whose declaration was already reported as wrong
    (one mistake, one message)."""


class InternalError(Exception):
    """An invariant of xmpacc does not hold: always a bug in xmpacc, never the user's."""


@dataclass
class Diagnostics:
    """Collects errors and warnings of one compilation."""

    errors: list[XmpError] = field(default_factory=list)
    warnings: list[XmpError] = field(default_factory=list)

    def error(self, loc: SourceLoc, message: str) -> None:
        self.errors.append(XmpError(loc, message))

    def warning(self, loc: SourceLoc, message: str) -> None:
        self.warnings.append(XmpError(loc, message, "warning"))

    def add(self, err: XmpError) -> None:
        (self.warnings if err.severity == "warning" else self.errors).append(err)

    def check(self) -> None:
        """Raise all collected errors at once, in source order, each one once."""
        if self.errors:
            errors, self.errors = self.errors, []
            unique = {(e.loc, e.message): e for e in errors}
            ordered = sorted(unique.values(), key=lambda e: (e.loc.file, e.loc.line, e.loc.col))
            raise XmpErrors(ordered)


def source_line(loc: SourceLoc) -> str | None:
    try:
        with open(loc.file, encoding=ENCODING, errors=ERRORS) as f:
            for number, text in enumerate(f, 1):
                if number == loc.line:
                    return for_display(text.rstrip("\n"))
    except OSError:
        return None
    return None


def format_error(err: XmpError) -> str:
    """gcc-style message, source line and caret."""
    out = [for_messages(str(err))]
    text = source_line(err.loc) if err.loc.line > 0 else None
    if text is not None:
        gutter = f"{err.loc.line:5d} | "
        out.append(gutter + text.expandtabs(1))
        out.append(" " * (len(gutter) - 2) + "| " + " " * max(err.loc.col - 1, 0) + "^")
    return "\n".join(out)


def print_errors(errors: list[XmpError], stream: TextIO | None = None) -> None:
    stream = stream if stream is not None else sys.stderr  # looked up now: tests redirect it
    for err in errors:
        print(format_error(err), file=stream)
