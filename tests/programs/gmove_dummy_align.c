/* A gmove in a function whose dummy argument is aligned at each call (as NPB's CG
 * writes its matvec): the array is aligned anew every call, with the same layout, so
 * the gmove's plan made at the first call serves every later one (runtime/gmove.py keys
 * plans by the sides' layouts; XMPACC_STATS: gmove_plans).  Built without xmpacc it is
 * the serial program. */
#include <stdio.h>
#define N 96
#define STEPS 10

double a[N], b[N];
#pragma xmp nodes p(*)
#pragma xmp template t(0:N-1)
#pragma xmp template tc(0:N-1)
#pragma xmp distribute t(block) onto p
#pragma xmp distribute tc(cyclic) onto p
#pragma xmp align a[i] with t(i)
#pragma xmp align b[i] with tc(i)

static void from_cyclic(double v[N])
{
#pragma xmp align [i] with t(i) :: v
#pragma xmp static_desc :: v
#ifdef _XCALABLEMP
#pragma xmp gmove
    v[0:N] = b[0:N];
#else
    int i;
    for (i = 0; i < N; i++)
        v[i] = b[i];
#endif
}

int main(void)
{
    int i, k;
    double s = 0.0;
    for (k = 0; k < STEPS; k++) {
#pragma xmp loop (i) on tc(i)
        for (i = 0; i < N; i++)
            b[i] = 0.5 * i + k;
        from_cyclic(a);
#pragma xmp loop (i) on t(i) reduction(+:s)
        for (i = 0; i < N; i++)
            s += a[i] * (i % 7 + 1);
    }
#pragma xmp task on p(1)
    printf("s %.3f\n", s);
    return 0;
}
