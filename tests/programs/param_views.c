/* Aligned parameters called in a loop with different arguments by turns: the runtime
 * keeps each dummy's view of a call for the next call with the same argument and layout
 * (runtime/dynamic.py, _parameter_key), so every call must still see its own argument.
 * a and b share a layout, c is aligned with another template; scale() with static_desc
 * as NPB's CG writes it, total() without.  Built without xmpacc it is the serial program. */
#include <stdio.h>
#define N 40
#define STEPS 4

double a[N], b[N], c[N];
#pragma xmp nodes p(*)
#pragma xmp template t(0:N-1)
#pragma xmp template tc(0:N-1)
#pragma xmp distribute t(block) onto p
#pragma xmp distribute tc(cyclic) onto p
#pragma xmp align a[i] with t(i)
#pragma xmp align b[i] with t(i)
#pragma xmp align c[i] with tc(i)

static void scale(double v[N], double f)
{
#pragma xmp align [i] with t(i) :: v
#pragma xmp static_desc :: v
    int i;
#pragma xmp loop (i) on t(i)
    for (i = 0; i < N; i++)
        v[i] = f * v[i] + i;
}

static double total(double w[N], int weight)
{
#pragma xmp align [i] with tc(i) :: w
    int i;
    double s = 0.0;
#pragma xmp loop (i) on tc(i) reduction(+:s)
    for (i = 0; i < N; i++)
        s += w[i] * (i % weight + 1);
    return s;
}

int main(void)
{
    int i, k;
    double s = 0.0;
#pragma xmp loop (i) on t(i)
    for (i = 0; i < N; i++) {
        a[i] = 1.0 + i % 5;
        b[i] = 2.0 - i % 3;
    }
#pragma xmp loop (i) on tc(i)
    for (i = 0; i < N; i++)
        c[i] = 0.25 * i;
    for (k = 0; k < STEPS; k++) {
        scale(a, 0.5);
        scale(b, 0.25 + k);
        scale(a, 1.5);
        s += total(c, 3 + k);
    }
#pragma xmp loop (i) on t(i) reduction(+:s)
    for (i = 0; i < N; i++)
        s += a[i] * 3 + b[i];
#pragma xmp task on p(1)
    printf("s %.6f\n", s);
    return 0;
}
