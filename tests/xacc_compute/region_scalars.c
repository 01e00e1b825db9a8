/* Scalars computed from device data by the gang-redundant code of acc parallel / kernels
 * regions (XcalableACC.md §2, acc_region.py): a declaration whose initializer reads device
 * data, an outside scalar that a device statement assigns (parallel: firstprivate, the host
 * value stays; kernels: copied back, as OpenACC 2.5 says), a scalar statement that reads
 * such a scalar, arrays the region declares (one device array for the construct); later
 * loops see the values. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 32

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double d[N];
#pragma xmp align d[i] with t[i]
double a[N], c[N];

int main(void)
{
    int i;
    double m = -1, q = 0, sc = 0, sa = 0, sd = 0;
    for (i = 0; i < N; i++) { a[i] = i + 1; c[i] = 0; }
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) d[i] = i;
#pragma acc parallel copy(a, c, d)
    {
        double z = a[3] * 2;
        m = a[5];
        int w = (int) m + 1;
#pragma acc loop
        for (i = 0; i < N; i++) c[i] = z + m + w + i;
#pragma xmp loop on t[i]
#pragma acc loop
        for (i = 0; i < N; i++) d[i] = d[i] + z;
    }
#pragma acc parallel copy(a, c)
    {
        double coef[3] = {0.5, 0.25, 0.125};
        double w2[2];
        w2[0] = a[1] * coef[0];
        w2[1] = coef[2];
#pragma acc loop
        for (i = 0; i < N; i++) c[i] = c[i] + w2[0] + w2[1] * i;
    }
#pragma acc kernels copy(a, c)
    {
        q = c[2];
        c[0] = q + 1;
#pragma acc loop independent
        for (i = 0; i < N; i++) a[i] = a[i] + q;
    }
    for (i = 0; i < N; i++) { sc += c[i]; sa += a[i]; }
#pragma xmp loop on t[i] reduction(+:sd)
    for (i = 0; i < N; i++) sd += d[i];
    if (xmpc_node_num() == 0)
        printf("q %.1f sc %.1f sa %.1f sd %.1f\n", q, sc, sa, sd);
    return 0;
}
