/* XcalableACC data directives (XcalableACC.md §1) on a distributed array, an ordinary
 * array and a scalar, with XMP-ACC kernels and reflect ... acc inside an acc data region. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 40

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N], b[N];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp shadow a[1]
double w[8];
double s;

int main(void) {
  int i;
  double sum = 0, sum2 = 0;
#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) { a[i] = i; b[i] = 0; }
  for (i = 0; i < 8; i++) w[i] = 0.5 * i;
  s = 2.0;
#pragma acc data copyin(a, w) copy(b) pcopyin(s)
  {
#pragma xmp reflect (a) acc
#pragma xmp loop on t[i] acc
    for (i = 1; i < N - 1; i++)
      b[i] = a[i - 1] + a[i + 1] + w[i % 8];
#pragma acc update host(b)
#pragma xmp loop on t[i] reduction(+:sum)
    for (i = 0; i < N; i++) sum += b[i];
    /* a host write reaches the device with update device */
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = 2 * i;
#pragma acc update device(a)
#pragma acc data present(a) copy(b)
    {
#pragma xmp loop on t[i] acc
      for (i = 0; i < N; i++) b[i] = b[i] + a[i];
    }
  }
  /* copy(b) copied b back at the end of the outer region */
#pragma xmp loop on t[i] reduction(+:sum2)
  for (i = 0; i < N; i++) sum2 += b[i];
  if (xmpc_node_num() == 0) printf("sum = %.1f  sum2 = %.1f\n", sum, sum2);
  return 0;
}
