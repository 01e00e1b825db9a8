/*
 * 1-D heat lab: a rod with both ends held at zero, heated in the middle at the
 * start, cools by explicit finite differences: u_new[i] = u[i] + R (u[i-1] - 2 u[i]
 * + u[i+1]).  step0_serial.c is the serial program; step1_xmp.c (XcalableMP on CPUs)
 * and step2_acc.c (XcalableMP-ACC) add #pragma xmp lines and nothing else.  LAB.md
 * says what to add at each step and why.
 */
#include <stdio.h>
#include <math.h>

#define N 200       /* grid points, ends included */
#define STEPS 100   /* time steps                 */
#define R 0.25      /* dt / dx^2 (stable if <= 0.5) */

double u[N], unew[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align u[i] with t[i]
#pragma xmp align unew[i] with t[i]
#pragma xmp shadow u[1]

int main(void)
{
    int i, k;
    double heat = 0.0, hottest = 0.0, centre = 0.0;

    /* initial temperature: a bump in the middle, zero at both ends */
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        double x = (double)i / (N - 1);
        u[i] = (i == 0 || i == N - 1) ? 0.0 : exp(-100.0 * (x - 0.4) * (x - 0.4));
        unew[i] = u[i];
    }

    /* the time loop (in step 2 this block is the GPU data region) */
    {
        for (k = 0; k < STEPS; k++) {
            /* each interior point from its two neighbours */
#pragma xmp reflect (u)
#pragma xmp loop on t[i]
            for (i = 1; i < N - 1; i++)
                unew[i] = u[i] + R * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
            /* copy back */
#pragma xmp loop on t[i]
            for (i = 1; i < N - 1; i++)
                u[i] = unew[i];
        }
    }

    /* total heat, highest temperature, centre of heat */
#pragma xmp loop on t[i] reduction(+:heat, centre) reduction(max:hottest)
    for (i = 0; i < N; i++) {
        heat += u[i];
        if (u[i] > hottest)
            hottest = u[i];
        centre += i * u[i];
    }

#pragma xmp task on p[0]
    {
        printf("heat1d: %d points, %d steps\n", N, STEPS);
        printf("total heat = %.12e\n", heat);
        printf("hottest = %.12e\n", hottest);
        printf("centre of heat = %.12e\n", centre / heat);
    }
    return 0;
}
