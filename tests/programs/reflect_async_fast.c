/* reflect under async (id) and reflect ... orthogonal in C (runtime/fast_async.py,
 * include/xmpacc_async.h): a 1-D and a 2-D block array reflected at every step, with
 * declared and periodic widths and orthogonally; one reflect per id, several under one id,
 * reflects sharing their id with a bcast (Python's: the id stays on the general path),
 * xmp_test_async polled, an array released with its reflect in flight.  Data is only touched after its wait, as the specification
 * requires.  The 2-D nodes are 1 x 1 on one process, 1 x 2 on two, 2 x 2 on four. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
/* the periodic shadow slots: index -1 and N on the end nodes */
#define P1(v, i) v[i]
#define P2(v, i, j) v[i][j]
#else
#include "serial_xmp.h"
#define P1(v, i) v[((i) + N) % N]
#define P2(v, i, j) v[((i) + M) % M][((j) + M) % M]
#endif

#define N 16
#define M 8
#define STEPS 5

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N], b[N], c[N];
#pragma xmp align [i] with t[i] :: a, b, c
#pragma xmp shadow a[1]
#pragma xmp shadow b[1:1]

static void line(int k, double *sum)
{
    int i, polls = 0;
    double x = 0.0, y = 0.0, s = 0.0;

#pragma xmp reflect (a) async (1)
#pragma xmp wait_async (1)
#pragma xmp loop on t[i]
    for (i = 1; i < N - 1; i++)
        b[i] = a[i - 1] + a[i + 1] - a[i];
    /* two reflects under one id, periodic */
#pragma xmp reflect (b) width (/periodic/1) async (2)
#pragma xmp reflect (a) width (/periodic/1) async (2)
#pragma xmp wait_async (2)
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        c[i] = 0.25 * (P1(b, i - 1) + P1(b, i + 1)) + 0.125 * P1(a, i - 1) + 0.5 * a[i];
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        a[i] = c[i];
    /* a reflect, then a bcast under the same id; then the other way round */
    if (xmpc_node_num() == 0) { x = k + 0.5; y = 2.0 * k; }
#pragma xmp reflect (a) async (3)
#pragma xmp bcast (x) async (3)
#pragma xmp bcast (y) async (4)
#pragma xmp reflect (b) async (4)
    while (!xmp_test_async(3))
        polls++;
#pragma xmp wait_async (4, 3)
#pragma xmp loop on t[i] reduction (+: s)
    for (i = 1; i < N - 1; i++)
        s += x * a[i - 1] - y * b[i + 1];
    /* polled until complete */
#pragma xmp reflect (a) async (5)
    while (!xmp_test_async(5))
        polls++;
#pragma xmp loop on t[i] reduction (+: s)
    for (i = 1; i < N - 1; i++)
        s += a[i + 1] * (polls >= 0);
    *sum += s + xmp_test_async(5);
}

/* returns with its array's reflect in flight: the plan goes once the wait completes it */
static void leave_in_flight(void)
{
    double w[N];
#pragma xmp align w[i] with t[i]
#pragma xmp shadow w[1]
    int i, k;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        w[i] = i;
    for (k = 0; k < 3; k++) {
#pragma xmp reflect (w) async (8)
#pragma xmp wait_async (8)
    }
#pragma xmp reflect (w) async (8)
}

static void grid(int cols, int k, double *sums)
{
#pragma xmp nodes q[*][cols]
#pragma xmp template tg[M][M]
#pragma xmp distribute tg[block][block] onto q
    double g[M][M], h[M][M];
#pragma xmp align [i][j] with tg[i][j] :: g, h
#pragma xmp shadow g[1][1]
    int i, j, step;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;

#pragma xmp loop (i, j) on tg[i][j]
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++)
            g[i][j] = i * M + j + k;
    for (step = 0; step < STEPS; step++) {
        /* two steps, corners in the second */
#pragma xmp reflect (g) async (1)
#pragma xmp wait_async (1)
#pragma xmp loop (i, j) on tg[i][j]
        for (i = 1; i < M - 1; i++)
            for (j = 1; j < M - 1; j++)
                h[i][j] = g[i - 1][j - 1] + g[i + 1][j + 1] - g[i - 1][j + 1] + 0.5 * g[i + 1][j - 1];
#pragma xmp loop (i, j) on tg[i][j]
        for (i = 1; i < M - 1; i++)
            for (j = 1; j < M - 1; j++)
                g[i][j] = 0.25 * h[i][j];
        /* periodic, with a 1-D array under the same id */
#pragma xmp reflect (g) width (/periodic/1, /periodic/1) async (2)
#pragma xmp reflect (a) async (2)
#pragma xmp wait_async (2)
#pragma xmp loop (i, j) on tg[i][j] reduction (+: s0)
        for (i = 0; i < M; i++)
            for (j = 0; j < M; j++)
                s0 += (i + 1) * P2(g, i - 1, j - 1) - j * P2(g, i + 1, j) + P2(g, i + 1, j + 1);
        /* orthogonal: the faces only, with declared, explicit and periodic widths */
#pragma xmp reflect (g) orthogonal
#pragma xmp loop (i, j) on tg[i][j] reduction (+: s1)
        for (i = 1; i < M - 1; i++)
            for (j = 1; j < M - 1; j++)
                s1 += g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1] - 4 * g[i][j];
#pragma xmp reflect (g) width (1:0, 0:1) orthogonal
#pragma xmp loop (i, j) on tg[i][j] reduction (+: s2)
        for (i = 1; i < M; i++)
            for (j = 0; j < M - 1; j++)
                s2 += g[i - 1][j] * g[i][j + 1];
#pragma xmp reflect (g) width (/periodic/1, /periodic/1) orthogonal async (3)
#pragma xmp wait_async (3)
#pragma xmp loop (i, j) on tg[i][j] reduction (+: s3)
        for (i = 0; i < M; i++)
            for (j = 0; j < M; j++)
                s3 += P2(g, i - 1, j) - P2(g, i, j + 1) * 0.5;
    }
    sums[0] = s0, sums[1] = s1, sums[2] = s2, sums[3] = s3;
}

int main(void)
{
    int i, k;
    double s1 = 0.0, sums[4] = {0.0, 0.0, 0.0, 0.0}, total = 0.0;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        a[i] = i * 0.5;
        b[i] = 0.0;
    }
    for (k = 0; k < STEPS; k++)
        line(k, &s1);
    leave_in_flight();
#pragma xmp wait_async (8)
    grid(xmp_all_num_nodes() % 2 == 0 ? 2 : 1, 1, sums);
#pragma xmp loop on t[i] reduction (+: total)
    for (i = 0; i < N; i++)
        total += a[i] + b[i];
    if (xmpc_node_num() == 0)
        printf("line: %.12e %.12e\ngrid: %.12e %.12e %.12e %.12e\n", s1, total, sums[0], sums[1], sums[2],
               sums[3]);
    return 0;
}
