/* The serial meaning of gmove_async.c. */
#include <stdio.h>
#include "../serial_xmp.h"

#define N 30

double a[N], b[N], c[N], loc[N];

int main(void)
{
    int i;
    double sb = 0, sc = 0, sl = 0, w = 0;
    for (i = 0; i < N; i++) { a[i] = 3 * i + 1; b[i] = 0; c[i] = -1; }
    for (i = 0; i < N; i++) b[i] = a[i];
    for (i = 0; i < N; i++) loc[i] = a[N - 1 - i];
    for (i = 0; i < N - 1; i++) c[1 + i] = a[i];
    for (i = 0; i < 1000; i++) w += 0.5 * i;
    for (i = 0; i < N; i++) { sb += (i + 1) * b[i]; sc += (i + 1) * c[i]; }
    for (i = 0; i < N; i++) sl += (i + 1) * loc[i];
    printf("b %.1f c %.1f loc %.1f w %.1f done %d %d\n", sb, sc, sl, w, xmp_test_async(1), xmp_test_async(2));
    return 0;
}
