/* The serial meaning of array_star.c. */
#include <stdio.h>
#include "../serial_xmp.h"

#define N 8
#define M 12

double v[M], w[N][M], c[M];

static void sums(const char *label)
{
    double sv = 0, sw = 0, sc = 0;
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            sv += (i + 1) * (j + 1) * v[j];
            sw += (i + 1) * (2 * j + 1) * w[i][j];
        }
    for (i = 0; i < M; i++) sc += (i + 1) * c[i];
    printf("%-8s v %.2f w %.2f c %.2f\n", label, sv, sw, sc);
}

int main(void)
{
    int i, j, k, s = 3, r = -2;
    for (j = 0; j < M; j++) v[j] = j + 1;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) w[i][j] = i - j;
    for (i = 0; i < M; i++) c[i] = 2 * i;
    sums("start");
    for (j = 0; j < M; j++) v[j] = v[j] * 2 + 1;
    for (k = 0; k < M / 3; k++) v[k * s] = -v[k * s];
    for (k = 0; k < M / 2; k++) w[2][1 + k * (s - 1)] = 10 * w[2][1 + k * (s - 1)];
    sums("star");
    for (k = 0; k < M / 2; k++) c[M - 1 + k * r] = c[M - 1 + k * r] + 100;
    for (i = 0; i < N; i++)
        for (k = 0; k < 3; k++) w[i][M - 2 + k * r * 2] = w[i][M - 2 + k * r * 2] + 1000;
    sums("steps");
    return 0;
}
