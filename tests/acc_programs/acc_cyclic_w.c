/* loop ... acc over cyclic(w) (block-cyclic) template dimensions: a thread's position
 * among this node's owned indices becomes the loop variable, and subscripts of the aligned
 * arrays index the local blocks.  N is a multiple of 3 x P for no P of 1-4; loops that do
 * not start at 0, go down, step by 2 (positions off the progression idle) or use an
 * on-ref offset; reductions; 2-D templates block x cyclic(2) and cyclic(2) x block (nodes
 * g[*][1] puts every node on the first dimension, so each layout is met). */
#include <stdio.h>

#define N 29
#define M 10
#define K 9
double x[N], y[N];
double a[M][K], b[M][K];
double c[K][M], d[K][M];
#pragma xmp nodes p[*]
#pragma xmp nodes g[*][1]
#pragma xmp template t[N]
#pragma xmp distribute t[cyclic(3)] onto p
#pragma xmp align [i] with t[i] :: x, y
#pragma xmp template t2[M][K]
#pragma xmp distribute t2[block][cyclic(2)] onto g
#pragma xmp align [i][j] with t2[i][j] :: a, b
#pragma xmp template t3[K][M]
#pragma xmp distribute t3[cyclic(2)][block] onto g
#pragma xmp align [i][j] with t3[i][j] :: c, d

int main(void)
{
    int i, j;
    double s = 0, s2 = 0, top = -1e30;
    double cx = 0, cy = 0, cb = 0, cd = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        x[i] = 0.5 * i + (i % 4);
        y[i] = -1;
    }
#pragma xmp loop (i, j) on t2[i][j]
    for (i = 0; i < M; i++)
        for (j = 0; j < K; j++) {
            a[i][j] = i * 10 + j;
            b[i][j] = 0;
        }
#pragma xmp loop (i, j) on t3[i][j]
    for (i = 0; i < K; i++)
        for (j = 0; j < M; j++) {
            c[i][j] = i - 2.0 * j;
            d[i][j] = 0;
        }
#pragma xmp acc replicate (x, y, a, b, c, d)
    {
#pragma xmp acc replicate_sync in (x, y, a, b, c, d)
#pragma xmp loop on t[i] acc
        for (i = 2; i < N - 1; i++) y[i] = 3.0 * x[i] + 1;
#pragma xmp loop on t[i] acc
        for (i = 1; i < N; i += 2) y[i] += 0.25 * i;
#pragma xmp loop on t[i] acc
        for (i = N - 2; i >= 3; i--) x[i] = y[i] - x[i];
#pragma xmp loop on t[i+1] acc
        for (i = 0; i < N - 2; i++) x[i + 1] += 0.125 * (i + 1);
#pragma xmp loop on t[i] reduction(+:s) acc
        for (i = 1; i < N; i++) s += x[i] * (i % 5) + y[i];
#pragma xmp loop on t[i] reduction(max:top) acc
        for (i = 0; i < N; i++) top = x[i] * (i % 7) > top ? x[i] * (i % 7) : top;
#pragma xmp loop (i, j) on t2[i][j] acc
        for (i = 1; i < M; i++)
            for (j = 2; j < K; j++) b[i][j] = a[i][j] * 2 + i - j;
#pragma xmp loop (i, j) on t3[i][j] acc
        for (i = 1; i < K - 1; i++)
            for (j = 0; j < M; j++) d[i][j] = c[i][j] + 0.5 * j + c[i][j] * c[i][j];
#pragma xmp loop (i, j) on t2[i][j] reduction(+:s2) acc
        for (i = 0; i < M; i++)
            for (j = 1; j < K; j += 2) s2 += b[i][j] * (j + 1) - a[i][j];
#pragma xmp acc replicate_sync out (x, y, b, d)
    }
#pragma xmp loop on t[i] reduction(+:cx, cy)
    for (i = 0; i < N; i++) {
        cx += x[i] * (i + 1);
        cy += y[i] * (i + 3);
    }
#pragma xmp loop (i, j) on t2[i][j] reduction(+:cb)
    for (i = 0; i < M; i++)
        for (j = 0; j < K; j++) cb += b[i][j] * (i * K + j + 1);
#pragma xmp loop (i, j) on t3[i][j] reduction(+:cd)
    for (i = 0; i < K; i++)
        for (j = 0; j < M; j++) cd += d[i][j] * (i * M + j + 1);
#pragma xmp task on p[0]
    {
        printf("s = %.6f, top = %.6f, s2 = %.6f\n", s, top, s2);
        printf("x %.6f, y %.6f, b %.6f, d %.6f\n", cx, cy, cb, cd);
    }
    return 0;
}
