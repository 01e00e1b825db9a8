/* Reductions of every C arithmetic type (global-view §5): _Bool, char through long long,
 * signed and unsigned, float, double, long double, and the three _Complex types with + and
 * *; of local arrays and of array sections (k[1][:], v[0:4:2]) element-wise, on the loop
 * clause and on the directive.  Every result equals the serial one. */
#include <stdio.h>
#include <complex.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif

#define N 24
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[cyclic] onto p

int main(void)
{
    int i;
    _Bool any = 0, all = 1;
    char ch = 0;
    signed char sc = 0;
    unsigned char uc = 0;
    short sh = 0;
    unsigned short us = 0xFFFF;
    int in = 0;
    unsigned int ui = 0;
    long lo = 0;
    unsigned long ul = 1;
    long long ll = -5;
    unsigned long long ull = 0;
    float fl = 0.0f;
    double db = 1.0;
    long double ld = 0.0L, ldmax = -1.0L;
    float _Complex fc = 0.0f;
    double _Complex dc = 1.0;
    long double _Complex lc = 0.0L;
    int k[3][4] = {{0}}, v[8] = {0};
    double w[2][2] = {{0.0, 0.0}, {0.0, 0.0}};

#pragma xmp loop on t[i] reduction(||: any) reduction(&&: all) reduction(+: ch, sc, uc, sh) \
    reduction(&: us) reduction(^: in) reduction(|: ui) reduction(min: lo) reduction(*: ul) \
    reduction(max: ll) reduction(+: ull, fl) reduction(*: db) reduction(+: ld) reduction(max: ldmax) \
    reduction(+: fc, lc) reduction(*: dc) reduction(+: k[1][:], v[0:4:2], w)
    for (i = 0; i < N; i++) {
        any = any || i == 17;
        all = all && i < 30;
        ch += 1; sc -= 1; uc += 10; sh += (short)(i * 100);
        us &= (unsigned short)~(1u << (i % 16));
        in ^= i * 3;
        ui |= 1u << (i % 20);
        lo = lo < -i ? lo : -i;
        ul *= (i % 5 == 0) ? 3 : 1;
        ll = ll > i * i ? ll : i * i;
        ull += 1000000000000ULL;
        fl += 0.5f;
        db *= 1.0 + i / 1000.0;
        ld += 1.0L / (i + 1);
        ldmax = ldmax > (long double) i / 3 ? ldmax : (long double) i / 3;
        fc += 1.0f + 2.0f * I;
        lc += (long double) i * I;
        dc *= (i % 6 == 0) ? (1.0 + 0.5 * I) : 1.0;
        k[1][i % 4] += i;
        v[(i % 2) * 2] += 1;
        w[i % 2][0] += 0.25;
    }
    if (xmpc_node_num() == 0) {
        printf("_Bool %d %d  char %d %d %d  short %d %u\n", any, all, ch, sc, uc, sh, us);
        printf("int %d %u  long %ld %lu  long long %lld %llu\n", in, ui, lo, ul, ll, ull);
        printf("float %.3f  double %.12f  long double %.15Lf %.6Lf\n", fl, db, ld, ldmax);
        printf("complex %.2f%+.2fi  %.2f%+.2fi  %.2Lf%+.2Lfi\n", crealf(fc), cimagf(fc),
               creal(dc), cimag(dc), creall(lc), cimagl(lc));
        printf("k[1] = %d %d %d %d  k[0][0] = %d  v = %d %d %d %d  w = %.2f %.2f %.2f\n", k[1][0], k[1][1],
               k[1][2], k[1][3], k[0][0], v[0], v[1], v[2], v[3], w[0][0], w[1][0], w[0][1]);
    }

    /* the directive: parts computed by a distributed loop, then combined */
    {
        long double part = 0.0L;
        double _Complex zpart = 0.0;
        unsigned short mask[4] = {0, 0, 0, 0};
        int sec[2][5] = {{0}};
#pragma xmp loop on t[i]
        for (i = 0; i < N; i++) {
            part += (long double) i * i;
            zpart += i * (1.0 - 1.0 * I);
            mask[i % 4] |= (unsigned short)(1u << (i / 4));
            sec[1][i % 5] += 1;
        }
#pragma xmp reduction(+: part, zpart, sec[1][1:3])
#pragma xmp reduction(|: mask)
        if (xmpc_node_num() == 0)
            printf("directive: %.1Lf  %.1f%+.1fi  %x %x %x %x  sec %d %d %d\n", part, creal(zpart), cimag(zpart),
                   mask[0], mask[1], mask[2], mask[3], sec[1][1], sec[1][2], sec[1][3]);
    }
    return 0;
}
