// The 5-point Laplace sweep of bench/laplace_bench.c as the hand-written programs of
// bench/cuda/ walk it (join_cost.cu, overlap_ipc.cu): a thread sweeps column j of up to
// ROWS_PER_THREAD rows from row i (before r1) of dst from src, keeping the rows above and at
// each step in registers, as xmpacc's streamed kernel does.  The same four adds in the same
// order as laplace_bench.c, so that every variant prints its checksum.
#ifndef LAPLACE_ROWS_CUH
#define LAPLACE_ROWS_CUH

static const int ROWS_PER_THREAD = 4, THREADS = 256;

// programmatic dependent launch: the next kernel of the stream may start as this one's
// blocks run; this one waits here until the previous kernel's results are visible
__device__ __forceinline__ void dependent_launch() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void sweep_rows(double *dst, const double *src, int i, int r1, int j, int ny) {
  double up = src[(long)(i - 1) * ny + j], mid = src[(long)i * ny + j];
  for (int w = 0; w < ROWS_PER_THREAD && i < r1; w++, i++) {
    double down = src[(long)(i + 1) * ny + j];
    dst[(long)i * ny + j] = 0.25 * (up + down + src[(long)i * ny + j - 1] + src[(long)i * ny + j + 1]);
    up = mid;
    mid = down;
  }
}

// the rim of an overlapped sweep: row `top` (blockIdx.y 0) and row `bottom` (1), where >= 0
__global__ void rim(double *dst, const double *src, int top, int bottom, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  long i = blockIdx.y ? bottom : top;
  if (i < 0 || j < 1 || j >= ny - 1) return;
  dst[i * ny + j] = 0.25 * (src[(i - 1) * ny + j] + src[(i + 1) * ny + j] + src[i * ny + j - 1] + src[i * ny + j + 1]);
}

#endif
