/* init.c: sets the field on the GPU (the host backend without one). */
#include <math.h>
#include "field.h"

void init_field(void)
{
    int i, j;
#pragma xmp acc replicate (u, unew)
    {
#pragma xmp loop (i, j) on t[i][j] acc
        for (i = 0; i < NX; i++)
            for (j = 0; j < NY; j++) {
                u[i][j] = (i == 0 || i == NX - 1 || j == 0 || j == NY - 1) ? 1.0 + sin(0.2 * i) : 0.0;
                unew[i][j] = u[i][j];
            }
#pragma xmp acc replicate_sync out (u, unew)
    }
}
