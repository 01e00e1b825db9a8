/* Stencils that xmpacc turns into streaming kernels (passes/streaming.py), and nests next
 * to them that it must not: 2-D and 3-D, windows of 3 and 5 rows, a read-write array, reductions,
 * conditional reads, a loop that does not start at the array's first row, extents that
 * are no multiple of any walk length, sums of a plane's reads kept along the walk. */
#include <stdio.h>

#define NX 37
#define NY 21
#define NZ 19
#define MY 11
#define MX 13

double u[NX][NY], unew[NX][NY], v[NX][NY];
double w[NZ][MY][MX], wnew[NZ][MY][MX];
#pragma xmp nodes p[*]
#pragma xmp template t[NX][NY]
#pragma xmp distribute t[block][*] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align unew[i][j] with t[i][j]
#pragma xmp align v[i][j] with t[i][j]
#pragma xmp shadow u[2][0]
#pragma xmp template t3[NZ][MY][MX]
#pragma xmp distribute t3[block][*][*] onto p
#pragma xmp align w[k][j][i] with t3[k][j][i]
#pragma xmp align wnew[k][j][i] with t3[k][j][i]
#pragma xmp shadow w[1][0][0]

int main(void)
{
    int i, j, k, step;
    double s3 = 0, su = 0, sn = 0, sv = 0, r3 = 0, d3 = -1e30;
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) {
            u[i][j] = (i * 13 + j * 7) % 11 * 0.125;
            unew[i][j] = 0;
            v[i][j] = (i + j) % 3;
        }
#pragma xmp loop (k, j, i) on t3[k][j][i]
    for (k = 0; k < NZ; k++)
        for (j = 0; j < MY; j++)
            for (i = 0; i < MX; i++) {
                w[k][j][i] = (k * 5 + j * 3 + i) % 7 * 0.25;
                wnew[k][j][i] = 0;
            }
#pragma xmp acc replicate (u, unew, v, w, wnew)
    {
#pragma xmp acc replicate_sync in (u, unew, v, w, wnew)
        for (step = 0; step < 3; step++) {
#pragma xmp reflect (u) acc
            /* 5-point Laplace: window u[i-1..i+1] */
#pragma xmp loop (i, j) on t[i][j] acc
            for (i = 1; i < NX - 1; i++)
                for (j = 1; j < NY - 1; j++)
                    unew[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
            /* v read and written at one subscript; window of five rows u[i-2..i+2] */
#pragma xmp loop (i, j) on t[i][j] acc
            for (i = 2; i < NX - 2; i++)
                for (j = 0; j < NY; j++) {
                    double d = u[i + 2][j] - u[i - 2][j];
                    v[i][j] = 0.5 * v[i][j] + d * u[i][j] + 0.1 * unew[i][j];
                }
            /* conditional reads: not windowed (and so not streamed) */
#pragma xmp loop (i, j) on t[i][j] acc
            for (i = 1; i < NX - 1; i++)
                for (j = 0; j < NY; j++)
                    if (j % 2) unew[i][j] = u[i - 1][j]; else unew[i][j] = u[i + 1][j] + v[i][j];
            /* no row is re-read: one thread per iteration */
#pragma xmp loop (i, j) on t[i][j] acc
            for (i = 1; i < NX - 1; i++)
                for (j = 0; j < NY; j++)
                    u[i][j] = 0.5 * unew[i][j] + 0.25 * v[i][j];
#pragma xmp reflect (w) acc
            /* 3-D 7-point Jacobi: window w[k-1..k+1] */
#pragma xmp loop (k, j, i) on t3[k][j][i] acc
            for (k = 1; k < NZ - 1; k++)
                for (j = 1; j < MY - 1; j++)
                    for (i = 1; i < MX - 1; i++)
                        wnew[k][j][i] = (w[k - 1][j][i] + w[k + 1][j][i] + w[k][j - 1][i] + w[k][j + 1][i]
                                         + w[k][j][i - 1] + w[k][j][i + 1] + 2 * w[k][j][i]) / 8;
            /* reductions in a streamed kernel: each thread first combines its own rows */
#pragma xmp loop (k, j, i) on t3[k][j][i] reduction(+:r3) reduction(max:d3) acc
            for (k = 1; k < NZ - 1; k++)
                for (j = 1; j < MY - 1; j++)
                    for (i = 1; i < MX - 1; i++) {
                        double d = wnew[k][j][i] - 0.5 * (w[k - 1][j][i] + w[k + 1][j][i]);
                        r3 += w[k - 1][j][i] * w[k + 1][j][i];
                        d3 = d > d3 ? d : d3;
                    }
            /* plane sums (stream_planes.py): the walk keeps each plane's (j - 1) - (j + 1)
             * difference and (i - 1) + (i + 1) sum, as the body computes them, not the reads */
#pragma xmp loop (k, j, i) on t3[k][j][i] acc
            for (k = 1; k < NZ - 1; k++)
                for (j = 1; j < MY - 1; j++)
                    for (i = 1; i < MX - 1; i++)
                        wnew[k][j][i] = 0.5 * ((w[k - 1][j - 1][i] - w[k - 1][j + 1][i])
                                               + (w[k + 1][j - 1][i] - w[k + 1][j + 1][i]))
                                        + 0.25 * ((w[k][j - 1][i] - w[k][j + 1][i]) + (w[k][j][i - 1] + w[k][j][i + 1]))
                                        + (w[k + 1][j][i - 1] + w[k + 1][j][i + 1]) * 0.125 + wnew[k][j][i];
#pragma xmp loop (k, j, i) on t3[k][j][i] acc
            for (k = 1; k < NZ - 1; k++)
                for (j = 1; j < MY - 1; j++)
                    for (i = 1; i < MX - 1; i++)
                        w[k][j][i] = wnew[k][j][i];
        }
#pragma xmp acc replicate_sync out (u, unew, v, w)
    }
#pragma xmp loop (k, j, i) on t3[k][j][i] reduction(+:s3)
    for (k = 0; k < NZ; k++)
        for (j = 0; j < MY; j++)
            for (i = 0; i < MX; i++)
                s3 += w[k][j][i] * (1 + (k + 2 * j + 3 * i) % 4);
#pragma xmp loop (i, j) on t[i][j] reduction(+:su, sn, sv)
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) {
            su += u[i][j] * (1 + (i * 7 + j) % 5);
            sn += unew[i][j] * (1 + (i * 7 + j) % 5);
            sv += v[i][j] * (1 + (i * 7 + j) % 5);
        }
#pragma xmp task on p[0]
    printf("u %.12e unew %.12e v %.12e w %.12e r %.12e d %.12e\n", su, sn, sv, s3, r3, d3);
    return 0;
}
