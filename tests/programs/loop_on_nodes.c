/* loop on a node array (global-view §6): iteration i runs on node i (p(i): 1-based,
 * p[i]: 0-based), also in two dimensions, with reductions; iterations outside the node
 * array would run nowhere (not shown here: the serial build runs them). */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#pragma xmp nodes p(*)
#pragma xmp nodes g[*][1]

int main(void)
{
    int i, j, n = xmp_num_nodes(), ok = 1, count = 0, mine = -1, sum = 0, sum2 = 0;

#pragma xmp loop (i) on p(i) reduction (+: count)
    for (i = 1; i <= n; i++) {
        count += 1;
        mine = i;
    }
    ok = ok && count == n && mine == (n == 1 ? 1 : xmp_node_num());
#pragma xmp loop on p[i] reduction (+: sum)
    for (i = n - 1; i >= 0; i--)
        sum += i + 1;
    ok = ok && sum == n * (n + 1) / 2;
#pragma xmp loop (i, j) on g[i][j] reduction (+: sum2)
    for (i = 0; i < n; i++)
        for (j = 0; j < 1; j++)
            sum2 += 100 * i + j;
    ok = ok && sum2 == 100 * n * (n - 1) / 2;
#pragma xmp reduction (&&: ok)
    if (xmpc_node_num() == 0) printf("loop on nodes: %s\n", ok ? "ok" : "WRONG");
    return 0;
}
