"""Hand-written CUDA + MPI baselines for the xmpacc benchmarks (CuPy RawKernels, mpi4py, NCCL).

Same arithmetic, same initial state and same number of steps as bench/nbody_bench.c and
bench/laplace_bench.c, so the checksums are compared, not just the times.  Run under
mpirun, one GPU per rank:

    mpirun -np 1 python3 bench/baselines.py nbody --n 65536 --steps 10
    mpirun -np 2 python3 bench/baselines.py laplace --nx 8192 --ny 8192 --iter 100 --halo nccl
    mpirun -np 1 python3 bench/baselines.py launch --reps 20000
    mpirun -np 1 python3 bench/baselines.py copy
    mpirun -np 2 python3 bench/baselines.py laplace-reuse --nx 16384 --ny 16384 --halo nccl
    mpirun -np 1 python3 bench/baselines.py jacobi3d --nz 512 --ny 512 --nx 512 --iter 50
    mpirun -np 1 python3 bench/baselines.py jacobi3d --nz 512 --ny 512 --nx 512 --real float
    mpirun -np 1 python3 bench/baselines.py stencil27 --nz 512 --ny 512 --nx 512 --real float

laplace-reuse, jacobi3d and stencil27 (the 27-point stencil of
bench/spelling/stencil27_spell.c; all three in bench/stencil_baselines.py) sweep the
register-reuse kernel's walk length and block shape (``--real float``: the fp32 kernels);
copy measures the device-to-device copy bandwidth.

Rank 0 prints one JSON object per measured variant.
"""

from __future__ import annotations

import argparse
import json
import time

import cupy as cp
import numpy as np
from mpi4py import MPI
from stencil_baselines import block_range, copy_bandwidth, stencil, time_pairs

NBODY_SRC = r"""
#define G 1.0e-3
#define DT 0.01
#define EPSILON 1.0e-2
/* NB (the number of bodies) and LANES are compile-time constants (-D options): the best a
   hand-written kernel for one problem size can do. */
extern "C" __global__ void force_simple(const double *__restrict__ p_x, const double *__restrict__ p_y,
    const double *__restrict__ p_z, const double *__restrict__ m, double *__restrict__ v_x,
    double *__restrict__ v_y, double *__restrict__ v_z, int lo, int count, int n)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  int i = lo + t;
  double x_i = p_x[i], y_i = p_y[i], z_i = p_z[i], acc_x = 0, acc_y = 0, acc_z = 0;
  for (int j = 0; j < NB; j++)
    if (i != j) {
      double x_j = p_x[j], y_j = p_y[j], z_j = p_z[j];
      double dx = x_j - x_i, dy = y_j - y_i, dz = z_j - z_i;
      double r2 = (((dx * dx) + (dy * dy)) + (dz * dz)) + EPSILON;
      double r = sqrt(r2), a = (G * m[j]) / r2;
      acc_x += (a * (x_j - x_i)) / r; acc_y += (a * (y_j - y_i)) / r; acc_z += (a * (z_j - z_i)) / r;
    }
  v_x[i] += acc_x * DT; v_y[i] += acc_y * DT; v_z[i] += acc_z * DT;
}
/* T lanes per body, each taking every T-th j, combined with warp shuffles */
extern "C" __global__ void force_split(const double *__restrict__ p_x, const double *__restrict__ p_y,
    const double *__restrict__ p_z, const double *__restrict__ m, double *__restrict__ v_x,
    double *__restrict__ v_y, double *__restrict__ v_z, int lo, int count, int n, int lanes_unused)
{
  const int lanes = LANES;
  long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long t = g / lanes;
  int lane = (int)(g % lanes);
  int valid = t < count;
  if (!valid) t = count - 1;
  int i = lo + (int)t;
  double x_i = p_x[i], y_i = p_y[i], z_i = p_z[i], acc_x = 0, acc_y = 0, acc_z = 0;
  for (int j = lane; j < NB; j += lanes)
    if (i != j) {
      double x_j = p_x[j], y_j = p_y[j], z_j = p_z[j];
      double dx = x_j - x_i, dy = y_j - y_i, dz = z_j - z_i;
      double r2 = (((dx * dx) + (dy * dy)) + (dz * dz)) + EPSILON;
      double r = sqrt(r2), a = (G * m[j]) / r2;
      acc_x += (a * (x_j - x_i)) / r; acc_y += (a * (y_j - y_i)) / r; acc_z += (a * (z_j - z_i)) / r;
    }
  for (int o = lanes / 2; o > 0; o /= 2) {
    acc_x += __shfl_xor_sync(0xffffffffu, acc_x, o);
    acc_y += __shfl_xor_sync(0xffffffffu, acc_y, o);
    acc_z += __shfl_xor_sync(0xffffffffu, acc_z, o);
  }
  if (lane == 0 && valid) { v_x[i] += acc_x * DT; v_y[i] += acc_y * DT; v_z[i] += acc_z * DT; }
}
extern "C" __global__ void update(double *p_x, double *p_y, double *p_z, const double *v_x,
    const double *v_y, const double *v_z, int lo, int count)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  int i = lo + t;
  p_x[i] += v_x[i] * DT; p_y[i] += v_y[i] * DT; p_z[i] += v_z[i] * DT;
}
"""

