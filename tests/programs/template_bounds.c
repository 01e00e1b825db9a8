/* Template lower bounds in the bracket syntax (template t[2:13] is t[2]..t[13]) and align
 * offsets in both syntaxes (global-view §7), for block and cyclic templates, with loops on
 * offset subscripts (loop on t[i+2], t(i+1)) going up and down. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

double a[9], c[10], e[12];
#pragma xmp nodes p[*]
#pragma xmp template t[2:13]
#pragma xmp template tp(0:11)
#pragma xmp template tc[2:13]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute tp(block) onto p
#pragma xmp distribute tc[cyclic(2)] onto p
#pragma xmp align a[i] with t[i+2]
#pragma xmp align c[i] with tp(i-(-1))
#pragma xmp align e[i] with tc[i+2]
#pragma xmp shadow a[1]

int main(void)
{
    int i, g, inside = 0;
    double s = 0, s2 = 0, s3 = 0;

    /* the loop variable is the template index; a[g-2] lives on the owner of t[g] */
#pragma xmp loop on t[g]
    for (g = 2; g <= 10; g++) a[g - 2] = g;
#pragma xmp loop on tp(i+1)
    for (i = 0; i < 10; i++) c[i] = 3 * i;
#pragma xmp loop on tc[i+2]
    for (i = 0; i < 12; i++) e[i] = i + 0.5;
#pragma xmp reflect (a)
#pragma xmp loop on t[i+2] reduction (+: s)
    for (i = 1; i < 8; i++) s += a[i - 1] * a[i + 1];
#pragma xmp loop on tp(i+1) reduction (+: s2)
    for (i = 9; i >= 0; i--) s2 += c[i] * (i + 1);
#pragma xmp loop on tc[i+2] reduction (+: s3)
    for (i = 11; i >= 0; i -= 2) s3 += e[i] * i;
    /* t[13] exists, t[14] is past the end: the loop runs 2..13 only */
#pragma xmp loop on t[g] reduction (+: inside)
    for (g = 2; g <= 13; g++) inside += 1;
    if (xmpc_node_num() == 0) printf("s = %g  s2 = %g  s3 = %g  template indices = %d\n", s, s2, s3, inside);
    return 0;
}
