"""Vector streaming kernels (passes/kernel/stream_vector.py): which nests get 4 points of the
innermost loop per thread and why the others do not, the generated code, runs of
tests/acc_programs/vector_stencils.c on the host backend (rows aligned to 16 bytes and not)
against the serial build, checked, and (marked gpu) on a GPU."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import gpu_count, run_mpi, run_xmpacc, same_output
from test_passes import run_passes

PROGRAM = Path(__file__).parent / "acc_programs" / "vector_stencils.c"
HOST = {"XMPACC_DEVICE": "host"}

HEAD = """\
#define N 24
float a[N][N][N], b[N][N][N], c[N][N][N], s;
double d[N][N][N];
int m[N][N][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N][N][N]
#pragma xmp distribute t[block][*][*] onto p
#pragma xmp align a[k][j][i] with t[k][j][i]
#pragma xmp align b[k][j][i] with t[k][j][i]
#pragma xmp align c[k][j][i] with t[k][j][i]
#pragma xmp align d[k][j][i] with t[k][j][i]
#pragma xmp align m[k][j][i] with t[k][j][i]
#pragma xmp shadow a[1][0][0]
void f(void) {
  int i, j, k; float x = 0;
#pragma xmp acc replicate (a, b, c, d, m, s)
  {
"""
LOOP = "#pragma xmp loop (k, j, i) on t[k][j][i] acc\n"
FOR = "for (k = 1; k < N - 1; k++) for (j = 1; j < N - 1; j++) for (i = {i0}; i < N - 1; i++) "

# (body of the innermost loop, "vector" or a fragment of why not)
TABLE = [
    ("b[k][j][i] = a[k-1][j][i] + a[k+1][j][i] + a[k][j-1][i] + a[k][j][i-1] + a[k][j][i+1];", "vector"),
    ("b[k][j][i] = c[k][j][i] * (a[k-1][j][i] + a[k+1][j][i]);", "vector"),
    ("{ float t = a[k-1][j][i] + a[k+1][j][i]; b[k][j][i] = t * t; }", "vector"),
    ("b[k][j][i] = a[k-1][j][i] + a[k+1][j][i] + (i > 3 ? c[k][j][i] : 0.5f);", "under a condition"),
    ("b[k][j][i] = i > 3 ? a[k-1][j][i] : a[k+1][j][i];", "no window"),
    ("b[k][j][i] += a[k-1][j][i] + a[k+1][j][i];", "not 'array[...] = value'"),
    ("{ b[k][j][i] = a[k-1][j][i]; c[k][j][i] = a[k+1][j][i]; }", "not one store"),
    ("d[k][j][i] = a[k-1][j][i] + a[k+1][j][i];", "holds double"),
    ("b[k][j][i] = a[k-1][j][i] + a[k+1][j][i] + m[k][j][i];", "not an array of float"),
    ("b[k][j][i] = a[k-1][j][i] + a[k+1][j][i] + b[k][j][i];", "reads the array 'b' it writes"),
    ("b[k][j][i] = a[k-1][j][i] + a[k+1][j][i] + a[k][i][j];", "in its last subscript"),
    ("b[k][i][j] = a[k-1][i][j] + a[k+1][i][j];", "the store is not at the bare innermost index"),
]


def _vector_info(tmp_path: Path, body: str, head: str = HEAD + LOOP + FOR.format(i0=1)) -> str:
    _unit, ctx = run_passes(tmp_path, head + body + "\n  }\n}\n", stop_after="gpu")
    assert len(ctx.kernels) == 1
    return str(ctx.kernels[0].info.get("vector", "not streamed: " + str(ctx.kernels[0].info["stream"])))


@pytest.mark.parametrize("body,expected", TABLE, ids=[str(k) for k in range(len(TABLE))])
def test_which_nests_get_vectors(tmp_path: Path, body: str, expected: str) -> None:
    info = _vector_info(tmp_path, body)
    assert expected in info, info


def test_a_loop_that_does_not_step_by_one_and_the_switch(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    body = TABLE[0][0]
    stepped = HEAD + LOOP + FOR.format(i0=1).replace("i++", "i += 2")
    assert "does not go up by 1" in _vector_info(tmp_path, body, stepped)
    monkeypatch.setenv("XMPACC_STREAM_VECTOR", "0")
    assert _vector_info(tmp_path, body) == "XMPACC_STREAM_VECTOR=0"


def test_generated_vector_walk(tmp_path: Path) -> None:
    exe = tmp_path / "prog"
    r = run_xmpacc(str(PROGRAM), "-o", str(exe), "--keep", "--info")
    assert r.returncode == 0, r.stderr
    text = exe.with_suffix(".cu").read_text()
    # three of the six kernels: one walk whose steps load 16-byte blocks of the windows and
    # of the rows at i -/+ c (the scalar elements at the ends) or, with the mask's bit 4,
    # element by element; the masked and the vector store; the one-point fallback.  The walk
    # indexes in 32 bits from each array's local buffer where the buffers allow
    # (stream_walk._rows32), the fallback runs the body as written
    assert text.count("_xmpacc_s0_i.count >= 4) {   /* 32-bit element indices") == 3
    assert text.count("_XMPACC_FITS32(_xmpacc_a_a, ") == 3
    assert text.count("_xmpacc_mask = 31;   /* bit 4: element by element */") == 3
    assert "if (!(_xmpacc_mask >> 4)) {" in text
    assert "const float *const _xmpacc_b1 = a + (_XMPACC_AT3(_xmpacc_a_a, _xmpacc_a_a.dim[0].gtol" in text
    assert "int _xmpacc_o1 = (int) (_XMPACC_AT3(_xmpacc_a_a, _XMPACC_L(_xmpacc_a_a, 0, (k))" in text
    assert text.count("if (_xmpacc_w >= _xmpacc_rows) break;") == 3
    assert "const int _xmpacc_d1_0 = (int) (" in text
    assert "_XMPACC_LDV4F(&_xmpacc_b1[_xmpacc_o1" in text and "_XMPACC_STV4F(&_xmpacc_b0[_xmpacc_o0" in text
    assert "if (_xmpacc_mask == 15)" in text
    assert text.count("one point at a time, the body as written") == 3
    # the 6 blocks per SM that 40 registers allow, 4 where the runtime finds a spill
    assert "the runtime defines it as 4 where this kernel spills" in text
    # the kernel gets groups of 4 points, the loop's own schedule after the others
    host = exe.with_suffix(".host.c").read_text()
    assert "_xmpacc_sched_groups(_xmpacc_s_i, 4)" in host and "(void *) (&_xmpacc_sg_i)" in host
    assert r.stderr.count("4 consecutive of i with 16-byte loads where aligned") == 3, r.stderr


def test_generated_vector_walk_in_64_bits(tmp_path: Path) -> None:
    """XMPACC_STREAM_INDEX32=0: the 64-bit row indices, the streamed one-point fallback, 4 blocks."""
    exe = tmp_path / "prog"
    r = run_xmpacc(str(PROGRAM), "-o", str(exe), "--keep", env={"XMPACC_STREAM_INDEX32": "0"})
    assert r.returncode == 0, r.stderr
    text = exe.with_suffix(".cu").read_text()
    assert text.count("if (_xmpacc_vec && (_xmpacc_al || _xmpacc_s0_i.count >= 4)) {") == 3
    assert "_XMPACC_FITS32" not in text and "_xmpacc_b1" not in text
    assert "_XMPACC_LDV4F(&a[_xmpacc_o" in text and "_XMPACC_STV4F(&b[_xmpacc_o" in text
    assert "long long _xmpacc_o1 = " in text and "one point at a time */" in text
    assert "the runtime defines it as 3 where this kernel spills" in text


@pytest.mark.parametrize("nx", [24, 23], ids=["aligned", "unaligned"])
def test_vector_program_in_64_bits_matches_serial(tmp_path: Path, serial: dict[int, str], nx: int) -> None:
    exe = tmp_path / "prog"
    r = run_xmpacc(f"-DNX={nx}", str(PROGRAM), "-o", str(exe), env={"XMPACC_STREAM_INDEX32": "0"})
    assert r.returncode == 0 and not r.stderr, r.stderr
    for n in (1, 2):
        out = run_mpi(n, exe, env=HOST)
        assert out.returncode == 0, out.stderr
        assert set(out.stdout.strip().splitlines()) == {serial[nx]}, (n, out.stdout)


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> dict[int, str]:
    """The serial build's output at each NX (the oracle; cc with the pragmas ignored)."""
    out = {}
    for nx in (24, 23, 22):
        exe = tmp_path_factory.mktemp("serial") / "serial"
        subprocess.run(["cc", "-O2", "-w", f"-DNX={nx}", str(PROGRAM), "-o", str(exe), "-lm"], check=True)
        out[nx] = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.strip()
    return out


@pytest.mark.parametrize("nx,checked", [(24, False), (23, False), (22, False), (23, True)],
                         ids=["aligned", "unaligned", "half-aligned", "checked"])
def test_vector_program_matches_serial(tmp_path: Path, serial: dict[int, str], nx: int,
                                      checked: bool) -> None:
    exe = tmp_path / "prog"
    r = run_xmpacc(*(["-fcheck"] if checked else []), f"-DNX={nx}", str(PROGRAM), "-o", str(exe))
    assert r.returncode == 0 and not r.stderr, r.stderr
    for n in (1, 2, 4):
        out = run_mpi(n, exe, env=HOST)
        assert out.returncode == 0, out.stderr
        assert set(out.stdout.strip().splitlines()) == {serial[nx]}, (n, out.stdout)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 1, reason="needs a GPU")
@pytest.mark.parametrize("nx", [24, 23], ids=["aligned", "unaligned"])
def test_vector_program_on_gpu(tmp_path: Path, serial: dict[int, str], nx: int) -> None:
    exe = tmp_path / "prog"
    r = run_xmpacc(f"-DNX={nx}", str(PROGRAM), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    for n in (1, 2):
        out = run_mpi(n, exe, env={"XMPACC_DEVICE": "cuda"})
        assert out.returncode == 0, out.stderr
        # fp32 to 1e-6: the GPU contracts a * b + c into one rounding (FMA), gcc -O2 rounds
        # twice (92002.679164 against 92002.679182 on an H200 at NX = 24)
        for line in out.stdout.strip().splitlines():
            same_output(line, serial[nx], rel=1e-6)


ROWS_APART = """\
#include <stdio.h>
#define NY 7
#define NZ 11
float a[NZ][NY][NX], b[NZ][NY][NX], c[NZ][NY][NX];
#pragma xmp nodes p[*]
#pragma xmp template t[NZ][NY][NX]
#pragma xmp distribute t[block][*][*] onto p
#pragma xmp align a[k][j][i] with t[k][j][i]
#pragma xmp align b[k][j][i] with t[k][j][i]
#pragma xmp align c[k][j][i] with t[k][j][i]
#pragma xmp shadow a[1][0][0]
#pragma xmp shadow c[1][0][0]
int main(void)
{
    int i, j, k;
    double s = 0;
#pragma xmp loop (k, j, i) on t[k][j][i]
    for (k = 0; k < NZ; k++)
        for (j = 0; j < NY; j++)
            for (i = 0; i < NX; i++) {
                a[k][j][i] = (float) ((k * 7 + j * 5 + i * 3) % 17) * 0.25f;
                b[k][j][i] = 0;
                c[k][j][i] = (float) ((k + 2 * i) % 5);
            }
#pragma xmp acc replicate (a, b, c)
    {
#pragma xmp acc replicate_sync in (a, b, c)
#pragma xmp reflect (a, c) acc
#pragma xmp loop (k, j, i) on t[k][j][i] acc
        for (k = 1; k < NZ - 1; k++)
            for (j = 0; j < NY; j++)
                for (i = 1; i < NX - 1; i++)
                    b[k][j][i] = a[k - 1][j][i] + 2 * a[k + 1][j][i] + c[k + 1][j][i + 1];
#pragma xmp acc replicate_sync out (b)
    }
#pragma xmp loop (k, j, i) on t[k][j][i] reduction(+: s)
    for (k = 0; k < NZ; k++)
        for (j = 0; j < NY; j++)
            for (i = 0; i < NX; i++)
                s += b[k][j][i] * (1 + (k * 3 + j * 5 + i) % 7);
    printf("%.6f\\n", s);
    return 0;
}
"""


@pytest.mark.parametrize("nx", [24, 23], ids=["aligned", "unaligned"])
def test_row_index_at_a_row_no_access_reads(tmp_path: Path, nx: int) -> None:
    """c read at k + 1 only: its 32-bit row index stands at k + 1, i + 1 (an element the walk
    reads, stream_walk._origin), not at k, i (which no access reads)."""
    src = tmp_path / "apart.c"
    src.write_text(f"#define NX {nx}\n" + ROWS_APART)
    exe = tmp_path / "apart"
    r = run_xmpacc(str(src), "-o", str(exe), "--keep")
    assert r.returncode == 0 and not r.stderr, r.stderr
    text = exe.with_suffix(".cu").read_text()
    origin = ("_XMPACC_L(_xmpacc_a_c, 0, (k + 1)), _XMPACC_L(_xmpacc_a_c, 1, j), "
              "_XMPACC_L(_xmpacc_a_c, 2, i + 1)")
    assert origin in text
    serial = tmp_path / "serial"
    subprocess.run(["cc", "-O2", "-w", str(src), "-o", str(serial)], check=True)
    want = subprocess.run([str(serial)], capture_output=True, text=True, check=True).stdout.strip()
    for n in (1, 2, 3):
        out = run_mpi(n, exe, env=HOST)
        assert out.returncode == 0, out.stderr
        assert set(out.stdout.strip().splitlines()) == {want}, (n, out.stdout)
