/*
 * laplace_acc.c - Jacobi iteration for the 2-D Laplace equation, XcalableMP-ACC version:
 * the sweeps run on each node's GPU, the halo rows travel through the host.
 * Runs on any number of processes:  mpirun -np 4 ./laplace_acc
 *
 * It is laplace_serial.c plus directives: built with a plain C compiler the
 * directives are ignored and it prints exactly what the serial program prints.
 */
#include <stdio.h>
#include <math.h>

#define NX 31   /* rows, block-distributed over the nodes */
#define NY 47   /* columns, kept whole on every node      */
#define ITER 50 /* Jacobi sweeps                          */

double u[NX][NY], unew[NX][NY];

/* any number of nodes, one GPU each */
#pragma xmp nodes p[*]
/* rows are cut into blocks; '*': columns are not distributed */
#pragma xmp template t[NX][NY]
#pragma xmp distribute t[block][*] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align unew[i][j] with t[i][j]
/* the stencil reads one row above and below the local block */
#pragma xmp shadow u[1][0]

int main(void)
{
    int i, j, k;
    double err = 0.0, sum = 0.0;

    /* fixed boundary values, zero inside: each node sets its own block (on the host) */
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) {
            if (i == 0 || i == NX - 1 || j == 0 || j == NY - 1)
                u[i][j] = 1.0 + sin(0.1 * i) + cos(0.05 * j);
            else
                u[i][j] = 0.0;
            unew[i][j] = u[i][j];
        }

    /* GPU copies of both arrays (local block plus shadow rows) live in this block */
#pragma xmp acc replicate (u, unew)
    {
#pragma xmp acc replicate_sync in (u, unew)
        for (k = 0; k < ITER; k++) {
            /* halo exchange through the host: GPU -> host, reflect, host -> GPU */
#pragma xmp acc replicate_sync out (u)
#pragma xmp reflect (u)
#pragma xmp acc replicate_sync in (u)
            /* one GPU thread per local (i, j) */
#pragma xmp loop (i, j) on t[i][j] acc
            for (i = 1; i < NX - 1; i++)
                for (j = 1; j < NY - 1; j++)
                    unew[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);

            /* largest change (reduced on the GPU, then over the nodes), then copy back */
            err = 0.0;
#pragma xmp loop (i, j) on t[i][j] reduction(max:err) acc
            for (i = 1; i < NX - 1; i++)
                for (j = 1; j < NY - 1; j++) {
                    if (fabs(unew[i][j] - u[i][j]) > err)
                        err = fabs(unew[i][j] - u[i][j]);
                    u[i][j] = unew[i][j];
                }
        }
        /* results back to the host for the checksum */
#pragma xmp acc replicate_sync out (u)
    }

    /* verification value: each node sums its block, the clause adds the blocks */
#pragma xmp loop (i, j) on t[i][j] reduction(+:sum)
    for (i = 1; i < NX - 1; i++)
        for (j = 1; j < NY - 1; j++)
            sum += u[i][j];

#pragma xmp task on p[0]
    {
        printf("Laplace %d x %d, %d iterations\n", NX, NY, ITER);
        printf("residual = %.12e\n", err);
        printf("checksum = %.12e\n", sum);
    }
    return 0;
}
