/* reflect ... acc followed by loop ... acc: where the loop cannot tell, its interior runs
 * while the halos travel and its rim after them (passes/locality/overlap.py).  The host
 * backend holds each overlapped exchange back until the interior ran, so a wrong peel
 * prints other numbers than the serial build.
 *   sweep 1: shadow [1:2], reads at i-1 and i+2 (peel 1 below, 2 above), two arrays
 *   sweep 2: the loop writes the reflected array: not overlapped
 *   sweep 3: the loop reads only its own elements of the reflected array (peel 0)
 *   sweep 4: a 1-D array aligned with an offset (x[i] with s[i + 1]), reads x[i-2], x[i]
 *   sweep 5: a subscript that is not i + c (a[i / 2]): not overlapped
 *   sweep 6: explicit widths, orthogonal
 *   sweep 7: XcalableACC, the OpenACC line above the XMP one (peel 1 below, 1 above) */
#include <stdio.h>

#define N 40
#define M 12
#define STEPS 3

double a[N][M], b[N][M], c[N][M], d[N][M];
double x[N], y[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N][M]
#pragma xmp template s[N + 1]
#pragma xmp distribute t[block][*] onto p
#pragma xmp distribute s[block] onto p
#pragma xmp align a[i][j] with t[i][j]
#pragma xmp align b[i][j] with t[i][j]
#pragma xmp align c[i][j] with t[i][j]
#pragma xmp align d[i][j] with t[i][j]
#pragma xmp align x[i] with s[i + 1]
#pragma xmp align y[i] with s[i + 1]
#pragma xmp shadow a[1:2][0]
#pragma xmp shadow b[1][0]
#pragma xmp shadow c[1:2][0]
#pragma xmp shadow d[0][0]
#pragma xmp shadow x[2]

static double total(void)
{
    int i, j;
    double sum = 0.0;
#pragma xmp loop (i, j) on t[i][j] reduction(+:sum)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            sum += (i + 1) * a[i][j] + 0.5 * b[i][j] + 0.25 * c[i][j] + d[i][j];
    return sum;
}

int main(void)
{
    int i, j, k;
    double xs = 0.0;

#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            a[i][j] = 1.0 + 0.01 * ((i * 7 + j * 3) % 23);
            b[i][j] = 0.5 + 0.02 * ((i * 5 + j) % 11);
            c[i][j] = 0.1 * (i % 5) + 0.03 * j;
            d[i][j] = 0.0;
        }
#pragma xmp loop (i) on s[i + 1]
    for (i = 0; i < N; i++) {
        x[i] = 1.0 + 0.1 * (i % 7);
        y[i] = 0.0;
    }

#pragma xmp acc replicate (a, b, c, d, x, y)
    {
#pragma xmp acc replicate_sync in (a, b, c, d, x, y)
        for (k = 0; k < STEPS; k++) {
            /* sweep 1 */
#pragma xmp reflect (a, c) acc
#pragma xmp loop (i, j) on t[i][j] acc
            for (i = 1; i < N - 2; i++)
                for (j = 0; j < M; j++)
                    d[i][j] = 0.5 * a[i - 1][j] + 0.25 * a[i + 2][j] + 0.125 * c[i + 2][j] - 0.1 * c[i - 1][j];
#pragma xmp loop (i, j) on t[i][j] acc
            for (i = 0; i < N; i++)
                for (j = 0; j < M; j++)
                    a[i][j] = 0.5 * (a[i][j] + d[i][j]);

            /* sweep 2 */
#pragma xmp reflect (b) acc
#pragma xmp loop (i, j) on t[i][j] acc
            for (i = 1; i < N; i++)
                for (j = 0; j < M; j++)
                    if (j == 0)   /* column 0 from row i - 1's last column, which no iteration writes */
                        b[i][j] = 0.75 * b[i][j] + 0.25 * c[i][j] + 0.001 * b[i - 1][M - 1];

            /* sweep 3 */
#pragma xmp reflect (c) acc
#pragma xmp loop (i, j) on t[i][j] acc
            for (i = 0; i < N; i++)
                for (j = 1; j < M - 1; j++)
                    d[i][j] = c[i][j - 1] + c[i][j + 1] - 2.0 * c[i][j];

            /* sweep 4 */
#pragma xmp reflect (x) acc
#pragma xmp loop (i) on s[i] acc
            for (i = 2; i < N; i++)
                y[i - 1] = x[i - 2] + 2.0 * x[i - 1] + x[i];
#pragma xmp loop (i) on s[i + 1] acc
            for (i = 0; i < N; i++)
                x[i] = 0.25 * x[i] + 0.2 * y[i];

            /* sweep 5 */
#pragma xmp reflect (a) acc
#pragma xmp loop (i, j) on t[i][j] acc
            for (i = 0; i < N; i++)
                for (j = 0; j < M; j++)
                    c[i][j] = 0.9 * c[i][j] + 0.01 * a[i / 2 * 2][j];

            /* sweep 6 */
#pragma xmp reflect (a) width(1:1, 0) orthogonal acc
#pragma xmp loop (i, j) on t[i][j] acc
            for (i = 1; i < N - 1; i++)
                for (j = 0; j < M; j++)
                    d[i][j] = a[i - 1][j] - a[i + 1][j];

            /* sweep 7 */
#pragma xmp reflect (a) acc
#pragma acc parallel loop collapse(2) present(a, b)
#pragma xmp loop (i, j) on t[i][j]
            for (i = 1; i < N - 1; i++)
                for (j = 0; j < M; j++)
                    b[i][j] = 0.5 * b[i][j] + 0.01 * (a[i - 1][j] + 2.0 * a[i + 1][j]);
        }
#pragma xmp acc replicate_sync out (a, b, c, d, x, y)
    }

#pragma xmp loop (i) on s[i + 1] reduction(+:xs)
    for (i = 0; i < N; i++)
        xs += (i + 1) * x[i] + y[i];
    {
        double sum = total();
#pragma xmp task on p[0]
        printf("sum = %.12e xs = %.12e\n", sum, xs);
    }
    return 0;
}
