"""Hand-written CuPy + NCCL Himeno: the computation of bench/himeno_xacc.c (same arrays,
initial state, arithmetic order, iteration counts) in one RawKernel per sweep, over 1..N
GPUs, one process per GPU.  The i and j dimensions are split over a qi x qj grid of ranks
(default N x 1: slabs of whole i planes, as the C program's procs[*][1]); halos are
exchanged with NCCL every iteration, gosa is summed on the device (double atomics) and
all-reduced with NCCL every iteration, with no host synchronisation until the end.

    mpirun -np 1 python3 bench/himeno_hand.py himeno --size L --iter 200
    mpirun -np 4 python3 bench/himeno_hand.py himeno --size L --iter 200 --grid 2x2
    mpirun -np 1 python3 bench/himeno_hand.py bandwidth     # device copy bandwidth (H2)
    mpirun -np 2 python3 bench/himeno_hand.py check --size S --iter 5   # kernels vs NumPy

``himeno`` prints one JSON object per kernel variant (bench/himeno_ref.py VARIANTS): the
benchmark's data flow (sweep into wrk2, copy wrk2 back to p), and for the fastest variant
also ``dataflow: swap`` (p and wrk2 exchanged instead of copied: fewer bytes, same
numbers; for information, not what the benchmark or the XcalableACC program does).
CuPy and mpi4py are imported inside the functions: bench/himeno_ref.py and this module's
text are used by the CPU tests.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
from himeno_ref import (
    FLOP_PER_POINT,
    KERNEL_SRC,
    OMEGA,
    REHEARSAL,
    VARIANTS,
    Block,
    Variant,
    decompose,
    extents,
    grid_of,
    halo_plan,
    init_state,
    kernel_defines,
    launch_shape,
    reference,
)


class Rank:
    """One rank's device state, kernel, halo buffers and communicators."""

    def __init__(self, blk: Block, v: Variant, comm: Any, ncomm: Any) -> None:
        import cupy as cp

        self.cp, self.blk, self.v, self.comm, self.ncomm = cp, blk, v, comm, ncomm
        self.st = init_state(blk, cp)
        mod = cp.RawModule(code=KERNEL_SRC, options=("--std=c++14", *kernel_defines(blk, v)))
        self.kernel = mod.get_function("jacobi")
        self.grid, self.block = launch_shape(blk, v)
        self.plan = halo_plan(blk)
        p = self.st["p"]   # staging buffers for the strided j-halo columns; i planes go as they are
        self.bufs = {id(x): cp.empty(p[x].shape, dtype=p.dtype) for phase in self.plan for _, s, r in phase
                     for x in (s, r) if not p[x].flags.c_contiguous}
        self.stream = cp.cuda.get_current_stream()
        if ncomm is not None:
            from cupy.cuda import nccl

            self.nccl = nccl

    def halo(self) -> None:
        """The two phases of halo_plan, each one NCCL group of sends and receives."""
        if self.ncomm is None:
            return
        nccl, p, sptr = self.nccl, self.st["p"], self.stream.ptr
        for phase in self.plan:
            if not phase:
                continue
            outs = [self.bufs.get(id(s), p[s]) for _, s, _ in phase]
            incs = [self.bufs.get(id(r), p[r]) for _, _, r in phase]
            for (_, s, _), out in zip(phase, outs, strict=True):
                if id(s) in self.bufs:
                    out[...] = p[s]
            nccl.groupStart()
            for (peer, _, _), out, inc in zip(phase, outs, incs, strict=True):
                self.ncomm.send(out.data.ptr, out.size, nccl.NCCL_FLOAT32, peer, sptr)
                self.ncomm.recv(inc.data.ptr, inc.size, nccl.NCCL_FLOAT32, peer, sptr)
            nccl.groupEnd()
            for (_, _, r), inc in zip(phase, incs, strict=True):
                if id(r) in self.bufs:
                    p[r] = inc

    def sweep(self, gosa: Any, swap: bool) -> None:
        """Halo, the kernel into wrk2 (adding into gosa[0]), gosa all-reduced, wrk2 -> p."""
        cp, st = self.cp, self.st
        self.halo()
        self.kernel(self.grid, self.block, (st["p"], st["a"], st["b"], st["c"], st["bnd"], st["wrk1"],
                                            st["wrk2"], gosa, np.float32(OMEGA)))
        if self.ncomm is not None:
            self.ncomm.allReduce(gosa.data.ptr, gosa.data.ptr, 1, self.nccl.NCCL_FLOAT64, self.nccl.NCCL_SUM,
                                 self.stream.ptr)
        if swap:
            st["p"], st["wrk2"] = st["wrk2"], st["p"]
        else:   # all of wrk2: its fixed planes equal p's (init_state), halos are refreshed
            cp.cuda.runtime.memcpyAsync(st["p"].data.ptr, st["wrk2"].data.ptr, st["p"].nbytes,
                                        cp.cuda.runtime.memcpyDeviceToDevice, self.stream.ptr)

    def run(self, iters: int, swap: bool) -> tuple[float, float]:
        """REHEARSAL untimed sweeps, then ``iters`` timed ones: (seconds, last gosa)."""
        cp = self.cp
        hist = cp.zeros(REHEARSAL + iters, dtype=cp.float64)   # one accumulator per sweep: no memset
        for n in range(REHEARSAL):
            self.sweep(hist[n:n + 1], swap)
        cp.cuda.Device().synchronize()
        self.comm.Barrier()
        t0 = time.perf_counter()
        for n in range(REHEARSAL, REHEARSAL + iters):
            self.sweep(hist[n:n + 1], swap)
        cp.cuda.Device().synchronize()
        self.comm.Barrier()
        return time.perf_counter() - t0, float(np.float32(hist[-1].get()))

    def psum(self) -> float:
        p = self.st["p"]
        return self.comm.allreduce(float(self.cp.sum(p[1:-1, 1:-1, 1:-1], dtype=self.cp.float64)))

    def interior(self) -> np.ndarray:
        return self.cp.asnumpy(self.st["p"][1:-1, 1:-1, 1:-1])


