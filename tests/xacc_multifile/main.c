/* A two-file XcalableACC program (with parts.c) whose files share types and a routine. */
#include <stdio.h>
#include "shared.h"
cplx z[N];
double re[N];
int main(void)
{
    int i;
    for (i = 0; i < N; i++) { z[i].re = i; z[i].im = 0.5 * i; }
#pragma acc parallel loop copyin(z) copyout(re)
    for (i = 0; i < N; i++) re[i] = weight(pick(z[i], REAL), i);
    double s = 0;
    for (i = 0; i < N; i++) s += re[i];
    printf("re = %.3f all = %.3f\n", s, sum_parts(z, N));
    return 0;
}
