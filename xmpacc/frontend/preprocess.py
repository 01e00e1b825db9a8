"""Stage 1, preprocess: run the C preprocessor so that macros expand inside directives too.

``cpp`` leaves ``#pragma`` lines alone, so a directive such as ``template t(0:N-1)`` would
keep its ``N``.  Like Omni's driver we first turn every ``#pragma xmp`` and ``#pragma acc``
(OpenACC, XcalableACC) line into ordinary tokens behind a marker, let cpp expand them, and
turn them back into ``#pragma xmp_<id>`` / ``#pragma acc_<id>`` lines (one id space) that
pycparser keeps as ``Pragma`` nodes at the right place.
The directive's expanded text is stored in a ``RawDirective`` together with the original
source location of each of its characters, so errors point into the user's line even
after expansion.

libc: pycparser cannot read the real system headers, so cpp reads pycparser-fake-libc's
headers instead; our ``libc_shim/_fake_defines.h`` shadows the fake one so that libc
macros (RAND_MAX, PRId64, INT_MAX, ...) stay names instead of taking fake values.  The
back end drops every declaration coming from those headers and includes the real ones
(``system_includes``).

Before:   #pragma xmp template t(0:N-1)       (with -DN=8)
After:    #pragma xmp_0                        RawDirective(0, "template t(0:8-1)", ...)
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import subprocess
from dataclasses import dataclass, field

import pycparser_fake_libc

from xmpacc.diagnostics import SourceLoc, XmpError, XmpErrors
from xmpacc.frontend import headers, rawbytes
from xmpacc.frontend.scan import read_text
from xmpacc.frontend.srcmap import token_opcodes
from xmpacc.hostcc import child_env

MARKER = "__xmpacc_directive_"
_PRAGMA_RE = re.compile(r"^(\s*#\s*pragma\s+)(xmp|acc)\b(.*)$")
DIALECTS = {"xmp": "XMP", "acc": "OpenACC"}  # sentinel -> name in messages
_LINEMARK_RE = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)\s*$')
_TOKEN_RE = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|::|&&|\|\||<=|>=|\S")
# PRId64 and friends become this sentinel inside string literals; the back end turns it
# back into the macro name so that the real <inttypes.h> gives it its real value.
LIBC_STRING_SENTINEL = re.compile(r"@@xmpacc:(\w+)@@")

# What every file with directives is compiled with (Omni defines _XCALABLEMP too).  xmpacc
# compiles OpenACC too, so _OPENACC is defined as OpenACC compilers do, to the date of the
# specification whose runtime library openacc.h follows (2.6: November 2017).  Omni defines
# _XCALABLEACC under -xacc only, and so does xmpacc (options.py): a program's
# '#ifdef _XCALABLEACC' picks what its Makefile asked for, as with Omni.
XMP_MACROS = ["-D_XCALABLEMP=1", "-D__XMPACC__=1", "-D_OPENACC=201711"]

# The XMP C API, declared for every translated file as Omni does (a directive may call
# xmp_num_nodes() in a file that does not include xmp.h).  Forced in like the shim, so
# that it names no line of the user's; the generated C includes it through xmpacc.h.
API_HEADER = "xmpacc_api.h"

FAKE_LIBC_DIR = pycparser_fake_libc.directory
SHIM_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "libc_shim")


def runtime_include_dir() -> str:
    """The C headers shipped with the runtime (xmp.h, xmpacc.h)."""
    import xmpacc.runtime

    return os.path.join(os.path.dirname(xmpacc.runtime.__file__), "include")


@dataclass(frozen=True, slots=True)
class RawDirective:
    """One ``#pragma xmp`` (or ``#pragma acc``) line after macro expansion."""

    id: int
    text: str                      # the text after ``#pragma xmp``, expanded
    locs: tuple[SourceLoc, ...]    # source location of each character of text, plus end
    loc: SourceLoc                 # of the ``xmp`` (``acc``) keyword
    dialect: str = "xmp"           # the sentinel: "xmp" or "acc" (OpenACC, XcalableACC)


@dataclass
class Preprocessed:
    """cpp output ready for pycparser, plus what the later stages need of the source."""

    source: str
    text: str
    directives: dict[int, RawDirective] = field(default_factory=dict)
    system_includes: list[str] = field(default_factory=list)
    cc: str = "cc"                                           # how cpp ran: later checks ask
    cpp_args: list[str] = field(default_factory=list)        # the real headers the same way


@dataclass(frozen=True, slots=True)
class _Pending:
    """A directive line as written, before cpp expands its macros (``RawDirective`` after,
    with the same fields and its id: the two are one directive at two moments)."""

    text: str
    locs: tuple[SourceLoc, ...]
    loc: SourceLoc
    dialect: str

    def expanded(self, ident: int, text: str) -> RawDirective:
        """The directive ``ident`` once cpp has expanded it to ``text``."""
        return RawDirective(ident, text, _map_locs(self.text, self.locs, text), self.loc, self.dialect)


