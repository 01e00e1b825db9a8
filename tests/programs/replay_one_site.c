/* Two call sites with one `where`: the sweep is written once and included twice (TO and
 * FROM swapped), as benchmark suites do, so both expansions of each directive report the
 * same file:line.  The C side keeps a plan per call site under that one key
 * (runtime/replay.py), and both sweeps replay from the second time step.  Built without
 * xmpacc it is the serial program. */
#ifndef SWEEP
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#define N 48
#define STEPS 12

double u[N][N], un[N][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][*] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align un[i][j] with t[i][j]
#pragma xmp shadow u[1][0]
#pragma xmp shadow un[1][0]

#define SWEEP sweep_u
#define TO un
#define FROM u
#include "replay_one_site.c"
#undef SWEEP
#undef TO
#undef FROM
#define SWEEP sweep_un
#define TO u
#define FROM un
#include "replay_one_site.c"

int main(void)
{
    int i, j, k;
    double sum = 0.0;
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            u[i][j] = (i == 0 || j == 0) ? 1.0 + 0.01 * ((i + 7 * j) % 13) : 0.0;
            un[i][j] = u[i][j];
        }
#pragma acc data copy(u, un)
    {
        for (k = 0; k < STEPS; k++) {
            sweep_u();
            sweep_un();
        }
    }
#pragma xmp loop (i, j) on t[i][j] reduction(+: sum)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            sum += u[i][j] * (1 + (i * N + j) % 7);
#ifdef _XCALABLEMP
    if (xmpc_node_num() == 0)
#endif
    printf("sum %.12e\n", sum);
    return 0;
}

#else
static void SWEEP(void)
{
    int i, j;
#pragma xmp reflect (FROM) acc
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop collapse(2)
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++)
            TO[i][j] = 0.25 * (FROM[i - 1][j] + FROM[i + 1][j] + FROM[i][j - 1] + FROM[i][j + 1]);
}
#endif
