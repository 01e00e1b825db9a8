/* Collective intrinsics on arrays whose node array has '*' in its reference (global-view
 * §9, §6): nodes row[2] = g[*][:] is one node array per row of g, so a, b, ix and m exist
 * once per row and each row runs xmp_sort_up, xmp_gather and xmp_transpose on its own copy.
 * Both rows must get the serial result: their sums are compared with max and min over all
 * nodes.  Needs an even number of nodes. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 10

#pragma xmp nodes g[*][2]
#pragma xmp nodes row[2] = g[*][:]
#pragma xmp template t[N]
#pragma xmp template u[N][N]
#pragma xmp distribute t[cyclic(2)] onto row
#pragma xmp distribute u[block][*] onto row
double a[N], b[N], x[N], m[N][N], mt[N][N];
int ix[N];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp align x[i] with t[i]
#pragma xmp align ix[i] with t[i]
#pragma xmp align m[i][j] with u[i][j]
#pragma xmp align mt[i][j] with u[i][j]

static void show(const char *label, double s)
{
    double lo = s, hi = s;
#pragma xmp reduction(min:lo)
#pragma xmp reduction(max:hi)
    if (xmpc_node_num() == 0) printf("%-10s %.2f %.2f\n", label, lo, hi);
}

int main(void)
{
    int i, j;
    double s = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { a[i] = (i * 7) % N - 2.5; b[i] = 0; x[i] = 0; ix[i] = (3 * i + 1) % N; }
#pragma xmp loop (i) on u[i][*]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) { m[i][j] = i - 3 * j; mt[i][j] = 0; }

    xmp_sort_up(xmp_desc_of(b), xmp_desc_of(a));
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++) s += (i + 1) * b[i];
    show("sort", s);
    xmp_gather(xmp_desc_of(x), xmp_desc_of(b), xmp_desc_of(ix));
    s = 0;
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++) s += (i + 1) * x[i];
    show("gather", s);
    xmp_transpose(xmp_desc_of(mt), xmp_desc_of(m), 0);
    s = 0;
#pragma xmp loop (i) on u[i][*] reduction(+:s)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) s += (i + 1) * (j + 2) * mt[i][j];
    show("transpose", s);
    return 0;
}
