/* cyclic distribution: a loop with step 3, a downward loop, a sub-range loop, and a
 * downward loop with step -2.  Every iteration must run exactly once, on the owner of
 * its index, in the source order of that node.  Any number of nodes. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 23

int a[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[cyclic] onto p
#pragma xmp align a[i] with t[i]

int main(void)
{
    int i, n = xmp_num_nodes(), me = xmpc_node_num();
    int step3 = 0, down = 0, sub = 0, down2 = 0, wrong = 0, last;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        a[i] = 3 * i + 1;

#pragma xmp loop on t[i] reduction(+:step3, wrong)
    for (i = 1; i < N; i += 3) {
        step3 += a[i];
        wrong += i % n != me || a[i] != 3 * i + 1;
    }

    last = N;
#pragma xmp loop on t[i] reduction(+:down, wrong)
    for (i = N - 1; i >= 0; i--) {
        down += a[i] * (i + 1);
        wrong += i % n != me || i >= last;   /* owner and decreasing order */
        last = i;
    }

    last = -1;
#pragma xmp loop on t[i] reduction(+:sub, wrong)
    for (i = 4; i <= N - 5; i++) {
        sub += a[i];
        wrong += i % n != me || i <= last;   /* owner and increasing order */
        last = i;
    }

#pragma xmp loop on t[i] reduction(+:down2, wrong)
    for (i = N - 2; i > 2; i -= 2) {
        down2 += a[i];
        wrong += i % n != me;
    }

#pragma xmp task on p[0]
    printf("step3 = %d  down = %d  sub = %d  down2 = %d  wrong = %d\n",
           step3, down, sub, down2, wrong);
    return 0;
}
