/* RIKEN Himeno benchmark (19-point Jacobi for a Poisson equation, fp32) in XcalableACC.
 *
 * The arithmetic, the arrays (p, a[4], b[3], c[3], bnd, wrk1, wrk2), the initial state and
 * omega = 0.8 are those of the static C version (himenoBMTxps.c); gosa is reduced over the
 * nodes every iteration, as in the MPI version.  The two outer dimensions (i, j) are
 * block-distributed over a 2-D node grid procs[*][NDY]; p has one shadow element in each
 * distributed dimension, refreshed on the device by a persistent reflect every iteration.
 *
 *   -DSIZE_XS | -DSIZE_S | -DSIZE_M | -DSIZE_L   33x33x65 | 65x65x129 | 129x129x257 (default)
 *                                                 | 257x257x513 (arrays MIMAX x MJMAX x MKMAX)
 *   -DNN=100      timed iterations (after REHEARSAL=3 untimed ones, like Himeno's rehearsal)
 *   -DNDY=1       nodes along j: procs[*][NDY] (default 1: slabs of i planes, contiguous halos)
 *   -DCOLLAPSE3   the sweeps as 'acc parallel loop collapse(3)' (one device thread per point)
 *                 instead of Himeno's usual collapse(2) + inner 'acc loop vector'
 *
 * Node 0 prints MFLOPS (34 flop per updated point per iteration, the benchmark's count),
 * the last iteration's gosa and psum, the sum of p over the updated points.  Built by a
 * plain C compiler (pragmas ignored) the same file is the serial version:
 *     cc -O2 -DSIZE_XS bench/himeno_xacc.c -o himeno_serial
 * bench/himeno_hand.py is the hand-written CuPy + NCCL version of the same computation. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include <time.h>
static int xmpc_node_num(void) { return 0; }
static int xmp_all_num_nodes(void) { return 1; }
static double xmp_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif

#if defined(SIZE_XS)
#define MIMAX 33
#define MJMAX 33
#define MKMAX 65
#elif defined(SIZE_S)
#define MIMAX 65
#define MJMAX 65
#define MKMAX 129
#elif defined(SIZE_L)
#define MIMAX 257
#define MJMAX 257
#define MKMAX 513
#elif !defined(MIMAX)
#define MIMAX 129
#define MJMAX 129
#define MKMAX 257
#endif
#ifndef NN
#define NN 100
#endif
#ifndef REHEARSAL
#define REHEARSAL 3
#endif
#ifndef NDY
#define NDY 1
#endif
/* The computed region is 0..IMAX-1 (the last plane of each dimension is unused, as in
 * Himeno); the points updated are 1..IMAX-2. */
#define IMAX (MIMAX - 1)
#define JMAX (MJMAX - 1)
#define KMAX (MKMAX - 1)
#define OMEGA 0.8f

float p[MIMAX][MJMAX][MKMAX];
float a[4][MIMAX][MJMAX][MKMAX], b[3][MIMAX][MJMAX][MKMAX], c[3][MIMAX][MJMAX][MKMAX];
float bnd[MIMAX][MJMAX][MKMAX];
float wrk1[MIMAX][MJMAX][MKMAX], wrk2[MIMAX][MJMAX][MKMAX];

#pragma xmp nodes procs[*][NDY]
#pragma xmp template t[MIMAX][MJMAX]
#pragma xmp distribute t[block][block] onto procs
#pragma xmp align p[i][j][*] with t[i][j]
#pragma xmp align a[*][i][j][*] with t[i][j]
#pragma xmp align b[*][i][j][*] with t[i][j]
#pragma xmp align c[*][i][j][*] with t[i][j]
#pragma xmp align bnd[i][j][*] with t[i][j]
#pragma xmp align wrk1[i][j][*] with t[i][j]
#pragma xmp align wrk2[i][j][*] with t[i][j]
#pragma xmp shadow p[1][1][0]

/* Himeno's initmt: zero everywhere, then the coefficients and p = i^2 / (IMAX-1)^2 on
 * the computed region. */
static void initmt(void)
{
    int i, j, k, n;
    float in;

#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < MIMAX; i++)
        for (j = 0; j < MJMAX; j++)
            for (k = 0; k < MKMAX; k++) {
                in = (i < IMAX && j < JMAX && k < KMAX) ? 1.0f : 0.0f;
                for (n = 0; n < 3; n++) {
                    a[n][i][j][k] = in;
                    b[n][i][j][k] = 0.0f;
                    c[n][i][j][k] = in;
                }
                a[3][i][j][k] = in * (float)(1.0 / 6.0);
                p[i][j][k] = in * (float)(i * i) / (float)((IMAX - 1) * (IMAX - 1));
                wrk1[i][j][k] = 0.0f;
                wrk2[i][j][k] = 0.0f;
                bnd[i][j][k] = in;
            }
}

