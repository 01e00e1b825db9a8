/* XcalableACC over a template fixed at run time (global-view §4: template_fix, xmp_malloc'd
 * aligned pointers): 'acc parallel loop' above and below the XMP loop, so the template's
 * readiness guard (passes/dynamic.py) stands above both lines of the pair; a reflect acc,
 * a loop reduction acc, a gmove acc and a bcast acc of those arrays. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#pragma xmp nodes p[*]
#pragma xmp template t[:]
#pragma xmp distribute t[block] onto p
double *x, *y;
#pragma xmp align x[i] with t[i]
#pragma xmp align y[i] with t[i]
#pragma xmp shadow x[1]

int main(void) {
  int i, n = 50;
  double s = 0, r, h[3] = {0, 0, 0};
#pragma xmp template_fix(block) t[n]
  x = (double *) xmp_malloc(xmp_desc_of(x), n);
  y = (double *) xmp_malloc(xmp_desc_of(y), n);
#pragma xmp loop on t[i]
  for (i = 0; i < n; i++) { x[i] = i % 9; y[i] = 1; }
#pragma acc data copyin(x) copy(y, s, h)
  {
#pragma xmp reflect (x) acc
#pragma acc parallel loop
#pragma xmp loop on t[i]
    for (i = 1; i < n - 1; i++) y[i] = x[i - 1] - 2 * x[i] + x[i + 1];
#pragma acc kernels loop reduction(+:s)
#pragma xmp loop on t[i] reduction(+:s) acc
    for (i = 0; i < n; i++) s += y[i] * y[i];
#pragma xmp loop on t[i]
#pragma acc parallel loop
    for (i = 0; i < n; i++) x[i] = x[i] + 0.5 * y[i];
#pragma acc parallel loop
    for (i = 0; i < 3; i++) h[i] = s + i;
#pragma xmp gmove acc
    y[0] = x[10];
#pragma xmp bcast (h) from p[0] acc
#pragma acc update host(y[0:3])
  }
  r = 0;
#pragma xmp loop on t[i] reduction(+:r)
  for (i = 0; i < 3; i++) r += y[i];
  if (xmpc_node_num() == 0) printf("%g %g %g %g\n", s, h[0], h[2], r);
  return 0;
}
