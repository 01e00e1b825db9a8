/* Deferred reductions at one site whose bounds change every time step: seven argument
 * sets by turns, more than the plans a site keeps, so that a plan whose result is still
 * deferred on the C side is dropped (its result must survive it).  Built without xmpacc
 * it is the serial program. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#define N 64
#define STEPS 30
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N];
#pragma xmp align a[i] with t[i]

int main(void)
{
    int i, k;
    double s = 0.0;
    long long m = 0;
#pragma xmp loop (i) on t[i]
    for (i = 0; i < N; i++)
        a[i] = 0.5 * i + 1.0;
#pragma acc data copyin(a)
    {
        for (k = 0; k < STEPS; k++) {
            s = 0.0;
#pragma xmp loop (i) on t[i]
#pragma acc parallel loop reduction(+:s) reduction(max:m)
            for (i = k % 7; i < N - k % 5; i++) {
                s += a[i];
                if (i * (k + 1) > m) m = i * (k + 1);
            }
#pragma xmp reduction (+:s)
#pragma xmp reduction (max:m)
        }
    }
#ifdef _XCALABLEMP
    if (xmp_node_num() != 1)
        return 0;
#endif
    printf("s %.6f m %lld\n", s, m);
    return 0;
}
