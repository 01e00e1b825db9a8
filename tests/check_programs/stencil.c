/* The mistake of the labs: a stencil reads a[i - 1] and a[i + 1] in 'loop on t[i]', but a
 * has no shadow and is never reflected.  The serial build prints sum = 9702; xmpacc on 4
 * nodes prints 9405 (each block edge reads whatever lies beyond the local buffer), warns at
 * compile time, and a checked run (XMPACC_CHECK=1) stops at the read. */
#include <stdio.h>
#define N 100
double a[N], b[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]

int main(void)
{
    int i;
    double sum = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        a[i] = i;
#pragma xmp loop on t[i]
    for (i = 1; i < N - 1; i++)
        b[i] = a[i - 1] + a[i + 1];
#pragma xmp loop on t[i] reduction(+:sum)
    for (i = 1; i < N - 1; i++)
        sum += b[i];
#pragma xmp task on p[0]
    printf("sum = %.0f\n", sum);
    return 0;
}
