/* async (id) with overlapping work (global-view §7): reflect, reflect_do, bcast, reduction
 * and reduce_shadow start non-blocking operations; the program works on other data, polls
 * xmp_test_async, and touches the data only after wait_async.  Several operations share
 * an id; a second wait on a completed id does nothing. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 32
double a[N], b[N], c[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align [i] with t[i] :: a, b, c
#pragma xmp shadow a[1]
#pragma xmp shadow b[1]

int main(void)
{
    int i, polls = 0, k = 0;
    double big[64], x = 0, s = 0, work = 0, edge = 0, sb = 0;

    for (i = 0; i < 64; i++) big[i] = i * 0.5;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { a[i] = i * i; b[i] = 0; c[i] = 1.0 / (i + 1); }
#pragma xmp loop on t[i] expand(1)
    for (i = 0; i < N; i++) b[i] = 0;
#pragma xmp reflect_init (a)
    if (xmpc_node_num() == 0) { x = 2.5; k = 3; }

#pragma xmp reflect_do (a) async (1)
#pragma xmp bcast (x, k) async (1)
#pragma xmp reduction (+: big) async (2)
#pragma xmp loop on t[i]
    for (i = 1; i < N - 1; i++) { b[i - 1] += 1; b[i + 1] += 2; }
#pragma xmp reduce_shadow (b) async (3)
    /* work on data no operation touches */
#pragma xmp loop on t[i] reduction (+: work)
    for (i = 0; i < N; i++) work += c[i];
    while (!xmp_test_async(2)) polls++;
#pragma xmp wait_async (1, 3)
#pragma xmp wait_async (1)
#pragma xmp loop on t[i] reduction (+: edge, sb)
    for (i = 1; i < N - 1; i++) { edge += a[i - 1] - 2 * a[i] + a[i + 1]; sb += b[i] * i; }
    for (i = 0; i < 64; i++) s += big[i];
    s /= xmp_num_nodes();
    if (xmpc_node_num() == 0)
        printf("x = %g  k = %d  big = %g  edge = %g  b = %g  work = %.6f  tests done: %d %d\n", x, k, s, edge, sb,
               work, xmp_test_async(1), xmp_test_async(2) && xmp_test_async(3) && polls >= 0);
    return 0;
}
