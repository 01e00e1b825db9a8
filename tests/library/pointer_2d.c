/* A 2-D aligned pointer declared 'double *w' and subscripted w[i][j] (global-view §4: the
 * subscripts are global indices as for a fixed array), with a shadow, reflect, a host loop
 * and an acc loop; a 2-D block distribution when the job has 4 nodes. */
#include <stdio.h>
#include <xmp.h>

#pragma xmp nodes p[*][2]
#pragma xmp template t[:][:]
#pragma xmp distribute t[block][block] onto p
double *w, *v;
#pragma xmp align [i][j] with t[i][j] :: w, v
#pragma xmp shadow w[1][1]

int main(void)
{
    int n = 9, m = 7, i, j;
#pragma xmp template_fix t[n][m]
    w = (double *) xmp_malloc(xmp_desc_of(w), n, m);
    v = (double *) xmp_malloc(xmp_desc_of(v), n, m);
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            w[i][j] = 10 * i + j;
#pragma xmp reflect (w)
#pragma xmp acc replicate (w, v)
    {
#pragma xmp acc replicate_sync in (w)
#pragma xmp loop (i, j) on t[i][j] acc
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < m - 1; j++)
                v[i][j] = w[i - 1][j] + w[i + 1][j] + w[i][j - 1] + w[i][j + 1];
#pragma xmp acc replicate_sync out (v)
    }
    double s = 0;
#pragma xmp loop (i, j) on t[i][j] reduction(+:s)
    for (i = 1; i < n - 1; i++)
        for (j = 1; j < m - 1; j++)
            s += v[i][j];
    if (xmpc_node_num() == 0)
        printf("sum = %.1f\n", s);
    return 0;
}
