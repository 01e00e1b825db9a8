/* stencil.c with the stencil in a loop ... acc: the same mistake inside a kernel. */
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
#pragma xmp acc replicate (a, b)
    {
#pragma xmp acc replicate_sync in (a)
#pragma xmp loop on t[i] acc
        for (i = 1; i < N - 1; i++)
            b[i] = a[i - 1] + a[i + 1];
#pragma xmp acc replicate_sync out (b)
    }
#pragma xmp loop on t[i] reduction(+:sum)
    for (i = 1; i < N - 1; i++)
        sum += b[i];
#pragma xmp task on p[0]
    printf("sum = %.0f\n", sum);
    return 0;
}
