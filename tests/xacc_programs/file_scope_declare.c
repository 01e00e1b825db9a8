/* acc declare at file scope: copyin and create at start-up, present in every function;
 * the kernels of XMP-ACC loops use the declared copies. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 16
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N];
#pragma xmp align a[i] with t[i]
double c[4] = {1, 2, 3, 4};
#pragma acc declare copyin(c) create(a)
int main(void) {
  int i; double s = 0;
#pragma xmp loop on t[i] acc
  for (i = 0; i < N; i++) a[i] = i + c[i % 4];
#pragma acc update host(a)
#pragma xmp loop on t[i] reduction(+:s)
  for (i = 0; i < N; i++) s += a[i];
  if (xmpc_node_num() == 0) printf("s = %.1f\n", s);
  return 0;
}
