/* The program of a 3-D stencil of the spelling benchmark (jacobi3d_spell.c,
 * stencil27_spell.c): the arrays, their distribution, two sweeps per iteration, the timing
 * and the checksum.  The including file defines REAL, N, ITER and POINT(k, j, i), the new
 * value of a cell from FROM; stencil3d_sweep.h is the sweep in each spelling, included twice
 * (u -> unew, unew -> u).  The spellings (-DSPELLING=n):
 *
 *   1  collapse3       xmp loop (k, j, i), then acc parallel loop collapse(3)
 *   2  gang_worker     acc parallel loop gang / acc loop worker / acc loop vector, one on each loop
 *   3  kernels         acc kernels loop independent, acc loop independent below
 *   4  collapse2_vl64  acc parallel loop collapse(2) gang vector_length(64), inner acc loop vector
 *   5  xmp_acc         XMP-ACC (the paper's dialect): xmp loop ... acc, acc replicate
 *   6  async           acc parallel loop collapse(3) async, then acc wait
 *
 * Planes are block-distributed with one shadow plane each side, refreshed on the device by
 * reflect ... acc before every sweep. */
#include "spelling.h"
#define STR(x) #x
#define XSTR(x) STR(x)

static const char *const names[] = {"", "collapse3", "gang_worker", "kernels", "collapse2_vl64", "xmp_acc",
                                    "async"};

REAL u[N][N][N], unew[N][N][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N][N][N]
#pragma xmp distribute t[block][*][*] onto p
#pragma xmp align u[k][j][i] with t[k][j][i]
#pragma xmp align unew[k][j][i] with t[k][j][i]
#pragma xmp shadow u[1][0][0]
#pragma xmp shadow unew[1][0][0]
#if SPELLING == 5
#pragma xmp acc replicate (u, unew)
#endif

#define SWEEP sweep_u
#define FROM u
#define TO unew
#include "stencil3d_sweep.h"
#undef SWEEP
#undef FROM
#undef TO
#define SWEEP sweep_unew
#define FROM unew
#define TO u
#include "stencil3d_sweep.h"
#undef SWEEP

static void sweeps(void)
{
    int it;
    double t0, t1;

    sweep_u();
    sweep_unew();
#pragma xmp barrier acc
    t0 = xmp_wtime();
    for (it = 0; it < ITER; it += 2) {
        sweep_u();
        sweep_unew();
    }
#pragma xmp barrier acc
    t1 = xmp_wtime();
#pragma xmp task on p[0]
    {
        printf("spelling = %s\n", names[SPELLING]);
        printf("nodes = %d N = %d iter = %d real = %s\n", xmp_all_num_nodes(), N, ITER, XSTR(REAL));
        printf("iter_ms = %.6f\n", 1e3 * (t1 - t0) / ITER);
    }
}

int main(void)
{
    int i, j, k;
    double sum = 0.0;

#pragma xmp loop (k, j, i) on t[k][j][i]
    for (k = 0; k < N; k++)
        for (j = 0; j < N; j++)
            for (i = 0; i < N; i++) {
                int face = k == 0 || j == 0 || i == 0 || k == N - 1 || j == N - 1 || i == N - 1;
                u[k][j][i] = (REAL)(face ? 1.0 + 0.001 * ((k + 2 * j + 3 * i) % 17) : 0.0);
                unew[k][j][i] = u[k][j][i];
            }
#if SPELLING == 5
#pragma xmp acc replicate_sync in (u, unew)
    sweeps();
#pragma xmp acc replicate_sync out (u)
#else
#pragma acc data copy(u) copyin(unew)
    {
        sweeps();
    }
#endif
#pragma xmp loop (k, j, i) on t[k][j][i] reduction(+:sum)
    for (k = 0; k < N; k++)
        for (j = 0; j < N; j++)
            for (i = 0; i < N; i++)
                sum += u[k][j][i];
#pragma xmp task on p[0]
    printf("checksum = %.15e\n", sum);
    return 0;
}

