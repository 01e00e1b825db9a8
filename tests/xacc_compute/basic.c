/* XcalableACC compute constructs: parallel loop / kernels loop with and without an XMP
 * loop in both orders, collapse, reduction, private, firstprivate, parallel region. */
#include <stdio.h>
#include <math.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 64
#define M 24
double a[N][M], b[N][M];
double x[N], y[N];
double c[M];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i][*] with t[i]
#pragma xmp align b[i][*] with t[i]
#pragma xmp align x[i] with t[i]
#pragma xmp align y[i] with t[i]

int main(void) {
  int i, j;
  double s = 0, scale = 0.5, tmp;
  long cnt = 0;
  double mx = -1e30;

#pragma xmp loop on t[i]
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) { a[i][j] = i * 0.25 + j; b[i][j] = 0; }
  for (j = 0; j < M; j++) c[j] = j * 0.5;

#pragma xmp acc replicate (a, b)
  {
#pragma xmp acc replicate_sync in (a, b)
#pragma xmp loop on t[i]
#pragma acc parallel loop collapse(2) firstprivate(scale)
    for (i = 0; i < N; i++)
      for (j = 0; j < M; j++)
        b[i][j] = scale * a[i][j] + c[j];

#pragma acc parallel loop reduction(+:s) private(tmp)
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++) {
      double r = 0;
#pragma acc loop vector reduction(+:r)
      for (j = 0; j < M; j++)
        r += b[i][j];
      tmp = r * r;
      s += tmp;
    }
#pragma xmp acc replicate_sync out (b)
  }

#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) x[i] = b[i][1];

  /* if(false): the host runs the loop (with its XMP loop); if(true): the GPU */
  int on_device = 0;
#pragma xmp loop on t[i]
#pragma acc parallel loop if(on_device)
  for (i = 0; i < N; i++) x[i] = x[i] + 1;
#pragma acc parallel if(!on_device)
  {
#pragma xmp loop on t[i]
#pragma acc loop
    for (i = 0; i < N; i++) x[i] = x[i] * 2;
  }

  /* x is not replicated: the construct copies it (implicit copy of its local block) */
#pragma xmp loop on t[i] reduction(max:mx) reduction(+:cnt)
#pragma acc kernels loop reduction(max:mx) reduction(+:cnt)
  for (i = 0; i < N; i++) {
    y[i] = sqrt(x[i]);
    mx = fmax(mx, y[i]);
    cnt += (y[i] > 3.0);
  }

  /* a parallel region with two loops over a plain (not distributed) array */
#pragma acc parallel copy(c)
  {
#pragma acc loop gang
    for (j = 0; j < M; j++) c[j] = c[j] * 2 + 1;
#pragma acc loop
    for (j = 1; j < M; j += 2) c[j] = -c[j];
  }

  double sy = 0;
#pragma xmp loop on t[i] reduction(+:sy)
  for (i = 0; i < N; i++) sy += y[i];
  double sc = 0;
  for (j = 0; j < M; j++) sc += c[j];
  if (xmpc_node_num() == 0)
    printf("s = %.10e\nmx = %.10e cnt = %ld\nsy = %.10e\nsc = %.6f\n", s, mx, cnt, sy, sc);
  return 0;
}
