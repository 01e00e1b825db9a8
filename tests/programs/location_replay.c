/* Reductions with location variables in a time loop (include/xmpacc_locations.h: from the
 * second step on they combine in C).  The data move at every step, so the node whose
 * element wins changes, ties across nodes included: firstmax and lastmin on a block
 * template with a scalar and a whole array as location variables, lastmax going down a
 * cyclic(3) template, firstmin of an int, a start value no iteration beats at every fifth
 * step (the locations keep their start values), the directive's max and lastmax with
 * locations, and lastmax on a GPU loop (its record picked in C after the launch, then
 * combined over the nodes).  Every step prints what the serial program prints. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 36
#define STEPS 12
double a[N], c[N];
int ia[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template tc[N]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute tc[cyclic(3)] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align ia[i] with t[i]
#pragma xmp align c[i] with tc[i]
#pragma xmp acc replicate (a)

static double value(int i, int step) { return (double)(((i + 5 * step) * 7) % 9); }   /* 8 four times */

int main(void)
{
    int i, step;
    for (step = 0; step < STEPS; step++) {
        double fmax = step % 5 == 4 ? 100.0 : -1.0, lmin = 99.0, cmax = -1.0;
        int ifmax = -7, ilmin = -1, icmax = -1, imin = 1000, iimin = -1;
        long long at[2] = {-1, -1};
#pragma xmp loop on t[i]
        for (i = 0; i < N; i++) {
            a[i] = value(i, step);
            ia[i] = (int)value(i + 3, step) - 4;
        }
#pragma xmp loop on tc[i]
        for (i = 0; i < N; i++) c[i] = value(2 * i, step);

#pragma xmp loop on t[i] reduction(firstmax: fmax /ifmax, at/) reduction(lastmin: lmin /ilmin/)
        for (i = 0; i < N; i++) {
            if (a[i] > fmax) { fmax = a[i]; ifmax = i; at[0] = 10 * i; at[1] = step; }
            if (a[i] <= lmin) { lmin = a[i]; ilmin = i; }
        }
#pragma xmp loop on tc[i] reduction(lastmax: cmax /icmax/)
        for (i = N - 1; i >= 0; i--)
            if (c[i] >= cmax) { cmax = c[i]; icmax = i; }
#pragma xmp loop on t[i] reduction(firstmin: imin /iimin/)
        for (i = 0; i < N; i++)
            if (ia[i] < imin) { imin = ia[i]; iimin = i; }

        /* the directive: each node's own extreme and where, then over the nodes */
        double m = -1, lm = -1;
        int where = -1, lwhere = -1;
#pragma xmp loop on t[i]
        for (i = 0; i < N; i++) {
            if (a[i] > m) { m = a[i]; where = i; }
            if (a[i] >= lm) { lm = a[i]; lwhere = i; }
        }
#pragma xmp reduction(max: m /where/)
#pragma xmp reduction(lastmax: lm /lwhere/)

        /* on the "device" */
        double gm = -1.0;
        int gi = -1, gk = -1;
#pragma xmp acc replicate_sync in (a)
#pragma xmp loop on t[i] reduction(lastmax: gm /gi, gk/) acc
        for (i = 0; i < N; i++)
            if (a[i] >= gm) { gm = a[i]; gi = i; gk = 100 * step + i % 7; }
        if (xmpc_node_num() == 0)
            printf("step %d: firstmax %g at %d (%lld %lld) lastmin %g at %d | cyclic lastmax %g at %d | "
                   "int firstmin %d at %d | directive max %g at %d, lastmax %g at %d | acc lastmax %g at %d %d\n",
                   step, fmax, ifmax, at[0], at[1], lmin, ilmin, cmax, icmax, imin, iimin, m, where, lm, lwhere,
                   gm, gi, gk);
    }
    return 0;
}
