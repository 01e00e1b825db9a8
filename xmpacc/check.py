"""``xmpacc-check``: does the parallel program still print what the serial one prints?

    xmpacc-check PROG.c [more.c ...] [--np 1,2,4] [--serial SERIAL.c] [--rtol 1e-9]
                 [--atol 0] [--device host|cuda|auto] [--timeout 60] [-- ARGS...]

The sources are built twice: by the C compiler (``$CC -O2 -w``, so every ``#pragma xmp``
line is ignored: the serial oracle; ``--serial`` names another program to compare with)
and by ``xmpacc``.  The serial binary runs once, the xmpacc binary under ``mpirun -np N``
for each N, and their standard outputs are compared line by line: text must be equal,
integers too, floating-point numbers to ``rtol``/``atol`` (parallel reductions add in
another order).  Then it counts the directives, as a paper would:

    np=1: OK
    np=2: DIFFERS at line 2: serial 'total heat = 3.527181650043e+01' / xmpacc 'total heat = ...'
    directives: 16 #pragma xmp lines: 12 XMP + 4 XMP-ACC directives, 2 acc clauses (6 lines use XMP-ACC)

Exit status 0 when every process count matches, 1 when one does not (or a build or run
fails), 2 for usage errors.  Programs run in subprocesses: this module imports neither
mpi4py nor CuPy.
"""

from __future__ import annotations

import argparse
import difflib
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path


class UsageError(Exception):
    """A mistake on the command line (exit status 2)."""


# ----------------------------------------------------------------------------- options

@dataclass(frozen=True)
class Options:
    sources: tuple[str, ...]
    serial: tuple[str, ...]            # empty: the sources themselves, pragmas ignored
    counts: tuple[int, ...]
    rtol: float
    atol: float
    device: str
    timeout: float
    cpp: tuple[str, ...]               # -D/-I, given to both builds
    args: tuple[str, ...]              # after '--': the program's arguments


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="xmpacc-check",
        usage="xmpacc-check PROG.c [more.c ...] [--np 1,2,4] [--serial SERIAL.c] [--rtol 1e-9]\n"
              "                    [--atol 0] [--device host|cuda|auto] [--timeout 60] [-- ARGS]",
        description="Build PROG.c serially (#pragma xmp ignored) and with xmpacc, run the "
                    "xmpacc build under mpirun with each process count and check that it "
                    "prints what the serial build prints; then count the directives.",
        epilog="Arguments after '--' go to the program (serial and parallel runs).  Exit "
               "status: 0 when every process count matches, 1 otherwise, 2 for usage errors.")
    p.add_argument("sources", nargs="+", metavar="PROG.c", help="the program's source files")
    p.add_argument("--np", default="1,2,4", metavar="N,N,...",
                   help="process counts (default 1,2,4)")
    p.add_argument("--serial", action="append", default=[], metavar="SERIAL.c",
                   help="compare with this serial program instead (repeat for several files)")
    p.add_argument("--rtol", type=float, default=1e-9, help="relative tolerance (default 1e-9)")
    p.add_argument("--atol", type=float, default=0.0, help="absolute tolerance (default 0)")
    p.add_argument("--device", choices=("host", "cuda", "auto"), default="host",
                   help="XMPACC_DEVICE for the runs (default host: reproducible anywhere)")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds per build or run (default 60)")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VAL]",
                   help="define a macro in both builds")
    p.add_argument("-I", dest="includes", action="append", default=[], metavar="DIR",
                   help="include directory for both builds")
    return p


