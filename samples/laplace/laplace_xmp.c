/*
 * laplace_xmp.c - Jacobi iteration for the 2-D Laplace equation, XcalableMP version
 * with a 2-D block x block distribution onto a fixed 2 x 2 node grid.
 * Run with exactly 4 processes:  mpirun -np 4 ./laplace_xmp
 *
 * It is laplace_serial.c plus directives: built with a plain C compiler the
 * directives are ignored and it prints exactly what the serial program prints.
 */
#include <stdio.h>
#include <math.h>

#define NX 31   /* rows: 16 + 15 over the two node rows        */
#define NY 47   /* columns: 24 + 23 over the two node columns  */
#define ITER 50 /* Jacobi sweeps                               */

double u[NX][NY], unew[NX][NY];

/* 4 nodes arranged as a 2 x 2 grid (p[0][0] is rank 0, p[0][1] rank 1, ...) */
#pragma xmp nodes p[2][2]
/* the index space of the grid; the macros NX and NY are expanded in directives */
#pragma xmp template t[NX][NY]
/* rows are cut into blocks along the first node dimension, columns along the second */
#pragma xmp distribute t[block][block] onto p
/* u[i][j] and unew[i][j] live on the node that owns t[i][j] */
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align unew[i][j] with t[i][j]
/* the stencil reads one row and one column beyond the local block */
#pragma xmp shadow u[1][1]

int main(void)
{
    int i, j, k;
    double err = 0.0, sum = 0.0;

    /* fixed boundary values, zero inside: each node sets its own block */
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) {
            if (i == 0 || i == NX - 1 || j == 0 || j == NY - 1)
                u[i][j] = 1.0 + sin(0.1 * i) + cos(0.05 * j);
            else
                u[i][j] = 0.0;
            unew[i][j] = u[i][j];
        }

    for (k = 0; k < ITER; k++) {
        /* copy the neighbours' edge rows/columns of u into our shadow */
#pragma xmp reflect (u)
        /* new values from the four neighbours (index list follows the nest: i, then j) */
#pragma xmp loop (i, j) on t[i][j]
        for (i = 1; i < NX - 1; i++)
            for (j = 1; j < NY - 1; j++)
                unew[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);

        /* largest change, then copy back; the clause takes the max over all nodes */
        err = 0.0;
#pragma xmp loop (i, j) on t[i][j] reduction(max:err)
        for (i = 1; i < NX - 1; i++)
            for (j = 1; j < NY - 1; j++) {
                if (fabs(unew[i][j] - u[i][j]) > err)
                    err = fabs(unew[i][j] - u[i][j]);
                u[i][j] = unew[i][j];
            }
    }

    /* verification value: each node sums its block, the clause adds the blocks */
#pragma xmp loop (i, j) on t[i][j] reduction(+:sum)
    for (i = 1; i < NX - 1; i++)
        for (j = 1; j < NY - 1; j++)
            sum += u[i][j];

    /* err and sum are now equal on all nodes: print them once, from the first node */
#pragma xmp task on p[0][0]
    {
        printf("Laplace %d x %d, %d iterations\n", NX, NY, ITER);
        printf("residual = %.12e\n", err);
        printf("checksum = %.12e\n", sum);
    }
    return 0;
}
