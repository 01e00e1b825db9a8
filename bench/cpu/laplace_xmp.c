/* 2-D Laplace (Jacobi) on the CPU path (XMP, no acc): rows block-distributed, one halo
 * row, one reflect per sweep.  -DNX=4096 -DNY=4096 -DSTEPS=20 (sweeps timed after 2
 * untimed ones).  laplace_mpi.c is the same program written by hand in C + MPI; both
 * print the same checksum. */
#include <stdio.h>
#include <xmp.h>

#ifndef NX
#define NX 4096
#endif
#ifndef NY
#define NY 4096
#endif
#ifndef STEPS
#define STEPS 20
#endif

double u[NX][NY], unew[NX][NY];
#pragma xmp nodes p[*]
#pragma xmp template t[NX][NY]
#pragma xmp distribute t[block][*] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align unew[i][j] with t[i][j]
#pragma xmp shadow u[1][0]
#pragma xmp shadow unew[1][0]

static void sweep_u(void)
{
    int i, j;
#pragma xmp reflect (u)
#pragma xmp loop (i, j) on t[i][j]
    for (i = 1; i < NX - 1; i++)
        for (j = 1; j < NY - 1; j++)
            unew[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
}

static void sweep_unew(void)
{
    int i, j;
#pragma xmp reflect (unew)
#pragma xmp loop (i, j) on t[i][j]
    for (i = 1; i < NX - 1; i++)
        for (j = 1; j < NY - 1; j++)
            u[i][j] = 0.25 * (unew[i - 1][j] + unew[i + 1][j] + unew[i][j - 1] + unew[i][j + 1]);
}

int main(void)
{
    int i, j, k;
    double t0, t1, sum = 0.0;

#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) {
            u[i][j] = (i == 0 || j == 0 || i == NX - 1 || j == NY - 1) ? 1.0 + 0.001 * ((i + 3 * j) % 17) : 0.0;
            unew[i][j] = u[i][j];
        }
    sweep_u();
    sweep_unew();
#pragma xmp barrier
    t0 = xmp_wtime();
    for (k = 0; k < STEPS; k += 2) {
        sweep_u();
        sweep_unew();
    }
#pragma xmp barrier
    t1 = xmp_wtime();
#pragma xmp loop (i, j) on t[i][j] reduction(+:sum)
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++)
            sum += u[i][j];
    if (xmpc_node_num() == 0) {
        printf("nodes = %d NX = %d NY = %d steps = %d\n", xmp_num_nodes(), NX, NY, STEPS);
        printf("step_us = %.3f\n", 1e6 * (t1 - t0) / STEPS);
        printf("checksum = %.15e\n", sum);
    }
    return 0;
}
