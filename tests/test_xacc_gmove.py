"""``gmove ... acc`` (XcalableACC.md §4) on the host backend: tests/xacc_gmove/gmove_acc.c
and gmove_inout_acc.c (one-sided: gmove in/out inside tasks, served by the other nodes'
gmove agents) under 1-4 processes against their serial twins (their meaning written with
loops), the run-time errors of an operand that is not on the device (here, or on the node
that holds it), and the same programs on GPUs (marked ``gpu``: NCCL point-to-point between
device copies, the agents' CUDA streams)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import gpu_count, run_mpi, run_xmpacc, same_output, serial_output

PROGRAMS = Path(__file__).parent / "xacc_gmove"
HOST = {"XMPACC_DEVICE": "host"}


PROGRAM_NAMES = ["gmove_acc", "gmove_inout_acc"]


@pytest.fixture(scope="module", params=PROGRAM_NAMES)
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("xacc_gmove")
    exe = tmp / request.param
    r = run_xmpacc(str(PROGRAMS / f"{request.param}.c"), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    return exe, serial_output(PROGRAMS / f"{request.param}_serial.c", tmp)


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 3, 4])
def test_gmove_acc_on_host_backend(built: tuple[Path, str], nprocs: int) -> None:
    exe, expected = built
    r = run_mpi(nprocs, exe, env={**HOST, "XMPACC_STATS": "1"}, timeout=60)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)
    if exe.name == "gmove_inout_acc":   # only the tasks' nodes 0 and n-1 ran gmoves: agents served
        stats = [json.loads(line.split(":", 1)[1]) for line in r.stderr.splitlines()
                 if line.startswith("xmpacc-stats:")]
        assert sorted(s["rank"] for s in stats if "gmove_calls" in s) == sorted({0, nprocs - 1}), r.stderr


ABSENT = """#include <stdio.h>
#include <xmp.h>
#pragma xmp nodes p[*]
#pragma xmp template t[8]
#pragma xmp distribute t[block] onto p
double a[8];
#pragma xmp align a[i] with t[i]
double v[8];
int main(void) {
#pragma acc data copy(a)
  {
#pragma xmp gmove acc
    v[0:4] = a[2:4];
  }
  return 0;
}
"""


def run_program(tmp_path: Path, source: str, env: dict[str, str] = HOST) -> subprocess.CompletedProcess[str]:
    """``source`` (prog.c) compiled and run on 2 nodes."""
    src = tmp_path / "prog.c"
    src.write_text(source)
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    return run_mpi(2, exe, env=env, timeout=60)


def failure_of(tmp_path: Path, source: str, env: dict[str, str] = HOST) -> str:
    """What ``source`` says as it fails on 2 nodes."""
    r = run_program(tmp_path, source, env)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    return r.stderr


@pytest.mark.mpi
def test_gmove_acc_of_an_absent_variable_names_it(tmp_path: Path) -> None:
    err = failure_of(tmp_path, ABSENT)
    assert "prog.c:12: error: 'gmove ... acc' of 'v', which is not present on the device" in err, err


ABSENT_REMOTE = """#include <stdio.h>
#include <xmp.h>
#pragma xmp nodes p[*]
#pragma xmp template t[8]
#pragma xmp distribute t[block] onto p
double a[8];
#pragma xmp align a[i] with t[i]
double v[8];
int main(void) {
  if (xmpc_node_num() == 0) {
#pragma acc enter data copyin(a, v)
  }
#pragma xmp task on p[0]
  {
#pragma xmp gmove in acc
    v[0:8] = a[0:8];
  }
  return 0;
}
"""


@pytest.mark.mpi
def test_gmove_in_acc_of_an_array_absent_on_its_owner_names_the_node(tmp_path: Path) -> None:
    """The requesting node has its part of 'a' on the device, node 1 has not: node 1's
    agent waits XMPACC_GMOVE_WAIT seconds for it, then answers why, and node 0 reports it
    at the gmove's line."""
    err = failure_of(tmp_path, ABSENT_REMOTE, {**HOST, "XMPACC_GMOVE_WAIT": "0.5"})
    assert "prog.c:15: error: gmove in ... acc: 'a' was not present on the device of node 1 within 0.5 s " \
           "(XMPACC_GMOVE_WAIT): no acc data, enter data, declare or acc replicate held it there, " \
           "or that node had left the data region that did (a barrier after this gmove keeps it there) " \
           "(node 0)" \
           in err, err


LATE_OWNER = """#include <stdio.h>
#include <unistd.h>
#include <xmp.h>
#pragma xmp nodes p[*]
#pragma xmp template t[8]
#pragma xmp distribute t[block] onto p
double a[8];
#pragma xmp align a[i] with t[i]
double v[8];
int main(void) {
  int i, it;
#pragma xmp loop on t[i]
  for (i = 0; i < 8; i++) a[i] = i + 1;
  for (it = 0; it < 2; it++) {
    if (it == 1 && xmpc_node_num() == 1) usleep(400000);   /* node 1 enters the region late */
#pragma acc data copy(a, v)
    {
#pragma xmp gmove in acc
      v[0:8] = a[0:8];
#pragma acc update host(v)
#pragma xmp barrier
    }
  }
  if (xmpc_node_num() == 0) printf("%.0f %.0f\\n", v[0], v[7]);
  return 0;
}
"""


