/* The program's own types in kernels (kernel_types.py): arrays of structs and of unions,
 * typedef names (of structs, of double, of <stdint.h> types), struct scalars by value and
 * private, enums, a typedef'd reduction variable, a size_t loop variable and an
 * 'acc routine' taking and returning a struct; distributed and plain arrays; a type
 * defined in main; a distributed array of nested structs (a colour vector, as lattice QCD
 * codes have) with a shadow, reflected on the device and stored into member by member. */
#include <stdio.h>
#include <stdint.h>
#include <stddef.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 48
enum { NDIM = 3 };
typedef double real;
typedef struct { real re, im; } cplx;
struct particle { real x[NDIM]; int64_t id; };
typedef union { float f; uint32_t u; } bits;
enum mode { ADD, MUL };
typedef enum mode mode_kind;
typedef struct { FILE *out; int level; } logger;   /* unused by kernels: not in the .cu */
typedef struct { cplx c[3]; } vec3;

cplx z[N];
real r[N];
struct particle ps[N];
bits b[N];
uint64_t h[N];
vec3 v[N], vw[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align z[i] with t[i]
#pragma xmp align r[i] with t[i]
#pragma xmp align v[i] with t[i]
#pragma xmp align vw[i] with t[i]
#pragma xmp shadow v[1]

#pragma acc routine seq
static cplx cmul(cplx a, cplx b)
{
    cplx c = { a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re };
    return c;
}

int main(void)
{
    cplx alpha = { 0.5, 2.0 };
    real m = -1e30, s = 0;
    enum mode md = MUL;
    mode_kind md2 = ADD;
    logger log = { stdout, 1 };
    typedef struct { int n; real w; } cell;
    cell cs[N];
    size_t i;
    int k;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { z[i].re = i; z[i].im = 1; r[i] = 0; }
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        for (k = 0; k < 3; k++) {
            v[i].c[k].re = (real) i + k; v[i].c[k].im = (real) i - k;
            vw[i].c[k].re = vw[i].c[k].im = 0;
        }
    for (k = 0; k < N; k++) {
        ps[k].id = k; ps[k].x[0] = ps[k].x[1] = ps[k].x[2] = 0.5 * k;
        b[k].f = 1.0f + k;
    }
#pragma acc data copy(z, r)
    {
#pragma xmp loop on t[i] reduction(max:m) reduction(+:s)
#pragma acc parallel loop reduction(max:m) reduction(+:s)
        for (i = 0; i < N; i++) {
            cplx w;
            if (md == MUL) w = cmul(z[i], alpha); else w = z[i];
            if (md2 == ADD) w.re += 1;
            z[i] = w;
            r[i] = w.re * w.re + w.im * w.im;
            m = r[i] > m ? r[i] : m;
            s += r[i];
        }
    }
#pragma acc data copy(v, vw)
    {
#pragma xmp reflect (v) acc
#pragma xmp loop on t[i]
#pragma acc parallel loop
        for (i = 1; i < N - 1; i++) {
            int cc;
            for (cc = 0; cc < 3; cc++) {   /* stores into members of a distributed array's elements */
                vw[i].c[cc].re = v[i - 1].c[cc].re + v[i + 1].c[cc].im;
                vw[i].c[cc].im = v[i].c[cc].re * 2;
            }
            vw[i].c[0].re++;
        }
    }
#pragma acc parallel loop copy(ps, b) copyout(h)
    for (k = 0; k < N; k++) {
        ps[k].x[NDIM - 1] += (real) ps[k].id;
        h[k] = (uint64_t) b[k].u + (uint64_t) sizeof(struct particle);
    }
#pragma acc parallel loop copyout(cs)
    for (k = 0; k < N; k++) { cs[k].n = k % 5; cs[k].w = 0.25 * k; }
    double zs = 0, ps2 = 0, vs = 0;
    unsigned long long hs = 0;
#pragma xmp loop on t[i] reduction(+:zs, vs)
    for (i = 0; i < N; i++) { zs += z[i].re - z[i].im; vs += (i + 1) * (vw[i].c[0].re + vw[i].c[1].re - vw[i].c[2].im); }
    for (k = 0; k < N; k++) { ps2 += ps[k].x[2] + cs[k].n + cs[k].w; hs += h[k] % 1000003; }
    if (xmpc_node_num() == 0 && log.level > 0)
        fprintf(log.out, "m = %.6f s = %.6f zs = %.6f ps2 = %.3f hs = %llu vs = %.3f\n", m, s, zs, ps2, hs, vs);
    return 0;
}
