/* A time loop whose kernel has a private array of a size known at run time
 * (private(w[0:n]): LAUNCH_SCRATCH, kernel_private.py), the size changing by turns: each
 * size keeps its own plan, and the C side replays the launch where the size is the one
 * its plan's buffer was made for.  Built without xmpacc it is the serial program. */
#include <stdio.h>
#include <stdlib.h>
#define N 40
#define STEPS 8

double a[N], b[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]

int main(void)
{
    int i, k, n;
    double s = 0.0;
    double *w = malloc(8 * sizeof(double));
#pragma xmp loop (i) on t[i]
    for (i = 0; i < N; i++) {
        a[i] = 0.5 * i + 0.25 * (i % 3);
        b[i] = 0.0;
    }
#pragma acc data copy(b) copyin(a)
    {
        for (k = 0; k < STEPS; k++) {
            n = 3 + k % 2 * 2;
#pragma xmp loop (i) on t[i]
#pragma acc parallel loop private(w[0:n])
            for (i = 0; i < N; i++) {
                int m;
                double sum = 0.0;
                for (m = 0; m < n; m++)
                    w[m] = a[i] * (m + 1) + k;
                for (m = 0; m < n; m++)
                    sum += w[m] * w[n - 1 - m];
                b[i] += sum;
            }
        }
    }
#pragma xmp loop (i) on t[i] reduction(+:s)
    for (i = 0; i < N; i++)
        s += b[i];
#pragma xmp task on p[0]
    printf("sum %.6f\n", s);
    free(w);
    return 0;
}
