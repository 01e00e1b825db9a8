/* gmove ... acc (XcalableACC.md §4): gmoves between device copies -- block and cyclic
 * distributed arrays, a local array and scalars, sections with steps, elements, fills from
 * a scalar, a distributed element and a constant, a shift within one array, async.  The
 * host copies are not touched until the data region ends (gmove_acc_serial.c: the same
 * with loops). */
#include <stdio.h>
#include <xmp.h>
#define N 12

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template tc[N]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute tc[cyclic] onto p
double a[N], b[N], c[N];
#pragma xmp align a[i] with t[i]
#pragma xmp align c[i] with t[i]
#pragma xmp align b[i] with tc[i]
double v[4], x, host_x;

int main(void)
{
    int i;
    double sa = 0, sb = 0, sc = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { a[i] = i + 1; c[i] = 0; }
#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++) b[i] = 100 + i;
#pragma acc data copy(a, b, c, v, x)
    {
#pragma xmp loop on t[i]
#pragma acc parallel loop
        for (i = 0; i < N; i++) a[i] = 2 * a[i];
#pragma xmp gmove acc
        c[1:N-1] = b[0:N-1];
#pragma xmp gmove acc
        v[0:4] = a[3:4];
#pragma xmp gmove acc
        b[N-4:4] = v[0:4];
#pragma xmp gmove acc
        x = a[N-1];
        host_x = x;                 /* the host copy: not written by a gmove acc */
#pragma xmp gmove acc
        a[0:N/3:3] = x;
#pragma xmp gmove acc
        c[7:3] = a[5];
#pragma xmp gmove acc async(1)
        c[0] = 7.5;
#pragma xmp wait_async (1) acc
#pragma xmp gmove acc
        a[1:N-1] = a[0:N-1];
#pragma xmp gmove acc
        b[0:N/2:2] = c[0:N/2:2];
    }
#pragma xmp loop on t[i] reduction(+: sa, sc)
    for (i = 0; i < N; i++) { sa += (i + 1) * a[i]; sc += (i + 1) * c[i]; }
#pragma xmp loop on tc[i] reduction(+: sb)
    for (i = 0; i < N; i++) sb += (i + 1) * b[i];
    if (xmpc_node_num() == 0)
        printf("a %.1f b %.1f c %.1f v %.1f %.1f %.1f %.1f x %.1f host x before %.1f\n",
               sa, sb, sc, v[0], v[1], v[2], v[3], x, host_x);
    return 0;
}
