/* Reductions with location variables (global-view §5): firstmax/firstmin/lastmax/lastmin
 * on loop (block, cyclic(3), a 2-D nest), with scalar and section location variables and
 * ties across nodes; max/min with locations on the reduction directive (ties go to the
 * lowest node, lastmax to the highest).  Every result equals the serial one. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 40
#define M 6
double a[N], c[N], g[M][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template tc[N]
#pragma xmp template t2[M][N]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute tc[cyclic(3)] onto p
#pragma xmp distribute t2[*][block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align c[i] with tc[i]
#pragma xmp align g[i][j] with t2[i][j]

static double value(int i) { return (double)((i * 17) % 11); }   /* 10 appears 4 times */

int main(void)
{
    int i, j;
    double fmax = -1, fmin = 99, lmax = -1, lmin = 99, cmax = -1, gmax = -1;
    int ifmax = -1, ifmin = -1, ilmax = -1, ilmin = -1, icmax = -1, gi = -1, gj = -1;
    int loc[2][3] = {{0, 0, 0}, {0, 0, 0}};

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = value(i);
#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++) c[i] = value(i);
#pragma xmp loop (j) on t2[*][j]
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) g[i][j] = value(i * 7 + j);

#pragma xmp loop on t[i] reduction(firstmax: fmax /ifmax, loc[1][0:2]/) reduction(firstmin: fmin /ifmin/) \
                         reduction(lastmax: lmax /ilmax/) reduction(lastmin: lmin /ilmin/)
    for (i = 0; i < N; i++) {
        if (a[i] > fmax) { fmax = a[i]; ifmax = i; loc[1][0] = 2 * i; loc[1][1] = 3 * i; }
        if (a[i] < fmin) { fmin = a[i]; ifmin = i; }
        if (a[i] >= lmax) { lmax = a[i]; ilmax = i; }
        if (a[i] <= lmin) { lmin = a[i]; ilmin = i; }
    }
    /* downward over a cyclic(3) template: "first" follows the loop's order */
#pragma xmp loop on tc[i] reduction(firstmax: cmax /icmax/)
    for (i = N - 1; i >= 0; i--)
        if (c[i] > cmax) { cmax = c[i]; icmax = i; }
#pragma xmp loop (j) on t2[*][j] reduction(lastmax: gmax /gi, gj/)
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++)
            if (g[i][j] >= gmax) { gmax = g[i][j]; gi = i; gj = j; }

    /* the directive: each node's own max and where, then the max over the nodes */
    {
        double m = -1, lm = -1;
        int where = -1, lwhere = -1, pos[2] = {-1, -1};
#pragma xmp loop on t[i]
        for (i = 0; i < N; i++) {
            if (a[i] > m) { m = a[i]; where = i; pos[0] = i + 100; pos[1] = i + 200; }
            if (a[i] >= lm) { lm = a[i]; lwhere = i; }
        }
#pragma xmp reduction(max: m /where, pos[:]/)
#pragma xmp reduction(lastmax: lm /lwhere/)
        if (xmpc_node_num() == 0)
            printf("directive: max %g at %d (%d %d), last max %g at %d\n", m, where, pos[0], pos[1], lm, lwhere);
    }
    if (xmpc_node_num() == 0) {
        printf("firstmax %g at %d (%d %d)  firstmin %g at %d\n", fmax, ifmax, loc[1][0], loc[1][1], fmin, ifmin);
        printf("lastmax %g at %d  lastmin %g at %d\n", lmax, ilmax, lmin, ilmin);
        printf("cyclic downward firstmax %g at %d  2-D lastmax %g at (%d, %d)\n", cmax, icmax, gmax, gi, gj);
    }
    return 0;
}
