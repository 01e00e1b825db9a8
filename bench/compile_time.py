"""How long xmpacc takes beyond the host C compiler's own time, per sample.

    python bench/compile_time.py [--repeat N] [--cc CC]

For each program of samples/MANIFEST: run ``xmpacc -v --keep`` and time it; ``-v`` prints
every command xmpacc runs (the preprocessor, the host C compiles and the link).  Then run
those same commands again on their own and time them: the difference is xmpacc's own time
(Python start-up, parsing, the passes, emitting the C, packaging the executable).  The
preprocessor reads its input on stdin, so it is replayed with the source file as input;
the commands' scratch folder, gone after xmpacc ends, is replaced by a fresh one.  Each
measurement is the minimum over ``--repeat`` runs.

The goal (issue): under 2 seconds beyond the host C compiler's time for a 100-line sample.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"


@dataclass(frozen=True)
class Timing:
    sample: str
    lines: int
    total: float          # xmpacc, wall-clock seconds
    cc: float             # the commands it ran, replayed


def xmpacc_command() -> list[str]:
    here = Path(sys.executable).parent / "xmpacc"
    return [str(here)] if here.exists() else [sys.executable, "-m", "xmpacc.cli"]


def manifest() -> list[str]:
    lines = (SAMPLES / "MANIFEST").read_text().splitlines()
    return [ln.split()[0] for ln in lines if ln.strip() and not ln.startswith("#")]


def timed(cmd: list[str], stdin: str | None = None,
          env: dict[str, str] | None = None) -> tuple[float, str]:
    """Wall-clock seconds of one command and its stdout; a failure stops the benchmark."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, cwd=REPO, env=env,
                          check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"failed: {shlex.join(cmd)}\n{proc.stderr}")
    return elapsed, proc.stdout


def run_xmpacc(sample: str, out_dir: Path, cc: str) -> tuple[float, list[list[str]]]:
    """Time one compile; return the commands it printed."""
    env = {**os.environ, "CC": cc}
    elapsed, stdout = timed([*xmpacc_command(), "-v", "--keep", f"samples/{sample}", "-o",
                             str(out_dir / "prog")], env=env)
    commands = [shlex.split(ln) for ln in stdout.splitlines() if ln.startswith(cc + " ")]
    return elapsed, commands


def replay(commands: list[list[str]], source: Path, scratch: Path) -> float:
    """Run the printed commands again, in order, with a fresh scratch folder."""
    link = next(c for c in commands if "-shared" in c)
    old_scratch = os.path.dirname(link[link.index("-o") + 1])
    total = 0.0
    for cmd in commands:
        cmd = [arg.replace(old_scratch, str(scratch)) for arg in cmd]
        stdin = source.read_text() if "-E" in cmd else None
        total += timed(cmd, stdin)[0]
    return total


def measure(sample: str, repeat: int, cc: str) -> Timing:
    best_total = best_cc = float("inf")
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            out_dir, scratch = Path(tmp) / "out", Path(tmp) / "scratch"
            out_dir.mkdir()
            scratch.mkdir()
            total, commands = run_xmpacc(sample, out_dir, cc)
            best_total = min(best_total, total)
            best_cc = min(best_cc, replay(commands, SAMPLES / sample, scratch))
    lines = len((SAMPLES / sample).read_text().splitlines())
    return Timing(sample, lines, best_total, best_cc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    args = parser.parse_args()
    if shutil.which(args.cc) is None:
        raise SystemExit(f"no C compiler '{args.cc}'")
    print(f"{'sample':28} {'lines':>5} {'xmpacc':>8} {'cc':>8} {'overhead':>9}")
    for sample in manifest():
        try:
            t = measure(sample, args.repeat, args.cc)
        except SystemExit as e:
            print(f"{sample:28} skipped: {str(e).splitlines()[0]}")
            continue
        print(f"{t.sample:28} {t.lines:5d} {t.total:7.2f}s {t.cc:7.2f}s {t.total - t.cc:8.2f}s")


if __name__ == "__main__":
    main()
