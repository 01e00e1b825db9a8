/* acc wait made on the device in a function that is not static (acc_wait_functions.py):
 * its statement calls in this file go to the copy that leaves the wait to its callers; the
 * function as written, called through a pointer here, waits on the host. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 64
double x[N], y[N];
void sweep(int k, double *scale);
static void run(int iters);
int main(void)
{
    int i;
    double sc = 0.5;
    for (i = 0; i < N; i++) { x[i] = i; y[i] = 0; }
#pragma acc data copy(x, y)
    {
        run(4);
        void (*f)(int, double *) = sweep;
        f(9, &sc);
    }
    if (xmpc_node_num() == 0) printf("%.9e %.9e\n", x[3], y[N - 1]);
    return 0;
}
void sweep(int k, double *scale)
{
    int i;
    double s = *scale;
#pragma acc parallel loop async(1)
    for (i = 0; i < N; i++) y[i] = x[i] * s + k;
#pragma acc parallel loop async(1)
    for (i = 0; i < N; i++) x[i] = 0.5 * (x[i] + y[i]);
#pragma acc wait
}
static void run(int iters)
{
    int k;
    double sc = 0.25;
    for (k = 0; k < iters; k++)
        sweep(k, &sc);
}
