#include "heat.h"

/* A hot band in the middle, cold elsewhere. */
void init(void)
{
    int i;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        u[i] = (i >= N / 4 && i < N / 2) ? 10.0 + 0.01 * i : 0.0;
        un[i] = u[i];
    }
}
