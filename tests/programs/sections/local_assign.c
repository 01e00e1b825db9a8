/* Array assignment statements on local arrays (global-view §1): overlapping source and
 * destination, negative steps, omitted base/length/step, 2-D sections with scalar
 * subscripts, compound assignment, run-time lengths, a pointer, a math function.
 * Serial meaning: local_assign_serial.c (the same statements as loops). */
#include <stdio.h>
#include <math.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 12

double a[N], b[N], c[4][6], d[6][4];
int k[N];

static void show(const char *name, const double *v, int n)
{
    int i;
    printf("%s:", name);
    for (i = 0; i < n; i++) printf(" %g", v[i]);
    printf("\n");
}

static void reset(void)
{
    int i, j;
    for (i = 0; i < N; i++) { a[i] = i; b[i] = 100 + i; k[i] = i * i; }
    for (i = 0; i < 4; i++) for (j = 0; j < 6; j++) c[i][j] = 10 * i + j;
    for (i = 0; i < 6; i++) for (j = 0; j < 4; j++) d[i][j] = -(10 * i + j);
}

int main(void)
{
    int n = 4, m = 3, s = 2, i;
    double x = 0.5, *p = b + 2;

    reset();
    a[0:5] = b[5:5];                        /* plain copy */
    a[6:3:2] = 2.0 * b[0:3] + x;            /* stride on the left */
    if (xmpc_node_num() == 0) show("copy", a, N);

    reset();
    a[1:N-1] = a[0:N-1];                    /* overlap: shift right by one */
    if (xmpc_node_num() == 0) show("shift right", a, N);
    reset();
    a[0:N-1] = a[1:N-1];                    /* overlap the other way */
    if (xmpc_node_num() == 0) show("shift left", a, N);
    reset();
    a[0:6] = a[6:6];                        /* same array, disjoint parts */
    a[N-1::-1] = b[:];                      /* negative step, omitted length: reversed */
    if (xmpc_node_num() == 0) show("reverse", a, N);
    reset();
    a[:] = a[N-1::-1];                      /* reverse in place */
    if (xmpc_node_num() == 0) show("reverse in place", a, N);

    reset();
    a[2:] = b[:N-2];                        /* omitted length on the left, base on the right */
    a[::3] = -1.0;                          /* omitted base and length, a scalar */
    if (xmpc_node_num() == 0) show("omitted", a, N);

    reset();
    c[:][2] = d[1][:] + 2.0 * c[:][0];      /* 2-D: a column from a row */
    c[1:2][3:3] += d[0:2][1:3];             /* compound assignment on a block */
    if (xmpc_node_num() == 0) { show("c row 0", c[0], 6); show("c row 1", c[1], 6); show("c row 2", c[2], 6); }
    d[:][:] = c[0][0];                      /* fill a whole 2-D array with an element */
    if (xmpc_node_num() == 0) show("d row 5", d[5], 4);

    reset();
    a[s:n:m] = sqrt(b[0:n]) + k[1:n];       /* run-time base, length, step; a math call */
    a[n+1:m:-2] = p[0:m];                   /* a pointer on the right */
    p[0:3] = a[0:3];                        /* and on the left */
    if (xmpc_node_num() == 0) { show("run-time", a, N); show("through p", b, N); }
    return 0;
}
