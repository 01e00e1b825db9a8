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
#define SIXTH ((REAL)(1.0 / 6.0))
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
                TO[k][j][i] = SIXTH * (((((FROM[k - 1][j][i] + FROM[k + 1][j][i]) + FROM[k][j - 1][i])
                                         + FROM[k][j + 1][i]) + FROM[k][j][i - 1]) + FROM[k][j][i + 1]);
#if SPELLING == 6
#pragma acc wait
#endif
}
#endif
