/* What an overlapped halo exchange can reach on GPUs of one host (issue 32, O3b), measured
 * before it is built: bench/laplace_bench.c's sweep (2-D Laplace, fp64, rows in blocks over
 * the processes, one halo row above and below) in hand-written CUDA C, one process per GPU,
 * MPI only to set up.  Variants, all with the same arithmetic and checksum:
 *   nccl-serial     the halo by NCCL (send/recv in one group) on the sweep's stream, then one
 *                   kernel (bench/cuda/laplace_cuda.cu's structure)
 *   nccl-overlap    xmpacc's overlapped reflect: the interior on the compute stream; the
 *                   exchange (NCCL) and then the rim on a high-priority stream behind an event
 *                   of the compute stream; the compute stream waits for the rim's event
 *   ipc-overlap     the same, the exchange by copies into the neighbours' memory (CUDA IPC:
 *                   the copy engines, no SM) and flags in it (stream memory operations)
 *   ipc-rimlast     one kernel a sweep on the compute stream, no events: its blocks that read
 *                   a halo row are dispatched last and wait in the kernel until the
 *                   neighbour's flag says the row has arrived; the exchange stream copies a
 *                   sweep's boundary rows as soon as the blocks that wrote them count
 *                   themselves done (cuStreamWaitValue32 on a counter)
 *   ipc-rimlast-pdl the same with programmatic dependent launch on the compute stream
 *   push            one kernel a sweep and nothing else: its first blocks tell the neighbours
 *                   this sweep has begun (so their halo rows are free), wait for them to say
 *                   the same, store this process's boundary rows into the neighbours' halo
 *                   rows (CUDA IPC pointers: NVLink stores from the SMs) and count
 *                   themselves into the neighbour's flag; the blocks that read a halo row
 *                   are dispatched last and wait for the neighbours' counts
 *   push-pdl        the same with programmatic dependent launch
 *   push-thread     "push" with each thread that reads a halo row waiting for itself
 *   push-row0       "push-thread" with no pushing blocks of their own: grid row 0's blocks
 *                   push, then sweep their rows
 *   whole, whole-pdl  one kernel a sweep, plain and with PDL: under one process the
 *                   baselines; under more, "whole" exchanges nothing (wrong numbers on
 *                   purpose: the floor of a sweep of that block)
 * Prints microseconds a sweep (the slowest process) and the checksum of each variant.
 *   nvcc -O3 -arch=sm_90 $(mpicc --showme:compile) bench/cuda/overlap_ipc.cu -lnccl \
 *        $(mpicc --showme:link) -o overlap_ipc   (or: bash bench/cuda/build.sh OUT overlap)
 *   mpirun -np 2 ./overlap_ipc [NX NY ITER] */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "laplace_rows.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "overlap_ipc: %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
  MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)
#define CD(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { \
  fprintf(stderr, "overlap_ipc: %s:%d: driver error %d\n", __FILE__, __LINE__, (int)e_); \
  MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)
