/* A two-file XcalableACC program (with parts.c) whose files share types and routines. */
#include <stdio.h>
#include "shared.h"
cplx z[N], w[N];
double re[N];
int main(void)
{
    int i;
    struct scale by3 = {3.0, 4};
#pragma acc routine seq
    double offset(double x);
    for (i = 0; i < N; i++) { z[i].re = i; z[i].im = 0.5 * i; }
#pragma acc parallel loop copyin(z) copyout(re, w)
    for (i = 0; i < N; i++) {
        re[i] = offset(weight(pick(z[i], REAL), i));
        w[i] = scaled(z[i], by3, i);
    }
    double s = 0, t = 0;
    for (i = 0; i < N; i++) { s += re[i]; t += w[i].re - w[i].im; }
    printf("re = %.3f all = %.3f scaled = %.3f\n", s, sum_parts(z, N), t);
    return 0;
}
