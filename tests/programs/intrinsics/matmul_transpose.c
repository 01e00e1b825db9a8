/* xmp_matmul and xmp_transpose (global-view §9) on any number of nodes: matrices of
 * different templates and distributions (row blocks, cyclic columns, cyclic(2) rows with
 * an offset, a collapsed dimension, a replicated matrix), double, float and int elements,
 * square and non-square shapes, a transpose within one square array's template pair.
 * Results are checked with loop reductions.  Serial meaning: this file built by cc with
 * ../serial_xmp.h. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define L 7
#define M 5
#define K 6

#pragma xmp nodes p[*]
#pragma xmp template tr[L][M]
#pragma xmp template tc[M][K]
#pragma xmp template tw[L + 2][K]
#pragma xmp template tq[K][L]
#pragma xmp template ts[M][M]
#pragma xmp template tx[L][8]
#pragma xmp distribute tr[block][*] onto p
#pragma xmp distribute tc[*][cyclic] onto p
#pragma xmp distribute tw[cyclic(2)][*] onto p
#pragma xmp distribute tq[*][block] onto p
#pragma xmp distribute ts[cyclic][*] onto p
#pragma xmp distribute tx[*][block] onto p
double a[L][M], b[M][K], c[L][K], ct[K][L], s[M][M], st[M][M], rep[L][M];
float fa[L][M], fb[M][K], fc[L][K];
int ia[L][M], ib[M][K], ic[L][K];
#pragma xmp align a[i][j] with tr[i][j]
#pragma xmp align b[i][j] with tc[i][j]
#pragma xmp align c[i][j] with tw[i + 1][j]
#pragma xmp align ct[i][j] with tq[i][j]
#pragma xmp align s[i][j] with ts[i][j]
#pragma xmp align st[i][*] with ts[i][*]
#pragma xmp align rep[i][*] with tx[i][*]
#pragma xmp align fa[i][j] with tr[i][j]
#pragma xmp align fb[i][j] with tc[i][j]
#pragma xmp align fc[i][j] with tw[i][j]
#pragma xmp align ia[i][*] with tr[i][*]
#pragma xmp align ib[*][j] with tc[*][j]
#pragma xmp align ic[i][j] with tq[j][i]

static void show(const char *label, double v)
{
    if (xmpc_node_num() == 0) printf("%-12s %.6e\n", label, v);
}
#define WEIGHT(i, j) ((i) + 1.0) * ((j) + 3.0)

int main(void)
{
    int i, j;
    double sum;
#pragma xmp loop on tr[i][j]
    for (i = 0; i < L; i++) for (j = 0; j < M; j++) {
        a[i][j] = 0.5 * i - j + 0.25; fa[i][j] = i + 2 * j; ia[i][j] = i - 2 * j; }
#pragma xmp loop on tc[i][j]
    for (i = 0; i < M; i++) for (j = 0; j < K; j++) {
        b[i][j] = 1.0 / (1 + i + j); fb[i][j] = j - i; ib[i][j] = 3 * i + j; }
#pragma xmp loop on ts[i][j]
    for (i = 0; i < M; i++) for (j = 0; j < M; j++) s[i][j] = 10 * i + j;
    for (i = 0; i < L; i++) for (j = 0; j < M; j++) rep[i][j] = i * j - 3;

    xmp_matmul(xmp_desc_of(c), xmp_desc_of(a), xmp_desc_of(b));
    sum = 0;
#pragma xmp loop on tw[i + 1][j] reduction(+:sum)
    for (i = 0; i < L; i++) for (j = 0; j < K; j++) sum += WEIGHT(i, j) * c[i][j];
    show("matmul", sum);

    xmp_matmul(xmp_desc_of(c), xmp_desc_of(rep), xmp_desc_of(b));     /* a replicated factor */
    sum = 0;
#pragma xmp loop on tw[i + 1][j] reduction(+:sum)
    for (i = 0; i < L; i++) for (j = 0; j < K; j++) sum += WEIGHT(i, j) * c[i][j];
    show("matmul-rep", sum);

    xmp_matmul(xmp_desc_of(fc), xmp_desc_of(fa), xmp_desc_of(fb));
    sum = 0;
#pragma xmp loop on tw[i][j] reduction(+:sum)
    for (i = 0; i < L; i++) for (j = 0; j < K; j++) sum += WEIGHT(i, j) * fc[i][j];
    show("matmul-float", sum);

    xmp_matmul(xmp_desc_of(ic), xmp_desc_of(ia), xmp_desc_of(ib));
    sum = 0;
#pragma xmp loop on tq[j][i] reduction(+:sum)
    for (i = 0; i < L; i++) for (j = 0; j < K; j++) sum += WEIGHT(i, j) * ic[i][j];
    show("matmul-int", sum);

    xmp_transpose(xmp_desc_of(ct), xmp_desc_of(c), 0);
    sum = 0;
#pragma xmp loop on tq[i][j] reduction(+:sum)
    for (i = 0; i < K; i++) for (j = 0; j < L; j++) sum += WEIGHT(i, j) * ct[i][j];
    show("transpose", sum);

    xmp_transpose(xmp_desc_of(st), xmp_desc_of(s), 1);
    sum = 0;
#pragma xmp loop on ts[i][*] reduction(+:sum)
    for (i = 0; i < M; i++) for (j = 0; j < M; j++) sum += WEIGHT(i, j) * st[i][j];
    show("transpose-sq", sum);

    xmp_transpose(xmp_desc_of(s), xmp_desc_of(s), 0);                 /* in place */
    sum = 0;
#pragma xmp loop on ts[i][j] reduction(+:sum)
    for (i = 0; i < M; i++) for (j = 0; j < M; j++) sum += WEIGHT(i, j) * s[i][j];
    show("transpose-in", sum);
    return 0;
}
