/* C idioms in kernels: a static const coefficient table (implicitly copied in only: its
 * host memory is read-only, a copy back would fault), a function-like macro, an enum
 * constant, a typedef'd element type, float and double math functions (sinf, fmaxf,
 * fabsf, pow, exp, fabs, abs), and XMP loop reductions of max, sums of double and long
 * and an int array around one construct. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 64
#define MIN(a, b) ((a) < (b) ? (a) : (b))
static const double w[3] = {0.25, 0.5, 0.25};
enum { NB = 4 };
typedef float real;
real a[N], b[N];
int hist[NB];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp shadow a[1]

int main(void)
{
    int i, k;
    real mx = -1e30f;
    double acc = 0;
    long cnt = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = sinf(i * 0.3f) * 10;
#pragma acc data copy(a, b)
    {
        for (k = 0; k < 3; k++) {
#pragma xmp reflect (a) acc
#pragma xmp loop on t[i]
#pragma acc parallel loop
            for (i = 1; i < N - 1; i++)
                b[i] = w[0] * a[i - 1] + w[1] * a[i] + w[2] * a[i + 1];
#pragma xmp loop on t[i]
#pragma acc parallel loop
            for (i = 1; i < N - 1; i++)
                a[i] = MIN(b[i], 5.0f);
        }
#pragma xmp loop on t[i] reduction(max: mx) reduction(+: acc, cnt, hist)
#pragma acc parallel loop reduction(max: mx) reduction(+: acc, cnt, hist)
        for (i = 0; i < N; i++) {
            mx = fmaxf(mx, a[i]);
            acc += pow(fabs(a[i]), 1.5) + exp(-a[i] * a[i]);
            cnt += abs((int)a[i]) > 2;
            hist[(int)(fabsf(a[i])) % NB]++;
        }
    }
    if (xmpc_node_num() == 0)
        printf("%.4f %.6f %ld %d %d %d %d\n", mx, acc, cnt, hist[0], hist[1], hist[2], hist[3]);
    return 0;
}
