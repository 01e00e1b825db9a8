/* reflect ... orthogonal acc and reflect_init/reflect_do ... orthogonal acc (XcalableACC.md
 * §4) on p[2][2]: the faces of the device copy's shadow are filled, its corners are not
 * (they keep what the node wrote there before the copy in); a 5-point stencil needs no more. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif

#define N 8
double u[N][N];
#pragma xmp nodes p[2][2]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][block] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp shadow u[1][1]

static double laplacian(void)
{
    int i, j;
    double s = 0;
#pragma xmp loop (i, j) on t[i][j] reduction (+: s)
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++)
            s += u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - 4 * u[i][j];
    return s;
}

int main(void)
{
    int i, j, k, corner_ok = 1;
    double s1, s2;
    int ci = 0, cj = 0;

#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) u[i][j] = i * i + 2 * j * j + i * j;
#ifdef _XCALABLEMP
    /* the corner shadow slot diagonally inside from this node's block */
    ci = xmpc_node_num() / 2 == 0 ? N / 2 : N / 2 - 1;
    cj = xmpc_node_num() % 2 == 0 ? N / 2 : N / 2 - 1;
    u[ci][cj] = -1.0;
#endif
#pragma acc data copy(u)
    {
#pragma xmp reflect (u) orthogonal acc
#pragma acc update host(u)
        s1 = laplacian();
#ifdef _XCALABLEMP
        corner_ok = u[ci][cj] == -1.0;
#endif
#pragma xmp reflect_init (u) width(1, 1) orthogonal acc
        for (k = 0; k < 3; k++) {
#pragma xmp loop (i, j) on t[i][j]
#pragma acc parallel loop collapse(2)
            for (i = 0; i < N; i++)
                for (j = 0; j < N; j++) u[i][j] = u[i][j] + 1.0;
#pragma xmp reflect_do (u) acc
        }
#pragma acc update host(u)
    }
    s2 = laplacian();
#ifdef _XCALABLEMP
    corner_ok = corner_ok && u[ci][cj] == -1.0;
#endif
#pragma xmp reduction (&&: corner_ok)
    if (xmpc_node_num() == 0)
        printf("laplacian = %g then %g  corners untouched: %s\n", s1, s2, corner_ok ? "yes" : "NO");
    return 0;
}
