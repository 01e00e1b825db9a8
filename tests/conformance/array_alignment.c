/* The array directive on arrays whose alignment is not the template's shape, as Omni runs
 * it (issue 30): each element is assigned by the owner of the template element it is
 * aligned with.  A 2-D array aligned in the other dimension order than its template (the
 * parenthesised syntax: a[i][j] with t(i,j), and t(i,j) is t[j][i] in C order), a section
 * one element shorter than the template, and a 2-D array with a collapsed dimension
 * (x[i][*]) on a 1-D template; then the stencil loops with expand and margin that use
 * them (expand(1) fills w's shadow too; expand(-1) and margin(-1) around an asynchronous
 * reflect).  Serial meaning: the #else branches (plain loops). */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif

#define N1 6
#define N2 10
#define N 20
#define M 5

#pragma xmp nodes p(*)
#pragma xmp template t2(0:N1-1, 0:N2-1)
#pragma xmp distribute t2(block, *) onto p
#pragma xmp template t(0:N-1)
#pragma xmp distribute t(block) onto p
double a[N1][N2], b[N1][N2];
#pragma xmp align a[i][j] with t2(i, j)
#pragma xmp align b[i][j] with t2(i, j)
double u[N], v[N], w[N], x[N][M];
#pragma xmp align u[i] with t(i)
#pragma xmp align v[i] with t(i)
#pragma xmp align w[i] with t(i)
#pragma xmp align x[i][*] with t(i)
#pragma xmp shadow u[2]
#pragma xmp shadow w[1]

int main(void)
{
    int i, j;
    double sa = 0, su = 0, sw = 0, sx = 0;
#pragma xmp loop (i, j) on t2(i, j)
    for (i = 0; i < N1; i++)
        for (j = 0; j < N2; j++)
            b[i][j] = i * 100 + j;
#ifdef _XCALABLEMP
#pragma xmp array on t2(:, :)
    a[:][:] = 2.0 * b[:][:] + 1.0;
#pragma xmp array on t(:)
    u[:] = 0.5;
#pragma xmp array on t(:)
    u[0:N-1] = 1.0;                      /* one element shorter than t */
#pragma xmp array on t(:)
    w[:] = 0;
#pragma xmp array on t(:)
    x[:][:] = 1.5;                       /* x[i][*]: every column on the owner of t(i) */
#pragma xmp array on t(:)
    x[:][2] = -1.0;
#else
    for (i = 0; i < N1; i++)
        for (j = 0; j < N2; j++)
            a[i][j] = 2.0 * b[i][j] + 1.0;
    for (i = 0; i < N; i++) u[i] = 0.5;
    for (i = 0; i < N - 1; i++) u[i] = 1.0;
    for (i = 0; i < N; i++) w[i] = 0;
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) x[i][j] = j == 2 ? -1.0 : 1.5;
#endif
#pragma xmp loop (i) on t(i)
    for (i = 0; i < N; i++)
        u[i] += i * 0.25 * (i % 3);
#pragma xmp reflect (u)
    /* w on the node's block and its shadow, from the fresh shadow of u: no reflect of w */
#pragma xmp loop (i) on t(i) expand(1)
    for (i = 1; i < N - 1; i++)
        w[i] = u[i - 1] + u[i + 1];
    /* v: the interior while the reflect runs, then the rim that needs the shadow */
#pragma xmp reflect (u) async (1)
#pragma xmp loop (i) on t(i) expand(-1)
    for (i = 1; i < N - 1; i++)
        v[i] = u[i - 1] - u[i + 1];
#pragma xmp wait_async (1)
#pragma xmp loop (i) on t(i) margin(-1)
    for (i = 1; i < N - 1; i++)
        v[i] = u[i - 1] - u[i + 1];
#pragma xmp loop (i) on t(i) reduction(+:su, sw, sx)
    for (i = 1; i < N - 1; i++) {
        su += (u[i] + v[i]) * (i + 1);
        sw += (w[i - 1] + w[i] + w[i + 1]) * (i % 4);
        for (j = 0; j < M; j++)
            sx += x[i][j] * (j + 1);
    }
#pragma xmp loop (i, j) on t2(i, j) reduction(+:sa)
    for (i = 0; i < N1; i++)
        for (j = 0; j < N2; j++)
            sa += a[i][j] * (i + 1) * (j + 3);
    if (xmpc_node_num() == 0)
        printf("sa %.2f  su %.2f  sw %.2f  sx %.2f\n", sa, su, sw, sx);
    return 0;
}
