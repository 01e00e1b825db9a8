/* An aligned array's name hidden in inner scopes (global-view §8): by a parameter, a local
 * variable, a for-loop variable, another aligned array of the same name, a member of a
 * plain structure; and named again by a block-scope extern.  There the name means what C
 * scoping says, with directives and loops inside those scopes. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 16

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template u[2 * N]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute u[cyclic] onto p
double a[N], b[N];
#pragma xmp align [i] with t[i] :: a, b
#pragma xmp shadow a[1]

struct plain { double a[4]; };

static double parameter(const double *a, int n)    /* a: the caller's plain array */
{
    double s = 0;
    int i;
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++)
        s += b[i] * a[i % n];
    return s;
}

static double local_scalar(void)
{
    double s = 0;
    int i;
    {
        int a = 3;                                  /* hides the aligned a */
#pragma xmp loop on t[i] reduction(+:s)
        for (i = 0; i < N; i++)
            s += a * b[i];
    }
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++)                         /* the aligned a again */
        s += a[i];
    return s;
}

static double inner_aligned(void)
{
    double s = 0;
    int i;
    {
        int a[2 * N];                               /* an aligned array of its own */
#pragma xmp align a[i] with u[i]
#pragma xmp loop on u[i]
        for (i = 0; i < 2 * N; i++)
            a[i] = 2 * i;
#pragma xmp loop on u[i] reduction(+:s)
        for (i = 0; i < 2 * N; i++)
            s += a[i];
    }
#pragma xmp reflect (a)
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 1; i < N - 1; i++)
        s += a[i - 1] - a[i + 1];
    return s;
}

static double others(void)
{
    extern double a[N];                             /* the aligned file-scope a */
    struct plain q = {{1, 2, 3, 4}};
    double s = q.a[0] + q.a[3];
    int i;
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++)
        s += a[i];
    for (int a = 0; a < 3; a++)                     /* a loop variable */
        s += a;
    return s;
}

int main(void)
{
    int i;
    double loc[3] = {1, 2, 3};
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        a[i] = i;
        b[i] = 1.0;
    }
    double r1 = parameter(loc, 3), r2 = local_scalar(), r3 = inner_aligned(), r4 = others();
    if (xmpc_node_num() == 0)
        printf("%.1f %.1f %.1f %.1f\n", r1, r2, r3, r4);
    return 0;
}
