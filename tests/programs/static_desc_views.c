/* Aligned parameters with static_desc (Omni; NPB's CG writes its matvec so): the
 * descriptor outlives the call, and a call that passes the block it describes keeps it
 * without a runtime call (passes/localize/lower_decls.py).  A call with another block
 * makes the view again; a block that goes (a local array at the end of its function)
 * takes its views with it (runtime/dynamic.py).  dot(a, b) runs twice per step with the
 * same arguments, every third call of dot passes a local array, and the last two calls
 * each a local array of its own: every call must see its own arguments.  Built without xmpacc it is the serial program. */
#include <stdio.h>
#define N 24
#define STEPS 6

double a[N], b[N];
#pragma xmp nodes p(*)
#pragma xmp template t(0:N-1)
#pragma xmp distribute t(block) onto p
#pragma xmp align a[i] with t(i)
#pragma xmp align b[i] with t(i)

static double dot(double x[N], double y[N])
{
#pragma xmp align [i] with t(i) :: x, y
#pragma xmp static_desc :: x, y
    int i;
    double s = 0.0;
#pragma xmp loop (i) on t(i) reduction(+:s)
    for (i = 0; i < N; i++)
        s += x[i] * y[i];
    return s;
}

static void axpy(double f, double x[N], double y[N])
{
#pragma xmp align [i] with t(i) :: x, y
#pragma xmp static_desc :: x, y
    int i;
#pragma xmp loop (i) on t(i)
    for (i = 0; i < N; i++)
        y[i] += f * x[i];
}

static double with_local(int k)
{
    double c[N];
#pragma xmp align c[i] with t(i)
    int i;
#pragma xmp loop (i) on t(i)
    for (i = 0; i < N; i++)
        c[i] = (i + k) % 7;
    axpy(0.5, a, c);
    return dot(c, c);
}

/* c's block goes at the return, and with it dot's views of it: the next call's c may be
 * at the same address (the same layout here, but an argument of another layout could be) */
static double dot_local(int k)
{
    double c[N];
#pragma xmp align c[i] with t(i)
    int i;
#pragma xmp loop (i) on t(i)
    for (i = 0; i < N; i++)
        c[i] = (i * k) % 5;
    return dot(c, c);
}

int main(void)
{
    int i, k;
    double s = 0.0;
#pragma xmp loop (i) on t(i)
    for (i = 0; i < N; i++) {
        a[i] = 1.0 + i % 5;
        b[i] = 0.5 * (i % 3);
    }
    for (k = 0; k < STEPS; k++) {
        s += dot(a, b);
        axpy(0.125, b, a);
        s += dot(a, b);
        s += with_local(k);
    }
    s += dot_local(1);
    s += dot_local(2);
#pragma xmp task on p(1)
    printf("s %.6f\n", s);
    return 0;
}