def nccl_comm(comm: Any) -> Any:
    if comm.size == 1:
        return None
    from cupy.cuda import nccl

    uid = comm.bcast(nccl.get_unique_id() if comm.rank == 0 else None)
    return nccl.NcclCommunicator(comm.size, uid, comm.rank)


def himeno(args: argparse.Namespace, comm: Any) -> list[dict[str, Any]]:
    grid = grid_of(args.grid, comm.size)
    blk = decompose(args.size, grid, comm.rank)
    ncomm = nccl_comm(comm)
    imax, jmax, kmax = extents(args.size)
    points = float((imax - 2) * (jmax - 2) * (kmax - 2))
    results = []

    def measure(v: Variant, swap: bool) -> dict[str, Any]:
        r = Rank(blk, v, comm, ncomm)
        secs, gosa = r.run(args.iter, swap)
        secs = comm.allreduce(secs, op=_mpi().MAX)
        return {"case": "himeno", "variant": v.name, "dataflow": "swap" if swap else "copy",
                "size": args.size,
                "nodes": comm.size, "grid": f"{grid[0]}x{grid[1]}", "iter": args.iter, "time_s": secs,
                "mflops": FLOP_PER_POINT * points * args.iter / secs * 1e-6, "gosa": gosa, "psum": r.psum()}

    for v in VARIANTS:
        results.append(measure(v, swap=False))
    best = min(results, key=lambda r: r["time_s"])
    results.append(measure(next(v for v in VARIANTS if v.name == best["variant"]), swap=True))
    return results


def bandwidth(args: argparse.Namespace, comm: Any) -> list[dict[str, Any]]:
    """Device copy bandwidth (bytes read + written per second): cudaMemcpyAsync device to
    device and an elementwise copy kernel, 1 GiB each; the larger is the bound of H2."""
    import cupy as cp

    n = (1 << 30) // 4
    src, dst = cp.ones(n, dtype=cp.float32), cp.empty(n, dtype=cp.float32)
    stream = cp.cuda.get_current_stream()
    copy = cp.ElementwiseKernel("float32 x", "float32 y", "y = x", "himeno_copy")

    def memcpy() -> None:
        cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, src.nbytes,
                                    cp.cuda.runtime.memcpyDeviceToDevice, stream.ptr)

    out = {"case": "bandwidth", "bytes": 2 * src.nbytes}
    for name, fn in (("memcpy_gbs", memcpy), ("kernel_gbs", lambda: copy(src, dst))):
        fn()
        stream.synchronize()
        samples = []
        for _ in range(20):
            t0 = time.perf_counter()
            fn()
            stream.synchronize()
            samples.append(time.perf_counter() - t0)
        out[name] = 2 * src.nbytes / float(np.median(samples)) / 1e9
    out["copy_gbs"] = max(out["memcpy_gbs"], out["kernel_gbs"])
    return [out]


def check(args: argparse.Namespace, comm: Any) -> list[dict[str, Any]]:
    """Every variant, both data flows, at a small size: p gathered on rank 0 and compared
    with the NumPy reference point by point (FMA contraction on the GPU: a few ulps)."""
    grid = grid_of(args.grid, comm.size)
    blk = decompose(args.size, grid, comm.rank)
    ncomm = nccl_comm(comm)
    ref = reference(args.size, REHEARSAL + args.iter) if comm.rank == 0 else None
    out = []
    for v in VARIANTS:
        for swap in (False, True):
            r = Rank(blk, v, comm, ncomm)
            _, gosa = r.run(args.iter, swap)
            parts = comm.gather((blk.ranges, r.interior()))
            if comm.rank != 0:
                continue
            full = np.empty_like(ref[2][1:-1, 1:-1, 1:-1])
            for (ilo, ihi, jlo, jhi), part in parts:
                full[ilo - 1:ihi - 1, jlo - 1:jhi - 1] = part
            err = float(np.max(np.abs(full - ref[2][1:-1, 1:-1, 1:-1])))
            ok = err <= 1e-5 and abs(gosa - ref[0]) <= 1e-4 * abs(ref[0])
            out.append({"case": "check", "variant": v.name, "dataflow": "swap" if swap else "copy",
                        "grid": f"{grid[0]}x{grid[1]}", "max_abs_err_p": err, "gosa": gosa,
                        "gosa_ref": ref[0], "ok": ok})
    return out


def _mpi() -> Any:
    from mpi4py import MPI

    return MPI


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("case", choices=["himeno", "bandwidth", "check"])
    ap.add_argument("--size", choices=["XS", "S", "M", "L"], default="M")
    ap.add_argument("--iter", type=int, default=100, help="timed iterations (after 3 untimed)")
    ap.add_argument("--grid", help="ranks along i x along j, e.g. 2x2 (default: N x 1)")
    args = ap.parse_args()
    import cupy as cp

    comm = _mpi().COMM_WORLD
    local = comm.Split_type(_mpi().COMM_TYPE_SHARED)
    cp.cuda.Device(local.rank % cp.cuda.runtime.getDeviceCount()).use()
    results = {"himeno": himeno, "bandwidth": bandwidth, "check": check}[args.case](args, comm)
    if comm.rank == 0:
        for r in results:
            print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
