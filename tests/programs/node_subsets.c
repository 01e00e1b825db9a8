/* Node subsets (global-view §6): nodes q[2] = p[0:2], nodes r[*] = p[2:], a subset per
 * row (nodes row[*] = g[*][:], each node sees its own row), nodes e = * inside a task (the
 * executing set); their numbering (xmp_node_num inside a task on them), reductions, bcast
 * and loops on them, and a template distributed onto a subset.  Needs 2 nodes per row and
 * at least 4 nodes; checks accept a serial run. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 10
double a[N];
#pragma xmp nodes p[*]
#pragma xmp nodes g[*][2]
#pragma xmp nodes q[2] = p[0:2]
#pragma xmp nodes r[*] = p[2:]
#pragma xmp nodes row[*] = g[*][:]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto r
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[1]

int main(void)
{
    int i, n = xmp_num_nodes(), me = xmpc_node_num(), ok = 1, serial = n == 1;
    int inq = 0, rank_in_q = -1, size_q = 0, z = 1, w = 0, rsum = 0;
    double s = 0;

#pragma xmp task on q
    {
        inq = 1;
        rank_in_q = xmpc_node_num();
        size_q = xmp_num_nodes();
    }
    ok = ok && (serial || (me < 2 ? inq && rank_in_q == me && size_q == 2 : !inq));
#pragma xmp reduction (+: z) on q
    ok = ok && z == (serial || me >= 2 ? 1 : 2);
#pragma xmp task on r[0]
    w = 7;
#pragma xmp bcast (w) from r[0] on r
    ok = ok && w == (serial || me >= 2 ? 7 : 0);

    /* a node array per row of g: task on row[1] is the second node of each row */
    {
        int second = 0, rowsize = 0;
#pragma xmp task on row[1]
        {
            second = 1;
            rowsize = xmp_num_nodes();
        }
        ok = ok && (serial || (second == (me % 2 == 1) && (!second || rowsize == 1)));
#pragma xmp loop (i) on row[i] reduction (+: rsum)
        for (i = 0; i < 2; i++)
            rsum += 10 * (i + 1);
        ok = ok && rsum == 30;
    }

    /* node references with triplets and mixtures: a column of g, every other node of p */
    {
        int col = 0, odd = 0;
#pragma xmp task on g[:][0]
        col = xmp_num_nodes();
#pragma xmp task on p[1:n/2:2]
        odd = xmpc_node_num() + 1;
        ok = ok && (serial || (me % 2 == 0 ? col == n / 2 && odd == 0 : col == 0 && odd == me / 2 + 1));
    }

    /* nodes e = *: inside a task, the task's node set */
#pragma xmp task on p[1:2]
    {
#pragma xmp nodes e = *
        int here = 0, sum = 0;
#pragma xmp task on e[1]
        here = 1;
        sum = here;
#pragma xmp reduction (+: sum) on e
        ok = ok && (serial || (sum == 1 && here == (me == 2)));
    }

    /* a template distributed onto r: its loops and reflect run on r's nodes only */
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = i + 1;
#pragma xmp reflect (a)
#pragma xmp loop on t[i] reduction (+: s)
    for (i = 1; i < N - 1; i++) s += a[i - 1] + a[i + 1];
    ok = ok && (me >= 2 || serial ? s == 88.0 : s == 0.0);   /* p[0], p[1] keep their own s */
#pragma xmp reduction (&&: ok)
    if (me == 0) printf("node subsets: %s\n", ok ? "ok" : "WRONG");
    return 0;
}
