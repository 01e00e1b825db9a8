/* Reductions with location variables of host loops with peel_and_wait and margin
 * (global-view §5, §7; passes/locations.py): the parts of such a loop (the interior, then
 * the rim cells) do not run in sequential order, yet firstmax / lastmax / firstmin / lastmin
 * give the iteration that a serial loop over the same iterations gives.
 *
 * peel_and_wait iterates the whole local range, so its results are the serial build's.  b
 * holds its maximum 9 at 0, 2, 12, 16, 18, 20 and 21: for every node count (N = 24 over 1 to
 * 4 nodes) the first 9 is node 0's first index (its rim, which runs after its interior, where
 * 2 is) and the last is 21, in the interior of the last node, whose first index (rim, run
 * last) holds a 9 too; c is b mirrored, for a loop going down.
 *
 * A margin loop iterates a set that depends on the node count: each node marks what it
 * iterates (mark is reduced over the nodes), and a plain C loop over the marked iterations
 * in sequential order gives the expected answer; the program prints whether they agree (and
 * that the marked iterations tie, with the first and the last maximum apart). */
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
int mark[R][C], mark1[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template t2[R][C]
#pragma xmp template tc[N]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute tc[cyclic] onto p
#pragma xmp distribute t2[block][*] onto p
#pragma xmp align b[i] with t[i]
#pragma xmp align c[i] with t[i]
#pragma xmp align g[i][j] with t2[i][j]
#pragma xmp shadow b[1]

static double bval(int i)
{
    return i == 0 || i == 2 || i == 12 || i == 16 || i == 18 || i == 20 || i == 21 ? 9 : (i * 7) % 5;
}
static double gval(int i, int j) { return (i * 3 + j * 5) % 7; }
static double fval(int i) { return (i * 5) % 4; }   /* min 0 at every fourth index */

int main(void)
{
    int i, j, i1 = -1, i2 = -1, i3 = -1, i4 = -1, gi = -1, gj = -1, hi = -1, hj = -1, ki = -1, li = -1;
    double v1 = -1, x1 = 0, v2 = -1, v3 = -1, v4 = 99, gmax = -1, hmax = -1, kmin = 99, lmin = 99;
    int ok = 1, ties = 1;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { b[i] = bval(i); c[i] = bval(N - 1 - i); }
#pragma xmp loop (i, j) on t2[i][j]
    for (i = 0; i < R; i++)
        for (j = 0; j < C; j++) g[i][j] = gval(i, j);

    /* peel_and_wait: the interior overlaps the reflect; the rim runs after it */
#pragma xmp reflect (b) async (5)
#pragma xmp loop on t[i] peel_and_wait(5, 1) reduction(firstmax: v1 /i1, x1/) reduction(lastmax: v2 /i2/) \
                         reduction(lastmin: v4 /i4/)
    for (i = 0; i < N; i++) {
        if (b[i] > v1) { v1 = b[i]; i1 = i; x1 = 0.5 * i; }
        if (b[i] >= v2) { v2 = b[i]; i2 = i; }
        if (b[i] <= v4) { v4 = b[i]; i4 = i; }
    }
    /* going down: "first" is the highest index */
#pragma xmp loop on t[i] peel_and_wait(5, 1) reduction(firstmax: v3 /i3/)
    for (i = N - 1; i >= 0; i--)
        if (c[i] > v3) { v3 = c[i]; i3 = i; }
    if (xmpc_node_num() == 0)
        printf("peel_and_wait: firstmax %g at %d (%g), lastmax %g at %d, lastmin %g at %d, down: firstmax %g at %d\n",
           v1, i1, x1, v2, i2, v4, i4, v3, i3);

    /* two reductions tracking two rows of one array: each part restarts, and the result
     * keeps, only the row of its own reduction */
    {
        int where[2][2] = {{-1, -1}, {-1, -1}};
        double s1 = -1, s2 = -1;
#pragma xmp reflect (b) async (6)
#pragma xmp loop on t[i] peel_and_wait(6, 1) reduction(firstmax: s1 /where[0][:]/) reduction(lastmax: s2 /where[1][0:2]/)
        for (i = 0; i < N; i++) {
            if (b[i] > s1) { s1 = b[i]; where[0][0] = i; where[0][1] = 2 * i; }
            if (b[i] >= s2) { s2 = b[i]; where[1][0] = i; where[1][1] = 3 * i; }
        }
        if (xmpc_node_num() == 0)
            printf("shared rows: firstmax %g at %d %d, lastmax %g at %d %d\n", s1, where[0][0], where[0][1], s2,
                   where[1][0], where[1][1]);
    }
    /* the same on a plain loop over a cyclic template, whose nodes' iterations interleave:
     * each record's key is the iteration that changed its own row, not the other's */
    {
        int at[2][2] = {{-1, -1}, {-1, -1}};
        double s3 = -1, s4 = 99;
#pragma xmp loop on tc[i] reduction(firstmax: s3 /at[0][:]/) reduction(lastmin: s4 /at[1][:]/)
        for (i = 0; i < N; i++) {
            if (bval(i) > s3) { s3 = bval(i); at[0][0] = i; at[0][1] = 2 * i; }
            if (fval(i) <= s4) { s4 = fval(i); at[1][0] = i; at[1][1] = 3 * i; }
        }
        if (xmpc_node_num() == 0)
            printf("cyclic shared rows: firstmax %g at %d %d, lastmin %g at %d %d\n", s3, at[0][0], at[0][1], s4,
                   at[1][0], at[1][1]);
    }

    /* margin(-1, -1): the rim of each node's block, cell by cell */
#pragma xmp loop (i, j) on t2[i][j] margin(-1, -1)
    for (i = 0; i < R; i++)
        for (j = 0; j < C; j++) mark[i][j] = 1;
#pragma xmp reduction (max: mark)
#pragma xmp loop (i, j) on t2[i][j] margin(-1, -1) reduction(firstmax: gmax /gi, gj/) reduction(lastmax: hmax /hi, hj/)
    for (i = 0; i < R; i++)
        for (j = 0; j < C; j++) {
            if (g[i][j] > gmax) { gmax = g[i][j]; gi = i; gj = j; }
            if (g[i][j] >= hmax) { hmax = g[i][j]; hi = i; hj = j; }
        }
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
        ties &= ei != fi || ej != fj;
    }

    /* margin(1): the neighbours' first and last indices (no arrays: a function of i) */
#pragma xmp loop on t[i] margin(1)
    for (i = 0; i < N; i++) mark1[i] = 1;
#pragma xmp reduction (max: mark1)
#pragma xmp loop on t[i] margin(1) reduction(firstmin: kmin /ki/) reduction(lastmin: lmin /li/)
    for (i = 0; i < N; i++) {
        if (fval(i) < kmin) { kmin = fval(i); ki = i; }
        if (fval(i) <= lmin) { lmin = fval(i); li = i; }
    }
    {
        double e = 99, f = 99;
        int ei = -1, fi = -1;
        for (i = 0; i < N; i++) {
            if (!mark1[i]) continue;
            if (fval(i) < e) { e = fval(i); ei = i; }
            if (fval(i) <= f) { f = fval(i); fi = i; }
        }
        ok &= kmin == e && ki == ei && lmin == f && li == fi;
    }
    if (xmpc_node_num() == 0)
        printf("margin: results agree with the serial loop over the margin iterations: %d, ties: %d\n", ok, ties);
    return 0;
}
