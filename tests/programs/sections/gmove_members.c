/* gmove of aligned structure members (global-view §8 with §2): c.a, p->a and s[k].a move
 * like any distributed array -- to and from a cyclic array, a local array and each other,
 * sections, elements and a fill.  Serial meaning: gmove_members_serial.c. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 12

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template tc[N]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute tc[cyclic] onto p

struct field {
    int id;
    double a[N];
};
#pragma xmp align field.a[i] with t[i]

struct field c, s[2];
double b[N], loc[N];
#pragma xmp align b[i] with tc[i]

static double total(double v)
{
#pragma xmp reduction(+:v)
    return v;
}

static void sums(const char *label, struct field *q)
{
    double sc = 0, s0 = 0, s1 = 0, sq = 0, sb = 0, sl = 0;
    int i;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        sc += (i + 1) * c.a[i];
        s0 += (i + 1) * s[0].a[i];
        s1 += (i + 1) * s[1].a[i];
        sq += (i + 1) * q->a[i];
    }
#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++) sb += (i + 1) * b[i];
    for (i = 0; i < N; i++) sl += (i + 1) * loc[i];
    sc = total(sc); s0 = total(s0); s1 = total(s1); sq = total(sq); sb = total(sb);
    if (xmpc_node_num() == 0)
        printf("%-6s c %.1f s0 %.1f s1 %.1f q %.1f b %.1f loc %.1f\n", label, sc, s0, s1, sq, sb, sl);
}

int main(void)
{
    int i;
    struct field *q = &s[1];
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { c.a[i] = 2 * i + 1; s[0].a[i] = 0; s[1].a[i] = -i; }
#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++) b[i] = 100 + i;
    for (i = 0; i < N; i++) loc[i] = 0;
    sums("start", q);

#pragma xmp gmove
    s[0].a[:] = b[:];                  /* cyclic -> member */
#pragma xmp gmove
    b[0:N/2] = c.a[1:N/2:2];           /* member -> cyclic, strided */
#pragma xmp gmove
    q->a[2:5] = c.a[N-5:5];            /* member -> member, through a pointer */
#pragma xmp gmove
    loc[:] = s[0].a[:];                /* member -> local, every node */
#pragma xmp gmove
    c.a[3] = loc[7];                   /* one element */
#pragma xmp gmove
    s[1].a[0:3] = 9.5;                 /* fill */
#pragma xmp gmove
    c = c;                             /* whole structure objects are local data */
    sums("moved", q);
    return 0;
}
