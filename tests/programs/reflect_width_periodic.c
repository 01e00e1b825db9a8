/* reflect with width(...) and /periodic/ on a 1-D block array with shadow 2.
 * Every node sums the values it reads from its shadow slots; the sums are combined and
 * printed, and equal the serial program's sums over the same global elements.
 * Needs blocks of at least 2 elements: 1 to 4 nodes with N = 16. */
#include <stdio.h>

#define N 16
#ifdef _XCALABLEMP
/* the periodic shadow slots: a[-1] and a[N] on the end nodes */
#define BELOW(i) a[(i) - 1]
#define ABOVE(i) a[(i) + 1]
#else
#define BELOW(i) a[((i) - 1 + N) % N]
#define ABOVE(i) a[((i) + 1) % N]
#endif

double a[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[2]

static double val(int i) { return 100.0 * i + 1.0; }

int main(void)
{
    int i, bad = 0;
    double s1 = 0.0, s2 = 0.0, sp = 0.0;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        a[i] = val(i);

    /* width 1: the nearest neighbour on each side */
#pragma xmp reflect (a) width(1)
#pragma xmp loop on t[i] reduction(+:s1, bad)
    for (i = 0; i < N; i++) {
        if (i > 0) { s1 += a[i - 1]; bad += a[i - 1] != val(i - 1); }
        if (i < N - 1) { s1 += a[i + 1]; bad += a[i + 1] != val(i + 1); }
    }

    /* the whole shadow: two on each side */
#pragma xmp reflect (a)
#pragma xmp loop on t[i] reduction(+:s2, bad)
    for (i = 0; i < N; i++) {
        if (i > 1) { s2 += a[i - 2]; bad += a[i - 2] != val(i - 2); }
        if (i < N - 2) { s2 += a[i + 2]; bad += a[i + 2] != val(i + 2); }
    }

    /* periodic: the first node's lower shadow comes from the last node and back */
#pragma xmp reflect (a) width(/periodic/1)
#pragma xmp loop on t[i] reduction(+:sp, bad)
    for (i = 0; i < N; i++) {
        sp += BELOW(i) + ABOVE(i);
        bad += BELOW(i) != val((i - 1 + N) % N);
        bad += ABOVE(i) != val((i + 1) % N);
    }

#pragma xmp task on p[0]
    {
        printf("width 1: %.1f\n", s1);
        printf("width 2: %.1f\n", s2);
        printf("periodic: %.1f\n", sp);
        printf("wrong shadow values: %d\n", bad);
    }
    return 0;
}
