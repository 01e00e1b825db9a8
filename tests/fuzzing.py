"""A mutation fuzzer for xmpacc (issue 10): no input may end in an internal error.

Mutants are made from the samples and test programs by a seeded generator
(``fuzz_mutations.py``): directive tokens deleted, duplicated or swapped, brackets
changed, lines moved or duplicated, garbage and non-UTF-8 bytes inserted, expressions
and blocks nested thousands of levels deep, directive numbers turned into floating-point
literals and names into unknown ones.  Mutant ``k`` of seed ``s`` is always the same
file, so a finding is reproduced from its number alone.

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
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from fuzz_mutations import mutant

REPO = Path(__file__).resolve().parent.parent
CORPUS_GLOBS = ("samples/**/*.c", "tests/programs/*.c", "tests/acc_programs/*.c",
                "tests/coarray_programs/*.c", "tests/xacc_compute/*.c", "tests/xacc_programs/*.c",
                "tests/xacc_gmove/*.c", "tests/location_margins/*.c")
HEADERS = (REPO / "tests/programs/serial_xmp.h",)   # included by some corpus programs
BAD_OUTCOMES = ("internal", "traceback", "unlocated", "crash", "hang", "host")

_LOCATED = re.compile(r"^[^\s:][^:]*:\d+:\d+: (?:fatal )?error: ", re.MULTILINE)


def corpus(repo: Path = REPO) -> list[Path]:
    files = sorted({p for pattern in CORPUS_GLOBS for p in repo.glob(pattern)})
    return [p for p in files if b"#pragma xmp" in p.read_bytes()]


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


def _compile_in_process(argv: list[str]) -> tuple[int, str, str]:
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
    # xmpacc programs see xmp.h whether or not they include it (a mutant that defines its
    # own xmp_wtime is the user's conflict, as it would be with any XMP compiler)
    proc = subprocess.run([cc, "-fsyntax-only", "-w", "-std=gnu17", "-D_XCALABLEMP=1",
                           *[f"-I{d}" for d in includes], "-include", "xmp.h", path],
                          capture_output=True, timeout=60)
    return proc.returncode == 0


def _host_check(path: Path, workdir: Path) -> str | None:
    """A mistake when cc accepts the mutant but not the C that ``xmpacc -S`` wrote for it
    (host C, glue C and the kernel file, which the host compiler builds too), else None."""
    from xmpacc.frontend.preprocess import runtime_include_dir

    cc = os.environ.get("CC", "cc")
    includes = [runtime_include_dir(), str(workdir)]
    inc = [f"-I{d}" for d in includes]
    # headers (m000123.record.h) are compiled where the host C includes them
    generated = sorted(g for g in workdir.glob(f"{path.stem}.*") if g.suffix != ".h")
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
    if problem is None or not _cc_accepts(cc, str(path), includes):
        return None
    return problem


def run_one(files: list[Path], seed: int, index: int, workdir: Path, host: bool) -> Outcome:
    base, text, applied = mutant(files, seed, index)
    path = workdir / f"m{index:06d}.c"
    path.write_bytes(text)
    start = time.monotonic()
    # -S writes what a build compiles (m000123.host.c, .runtime.c, .cu) next to the mutant
    argv = [str(path), "-S", "-o", str(path.with_suffix(""))] if host else [str(path), "--stop-after=emit"]
    rc, err, _out = _compile_in_process(argv)
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
