/* gmove between arrays on node subsets (global-view §2, "different ... node sets"):
 * arrays on h = p[2:2] (the last two of four nodes), on o = p[1:2:2] (every other node),
 * on f = p[0:2] (disjoint from h), on a 2-D subset q[2][2] = p[0:4], on rv = p[3:2:-1]
 * (h's nodes in the other order) and on the whole job;
 * gmove between each pair, collective, and 'in'/'out' inside a task on a subset.
 * Sums are taken by each node over the elements it owns and added with a reduction over
 * the whole job (not with gmove).  Runs on 4 and 8 nodes.
 * Serial meaning: gmove_subsets_serial.c. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 16

#pragma xmp nodes p[*]
#pragma xmp nodes h[2] = p[2:2]
#pragma xmp nodes o[2] = p[1:2:2]
#pragma xmp nodes f[2] = p[0:2]
#pragma xmp nodes q[2][2] = p[0:4]
#pragma xmp nodes rv[2] = p[3:2:-1]
#pragma xmp template th[N]
#pragma xmp template to[N]
#pragma xmp template tf[N]
#pragma xmp template tp[N]
#pragma xmp template tq[N][N]
#pragma xmp template tr[N]
#pragma xmp distribute th[block] onto h
#pragma xmp distribute to[cyclic] onto o
#pragma xmp distribute tf[cyclic(3)] onto f
#pragma xmp distribute tp[block] onto p
#pragma xmp distribute tq[block][cyclic] onto q
#pragma xmp distribute tr[block] onto rv
double a[N], b[N], c[N], w[N], m[N][N], mw[N][N], r[N];
#pragma xmp align a[i] with th[i]
#pragma xmp align b[i] with to[i]
#pragma xmp align c[i] with tf[i]
#pragma xmp align w[i] with tp[i]
#pragma xmp align m[i][j] with tq[i][j]
#pragma xmp align mw[i][*] with tp[i]
#pragma xmp align r[i] with tr[i]

double loc[N];

static double total(double s)
{
#pragma xmp reduction(+:s)
    return s;
}

static void sums(const char *label)
{
    double sa = 0, sb = 0, sc = 0, sw = 0, sm = 0, smw = 0;
    int i, j;
#pragma xmp loop on th[i]
    for (i = 0; i < N; i++) sa += (i + 1) * a[i];
#pragma xmp loop on to[i]
    for (i = 0; i < N; i++) sb += (i + 1) * b[i];
#pragma xmp loop on tf[i]
    for (i = 0; i < N; i++) sc += (i + 1) * c[i];
#pragma xmp loop on tp[i]
    for (i = 0; i < N; i++) sw += (i + 1) * w[i];
#pragma xmp loop (i, j) on tq[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) sm += (i + 1) * (2 * j + 1) * m[i][j];
#pragma xmp loop on tp[i]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) smw += (i + 1) * (3 * j + 1) * mw[i][j];
    sa = total(sa); sb = total(sb); sc = total(sc); sw = total(sw); sm = total(sm); smw = total(smw);
    if (xmpc_node_num() == 0)
        printf("%-8s a %.1f b %.1f c %.1f w %.1f m %.1f mw %.1f\n", label, sa, sb, sc, sw, sm, smw);
}

int main(void)
{
    int i, j;
#pragma xmp loop on th[i]
    for (i = 0; i < N; i++) a[i] = 0;
#pragma xmp loop on to[i]
    for (i = 0; i < N; i++) b[i] = 0;
#pragma xmp loop on tf[i]
    for (i = 0; i < N; i++) c[i] = 0;
#pragma xmp loop on tp[i]
    for (i = 0; i < N; i++) w[i] = 10 * i + 1;
#pragma xmp loop (i, j) on tq[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) m[i][j] = 0;
#pragma xmp loop on tp[i]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) mw[i][j] = 100 * i + j;
    for (i = 0; i < N; i++) loc[i] = 0;
    sums("start");

#pragma xmp gmove
    a[:] = w[:];                       /* whole job -> subset h */
#pragma xmp gmove
    c[:] = a[N-1::-1];                 /* h -> f, disjoint subsets, reversed */
#pragma xmp gmove
    b[0:8] = a[8:8];                   /* h -> o, overlapping subsets */
#pragma xmp gmove
    b[8:8:1] = c[0:8:2];               /* f -> o, strided */
#pragma xmp gmove
    w[0:N/2] = b[1:N/2:2];             /* subset o -> whole job */
    sums("subsets");

#pragma xmp gmove
    m[:][:] = mw[:][:];                /* whole job -> 2-D subset q */
#pragma xmp gmove
    m[3][:] = w[:];                    /* a row of the 2-D subset array */
#pragma xmp gmove
    mw[:][5] = m[:][N-1];              /* a column back to the whole job */
#pragma xmp gmove
    a[:] = m[:][2];                    /* q -> h */
    sums("2-D");

#pragma xmp task on h
    {
#pragma xmp gmove in
        loc[:] = c[:];                 /* c lives on f, outside the task */
#pragma xmp gmove out
        b[:] = loc[N-1::-1];           /* b lives on o = p[1], p[3]: one of them outside */
#pragma xmp gmove
        a[0:4] = a[12:4];              /* collective within the task: a is on h */
#pragma xmp gmove out
        m[0][:] = a[:];
#pragma xmp gmove in
        loc[0:4] = m[N-1][0:4];
    }
    /* loc is only meaningful on h's nodes: p[2] (the first of them) passes it on */
#pragma xmp bcast (loc) from p[2]
    {
        double sl = 0;
        for (i = 0; i < N; i++) sl += (i + 1) * loc[i];
        if (xmpc_node_num() == 0) printf("loc %.1f\n", sl);
    }
    sums("task");

#pragma xmp task on f
    {
#pragma xmp gmove
        c[0:N/2] = c[N/2:N/2];         /* collective within a task on c's own nodes */
    }
    sums("end");

#pragma xmp gmove
    r[:] = a[:];                       /* h -> rv: the same nodes, the other order */
#pragma xmp gmove
    r[0:N/2] = r[N/2:N/2];             /* within rv */
    {
        double sr = 0;
#pragma xmp loop on tr[i]
        for (i = 0; i < N; i++) sr += (i + 1) * r[i];
        sr = total(sr);
        if (xmpc_node_num() == 0) printf("reversed %.1f\n", sr);
    }
    return 0;
}
