/* acc wait made on the device (passes/gpu/acc_reduction_wait.py): where only device work
 * follows an acc wait until a statement that could observe the queues, every stream waits
 * for them on the device and the host waits later.  Each case must print what the
 * host waiting where the program says prints:
 *   1. XcalableACC's Himeno iteration: an async sweep with a reduction, acc wait, the
 *      XMP reduction, an async copy, acc wait; the host waits after the loop;
 *   2. a queue's result read by another queue after acc wait(1), in a time loop: the
 *      second queue's kernel runs after the first's;
 *   3. an async update host, acc wait, the host reads the updated data (the run-time
 *      check keeps this wait on the host);
 *   4. acc wait, then a timer call and a host read: the host waits at the acc wait;
 *   5. a loop whose condition calls a function, and a body ending in acc wait;
 *   6. a time loop of calls to a static function that ends with acc wait (its callers owe
 *      the wait: the host waits after the loop), and one whose address is taken (wrapped:
 *      the host waits in it); 7. a kernels region on a queue in a while loop. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 96
#define ITERS 6

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double u[N], w[N];
/* both aligned by one directive */
#pragma xmp align [i] with t[i] :: u, w
#pragma xmp shadow u[1]
#pragma xmp acc replicate (u, w)
double x[N], y[N];

static int more(int k) { return k < 3; }

static void sweep_owed(void)
{
    int i;
#pragma acc parallel loop async(6)
    for (i = 0; i < N; i++) y[i] = x[i] + 1.0;
#pragma acc parallel loop async(6)
    for (i = 0; i < N; i++) x[i] = 0.5 * y[i];
#pragma acc wait
}

static void sweep_pointed(void)
{
    int i;
#pragma acc parallel loop async(7)
    for (i = 0; i < N; i++) x[i] = x[i] - 0.25;
#pragma acc wait
}

static double himeno_like(void)
{
    int i, n;
    double gosa = 0.0;
    for (n = 0; n < ITERS; n++) {
        gosa = 0.0;
#pragma xmp reflect (u) acc
#pragma xmp loop (i) on t[i]
#pragma acc parallel loop reduction(+:gosa) async
        for (i = 1; i < N - 1; i++) {
            double s = 0.25 * (u[i - 1] + u[i + 1]) + 0.5 * u[i];
            gosa += (s - u[i]) * (s - u[i]);
            w[i] = s;
        }
#pragma acc wait
#pragma xmp reduction (+:gosa)
#pragma xmp loop (i) on t[i]
#pragma acc parallel loop async
        for (i = 1; i < N - 1; i++)
            u[i] = w[i];
#pragma acc wait
    }
    return gosa;
}

int main(void)
{
    int i, k;
    double g, sum = 0.0, t0;
#pragma xmp loop (i) on t[i]
    for (i = 0; i < N; i++) { u[i] = (i * 37) % 11; w[i] = 0.0; }
#pragma xmp acc replicate_sync in (u, w)
    g = himeno_like();
#pragma xmp acc replicate_sync out (u)
#pragma xmp loop (i) on t[i] reduction(+:sum)
    for (i = 0; i < N; i++) sum += u[i];
    if (xmpc_node_num() == 0) printf("1: gosa %.9e sum %.9e\n", g, sum);

    for (i = 0; i < N; i++) { x[i] = i; y[i] = 0.0; }
#pragma acc data copy(x, y)
    {
        for (k = 0; k < ITERS; k++) {
#pragma acc parallel loop async(1)
            for (i = 0; i < N; i++) {
                double v = x[i];
                int r;
                for (r = 0; r < 200; r++) v = 0.5 * v + 0.5 * (x[i] + 1.0);   /* a longer kernel */
                y[i] = v;
            }
#pragma acc wait(1)
#pragma acc parallel loop async(2)
            for (i = 0; i < N; i++) x[i] = y[i] * 0.5 + 1.0;
#pragma acc wait(2)
        }
    }
    if (xmpc_node_num() == 0) printf("2: x %.9e %.9e y %.9e\n", x[1], x[N - 1], y[N / 2]);

#pragma acc data copyin(x) create(y)
    {
#pragma acc parallel loop async(3)
        for (i = 0; i < N; i++) y[i] = x[i] * 3.0;
#pragma acc update host(y) async(3)
#pragma acc wait
        sum = y[1] + y[N - 2];   /* (a store the host may pass: the update keeps the wait) */
        for (i = 0; i < N; i++) sum += y[i];
    }
    if (xmpc_node_num() == 0) printf("3: %.9e\n", sum);

#pragma acc data copy(x)
    {
#pragma acc parallel loop async(4)
        for (i = 0; i < N; i++) x[i] = x[i] + 2.0;
#pragma acc wait
        t0 = xmp_wtime();
#pragma acc update host(x)
    }
    if (xmpc_node_num() == 0) printf("4: %.9e %d\n", x[5], t0 >= 0.0);

#pragma acc data copy(x)
    {
        for (k = 0; more(k); k++) {
#pragma acc parallel loop async(5)
            for (i = 0; i < N; i++) x[i] = x[i] * 0.5;
#pragma acc wait(5)
        }
    }
    if (xmpc_node_num() == 0) printf("5: %.9e\n", x[7]);

    {
        void (*pointed)(void) = sweep_pointed;
#pragma acc data copy(x) create(y)
        {
            for (k = 0; k < ITERS; k++)
                sweep_owed();
            pointed();
        }
    }
    if (xmpc_node_num() == 0) printf("6: %.9e %.9e\n", x[3], x[N - 1]);

    k = 0;
#pragma acc data copy(x, y)
    while (k < ITERS) {
#pragma acc kernels async(8)
        {
            for (i = 0; i < N; i++) y[i] = x[i] + 0.125 * k;
            for (i = 0; i < N; i++) x[i] = 0.5 * (x[i] + y[i]);
        }
#pragma acc wait(8)
        k++;
    }
    if (xmpc_node_num() == 0) printf("7: %.9e %.9e\n", x[2], y[N - 3]);
    return 0;
}
