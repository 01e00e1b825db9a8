/* 3-D 7-point Jacobi benchmark with XMP-ACC: planes block-distributed, one halo plane.
 *   -DNZ=512 -DNY=512 -DNX=512 -DITER=50   grid and timed iterations (2 untimed warm-up ones)
 * Each iteration is one sweep (u -> unew, then unew -> u), fp64: 8 bytes read and 8
 * written per interior cell at best (the S2 goal of issue 12 measures that bandwidth).
 * bench/baselines.py jacobi3d computes the same checksum with hand-written kernels. */
#include <stdio.h>
#include <xmp.h>

#ifndef NZ
#define NZ 512
#endif
#ifndef NY
#define NY 512
#endif
#ifndef NX
#define NX 512
#endif
#ifndef ITER
#define ITER 50
#endif
#define SIXTH (1.0 / 6.0)

double u[NZ][NY][NX], unew[NZ][NY][NX];
#pragma xmp nodes p[*]
#pragma xmp template t[NZ][NY][NX]
#pragma xmp distribute t[block][*][*] onto p
#pragma xmp align u[k][j][i] with t[k][j][i]
#pragma xmp align unew[k][j][i] with t[k][j][i]
#pragma xmp shadow u[1][0][0]
#pragma xmp shadow unew[1][0][0]
#pragma xmp acc replicate (u, unew)

static void sweep_u(void)
{
    int i, j, k;
#pragma xmp reflect (u) acc
#pragma xmp loop (k, j, i) on t[k][j][i] acc
    for (k = 1; k < NZ - 1; k++)
        for (j = 1; j < NY - 1; j++)
            for (i = 1; i < NX - 1; i++)
                unew[k][j][i] = SIXTH * (((((u[k - 1][j][i] + u[k + 1][j][i]) + u[k][j - 1][i]) + u[k][j + 1][i])
                                          + u[k][j][i - 1]) + u[k][j][i + 1]);
}

static void sweep_unew(void)
{
    int i, j, k;
#pragma xmp reflect (unew) acc
#pragma xmp loop (k, j, i) on t[k][j][i] acc
    for (k = 1; k < NZ - 1; k++)
        for (j = 1; j < NY - 1; j++)
            for (i = 1; i < NX - 1; i++)
                u[k][j][i] = SIXTH * (((((unew[k - 1][j][i] + unew[k + 1][j][i]) + unew[k][j - 1][i])
                                        + unew[k][j + 1][i]) + unew[k][j][i - 1]) + unew[k][j][i + 1]);
}

int main(void)
{
    int i, j, k, it;
    double t0, t1, sum = 0.0;

#pragma xmp loop (k, j, i) on t[k][j][i]
    for (k = 0; k < NZ; k++)
        for (j = 0; j < NY; j++)
            for (i = 0; i < NX; i++) {
                int face = k == 0 || j == 0 || i == 0 || k == NZ - 1 || j == NY - 1 || i == NX - 1;
                u[k][j][i] = face ? 1.0 + 0.001 * ((k + 2 * j + 3 * i) % 17) : 0.0;
                unew[k][j][i] = u[k][j][i];
            }
#pragma xmp acc replicate_sync in (u, unew)
    sweep_u();
    sweep_unew();
#pragma xmp barrier
    t0 = xmp_wtime();
    for (it = 0; it < ITER; it += 2) {
        sweep_u();
        sweep_unew();
    }
#pragma xmp barrier
    t1 = xmp_wtime();
#pragma xmp acc replicate_sync out (u)
#pragma xmp loop (k, j, i) on t[k][j][i] reduction(+:sum)
    for (k = 0; k < NZ; k++)
        for (j = 0; j < NY; j++)
            for (i = 0; i < NX; i++)
                sum += u[k][j][i];
#pragma xmp task on p[0]
    {
        printf("nodes = %d NZ = %d NY = %d NX = %d iter = %d\n", xmp_all_num_nodes(), NZ, NY, NX, ITER);
        printf("iter_ms = %.6f\n", 1e3 * (t1 - t0) / ITER);
        printf("checksum = %.15e\n", sum);
    }
    return 0;
}
