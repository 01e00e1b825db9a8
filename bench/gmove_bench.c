/* gmove between a block-distributed and a cyclic-distributed N x N double array (rows
 * distributed, columns whole): the redistribution a 2-D FFT or a transpose makes.
 * bench/gmove_bench.py builds it (-DN=...) and runs it next to a hand-written mpi4py
 * Alltoallv of the same data.  Prints the mean time per gmove (the slowest node) and a
 * checksum of the result. */
#include <stdio.h>
#include <xmp.h>

#ifndef N
#define N 4096
#endif
#ifndef REPS
#define REPS 10
#endif

#pragma xmp nodes p[*]
#pragma xmp template tb[N]
#pragma xmp template tc[N]
#pragma xmp distribute tb[block] onto p
#pragma xmp distribute tc[cyclic] onto p
double a[N][N], b[N][N];
#pragma xmp align a[i][*] with tb[i]
#pragma xmp align b[i][*] with tc[i]

/* one call site each, so that the warm-up call makes the plan the timed calls use */
static void to_cyclic(void)
{
#pragma xmp gmove
    b[:][:] = a[:][:];
}

static void to_block(void)
{
#pragma xmp gmove
    a[:][:] = b[:][:];
}

int main(void)
{
    int i, j, r;
    double t0, t, back, sum = 0.0;
#pragma xmp loop on tb[i]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) a[i][j] = i + 1e-4 * j;

    to_cyclic();                           /* warm-up: the plan is made here */
#pragma xmp barrier
    t0 = xmp_wtime();
    for (r = 0; r < REPS; r++)
        to_cyclic();
#pragma xmp barrier
    t = (xmp_wtime() - t0) / REPS;
    to_block();
#pragma xmp barrier
    t0 = xmp_wtime();
    for (r = 0; r < REPS; r++)
        to_block();
#pragma xmp barrier
    back = (xmp_wtime() - t0) / REPS;
#pragma xmp reduction (max:t, back)
    to_cyclic();
#pragma xmp loop on tc[i] reduction(+:sum)
    for (i = 0; i < N; i++)
        sum += b[i][i] + b[i][N - 1 - i];
    if (xmpc_node_num() == 0)
        printf("block_to_cyclic = %.6e\ncyclic_to_block = %.6e\nchecksum = %.10e\n", t, back, sum);
    return 0;
}
