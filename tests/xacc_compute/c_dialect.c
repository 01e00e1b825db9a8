/* C that C++ does not take, in kernels: the host backend compiles the kernel file as C,
 * NVRTC as C++ (xmpacc_kernel.h, kernel_types.py, emit_cu.py KernelGenerator): enums from
 * ints and enum++, bool, designated initializers, compound literals, C++ keywords as
 * names (a variable 'new', a member 'class'), register, restrict, NAN and INFINITY, the
 * M_ constants and <limits.h>/<stdint.h> limits, more math functions, _Static_assert, a
 * C99 array parameter, printf (CUDA's device printf on a GPU), pointers the body declares
 * into device arrays, dereferenced with * and ->. */
#include <stdio.h>
#include <stdbool.h>
#include <math.h>
#include <float.h>
#include <limits.h>
#include <stdint.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 24
typedef struct { double re, im; } cplx;
struct pt { int class; double new; };
enum mode { ADD, MUL, NMODES };
double a[N], c[N];
int k[N];
cplx z[N];
struct pt q[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align z[i] with t[i]

#pragma acc routine seq
static void twice(double * restrict x, const double * restrict y) { *x = 2 * *y; }

#pragma acc routine seq
static double last(int n, const double v[n]) { _Static_assert(sizeof(double) == 8, "double"); return v[n - 1]; }

int main(void)
{
    int i;
    double s = 0, zs = 0;
    long ks = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a, z)
    {
#pragma xmp loop on t[i] reduction(+:s)
#pragma acc parallel loop reduction(+:s)
        for (i = 0; i < N; i++) {
            enum mode m = i % NMODES;
            m++;
            bool odd = i % 2;
            register int new = i, this = 2;
            cplx w = {.re = a[i], .im = -a[i]};
            z[i] = odd ? w : (cplx){a[i] * this, 1.0};
            z[i].re += m + new;
            double inf = i > 100 ? NAN : INFINITY;
            if (i == 3)
                printf("kernel: i = %d\n", i);
            s += (isinf(inf) ? 1 : 0) + (isnan(inf) ? 100 : 0) + M_PI_2 + M_SQRT2 + (UINT8_MAX + SHRT_MAX) / 1e4
               + (INT64_MAX > LONG_MIN ? 1 : 0) + FLT_MIN * 0 + lroundf(1.5f * i) + fma(i, 2, 1) + scalbn(1.0, i % 4);
        }
    }
#pragma acc parallel loop copyout(k, q, c)
    for (i = 0; i < N; i++) {
        struct pt v = (struct pt){.class = i % 3, .new = 0.5 * i};
        q[i] = v;
        k[i] = v.class + (int) sizeof(struct pt);
        double three[3] = {v.new, 1, 2};
        twice(&c[i], &v.new);
        c[i] += last(3, three);
        struct pt *mine = &q[i];
        double *cell = &c[i], *first = three;
        mine->new += *first;
        *cell += *(first + i % 3) + mine->class;
    }
#pragma xmp loop on t[i] reduction(+:zs)
    for (i = 0; i < N; i++) zs += z[i].re * 3 + z[i].im;
    for (i = 0; i < N; i++) ks += k[i] + q[i].class + (long) c[i];
    if (xmpc_node_num() == 0)
        printf("s = %.9f zs = %.6f ks = %ld\n", s, zs, ks);
    return 0;
}
