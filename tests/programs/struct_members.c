/* Aligned members of structures (global-view §8): every object of the structure type has
 * the member distributed, with its shadow; c.a[i], p->a[i], s[k].a[i] in loops, reflect
 * (c.a) and (p->a), objects at file scope, in blocks (released on every exit) and in
 * arrays, a typedef'd structure, and an object passed by value.  main ends without a
 * return statement: its exit status is 0. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 24

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p

struct field {
    int id;
    double v[N];
    double w;
};
#pragma xmp align field.v[i] with t[i]
#pragma xmp shadow field.v[1]

typedef struct {
    long u[N][2];
} pair_t;
#pragma xmp align pair_t.u[i][*] with t[i]

struct field f1, fs[3];
pair_t g;

static double smooth(struct field *f)
{
    double s = 0;
    int i;
#pragma xmp reflect (f->v)
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 1; i < N - 1; i++)
        s += f->v[i - 1] + f->v[i + 1] + f->w;
    return s;
}

static double by_value(struct field f)
{
    double s = 0;
    int i;
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++)
        s += f.v[i];
    return s;
}

static double local_object(int k)
{
    struct field h;
    int i;
    h.w = k;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        h.v[i] = k + i;
    if (k % 2)
        return -1;    /* h's member is released on this way out too */
    return smooth(&h);
}

int main(void)
{
    int i, k;
    double s = 0, sl = 0;
    long sg = 0;
    f1.w = 0.5;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        f1.v[i] = i;
        for (k = 0; k < 3; k++)
            fs[k].v[i] = (k + 1) * i;
        g.u[i][0] = i;
        g.u[i][1] = -2 * i;
    }
    for (k = 0; k < 3; k++) {
        fs[k].w = k;
        s += smooth(&fs[k]);
    }
#pragma xmp reflect (f1.v)
#pragma xmp loop on t[i] reduction(+:sg)
    for (i = 0; i < N; i++)
        sg += g.u[i][0] * g.u[i][1];
    for (k = 0; k < 100; k++)
        sl += local_object(k);
    double s1 = smooth(&f1), sv = by_value(f1);   /* collective: every node calls them */
    if (xmpc_node_num() == 0)
        printf("f1 %.1f  fs %.1f  g %ld  locals %.1f  by value %.1f\n", s1, s, sg, sl, sv);
}
