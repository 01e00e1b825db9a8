/* Template references with several dimensions and '*' (global-view §6) on p(2,2):
 * reduction on t(*, js:je) is one reduction per value of the first node coordinate; task on
 * t(0,0,0) of a 3-D template; bcast from t(i,j) on t(:, j) over a column of nodes. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#pragma xmp nodes p(2,2)
#pragma xmp template t(0:7, 0:7)
#pragma xmp distribute t(block, block) onto p
#pragma xmp template t3(0:3, 0:3, 0:1)
#pragma xmp distribute t3(block, block, *) onto p

int main(void)
{
    int me = xmpc_node_num(), n = xmp_num_nodes(), ok = 1;
    int s = 1, b = -1, c = 0;

    /* t(*, 4:7): rows 4..7 belong to p(*, 2); for each first coordinate, one set */
#pragma xmp reduction (+: s) on t(*, 4:7)
    /* nodes p(1,2), p(2,2) are ranks 2 and 3; each is alone in its set: s stays 1;
       nodes p(*, 1) are not in any set and keep 1 */
    ok = ok && s == 1;
#pragma xmp reduction (+: s) on t(:, 4:7)
    ok = ok && s == (n == 1 ? 1 : (me >= 2 ? 2 : 1));

#pragma xmp task on t3(0, 0, 0)
    c = 10 + xmp_num_nodes();
#pragma xmp reduction (+: c)
    ok = ok && c == 11;

    /* column of nodes owning t(:, 6): p(1,2) and p(2,2); the source owns t(5, 6) */
#pragma xmp task on t(5, 6)
    b = 56;
#pragma xmp bcast (b) from t(5, 6) on t(:, 6)
    ok = ok && (n == 1 || me < 2 ? (n == 1 ? b == 56 : b == -1) : b == 56);
#pragma xmp barrier on t(*, 0:3)
#pragma xmp reduction (&&: ok)
    if (me == 0)
        printf("2-D template references: %s\n", ok ? "ok" : "WRONG");
    return 0;
}
