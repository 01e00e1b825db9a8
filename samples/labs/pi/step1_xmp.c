/*
 * pi lab: pi as the integral of 4 / (1 + x^2) from 0 to 1, by the midpoint rule.
 * step0_serial.c is the serial program; step1_xmp.c (XcalableMP on CPUs) and
 * step2_acc.c (XcalableMP-ACC) add #pragma xmp lines and nothing else.  LAB.md
 * says what to add at each step and why.
 */
#include <stdio.h>

#define N 200000   /* number of intervals */
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p

int main(void)
{
    int i, big = 0;
    double h = 1.0 / N, sum = 0.0, fmax = 0.0;

#pragma xmp loop on t[i] reduction(+:sum, big) reduction(max:fmax)
    for (i = 0; i < N; i++) {
        double x = (i + 0.5) * h;
        double f = 4.0 / (1.0 + x * x);
        sum += f;
        if (f > fmax)
            fmax = f;
        if (f > 3.0)
            big++;
    }

#pragma xmp task on p[0]
    {
        printf("pi = %.12e\n", sum * h);
        printf("largest f = %.12e\n", fmax);
        printf("intervals with f > 3: %d of %d\n", big, N);
    }
    return 0;
}
