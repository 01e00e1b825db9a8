/* The collective intrinsics (global-view §9) on four nodes: two-dimensional arrays on a
 * 2 x 2 node array (block x cyclic, cyclic(2) x block, an array replicated along one node
 * dimension), gblock on a 1-D node array, aligned pointers allocated by xmp_malloc, arrays
 * on a node subset used inside a task, 2-D gather and scatter (two index arrays), pack from
 * and unpack into a 2-D array, transpose across node arrays.  Results are checked with
 * loop reductions.  Serial meaning: this file built by cc with ../serial_xmp.h. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define R 6
#define C 9
#define N (R * C)

#pragma xmp nodes p[2][2]
#pragma xmp nodes q[4]
#pragma xmp nodes h[2] = q[2:2]
#pragma xmp template t[R][C]
#pragma xmp template u[C][R]
#pragma xmp template g[N]
#pragma xmp template k[R]
#pragma xmp template d[:][:]
#pragma xmp template th[N]
#pragma xmp distribute t[block][cyclic] onto p
#pragma xmp distribute u[cyclic(2)][block] onto p
#pragma xmp distribute g[gblock((int[]){20, 4, 0, 30})] onto q
#pragma xmp distribute k[block] onto q
#pragma xmp distribute d[cyclic][block] onto p
#pragma xmp distribute th[cyclic(4)] onto h
double m[R][C], mt[C][R], rr[R][C], sq[R][R], v[N], w[N], hv[N], hw[N];
int i0[N], i1[N], msk[R][C], hidx[N];
double (*dm)[C];
#pragma xmp align m[i][j] with t[i][j]
#pragma xmp align mt[i][j] with u[i][j]
#pragma xmp align rr[i][*] with t[i][*]
#pragma xmp align sq[i][*] with k[i]
#pragma xmp align v[i] with g[i]
#pragma xmp align w[i] with g[i]
#pragma xmp align i0[i] with g[i]
#pragma xmp align i1[i] with g[i]
#pragma xmp align msk[i][j] with u[j][i]
#pragma xmp align dm[i][j] with d[i][j]
#pragma xmp align hv[i] with th[i]
#pragma xmp align hw[i] with th[i]
#pragma xmp align hidx[i] with th[i]

static void show(const char *label, double s)
{
    if (xmpc_node_num() == 0) printf("%-14s %.2f\n", label, s);
}
static double sum_m(void) { double s = 0; int i, j;
#pragma xmp loop on t[i][j] reduction(+:s)
    for (i = 0; i < R; i++) for (j = 0; j < C; j++) s += (i + 2.0) * (j + 1) * m[i][j];
    return s; }
static double sum_v(double *x) { double s = 0; int i; (void)x;
#pragma xmp loop on g[i] reduction(+:s)
    for (i = 0; i < N; i++) s += (i + 1.0) * v[i];
    return s; }
static double sum_rr(void) { double s = 0, hi; int i, j;   /* every row's copies agree */
#pragma xmp loop on t[i][*] reduction(+:s)
    for (i = 0; i < R; i++) for (j = 0; j < C; j++) s += (i + 1.0) * (j + 2) * rr[i][j];
    hi = s;
#pragma xmp reduction(max:hi)
    return hi; }

int main(void)
{
    int i, j;
#pragma xmp template_fix d[R][C]
    dm = (double (*)[C]) xmp_malloc(xmp_desc_of(dm), R, C);
#pragma xmp loop on t[i][j]
    for (i = 0; i < R; i++) for (j = 0; j < C; j++) m[i][j] = 100 * i + j + 0.5;
#pragma xmp loop on u[j][i]
    for (i = 0; i < R; i++) for (j = 0; j < C; j++) msk[i][j] = (i + 2 * j) % 3 == 0;
#pragma xmp loop on g[i]
    for (i = 0; i < N; i++) { i0[i] = (7 * i) % R; i1[i] = (5 * i + 2) % C; v[i] = -1; w[i] = i * 0.25; }
#pragma xmp loop on t[i][*]
    for (i = 0; i < R; i++) for (j = 0; j < C; j++) rr[i][j] = 0;
#pragma xmp loop on d[i][j]
    for (i = 0; i < R; i++) for (j = 0; j < C; j++) dm[i][j] = i - j;

    xmp_gather(xmp_desc_of(v), xmp_desc_of(m), xmp_desc_of(i0), xmp_desc_of(i1));
    show("gather-2d", sum_v(v));
    xmp_scatter(xmp_desc_of(rr), xmp_desc_of(w), xmp_desc_of(i0), xmp_desc_of(i1));
    show("scatter-2d", sum_rr());
    xmp_pack(xmp_desc_of(v), xmp_desc_of(m), xmp_desc_of(msk));
    show("pack-2d", sum_v(v));
    xmp_unpack(xmp_desc_of(m), xmp_desc_of(w), xmp_desc_of(msk));
    show("unpack-2d", sum_m());
    xmp_transpose(xmp_desc_of(mt), xmp_desc_of(m), 0);
    xmp_transpose(xmp_desc_of(m), xmp_desc_of(mt), 0);
    show("transpose-2x", sum_m());
    xmp_gather(xmp_desc_of(v), xmp_desc_of(dm), xmp_desc_of(i0), xmp_desc_of(i1));
    show("gather-malloc", sum_v(v));
    xmp_transpose(xmp_desc_of(mt), xmp_desc_of(dm), 0);
    xmp_transpose(xmp_desc_of(dm), xmp_desc_of(mt), 1);
    xmp_matmul(xmp_desc_of(sq), xmp_desc_of(dm), xmp_desc_of(mt));   /* dm dm^T */
    xmp_matmul(xmp_desc_of(rr), xmp_desc_of(sq), xmp_desc_of(dm));
    show("matmul-malloc", sum_rr());
    xmp_sort_down(xmp_desc_of(w), xmp_desc_of(v));
    {   double s = 0;
#pragma xmp loop on g[i] reduction(+:s)
        for (i = 0; i < N; i++) s += (i + 1.0) * w[i];
        show("sort-gblock", s); }

#pragma xmp task on q[2:2]
    {
        double s = 0;
#pragma xmp loop on th[i]
        for (i = 0; i < N; i++) { hv[i] = (i * 13) % 17; hidx[i] = N - 1 - i; }
        xmp_sort_up(xmp_desc_of(hw), xmp_desc_of(hv));
        xmp_gather(xmp_desc_of(hv), xmp_desc_of(hw), xmp_desc_of(hidx));
#pragma xmp loop on th[i]
        for (i = 0; i < N; i++) s += (i + 1.0) * hv[i];
#pragma xmp reduction(+:s)
        if (xmpc_node_num() == 0) printf("%-14s %.2f\n", "task-subset", s);
    }
    xmp_free(dm);
    return 0;
}
