/* reduce_shadow on p[2][2] (global-view §7): a 9-point scatter writes into face and
 * corner shadow slots; reduce_shadow brings every contribution to its owner, corners in
 * two steps (dimensions in reverse order). */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 10
double u[N][N];
#pragma xmp nodes p[2][2]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][block] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp shadow u[1][1]

int main(void)
{
    int i, j, di, dj;
    double s = 0;

#pragma xmp loop (i, j) on t[i][j] expand(1, 1)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) u[i][j] = 0;
#pragma xmp loop (i, j) on t[i][j]
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++)
            for (di = -1; di <= 1; di++)
                for (dj = -1; dj <= 1; dj++)
                    u[i + di][j + dj] += (i * N + j) * (3 * di + dj + 5);
#pragma xmp reduce_shadow (u)
#pragma xmp loop (i, j) on t[i][j] reduction (+: s)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) s += u[i][j] * (i + 2 * j + 1);
    if (xmpc_node_num() == 0) printf("s = %.1f\n", s);
    return 0;
}
