/* XcalableACC compute constructs over cyclic(w) (block-cyclic) template dimensions: XMP
 * loop and OpenACC loop in both orders, collapse(2), an inner 'acc loop vector' that joins
 * the thread space, one with a reduction (lanes), reductions of the construct.  N is a
 * multiple of 3 x P for no P of 1-4; loops that do not start at 0, go down or step by 2;
 * 2-D templates block x cyclic(2) and cyclic(2) x block (g[*][1]: each layout is met). */
#include <stdio.h>
#include <math.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 29
#define M 10
#define K 9
double x[N], y[N], z[N];
double e[N][K];
double a[M][K], b[M][K];
double c[K][M], d[K][M];
#pragma xmp nodes p[*]
#pragma xmp nodes g[*][1]
#pragma xmp template t[N]
#pragma xmp distribute t[cyclic(3)] onto p
#pragma xmp align [i] with t[i] :: x, y, z
#pragma xmp align e[i][*] with t[i]
#pragma xmp template t2[M][K]
#pragma xmp distribute t2[block][cyclic(2)] onto g
#pragma xmp align [i][j] with t2[i][j] :: a, b
#pragma xmp template t3[K][M]
#pragma xmp distribute t3[cyclic(2)][block] onto g
#pragma xmp align [i][j] with t3[i][j] :: c, d

int main(void) {
  int i, j;
  double s = 0, s2 = 0, mx = -1e30;
  long cnt = 0;
  double cx = 0, cy = 0, cz = 0, ce = 0, cb = 0, cd = 0;

#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) {
    x[i] = 0.5 * i + (i % 4);
    y[i] = -1;
    z[i] = 0;
    for (j = 0; j < K; j++) e[i][j] = 0;
  }
#pragma xmp loop (i, j) on t2[i][j]
  for (i = 0; i < M; i++)
    for (j = 0; j < K; j++) { a[i][j] = i * 10 + j; b[i][j] = 0; }
#pragma xmp loop (i, j) on t3[i][j]
  for (i = 0; i < K; i++)
    for (j = 0; j < M; j++) { c[i][j] = i - 2.0 * j; d[i][j] = 0; }

#pragma acc data copy(x, y, z, e, b, d) copyin(a, c)
  {
#pragma xmp loop on t[i]
#pragma acc parallel loop
    for (i = 2; i < N - 1; i++) y[i] = 3.0 * x[i] + 1;
#pragma acc parallel loop
#pragma xmp loop on t[i]
    for (i = N - 2; i >= 3; i--) x[i] = y[i] - x[i];
#pragma xmp loop on t[i]
#pragma acc parallel loop
    for (i = 1; i < N; i += 2) y[i] += 0.25 * i;
#pragma xmp loop (i, j) on t2[i][j]
#pragma acc parallel loop collapse(2)
    for (i = 1; i < M; i++)
      for (j = 2; j < K; j++) b[i][j] = a[i][j] * 2 + i - j;
#pragma acc parallel loop collapse(2)
#pragma xmp loop (i, j) on t3[i][j]
    for (i = 1; i < K - 1; i++)
      for (j = 0; j < M; j++) d[i][j] = c[i][j] + 0.5 * j + c[i][j] * c[i][j];
#pragma xmp loop on t[i]
#pragma acc parallel loop
    for (i = 1; i < N; i++) {
#pragma acc loop vector
      for (j = 0; j < K; j++) e[i][j] = x[i] * j + y[i];
    }
#pragma acc parallel loop
#pragma xmp loop on t[i]
    for (i = 0; i < N - 1; i++) {
      double r = 0;
#pragma acc loop vector reduction(+:r)
      for (j = 0; j < K; j++) r += e[i][j] * (j + 1);
      z[i] = r + x[i];
    }
#pragma xmp loop on t[i] reduction(+:s)
#pragma acc parallel loop reduction(+:s)
    for (i = 1; i < N; i++) s += x[i] * (i % 5) + y[i];
#pragma acc parallel loop reduction(max:mx) reduction(+:cnt)
#pragma xmp loop on t[i] reduction(max:mx) reduction(+:cnt)
    for (i = 0; i < N; i++) {
      mx = fmax(mx, x[i] * (i % 7));
      cnt += (y[i] > 20);
    }
#pragma xmp loop (i, j) on t2[i][j] reduction(+:s2)
#pragma acc parallel loop collapse(2) reduction(+:s2)
    for (i = 0; i < M; i++)
      for (j = 1; j < K; j += 2) s2 += b[i][j] * (j + 1) - a[i][j];
  }

#pragma xmp loop on t[i] reduction(+:cx, cy, cz, ce)
  for (i = 0; i < N; i++) {
    cx += x[i] * (i + 1);
    cy += y[i] * (i + 3);
    cz += z[i] * (i + 2);
    for (j = 0; j < K; j++) ce += e[i][j] * (i * K + j + 1);
  }
#pragma xmp loop (i, j) on t2[i][j] reduction(+:cb)
  for (i = 0; i < M; i++)
    for (j = 0; j < K; j++) cb += b[i][j] * (i * K + j + 1);
#pragma xmp loop (i, j) on t3[i][j] reduction(+:cd)
  for (i = 0; i < K; i++)
    for (j = 0; j < M; j++) cd += d[i][j] * (i * M + j + 1);
  if (xmpc_node_num() == 0) {
    printf("s = %.6f, mx = %.6f, cnt = %ld, s2 = %.6f\n", s, mx, cnt, s2);
    printf("x %.6f, y %.6f, z %.6f, e %.6f, b %.6f, d %.6f\n", cx, cy, cz, ce, cb, cd);
  }
  return 0;
}
