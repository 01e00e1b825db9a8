/* RIKEN Himeno benchmark (19-point Jacobi, fp32) in the spellings of issue 31, written the
 * way XcalableACC users write it: Omni's parenthesised syntax, the template in the arrays'
 * reverse order, combined align directives, shadows wider on the upper side, and the
 * OpenACC mapping under an XMP loop over all three loops.  The directives are picked by
 * -DSPELLING=n; the arithmetic is written once (bench/spelling_goals.py, goals Y1 and Y3).
 *
 *   -DSPELLING=1  quoted       the XcalableACC Himeno's own lines: acc parallel loop
 *                              firstprivate(omega) reduction(+:gosa) collapse(2) gang
 *                              vector_length(64) async, inner acc loop vector reduction(+:gosa)
 *                              private(s0, ss), then acc wait
 *   -DSPELLING=2  collapse3    acc parallel loop collapse(3) reduction(+:gosa) private(s0, ss)
 *   -DSPELLING=3  xmp_acc      XMP-ACC (the paper's dialect): xmp loop ... reduction(+:gosa) acc,
 *                              acc replicate
 *   -DSPELLING=4  gang_vector  acc parallel loop collapse(2) gang reduction(+:gosa), inner acc
 *                              loop vector reduction(+:gosa) private(s0, ss) (no vector_length)
 *   -DSIZE_XS | -DSIZE_S | -DSIZE_M | -DSIZE_L   33x33x65 | 65x65x129 | 129x129x257 |
 *                                                 257x257x513 (default L)
 *   -DNN=100                   timed iterations (after REHEARSAL=3 untimed ones)
 *
 * The arithmetic, the arrays, the initial state and the output (time_s, mflops, gosa, psum)
 * are those of bench/himeno_xacc.c, so the results compare with bench/himeno_hand.py.  The
 * i planes are block-distributed over procs(1, 1, *).  Built by a plain C compiler (pragmas
 * ignored) this file is the serial version:
 *     cc -O2 -DSIZE_XS -DSPELLING=1 bench/spelling/himeno_spell.c */
#include "spelling.h"
#if defined(SIZE_XS)
#define MIMAX 33
#define MJMAX 33
#define MKMAX 65
#elif defined(SIZE_S)
#define MIMAX 65
#define MJMAX 65
#define MKMAX 129
#elif defined(SIZE_M)
#define MIMAX 129
#define MJMAX 129
#define MKMAX 257
#elif !defined(MIMAX)
#define MIMAX 257
#define MJMAX 257
#define MKMAX 513
#endif
#ifndef NN
#define NN 100
#endif
#ifndef REHEARSAL
#define REHEARSAL 3
#endif
/* The computed region is 0..IMAX-1 (the last plane of each dimension is unused, as in
 * Himeno); the points updated are 1..IMAX-2. */
#define IMAX (MIMAX - 1)
#define JMAX (MJMAX - 1)
#define KMAX (MKMAX - 1)
#define OMEGA 0.8f

static const char *const names[] = {"", "quoted", "collapse3", "xmp_acc", "gang_vector"};

float p[MIMAX][MJMAX][MKMAX];
float a[4][MIMAX][MJMAX][MKMAX], b[3][MIMAX][MJMAX][MKMAX], c[3][MIMAX][MJMAX][MKMAX];
float bnd[MIMAX][MJMAX][MKMAX], wrk1[MIMAX][MJMAX][MKMAX], wrk2[MIMAX][MJMAX][MKMAX];

#pragma xmp nodes procs(1, 1, *)
#pragma xmp template t(0:MKMAX-1, 0:MJMAX-1, 0:MIMAX-1)
#pragma xmp distribute t(block, block, block) onto procs
#pragma xmp align p[k][j][i] with t(i, j, k)
#pragma xmp align [*][k][j][i] with t(i, j, k) :: a, b, c
#pragma xmp align [k][j][i] with t(i, j, k) :: bnd, wrk1, wrk2
#pragma xmp shadow p[1:2][0][0]
#if SPELLING == 3
#pragma xmp acc replicate (p, a, b, c, bnd, wrk1, wrk2)
#endif

/* Himeno's initmt: zero everywhere, then the coefficients and p = i^2 / (IMAX-1)^2 on
 * the computed region. */
