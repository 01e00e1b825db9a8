/* Aligned dummy arguments at each call: axpy(a, b) then axpy(b, c), 2,000 times each (the
 * pattern of NPB CG's matvec and of Omni's programs).  How it was measured (docs/performance.md,
 * the eighth step of the calls in C):
 *     xmpacc -O2 bench/param_views_bench.c -o pvb && XMPACC_PROFILE=1 mpirun -np 1 ./pvb
 * and the same under XMPACC_REPLAY=0: the profile's align_pointer, malloc and release rows.
 * Built without xmpacc it is the serial program (the same number). */
#include <stdio.h>
#define N 1024
double a[N], b[N], c[N];
#pragma xmp nodes p(*)
#pragma xmp template t(0:N-1)
#pragma xmp distribute t(block) onto p
#pragma xmp align a[i] with t(i)
#pragma xmp align b[i] with t(i)
#pragma xmp align c[i] with t(i)
static void axpy(double f, double x[N], double y[N])
{
#pragma xmp align [i] with t(i) :: x, y
    int i;
#pragma xmp loop (i) on t(i)
    for (i = 0; i < N; i++)
        y[i] += f * x[i];
}
int main(void)
{
    int i, k;
#pragma xmp loop (i) on t(i)
    for (i = 0; i < N; i++) { a[i] = i; b[i] = 1; c[i] = 2; }
    for (k = 0; k < 2000; k++) { axpy(1e-3, a, b); axpy(1e-3, b, c); }
    double s = 0;
#pragma xmp loop (i) on t(i) reduction(+:s)
    for (i = 0; i < N; i++) s += c[i];
    printf("%.6e\n", s);
    return 0;
}
