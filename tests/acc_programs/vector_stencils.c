/* 3-D float stencils that xmpacc streams with 16-byte loads, 4 points of the innermost loop
 * per thread (passes/kernel/stream_vector.py), and nests next to them that keep one point
 * per thread: a 7-point sweep from i = 1, a coefficient array and reads at i - 2 .. i + 2,
 * a nest from i = 0 reading the next row and column, a range that ends early, a range of
 * 3 points, a double array, a conditional read.  Built with -DNX=24 every row starts a
 * 16-byte block (16-byte loads); with NX = 23 or 22 rows do not, and the kernels load
 * element by element, or one point at a time where the range is shorter than 4.  The
 * serial build (pragmas ignored) is the oracle. */
#include <stdio.h>

#ifndef NX
#define NX 24
#endif
#define NY 9
#define NZ 13

float a[NZ][NY][NX], b[NZ][NY][NX], c[NZ][NY][NX];
double d[NZ][NY][NX], e[NZ][NY][NX];
#pragma xmp nodes p[*]
#pragma xmp template t[NZ][NY][NX]
#pragma xmp distribute t[block][*][*] onto p
#pragma xmp align a[k][j][i] with t[k][j][i]
#pragma xmp align b[k][j][i] with t[k][j][i]
#pragma xmp align c[k][j][i] with t[k][j][i]
#pragma xmp align d[k][j][i] with t[k][j][i]
#pragma xmp align e[k][j][i] with t[k][j][i]
#pragma xmp shadow a[1][0][0]
#pragma xmp shadow b[1][0][0]
#pragma xmp shadow d[1][0][0]

int main(void)
{
    int i, j, k, step;
    double s = 0;
#pragma xmp loop (k, j, i) on t[k][j][i]
    for (k = 0; k < NZ; k++)
        for (j = 0; j < NY; j++)
            for (i = 0; i < NX; i++) {
                a[k][j][i] = (float) ((k * 7 + j * 5 + i * 3) % 17) * 0.25f;
                b[k][j][i] = 0;
                c[k][j][i] = 1.0f + (float) ((i + k) % 3) * 0.5f;
                d[k][j][i] = (double) ((k + 2 * j + 3 * i) % 13);
                e[k][j][i] = 0;
            }
#pragma xmp acc replicate (a, b, c, d, e)
    {
#pragma xmp acc replicate_sync in (a, b, c, d, e)
        for (step = 0; step < 3; step++) {
#pragma xmp reflect (a) acc
            /* 7-point, from i = 1: the first block of each row has a masked point */
#pragma xmp loop (k, j, i) on t[k][j][i] acc
            for (k = 1; k < NZ - 1; k++)
                for (j = 1; j < NY - 1; j++)
                    for (i = 1; i < NX - 1; i++)
                        b[k][j][i] = (a[k - 1][j][i] + a[k + 1][j][i] + a[k][j - 1][i] + a[k][j + 1][i]
                                      + a[k][j][i - 1] + a[k][j][i + 1]) * (1.0f / 6);
            /* a coefficient array, reads from i - 2 to i + 2 */
#pragma xmp reflect (b) acc
#pragma xmp loop (k, j, i) on t[k][j][i] acc
            for (k = 1; k < NZ - 1; k++)
                for (j = 0; j < NY; j++)
                    for (i = 2; i < NX - 2; i++)
                        a[k][j][i] = c[k][j][i] * (b[k - 1][j][i] + b[k + 1][j][i]) * 0.25f
                                     + 0.125f * (b[k][j][i - 2] + b[k][j][i + 2]) + 0.01f * c[k][j][i + 1];
            /* from i = 0, the next row and column; the range ends before the row does */
#pragma xmp reflect (a) acc
#pragma xmp loop (k, j, i) on t[k][j][i] acc
            for (k = 1; k < NZ - 1; k++)
                for (j = 0; j < NY - 1; j++)
                    for (i = 0; i < NX - 5; i++)
                        c[k][j][i] = 0.5f * (a[k - 1][j + 1][i + 1] + a[k + 1][j][i]) + 0.75f;
            /* a range of 3 points: in rows that are no multiple of 4 long, one point at a time */
#pragma xmp loop (k, j, i) on t[k][j][i] acc
            for (k = 1; k < NZ - 1; k++)
                for (j = 0; j < NY; j++)
                    for (i = NX - 4; i < NX - 1; i++)
                        c[k][j][i] = a[k - 1][j][i] + a[k + 1][j][i] + 0.5f * b[k][j][i];
            /* double: one point per thread */
#pragma xmp reflect (d) acc
#pragma xmp loop (k, j, i) on t[k][j][i] acc
            for (k = 1; k < NZ - 1; k++)
                for (j = 1; j < NY - 1; j++)
                    for (i = 1; i < NX - 1; i++)
                        e[k][j][i] = (d[k - 1][j][i] + d[k + 1][j][i] + d[k][j][i - 1] + d[k][j][i + 1]) / 4;
            /* a read under a condition: one point per thread */
#pragma xmp loop (k, j, i) on t[k][j][i] acc
            for (k = 1; k < NZ - 1; k++)
                for (j = 1; j < NY - 1; j++)
                    for (i = 1; i < NX - 1; i++)
                        b[k][j][i] = i > 3 ? a[k - 1][j][i] + a[k + 1][j][i] : 0.5f;
        }
#pragma xmp acc replicate_sync out (a, b, c, e)
    }
#pragma xmp loop (k, j, i) on t[k][j][i] reduction(+:s)
    for (k = 0; k < NZ; k++)
        for (j = 0; j < NY; j++)
            for (i = 0; i < NX; i++)
                s += a[k][j][i] * (1 + i % 5) + b[k][j][i] * (1 + j % 3) + c[k][j][i] + e[k][j][i] * (1 + k % 2);
    printf("checksum %.6f\n", s);
    return 0;
}
