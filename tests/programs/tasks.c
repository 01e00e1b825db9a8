/* tasks (global-view §6): tasks on disjoint node sets run concurrently, each with its own
 * executing node set (xmp_node_num, xmp_num_nodes, collectives inside act on it); task ...
 * nocomm runs on the selected nodes without a node set of its own; functions called in a
 * task see the task's set.  Needs an even number of nodes. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#pragma xmp nodes p[*]

static int set_size(void) { return xmp_num_nodes(); }

int main(void)
{
    int n = xmp_num_nodes(), me = xmpc_node_num(), half = n / 2 > 0 ? n / 2 : 1;
    int ok = 1, part = 0, nc = 0, who = -1, size = 0;

#pragma xmp tasks
    {
#pragma xmp task on p[0:half]
        {
            int s = xmpc_node_num() + 1;
#pragma xmp reduction (+: s)
            part = s;
            size = set_size();
            who = 0;
        }
#pragma xmp task on p[half:n-half]
        {
            int s = 100;
#pragma xmp reduction (+: s)
#pragma xmp barrier
            part = s;
            size = set_size();
            who = 1;
        }
    }
    if (n == 1)
        ok = part == 100 && who == 1 && size == 1;   /* serially both tasks run in turn */
    else if (me < half)
        ok = who == 0 && size == half && part == half * (half + 1) / 2;
    else
        ok = who == 1 && size == n - half && part == 100 * (n - half);

#pragma xmp task on p[n-1] nocomm
    {
        nc = xmp_num_nodes();   /* no new node set: the whole one */
    }
    ok = ok && (me == n - 1 || n == 1 ? nc == n : nc == 0);
#pragma xmp tasks
    {
#pragma xmp task on p[0] nocomm
        nc += 1;
#pragma xmp task on p[1:n-1]
        nc += 10;
    }
#pragma xmp reduction (&&: ok)
#pragma xmp reduction (+: nc)
    if (me == 0) printf("tasks: %s, nocomm %s\n", ok ? "ok" : "WRONG", nc == n + 1 + 10 * (n - 1) || (n == 1 && nc == 12) ? "ok" : "WRONG");
    return 0;
}
