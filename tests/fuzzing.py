"""A mutation fuzzer for xmpacc (issue 10): no input may end in an internal error.

Mutants are made from the samples and test programs by a seeded generator: directive
tokens deleted, duplicated or swapped, brackets changed, lines moved or duplicated,
garbage and non-UTF-8 bytes inserted, expressions and blocks nested thousands of levels
deep, directive numbers turned into floating-point literals and names into unknown ones.
Mutant ``k`` of seed ``s`` is always the same file, so a finding is reproduced from its
number alone.

The oracle, for each mutant compiled with ``--stop-after=emit`` inside a worker process:

* exit 0, or exit 1 with at least one located ``file:line:col: error:`` message;
* never exit 2 ("internal error"), a Python traceback, an escaping exception or a hang;
* with ``--host`` (and in the CI run) every accepted mutant is compiled with ``-S`` and
  the C it gives (host C, glue C, kernel file) must compile (``cc -fsyntax-only``)
  whenever the mutant itself is valid C for ``cc`` with its pragmas ignored: a failure
  there means xmpacc accepted a mistake it should have reported itself, or generated
  wrong C.

Run by ``tests/test_fuzz.py``; for a release check run more mutants:

    XMPACC_FUZZ_MUTANTS=10000 .venv/bin/pytest -q tests/test_fuzz.py
    .venv/bin/python tests/fuzzing.py --mutants 10000 --jobs 2 --host --keep /tmp/findings

The second form prints a summary (mutants, outcomes, internal errors, tracebacks, time)
and keeps every finding's mutant in the ``--keep`` folder.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS_GLOBS = ("samples/**/*.c", "tests/programs/*.c", "tests/acc_programs/*.c")
HEADERS = (REPO / "tests/programs/serial_xmp.h",)   # included by some corpus programs
BAD_OUTCOMES = ("internal", "traceback", "unlocated", "crash", "hang", "host")

_LOCATED = re.compile(r"^[^\s:][^:]*:\d+:\d+: (?:fatal )?error: ", re.MULTILINE)
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+xmp\b.*$", re.MULTILINE)
_TOKEN = re.compile(rb"[A-Za-z_]\w*|\d[\w.]*|::|&&|\|\||[^\s\w]")
_IDENT = re.compile(rb"\b[A-Za-z_]\w*\b")
_NUMBER = re.compile(rb"\b\d+\b")
_BRACKETS = b"()[]{}"
_GARBAGE = (b"@", b"`", b"$", b"\\", b"#", b"'", b'"', b"/*", b"*/", b"//", b"??/", b";", b",",
            b":", b"::", b"...", b"0x", b"1e", b".5", b"_xmpacc_x", b"xmp", b"acc", b"on",
            b"#pragma xmp", b"#pragma xmp loop on t[i]", b"\t", b"\n", b"\\\n", b"\x00")
_RAW_BYTES = (b"\xff", b"\xfe", b"\x80", b"\xc3", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80",
              b"\xf0\x9f\x98", b"\xc0\xaf")


def corpus(repo: Path = REPO) -> list[Path]:
    files = sorted({p for pattern in CORPUS_GLOBS for p in repo.glob(pattern)})
    return [p for p in files if b"#pragma xmp" in p.read_bytes()]


# ---------------------------------------------------------------- mutations
# Each takes the program and a random generator and returns the mutated program, or None
# when it does not apply (then another one is drawn).

Mutation = Callable[[bytes, random.Random], "bytes | None"]


def _directive_spans(src: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in _DIRECTIVE.finditer(src)]


def _directive_tokens(src: bytes) -> list[tuple[int, int]]:
    """(start, end) of every token after ``#pragma xmp`` on directive lines."""
    out = []
    for start, end in _directive_spans(src):
        line = src[start:end]
        head = re.match(rb"[ \t]*#[ \t]*pragma[ \t]+xmp", line)
        assert head is not None
        out += [(start + m.start(), start + m.end()) for m in _TOKEN.finditer(line, head.end())]
    return out


