/* The serial meaning of gmove_subsets.c. */
#include <stdio.h>
#include "../serial_xmp.h"

#define N 16

double a[N], b[N], c[N], w[N], m[N][N], mw[N][N], loc[N], tmp[N], r[N];

static void sums(const char *label)
{
    double sa = 0, sb = 0, sc = 0, sw = 0, sm = 0, smw = 0;
    int i, j;
    for (i = 0; i < N; i++) {
        sa += (i + 1) * a[i]; sb += (i + 1) * b[i]; sc += (i + 1) * c[i]; sw += (i + 1) * w[i];
        for (j = 0; j < N; j++) {
            sm += (i + 1) * (2 * j + 1) * m[i][j];
            smw += (i + 1) * (3 * j + 1) * mw[i][j];
        }
    }
    printf("%-8s a %.1f b %.1f c %.1f w %.1f m %.1f mw %.1f\n", label, sa, sb, sc, sw, sm, smw);
}

int main(void)
{
    int i, j;
    for (i = 0; i < N; i++) {
        a[i] = b[i] = c[i] = loc[i] = 0;
        w[i] = 10 * i + 1;
        for (j = 0; j < N; j++) { m[i][j] = 0; mw[i][j] = 100 * i + j; }
    }
    sums("start");
    for (i = 0; i < N; i++) a[i] = w[i];
    for (i = 0; i < N; i++) c[i] = a[N - 1 - i];
    for (i = 0; i < 8; i++) b[i] = a[8 + i];
    for (i = 0; i < 8; i++) b[8 + i] = c[2 * i];
    for (i = 0; i < N / 2; i++) w[i] = b[1 + 2 * i];
    sums("subsets");
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) m[i][j] = mw[i][j];
    for (j = 0; j < N; j++) m[3][j] = w[j];
    for (i = 0; i < N; i++) mw[i][5] = m[i][N - 1];
    for (i = 0; i < N; i++) a[i] = m[i][2];
    sums("2-D");
    for (i = 0; i < N; i++) loc[i] = c[i];
    for (i = 0; i < N; i++) b[i] = loc[N - 1 - i];
    for (i = 0; i < 4; i++) a[i] = a[12 + i];
    for (j = 0; j < N; j++) m[0][j] = a[j];
    for (j = 0; j < 4; j++) loc[j] = m[N - 1][j];
    {
        double sl = 0;
        for (i = 0; i < N; i++) sl += (i + 1) * loc[i];
        printf("loc %.1f\n", sl);
    }
    sums("task");
    for (i = 0; i < N / 2; i++) tmp[i] = c[N / 2 + i];
    for (i = 0; i < N / 2; i++) c[i] = tmp[i];
    sums("end");
    for (i = 0; i < N; i++) r[i] = a[i];
    for (i = 0; i < N / 2; i++) r[i] = r[N / 2 + i];
    {
        double sr = 0;
        for (i = 0; i < N; i++) sr += (i + 1) * r[i];
        printf("reversed %.1f\n", sr);
    }
    return 0;
}
