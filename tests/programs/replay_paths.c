/* The per-iteration calls that the C side replays (runtime/replay.py), and every way a
 * plan must stop matching: a time loop of reflect ... acc and compute constructs (replayed
 * from the second sweep), a loop whose bounds change every sweep (another iteration count
 * and innermost schedule at the same site), a data region that comes and goes inside the
 * loop (device copies made and freed: every plan made before is stale), work on an async
 * queue and its wait, the same construct on two arrays by turns (one site, other
 * descriptors), and a max reduction between them (its launch replayed with its result).  Built without xmpacc
 * it is the serial program. */
#include <stdio.h>
#include <math.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#define N 40
#define M 36
#define STEPS 9

double u[N][M], un[N][M], v[N][M], w[N][M], scale[M];
#pragma xmp nodes p[*]
#pragma xmp template t[N][M]
#pragma xmp distribute t[block][*] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align un[i][j] with t[i][j]
#pragma xmp align v[i][j] with t[i][j]
#pragma xmp align w[i][j] with t[i][j]
#pragma xmp shadow u[1][0]
#pragma xmp shadow v[1][0]

int main(void)
{
    int i, j, k, hi;
    double err = 0.0, su = 0.0, sv = 0.0;
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            u[i][j] = (i == 0 || j == 0) ? 1.0 + 0.01 * j : 0.0;
            v[i][j] = 0.5 * (i % 7) + 0.25 * (j % 5);
            un[i][j] = 0.0;
            w[i][j] = 0.0;
        }
    for (j = 0; j < M; j++)
        scale[j] = 1.0 + 0.001 * j;
#pragma acc data copy(u, v, w) copyin(un)
    {
        for (k = 0; k < STEPS; k++) {
#pragma xmp reflect (u) acc
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop collapse(2)
            for (i = 1; i < N - 1; i++)
                for (j = 1; j < M - 1; j++)
                    un[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
            /* the bounds change every sweep: another count and innermost schedule */
            hi = M - 1 - k % 4;
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop collapse(2)
            for (i = 1 + k % 3; i < N - 1; i++)
                for (j = 1; j < hi; j++)
                    u[i][j] = un[i][j];
            /* device copies come and go every other sweep */
            if (k % 2 == 0) {
#pragma acc data copyin(scale)
                {
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop collapse(2)
                    for (i = 0; i < N; i++)
                        for (j = 0; j < M; j++)
                            v[i][j] = v[i][j] * scale[j] + 0.001;
                }
            }
            /* one site, two arrays by turns */
            if (k % 2) {
#pragma xmp reflect (v) acc
            } else {
#pragma xmp reflect (u) acc
#pragma xmp reflect (v) acc
            }
            /* an async queue and its wait */
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop collapse(2) async(2)
            for (i = 1; i < N - 1; i++)
                for (j = 0; j < M; j++)
                    w[i][j] = 0.5 * w[i][j] + 0.25 * (v[i - 1][j] + v[i + 1][j]);
#pragma acc wait(2)
            err = 0.0;
#pragma xmp loop (i, j) on t[i][j] reduction(max: err)
#pragma acc parallel loop collapse(2) reduction(max: err)
            for (i = 1; i < N - 1; i++)
                for (j = 1; j < M - 1; j++)
                    err = fmax(err, fabs(un[i][j] - u[i][j]));
        }
    }
#pragma xmp loop (i, j) on t[i][j] reduction(+: su, sv)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            su += u[i][j] * (1 + (i * M + j) % 11);
            sv += (v[i][j] + w[i][j]) * (1 + (i * M + j) % 13);
        }
#ifdef _XCALABLEMP
    if (xmpc_node_num() == 0)
#endif
    printf("err %.12e\nsu %.12e\nsv %.12e\n", err, su, sv);
    return 0;
}
