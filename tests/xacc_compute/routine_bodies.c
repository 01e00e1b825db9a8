/* acc loop and acc atomic lines outside compute constructs (passes/acc_orphans.py):
 * in acc routine seq functions a loop runs in the calling thread (seq, with reduction and
 * collapse clauses that change nothing there) and an atomic statement is atomic on the
 * device; in host code an atomic is its statement.  A routine is also declared by a
 * prototype inside main, and an atomic and an inner acc loop (vector, with a private list
 * and a reduction of the kernel's and of an outside variable) stand in an XMP-ACC
 * 'loop ... acc' kernel (the two dialects mix).  Every printed number is independent of the iterations' order. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 32

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double a[N], r[N], m2[N];
#pragma xmp align a[i] with t[i]
#pragma xmp align r[i] with t[i]
#pragma xmp align m2[i] with t[i]
double w[4] = {1, 2, 3, 4};
int hist[4], cnt[4];

#pragma acc routine seq
double dot4(const double *x, double y)
{
    double s = 0;
    int k;
#pragma acc loop seq reduction(+: s)
    for (k = 0; k < 4; k++) s += x[k] * y;
    return s;
}

#pragma acc routine seq
int bump(int *h, int k)
{
    int old;
#pragma acc atomic capture
    old = h[k]++;
    return old;
}

#pragma acc routine seq
void bump_times(int *h, int k, int times)
{
    int j, m;
#pragma acc loop collapse(2)
    for (j = 0; j < times; j++)
        for (m = 0; m < 2; m++) {
#pragma acc atomic update
            h[k] += 1;
        }
}

int main(void)
{
    int i, j, n = 0, before;
    double sum = 0, y, total = 0, msum = 0;
#pragma acc routine seq
    double half(double);
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) { a[i] = i; r[i] = 0; }
#pragma acc data copy(hist) copyin(w)
    {
#pragma xmp loop on t[i]
#pragma acc parallel loop copy(a, r)
        for (i = 0; i < N; i++) {
            r[i] = half(dot4(w, a[i])) + (bump(hist, i % 4) >= 0);
            bump_times(hist, (i + 1) % 4, 3);
        }
    }
    /* XMP-ACC: cnt is replicated, and the kernel's updates of it are atomic */
#pragma xmp acc replicate (cnt, m2)
    {
#pragma xmp acc replicate_sync in (cnt)
#pragma xmp loop on t[i] acc
        for (i = 0; i < N; i++) {
            double part = 0, x;
#pragma acc atomic
            cnt[i % 3] += i;
#pragma acc loop vector reduction(+: part, total) private(x, y)
            for (j = 0; j < 8; j++) {
                x = j * 0.5;
                y = x * i;
                part += y;
                total += x;
            }
            m2[i] = part;
        }
#pragma xmp acc replicate_sync out (cnt, m2)
    }
#pragma xmp reduction (+: hist, cnt, total)
    for (i = 0; i < 4; i++) {
#pragma acc atomic update
        n += hist[i];
    }
#pragma acc atomic capture
    { before = n; n *= 2; }
#pragma xmp loop on t[i] reduction(+: sum)
    for (i = 0; i < N; i++) sum += r[i];
#pragma xmp loop on t[i] reduction(+: msum)
    for (i = 0; i < N; i++) msum += m2[i];
#pragma xmp task on p[0]
    printf("%d %d %d %d %d %d %.2f %d %d %d %.2f %.2f\n", hist[0], hist[1], hist[2], hist[3], before, n, sum,
           cnt[0], cnt[1], cnt[2], total, msum);
    return 0;
}

double half(double x)
{
    return x / 2;
}
