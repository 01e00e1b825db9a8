/* The serial meaning of array_directive.c. */
#include <stdio.h>
#include "../serial_xmp.h"

#define N 20

double a[N], b[N], c[N], m[N][6];

static void sums(const char *label)
{
    double sa = 0, sb = 0, sc = 0, sm = 0;
    int i, j;
    for (i = 0; i < N; i++) { sa += (i + 1) * a[i]; sb += (i + 1) * b[i]; }
    for (i = 1; i <= N; i++) sc += i * c[i - 1];
    for (i = 0; i < N; i++)
        for (j = 0; j < 6; j++) sm += (i + 1) * (j + 1) * m[i][j];
    printf("%-8s a %.2f b %.2f c %.2f m %.2f\n", label, sa, sb, sc, sm);
}

int main(void)
{
    int i, j;
    double x = 0.25, t[N];
    for (i = 0; i < N; i++) { a[i] = i; b[i] = N - i; }
    for (i = 1; i <= N; i++) c[i - 1] = i * i;
    for (i = 0; i < N; i++)
        for (j = 0; j < 6; j++) m[i][j] = i + 0.1 * j;
    for (i = 0; i < N; i++) a[i] = 2.0 * b[i] + x;
    for (i = 0; i < N; i++) c[i] = c[i] * 3 - x;
    for (i = 0; i < N; i++) m[i][2] = m[i][0] + m[i][5];
    for (i = 0; i < N; i++)
        for (j = 0; j < 6; j++) m[i][j] = 0.5 * m[i][j];
    sums("first");
    for (i = 0; i < N - 2; i++) t[i] = a[i] + a[2 + i];
    for (i = 0; i < N - 2; i++) a[1 + i] = t[i];
    for (i = 0; i < 5; i++) b[4 * i] = -b[4 * i];
    sums("second");
    return 0;
}
