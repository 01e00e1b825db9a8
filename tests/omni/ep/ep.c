/* An embarrassingly parallel kernel shaped like NPB EP's XcalableMP port (our own program,
 * not a copy): 2^M pairs of uniform deviates from a 64-bit linear congruential generator,
 * accepted pairs turned into Gaussian deviates by the polar method, counted in NQ square
 * annuli (q[l] counts the pairs whose larger |deviate| lies in [l, l+1)) and summed (sx,
 * sy).  The pairs come in NB batches of NK, the batches in blocks over the nodes (a loop on
 * a template); each batch starts its stream by skipping the generator ahead to its first
 * number, so every batch draws the same numbers on any number of nodes and only the order
 * of the final sums changes.  Node 1 chooses the seed and broadcasts it, the sums and
 * counts meet in reduction directives, node 1 prints and verifies.  make serial builds the
 * same file with cc, directives ignored. */
#include <stdio.h>
#include <math.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include <time.h>
#endif

#ifndef M
#define M 20                     /* 2^M pairs */
#endif
#define MK 10
#define NK (1 << MK)             /* pairs per batch */
#define NB (1 << (M - MK))       /* batches */
#define NQ 10

/* x(n+1) = A x(n) + C mod 2^64 (Knuth's MMIX constants) */
#define A 6364136223846793005ULL
#define C 1442695040888963407ULL

#pragma xmp nodes p(*)
#pragma xmp template t(0:NB-1)
#pragma xmp distribute t(block) onto p

static double xs[2 * NK];

/* The state n steps after s: the step's affine map (a, c) raised to the n-th power by
 * squaring, applied to s. */
static unsigned long long skip(unsigned long long s, unsigned long long n)
{
    unsigned long long a = A, c = C, an = 1, cn = 0;
    while (n > 0) {
        if (n & 1) {
            an = an * a;
            cn = cn * a + c;
        }
        c = c * a + c;
        a = a * a;
        n >>= 1;
    }
    return an * s + cn;
}

/* n uniform deviates in [0, 1) from the stream that starts after s; the last state. */
static unsigned long long vranlc(int n, unsigned long long s, double *x)
{
    int i;
    for (i = 0; i < n; i++) {
        s = A * s + C;
        x[i] = (double)(s >> 11) * (1.0 / 9007199254740992.0);   /* 53 bits: exact */
    }
    return s;
}

static double now(void)
{
#ifdef _XCALABLEMP
    return xmp_wtime();
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

int main(void)
{
    double q[NQ], sx = 0.0, sy = 0.0, gc = 0.0, t0, t1;
    unsigned long long seed = 0;
    int b, i, l;
    /* NPB's way of checking a run: reference sums of this class (computed once by a
     * serial run), agreement to 1e-8 relative */
    const double sx_ref = -8.903691800424511e+02, sy_ref = -1.048331240148195e+03;

    for (l = 0; l < NQ; l++)
        q[l] = 0.0;
#pragma xmp task on p(1)
    {
        seed = 271828183ULL;     /* as if read from an input file on the first node */
    }
#pragma xmp bcast (seed)

    t0 = now();
#pragma xmp loop (b) on t(b)
    for (b = 0; b < NB; b++) {
        vranlc(2 * NK, skip(seed, (unsigned long long)b * 2 * NK), xs);
        for (i = 0; i < NK; i++) {
            double x1 = 2.0 * xs[2 * i] - 1.0, x2 = 2.0 * xs[2 * i + 1] - 1.0;
            double tt = x1 * x1 + x2 * x2;
            if (tt <= 1.0 && tt > 0.0) {
                double f = sqrt(-2.0 * log(tt) / tt);
                double g1 = x1 * f, g2 = x2 * f;
                l = (int)fmax(fabs(g1), fabs(g2));
                if (l < NQ)
                    q[l] += 1.0;
                sx += g1;
                sy += g2;
            }
        }
    }
#pragma xmp reduction (+:sx, sy)
#pragma xmp reduction (+:q)
    t1 = now();

    for (l = 0; l < NQ; l++)
        gc += q[l];
#pragma xmp task on p(1)
    {
        int ok = fabs((sx - sx_ref) / sx_ref) <= 1e-8 && fabs((sy - sy_ref) / sy_ref) <= 1e-8;
        printf(" EP Benchmark: 2^%d pairs in %d batches of %d\n", M, NB, NK);
        printf(" sx = %.15e\n sy = %.15e\n", sx, sy);
        printf(" Gaussian pairs = %.0f\n", gc);
        printf(" Counts:\n");
        for (l = 0; l < NQ; l++)
            printf("%3d %15.0f\n", l, q[l]);
        printf(" Verification = %s\n", ok ? "SUCCESSFUL" : "UNSUCCESSFUL");
        fprintf(stderr, " Time = %.3f s\n", t1 - t0);
    }
    return 0;
}
