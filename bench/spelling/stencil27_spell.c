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
 * The sweep (TO = stencil of FROM) is written once, at the end of the file, which includes
 * itself twice to define sweep_u (u -> unew) and sweep_unew (unew -> u). */
#ifndef SWEEP
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include <time.h>
static int xmp_all_num_nodes(void) { return 1; }
static double xmp_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif

#ifndef SPELLING
#define SPELLING 1
#endif
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
#define STR(x) #x
#define XSTR(x) STR(x)

static const char *const names[] = {"", "collapse3", "gang_worker", "kernels", "collapse2_vl64", "xmp_acc",
                                    "async"};

REAL u[N][N][N], unew[N][N][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N][N][N]
#pragma xmp distribute t[block][*][*] onto p
#pragma xmp align u[k][j][i] with t[k][j][i]
#pragma xmp align unew[k][j][i] with t[k][j][i]
#pragma xmp shadow u[1][0][0]
#pragma xmp shadow unew[1][0][0]
#if SPELLING == 5
#pragma xmp acc replicate (u, unew)
#endif

#define SWEEP sweep_u
#define FROM u
#define TO unew
#include __FILE__
#undef SWEEP
#undef FROM
#undef TO
#define SWEEP sweep_unew
#define FROM unew
#define TO u
#include __FILE__
#undef SWEEP

static void sweeps(void)
{
    int it;
    double t0, t1;

    sweep_u();
    sweep_unew();
#pragma xmp barrier acc
    t0 = xmp_wtime();
    for (it = 0; it < ITER; it += 2) {
        sweep_u();
        sweep_unew();
    }
#pragma xmp barrier acc
    t1 = xmp_wtime();
#pragma xmp task on p[0]
    {
        printf("spelling = %s\n", names[SPELLING]);
        printf("nodes = %d N = %d iter = %d real = %s\n", xmp_all_num_nodes(), N, ITER, XSTR(REAL));
        printf("iter_ms = %.6f\n", 1e3 * (t1 - t0) / ITER);
    }
}

int main(void)
{
    int i, j, k;
    double sum = 0.0;

#pragma xmp loop (k, j, i) on t[k][j][i]
    for (k = 0; k < N; k++)
        for (j = 0; j < N; j++)
            for (i = 0; i < N; i++) {
                int face = k == 0 || j == 0 || i == 0 || k == N - 1 || j == N - 1 || i == N - 1;
                u[k][j][i] = (REAL)(face ? 1.0 + 0.001 * ((k + 2 * j + 3 * i) % 17) : 0.0);
                unew[k][j][i] = u[k][j][i];
            }
#if SPELLING == 5
#pragma xmp acc replicate_sync in (u, unew)
    sweeps();
#pragma xmp acc replicate_sync out (u)
#else
#pragma acc data copy(u) copyin(unew)
    {
        sweeps();
    }
#endif
#pragma xmp loop (k, j, i) on t[k][j][i] reduction(+:sum)
    for (k = 0; k < N; k++)
        for (j = 0; j < N; j++)
            for (i = 0; i < N; i++)
                sum += u[k][j][i];
#pragma xmp task on p[0]
    printf("checksum = %.15e\n", sum);
    return 0;
}

#else
/* One sweep TO = stencil(FROM), interior points only, in the chosen spelling. */
static void SWEEP(void)
{
    int i, j, k;

#pragma xmp reflect (FROM) acc
#if SPELLING == 1
#pragma xmp loop (k, j, i) on t[k][j][i]
#pragma acc parallel loop collapse(3)
#elif SPELLING == 2
#pragma xmp loop (k, j, i) on t[k][j][i]
#pragma acc parallel loop gang
#elif SPELLING == 3
#pragma xmp loop (k, j, i) on t[k][j][i]
#pragma acc kernels loop independent
#elif SPELLING == 4
#pragma xmp loop (k, j, i) on t[k][j][i]
#pragma acc parallel loop collapse(2) gang vector_length(64)
#elif SPELLING == 5
#pragma xmp loop (k, j, i) on t[k][j][i] acc
#elif SPELLING == 6
#pragma xmp loop (k, j, i) on t[k][j][i]
#pragma acc parallel loop collapse(3) async
#endif
    for (k = 1; k < N - 1; k++)
#if SPELLING == 2
#pragma acc loop worker
#elif SPELLING == 3
#pragma acc loop independent
#endif
        for (j = 1; j < N - 1; j++)
#if SPELLING == 2 || SPELLING == 4
#pragma acc loop vector
#elif SPELLING == 3
#pragma acc loop independent
#endif
            for (i = 1; i < N - 1; i++)
                TO[k][j][i] = ((CENTRE * FROM[k][j][i]
                                + FACE * ((FROM[k - 1][j][i] + FROM[k + 1][j][i]) + S4(k)))
                               + EDGE * ((S4(k - 1) + S4(k + 1)) + D4(k)))
                              + CORNER * (D4(k - 1) + D4(k + 1));
#if SPELLING == 6
#pragma acc wait
#endif
}
#endif
