/* The serial meaning of gmove_inout_acc.c. */
#include <stdio.h>
#define N 12
double a[N], b[N], c[N], m[N][3];
double v[N], w[4], u[4], x, y;

int main(void)
{
    int i;
    double sa = 0, sb = 0, sc = 0, sm = 0, sv = 0;
    for (i = 0; i < N; i++) { a[i] = i + 1; c[i] = 0; m[i][0] = m[i][1] = m[i][2] = -1; }
    for (i = 0; i < N; i++) b[i] = 100 + i;
    for (i = 0; i < N; i++) v[i] = 0;
    for (i = 0; i < N; i++) a[i] = 2 * a[i];
    for (i = 0; i < N; i++) v[i] = a[i];
    x = b[N - 1];
    for (i = 0; i < 4; i++) w[i] = b[1 + 3 * i];
    for (i = 0; i < 3; i++) c[i] = b[6 + i];
    for (i = 0; i < 4; i++) u[i] = a[i];
    y = c[1];
    for (i = 0; i < 4; i++) c[4 + 2 * i] = u[i];
    for (i = 0; i < 4; i++) m[i][1] = u[i];
    for (i = 0; i < N / 2; i++) b[i] = y;
    for (i = N - 2; i < N; i++) m[i][2] = 9.5;
    for (i = 0; i < N; i++) c[i] = c[i] + 0.5 * m[i][1];
    for (i = 0; i < N; i++) {
        sa += (i + 1) * a[i]; sc += (i + 1) * c[i];
        sm += (i + 1) * (m[i][0] + 2 * m[i][1] + 3 * m[i][2]);
    }
    for (i = 0; i < N; i++) sb += (i + 1) * b[i];
    for (i = 0; i < N; i++) sv += (i + 1) * v[i];
    printf("a %.1f b %.1f c %.1f m %.1f v %.1f w %.1f %.1f %.1f %.1f x %.1f\n",
           sa, sb, sc, sm, sv, w[0], w[1], w[2], w[3], x);
    return 0;
}
