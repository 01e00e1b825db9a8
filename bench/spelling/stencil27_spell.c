/* 3-D 27-point stencil in the OpenACC spellings of issue 31: one loop nest, one arithmetic,
 * the directives picked by -DSPELLING=n, the spellings of bench/spelling/jacobi3d_spell.c.
 * A 27-point sweep still reads each cell once and writes it once from memory, so whatever
 * the spelling it should run at the same speed, near the copy bandwidth
 * (bench/spelling_goals.py, goals Y1, Y2, Y4).
 *
 *   -DSPELLING=1  collapse3       xmp loop (k, j, i), then acc parallel loop collapse(3)
 *   -DSPELLING=2  gang_worker     acc parallel loop gang / acc loop worker / acc loop vector,
 *                                 one on each loop
 *   -DSPELLING=3  kernels         acc kernels loop independent, acc loop independent below
 *   -DSPELLING=4  collapse2_vl64  acc parallel loop collapse(2) gang vector_length(64), inner
 *                                 acc loop vector
 *   -DSPELLING=5  xmp_acc         XMP-ACC (the paper's dialect): xmp loop ... acc, acc replicate
 *   -DSPELLING=6  async           acc parallel loop collapse(3) async, then acc wait
 *   -DREAL=float                  element type (float or double)
 *   -DN=512 -DITER=50             grid N^3, timed sweeps (after 2 untimed ones)
 *
 * The stencil is the full-weighting average of the 3 x 3 x 3 cube around a cell: the centre
 * weighs 1/8, each of the 6 face neighbours 1/16, each of the 12 edge neighbours 1/32 and
 * each of the 8 corners 1/64 (the weights sum to 1).  Powers of two, so that every product
 * is exact and a compiler that contracts a product and a sum into an FMA (nvcc, NVRTC)
 * rounds as one that does not: the checksums of the GPU, the host backend and the serial
 * build agree to the last bit.  The sums are grouped by plane -- in each plane k-1, k, k+1
 * the cell (P), its 4 in-plane face neighbours (S4) and its 4 in-plane diagonals (D4) --
 * which is also how the hand-written walk of bench/stencil_kernels.py (s27_walk) keeps the
 * planes it re-reads, with the same rounding.
 *
 * Planes are block-distributed with one shadow plane each side, refreshed on the device by
 * reflect ... acc before every sweep.  Same initial state as bench/spelling/jacobi3d_spell.c
 * and the hand-written kernels of bench/stencil_baselines.py (stencil27, fp64 and fp32), so
 * the checksums agree.  Built by a plain C compiler (pragmas ignored) this file is the
 * serial version:  cc -O2 -DSPELLING=1 -DN=20 bench/spelling/stencil27_spell.c
 *
 * The program and the sweep in each spelling are bench/spelling/stencil3d.h's; this file
 * gives the stencil (POINT) and the sizes. */
#ifndef REAL
#define REAL float
#endif
#ifndef N
#define N 512
#endif
#ifndef ITER
#define ITER 50
#endif
#define CENTRE ((REAL)0.125)    /* 1/8 */
#define FACE ((REAL)0.0625)     /* 1/16 */
#define EDGE ((REAL)0.03125)    /* 1/32 */
#define CORNER ((REAL)0.015625) /* 1/64 */
/* the 4 face neighbours and the 4 diagonal neighbours of (kk, j, i) in plane kk */
#define S4(kk) (((FROM[kk][j - 1][i] + FROM[kk][j + 1][i]) + FROM[kk][j][i - 1]) + FROM[kk][j][i + 1])
#define D4(kk) \
    (((FROM[kk][j - 1][i - 1] + FROM[kk][j - 1][i + 1]) + FROM[kk][j + 1][i - 1]) + FROM[kk][j + 1][i + 1])
#define POINT(k, j, i) \
    (((CENTRE * FROM[k][j][i] + FACE * ((FROM[k - 1][j][i] + FROM[k + 1][j][i]) + S4(k))) \
      + EDGE * ((S4(k - 1) + S4(k + 1)) + D4(k))) \
     + CORNER * (D4(k - 1) + D4(k + 1)))
#include "stencil3d.h"
