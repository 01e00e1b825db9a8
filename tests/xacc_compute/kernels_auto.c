/* for loops without 'acc loop' in 'acc kernels' (XcalableACC.md §2; OpenACC leaves their
 * parallelisation to the compiler, passes/acc_kernels_auto.py): independent loops run one
 * thread per iteration (with + and * reductions and private scalars found), loops that
 * carry a value from one iteration to the next run in order in one thread; every result
 * equals the serial one.  Also in an XMP program, with an XMP loop after the region. */
#include <stdio.h>
#include <stdlib.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 48
#define M 5

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double d[N];
#pragma xmp align d[i] with t[i]
double a[N], b[N], c[N], g[N][M];

int main(void)
{
    int i, j, last = -1, count = 0;
    double s = 0, prod = 1, tmp, run = 0, sd = 0;
    double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
    double *restrict z = malloc(N * sizeof(double));
    for (i = 0; i < N; i++) { b[i] = i % 7; c[i] = 0.5 * i; x[i] = i; y[i] = 0; z[i] = 0; }
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) d[i] = i;
#pragma acc data copy(a, b, c, g, d) copy(x[0:N], y[0:N], z[0:N])
    {
#pragma acc kernels
        {
            for (i = 0; i < N; i++) a[i] = b[i] + c[i];              /* independent */
            for (i = 0; i < N; i++) s += a[i];                       /* + reduction */
            for (i = 1; i < 11; i++) prod *= 1.0 + 1.0 / i;          /* * reduction */
            for (i = 0; i < N; i++) { tmp = a[i] * 2; b[i] = tmp - 1; }   /* private tmp */
            for (i = 1; i < N; i++) c[i] = c[i - 1] + b[i];          /* carried: one thread */
            for (i = 0; i < N; i++)                                  /* independent over i */
                for (j = 1; j < M; j++) g[i][j] = g[i][j - 1] + a[i] + j;
            for (i = 0; i < N; i++) { run = run * 0.5 + a[i]; y[i] = run; }   /* carried scalar */
            for (i = 0; i < N; i++) y[i] = y[i] + x[i];              /* pointers may alias */
            for (i = 0; i < N; i++) z[i] = x[i] * 2;                 /* restrict */
            for (i = 0; i < N; i++) if (a[i] > 20) { last = i; count++; }   /* one thread */
        }
#pragma acc kernels loop
        for (i = 1; i < N; i++) b[i] = b[i - 1] * 0.5 + b[i];      /* 'kernels loop' is auto too */
#pragma acc kernels loop collapse(2)
        for (i = 0; i < N; i++)
            for (j = 0; j < M; j++) g[i][j] = g[i][j] * 2;           /* independent over i and j */
#pragma acc parallel loop tile(16, *)
        for (i = 0; i < N; i++)
            for (j = 0; j < M; j++) g[i][j] = g[i][j] + i - j;       /* tile: a hint, both loops threads */
#pragma acc update host(a, b, c, g, d, x[0:N], y[0:N], z[0:N])
    }
    double sg = 0, sy = 0, sz = 0, sc = 0, sb = 0;
    for (i = 0; i < N; i++) { sb += b[i]; sc += c[i]; sy += y[i]; sz += z[i]; for (j = 0; j < M; j++) sg += g[i][j]; }
#pragma xmp loop on t[i] reduction(+:sd)
    for (i = 0; i < N; i++) sd += d[i] + a[i];
    if (xmpc_node_num() == 0)
        printf("s = %.6f prod = %.6f sb = %.6f sc = %.6f sg = %.6f run = %.6f sy = %.6f sz = %.6f last = %d "
               "count = %d sd = %.3f\n", s, prod, sb, sc, sg, run, sy, sz, last, count, sd);
    free(x); free(y); free(z);
    return 0;
}
