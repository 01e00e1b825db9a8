/* The cost of one reflect of a 1-element shadow (CPU2): a block-distributed array with
 * shadow 1, REPS reflects timed after 100 untimed ones.  reflect_mpi.c times the pair of
 * MPI_Sendrecv that a hand-written program does instead. */
#include <stdio.h>
#include <xmp.h>

#ifndef N
#define N 1024
#endif
#ifndef REPS
#define REPS 100000
#endif

double a[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[1]

int main(void)
{
    int i, k;
    double t0, t1, sum = 0.0;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        a[i] = i;
    for (k = 0; k < 100; k++) {
#pragma xmp reflect (a)
    }
#pragma xmp barrier
    t0 = xmp_wtime();
    for (k = 0; k < REPS; k++) {
#pragma xmp reflect (a)
    }
    t1 = xmp_wtime();
#pragma xmp barrier
#pragma xmp loop on t[i] reduction(+:sum)
    for (i = 1; i < N - 1; i++)
        sum += a[i - 1] + a[i + 1];
    if (xmpc_node_num() == 0) {
        printf("nodes = %d reps = %d\n", xmp_num_nodes(), REPS);
        printf("reflect_us = %.4f\n", 1e6 * (t1 - t0) / REPS);
        printf("checksum = %.15e\n", sum);
    }
    return 0;
}
