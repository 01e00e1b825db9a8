/* gmove in/out ... acc (XcalableACC.md §4 with global-view §2): one-sided gmoves between
 * device copies.  Inside tasks, the task's node pulls elements from the device copies of
 * other nodes and pushes elements into them; the other nodes run no gmove (their gmove
 * agents serve them).  Block, cyclic and 2-D arrays, elements, strided sections, fills from
 * a scalar and a constant, async, one call site run twice.  The host copies are not
 * touched until the data region ends, so what is printed moved between devices; the owners'
 * kernels then use what was put.  Serial meaning: gmove_inout_acc_serial.c. */
#include <stdio.h>
#include <xmp.h>
#define N 12

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template tc[N]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute tc[cyclic] onto p
double a[N], b[N], c[N], m[N][3];
#pragma xmp align a[i] with t[i]
#pragma xmp align c[i] with t[i]
#pragma xmp align m[i][*] with t[i]
#pragma xmp align b[i] with tc[i]
double v[N], w[4], u[4], x, y;

int main(void)
{
    int i, k, last = xmp_num_nodes() - 1;
    double sa = 0, sb = 0, sc = 0, sm = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { a[i] = i + 1; c[i] = 0; m[i][0] = m[i][1] = m[i][2] = -1; }
#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++) b[i] = 100 + i;
    for (i = 0; i < N; i++) v[i] = 0;
#pragma acc data copy(a, b, c, m, v, w, u, x, y)
    {
#pragma xmp loop on t[i]
#pragma acc parallel loop
        for (i = 0; i < N; i++) a[i] = 2 * a[i];      /* on the devices only */
#pragma xmp barrier acc
#pragma xmp task on p[0]
        {
#pragma xmp gmove in acc
            v[0:N] = a[0:N];            /* every element, most from other nodes' devices */
#pragma xmp gmove in acc async(2)
            x = b[N - 1];               /* an element of the last node (cyclic) */
#pragma xmp wait_async (2) acc
            for (k = 0; k < 2; k++) {   /* one call site twice: its cached plan */
#pragma xmp gmove in acc
                w[0:4] = b[1:4:3];      /* a strided section over every node */
            }
#pragma xmp gmove in acc
            c[0:3] = b[6:3];            /* node 0's elements of c, from other nodes' b */
        }
#pragma xmp barrier acc
#pragma xmp task on p[last]
        {
#pragma xmp gmove in acc
            u[0:4] = a[0:4];            /* node 0's elements */
#pragma xmp gmove in acc
            y = c[1];
#pragma xmp gmove out acc
            c[4:4:2] = u[0:4];          /* pushed to the owners of c[4], c[6], c[8], c[10] */
#pragma xmp gmove out acc
            m[0:4][1] = u[0:4];         /* a column of a 2-D array */
#pragma xmp gmove out acc
            b[0:N/2] = y;               /* a fill from a scalar */
#pragma xmp gmove out acc
            m[N-2:2][2] = 9.5;          /* a fill from a constant */
        }
#pragma xmp barrier acc
#pragma xmp loop on t[i]
#pragma acc parallel loop
        for (i = 0; i < N; i++) c[i] = c[i] + 0.5 * m[i][1];   /* the owners use what was put */
    }
#pragma xmp loop on t[i] reduction(+: sa, sc, sm)
    for (i = 0; i < N; i++) {
        sa += (i + 1) * a[i]; sc += (i + 1) * c[i];
        sm += (i + 1) * (m[i][0] + 2 * m[i][1] + 3 * m[i][2]);
    }
#pragma xmp loop on tc[i] reduction(+: sb)
    for (i = 0; i < N; i++) sb += (i + 1) * b[i];
    if (xmpc_node_num() == 0) {
        double sv = 0;
        for (i = 0; i < N; i++) sv += (i + 1) * v[i];
        printf("a %.1f b %.1f c %.1f m %.1f v %.1f w %.1f %.1f %.1f %.1f x %.1f\n",
               sa, sb, sc, sm, sv, w[0], w[1], w[2], w[3], x);
    }
    return 0;
}
