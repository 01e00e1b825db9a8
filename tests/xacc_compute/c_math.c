/* Math functions take their arguments as C does: sqrt(i) of an int, pow(i, 2), fmax(f, 2.0),
 * sqrt(f) of a float are the double functions (the kernel header's macros; NVRTC's C++
 * overloads found the integer calls ambiguous, a GPU-only failure, and computed the float
 * ones in float, a GPU-only difference from the serial build). */
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
           + fmin(u, 2.5f) + atan2(i, 4) + hypot(i, 1) + fmod(i, 3) + log1p(w) + cbrt(u)
           + sqrt(f) * 1e6 + exp(f) * 1e3 + sin(f) * 1e6;
    k[i] = abs(i - 8) + (int) labs(i - 3L);
  }
  double s = 0; long t = 0;
  for (i = 0; i < N; i++) { s += d[i]; t += k[i]; }
  printf("%.9e %ld\n", s, t);
  return 0;
}
