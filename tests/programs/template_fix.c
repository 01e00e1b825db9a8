/* Dynamic global data (global-view §4): templates whose size (t[:]) or gblock map
 * (gblock(*)) is given by template_fix at run time, arrays allocated by xmp_malloc after
 * it, a block(n) distribution, and a template fixed anew in every call of a function. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#pragma xmp nodes p[*]
#pragma xmp template t[:]
#pragma xmp distribute t[block] onto p
#pragma xmp template g(:)
#pragma xmp distribute g(gblock(*)) onto p
double *x;
#pragma xmp align x[i] with t[i]
#pragma xmp shadow x[1]
long *y;
#pragma xmp align y[i] with g(i+1)

/* a local template fixed with the argument: created, fixed and released per call */
static double window(int n)
{
#pragma xmp template w[:]
#pragma xmp distribute w[cyclic(2)] onto p
    float *v;
#pragma xmp align v[i] with w[i]
    double s = 0;
    int i;
#pragma xmp template_fix w[n]
    v = (float *) xmp_malloc(xmp_desc_of(v), n);
#pragma xmp loop on w[i]
    for (i = 0; i < n; i++)
        v[i] = 0.5f * i;
    if (n % 4 == 0)
        return -1;     /* early return: w and v are released all the same */
#pragma xmp loop on w[i] reduction(+:s)
    for (i = 0; i < n; i++)
        s += v[i];
    return s;
}

int main(void)
{
    int n = 37, i, k, np = xmp_num_nodes();
    int map[16];
    int bsz = (64 + np - 1) / np + 1;   /* block(n): n >= ceil(64 / np), the last node gets less */
#pragma xmp template b[64]
#pragma xmp distribute b[block(bsz)] onto p
    int z[64];
#pragma xmp align z[i] with b[i]
    for (k = 0; k < np; k++)          /* node k gets k+1 indices, the last one the rest */
        map[k] = k < np - 1 ? k + 1 : n - np * (np - 1) / 2;
#pragma xmp template_fix t[n]
#pragma xmp template_fix (gblock(map)) g(1:n)
    x = (double *) xmp_malloc(xmp_desc_of(x), n);
    y = (long *) xmp_malloc(xmp_desc_of(y), n);
#pragma xmp loop on t[i]
    for (i = 0; i < n; i++)
        x[i] = i * i;
#pragma xmp loop on g(i)
    for (i = 1; i <= n; i++)
        y[i - 1] = 3 * i;
#pragma xmp loop on b[i]
    for (i = 0; i < 64; i++)
        z[i] = i % 7;
#pragma xmp reflect (x)
    double s = 0;
    long sy = 0;
    int sz = 0;
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 1; i < n - 1; i++)
        s += x[i - 1] - 2 * x[i] + x[i + 1];
#pragma xmp loop on g(i) reduction(+:sy)
    for (i = 1; i <= n; i++)
        sy += y[i - 1];
#pragma xmp loop on b[i] reduction(+:sz)
    for (i = 0; i < 64; i++)
        sz += z[i];
    double sw = 0;
    for (k = 1; k <= 200; k++)
        sw += window(k);
    xmp_free(x);
    if (xmpc_node_num() == 0)
        printf("laplacian sum = %.1f  sum y = %ld  sum z = %d  windows = %.2f\n", s, sy, sz, sw);
    return 0;
}
