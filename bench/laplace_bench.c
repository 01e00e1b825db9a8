/* 2-D Laplace (Jacobi) benchmark with XMP-ACC: rows block-distributed, one halo row.
 *   -DNX=8192 -DNY=8192 -DITER=100   grid and timed iterations (2 untimed warm-up ones)
 *   -DGRID2D      a 2-D process grid p[*][2] (block x block, halos on four sides)
 *   -DHOST_PATH   the paper's data path each iteration: replicate_sync out, host reflect,
 *                 replicate_sync in (default: reflect ... acc, device to device)
 * Each iteration is one stencil sweep (u -> unew, then unew -> u): the same arithmetic
 * as the fused kernel of bench/baselines.py, which prints the same checksum. */
#include <stdio.h>
#include <xmp.h>

#ifndef NX
#define NX 8192
#endif
#ifndef NY
#define NY 8192
#endif
#ifndef ITER
#define ITER 100
#endif

double u[NX][NY], unew[NX][NY];
#pragma xmp template t[NX][NY]
#ifdef GRID2D
/* a 2-D process grid (an even number of processes): blocks of rows and columns, halos
 * on all four sides, corners included */
#pragma xmp nodes p[*][2]
#pragma xmp distribute t[block][block] onto p
#pragma xmp shadow u[1][1]
#pragma xmp shadow unew[1][1]
#else
#pragma xmp nodes p[*]
#pragma xmp distribute t[block][*] onto p
#pragma xmp shadow u[1][0]
#pragma xmp shadow unew[1][0]
#endif
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align unew[i][j] with t[i][j]
#pragma xmp acc replicate (u, unew)


static void sweep_u(void)
{
    int i, j;
#ifdef HOST_PATH
#pragma xmp acc replicate_sync out (u)
#pragma xmp reflect (u)
#pragma xmp acc replicate_sync in (u)
#else
#pragma xmp reflect (u) acc
#endif
#pragma xmp loop (i, j) on t[i][j] acc
    for (i = 1; i < NX - 1; i++)
        for (j = 1; j < NY - 1; j++)
            unew[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
}

static void sweep_unew(void)
{
    int i, j;
#ifdef HOST_PATH
#pragma xmp acc replicate_sync out (unew)
#pragma xmp reflect (unew)
#pragma xmp acc replicate_sync in (unew)
#else
#pragma xmp reflect (unew) acc
#endif
#pragma xmp loop (i, j) on t[i][j] acc
    for (i = 1; i < NX - 1; i++)
        for (j = 1; j < NY - 1; j++)
            u[i][j] = 0.25 * (unew[i - 1][j] + unew[i + 1][j] + unew[i][j - 1] + unew[i][j + 1]);
}

int main(void)
{
    int i, j, k;
    double t0, t1, sum = 0.0;

#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) {
            u[i][j] = (i == 0 || j == 0 || i == NX - 1 || j == NY - 1) ? 1.0 + 0.001 * ((i + 3 * j) % 17) : 0.0;
            unew[i][j] = u[i][j];
        }
#pragma xmp acc replicate_sync in (u, unew)
    sweep_u();
    sweep_unew();
#pragma xmp barrier
    t0 = xmp_wtime();
    for (k = 0; k < ITER; k += 2) {
        sweep_u();
        sweep_unew();
    }
#pragma xmp barrier
    t1 = xmp_wtime();
#pragma xmp acc replicate_sync out (u)
#pragma xmp loop (i, j) on t[i][j] reduction(+:sum)
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++)
            sum += u[i][j];
#ifdef GRID2D
#pragma xmp task on p[0][0]
#else
#pragma xmp task on p[0]
#endif
    {
        printf("nodes = %d NX = %d NY = %d iter = %d\n", xmp_all_num_nodes(), NX, NY, ITER);
        printf("iter_ms = %.6f\n", 1e3 * (t1 - t0) / ITER);
        printf("checksum = %.15e\n", sum);
    }
    return 0;
}
