/* acc atomic update and capture in their OpenACC 2.x forms (XcalableACC.md §2): every
 * printed number is independent of the order in which the iterations ran. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 40

#pragma xmp nodes p[*]

int counter[1], hist[4], prod[1], cnt2[1], cnt3[1], last[1], xr[1];
unsigned bits[1];
long long big[1];
double dsum[1], dmul[1];
float fsub[1];
int slots[N], news[N], news3[N], swaps[N], flips[N];
double olds[N];

int main(void)
{
    int i;
    long long s_slots = 0, q_slots = 0, s_news = 0, s_news3 = 0, s_swaps = 0, s_flips = 0;
    double s_olds = 0;
    prod[0] = 1; dmul[0] = 1; last[0] = -5; xr[0] = 1; fsub[0] = 100;
#pragma acc parallel loop copy(counter, hist, prod, cnt2, cnt3, last, xr, bits, big, dsum, dmul, fsub) \
    copyout(slots, news, news3, swaps, flips, olds)
    for (i = 0; i < N; i++) {
        int s, n2, n3, sw, fl;
        double od;
#pragma acc atomic capture
        s = counter[0]++;
        slots[i] = s;
#pragma acc atomic
        prod[0] *= 1 + (i % 9 == 0);
#pragma acc atomic update
        hist[i % 4] = hist[i % 4] + 2;
#pragma acc atomic update
        hist[(i + 1) % 4] = 1 + hist[(i + 1) % 4];
#pragma acc atomic
        bits[0] |= 1u << (i % 32);
#pragma acc atomic
        big[0] -= (long long) i * 1000000007LL;
#pragma acc atomic
        dmul[0] = dmul[0] * (i % 10 == 3 ? 2.0 : 1.0);
#pragma acc atomic
        fsub[0] -= 0.5f;
#pragma acc atomic capture
        { od = dsum[0]; dsum[0] += 0.5; }
        olds[i] = od;
#pragma acc atomic capture
        { xr[0] = 3 - xr[0]; fl = xr[0]; }
        flips[i] = fl;
#pragma acc atomic capture
        { sw = last[0]; last[0] = i; }
        swaps[i] = sw;
#pragma acc atomic capture
        n2 = ++cnt2[0];
        news[i] = n2;
#pragma acc atomic capture
        n3 = cnt3[0] += 2;
        news3[i] = n3;
    }
    for (i = 0; i < N; i++) {
        s_slots += slots[i]; q_slots += (long long) slots[i] * slots[i]; s_news += news[i];
        s_news3 += news3[i]; s_swaps += swaps[i]; s_flips += flips[i]; s_olds += olds[i];
    }
    if (xmpc_node_num() == 0) {
        printf("counter %d slots %lld %lld prod %d hist %d %d %d %d bits %u big %lld\n", counter[0], s_slots,
               q_slots, prod[0], hist[0], hist[1], hist[2], hist[3], bits[0], big[0]);
        printf("dsum %.1f olds %.1f dmul %.1f fsub %.1f xr %d flips %lld swaps+last %lld news %lld %lld %d %d\n",
               dsum[0], s_olds, dmul[0], fsub[0], xr[0], s_flips, s_swaps + last[0], s_news, s_news3,
               cnt2[0], cnt3[0]);
    }
    return 0;
}
