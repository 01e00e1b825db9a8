/* task on in a time loop (include/xmpacc_task_plans.h): from its second call at a site the
 * C side answers whether this node runs the body and switches the executing node set.
 * Each step: a task on one fixed node, one whose node changes with the step (a site with
 * several plans), a nocomm task on the last node, a task on the first half with a reduction and a nested task on one node
 * of it whose node also changes (its first calls enter Python inside a task C entered:
 * Python takes that task over), and xmp_num_nodes / xmpc_node_num inside each, as they
 * must read there.  Built without xmpacc it is the serial program. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif
#define STEPS 12

#pragma xmp nodes p[*]

static int set_size(void) { return xmp_num_nodes(); }

int main(void)
{
    int n = xmp_num_nodes(), me = xmpc_node_num(), half = n / 2 > 0 ? n / 2 : 1;
    int k, ok = 1, first = 0, rot = 0, part = 0, size = 0, inner = 0, inner_rank = 0, last = 0;

    for (k = 0; k < STEPS; k++) {
#pragma xmp task on p[0]
        first += xmp_num_nodes();
#pragma xmp task on p[k % n]
        rot += xmp_num_nodes() + 10 * xmpc_node_num();
#pragma xmp task on p[n-1] nocomm
        last += xmp_num_nodes();   /* no node set of its own: the whole one */
#pragma xmp task on p[0:half]
        {
            int s = xmpc_node_num() + 1;
#pragma xmp reduction (+: s)
            part += s;
            size = set_size();
#pragma xmp task on p[k % half]
            {
                inner += xmp_num_nodes();
                inner_rank += xmpc_node_num();
            }
        }
    }
    ok = first == (me == 0 ? STEPS : 0) && rot == STEPS / n && inner_rank == 0
         && last == (me == n - 1 ? STEPS * n : 0);
    if (me < half)
        ok = ok && size == half && part == STEPS * half * (half + 1) / 2 && inner == STEPS / half;
    else
        ok = ok && size == 0 && part == 0 && inner == 0;
    ok = ok && xmp_num_nodes() == n && xmpc_node_num() == me;   /* the whole set again */
#pragma xmp reduction (&&: ok)
#pragma xmp task on p[0]
    printf("task plans: %s\n", ok ? "ok" : "WRONG");
    return 0;
}
