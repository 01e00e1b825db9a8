"""Array sections, gmove and the array directive (global-view §1-§3) as programs.

The programs are in tests/programs/sections/.  Plain cc cannot compile an array section,
so the serial build of the same file cannot be the oracle (tests/test_programs.py's
pattern).  Instead each program ``<name>.c`` has a **serial twin** ``<name>_serial.c``:
the same computation written with plain loops, statement by statement (the serial
meaning of each array assignment, gmove and array directive: an element-wise loop in
row-major order, through a temporary where source and destination overlap).  The twin is
built by plain cc; the xmpacc build of ``<name>.c`` run under mpirun at each process count
of ``CASES`` must print what the twin prints.  Results inside the programs are checked
with loop reductions, not with gmove, so a wrong gmove cannot hide itself.

Also here: run-time errors of sections (shapes known only at run time, lengths, elements
outside a node's part in an array directive, data outside the executing node set), each
naming the line and the values involved.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import SharedBuilds, run_mpi, run_xmpacc, same_output

SECTIONS = Path(__file__).parent / "programs" / "sections"

CASES: dict[str, tuple[int, ...]] = {
    "local_assign.c": (1, 2),
    "gmove_1d.c": (1, 2, 3, 4),
    "gmove_2d.c": (4,),
    "gmove_task.c": (2, 4),
    "gmove_async.c": (1, 3, 4),
    "array_directive.c": (1, 2, 3, 4),
    "gmove_subsets.c": (4,),               # arrays on h = p[2:2], o = p[1:2:2], q[2][2]
    "gmove_members.c": (1, 3, 4),           # aligned structure members (global-view §8)
    "gmove_families.c": (2, 4),             # nodes row[2] = g[*][:]: one copy of each array per row
    "array_star.c": (2, 4),                 # nodes g[*][2]
}
MANY_PROCS: dict[str, tuple[int, ...]] = {   # node subsets and many neighbours
    "gmove_2d.c": (8,),
    "gmove_task.c": (8,),
    "gmove_subsets.c": (8,),
    "gmove_families.c": (8,),
}

pytestmark = pytest.mark.mpi


def twin_output(src: Path, tmp: Path) -> str:
    twin = src.with_name(src.stem + "_serial.c")
    exe = tmp / (src.stem + "_serial")
    subprocess.run(["cc", "-O2", "-w", str(twin), "-o", str(exe), "-lm"], check=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True, timeout=60).stdout


def _build(name: str, tmp: Path) -> tuple[Path, str]:
    src = SECTIONS / name
    exe = tmp / src.stem
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, f"xmpacc {name} failed:\n{r.stderr}"
    return exe, twin_output(src, tmp)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    """program -> (executable, its twin's output), each built once per test run."""
    return SharedBuilds(tmp_path_factory, "sections", CASES, _build)


def test_every_program_has_a_twin_and_is_listed() -> None:
    programs = {p.name for p in SECTIONS.glob("*.c") if not p.stem.endswith("_serial")}
    assert programs == set(CASES)
    assert all((SECTIONS / n.replace(".c", "_serial.c")).exists() for n in programs)


def _params(table: dict[str, tuple[int, ...]], marks: tuple = ()) -> list[object]:
    return [pytest.param(name, n, id=f"{Path(name).stem}-np{n}", marks=marks)
            for name, counts in table.items() for n in counts]


@pytest.mark.parametrize("name,nprocs", _params(CASES) + _params(MANY_PROCS, (pytest.mark.many_procs,)))
def test_program_prints_what_its_serial_twin_prints(built: dict[str, tuple[Path, str]], name: str,
                                                    nprocs: int) -> None:
    exe, expected = built[name]
    r = run_mpi(nprocs, exe, timeout=120)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


def test_gmove_bytes_are_counted(built: dict[str, tuple[Path, str]]) -> None:
    exe, _ = built["gmove_async.c"]
    r = run_mpi(2, exe, timeout=60, env={"XMPACC_STATS": "1"})
    assert r.returncode == 0, r.stderr
    stats = [line for line in r.stderr.splitlines() if line.startswith("xmpacc-stats:")]
    assert len(stats) == 2 and all('"gmove_calls": 3' in s for s in stats)
    # N = 30 doubles, block -> cyclic on 2 nodes: each node keeps half of its block
    moved = [int(s.split('"gmove_bytes": ')[1].split(",")[0].rstrip("}")) for s in stats]
    assert all(m > 0 for m in moved)


# ---------------------------------------------------------------- run-time errors

HEAD = """\
#include <stdio.h>
#pragma xmp nodes p[*]
#pragma xmp template t[16]
#pragma xmp template u[16]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute u[cyclic] onto p
double a[16], b[16], loc[16];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with u[i]
"""

RUNTIME_ERRORS = [
    ("local-shapes", "int n = 4, m = 5;\n    loc[0:n] = loc[8:m];", 1,
     "prog.c:13: error: shapes do not conform: 'loc' has shape [4] but 'loc' has shape [5]"),
    ("local-length", "int n = 0;\n    loc[0:n] = 1.0;", 1,
     "prog.c:13: error: the length of dimension 0 of a section of 'loc' is 0; it must be > 0"),
    ("gmove-shapes", "int n = 4;\n#pragma xmp gmove\n    b[0:n] = a[0:n+1];", 2,
     ("prog.c:13: error: gmove: shapes do not conform: the left-hand side has shape [4] but the "
      "right-hand side has shape [5]")),
    ("gmove-bounds", "int n = 10;\n#pragma xmp gmove\n    b[8:n] = a[0:n];", 2,
     "prog.c:13: error: gmove: b[8:10] reaches index 17, out of bounds of dimension 0 (0..15)"),
    ("array-not-local", "#pragma xmp array on t[:]\n    a[:] = b[:];", 2,
     "prog.c:12: error: 'b[1]' is not in this node's part of 'b'"),
    ("array-zero-step", "int s = 0;\n#pragma xmp array on t[0:4:s]\n    a[0:4:2] = 1.0;", 2,
     "prog.c:13: error: the step of dimension 0 of a section of 't' is 0"),
    ("gmove-outside-task", "#pragma xmp task on p[0]\n    {\n#pragma xmp gmove\n    loc[:] = a[:];\n    }", 2,
     "prog.c:14: error: gmove: an element to move is held only by nodes outside the executing node set"),
]


@pytest.mark.parametrize("name,body,nprocs,message", RUNTIME_ERRORS, ids=[c[0] for c in RUNTIME_ERRORS])
def test_runtime_error_names_the_line_and_the_values(tmp_path: Path, name: str, body: str, nprocs: int,
                                                     message: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(HEAD + f"int main(void)\n{{\n    {body}\n    return 0;\n}}\n")
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(nprocs, exe, timeout=60)
    assert r.returncode != 0
    assert message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_gmove_bench_runs_and_agrees_with_its_baseline(tmp_path: Path) -> None:
    """bench/gmove_bench.py at a tiny size: both programs run and their checksums agree
    (the script refuses a ratio otherwise); no timing is claimed here."""
    import json
    import os
    import sys

    from conftest import REPO, mpirun_path, xmpacc_command

    if mpirun_path() is None:
        pytest.skip("no mpirun")
    env = {**os.environ, "PATH": f"{Path(xmpacc_command()[0]).parent}:{Path(mpirun_path()).parent}:"
                                 + os.environ.get("PATH", "")}
    r = subprocess.run([sys.executable, str(REPO / "bench" / "gmove_bench.py"), "--n", "64", "--np", "2",
                        "--reps", "1", "--out", str(tmp_path)], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    result = json.loads(next(tmp_path.glob("gmove-*.json")).read_text())
    assert result["xmpacc"]["bytes_sent_per_node_per_gmove"] \
        == [result["baseline_alltoallv"]["bytes_sent_per_node"]] * 2
