/* A Jacobi solver whose sweep is a function of its own, called inside the data of main
 * (enter data, a data region): reflect_init / reflect_do ... acc, an XMP loop's max
 * reduction around a collapsed construct on queue 1 and a wait, then gmove acc of a
 * row of the distributed array into a local array on the device. */
#include <stdio.h>
#include <math.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#define N 64
#define M 48
double u[N][M], un[N][M];
double row[M], colsum;
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align u[i][*] with t[i]
#pragma xmp align un[i][*] with t[i]
#pragma xmp shadow u[1][0]

static double sweep(int first)
{
    int i, j;
    double err = 0.0;
    if (first) {
#pragma xmp reflect_init (u) acc
    }
#pragma xmp reflect_do (u) acc
#pragma xmp loop (i) on t[i] reduction(max: err)
#pragma acc parallel loop collapse(2) reduction(max: err) async(1)
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < M - 1; j++) {
            un[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
            err = fmax(err, fabs(un[i][j] - u[i][j]));
        }
#pragma acc wait(1)
#pragma xmp loop (i) on t[i]
#pragma acc parallel loop collapse(2)
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < M - 1; j++)
            u[i][j] = un[i][j];
    return err;
}

int main(void)
{
    int i, j, it;
    double err = 0;
#pragma xmp loop (i) on t[i]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            u[i][j] = (i == 0 || j == 0) ? 1.0 : 0.0;
            un[i][j] = u[i][j];
        }
#pragma acc enter data copyin(u, un)
#pragma acc data create(row)
    {
        for (it = 0; it < 50; it++) err = sweep(it == 0);
#ifdef _XCALABLEMP
#pragma xmp gmove acc
        row[:] = u[N / 2][:];
#else
        for (j = 0; j < M; j++) row[j] = u[N / 2][j];
#endif
#pragma acc update host(row)
    }
#pragma acc exit data copyout(u) delete(un)
    colsum = 0;
    for (j = 0; j < M; j++) colsum += row[j];
#ifdef _XCALABLEMP
    if (xmpc_node_num() == 0)
#endif
    printf("err %.10f row %.10f\n", err, colsum);
    return 0;
}
