/* gmove async (id) (global-view §2, §7): operations started under an id complete at
 * wait_async; one id carries two gmoves; the data are touched only after the wait.
 * Serial meaning: gmove_async_serial.c. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 30

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template u[N]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute u[cyclic] onto p
double a[N], b[N], c[N];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with u[i]
#pragma xmp align c[i] with u[i]

double loc[N];

int main(void)
{
    int i;
    double sb = 0, sc = 0, sl = 0, w = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = 3 * i + 1;
#pragma xmp loop on u[i]
    for (i = 0; i < N; i++) { b[i] = 0; c[i] = -1; }

#pragma xmp gmove async (1)
    b[:] = a[:];
#pragma xmp gmove async (1)
    loc[:] = a[N-1::-1];
#pragma xmp gmove async (2)
    c[1:N-1] = a[0:N-1];
    for (i = 0; i < 1000; i++) w += 0.5 * i;   /* unrelated work meanwhile */
#pragma xmp wait_async (1, 2)
#pragma xmp loop on u[i] reduction(+:sb, sc)
    for (i = 0; i < N; i++) { sb += (i + 1) * b[i]; sc += (i + 1) * c[i]; }
    for (i = 0; i < N; i++) sl += (i + 1) * loc[i];
    if (xmpc_node_num() == 0)
        printf("b %.1f c %.1f loc %.1f w %.1f done %d %d\n", sb, sc, sl, w, xmp_test_async(1), xmp_test_async(2));
    return 0;
}