#define CN(x) do { ncclResult_t e_ = (x); if (e_ != ncclSuccess) { \
  fprintf(stderr, "overlap_ipc: %s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(e_)); \
  MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

// The flags of a process, in one allocation its neighbours map: arrival[s] is the last sweep
// whose halo row from side s (0 up, 1 down) has arrived; done counts the blocks that wrote a
// boundary row; sent is the last sweep whose boundary rows the copies have read.
// push: open[s] is the last sweep the neighbour on side s has begun, pushed[s] counts the
// blocks of it that have stored a row into my halo.
struct Flags {
  unsigned arrival[2], done, sent;
  unsigned open[2], pushed[2];
};

// Rows [r0, r1) of dst from src (local rows; columns 1 .. ny-2), ROWS_PER_THREAD rows a
// thread.  flagged: row-block 0 is dispatched last (blockIdx.y nby-1) and the last
// second to last; a block holding row `top` (or `bottom`) reads the halo row above (below):
// it waits for arrival >= want and for the copies of the previous sweep (sent >= want - 1),
// which read the rows it writes, and counts itself done when its rows are written.
template <bool pdl, bool flagged>
__global__ void __launch_bounds__(256)
sweep(double *dst, const double *src, int r0, int r1, int ny, Flags *f, unsigned want, int top, int bottom) {
  if (pdl) dependent_launch();
  int nby = gridDim.y, rb = flagged ? (blockIdx.y + 1) % nby : blockIdx.y;
  int i = r0 + ROWS_PER_THREAD * rb, j = blockIdx.x * blockDim.x + threadIdx.x;
  bool up = flagged && top >= i && top < i + ROWS_PER_THREAD;
  bool down = flagged && bottom >= i && bottom < i + ROWS_PER_THREAD;
  if (up || down) {
    if (threadIdx.x == 0) {
      volatile Flags *v = f;
      while ((up && v->arrival[0] < want) || (down && v->arrival[1] < want) || v->sent + 1 < want) {
      }
      __threadfence_system();
    }
    __syncthreads();
  }
  if (j >= 1 && j < ny - 1 && i < r1) sweep_rows(dst, src, i, r1, j, ny);
  if (up || down) {
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&f->done, 1u);
  }
}

// push: blockIdx.y < pushes are the pushing blocks (side side_of[blockIdx.y]); the others
// sweep rows [r0, r1) as sweep<pdl, true> does, their blocks holding row top (bottom)
// waiting for pushed[0] (pushed[1]) >= want * gridDim.x.  peer[s]: the neighbour's copy of
// src (its halo row `halo[s]` takes my row `row[s]`).
struct Push {
  Flags *peer_f[2];
  double *peer[2];
  int pushes, side_of[2], row[2], halo[2];
};

// mode PUSH_BLOCKS: the pushes are blocks of their own (blockIdx.y < q.pushes), and a block
// that reads a halo row waits as a block (its thread 0 spins); PUSH_THREADS: the same, each
// thread that reads a halo row spinning for itself (a kernel that returns early from some
// threads cannot __syncthreads); PUSH_IN_ROW0: no blocks of their own: the blocks of grid row
// 0 push both sides' share of their columns, then sweep their rows, threads spinning.
enum { PUSH_BLOCKS, PUSH_THREADS, PUSH_IN_ROW0 };

__device__ __forceinline__ void push_side(const Push &q, int s, Flags *f, const double *src, unsigned want,
                                          int ny, int j) {
  Flags *pf = s ? q.peer_f[1] : q.peer_f[0];
  double *peer = s ? q.peer[1] : q.peer[0];
  long row = s ? q.row[1] : q.row[0], halo = s ? q.halo[1] : q.halo[0];
  if (threadIdx.x == 0) {
    ((volatile Flags *)pf)->open[1 - s] = want;   // my earlier kernels are done
    __threadfence_system();
    while ((s ? ((volatile Flags *)f)->open[1] : ((volatile Flags *)f)->open[0]) < want) {   // and the neighbour's
    }
  }
  __syncthreads();
  if (j < ny) peer[halo * ny + j] = src[row * ny + j];
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd_system(s ? &pf->pushed[0] : &pf->pushed[1], 1u);
}