@pytest.mark.mpi
def test_gmove_in_acc_waits_for_an_owner_entering_its_data_region(tmp_path: Path) -> None:
    """The second time round, the gmove's plan is made (its first run synchronised the
    nodes) and nothing orders node 1's data region against node 0's request: node 1's
    agent holds it until 'a' is on its device.  Without waiting (XMPACC_GMOVE_WAIT=0) the
    request finds no copy there: the program depends on the wait."""
    r = run_program(tmp_path, LATE_OWNER)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "1 8\n", r.stdout
    r = run_program(tmp_path, LATE_OWNER, {**HOST, "XMPACC_GMOVE_WAIT": "0"})
    assert r.returncode != 0 and "'a' was not present on the device of node 1 within 0 s" in r.stderr, \
        r.stderr


LATE_LARGE_OWNER = LATE_OWNER.replace("t[8]", "t[N]").replace("a[8]", "a[N]").replace(
    "i < 8", "i < N").replace("v[0:8] = a[0:8]", "v[0:8] = a[N-8:8]").replace(
    "#include <xmp.h>", "#include <xmp.h>\n#define N (1 << 22)")


@pytest.mark.mpi
def test_gmove_in_acc_reads_an_owners_copy_only_once_its_data_are_there(tmp_path: Path) -> None:
    """As above with 16 MB on node 1, whose copy-in takes milliseconds: the agent, polling
    for 'a' meanwhile, finds it in the present table only once it holds a's values (it
    read zeros when the copy entered the table before its copy-in)."""
    assert "a[N-8:8]" in LATE_LARGE_OWNER and "t[N]" in LATE_LARGE_OWNER
    r = run_program(tmp_path, LATE_LARGE_OWNER)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{(1 << 22) - 7} {1 << 22}\n", r.stdout


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_gmove_acc_on_gpu(built: tuple[Path, str], nprocs: int) -> None:
    exe, expected = built
    r = run_mpi(nprocs, exe, env={"XMPACC_DEVICE": "cuda"}, timeout=300)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


def test_rows_read_within_one_array_are_copied() -> None:
    """A shift within one array (a[1:n] = a[0:n-1]) reads its rows into a copy first: CuPy
    copies overlapping views in parallel, and NCCL receives in place (the GPU run found it)."""
    import numpy as np

    from xmpacc.runtime.acc_gmove import _read

    rows = np.arange(24, dtype=np.uint8).reshape(12, 2)
    assert not np.shares_memory(_read(rows, slice(0, 11), True), rows)
    assert np.shares_memory(_read(rows, slice(0, 11), False), rows)   # no copy when not needed
    picked = _read(rows, np.array([3, 1]), True)
    assert picked.tolist() == [[6, 7], [2, 3]]


def test_the_agent_answers_by_key_and_checks_offsets() -> None:
    """The agent's answer to one request, without its thread: rows by offsets (a slice when
    consecutive), the codes of an unknown key and of a copy the runtime says is absent,
    and offsets past the copy refused (a bug in the requester: the answer says so)."""
    import numpy as np

    from xmpacc.runtime import acc_gmove_agent as agent

    assert agent.selector(np.array([3, 4, 5]), np) == slice(3, 6)
    assert agent.selector(np.array([3, 5]), np).tolist() == [3, 5]
    copy = np.arange(12, dtype=np.uint8).reshape(6, 2)
    a = agent.GmoveAgent.__new__(agent.GmoveAgent)
    a.ptrs, a.offered = {((0, 1), 0): 100, ((0, 1), 1): 200}, {}
    a.rows = lambda ptr, esize: copy if ptr == 100 else agent.ABSENT
    code, got = a._answer(agent.GET, ((0, 1), 0), 2, np.array([5, 0]), None, False)
    assert (code, got.tolist()) == (agent.OK, [10, 11, 0, 1])
    code, _ = a._answer(agent.PUT, ((0, 1), 0), 2, np.array([1]), np.array([7, 7], dtype=np.uint8), False)
    assert code == agent.OK and copy[1].tolist() == [7, 7]
    assert a._answer(agent.GET, ((0, 1), 1), 2, np.array([0]), None, False)[0] == agent.ABSENT
    assert a._answer(agent.GET, ((0,), 0), 2, np.array([0]), None, False)[0] == agent.UNKNOWN
    with pytest.raises(IndexError):
        a._answer(agent.GET, ((0, 1), 0), 2, np.array([6]), None, False)
    assert agent.reason(agent.BROKEN, "a", 3, "IndexError: x") == "node 3 failed to serve it: IndexError: x"
