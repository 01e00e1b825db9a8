/* deviceptr on compute constructs (XcalableACC §2 with §1): a pointer that holds a device
 * address -- from host_data use_device -- is used by the kernel as it is, next to present
 * and distributed arrays.  Built by a plain C compiler, the same file is the serial
 * meaning (p is then the host array). */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
static int xmpc_node_num(void) { return 0; }
#endif
#define N 16

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N], b[N];
#pragma xmp align a[i] with t[i]

int main(void)
{
    int i;
    double sa = 0, sb = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = i;
    for (i = 0; i < N; i++) b[i] = 1.5 * i;
#pragma acc data copy(a, b)
    {
#pragma acc host_data use_device(b)
        {
            double *pb = b;
#pragma acc parallel loop deviceptr(pb)
            for (i = 0; i < N; i++) pb[i] = 2 * pb[i] + 1;
#pragma xmp loop on t[i]
#pragma acc parallel loop present(a) deviceptr(pb)
            for (i = 0; i < N; i++) a[i] = a[i] + pb[i];
        }
    }
#pragma xmp loop on t[i] reduction(+:sa)
    for (i = 0; i < N; i++) sa += (i + 1) * a[i];
    for (i = 0; i < N; i++) sb += (i + 1) * b[i];
    if (xmpc_node_num() == 0) printf("a %.1f b %.1f\n", sa, sb);
    return 0;
}
