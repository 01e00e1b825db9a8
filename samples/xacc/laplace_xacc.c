/*
 * laplace_xacc.c - the Jacobi iteration of laplace_serial.c in XcalableACC: XMP
 * distributes the arrays and the loops, OpenACC puts the data and the loops on each
 * node's GPU (laplace_acc.c is the same program in the XMP-ACC dialect of Lee et al.).
 * The halo rows go GPU to GPU (reflect ... acc: NCCL, or through the host with
 * XMPACC_REFLECT=staged); nothing returns to the host until the region ends.
 * Runs on any number of processes:  mpirun -np 4 ./laplace_xacc
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

    /* device copies of both arrays (local block plus shadow rows) for the whole loop;
       u comes back to the host at the end of the region, unew stays on the device */
#pragma acc data copy(u) copyin(unew)
    {
        for (k = 0; k < ITER; k++) {
            /* halo rows between the GPUs of neighbouring nodes */
#pragma xmp reflect (u) acc
            /* XMP gives each node its rows, OpenACC one GPU thread per (i, j) */
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop collapse(2)
            for (i = 1; i < NX - 1; i++)
                for (j = 1; j < NY - 1; j++)
                    unew[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);

            /* largest change: reduced on the GPU (OpenACC), then over the nodes (XMP) */
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
