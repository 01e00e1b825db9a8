/* Loop reductions in a time loop, which the C side replays after the first time
 * (runtime/replay.py): + * max min & | ^ of int, long long, float and double over all
 * nodes, over the nodes of one row of a 2-D node array (a loop on one template dimension:
 * the set is a split communicator), inside a task (another executing set: another
 * communicator), sections of arrays (+ over a row of a 2-D array, ^ over part of one:
 * the nodes but the first start from the identity), and && || (which stay general).  Built
 * without xmpacc it is the serial program. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#define N 16
#define STEPS 5

double a[N][N], c[N];
#pragma xmp nodes p[*][2]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][block] onto p
#pragma xmp align a[i][j] with t[i][j]
#pragma xmp align c[j] with t[*][j]

int main(void)
{
    int i, j, k, land = 1, lor = 0, bits_and = -1, bits_or = 0, bits_xor = 0;
    long long lsum = 0, lprod = 1;
    float fmx = -1e30f, fmn = 1e30f;
    double dsum = 0.0, total = 0.0, in_task = 0.0;
    long long hist[2][4] = {{7, 7, 7, 7}, {0, 0, 0, 0}};
    int flip[2][3] = {{5, 0, 0}, {9, 9, 9}};
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            a[i][j] = 1.0 + ((i * 5 + j * 3) % 11) * 0.125;
#pragma xmp loop (j) on t[*][j]
    for (j = 0; j < N; j++)
        c[j] = 0.5 + (j % 5) * 0.25;
    for (k = 0; k < STEPS; k++) {
        lsum = 0;
        lprod = 1;
        fmx = -1e30f;
        fmn = 1e30f;
        dsum = 0.0;
        bits_and = -1;
        bits_or = 0;
        bits_xor = 0;
        land = 1;
        lor = 0;
        hist[1][0] = hist[1][1] = hist[1][2] = hist[1][3] = k;
        flip[0][1] = flip[0][2] = k;
#pragma xmp loop (i, j) on t[i][j] reduction(+: lsum, dsum) reduction(*: lprod) reduction(max: fmx) \
    reduction(min: fmn) reduction(&: bits_and) reduction(|: bits_or) reduction(^: bits_xor) \
    reduction(&&: land) reduction(||: lor) reduction(+: hist[1][:]) reduction(^: flip[0][1:2])
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++) {
                lsum += (long long)(a[i][j] * 8) + k;
                dsum += a[i][j] * (k + 1);
                if (i == j && i < 6)
                    lprod *= 2 + (i + k) % 3;
                if ((float)a[i][j] + k > fmx)
                    fmx = (float)a[i][j] + k;
                if ((float)a[i][j] - k < fmn)
                    fmn = (float)a[i][j] - k;
                bits_and &= ~(1 << ((i + j + k) % 7)) | (i == 0 ? 0 : -1);
                bits_or |= 1 << ((i * j + k) % 13);
                bits_xor ^= (i * 31 + j * 17 + k) & 255;
                land = land && a[i][j] > 0.5;
                lor = lor || a[i][j] > 2.2 + k;
                hist[1][(i * 3 + j + k) % 4] += i + j;
                flip[0][1 + (i + j) % 2] ^= (i * 7 + j * 5 + k) & 63;
            }
        /* over the nodes of one row of p: the loop runs on one template dimension */
        total = 0.0;
#pragma xmp loop (j) on t[*][j] reduction(+: total)
        for (j = 0; j < N; j++)
            total += c[j] * (j + k);
#pragma xmp task on p[0][:]
        {
            double s = 0.0;
#pragma xmp loop (j) on t[*][j] reduction(max: s)
            for (j = 0; j < N; j++)
                if (c[j] + k > s)
                    s = c[j] + k;
            in_task = s;
        }
#ifdef _XCALABLEMP
        if (xmpc_node_num() == 0)
#endif
        printf("%d: %lld %lld %.6f %.6f %.9e %d %d %d %d %d %.9e %.9e | %lld %lld %lld %lld %d %d %d %d\n", k,
               lsum, lprod, fmx, fmn, dsum, bits_and, bits_or, bits_xor, land, lor, total, in_task, hist[1][0],
               hist[1][1], hist[1][2], hist[1][3], flip[0][0], flip[0][1], flip[0][2], hist[0][0]);
    }
    return 0;
}
