/*
 * sum_serial.c - reductions of many kinds over two arrays (serial original).
 *
 * a[] holds doubles, b[] holds integers, both computed from the global index.
 * The program prints sums, extrema, a product, bitwise and logical combinations,
 * a histogram, and results of loops with a step, a downward loop and a sub-range.
 */
#include <stdio.h>
#include <math.h>

#define N 50

double a[N];
int b[N];
int hist[5];   /* histogram of (b[i] / 7) % 5 */

int main(void)
{
    int i;
    double s = 0.0, amax = -1.0e30, amin = 1.0e30, sub = 0.0;
    int prod = 1, band = ~0, bor = 0, bxor = 0, all_pos = 1, any_big = 0;
    int cnt = 0, step_sum = 0, scale = 0, big = 0;
    long wsum = 0;

    for (i = 0; i < N; i++)
        a[i] = 0.5 + sin(0.37 * i) + 0.25 * cos(1.3 * i);
    for (i = 0; i < N; i++)
        b[i] = 256 + (i * 37 + 11) % 101;

    /* downward loop that rescales a */
    for (i = N - 1; i >= 0; i--)
        a[i] = a[i] * (1.0 + 0.01 * i);

    /* sum, maximum and minimum in one loop */
    for (i = 0; i < N; i++) {
        s += a[i];
        if (a[i] > amax) amax = a[i];
        if (a[i] < amin) amin = a[i];
    }

    /* sum over a sub-range */
    for (i = 5; i < N - 2; i++)
        sub += a[i];

    /* bitwise and logical combinations */
    for (i = 0; i < N; i++) {
        band &= b[i];
        bor |= b[i];
        bxor ^= b[i];
        all_pos = all_pos && (b[i] > 0);
        any_big = any_big || (b[i] > 400);
    }

    /* product over a small range (stays far below INT_MAX) */
    for (i = 0; i < 12; i++)
        prod *= b[i] % 3 + 1;

    /* every third element, and every second one going down */
    for (i = 0; i < N; i += 3)
        step_sum += b[i];
    for (i = N - 1; i >= 0; i -= 2)
        wsum += (long)i * b[i];

    /* counts accumulated in two loops, combined afterwards */
    for (i = 0; i < N; i++)
        if (a[i] > 1.0) cnt++;
    for (i = 0; i < N; i++)
        hist[(b[i] / 7) % 5]++;

    /* a value computed from the first three elements, then used everywhere */
    {
        scale = b[0] + b[1] + b[2];
    }
    for (i = 0; i < N; i++)
        if (3 * b[i] > scale) big++;

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
