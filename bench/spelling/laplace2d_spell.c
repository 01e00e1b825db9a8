/* 2-D Laplace (5-point Jacobi, fp64) in the OpenACC spellings of issue 31: one loop nest,
 * one arithmetic, the directives picked by -DSPELLING=n.  Whatever the spelling, the same
 * loop should run at the same speed (bench/spelling_goals.py, goals Y1 and Y4).
 *
 *   -DSPELLING=1  collapse2      xmp loop, then acc parallel loop collapse(2)
 *   -DSPELLING=2  gang_vector    acc parallel loop gang, inner acc loop vector
 *   -DSPELLING=3  kernels        acc kernels region, acc loop independent on both loops
 *   -DSPELLING=4  acc_first      acc parallel loop collapse(2) above the xmp loop line
 *   -DSPELLING=5  async          acc parallel loop collapse(2) async, then acc wait
 *   -DSPELLING=6  vlength128     acc parallel loop gang vector_length(128), inner loop vector
 *   -DSPELLING=7  xmp_acc        XMP-ACC (the paper's dialect): xmp loop ... acc, acc replicate
 *   -DSPELLING=8  gang_worker    acc parallel loop gang worker num_workers(4) vector_length(32),
 *                                inner acc loop vector; data under acc declare + acc update
 *   -DN=8192 -DITER=100           grid N x N, timed sweeps (after 2 untimed ones)
 *
 * Rows are block-distributed with one shadow row each side, refreshed on the device by
 * reflect ... acc before every sweep.  Same initial state and arithmetic as
 * bench/laplace_bench.c and the hand-written kernels of bench/stencil_baselines.py, so
 * the checksums agree.  Built by a plain C compiler (pragmas ignored) this file is the
 * serial version:  cc -O2 -DSPELLING=1 -DN=64 bench/spelling/laplace2d_spell.c
 *
 * The sweep (TO = stencil of FROM) is written once, at the end of the file, which includes
 * itself twice to define sweep_u (u -> unew) and sweep_unew (unew -> u). */
#ifndef SWEEP
#include "spelling.h"
#ifndef N
#define N 8192
#endif
#ifndef ITER
#define ITER 100
#endif
/* the spellings whose inner loop carries its own 'acc loop vector' */
#define INNER_VECTOR (SPELLING == 2 || SPELLING == 6 || SPELLING == 8)

static const char *const names[] = {"", "collapse2", "gang_vector", "kernels", "acc_first", "async",
                                    "vlength128", "xmp_acc", "gang_worker"};

double u[N][N], unew[N][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][*] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align unew[i][j] with t[i][j]
#pragma xmp shadow u[1][0]
#pragma xmp shadow unew[1][0]
#if SPELLING == 7
#pragma xmp acc replicate (u, unew)
#elif SPELLING == 8
#pragma acc declare create(u, unew)
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
    int k;
    double t0, t1;

    sweep_u();
    sweep_unew();
#pragma xmp barrier acc
    t0 = xmp_wtime();
    for (k = 0; k < ITER; k += 2) {
        sweep_u();
        sweep_unew();
    }
#pragma xmp barrier acc
    t1 = xmp_wtime();
#pragma xmp task on p[0]
    {
        printf("spelling = %s\n", names[SPELLING]);
        printf("nodes = %d N = %d iter = %d\n", xmp_all_num_nodes(), N, ITER);
        printf("iter_ms = %.6f\n", 1e3 * (t1 - t0) / ITER);
    }
}

int main(void)
{
    int i, j;
    double sum = 0.0;

#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            u[i][j] = (i == 0 || j == 0 || i == N - 1 || j == N - 1) ? 1.0 + 0.001 * ((i + 3 * j) % 17) : 0.0;
            unew[i][j] = u[i][j];
        }
#if SPELLING == 7
#pragma xmp acc replicate_sync in (u, unew)
    sweeps();
#pragma xmp acc replicate_sync out (u)
#elif SPELLING == 8
#pragma acc update device(u, unew)
    sweeps();
#pragma acc update host(u)
#else
#pragma acc data copy(u) copyin(unew)
    {
        sweeps();
    }
#endif
#pragma xmp loop (i, j) on t[i][j] reduction(+:sum)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            sum += u[i][j];
#pragma xmp task on p[0]
    printf("checksum = %.15e\n", sum);
    return 0;
}

#else
/* One sweep TO = stencil(FROM), interior points only, in the chosen spelling. */
static void SWEEP(void)
{
    int i, j;

#pragma xmp reflect (FROM) acc
#if SPELLING == 1
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop collapse(2)
#elif SPELLING == 2
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop gang
#elif SPELLING == 3
#pragma acc kernels
#pragma xmp loop (i, j) on t[i][j]
#pragma acc loop independent
#elif SPELLING == 4
#pragma acc parallel loop collapse(2)
#pragma xmp loop (i, j) on t[i][j]
#elif SPELLING == 5
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop collapse(2) async
#elif SPELLING == 6
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop gang vector_length(128)
#elif SPELLING == 7
#pragma xmp loop (i, j) on t[i][j] acc
#elif SPELLING == 8
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop gang worker num_workers(4) vector_length(32)
#endif
    for (i = 1; i < N - 1; i++)
#if INNER_VECTOR
#pragma acc loop vector
#elif SPELLING == 3
#pragma acc loop independent
#endif
        for (j = 1; j < N - 1; j++)
            TO[i][j] = 0.25 * (FROM[i - 1][j] + FROM[i + 1][j] + FROM[i][j - 1] + FROM[i][j + 1]);
#if SPELLING == 5
#pragma acc wait
#endif
}
#endif
