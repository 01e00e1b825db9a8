"""Round 3 of the 7-point 512^3 designs (issue 31, Y2): each thread computes J rows of the
second loop as it walks the first, so a step issues J independent loads of the next plane
(the bytes in flight that the 16-byte vector loads of stencil3d_vector_designs.py gave,
without their alignment condition).

* ``jwalk``: the J rows' north/south neighbours come from the other rows' registers;
* ``jdup``: the body written J times, every neighbour row a load (what a generator that
  copies the body per row writes; nvcc does not merge loads across the copies).

    python3 bench/stencil3d_row_designs.py      # on a GPU machine with CuPy
"""
import functools
import sys

import cupy as cp
import numpy as np
from stencil3d_designs import timed  # bench/ is the script's folder

N = 512
SRC = r"""
#if FP64
typedef double real;
#else
typedef float real;
#endif
#define SIXTH ((real)(1.0/6.0))
#if MB
#define LB __launch_bounds__(256, MB)
#else
#define LB
#endif
extern "C" __global__ void LB jwalk(const real* __restrict__ u, real* __restrict__ un, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x, j0 = (blockIdx.y*blockDim.y+threadIdx.y)*J+1;
  int k0 = blockIdx.z*R+1;
  if (i<1||i>=n-1||j0>=n-1) return;
  long long pl=(long long)n*n, c=k0*pl+(long long)j0*n+i;
  real b[J], m[J];
#pragma unroll
  for (int v=0; v<J; v++) if (j0+v<n-1) { b[v]=__ldg(u+c-pl+v*n); m[v]=__ldg(u+c+v*n); }
#pragma unroll
  for (int w=0; w<R; w++) { int k=k0+w; if (k>=n-1) break;
    real a[J];
#pragma unroll
    for (int v=0; v<J; v++) if (j0+v<n-1) a[v]=__ldg(u+c+pl+v*n);
    real s=__ldg(u+c-n), t = j0+J<n ? __ldg(u+c+J*n) : (real)0;
#pragma unroll
    for (int v=0; v<J; v++) if (j0+v<n-1) {
      real no = v==0 ? s : m[v-1], so = v==J-1 ? t : m[v+1];
      un[c+v*n]=SIXTH*(((((b[v]+a[v])+no)+so)+__ldg(u+c+v*n-1))+__ldg(u+c+v*n+1));
    }
#pragma unroll
    for (int v=0; v<J; v++) { b[v]=m[v]; m[v]=a[v]; }
    c+=pl; }
}
extern "C" __global__ void LB jdup(const real* __restrict__ u, real* __restrict__ un, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x, j0 = (blockIdx.y*blockDim.y+threadIdx.y)*J+1;
  int k0 = blockIdx.z*R+1;
  if (i<1||i>=n-1||j0>=n-1) return;
  long long pl=(long long)n*n, c=k0*pl+(long long)j0*n+i;
  real b[J], m[J];
#pragma unroll
  for (int v=0; v<J; v++) if (j0+v<n-1) { b[v]=__ldg(u+c-pl+v*n); m[v]=__ldg(u+c+v*n); }
#pragma unroll
  for (int w=0; w<R; w++) { int k=k0+w; if (k>=n-1) break;
    real a[J];
#pragma unroll
    for (int v=0; v<J; v++) if (j0+v<n-1) a[v]=__ldg(u+c+pl+v*n);
#pragma unroll
    for (int v=0; v<J; v++) if (j0+v<n-1) {
      un[c+v*n]=SIXTH*(((((b[v]+a[v])+__ldg(u+c+v*n-n))+__ldg(u+c+v*n+n))+__ldg(u+c+v*n-1))+__ldg(u+c+v*n+1));
    }
#pragma unroll
    for (int v=0; v<J; v++) { b[v]=m[v]; m[v]=a[v]; }
    c+=pl; }
}
/* two walks per thread, R planes apart, stepped together: two independent plane loads per step */
extern "C" __global__ void LB kpair(const real* __restrict__ u, real* __restrict__ un, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x, j = blockIdx.y*blockDim.y+threadIdx.y;
  int k0 = blockIdx.z*2*R+1;
  if (i<1||i>=n-1||j<1||j>=n-1) return;
  long long pl=(long long)n*n, c=k0*pl+(long long)j*n+i, e=c+R*pl;
  bool two = k0+R < n-1;
  real b=__ldg(u+c-pl), m=__ldg(u+c), bb=0, mm=0;
  if (two) { bb=__ldg(u+e-pl); mm=__ldg(u+e); }
  if (k0+2*R <= n-1) {
#pragma unroll
    for (int w=0; w<R; w++) {
      real a=__ldg(u+c+pl), aa=__ldg(u+e+pl);
      un[c]=SIXTH*(((((b+a)+__ldg(u+c-n))+__ldg(u+c+n))+__ldg(u+c-1))+__ldg(u+c+1));
      un[e]=SIXTH*(((((bb+aa)+__ldg(u+e-n))+__ldg(u+e+n))+__ldg(u+e-1))+__ldg(u+e+1));
      b=m; m=a; bb=mm; mm=aa; c+=pl; e+=pl; }
  } else {
#pragma unroll
    for (int w=0; w<R; w++) {
      int k=k0+w; if (k>=n-1) break;
      real a=__ldg(u+c+pl);
      un[c]=SIXTH*(((((b+a)+__ldg(u+c-n))+__ldg(u+c+n))+__ldg(u+c-1))+__ldg(u+c+1));
      if (k+R < n-1) { real aa=__ldg(u+e+pl);
        un[e]=SIXTH*(((((bb+aa)+__ldg(u+e-n))+__ldg(u+e+n))+__ldg(u+e-1))+__ldg(u+e+1)); bb=mm; mm=aa; }
      b=m; m=a; c+=pl; e+=pl; }
  }
}
"""
def main():
    for fp64 in (0, 1):
        dt = cp.float64 if fp64 else cp.float32
        u = cp.random.random((N, N, N)).astype(dt); un = cp.zeros_like(u); want = cp.zeros_like(u)
        inner = (slice(1, -1),) * 3
        want[inner] = (1 / 6.0) * (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1]
                                   + u[1:-1, 2:, 1:-1] + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:])
        src, dst = cp.ones(N**3, dtype=dt), cp.empty(N**3, dtype=dt)
        copy_ms = timed(functools.partial(dst.data.copy_from_device_async, src.data, src.nbytes))
        print(f"fp{64 if fp64 else 32} copy {copy_ms:.4f} ms", flush=True)
        for mb in (0, 4, 8):
            for walk in (4, 8, 16):
                for bx, by in ((32, 4), (64, 4), (128, 2), (256, 1), (32, 8)):
                    opts = (f"-DR={walk}", f"-DFP64={fp64}", "-DJ=1", f"-DMB={mb}")
                    k = cp.RawModule(code=SRC, options=opts).get_function("kpair")
                    grid = ((N + bx - 1) // bx, (N + by - 1) // by, (N - 2 + 2 * walk - 1) // (2 * walk))
                    un[...] = 0
                    ms = timed(functools.partial(k, grid, (bx, by), (u, un, np.int32(N))))
                    ok = bool(cp.allclose(un, want, atol=1e-5))
                    print(f"kpair  mb={mb} R={walk:2d} {bx:3d}x{by}: "
                          f"{ms:.4f} ms {copy_ms/ms:.3f} of copy ok={ok} regs={getattr(k, 'num_regs', '?')}",
                          flush=True)
        for name in (() if "kpair" in sys.argv else ("jwalk", "jdup")):
            for rows in (2, 4):
                for mb in (0, 4, 8):
                    for walk in (4, 8):
                        for bx, by in ((32, 4), (64, 4), (128, 2), (256, 1), (32, 8)):
                            opts = (f"-DR={walk}", f"-DFP64={fp64}", f"-DJ={rows}", f"-DMB={mb}")
                            k = cp.RawModule(code=SRC, options=opts).get_function(name)
                            grid = ((N + bx - 1) // bx,
                                    ((N - 2 + rows - 1) // rows + by - 1) // by, (N - 2 + walk - 1) // walk)
                            un[...] = 0
                            ms = timed(functools.partial(k, grid, (bx, by), (u, un, np.int32(N))))
                            ok = bool(cp.allclose(un, want, atol=1e-5))
                            print(f"{name:6s} J={rows} mb={mb} R={walk:2d} {bx:3d}x{by}: "
                                  f"{ms:.4f} ms {copy_ms/ms:.3f} of copy ok={ok} "
                                  f"regs={getattr(k, 'num_regs', '?')}", flush=True)


if __name__ == "__main__":
    main()
