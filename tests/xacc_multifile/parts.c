#include "shared.h"
double sum_parts(cplx *z, int n)
{
    double s = 0;
#pragma acc parallel loop copyin(z[0:n]) reduction(+:s)
    for (int i = 0; i < n; i++) s += pick(z[i], REAL) + pick(z[i], IMAG);
    return s;
}
