/* Distributed arrays in private and firstprivate lists (XcalableACC.md §2 with §1's
 * meaning of a distributed array in a clause: its node's local block with shadows).
 * Each thread works on its own copy of the block, a firstprivate one's copied from the
 * device copy (present, or copied in by the construct); the body's subscripts stay global
 * indices.  Every iteration here writes the elements it reads back before another one
 * could, so the serial build (iterations sharing the arrays) prints the same; the
 * threads of a GPU would race on a shared copy (w[i] doubled while its neighbours read
 * it).  The copies are of block, cyclic and 2-D arrays, with and without a data region
 * (private: created, firstprivate: copied in), on a construct, on an inner acc loop and
 * with default(none); a subarray names the array. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 24
#define M 6

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp template tc[N]
#pragma xmp distribute tc[cyclic] onto p
#pragma xmp template t2[N][M]
#pragma xmp distribute t2[block][*] onto p
double w[N], b[N], e[N], b2[N], c[N], cb[N];
#pragma xmp align w[i] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp align e[i] with t[i]
#pragma xmp align b2[i] with t[i]
#pragma xmp shadow w[1]
#pragma xmp align c[i] with tc[i]
#pragma xmp align cb[i] with tc[i]
double g[N][M], h[N][M];
#pragma xmp align g[i][*] with t2[i][*]
#pragma xmp align h[i][*] with t2[i][*]

int main(void)
{
    int i, j;
    double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { w[i] = i * 0.5 + 1; b[i] = 0; e[i] = -1; b2[i] = 0; }
#pragma xmp loop on tc[i]
    for (i = 0; i < N; i++) { c[i] = 3 * i; cb[i] = 0; }
#pragma xmp loop on t2[i][*]
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) { g[i][j] = i + 0.25 * j; h[i][j] = 0; }

#pragma acc data copy(w, b)
    {
#pragma xmp reflect (w) acc
        /* firstprivate, present: doubled, read with both neighbours (shadows), restored */
#pragma xmp loop on t[i]
#pragma acc parallel loop firstprivate(w)
        for (i = 1; i < N - 1; i++) {
            w[i] = 2 * w[i];
            b[i] = w[i - 1] + w[i] + w[i + 1];
            w[i] = w[i] / 2;
        }
        /* private on an inner acc loop, default(none): e only in this thread's copy */
#pragma acc parallel default(none) present(w, b)
        {
#pragma xmp loop on t[i]
#pragma acc loop private(e)
            for (i = 0; i < N; i++) {
                e[i] = w[i] * w[i];
                b[i] = b[i] + e[i];
            }
        }
    }
    /* firstprivate of a subarray (the array), not present: copied in; cyclic */
#pragma xmp loop on tc[i]
#pragma acc parallel loop firstprivate(c[0:N]) copyout(cb)
    for (i = 0; i < N; i++) {
        c[i] = c[i] + 1;
        cb[i] = c[i] * 2;
        c[i] = c[i] - 1;
    }
    /* 2-D: private rows of g, firstprivate h with collapse(2) */
#pragma xmp loop on t2[i][*]
#pragma acc parallel loop collapse(2) private(g) firstprivate(h) copyout(b2)
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++) {
            g[i][j] = (i + 1) * (j + 1);
            h[i][j] = g[i][j] + 0.5;
            if (j == M - 1) b2[i] = g[i][j] + h[i][j];
        }
#pragma xmp loop on t[i] reduction(+: s1, s2, s4)
    for (i = 0; i < N; i++) { s1 += b[i]; s2 += w[i]; s4 += b2[i]; }
#pragma xmp loop on tc[i] reduction(+: s3)
    for (i = 0; i < N; i++) s3 += cb[i] + c[i];
#pragma xmp task on p[0]
    printf("%.3f %.3f %.3f %.3f\n", s1, s2, s3, s4);
    return 0;
}
