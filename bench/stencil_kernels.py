"""The hand-written stencil kernels of bench/stencil_baselines.py, as CUDA C source.

A module of its own, without CuPy, so that the CPU tests can compile the same source as
C++ and run it thread by thread (tests/test_spelling.py).  ``-DR=<walk>`` sets the rows
(planes) each thread of a ``*_walk`` kernel walks; ``-DREAL=float`` makes every kernel fp32
(default fp64), for the fp32 cases of the spelling benchmark (bench/spelling_goals.py).
Kernels: ``lap_*`` the 2-D 5-point Jacobi, ``jac_*`` the 3-D 7-point Jacobi, ``s27_*`` the
3-D 27-point full-weighting stencil of bench/spelling/stencil27_spell.c (its sums grouped by
plane as there, so that the results agree to the last bit).
"""

STENCIL_SRC = r"""
/* the element type: -DREAL=float for the fp32 variants (default double) */
#ifndef REAL
#define REAL double
#endif
typedef REAL real;
#define SIXTH ((real)(1.0 / 6.0))
/* a = local slab: rows local rows plus a halo row above and below, ny (x nx) per row */
extern "C" __global__ void lap_plain(const real *__restrict__ u, real *__restrict__ unew,
                                      int rows, int ny, int row0, int nx)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (j < 1 || j >= ny - 1 || r > rows) return;
  int i = row0 + r - 1;
  if (i < 1 || i >= nx - 1) return;
  long long c = (long long)r * ny + j;
  unew[c] = (real)0.25 * (((__ldg(u + c - ny) + __ldg(u + c + ny)) + __ldg(u + c - 1)) + __ldg(u + c + 1));
}
/* each thread walks R rows; the rows above, at and below stay in registers */
extern "C" __global__ void lap_walk(const real *__restrict__ u, real *__restrict__ unew,
                                     int rows, int ny, int row0, int nx)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int r0 = (blockIdx.y * blockDim.y + threadIdx.y) * R + 1;
  if (j < 1 || j >= ny - 1 || r0 > rows) return;
  long long c = (long long)r0 * ny + j;
  real up = __ldg(u + c - ny), mid = __ldg(u + c);
#pragma unroll
  for (int w = 0; w < R; w++) {
    int r = r0 + w;
    if (r > rows) break;
    real down = __ldg(u + c + ny);
    int i = row0 + r - 1;
    if (i >= 1 && i < nx - 1)
      unew[c] = (real)0.25 * (((up + down) + __ldg(u + c - 1)) + __ldg(u + c + 1));
    up = mid; mid = down; c += ny;
  }
}
extern "C" __global__ void jac_plain(const real *__restrict__ u, real *__restrict__ un,
                                      int planes, int ny, int nx, int k0, int nz)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  int p = blockIdx.z + 1, k = k0 + p - 1;
  if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1 || k < 1 || k >= nz - 1) return;
  long long pl = (long long)ny * nx, c = p * pl + (long long)j * nx + i;
  un[c] = SIXTH * (((((__ldg(u + c - pl) + __ldg(u + c + pl)) + __ldg(u + c - nx)) + __ldg(u + c + nx))
                    + __ldg(u + c - 1)) + __ldg(u + c + 1));
}
extern "C" __global__ void jac_walk(const real *__restrict__ u, real *__restrict__ un,
                                     int planes, int ny, int nx, int k0, int nz)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  int p0 = blockIdx.z * R + 1;
  if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1 || p0 > planes) return;
  long long pl = (long long)ny * nx, c = p0 * pl + (long long)j * nx + i;
  real below = __ldg(u + c - pl), mid = __ldg(u + c);
#pragma unroll
  for (int w = 0; w < R; w++) {
    int p = p0 + w;
    if (p > planes) break;
    real above = __ldg(u + c + pl);
    int k = k0 + p - 1;
    if (k >= 1 && k < nz - 1)
      un[c] = SIXTH * (((((below + above) + __ldg(u + c - nx)) + __ldg(u + c + nx)) + __ldg(u + c - 1))
                       + __ldg(u + c + 1));
    below = mid; mid = above; c += pl;
  }
}
/* 27-point full weighting (bench/spelling/stencil27_spell.c): per plane, the cell (P), its
   4 in-plane face neighbours (S4AT) and its 4 in-plane diagonals (D4AT), summed in the
   program's order; the weights are powers of two, so FMA contraction rounds the same */
#define S4AT(q) (((__ldg(u + (q) - nx) + __ldg(u + (q) + nx)) + __ldg(u + (q) - 1)) + __ldg(u + (q) + 1))
#define D4AT(q) (((__ldg(u + (q) - nx - 1) + __ldg(u + (q) - nx + 1)) + __ldg(u + (q) + nx - 1)) \
                 + __ldg(u + (q) + nx + 1))
#define S27(pb, pm, pa, sb, sm, sa, db, dm, da) \
  ((((real)0.125 * (pm) + (real)0.0625 * (((pb) + (pa)) + (sm))) + (real)0.03125 * (((sb) + (sa)) + (dm))) \
   + (real)0.015625 * ((db) + (da)))
extern "C" __global__ void s27_plain(const real *__restrict__ u, real *__restrict__ un,
                                      int planes, int ny, int nx, int k0, int nz)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  int p = blockIdx.z + 1, k = k0 + p - 1;
  if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1 || k < 1 || k >= nz - 1) return;
  long long pl = (long long)ny * nx, c = p * pl + (long long)j * nx + i;
  un[c] = S27(__ldg(u + c - pl), __ldg(u + c), __ldg(u + c + pl), S4AT(c - pl), S4AT(c), S4AT(c + pl),
              D4AT(c - pl), D4AT(c), D4AT(c + pl));
}
/* each thread walks R planes along k, loading the 9 points of one new plane per step and
   keeping the plane sums (P, S4, D4) of the planes below and at the cell in registers */
extern "C" __global__ void s27_walk(const real *__restrict__ u, real *__restrict__ un,
                                     int planes, int ny, int nx, int k0, int nz)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  int p0 = blockIdx.z * R + 1;
  if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1 || p0 > planes) return;
  long long pl = (long long)ny * nx, c = p0 * pl + (long long)j * nx + i;
  real pb = __ldg(u + c - pl), sb = S4AT(c - pl), db = D4AT(c - pl);
  real pm = __ldg(u + c), sm = S4AT(c), dm = D4AT(c);
#pragma unroll
  for (int w = 0; w < R; w++) {
    int p = p0 + w;
    if (p > planes) break;
    long long ca = c + pl;
    real pa = __ldg(u + ca), sa = S4AT(ca), da = D4AT(ca);
    int k = k0 + p - 1;
    if (k >= 1 && k < nz - 1)
      un[c] = S27(pb, pm, pa, sb, sm, sa, db, dm, da);
    pb = pm; sb = sm; db = dm; pm = pa; sm = sa; dm = da; c = ca;
  }
}
"""
