/* gmove statements of every form in a time loop, so that from the second step they run
 * in C (runtime/replay_gmove.py): block -> cyclic (any offsets), a 2-D block of rows ->
 * block of columns (pieces at a stride), a shift within one array (every source element
 * read before a message lands), a distributed array into a local one on every node and
 * back.  Each step changes the data; built without xmpacc it is the serial program. */
#include <stdio.h>
#define N 30
#define M 8
#define STEPS 4

double a[N], b[N], c[N][M], d[N][M], l[N];
#pragma xmp nodes p(*)
#pragma xmp template t(0:N-1)
#pragma xmp template tc(0:N-1)
#pragma xmp template t2(0:M-1, 0:N-1)
#pragma xmp template t3(0:M-1, 0:N-1)
#pragma xmp distribute t(block) onto p
#pragma xmp distribute tc(cyclic) onto p
#pragma xmp distribute t2(*, block) onto p
#pragma xmp distribute t3(block, *) onto p
#pragma xmp align a[i] with t(i)
#pragma xmp align b[i] with tc(i)
#pragma xmp align c[i][j] with t2(j, i)
#pragma xmp align d[i][j] with t3(j, i)

int main(void)
{
    int i, j, k;
    double s = 0.0;
    for (k = 0; k < STEPS; k++) {
#pragma xmp loop (i) on t(i)
        for (i = 0; i < N; i++)
            a[i] = i * 0.5 + k;
#pragma xmp loop (i) on t2(*, i)
        for (i = 0; i < N; i++)
            for (j = 0; j < M; j++)
                c[i][j] = i * 10 + j + k;
#ifdef _XCALABLEMP
#pragma xmp gmove
        b[0:N] = a[0:N];
#pragma xmp gmove
        d[0:N][0:M] = c[0:N][0:M];
#pragma xmp gmove
        a[1:N-1] = a[0:N-1];
#pragma xmp gmove
        l[0:N] = b[0:N];
        for (i = 0; i < N; i++)
            l[i] = l[i] * 2 + 1;
#pragma xmp gmove
        a[0:N] = l[0:N];
#else
        for (i = 0; i < N; i++)
            b[i] = a[i];
        for (i = 0; i < N; i++)
            for (j = 0; j < M; j++)
                d[i][j] = c[i][j];
        for (i = N - 1; i > 0; i--)
            a[i] = a[i - 1];
        for (i = 0; i < N; i++)
            l[i] = b[i] * 2 + 1;
        for (i = 0; i < N; i++)
            a[i] = l[i];
#endif
#pragma xmp loop (i) on t(i) reduction(+:s)
        for (i = 0; i < N; i++)
            s += a[i] * (i % 3 + 1);
#pragma xmp loop (i) on tc(i) reduction(+:s)
        for (i = 0; i < N; i++)
            s += b[i] * (i % 5 + 1);
#pragma xmp loop (j) on t3(j, *) reduction(+:s)
        for (j = 0; j < M; j++)
            for (i = 0; i < N; i++)
                s += d[i][j] * (j + 1) * 0.01;
    }
#pragma xmp task on p(1)
    printf("s %.6f\n", s);
    return 0;
}
