/* xmp.h inquiry functions: 1-based xmp_*, 0-based xmpc_*, sizes, xmp_wtime, and their
 * values inside a task (the executing node set is the task's).  Needs 2 or more nodes
 * (task on p[1]).  Every line printed is the same serially, where one node runs all. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#pragma xmp nodes p[*]

int main(void)
{
    int i, n = xmp_num_nodes(), me = xmp_node_num();
    int num_ok = me == xmpc_node_num() + 1 && me >= 1 && me <= n;
    int all_ok = xmp_all_node_num() == me && xmpc_all_node_num() == me - 1
                 && xmp_all_num_nodes() == n;
    int sum = me, task_ok = 1, task_node = 0;
    double t0, t1, x = 0.0;
    int time_ok;

#pragma xmp reduction (+:sum)
#pragma xmp reduction (&&:num_ok, all_ok)
    t0 = xmp_wtime();
    for (i = 0; i < 1000000; i++)
        x += 1.0 / (i + 1.0);
    t1 = xmp_wtime();
    time_ok = t1 > t0 && t1 - t0 < 60.0 && xmp_wtick() > 0.0 && xmp_wtick() < 1e-3 && x > 0.0;
#pragma xmp reduction (&&:time_ok)

#pragma xmp task on p[1]
    {
        /* inside the task the executing set is {p[1]}: it is node 1 of 1 */
        task_ok = xmp_node_num() == 1 && xmpc_node_num() == 0 && xmp_num_nodes() == 1
                  && xmp_all_num_nodes() == n
                  && xmp_all_node_num() == (xmp_all_num_nodes() > 1 ? 2 : 1);
        task_node = xmp_node_num();
    }
#pragma xmp bcast (task_ok, task_node) from p[1]
    /* after the task the executing set is the whole node set again */
    task_ok = task_ok && xmp_num_nodes() == n && xmp_node_num() == me;
#pragma xmp reduction (&&:task_ok)

#pragma xmp task on p[0]
    {
        printf("sum of xmp_node_num() == n(n+1)/2: %d\n", sum == n * (n + 1) / 2);
        printf("xmp_node_num/xmpc_node_num: %d\n", num_ok);
        printf("xmp_all_*: %d\n", all_ok);
        printf("xmp_wtime increasing: %d\n", time_ok);
        printf("inside task on p[1]: %d (xmp_node_num() = %d)\n", task_ok, task_node);
    }
    return 0;
}
