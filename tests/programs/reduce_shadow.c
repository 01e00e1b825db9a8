/* reduce_shadow (global-view §7) after loops that scatter into shadows: an expand loop
 * clears the owned elements and the shadow, each iteration adds into its neighbours
 * (which may be shadow copies on this node), and reduce_shadow adds the shadow copies into
 * their owners.  Also width(...), /periodic/, async, and a full shadow. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 20
#ifdef _XCALABLEMP
#define WRAP(i) (i)              /* the periodic shadow slots b[-1] and b[N] */
#else
#define WRAP(i) (((i) + N) % N)
#endif
double a[N], b[N], c[N], f[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align [i] with t[i] :: a, b, c, f
#pragma xmp shadow a[1]
#pragma xmp shadow b[1]
#pragma xmp shadow c[2:1]
#pragma xmp shadow f[*]

int main(void)
{
    int i;
    double sa = 0, sb = 0, sc = 0, sf = 0;

#pragma xmp loop on t[i] expand(1)
    for (i = 0; i < N; i++) { a[i] = 0; c[i] = 0; }
#pragma xmp loop on t[i] expand(1:1)
    for (i = 0; i < N; i++) b[i] = 0;
#pragma xmp loop on t[i] expand(/unbound/ 1)
    for (i = 0; i < N; i++) b[WRAP(i)] = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) f[i] = 0;
#ifdef _XCALABLEMP
    for (i = 0; i < N; i++) f[i] = 0;   /* the full shadow: every element is here */
#endif

#pragma xmp loop on t[i]
    for (i = 1; i < N - 1; i++) {          /* scatter: a[i-1] and a[i+1] may be shadows */
        a[i - 1] += i;
        a[i + 1] += 2.0 * i;
        c[i - 1] += 1.0;
        c[i + 1] += 0.5 * i;
    }
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {              /* periodic neighbours */
        b[WRAP(i - 1)] += i;
        b[WRAP(i + 1)] += 10.0;
    }
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) f[(i * 7) % N] += i;   /* anywhere: a full shadow */

#pragma xmp reduce_shadow (a) async (2)
#pragma xmp reduce_shadow (b) width(/periodic/ 1)
#pragma xmp reduce_shadow (c) width(1:1)
#pragma xmp reduce_shadow (f)
#pragma xmp wait_async (2)

#pragma xmp loop on t[i] reduction (+: sa, sb, sc, sf)
    for (i = 0; i < N; i++) {
        sa += a[i] * (i + 1);
        sb += b[i] * (i + 1);
        sc += c[i] * (i + 1);
        sf += f[i] * (i + 1);
    }
    if (xmpc_node_num() == 0) printf("sa = %g  sb = %g  sc = %g  sf = %g\n", sa, sb, sc, sf);
    return 0;
}
