/* 1-D heat equation on the CPU path (XMP, no acc): block distribution, shadow 1, one
 * reflect per sweep.  -DN=4000000 -DSTEPS=100 (sweeps timed after 2 untimed ones).
 * heat_mpi.c is the same program written by hand in C + MPI; both print the same
 * checksum.  A step is one sweep u -> unew (or unew -> u) with the reflect before it. */
#include <stdio.h>
#include <xmp.h>

#ifndef N
#define N 4000000
#endif
#ifndef STEPS
#define STEPS 100
#endif
#define R 0.25

double u[N], unew[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align u[i] with t[i]
#pragma xmp align unew[i] with t[i]
#pragma xmp shadow u[1]
#pragma xmp shadow unew[1]

static void sweep_u(void)
{
    int i;
#pragma xmp reflect (u)
#pragma xmp loop on t[i]
    for (i = 1; i < N - 1; i++)
        unew[i] = u[i] + R * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

static void sweep_unew(void)
{
    int i;
#pragma xmp reflect (unew)
#pragma xmp loop on t[i]
    for (i = 1; i < N - 1; i++)
        u[i] = unew[i] + R * (unew[i - 1] - 2.0 * unew[i] + unew[i + 1]);
}

int main(void)
{
    int i, k;
    double t0, t1, sum = 0.0, moment = 0.0;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        u[i] = (i % 1000 == 0 || i == N - 1) ? 0.0 : 1.0 + 0.001 * (i % 37);
        unew[i] = u[i];
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
#pragma xmp loop on t[i] reduction(+:sum, moment)
    for (i = 0; i < N; i++) {
        sum += u[i];
        moment += (i % 1000) * u[i];
    }
    if (xmpc_node_num() == 0) {
        printf("nodes = %d N = %d steps = %d\n", xmp_num_nodes(), N, STEPS);
        printf("step_us = %.3f\n", 1e6 * (t1 - t0) / STEPS);
        printf("checksum = %.15e\n", sum);
        printf("moment = %.15e\n", moment);
    }
    return 0;
}
