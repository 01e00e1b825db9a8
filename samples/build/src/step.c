#include "heat.h"

/* One explicit step of the 1-D heat equation; the ends stay fixed. */
void step(void)
{
    int i;
#pragma xmp reflect (u)
#pragma xmp loop on t[i]
    for (i = 1; i < N - 1; i++)
        un[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
#pragma xmp loop on t[i]
    for (i = 1; i < N - 1; i++)
        u[i] = un[i];
}