def _extract_directives(path: str, lines: list[str]) -> tuple[list[str], dict[int, _Pending]]:
    """Replace every ``#pragma xmp``/``acc`` (with its continuation lines) by a marker line."""
    out: list[str] = []
    pending: dict[int, _Pending] = {}
    i = 0
    while i < len(lines):
        m = _PRAGMA_RE.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        first = i
        start_col = len(m.group(1)) + len(m.group(2)) + 1
        text, locs = "", []
        segment, col = m.group(3), start_col
        while True:
            cont = segment.rstrip().endswith("\\")
            body = segment.rstrip()[:-1] if cont else segment
            text += body
            locs += [SourceLoc(path, i + 1, col + k) for k in range(len(body))]
            i += 1
            if not cont or i >= len(lines):
                break
            segment, col = lines[i], 1
        locs.append(SourceLoc(path, i, col + len(body)))
        ident = len(pending)
        pending[ident] = _Pending(text, tuple(locs), SourceLoc(path, first + 1, len(m.group(1)) + 1),
                                  m.group(2))
        out.append(f"{MARKER}{ident}__ {text}")
        out.extend("" for _ in range(i - first - 1))  # keep line numbers
    return out, pending


def _map_locs(raw: str, raw_locs: tuple[SourceLoc, ...], expanded: str) -> tuple[SourceLoc, ...]:
    """Give each character of the expanded text the location of the raw token it came from."""
    raw_toks = [(m.group(), m.start()) for m in _TOKEN_RE.finditer(raw)]
    exp_toks = [(m.group(), m.start()) for m in _TOKEN_RE.finditer(expanded)]
    tok_loc: list[SourceLoc] = [raw_locs[-1]] * len(exp_toks)
    for tag, a0, _a1, b0, b1 in token_opcodes([t for t, _ in raw_toks], [t for t, _ in exp_toks]):
        for j in range(b0, b1):
            if tag == "equal":
                tok_loc[j] = raw_locs[raw_toks[a0 + j - b0][1]]
            elif a0 < len(raw_toks):  # expansion of a macro: point at the macro name
                tok_loc[j] = raw_locs[raw_toks[a0][1]]
    locs: list[SourceLoc] = []
    j = 0
    for k in range(len(expanded)):
        while j < len(exp_toks) and exp_toks[j][1] + len(exp_toks[j][0]) <= k:
            j += 1
        locs.append(tok_loc[j] if j < len(exp_toks) else raw_locs[-1])
    locs.append(raw_locs[-1])
    return tuple(locs)


def _cpp_command(cc: str, source_dir: str, cpp_args: list[str]) -> list[str]:
    """cpp reading stdin.  The fake libc headers include "_fake_defines.h" with quotes, which
    finds their own copy first, so our shim is forced in with -include: its include guard
    then keeps theirs out.  The XMP API (API_HEADER) is forced in after it."""
    return [
        *shlex.split(cc), "-E", "-nostdinc", *XMP_MACROS, *cpp_args,
        "-include", os.path.join(SHIM_DIR, "_fake_defines.h"),
        "-include", os.path.join(runtime_include_dir(), API_HEADER),
        "-I", SHIM_DIR, "-I", FAKE_LIBC_DIR, "-I", runtime_include_dir(), "-I", source_dir, "-x", "c", "-",
    ]


@functools.cache
def _system_roots() -> tuple[str, ...]:
    return tuple(os.path.realpath(d) + os.sep for d in (SHIM_DIR, FAKE_LIBC_DIR, runtime_include_dir()))


# cached: every AST node's coordinate asks, and realpath costs a few system calls each time
# (10 % of a compile before)
@functools.lru_cache(maxsize=4096)
def is_system_path(path: str) -> bool:
    """Is ``path`` one of the headers xmpacc supplies (fake libc, shim, runtime)?"""
    return os.path.realpath(path).startswith(_system_roots())


def is_system_coord(coord: object) -> bool:
    """Does a node at ``coord`` come from a system header?"""
    path = getattr(coord, "file", None)
    return bool(path) and is_system_path(path)


def _system_header_name(path: str) -> str | None:
    real = os.path.realpath(path)
    # the shim's public headers (mpi.h) stand for the real ones too
    for d in (FAKE_LIBC_DIR, runtime_include_dir(), SHIM_DIR):
        root = os.path.realpath(d) + os.sep
        if real.startswith(root):
            name = real[len(root):]
            return None if os.path.basename(name).startswith("_") else name
    return None


def _is_user_file(name: str) -> bool:
    """Is the file of a line marker the user's (not a header of xmpacc's, nor cpp's
    <command-line> of the forced includes)?"""
    return not (name.startswith("<") and name.endswith(">")) and not is_system_path(name)


