"""Coarrays on the device (XcalableACC §5a): ``acc declare create`` of a coarray, puts and
gets inside ``host_data use_device`` between device copies (and host copies, for the names
outside the list), completed by the image-control statements.

On the host backend (its "device" buffers, served by the gmove agents): device_heat.c, a
halo exchange of a 1-D decomposition, under 1, 2 and 4 processes against its serial build, and
device_sync.c (post/wait, sync_images, lock, critical, sync_memory with device moves)
against computed results; the generated host C (tests/golden/device_heat.host.c), the
lowering of each kind of statement, the compile-time mistakes, run-time errors, and the
runtime's offsets.  Marked ``gpu``: the programs on the cuda backend, through CUDA IPC and
through the agents (``XMPACC_COARRAY_IPC=0``).

    XMPACC_UPDATE_GOLDEN=1 pytest tests/test_device_coarrays.py -k golden   # after a deliberate change
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, gpu_count, run_mpi, run_xmpacc, same_output, serial_output
from hypothesis import given, settings
from hypothesis import strategies as st
from test_samples import _without_version

PROGRAMS = Path(__file__).parent / "coarray_programs"
GOLDEN = Path(__file__).parent / "golden"
HOST = {"XMPACC_DEVICE": "host"}
UPDATE = os.environ.get("XMPACC_UPDATE_GOLDEN") == "1"
HEAT, SYNC = PROGRAMS / "device_heat.c", PROGRAMS / "device_sync.c"


def sync(n: int) -> str:
    """device_sync.c: each image k adds (k + 1) (i + 1) to the token; the counters add
    k + 1 and 10 (k + 1) three times per image."""
    images = n * (n + 1) // 2
    token = " ".join(str(images * (i + 1)) for i in range(6))
    return f"token: {token}\ncounters: {3 * images} {30 * images}\nhost_tok: {token}\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("device_coarrays")
    out = {}
    for src in (HEAT, SYNC):
        r = run_xmpacc(str(src), "-o", str(tmp / src.stem))
        assert r.returncode == 0, r.stderr
        out[src.name] = tmp / src.stem
    out["serial"] = tmp
    return out


def test_every_device_program_is_tested() -> None:
    assert {p.name for p in PROGRAMS.glob("device_*.c")} == {HEAT.name, SYNC.name}


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_halo_exchange_matches_serial_build(built: dict[str, Path], nprocs: int) -> None:
    r = run_mpi(nprocs, built[HEAT.name], env=HOST, timeout=120)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, serial_output(HEAT, built["serial"]), rel=0)


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_image_control_completes_device_moves(built: dict[str, Path], nprocs: int) -> None:
    r = run_mpi(nprocs, built[SYNC.name], env=HOST, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == sync(nprocs)


def test_golden_host_c(tmp_path: Path) -> None:
    """The calls of every kind of device move and the start-up registration."""
    r = run_xmpacc("-S", f"tests/coarray_programs/{HEAT.name}", "-o", str(tmp_path / "heat"), cwd=REPO)
    assert r.returncode == 0, r.stderr
    text = _without_version((tmp_path / "heat.host.c").read_text())
    golden = GOLDEN / "device_heat.host.c"
    if UPDATE:
        golden.write_text(text)
    assert text == golden.read_text(), \
        "generated host C differs from tests/golden/device_heat.host.c (XMPACC_UPDATE_GOLDEN=1 rewrites it)"


# ---------------------------------------------------------------- lowering

LOWERING = """\
#include <xmp.h>
int a[8]:[*];
int b[8], h[8], x;
xmp_lock_t l:[*];
#pragma acc declare create(a) copyin(b)
int main(void)
{
    int k = 0;
#pragma acc host_data use_device(a, b)
    {
        a[0:4]:[k] = b[2:4];      /* 1: device to device */
        a[0:4]:[k] = h[0:4];      /* 2: host to device */
        h[0:4] = a[4:4]:[k];      /* 3: device to host */
        a[3]:[k] = b[1];          /* 4: an element, by address */
        a[5]:[k] = x + 1;         /* 5: a host value */
        a[6]:[k] += 2;            /* 6: read, add, write back */
        x = a[7]:[k];             /* 7: an element get */
    }
#pragma acc host_data use_device(b)
    b[0:2] = a[0:2]:[k];          /* 8: a's host copy into b's device copy */
    return x;
}
"""


def test_lowering_names_the_device_sides(tmp_path: Path) -> None:
    src = tmp_path / "low.c"
    src.write_text(LOWERING)
    r = run_xmpacc("-S", str(src), "-o", str(tmp_path / "low"))
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "low.host.c").read_text()
    calls = re.findall(r"_xmpacc_coarray_(put|get)(_acc)?\([^;]*?, (\d)\);", text)
    assert calls == [("put", "_acc", "3"), ("put", "_acc", "1"), ("get", "_acc", "1"), ("put", "_acc", "3"),
                     ("put", "_acc", "1"), ("put", "_acc", "1"), ("get", "_acc", "2")], text
    assert text.count("_xmpacc_coarray_get_elem_acc(") == 2, text   # statements 6 and 7
    assert "_xmpacc_coarray_device_init((void *) a, " in text and "device_init((void *) b" not in text


# The compile-time mistakes and run-time errors of device coarrays are in the tables of
# tests/test_coarrays.py (DEVICE_MISTAKES, DEVICE_RUNTIME).


# ---------------------------------------------------------------- the runtime's pieces

_SECTIONS = st.lists(st.integers(1, 4), min_size=1, max_size=3).flatmap(
    lambda extents: st.tuples(st.just(extents), st.tuples(*[
        st.one_of(st.tuples(st.just(False), st.integers(0, e - 1), st.just(1), st.just(1)),
                  st.integers(0, e - 1).flatmap(lambda b, e=e: st.tuples(
                      st.just(True), st.just(b), st.integers(1, e - b), st.just(1))),
                  st.integers(0, e - 1).flatmap(lambda b: st.tuples(
                      st.just(True), st.just(b), st.integers(1, b + 1), st.just(-1))))
        for e in extents])))


@settings(max_examples=200, deadline=None)
@given(_SECTIONS)
def test_element_offsets_are_numpys_selection(case: tuple[list[int], tuple]) -> None:
    """A section's offsets (coarray_device.element_offsets) are the elements numpy's view
    selects, in the same (row-major) order."""
    from xmpacc.runtime.coarray_device import element_offsets
    from xmpacc.runtime.sections import Section, Sub, numpy_index

    extents, subs = case
    sec = Section(8, tuple(extents), tuple(Sub(*s) for s in subs))
    grid = np.arange(int(np.prod(extents))).reshape(extents)
    assert element_offsets(sec).tolist() == np.asarray(grid[numpy_index(sec)]).reshape(-1).tolist()


def test_a_host_move_without_a_window_names_the_reason() -> None:
    """An MPI that cannot make windows (the device machine's Open MPI) fails at the first host
    move of the coarray, naming MPI's reason; its device copy needs none."""
    from xmpacc.runtime.coarray import Coarray, Coarrays
    from xmpacc.runtime.errors import RuntimeFailure

    co = Coarray("a", 0, 8, 4, (-1,), None, "MPI_ERR_WIN: invalid window")
    with pytest.raises(RuntimeFailure, match=r"coarray 'a': this MPI library could not make a window over it "
                                             r"\(MPI_ERR_WIN: invalid window\)"):
        Coarrays._window(Coarrays.__new__(Coarrays), co, "f.c:3")


def test_the_agent_serves_an_offered_coarray() -> None:
    """A device coarray's copy is offered to the gmove agent under a key without ranks."""
    from xmpacc.runtime import acc_gmove_agent as agent

    copy = np.arange(8, dtype=np.uint8)
    a = agent.GmoveAgent.__new__(agent.GmoveAgent)
    a.ptrs, a.offered = {}, {}
    a.offer(((), 0), lambda esize: copy.reshape(-1, esize))
    code, got = a._answer(agent.GET, ((), 0), 4, np.array([1]), None, False)
    assert (code, got.tolist()) == (agent.OK, [4, 5, 6, 7])
    nines = np.array([9, 9], dtype=np.uint8)
    assert a._answer(agent.PUT, ((), 0), 2, np.array([0]), nines, False)[0] == agent.OK
    assert copy[:2].tolist() == [9, 9]
    assert a._answer(agent.GET, ((), 1), 4, np.array([0]), None, False)[0] == agent.UNKNOWN


# ---------------------------------------------------------------- on a GPU

def _mpi_windows(nprocs: int) -> str:
    """Why this MPI cannot make windows over a program's memory under ``nprocs`` processes
    (host coarrays of other images; post/wait allocate theirs), "" when it can.  The device
    machine's Open MPI needs the settings of tests/device_env.sh; under one process it makes
    no window over the program's memory, and one image needs none (coarray.py)."""
    code = ("import numpy as np; from mpi4py import MPI; "
            + ("MPI.Win.Create(np.zeros(2), 8, comm=MPI.COMM_WORLD).Free(); " if nprocs > 1 else "")
            + "MPI.Win.Allocate(8, 8, comm=MPI.COMM_WORLD).Free()")
    from conftest import mpirun_path
    mpirun = mpirun_path()
    if mpirun is None:
        return "no mpirun"
    r = subprocess.run([mpirun, "-np", str(nprocs), sys.executable, "-c", code], capture_output=True,
                       text=True, timeout=60)
    return "" if r.returncode == 0 else (r.stderr.strip().splitlines() or ["?"])[-1][-200:]


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("transport", ["ipc", "agent"])
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_halo_exchange_on_gpu(built: dict[str, Path], nprocs: int, transport: str) -> None:
    env = {"XMPACC_DEVICE": "cuda", **({"XMPACC_COARRAY_IPC": "0"} if transport == "agent" else {})}
    r = run_mpi(nprocs, built[HEAT.name], env=env, timeout=180)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, serial_output(HEAT, built["serial"]), rel=0)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("transport", ["ipc", "agent"])
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_image_control_on_gpu(built: dict[str, Path], nprocs: int, transport: str) -> None:
    why = _mpi_windows(nprocs)
    if why:
        pytest.skip(f"this MPI cannot make windows under {nprocs} process(es), which post/wait and host "
                    f"coarrays need: {why}")
    env = {"XMPACC_DEVICE": "cuda", **({"XMPACC_COARRAY_IPC": "0"} if transport == "agent" else {})}
    r = run_mpi(nprocs, built[SYNC.name], env=env, timeout=180)
    assert r.returncode == 0, r.stderr
    assert r.stdout == sync(nprocs)
