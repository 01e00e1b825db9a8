/* Device-copy mistakes that a checked run (XMPACC_CHECK=1) stops at; the first argument
 * picks one (none or 0: the program is right):
 *   1 no replicate_sync in before the first kernel reads a;
 *   2 the host writes a after the replicate_sync in, and a kernel reads a;
 *   3 the host reads a after a kernel wrote it, without replicate_sync out;
 *   4 reflect (a) after a kernel wrote a, without replicate_sync out;
 *   5 replicate_sync in (a) after a kernel wrote a, without replicate_sync out.
 * Unchecked, each prints a wrong sum (the serial build prints the right one). */
#include <stdio.h>
#include <stdlib.h>

#define N 64

double a[N], b[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp shadow a[1]

int main(int argc, char **argv)
{
    int i, mistake = argc > 1 ? atoi(argv[1]) : 0;
    double s = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        a[i] = i;
        b[i] = 0;
    }
#pragma xmp acc replicate (a, b)
    {
        if (mistake != 1) {
#pragma xmp acc replicate_sync in (a)
        }
        if (mistake == 2) {
#pragma xmp loop on t[i]
            for (i = 0; i < N; i++)
                a[i] = 2 * i;
        }
#pragma xmp loop on t[i] acc
        for (i = 0; i < N; i++)
            b[i] = a[i] + 1;
#pragma xmp loop on t[i] acc
        for (i = 0; i < N; i++)
            a[i] = b[i] * 2;
        if (mistake == 3) {
#pragma xmp loop on t[i] reduction(+:s)
            for (i = 0; i < N; i++)
                s += a[i];
        }
        if (mistake != 4 && mistake != 5) {
#pragma xmp acc replicate_sync out (a)
        }
        if (mistake == 5) {
#pragma xmp acc replicate_sync in (a)
        }
#pragma xmp reflect (a)
#pragma xmp acc replicate_sync in (a)
#pragma xmp loop on t[i] acc
        for (i = 1; i < N - 1; i++)
            b[i] = a[i - 1] + a[i + 1];
#pragma xmp acc replicate_sync out (b)
    }
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++)
        s += b[i];
#pragma xmp task on p[0]
    printf("sum = %.1f\n", s);
    return 0;
}
