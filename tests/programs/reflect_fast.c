/* reflect's C fast path (runtime/fast_reflect.py): a 1-D and a 2-D block x block array
 * (corners arrive in the second step) reflected every step, a block-scope array aligned
 * again at each call of a function, an async reflect (in C too) and a periodic width
 * between them, and a long long array whose stores may alias anything. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 24
#define M 10

double a[N], b[N];
long long c[N], d[N];
double g[M][M], h[M][M];
#pragma xmp nodes pn[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto pn
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp align c[i] with t[i]
#pragma xmp align d[i] with t[i]
#pragma xmp shadow a[1]
#pragma xmp shadow c[2]

#pragma xmp nodes q[*][2]
#pragma xmp template s[M][M]
#pragma xmp distribute s[block][block] onto q
#pragma xmp align g[i][j] with s[i][j]
#pragma xmp align h[i][j] with s[i][j]
#pragma xmp shadow g[1][1]

static double local_sum(int step)
{
    double w[N], sum = 0.0;
    int i;
#pragma xmp align w[i] with t[i]
#pragma xmp shadow w[1]
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        w[i] = a[i] * (step + 1);
#pragma xmp reflect (w)
#pragma xmp loop on t[i] reduction(+:sum)
    for (i = 1; i < N - 1; i++)
        sum += w[i - 1] - w[i + 1];
    return sum;
}

int main(void)
{
    int i, j, k;
    double s1 = 0.0, s2 = 0.0, s3 = 0.0;
    long long s4 = 0;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        a[i] = i * 0.5;
        c[i] = 3 * i;
    }
#pragma xmp loop (i, j) on s[i][j]
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++)
            g[i][j] = i * M + j;
    for (k = 0; k < 6; k++) {
#pragma xmp reflect (a)
#pragma xmp loop on t[i]
        for (i = 1; i < N - 1; i++)
            b[i] = a[i - 1] + a[i + 1] - a[i];
#pragma xmp loop on t[i]
        for (i = 1; i < N - 1; i++)
            a[i] = 0.5 * b[i];
#pragma xmp reflect (g)
#pragma xmp loop (i, j) on s[i][j]
        for (i = 1; i < M - 1; i++)
            for (j = 1; j < M - 1; j++)
                h[i][j] = g[i - 1][j - 1] + g[i + 1][j + 1] - g[i - 1][j + 1];
#pragma xmp loop (i, j) on s[i][j]
        for (i = 1; i < M - 1; i++)
            for (j = 1; j < M - 1; j++)
                g[i][j] = 0.25 * h[i][j];
        s3 += local_sum(k);
        if (k == 2) {
#pragma xmp reflect (a) async (1)
#pragma xmp wait_async (1)
#pragma xmp reflect (a) width (/periodic/1)
        }
#pragma xmp reflect (c)
#pragma xmp loop on t[i]
        for (i = 2; i < N - 2; i++)
            d[i] = c[i - 2] + c[i + 2] - c[i];
#pragma xmp loop on t[i]
        for (i = 2; i < N - 2; i++)
            c[i] = d[i];
    }
#pragma xmp loop on t[i] reduction(+:s1, s4)
    for (i = 0; i < N; i++) {
        s1 += a[i];
        s4 += c[i];
    }
#pragma xmp loop (i, j) on s[i][j] reduction(+:s2)
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++)
            s2 += g[i][j] * (i + 1);
    if (xmpc_node_num() == 0)
        printf("a: %.12e\ng: %.12e\nw: %.12e\nc: %lld\n", s1, s2, s3, s4);
    return 0;
}
