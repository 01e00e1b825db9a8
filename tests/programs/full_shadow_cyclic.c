/* Full shadow on cyclic and cyclic(w) dimensions (global-view §7): reflect is an
 * all-gather, after which every node reads every element; also in two dimensions (one
 * cyclic full-shadow dimension, one block dimension with a normal shadow) and under async. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 23
#define M 5
double x[N], y[N], u[N][M];
#pragma xmp nodes p[*]
#pragma xmp template tc[N]
#pragma xmp template tw[N]
#pragma xmp template t2[N][M]
#pragma xmp distribute tc[cyclic] onto p
#pragma xmp distribute tw[cyclic(3)] onto p
#pragma xmp distribute t2[cyclic(2)][*] onto p
#pragma xmp align x[i] with tc[i]
#pragma xmp align y[i] with tw[i]
#pragma xmp align u[i][j] with t2[i][j]
#pragma xmp shadow x[*]
#pragma xmp shadow y[*]
#pragma xmp shadow u[*][0]

int main(void)
{
    int i, j;
    double sx = 0, sy = 0, su = 0, dot = 0;

#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++) x[i] = i * 0.5;
#pragma xmp loop on tw[i]
    for (i = 0; i < N; i++) y[i] = N - i;
#pragma xmp loop (i) on t2[i][*]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) u[i][j] = i * 10 + j;
#pragma xmp reflect (x)
#pragma xmp reflect (y, u) async (3)
    /* every node reads the whole of x */
    for (i = 0; i < N; i++) sx += x[i] * (i % 4);
#pragma xmp wait_async (3)
    for (i = 0; i < N; i++) {
        sy += y[i] * i;
        for (j = 0; j < M; j++) su += u[i][j] * (j + 1);
    }
    /* a loop that reads other nodes' elements of x */
#pragma xmp loop on tw[i] reduction (+: dot)
    for (i = 0; i < N; i++) dot += y[i] * x[N - 1 - i];
    {
        /* every node read every element: the sums agree everywhere */
        double lo = sx + sy + su, hi = lo;
#pragma xmp reduction (min: lo)
#pragma xmp reduction (max: hi)
        if (xmpc_node_num() == 0)
            printf("sx = %g  sy = %g  su = %g  dot = %g  nodes agree: %s\n", sx, sy, su, dot, lo == hi ? "yes" : "NO");
    }
    return 0;
}