def parse_args(argv: list[str]) -> Options:
    """The options; program arguments come after ``--``.  Raises UsageError."""
    split = argv.index("--") if "--" in argv else len(argv)
    ns = _parser().parse_args(argv[:split])
    try:
        counts = tuple(int(c) for c in ns.np.split(",") if c.strip())
    except ValueError:
        raise UsageError(f"--np wants process counts like 1,2,4, not '{ns.np}'") from None
    if not counts or min(counts) < 1:
        raise UsageError(f"--np wants positive process counts, not '{ns.np}'")
    if ns.rtol < 0 or ns.atol < 0 or ns.timeout <= 0:
        raise UsageError("--rtol and --atol must be >= 0, --timeout > 0")
    for path in [*ns.sources, *ns.serial]:
        if not Path(path).is_file():
            raise UsageError(f"no such file: '{path}'")
    cpp = tuple([f"-D{d}" for d in ns.defines] + [f"-I{i}" for i in ns.includes])
    return Options(tuple(ns.sources), tuple(ns.serial), counts, ns.rtol, ns.atol, ns.device,
                   ns.timeout, cpp, tuple(argv[split + 1:]))


# --------------------------------------------------------------------- output comparison

# A number is not part of a word ('x2', '0x1f', 'v1.2.3' stay text); its sign belongs
# to it unless a word or number comes right before ('3-1' is 3, '-', 1 on both sides).
_NUMBER = re.compile(r"(?<![\w.])([-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)(?![\w.])")


@dataclass(frozen=True)
class Difference:
    line: int                          # 1-based
    serial: str | None                 # None: past the end of that output
    xmpacc: str | None
    detail: str


def _same_number(a: str, b: str, rtol: float, atol: float) -> str | None:
    """None when the numbers agree, else why not."""
    if a.lstrip("+-").isdigit() and b.lstrip("+-").isdigit():
        return None if int(a) == int(b) else f"{a} vs {b}: integers differ"
    x, y = float(a), float(b)
    if math.isclose(x, y, rel_tol=rtol, abs_tol=atol):
        return None
    rel = abs(x - y) / max(abs(x), abs(y))
    return f"{a} vs {b}: relative difference {rel:.1e} > rtol {rtol:g}" + \
        (f" (atol {atol:g})" if atol else "")


def _compare_line(serial: str, got: str, rtol: float, atol: float) -> str | None:
    """None when the two lines agree, else why not."""
    a, b = _NUMBER.split(serial), _NUMBER.split(got)
    if len(a) != len(b) or a[0::2] != b[0::2]:
        return "the text differs"
    for x, y in zip(a[1::2], b[1::2], strict=True):
        why = _same_number(x, y, rtol, atol)
        if why:
            return why
    return None


def compare(serial: str, got: str, rtol: float = 1e-9, atol: float = 0.0) -> Difference | None:
    """The first line where ``got`` (the xmpacc run's output) differs from ``serial``."""
    a, b = serial.splitlines(), got.splitlines()
    for n in range(max(len(a), len(b))):
        if n >= len(a) or n >= len(b):
            return Difference(n + 1, a[n] if n < len(a) else None, b[n] if n < len(b) else None,
                              _length_hint(a, b))
        why = _compare_line(a[n], b[n], rtol, atol)
        if why:
            return Difference(n + 1, a[n], b[n], why)
    return None


def _length_hint(serial: list[str], got: list[str]) -> str:
    if not got:
        return "xmpacc printed nothing"
    said = f"xmpacc printed {len(got)} lines, serial {len(serial)}"
    if serial and len(got) % len(serial) == 0 and got == serial * (len(got) // len(serial)):
        return (f"{said}: the whole output {len(got) // len(serial)} times, once per process; "
                "print inside '#pragma xmp task on p[0]'")
    return said


def _quote(line: str | None) -> str:
    return "<end of output>" if line is None else repr(line)


# -------------------------------------------------------------------- directive counting

@dataclass(frozen=True)
class Directive:
    line: int                          # 1-based, first physical line
    lines: int                         # physical lines (backslash continuations)
    kind: str                          # 'loop', 'reflect', 'acc replicate', ...
    acc_clause: bool                   # an XMP directive with an 'acc' clause
    openacc: bool = False              # a '#pragma acc' line (XcalableACC)


_PRAGMA = re.compile(r"\s*#\s*pragma\s+(xmp|acc)\b(.*)", re.DOTALL)
# OpenACC directive names of two words
_ACC_PAIRS = {("parallel", "loop"), ("kernels", "loop"), ("enter", "data"), ("exit", "data")}
_COMMENT_OR_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                                 re.DOTALL)


