/* An XMP loop's reduction around an OpenACC construct where the variables are on the
 * device (XcalableACC.md §2, §4): the construct leaves each node's result in the device
 * copy (OpenACC 2.7: a reduction implies copy), and the XMP reduction combines the device
 * copies over the nodes, once; 'acc' on the loop says they must be there.  Scalars,
 * arrays and sections, from a data region, enter data and the construct's own copy; start
 * values that are not the identity, counted once.  A host loop's XMP reduction in the same
 * region keeps the host variable.  Every result equals the serial one. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 40
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N];
#pragma xmp align a[i] with t[i]

int main(void)
{
    int i, k;
    double s = 1.5, m = -1, r = 2, seen;
    int h[4] = {1, 0, 0, 0}, g[5] = {0, 10, 20, 0, 0}, bits = 64;
    long c = 3;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = (i * 7) % 13;

#pragma acc data copy(s, h, r) copyin(a)
    {
        /* a present scalar and a present array, without 'acc' on the loop */
#pragma xmp loop on t[i] reduction(+: s, h)
#pragma acc parallel loop
        for (i = 0; i < N; i++) {
            s += a[i];
            h[i % 4] += 1;
        }
#pragma acc update host(s)
        seen = s;

        /* a host loop's reduction keeps the host variable; update device puts it there */
#pragma xmp loop on t[i] reduction(+: r)
        for (i = 0; i < N; i++) r += 1;
#pragma acc update device(r)

        /* a second kernel reads the combined value from the device copy */
#pragma xmp loop on t[i]
#pragma acc parallel loop
        for (i = 0; i < N; i++) a[i] = a[i] + s + r;
#pragma acc update host(a)
    }

    /* 'acc' on the loop: enter data, the construct's reduction clause, max and | */
#pragma acc enter data copyin(m, bits)
#pragma xmp loop on t[i] reduction(max: m) reduction(|: bits) acc
#pragma acc parallel loop reduction(max: m) reduction(|: bits)
    for (i = 0; i < N; i++) {
        if (a[i] > m) m = a[i];
        bits |= 1 << (i % 6);
    }
#pragma acc exit data copyout(m, bits)

    /* a section, and a scalar the construct's own copy clause puts on the device */
#pragma acc data copy(g)
    {
#pragma xmp loop on t[i] reduction(+: g[1:3], c) acc
#pragma acc parallel loop copy(c)
        for (i = 0; i < N; i++) {
            g[1 + i % 3] += i;
            c += i % 2;
        }
    }
    if (xmpc_node_num() == 0) {
        printf("s in the region %g, after %g; r %g; h %d %d %d %d\n", seen, s, r, h[0], h[1], h[2], h[3]);
        printf("m %g bits %d\ng", m, bits);
        for (k = 0; k < 5; k++) printf(" %d", g[k]);
        printf(" c %ld\n", c);
    }
    return 0;
}
