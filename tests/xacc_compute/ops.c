/* XcalableACC compute constructs without XMP loops (plain single-GPU OpenACC on every
 * node) and on a 2-D distribution: every reduction operator, collapse(3), seq, private
 * arrays, pointer sections in data clauses, present / default(present), vector_length;
 * a static routine reading a file-scope const scalar (its value on the device). */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 20
#define M 12
#define K 5
double u[N][M];
float w[N][M][K];
int bits[N];
#pragma xmp nodes p[*][2]
#pragma xmp template t[N][M]
#pragma xmp distribute t[block][block] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align w[i][j][*] with t[i][j]

static const double HALF = 1.0 / 2;
#pragma acc routine seq
static double poly(double x) { return x * x + HALF * x; }
#pragma acc routine(twice) seq
double twice(double x) {
  double y = poly(x);
  return fmin(2 * y, 1e6);
}

/* a parameter array has no extent of its own: the data clause gives it */
static void scale_rows(int n, double v[], double f) {
  int i;
#pragma acc parallel loop copy(v[0:n])
  for (i = 0; i < n; i++) v[i] *= f;
}

int main(void) {
  int i, j, k;
  int n = 40;
  double *q = (double *) malloc(n * sizeof(double));
  double prod = 1, mn = 1e30, fsum = 0;
  int band = ~0, bor = 0, bxor = 0, land = 1, lor = 0;
  for (i = 0; i < n; i++) q[i] = 1.0 + i * 0.01;
  for (i = 0; i < N; i++) bits[i] = (i * 37) & 0xff;

#pragma acc parallel loop copy(q[0:n]) vector_length(64)
  for (i = 0; i < n; i++) q[i] = q[i] * 2 - 0.5;

#pragma acc parallel loop copy(q[0:n])
  for (i = 0; i < n; i++) q[i] = twice(q[i]) / 4;

#pragma acc parallel loop copyin(q[0:n]) reduction(*:prod) reduction(min:mn)
  for (i = 0; i < n; i++) { prod *= q[i] / 1.5; mn = q[i] < mn ? q[i] : mn; }

#pragma acc kernels loop reduction(&:band) reduction(|:bor) reduction(^:bxor) reduction(&&:land) reduction(||:lor)
  for (i = 0; i < N; i++) {
    band &= bits[i] | 1; bor |= bits[i]; bxor ^= bits[i];
    land = land && (bits[i] >= 0); lor = lor || (bits[i] == 37);
  }

#pragma xmp acc replicate (u, w)
  {
#pragma xmp loop on t[i][j]
#pragma acc parallel loop collapse(3) present(u, w)
    for (i = 0; i < N; i++)
      for (j = 0; j < M; j++)
        for (k = 0; k < K; k++)
          w[i][j][k] = (float) (i + j * 0.5 + k * 0.25);

#pragma acc parallel loop collapse(2) default(present) reduction(+:fsum)
#pragma xmp loop on t[i][j] reduction(+:fsum)
    for (i = 0; i < N; i++)
      for (j = 0; j < M; j++) {
        double v[K];
        for (k = 0; k < K; k++) v[k] = w[i][j][k] * 2.0;
        u[i][j] = v[0] + v[K - 1];
        fsum += u[i][j];
      }
#pragma xmp acc replicate_sync out (u)
  }

  int hist[4] = {0, 0, 0, 0};
#pragma acc parallel loop copy(hist)
  for (i = 0; i < N; i++) {
#pragma acc atomic update
    hist[bits[i] % 4] += 1;
#pragma acc atomic
    hist[(bits[i] + 1) % 4]++;
  }

  double run[N];
  for (i = 0; i < N; i++) run[i] = i;
#pragma acc parallel loop seq
  for (i = 1; i < N; i++) run[i] = run[i] + run[i - 1];

  /* a private array; a kernels region over a distributed array that is not on the device
   * (its local block is copied in and out) */
  double tmp3[3], pa = 0;
#pragma acc parallel loop private(tmp3) reduction(+:pa)
  for (i = 0; i < N; i++) {
    for (k = 0; k < 3; k++) tmp3[k] = i + k;
    pa += tmp3[0] * tmp3[2];
  }
#pragma acc kernels
  {
#pragma xmp loop on t[i][j]
#pragma acc loop independent collapse(2)
    for (i = 0; i < N; i++)
      for (j = 0; j < M; j++) u[i][j] += 1;
  }
  /* seq on the loops an XMP loop distributes: independent by the XMP loop, each node's
   * iterations run (acc_loopnest.build) */
#pragma xmp loop on t[i][j]
#pragma acc parallel loop seq collapse(2)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) u[i][j] *= 2;

  /* gang over i, vector over j, both distributed: the inner 'acc loop' line joins j to
   * the thread space (acc_loopnest._nest_loops), with its reduction */
  double sv = 0;
#pragma xmp loop (i, j) on t[i][j] reduction(+:sv)
#pragma acc parallel loop gang
  for (i = 0; i < N; i++) {
#pragma acc loop vector reduction(+:sv)
    for (j = 0; j < M; j++) { u[i][j] -= 1; sv += u[i][j]; }
  }

  double su = 0;
#pragma xmp loop on t[i][j] reduction(+:su)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) su += u[i][j] * (i + 1);

  scale_rows(n, q, 0.5);
  double sq = 0;
  for (i = 0; i < n; i++) sq += q[i];
  if (xmpc_node_num() == 0) {
    printf("sq = %.10e prod = %.10e mn = %.6f\n", sq, prod, mn);
    printf("band = %d bor = %d bxor = %d land = %d lor = %d\n", band, bor, bxor, land, lor);
    printf("fsum = %.8e su = %.8e run = %.1f\n", fsum, su, run[N - 1]);
    printf("hist = %d %d %d %d pa = %.1f sv = %.6e\n", hist[0], hist[1], hist[2], hist[3], pa, sv);
  }
  free(q);
  return 0;
}
