#include "shared.h"
#include "offset.h"
double weight(double x, int k)
{
    return k % 2 ? x : 2 * x;
}

cplx scaled(cplx c, struct scale s, int k)
{
    cplx out = c;
    if (k % s.every == 0) {
        out.re *= s.by;
        out.im /= s.by;
    }
    return out;
}

double sum_parts(cplx *z, int n)
{
    double s = 0;
    struct scale half = {0.5, 3};
#pragma acc parallel loop copyin(z[0:n]) reduction(+:s)
    for (int i = 0; i < n; i++) s += pick(z[i], REAL) + weight(pick(z[i], IMAG), i) + scaled(z[i], half, i).re;
    return s;
}

double offset(double x)
{
    return x + 0.25;
}
