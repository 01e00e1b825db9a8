"""Streaming stencil kernels (passes/kernel/streaming.py): the legality table, the generated code,
runs on the host backend against the serial oracle, nvcc, and (marked gpu) a real GPU."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, build_serial, gpu_count, run_mpi, run_xmpacc
from pycparser import CParser, c_ast
from test_passes import run_passes

from xmpacc.passes.common.canonical import CanonicalLoop
from xmpacc.passes.kernel.streaming import block_threads, walk_length

PROGRAM = Path(__file__).parent / "acc_programs" / "stream_stencils.c"
GOLDEN = Path(__file__).parent / "golden" / "stream_stencils.cu"
HOST = {"XMPACC_DEVICE": "host"}

HEAD = """\
#define N 64
double a[N][N], b[N][N], c[N][N], s, g[N + 2][N];
int m[N][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][*] onto p
#pragma xmp align a[i][j] with t[i][j]
#pragma xmp align b[i][j] with t[i][j]
#pragma xmp align c[i][j] with t[i][j]
#pragma xmp align m[i][j] with t[i][j]
#pragma xmp shadow a[2][0]
void f(void) {
  int i, j; double x = 0;
#pragma xmp acc replicate (a, b, c, m, s, g)
  {
"""
LOOP = "#pragma xmp loop (i, j) on t[i][j] acc\n"

# (nest, "streamed" or a fragment of the reason it is not)
TABLE = [
    ("for (i = 1; i < N - 1; i++) for (j = 1; j < N - 1; j++) b[i][j] = a[i-1][j] + a[i+1][j];",
     "streamed: 4 rows of 'i' per thread, windows a[i-1..i+1]"),
    ("for (i = 2; i < N - 2; i++) for (j = 0; j < N; j++) { double d = a[i+2][j] - a[i-2][j]; b[i][j] = d; }",
     "windows a[i-2..i+2]"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) b[i][j] = b[i][j] * a[i+1][j] + a[i][j];",
     "windows a[i+0..i+1]"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) { b[i][j] = a[i-1][j]; c[i][j] = a[i+1][j]; }",
     "streamed"),
    # two patterns: a[.][j] and a[.][j+1]
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N - 1; j++) b[i][j] = a[i-1][j] + a[i][j] + "
     "a[i+1][j+1] + a[i][j+1];",
     "windows a[i-1..i+0], a[i+0..i+1]"),
    # nothing re-read: the subscripts still move with the rows (stream_rows.py)
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) b[i][j] = a[i][j] + a[i][j+1];",
     "windows none"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) b[i][j] = b[i-1][j] + a[i+1][j] + a[i-1][j];",
     "'b' is written and read at another subscript"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) g[i+1][j] = a[i+1][j] + a[i-1][j];",
     "without the walked index 'i' bare"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) g[0][j] = a[i+1][j] + a[i-1][j];",
     "without the walked index 'i' bare"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) g[i][j] = a[i+1][j] + a[i-1][j];",
     "streamed"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) { b[i][j] = a[i+1][j]; b[i][j+1] = a[i-1][j]; }",
     "'b' is written at two different subscripts"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) { if (j > 2) b[i][j] = a[i+1][j] + a[i-1][j]; }",
     "windows none"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) b[i][j] = j > 2 ? a[i+1][j] : a[i-1][j];",
     "windows none"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) { int k; for (k = 0; k < 2; k++) "
     "b[i][j] += a[i+k][j]; }",
     "the body has a 'for'"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) { s = a[i+1][j] + a[i-1][j]; }",
     "replicated scalar"),
    ("for (i = N - 2; i > 0; i--) for (j = 0; j < N; j++) b[i][j] = a[i+1][j] + a[i-1][j];",
     "does not go up by 1"),
    ("for (i = 1; i < N - 1; i += 2) for (j = 0; j < N; j++) b[i][j] = a[i+1][j] + a[i-1][j];",
     "does not go up by 1"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) b[i][j] = a[i+1][j] * a[i-1][j] + a[i*1][j];",
     "streamed"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) b[i][j] = a[i+1][i] + a[i-1][j];",
     "windows none"),
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) m[i][j] = m[i+1][j] + m[i-1][j];",
     "'m' is written and read at another subscript"),
    # plane sums (stream_planes.py): a sum of one row's reads that recurs in other rows
    ("for (i = 1; i < N - 1; i++) for (j = 1; j < N - 1; j++) "
     "b[i][j] = (a[i-1][j-1] + a[i-1][j+1]) - (a[i+1][j-1] + a[i+1][j+1]);",
     "(with 1 window of plane sums in place of the reads they add)"),
    ("for (i = 1; i < N - 1; i++) for (j = 1; j < N - 1; j++) "
     "b[i][j] = ((a[i-1][j-1] - a[i-1][j+1]) + a[i-1][j]) * (a[i][j-1] - a[i][j+1] + a[i][j]) "
     "+ (a[i+1][j-1] + a[i+1][j+1] + a[i+1][j]);",
     "(with 1 window of plane sums in place of the reads they add)"),
    # a replicated local array: no descriptor subscript to move, nothing re-read
    ("for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) g[i][j] = 2 * g[i][j];",
     "no subscript moves"),
]


def _kernel_info(tmp_path: Path, nest: str, loop: str = LOOP, env: dict[str, str] | None = None) -> str:
    old = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        _unit, ctx = run_passes(tmp_path, HEAD + loop + nest + "\n  }\n}\n", stop_after="gpu")
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert len(ctx.kernels) == 1
    return str(ctx.kernels[0].info["stream"])


@pytest.mark.parametrize("nest,expected", TABLE, ids=[str(k) for k in range(len(TABLE))])
def test_legality_table(tmp_path: Path, nest: str, expected: str) -> None:
    info = _kernel_info(tmp_path, nest, env={"XMPACC_STREAM_WALK": "4"})
    assert expected in info, info


def test_reductions_stream_and_single_loops_keep_the_mapping(tmp_path: Path) -> None:
    red = "#pragma xmp loop (i, j) on t[i][j] reduction(+:x) acc\n"
    nest = "for (i = 1; i < N - 1; i++) for (j = 0; j < N; j++) x += a[i+1][j] + a[i-1][j];"
    assert "streamed" in _kernel_info(tmp_path, nest, red, env={"XMPACC_STREAM_WALK": "4"})
    one = "#pragma xmp loop (i) on t[i][*] acc\n"
    nest = "for (i = 1; i < N - 1; i++) b[i][3] = a[i+1][3] + a[i-1][3];"
    assert "single distributed loop" in _kernel_info(tmp_path, nest, one)


CYCLIC_HEAD = HEAD.replace("[block][*] onto p", "[{dist}] onto q").replace(
    "#pragma xmp nodes p[*]\n", "#pragma xmp nodes p[*]\n#pragma xmp nodes q[*][1]\n").replace(
    "#pragma xmp shadow a[2][0]\n", "#pragma xmp shadow a[*][0]\n")
STENCIL = "for (i = 1; i < N - 1; i++) for (j = {j0}; j < N; j += {js}) b[i][j] = a[i-1][j] + a[i+1][j];"


@pytest.mark.parametrize("dist,j0,js,expected", [
    # this node's rows of a cyclic dimension are not consecutive: no window slides over them
    ("cyclic][block", 0, 1, "the loop of 'i' is over a cyclic dimension"),
    ("cyclic(3)][block", 0, 1, "the loop of 'i' is over a cyclic(w) dimension"),
    # an inner cyclic(w) loop is one position per thread, constant over the walk
    ("block][cyclic(3)", 1, 1, "streamed"),
    # ... unless threads must idle off its progression
    ("block][cyclic(3)", 1, 2, "the loop of 'j' over a cyclic(w) dimension may step past"),
])
def test_cyclic_dimensions_and_the_walk(tmp_path: Path, dist: str, j0: int, js: int, expected: str) -> None:
    source = CYCLIC_HEAD.replace("{dist}", dist) + LOOP + STENCIL.format(j0=j0, js=js) + "\n  }\n}\n"
    _unit, ctx = run_passes(tmp_path, source, stop_after="gpu")
    assert len(ctx.kernels) == 1
    assert expected in str(ctx.kernels[0].info["stream"])


def test_row_indices_one_per_array_and_walked_position() -> None:
    from pycparser import c_ast as ca

    from xmpacc.passes.kernel import stream_rows

    def ref(arr: str, *subs: str) -> ca.ArrayRef:
        g = [ca.FuncCall(ca.ID("_XMPACC_G"), ca.ExprList([ca.ID(f"_d_{arr}"), ca.Constant("int", str(k)),
                                                         _expr(s)])) for k, s in enumerate(subs)]
        return ca.ArrayRef(ca.ID(arr),
                           ca.FuncCall(ca.ID(f"_XMPACC_AT{len(subs)}"),
                                       ca.ExprList([ca.ID(f"_d_{arr}")] + g)))

    refs = [ref("u", "i - 1", "j"), ref("u", "i + 1", "j"), ref("u", "i", "j + 1"), ref("w", "i", "j"),
            ref("u", "j", "i"), ref("u", "i", "x"), ref("v", "i", "j")]
    rows, where = stream_rows.plan(refs, "i", {"u", "w"}, {"x"}, [])
    # u[i][j + 1] is the base of u (row offset 0), u[i -/+ 1][j] two distances from it;
    # u[j][i] walks another position: an index of its own
    assert [(r.array, len(r.distances)) for r in rows] == [("u", 2), ("w", 0), ("u", 0)]
    assert where[id(refs[0])] == (0, 0) and where[id(refs[1])] == (0, 1) and where[id(refs[2])] == (0, -1)
    assert where[id(refs[3])] == (1, -1) and where[id(refs[4])] == (2, -1)
    # u[i][x] reads a scalar the body assigns; v is not an aligned array
    assert all(id(r) not in where for r in refs[5:])


def _expr(text: str) -> object:
    from pycparser import CParser

    return CParser().parse(f"int f(void) {{ return {text}; }}").ext[0].body.block_items[0].expr


def test_switch_off(tmp_path: Path) -> None:
    nest = TABLE[0][0]
    assert _kernel_info(tmp_path, nest, env={"XMPACC_STREAM": "0"}) == "XMPACC_STREAM=0"


def _loops(*extents: int) -> list[CanonicalLoop]:
    return [CanonicalLoop(f"i{k}", None, "0", f"{e} - 1", "1", True) for k, e in enumerate(extents)]


def _body(statement: str) -> c_ast.Node:
    return CParser().parse(f"void f(void) {{ {statement} }}").ext[0].body


def test_walk_length_from_the_nest() -> None:
    assert walk_length(_loops(8192, 8192), 2) == 4         # 2-D: four rows
    assert walk_length(_loops(512, 512, 512), 2) == 8      # 3-D: eight planes
    assert walk_length(_loops(512, 512, 512), 0) == 4      # 3-D without a window (a copy): four
    assert walk_length(_loops(64, 64), 2) == 2             # too few threads for longer walks
    assert walk_length(_loops(16384, 16384), 4) == 8       # a window of five rows: twice its span
    unknown = [CanonicalLoop("i", None, "lo", "hi", "1", True), CanonicalLoop("j", None, "0", "n", "1", True)]
    assert walk_length(unknown, 2) == 4
    assert block_threads(_loops(512, 100)) == 128
    assert block_threads(_loops(512, 8192)) == 0            # the runtime's default


def test_block_rows_and_the_launch_shape() -> None:
    from xmpacc.passes.kernel.kernels import block_rows
    from xmpacc.runtime.device import CudaBackend, grid_pad

    stencil = _body("v[i0][i1][i2] = u[i0][i1 - 1][i2] + u[i0][i1 + 1][i2];")
    assert block_rows(_loops(512, 512, 512), stencil) == 4      # 3-D, rows i1 +- 1: 64 x 4 blocks
    copy = _body("v[i0][i1][i2] = u[i0][i1][i2] + u[i0 + 1][i1][i2 - 1];")
    assert block_rows(_loops(512, 512, 512), copy) == 1         # no neighbouring row read: 256 x 1
    assert block_rows(_loops(8192, 8192), stencil) == 1         # 2-D: rows of 256
    assert block_rows(_loops(512, 512, 20), stencil) == 1       # a short innermost loop
    # 510 x 510 rows of 510: x covers a row in 8 blocks of 64, y four rows per block
    shape = CudaBackend.shape(None, 510 * 510 * 510, 0, 1, 510, 4)  # type: ignore[arg-type]
    assert (shape.block, shape.rows, shape.grid, shape.grid2) == (64, 4, (8, 65025), True)
    assert shape.partials == 8 * 65025 * 256 // 32         # one per warp of the grid
    shape = CudaBackend.shape(None, 510 * 510 * 510, 128, 1, 510, 1)  # type: ignore[arg-type]
    assert (shape.block, shape.rows) == (128, 1)            # vector_length(128) on a 2-D nest
    shape = CudaBackend.shape(None, 510 * 510 * 510, 256, 1, 510, 4)  # type: ignore[arg-type]
    assert (shape.block, shape.rows) == (64, 4)             # vector_length(64) x the nest's 4 rows
    # a loop from 1: one idle thread first (_XMPACC_PAD), so warps start at aligned rows
    assert grid_pad(1, 1) == 1 and grid_pad(64, 1) == 0 and grid_pad(-1, 1) == 31 and grid_pad(1, 2) == 0
    shape = CudaBackend.shape(None, 512 * 512, 0, 1, 512, 4, grid_pad(1, 1))  # type: ignore[arg-type]
    assert shape.grid == (9, 128)                            # 513 threads along x


def test_block_sizes_the_program_gives() -> None:
    """vector_length / num_workers / num_threads are the block's shape; the plan stays
    (block_shape.py): the width along the innermost loop, the rows the program's workers
    or the nest's own; partial warps and oversized blocks fall back to the default."""
    from xmpacc.passes.kernel.block_shape import BlockRequest, shape

    def of(width: str | None, rows: str | None = None, default_rows: int = 4) -> tuple[str, int]:
        got = shape(BlockRequest(width, rows, "as written"), default_rows)
        return got.threads, got.rows

    assert shape(None, 4) == shape(None, 4) and (shape(None, 4).threads, shape(None, 4).rows) == ("0", 4)
    assert of("64") == ("256", 4)                  # Himeno's vector_length(64): the 64 x 4 block
    assert of("128", default_rows=1) == ("128", 1)  # a 2-D nest: one row
    assert of("32", "4") == ("128", 4)              # num_workers(4) vector_length(32)
    assert of("512") == ("1024", 2)                 # the nest's rows give way to the width
    assert of(None, "8") == ("256", 8)              # workers alone: about 256 threads
    assert of("n") == ("(n)", 1)                    # known at run time: that many threads
    for width, rows in (("1", None), ("48", None), ("64", "32")):
        got = shape(BlockRequest(width, rows, "vector_length(x)"), 4)
        assert (got.threads, got.rows) == ("0", 4) and "overridden" in got.remark, got
    gangs = shape(BlockRequest(None, None, "", "1024"), 1)
    assert gangs.threads == "0" and "num_gangs(1024) ignored" in gangs.remark


def test_a_block_size_no_gpu_runs_is_a_located_warning(tmp_path: Path) -> None:
    """The program's sizes that cannot be honoured (a partial warp, a block over 1,024
    threads) are replaced by the default block with a warning at the directive; the
    program still computes its result (host backend here, the GPU in test_gpu.py)."""
    src = tmp_path / "prog.c"
    src.write_text("""#include <stdio.h>
#define N 40
double a[N][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][*] onto p
#pragma xmp align a[i][j] with t[i][j]
int main(void) {
  int i, j;
  double s = 0;
#pragma acc data copy(a)
  {
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop collapse(2) vector_length(48)
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++)
        a[i][j] = i + 0.5 * j;
  }
#pragma xmp loop (i, j) on t[i][j] reduction(+:s)
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      s += a[i][j];
#pragma xmp task on p[0]
  printf("%.1f\\n", s);
  return 0;
}
""")
    r = run_xmpacc("-xacc", str(src), "-o", str(tmp_path / "prog"))
    assert r.returncode == 0, r.stderr
    said = ("warning: vector_length(48) overridden (a width of 48 is not a whole number of 32-thread "
            "warps): the default block")
    assert "prog.c:14:" in r.stderr and said in r.stderr, r.stderr
    assert run_xmpacc("-xacc", "-Werror", str(src), "-o", str(tmp_path / "prog2")).returncode != 0
    want = f"{sum(i + 0.5 * j for i in range(40) for j in range(40)):.1f}"
    for n in (1, 2):
        out = run_mpi(n, tmp_path / "prog", env={"XMPACC_DEVICE": "host"})
        assert out.returncode == 0 and out.stdout.strip() == want, out


def test_generated_kernel_golden(tmp_path: Path) -> None:
    exe = tmp_path / "prog"
    r = run_xmpacc(str(PROGRAM), "-o", str(exe), "--keep", env={"XMPACC_STREAM_WALK": ""})
    assert r.returncode == 0, r.stderr
    text = exe.with_suffix(".cu").read_text().replace(str(PROGRAM.parent) + "/", "")
    # all eight: windows or not, the subscripts move with the rows (the reduction too)
    assert text.count("streamed:") == 8
    assert "_xmpacc_o0 += _xmpacc_t0;" in text  # subscripts move with the rows (stream_rows.py)
    if os.environ.get("XMPACC_UPDATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def _ptxas_local_bytes(cu: Path, tmp_path: Path, defines: list[str]) -> dict[str, int]:
    """Stack frame bytes of each kernel of ``cu`` as nvcc (sm_90) builds it."""
    r = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-I", str(REPO / "runtime" / "include"),
                        *defines,
                        "-Xptxas", "-v", "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    found = re.findall(r"Compiling entry function '(\w+)'[^\n]*\n[^\n]*\n\s*(\d+) bytes stack frame",
                       r.stderr)
    assert found, r.stderr
    return {name: int(frame) for name, frame in found}


def test_nvcc_keeps_the_window_in_registers(tmp_path: Path) -> None:
    """As the runtime builds the kernels (runtime/device.py): kernels that ask for 8 blocks
    per SM and spill there are built again at their fallback; then nothing spills but a
    word of the kernels that push an overlapped reflect's rows (kernels.add_push: they keep
    their blocks per SM, the word costing less than the fallback's occupancy)."""
    from xmpacc.runtime.device import fallbacks

    r = run_xmpacc(str(PROGRAM), "-S", "-o", str(tmp_path / "prog"))
    assert r.returncode == 0, r.stderr
    cu = tmp_path / "prog.cu"
    first = _ptxas_local_bytes(cu, tmp_path, [])
    relaxed = fallbacks(cu.read_text(), lambda name: first[name])
    assert all(first[n] > 0 for n, _b in relaxed) and all(b == 2 for _n, b in relaxed)
    final = _ptxas_local_bytes(cu, tmp_path, [f"-D_XMPACC_MINB{n}={b}" for n, b in relaxed])
    text = cu.read_text()
    pushing = {n for n in final if re.search(rf"{n}\([^)]*_xmpacc_push_t", text)}
    assert set(final) == set(first), final
    assert all(v == 0 or (n in pushing and v <= 8) for n, v in final.items()), final   # registers only


STENCIL27 = REPO / "bench" / "spelling" / "stencil27_spell.c"


@pytest.mark.parametrize("real,blocks", [("float", 4), ("double", 5)])
def test_near_distances_are_literals_and_the_window_decides_the_blocks(tmp_path: Path, real: str,
                                                                        blocks: int) -> None:
    """The 27-point sweep's 26 distances of u: the 18 one element beside another (or beside
    the base) are written as it plus a literal (stream_rows.RowIndex.near), the 8 others
    through the descriptor; counted so its index state is small, and its walk, which keeps
    the cell's window and two windows of plane sums (stream_planes.py), asks for 4 blocks per
    SM in fp32 and 5 in fp64 (streaming.min_blocks), where nvcc keeps everything in
    registers.  XMPACC_STREAM_NEAR=0 gives the earlier kernel."""
    def build(env: dict[str, str]) -> str:
        r = run_xmpacc("-xacc", f"-DREAL={real}", "-DN=24", "-DSPELLING=1", str(STENCIL27), "-S",
                       "-o", str(tmp_path / "s27"), env=env)
        assert r.returncode == 0, r.stderr
        return (tmp_path / "s27.cu").read_text()

    text = build({})
    first = text[:text.index("#ifndef __CUDACC__")]
    dists = re.findall(r"const long long _xmpacc_d1_\d+ = (.*);", first)
    near = [d for d in dists if re.fullmatch(r"-?\d+|_xmpacc_d1_\d+ [-+] \d+", d)]
    assert (len(dists), len(near)) == (26, 18), dists
    assert set(re.findall(r"#define _XMPACC_MINB\w+ (\d+)", text)) == {str(blocks)}
    if shutil.which("nvcc"):   # registers only, at the blocks asked for or at the runtime's fallback
        from xmpacc.runtime.device import fallbacks

        first = _ptxas_local_bytes(tmp_path / "s27.cu", tmp_path, [])
        relaxed = fallbacks(text, lambda name: first[name])
        final = _ptxas_local_bytes(tmp_path / "s27.cu", tmp_path,
                                   [f"-D_XMPACC_MINB{n}={b}" for n, b in relaxed])
        assert set(final.values()) == {0}, (first, relaxed)
    old = build({"XMPACC_STREAM_NEAR": "0"})
    assert not re.findall(r"const long long _xmpacc_d1_\d+ = (-?\d+|_xmpacc_d1_\d+ [-+] \d+);", old)
    assert "_XMPACC_BOUNDS(2)" in old and "_XMPACC_MINB" not in old


@pytest.mark.parametrize("nest", [
    # a sum in one row only: nothing to reuse along the walk
    "b[i][j] = (a[i][j-1] + a[i][j+1]) + a[i-1][j] + a[i+1][j];",
    # a product in the sum: kept as written (a multiply the sum holds could fuse otherwise)
    "b[i][j] = (2 * a[i-1][j-1] + a[i-1][j+1]) + (2 * a[i+1][j-1] + a[i+1][j+1]);",
    # one row's sums of other forms: (x + y) + z and x + (y + z) are not the same sum
    "b[i][j] = ((a[i-1][j-1] + a[i-1][j+1]) + a[i-1][j]) + (a[i+1][j-1] + (a[i+1][j+1] + a[i+1][j]));",
])
def test_plane_sums_only_where_a_row_sum_recurs(tmp_path: Path, nest: str) -> None:
    """No window of sums where no sum of one row's reads recurs in another row as written."""
    loop = "for (i = 1; i < N - 1; i++) for (j = 1; j < N - 1; j++) "
    info = _kernel_info(tmp_path, loop + nest, env={"XMPACC_STREAM_WALK": "4"})
    assert "streamed" in info and "plane sums" not in info, info


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> str:
    ref = build_serial(PROGRAM, tmp_path_factory.mktemp("serial") / "serial")
    return subprocess.run([str(ref)], capture_output=True, text=True, check=True).stdout


@pytest.mark.mpi
@pytest.mark.parametrize("walk,counts", [("", (1, 2, 3)), ("3", (2,)), ("8", (3,)), ("off", (2,))])
def test_streamed_program_matches_serial(tmp_path: Path, expected: str, walk: str,
                                         counts: tuple[int, ...]) -> None:
    env = {"XMPACC_STREAM": "0"} if walk == "off" else {"XMPACC_STREAM_WALK": walk}
    exe = tmp_path / "prog"
    r = run_xmpacc(str(PROGRAM), "-o", str(exe), env=env)
    assert r.returncode == 0, r.stderr
    for n in counts:
        r = run_mpi(n, exe, env=HOST)
        assert r.returncode == 0, r.stderr
        assert r.stdout == expected, f"{n} processes, walk {walk or 'default'}"



@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() == 0, reason="needs a CUDA GPU")
@pytest.mark.parametrize("walk", ["", "3"])
def test_streamed_program_on_gpu(tmp_path: Path, expected: str, walk: str) -> None:
    exe = tmp_path / "prog"
    r = run_xmpacc(str(PROGRAM), "-o", str(exe), env={"XMPACC_STREAM_WALK": walk})
    assert r.returncode == 0, r.stderr
    for n in (1, 2):
        r = run_mpi(n, exe, env={"XMPACC_DEVICE": "cuda"})
        assert r.returncode == 0, r.stderr
        assert r.stdout == expected