def delete_token(src: bytes, rng: random.Random) -> bytes | None:
    toks = _directive_tokens(src)
    if not toks:
        return None
    a, b = rng.choice(toks)
    return src[:a] + src[b:]


def duplicate_token(src: bytes, rng: random.Random) -> bytes | None:
    toks = _directive_tokens(src)
    if not toks:
        return None
    a, b = rng.choice(toks)
    return src[:b] + b" " + src[a:b] + src[b:]


def swap_tokens(src: bytes, rng: random.Random) -> bytes | None:
    toks = _directive_tokens(src)
    if len(toks) < 2:
        return None
    k = rng.randrange(len(toks) - 1)
    (a, b), (c, d) = toks[k], toks[k + 1]
    return src[:a] + src[c:d] + src[b:c] + src[a:b] + src[d:]


def change_bracket(src: bytes, rng: random.Random) -> bytes | None:
    """Replace, delete or add a bracket, in a directive (mostly) or anywhere."""
    spans = _directive_spans(src)
    if spans and rng.random() < 0.7:
        a, b = rng.choice(spans)
    else:
        a, b = 0, len(src)
    places = [i for i in range(a, b) if src[i] in _BRACKETS]
    if not places:
        return None
    i = rng.choice(places)
    action = rng.random()
    new = bytes([rng.choice(_BRACKETS)])
    if action < 0.5:
        return src[:i] + new + src[i + 1:]
    if action < 0.75:
        return src[:i] + src[i + 1:]
    return src[:i] + new + src[i:]


def move_line(src: bytes, rng: random.Random) -> bytes | None:
    lines = src.split(b"\n")
    directives = [k for k, ln in enumerate(lines) if _DIRECTIVE.match(ln)]
    k = rng.choice(directives) if directives and rng.random() < 0.7 else rng.randrange(len(lines))
    line = lines.pop(k)
    lines.insert(rng.randrange(len(lines) + 1), line)
    return b"\n".join(lines)


def duplicate_line(src: bytes, rng: random.Random) -> bytes | None:
    lines = src.split(b"\n")
    directives = [k for k, ln in enumerate(lines) if _DIRECTIVE.match(ln)]
    k = rng.choice(directives) if directives else rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[k])
    return b"\n".join(lines)


def _somewhere(src: bytes, rng: random.Random) -> int:
    """A position: in a directive, a comment, a string or anywhere."""
    spans = _directive_spans(src)
    choice = rng.random()
    if spans and choice < 0.4:
        a, b = rng.choice(spans)
        return rng.randint(a, b)
    pieces = [m.start() + 2 for m in re.finditer(rb'/\*|"', src)]
    if pieces and choice < 0.7:
        return min(rng.choice(pieces), len(src))
    return rng.randint(0, len(src))


def insert_garbage(src: bytes, rng: random.Random) -> bytes | None:
    i = _somewhere(src, rng)
    return src[:i] + rng.choice(_GARBAGE) + src[i:]


def insert_bytes(src: bytes, rng: random.Random) -> bytes | None:
    i = _somewhere(src, rng)
    return src[:i] + rng.choice(_RAW_BYTES) * rng.randint(1, 3) + src[i:]


def _depth(rng: random.Random) -> int:
    return rng.choice((50, 300, 1000, 3000, 6000))


def deep_parens(src: bytes, rng: random.Random) -> bytes | None:
    """Wrap a number (in a directive or in C code) in thousands of parentheses."""
    numbers = list(_NUMBER.finditer(src))
    spans = _directive_spans(src)
    inside = [m for m in numbers if any(a <= m.start() < b for a, b in spans)]
    pool = inside if inside and rng.random() < 0.5 else numbers
    if not pool:
        return None
    m = rng.choice(pool)
    n = _depth(rng)
    return src[:m.start()] + b"(" * n + m.group() + b")" * n + src[m.end():]


