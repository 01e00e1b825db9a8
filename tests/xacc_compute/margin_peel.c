/* margin and peel_and_wait (global-view §7) on GPU loops, in both dialects (passes/kernel_ranges.py):
 * one launch per rim cell, the interior / wait_async / rim passes of peel_and_wait.  A
 * margin loop is not a serial computation (it writes shadows), so the kernels' margin
 * iterations and values are compared with the host loop's; peel_and_wait covers the
 * whole range and matches the serial build. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 24
#define M 10
double a[N][M], b[N][M], c[N][M], d[N][M], e[N][M];
#pragma xmp nodes p[*][1]
#pragma xmp template t[N][M]
#pragma xmp distribute t[block][block] onto p
#pragma xmp align a[i][j] with t[i][j]
#pragma xmp align b[i][j] with t[i][j]
#pragma xmp align c[i][j] with t[i][j]
#pragma xmp align d[i][j] with t[i][j]
#pragma xmp shadow c[1][0]
#pragma xmp shadow d[1][0]
#pragma xmp align e[i][j] with t[i][j]
#pragma xmp shadow e[1][0]
#pragma xmp shadow a[1][1]
int main(void)
{
    int i, j;
    double s = 0.0, h = 0.0;
    int on_device = 0, on_host = 0, differ = 0, in_paper = 0;
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            a[i][j] = i * 10 + j;
            b[i][j] = 0.0;
            c[i][j] = 0.0;
            d[i][j] = 0.0;
            e[i][j] = 0.0;
        }
#pragma xmp reflect (c)
#pragma xmp reflect (d)
#pragma xmp reflect (e)
    /* the paper's dialect: loop ... margin ... acc */
#pragma xmp acc replicate (e)
    {
#pragma xmp acc replicate_sync in (e)
#pragma xmp loop (i, j) on t[i][j] margin(1, 0) reduction(+:in_paper) acc
        for (i = 1; i < N - 1; i++)
            for (j = 0; j < M; j++) {
                e[i][j] = e[i][j] + i * 100 + j;
                in_paper += 1;
            }
#pragma xmp acc replicate_sync out (e)
    }
#pragma xmp reflect (a)
#pragma acc data copy(a, b, c)
    {
#pragma xmp reflect (a) async(7) acc
#pragma xmp loop (i, j) on t[i][j] peel_and_wait(7, 1, 1)
#pragma acc parallel loop collapse(2) reduction(+:s)
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < M - 1; j++) {
                b[i][j] = a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1];
                s += b[i][j];
            }
#pragma xmp loop (i, j) on t[i][j] margin(1, 0) reduction(+:on_device)
#pragma acc parallel loop collapse(2) reduction(+:on_device)
        for (i = 1; i < N - 1; i++)
            for (j = 0; j < M; j++) {
                c[i][j] = c[i][j] + i * 100 + j;
                on_device += 1;
            }
    }
#pragma xmp reduction (+:s)
    /* the same margin on the host (its iterations write the shadow of c and d) */
#pragma xmp loop (i, j) on t[i][j] margin(1, 0) reduction(+:on_host)
    for (i = 1; i < N - 1; i++)
        for (j = 0; j < M; j++) {
            d[i][j] = d[i][j] + i * 100 + j;
            on_host += 1;
        }
#pragma xmp loop (i, j) on t[i][j] margin(1, 0) reduction(+:differ)
    for (i = 1; i < N - 1; i++)
        for (j = 0; j < M; j++)
            differ += (c[i][j] != d[i][j]) + (e[i][j] != d[i][j]);
#pragma xmp loop (i, j) on t[i][j] reduction(+:h)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            h += b[i][j] * (i + 1) * (j + 1);
    if (xmpc_node_num() == 0)
        printf("s = %.1f h = %.3f margin iterations on the device = on the host: %d, shadow values differ: %d\n",
               s, h, on_device == on_host && in_paper == on_host, differ);
    return 0;
}
