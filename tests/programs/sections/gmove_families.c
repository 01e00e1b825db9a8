/* gmove between arrays on a node array with '*' in its reference (global-view §2, §6):
 * nodes row[2] = g[*][:] is one node array per row of g, so a, b, m and mt exist once
 * per row, and each row's gmove moves its own copy within that row's nodes: block to
 * cyclic, strided sections, a row-block matrix to a column-block one, a distributed row
 * into a local array and back, and 'gmove in'.  Every row must get the serial result:
 * the sums are compared with min and max over all nodes.  Needs an even number of nodes.
 * Serial meaning: gmove_families_serial.c. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 12

#pragma xmp nodes g[*][2]
#pragma xmp nodes row[2] = g[*][:]
#pragma xmp template t[N]
#pragma xmp template tc[N]
#pragma xmp template u[N][N]
#pragma xmp template v[N][N]
#pragma xmp distribute t[block] onto row
#pragma xmp distribute tc[cyclic] onto row
#pragma xmp distribute u[block][*] onto row
#pragma xmp distribute v[*][block] onto row
double a[N], b[N], m[N][N], mt[N][N];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with tc[i]
#pragma xmp align m[i][j] with u[i][j]
#pragma xmp align mt[i][j] with v[i][j]
double loc[N];

static void show(const char *label, double s)
{
    double lo = s, hi = s;
#pragma xmp reduction(min:lo)
#pragma xmp reduction(max:hi)
    if (xmpc_node_num() == 0) printf("%-8s %.2f %.2f\n", label, lo, hi);
}

static void sums(const char *label)
{
    double sa = 0, sb = 0, sm = 0, smt = 0, sl = 0;
    int i, j;
#pragma xmp loop on t[i] reduction(+:sa)
    for (i = 0; i < N; i++) sa += (i + 1) * a[i];
#pragma xmp loop on tc[i] reduction(+:sb)
    for (i = 0; i < N; i++) sb += (i + 1) * b[i];
#pragma xmp loop (i) on u[i][*] reduction(+:sm)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) sm += (i + 1) * (2 * j + 1) * m[i][j];
#pragma xmp loop (j) on v[*][j] reduction(+:smt)
    for (j = 0; j < N; j++)
        for (i = 0; i < N; i++) smt += (i + 1) * (3 * j + 1) * mt[i][j];
    for (i = 0; i < N; i++) sl += (i + 1) * loc[i];
    show(label, sa); show("  b", sb); show("  m", sm); show("  mt", smt); show("  loc", sl);
}

int main(void)
{
    int i, j;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = 3 * i - 7;
#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++) b[i] = 0;
#pragma xmp loop (i) on u[i][*]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) m[i][j] = i * N + j;
#pragma xmp loop (j) on v[*][j]
    for (j = 0; j < N; j++)
        for (i = 0; i < N; i++) mt[i][j] = 0;
    for (i = 0; i < N; i++) loc[i] = 100 + i;
    sums("start");

#pragma xmp gmove
    b[:] = a[:];                       /* block -> cyclic, within each row */
#pragma xmp gmove
    a[0:N/2] = b[1:N/2:2];             /* strided */
#pragma xmp gmove
    mt[:][:] = m[:][:];                /* row blocks -> column blocks */
#pragma xmp gmove
    loc[0:N/2] = mt[3][0:N/2];         /* distributed -> local (every node of the row) */
#pragma xmp gmove
    m[0][:] = loc[:];                  /* local -> distributed */
    sums("moved");

#pragma xmp gmove in
    loc[:] = b[:];
#pragma xmp gmove out
    a[:] = loc[0:N];
    sums("in/out");
    return 0;
}
