/* C in kernels: a bool reduced with || (stdbool.h's typedef), continue and break in the
 * loop body, a switch in an acc routine, a size_t loop index and int64_t elements. */
#include <stdio.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#define N 100
int mask[N];
double a[N], b[N];
int64_t big[N];

#pragma acc routine seq
static inline int classify(double x)
{
    switch ((int)x % 3) {
    case 0: return 1;
    case 1: return 2;
    default: break;
    }
    return 3;
}

int main(void)
{
    size_t i;
    int k, cnt = 0;
    bool any = false;
    for (k = 0; k < N; k++) { mask[k] = k % 4 != 0; a[k] = k; }
#pragma acc parallel loop copyin(mask, a) copyout(b, big) reduction(+: cnt) reduction(||: any)
    for (i = 0; i < N; i++) {
        b[i] = 0;
        big[i] = (int64_t)i << 33;
        if (!mask[i]) continue;
        for (k = 0; k < 10; k++) {
            if (k * a[i] > 200) break;
            b[i] += classify(a[i] + k);
        }
        cnt += b[i] > 10;
        any = any || b[i] > 25;
    }
    long long s = 0;
    for (k = 0; k < N; k++) s += (long long)b[k] + (big[k] >> 33);
    printf("%d %d %lld\n", cnt, (int)any, s);
    return 0;
}
