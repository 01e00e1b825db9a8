/* A 2-D transform in the style of a 2-D FFT: work along the rows, then along the columns,
 * then transpose.  transpose_xmp.c is the same program on distributed arrays. */
#include <stdio.h>

#define N 64
#define M 48

double a[N][M], c[N][M], t[M][N];

int main(void)
{
    int i, j;
    double sum = 0.0, corner;

    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            a[i][j] = ((i * 7 + j * 3) % 17) * 0.5 - 2.0;

    /* along the rows: running sums */
    for (i = 0; i < N; i++)
        for (j = 1; j < M; j++)
            a[i][j] += a[i][j - 1];

    /* the columns become the unit of work */
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            c[i][j] = a[i][j];

    /* along the columns: smoothing */
    for (j = 0; j < M; j++)
        for (i = 1; i < N; i++)
            c[i][j] = 0.5 * c[i][j] + 0.5 * c[i - 1][j];

    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            c[i][j] = 0.25 * c[i][j] + 1.0;

    /* transpose */
    for (j = 0; j < M; j++)
        for (i = 0; i < N; i++)
            t[j][i] = c[i][j];

    for (j = 0; j < M; j++)
        for (i = 0; i < N; i++)
            sum += (j + 1) * (i + 2) * t[j][i];
    corner = t[M - 1][N - 1];
    printf("checksum = %.10e\n", sum);
    printf("t[%d][%d] = %.10e\n", M - 1, N - 1, corner);
    return 0;
}