/* nn Jacobi iterations on the device copies; returns the last iteration's gosa (summed
 * over all nodes). */
static float jacobi(int nn)
{
    int i, j, k, n;
    float gosa = 0.0f, s0, ss, omega = OMEGA;

    for (n = 0; n < nn; n++) {
        gosa = 0.0f;
#pragma xmp reflect_do (p) acc
#pragma xmp loop (i, j) on t[i][j]
#ifdef COLLAPSE3
#pragma acc parallel loop collapse(3) reduction(+:gosa) private(s0, ss) present(p, a, b, c, bnd, wrk1, wrk2)
#else
#pragma acc parallel loop collapse(2) reduction(+:gosa) present(p, a, b, c, bnd, wrk1, wrk2)
#endif
        for (i = 1; i < IMAX - 1; i++)
            for (j = 1; j < JMAX - 1; j++) {
#ifndef COLLAPSE3
#pragma acc loop vector reduction(+:gosa) private(s0, ss)
#endif
                for (k = 1; k < KMAX - 1; k++) {
                    s0 = a[0][i][j][k] * p[i + 1][j][k]
                       + a[1][i][j][k] * p[i][j + 1][k]
                       + a[2][i][j][k] * p[i][j][k + 1]
                       + b[0][i][j][k] * (p[i + 1][j + 1][k] - p[i + 1][j - 1][k]
                                          - p[i - 1][j + 1][k] + p[i - 1][j - 1][k])
                       + b[1][i][j][k] * (p[i][j + 1][k + 1] - p[i][j - 1][k + 1]
                                          - p[i][j + 1][k - 1] + p[i][j - 1][k - 1])
                       + b[2][i][j][k] * (p[i + 1][j][k + 1] - p[i - 1][j][k + 1]
                                          - p[i + 1][j][k - 1] + p[i - 1][j][k - 1])
                       + c[0][i][j][k] * p[i - 1][j][k]
                       + c[1][i][j][k] * p[i][j - 1][k]
                       + c[2][i][j][k] * p[i][j][k - 1]
                       + wrk1[i][j][k];
                    ss = (s0 * a[3][i][j][k] - p[i][j][k]) * bnd[i][j][k];
                    gosa += ss * ss;
                    wrk2[i][j][k] = p[i][j][k] + omega * ss;
                }
            }
#pragma xmp reduction (+:gosa)
#pragma xmp loop (i, j) on t[i][j]
#ifdef COLLAPSE3
#pragma acc parallel loop collapse(3) present(p, wrk2)
#else
#pragma acc parallel loop collapse(2) present(p, wrk2)
#endif
        for (i = 1; i < IMAX - 1; i++)
            for (j = 1; j < JMAX - 1; j++) {
#ifndef COLLAPSE3
#pragma acc loop vector
#endif
                for (k = 1; k < KMAX - 1; k++)
                    p[i][j][k] = wrk2[i][j][k];
            }
    }
    return gosa;
}

int main(void)
{
    int i, j, k;
    float gosa;
    double t0, t1, psum = 0.0;
    double points = (double)(IMAX - 2) * (double)(JMAX - 2) * (double)(KMAX - 2);

    initmt();
#pragma acc data copy(p) copyin(a, b, c, bnd, wrk1) create(wrk2)
    {
#pragma xmp reflect_init (p) acc
        gosa = jacobi(REHEARSAL);
#pragma xmp barrier acc
        t0 = xmp_wtime();
        gosa = jacobi(NN);
#pragma xmp barrier acc
        t1 = xmp_wtime();
    }
    /* the state after the last iteration, from the host copy of p (copied out above) */
#pragma xmp loop (i, j) on t[i][j] reduction(+:psum)
    for (i = 1; i < IMAX - 1; i++)
        for (j = 1; j < JMAX - 1; j++)
            for (k = 1; k < KMAX - 1; k++)
                psum += p[i][j][k];
    if (xmpc_node_num() == 0) {
        printf("himeno %d x %d x %d, nodes = %d, iterations = %d (+%d rehearsal)\n",
               MIMAX, MJMAX, MKMAX, xmp_all_num_nodes(), NN, REHEARSAL);
        printf("time_s = %.6f\n", t1 - t0);
        printf("mflops = %.3f\n", t1 > t0 ? 34.0 * points * NN / (t1 - t0) * 1e-6 : 0.0);
        printf("gosa = %.9e\n", gosa);
        printf("psum = %.12e\n", psum);
    }
    return 0;
}
