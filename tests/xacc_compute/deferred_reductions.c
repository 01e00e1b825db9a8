/* Reductions of compute constructs that reach the host later (passes/acc_reduction_wait.py):
 * the host waits before the first statement that may read the variable, and runs an XMP
 * reduction of it after the wait, in order.  In a time loop whose body begins by storing
 * into the variable, the wait moves past the back edge, after the loop.  Each case below
 * must print what the serial build prints. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif

#define N 96

double u[N], v[N], w[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align u[i] with t[i]
#pragma xmp align v[i] with t[i]
#pragma xmp align w[i] with t[i]

int main(void)
{
    int i, it;
    double s = 0.0, m = 0.0, r = 0.0, q = 0.0, *ps = &r;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) {
        u[i] = (double)(i % 11) - 5.0;
        v[i] = 0.5 * (double)i;
        w[i] = 0.0;
    }
#pragma acc data copy(u, v, w)
    {
        for (it = 0; it < 40; it++) {
            s = 0.0;
            m = -1e30;
            /* a sum, its XMP reduction, an independent construct, then the host reads s */
#pragma xmp loop on t[i]
#pragma acc parallel loop reduction(+:s)
            for (i = 0; i < N; i++)
                s += u[i] * v[i];
#pragma xmp reduction (+:s)
#pragma xmp loop on t[i]
#pragma acc parallel loop
            for (i = 0; i < N; i++)
                w[i] = w[i] + u[i];
            /* a construct that uses s (firstprivate): it waits first */
#pragma xmp loop on t[i]
#pragma acc parallel loop
            for (i = 0; i < N; i++)
                u[i] = u[i] * 0.5 + s * 1e-6;
            /* a max read right after by the host */
#pragma xmp loop on t[i]
#pragma acc parallel loop reduction(max:m)
            for (i = 0; i < N; i++)
                m = u[i] > m ? u[i] : m;
#pragma xmp reduction (max:m)
            if (m < 1e-3)
                break;
            /* a variable whose address is taken: never deferred */
            r = 0.0;
#pragma xmp loop on t[i]
#pragma acc parallel loop reduction(+:r)
            for (i = 0; i < N; i++)
                r += w[i];
            *ps = *ps * 2.0;
#pragma xmp reduction (+:r)
        }
    }
    if (xmpc_node_num() == 0)
        printf("it = %d s = %.6e m = %.6e r = %.6e\n", it, s, m, r);
#pragma acc data copy(u, v)
    {
        /* Himeno's loop: the body stores into s and m first, so the host waits after the
         * loop, for the last iteration's values (the XMP reductions of the others are
         * never read); q's loop has no iterations on the nodes after the first at 2 or more */
        for (it = 0; it < 30; it++) {
            s = 0.0;
            m = -1e30;
            q = 0.0;
#pragma xmp loop on t[i]
#pragma acc parallel loop reduction(+:q)
            for (i = 0; i < 8; i++)
                q += v[i];
#pragma xmp reduction (+:q)
#pragma xmp loop on t[i]
#pragma acc parallel loop reduction(+:s) reduction(max:m)
            for (i = 0; i < N; i++) {
                s += u[i] * v[i];
                m = v[i] > m ? v[i] : m;
            }
#pragma xmp reduction (+:s)
#pragma xmp reduction (max:m)
#pragma xmp loop on t[i]
#pragma acc parallel loop
            for (i = 0; i < N; i++)
                v[i] = v[i] * 0.75 + 0.25 * u[i];
        }
        if (xmpc_node_num() == 0)
            printf("s = %.6e m = %.6e q = %.6e\n", s, m, q);
        /* the body reads s before it stores into it: the host waits in every iteration */
        it = 0;
        while (it < 10) {
            m = m + s;
            s = 0.0;
#pragma xmp loop on t[i]
#pragma acc parallel loop reduction(+:s)
            for (i = 0; i < N; i++)
                s += v[i];
#pragma xmp reduction (+:s)
            it++;
        }
        if (xmpc_node_num() == 0)
            printf("s = %.6e m = %.6e\n", s, m);
    }
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++)
        s += u[i] + w[i];
    if (xmpc_node_num() == 0)
        printf("checksum = %.6e\n", s);
    return 0;
}
