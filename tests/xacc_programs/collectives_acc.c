/* bcast ... acc and reduction ... acc (XcalableACC.md §4) on device copies: whole
 * variables, elements, arrays, every operator and several types (+ * max min go by NCCL
 * between GPUs, & | ^ && || and sections by MPI on the device values). */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 16

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p

int main(void)
{
    int i, is = 0, land = 1, lor = 0, bor = 0, band = -1, bxor = 0, kmin;
    long ls = 0;
    float fs = 0, fmx = -1;
    double s = 0, m = -1, mn = 1e9, pr = 1, v[3] = {0, 0, 0};
    int k[3] = {0, 0, 0};
    double y = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        s += 0.5 * i; is += i; ls += (long) i * i * i; fs += 0.25f * i;
        if (i * 7 % 13 > m) m = i * 7 % 13;
        if ((i + 3) * 5 % 11 < mn) mn = (i + 3) * 5 % 11;
        if (i % 5 > fmx) fmx = (float) (i % 5);
        if (i % 4 == 0) pr *= 2;
        land = land && i < 100; lor = lor || i == 9;
        bor |= 1 << (i % 6); band &= ~(1 << (i % 3 + 8)); bxor ^= i;
        v[0] += i; v[1] += 2 * i; v[2] += i * i;
    }
    if (xmpc_node_num() == 0) { k[0] = 5; k[1] = 6; k[2] = 7; y = 2.5; }
#pragma acc data copy(s, m, mn, pr, is, ls, fs, fmx, land, lor, bor, band, bxor, v, k, y)
    {
#pragma xmp reduction (+: s, is, ls, fs) acc
#pragma xmp reduction (max: m, fmx) acc
#pragma xmp reduction (min: mn) acc
#pragma xmp reduction (*: pr) async (2) acc
#pragma xmp wait_async (2) acc
#pragma xmp reduction (&&: land) acc
#pragma xmp reduction (||: lor) acc
#pragma xmp reduction (|: bor) acc
#pragma xmp reduction (&: band) acc
#pragma xmp reduction (^: bxor) acc
#pragma xmp reduction (+: v) acc
#pragma xmp bcast (y) acc
#pragma xmp bcast (k[1]) acc
#pragma xmp bcast (k[0:1]) acc
    }
    kmin = k[0] + k[1];
#pragma xmp reduction (min: kmin)
    if (xmpc_node_num() == 0) {
        printf("s %.2f is %d ls %ld fs %.2f m %.0f fmx %.0f mn %.0f pr %.0f\n", s, is, ls, fs, m, fmx, mn, pr);
        printf("land %d lor %d bor %d band %d bxor %d v %.0f %.0f %.0f y %.1f kmin %d\n",
               land, lor, bor, band, bxor, v[0], v[1], v[2], y, kmin);
    }
    return 0;
}
