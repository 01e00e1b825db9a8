/* bcast (from, on), barrier (plain and on), and the reduction directive with 'on'.
 * Runs on exactly 4 nodes.  A node outside an on-set keeps its own value; serially the
 * single node is in every set, so each check also accepts that (n == 1). */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#pragma xmp nodes p[4]

int main(void)
{
    int n = xmp_num_nodes(), me = xmpc_node_num();
    int x = -1, y = -1, z = 1, w[3] = {0, 0, 0}, ok;
    double d = 0.0;

    /* bcast from a node other than the first */
#pragma xmp task on p[2]
    {
        x = 42;
        d = 2.5;
        w[0] = 1; w[1] = 2; w[2] = 3;
    }
#pragma xmp bcast (x, d, w) from p[2]
#pragma xmp barrier

    /* bcast from p[1] over p[1:3] only (bracketed triplet: start 1, length 3) */
#pragma xmp task on p[1]
    y = 7;
#pragma xmp bcast (y) from p[1] on p[1:3]
#pragma xmp barrier on p[1:3]
    ok = n == 1 || (me >= 1 ? y == 7 : y == -1);
#pragma xmp reduction (&&:ok)

    /* reduction over p[0:2] (nodes 0 and 1): they get 2, the others keep 1 */
#pragma xmp reduction (+:z) on p[0:2]
    {
        int zok = n == 1 ? z == 1 : (me < 2 ? z == 2 : z == 1);
#pragma xmp reduction (&&:zok)
        ok = ok && zok;
    }
#pragma xmp barrier

#pragma xmp task on p[0]
    {
        printf("x = %d  d = %g  w = %d %d %d\n", x, d, w[0], w[1], w[2]);
        printf("bcast on p[1:3] and reduction on p[0:2]: %s\n", ok ? "ok" : "WRONG");
    }
    return 0;
}
