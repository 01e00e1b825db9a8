/* reduce_shadow (global-view §7) as a particle-in-cell code uses it, up to 16 nodes
 * (issue 30): each cell deposits into its neighbours, which may be shadow copies on this
 * node; reduce_shadow adds them into their owners.  40 cells on 16 nodes: blocks of 3, one
 * node with 1 cell and two with none; a 2-D field with a collapsed dimension; width, async
 * and /periodic/.  Serial meaning: this file built by cc with ../programs/serial_xmp.h. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif

#define N 40
#define M 3
#ifdef _XCALABLEMP
#define WRAP(i) (i)          /* the periodic shadow slots q[-1] and q[N] */
#else
#define WRAP(i) (((i) + N) % N)
#endif

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double rho[N], e[N][M], q[N];
#pragma xmp align rho[i] with t[i]
#pragma xmp align e[i][*] with t[i]
#pragma xmp align q[i] with t[i]
#pragma xmp shadow rho[1]
#pragma xmp shadow e[1][0]
#pragma xmp shadow q[1]

int main(void)
{
    int i, k, step;
    double s = 0;
    for (step = 0; step < 2; step++) {
#pragma xmp loop on t[i] expand(1)
        for (i = 0; i < N; i++) {
            rho[i] = 0;
            for (k = 0; k < M; k++) e[i][k] = 0;
        }
#pragma xmp loop on t[i] expand(/unbound/ 1)
        for (i = 0; i < N; i++) q[WRAP(i)] = 0;
#pragma xmp loop on t[i]
        for (i = 0; i < N; i++) {
            double w = 1.0 + (i * 7 + step) % 5;
            rho[i] += 0.5 * w;
            if (i > 0) rho[i - 1] += 0.25 * w;
            if (i < N - 1) rho[i + 1] += 0.25 * w;
            for (k = 0; k < M; k++) {
                if (i > 0) e[i - 1][k] += w * (k + 1);
                if (i < N - 1) e[i + 1][k] -= w * k;
            }
            q[WRAP(i - 1)] += w;
            q[WRAP(i + 1)] += 2 * w;
        }
#pragma xmp reduce_shadow (rho) async (1)
#pragma xmp reduce_shadow (e) width(1, 0)
#pragma xmp reduce_shadow (q) width(/periodic/ 1)
#pragma xmp wait_async (1)
#pragma xmp loop on t[i] reduction(+:s)
        for (i = 0; i < N; i++) {
            s += rho[i] * (i + 1) + q[i] * (i % 7);
            for (k = 0; k < M; k++) s += e[i][k] * (i % 5 + k);
        }
    }
    if (xmpc_node_num() == 0)
        printf("s = %.2f\n", s);
    return 0;
}
