/*
 * fig3_serial.c - the serial program behind Fig. 3 of Lee et al. (2011):
 * b[i] = x + sum of all a[j], computed for every i, then a checksum of b.
 */
#include <stdio.h>

#define N 1024

int a[N], b[N];

int main(void) {
  int i, x = 0;
  long s = 0;
  for (i = 0; i < N; i++)
    a[i] = i;
  {
    for (i = 0; i < N; i++) {
      b[i] = x;
      for (int j = 0; j < N; j++)
        b[i] += a[j];
    }
  }
  for (i = 0; i < N; i++)
    s += b[i];
  {
    printf("b[0] = %d\n", b[0]);
    printf("sum of b = %ld\n", s);
  }
  return 0;
}