def _restore_directives(output: str,
                        pending: dict[int, _Pending]) -> tuple[str, dict[int, RawDirective], list[str]]:
    """Turn marker lines back into ``#pragma xmp_<id>`` (``acc_<id>``) and note the real headers
    included."""
    lines = output.split("\n")
    directives: dict[int, RawDirective] = {}
    includes: list[str] = []
    stack: list[str] = []
    for n, line in enumerate(lines):
        mark = _LINEMARK_RE.match(line)
        if mark:
            fname, flags = mark.group(2), mark.group(3).split()
            if "1" in flags:
                header = _system_header_name(fname)
                if stack and _is_user_file(stack[-1]) and header and header not in includes:
                    includes.append(header)
                stack.append(fname)
                continue
            if "2" in flags and stack:
                stack.pop()
            # the file cpp is in now: <command-line> while it reads the forced includes
            stack[-1:] = [fname]
            continue
        pos = line.find(MARKER)
        if pos < 0:
            continue
        m = re.match(rf"{MARKER}(\d+)__ ?", line[pos:])
        if not m:
            continue
        ident = int(m.group(1))
        p = pending[ident]
        expanded = line[pos + m.end():].strip()
        directives[ident] = p.expanded(ident, expanded)
        if line[:pos].strip():
            # cpp glued the directive to other tokens (a macro call spanning lines); a
            # pragma must start its own line, and adding a line would shift every later
            # line number, so refuse instead.
            raise XmpError(p.loc, f"an {DIALECTS[p.dialect]} directive cannot appear inside a macro "
                                  "invocation")
        lines[n] = f"#pragma {p.dialect}_{ident}"
    return "\n".join(lines), directives, includes


def preprocess(path: str, cpp_args: list[str], cc: str = "cc", verbose: bool = False) -> Preprocessed:
    """Run cpp on ``path`` with directive expansion; raise XmpError on cpp errors."""
    try:
        source = rawbytes.read_source(path)
    except OSError as e:
        raise XmpError(SourceLoc(path, 0, 0), f"cannot read source file: {e.strerror}") from None
    lines, pending = _extract_directives(path, source.split("\n"))
    # The rewritten text goes in on stdin with a line marker naming the real file; -I of the
    # source's folder keeps relative #include "x.h" working.
    cmd = _cpp_command(cc, os.path.dirname(os.path.abspath(path)), cpp_args)
    if verbose:
        print(" ".join(cmd), "<", path, flush=True)
    stdin = f'# 1 "{path}"\n' + "\n".join(lines)
    try:
        proc = subprocess.run(cmd, input=stdin, capture_output=True, encoding=rawbytes.ENCODING,
                              errors=rawbytes.ERRORS, env=child_env())
    except OSError as e:
        raise XmpError(SourceLoc(path, 0, 0), f"cannot run the C preprocessor '{cmd[0]}' (XMPACC_CC or "
                                              f"CC names it): {e.strerror}") from None
    if proc.returncode != 0:
        raise _cpp_error(path, proc.stderr)
    text, directives, includes = _restore_directives(proc.stdout, pending)
    text = _header_directives(text, directives, cmd, stdin, cc, len(pending), verbose)
    return Preprocessed(source=path, text=text, directives=directives, system_includes=includes,
                        cc=cc, cpp_args=list(cpp_args))


def _header_directives(text: str, directives: dict[int, RawDirective], cmd: list[str], stdin: str,
                       cc: str, first_id: int, verbose: bool) -> str:
    """Directives of the user's headers (headers.py): added to ``directives``, their lines
    turned into ``#pragma xmp_<id>`` (``acc_<id>``)."""
    lines = text.split("\n")
    found = headers.header_pragmas(lines, is_system_path)
    if not found:
        return text
    by_file: dict[str, dict[int, _Pending]] = {}
    todo: list[tuple[headers.HeaderPragma, int, _Pending] | None] = []
    for k, hp in enumerate(found):
        if hp.file not in by_file:
            # scan's reader, as when the header was scanned for directives: bad bytes
            # replaced (only directive text is taken from here), '' if unreadable
            _lines, pend = _extract_directives(hp.file, read_text(hp.file).split("\n"))
            by_file[hp.file] = {p.loc.line: p for p in pend.values()}
        p = by_file[hp.file].get(hp.line)
        todo.append(None if p is None else (hp, first_id + k, p))
    expanded = headers.expand(cmd, [*shlex.split(cc), "-E", "-P", "-x", "c", "-"], stdin,
                              [None if t is None else (t[1], t[2].text) for t in todo],
                              is_system_path, verbose)
    for hp, ident, p in filter(None, todo):
        text_k = expanded.get(ident, p.text.strip())
        directives[ident] = p.expanded(ident, text_k)
        lines[hp.index] = f"#pragma {p.dialect}_{ident}"
    return "\n".join(lines)


def _cpp_error(path: str, stderr: str) -> XmpErrors:
    """Every error cpp reported (``#error`` does not stop it), at its place."""
    errors = []
    for line in stderr.splitlines():
        m = re.match(r"^(.*?):(\d+):(?:(\d+):)? (?:fatal )?error: (.*)$", line)
        if m:
            errors.append(XmpError(SourceLoc(m.group(1), int(m.group(2)), int(m.group(3) or 1)), m.group(4)))
    return XmpErrors(errors or [XmpError(SourceLoc(path, 0, 0), "preprocessing failed: " + stderr.strip())])
