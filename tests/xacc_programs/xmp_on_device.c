/* XMP directives with acc on device copies (XcalableACC.md §4): reflect_init/reflect_do,
 * bcast, reduction (also async + wait_async), barrier. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 30
#define STEPS 4

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N], b[N];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp shadow a[1]

int main(void) {
  int i, k;
  double x, s = 0, m = 0;
#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) { a[i] = (i * 7) % 11; b[i] = 0; }
  x = 10.0 * (xmpc_node_num() + 1);
#pragma acc data copy(a) create(b) copyin(x) create(s, m)
  {
#pragma xmp reflect_init (a) acc
    for (k = 0; k < STEPS; k++) {
#pragma xmp reflect_do (a) acc
#pragma xmp loop on t[i] acc
      for (i = 1; i < N - 1; i++) b[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1]);
#pragma xmp loop on t[i] acc
      for (i = 1; i < N - 1; i++) a[i] = b[i];
    }
#pragma xmp barrier acc
#pragma xmp bcast (x) acc
#pragma acc update host(x, a)
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { s += a[i]; if (a[i] > m) m = a[i]; }
#pragma acc update device(s, m)
#pragma xmp reduction (+:s) async(3) acc
#pragma xmp reduction (max:m) acc
#pragma xmp wait_async (3) acc
#pragma acc update host(s, m)
  }
#pragma xmp reduction (max:x)
  if (xmpc_node_num() == 0) printf("x = %.1f  s = %.10f  m = %.10f\n", x, s, m);
  return 0;
}
