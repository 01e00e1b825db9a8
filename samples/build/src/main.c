#include <stdio.h>
#include "heat.h"
#ifdef _XCALABLEMP
#include <xmp.h>
#define NODE xmpc_node_num()
#else
#define NODE 0            /* the serial build: cc with the pragmas ignored */
#endif

double u[N], un[N];       /* the definitions (heat.h declares them) */

int main(void)
{
    int i, s;
    double total = 0.0, energy = 0.0;   /* heat is conserved, its square decays */

    init();
    for (s = 0; s < STEPS; s++)
        step();
#pragma xmp loop on t[i] reduction(+:total, energy)
    for (i = 0; i < N; i++) {
        total += u[i];
        energy += u[i] * u[i];
    }
    if (NODE == 0)
        printf("total heat = %.10f, energy = %.10f\n", total, energy);
    return 0;
}
