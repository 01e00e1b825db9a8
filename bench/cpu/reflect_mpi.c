/* reflect_xmp.c by hand: a pair of MPI_Sendrecv of one double each per call. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1024
#endif
#ifndef REPS
#define REPS 100000
#endif

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long b = (N + size - 1) / size, lo = rank * b < N ? rank * b : N, hi = lo + b < N ? lo + b : N, n = hi - lo;
    int prev = rank > 0 ? rank - 1 : MPI_PROC_NULL, next = rank < size - 1 && hi < N ? rank + 1 : MPI_PROC_NULL;
    double *a = malloc((n + 2) * sizeof(double));
    for (long g = lo; g < hi; g++)
        a[g - lo + 1] = g;
    for (int k = 0; k < 100 + REPS; k++) {
        static double t0;
        if (k == 100) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        MPI_Sendrecv(&a[n], 1, MPI_DOUBLE, next, 1, &a[0], 1, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&a[1], 1, MPI_DOUBLE, prev, 2, &a[n + 1], 1, MPI_DOUBLE, next, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (k == 100 + REPS - 1) {
            double t1 = MPI_Wtime(), part = 0.0, all;
            MPI_Barrier(MPI_COMM_WORLD);
            for (long g = lo; g < hi; g++)
                if (g >= 1 && g < N - 1)
                    part += a[g - lo] + a[g - lo + 2];
            MPI_Allreduce(&part, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            if (rank == 0) {
                printf("nodes = %d reps = %d\n", size, REPS);
                printf("reflect_us = %.4f\n", 1e6 * (t1 - t0) / REPS);
                printf("checksum = %.15e\n", all);
            }
        }
    }
    free(a);
    MPI_Finalize();
    return 0;
}