template <bool pdl, int mode>
__global__ void __launch_bounds__(256)
sweep_push(double *dst, const double *src, int r0, int r1, int ny, Flags *f, unsigned want, int top, int bottom,
           Push q) {
  if (pdl) dependent_launch();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int extra = mode == PUSH_IN_ROW0 ? 0 : q.pushes;
  if (mode != PUSH_IN_ROW0 && (int)blockIdx.y < q.pushes) {
    // no dynamic index into the parameter (it would copy q to local memory in every thread)
    push_side(q, blockIdx.y ? q.side_of[1] : q.side_of[0], f, src, want, ny, j);
    return;
  }
  if (mode == PUSH_IN_ROW0 && blockIdx.y == 0)
    for (int k = 0; k < q.pushes; k++) push_side(q, k ? q.side_of[1] : q.side_of[0], f, src, want, ny, j);
  int nby = gridDim.y - extra, rb = (blockIdx.y - extra + 1) % nby;
  int i = r0 + ROWS_PER_THREAD * rb;
  bool up = top >= i && top < i + ROWS_PER_THREAD;
  bool down = bottom >= i && bottom < i + ROWS_PER_THREAD;
  if (mode == PUSH_BLOCKS && (up || down)) {
    if (threadIdx.x == 0) {
      volatile Flags *v = f;
      while ((up && v->pushed[0] < want * gridDim.x) || (down && v->pushed[1] < want * gridDim.x)) {
      }
      __threadfence();
    }
    __syncthreads();
  }
  if (j >= 1 && j < ny - 1 && i < r1) {
    if (mode != PUSH_BLOCKS && (up || down)) {
      volatile Flags *v = f;
      while ((up && v->pushed[0] < want * gridDim.x) || (down && v->pushed[1] < want * gridDim.x)) {
      }
      __threadfence();
    }
    sweep_rows(dst, src, i, r1, j, ny);
  }
}

static PFN_cuStreamWaitValue32_v11070 wait_value;
static PFN_cuStreamWriteValue32_v11070 write_value;

struct Part {
  int rank, size, rows, ny, iter;
  int r0, r1;              // the local rows a sweep updates, [r0, r1)
  int nb[2];               // the neighbour above and below, -1 where none
  double *a, *b;           // (rows + 2) x ny each
  Flags *f;                // mine
  double *peer_a[2], *peer_b[2];
  Flags *peer_f[2];
  ncclComm_t comm;
  cudaStream_t s, x;       // compute stream, exchange stream (high priority)
  cudaEvent_t ready, done;
  unsigned k;              // sweeps since the reset
  unsigned edge_blocks;    // blocks of a flagged sweep that hold a boundary row
};

static void launch(Part &p, double *dst, const double *src, int r0, int r1, cudaStream_t s, bool pdl,
                   bool flagged) {
  if (r1 <= r0) return;
  dim3 grid((p.ny + THREADS - 1) / THREADS, (r1 - r0 + ROWS_PER_THREAD - 1) / ROWS_PER_THREAD);
  int top = p.nb[0] >= 0 ? 1 : -9, bottom = p.nb[1] >= 0 ? p.rows : -9;
  cudaLaunchConfig_t c = {};
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  c.gridDim = grid, c.blockDim = dim3(THREADS), c.stream = s, c.attrs = pdl ? at : 0, c.numAttrs = pdl;
  if (pdl && flagged)
    CK(cudaLaunchKernelEx(&c, sweep<true, true>, dst, src, r0, r1, p.ny, p.f, p.k, top, bottom));
  else if (pdl)
    CK(cudaLaunchKernelEx(&c, sweep<true, false>, dst, src, r0, r1, p.ny, p.f, p.k, top, bottom));
  else if (flagged)
    CK(cudaLaunchKernelEx(&c, sweep<false, true>, dst, src, r0, r1, p.ny, p.f, p.k, top, bottom));
  else
    CK(cudaLaunchKernelEx(&c, sweep<false, false>, dst, src, r0, r1, p.ny, p.f, p.k, top, bottom));
}

