"""Reductions with location variables in loops with ``margin`` or ``peel_and_wait``
(global-view §5, §7): such a loop runs its parts (the rim cell by cell; the interior, then
the rim) out of sequential order, and firstmax / lastmax / firstmin / lastmin must still give
the iteration a serial loop over the same iterations gives.

* host loops (passes/loops/locations.py: each part restarts from the values before the loop and
  its record joins the node's by value, then key) and GPU loops, ``loop ... acc`` and an XMP
  loop over ``acc parallel loop`` (runtime/acc_locations.py: each launch restarts so, and the
  runtime keeps the better record), in the programs of tests/location_margins/ under
  mpirun -np 1..4 on the host backend, against their serial builds; the GPU runs are
  marked ``gpu``;
* the runtime's restart and pick over two launches, below the programs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import SharedBuilds, gpu_count, repo_builds, run_mpi, same_output

from xmpacc.runtime.acc_locations import LocatedPartials, pick, restart
from xmpacc.runtime.contract import REDUCTION_OPS

CASES = ("host_loops.c", "gpu_loops.c")
# what the serial builds print: every first and last maximum of a peel_and_wait loop is where
# a serial loop finds it, and every margin loop agrees with the serial loop over its iterations
SERIAL = {"host_loops.c": ["firstmax 9 at 0 (0), lastmax 9 at 21", "down: firstmax 9 at 23",
                           "margin iterations: 1, ties: 1",
                           "shared rows: firstmax 9 at 0 0, lastmax 9 at 21 63",
                           "cyclic shared rows: firstmax 9 at 0 0, lastmin 0 at 20 60"],
          "gpu_loops.c": ["firstmax 9 at 0 (0), lastmax 9 at 21, sections 9 at 0 0, 9 at 21 42",
                          "down: firstmax 9 at 23, acc parallel loop: lastmax 9 at 21",
                          "margin iterations: 1, ties: 1; rows: lastmax 6 at 11 3"]}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    """program -> (executable, serial output), each built once per test run."""
    return repo_builds(tmp_path_factory, "tests/location_margins", CASES)


@pytest.mark.parametrize("name", CASES)
def test_serial_output_is_the_intended_oracle(built: dict[str, tuple[Path, str]], name: str) -> None:
    _exe, expected = built[name]
    for fragment in SERIAL[name]:
        assert fragment in expected, expected


@pytest.mark.mpi
@pytest.mark.parametrize("name,nprocs", [(n, p) for n in CASES for p in (1, 2, 3, 4)])
def test_location_margin_program_on_host_backend(built: dict[str, tuple[Path, str]], name: str,
                                                 nprocs: int) -> None:
    exe, expected = built[name]
    r = run_mpi(nprocs, exe, env={"XMPACC_DEVICE": "host"})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_location_margin_program_on_gpu(built: dict[str, tuple[Path, str]], nprocs: int) -> None:
    exe, expected = built["gpu_loops.c"]
    r = run_mpi(nprocs, exe, env={"XMPACC_DEVICE": "cuda"})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


def _launch(rec: LocatedPartials, flags: list[int], keys: list[int], values: list[float],
            locs: list[int]) -> None:
    """One launch's per-warp records, picked after restart (as runtime/acc.py does)."""
    earlier = restart(rec)
    assert rec.fields[0][0][0] == -5.0 and rec.fields[1][0][0] == -1   # the values before the loop
    rec.keys[...] = np.array([[f, k] for f, k in zip(flags, keys, strict=True)], dtype=np.int64)
    rec.fields[0][1][...] = values
    rec.fields[1][1][...] = locs
    pick(rec, np, earlier)


@pytest.mark.parametrize("op, value, loc, key", [("firstmax", 9.0, 30, [1, 2]), ("lastmax", 9.0, 20, [1, 7]),
                                                 ("firstmin", 1.0, 40, [1, 4]), ("lastmin", 1.0, 40, [1, 4])])
def test_launches_in_parts_keep_the_record_sequential_order_picks(op: str, value: float, loc: int,
                                                                  key: list[int]) -> None:
    """The interior (trips 4..7) launches before the rim (2 and 8): a tie of the rim's
    iteration 2 with the interior's 7 goes by the key, not by which launch came last."""
    host_v, host_loc = np.array([-5.0]), np.array([-1], dtype=np.int32)
    host_key = np.zeros(2, dtype=np.int64)
    tail = np.zeros(3, dtype=np.int64)   # launches so far; v and loc before the loop
    rec = LocatedPartials(np.zeros((2, 2), dtype=np.int64), host_key, REDUCTION_OPS[op],
                          [(host_v, np.zeros(2)), (host_loc, np.zeros(2, dtype=np.int32))], tail)
    _launch(rec, [1, 1], [4, 7], [1.0, 9.0], [40, 20])     # the interior
    _launch(rec, [1, 0], [2, 8], [9.0, 0.0], [30, 99])     # the rim: 8 changed nothing
    _launch(rec, [0, 0], [0, 0], [0.0, 0.0], [0, 0])       # a cell without a change
    assert tail[0] == 3
    assert (host_v[0], host_loc[0], list(host_key)) == (value, loc, key)
