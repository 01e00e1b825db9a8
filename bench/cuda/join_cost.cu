// What joining two streams once per sweep costs, and what removes it (issue 32, O3b).
//
// One GPU's share of bench/laplace_bench.c at 4096^2 on two GPUs: a (ROWS + 2) x NY block
// of doubles (a halo row above and below), swept ITER times between two arrays, with no
// exchange at all: only the streams' structure differs.
//   whole      one stream, one kernel over every own row a sweep (the floor)
//   whole-pdl  the same, launched with programmatic stream serialization (the next
//              sweep's blocks start as the last ones of this sweep run, and wait in
//              griddepcontrol.wait)
//   events     xmpacc's overlapped reflect: the interior on the compute stream, the rim on
//              a high-priority stream behind an event of the compute stream, the compute
//              stream waiting for the rim's event before the next interior
//   values     the same with stream memory operations (cuStreamWriteValue32 /
//              cuStreamWaitValue32 on a counter) in place of the events
//   graph-N    "events" captured as a CUDA graph of N sweeps, launched ITER / N times
// Prints microseconds per sweep and a checksum per variant (the same for all).
//   nvcc -O3 -arch=sm_90 bench/cuda/join_cost.cu -lcuda -o join_cost && ./join_cost [ROWS NY ITER]
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "laplace_rows.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CD(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { \
  fprintf(stderr, "%s:%d: driver error %d\n", __FILE__, __LINE__, (int)e_); exit(1); } } while (0)

// rows [r0, r1) of dst from src, columns 1 .. ny-2, ROWS_PER_THREAD rows a thread (as
// xmpacc's streamed kernel); pdl: wait for the previous kernel of the stream first
template <bool pdl>
__global__ void sweep(double *dst, const double *src, int r0, int r1, int ny) {
  if (pdl) dependent_launch();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = r0 + ROWS_PER_THREAD * blockIdx.y;
  if (j < 1 || j >= ny - 1 || i >= r1) return;
  sweep_rows(dst, src, i, r1, j, ny);
}

struct Run {
  int rows, ny, iter;
  double *a, *b;
  cudaStream_t s, x;   // compute stream, exchange stream (high priority)
  cudaEvent_t ready, done;
  CUdeviceptr counter;
  unsigned count;
};

static void launch_sweep(Run &r, double *dst, const double *src, int r0, int r1, cudaStream_t s, bool pdl) {
  dim3 grid((r.ny + THREADS - 1) / THREADS, (r1 - r0 + ROWS_PER_THREAD - 1) / ROWS_PER_THREAD);
  if (!pdl) {
    sweep<false><<<grid, THREADS, 0, s>>>(dst, src, r0, r1, r.ny);
    CK(cudaGetLastError());
    return;
  }
  cudaLaunchConfig_t c = {};
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  c.gridDim = grid, c.blockDim = dim3(THREADS), c.stream = s, c.attrs = at, c.numAttrs = 1;
  CK(cudaLaunchKernelEx(&c, sweep<true>, dst, src, r0, r1, r.ny));
}

// one sweep src -> dst in the variant's structure
static void one(Run &r, const char *how, double *dst, const double *src) {
  int R = r.rows;
  if (!strncmp(how, "whole", 5)) {   // whole, whole-pdl: own rows 1 .. R
    launch_sweep(r, dst, src, 1, R + 1, r.s, !strcmp(how, "whole-pdl"));
    return;
  }
  bool values = !strcmp(how, "values");
  if (values) {   // the exchange stream waits for the compute stream's count
    CD(cuStreamWriteValue32((CUstream)r.s, r.counter, ++r.count, 0));
    CD(cuStreamWaitValue32((CUstream)r.x, r.counter, r.count, CU_STREAM_WAIT_VALUE_GEQ));
  } else {
    CK(cudaEventRecord(r.ready, r.s));
    CK(cudaStreamWaitEvent(r.x, r.ready, 0));
  }
  launch_sweep(r, dst, src, 2, R, r.s, false);   // the interior: rows 2 .. R-1
  rim<<<dim3((r.ny + THREADS - 1) / THREADS, 2), THREADS, 0, r.x>>>(dst, src, 1, R, r.ny);
  CK(cudaGetLastError());
  if (values) {   // the compute stream waits for the rim's count
    CD(cuStreamWriteValue32((CUstream)r.x, r.counter + 4, ++r.count, 0));
    CD(cuStreamWaitValue32((CUstream)r.s, r.counter + 4, r.count, CU_STREAM_WAIT_VALUE_GEQ));
  } else {
    CK(cudaEventRecord(r.done, r.x));
    CK(cudaStreamWaitEvent(r.s, r.done, 0));
  }
}

