"""fp32 7-point 512^3 on one GPU: which hand-written kernel design comes nearest the copy
bandwidth?  (An experiment behind issue 31's Y2; its results: bench/results/stencil3d-designs-*.)

* ``walk``: each thread walks R planes, the planes below/at/above in registers (as
  stencil_baselines.py's jac_walk and xmpacc's streaming kernels);
* ``walkpf``: the same, the next plane's load issued one step ahead;
* ``walkall``: every plane of the thread's column loaded first (no exit test in the walk);
* ``smem``: the current plane's tile with halos in shared memory (2.5-D blocking).

    python3 bench/stencil3d_designs.py      # on a GPU machine with CuPy
"""
import functools
from collections.abc import Callable

import cupy as cp
import numpy as np

N = 512
SRC = r"""
typedef float real;
#define SIXTH ((real)(1.0/6.0))
extern "C" __global__ void walk(const real* __restrict__ u, real* __restrict__ un, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x, j = blockIdx.y*blockDim.y+threadIdx.y;
  int k0 = blockIdx.z*R+1;
  if (i<1||i>=n-1||j<1||j>=n-1) return;
  long long pl=(long long)n*n, c=k0*pl+(long long)j*n+i;
  real b=__ldg(u+c-pl), m=__ldg(u+c);
#pragma unroll
  for (int w=0; w<R; w++) { int k=k0+w; if (k>=n-1) break;
    real a=__ldg(u+c+pl);
    un[c]=SIXTH*(((((b+a)+__ldg(u+c-n))+__ldg(u+c+n))+__ldg(u+c-1))+__ldg(u+c+1));
    b=m; m=a; c+=pl; }
}
/* prefetch distance 1: the next plane's load is issued before this plane's arithmetic */
extern "C" __global__ void walkpf(const real* __restrict__ u, real* __restrict__ un, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x, j = blockIdx.y*blockDim.y+threadIdx.y;
  int k0 = blockIdx.z*R+1;
  if (i<1||i>=n-1||j<1||j>=n-1) return;
  long long pl=(long long)n*n, c=k0*pl+(long long)j*n+i;
  real b=__ldg(u+c-pl), m=__ldg(u+c), nx=__ldg(u+c+pl);
#pragma unroll
  for (int w=0; w<R; w++) { int k=k0+w; if (k>=n-1) break;
    real a=nx; if (w+1<R && k+1<n-1) nx=__ldg(u+c+2*pl);
    real s1=__ldg(u+c-n), s2=__ldg(u+c+n), s3=__ldg(u+c-1), s4=__ldg(u+c+1);
    un[c]=SIXTH*(((((b+a)+s1)+s2)+s3)+s4);
    b=m; m=a; c+=pl; }
}
/* the whole walk's loads first: all R+2 planes of the column into registers */
extern "C" __global__ void walkall(const real* __restrict__ u, real* __restrict__ un, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x, j = blockIdx.y*blockDim.y+threadIdx.y;
  int k0 = blockIdx.z*R+1;
  if (i<1||i>=n-1||j<1||j>=n-1 || k0+R>n-1) return;
  long long pl=(long long)n*n, c=k0*pl+(long long)j*n+i;
  real col[R+2];
#pragma unroll
  for (int w=0; w<R+2; w++) col[w]=__ldg(u+c+(w-1)*pl);
#pragma unroll
  for (int w=0; w<R; w++) {
    un[c]=SIXTH*(((((col[w]+col[w+2])+__ldg(u+c-n))+__ldg(u+c+n))+__ldg(u+c-1))+__ldg(u+c+1));
    c+=pl; }
}
/* 2.5-D: a block keeps the current plane's tile (with a halo) in shared memory */
extern "C" __global__ void smem(const real* __restrict__ u, real* __restrict__ un, int n) {
  __shared__ real t[BY+2][BX+2];
  int tx=threadIdx.x, ty=threadIdx.y;
  int i = blockIdx.x*BX+tx, j = blockIdx.y*BY+ty;
  int k0 = blockIdx.z*R+1;
  bool in = i>=1 && i<n-1 && j>=1 && j<n-1;
  bool ok = i<n && j<n;
  long long pl=(long long)n*n, c=k0*pl+(long long)j*n+i;
  real b=ok?__ldg(u+c-pl):0, m=ok?__ldg(u+c):0;
  for (int w=0; w<R; w++) { int k=k0+w; if (k>=n-1) break;
    real a = ok?__ldg(u+c+pl):0;
    __syncthreads();
    t[ty+1][tx+1]=m;
    if (tx==0) t[ty+1][0] = (i>0&&ok)?__ldg(u+c-1):0;
    if (tx==BX-1) t[ty+1][BX+1] = (i+1<n&&ok)?__ldg(u+c+1):0;
    if (ty==0) t[0][tx+1] = (j>0&&ok)?__ldg(u+c-n):0;
    if (ty==BY-1) t[BY+1][tx+1] = (j+1<n&&ok)?__ldg(u+c+n):0;
    __syncthreads();
    if (in) un[c]=SIXTH*(((((b+a)+t[ty][tx+1])+t[ty+2][tx+1])+t[ty+1][tx])+t[ty+1][tx+2]);
    b=m; m=a; c+=pl; }
}
"""

def main() -> None:
    u = cp.random.random((N, N, N), dtype=cp.float32)
    un = cp.zeros_like(u)
    want = cp.zeros_like(u)
    inner = (slice(1, -1),) * 3
    want[inner] = (1 / 6.0) * (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1]
                               + u[1:-1, 2:, 1:-1] + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:])
    src, dst = cp.ones(N**3, dtype=cp.float32), cp.empty(N**3, dtype=cp.float32)
    copy_ms = timed(lambda: dst.data.copy_from_device_async(src.data, src.nbytes))
    print(f"copy {copy_ms:.4f} ms (same bytes as one sweep)")
    for name in ("walk", "walkpf", "walkall", "smem"):
        for walk in (4, 8, 16):
            for bx, by in ((32, 4), (64, 4), (128, 2), (256, 1), (32, 8), (64, 8)):
                options = (f"-DR={walk}", f"-DBX={bx}", f"-DBY={by}")
                kernel = cp.RawModule(code=SRC, options=options).get_function(name)
                grid = ((N + bx - 1) // bx, (N + by - 1) // by, (N - 2 + walk - 1) // walk)
                un[...] = 0
                ms = timed(functools.partial(kernel, grid, (bx, by), (u, un, np.int32(N))))
                # walkall leaves the planes past its last whole walk: compare the others
                done = slice(1, 1 + (N - 2) // walk * walk) if name == "walkall" else slice(None)
                ok = bool(cp.allclose(un[done, 1:-1, 1:-1], want[done, 1:-1, 1:-1], atol=1e-5))
                print(f"{name:8s} R={walk:2d} {bx:3d}x{by}: {ms:.4f} ms  {copy_ms / ms:.3f} of copy  ok={ok}")


def timed(launch: Callable[[], object], reps: int = 30) -> float:
    """Best of ``reps`` launches, in ms (CUDA events)."""
    launch()
    cp.cuda.Device().synchronize()
    best = float("inf")
    for _ in range(reps):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, stop))
    return best


if __name__ == "__main__":
    main()
