/* One compute construct (and one reduction) reached with different arrays, sizes and
 * stack depths: the runtime reads a construct's variables once per call site and
 * contents (runtime/acc_compute.py _compute_clause) and keeps reduction views per address
 * (collectives.view); every call here must still see its own arrays and variables.
 * 'present(x[0:n])' with x pointing into the middle of a present array (b + 8) finds it
 * present, as OpenACC says (acc_data.py part_of_present). */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif

#define N 64
#define M 40

float a[N], b[M];

static float scale(float *x, int n, float f)
{
    float s = 0.0f;
    int i;
#pragma acc parallel loop present(x[0:n]) reduction(+:s)
    for (i = 0; i < n; i++) {
        x[i] = x[i] * f + 1.0f;
        s += x[i];
    }
    return s;
}

static float deeper(float *x, int n, float f, int depth)
{
    volatile char pad[64];   /* moves the next frame's locals */
    pad[0] = (char)depth;
    return depth > 0 ? deeper(x, n, f, depth - 1) + pad[0] - depth : scale(x, n, f);
}

int main(void)
{
    int i, it;
    double total = 0.0;

    for (i = 0; i < N; i++)
        a[i] = (float)(i % 7);
    for (i = 0; i < M; i++)
        b[i] = (float)(i % 5) - 2.0f;
#pragma acc data copy(a, b)
    {
        for (it = 0; it < 6; it++) {
            total += scale(a, N, 0.5f);
            total += scale(b, M, -0.25f);
            total += deeper(it % 2 ? a : b, it % 2 ? N : M, 0.75f, it % 3);
            total += scale(b + 8, M - 8, 1.0f);
        }
    }
    if (xmpc_node_num() == 0) {   /* every node computes the same (no distributed data) */
        printf("total = %.3f\n", total);
        printf("a[1] = %.4f a[N-1] = %.4f b[0] = %.4f b[M-1] = %.4f\n", a[1], a[N - 1], b[0], b[M - 1]);
    }
    return 0;
}
