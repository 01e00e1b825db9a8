"""Round 2 of the 7-point 512^3 designs (issue 31, Y2; round 1: stencil3d_designs.py): each
thread computes the V consecutive points of the innermost loop that one 16-byte load brings
(4 in fp32, 2 in fp64), its neighbours i - 1 and i + V by scalar loads, walking R planes
(``vecwalk``) or loading every plane of its walk first (``vecall``); ``point`` (one thread
per point) and ``walkall`` are the scalar references.  CS=1 stores with __stcs.  Results:
bench/results/stencil3d-vector-designs-*.

    python3 bench/stencil3d_vector_designs.py      # on a GPU machine with CuPy
"""
import functools

import cupy as cp
import numpy as np
from stencil3d_designs import timed  # bench/ is the script's folder

N = 512
SRC = r"""
#if FP64
typedef double real; typedef double2 VT; 
#else
typedef float real; typedef float4 VT;
#endif
#define V (16/(int)sizeof(real))
#define SIXTH ((real)(1.0/6.0))
struct __align__(16) vt { real v[V]; };
__device__ __forceinline__ vt ldv(const real* p){ vt r; *(VT*)r.v = __ldg((const VT*)p); return r; }
__device__ __forceinline__ void stv(real* p, const vt& r){
#if CS
  __stcs((VT*)p, *(const VT*)r.v);
#else
  *(VT*)p = *(const VT*)r.v;
#endif
}
extern "C" __global__ void vecall(const real* __restrict__ u, real* __restrict__ un, int n) {
  int i0 = (blockIdx.x*blockDim.x+threadIdx.x)*V, j = blockIdx.y*blockDim.y+threadIdx.y;
  int k0 = blockIdx.z*R+1;
  if (i0>=n||j<1||j>=n-1) return;
  long long pl=(long long)n*n, c=k0*pl+(long long)j*n+i0;
  vt col[R+2];
#pragma unroll
  for (int w=0; w<R+2; w++) if (k0+w-1<=n-1) col[w]=ldv(u+c+(w-1)*pl);
#pragma unroll
  for (int w=0; w<R; w++) { int k=k0+w; if (k>=n-1) break;
    vt s=ldv(u+c-n), t=ldv(u+c+n);
    real l = i0>0 ? __ldg(u+c-1) : (real)0, r = i0+V<n ? __ldg(u+c+V) : (real)0;
    vt o;
#pragma unroll
    for (int e=0;e<V;e++) {
      real le = e==0 ? l : col[w+1].v[e-1], re = e==V-1 ? r : col[w+1].v[e+1];
      o.v[e]=SIXTH*(((((col[w].v[e]+col[w+2].v[e])+s.v[e])+t.v[e])+le)+re);
    }
    if (i0>0 && i0+V<n) stv(un+c,o);
    else {
#pragma unroll
      for (int e=0;e<V;e++) if (i0+e>=1 && i0+e<n-1) un[c+e]=o.v[e];
    }
    c+=pl; }
}
extern "C" __global__ void vecwalk(const real* __restrict__ u, real* __restrict__ un, int n) {
  int i0 = (blockIdx.x*blockDim.x+threadIdx.x)*V, j = blockIdx.y*blockDim.y+threadIdx.y;
  int k0 = blockIdx.z*R+1;
  if (i0>=n||j<1||j>=n-1) return;
  long long pl=(long long)n*n, c=k0*pl+(long long)j*n+i0;
  vt b=ldv(u+c-pl), m=ldv(u+c);
#pragma unroll
  for (int w=0; w<R; w++) { int k=k0+w; if (k>=n-1) break;
    vt a=ldv(u+c+pl), s=ldv(u+c-n), t=ldv(u+c+n);
    real l = i0>0 ? __ldg(u+c-1) : (real)0, r = i0+V<n ? __ldg(u+c+V) : (real)0;
    vt o;
#pragma unroll
    for (int e=0;e<V;e++) {
      real le = e==0 ? l : m.v[e-1], re = e==V-1 ? r : m.v[e+1];
      o.v[e]=SIXTH*(((((b.v[e]+a.v[e])+s.v[e])+t.v[e])+le)+re);
    }
    if (i0>0 && i0+V<n) stv(un+c,o);
    else {
#pragma unroll
      for (int e=0;e<V;e++) if (i0+e>=1 && i0+e<n-1) un[c+e]=o.v[e];
    }
    b=m; m=a; c+=pl; }
}
extern "C" __global__ void walkall(const real* __restrict__ u, real* __restrict__ un, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x, j = blockIdx.y*blockDim.y+threadIdx.y;
  int k0 = blockIdx.z*R+1;
  if (i<1||i>=n-1||j<1||j>=n-1) return;
  long long pl=(long long)n*n, c=k0*pl+(long long)j*n+i;
  real col[R+2];
#pragma unroll
  for (int w=0; w<R+2; w++) if (k0+w-1<=n-1) col[w]=__ldg(u+c+(w-1)*pl);
#pragma unroll
  for (int w=0; w<R; w++) { int k=k0+w; if (k>=n-1) break;
    un[c]=SIXTH*(((((col[w]+col[w+2])+__ldg(u+c-n))+__ldg(u+c+n))+__ldg(u+c-1))+__ldg(u+c+1));
    c+=pl; }
}
/* plain one thread per point: no walk */
extern "C" __global__ void point(const real* __restrict__ u, real* __restrict__ un, int n) {
  int i = blockIdx.x*blockDim.x+threadIdx.x, j = blockIdx.y*blockDim.y+threadIdx.y, k=blockIdx.z+1;
  if (i<1||i>=n-1||j<1||j>=n-1||k>=n-1) return;
  long long pl=(long long)n*n, c=k*pl+(long long)j*n+i;
  un[c]=SIXTH*(((((__ldg(u+c-pl)+__ldg(u+c+pl))+__ldg(u+c-n))+__ldg(u+c+n))+__ldg(u+c-1))+__ldg(u+c+1));
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
        V = 2 if fp64 else 4
        for name in ("point", "walkall", "vecwalk", "vecall"):
            for cs in ((0, 1) if name.startswith("vec") else (0,)):
                for walk in ((1,) if name == "point" else (4, 8, 16)):
                    for bx, by in ((32, 4), (64, 4), (128, 2), (32, 8), (64, 2), (128, 1)):
                        opts = (f"-DR={walk}", f"-DFP64={fp64}", f"-DCS={cs}")
                        k = cp.RawModule(code=SRC, options=opts).get_function(name)
                        per = V if name.startswith("vec") else 1
                        grid = ((N // per + bx - 1) // bx, (N + by - 1) // by, (N - 2 + walk - 1) // walk)
                        un[...] = 0
                        ms = timed(functools.partial(k, grid, (bx, by), (u, un, np.int32(N))))
                        ok = bool(cp.allclose(un, want, atol=1e-5))
                        print(f"{name:8s} cs={cs} R={walk:2d} {bx:3d}x{by}: "
                              f"{ms:.4f} ms {copy_ms/ms:.3f} of copy ok={ok}", flush=True)


if __name__ == "__main__":
    main()
