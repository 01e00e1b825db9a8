/* acc update in a time loop (runtime/replay.py: whole present variables in C from the
 * second call): host and device of a scalar and of a local array, an async update and
 * its wait, an update whose if clause changes, and a section (general).  Built without
 * xmpacc it is the serial program. */
#include <stdio.h>
#define N 32
#define STEPS 8

int main(void)
{
    int i, k;
    double u[N], c = 0.0, total = 0.0;
    long long hits = 0;
    for (i = 0; i < N; i++)
        u[i] = 0.1 * i;
#pragma acc data copy(u) copyin(c)
    {
        for (k = 0; k < STEPS; k++) {
            c = 0.5 * k;
#pragma acc update device(c)
#pragma acc parallel loop
            for (i = 0; i < N; i++)
                u[i] = 0.5 * u[i] + c;
#pragma acc update host(u)
            total += u[N - 1];
            u[0] = -1.0 * k;
#pragma acc update device(u) async(3)
#pragma acc wait(3)
#pragma acc update host(u) if (k % 2 == 0)
            hits += k % 2 == 0;
#pragma acc update host(u[1:2])
            total += u[1] + u[2];
        }
    }
    printf("total %.9e hits %lld u0 %.3f\n", total, hits, u[0]);
    return 0;
}
