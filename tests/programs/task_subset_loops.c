/* Loops inside a task on the last two of four nodes, on a template distributed onto the
 * node subset h = q[2:2] (global-view §6): a loop with a reduction clause (its reduction
 * runs among the task's nodes only: it used to wait for the other nodes and hang), a
 * reflect of an array on h and a reduction of a 2-D loop on a 2-D subset.  The results
 * are passed to node 0 with bcast.  Needs 4 nodes. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 16
#pragma xmp nodes q[4]
#pragma xmp nodes h[2] = q[2:2]
#pragma xmp nodes g[2][2] = q[0:4]
#pragma xmp template t[N]
#pragma xmp template u[N][N]
#pragma xmp distribute t[block] onto h
#pragma xmp distribute u[cyclic(3)][block] onto g
double a[N], b[N], m[N][N];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp align m[i][j] with u[i][j]
#pragma xmp shadow a[1]

int main(void)
{
    int i, j;
    double s = 0, d = 0, mx = -1, sm = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = (i + 1) * (i % 3 + 1);
#pragma xmp loop (i, j) on u[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) m[i][j] = i - 2 * j;

#pragma xmp task on q[2:2]
    {
#pragma xmp loop on t[i] reduction(+:s) reduction(max:mx)
        for (i = 0; i < N; i++) {
            s += a[i];
            if (a[i] > mx) mx = a[i];
        }
#pragma xmp reflect (a)
#pragma xmp loop on t[i]
        for (i = 1; i < N - 1; i++) b[i] = a[i - 1] + a[i + 1];
#pragma xmp loop on t[i] reduction(+:d)
        for (i = 1; i < N - 1; i++) d += (i + 1) * b[i];
    }
#pragma xmp task on q
    {
#pragma xmp loop (i, j) on u[i][j] reduction(+:sm)
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++) sm += (i + 1) * m[i][j];
    }
#pragma xmp bcast (s, mx, d) from q[2]
    if (xmpc_node_num() == 0) printf("s %.1f max %.1f d %.1f sm %.1f\n", s, mx, d, sm);
    return 0;
}
