/* Math functions with integer and mixed arguments take them as C does: sqrt(i), pow(i, 2),
 * fmax(f, 2.0) are the double functions (the kernel header's templates; NVRTC's C++
 * overloads found these calls ambiguous, so they failed on a GPU only). */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#define N 16
double d[N];
int k[N];
int main(void) {
  int i;
#pragma acc parallel loop copyout(d, k)
  for (i = 0; i < N; i++) {
    unsigned u = i; long long w = i; float f = 0.5f * i;
    d[i] = sqrt(i) + exp(-i) + pow(i, 2) + fabs(i - 8) + floor(i / 3) + fmax(f, 2.0) + pow(u, w % 3)
           + fmin(u, 2.5f) + atan2(i, 4) + hypot(i, 1) + fmod(i, 3) + log1p(w) + cbrt(u);
    k[i] = abs(i - 8) + (int) labs(i - 3L);
  }
  double s = 0; long t = 0;
  for (i = 0; i < N; i++) { s += d[i]; t += k[i]; }
  printf("%.9e %ld\n", s, t);
  return 0;
}
