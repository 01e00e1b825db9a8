/* The serial meaning of gmove_acc.c. */
#include <stdio.h>
#define N 12
double a[N], b[N], c[N];
double v[4], x, host_x;

int main(void)
{
    int i;
    double sa = 0, sb = 0, sc = 0;
    for (i = 0; i < N; i++) { a[i] = i + 1; c[i] = 0; }
    for (i = 0; i < N; i++) b[i] = 100 + i;
    for (i = 0; i < N; i++) a[i] = 2 * a[i];
    for (i = 0; i < N - 1; i++) c[1 + i] = b[i];
    for (i = 0; i < 4; i++) v[i] = a[3 + i];
    for (i = 0; i < 4; i++) b[N - 4 + i] = v[i];
    x = a[N - 1];
    host_x = 0;
    for (i = 0; i < N / 3; i++) a[3 * i] = x;
    for (i = 0; i < 3; i++) c[7 + i] = a[5];
    c[0] = 7.5;
    for (i = N - 2; i >= 0; i--) a[i + 1] = a[i];
    for (i = 0; i < N / 2; i++) b[2 * i] = c[2 * i];
    for (i = 0; i < N; i++) { sa += (i + 1) * a[i]; sc += (i + 1) * c[i]; }
    for (i = 0; i < N; i++) sb += (i + 1) * b[i];
    printf("a %.1f b %.1f c %.1f v %.1f %.1f %.1f %.1f x %.1f host x before %.1f\n",
           sa, sb, sc, v[0], v[1], v[2], v[3], x, host_x);
    return 0;
}
