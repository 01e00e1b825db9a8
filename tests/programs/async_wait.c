/* async (id) on reflect, bcast and reduction, completed by wait_async; xmp_test_async
 * says 1 once an id is complete, and for an id with nothing in flight.  The data of an
 * operation is only touched after its wait, as the specification requires. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 40
double a[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[1]

int main(void)
{
    int i, k = 0;   /* 1 on the first node: the max is 1 */
    double s = 0.0, edge = 0.0, x = 0.0;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        a[i] = 0.5 * i * i;

#pragma xmp reflect (a) async (1)
    if (xmpc_node_num() == 0) { x = 3.25; k = 1; }
#pragma xmp bcast (x) async (2)
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++)
        s += a[i];
#pragma xmp reduction (max:k) async (2)
#pragma xmp wait_async (1, 2)
    if (xmpc_node_num() == 0)
        printf("test after wait: %d %d %d\n", xmp_test_async(1), xmp_test_async(2), xmp_test_async(7));

#pragma xmp loop on t[i] reduction(+:edge)
    for (i = 1; i < N - 1; i++)
        edge += a[i - 1] - 2.0 * a[i] + a[i + 1];
#pragma xmp wait_async (99)
    if (xmpc_node_num() == 0)
        printf("sum = %.3f  second differences = %.3f  x = %.2f  k = %d\n", s, edge, x, k);
    return 0;
}
