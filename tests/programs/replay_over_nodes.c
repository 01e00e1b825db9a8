/* Himeno's time loop as Omni's users write it, in small: a sweep whose gosa reduction is
 * deferred (async, then acc wait), a copy kernel, and the XMP reduction of gosa over the
 * nodes after the wait.  On two GPUs or more the reduction runs on the device behind the
 * deferred result, from its second call in C (include/xmpacc_acc_collectives.h,
 * _xmpacc_reduce_deferred).  Built without xmpacc it is the serial program. */
#include <stdio.h>
#define N 4000
#define ITER 10

float p[N], q[N];
#pragma xmp nodes n(*)
#pragma xmp template t(0:N-1)
#pragma xmp distribute t(block) onto n
#pragma xmp align p[i] with t(i)
#pragma xmp align q[i] with t(i)
#pragma xmp shadow p[1]

int main(void)
{
    int i, it;
    float gosa = 0.0f;
#pragma xmp loop (i) on t(i)
    for (i = 0; i < N; i++) {
        p[i] = (float)(i % 17) / 17.0f;
        q[i] = 0.0f;
    }
#pragma acc data copy(p) copyin(q)
    {
        for (it = 0; it < ITER; it++) {
            gosa = 0.0f;
#pragma xmp reflect (p) acc
#pragma xmp loop (i) on t(i)
#pragma acc parallel loop reduction(+:gosa) async
            for (i = 1; i < N - 1; i++) {
                float s = 0.5f * (p[i - 1] + p[i + 1]) - p[i];
                gosa += s * s;
                q[i] = p[i] + 0.8f * s;
            }
#pragma xmp loop (i) on t(i)
#pragma acc parallel loop async
            for (i = 1; i < N - 1; i++)
                p[i] = q[i];
#pragma acc wait
#pragma xmp reduction (+:gosa)
        }
    }
#pragma xmp task on n(1)
    printf("gosa %.4e\n", gosa);
    return 0;
}
