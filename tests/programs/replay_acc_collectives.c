/* reduction ... acc and bcast ... acc in a time loop (runtime/replay_collectives.py: in C
 * from the second call of a site): + max min * & | ^ of double, float, int, long long and
 * unsigned short (NCCL lacks 16-bit integers: MPI through host memory on GPUs), an
 * array, a scalar and an array broadcast, an element whose subscript changes by turns
 * (two plans at one site); && and an on clause stay general.  At step 3 a device copy is
 * made again (every plan goes stale: that step plans again).  With an argument, the last
 * step's reduction of g finds it no longer present: the error at its line.  Built
 * without xmpacc it is the serial program. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "serial_xmp.h"
#endif
#define N 16
#define STEPS 6
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p

int main(int argc, char **argv)
{
    int i, k, me = xmpc_node_num(), bad = argc > 1;
    double s, m, v[3], x, total = 0.0, g = 1.0;
    float f;
    int mn, band, bor, bxor, land, y[3], e[2] = {0, 0}, w = 0;
    long long prod;
    unsigned short us;
#pragma acc enter data copyin(g)
#pragma acc data create(s, m, v, x, f, mn, band, bor, bxor, land, y, e, prod, us) copyin(w)
    {
        for (k = 0; k < STEPS; k++) {
            s = 0.0; m = -1.0; f = 0.0f; mn = 1000; band = -1; bor = 0; bxor = 0; land = 1;
            prod = 1; us = 0; v[0] = v[1] = v[2] = 0.0;
#pragma xmp loop on t[i]
            for (i = 0; i < N; i++) {
                s += 0.5 * i + k;
                if ((i * 7 + k) % 13 > m) m = (i * 7 + k) % 13;
                if ((i + 3 * k) % 11 < mn) mn = (i + 3 * k) % 11;
                f += 0.25f * i;
                if (i % 4 == k % 4) prod *= 3;
                band &= ~(1 << ((i + k) % 5));
                bor |= 1 << ((i + k) % 7);
                bxor ^= i * (k + 1);
                land = land && i < 12 + 2 * k;
                us += (unsigned short)(i * 1000);
                v[0] += i; v[1] += 2.0 * i * k; v[2] += i * i;
            }
            x = me == 0 ? 1.5 * k : -1.0;
            y[0] = me == 0 ? k : -1; y[1] = me == 0 ? 2 * k : -1; y[2] = me == 0 ? 3 * k : -1;
            e[k % 2] = me == 0 ? 10 + k : -1;
#pragma acc update device(s, m, f, mn)
#pragma acc update device(band, bor, bxor, land)
#pragma acc update device(prod, us, v, x)
#pragma acc update device(y, e)
            if (k == 3) {
#pragma acc exit data copyout(g)
#pragma acc enter data copyin(g)
            }
#pragma xmp reduction (+: s, f) acc
#pragma xmp reduction (max: m) acc
#pragma xmp reduction (min: mn) acc
#pragma xmp reduction (*: prod) acc
#pragma xmp reduction (&: band) acc
#pragma xmp reduction (|: bor) acc
#pragma xmp reduction (^: bxor) acc
#pragma xmp reduction (&&: land) acc
#pragma xmp reduction (+: us, v) acc
#pragma xmp reduction (+: w) on p[0:1] acc
#pragma xmp bcast (x, y) acc
#pragma xmp bcast (e[k % 2]) acc
            if (bad && k == STEPS - 1) {
#pragma acc exit data delete(g)
            }
#pragma xmp reduction (max: g) acc
#pragma acc update host(s, m, f, mn)
#pragma acc update host(band, bor, bxor, land)
#pragma acc update host(prod, us, v, x)
#pragma acc update host(y, e)
            total += s + m + f + mn + prod + band + bor + bxor + land + us + v[0] + v[1] + v[2] + x
                     + y[0] + y[1] + y[2] + e[0] + e[1];
            if (me == 0)
                printf("%d: s %.1f m %.0f f %.2f mn %d prod %lld band %d bor %d bxor %d land %d us %u "
                       "v %.0f %.0f %.0f x %.1f y %d %d %d e %d %d\n", k, s, m, f, mn, prod, band, bor, bxor,
                       land, us, v[0], v[1], v[2], x, y[0], y[1], y[2], e[0], e[1]);
        }
    }
#pragma acc exit data delete(g)
    if (me == 0)
        printf("total %.3f g %.1f\n", total, g);
    return 0;
}