def _without_comments(text: str) -> str:
    """Comments blanked out (newlines kept, so line numbers stay); literals kept."""
    def blank(m: re.Match[str]) -> str:
        s = m.group(0)
        return s if s[0] in "\"'" else re.sub(r"[^\n]", " ", s)
    return _COMMENT_OR_LITERAL.sub(blank, text)


def directives(text: str) -> list[Directive]:
    """Every ``#pragma xmp`` and ``#pragma acc`` directive of a C source text (not those in
    comments)."""
    lines = _without_comments(text).split("\n")
    found, n = [], 0
    while n < len(lines):
        start, logical = n, lines[n]
        while logical.endswith("\\") and n + 1 < len(lines):
            n += 1
            logical = logical[:-1] + " " + lines[n]
        n += 1
        m = _PRAGMA.match(logical)
        if m and m.group(1) == "acc":
            found.append(_classify_openacc(m.group(2), start + 1, n - start))
        elif m:
            found.append(_classify(m.group(2), start + 1, n - start))
    return found


def _classify_openacc(body: str, line: int, nlines: int) -> Directive:
    low = [w.lower() for w in re.findall(r"[A-Za-z_]\w*", body)]
    kind = " ".join(low[:2]) if tuple(low[:2]) in _ACC_PAIRS else (low[0] if low else "(empty)")
    return Directive(line, nlines, kind, False, openacc=True)


def _classify(body: str, line: int, nlines: int) -> Directive:
    words = re.findall(r"[A-Za-z_]\w*|::|\S", body)
    low = [w.lower() for w in words]
    if not low:
        return Directive(line, nlines, "(empty)", False)
    if low[0] == "acc":
        return Directive(line, nlines, " ".join(low[:2]), False)
    depth, clause = 0, False
    for w in low[1:]:
        if w == "::":
            break
        depth += (w in ("(", "[")) - (w in (")", "]"))
        clause = clause or (w == "acc" and depth == 0)
    return Directive(line, nlines, low[0], clause)


@dataclass(frozen=True)
class Stats:
    found: tuple[Directive, ...]
    program_lines: int                 # all the program's lines
    serial_lines: int
    added: int                         # lines other than directives, versus the serial files
    removed: int
    serial_given: bool

    def report(self) -> list[str]:
        out = self._directives() if self.found else ["directives: none"]
        whose = "" if self.serial_given else " (this program without its directives)"
        out.append(f"size: serial program {self.serial_lines} lines{whose}; with the directives "
                   f"{self.program_lines} lines")
        if self.serial_given:
            out.append("other changes: none" if not (self.added or self.removed) else
                       f"other changes: {self.added} lines added and {self.removed} removed "
                       "besides the directives (comments count too)")
        return out

    def _directives(self) -> list[str]:
        openacc = [d for d in self.found if d.openacc]
        found = [d for d in self.found if not d.openacc]
        xmp = [d for d in found if not d.kind.startswith("acc")]
        acc = [d for d in found if d.kind.startswith("acc")]
        clauses = sum(d.acc_clause for d in xmp)
        physical = sum(d.lines for d in found)
        head = f"directives: {len(found)} #pragma xmp lines" + \
            (f" ({physical} with continuations)" if physical != len(found) else "")
        if acc or clauses:
            n = len(acc) + clauses
            head += (f": {len(xmp)} XMP + {len(acc)} XMP-ACC directives, "
                     f"{_plural(clauses, 'acc clause')} ({_plural(n, 'line')} use"
                     f"{'s' * (n == 1)} XMP-ACC)")
        else:
            head += f": {len(xmp)} XMP directives (no XMP-ACC)"
        if openacc:   # XcalableACC: the OpenACC lines on their own
            head += f"; {_plural(len(openacc), '#pragma acc line')} (XcalableACC)"
        return [head] + ([f"  XMP:     {_kinds(xmp)}"] if xmp else []) + \
            ([f"  XMP-ACC: {_kinds(acc)}"] if acc else []) + \
            ([f"  OpenACC: {_kinds(openacc)}"] if openacc else [])


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + "s" * (n != 1)


