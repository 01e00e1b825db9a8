/* OpenACC constructs stacked without braces (XcalableACC.md §1-§2, OpenACC 2.x: a construct
 * with its structured block is a statement, so it can be the statement of another): data
 * regions in data regions, host_data in a data region, compute constructs as the statement
 * of a data region, acc loop as the statement of kernels and parallel, with XMP loops and
 * XMP-ACC kernels among them.  A smoothing step of a 1-D field u (distributed) and of a
 * small replicated table y, in the shape of the loops of an application. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#ifdef _OPENACC
#include <openacc.h>
#endif
#define N 48
#define M 10

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double u[N], w[N];
#pragma xmp align u[i] with t[i]
#pragma xmp align w[i] with t[i]

double x[M], y[M], v[M];

/* a library routine that takes the device address of its array (host_data use_device):
 * it reads the device memory as a CUDA library would (on a GPU the host cannot
 * dereference the address; the serial build passes the host array) */
static double sum_of(double *d, int n) {
  double h[M], s = 0;
#ifdef _OPENACC
  acc_memcpy_from_device(h, d, n * sizeof(double));
#else
  for (int k = 0; k < n; k++) h[k] = d[k];
#endif
  for (int k = 0; k < n; k++) s += h[k];
  return s;
}

int main(void) {
  int i, k, step;
  double scale = 1.5, total = 0, dev = 0, usum = 0, wsum = 0;

  for (k = 0; k < M; k++) { x[k] = k; y[k] = 1; v[k] = 0.5 * k; }
#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) { u[i] = i % 7; w[i] = 0; }

  /* data + data + a kernel: both regions around one combined construct */
#pragma acc data copyin(x)
#pragma acc data copy(y)
#pragma acc parallel loop
  for (k = 0; k < M; k++) y[k] = y[k] + 2 * x[k];

  /* data + data + a block; the outer region's scalar lives on the device in it */
#pragma acc data copy(scale)
#pragma acc data copy(y)
#pragma acc parallel
  {
    scale = 2 * scale;
#pragma acc loop
    for (k = 0; k < M; k++) y[k] = scale * y[k];
  }

  /* data + host_data + a call: the routine reads the device copy */
#pragma acc data copy(v)
  {
#pragma acc parallel loop
    for (k = 0; k < M; k++) v[k] = v[k] + 1;
#pragma acc data present(v)
#pragma acc host_data use_device(v)
    dev = sum_of(v, M);
  }

  /* kernels + loop + for, parallel + loop + for */
#pragma acc kernels copy(x)
#pragma acc loop independent
  for (k = 0; k < M; k++) x[k] = x[k] * x[k];
#pragma acc parallel copyin(x) copy(v)
#pragma acc loop
  for (k = 0; k < M; k++) v[k] = v[k] + x[k];

  for (step = 0; step < 3; step++) {
    /* data + XMP loop + parallel loop: the node's iterations as one kernel */
#pragma acc data copy(u, w)
#pragma xmp loop on t[i]
#pragma acc parallel loop
    for (i = 0; i < N; i++) w[i] = 0.5 * u[i] + 1;
    /* data + parallel + XMP loop (no acc loop) */
#pragma acc data copyin(w) copy(u)
#pragma acc parallel
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) u[i] = u[i] + 0.25 * w[i];
    /* data + data + XMP-ACC loop ... acc, and kernels + XMP loop + acc loop */
#pragma acc data copyin(w)
#pragma acc data copy(u)
#pragma xmp loop on t[i] acc
    for (i = 0; i < N; i++) u[i] = u[i] - 0.125 * w[i];
#pragma acc kernels
#pragma xmp loop on t[i]
#pragma acc loop
    for (i = 0; i < N; i++) w[i] = w[i] + u[i];
  }

#pragma xmp loop on t[i] reduction(+:usum, wsum)
  for (i = 0; i < N; i++) { usum += u[i]; wsum += w[i]; }
  for (k = 0; k < M; k++) total += y[k] + x[k] + v[k];
  if (xmpc_node_num() == 0)
    printf("scale = %.2f  dev = %.3f  total = %.6f  usum = %.6f  wsum = %.6f\n", scale, dev, total, usum,
           wsum);
  return 0;
}
