/* The array directive (global-view §3): each node computes the elements of the template
 * section it owns, with no communication; block, cyclic(3) on a parenthesised 1-based
 * template, a 2-D template with a '*' dimension and a scalar template subscript, a
 * strided template section, and an overlapping statement that reads the shadow (after
 * reflect).  Serial meaning: array_directive_serial.c. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 20

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template tc(1:N)
#pragma xmp template t2[N][6]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute tc(cyclic(3)) onto p
#pragma xmp distribute t2[block][*] onto p
double a[N], b[N], c[N], m[N][6];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp align c[i] with tc(i+1)
#pragma xmp align m[i][j] with t2[i][j]
#pragma xmp shadow a[1]

static void sums(const char *label)
{
    double sa = 0, sb = 0, sc = 0, sm = 0;
    int i, j;
#pragma xmp loop on t[i] reduction(+:sa, sb)
    for (i = 0; i < N; i++) { sa += (i + 1) * a[i]; sb += (i + 1) * b[i]; }
#pragma xmp loop on tc(i) reduction(+:sc)
    for (i = 1; i <= N; i++) sc += i * c[i - 1];
#pragma xmp loop (i) on t2[i][*] reduction(+:sm)
    for (i = 0; i < N; i++)
        for (j = 0; j < 6; j++) sm += (i + 1) * (j + 1) * m[i][j];
    if (xmpc_node_num() == 0) printf("%-8s a %.2f b %.2f c %.2f m %.2f\n", label, sa, sb, sc, sm);
}

int main(void)
{
    int i, j;
    double x = 0.25;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { a[i] = i; b[i] = N - i; }
#pragma xmp loop on tc(i)
    for (i = 1; i <= N; i++) c[i - 1] = i * i;
#pragma xmp loop (i) on t2[i][*]
    for (i = 0; i < N; i++)
        for (j = 0; j < 6; j++) m[i][j] = i + 0.1 * j;

#pragma xmp array on t[:]
    a[:] = 2.0 * b[:] + x;
#pragma xmp array on tc(1:N)
    c[:] = c[:] * 3 - x;                    /* cyclic(3), 1-based bounds */
#pragma xmp array on t2[:][2]
    m[:][2] = m[:][0] + m[:][5];            /* a column: the owners of t2[i][2] */
#pragma xmp array on t2[0:N][0:6]
    m[:][:] = 0.5 * m[:][:];
    sums("first");
#pragma xmp reflect (a)
#pragma xmp array on t[1:N-2]
    a[1:N-2] = a[0:N-2] + a[2:N-2];         /* overlap: reads the old values, shadow included */
#pragma xmp array on t[0:5:4]
    b[0:5:4] = -b[0:5:4];                   /* every fourth element */
    sums("second");
    return 0;
}
