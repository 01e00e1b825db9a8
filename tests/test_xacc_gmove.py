"""``gmove ... acc`` (XcalableACC.md §4) on the host backend: tests/xacc_gmove/gmove_acc.c
under 1-4 processes against gmove_acc_serial.c (its meaning written with loops), the
run-time error of an operand that is not on the device, and the same program on GPUs
(marked ``gpu``: NCCL point-to-point between device copies)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import gpu_count, run_mpi, run_xmpacc, same_output, serial_output

PROGRAMS = Path(__file__).parent / "xacc_gmove"
HOST = {"XMPACC_DEVICE": "host"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("xacc_gmove")
    exe = tmp / "gmove_acc"
    r = run_xmpacc(str(PROGRAMS / "gmove_acc.c"), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    return exe, serial_output(PROGRAMS / "gmove_acc_serial.c", tmp)


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 3, 4])
def test_gmove_acc_on_host_backend(built: tuple[Path, str], nprocs: int) -> None:
    exe, expected = built
    r = run_mpi(nprocs, exe, env=HOST, timeout=60)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


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


@pytest.mark.mpi
def test_gmove_acc_of_an_absent_variable_names_it(tmp_path: Path) -> None:
    src = tmp_path / "prog.c"
    src.write_text(ABSENT)
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(2, exe, env=HOST, timeout=60)
    assert r.returncode != 0
    assert "prog.c:12: error: 'gmove ... acc' of 'v', which is not present on the device" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


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
