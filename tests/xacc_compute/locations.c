/* Reductions with location variables of an XMP loop with an OpenACC construct
 * (XcalableACC §2, global-view §5): firstmax above 'acc parallel loop' that reduces the
 * same variable with max; lastmin below 'acc parallel loop collapse(2)' (the key is
 * (i, j), j not distributed); lastmax and firstmin over a cyclic template; an 'acc loop'
 * in a parallel region; int and double location variables; lastmax of variables that a data
 * region holds on the device (the kernel starts from their device values and the result goes
 * there); a whole array and a section of a 2-D array as location variables (their elements
 * become the kernel's scalars), one of them on the device, one written with a variable
 * subscript and read outside its section; an inner loop's control variable
 * as a location variable (each thread's own, from its value before the loop).  value(i) takes each of
 * 0..6 every 7 indices, so the extremes tie inside one node and across nodes. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 40
#define M 5
double a[N][M], x[N], z[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template tc[N]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute tc[cyclic] onto p
#pragma xmp align a[i][*] with t[i]
#pragma xmp align x[i] with t[i]
#pragma xmp align z[i] with tc[i]

int main(void) {
  int i, j;
  double v = -1, xv = 0, w = 99, cmax = -1, cmin = 99, rmax = -1, xr = 0, dv = -1;
  int iv = -1, wi = -1, wj = -1, ic = -1, jc = -1, ir = -1, di = -1;
  int at[2] = {-1, -1}, rows[3][2] = {{5, 5}, {5, 5}, {5, 5}};
  double av = -1, rv = 99, jv = -1;
  int jat, d, far[4] = {-1, -1, -1, 100};
  double fv = -1;
  long lc = -1;

#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) {
    x[i] = (i * 17) % 7;
    for (j = 0; j < M; j++) a[i][j] = (i * M + j) % 6;
  }
#pragma xmp loop on tc[i]
  for (i = 0; i < N; i++) z[i] = (i * 5) % 7;

#pragma xmp loop on t[i] reduction(firstmax: v /iv, xv/)
#pragma acc parallel loop reduction(max: v)
  for (i = 0; i < N; i++)
    if (x[i] > v) { v = x[i]; iv = i; xv = 0.5 * i + x[i]; }

#pragma acc parallel loop collapse(2)
#pragma xmp loop (i) on t[i] reduction(lastmin: w /wi, wj/)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      if (a[i][j] <= w) { w = a[i][j]; wi = i; wj = j; }

#pragma xmp loop on tc[i] reduction(lastmax: cmax /ic/) reduction(firstmin: cmin /jc, lc/)
#pragma acc parallel loop
  for (i = N - 1; i >= 0; i -= 2) {
    if (z[i] >= cmax) { cmax = z[i]; ic = i; }
    if (z[i] < cmin) { cmin = z[i]; jc = i; lc = 1000L * i; }
  }

#pragma acc parallel
  {
#pragma xmp loop on t[i] reduction(firstmax: rmax /ir, xr/)
#pragma acc loop
    for (i = 1; i < N; i++)
      if (x[i] + a[i][1] > rmax) { rmax = x[i] + a[i][1]; ir = i; xr = x[i]; }
  }

#pragma acc data copyin(x) copy(dv, di)
  {
#pragma xmp loop on t[i] reduction(lastmax: dv /di/) acc
#pragma acc parallel loop
    for (i = 0; i < N; i++)
      if (x[i] >= dv) { dv = x[i]; di = i; }
  }

#pragma acc parallel loop collapse(2)
#pragma xmp loop (i) on t[i] reduction(lastmax: av /at/)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      if (a[i][j] >= av) { av = a[i][j]; at[0] = i; at[1] = j; }

#pragma acc data copyin(x) copy(rv, rows)
  {
#pragma xmp loop on t[i] reduction(firstmin: rv /rows[1][0:2]/) acc
#pragma acc parallel loop
    for (i = 0; i < N; i++)
      if (x[i] + i % 3 < rv) { rv = x[i] + i % 3; rows[1][0] = i; rows[1][1] = 2 * i; }
  }

#pragma xmp loop on t[i] reduction(lastmax: fv /far[0:3]/)
#pragma acc parallel loop
  for (i = 0; i < N; i++)
    if (a[i][0] >= fv) {
      fv = a[i][0];
      for (d = 0; d < 3; d++) far[d] = (int) a[i][d] + far[3];
    }

  j = -3;
#pragma xmp loop on t[i] reduction(lastmax: jv /j/)
#pragma acc parallel loop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      if (a[i][j] >= jv) jv = a[i][j];
  jat = j;

  if (xmpc_node_num() == 0) {
    printf("firstmax %g at %d (%g)\n", v, iv, xv);
    printf("collapse(2) lastmin %g at (%d, %d)\n", w, wi, wj);
    printf("cyclic lastmax %g at %d  firstmin %g at %d (%ld)\n", cmax, ic, cmin, jc, lc);
    printf("region firstmax %g at %d (%g)\n", rmax, ir, xr);
    printf("device lastmax %g at %d\n", dv, di);
    printf("array lastmax %g at (%d, %d)  section firstmin %g at %d %d (%d %d)\n", av, at[0], at[1], rv,
           rows[1][0], rows[1][1], rows[0][0], rows[2][1]);
    printf("inner index as location: %g, j = %d\n", jv, jat);
    printf("variable subscripts: %g at %d %d %d (%d)\n", fv, far[0], far[1], far[2], far[3]);
  }
  return 0;
}
