/* loop ... acc with an on-ref offset (loop on t[i+1]) and expand(1), which computes the
 * shadow elements on the device so that no reflect is needed (global-view §7). */
#include <stdio.h>

#define N 30
double a[N], b[N - 1];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i+1]
#pragma xmp shadow a[1]

int main(void)
{
    int i;
    double s = 0;
#pragma xmp acc replicate (a, b)
    {
#pragma xmp loop on t[i] expand(1) acc
        for (i = 0; i < N; i++) a[i] = i * 0.5 + (i % 3);
#pragma xmp loop on t[i+1] acc
        for (i = 0; i < N - 1; i++) b[i] = a[i] * a[i + 1];
#pragma xmp loop on t[i+1] reduction(+:s) acc
        for (i = 0; i < N - 1; i++) s += b[i];
    }
#pragma xmp task on p[0]
    printf("s = %.6f\n", s);
    return 0;
}
