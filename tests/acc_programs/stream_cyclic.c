/* A stencil over a plain cyclic dimension in loop ... acc: this node's rows are P apart,
 * so the kernel must not slide a window of consecutive rows along them (streaming.py
 * walked them once and read the wrong rows on more than one node). */
#include <stdio.h>

#define N 16
#define M 12
double u[N][M], v[N][M];
#pragma xmp nodes p[*][1]
#pragma xmp template t[N][M]
#pragma xmp distribute t[cyclic][block] onto p
#pragma xmp align [i][j] with t[i][j] :: u, v
#pragma xmp shadow u[*][0]

int main(void)
{
    int i, j;
    double s = 0;
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) u[i][j] = i * 100 + j;
#pragma xmp reflect (u)
#pragma xmp acc replicate (u, v)
    {
#pragma xmp acc replicate_sync in (u)
#pragma xmp loop (i, j) on t[i][j] acc
        for (i = 1; i < N - 1; i++)
            for (j = 0; j < M; j++) v[i][j] = u[i - 1][j] + 2 * u[i + 1][j] + u[i][j];
#pragma xmp loop (i, j) on t[i][j] reduction(+:s) acc
        for (i = 1; i < N - 1; i++)
            for (j = 0; j < M; j++) s += v[i][j] * (i + 1);
    }
#pragma xmp task on p[0][0]
    printf("s = %.6f\n", s);
    return 0;
}
