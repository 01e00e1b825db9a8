/* Dereferences of outside pointers in OpenACC compute constructs (kernel_deref.py): *(p + i),
 * *(i + p), *(p - 1), *p and p->x, (p + k)->x on pointers with device copies (data clauses,
 * enter data), on a deviceptr (acc_malloc) and on a distributed array declared as a pointer
 * (xmp_malloc); C defines them as subscripts, and each runs as the subscript would. */
#include <stdio.h>
#include <stdlib.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#include <openacc.h>
#else
#include "../programs/serial_xmp.h"
#define acc_malloc malloc
#define acc_free free
#endif
#define N 24
typedef struct { double re, im; } cplx;

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
cplx *z;
#pragma xmp align z[i] with t[i]

int main(void)
{
    int i, k;
    double s = 0, u = 0, w = 0;
    double *a = (double *) malloc(N * sizeof(double));
    cplx *c = (cplx *) malloc(N * sizeof(cplx));
    double *d = (double *) acc_malloc(N * sizeof(double));
    z = (cplx *) xmp_malloc(xmp_desc_of(z), N);
    for (i = 0; i < N; i++) { a[i] = i; c[i].re = i; c[i].im = -i; }
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { z[i].re = 2 * i; z[i].im = 1; }
#pragma acc data copy(a[0:N], c[0:N], z)
    {
#pragma acc parallel loop deviceptr(d)
        for (i = 0; i < N; i++) *(d + i) = 0.5 * *(a + i);
#pragma acc parallel loop deviceptr(d)
        for (i = 1; i < N; i++) *(i + a) += *(d + i - 1) + *d;
#pragma acc parallel loop
        for (k = 0; k < N; k++) {
            (c + k)->re += *(a + k);
            if (k == 0) c->im = 100;
        }
#pragma xmp loop on t[i]
#pragma acc parallel loop
        for (i = 0; i < N; i++) { (z + i)->im += *(a + i); }
#pragma acc parallel deviceptr(d)
        {
            *d = 7.5;
        }
#pragma acc parallel loop deviceptr(d) reduction(+:s)
        for (i = 0; i < N; i++) s += *(d + i) + *d;
    }
#pragma xmp loop on t[i] reduction(+:u)
    for (i = 0; i < N; i++) u += (i + 1) * (z[i].re + z[i].im);
    for (i = 0; i < N; i++) w += (i + 1) * (a[i] + c[i].re + c[i].im);
    acc_free(d);
    if (xmpc_node_num() == 0) printf("s %.2f u %.2f w %.2f\n", s, u, w);
    return 0;
}
