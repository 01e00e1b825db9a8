/* The reduction directive with an on clause (of a scalar and of a section), and bcast
 * with a from clause, in a time loop: the reference changes by turns (p(1:m), p(m), m = 1 .. the number of nodes), so
 * the C side keeps a plan per reference and compares the reference's values at each
 * call; the nodes outside the on-set keep their values.  Each node checks what it holds against the formula, and
 * the errors are counted over every node.  Built without xmpacc it is the serial program. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#define STEPS 12

#pragma xmp nodes p(*)

int main(void)
{
    int i, k, m, nn = 1, me = 1, errors = 0;
    double x, y, w[8];
    long long c;
#ifdef _XCALABLEMP
    nn = xmp_num_nodes();
    me = xmp_node_num();
#endif
    for (k = 0; k < STEPS; k++) {
        m = k % nn + 1;
        x = me + 0.5 * k;
        c = me * 10 + k;
#pragma xmp reduction (+:x) on p(1:m)
#pragma xmp reduction (max:c) on p(1:m)
        for (i = 0; i < 8; i++)
            w[i] = me + i + k;
#pragma xmp reduction (+:w[2:4]) on p(1:m)
        for (i = 0; i < 8; i++)
            errors += w[i] != (me <= m && i >= 2 && i < 6 ? m * (m + 1) / 2.0 + m * (i + k) : me + i + k);
        y = me + 0.25 * k;
#pragma xmp bcast (y) from p(m)
        errors += y != m + 0.25 * k;
        if (me <= m) {
            errors += x != m * (m + 1) / 2.0 + 0.5 * k * m;
            errors += c != m * 10 + k;
        } else {
            errors += x != me + 0.5 * k;
            errors += c != me * 10 + k;
        }
    }
#pragma xmp reduction (+:errors)
#pragma xmp task on p(1)
    printf("steps %d errors %d\n", STEPS, errors);
    return 0;
}
