/* Directives among the statements of a switch's cases (passes/attach/case_blocks.py): a
 * reflect after another statement of its case, a bcast and a reduction in a case that falls
 * through, and the stencil after the switch, where every case has reflected. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif
#define N 40

double a[N], b[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align [i] with t[i] :: a, b
#pragma xmp shadow a[1]

static double sweep(int mode)
{
    int i;
    double s = 0.0, x = 0.0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = (i * 7 + mode) % 5;
    switch (mode) {
    case 0:
        x = 1.5;
#pragma xmp reflect (a)
        break;
    case 1:
        x = 2.5;
#pragma xmp bcast (x)
    case 2:   /* case 1 falls through */
#pragma xmp reflect (a)
        x += 1.0;
        break;
    default:
#pragma xmp reflect (a)
        x = -1.0;
        break;
    }
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 1; i < N - 1; i++) {
        b[i] = a[i - 1] + a[i + 1] + x;
        s += b[i];
    }
    return s;
}

int main(void)
{
    int mode;
    for (mode = 0; mode < 4; mode++) {
        double s = sweep(mode);
        if (xmpc_node_num() == 0) printf("mode %d: %.3f\n", mode, s);
    }
    return 0;
}