static void launch_push(Part &p, double *dst, const double *src, bool pdl, int mode) {
  Push q = {};
  for (int side = 0; side < 2; side++) {
    if (p.nb[side] < 0) continue;
    q.peer_f[side] = p.peer_f[side];
    q.peer[side] = src == p.a ? p.peer_a[side] : p.peer_b[side];
    q.row[side] = side ? p.rows : 1;
    q.halo[side] = side ? 0 : p.rows + 1;
    q.side_of[q.pushes++] = side;
  }
  int top = p.nb[0] >= 0 ? 1 : -9, bottom = p.nb[1] >= 0 ? p.rows : -9;
  int extra = mode == PUSH_IN_ROW0 ? 0 : q.pushes;
  dim3 grid((p.ny + THREADS - 1) / THREADS, extra + (p.r1 - p.r0 + ROWS_PER_THREAD - 1) / ROWS_PER_THREAD);
  cudaLaunchConfig_t c = {};
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  c.gridDim = grid, c.blockDim = dim3(THREADS), c.stream = p.s, c.attrs = pdl ? at : 0, c.numAttrs = pdl;
  void (*k)(double *, const double *, int, int, int, Flags *, unsigned, int, int, Push) =
      mode == PUSH_BLOCKS ? (pdl ? sweep_push<true, PUSH_BLOCKS> : sweep_push<false, PUSH_BLOCKS>)
      : mode == PUSH_THREADS ? (pdl ? sweep_push<true, PUSH_THREADS> : sweep_push<false, PUSH_THREADS>)
                             : (pdl ? sweep_push<true, PUSH_IN_ROW0> : sweep_push<false, PUSH_IN_ROW0>);
  CK(cudaLaunchKernelEx(&c, k, dst, src, p.r0, p.r1, p.ny, p.f, p.k, top, bottom, q));
}

static void nccl_halo(Part &p, double *a, cudaStream_t s) {
  CN(ncclGroupStart());
  for (int side = 0; side < 2; side++) {
    if (p.nb[side] < 0) continue;
    long mine = side ? p.rows : 1, halo = side ? p.rows + 1 : 0;
    CN(ncclSend(a + mine * p.ny, p.ny, ncclDouble, p.nb[side], p.comm, s));
    CN(ncclRecv(a + halo * p.ny, p.ny, ncclDouble, p.nb[side], p.comm, s));
  }
  CN(ncclGroupEnd());
}

// The exchange of sweep p.k (src: its input) by copies into the neighbours, on stream x:
// after the blocks of the previous sweep that wrote the boundary rows (done), and after the
// neighbour's previous exchange into me (it came after the neighbour's sweep before that,
// the last to read the halo row I now overwrite).
static void ipc_halo(Part &p, double *src, bool counted) {
  bool is_a = src == p.a;
  if (p.k > 1 && counted)
    CD(wait_value(p.x, (CUdeviceptr)&p.f->done, p.edge_blocks * (p.k - 1), CU_STREAM_WAIT_VALUE_GEQ));
  for (int side = 0; side < 2; side++) {
    if (p.nb[side] < 0) continue;
    if (p.k > 1)
      CD(wait_value(p.x, (CUdeviceptr)&p.f->arrival[side], p.k - 1, CU_STREAM_WAIT_VALUE_GEQ));
    double *peer = is_a ? p.peer_a[side] : p.peer_b[side];
    // my row 1 goes to the upper neighbour's bottom halo row, my last row to the lower's row 0
    long mine = side ? p.rows : 1;
    long theirs = side ? 0 : p.rows + 1;   // the same number of rows everywhere (NX % size == 0)
    CK(cudaMemcpyAsync(peer + theirs * p.ny, src + mine * p.ny, p.ny * sizeof(double), cudaMemcpyDeviceToDevice,
                       p.x));
    CD(write_value(p.x, (CUdeviceptr)&p.peer_f[side]->arrival[1 - side], p.k, 0));
  }
  CD(write_value(p.x, (CUdeviceptr)&p.f->sent, p.k, 0));
}

