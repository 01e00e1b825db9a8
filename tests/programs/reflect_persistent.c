/* reflect_init / reflect_do (global-view §7): the reflect is planned once and run in every
 * iteration with the contents of that moment; with width(...) and /periodic/, on two
 * arrays, and under async (id) overlapped with work on the interior. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 24
#define STEPS 5
#ifdef _XCALABLEMP
#define AT(i) v[i]              /* the periodic shadow slots: v[-2], v[-1] and v[N] */
#else
#define AT(i) v[((i) + N) % N]
#endif
double u[N], un[N], v[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align [i] with t[i] :: u, un, v
#pragma xmp shadow u[1]
#pragma xmp shadow v[2:1]

int main(void)
{
    int i, it;
    double s = 0, sv = 0;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { u[i] = (i * 7) % 5; v[i] = i; }
#pragma xmp reflect_init (u)
#pragma xmp reflect_init (v) width(/periodic/ 2:1)
    for (it = 0; it < STEPS; it++) {
#pragma xmp reflect_do (u) async (1)
#pragma xmp loop on t[i] expand(-1)
        for (i = 1; i < N - 1; i++) un[i] = u[i];         /* interior: needs no shadow */
#pragma xmp wait_async (1)
#pragma xmp loop on t[i]
        for (i = 1; i < N - 1; i++) un[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
#pragma xmp loop on t[i]
        for (i = 1; i < N - 1; i++) u[i] = un[i];
    }
#pragma xmp loop on t[i] reduction (+: s)
    for (i = 0; i < N; i++) s += u[i] * (i + 1);
#pragma xmp reflect_do (v)
#pragma xmp loop on t[i] reduction (+: sv)
    for (i = 0; i < N; i++) sv += AT(i - 2) + 2 * AT(i - 1) + 3 * AT(i + 1);
    if (xmpc_node_num() == 0) printf("s = %.10f  periodic sum = %g\n", s, sv);
    return 0;
}
