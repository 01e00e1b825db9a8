/* Lattice-QCD style: arrays of structures distributed over the nodes, a shadow row
 * refreshed on the device, and an acc routine that stores through a pointer to an
 * element (add(&r[it][x], ...)): the kernel's r is written (no const on its parameter, a
 * C++ error under NVRTC otherwise) while q, passed to pointer-to-const parameters, is
 * read only. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define NT 16
#define NX 8
typedef struct { double v[3][2]; } quark_t;
quark_t q[NT][NX], r[NT][NX];
#pragma xmp nodes p[*]
#pragma xmp template t[NT]
#pragma xmp distribute t[block] onto p
#pragma xmp align q[i][*] with t[i]
#pragma xmp align r[i][*] with t[i]
#pragma xmp shadow q[1][0]

#pragma acc routine seq
static void add(quark_t *o, const quark_t *a, const quark_t *b, double k)
{
    int c, z;
    for (c = 0; c < 3; c++)
        for (z = 0; z < 2; z++)
            o->v[c][z] = a->v[c][z] + k * b->v[c][z];
}

int main(void)
{
    int it, x, c, z;
    double s = 0;
#pragma xmp loop (it) on t[it]
    for (it = 0; it < NT; it++)
        for (x = 0; x < NX; x++)
            for (c = 0; c < 3; c++)
                for (z = 0; z < 2; z++)
                    q[it][x].v[c][z] = it + x * 0.1 + c + z * 0.5;
#pragma acc data copy(q, r)
    {
#pragma xmp reflect (q) acc
#pragma xmp loop (it) on t[it]
#pragma acc parallel loop collapse(2)
        for (it = 1; it < NT - 1; it++)
            for (x = 0; x < NX; x++)
                add(&r[it][x], &q[it + 1][x], &q[it - 1][x], 0.5);
#pragma xmp loop (it) on t[it] reduction(+: s)
#pragma acc parallel loop collapse(2) reduction(+: s)
        for (it = 1; it < NT - 1; it++)
            for (x = 0; x < NX; x++)
                s += r[it][x].v[1][1] - q[it][x].v[2][0];
    }
    if (xmpc_node_num() == 0)
        printf("%.6f\n", s);
    return 0;
}