def deep_braces(src: bytes, rng: random.Random) -> bytes | None:
    """A statement of main's body nested in thousands of blocks, or deep unary chains."""
    semis = [m.end() for m in re.finditer(rb";\n", src)]
    if not semis:
        return None
    i = rng.choice(semis)
    n = _depth(rng)
    piece = rng.choice((b"{" * n + b";" + b"}" * n, b"x = " + b"-" * n + b"1;",
                        b"{ int d_ = " + b"1 + " * n + b"1; }", b"if (1) ; " + b"else if (1) ; " * n))
    return src[:i] + piece + b"\n" + src[i:]


def float_literal(src: bytes, rng: random.Random) -> bytes | None:
    """A number in a directive becomes a floating-point literal (part 2's checks)."""
    spans = _directive_spans(src)
    numbers = [m for m in _NUMBER.finditer(src) if any(a <= m.start() < b for a, b in spans)]
    if not numbers:
        return None
    m = rng.choice(numbers)
    return src[:m.start()] + m.group() + rng.choice((b".0", b".5", b"e0", b"f")) + src[m.end():]


def rename_ident(src: bytes, rng: random.Random) -> bytes | None:
    """A name in a directive becomes another name of the file or an unknown one."""
    spans = _directive_spans(src)
    idents = [m for m in _IDENT.finditer(src) if any(a <= m.start() < b for a, b in spans)]
    if not idents:
        return None
    m = rng.choice(idents)
    names = sorted({x.group() for x in _IDENT.finditer(src)})
    new = rng.choice(names) if rng.random() < 0.6 else rng.choice((b"undeclared_", b"NN", b"q", b"main", b"printf"))
    return src[:m.start()] + new + src[m.end():]


MUTATIONS: tuple[Mutation, ...] = (
    delete_token, duplicate_token, swap_tokens, change_bracket, move_line, duplicate_line,
    insert_garbage, insert_bytes, deep_parens, deep_braces, float_literal, rename_ident,
)


def mutant(files: list[Path], seed: int, index: int) -> tuple[str, bytes, list[str]]:
    """Mutant ``index`` of ``seed``: (its base file, its text, the mutations applied)."""
    rng = random.Random(f"{seed}:{index}")
    base = rng.choice(files)
    src = base.read_bytes()
    applied: list[str] = []
    # deep nesting is slow to compile: at most one such mutation per mutant
    deep = {deep_parens, deep_braces}
    while len(applied) < rng.choice((1, 1, 2, 3)):
        mutation = rng.choice(MUTATIONS)
        if mutation in deep and any(name.startswith("deep") for name in applied):
            continue
        out = mutation(src, rng)
        if out is not None:
            src = out
            applied.append(mutation.__name__)
    return base.name, src, applied


# ---------------------------------------------------------------- the oracle


@dataclass
class Outcome:
    index: int
    kind: str            # ok | error | internal | traceback | unlocated | crash | hang | host
    base: str = ""
    mutations: list[str] = field(default_factory=list)
    detail: str = ""
    seconds: float = 0.0


def classify(rc: int, out: str) -> tuple[str, str]:
    """The oracle on one xmpacc run: (outcome kind, detail)."""
    if "Traceback" in out:
        return "traceback", out[-2000:]
    if rc == 2 or "internal error" in out:
        return "internal", out[-2000:]
    if rc == 0:
        return "ok", ""
    if rc == 1 and _LOCATED.search(out):
        return "error", ""
    return "unlocated", f"rc={rc}\n{out[-2000:]}"


def _compile_in_process(path: str, argv: list[str]) -> tuple[int, str, str]:
    """``xmpacc ARGV`` in this process: (exit status, stderr, stdout)."""
    from xmpacc import cli

    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            rc = cli.main(argv)
        except BaseException as e:  # noqa: BLE001 - anything escaping main is a finding
            import traceback
            return 3, err.getvalue() + "".join(traceback.format_exception(e)), ""
    return rc, err.getvalue(), out.getvalue()


def _cc_accepts(cc: str, path: str, includes: list[str]) -> bool:
    proc = subprocess.run([cc, "-fsyntax-only", "-w", "-std=gnu17", "-D_XCALABLEMP=1",
                           *[f"-I{d}" for d in includes], path],
                          capture_output=True, timeout=60)
    return proc.returncode == 0


