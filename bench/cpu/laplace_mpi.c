/* laplace_xmp.c written by hand in C + MPI: local row blocks with one halo row above and
 * below, a pair of MPI_Sendrecv per sweep, restrict pointers, the same block distribution
 * of rows (B = ceil(NX/P)) and arithmetic, so the checksums agree. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NX
#define NX 4096
#endif
#ifndef NY
#define NY 4096
#endif
#ifndef STEPS
#define STEPS 20
#endif

static int rank, size, prev, next;
static long lo, hi;   /* owned rows [lo, hi) */

static void halo(double *a, long n)
{
    MPI_Sendrecv(&a[n * NY], NY, MPI_DOUBLE, next, 1, &a[0], NY, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[NY], NY, MPI_DOUBLE, prev, 2, &a[(n + 1) * NY], NY, MPI_DOUBLE, next, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

/* local row l (1..n) holds global row lo + l - 1; rows 0 and n + 1 are the halo */
static void sweep(double *restrict out, const double *restrict in, long n)
{
    long first = lo == 0 ? 2 : 1, last = hi == NX ? n - 1 : n;
    halo((double *)in, n);
    for (long l = first; l <= last; l++)
        for (long j = 1; j < NY - 1; j++)
            out[l * NY + j] = 0.25 * (in[(l - 1) * NY + j] + in[(l + 1) * NY + j] + in[l * NY + j - 1] + in[l * NY + j + 1]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long b = (NX + size - 1) / size;
    lo = rank * b < NX ? rank * b : NX;
    hi = lo + b < NX ? lo + b : NX;
    long n = hi - lo;
    prev = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    next = rank < size - 1 && hi < NX ? rank + 1 : MPI_PROC_NULL;
    double *u = calloc((n + 2) * NY, sizeof(double)), *unew = calloc((n + 2) * NY, sizeof(double));
    for (long i = lo; i < hi; i++)
        for (long j = 0; j < NY; j++) {
            double v = (i == 0 || j == 0 || i == NX - 1 || j == NY - 1) ? 1.0 + 0.001 * ((i + 3 * j) % 17) : 0.0;
            u[(i - lo + 1) * NY + j] = unew[(i - lo + 1) * NY + j] = v;
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
    double t1 = MPI_Wtime(), part = 0.0, all;
    for (long l = 1; l <= n; l++)
        for (long j = 0; j < NY; j++)
            part += u[l * NY + j];
    MPI_Allreduce(&part, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("nodes = %d NX = %d NY = %d steps = %d\n", size, NX, NY, STEPS);
        printf("step_us = %.3f\n", 1e6 * (t1 - t0) / STEPS);
        printf("checksum = %.15e\n", all);
    }
    free(u);
    free(unew);
    MPI_Finalize();
    return 0;
}
