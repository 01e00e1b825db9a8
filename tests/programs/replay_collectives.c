/* bcast and barrier in a time loop: over the executing nodes (replayed in C after the
 * first call: runtime/replay.py), from another node (from its second call), inside
 * async (general: non-blocking) and in a task (its nodes are the executing set there).
 * Runs on 2 or more nodes; built without xmpacc it is the serial program. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#define STEPS 6
#pragma xmp nodes p[*]

int main(void)
{
    int k, me = 1;
    double x = 0.0, y = 0.0, sum = 0.0;
    long long v[3] = {0, 0, 0};
#ifdef _XCALABLEMP
    me = xmp_node_num();
#endif
    for (k = 0; k < STEPS; k++) {
        x = me == 1 ? 1.5 * k : -1.0;
#pragma xmp bcast (x)
        v[0] = me == 1 ? k : -1;
        v[1] = me == 1 ? 2 * k : -1;
        v[2] = me == 1 ? 3 * k : -1;
#pragma xmp bcast (v)
#pragma xmp barrier
        y = me == 2 ? 0.25 * k : (me == 1 ? 0.25 * k : -2.0);
#pragma xmp bcast (y) from p[1]
#pragma xmp task on p[0:1]
        {
#pragma xmp barrier
#pragma xmp bcast (x)
        }
#pragma xmp bcast (y) async (1)
#pragma xmp wait_async (1)
        sum += x + y + (double)(v[0] + v[1] + v[2]);
    }
    if (me == 1)
        printf("sum %.3f\n", sum);
    return 0;
}
