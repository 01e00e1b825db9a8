/* gblock distribution with uneven sizes, one node owning nothing, and a shadow.
 * Runs on exactly 4 nodes: p[0] owns 0-2, p[1] 3-9, p[2] nothing, p[3] 10-15. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 16

int W[4] = {3, 7, 0, 6};
double a[N];
#pragma xmp nodes p[4]
#pragma xmp template t[N]
#pragma xmp distribute t[gblock(W)] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[1]

static int owner(int i) { return i < 3 ? 0 : i < 10 ? 1 : 3; }

int main(void)
{
    int i, iters = 0, wrong_owner = 0, bad = 0;
    double s = 0.0, nb = 0.0;

#pragma xmp loop on t[i] reduction(+:s, iters, wrong_owner)
    for (i = 0; i < N; i++) {
        a[i] = i * i + 0.5;
        s += a[i];
        iters++;
        wrong_owner += xmp_num_nodes() > 1 && owner(i) != xmpc_node_num();
    }

#pragma xmp reflect (a)
#pragma xmp loop on t[i] reduction(+:nb, bad)
    for (i = 1; i < N - 1; i++) {
        nb += a[i - 1] + a[i + 1];
        bad += a[i - 1] != (i - 1) * (i - 1) + 0.5 || a[i + 1] != (i + 1) * (i + 1) + 0.5;
    }

#pragma xmp task on p[0]
    printf("sum = %.2f  iterations = %d  wrong owner = %d  neighbours = %.2f  wrong = %d\n",
           s, iters, wrong_owner, nb, bad);
    return 0;
}
