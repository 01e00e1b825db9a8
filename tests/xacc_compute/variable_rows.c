/* C arrays whose rows have variable lengths in GPU loops (kernel_vla.py): a VLA of two
 * and of three dimensions, a pointer to rows from malloc, an array parameter double
 * g[n][m]; rows used as pointers, an element's address passed to a routine, a routine
 * whose parameter has rows of variable length (given such an array and one of constant
 * rows), a data region around them; reductions of such arrays, whole, as rows and over
 * the nodes with an XMP loop.  The variable that sized a VLA changes afterwards: the VLA
 * keeps its declaration's sizes, as C says.  Every result equals the serial one. */
#include <stdio.h>
#include <stdlib.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 24
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p

#pragma acc routine seq
static void bump(double *x, double by)
{
    *x += by;
}

/* a routine's parameter of variable-length rows, passed such an array and one of constant rows */
#pragma acc routine seq
static double rowsum(int m, double g[][m], int i)
{
    double s = 0;
    int j;
    for (j = 0; j < m; j++)
        s += g[i][j] * (j + 1);
    return s;
}

/* an array parameter with a variable row length */
static void scale(int n, int m, double g[n][m], double by)
{
    int i, j;
#pragma acc parallel loop collapse(2) copy(g[0:n][0:m])
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            g[i][j] *= by + j;
}

static void run(int n, int m)
{
    int i, j, k, rows = n, cols = m;
    double a[n][m], (*q)[m] = malloc(n * sizeof *q);
    int c[n][m][3], h[n][m], hn[n][m];
    long total = 0;
    double sums[n], fixed[n][2], fsums[n];

    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            a[i][j] = i - j;
            q[i][j] = 0.5 * i * j;
            h[i][j] = hn[i][j] = i;
            for (k = 0; k < 3; k++) c[i][j][k] = k;
        }
    for (i = 0; i < n; i++) fixed[i][0] = fixed[i][1] = i;
    m = -1;   /* a, c, h keep cols columns */

#pragma acc data copy(a, c) copyin(q[0:rows])
    {
#pragma acc parallel loop collapse(2)
        for (i = 0; i < rows; i++)
            for (j = 0; j < cols; j++) {
                double *row = q[i];
                a[i][j] += row[j] * 2;
                c[i][j][j % 3] += i;
            }
#pragma acc parallel loop
        for (i = 0; i < rows; i++)
            bump(&a[i][cols - 1], 100.0);
#pragma acc parallel loop collapse(3)
        for (i = 0; i < rows; i++)
            for (j = 0; j < cols; j++)
                for (k = 0; k < 3; k++)
                    c[i][j][k] *= 2;
    }
    scale(rows, cols, q, 0.5);
#pragma acc parallel loop copyin(a, fixed) copyout(sums, fsums)
    for (i = 0; i < rows; i++) {
        sums[i] = rowsum(cols, a, i);
        fsums[i] = rowsum(2, fixed, i);
    }

    /* reductions: every element, one row, and over the nodes */
#pragma acc parallel loop reduction(+: h) copyin(a)
    for (i = 0; i < rows * cols; i++)
        h[(i * 7) % rows][i % cols] += (int) a[i % rows][(i * 5) % cols];
#pragma acc parallel loop reduction(max: h[1][:])
    for (i = 0; i < 3 * cols; i++)
        if (i * 3 > h[1][i % cols]) h[1][i % cols] = i * 3;
#pragma xmp loop on t[i] reduction(+: hn)
#pragma acc parallel loop
    for (i = 0; i < N; i++)
        hn[i % rows][(i * 3) % cols] += i;

    if (xmpc_node_num() == 0) {
        printf("%dx%d\na", rows, cols);
        for (i = 0; i < rows; i++)
            for (j = 0; j < cols; j++) printf(" %g", a[i][j]);
        printf("\nq");
        for (i = 0; i < rows; i++)
            for (j = 0; j < cols; j++) printf(" %g", q[i][j]);
        for (i = 0; i < rows; i++)
            for (j = 0; j < cols; j++) {
                for (k = 0; k < 3; k++) total += c[i][j][k] * (k + 1);
                total += 1000L * h[i][j] + 7L * hn[i][j];
            }
        printf("\nsums");
        for (i = 0; i < rows; i++) printf(" %g %g", sums[i], fsums[i]);
        printf("\nc h hn %ld\nh1", total);
        for (j = 0; j < cols; j++) printf(" %d", h[1][j]);
        printf("\n");
    }
    free(q);
}

int main(void)
{
    run(3, 5);
    run(6, 4);
    return 0;
}