def _host_check(path: Path, workdir: Path) -> str | None:
    """A mistake when cc accepts the mutant but not the C that ``xmpacc -S`` wrote for it
    (host C, glue C and the kernel file, which the host compiler builds too), else None."""
    from xmpacc.frontend.preprocess import runtime_include_dir

    cc = os.environ.get("CC", "cc")
    inc = [f"-I{d}" for d in (runtime_include_dir(), str(workdir))]
    generated = sorted(workdir.glob(f"{path.stem}.*"))
    problem = None
    for g in generated:
        if g == path:
            continue
        language = ["-x", "c"] if g.suffix == ".cu" else []
        proc = subprocess.run([cc, "-fsyntax-only", "-w", "-std=gnu17", *inc, *language, str(g)],
                              capture_output=True, timeout=60)
        if proc.returncode != 0 and problem is None:
            problem = f"{g.name}:\n" + proc.stderr.decode(errors="replace")[-2000:]
        g.unlink()
    if problem is None or not _cc_accepts(cc, str(path), [d[2:] for d in inc]):
        return None
    return problem


def run_one(files: list[Path], seed: int, index: int, workdir: Path, host: bool) -> Outcome:
    base, text, applied = mutant(files, seed, index)
    path = workdir / f"m{index:06d}.c"
    path.write_bytes(text)
    start = time.monotonic()
    # -S writes what a build compiles (m000123.host.c, .runtime.c, .cu) next to the mutant
    argv = [str(path), "-S", "-o", str(path.with_suffix(""))] if host else [str(path), "--stop-after=emit"]
    rc, err, _out = _compile_in_process(str(path), argv)
    kind, detail = classify(rc, err) if rc != 3 else ("crash", err[-3000:])
    if kind == "ok" and host:
        problem = _host_check(path, workdir)
        if problem is not None:
            kind, detail = "host", problem
    outcome = Outcome(index, kind, base, applied, detail, time.monotonic() - start)
    if kind not in BAD_OUTCOMES:
        for leftover in workdir.glob(f"{path.stem}.*"):
            leftover.unlink()
    return outcome


