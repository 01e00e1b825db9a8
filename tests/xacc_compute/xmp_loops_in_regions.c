/* XMP loops inside OpenACC regions: an XMP loop with an acc loop gang and an inner
 * vector reduction in a 'parallel' region of a function called in main's data region
 * (its scalar under 'declare create', reduced over the nodes by reduction ... acc), an
 * XMP loop without an acc loop in a 'kernels' region (XMP says its iterations are
 * independent: one thread per iteration), reflect ... acc async with wait_async ... acc,
 * an async construct and acc wait, and update host of a global-index section. */
#include <stdio.h>
#include <math.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 32
#define M 24
float a[N][M], b[N][M];
float edge[M];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i][*] with t[i]
#pragma xmp align b[i][*] with t[i]
#pragma xmp shadow a[1][0]

static float total(void)
{
    int i, j;
    float s = 0;
#pragma acc declare create(s)
#pragma acc parallel present(a)
    {
#pragma xmp loop (i) on t[i]
#pragma acc loop gang reduction(+: s)
        for (i = 0; i < N; i++) {
#pragma acc loop vector reduction(+: s)
            for (j = 0; j < M; j++)
                s += a[i][j];
        }
    }
#pragma xmp reduction (+: s) acc
#pragma acc update host(s)
    return s;
}

int main(void)
{
    int i, j, k;
    float m = 0, s1, s2;
#pragma xmp loop (i) on t[i]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) a[i][j] = (i * M + j) % 17 * 0.25f;
#pragma acc data copy(a) create(b)
    {
        for (k = 0; k < 3; k++) {
#pragma xmp reflect (a) acc async(1)
#pragma xmp wait_async (1) acc
#pragma acc kernels
            {
#pragma xmp loop (i) on t[i]
                for (i = 1; i < N - 1; i++)
                    for (j = 0; j < M; j++)
                        b[i][j] = 0.5f * (a[i - 1][j] + a[i + 1][j]);
            }
#pragma xmp loop (i) on t[i]
#pragma acc parallel loop collapse(2) async(2)
            for (i = 1; i < N - 1; i++)
                for (j = 0; j < M; j++)
                    a[i][j] = b[i][j];
#pragma acc wait(2)
        }
        s1 = total();
#pragma acc update host(a[N - 1:1][0:M])
#pragma xmp loop (i) on t[i] reduction(max: m)
        for (i = N - 1; i < N; i++)
            for (j = 0; j < M; j++) m = fmaxf(m, a[i][j]);
    }
    s2 = 0;
#pragma xmp loop (i) on t[i] reduction(+: s2)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) s2 += a[i][j];
    if (xmpc_node_num() == 0)
        printf("%.3f %.3f %.3f\n", s1, s2, m);
    return 0;
}