static void reset(Run &r) {
  size_t n = (size_t)(r.rows + 2) * r.ny;
  std::vector<double> h(n);
  for (size_t k = 0; k < n; k++) h[k] = (k % 17) * 0.001 + ((k / r.ny) % 5 == 0);
  CK(cudaMemcpy(r.a, h.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(r.b, h.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CD(cuMemsetD32(r.counter, 0, 2));
  r.count = 0;
  CK(cudaDeviceSynchronize());
}

static double checksum(Run &r) {
  size_t n = (size_t)(r.rows + 2) * r.ny;
  std::vector<double> h(n);
  CK(cudaMemcpy(h.data(), r.a, n * sizeof(double), cudaMemcpyDeviceToHost));
  double s = 0;
  for (size_t k = 0; k < n; k++) s += h[k];
  return s;
}

// ITER sweeps (a -> b, b -> a, ...) in the variant's structure: microseconds per sweep
static double timed(Run &r, const char *how) {
  int per_graph = strncmp(how, "graph-", 6) ? 0 : atoi(how + 6);
  cudaGraphExec_t exec = 0;
  reset(r);
  if (per_graph) {   // capture per_graph sweeps (an even number) once
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(r.s, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < per_graph; k++) one(r, "events", k % 2 ? r.a : r.b, k % 2 ? r.b : r.a);
    CK(cudaStreamEndCapture(r.s, &g));
    CK(cudaGraphInstantiate(&exec, g, 0));
    CK(cudaGraphDestroy(g));
  }
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  for (int pass = 0; pass < 2; pass++) {   // the first pass warms up; the second is timed
    reset(r);
    CK(cudaEventRecord(t0, r.s));
    if (per_graph)
      for (int k = 0; k < r.iter; k += per_graph) CK(cudaGraphLaunch(exec, r.s));
    else
      for (int k = 0; k < r.iter; k++) one(r, how, k % 2 ? r.a : r.b, k % 2 ? r.b : r.a);
    CK(cudaEventRecord(t1, r.s));
    CK(cudaEventSynchronize(t1));
  }
  float ms;
  CK(cudaEventElapsedTime(&ms, t0, t1));
  if (exec) CK(cudaGraphExecDestroy(exec));
  return 1e3 * ms / r.iter;
}

int main(int argc, char **argv) {
  Run r = {};
  r.rows = argc > 1 ? atoi(argv[1]) : 2048;
  r.ny = argc > 2 ? atoi(argv[2]) : 4096;
  r.iter = argc > 3 ? atoi(argv[3]) : 2000;
  size_t bytes = (size_t)(r.rows + 2) * r.ny * sizeof(double);
  int least, greatest;
  CK(cudaFree(0));
  CK(cudaMalloc(&r.a, bytes));
  CK(cudaMalloc(&r.b, bytes));
  CD(cuMemAlloc(&r.counter, 8));
  CK(cudaStreamCreateWithFlags(&r.s, cudaStreamNonBlocking));
  CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CK(cudaStreamCreateWithPriority(&r.x, cudaStreamNonBlocking, greatest));
  CK(cudaEventCreateWithFlags(&r.ready, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&r.done, cudaEventDisableTiming));
  printf("block %d x %d doubles (+2 halo rows), %d sweeps\n", r.rows, r.ny, r.iter);
  const char *hows[] = {"whole", "whole-pdl", "events", "values", "graph-2", "graph-20", "whole", "events"};
  for (const char *how : hows) {
    double us = timed(r, how);
    printf("%-10s %8.3f us a sweep  checksum %.15e\n", how, us, checksum(r));
  }
  return 0;
}