def _kinds(ds: list[Directive]) -> str:
    counts = Counter(d.kind for d in ds)
    withacc = Counter(d.kind for d in ds if d.acc_clause)
    return ", ".join(f"{k} {n}" + (f" ({withacc[k]} with acc)" if withacc[k] else "")
                     for k, n in counts.items())


def statistics(sources: list[str], serial: list[str]) -> Stats:
    """Directives of the sources, and their size versus the serial files (or themselves)."""
    texts = [Path(s).read_text(errors="replace") for s in sources]
    found, stripped = [], []
    for text in texts:
        ds = directives(text)
        found += ds
        skip = {d.line + k for d in ds for k in range(d.lines)}
        stripped += [ln for n, ln in enumerate(text.splitlines(), 1) if n not in skip]
    program_lines = sum(len(t.splitlines()) for t in texts)
    if not serial:
        return Stats(tuple(found), program_lines, len(stripped), 0, 0, False)
    ref = [ln for s in serial for ln in Path(s).read_text(errors="replace").splitlines()]
    added = removed = 0
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ref, stripped,
                                                     autojunk=False).get_opcodes():
        if op != "equal":
            removed, added = removed + i2 - i1, added + j2 - j1
    return Stats(tuple(found), program_lines, len(ref), added, removed, True)


# ---------------------------------------------------------------------- build and run

@dataclass(frozen=True)
class Ran:
    returncode: int | None             # None: killed after the timeout
    stdout: str
    stderr: str


def _start(cmd: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    # a session of its own, so that a timeout ends mpirun and every process it started
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace",
                            start_new_session=True, env={**os.environ, **(env or {})})


