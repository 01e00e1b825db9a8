/* Template references in on/from clauses (global-view §6): the nodes onto which the
 * referenced template elements are distributed.  task on t[i] / t(k), bcast from t(k) on
 * t(:), reduction on t[lo:len], barrier on t(1:4), '*' (every node separately).  Checks
 * accept the single node of a serial run, which is in every set. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 12
double a[N];
#pragma xmp nodes p[*]
#pragma xmp template t(1:N)
#pragma xmp distribute t(block) onto p
#pragma xmp align a[i] with t(i+1)

int main(void)
{
    int i, k, ok = 1, owner = -1, cnt = 0, x = 0, y = 1;

#pragma xmp loop on t(i+1)
    for (i = 0; i < N; i++) a[i] = i;

    /* task on the owner of one template element: it finds its element there */
    for (k = 1; k <= N; k++) {
        int found = 0;
#pragma xmp task on t(k)
        {
            found = a[k - 1] == k - 1;
            cnt += 1;
        }
#pragma xmp reduction (+: found)
        ok = ok && found == 1;
    }
#pragma xmp reduction (+: cnt)
    ok = ok && cnt == N;

    /* bcast from the owner of t(9) over every owner of t */
#pragma xmp task on t(9)
    x = 90 + xmp_num_nodes();
#pragma xmp bcast (x) from t(9) on t(:)
    ok = ok && x == 91;

    /* template indices are the same in both syntaxes: t[9] is t(9) */
#pragma xmp task on t[9]
    owner = xmpc_all_node_num();
#pragma xmp reduction (max: owner)
#pragma xmp bcast (y) from t(1)

    /* reduction over the owners of t(1:4) only: others keep their own y */
#pragma xmp reduction (+: y) on t(1:4)
    {
        int expect = xmp_num_nodes() == 1 ? 1 : 0, mine = 0;
#pragma xmp task on t(1:4) nocomm
        mine = 1;
        {
            int members = mine;
#pragma xmp reduction (+: members)
            expect = xmp_num_nodes() == 1 ? 1 : (mine ? members : 1);
        }
        ok = ok && y == expect;
    }
#pragma xmp barrier on t(1:4)

    /* '*': every node with the owners of its own indices, i.e. each node alone */
    {
        int z = 1;
#pragma xmp reduction (+: z) on t(*)
        ok = ok && z == 1;
    }
#pragma xmp reduction (&&: ok)
    if (xmpc_node_num() == 0)
        printf("template references: %s (the owner of t(9) is %s)\n", ok ? "ok" : "WRONG",
               owner == (xmp_num_nodes() == 1 ? 0 : 8 / ((N + xmp_num_nodes() - 1) / xmp_num_nodes()))
               ? "right" : "WRONG");
    return 0;
}
