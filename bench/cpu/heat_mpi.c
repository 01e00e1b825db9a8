/* heat_xmp.c written by hand in C + MPI: the best plain version (local arrays with one
 * halo slot on each side, a pair of MPI_Sendrecv per sweep, restrict pointers), the same
 * block distribution (B = ceil(N/P)) and arithmetic, so the checksums agree. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 4000000
#endif
#ifndef STEPS
#define STEPS 100
#endif
#define R 0.25

static int rank, size, prev, next;
static long lo, hi;   /* owned global indices [lo, hi) */

static void halo(double *a, long n)
{
    MPI_Sendrecv(&a[n], 1, MPI_DOUBLE, next, 1, &a[0], 1, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[1], 1, MPI_DOUBLE, prev, 2, &a[n + 1], 1, MPI_DOUBLE, next, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* a[1..n] holds global lo..hi-1; a[0] and a[n+1] the halo */
static void sweep(double *restrict out, double *restrict in, long n)
{
    long first = lo == 0 ? 2 : 1, last = hi == N ? n - 1 : n;
    halo(in, n);
    for (long l = first; l <= last; l++)
        out[l] = in[l] + R * (in[l - 1] - 2.0 * in[l] + in[l + 1]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long b = (N + size - 1) / size;
    lo = rank * b < N ? rank * b : N;
    hi = lo + b < N ? lo + b : N;
    long n = hi - lo;
    prev = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    next = rank < size - 1 && hi < N ? rank + 1 : MPI_PROC_NULL;
    double *u = malloc((n + 2) * sizeof(double)), *unew = malloc((n + 2) * sizeof(double));
    for (long g = lo; g < hi; g++) {
        u[g - lo + 1] = (g % 1000 == 0 || g == N - 1) ? 0.0 : 1.0 + 0.001 * (g % 37);
        unew[g - lo + 1] = u[g - lo + 1];
    }
    sweep(unew, u, n);
    sweep(u, unew, n);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < STEPS; k += 2) {
        sweep(unew, u, n);
        sweep(u, unew, n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime(), part[2] = {0.0, 0.0}, all[2];
    for (long g = lo; g < hi; g++) {
        part[0] += u[g - lo + 1];
        part[1] += (g % 1000) * u[g - lo + 1];
    }
    MPI_Allreduce(part, all, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("nodes = %d N = %d steps = %d\n", size, N, STEPS);
        printf("step_us = %.3f\n", 1e6 * (t1 - t0) / STEPS);
        printf("checksum = %.15e\n", all[0]);
        printf("moment = %.15e\n", all[1]);
    }
    free(u);
    free(unew);
    MPI_Finalize();
    return 0;
}
