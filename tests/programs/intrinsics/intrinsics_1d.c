/* The collective intrinsics (global-view §9) on one-dimensional arrays of block, cyclic,
 * cyclic(3) (with an align offset) and replicated mappings, on any number of nodes:
 * gather and scatter (duplicate indices: the last write wins), pack and unpack, sort up
 * and down (duplicates, int and double), with int and long index arrays.  Each result is
 * checked with loop reductions (no intrinsic involved).  Serial meaning: this file built
 * by cc with ../serial_xmp.h. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 17

#pragma xmp nodes p[*]
#pragma xmp template tb[N]
#pragma xmp template tc[N]
#pragma xmp template tw[N + 4]
#pragma xmp template tr[N][4]
#pragma xmp distribute tb[block] onto p
#pragma xmp distribute tc[cyclic] onto p
#pragma xmp distribute tw[cyclic(3)] onto p
#pragma xmp distribute tr[*][block] onto p
double a[N], b[N], c[N], r[N];
int ia[N], ib[N], mask[N], sa[N], sb[N];
long lc[N];
#pragma xmp align a[i] with tb[i]
#pragma xmp align b[i] with tc[i]
#pragma xmp align c[i] with tw[i + 2]
#pragma xmp align r[i] with tr[i][*]
#pragma xmp align ia[i] with tb[i]
#pragma xmp align ib[i] with tc[i]
#pragma xmp align mask[i] with tw[i + 2]
#pragma xmp align sa[i] with tc[i]
#pragma xmp align sb[i] with tw[i + 1]
#pragma xmp align lc[i] with tw[i]
#pragma xmp shadow a[1]

static void show(const char *label, double s)
{
    if (xmpc_node_num() == 0) printf("%-14s %.1f\n", label, s);
}
static double sum_a(void) { double s = 0; int i;
#pragma xmp loop on tb[i] reduction(+:s)
    for (i = 0; i < N; i++) s += (i + 1) * a[i];
    return s; }
static double sum_b(void) { double s = 0; int i;
#pragma xmp loop on tc[i] reduction(+:s)
    for (i = 0; i < N; i++) s += (i + 1) * b[i];
    return s; }
static double sum_c(void) { double s = 0; int i;
#pragma xmp loop on tw[i + 2] reduction(+:s)
    for (i = 0; i < N; i++) s += (i + 1) * c[i];
    return s; }
static double sum_sb(void) { double s = 0; int i;
#pragma xmp loop on tw[i + 1] reduction(+:s)
    for (i = 0; i < N; i++) s += (i + 1) * sb[i];
    return s; }
/* every node's copy of r, weighted; the extremes over the nodes agree when every copy does */
static void show_r(const char *label) { double s = 0, lo, hi; int i;
    for (i = 0; i < N; i++) s += (i + 1) * r[i];
    lo = hi = s;
#pragma xmp reduction(min:lo)
#pragma xmp reduction(max:hi)
    show(label, lo);
    show("  (same)", hi); }

static void init(void)
{
    int i;
#pragma xmp loop on tb[i]
    for (i = 0; i < N; i++) { a[i] = 10 * i + 0.5; ia[i] = (5 * i + 3) % N; }
#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++) { b[i] = -1; ib[i] = (i * i) % N; sa[i] = (7 * i) % 5 - 2; }
#pragma xmp loop on tw[i + 2]
    for (i = 0; i < N; i++) { c[i] = -2; mask[i] = i % 3 != 1; }
#pragma xmp loop on tw[i]
    for (i = 0; i < N; i++) lc[i] = N - 1 - (2 * i) % N;
#pragma xmp loop on tw[i + 1]
    for (i = 0; i < N; i++) sb[i] = 0;
    for (i = 0; i < N; i++) r[i] = 0;
}

int main(void)
{
    init();
    xmp_gather(xmp_desc_of(b), xmp_desc_of(a), xmp_desc_of(ib));       /* b[k] = a[ib[k]] */
    show("gather", sum_b());
    xmp_gather(xmp_desc_of(r), xmp_desc_of(b), xmp_desc_of(lc));       /* into a replicated array */
    show_r("gather-repl");
    xmp_gather(xmp_desc_of(c), xmp_desc_of(r), xmp_desc_of(ia));       /* from a replicated array */
    show("gather-from-r", sum_c());
    xmp_scatter(xmp_desc_of(c), xmp_desc_of(a), xmp_desc_of(ib));      /* duplicates: last wins */
    show("scatter", sum_c());
    xmp_scatter(xmp_desc_of(r), xmp_desc_of(b), xmp_desc_of(ia));      /* into every copy */
    show_r("scatter-repl");
    xmp_pack(xmp_desc_of(b), xmp_desc_of(a), xmp_desc_of(mask));       /* rest of b unchanged */
    show("pack", sum_b());
    xmp_pack(xmp_desc_of(r), xmp_desc_of(c), xmp_desc_of(mask));
    show_r("pack-repl");
    xmp_unpack(xmp_desc_of(a), xmp_desc_of(c), xmp_desc_of(mask));
    show("unpack", sum_a());
    xmp_unpack(xmp_desc_of(r), xmp_desc_of(b), xmp_desc_of(mask));
    show_r("unpack-repl");
    xmp_sort_up(xmp_desc_of(c), xmp_desc_of(a));
    show("sort-up", sum_c());
    xmp_sort_down(xmp_desc_of(b), xmp_desc_of(c));
    show("sort-down", sum_b());
    xmp_sort_up(xmp_desc_of(sb), xmp_desc_of(sa));                     /* many duplicates */
    show("sort-int", sum_sb());
    xmp_sort_down(xmp_desc_of(r), xmp_desc_of(b));
    show_r("sort-repl");
    xmp_sort_up(xmp_desc_of(a), xmp_desc_of(r));
    show("sort-from-r", sum_a());
    return 0;
}
