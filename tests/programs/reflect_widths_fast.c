/* reflect with explicit widths in a time loop (runtime/fast_reflect.py): four sets of
 * widths by turns on one array (each gets requests of its own from its second call), five
 * on another, more than the plans an array keeps (WIDTH_SETS: planned again each time),
 * a periodic one among them, and a 2-D block x block array with one side per dimension.
 * Each stencil follows its reflect and reads only the shadow it filled.  Built without xmpacc it is the
 * serial program. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#define N 48
#define M 16
#define STEPS 15
#pragma xmp nodes p[*]
#pragma xmp nodes q[*][2]
#pragma xmp template t[N]
#pragma xmp template u[M][M]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute u[block][block] onto q
double a[N], b[N], d[N], e[N];
double g[M][M], h[M][M];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp align d[i] with t[i]
#pragma xmp align e[i] with t[i]
#pragma xmp align g[i][j] with u[i][j]
#pragma xmp align h[i][j] with u[i][j]
#pragma xmp shadow a[2]
#pragma xmp shadow d[2]
#pragma xmp shadow g[1][1]

int main(void)
{
    int i, j, k;
    double s = 0.0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        a[i] = d[i] = 1.0 + 0.01 * i * i;
#pragma xmp loop (i, j) on u[i][j]
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++)
            g[i][j] = i + 0.5 * j;
    for (k = 0; k < STEPS; k++) {
        if (k % 4 == 0) {
#pragma xmp reflect (a) width (1)
#pragma xmp loop on t[i]
            for (i = 2; i < N - 2; i++)
                b[i] = 0.5 * (a[i - 1] + a[i + 1]);
        } else if (k % 4 == 1) {
#pragma xmp reflect (a) width (2)
#pragma xmp loop on t[i]
            for (i = 2; i < N - 2; i++)
                b[i] = 0.5 * (a[i - 2] + a[i + 2]);
        } else if (k % 4 == 2) {
#pragma xmp reflect (a) width (/periodic/1)
#pragma xmp loop on t[i]
            for (i = 2; i < N - 2; i++)
                b[i] = 0.25 * a[i - 1] + 0.75 * a[i + 1];
        } else {
#pragma xmp reflect (a) width (1:0)
#pragma xmp loop on t[i]
            for (i = 2; i < N - 2; i++)
                b[i] = 0.5 * (a[i - 1] + a[i]);
        }
#pragma xmp loop on t[i]
        for (i = 2; i < N - 2; i++)
            a[i] = b[i] + 0.01;
        if (k % 5 == 0) {
#pragma xmp reflect (d) width (1)
#pragma xmp loop on t[i]
            for (i = 2; i < N - 2; i++)
                e[i] = 0.5 * (d[i - 1] + d[i + 1]);
        } else if (k % 5 == 1) {
#pragma xmp reflect (d) width (2)
#pragma xmp loop on t[i]
            for (i = 2; i < N - 2; i++)
                e[i] = 0.5 * (d[i - 2] + d[i + 2]);
        } else if (k % 5 == 2) {
#pragma xmp reflect (d) width (/periodic/1)
#pragma xmp loop on t[i]
            for (i = 2; i < N - 2; i++)
                e[i] = 0.25 * d[i - 1] + 0.75 * d[i + 1];
        } else if (k % 5 == 3) {
#pragma xmp reflect (d) width (1:0)
#pragma xmp loop on t[i]
            for (i = 2; i < N - 2; i++)
                e[i] = 0.5 * (d[i - 1] + d[i]);
        } else {
#pragma xmp reflect (d) width (0:2)
#pragma xmp loop on t[i]
            for (i = 2; i < N - 2; i++)
                e[i] = 0.5 * (d[i] + d[i + 2]);
        }
#pragma xmp loop on t[i]
        for (i = 2; i < N - 2; i++)
            d[i] = e[i] + 0.01;
#pragma xmp reflect (g) width (1:0, 0:1)
#pragma xmp loop (i, j) on u[i][j]
        for (i = 1; i < M - 1; i++)
            for (j = 1; j < M - 1; j++)
                h[i][j] = g[i - 1][j] + g[i][j + 1];
#pragma xmp loop (i, j) on u[i][j]
        for (i = 1; i < M - 1; i++)
            for (j = 1; j < M - 1; j++)
                g[i][j] = 0.5 * h[i][j];
    }
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++)
        s += a[i] + 2.0 * d[i];
#pragma xmp loop (i, j) on u[i][j] reduction(+:s)
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++)
            s += g[i][j];
#ifdef _XCALABLEMP
    if (xmp_node_num() != 1)
        return 0;
#endif
    printf("s %.10e\n", s);
    return 0;
}
