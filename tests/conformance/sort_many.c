/* xmp_sort_up / xmp_sort_down (global-view §9) as applications call them, run up to 8
 * nodes (issue 30): block and cyclic(3) arrays where some nodes hold nothing (20 elements
 * on 8 nodes), duplicates, double, float and int elements, sorting into an array of
 * another distribution and back.  Results are checked with loop reductions.  Serial
 * meaning: this file built by cc with ../programs/serial_xmp.h. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif

#define N 20   /* on 8 nodes: blocks of 3, the last node holds none */

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp template u[N]
#pragma xmp distribute u[cyclic(3)] onto p
double a[N], b[N], c[N];
float f[N], g[N];
int ia[N], ib[N];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with u[i]
#pragma xmp align c[i] with t[i]
#pragma xmp align f[i] with u[i]
#pragma xmp align g[i] with t[i]
#pragma xmp align ia[i] with t[i]
#pragma xmp align ib[i] with u[i]

int main(void)
{
    int i;
    double sb = 0, sc = 0, sg = 0;
    long si = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        a[i] = (i * 7) % 11 - 0.5 * (i % 4);
        ia[i] = (i * 5) % 4;
    }
#pragma xmp loop on u[i]
    for (i = 0; i < N; i++)
        f[i] = (float) ((i * 13) % 9) / 4.0f;
    xmp_sort_up(xmp_desc_of(b), xmp_desc_of(a));
    xmp_sort_down(xmp_desc_of(c), xmp_desc_of(b));
    xmp_sort_down(xmp_desc_of(g), xmp_desc_of(f));
    xmp_sort_up(xmp_desc_of(ib), xmp_desc_of(ia));
#pragma xmp loop on u[i] reduction(+:sb, si)
    for (i = 0; i < N; i++) {
        sb += b[i] * (i + 1);
        si += (long) ib[i] * (i + 1);
    }
#pragma xmp loop on t[i] reduction(+:sc, sg)
    for (i = 0; i < N; i++) {
        sc += c[i] * (i + 1);
        sg += g[i] * (i % 5);
    }
    if (xmpc_node_num() == 0)
        printf("up %.2f  down %.2f  float %.2f  int %ld\n", sb, sc, sg, si);
    return 0;
}
