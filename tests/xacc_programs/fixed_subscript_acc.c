/* XcalableACC: tests/programs/loop_fixed_subscript.c with each loop an OpenACC construct
 * on the device copy of a (an acc data region).  A loop whose on-ref has a subscript
 * that is not one of its indices: in
 * `loop (j) on t[i][j]` iteration j runs on the owner of t[i][j] (reference section 6.1),
 * so the nodes that do not own row i run none, and their reduction variable keeps its
 * value.  Rows are block-distributed over the first dimension of p, columns over the
 * second.  Each node checks what it got against what it should have (the row sums follow
 * from a formula) and the number of wrong values is summed over the nodes.  Built without
 * xmpacc it is the serial program. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#define N 12

double a[N][N];
#pragma xmp nodes p[*][2]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][block] onto p
#pragma xmp align a[i][j] with t[i][j]

int main(void)
{
    int i, j, bad = 0, rows = 1, me = 0;
    double total = 0.0, s, want;
#ifdef _XCALABLEMP
    rows = xmp_num_nodes() / 2;      /* p's first extent */
    me = xmpc_node_num() / 2;        /* my row of p */
#endif
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            a[i][j] = 1.0 + i * 0.5 + j * 0.25;
#pragma acc data copy(a)
    for (i = 0; i < N; i++) {
        s = -1.0;   /* the owners of row i replace it; the other nodes keep it */
#pragma xmp loop (j) on t[i][j] reduction(+: s)
#pragma acc parallel loop reduction(+: s)
        for (j = 0; j < N; j++) {
            s += a[i][j] * (j + 1);
            a[i][j] = 2.0 * a[i][j];
        }
        want = -1.0;
        if (i / ((N + rows - 1) / rows) == me)
            for (j = 0; j < N; j++)
                want += (1.0 + i * 0.5 + j * 0.25) * (j + 1);
        bad += s != want;
    }
#pragma xmp reduction (+: bad)
#pragma xmp loop (i, j) on t[i][j] reduction(+: total)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            total += a[i][j];
#ifdef _XCALABLEMP
    if (xmpc_node_num() == 0)
#endif
    printf("wrong %d total %.6f\n", bad, total);
    return 0;
}
