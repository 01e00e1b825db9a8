/* 2-D Laplace (Jacobi) in hand-written CUDA C + NCCL: the baseline of the overhead goals
 * O1 and O3 (bench/overhead_goals.py), the same computation as bench/laplace_bench.c.
 *   -DNX=1024 -DNY=1024 -DITER=2000   grid and timed sweeps (2 untimed warm-up sweeps)
 * Rows in blocks over the processes (ceil(NX / P) each, XMP's block distribution), one halo
 * row above and below; each sweep is one kernel launch, preceded on the same stream by the
 * halo exchange (ncclSend/ncclRecv of whole rows in one NCCL group; none under one process).
 * No host synchronisation inside the timed loop; MPI only sets up (the NCCL id) and sums
 * the checksum.  Prints what laplace_bench.c prints, and the same checksum.
 * Build: bash bench/cuda/build.sh OUTDIR NX NY ITER.  One GPU per process: local rank
 * modulo the device count. */
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NX
#define NX 1024
#endif
#ifndef NY
#define NY 1024
#endif
#ifndef ITER
#define ITER 2000
#endif
#ifndef BX        /* thread block: BX columns x BY rows */
#define BX 32
#endif
#ifndef BY
#define BY 8
#endif

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "laplace_cuda: %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
    MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)
#define NCCL_CHECK(call) do { ncclResult_t e_ = (call); if (e_ != ncclSuccess) { \
    fprintf(stderr, "laplace_cuda: %s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(e_)); \
    MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

/* out = the 5-point mean of in over local rows r0 .. r0 + nr - 1, columns 1 .. NY - 2; the
 * same four adds in the same order as laplace_bench.c (nvcc contracts no add here: the
 * multiply comes last) */
__global__ void __launch_bounds__(BX * BY)
sweep(const double *__restrict__ in, double *__restrict__ out, int r0, int nr)
{
    int j = 1 + blockIdx.x * BX + threadIdx.x;
    int r = blockIdx.y * BY + threadIdx.y;
    if (j >= NY - 1 || r >= nr)
        return;
    size_t c = (size_t)(r0 + r) * NY + j;
    out[c] = 0.25 * (in[c - NY] + in[c + NY] + in[c - 1] + in[c + 1]);
}

struct Part {
    int rows;         /* owned rows: local rows 1 .. rows; 0 and rows + 1 are the halos */
    int r0, nr;       /* the local rows a sweep updates (global rows 1 .. NX - 2 only) */
    int up, down;     /* neighbour ranks, -1 where none */
    ncclComm_t comm;  /* NULL under one process */
    cudaStream_t s;
    dim3 grid, block;
};

/* halo rows of a from the neighbours, on the stream of the sweeps */
static void halo(const Part &p, double *a)
{
    if (p.comm == NULL)
        return;
    NCCL_CHECK(ncclGroupStart());
    if (p.up >= 0) {
        NCCL_CHECK(ncclSend(a + (size_t)1 * NY, NY, ncclDouble, p.up, p.comm, p.s));
        NCCL_CHECK(ncclRecv(a, NY, ncclDouble, p.up, p.comm, p.s));
    }
    if (p.down >= 0) {
        NCCL_CHECK(ncclSend(a + (size_t)p.rows * NY, NY, ncclDouble, p.down, p.comm, p.s));
        NCCL_CHECK(ncclRecv(a + (size_t)(p.rows + 1) * NY, NY, ncclDouble, p.down, p.comm, p.s));
    }
    NCCL_CHECK(ncclGroupEnd());
}

static void step(const Part &p, double *from, double *to)
{
    halo(p, from);
    if (p.nr > 0)
        sweep<<<p.grid, p.block, 0, p.s>>>(from, to, p.r0, p.nr);
}

int main(int argc, char **argv)
{
    int rank, size, local, ndev, k;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    CUDA_CHECK(cudaSetDevice(local % ndev));

    const int b = (NX + size - 1) / size;   /* XMP's block distribution */
    const int lo = rank * b < NX ? rank * b : NX, hi = lo + b < NX ? lo + b : NX;
    Part p;
    p.rows = hi - lo;
    if (p.rows < 1) {
        if (rank == 0)
            fprintf(stderr, "laplace_cuda: %d processes leave one without rows of NX = %d\n", size, NX);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int first = lo > 1 ? lo : 1, last = hi < NX - 1 ? hi : NX - 1;   /* global, [first, last) */
    p.r0 = first - lo + 1;
    p.nr = last > first ? last - first : 0;
    p.up = rank > 0 ? rank - 1 : -1;
    p.down = rank + 1 < size ? rank + 1 : -1;
    p.block = dim3(BX, BY);
    p.grid = dim3((NY - 2 + BX - 1) / BX, (p.nr + BY - 1) / BY);
    CUDA_CHECK(cudaStreamCreateWithFlags(&p.s, cudaStreamNonBlocking));
    p.comm = NULL;
    if (size > 1) {
        ncclUniqueId id;
        if (rank == 0)
            NCCL_CHECK(ncclGetUniqueId(&id));
        MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
        NCCL_CHECK(ncclCommInitRank(&p.comm, size, id, rank));
    }

    /* local row r is global row lo + r - 1; the halo rows start as zeros (every sweep
     * fills them first) */
    const size_t n = (size_t)(p.rows + 2) * NY;
    double *h = (double *)calloc(n, sizeof(double)), *u, *unew;
    for (int r = 1; r <= p.rows; r++) {
        int i = lo + r - 1;
        for (int j = 0; j < NY; j++)
            h[(size_t)r * NY + j] = (i == 0 || j == 0 || i == NX - 1 || j == NY - 1)
                ? 1.0 + 0.001 * ((i + 3 * j) % 17) : 0.0;
    }
    CUDA_CHECK(cudaMalloc(&u, n * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&unew, n * sizeof(double)));
    CUDA_CHECK(cudaMemcpyAsync(u, h, n * sizeof(double), cudaMemcpyHostToDevice, p.s));
    CUDA_CHECK(cudaMemcpyAsync(unew, h, n * sizeof(double), cudaMemcpyHostToDevice, p.s));

    step(p, u, unew);   /* untimed warm-up (and NCCL's first connection) */
    step(p, unew, u);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(p.s));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (k = 0; k < ITER; k += 2) {
        step(p, u, unew);
        step(p, unew, u);
    }
    CUDA_CHECK(cudaStreamSynchronize(p.s));
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(h, u, n * sizeof(double), cudaMemcpyDeviceToHost));
    double mine = 0.0, sum = 0.0;
    for (size_t c = NY; c < (size_t)(p.rows + 1) * NY; c++)
        mine += h[c];
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("nodes = %d NX = %d NY = %d iter = %d\n", size, NX, NY, ITER);
        printf("iter_ms = %.6f\n", 1e3 * (t1 - t0) / ITER);
        printf("checksum = %.15e\n", sum);
    }
    if (p.comm != NULL)
        NCCL_CHECK(ncclCommDestroy(p.comm));
    CUDA_CHECK(cudaFree(u));
    CUDA_CHECK(cudaFree(unew));
    CUDA_CHECK(cudaStreamDestroy(p.s));
    free(h);
    MPI_Finalize();
    return 0;
}
