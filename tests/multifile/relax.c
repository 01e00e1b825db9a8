/* relax.c: Jacobi sweeps on the GPU; the halo rows travel through the host. */
#include <math.h>
#include "field.h"

double relax(int sweeps)
{
    int i, j, k;
    double err = 0.0;
#pragma xmp acc replicate (u, unew)
    {
#pragma xmp acc replicate_sync in (u, unew)
        for (k = 0; k < sweeps; k++) {
#pragma xmp acc replicate_sync out (u)
#pragma xmp reflect (u)
#pragma xmp acc replicate_sync in (u)
#pragma xmp loop (i, j) on t[i][j] acc
            for (i = 1; i < NX - 1; i++)
                for (j = 1; j < NY - 1; j++)
                    unew[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
            err = 0.0;
#pragma xmp loop (i, j) on t[i][j] reduction(max:err) acc
            for (i = 1; i < NX - 1; i++)
                for (j = 1; j < NY - 1; j++) {
                    if (fabs(unew[i][j] - u[i][j]) > err)
                        err = fabs(unew[i][j] - u[i][j]);
                    u[i][j] = unew[i][j];
                }
        }
#pragma xmp acc replicate_sync out (u)
    }
    return err;
}