LAPLACE_SRC = r"""
extern "C" __global__ void sweep(const double *u, double *unew, int rows, int ny, int row0, int nx)
{
  /* rows local rows (plus one halo row above and below), global row of local row 1 = row0 */
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (j < 1 || j >= ny - 1 || r > rows) return;
  int i = row0 + r - 1;
  if (i < 1 || i >= nx - 1) return;
  long long c = (long long)r * ny + j;
  unew[c] = 0.25 * (((u[c - ny] + u[c + ny]) + u[c - 1]) + u[c + 1]);
}
"""


def time_loop(fn, reps: int) -> float:  # type: ignore[no-untyped-def]
    """Median seconds per call (device-synchronised), after one warm-up call."""
    fn()
    cp.cuda.Device().synchronize()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        cp.cuda.Device().synchronize()
        samples.append(time.perf_counter() - t0)
    return float(np.median(samples))


def nbody(args: argparse.Namespace, comm: MPI.Comm) -> list[dict[str, object]]:
    n, steps = args.n, args.steps
    i = np.arange(n, dtype=np.float64)
    th, r = 0.1 * i, 1.0 + 0.002 * (np.arange(n) % 1000)
    init = [2.0 + r * np.cos(th), 1.0 + r * np.sin(th), 0.5 + 0.3 * np.sin(0.7 * i),
            -0.5 * np.sin(th), 0.5 * np.cos(th), 0.1 * np.cos(1.3 * i), 1.0 + 0.5 * np.sin(0.37 * i)]
    lo, hi = block_range(n, comm.size, comm.rank)
    count = hi - lo
    results = []
    variants = [("one thread per body", 1, 256)] + [(f"split, {t} lanes, {b} threads/block", t, b)
                                                    for t in (8, 16, 32) for b in (128, 256)]
    for name, lanes, block in variants:
        mod = cp.RawModule(code=NBODY_SRC, options=(f"-DNB={n}", f"-DLANES={max(lanes, 1)}"))
        px, py, pz, vx, vy, vz, m = (cp.asarray(a) for a in init)

        def step(lanes=lanes, mod=mod, block=block, px=px, py=py, pz=pz, m=m, vx=vx, vy=vy, vz=vz) -> None:
            if lanes == 1:
                mod.get_function("force_simple")(((count + block - 1) // block,), (block,),
                                                 (px, py, pz, m, vx, vy, vz, np.int32(lo), np.int32(count),
                                                  np.int32(n)))
            else:
                mod.get_function("force_split")(((count * lanes + block - 1) // block,), (block,),
                                                (px, py, pz, m, vx, vy, vz, np.int32(lo), np.int32(count),
                                                 np.int32(n), np.int32(lanes)))
            mod.get_function("update")(((count + 255) // 256,), (256,),
                                       (px, py, pz, vx, vy, vz, np.int32(lo), np.int32(count)))
            if comm.size > 1:  # all positions to every rank, through the host
                for a in (px, py, pz):
                    host = cp.asnumpy(a[lo:hi])
                    full = np.empty(n)
                    counts = [block_range(n, comm.size, k)[1] - block_range(n, comm.size, k)[0]
                              for k in range(comm.size)]
                    comm.Allgatherv(host, [full, counts])
                    a.set(full)

        step()  # the program's untimed first step
        cp.cuda.Device().synchronize()
        comm.Barrier()
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        cp.cuda.Device().synchronize()
        comm.Barrier()
        ms = 1e3 * (time.perf_counter() - t0) / steps
        v = [cp.asnumpy(a)[lo:hi] for a in (vx, vy, vz)]
        mm = init[6][lo:hi]
        ke = comm.allreduce(float(np.sum(0.5 * mm * (v[0] ** 2 + v[1] ** 2 + v[2] ** 2))))
        sx = comm.allreduce(float(np.sum(cp.asnumpy(px)[lo:hi])))
        results.append({"case": "nbody", "variant": name, "lanes": lanes, "n": n, "nodes": comm.size,
                        "step_ms": ms, "kinetic": ke, "sum_x": sx,
                        "ginteractions_per_s": n * (n - 1) / (ms * 1e-3) / 1e9})
    return results


def laplace(args: argparse.Namespace, comm: MPI.Comm) -> list[dict[str, object]]:
    nx, ny, iters = args.nx, args.ny, args.iter
    lo, hi = block_range(nx, comm.size, comm.rank)
    rows = hi - lo
    gi = np.arange(lo - 1, hi + 1)[:, None]
    gj = np.arange(ny)[None, :]
    edge = (gi == 0) | (gj == 0) | (gi == nx - 1) | (gj == ny - 1)
    host = np.where(edge, 1.0 + 0.001 * ((gi + 3 * gj) % 17), 0.0)
    host[(gi[:, 0] < 0) | (gi[:, 0] >= nx)] = 0.0
    u, unew = cp.asarray(host), cp.asarray(host)
    kern = cp.RawModule(code=LAPLACE_SRC).get_function("sweep")
    up, down = comm.rank - 1 if comm.rank > 0 else None, comm.rank + 1 if comm.rank + 1 < comm.size else None
    if args.halo == "nccl" and comm.size > 1:
        from cupy.cuda import nccl

        uid = comm.bcast(nccl.get_unique_id() if comm.rank == 0 else None)
        ncomm = nccl.NcclCommunicator(comm.size, uid, comm.rank)
    stream = cp.cuda.get_current_stream()

    def halo(a: cp.ndarray) -> None:
        if comm.size == 1:
            return
        if args.halo == "nccl":
            nccl.groupStart()
            if up is not None:
                ncomm.send(a[1].data.ptr, ny, nccl.NCCL_FLOAT64, up, stream.ptr)
                ncomm.recv(a[0].data.ptr, ny, nccl.NCCL_FLOAT64, up, stream.ptr)
            if down is not None:
                ncomm.send(a[rows].data.ptr, ny, nccl.NCCL_FLOAT64, down, stream.ptr)
                ncomm.recv(a[rows + 1].data.ptr, ny, nccl.NCCL_FLOAT64, down, stream.ptr)
            nccl.groupEnd()
        else:  # host-staged: only the halo rows travel through the host
            reqs, bufs = [], []
            for peer, send_row, recv_row in ((up, 1, 0), (down, rows, rows + 1)):
                if peer is None:
                    continue
                out, inc = cp.asnumpy(a[send_row]), np.empty(ny)
                bufs.append((recv_row, inc))
                reqs += [comm.Isend(out, dest=peer), comm.Irecv(inc, source=peer)]
            MPI.Request.Waitall(reqs)
            for row, inc in bufs:
                a[row].set(inc)

    grid = ((ny + 31) // 32, (rows + 7) // 8)

    def sweep_pair() -> None:
        halo(u)
        kern(grid, (32, 8), (u, unew, np.int32(rows), np.int32(ny), np.int32(lo), np.int32(nx)))
        halo(unew)
        kern(grid, (32, 8), (unew, u, np.int32(rows), np.int32(ny), np.int32(lo), np.int32(nx)))

    ms = time_pairs(sweep_pair, iters, comm)
    total = comm.allreduce(float(cp.asnumpy(u[1:rows + 1]).sum()))
    name = "fused kernel" + ("" if comm.size == 1 else f", {args.halo} halo")
    return [{"case": "laplace", "variant": name, "nx": nx, "ny": ny, "nodes": comm.size,
             "iter_ms": ms, "checksum": total}]


def launch(args: argparse.Namespace, comm: MPI.Comm) -> list[dict[str, object]]:
    """An almost empty kernel, launched through the driver and synchronised, like xmpacc."""
    mod = cp.RawModule(code='extern "C" __global__ void k(double *a, long long n) '
                            '{ long long t = blockIdx.x * blockDim.x + threadIdx.x; '
                            'if (t < n) a[t] += 1.0; }')
    f = mod.get_function("k")
    a = cp.zeros(1)
    ptr = f.kernel.ptr if hasattr(f, "kernel") else f.ptr
    import ctypes

    holders = [ctypes.c_void_p(a.data.ptr), ctypes.c_longlong(1)]
    params = (ctypes.c_void_p * 2)(*[ctypes.addressof(h) for h in holders])
    stream = cp.cuda.get_current_stream()

    def once() -> None:
        cp.cuda.driver.launchKernel(ptr, 1, 1, 1, 256, 1, 1, 0, stream.ptr, ctypes.addressof(params), 0)

    once()
    stream.synchronize()
    t0 = time.perf_counter()
    for _ in range(args.reps):   # stream-ordered launches, like xmpacc's: host cost per launch
        once()
    per_launch = (time.perf_counter() - t0) / args.reps
    stream.synchronize()
    return [{"case": "launch", "variant": "driver launch (stream-ordered)", "launch_us": per_launch * 1e6}]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["nbody", "laplace", "launch", "copy", "laplace-reuse", "jacobi3d",
                                     "stencil27"])
    ap.add_argument("--n", type=int, default=65536)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--nx", type=int, default=8192)
    ap.add_argument("--ny", type=int, default=8192)
    ap.add_argument("--nz", type=int, default=512)
    ap.add_argument("--iter", type=int, default=100)
    ap.add_argument("--halo", choices=["nccl", "host"], default="nccl")
    ap.add_argument("--real", choices=["double", "float"], default="double",
                    help="laplace-reuse, jacobi3d, stencil27: element type of the kernels")
    ap.add_argument("--reps", type=int, default=20000)
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    cp.cuda.Device(local.rank % cp.cuda.runtime.getDeviceCount()).use()
    results = {"nbody": nbody, "laplace": laplace, "launch": launch,
               "copy": lambda a, c: [copy_bandwidth()],
               "laplace-reuse": lambda a, c: stencil("laplace", a, c),
               "jacobi3d": lambda a, c: stencil("jacobi3d", a, c),
               "stencil27": lambda a, c: stencil("stencil27", a, c)}[args.case](args, comm)
    if comm.rank == 0:
        for r in results:
            print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
