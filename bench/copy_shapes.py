"""The shape of a streaming copy kernel (no window): walk length and block shape.

The interior copy of Himeno L's ``p = wrk2`` (257 x 257 x 513 floats, indices 1..254,
1..254, 1..511) written by hand as a CUDA kernel in every combination of rows per thread
(1, 2, 4, 8, 16), the walked dimension (i, the outermost, as xmpacc walks; or j) and
block shape (64 x 4 ... 512 x 1), each thread running its rows unrolled without an exit
test when all exist; next to a ``cudaMemcpyAsync`` of the whole array and CuPy's slice
assignment.  Each result is checked against the slice copy and timed as the median of 30
runs (CUDA events), in one process.  It chose the walk of kernels without a window
(xmpacc/passes/kernel/streaming.py walk_length) and their 256 x 1 blocks (kernels.block_rows):

    python3 bench/copy_shapes.py > bench/results/copy-shapes-<date>-<gpu>.txt
"""

from __future__ import annotations

import cupy as cp
import numpy as np

NI, NJ, NK = 257, 257, 513
ni, nj, nk = 254, 254, 511          # interior counts, from index 1
SI, SJ = NJ * NK, NK
WALKS = (1, 2, 4, 8, 16)
BLOCKS = ((64, 4), (128, 2), (256, 1), (32, 8), (512, 1))

CODE = r'''
template<int WALK, int ALONG_J>
__global__ void copyk(float* __restrict__ dst, const float* __restrict__ src,
                      int ni, int nj, int nk, int SJ, int SI) {
  int k = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int jj = blockIdx.y * blockDim.y + threadIdx.y;
  int ii = blockIdx.z;
  if (k > nk) return;
  int i, j, n;
  long long step;
  if (ALONG_J) { i = ii + 1; j = jj * WALK + 1; n = nj - (j - 1); step = SJ; if (i > ni || j > nj) return; }
  else { j = jj + 1; i = ii * WALK + 1; n = ni - (i - 1); step = SI; if (j > nj || i > ni) return; }
  long long o = (long long) i * SI + (long long) j * SJ + k;
  if (n >= WALK) {
#pragma unroll
    for (int w = 0; w < WALK; w++) dst[o + w * step] = __ldg(&src[o + w * step]);
  } else {
    for (int w = 0; w < n; w++) dst[o + w * step] = __ldg(&src[o + w * step]);
  }
}
'''


def timeit(fn, reps: int = 30) -> float:
    """Median microseconds of ``reps`` runs, after one warm-up."""
    fn()
    cp.cuda.Device().synchronize()
    events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)]
    for a, b in events:
        a.record()
        fn()
        b.record()
    cp.cuda.Device().synchronize()
    return float(np.median([cp.cuda.get_elapsed_time(a, b) for a, b in events])) * 1000


def main() -> None:
    src = cp.random.random((NI, NJ, NK), dtype=cp.float32)
    dst, whole = cp.zeros_like(src), cp.empty_like(src)
    inner = (slice(1, ni + 1), slice(1, nj + 1), slice(1, nk + 1))
    names = [f"copyk<{w},{a}>" for w in WALKS for a in (0, 1)]
    mod = cp.RawModule(code=CODE, options=("--std=c++17",), name_expressions=names)
    stream = cp.cuda.get_current_stream()
    res = [("memcpy of the whole array", timeit(lambda: cp.cuda.runtime.memcpyAsync(
        whole.data.ptr, src.data.ptr, src.nbytes, cp.cuda.runtime.memcpyDeviceToDevice, stream.ptr)))]

    def slice_copy() -> None:
        dst[inner] = src[inner]

    res.append(("cupy slice assignment", timeit(slice_copy)))
    args = (dst, src, np.int32(ni), np.int32(nj), np.int32(nk), np.int32(SJ), np.int32(SI))
    for w in WALKS:
        for along_j in (0, 1):
            if along_j and w == 1:
                continue
            f = mod.get_function(f"copyk<{w},{along_j}>")
            for bx, by in BLOCKS:
                gx = -(-nk // bx)
                gy, gz = (-((-nj // w) // by), ni) if along_j else (-(-nj // by), -(-ni // w))

                def run(f=f, grid=(gx, gy, gz), block=(bx, by, 1)) -> None:
                    f(grid, block, args)

                dst.fill(0)
                run()
                ok = bool(cp.array_equal(dst[inner], src[inner]))
                res.append((f"walk {w} along {'j' if along_j else 'i'}, block "
                            f"{bx}x{by}{'' if ok else ' WRONG'}",
                            timeit(run)))
    print(f"# {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, interior copy of "
          f"{NI}x{NJ}x{NK} floats")
    for name, us in sorted(res, key=lambda r: r[1]):
        print(f"{us:8.1f} us  {name}")


if __name__ == "__main__":
    main()
