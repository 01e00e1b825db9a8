/* Reductions and bcast of array parameters (issue 30): 'int a[N]' as a parameter is a
 * pointer, so the element count comes from the declared extent, not from sizeof.  The
 * reduction directive and the loop clause, operators in capitals (MAX, MIN, as Omni's
 * programs write them), a 2-D parameter, a section of a parameter without an extent, a
 * location section in a parameter and bcast of a parameter.  Node 0 prints. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif

#define N 8
#define M 3
#define T 24

#pragma xmp nodes p[*]
#pragma xmp template t[T]
#pragma xmp distribute t[block] onto p
double x[T];
#pragma xmp align x[i] with t[i]

/* each node adds its loop iterations into the parameter, then the directive combines */
static void plus(int a[N])
{
    int i;
    for (i = 0; i < N; i++)
        a[i] = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < T; i++)
        a[i % N] += i;
#pragma xmp reduction(+:a)
}

static void extremes(double hi[M], double lo[M])
{
    int i, k;
    for (k = 0; k < M; k++) { hi[k] = -1e9; lo[k] = 1e9; }
#pragma xmp loop on t[i]
    for (i = 0; i < T; i++) {
        k = i % M;
        if (x[i] > hi[k]) hi[k] = x[i];
        if (x[i] < lo[k]) lo[k] = x[i];
    }
#pragma xmp reduction(MAX:hi)
#pragma xmp reduction(MIN:lo)
}

static void table(long g[N][M])
{
    int i;
#pragma xmp loop on t[i] reduction(+:g)
    for (i = 0; i < T; i++)
        g[i % N][i % M] += 2 * i + 1;
}

static double counts(int n, int h[], int at[2])
{
    double best = -1;
    int i;
#pragma xmp loop on t[i] reduction(+:h[0:n])
    for (i = 0; i < T; i++)
        h[(int) x[i] % n] += 1;
#pragma xmp loop on t[i] reduction(lastmax:best /at[0:2]/)
    for (i = 0; i < T; i++)
        if (x[i] >= best) { best = x[i]; at[0] = i; at[1] = -i; }
    return best;
}

static void share(int v[4], int me)
{
    int k;
    for (k = 0; k < 4; k++)
        v[k] = me == 0 ? 10 * (k + 1) : -1;
#pragma xmp bcast (v)
}

int main(void)
{
    int a[N], h[5] = {0}, at[2] = {0, 0}, v[4], i, k;
    long g[N][M] = {{0}};
    double hi[M], lo[M], best;
#pragma xmp loop on t[i]
    for (i = 0; i < T; i++)
        x[i] = (i * 7) % 11 + 0.25 * (i % 3);
    plus(a);
    extremes(hi, lo);
    table(g);
    best = counts(5, h, at);
    share(v, xmpc_node_num());
    if (xmpc_node_num() == 0) {
        for (i = 0; i < N; i++)
            printf("a[%d] = %d  g = %ld %ld %ld\n", i, a[i], g[i][0], g[i][1], g[i][2]);
        for (k = 0; k < M; k++)
            printf("hi[%d] = %.2f  lo[%d] = %.2f\n", k, hi[k], k, lo[k]);
        printf("h = %d %d %d %d %d  best %.2f at %d %d\n", h[0], h[1], h[2], h[3], h[4], best, at[0], at[1]);
        printf("v = %d %d %d %d\n", v[0], v[1], v[2], v[3]);
    }
    return 0;
}
