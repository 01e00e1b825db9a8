/* gmove between 2-D arrays of different templates, distributions and node arrays
 * (global-view §2): a row-block array on p (template in the parenthesised syntax),
 * cyclic x cyclic(3) and block x gblock arrays on q[*][2], an array replicated along one
 * node dimension, a column-by-column transpose (one plan per column, cached), fills and
 * local data.  Runs on 4 and 8 nodes.  Serial meaning: gmove_2d_serial.c. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../serial_xmp.h"
#endif

#define N 12
#define M 10

int W[2] = {7, 3};
#pragma xmp nodes p[*]
#pragma xmp nodes q[*][2]
#pragma xmp template tp(0:M-1, 0:N-1)
#pragma xmp template tq[N][M]
#pragma xmp template tg[N][M]
#pragma xmp template tt[M][N]
#pragma xmp template tr[N][4]
#pragma xmp distribute tp(*, block) onto p
#pragma xmp distribute tq[cyclic][cyclic(3)] onto q
#pragma xmp distribute tg[block][gblock(W)] onto q
#pragma xmp distribute tt[block][cyclic] onto q
#pragma xmp distribute tr[block][block] onto q
double A[N][M], B[N][M], G[N][M], T[M][N], R[N];
#pragma xmp align A[i][j] with tp(j, i)
#pragma xmp align B[i][j] with tq[i][j]
#pragma xmp align G[i][j] with tg[i][j]
#pragma xmp align T[i][j] with tt[i][j]
#pragma xmp align R[i] with tr[i][*]
#pragma xmp shadow G[1][1]

double loc[N], x;

static void show(const char *label, double s)
{
    if (xmpc_node_num() == 0) printf("%-10s %.1f\n", label, s);
}

static void sums(const char *label)
{
    double sa = 0, sb = 0, sg = 0, st = 0, sr = 0;
    int i, j;
#pragma xmp loop (i, j) on tp(j, i) reduction(+:sa)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) sa += (i + 1) * (2 * j + 1) * A[i][j];
#pragma xmp loop (i, j) on tq[i][j] reduction(+:sb)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) sb += (i + 1) * (2 * j + 1) * B[i][j];
#pragma xmp loop (i, j) on tg[i][j] reduction(+:sg)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) sg += (i + 1) * (2 * j + 1) * G[i][j];
#pragma xmp loop (i, j) on tt[i][j] reduction(+:st)
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) st += (i + 1) * (2 * j + 1) * T[i][j];
#pragma xmp loop (i) on tr[i][*] reduction(+:sr)
    for (i = 0; i < N; i++) sr += (i + 1) * R[i];
    if (xmpc_node_num() == 0) printf("%-10s", label);
    show(" A", sa); show(" B", sb); show(" G", sg); show(" T", st); show(" R", sr);
}

int main(void)
{
    int i, j;
#pragma xmp loop (i, j) on tp(j, i)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) A[i][j] = 100 * i + j;
#pragma xmp loop (i, j) on tq[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) B[i][j] = 0;
#pragma xmp loop (i, j) on tg[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) G[i][j] = -1;
#pragma xmp loop (i, j) on tt[i][j]
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) T[i][j] = 0;
#pragma xmp loop (i) on tr[i][*]
    for (i = 0; i < N; i++) R[i] = 0;

#pragma xmp gmove
    B[:][:] = A[:][:];                     /* row blocks -> cyclic x cyclic(3) */
#pragma xmp gmove
    G[1:N-2][0:M] = B[2:N-2][:];           /* -> block x gblock, shifted rows */
    sums("copies");
    for (j = 0; j < M; j++) {
#pragma xmp gmove
        T[j][:] = A[:][j];                 /* transpose, one column at a time */
    }
#pragma xmp gmove
    R[:] = G[:][4];                        /* a column into a replicated array */
    sums("transpose");
#pragma xmp gmove
    A[2][:] = R[1:M];                      /* replicated -> a row */
#pragma xmp gmove
    G[1:N-2][5] = R[N-1:N-2:-1];           /* replicated, reversed -> a column */
#pragma xmp gmove
    B[5][:] = 3.5;                         /* fill a row */
#pragma xmp gmove
    T[1:3][2:4] = G[6:3][1:4];             /* 2-D blocks between unrelated layouts */
    sums("mixed");
#pragma xmp gmove
    loc[:] = R[:];                         /* replicated -> local */
#pragma xmp gmove
    x = T[M-1][N-1];
    {
        double s = x;
        for (i = 0; i < N; i++) s += (i + 1) * loc[i];
        show("loc x", s);
    }
    return 0;
}
