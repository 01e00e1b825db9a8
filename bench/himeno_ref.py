"""The parts of the hand-written Himeno (bench/himeno_hand.py) that need no GPU: sizes, the
CUDA kernel source, the block decomposition and its halo plan, the initial state, and a
NumPy reference of the arithmetic.  The tests use them on the CPU (tests/test_himeno.py).

Layout of one rank's arrays: ``(ni + 2, nj + 2, KMAX)`` float32, C order, where the rank
updates the interior rows ``ilo..ihi-1`` (global i) and columns ``jlo..jhi-1`` and holds one
more row / column on each side (a neighbour's halo, or Himeno's fixed boundary plane).
Only the computed region of bench/himeno_xacc.c is stored: ``IMAX = MIMAX - 1`` planes
(Himeno never touches the last one), so KMAX = 256 floats per row at size L: aligned rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# name -> (MIMAX, MJMAX, MKMAX), the array extents of bench/himeno_xacc.c
SIZES = {"XS": (33, 33, 65), "S": (65, 65, 129), "M": (129, 129, 257), "L": (257, 257, 513)}
REHEARSAL = 3                    # untimed iterations before the timed ones, as in the C program
OMEGA = np.float32(0.8)
FLOP_PER_POINT = 34              # the benchmark's own count
# Bytes that must move per updated point and iteration (fp32): reads of a[0..3], b[0..2],
# c[0..2], bnd, wrk1 (13 arrays) and of p (once, its 18 neighbours come from caches), the
# write of wrk2, then the copy wrk2 -> p (one read, one write): 17 floats.
BYTES_PER_POINT = 17 * 4

KERNEL_SRC = r"""
/* Himeno's Jacobi sweep over one rank's interior, fp32.  Compile-time constants (-D):
 * NI, NJ, NK the local extents (halo rows included), BX x BY threads per block over (k, j),
 * ICHUNK the planes along i each thread marches through: the five p columns the stencil
 * needs along i ((j,k), (j+-1,k), (j,k+-1)) stay in registers from one plane to the next,
 * so a thread loads 9 p values per point instead of 19.  k = 0 and k = NK-1 map to idle
 * threads so that every warp reads whole aligned rows.  gosa: per-thread sums, a warp and
 * block tree, one double atomicAdd per block into *gosa. */
