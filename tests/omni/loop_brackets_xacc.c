/* Declarations written as combined directives, the ':' form of align and the bracketed
 * loop index list (`loop [i][j] on t[i][j]`, as XcalableACC's programs write it) on
 * OpenACC loops in a data region and on host loops: a few sweeps of a 2-D relaxation over
 * rows in blocks, the halo exchanged on the device copy, then row sums in an array whose
 * align pairs its ':' with the template's. */
#include <stdio.h>
#define N 24
#define M 10
#define STEPS 6

#pragma xmp nodes p[*]
#pragma xmp template, distribute [block][*] onto p :: t[N][M]
double u[N][M], un[N][M], rowsum[N];
#pragma xmp align [i][j] with t[i][j], shadow [1][0] :: u, un
#pragma xmp align [:] with t[:][*] :: rowsum

int main(void)
{
#pragma xmp static_desc :: t, u, un, rowsum
    int i, j, s;
    double total = 0.0, peak = 0.0;

#pragma xmp loop [i][j] on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            u[i][j] = un[i][j] = (i == 0 || i == N - 1) ? 1.0 + 0.1 * j : 0.01 * ((i * 7 + j * 3) % 11);
#pragma acc data copy(u, un)
    {
        for (s = 0; s < STEPS; s++) {
#pragma xmp reflect (u) acc
#pragma xmp loop [i][j] on t[i][j]
#pragma acc parallel loop collapse(2)
            for (i = 1; i < N - 1; i++)
                for (j = 1; j < M - 1; j++)
                    un[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
#pragma acc parallel loop collapse(2)
#pragma xmp loop [i][j] on t[i][j]
            for (i = 1; i < N - 1; i++)
                for (j = 1; j < M - 1; j++)
                    u[i][j] = un[i][j];
        }
    }
#pragma xmp loop [i] on t[i][*]
    for (i = 0; i < N; i++) {
        rowsum[i] = 0.0;
        for (j = 0; j < M; j++)
            rowsum[i] += u[i][j];
    }
#pragma xmp loop [i] on t[i][*] reduction(+: total) reduction(max: peak)
    for (i = 0; i < N; i++) {
        total += (i + 1) * rowsum[i];
        if (rowsum[i] > peak)
            peak = rowsum[i];
    }
#pragma xmp task on p[0]
    printf("total = %.12e, peak row sum = %.12e\n", total, peak);
    return 0;
}
