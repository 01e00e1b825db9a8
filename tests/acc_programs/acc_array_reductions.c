/* Reductions of arrays and array sections on 'loop ... acc' (global-view §5: element-wise):
 * a histogram (+ on int) over a block template, double and float sum arrays, long, a
 * section h[2:5], max and min arrays (fmax, ?: and if forms), *, | and ^ on int arrays,
 * a 2-D array over a 2-D thread space and a cyclic(3) loop going down.  Start values are
 * not the identity, so each must count once over the nodes.  Every result equals the
 * serial one (the float sums are of halves: exact). */
#include <stdio.h>
#include <math.h>

#define N 40
#define M 6
#define K 9
double a[N], c[N];
double g[M][K];
#pragma xmp nodes p[*]
#pragma xmp nodes q[*][1]
#pragma xmp template t[N]
#pragma xmp template tc[N]
#pragma xmp template t2[M][K]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute tc[cyclic(3)] onto p
#pragma xmp distribute t2[block][block] onto q
#pragma xmp align a[i] with t[i]
#pragma xmp align c[i] with tc[i]
#pragma xmp align g[i][j] with t2[i][j]

int main(void)
{
    int i, j, k;
    int hist[7] = {0, 0, 0, 0, 0, 0, 100}, h[10] = {0}, h2[3][4] = {{0}}, hc[5] = {0};
    double ds[3] = {1.5, 0, 0}, mx[4] = {-1, -1, -1, 9}, mn[4] = {99, 99, 99, -3}, cm[2] = {0, 0};
    float fs[2] = {0.5f, 0};
    long ls[2] = {0, 7};
    int pr[3] = {1, 1, 2}, bits[2] = {0, 0}, flip[1] = {5}, imx[3] = {-100, -100, -100};

    for (k = 0; k < 10; k++) h[k] = k;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = (i * 17) % 7;
#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++) c[i] = (i * 5) % 7;
#pragma xmp loop (i, j) on t2[i][j]
    for (i = 0; i < M; i++)
        for (j = 0; j < K; j++) g[i][j] = (i * K + j) % 4;

#pragma xmp acc replicate (a, c, g)
    {
#pragma xmp acc replicate_sync in (a, c, g)
#pragma xmp loop on t[i] reduction(+: hist, ds, fs) reduction(+: h[2:5]) reduction(-: ls) acc
        for (i = 0; i < N; i++) {
            hist[(int) a[i]]++;
            ds[i % 3] += 0.5 * a[i];
            fs[i % 2] = fs[i % 2] + 0.5f;
            h[2 + i % 5] += 1;
            ls[i % 2] -= (long) a[i] * 1000000L;
        }
#pragma xmp loop on t[i] reduction(max: mx, imx) reduction(min: mn) acc
        for (i = 0; i < N; i++) {
            mx[i % 4] = fmax(mx[i % 4], a[i] + 0.25 * (i % 3));
            imx[i % 3] = imx[i % 3] > (int) a[i] * i ? imx[i % 3] : (int) a[i] * i;
            if (a[i] - i < mn[i % 4]) mn[i % 4] = a[i] - i;
        }
#pragma xmp loop on t[i] reduction(*: pr) reduction(|: bits) reduction(^: flip) acc
        for (i = 0; i < N; i++) {
            pr[i % 3] *= (i % 13 == 0) ? 3 : 1;
            bits[i % 2] |= 1 << (int) a[i];
            flip[0] ^= i;
        }
        /* a 2-D thread space, a 2-D reduction array */
#pragma xmp loop (i, j) on t2[i][j] reduction(+: h2) acc
        for (i = 0; i < M; i++)
            for (j = 0; j < K; j++)
                h2[(int) g[i][j] % 3][j % 4] += 1;
        /* downward over cyclic(3) */
#pragma xmp loop on tc[i] reduction(+: hc) reduction(max: cm) acc
        for (i = N - 1; i >= 0; i--) {
            hc[(int) c[i] % 5] = hc[(int) c[i] % 5] + 1;
            cm[i % 2] = c[i] * i > cm[i % 2] ? c[i] * i : cm[i % 2];
        }
    }
#pragma xmp task on p[0]
    {
        printf("hist");
        for (k = 0; k < 7; k++) printf(" %d", hist[k]);
        printf("\nsection");
        for (k = 0; k < 10; k++) printf(" %d", h[k]);
        printf("\nsums %g %g %g  float %g %g  long %ld %ld\n", ds[0], ds[1], ds[2], fs[0], fs[1], ls[0], ls[1]);
        printf("max %g %g %g %g  int max %d %d %d  min %g %g %g %g\n", mx[0], mx[1], mx[2], mx[3],
               imx[0], imx[1], imx[2], mn[0], mn[1], mn[2], mn[3]);
        printf("prod %d %d %d  or %d %d  xor %d\n", pr[0], pr[1], pr[2], bits[0], bits[1], flip[0]);
        printf("2-D");
        for (k = 0; k < 12; k++) printf(" %d", h2[k / 4][k % 4]);
        printf("\ncyclic");
        for (k = 0; k < 5; k++) printf(" %d", hc[k]);
        printf("  max %g %g\n", cm[0], cm[1]);
    }
    return 0;
}
