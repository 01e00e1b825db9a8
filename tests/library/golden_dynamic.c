/* The generated host C of the global-view §4 and §8 constructs, kept golden
 * (tests/golden/golden_dynamic.host.c): template_fix of an unfixed template and of a
 * gblock(*) map, xmp_malloc/xmp_free, xmp_desc_of, an aligned structure member with its
 * shadow, a block-scope template and object released on exit, an aligned parameter. */
#include <stdio.h>
#include <xmp.h>

#pragma xmp nodes p[*]
#pragma xmp template t[:]
#pragma xmp distribute t[block] onto p
#pragma xmp template g[100]
#pragma xmp distribute g[gblock(*)] onto p
#pragma xmp template tf[100]
#pragma xmp distribute tf[block] onto p
double *a;
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[1]
int *b;
#pragma xmp align b[i] with g[i]

struct field { int id; double v[100]; };
#pragma xmp align field.v[i] with tf[i]
#pragma xmp shadow field.v[1]
struct field f;

static double sum(double w[100], int n)
{
#pragma xmp align w[i] with tf[i]
#pragma xmp shadow w[1]
    double s = 0;
    int i;
#pragma xmp loop on tf[i] reduction(+:s)
    for (i = 0; i < n; i++)
        s += w[i];
    return s;
}

static double local(int n)
{
#pragma xmp template tl[n]
#pragma xmp distribute tl[cyclic] onto p
    struct field h;
    int i, k;
#pragma xmp loop on tf[i]
    for (i = 0; i < 100; i++)
        h.v[i] = i;
#pragma xmp reflect (h.v)
    k = 0;
#pragma xmp loop on tl[i] reduction(+:k)
    for (i = 0; i < n; i++)
        k += i;
    return k + h.v[0];
}

int main(int argc, char **argv)
{
    int n = argc * 50, i, m[64];
    for (i = 0; i < xmp_num_nodes(); i++)
        m[i] = i == 0 ? 100 : 0;
#pragma xmp template_fix t[n]
#pragma xmp template_fix [gblock(m)] g
    a = (double *) xmp_malloc(xmp_desc_of(a), n);
    b = (int *) xmp_malloc(xmp_desc_of(b), 100);
#pragma xmp loop on t[i]
    for (i = 0; i < n; i++)
        a[i] = i;
#pragma xmp reflect (a)
#pragma xmp loop on g[i]
    for (i = 0; i < 100; i++)
        b[i] = i;
#pragma xmp loop on tf[i]
    for (i = 0; i < 100; i++)
        f.v[i] = i;
#pragma xmp reflect (f.v)
    int nd = 0;
    xmp_array_ndims(xmp_desc_of(f.v), &nd);
    long q = 0;
#pragma xmp loop on g[i] reduction(+:q)
    for (i = 0; i < 100; i++)
        q += b[i];
    double s = sum(f.v, 100) + local(n) + nd + q;
    xmp_free(a);
    if (xmpc_node_num() == 0)
        printf("%.1f\n", s);
    return 0;
}
