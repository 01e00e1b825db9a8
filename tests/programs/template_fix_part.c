/* A template fixed in part (global-view §4): t[:][M] keeps its second extent and gets the
 * first from template_fix (which gives both); a 2-D aligned pointer allocated after it,
 * with block rows and cyclic columns over a 2-D node array. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define M 6

#pragma xmp nodes p[*][2]
#pragma xmp template t[:][M]
#pragma xmp distribute t[block][cyclic] onto p
double (*x)[M];
#pragma xmp align x[i][j] with t[i][j]

int main(void)
{
    int n = 11, i, j;
    double s = 0;
#pragma xmp template_fix t[n][M]
    x = (double (*)[M]) xmp_malloc(xmp_desc_of(x), n, M);
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < n; i++)
        for (j = 0; j < M; j++)
            x[i][j] = i * 10 + j;
#pragma xmp loop (i, j) on t[i][j] reduction(+:s)
    for (i = 0; i < n; i++)
        for (j = 0; j < M; j++)
            s += (i + 1) * x[i][j];
    if (xmpc_node_num() == 0) printf("sum %.1f\n", s);
    return 0;
}