extern "C" __global__ void __launch_bounds__(BX * BY)
jacobi(const float *__restrict__ p, const float *__restrict__ a, const float *__restrict__ b,
       const float *__restrict__ c, const float *__restrict__ bnd, const float *__restrict__ wrk1,
       float *__restrict__ wrk2, double *__restrict__ gosa, float omega)
{
    const long long PL = (long long)NJ * NK;          /* one i plane */
    const long long AS = (long long)NI * PL;          /* one array of the a, b, c stacks */
    const int k = blockIdx.x * BX + threadIdx.x;
    const int j = blockIdx.y * BY + threadIdx.y;
    const int i0 = 1 + blockIdx.z * ICHUNK;
    const int i1 = i0 + ICHUNK < NI - 1 ? i0 + ICHUNK : NI - 1;
    float g = 0.0f;
    if (k >= 1 && k <= NK - 2 && j >= 1 && j <= NJ - 2) {
        long long x = i0 * PL + (long long)j * NK + k;
        /* _m: plane i-1, _0: plane i, _p: plane i+1 */
        float pc_m = p[x - PL], pc_0 = p[x];
        float pjm_m = p[x - PL - NK], pjm_0 = p[x - NK];
        float pjp_m = p[x - PL + NK], pjp_0 = p[x + NK];
        float pkm_m = p[x - PL - 1], pkm_0 = p[x - 1];
        float pkp_m = p[x - PL + 1], pkp_0 = p[x + 1];
        for (int i = i0; i < i1; i++, x += PL) {
            const long long y = x + PL;
            const float pc_p = p[y], pjm_p = p[y - NK], pjp_p = p[y + NK];
            const float pkm_p = p[y - 1], pkp_p = p[y + 1];
            /* the C program's expression, term by term and in its order */
            const float s0 = a[x] * pc_p + a[x + AS] * pjp_0 + a[x + 2 * AS] * pkp_0
                + b[x] * (pjp_p - pjm_p - pjp_m + pjm_m)
                + b[x + AS] * (p[x + NK + 1] - p[x - NK + 1] - p[x + NK - 1] + p[x - NK - 1])
                + b[x + 2 * AS] * (pkp_p - pkp_m - pkm_p + pkm_m)
                + c[x] * pc_m + c[x + AS] * pjm_0 + c[x + 2 * AS] * pkm_0
                + wrk1[x];
            const float ss = (s0 * a[x + 3 * AS] - pc_0) * bnd[x];
            g += ss * ss;
            wrk2[x] = pc_0 + omega * ss;
            pc_m = pc_0; pc_0 = pc_p;
            pjm_m = pjm_0; pjm_0 = pjm_p;
            pjp_m = pjp_0; pjp_0 = pjp_p;
            pkm_m = pkm_0; pkm_0 = pkm_p;
            pkp_m = pkp_0; pkp_0 = pkp_p;
        }
    }
#ifdef HIMENO_EMULATION
    atomicAdd(gosa, (double)g);     /* the CPU emulation runs threads one after another */
#else
    const int t = threadIdx.y * BX + threadIdx.x;
    for (int o = 16; o > 0; o >>= 1)
        g += __shfl_xor_sync(0xffffffffu, g, o);
    __shared__ float part[BX * BY / 32];
    if ((t & 31) == 0)
        part[t >> 5] = g;
    __syncthreads();
    if (t < 32) {
        g = t < BX * BY / 32 ? part[t] : 0.0f;
        for (int o = 16; o > 0; o >>= 1)
            g += __shfl_xor_sync(0xffffffffu, g, o);
        if (t == 0)
            atomicAdd(gosa, (double)g);
    }
#endif
}
"""


@dataclass(frozen=True)
class Variant:
    """A launch shape of the kernel: BX x BY threads over (k, j), ICHUNK planes each."""

    bx: int
    by: int
    ichunk: int

    @property
    def name(self) -> str:
        march = "one point per thread" if self.ichunk == 1 else f"{self.ichunk} planes per thread"
        return f"{march}, {self.bx}x{self.by} threads"


VARIANTS = [Variant(64, 4, 1), Variant(128, 2, 1), Variant(32, 8, 1), Variant(64, 4, 8), Variant(64, 4, 16),
            Variant(64, 4, 32), Variant(128, 2, 16), Variant(128, 2, 32), Variant(32, 8, 32),
            Variant(256, 1, 32)]


def extents(size: str) -> tuple[int, int, int]:
    """The computed region (IMAX, JMAX, KMAX) of a size."""
    mi, mj, mk = SIZES[size]
    return mi - 1, mj - 1, mk - 1


def split(first: int, last: int, parts: int, k: int) -> tuple[int, int]:
    """Part k of an even split of first..last-1."""
    n = last - first
    lo = first + k * n // parts
    return lo, first + (k + 1) * n // parts


@dataclass(frozen=True)
class Block:
    """One rank of a qi x qj grid (rank = pi * qj + pj) and its interior rows/columns."""

    size: str
    qi: int
    qj: int
    pi: int
    pj: int

    @property
    def ranges(self) -> tuple[int, int, int, int]:
        imax, jmax, _ = extents(self.size)
        return (*split(1, imax - 1, self.qi, self.pi), *split(1, jmax - 1, self.qj, self.pj))

    @property
    def shape(self) -> tuple[int, int, int]:
        ilo, ihi, jlo, jhi = self.ranges
        return ihi - ilo + 2, jhi - jlo + 2, extents(self.size)[2]

    def rank_of(self, pi: int, pj: int) -> int | None:
        return pi * self.qj + pj if 0 <= pi < self.qi and 0 <= pj < self.qj else None


def decompose(size: str, grid: tuple[int, int], rank: int) -> Block:
    return Block(size, grid[0], grid[1], rank // grid[1], rank % grid[1])


Slices = tuple[Any, ...]


def halo_plan(blk: Block) -> list[list[tuple[int, Slices, Slices]]]:
    """Two phases of (peer, what to send, where to receive) in local indices: whole planes
    along i first, then along j over all rows, halo rows included, so that the corners
    (i+-1, j+-1) the stencil reads arrive from the diagonal neighbours through the second
    phase.  Within a phase every send has the matching receive on the peer."""
    ni, nj, _ = blk.shape
    along_i = [(blk.rank_of(blk.pi - 1, blk.pj), (1,), (0,)),
               (blk.rank_of(blk.pi + 1, blk.pj), (ni - 2,), (ni - 1,))]
    along_j = [(blk.rank_of(blk.pi, blk.pj - 1), (slice(None), 1), (slice(None), 0)),
               (blk.rank_of(blk.pi, blk.pj + 1), (slice(None), nj - 2), (slice(None), nj - 1))]
    return [[(peer, s, r) for peer, s, r in phase if peer is not None] for phase in (along_i, along_j)]


def init_state(blk: Block, xp: Any = np) -> dict[str, Any]:
    """Himeno's initmt on this rank's part (every stored point is in the computed region):
    a = 1, 1, 1, 1/6; b = 0; c = 1; bnd = 1; wrk1 = 0; p = i^2 / (IMAX-1)^2.  wrk2 starts as
    a copy of p, so that copying all of wrk2 back (or swapping) keeps the fixed planes."""
    imax = extents(blk.size)[0]
    ilo = blk.ranges[0]
    shape = blk.shape
    gi = xp.arange(ilo - 1, ilo - 1 + shape[0])
    plane = (gi * gi).astype(xp.float32) / xp.float32((imax - 1) * (imax - 1))
    p = xp.ascontiguousarray(xp.broadcast_to(plane[:, None, None], shape))
    a = xp.ones((4, *shape), dtype=xp.float32)
    a[3] = xp.float32(1.0 / 6.0)
    return {"p": p, "a": a, "b": xp.zeros((3, *shape), dtype=xp.float32),
            "c": xp.ones((3, *shape), dtype=xp.float32), "bnd": xp.ones(shape, dtype=xp.float32),
            "wrk1": xp.zeros(shape, dtype=xp.float32), "wrk2": p.copy()}


def numpy_sweep(st: dict[str, Any]) -> np.float32:
    """One Jacobi sweep of the C program in float32 NumPy (no FMA, as a plain x86-64 cc -O2):
    wrk2 on the interior, then p = wrk2 there; returns this part's gosa (float32)."""
    p, a, b, c = st["p"], st["a"], st["b"], st["c"]
    n0, n1, n2 = p.shape

    def q(di: int, dj: int, dk: int) -> np.ndarray:
        return p[1 + di:n0 - 1 + di, 1 + dj:n1 - 1 + dj, 1 + dk:n2 - 1 + dk]

    inner = (slice(1, -1), slice(1, -1), slice(1, -1))
    s0 = (a[0][inner] * q(1, 0, 0) + a[1][inner] * q(0, 1, 0) + a[2][inner] * q(0, 0, 1)
          + b[0][inner] * (q(1, 1, 0) - q(1, -1, 0) - q(-1, 1, 0) + q(-1, -1, 0))
          + b[1][inner] * (q(0, 1, 1) - q(0, -1, 1) - q(0, 1, -1) + q(0, -1, -1))
          + b[2][inner] * (q(1, 0, 1) - q(-1, 0, 1) - q(1, 0, -1) + q(-1, 0, -1))
          + c[0][inner] * q(-1, 0, 0) + c[1][inner] * q(0, -1, 0) + c[2][inner] * q(0, 0, -1)
          + st["wrk1"][inner])
    ss = (s0 * a[3][inner] - q(0, 0, 0)) * st["bnd"][inner]
    st["wrk2"][inner] = q(0, 0, 0) + OMEGA * ss
    p[inner] = st["wrk2"][inner]
    return np.float32(np.sum(ss * ss, dtype=np.float32))