// one sweep src -> dst in the variant's structure
static void one(Part &p, const char *how, double *dst, const double *src) {
  p.k++;
  bool pdl = strstr(how, "pdl") != 0;
  if (!strncmp(how, "whole", 5)) {
    launch(p, dst, src, p.r0, p.r1, p.s, pdl, false);
  } else if (!strcmp(how, "nccl-serial")) {
    if (p.size > 1) nccl_halo(p, (double *)src, p.s);
    launch(p, dst, src, p.r0, p.r1, p.s, false, false);
  } else if (!strncmp(how, "push", 4)) {
    launch_push(p, dst, src, pdl, strstr(how, "thread") ? PUSH_THREADS : strstr(how, "row0") ? PUSH_IN_ROW0 : PUSH_BLOCKS);
  } else if (!strncmp(how, "ipc-rimlast", 11)) {
    if (p.size > 1) ipc_halo(p, (double *)src, true);
    launch(p, dst, src, p.r0, p.r1, p.s, pdl, true);
  } else {   // nccl-overlap, ipc-overlap
    int top = p.nb[0] >= 0 ? 1 : -1, bottom = p.nb[1] >= 0 ? p.rows : -1;
    CK(cudaEventRecord(p.ready, p.s));
    CK(cudaStreamWaitEvent(p.x, p.ready, 0));
    if (p.size > 1 && how[0] == 'n') nccl_halo(p, (double *)src, p.x);
    if (p.size > 1 && how[0] == 'i') {
      ipc_halo(p, (double *)src, false);
      for (int side = 0; side < 2; side++)
        if (p.nb[side] >= 0)
          CD(wait_value(p.x, (CUdeviceptr)&p.f->arrival[side], p.k, CU_STREAM_WAIT_VALUE_GEQ));
    }
    launch(p, dst, src, top > 0 ? 2 : p.r0, bottom > 0 ? p.rows : p.r1, p.s, false, false);
    if (top > 0 || bottom > 0) {
      rim<<<dim3((p.ny + THREADS - 1) / THREADS, 2), THREADS, 0, p.x>>>(dst, src, top, bottom, p.ny);
      CK(cudaGetLastError());
    }
    CK(cudaEventRecord(p.done, p.x));
    CK(cudaStreamWaitEvent(p.s, p.done, 0));
  }
}

