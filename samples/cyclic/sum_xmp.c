/*
 * sum_xmp.c - reductions of many kinds, XcalableMP version of sum_serial.c.
 * a[] is distributed cyclically (element i on node i mod P), b[] block-cyclically
 * in blocks of 3 (elements 0-2 on p[0], 3-5 on p[1], ...).  Any process count:
 *     mpirun -np 3 ./sum_xmp
 * Every printed value is a reduced (global) value, so it does not depend on P.
 */
#include <stdio.h>
#include <math.h>

#define N 50

double a[N];
int b[N];
int hist[5];   /* histogram of (b[i] / 7) % 5: a local (not distributed) array */

#pragma xmp nodes p[*]
/* two index spaces of the same size, distributed differently */
#pragma xmp template tc[N]
#pragma xmp template tb[N]
#pragma xmp distribute tc[cyclic] onto p
#pragma xmp distribute tb[cyclic(3)] onto p
/* a loop on tc[i] may only touch a[i], a loop on tb[i] only b[i] */
#pragma xmp align a[i] with tc[i]
#pragma xmp align b[i] with tb[i]

int main(void)
{
    int i;
    double s = 0.0, amax = -1.0e30, amin = 1.0e30, sub = 0.0;
    int prod = 1, band = ~0, bor = 0, bxor = 0, all_pos = 1, any_big = 0;
    int cnt = 0, step_sum = 0, scale = 0, big = 0;
    long wsum = 0;

    /* each node fills the elements it owns, from their global index */
#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++)
        a[i] = 0.5 + sin(0.37 * i) + 0.25 * cos(1.3 * i);
#pragma xmp loop on tb[i]
    for (i = 0; i < N; i++)
        b[i] = 256 + (i * 37 + 11) % 101;

    /* downward loop: each node walks its own elements from high to low */
#pragma xmp loop on tc[i]
    for (i = N - 1; i >= 0; i--)
        a[i] = a[i] * (1.0 + 0.01 * i);

    /* several reduction clauses on one loop */
#pragma xmp loop on tc[i] reduction(+:s) reduction(max:amax) reduction(min:amin)
    for (i = 0; i < N; i++) {
        s += a[i];
        if (a[i] > amax) amax = a[i];
        if (a[i] < amin) amin = a[i];
    }

    /* a sub-range: each node runs the owned indices inside 5..N-3 */
#pragma xmp loop on tc[i] reduction(+:sub)
    for (i = 5; i < N - 2; i++)
        sub += a[i];

    /* bitwise and logical reductions on integers */
#pragma xmp loop on tb[i] reduction(&:band) reduction(|:bor) reduction(^:bxor) \
    reduction(&&:all_pos) reduction(||:any_big)
    for (i = 0; i < N; i++) {
        band &= b[i];
        bor |= b[i];
        bxor ^= b[i];
        all_pos = all_pos && (b[i] > 0);
        any_big = any_big || (b[i] > 400);
    }

    /* product over a small range (the first four blocks of tb; other nodes do nothing) */
#pragma xmp loop on tb[i] reduction(*:prod)
    for (i = 0; i < 12; i++)
        prod *= b[i] % 3 + 1;

    /* loops with a step: +3 upwards, -2 downwards */
#pragma xmp loop on tb[i] reduction(+:step_sum)
    for (i = 0; i < N; i += 3)
        step_sum += b[i];
#pragma xmp loop on tb[i] reduction(+:wsum)
    for (i = N - 1; i >= 0; i -= 2)
        wsum += (long)i * b[i];

    /* partial counts from two loops without clauses ... */
#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++)
        if (a[i] > 1.0) cnt++;
#pragma xmp loop on tb[i]
    for (i = 0; i < N; i++)
        hist[(b[i] / 7) % 5]++;
    /* ... combined by one reduction directive (hist element by element) */
#pragma xmp reduction (+:cnt, hist)

    /* b[0..2] live on p[0] only: it computes scale, then sends it to everybody */
#pragma xmp task on p[0]
    {
        scale = b[0] + b[1] + b[2];
    }
#pragma xmp bcast (scale) from p[0]
#pragma xmp loop on tb[i] reduction(+:big)
    for (i = 0; i < N; i++)
        if (3 * b[i] > scale) big++;

    /* not needed for correctness: shows where all nodes meet before printing */
#pragma xmp barrier
#pragma xmp task on p[0]
    {
        printf("sum = %.12e  max = %.12e  min = %.12e\n", s, amax, amin);
        printf("sub-range sum = %.12e\n", sub);
        printf("and = %d  or = %d  xor = %d  all_pos = %d  any_big = %d\n",
               band, bor, bxor, all_pos, any_big);
        printf("prod = %d  step_sum = %d  wsum = %ld\n", prod, step_sum, wsum);
        printf("cnt = %d  hist = %d %d %d %d %d\n",
               cnt, hist[0], hist[1], hist[2], hist[3], hist[4]);
        printf("scale = %d  big = %d\n", scale, big);
    }
    return 0;
}
