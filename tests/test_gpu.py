"""XMP-ACC on a real GPU (cuda backend).  Marked ``gpu``: skipped without a CUDA device.

Run on the device machine with ``python3 -m pytest -m gpu tests/test_gpu.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLES, build_serial, gpu_count, run_mpi, run_xmpacc
from test_acc import ACC_SAMPLES, same_output

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")]
CUDA = {"XMPACC_DEVICE": "cuda"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    out: dict[str, tuple[Path, str]] = {}
    tmp = tmp_path_factory.mktemp("gpu")
    for acc, serial in ACC_SAMPLES:
        exe = tmp / Path(acc).stem
        r = run_xmpacc(str(SAMPLES / acc), "-O2", "-o", str(exe))
        assert r.returncode == 0, r.stderr
        ref = build_serial(SAMPLES / serial, tmp / (Path(serial).stem + "_serial"))
        import subprocess

        out[acc] = (exe, subprocess.run([str(ref)], capture_output=True, text=True, check=True).stdout)
    return out


@pytest.mark.parametrize("nprocs", [1, 2, 4])
@pytest.mark.parametrize("sample", [a for a, _s in ACC_SAMPLES])
def test_sample_on_gpu_matches_serial(built: dict[str, tuple[Path, str]], sample: str, nprocs: int) -> None:
    exe, expected = built[sample]
    r = run_mpi(nprocs, exe, env={**CUDA, "XMPACC_VERBOSE": "1"})
    assert r.returncode == 0, r.stderr
    assert "uses GPU" in r.stderr
    same_output(r.stdout, expected, rel=1e-9)


def test_ranks_share_gpus_round_robin(built: dict[str, tuple[Path, str]]) -> None:
    exe, _ = built[ACC_SAMPLES[0][0]]
    r = run_mpi(4, exe, env={**CUDA, "XMPACC_VERBOSE": "1"})
    n = gpu_count()
    for rank in range(4):
        assert f"rank {rank} uses GPU {rank % n}" in r.stderr


def _compile(tmp_path: Path, source: str) -> Path:
    src = tmp_path / "prog.c"
    src.write_text(source)
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    return exe


ACC_PROGRAM = """
#include <stdio.h>
#define N {n}
double a[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
int main(void) {{
  int i, far = 1000000000;   /* a run-time offset: the compiler's locality check cannot see it */
#pragma xmp acc replicate (a)
  {{
#pragma xmp loop on t[i] acc {clauses}
    for (i = 0; i < N; i++)
      a[i{offset}] = {value};
  }}
  return 0;
}}
"""


def test_kernel_compile_error_points_at_user_line(tmp_path: Path) -> None:
    # RAND_MAX: undeclared in the program (no <stdlib.h>), so cpp leaves it; the host
    # backend's kernel file has it (its header includes <stdlib.h>), NVRTC's has not
    exe = _compile(tmp_path, ACC_PROGRAM.format(n=100, clauses="", offset="", value="RAND_MAX"))
    r = run_mpi(1, exe, env=CUDA)
    assert r.returncode != 0
    assert "prog.c:15" in r.stderr and "RAND_MAX" in r.stderr
    assert "Traceback" not in r.stderr


def test_too_many_threads_get_the_default_block(tmp_path: Path) -> None:
    """num_threads(64, 32) asks for 2,048 threads, more than a block holds: the compiler warns
    at the directive and the kernel runs in the default block (block_shape.py)."""
    src = tmp_path / "prog.c"
    src.write_text(ACC_PROGRAM.format(n=100, clauses="num_threads(64, 32)", offset="", value="i"))
    r = run_xmpacc(str(src), "-o", str(tmp_path / "prog"))
    assert r.returncode == 0 and "prog.c:13" in r.stderr and "overridden" in r.stderr, r.stderr
    r = run_mpi(1, tmp_path / "prog", env=CUDA)
    assert r.returncode == 0, r.stderr


def test_kernel_fault_names_the_loop(tmp_path: Path) -> None:
    exe = _compile(tmp_path, ACC_PROGRAM.format(n=100, clauses="", offset=" + far", value="i"))
    r = run_mpi(1, exe, env=CUDA, timeout=120)
    assert r.returncode != 0
    assert "prog.c:13" in r.stderr and "kernel" in r.stderr
    assert "Traceback" not in r.stderr


def test_out_of_device_memory_names_array_and_bytes(tmp_path: Path) -> None:
    import cupy

    free, total = cupy.cuda.runtime.memGetInfo()
    n = (total // 8) + (1 << 27)  # a little more than the whole GPU
    exe = _compile(tmp_path, ACC_PROGRAM.format(n=n, clauses="", offset="", value="i"))
    r = run_mpi(1, exe, env=CUDA, timeout=300)
    if "MemoryError" in r.stderr or "cannot allocate" in r.stderr.lower():
        pytest.skip("the host cannot hold the array either")
    assert r.returncode != 0
    assert "'a'" in r.stderr and str(n * 8) in r.stderr
    assert "Traceback" not in r.stderr



CHECK_PROGRAMS = Path(__file__).parent / "check_programs"


def test_checked_kernel_stops_at_the_read(tmp_path: Path) -> None:
    """The wrong stencil in a loop ... acc, XMPACC_CHECK=1, 2 nodes: a CUDA kernel records
    its first access outside block + shadow and the runtime stops the job at that line."""
    import re

    exe = tmp_path / "stencil_acc"
    r = run_xmpacc(str(CHECK_PROGRAMS / "stencil_acc.c"), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    env = {**CUDA, "XMPACC_CHECK": "1", "XMPACC_CACHE_DIR": str(tmp_path / "cache")}
    r = run_mpi(2, exe, env=env, timeout=300)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    found = re.findall(r"stencil_acc\.c:23: error: a\[(\d+)\] is not on node (\d) \(owner: node (\d)\); "
                       r"shadow a\[1\] \+ reflect \(a\) would bring it", r.stderr)
    assert found and set(found) <= {("50", "0", "1"), ("49", "1", "0")}, r.stderr


@pytest.mark.parametrize("sample", [a for a, _s in ACC_SAMPLES])
def test_checked_sample_on_gpu_matches_serial(built: dict[str, tuple[Path, str]], sample: str,
                                             tmp_path: Path) -> None:
    exe, expected = built[sample]
    r = run_mpi(2, exe, env={**CUDA, "XMPACC_CHECK": "1", "XMPACC_CACHE_DIR": str(tmp_path / "cache")},
                timeout=300)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected, rel=1e-9)


MULTI = Path(__file__).parent / "multifile"


@pytest.mark.parametrize("nprocs", [1, 2])
def test_separately_compiled_kernels_form_one_module(tmp_path: Path, nprocs: int) -> None:
    """tests/multifile: acc loops in two files compiled with -c, linked through an archive;
    their kernels (the files' records) compile into one NVRTC module."""
    import subprocess

    files = ["main.c", "init.c", "relax.c", "weight.c"]
    for f in files:
        r = run_xmpacc("-c", str(MULTI / f), "-o", str(tmp_path / f.replace(".c", ".o")))
        assert r.returncode == 0, r.stderr
    subprocess.run(["ar", "rcs", str(tmp_path / "libf.a"), str(tmp_path / "init.o"),
                    str(tmp_path / "relax.o")],
                   check=True)
    exe = tmp_path / "prog"
    r = run_xmpacc(str(tmp_path / "main.o"), str(tmp_path / "weight.o"), f"-L{tmp_path}", "-lf", "-o",
                   str(exe))
    assert r.returncode == 0, r.stderr
    serial = tmp_path / "serial"
    subprocess.run(["cc", "-w", *[str(MULTI / f) for f in files], "-lm", "-o", str(serial)], check=True)
    expected = subprocess.run([str(serial)], capture_output=True, text=True, check=True).stdout
    run = run_mpi(nprocs, exe, env={**CUDA, "XMPACC_VERBOSE": "1"})
    assert run.returncode == 0, run.stderr
    assert "uses GPU" in run.stderr
    same_output(run.stdout, expected, rel=1e-9)
