"""``XMPACC_PROFILE``: the run-time profile table and the Chrome trace.

The XMP-ACC n-body sample runs under ``mpirun -np 2`` on the host backend with the trace
path in XMPACC_PROFILE: rank 0 alone prints the table (reflect, loop and copy lines), and
the trace is JSON with a track per rank and kernel, copy and MPI events.  A program that
ends with ``exit(0)`` writes its profile too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO, run_mpi, run_xmpacc

from xmpacc.runtime.profile import table

HOST = {"XMPACC_DEVICE": "host"}


@pytest.fixture(scope="module")
def nbody(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """stderr of a profiled two-rank run of nbody_acc, and its trace file."""
    tmp = tmp_path_factory.mktemp("profile")
    exe = tmp / "nbody_acc"
    r = run_xmpacc("samples/nbody/nbody_acc.c", "-o", str(exe), cwd=REPO)
    assert r.returncode == 0, r.stderr
    trace = tmp / "trace.json"
    run = run_mpi(2, exe, env={**HOST, "XMPACC_PROFILE": str(trace)})
    assert run.returncode == 0, run.stderr
    assert "kinetic energy" in run.stdout
    return run.stderr, trace


def _row(stderr: str, where: str, directive: str) -> list[str]:
    rows = [line.split() for line in stderr.splitlines() if line.startswith(where + " ")]
    found = [r for r in rows if " ".join(r[1:-8]) == directive]
    assert len(found) == 1, f"no '{directive}' row for {where}:\n{stderr}"
    return found[0]


def test_table_printed_once(nbody: tuple[str, Path]) -> None:
    stderr, trace = nbody
    assert stderr.count("xmpacc profile: 2 rank(s)") == 1
    assert stderr.count("source line") == 1 and str(trace) in stderr
    # 2 ranks, 3 arrays, 10 steps: the full shadows' first two reflects plan, the others run in C
    reflect = _row(stderr, "nbody_acc.c:61", "reflect")
    in_c = _row(stderr, "nbody_acc.c:61", "reflect [C]")
    assert int(reflect[-8]) == 2 * 3 * 2 and int(in_c[-8]) == 2 * 3 * 8
    assert int(reflect[-1].replace(",", "")) > 0 and int(in_c[-1].replace(",", "")) > 0   # bytes moved
    kernel = _row(stderr, "nbody_acc.c:65", "loop acc (kernel)")
    replayed = _row(stderr, "nbody_acc.c:65", "loop acc (kernel) [C]")   # every launch after the first
    assert int(kernel[-8]) == 2 and int(replayed[-8]) == 2 * 9
    assert float(kernel[-7]) > 0 and float(replayed[-7]) > 0
    sync = _row(stderr, "nbody_acc.c:62", "replicate_sync in")
    assert int(sync[-1].replace(",", "")) == 2 * 10 * 3 * 2048   # full shadow: whole arrays
    _row(stderr, "nbody_acc.c:95", "loop reduction")


def test_trace(nbody: tuple[str, Path]) -> None:
    _stderr, trace = nbody
    events = json.loads(trace.read_text())["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    assert names == {0: "rank 0", 1: "rank 1"}
    spans = [e for e in events if e["ph"] == "X"]
    assert {e["tid"] for e in spans} == {0, 1}
    assert all(e["dur"] >= 0 and e["ts"] >= 0 and e["pid"] == 0 for e in spans)
    by_cat = {(e["cat"], e["tid"]) for e in spans}
    assert {("kernel", 0), ("kernel", 1), ("copy", 0), ("copy", 1), ("mpi", 0), ("mpi", 1)} <= by_cat
    kernels = {e["name"] for e in spans if e["cat"] == "kernel"}
    assert kernels == {"_xmpacc_loop_nbody_acc_c_65", "_xmpacc_loop_nbody_acc_c_83"}
    reflects = [e for e in spans if e["args"].get("where") == "nbody_acc.c:61"]
    assert all(e["cat"] == "mpi" for e in reflects) and len(reflects) == 60


EXITS = """\
#include <stdio.h>
#include <stdlib.h>
double a[16];
#pragma xmp nodes p[*]
#pragma xmp template t[16]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[1]
int main(void)
{
    int i;
#pragma xmp loop on t[i]
    for (i = 0; i < 16; i++)
        a[i] = i;
#pragma xmp reflect (a)
    printf("done\\n");
    exit(0);
}
"""


def test_exit_zero_writes_the_profile(tmp_path: Path) -> None:
    (tmp_path / "exits.c").write_text(EXITS)
    r = run_xmpacc("exits.c", "-o", "exits", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    trace = tmp_path / "exits.json"
    run = run_mpi(2, tmp_path / "exits", env={"XMPACC_PROFILE": str(trace)})
    assert run.returncode == 0 and run.stdout == "done\ndone\n", run.stderr
    assert run.stderr.count("xmpacc profile: 2 rank(s)") == 1
    _row(run.stderr, "exits.c:15", "reflect")
    assert json.loads(trace.read_text())["traceEvents"]


def test_no_profile_without_the_variable(tmp_path: Path) -> None:
    (tmp_path / "exits.c").write_text(EXITS)
    assert run_xmpacc("exits.c", "-o", "exits", cwd=tmp_path).returncode == 0
    run = run_mpi(1, tmp_path / "exits", env={"XMPACC_PROFILE": "0"})
    assert run.returncode == 0 and "xmpacc profile" not in run.stderr
    assert not list(tmp_path.glob("*.json"))


def test_table_sums_ranks_and_sorts_by_time() -> None:
    per_rank = [{("a.c:1", "reflect"): [2, 4_000_000, 100, 3_000_000],
                 ("a.c:2", "barrier"): [1, 1_000_000, 0, 10]},
                {("a.c:1", "reflect"): [2, 2_000_000, 100, 1_000_000]}]
    head, first, second = table(per_rank)
    assert head.split()[:3] == ["source", "line", "directive"] and "host us" in head
    assert first.split() == ["a.c:1", "reflect", "4", "6.000", "1500.0", "1000.00", "2.000", "/", "4.000",
                             "200"]
    assert second.split() == ["a.c:2", "barrier", "1", "1.000", "1000.0", "0.01", "0.000", "/", "1.000", "0"]
