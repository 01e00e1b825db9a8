/* async on compute constructs (XcalableACC.md §3): kernels on queues, in order within a
 * queue, a wait clause between queues, acc wait, a reduction and an XMP loop on a queue;
 * the OpenACC 2.6 forms wait(devnum: d : queues: n) (device 0: the one of the host backend,
 * on GPUs the node's first, which the others' waits skip) and wait(queues: n). */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 64

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double d[N];
#pragma xmp align d[i] with t[i]
double a[N], b[N], c[N];

int main(void)
{
    int i, k;
    double s = 0, sd = 0;
    for (i = 0; i < N; i++) { a[i] = i; b[i] = 0; c[i] = 1; }
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) d[i] = 0.5 * i;
#pragma acc data copy(a, b, c, d)
    {
        for (k = 0; k < 3; k++) {
#pragma acc parallel loop async(1)
            for (i = 0; i < N; i++) a[i] = a[i] + 1;
#pragma acc kernels loop async(1)
            for (i = 0; i < N; i++) b[i] = 2 * a[i] - k;
#pragma acc parallel loop async(2) wait(1)
            for (i = 0; i < N; i++) c[i] = c[i] + b[i];
        }
#pragma acc parallel async(3) wait(2)
        {
#pragma acc loop
            for (i = 0; i < N; i++) a[i] = c[i] - a[i];
#pragma acc loop
            for (i = 1; i < N; i += 2) b[i] = -b[i];
        }
#pragma xmp loop on t[i]
#pragma acc parallel loop async
        for (i = 0; i < N; i++) d[i] = d[i] * 3 + 1;
#pragma acc wait
#pragma acc parallel loop reduction(+:s) async(4)
        for (i = 0; i < N; i++) s += a[i] + b[i];
#pragma acc wait(devnum: 0 : queues: 4)
#pragma acc wait(queues: 4)
#pragma acc update host(a, b, c, d)
    }
#pragma xmp loop on t[i] reduction(+:sd)
    for (i = 0; i < N; i++) sd += d[i];
    if (xmpc_node_num() == 0)
        printf("s %.1f a %.1f b %.1f c %.1f sd %.1f\n", s, a[N - 1], b[N - 2], c[7], sd);
    return 0;
}
