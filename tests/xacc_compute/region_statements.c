/* Statements besides acc loop nests in acc parallel / kernels regions (XcalableACC.md §2):
 * gang-redundant code on device data runs in one thread in order with the loop kernels;
 * code on scalars runs on the host, its scalars firstprivate (test_xacc_compute.py shows that
 * the host's x is unchanged; this program prints only what the serial build prints); an
 * 'acc atomic' between them is such a statement, and so is an array declared with an
 * initializer that reads device data; a scalar the region declares and a device statement
 * assigns later lives on the device, and so do pointers the region declares into device
 * arrays, through which loops and statements reach the elements. */
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
double a[N], c[N], e[N];
double total[1];

int main(void)
{
    int i, k;
    double x = 1.5, y = 0, sd = 0, inside = 0;
    for (i = 0; i < N; i++) { a[i] = i; c[i] = 0; e[i] = -i; }
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) d[i] = i;
#pragma acc parallel copy(a, c, total, d)
    {
        int n = N / 2;
        x = 2 * x;
        a[0] = x + n;
        double w[2][2] = {{a[0], 1}, {a[0] * 2}};   /* reads device data: a kernel fills it */
#pragma acc loop
        for (i = 1; i < n; i++) c[i] = a[0] * i + w[0][1] + w[1][0] - w[1][1];
        for (k = 0; k < 3; k++) c[k] += 1;
        if (a[0] > 10) { total[0] = c[1] + c[2]; } else total[0] = -1;
#pragma acc atomic update
        total[0] += 0.5;
#pragma xmp loop on t[i]
#pragma acc loop
        for (i = 0; i < N; i++) d[i] = d[i] + x;
    }
#pragma acc kernels copy(c)
    {
        c[N - 1] = 7;
#pragma acc atomic
        c[N - 1]++;
#pragma acc loop independent
        for (i = N / 2; i < N - 1; i++) c[i] = c[N - 1] + i;
    }
#pragma acc parallel copy(a, e)
    {
        double z;
        double *half = a + N / 2, *out;
        z = a[3];
        out = e + 1;
#pragma acc loop
        for (i = 0; i < N / 2; i++) half[i] = half[i] + z;
#pragma acc loop
        for (i = 0; i < N - 1; i++) out[i] = a[i] * 2;
        out[0] = half[0] + half[1];
    }
#pragma acc data copy(y)
    {
#pragma acc parallel
        {
            y = y + 1;
#pragma acc loop
            for (i = 0; i < N; i++) c[i] = c[i] + y;
        }
#pragma acc update host(y)
        inside = y;
    }
#pragma xmp loop on t[i] reduction(+:sd)
    for (i = 0; i < N; i++) sd += d[i];
    if (xmpc_node_num() == 0)
        printf("y %.1f inside %.1f a0 %.1f c %.1f %.1f %.1f %.1f total %.1f sd %.1f\n", y, inside, a[0],
               c[0], c[3], c[N / 2], c[N - 1], total[0], sd);
    if (xmpc_node_num() == 0)
        printf("pointers e %.1f %.1f %.1f %.1f a %.1f %.1f\n", e[0], e[1], e[5], e[N - 1], a[N / 2], a[N - 1]);
    return 0;
}
