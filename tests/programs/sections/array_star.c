/* The array directive with '*' in its template reference and run-time steps (global-view
 * §3): on u[*][:] every node along the first node dimension runs its part of the second
 * (v is replicated along it, so every copy is updated); a step held in a variable, both
 * positive and negative, on a block and on a cyclic(2) template.  Runs on 1, 2 and 4 nodes.
 * Serial meaning: array_star_serial.c. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 8
#define M 12

#pragma xmp nodes g[*][2]
#pragma xmp nodes p[*]
#pragma xmp template u[N][M]
#pragma xmp template t[M]
#pragma xmp distribute u[block][block] onto g
#pragma xmp distribute t[cyclic(2)] onto p
double v[M], w[N][M], c[M];
#pragma xmp align v[j] with u[*][j]
#pragma xmp align w[i][j] with u[i][j]
#pragma xmp align c[i] with t[i]

static void sums(const char *label)
{
    double sv = 0, sw = 0, sc = 0;
    int i, j;
#pragma xmp loop (i, j) on u[i][j] reduction(+:sv, sw)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            sv += (i + 1) * (j + 1) * v[j];     /* every copy of v, read by its row */
            sw += (i + 1) * (2 * j + 1) * w[i][j];
        }
#pragma xmp loop on t[i] reduction(+:sc)
    for (i = 0; i < M; i++) sc += (i + 1) * c[i];
    if (xmpc_node_num() == 0) printf("%-8s v %.2f w %.2f c %.2f\n", label, sv, sw, sc);
}

int main(void)
{
    int i, j, s = 3, r = -2;
#pragma xmp loop (j) on u[*][j]
    for (j = 0; j < M; j++) v[j] = j + 1;
#pragma xmp loop (i, j) on u[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) w[i][j] = i - j;
#pragma xmp loop on t[i]
    for (i = 0; i < M; i++) c[i] = 2 * i;
    sums("start");

#pragma xmp array on u[*][:]
    v[:] = v[:] * 2 + 1;                    /* every copy of v */
#pragma xmp array on u[*][0:M/3:s]
    v[0:M/3:s] = -v[0:M/3:s];               /* a run-time step */
#pragma xmp array on u[2][1:M/2:s-1]
    w[2][1:M/2:s-1] = 10 * w[2][1:M/2:s-1]; /* a scalar template subscript with it */
    sums("star");
#pragma xmp array on t[M-1:M/2:r]
    c[M-1:M/2:r] = c[M-1:M/2:r] + 100;      /* a negative run-time step */
#pragma xmp array on u[:][M-2:3:r*2]
    w[:][M-2:3:r*2] = w[:][M-2:3:r*2] + 1000;
    sums("steps");
    return 0;
}