def reference(size: str, iters: int) -> tuple[float, float, np.ndarray]:
    """(gosa of the last iteration, psum, p) of the whole problem in NumPy, one part."""
    st = init_state(decompose(size, (1, 1), 0))
    gosa = np.float32(0)
    for _ in range(iters):
        gosa = numpy_sweep(st)
    return float(gosa), float(np.sum(st["p"][1:-1, 1:-1, 1:-1], dtype=np.float64)), st["p"]


def grid_of(text: str | None, nprocs: int) -> tuple[int, int]:
    """'4x1' -> (4, 1); None -> slabs along i (nprocs x 1), as procs[*][1] in the C program."""
    if text is None:
        return nprocs, 1
    qi, qj = (int(v) for v in text.lower().split("x"))
    if qi * qj != nprocs:
        raise SystemExit(f"himeno: grid {text} needs {qi * qj} processes, not {nprocs}")
    return qi, qj


def launch_shape(blk: Block, v: Variant) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(grid, block) of the kernel for this rank's part."""
    ni, nj, nk = blk.shape
    return (((nk + v.bx - 1) // v.bx, (nj + v.by - 1) // v.by, (ni - 2 + v.ichunk - 1) // v.ichunk),
            (v.bx, v.by, 1))


def kernel_defines(blk: Block, v: Variant) -> list[str]:
    ni, nj, nk = blk.shape
    return [f"-DNI={ni}", f"-DNJ={nj}", f"-DNK={nk}", f"-DBX={v.bx}", f"-DBY={v.by}", f"-DICHUNK={v.ichunk}"]
