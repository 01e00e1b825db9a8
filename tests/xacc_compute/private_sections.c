/* Subarrays in private lists (XcalableACC.md §2; OpenACC's private(list) of subarrays):
 * private(tmp[0:3]) of an array gives each thread the array, private(p[0:4]) of a pointer
 * gives each thread 4 elements for p to name, on a construct, on an XMP loop's construct
 * and on an inner acc loop; firstprivate(c[1:3]) of a pointer gives each thread those
 * elements with their values before the construct (copied in, or present already).
 * Sizes known only at run time (private(w[0:lo + n]), firstprivate(c[lo:n]), variable-
 * length arrays private and firstprivate, of one dimension and with rows of variable and of
 * constant lengths) give each thread its slot of a scratch buffer (kernel_private.py). */
#include <stdio.h>
#include <stdlib.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 24
#define K 4

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double d[N];
#pragma xmp align d[i] with t[i]
double a[N];

static double sized(int n, int lo)
{
    int i, j, k;
    double *w = malloc((lo + n) * sizeof(double)), *c = malloc((lo + n) * sizeof(double));
    double v[n], out[N], out2[N], out3[N], part = 0, total = 0, g[n][lo + 1], h[n][2];
    for (k = 0; k < lo + n; k++) c[k] = k * 1.5;
    for (k = 0; k < n; k++) v[k] = 100 + k;
    for (k = 0; k < n; k++)
        for (j = 0; j <= lo; j++) g[k][j] = k - 0.5 * j;
#pragma acc parallel loop private(w[0:lo + n]) firstprivate(c[lo:n]) copyout(out)
    for (i = 0; i < N; i++) {
        c[lo] = i * 0.25;
        for (k = 0; k < lo + n; k++) w[k] = c[lo + k % n] * (i + 1);
        out[i] = w[lo + n - 1] + w[0];
    }
#pragma xmp loop on t[i] reduction(+: part)
#pragma acc parallel loop firstprivate(v) private(w[lo:n])
    for (i = 0; i < N; i++) {
        v[0] = i;
        w[lo] = v[0] + v[n - 1];
        w[lo + n - 1] = w[lo] * 2;
        part += w[lo + n - 1];
    }
    /* rows of variable and of constant lengths */
#pragma acc parallel loop firstprivate(g) private(h) copyout(out3)
    for (i = 0; i < N; i++) {
        g[0][0] = i;
        for (k = 0; k < n; k++) {
            h[k][0] = g[k][lo] + i;
            h[k][1] = g[0][0];
        }
        out3[i] = h[n - 1][0] * h[0][1];
    }
    /* the host's v and w are not read after this: private copies are not the serial ones */
#pragma acc parallel loop private(v) copyout(out2)
    for (i = 0; i < N; i++) {
        for (k = 0; k < n; k++) v[k] = i + k;
        out2[i] = v[n - 1] * v[0];
    }
    for (i = 0; i < N; i++) total += out[i] + out2[i] + out3[i];
    free(w);
    free(c);
    return total + part;
}

int main(void)
{
    int i, k;
    double tmp[3], s = 0, sd = 0;
    double *w = malloc(K * sizeof(double)), *c = malloc(K * sizeof(double)), fs = 0, fd = 0;
    for (i = 0; i < N; i++) a[i] = 0;
    for (k = 0; k < K; k++) c[k] = 10.0 * (k + 1);
    /* firstprivate subarray of a pointer: each thread writes its own copy (an element the
     * serial build writes before it reads it in every iteration) */
#pragma acc parallel loop firstprivate(c[1:3]) reduction(+:fs)
    for (i = 0; i < N; i++) {
        c[1] = c[2] * 0.5 + i;
        fs += c[1] + c[3];
    }
#pragma acc data copy(a, d)
    {
#pragma acc parallel loop private(tmp[0:3], w[0:K])
        for (i = 0; i < N; i++) {
            for (k = 0; k < 3; k++) tmp[k] = i * (k + 1);
            for (k = 0; k < K; k++) w[k] = tmp[k % 3] - k;
            a[i] = tmp[2] + w[K - 1];
        }
#pragma xmp loop on t[i]
#pragma acc parallel loop private(w[1:2])
        for (i = 0; i < N; i++) {
            w[1] = 0.5 * i;
            w[2] = a[i] + w[1];
            d[i] = w[2] * 2;
        }
#pragma acc parallel loop
        for (i = 0; i < N; i++) {
#pragma acc loop seq private(tmp[1])
            for (k = 0; k < 2; k++) {
                tmp[1] = k + i;
                a[i] += tmp[1];
            }
        }
#pragma acc update host(a, d)
    }
    /* the same with the pointer's data present, under an XMP loop */
#pragma acc data copyin(c[0:K])
    {
#pragma xmp loop on t[i] reduction(+:fd)
#pragma acc parallel loop firstprivate(c[2:2])
        for (i = 0; i < N; i++) {
            c[2] = c[3] - i;
            fd += 2 * c[2];
        }
    }
#pragma xmp loop on t[i] reduction(+:sd)
    for (i = 0; i < N; i++) sd += d[i];
    for (i = 0; i < N; i++) s += a[i];
    if (xmpc_node_num() == 0)
        printf("s = %g, sd = %g, fs = %g, fd = %g, c = %g %g\n", s, sd, fs, fd, c[0], c[3]);
    s = sized(3, 2);
    sd = sized(5, 0);
    if (xmpc_node_num() == 0)
        printf("sized %g %g\n", s, sd);
    free(w);
    free(c);
    return 0;
}
