/* XMP-ACC on dynamic data (global-view §4, §8): an xmp_malloc'ed array with a shadow in
 * an acc replicate region, reflect ... acc, and a kernel whose body declares a local
 * that hides an aligned array (C scoping inside the kernel). */
#include <stdio.h>
#include <xmp.h>

#pragma xmp nodes p[*]
#pragma xmp template t[:]
#pragma xmp distribute t[block] onto p
double *a, *b;
#pragma xmp align [i] with t[i] :: a, b
#pragma xmp shadow a[1]

int main(void)
{
    int n = 50, i;
#pragma xmp template_fix t[n]
    a = (double *) xmp_malloc(xmp_desc_of(a), n);
    b = (double *) xmp_malloc(xmp_desc_of(b), n);
#pragma xmp loop on t[i]
    for (i = 0; i < n; i++) {
        a[i] = i;
        b[i] = 0;
    }
    double s = 0;
#pragma xmp acc replicate (a, b)
    {
#pragma xmp acc replicate_sync in (a, b)
#pragma xmp reflect (a) acc
#pragma xmp loop on t[i] acc
        for (i = 1; i < n - 1; i++) {
            b[i] = a[i - 1] + a[i + 1];
            {
                double a = 0.5;
                b[i] += a;
            }
        }
#pragma xmp acc replicate_sync out (b)
    }
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < n; i++)
        s += b[i];
    if (xmpc_node_num() == 0)
        printf("sum = %.1f\n", s);
    return 0;
}
