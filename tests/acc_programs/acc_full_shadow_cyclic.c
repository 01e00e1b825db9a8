/* reflect ... acc of a full shadow on a cyclic dimension (global-view §7): an
 * all-gather of scattered owned indices between device copies, then an acc loop that
 * reads every element. */
#include <stdio.h>

#define N 21
double x[N], y[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[cyclic] onto p
#pragma xmp align [i] with t[i] :: x, y
#pragma xmp shadow x[*]

int main(void)
{
    int i;
    double s = 0;
#pragma xmp acc replicate (x, y)
    {
#pragma xmp loop on t[i] acc
        for (i = 0; i < N; i++) x[i] = (i * 7) % 5 + 0.25 * i;
#pragma xmp reflect (x) acc
#pragma xmp loop on t[i] acc
        for (i = 0; i < N; i++) {
            double acc = 0;
            for (int j = 0; j < N; j++) acc += x[j] * ((i + j) % 3);
            y[i] = acc;
        }
#pragma xmp loop on t[i] reduction(+:s) acc
        for (i = 0; i < N; i++) s += y[i] * (i + 1);
    }
#pragma xmp task on p[0]
    printf("s = %.6f\n", s);
    return 0;
}
