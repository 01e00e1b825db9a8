/* Reductions with location variables on 'loop ... acc' (global-view §5): firstmax,
 * firstmin, lastmax and lastmin on a block template, a cyclic(3) loop going down and a
 * 2-D nest (a 2-D thread space); int and double location variables; an int reduction
 * variable, replicated; a location reduction beside a '+' one; a start value no iteration beats;
 * two rows of a 2-D array as the location variables of two reductions.
 * value(i) takes each of 0..6 every 7 indices, so the extremes tie inside one node and
 * across nodes for every node count.  Every result equals the serial one. */
#include <stdio.h>

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
    int i, j;
    double fmax = -1, fmin = 99, lmax = -1, lmin = 99, xfmax = 0, xlmin = 0, s = 0;
    int ifmax = -1, ifmin = -1, ilmax = -1, ilmin = -1;
    double cmax = -1, gmax = -1, gmin = 99, gw = 0, big = 100, xbig = -0.5;
    int icmax = -1, gi = -1, gj = -1, hi = -1, hj = -1, imax = -1, iat = -1, ibig = -7;
    int where[2][2] = {{-1, -1}, {-1, -1}};
    double smax = -1, smin = 99;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = (i * 17) % 7;
#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++) c[i] = (i * 5) % 7;
#pragma xmp loop (i, j) on t2[i][j]
    for (i = 0; i < M; i++)
        for (j = 0; j < K; j++) g[i][j] = (i * K + j) % 4;

#pragma xmp acc replicate (a, c, g, imax, iat)
    {
#pragma xmp acc replicate_sync in (a, c, g)
#pragma xmp loop on t[i] reduction(firstmax: fmax /ifmax, xfmax/) reduction(firstmin: fmin /ifmin/) \
                         reduction(lastmax: lmax /ilmax/) reduction(lastmin: lmin /ilmin, xlmin/) \
                         reduction(+: s) acc
        for (i = 0; i < N; i++) {
            if (a[i] > fmax) { fmax = a[i]; ifmax = i; xfmax = 0.5 * i + a[i]; }
            if (a[i] < fmin) { fmin = a[i]; ifmin = i; }
            if (a[i] >= lmax) { lmax = a[i]; ilmax = i; }
            if (a[i] <= lmin) { lmin = a[i]; ilmin = i; xlmin = 0.25 * i; }
            s += a[i];
        }
        /* downward over cyclic(3): "first" follows the loop's order */
#pragma xmp loop on tc[i] reduction(firstmax: cmax /icmax/) acc
        for (i = N - 1; i >= 0; i--) {
            if (c[i] <= cmax) continue;
            cmax = c[i];
            icmax = i;
        }
        /* a 2-D thread space: the key is (i, j) */
#pragma xmp loop (i, j) on t2[i][j] reduction(lastmax: gmax /gi, gj/) reduction(firstmin: gmin /hi, hj, gw/) acc
        for (i = 0; i < M; i++)
            for (j = 0; j < K; j++) {
                if (g[i][j] >= gmax) { gmax = g[i][j]; gi = i; gj = j; }
                if (g[i][j] < gmin) { gmin = g[i][j]; hi = i; hj = j; gw = g[i][j] + 0.5 * j; }
            }
        /* an int reduction variable; a start value that no iteration beats keeps its locations;
         * imax and iat are replicated: the reduction is the host's, as without locations (§7.4) */
        /* a row of a 2-D array as location variables: the kernel tracks its elements */
#pragma xmp loop on t[i] reduction(lastmax: smax /where[1][:]/) reduction(firstmin: smin /where[0][:]/) acc
        for (i = 0; i < N; i++) {
            if (a[i] + i % 2 >= smax) { smax = a[i] + i % 2; where[1][0] = i; where[1][1] = i / 2; }
            if (a[i] - i % 3 < smin) { smin = a[i] - i % 3; where[0][0] = i; where[0][1] = -i; }
        }
#pragma xmp loop on t[i] reduction(firstmax: imax /iat/) reduction(lastmax: big /ibig, xbig/) acc
        for (i = 0; i < N; i++) {
            if ((int) a[i] * 3 > imax) { imax = (int) a[i] * 3; iat = i; }
            if (a[i] >= big) { big = a[i]; ibig = i; xbig = i; }
        }
    }
#pragma xmp task on p[0]
    {
        printf("firstmax %g at %d (%g)  firstmin %g at %d\n", fmax, ifmax, xfmax, fmin, ifmin);
        printf("lastmax %g at %d  lastmin %g at %d (%g)  sum %g\n", lmax, ilmax, lmin, ilmin, xlmin, s);
        printf("cyclic downward firstmax %g at %d\n", cmax, icmax);
        printf("2-D lastmax %g at (%d, %d)  firstmin %g at (%d, %d) %g\n", gmax, gi, gj, gmin, hi, hj, gw);
        printf("int firstmax %d at %d  unbeaten %g at %d (%g)\n", imax, iat, big, ibig, xbig);
        printf("row lastmax %g at %d %d  row firstmin %g at %d %d\n", smax, where[1][0], where[1][1], smin,
               where[0][0], where[0][1]);
    }
    return 0;
}
