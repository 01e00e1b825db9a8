/*
 * Laplace lab: Jacobi iteration for the 2-D Laplace equation.  The grid has fixed
 * boundary values and starts at zero inside; every sweep replaces each interior point
 * by the mean of its four neighbours.  step0_serial.c is the serial program;
 * step1_xmp.c (XcalableMP on CPUs) and step2_acc.c (XcalableMP-ACC) add #pragma xmp
 * lines and nothing else.  LAB.md says what to add at each step and why.
 */
#include <stdio.h>
#include <math.h>

#define NX 31   /* rows    */
#define NY 47   /* columns */
#define ITER 50 /* sweeps  */

double u[NX][NY], unew[NX][NY];
#pragma xmp nodes p[*]
#pragma xmp template t[NX][NY]
#pragma xmp distribute t[block][*] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align unew[i][j] with t[i][j]
#pragma xmp shadow u[1][0]

int main(void)
{
    int i, j, k;
    double err = 0.0, sum = 0.0;

    /* fixed boundary values, zero inside */
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) {
            if (i == 0 || i == NX - 1 || j == 0 || j == NY - 1)
                u[i][j] = 1.0 + sin(0.1 * i) + cos(0.05 * j);
            else
                u[i][j] = 0.0;
            unew[i][j] = u[i][j];
        }

    /* the sweeps (in step 2 this block is the GPU data region) */
#pragma acc data copy(u) copyin(unew)
    {
        for (k = 0; k < ITER; k++) {
            /* new values from the four neighbours */
#pragma xmp reflect (u) acc
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop collapse(2)
            for (i = 1; i < NX - 1; i++)
                for (j = 1; j < NY - 1; j++)
                    unew[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);

            /* largest change, then copy back */
            err = 0.0;
#pragma xmp loop (i, j) on t[i][j] reduction(max:err)
#pragma acc parallel loop collapse(2) reduction(max:err)
            for (i = 1; i < NX - 1; i++)
                for (j = 1; j < NY - 1; j++) {
                    if (fabs(unew[i][j] - u[i][j]) > err)
                        err = fabs(unew[i][j] - u[i][j]);
                    u[i][j] = unew[i][j];
                }
        }
    }

    /* verification value: sum of the interior */
#pragma xmp loop (i, j) on t[i][j] reduction(+:sum)
    for (i = 1; i < NX - 1; i++)
        for (j = 1; j < NY - 1; j++)
            sum += u[i][j];

#pragma xmp task on p[0]
    {
        printf("Laplace %d x %d, %d sweeps\n", NX, NY, ITER);
        printf("residual = %.12e\n", err);
        printf("checksum = %.12e\n", sum);
    }
    return 0;
}
