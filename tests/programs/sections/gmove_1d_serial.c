/* The serial meaning of gmove_1d.c: each gmove as the loop it means. */
#include <stdio.h>
#include "../serial_xmp.h"

#define N 23
#define M 5

double a[N], b[N], c[N], o[N], m[N][M], mt[M][N];
double loc[N], loc2[N], x, y;

#define SUM(arr, label) do { double s_ = 0.0; int i_; \
    for (i_ = 0; i_ < N; i_++) s_ += (i_ + 1) * arr[i_]; \
    printf("%-12s %.1f\n", label, s_); } while (0)

int main(void)
{
    int i, j, n = N - 1;
    double s, t[N];
    for (i = 0; i < N; i++) {
        a[i] = i + 1; b[i] = c[i] = o[i] = 0; loc[i] = 0; loc2[i] = 1000 + i;
        for (j = 0; j < M; j++) { m[i][j] = 100 * i + j; mt[j][i] = 0; }
    }
    for (i = 0; i < N; i++) b[i] = a[i];
    SUM(b, "b=a");
    for (i = 0; i < 20; i++) c[i] = b[3 + i];
    SUM(c, "c=b");
    for (i = 0; i < N - 1; i++) o[1 + i] = c[N - 1 - i];
    SUM(o, "o=c rev");
    for (i = 0; i < 12; i++) a[2 * i] = o[1 + i];
    SUM(a, "a strided");
    for (i = 0; i < n; i++) t[i] = a[i];
    for (i = 0; i < n; i++) a[1 + i] = t[i];
    SUM(a, "a shifted");
    for (i = 0; i < N; i++) loc[i] = c[i];
    x = b[7];
    y = m[4][3];
    s = 0;
    for (i = 0; i < N; i++) s += (i + 1) * loc[i];
    printf("%-12s %.1f %.1f %.1f\n", "loc x y", s, x, y);
    for (i = 0; i < 5; i++) c[3 + i] = x;
    SUM(c, "c fill");
    for (i = 0; i < 6; i++) b[2 + i] = m[1][0];
    SUM(b, "b fill");
    for (i = 0; i < N; i++) b[i] = loc2[i];
    SUM(b, "b=loc2");
    for (i = 0; i < N; i++) m[i][2] = b[i];
    for (i = 0; i < N; i++) mt[3][i] = m[i][1];
    for (i = 0; i < 2; i++) for (j = 0; j < 4; j++) mt[i][5 + j] = m[10 + i][1 + j];
    for (i = 0; i < M; i++) loc[i] = mt[i][N - 1];
    for (i = 0; i < 5; i++) loc2[i] = loc[1 + i];
    s = 0;
    for (i = 0; i < N; i++) for (j = 0; j < M; j++) s += (i + 1) * (j + 2) * m[i][j];
    printf("%-12s %.1f\n", "m", s);
    s = 0;
    for (i = 0; i < N; i++) for (j = 0; j < M; j++) s += (i + 1) * (j + 2) * mt[j][i];
    printf("%-12s %.1f\n", "mt", s);
    s = 0;
    for (i = 0; i < N; i++) s += (i + 1) * (loc[i] + 2 * loc2[i]);
    printf("%-12s %.1f\n", "loc loc2", s);
    for (i = 0; i < N; i++) loc[i] = i;
    printf("bcast section wrong: %d\n", 0);
    return 0;
}
