/* What a GPU would show: host and device copies are separate inside a data region, so a
 * missing update leaves stale data (XcalableACC.md §1); the present table is shared with
 * the paper's acc replicate both ways.  No serial oracle: tests/test_xacc.py has the
 * expected lines. */
#include <stdio.h>
#include <xmp.h>
#define N 8

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N], b[N];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]

static double sum_a(void) {
  double s = 0;
  int i;
#pragma xmp loop on t[i] reduction(+:s)
  for (i = 0; i < N; i++) s += a[i];
  return s;
}

static double sum_b(void) {
  double s = 0;
  int i;
#pragma xmp loop on t[i] reduction(+:s)
  for (i = 0; i < N; i++) s += b[i];
  return s;
}

int main(void) {
  int i;
  double s1, s2, s3, s4, s5, s6, m = -1, m1;
  int im = -1, im1;
#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) { a[i] = i; b[i] = i; }
#pragma acc data copyin(a)
  {
#pragma xmp loop on t[i] acc
    for (i = 0; i < N; i++) a[i] = a[i] + 100;
    s1 = sum_a();                        /* stale: 28 */
#pragma acc update host(a[2:3])
    s2 = sum_a();                        /* 28 + 300 */
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = -1;
#pragma acc update device(a[0:2])
#pragma xmp loop on t[i] acc
    for (i = 0; i < N; i++) a[i] = a[i] * 2;
#pragma acc update host(a)
    s3 = sum_a();                        /* -2 - 2 + 2 * (102 + ... + 107) = 1250 */
  }
  /* copyin: nothing comes back at the end of the region */
#pragma acc enter data copyin(a)
#pragma xmp loop on t[i]
  for (i = 0; i < N; i++) a[i] = 5;
#pragma acc exit data delete(a)
  s4 = sum_a();                          /* 40 */
#pragma xmp acc replicate (b)
  {
#pragma xmp acc replicate_sync in (b)
#pragma acc data present(b) copy(b)
    {
#pragma xmp loop on t[i] acc
      for (i = 0; i < N; i++) b[i] = b[i] + 1;
    }
    s5 = sum_b();                        /* present: no copy back, 28 */
#pragma acc update host(b)
    s6 = sum_b();                        /* 36 */
  }
  /* a reduction with location variables on device copies: from the device values, to them */
#pragma acc data copyin(b) copy(m, im)
  {
    m = 1000; im = -5;                   /* the host copies only: the device's stay -1 */
#pragma xmp loop on t[i] reduction(firstmax: m /im/) acc
#pragma acc parallel loop
    for (i = 0; i < N; i++)
      if (b[i] > m) { m = b[i]; im = i; }
    m1 = m; im1 = im;                    /* stale: 1000 -5 */
  }                                      /* copied back: 8 7 (b[i] = i + 1) */
  if (xmpc_node_num() == 0)
    printf("%.0f %.0f %.0f %.0f %.0f %.0f %.0f %d %.0f %d\n", s1, s2, s3, s4, s5, s6, m1, im1, m, im);
  return 0;
}
