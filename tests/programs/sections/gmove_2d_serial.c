/* The serial meaning of gmove_2d.c. */
#include <stdio.h>
#include "../serial_xmp.h"

#define N 12
#define M 10

double A[N][M], B[N][M], G[N][M], T[M][N], R[N];
double loc[N], x;

static void show(const char *label, double s)
{
    printf("%-10s %.1f\n", label, s);
}

static void sums(const char *label)
{
    double sa = 0, sb = 0, sg = 0, st = 0, sr = 0;
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            sa += (i + 1) * (2 * j + 1) * A[i][j];
            sb += (i + 1) * (2 * j + 1) * B[i][j];
            sg += (i + 1) * (2 * j + 1) * G[i][j];
        }
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) st += (i + 1) * (2 * j + 1) * T[i][j];
    for (i = 0; i < N; i++) sr += (i + 1) * R[i];
    printf("%-10s", label);
    show(" A", sa); show(" B", sb); show(" G", sg); show(" T", st); show(" R", sr);
}

int main(void)
{
    int i, j;
    double t[N];
    for (i = 0; i < N; i++) {
        R[i] = 0;
        for (j = 0; j < M; j++) { A[i][j] = 100 * i + j; B[i][j] = 0; G[i][j] = -1; T[j][i] = 0; }
    }
    for (i = 0; i < N; i++) for (j = 0; j < M; j++) B[i][j] = A[i][j];
    for (i = 0; i < N - 2; i++) for (j = 0; j < M; j++) G[1 + i][j] = B[2 + i][j];
    sums("copies");
    for (j = 0; j < M; j++) for (i = 0; i < N; i++) T[j][i] = A[i][j];
    for (i = 0; i < N; i++) R[i] = G[i][4];
    sums("transpose");
    for (j = 0; j < M; j++) A[2][j] = R[1 + j];
    for (i = 0; i < N - 2; i++) t[i] = R[N - 1 - i];
    for (i = 0; i < N - 2; i++) G[1 + i][5] = t[i];
    for (j = 0; j < M; j++) B[5][j] = 3.5;
    for (i = 0; i < 3; i++) for (j = 0; j < 4; j++) T[1 + i][2 + j] = G[6 + i][1 + j];
    sums("mixed");
    for (i = 0; i < N; i++) loc[i] = R[i];
    x = T[M - 1][N - 1];
    {
        double s = x;
        for (i = 0; i < N; i++) s += (i + 1) * loc[i];
        show("loc x", s);
    }
    return 0;
}
