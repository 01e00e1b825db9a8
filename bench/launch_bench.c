/* Launch overhead: a loop ... acc over one element, REPS times.  Compared with the same
 * launches through the driver's cuLaunchKernel in hand-written C (bench/cuda/launch_cuda.cu),
 * the difference is xmpacc's host-side cost per launch (goal O2, bench/overhead_goals.py);
 * compared with a CuPy driver launch (bench/baselines.py launch), goal C2. */
#include <stdio.h>
#include <xmp.h>

#ifndef REPS
#define REPS 20000
#endif

double a[1];
#pragma xmp nodes p[1]
#pragma xmp template t[1]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp acc replicate (a)

int main(void)
{
    int i, r;
    double t0, t1;
#pragma xmp acc replicate_sync in (a)
    for (r = 0; r <= REPS; r++) {
        if (r == 1)
            t0 = xmp_wtime();
#pragma xmp loop on t[i] acc
        for (i = 0; i < 1; i++)
            a[i] += 1.0;
    }
    t1 = xmp_wtime();
#pragma xmp acc replicate_sync out (a)
    printf("launch_us = %.3f\n", 1e6 * (t1 - t0) / REPS);
    printf("a = %.1f\n", a[0]);
    return 0;
}