static void reset(Part &p) {
  long lo = (long)p.rank * p.rows;   // global row of local row 1
  long nx = (long)p.rows * p.size;
  std::vector<double> h((size_t)(p.rows + 2) * p.ny, 0.0);
  for (int r = 1; r <= p.rows; r++)
    for (int j = 0; j < p.ny; j++) {
      long i = lo + r - 1;
      h[(size_t)r * p.ny + j] = (i == 0 || j == 0 || i == nx - 1 || j == p.ny - 1) ? 1.0 + 0.001 * ((i + 3 * j) % 17) : 0.0;
    }
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(p.a, h.data(), h.size() * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(p.b, h.data(), h.size() * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemset(p.f, 0, sizeof(Flags)));
  CK(cudaDeviceSynchronize());
  p.k = 0;
  MPI_Barrier(MPI_COMM_WORLD);   // nobody writes my flags before I have reset them
}

static double checksum(Part &p) {
  std::vector<double> h((size_t)(p.rows + 2) * p.ny);
  CK(cudaMemcpy(h.data(), p.a, h.size() * sizeof(double), cudaMemcpyDeviceToHost));
  double mine = 0, all = 0;
  for (size_t c = p.ny; c < (size_t)(p.rows + 1) * p.ny; c++) mine += h[c];
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

// two untimed sweeps, then ITER timed ones (a -> b, b -> a, ...): µs a sweep, the slowest process
static double timed(Part &p, const char *how) {
  reset(p);
  one(p, how, p.b, p.a);
  one(p, how, p.a, p.b);
  CK(cudaDeviceSynchronize());
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int k = 0; k < p.iter; k += 2) {
    one(p, how, p.b, p.a);
    one(p, how, p.a, p.b);
  }
  CK(cudaDeviceSynchronize());
  double us = 1e6 * (MPI_Wtime() - t0) / p.iter, worst;
  MPI_Allreduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

static void open_peer(Part &p, int side, const std::vector<cudaIpcMemHandle_t> &all) {
  int r = p.nb[side];
  if (r < 0) return;
  void *q;
  CK(cudaIpcOpenMemHandle(&q, all[3 * r], cudaIpcMemLazyEnablePeerAccess));
  p.peer_a[side] = (double *)q;
  CK(cudaIpcOpenMemHandle(&q, all[3 * r + 1], cudaIpcMemLazyEnablePeerAccess));
  p.peer_b[side] = (double *)q;
  CK(cudaIpcOpenMemHandle(&q, all[3 * r + 2], cudaIpcMemLazyEnablePeerAccess));
  p.peer_f[side] = (Flags *)q;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Part p = {};
  MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p.size);
  int nx = argc > 1 ? atoi(argv[1]) : 4096;
  p.ny = argc > 2 ? atoi(argv[2]) : 4096;
  p.iter = argc > 3 ? atoi(argv[3]) : 2000;
  if (nx % p.size || p.iter % 2) {
    if (!p.rank) fprintf(stderr, "overlap_ipc: NX a multiple of the processes, ITER even\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm node;
  int local, ndev;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, p.rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  CK(cudaGetDeviceCount(&ndev));
  CK(cudaSetDevice(local % ndev));
  CK(cudaFree(0));
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", (void **)&wait_value, 12000, cudaEnableDefault, &q));
  CK(cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", (void **)&write_value, 12000, cudaEnableDefault, &q));

  p.rows = nx / p.size;
  p.nb[0] = p.rank > 0 ? p.rank - 1 : -1;
  p.nb[1] = p.rank + 1 < p.size ? p.rank + 1 : -1;
  p.r0 = p.rank == 0 ? 2 : 1;                           // global row 0 is fixed
  p.r1 = p.rank == p.size - 1 ? p.rows : p.rows + 1;    // and so is global row nx - 1
  unsigned gx = (p.ny + THREADS - 1) / THREADS;
  p.edge_blocks = gx * ((p.nb[0] >= 0) + (p.nb[1] >= 0));
  size_t bytes = (size_t)(p.rows + 2) * p.ny * sizeof(double);
  CK(cudaMalloc(&p.a, bytes));
  CK(cudaMalloc(&p.b, bytes));
  CK(cudaMalloc(&p.f, sizeof(Flags)));
  int least, greatest;
  CK(cudaStreamCreateWithFlags(&p.s, cudaStreamNonBlocking));
  CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CK(cudaStreamCreateWithPriority(&p.x, cudaStreamNonBlocking, greatest));
  CK(cudaEventCreateWithFlags(&p.ready, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&p.done, cudaEventDisableTiming));
  std::vector<cudaIpcMemHandle_t> mine(3), all(3 * p.size);
  CK(cudaIpcGetMemHandle(&mine[0], p.a));
  CK(cudaIpcGetMemHandle(&mine[1], p.b));
  CK(cudaIpcGetMemHandle(&mine[2], p.f));
  MPI_Allgather(mine.data(), 3 * sizeof(cudaIpcMemHandle_t), MPI_BYTE, all.data(), 3 * sizeof(cudaIpcMemHandle_t),
                MPI_BYTE, MPI_COMM_WORLD);
  open_peer(p, 0, all);
  open_peer(p, 1, all);
  if (p.size > 1) {
    ncclUniqueId id;
    if (!p.rank) CN(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    CN(ncclCommInitRank(&p.comm, p.size, id, p.rank));
  }
  if (!p.rank) printf("%d process(es), %d x %d doubles, %d rows each, %d sweeps\n", p.size, nx, p.ny, p.rows, p.iter);
  // every variant twice, the second pass after all the first
  const char *one_gpu[] = {"whole", "whole-pdl", "push", "push-pdl", "push-thread", "push-row0"};
  const char *more[] = {"nccl-serial", "nccl-overlap", "ipc-overlap", "ipc-rimlast", "ipc-rimlast-pdl",
                        "push", "push-pdl", "push-thread", "push-row0", "whole"};
  const int n1 = sizeof one_gpu / sizeof *one_gpu, n2 = sizeof more / sizeof *more;
  int n = 2 * (p.size > 1 ? n2 : n1);
  for (int v = 0; v < n; v++) {
    const char *how = p.size > 1 ? more[v % n2] : one_gpu[v % n1];
    double us = timed(p, how), sum = checksum(p);
    if (!p.rank) printf("%-16s %8.3f us a sweep  checksum %.15e\n", how, us, sum);
    fflush(stdout);
  }
  if (p.comm) CN(ncclCommDestroy(p.comm));
  MPI_Finalize();
  return 0;
}
