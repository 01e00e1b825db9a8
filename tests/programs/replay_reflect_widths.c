/* reflect ... acc with explicit widths in a time loop (runtime/replay.py: a plan per set
 * of widths, compared in C with the widths the call passes, from the second call): three
 * sets by turns on a (one of them periodic, one a variable), five on d (more than an
 * array keeps: each is planned again at every call, none replays), and on the 2-D g an
 * orthogonal reflect with the declared widths and with explicit ones by turns, then a
 * plain one with explicit widths.  Each stencil reads only the shadow its reflect filled.
 * With an argument, a's variable width grows past its shadow at step 10: the error of
 * the general path, at that line.  Built without xmpacc it is the serial program. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#define N 48
#define M 12
#define STEPS 12
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template t2[N][M]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute t2[block][*] onto p
double a[N], b[N], d[N], e[N];
double g[N][M], h[N][M];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp align d[i] with t[i]
#pragma xmp align e[i] with t[i]
#pragma xmp align g[i][j] with t2[i][j]
#pragma xmp align h[i][j] with t2[i][j]
#pragma xmp shadow a[2]
#pragma xmp shadow d[2]
#pragma xmp shadow g[1][0]

int main(int argc, char **argv)
{
    int i, j, k, wa;
    int bad = argc > 1;
    double s = 0.0;
    (void)argv;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        a[i] = d[i] = 1.0 + 0.01 * i * i;
        b[i] = e[i] = 0.0;
    }
#pragma xmp loop (i, j) on t2[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            g[i][j] = i + 0.5 * j;
            h[i][j] = 0.0;
        }
#pragma acc data copy(a, b, d, e, g, h)
    {
        for (k = 0; k < STEPS; k++) {
            if (k % 3 == 0) {
#pragma xmp reflect (a) width (1) acc
#pragma xmp loop on t[i]
#pragma acc parallel loop
                for (i = 2; i < N - 2; i++)
                    b[i] = 0.5 * (a[i - 1] + a[i + 1]);
            } else if (k % 3 == 1) {
                wa = bad && k == 10 ? 3 : 2;
#pragma xmp reflect (a) width (wa) acc
#pragma xmp loop on t[i]
#pragma acc parallel loop
                for (i = 2; i < N - 2; i++)
                    b[i] = 0.5 * (a[i - 2] + a[i + 2]);
            } else {
#pragma xmp reflect (a) width (/periodic/1:0) acc
#pragma xmp loop on t[i]
#pragma acc parallel loop
                for (i = 2; i < N - 2; i++)
                    b[i] = 0.25 * a[i - 1] + 0.75 * a[i];
            }
#pragma xmp loop on t[i]
#pragma acc parallel loop
            for (i = 2; i < N - 2; i++)
                a[i] = b[i] + 0.01;
            if (k % 5 == 0) {
#pragma xmp reflect (d) width (1) acc
#pragma xmp loop on t[i]
#pragma acc parallel loop
                for (i = 2; i < N - 2; i++)
                    e[i] = 0.5 * (d[i - 1] + d[i + 1]);
            } else if (k % 5 == 1) {
#pragma xmp reflect (d) width (2) acc
#pragma xmp loop on t[i]
#pragma acc parallel loop
                for (i = 2; i < N - 2; i++)
                    e[i] = 0.5 * (d[i - 2] + d[i + 2]);
            } else if (k % 5 == 2) {
#pragma xmp reflect (d) width (/periodic/1) acc
#pragma xmp loop on t[i]
#pragma acc parallel loop
                for (i = 2; i < N - 2; i++)
                    e[i] = 0.25 * d[i - 1] + 0.75 * d[i + 1];
            } else if (k % 5 == 3) {
#pragma xmp reflect (d) width (1:0) acc
#pragma xmp loop on t[i]
#pragma acc parallel loop
                for (i = 2; i < N - 2; i++)
                    e[i] = 0.5 * (d[i - 1] + d[i]);
            } else {
#pragma xmp reflect (d) width (0:2) acc
#pragma xmp loop on t[i]
#pragma acc parallel loop
                for (i = 2; i < N - 2; i++)
                    e[i] = 0.5 * (d[i] + d[i + 2]);
            }
#pragma xmp loop on t[i]
#pragma acc parallel loop
            for (i = 2; i < N - 2; i++)
                d[i] = e[i] + 0.01;
            if (k % 2 == 0) {
#pragma xmp reflect (g) orthogonal acc
            } else {
#pragma xmp reflect (g) width (1:0, 0) orthogonal acc
            }
#pragma xmp reflect (g) width (0:1, 0) acc
#pragma xmp loop (i, j) on t2[i][j]
#pragma acc parallel loop collapse(2)
            for (i = 1; i < N - 1; i++)
                for (j = 1; j < M - 1; j++)
                    h[i][j] = 0.25 * (g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1]);
#pragma xmp loop (i, j) on t2[i][j]
#pragma acc parallel loop collapse(2)
            for (i = 1; i < N - 1; i++)
                for (j = 1; j < M - 1; j++)
                    g[i][j] = h[i][j] + 0.001;
        }
    }
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++)
        s += a[i] + 2.0 * d[i];
#pragma xmp loop (i, j) on t2[i][j] reduction(+:s)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            s += g[i][j] * (1 + (i * M + j) % 7);
#ifdef _XCALABLEMP
    if (xmp_node_num() != 1)
        return 0;
#endif
    printf("s %.10e\n", s);
    return 0;
}
