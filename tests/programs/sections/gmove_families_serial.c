/* The serial meaning of gmove_families.c (every row of nodes computes this). */
#include <stdio.h>
#include "../serial_xmp.h"

#define N 12

double a[N], b[N], m[N][N], mt[N][N], loc[N];

static void sums(const char *label)
{
    double sa = 0, sb = 0, sm = 0, smt = 0, sl = 0;
    int i, j;
    for (i = 0; i < N; i++) {
        sa += (i + 1) * a[i]; sb += (i + 1) * b[i]; sl += (i + 1) * loc[i];
        for (j = 0; j < N; j++) {
            sm += (i + 1) * (2 * j + 1) * m[i][j];
            smt += (i + 1) * (3 * j + 1) * mt[i][j];
        }
    }
    printf("%-8s %.2f %.2f\n", label, sa, sa);
    printf("%-8s %.2f %.2f\n", "  b", sb, sb);
    printf("%-8s %.2f %.2f\n", "  m", sm, sm);
    printf("%-8s %.2f %.2f\n", "  mt", smt, smt);
    printf("%-8s %.2f %.2f\n", "  loc", sl, sl);
}

int main(void)
{
    int i, j;
    for (i = 0; i < N; i++) {
        a[i] = 3 * i - 7; b[i] = 0; loc[i] = 100 + i;
        for (j = 0; j < N; j++) { m[i][j] = i * N + j; mt[i][j] = 0; }
    }
    sums("start");
    for (i = 0; i < N; i++) b[i] = a[i];
    for (i = 0; i < N / 2; i++) a[i] = b[1 + 2 * i];
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) mt[i][j] = m[i][j];
    for (i = 0; i < N / 2; i++) loc[i] = mt[3][i];
    for (j = 0; j < N; j++) m[0][j] = loc[j];
    sums("moved");
    for (i = 0; i < N; i++) loc[i] = b[i];
    for (i = 0; i < N; i++) a[i] = loc[i];
    sums("in/out");
    return 0;
}
