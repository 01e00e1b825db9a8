/* 3-D 7-point Jacobi in the OpenACC spellings of issue 31: one loop nest, one arithmetic,
 * the directives picked by -DSPELLING=n.  Whatever the spelling, the same loop should run
 * at the same speed, near the copy bandwidth (bench/spelling_goals.py, goals Y1, Y2, Y4).
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
 * Planes are block-distributed with one shadow plane each side, refreshed on the device by
 * reflect ... acc before every sweep.  Same initial state and arithmetic as
 * bench/jacobi3d_bench.c and the hand-written kernels of bench/stencil_baselines.py (fp64
 * and fp32), so the checksums agree.  Built by a plain C compiler (pragmas ignored) this
 * file is the serial version:  cc -O2 -DSPELLING=1 -DN=24 bench/spelling/jacobi3d_spell.c
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
#define SIXTH ((REAL)(1.0 / 6.0))
#define POINT(k, j, i) \
    (SIXTH * (((((FROM[k - 1][j][i] + FROM[k + 1][j][i]) + FROM[k][j - 1][i]) + FROM[k][j + 1][i]) \
               + FROM[k][j][i - 1]) + FROM[k][j][i + 1]))
#include "stencil3d.h"
