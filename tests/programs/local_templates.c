/* Nodes, templates and arrays declared inside functions (global-view §4): created when the
 * block is entered, released on every way out of it (return in the middle, break, goto),
 * in a function called thousands of times.  Aligned parameters describe the caller's
 * local block.  tests/test_library.py also checks that no descriptor is left behind. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 40

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N];
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[1]

/* an aligned parameter: v is the caller's local block of a, mapped as a is */
static double neighbours(double v[N], int i0)
{
#pragma xmp align v[i] with t[i]
#pragma xmp shadow v[1]
    double s = 0;
    int i;
#pragma xmp reflect (v)
#pragma xmp loop on t[i] reduction(+:s)
    for (i = i0; i < N - 1; i++)
        s += v[i - 1] + v[i + 1];
    return s;
}

static double work(int round, int n)
{
#pragma xmp nodes q[*]
#pragma xmp template tl[64]
#pragma xmp distribute tl[cyclic] onto q
    double b[64];
#pragma xmp align b[i] with tl[i]
    double *c;
#pragma xmp align c[i] with tl[i]
    double s = 0;
    int i, k;
    c = (double *) xmp_malloc(xmp_desc_of(c), 64);
#pragma xmp loop on tl[i]
    for (i = 0; i < n; i++) {
        b[i] = round + i;
        c[i] = 1.0 / (i + 1);
    }
    if (round % 5 == 0)
        return -round;                    /* early return */
    for (k = 0; k < 3; k++) {
        double t2 = 0;
#pragma xmp template inner[8]
#pragma xmp distribute inner[block] onto q
        if (k == round % 3)
            break;                        /* leaves the block of inner */
#pragma xmp loop on inner[i] reduction(+:t2)
        for (i = 0; i < 8; i++)
            t2 += i;
        s += t2;
    }
    if (round % 7 == 0)
        goto out;
#pragma xmp loop on tl[i] reduction(+:s)
    for (i = 0; i < n; i++)
        s += b[i] * c[i];
out:
    return s;
}

int main(void)
{
    int r, i;
    double total = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        a[i] = i;
    for (r = 0; r < 300; r++)
        total += work(r, 16 + r % 48);
    double s = neighbours(a, 1) + neighbours(a, 5);
    if (xmpc_node_num() == 0)
        printf("total = %.6f  neighbours = %.1f\n", total, s);
    return 0;
}
