/* A 2-D aligned pointer allocated by xmp_malloc (global-view §4), with a shadow in its
 * distributed dimension: a few Jacobi sweeps with reflect, as with a fixed array.  The
 * pointer is declared as a pointer to rows, so that the serial build is valid C. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define M 12

#pragma xmp nodes p[*]
#pragma xmp template t[:][:]
#pragma xmp distribute t[block][*] onto p
double (*u)[M], (*un)[M];
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align un[i][j] with t[i][j]
#pragma xmp shadow u[1][0]

int main(int argc, char **argv)
{
    int n = 30, i, j, it;
    (void)argc;
    (void)argv;
#pragma xmp template_fix t[n][M]
    u = (double (*)[M]) xmp_malloc(xmp_desc_of(u), n, M);
    un = (double (*)[M]) xmp_malloc(xmp_desc_of(un), n, M);
#pragma xmp loop on t[i][*]
    for (i = 0; i < n; i++)
        for (j = 0; j < M; j++)
            u[i][j] = (i == 0 || i == n - 1) ? 100.0 + j : 0.0;
    for (it = 0; it < 20; it++) {
#pragma xmp reflect (u)
#pragma xmp loop on t[i][*]
        for (i = 1; i < n - 1; i++)
            for (j = 0; j < M; j++)
                un[i][j] = 0.5 * (u[i - 1][j] + u[i + 1][j]);
#pragma xmp loop on t[i][*]
        for (i = 1; i < n - 1; i++)
            for (j = 0; j < M; j++)
                u[i][j] = un[i][j];
    }
    double s = 0;
#pragma xmp loop on t[i][*] reduction(+:s)
    for (i = 0; i < n; i++)
        for (j = 0; j < M; j++)
            s += u[i][j] * (j + 1);
    if (xmpc_node_num() == 0)
        printf("checksum = %.10e\n", s);
    return 0;
}
