/* Launch cost of a bare driver launch in hand-written CUDA C: the reference of goal O2
 * (bench/overhead_goals.py), the same measurement as bench/launch_bench.c without xmpacc.
 *   -DREPS=20000   timed launches (one untimed warm-up launch before them)
 *   -DBLOCK=64     threads of the one block (grid 1, what xmpacc launches for a one-iteration loop)
 * One double on the device; a kernel adds 1.0 to it from one thread.  The warm-up launch,
 * then a wait for it (launch_bench.c's first xmp_wtime waits for the device), t0, REPS
 * stream-ordered launches on one stream, one cudaStreamSynchronize (its xmp_wtime at t1
 * waits for the device too), t1; clock_gettime(CLOCK_MONOTONIC).  Prints what launch_bench.c
 * prints: launch_us = (t1 - t0) / REPS in microseconds and a = REPS + 1.
 *
 * The launch is the driver API's cuLaunchKernel (the call xmpacc makes: runtime/replay.py
 * takes it from libcuda), on the CUfunction of the kernel compiled into this program
 * (cudaGetFuncBySymbol: a cudaFunction_t is a CUfunction).  Not the runtime API's
 * cudaLaunchKernel, which reaches the driver through cudart and adds its own small cost.
 * Built by bash bench/cuda/build.sh OUTDIR launch [REPS]: linked with -lcuda (the toolkit's
 * stub or the driver's library), or, with -DDRIVER_DLSYM where no libcuda can be linked
 * against, cuLaunchKernel of libcuda.so.1 by dlopen/dlsym at run time, as xmpacc does: the
 * same driver function through a pointer, no other cost per call. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef DRIVER_DLSYM
#include <dlfcn.h>
#endif

#ifndef REPS
#define REPS 20000
#endif
#ifndef BLOCK
#define BLOCK 64
#endif

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "launch_cuda: %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

__global__ void bump(double *a)
{
    if (blockIdx.x * blockDim.x + threadIdx.x == 0)
        a[0] += 1.0;
}

typedef CUresult (CUDAAPI *launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, CUstream, void **, void **);

static launch_fn driver_launch(void)
{
#ifdef DRIVER_DLSYM
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    void *f = lib ? dlsym(lib, "cuLaunchKernel") : NULL;
    if (f == NULL) {
        fprintf(stderr, "launch_cuda: no cuLaunchKernel in libcuda.so.1: %s\n", dlerror());
        exit(1);
    }
    return (launch_fn)f;
#else
    return cuLaunchKernel;
#endif
}

static void failed(CUresult r)
{
    fprintf(stderr, "launch_cuda: cuLaunchKernel failed: CUresult %d\n", (int)r);
    exit(1);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(void)
{
    double *a, h = 0.0;
    cudaStream_t s;
    cudaFunction_t fn;
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&a, sizeof(double)));
    CUDA_CHECK(cudaMemsetAsync(a, 0, sizeof(double), s));
    CUDA_CHECK(cudaGetFuncBySymbol(&fn, (const void *)bump));
    CUfunction f = fn;
    launch_fn launch = driver_launch();
    void *args[] = {&a};
    CUresult r;
    if ((r = launch(f, 1, 1, 1, BLOCK, 1, 1, 0, s, args, NULL)) != CUDA_SUCCESS)   /* warm-up */
        failed(r);
    CUDA_CHECK(cudaStreamSynchronize(s));
    double t0 = now();
    for (int i = 0; i < REPS; i++)
        if ((r = launch(f, 1, 1, 1, BLOCK, 1, 1, 0, s, args, NULL)) != CUDA_SUCCESS)
            failed(r);
    CUDA_CHECK(cudaStreamSynchronize(s));
    double t1 = now();
    CUDA_CHECK(cudaMemcpy(&h, a, sizeof(double), cudaMemcpyDeviceToHost));
    printf("launch_us = %.3f\n", 1e6 * (t1 - t0) / REPS);
    printf("a = %.1f\n", h);
    return 0;
}
