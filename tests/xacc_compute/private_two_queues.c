/* One compute construct launched on two async queues by turns, with a private array of a
 * run-time size, and no wait between them (one at the end): the same site, the same arguments (the queue and the
 * half it writes are values), so each queue needs buffers of its own (runtime/acc.py:
 * one prepared launch per queue where a launch has partials or private arrays), or two
 * launches running at once on a GPU would share them.  Built without xmpacc it is the
 * serial program. */
#include <stdio.h>
#include <stdlib.h>
#define N 4096
#define STEPS 6

double a[N], b[2][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align b[*][i] with t[i]

int main(void)
{
    int i, k, q, n = 6;
    double s = 0.0, tot = 0.0;
    double *w = malloc(8 * sizeof(double));
#pragma xmp loop (i) on t[i]
    for (i = 0; i < N; i++) {
        a[i] = 0.001 * i + 0.5 * (i % 5);
        b[0][i] = b[1][i] = 0.0;
    }
#pragma acc data copy(b) copyin(a)
    {
        for (k = 0; k < STEPS; k++) {
            q = k % 2;
#pragma xmp loop (i) on t[i]
#pragma acc parallel loop private(w[0:n]) async(q)
            for (i = 0; i < N; i++) {
                int m;
                double x = 0.0;
                for (m = 0; m < n; m++)
                    w[m] = a[i] * (m + 1 + q) + k;
                for (m = 0; m < n; m++)
                    x += w[m] * w[n - 1 - m];
                b[q][i] += x;
            }
        }
#pragma acc wait
    }
#pragma xmp loop (i) on t[i] reduction(+:s, tot)
    for (i = 0; i < N; i++) {
        s += b[0][i] - b[1][i];
        tot += b[0][i] + b[1][i];
    }
#pragma xmp task on p[0]
    printf("tot %.6e diff %.6e\n", tot, s);
    free(w);
    return 0;
}
