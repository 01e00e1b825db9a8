/* Reductions with location variables of GPU loops with peel_and_wait and margin
 * (global-view §5, §7; kernel_locations.py, runtime/acc_locations.py): 'loop ... acc' (the
 * paper's dialect) and an XMP loop over '#pragma acc parallel loop' (XcalableACC).  Such a
 * loop launches its kernel once per part (the interior, then each rim cell), not in
 * sequential order; every launch starts from the values before the loop and the node keeps
 * the better record, by value and then by iteration.
 *
 * The data are those of host_loops.c: under peel_and_wait, b's first 9 is node 0's first
 * index (its rim, launched after its interior, where 2 is) and its last 9 (21) lies in the
 * interior of the last node, whose first index (rim, launched last) holds a 9 too; the
 * results are the serial build's.  The margin loops are checked against a plain C loop over
 * the iterations a host margin loop marks (printed: whether they agree). */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 24
#define R 12
#define C 10
double b[N], c[N], g[R][C];
int mark[R][C];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template t2[R][C]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute t2[block][*] onto p
#pragma xmp align b[i] with t[i]
#pragma xmp align c[i] with t[i]
#pragma xmp align g[i][j] with t2[i][j]

static double bval(int i)
{
    return i == 0 || i == 2 || i == 12 || i == 16 || i == 18 || i == 20 || i == 21 ? 9 : (i * 7) % 5;
}
static double gval(int i, int j) { return (i * 3 + j * 5) % 7; }

int main(void)
{
    int i, j, i1 = -1, i2 = -1, i3 = -1, i4 = -1, gi = -1, gj = -1, hi = -1, hj = -1;
    int ai = -1, aj = -1, ci = -1, cj = -1;
    int where[2][2] = {{-1, -1}, {-1, -1}};
    double v1 = -1, x1 = 0, v2 = -1, v3 = -1, v4 = -1, w1 = -1, w2 = -1;
    double gmax = -1, hmax = -1, amax = -1, cmax = -1;
    int ok = 1, ties = 1;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { b[i] = bval(i); c[i] = bval(N - 1 - i); }
#pragma xmp loop (i, j) on t2[i][j]
    for (i = 0; i < R; i++)
        for (j = 0; j < C; j++) g[i][j] = gval(i, j);
#pragma xmp loop (i, j) on t2[i][j] margin(-1, -1)
    for (i = 0; i < R; i++)
        for (j = 0; j < C; j++) mark[i][j] = 1;
#pragma xmp reduction (max: mark)

#pragma xmp acc replicate (b, c, g)
    {
#pragma xmp acc replicate_sync in (b, c, g)
        /* loop ... acc: the interior, wait_async, the rim; a section of an array as location
           variables of two reductions (the kernel tracks its elements) */
#pragma xmp loop on t[i] peel_and_wait(5, 1) reduction(firstmax: v1 /i1, x1/) reduction(lastmax: v2 /i2/) \
                         reduction(firstmax: w1 /where[0][:]/) reduction(lastmax: w2 /where[1][:]/) acc
        for (i = 0; i < N; i++) {
            if (b[i] > v1) { v1 = b[i]; i1 = i; x1 = 0.5 * i; }
            if (b[i] >= v2) { v2 = b[i]; i2 = i; }
            if (b[i] > w1) { w1 = b[i]; where[0][0] = i; where[0][1] = -i; }
            if (b[i] >= w2) { w2 = b[i]; where[1][0] = i; where[1][1] = 2 * i; }
        }
        /* going down: "first" is the highest index */
#pragma xmp loop on t[i] peel_and_wait(5, 1) reduction(firstmax: v3 /i3/) acc
        for (i = N - 1; i >= 0; i--)
            if (c[i] > v3) { v3 = c[i]; i3 = i; }
        /* margin: a launch per rim cell */
#pragma xmp loop (i, j) on t2[i][j] margin(-1, -1) reduction(firstmax: gmax /gi, gj/) \
                                    reduction(lastmax: hmax /hi, hj/) acc
        for (i = 0; i < R; i++)
            for (j = 0; j < C; j++) {
                if (g[i][j] > gmax) { gmax = g[i][j]; gi = i; gj = j; }
                if (g[i][j] >= hmax) { hmax = g[i][j]; hi = i; hj = j; }
            }
    }

    /* XcalableACC: an XMP loop over an OpenACC compute construct */
#pragma acc data copyin(b, g)
    {
#pragma xmp loop on t[i] peel_and_wait(6, 1) reduction(lastmax: v4 /i4/)
#pragma acc parallel loop
        for (i = 0; i < N; i++)
            if (b[i] >= v4) { v4 = b[i]; i4 = i; }
#pragma xmp loop (i, j) on t2[i][j] margin(-1, -1) reduction(firstmax: amax /ai, aj/)
#pragma acc parallel loop collapse(2)
        for (i = 0; i < R; i++)
            for (j = 0; j < C; j++)
                if (g[i][j] > amax) { amax = g[i][j]; ai = i; aj = j; }
#pragma xmp loop (i, j) on t2[i][j] margin(-1, 0) reduction(lastmax: cmax /ci, cj/)
#pragma acc parallel loop collapse(2)
        for (i = 0; i < R; i++)
            for (j = 0; j < C; j++)
                if (g[i][j] >= cmax) { cmax = g[i][j]; ci = i; cj = j; }
    }
    if (xmpc_node_num() == 0)
        printf("peel_and_wait: firstmax %g at %d (%g), lastmax %g at %d, sections %g at %d %d, %g at %d %d, "
               "down: firstmax %g at %d, acc parallel loop: lastmax %g at %d\n",
               v1, i1, x1, v2, i2, w1, where[0][0], where[0][1], w2, where[1][0], where[1][1], v3, i3, v4, i4);
    {
        double e = -1, f = -1;
        int ei = -1, ej = -1, fi = -1, fj = -1;
        for (i = 0; i < R; i++)
            for (j = 0; j < C; j++) {
                if (!mark[i][j]) continue;
                if (gval(i, j) > e) { e = gval(i, j); ei = i; ej = j; }
                if (gval(i, j) >= f) { f = gval(i, j); fi = i; fj = j; }
            }
        ok &= gmax == e && gi == ei && gj == ej && hmax == f && hi == fi && hj == fj;
        ok &= amax == e && ai == ei && aj == ej;
        ties &= ei != fi || ej != fj;
    }
    if (xmpc_node_num() == 0)
        printf("margin: results agree with the serial loop over the margin iterations: %d, ties: %d; "
               "rows: lastmax %g at %d %d\n", ok, ties, cmax, ci, cj);
    return 0;
}
