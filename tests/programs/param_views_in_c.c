/* Aligned parameters made in C from their second call (include/xmpacc_params.h): smooth's
 * dummies take a and b by turns, with a shadow and a reflect of the dummy inside (the
 * reflect's plan follows the view); norm is called from two depths (its descriptors at two
 * stack addresses) and from inside smooth; a local array passed at every step changes the
 * arrays (a new generation: its views are made again); the last steps pass the arrays the
 * other way round.  Every call must see its own arguments.  Built without xmpacc it is the
 * serial program. */
#include <stdio.h>
#define N 40
#define STEPS 8

double a[N], b[N];
#pragma xmp nodes p(*)
#pragma xmp template t(0:N-1)
#pragma xmp distribute t(block) onto p
#pragma xmp align a[i] with t(i)
#pragma xmp align b[i] with t(i)
#pragma xmp shadow a[1]
#pragma xmp shadow b[1]

static double norm(double x[N])
{
#pragma xmp align [i] with t(i) :: x
#pragma xmp shadow x[1]
    int i;
    double s = 0.0;
#pragma xmp loop (i) on t(i) reduction(+:s)
    for (i = 0; i < N; i++)
        s += x[i] * x[i];
    return s;
}

/* y = the average of x's neighbours; returns norm(y) */
static double smooth(double x[N], double y[N])
{
#pragma xmp align [i] with t(i) :: x, y
#pragma xmp shadow x[1]
#pragma xmp shadow y[1]
    int i;
#pragma xmp reflect (x)
#pragma xmp loop (i) on t(i)
    for (i = 1; i < N - 1; i++)
        y[i] = 0.5 * (x[i - 1] + x[i + 1]) + 0.01 * i;
    return norm(y);
}

static double with_local(int k)
{
    double c[N];
#pragma xmp align c[i] with t(i)
#pragma xmp shadow c[1]
    int i;
#pragma xmp loop (i) on t(i)
    for (i = 0; i < N; i++)
        c[i] = (i + k) % 3;
    return norm(c);
}

int main(void)
{
    int i, k;
    double s = 0.0;
#pragma xmp loop (i) on t(i)
    for (i = 0; i < N; i++) {
        a[i] = (i * 7) % 11;
        b[i] = 0.0;
    }
    for (k = 0; k < STEPS; k++) {
        if (k < STEPS - 2) {
            s += smooth(a, b);
            s += smooth(b, a);
        } else {
            s += smooth(b, a);
            s += smooth(a, b);
        }
        s += norm(a) + 0.5 * norm(b);
        if (k % 2)
            s += with_local(k);
    }
#pragma xmp task on p(1)
    printf("s %.9e\n", s);
    return 0;
}
