#include "shared.h"
double weight(double x, int k)
{
    return k % 2 ? x : 2 * x;
}

double sum_parts(cplx *z, int n)
{
    double s = 0;
#pragma acc parallel loop copyin(z[0:n]) reduction(+:s)
    for (int i = 0; i < n; i++) s += pick(z[i], REAL) + weight(pick(z[i], IMAG), i);
    return s;
}