def _worker(args: argparse.Namespace) -> int:
    """Compile mutants ``start..stop`` one after the other, one JSON line each."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    files = corpus()
    workdir = Path(args.dir)
    for index in range(args.start, args.stop):
        outcome = run_one(files, args.seed, index, workdir, args.host)
        print(json.dumps(outcome.__dict__), flush=True)
    return 0


# ---------------------------------------------------------------- the runner


@dataclass
class Summary:
    mutants: int
    seconds: float
    kinds: Counter[str]
    findings: list[Outcome]

    def line(self) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.kinds.items()))
        return (f"{self.mutants} mutants in {self.seconds:.0f} s: {counts}; internal errors "
                f"{self.kinds['internal'] + self.kinds['crash']}, tracebacks {self.kinds['traceback']}")


def _spawn(seed: int, start: int, stop: int, workdir: Path, host: bool) -> subprocess.Popen[str]:
    cmd = [sys.executable, __file__, "--worker", "--seed", str(seed), "--start", str(start),
           "--stop", str(stop), "--dir", str(workdir)] + (["--host"] if host else [])
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            cwd=workdir)


def _collect(proc: subprocess.Popen[str], start: int, stop: int, hang_after: float,
             deadline: float) -> Iterator[Outcome | int]:
    """Outcomes of one worker; on a hang, yields a 'hang' outcome and the next index."""
    import selectors

    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    index = start
    while index < stop:
        wait = min(hang_after, max(deadline - time.monotonic(), 0.1))
        if not sel.select(timeout=wait):
            proc.kill()
            proc.wait()
            if time.monotonic() >= deadline:
                return
            yield Outcome(index, "hang", detail=f"no result after {hang_after:.0f} s")
            yield index + 1
            return
        line = proc.stdout.readline()
        if not line:   # the worker died (killed by the system?): a finding too
            proc.wait()
            yield Outcome(index, "crash", detail=f"worker exited with {proc.returncode}")
            yield index + 1
            return
        data = json.loads(line)
        yield Outcome(**data)
        index = data["index"] + 1
    proc.wait()


class _Runner:
    """Workers over slices of the mutants; a worker that hangs is killed, its mutant is a
    finding, and a new worker goes on after it."""

    def __init__(self, seed: int, host: bool, workdir: Path, keep: Path | None, deadline: float,
                 hang_after: float, progress: bool) -> None:
        self.seed, self.host, self.workdir, self.keep = seed, host, workdir, keep
        self.deadline, self.hang_after, self.progress = deadline, hang_after, progress
        self.kinds: Counter[str] = Counter()
        self.findings: list[Outcome] = []
        self.lock = threading.Lock()
        self.files = corpus()

    def drain(self, start: int, stop: int) -> None:
        while start < stop and time.monotonic() < self.deadline:
            proc = _spawn(self.seed, start, stop, self.workdir, self.host)
            resume = None
            for got in _collect(proc, start, stop, self.hang_after, self.deadline):
                if isinstance(got, int):
                    resume = got
                else:
                    self.record(got)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if resume is None:
                return
            start = resume

    def record(self, o: Outcome) -> None:
        with self.lock:
            self.kinds[o.kind] += 1
            done = sum(self.kinds.values())
            if o.kind in BAD_OUTCOMES:
                self.findings.append(o)
                self.keep_finding(o)
            if self.progress and done % 250 == 0:
                print(f"... {done} mutants: {dict(sorted(self.kinds.items()))}", file=sys.stderr, flush=True)

    def keep_finding(self, o: Outcome) -> None:
        if self.keep is None:
            return
        self.keep.mkdir(parents=True, exist_ok=True)
        _, text, _ = mutant(self.files, self.seed, o.index)
        (self.keep / f"m{o.index:06d}.c").write_bytes(text)
        (self.keep / f"m{o.index:06d}.txt").write_text(f"{o.kind} {o.base} {o.mutations}\n{o.detail}\n")


def run(mutants: int, jobs: int = 2, seed: int = 0, host: bool = False, keep: Path | None = None,
        max_seconds: float = float("inf"), hang_after: float = 120.0, progress: bool = False) -> Summary:
    """Compile ``mutants`` mutants in ``jobs`` worker processes (stopping early after
    ``max_seconds``) and collect the outcomes; findings' files go to ``keep``."""
    start_time = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="xmpacc-fuzz-") as tmp:
        workdir = Path(tmp)
        for header in HEADERS:
            shutil.copy(header, workdir)
        runner = _Runner(seed, host, workdir, keep, start_time + max_seconds, hang_after, progress)
        bounds = [mutants * k // jobs for k in range(jobs + 1)]
        threads = [threading.Thread(target=runner.drain, args=(bounds[k], bounds[k + 1]))
                   for k in range(jobs) if bounds[k] < bounds[k + 1]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    findings = sorted(runner.findings, key=lambda o: o.index)
    return Summary(sum(runner.kinds.values()), time.monotonic() - start_time, runner.kinds, findings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mutants", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--host", action="store_true", help="also compile accepted mutants' host C")
    parser.add_argument("--keep", type=Path, help="folder for the findings' mutants")
    parser.add_argument("--show", type=int, help="print mutant N of --seed and exit")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--stop", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return _worker(args)
    if args.show is not None:
        base, text, applied = mutant(corpus(), args.seed, args.show)
        print(f"/* {base}: {', '.join(applied)} */", file=sys.stderr)
        sys.stdout.buffer.write(text)
        return 0
    summary = run(args.mutants, args.jobs, args.seed, args.host, args.keep, progress=True)
    for o in summary.findings:
        print(f"m{o.index:06d} {o.kind} ({o.base}: {', '.join(o.mutations)})\n  "
              + o.detail.strip().replace("\n", "\n  ")[:600])
    print(summary.line())
    return 1 if summary.findings else 0


if __name__ == "__main__":
    sys.exit(main())
