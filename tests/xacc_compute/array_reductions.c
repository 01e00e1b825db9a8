/* Reductions of arrays and array sections on OpenACC compute constructs (XcalableACC §2,
 * OpenACC 2.7 reduction(+: hist[0:N])) and of XMP loops with one (§4, global-view §5):
 * element-wise, each update atomic on the device.  A histogram (+ on int) reduced by the
 * XMP loop only (the node's result on the device, then over the nodes), by both, and by
 * plain OpenACC constructs without an XMP loop (every node runs the whole loop: the
 * whole result on each), as a section hist[0:N] and as the whole array; a section h[2:5];
 * double and float sums; max and min arrays; a 2-D array under collapse(2); an inner
 * 'acc loop' reduction of an array; an XMP loop below the construct.  Start values are
 * not the identity.  Every result equals the serial one. */
#include <stdio.h>
#include <math.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 40
#define NB 6
#define M 5
double a[N][M], x[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i][*] with t[i]
#pragma xmp align x[i] with t[i]

int main(void) {
  int i, j, k;
  int hist[NB] = {0, 0, 0, 0, 0, 50}, both[NB] = {0}, whole[NB] = {0}, part[NB] = {0};
  int h[10], h2[3][M] = {{0}}, inner[NB] = {0}, below[NB] = {0};
  double ds[3] = {1.5, 0, 0}, mx[4] = {-1, -1, -1, 99}, mn[4] = {99, 99, 99, -5};
  float fs[2] = {0, 0.5f};
  int v[N];

  for (k = 0; k < 10; k++) h[k] = 10 * k;
  for (i = 0; i < N; i++) v[i] = (i * 7) % 11;
#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) {
    x[i] = (i * 17) % 7;
    for (j = 0; j < M; j++) a[i][j] = (i * M + j) % 6;
  }

  /* the XMP loop's reduction only: the node's histogram on the device, then the nodes */
#pragma xmp loop on t[i] reduction(+: hist)
#pragma acc parallel loop
  for (i = 0; i < N; i++)
    hist[(int) x[i] % NB]++;

  /* both name it, and a section h[2:5]; double and float sums */
#pragma xmp loop on t[i] reduction(+: both, ds, fs) reduction(+: h[2:5])
#pragma acc parallel loop reduction(+: both, ds, fs) reduction(+: h[2:5])
  for (i = 0; i < N; i++) {
    both[((int) x[i] + i) % NB] += 2;
    h[2 + i % 5] = h[2 + i % 5] + 1;
    ds[i % 3] += 0.5 * x[i];
    fs[i % 2] += 0.5f;
  }

  /* max and min arrays */
#pragma xmp loop on t[i] reduction(max: mx) reduction(min: mn)
#pragma acc parallel loop
  for (i = 0; i < N; i++) {
    mx[i % 4] = fmax(mx[i % 4], x[i] + 0.25 * (i % 3));
    if (x[i] - i < mn[i % 4]) mn[i % 4] = x[i] - i;
  }

  /* plain OpenACC, no XMP loop: every node reduces the whole loop */
#pragma acc parallel loop reduction(+: whole) copyin(v)
  for (i = 0; i < N; i++)
    whole[v[i] % NB]++;
#pragma acc parallel loop reduction(+: part[0:NB]) copyin(v)
  for (i = 0; i < N; i++)
    part[v[i] % NB] += v[i];

  /* a 2-D array under collapse(2), the XMP loop below the construct */
#pragma acc parallel loop collapse(2)
#pragma xmp loop (i) on t[i] reduction(+: h2)
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      h2[(int) a[i][j] % 3][j]++;

  /* an inner 'acc loop' reduction of an array: over the whole construct */
#pragma xmp loop on t[i] reduction(+: inner)
#pragma acc parallel loop
  for (i = 0; i < N; i++) {
#pragma acc loop seq reduction(+: inner)
    for (j = 0; j < M; j++)
      inner[(int) a[i][j]] += 1;
  }

  /* in a parallel region, with an acc loop */
#pragma acc parallel
  {
#pragma xmp loop on t[i] reduction(+: below)
#pragma acc loop reduction(+: below)
    for (i = 0; i < N; i++)
      below[((int) x[i] + i) % NB]++;
  }

  if (xmpc_node_num() == 0) {
    printf("hist");
    for (k = 0; k < NB; k++) printf(" %d", hist[k]);
    printf("\nboth");
    for (k = 0; k < NB; k++) printf(" %d", both[k]);
    printf("\nsection");
    for (k = 0; k < 10; k++) printf(" %d", h[k]);
    printf("\nsums %g %g %g  float %g %g\n", ds[0], ds[1], ds[2], fs[0], fs[1]);
    printf("max %g %g %g %g  min %g %g %g %g\n", mx[0], mx[1], mx[2], mx[3], mn[0], mn[1], mn[2], mn[3]);
    printf("whole");
    for (k = 0; k < NB; k++) printf(" %d", whole[k]);
    printf("\npart");
    for (k = 0; k < NB; k++) printf(" %d", part[k]);
    printf("\n2-D");
    for (k = 0; k < 3 * M; k++) printf(" %d", h2[k / M][k % M]);
    printf("\ninner");
    for (k = 0; k < NB; k++) printf(" %d", inner[k]);
    printf("\nregion");
    for (k = 0; k < NB; k++) printf(" %d", below[k]);
    printf("\n");
  }
  return 0;
}
