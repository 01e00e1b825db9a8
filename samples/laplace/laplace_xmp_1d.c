/*
 * laplace_xmp_1d.c - Jacobi iteration for the 2-D Laplace equation, XcalableMP version
 * with the rows block-distributed over any number of nodes (each node holds whole rows).
 * Runs on any process count:  mpirun -np 3 ./laplace_xmp_1d   (31 rows -> 11, 11, 9)
 *
 * It is laplace_serial.c plus directives: built with a plain C compiler the
 * directives are ignored and it prints exactly what the serial program prints.
 */
#include <stdio.h>
#include <math.h>

#define NX 31   /* rows: 8,8,8,7 on 4 nodes, 11,11,9 on 3, 16,15 on 2 */
#define NY 47   /* columns (not distributed)                          */
#define ITER 50 /* Jacobi sweeps                                      */

double u[NX][NY], unew[NX][NY];

/* a 1-D node array with as many nodes as processes */
#pragma xmp nodes p[*]
/* one template index per row */
#pragma xmp template t[NX]
/* consecutive blocks of rows per node */
#pragma xmp distribute t[block] onto p
/* row i of u and unew lives on the owner of t[i]; '*' keeps each row whole */
#pragma xmp align u[i][*] with t[i]
#pragma xmp align unew[i][*] with t[i]
/* one extra row above and below the local block; no shadow along the columns */
#pragma xmp shadow u[1][0]

int main(void)
{
    int i, j, k;
    double err = 0.0, sum = 0.0;

    /* fixed boundary values, zero inside: each node sets its own rows */
#pragma xmp loop (i) on t[i]
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) {
            if (i == 0 || i == NX - 1 || j == 0 || j == NY - 1)
                u[i][j] = 1.0 + sin(0.1 * i) + cos(0.05 * j);
            else
                u[i][j] = 0.0;
            unew[i][j] = u[i][j];
        }

    for (k = 0; k < ITER; k++) {
        /* fetch the last row of the node above and the first row of the node below */
#pragma xmp reflect (u)
        /* only the row loop is distributed; the column loop runs whole on each node */
#pragma xmp loop on t[i]
        for (i = 1; i < NX - 1; i++)
            for (j = 1; j < NY - 1; j++)
                unew[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);

        /* largest change, then copy back; the clause takes the max over all nodes */
        err = 0.0;
#pragma xmp loop on t[i] reduction(max:err)
        for (i = 1; i < NX - 1; i++)
            for (j = 1; j < NY - 1; j++) {
                if (fabs(unew[i][j] - u[i][j]) > err)
                    err = fabs(unew[i][j] - u[i][j]);
                u[i][j] = unew[i][j];
            }
    }

    /* verification value: each node sums its rows, the clause adds them up */
#pragma xmp loop on t[i] reduction(+:sum)
    for (i = 1; i < NX - 1; i++)
        for (j = 1; j < NY - 1; j++)
            sum += u[i][j];

    /* err and sum are now equal on all nodes: print them once, from the first node */
#pragma xmp task on p[0]
    {
        printf("Laplace %d x %d, %d iterations\n", NX, NY, ITER);
        printf("residual = %.12e\n", err);
        printf("checksum = %.12e\n", sum);
    }
    return 0;
}
