/* xmp_sort_up/down and xmp_matmul with descriptors held in variables (global-view §9):
 * xmp_desc_t variables set from xmp_desc_of, passed through a function's parameters, for
 * double, float and int elements (the type travels in the descriptor).  Results are
 * checked with loop reductions.  Serial meaning: this file built by cc with
 * ../serial_xmp.h. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 13
#define L 4
#define M 3

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template u[N]
#pragma xmp template tm[L][M]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute u[cyclic(2)] onto p
#pragma xmp distribute tm[block][*] onto p
double a[N], b[N];
float f[N], g[N];
int ia[N], ib[N];
double ma[L][M], mb[M][M], mc[L][M];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with u[i]
#pragma xmp align f[i] with u[i]
#pragma xmp align g[i] with t[i]
#pragma xmp align ia[i] with t[i]
#pragma xmp align ib[i] with u[i]
#pragma xmp align ma[i][j] with tm[i][j]
#pragma xmp align mb[i][*] with tm[i][*]
#pragma xmp align mc[i][j] with tm[i][j]

static void sort_both(xmp_desc_t dst, xmp_desc_t src, int down)
{
    if (down)
        xmp_sort_down(dst, src);
    else
        xmp_sort_up(dst, src);
}

int main(void)
{
    int i, j;
    double sb = 0, sg = 0, sib = 0, sc = 0;
    xmp_desc_t da = xmp_desc_of(a), db = xmp_desc_of(b);
    xmp_desc_t df, dg, dia = xmp_desc_of(ia), dib = xmp_desc_of(ib);
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { a[i] = (i * 7) % N - 4.5; g[i] = 0; ia[i] = (i * 5) % 4 - 2; }
#pragma xmp loop on u[i]
    for (i = 0; i < N; i++) { b[i] = 0; f[i] = (float)((i * 3) % N) / 4; ib[i] = 0; }
#pragma xmp loop (i, j) on tm[i][j]
    for (i = 0; i < L; i++)
        for (j = 0; j < M; j++) { ma[i][j] = i + 2 * j; mc[i][j] = 0; }
#pragma xmp loop (i) on tm[i][*]
    for (i = 0; i < M; i++)
        for (j = 0; j < M; j++) mb[i][j] = (i == j) + j;

    xmp_sort_up(db, da);
    df = xmp_desc_of(f);
    dg = xmp_desc_of(g);
    sort_both(dg, df, 1);
    sort_both(dib, dia, 0);
    {
        xmp_desc_t dc = xmp_desc_of(mc), dma = xmp_desc_of(ma), dmb = xmp_desc_of(mb);
        xmp_matmul(dc, dma, dmb);
    }
#pragma xmp loop on u[i] reduction(+:sb, sib)
    for (i = 0; i < N; i++) { sb += (i + 1) * b[i]; sib += (i + 1) * ib[i]; }
#pragma xmp loop on t[i] reduction(+:sg)
    for (i = 0; i < N; i++) sg += (i + 1) * g[i];
#pragma xmp loop (i, j) on tm[i][j] reduction(+:sc)
    for (i = 0; i < L; i++)
        for (j = 0; j < M; j++) sc += (i + 1) * (j + 2) * mc[i][j];
    if (xmpc_node_num() == 0) printf("sort %.3f %.3f %.1f matmul %.1f\n", sb, sg, sib, sc);
    return 0;
}
