"""Hand-written stencil baselines of issue 12: the bar that xmpacc's kernels are held to.

* ``copy``: device-to-device copy bandwidth (read + write bytes per second), the limit a
  memory-bound sweep can reach; measured in the same job as everything else.
* ``laplace`` / ``jacobi3d`` / ``stencil27`` (the 27-point full weighting of
  bench/spelling/stencil27_spell.c): slabs of rows (planes) block-distributed over the
  ranks, one halo row (plane) each side.  Kernels: the plain one-thread-per-cell kernel
  and the register-reuse kernel where each thread walks R consecutive rows (planes) and
  keeps the three it re-reads in registers (27-point: three sums of each of the three
  planes, 9 loads per cell instead of 27).  R and the block shape are swept; every variant
  is reported, the goals take the best.  Halos: NCCL device to device, or host-staged
  through page-locked buffers allocated once, device-to-host copies on one stream per
  direction, overlapped with the MPI exchange (the best host-staged exchange we can write).

Same arithmetic and initial state as bench/laplace_bench.c and bench/jacobi3d_bench.c (and
the programs of bench/spelling/), so the checksums are compared.  ``--real float`` runs the
fp32 kernels (the fp32 cases of bench/spelling_goals.py).  The kernels' source is
bench/stencil_kernels.py.  Used through bench/baselines.py.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import cupy as cp
import numpy as np
from mpi4py import MPI
from stencil_kernels import STENCIL_SRC

DTYPES = {"double": np.float64, "float": np.float32}
PREFIX = {"laplace": "lap_", "jacobi3d": "jac_", "stencil27": "s27_"}   # kernel names per case


def block_range(n: int, nprocs: int, k: int) -> tuple[int, int]:
    b = -(-n // nprocs)
    lo = min(k * b, n)
    return lo, min(lo + b, n)


def copy_bandwidth(nbytes: int = 1 << 30, reps: int = 20) -> dict[str, Any]:
    """Best device-to-device copy bandwidth (bytes read + written per second)."""
    src = cp.ones(nbytes // 8)
    dst = cp.empty_like(src)
    best = float("inf")
    for how in ("memcpy", "kernel"):
        for _ in range(reps):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            if how == "memcpy":
                dst.data.copy_from_device_async(src.data, src.nbytes)
            else:
                cp.copyto(dst, src)
            stop.record()
            stop.synchronize()
            best = min(best, cp.cuda.get_elapsed_time(start, stop) * 1e-3)
    return {"case": "copy", "variant": "device-to-device copy", "bytes": src.nbytes,
            "copy_gbs": 2 * src.nbytes / best / 1e9}


class Halo:
    """One-row (one-plane) halo exchange of a slab ``a`` of shape (rows + 2, ...)."""

    def __init__(self, kind: str, comm: MPI.Comm, rows: int, row_elems: int, dtype: Any = np.float64) -> None:
        self.kind, self.comm, self.rows = kind, comm, rows
        r = comm.rank
        self.peers = [(p, s, d) for p, s, d in ((r - 1, 1, 0), (r + 1, rows, rows + 1)) if 0 <= p < comm.size]
        self.stream = cp.cuda.get_current_stream()
        if kind == "nccl" and comm.size > 1:
            from cupy.cuda import nccl

            self.nccl = nccl
            self.nccl_type = nccl.NCCL_FLOAT32 if dtype == np.float32 else nccl.NCCL_FLOAT64
            uid = comm.bcast(nccl.get_unique_id() if comm.rank == 0 else None)
            self.ncomm = nccl.NcclCommunicator(comm.size, uid, comm.rank)
        if kind == "host":   # allocated once, page-locked: copies run at full speed, async
            import cupyx

            self.out = [cupyx.empty_pinned(row_elems, dtype) for _ in self.peers]
            self.inc = [cupyx.empty_pinned(row_elems, dtype) for _ in self.peers]
            self.side = [cp.cuda.Stream(non_blocking=True) for _ in self.peers]
            self.copied: Any = None   # the last copies out of self.inc

    def __call__(self, a: cp.ndarray) -> None:
        if self.comm.size == 1:
            return
        if self.kind == "nccl":
            nccl = self.nccl
            nccl.groupStart()
            for peer, send, recv in self.peers:
                self.ncomm.send(a[send].data.ptr, a[send].size, self.nccl_type, peer, self.stream.ptr)
                self.ncomm.recv(a[recv].data.ptr, a[recv].size, self.nccl_type, peer, self.stream.ptr)
            nccl.groupEnd()
            return
        ready = self.stream.record()
        if self.copied is not None:   # self.inc is free again (long done by now: it precedes a sweep)
            self.copied.synchronize()
        reqs = [self.comm.Irecv(self.inc[k], source=p) for k, (p, _s, _d) in enumerate(self.peers)]
        for k, (_p, send, _d) in enumerate(self.peers):   # both directions' copies in flight at once
            self.side[k].wait_event(ready)
            a[send].ravel().get(stream=self.side[k], out=self.out[k])
        for k, (p, _s, _d) in enumerate(self.peers):
            self.side[k].synchronize()
            reqs.append(self.comm.Isend(self.out[k], dest=p))
        MPI.Request.Waitall(reqs)
        for k, (_p, _s, recv) in enumerate(self.peers):
            a[recv].ravel().set(self.inc[k], stream=self.stream)
        self.copied = self.stream.record()


def time_pairs(pair: Callable[[], None], iters: int, comm: MPI.Comm) -> float:
    """Milliseconds per sweep: ``pair`` (two sweeps) once untimed, then ``iters // 2`` times
    between device synchronisations and barriers."""
    pair()
    cp.cuda.Device().synchronize()
    comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(iters // 2):
        pair()
    cp.cuda.Device().synchronize()
    comm.Barrier()
    return 1e3 * (time.perf_counter() - t0) / iters


def _module(walk: int, real: str) -> Any:
    return cp.RawModule(code=STENCIL_SRC, options=(f"-DR={walk}", f"-DREAL={real}", "--std=c++17"))


def _variants(kernel: str) -> list[tuple[int, tuple[int, int]]]:
    """(walk, block) pairs; walk 0 is the plain kernel."""
    blocks = [(32, 8), (64, 4), (128, 2), (256, 1), (128, 1)] if kernel == "lap" else \
        [(32, 8), (32, 4), (64, 4), (128, 2), (128, 1)]
    walks = (2, 4, 8) if kernel == "lap" else (2, 4, 8, 16)
    return [(0, (32, 8))] + [(w, b) for w in walks for b in blocks]


def _slab(shape_rest: tuple[int, ...], lo: int, hi: int, n0: int, real: str) -> cp.ndarray:
    """Initial slab with its halo rows: 1 + 0.001 * ((g0 + 2 g1 [+ 3 g2]) % 17) on the faces
    (Laplace: (i + 3 j) % 17), 0 inside and outside the array; computed in fp64 and rounded
    to ``real`` (``float``, ``double``), as the C programs do."""
    g = [cp.arange(lo - 1, hi + 1)] + [cp.arange(n) for n in shape_rest]
    grids = cp.meshgrid(*g, indexing="ij")
    face = cp.zeros(grids[0].shape, dtype=bool)
    for gd, n in zip(grids, (n0, *shape_rest), strict=True):
        face |= (gd == 0) | (gd == n - 1)
    weight = (grids[0] + 3 * grids[1]) if len(grids) == 2 else (grids[0] + 2 * grids[1] + 3 * grids[2])
    a = cp.where(face, 1.0 + 0.001 * (weight % 17), 0.0)
    a[(g[0] < 0) | (g[0] >= n0)] = 0.0
    return a.astype(DTYPES[real])


def stencil(case: str, args: argparse.Namespace, comm: MPI.Comm) -> list[dict[str, Any]]:
    """Every (kernel, block) variant of one stencil with one halo kind."""
    lap = case == "laplace"
    n0, rest = (args.nx, (args.ny,)) if lap else (args.nz, (args.ny, args.nx))
    lo, hi = block_range(n0, comm.size, comm.rank)
    rows = hi - lo
    u0 = _slab(rest, lo, hi, n0, args.real)
    halo = Halo(args.halo, comm, rows, int(np.prod(rest)), DTYPES[args.real])
    results = []
    modules: dict[int, Any] = {}
    for walk, block in _variants("lap" if lap else "jac"):
        mod = modules.setdefault(walk, _module(max(walk, 1), args.real))
        name = PREFIX[case] + ("walk" if walk else "plain")
        fn = mod.get_function(name)
        u, unew = u0.copy(), u0.copy()
        per = walk or 1
        if lap:
            grid = ((args.ny + block[0] - 1) // block[0], (-(-rows // per) + block[1] - 1) // block[1])
            extra = (np.int32(rows), np.int32(args.ny), np.int32(lo), np.int32(args.nx))
        else:
            grid = ((args.nx + block[0] - 1) // block[0], (args.ny + block[1] - 1) // block[1],
                    -(-rows // per))
            extra = (np.int32(rows), np.int32(args.ny), np.int32(args.nx), np.int32(lo), np.int32(args.nz))

        def pair(u=u, unew=unew, fn=fn, grid=grid, block=block, extra=extra) -> None:
            halo(u)
            fn(grid, block, (u, unew, *extra))
            halo(unew)
            fn(grid, block, (unew, u, *extra))

        ms = time_pairs(pair, args.iter, comm)
        total = comm.allreduce(float(u[1:rows + 1].sum(dtype=cp.float64)))
        kernel = f"register reuse, {walk} rows per thread" if walk else "plain"
        results.append({"case": case, "variant": f"{kernel}, block {block[0]}x{block[1]}"
                        + ("" if comm.size == 1 else f", {args.halo} halo"),
                        "kernel": "walk" if walk else "plain", "halo": args.halo if comm.size > 1 else None,
                        "nodes": comm.size, "iter_ms": ms, "checksum": total, "real": args.real,
                        **_sizes(args, lap)})
    return results


def _sizes(args: argparse.Namespace, lap: bool) -> dict[str, int]:
    return {"nx": args.nx, "ny": args.ny} if lap else {"nz": args.nz, "ny": args.ny, "nx": args.nx}