static void initmt(void)
{
    int i, j, k, n;
    float in;

#pragma xmp loop (k, j, i) on t(k, j, i)
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
    float gosa = 0.0f, omega = OMEGA;
#if SPELLING != 3
    float s0, ss;   /* private(s0, ss) in the OpenACC spellings */
#endif

    for (n = 0; n < nn; n++) {
        gosa = 0.0f;
#pragma xmp reflect (p) acc
#if SPELLING == 1
#pragma xmp loop (k, j, i) on t(k, j, i)
#pragma acc parallel loop firstprivate(omega) reduction(+:gosa) collapse(2) gang vector_length(64) async
#elif SPELLING == 2
#pragma xmp loop (k, j, i) on t(k, j, i)
#pragma acc parallel loop collapse(3) firstprivate(omega) reduction(+:gosa) private(s0, ss)
#elif SPELLING == 3
#pragma xmp loop (k, j, i) on t(k, j, i) reduction(+:gosa) acc
#elif SPELLING == 4
#pragma xmp loop (k, j, i) on t(k, j, i)
#pragma acc parallel loop collapse(2) gang reduction(+:gosa)
#endif
        for (i = 1; i < IMAX - 1; i++)
            for (j = 1; j < JMAX - 1; j++)
#if SPELLING == 1 || SPELLING == 4
#pragma acc loop vector reduction(+:gosa) private(s0, ss)
#endif
                for (k = 1; k < KMAX - 1; k++) {
#if SPELLING == 3   /* the paper's dialect has no private clause: the body declares them */
                    float s0, ss;
#endif
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
#if SPELLING == 1
#pragma acc wait
#endif
#if SPELLING != 3
#pragma xmp reduction (+:gosa)
#endif

#if SPELLING == 1
#pragma xmp loop (k, j, i) on t(k, j, i)
#pragma acc parallel loop collapse(2) gang vector_length(64) async
#elif SPELLING == 2
#pragma xmp loop (k, j, i) on t(k, j, i)
#pragma acc parallel loop collapse(3)
#elif SPELLING == 3
#pragma xmp loop (k, j, i) on t(k, j, i) acc
#elif SPELLING == 4
#pragma xmp loop (k, j, i) on t(k, j, i)
#pragma acc parallel loop collapse(2) gang
#endif
        for (i = 1; i < IMAX - 1; i++)
            for (j = 1; j < JMAX - 1; j++)
#if SPELLING == 1 || SPELLING == 4
#pragma acc loop vector
#endif
                for (k = 1; k < KMAX - 1; k++)
                    p[i][j][k] = wrk2[i][j][k];
#if SPELLING == 1
#pragma acc wait
#endif
    }
    return gosa;
}

static float timed(double *seconds)
{
    float gosa;
    double t0;

    jacobi(REHEARSAL);
#pragma xmp barrier acc
    t0 = xmp_wtime();
    gosa = jacobi(NN);
#pragma xmp barrier acc
    *seconds = xmp_wtime() - t0;
    return gosa;
}

int main(void)
{
    int i, j, k;
    float gosa;
    double seconds, psum = 0.0;
    double points = (double)(IMAX - 2) * (double)(JMAX - 2) * (double)(KMAX - 2);

    initmt();
#if SPELLING == 3
#pragma xmp acc replicate_sync in (p, a, b, c, bnd, wrk1, wrk2)
    gosa = timed(&seconds);
#pragma xmp acc replicate_sync out (p)
#else
#pragma acc data copy(p) copyin(a, b, c, bnd, wrk1, wrk2)
    {
        gosa = timed(&seconds);
    }
#endif
    /* the state after the last iteration, from the host copy of p */
#pragma xmp loop (k, j, i) on t(k, j, i) reduction(+:psum)
    for (i = 1; i < IMAX - 1; i++)
        for (j = 1; j < JMAX - 1; j++)
            for (k = 1; k < KMAX - 1; k++)
                psum += p[i][j][k];
    if (xmpc_node_num() == 0) {
        printf("spelling = %s\n", names[SPELLING]);
        printf("himeno %d x %d x %d, nodes = %d, iterations = %d (+%d rehearsal)\n",
               MIMAX, MJMAX, MKMAX, xmp_all_num_nodes(), NN, REHEARSAL);
        printf("time_s = %.6f\n", seconds);
        printf("mflops = %.3f\n", seconds > 0 ? 34.0 * points * NN / seconds * 1e-6 : 0.0);
        printf("gosa = %.9e\n", gosa);
        printf("psum = %.12e\n", psum);
    }
    return 0;
}
