/* The mapping inquiry functions on a 3 x 4 node grid (issue 30; 12 nodes), numbered as
 * Omni numbers them: a node array's and a template's dimensions in Fortran order (the
 * order of the parenthesised syntax), an array's in C order.  Every node indexes tables
 * by what the functions return, as applications do, so a dimension taken for another
 * overruns them; node 0 prints what it saw and the sums over all nodes.  The expected
 * output is in tests/test_conformance.py. */
#include <stdio.h>
#include <xmp.h>

#define N 10
#define M 7

#pragma xmp nodes p(3,4)
#pragma xmp nodes q[4][3]
#pragma xmp template t(0:N-1, 0:M-1)
#pragma xmp distribute t(block, cyclic) onto p
#pragma xmp template tq[M][N]
#pragma xmp distribute tq[cyclic][block] onto q
double a[M][N];
#pragma xmp align a[j][i] with t(i, j)
#pragma xmp shadow a[0][1]

int main(void)
{
    int size[3] = {0, 0, 0}, index[3], seen[3][4] = {{0}}, v, k, bad = 0;
    int owned[2] = {0, 0};
    for (k = 1; k <= 2; k++) {
        xmp_nodes_size(xmp_desc_of(p), k, &size[k]);
        xmp_nodes_index(xmp_desc_of(p), k, &index[k]);
        xmp_nodes_size(xmp_desc_of(q), k, &v);
        bad += v != size[k];                      /* q[4][3] is p(3,4) */
    }
    seen[index[1] - 1][index[2] - 1] = 1;          /* a table shaped [3][4], as declared */
#pragma xmp reduction(+:seen)
    for (k = 1; k <= 2; k++) {
        xmp_array_lsize(xmp_desc_of(a), k, &v);
        owned[k - 1] = v;
    }
    int total = owned[0] * owned[1];
#pragma xmp reduction(+:total, bad)
    if (xmpc_node_num() == 0) {
        int covered = 0, i, j;
        for (i = 0; i < 3; i++)
            for (j = 0; j < 4; j++) covered += seen[i][j];
        printf("nodes_size(p) %d %d  grid covered %d  mismatches %d\n", size[1], size[2], covered, bad);
        for (k = 1; k <= 2; k++) {
            int lb = -1, ub = -1, fmt = -1, bs = -1, axis = -1, aaxis = -1, aub = -1, lsh = -1, rep = -1;
            xmp_template_lbound(xmp_desc_of(t), k, &lb);
            xmp_template_ubound(xmp_desc_of(t), k, &ub);
            xmp_dist_format(xmp_desc_of(t), k, &fmt);
            xmp_dist_blocksize(xmp_desc_of(t), k, &bs);
            xmp_dist_axis(xmp_desc_of(t), k, &axis);
            xmp_align_axis(xmp_desc_of(a), k, &aaxis);
            xmp_align_replicated(xmp_desc_of(a), k, &rep);
            xmp_array_ubound(xmp_desc_of(a), k, &aub);
            xmp_array_lshadow(xmp_desc_of(a), k, &lsh);
            printf("dim %d: template %d:%d format %d block %d axis %d | array ubound %d align_axis %d "
                   "replicated %d lshadow %d\n", k, lb, ub, fmt, bs, axis, aub, aaxis, rep, lsh);
        }
        xmp_template_ubound(xmp_desc_of(tq), 1, &v);
        printf("tq dim 1 ubound %d  elements owned %d\n", v, total);
    }
    return 0;
}
