/* 'acc routine' functions that use file-scope variables (acc_routine.py): a table made
 * present by 'acc declare copyin', a 2-D array the construct copies in, a scalar read by
 * value, a routine without parameters, routines calling routines; an XMP loop and a plain
 * construct. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 40
double coef[4] = {1, 2, 3, 4};
double table[3][2];
int scale = 3;
double a[N], b[N], c[N];
#pragma acc declare copyin(coef)
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]

#pragma acc routine seq
static double poly(double x) { return coef[0] + coef[1] * x + coef[2] * x * x + coef[3] * x * x * x; }

#pragma acc routine seq
static double offset(void) { return table[1][1] + scale; }

#pragma acc routine seq
static double both(double x) { return poly(x) * scale + offset(); }

int main(void)
{
    int i;
    double s = 0, sc = 0;
    table[1][1] = 0.5;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = 0.05 * i;
#pragma acc data copyin(a, table) copyout(b)
    {
#pragma xmp loop on t[i] reduction(+:s)
#pragma acc parallel loop reduction(+:s)
        for (i = 0; i < N; i++) {
            b[i] = both(a[i]) + poly(1.0);
            s += offset();
        }
    }
#pragma acc parallel loop copyout(c)
    for (i = 0; i < N; i++) c[i] = poly(0.1 * i) - both(0.0);
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++) s += b[i];
    for (i = 0; i < N; i++) sc += c[i];
    if (xmpc_node_num() == 0)
        printf("s = %.9f sc = %.9f\n", s, sc);
    return 0;
}