def _finish(proc: subprocess.Popen[str], timeout: float) -> Ran:
    try:
        out, err = proc.communicate(timeout=timeout)
        return Ran(proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        _kill(proc)
        out, err = proc.communicate()
        return Ran(None, out, err)


def _kill(proc: subprocess.Popen[str]) -> None:
    """SIGTERM to the process's session (mpirun then ends its ranks), SIGKILL after 3 s."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=3)
            return
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


def _run(cmd: list[str], timeout: float, env: dict[str, str] | None = None) -> Ran:
    try:
        return _finish(_start(cmd, env), timeout)
    except OSError as e:
        return Ran(127, "", f"cannot run '{cmd[0]}': {e.strerror}\n")


def _tool(name: str) -> str | None:
    """The command next to this Python (the one xmpacc is installed in), else on PATH."""
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else shutil.which(name)


def _failure(what: str, ran: Ran, timeout: float) -> list[str]:
    if ran.returncode is None:
        head = f"{what}: TIMEOUT after {timeout:g} s"
    else:
        head = f"{what}: FAILED (exit status {ran.returncode})"
    tail = ran.stderr.rstrip("\n").splitlines()[-20:]
    return [head, *("    " + ln for ln in tail)]


# ------------------------------------------------------------------------------ main

def _say(lines: list[str] | str) -> None:
    for line in [lines] if isinstance(lines, str) else lines:
        print(line, flush=True)


def _serial_reference(opts: Options, tmp: Path) -> str | None:
    """The serial program's output, or None (after saying why) when it cannot be had."""
    cc = shlex.split(os.environ.get("CC", "cc"))
    files = list(opts.serial or opts.sources)
    cmd = [*cc, "-O2", "-w", *opts.cpp, *files, "-o", str(tmp / "serial"), "-lm"]
    shown = shlex.join([*cc, "-O2", "-w", *opts.cpp, *files, "-lm"])
    built = _run(cmd, opts.timeout)
    if built.returncode != 0:
        _say(_failure(f"serial build ({shown})", built, opts.timeout))
        return None
    ran = _run([str(tmp / "serial"), *opts.args], opts.timeout)
    if ran.returncode != 0:
        _say(_failure("serial run", ran, opts.timeout))
        return None
    _say(f"serial build: {shown}: OK, prints {len(ran.stdout.splitlines())} lines")
    return ran.stdout


def _xmpacc_build(opts: Options, xmpacc: str, tmp: Path) -> bool:
    cmd = [xmpacc, *opts.cpp, *opts.sources, "-o", str(tmp / "prog")]
    built = _run(cmd, opts.timeout)
    shown = shlex.join(["xmpacc", *opts.cpp, *opts.sources])
    if built.returncode != 0:
        _say(f"xmpacc build ({shown}): FAILED")
        _say(built.stderr.rstrip("\n").splitlines()
             or [f"(exit status {built.returncode}, no message)"])
        return False
    _say(f"xmpacc build: {shown}: OK")
    if built.stderr.strip():
        _say(built.stderr.rstrip("\n").splitlines())
    return True


def _check_count(opts: Options, mpirun: str, exe: Path, n: int, expected: str) -> str:
    """Run on n processes and say how it went; returns OK, DIFFERS, FAILED or TIMEOUT."""
    ran = _run([mpirun, "-np", str(n), str(exe), *opts.args], opts.timeout,
               env={"XMPACC_DEVICE": opts.device})
    if ran.returncode != 0:
        _say(_failure(f"np={n}", ran, opts.timeout))
        return "TIMEOUT" if ran.returncode is None else "FAILED"
    diff = compare(expected, ran.stdout, opts.rtol, opts.atol)
    if diff is None:
        _say(f"np={n}: OK")
        return "OK"
    _say(f"np={n}: DIFFERS at line {diff.line}: serial {_quote(diff.serial)} / "
         f"xmpacc {_quote(diff.xmpacc)}")
    _say(f"      {diff.detail}")
    return "DIFFERS"


def _summary(results: dict[int, str]) -> str:
    by: dict[str, list[str]] = {}
    for n, status in results.items():
        by.setdefault(status, []).append(str(n))
    return "result: " + "; ".join(f"{status} at np={','.join(ns)}" for status, ns in by.items())


def check(opts: Options) -> int:
    """Build, run, compare and count; print the report.  Returns the exit status."""
    xmpacc, mpirun = _tool("xmpacc"), _tool("mpirun")
    if xmpacc is None or mpirun is None:
        raise UsageError(f"no '{'xmpacc' if xmpacc is None else 'mpirun'}' next to "
                         f"{sys.executable} or on PATH (pip install 'xmpacc[mpich]')")
    _say(f"xmpacc-check {' '.join(opts.sources)}"
         + (f" against {' '.join(opts.serial)}" if opts.serial else "")
         + f" (XMPACC_DEVICE={opts.device}, rtol {opts.rtol:g}, atol {opts.atol:g})")
    results: dict[int, str] = {}
    with tempfile.TemporaryDirectory(prefix="xmpacc-check-") as tmp:
        expected = _serial_reference(opts, Path(tmp))
        built = _xmpacc_build(opts, xmpacc, Path(tmp))
        if expected is not None and built:
            for n in opts.counts:
                results[n] = _check_count(opts, mpirun, Path(tmp) / "prog", n, expected)
    _say(statistics(list(opts.sources), list(opts.serial)).report())
    if expected is None or not built:
        _say("result: FAILED (" + ("the serial program" if expected is None else "xmpacc build")
             + ")")
        return 1
    _say(_summary(results))
    return 0 if set(results.values()) == {"OK"} else 1


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        return check(parse_args(argv))
    except UsageError as e:
        print(f"xmpacc-check: error: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:            # argparse: --help (0) or a usage error (2)
        return e.code if isinstance(e.code, int) else 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
