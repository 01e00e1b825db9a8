/* expand / margin in two distributed dimensions on p[2][2] (global-view §7): the interior
 * expand(-1, -1) and the frame margin(-1, -1) of a 5-point stencil, the frame around the
 * block margin(1, 1) computed redundantly instead of reflected, and a mixed margin(1, -1). */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 12
double u[N][N], v[N][N], w[N][N];
#pragma xmp nodes p[2][2]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][block] onto p
#pragma xmp align [i][j] with t[i][j] :: u, v, w
#pragma xmp shadow u[1][1]
#pragma xmp shadow w[1][1]

static double f(int i, int j) { return (i * 5 + j * 3) % 11 + 0.25 * j; }

int main(void)
{
    int i, j;
    double s1 = 0, s2 = 0, s3 = 0;

#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) u[i][j] = f(i, j);
#pragma xmp reflect (u)
#pragma xmp loop (i, j) on t[i][j] expand(-1, -1)
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++) v[i][j] = u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1];
#pragma xmp loop (i, j) on t[i][j] margin(-1, -1)
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++) v[i][j] = u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1];
#pragma xmp loop (i, j) on t[i][j] reduction (+: s1)
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++) s1 += v[i][j] * (i + j);

    /* w owned by the plain loop, its shadow frame (corners included) by margin(1, 1) */
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) w[i][j] = f(j, i);
#pragma xmp loop (i, j) on t[i][j] margin(1, 1)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) w[i][j] = f(j, i);
#pragma xmp loop (i, j) on t[i][j] reduction (+: s2)
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++) s2 += w[i - 1][j - 1] * w[i + 1][j + 1] - w[i - 1][j + 1];

    /* margin(1, -1): the shadow rows above and below the block's inner columns, and the
       block's first and last columns; expand(0, -1) adds the rest of the block */
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) w[i][j] = 0;
#pragma xmp loop (i, j) on t[i][j] margin(1, -1)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) w[i][j] = f(i, j);
#pragma xmp loop (i, j) on t[i][j] expand(0, -1)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) w[i][j] = f(i, j);
#pragma xmp loop (i, j) on t[i][j] reduction (+: s3)
    for (i = 1; i < N - 1; i++)
        for (j = 0; j < N; j++) {
            s3 += w[i][j] * (i + 1);
            if (j % 6 != 0 && j % 6 != 5)   /* inner columns of the 6-wide blocks: rows filled */
                s3 += w[i - 1][j] * w[i + 1][j];
        }
    if (xmpc_node_num() == 0) printf("interior+frame %.2f  margin(1, 1) %.4f  margin(1, -1) %.4f\n", s1, s2, s3);
    return 0;
}
