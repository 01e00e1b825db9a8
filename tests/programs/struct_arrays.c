/* Distributed arrays of structures and of typedef'd element types (global-view §8): the
 * element size is sizeof the type; also an xmp_malloc'ed array of a typedef'd structure
 * and a shadow of structures exchanged by reflect. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 30

typedef struct { double re, im; } complex_t;
typedef struct { complex_t c[3][4]; } spinor_t;
typedef float real_t;
struct particle { int id; double x, v; char tag; };

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp template d[:]
#pragma xmp distribute d[block] onto p

struct particle parts[N];
#pragma xmp align parts[i] with t[i]
#pragma xmp shadow parts[1]
complex_t z[N];
#pragma xmp align z[i] with t[i]
real_t r[N][3];
#pragma xmp align r[i][*] with t[i]
spinor_t *psi;
#pragma xmp align psi[i] with d[i]

int main(void)
{
    int i, a, b, n = 10;
    double e = 0, cz = 0, cr = 0, cs = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        parts[i].id = i;
        parts[i].x = 0.25 * i;
        parts[i].v = 1.0;
        parts[i].tag = 'a' + i % 26;
        z[i].re = i;
        z[i].im = -i;
        for (a = 0; a < 3; a++)
            r[i][a] = (real_t) (i * a);
    }
#pragma xmp reflect (parts)
#pragma xmp loop on t[i] reduction(+:e, cz, cr)
    for (i = 1; i < N - 1; i++) {
        e += parts[i - 1].x * parts[i + 1].v + (parts[i + 1].tag - 'a');
        cz += z[i].re * z[i].im;
        for (a = 0; a < 3; a++)
            cr += r[i][a];
    }
#pragma xmp template_fix d[n]
    psi = (spinor_t *) xmp_malloc(xmp_desc_of(psi), n);
#pragma xmp loop on d[i]
    for (i = 0; i < n; i++)
        for (a = 0; a < 3; a++)
            for (b = 0; b < 4; b++) {
                psi[i].c[a][b].re = i + a;
                psi[i].c[a][b].im = b;
            }
#pragma xmp loop on d[i] reduction(+:cs)
    for (i = 0; i < n; i++)
        for (a = 0; a < 3; a++)
            for (b = 0; b < 4; b++)
                cs += psi[i].c[a][b].re * psi[i].c[a][b].im;
    if (xmpc_node_num() == 0)
        printf("e = %.2f  z = %.1f  r = %.1f  spinors = %.1f  sizes %d %d\n", e, cz, cr, cs,
               (int) sizeof(struct particle), (int) sizeof(spinor_t));
    return 0;
}
