/* loop ... expand / margin / peel_and_wait (global-view §7): the interior (expand(-1))
 * and the rim (margin(-1)) of a stencil together compute what the plain loop does;
 * expand(1) computes the shadow elements redundantly so that no reflect is needed;
 * lo:hi widths; /unbound/ reaches past the loop's range; peel_and_wait overlaps the
 * interior with an asynchronous reflect. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 30
double a[N], b[N], c[N], d[N], e[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align [i] with t[i] :: a, b, c, d, e
#pragma xmp shadow a[1]
#pragma xmp shadow c[1]
#pragma xmp shadow d[1]
#pragma xmp shadow e[1:2]

static double f(int i) { return (i * 13) % 7 + 0.5 * i; }

int main(void)
{
    int i;
    double sb = 0, sc = 0, sd = 0, se = 0, sp = 0;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { a[i] = f(i); d[i] = f(i) + 1; }
#pragma xmp reflect (a)
    /* interior and rim */
#pragma xmp loop on t[i] expand(-1)
    for (i = 1; i < N - 1; i++) b[i] = a[i - 1] - 2 * a[i] + a[i + 1];
#pragma xmp loop on t[i] margin(-1)
    for (i = 1; i < N - 1; i++) b[i] = a[i - 1] - 2 * a[i] + a[i + 1];
#pragma xmp loop on t[i] reduction (+: sb)
    for (i = 1; i < N - 1; i++) sb += b[i] * i;

    /* expand(1): each node also computes its shadow elements; no reflect */
#pragma xmp loop on t[i] expand(1)
    for (i = 0; i < N; i++) c[i] = f(i) * 2;
#pragma xmp loop on t[i] reduction (+: sc)
    for (i = 1; i < N - 1; i++) sc += c[i - 1] * c[i + 1];

    /* margin(/unbound/ 1): the shadow elements around the owned ones, also where they lie
       outside the loop's range 2..N-3 */
#pragma xmp loop on t[i] margin(/unbound/ 1)
    for (i = 2; i < N - 2; i++) d[i] = f(i) + 1;
#pragma xmp loop on t[i] reduction (+: sd)
    for (i = 1; i < N - 1; i++) sd += d[i - 1] + 3 * d[i + 1];

    /* lo:hi widths: expand(0:2) then margin(1:0) (below only) */
#pragma xmp loop on t[i] expand(0:2)
    for (i = 0; i < N; i++) e[i] = f(i) - 1;
#pragma xmp loop on t[i] margin(1:0)
    for (i = 0; i < N; i++) e[i] = f(i) - 1;
#pragma xmp loop on t[i] reduction (+: se)
    for (i = 1; i < N - 2; i++) se += e[i - 1] * e[i + 2];

    /* peel_and_wait: the interior while the reflect is in flight, then the rim */
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = f(N - i);
#pragma xmp reflect (a) async (5)
#pragma xmp loop on t[i] peel_and_wait(5, 1)
    for (i = 1; i < N - 1; i++) b[i] = a[i - 1] + a[i + 1];
#pragma xmp loop on t[i] reduction (+: sp)
    for (i = 1; i < N - 1; i++) sp += b[i] * i;

    if (xmpc_node_num() == 0)
        printf("interior+rim %.2f  expand %.2f  unbound %.2f  lo:hi %.2f  peel_and_wait %.2f\n", sb, sc, sd, se, sp);
    return 0;
}
