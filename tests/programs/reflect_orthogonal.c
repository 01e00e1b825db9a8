/* reflect ... orthogonal (global-view §7) on p[2][2]: the faces of the shadow are filled,
 * the corners are not (they keep what the node wrote there); a 5-point stencil needs no
 * more.  Also width(...) with orthogonal and async. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 8
double u[N][N];
#pragma xmp nodes p[2][2]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][block] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp shadow u[1][1]

int main(void)
{
    int i, j, corner_ok = 1;
    double s = 0, s2 = 0;

#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) u[i][j] = i * i + 2 * j * j + i * j;
#ifdef _XCALABLEMP
    {
        /* the corner shadow slot diagonally inside from this node's block */
        int ci = xmpc_node_num() / 2 == 0 ? N / 2 : N / 2 - 1;
        int cj = xmpc_node_num() % 2 == 0 ? N / 2 : N / 2 - 1;
        u[ci][cj] = -1.0;
#pragma xmp reflect (u) orthogonal
        corner_ok = u[ci][cj] == -1.0;
    }
#else
#pragma xmp reflect (u) orthogonal
#endif
#pragma xmp reduction (&&: corner_ok)
#pragma xmp loop (i, j) on t[i][j] reduction (+: s)
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++)
            s += u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - 4 * u[i][j];
#pragma xmp reflect (u) width(1, 0) orthogonal async (1)
#pragma xmp wait_async (1)
#pragma xmp loop (i, j) on t[i][j] reduction (+: s2)
    for (i = 1; i < N - 1; i++)
        for (j = 0; j < N; j++)
            s2 += u[i - 1][j] * u[i + 1][j];
    if (xmpc_node_num() == 0)
        printf("laplacian sum = %g  row products = %g  corners untouched: %s\n", s, s2, corner_ok ? "yes" : "NO");
    return 0;
}
