/* A 1-D wave with a hard point source and a reordering through an index array: two writes
 * the compile-time locality check cannot follow, in the shape of an application's loops.
 *
 * The source term writes one constant element, u[SRC], from a loop of one iteration that
 * runs on the owner of t[SRC], so it stays on its node; the check sees a constant subscript
 * in a distributed loop and warns that it "may be written outside this node's block" (a
 * warning, not an error: Omni compiles this program).  The reordering writes r[idx[i]],
 * an index read from data, which the check does not judge (idx swaps neighbours, so each
 * node writes its own elements: the blocks start at even indices for 1, 2, 3, 4 nodes). */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 64
#define SRC 21
#define STEPS 40

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double u[N], un[N], r[N];
int idx[N];
#pragma xmp align u[i] with t[i]
#pragma xmp align un[i] with t[i]
#pragma xmp align r[i] with t[i]
#pragma xmp shadow u[1]

int main(void) {
  int i, step;
  double energy = 0, moment = 0;
  for (i = 0; i < N; i++) idx[i] = i ^ 1;
#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) { u[i] = 0; un[i] = 0; }
  for (step = 0; step < STEPS; step++) {
#pragma xmp loop on t[i]
    for (i = SRC; i <= SRC; i++)
      u[SRC] = 1.0 / (1 + step);
#pragma xmp reflect (u)
#pragma xmp loop on t[i]
    for (i = 1; i < N - 1; i++)
      un[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
#pragma xmp loop on t[i]
    for (i = 1; i < N - 1; i++)
      u[i] = un[i];
  }
#pragma xmp loop on t[i]
  for (i = 0; i < N; i++)
    r[idx[i]] = (i + 1) * u[i];
#pragma xmp loop on t[i] reduction(+:energy, moment)
  for (i = 0; i < N; i++) { energy += u[i] * u[i]; moment += i * r[i]; }
  if (xmpc_node_num() == 0) printf("energy = %.12e  moment = %.12e\n", energy, moment);
  return 0;
}
