/* Distributed arrays whose extent is a file-scope 'const int' or 'int' initialised with
 * a constant.  Plain C rejects 'double a[N];' at file scope ("variably modified"); Omni
 * accepts it because the declaration is rewritten, and so does xmpacc. */
#include <stdio.h>

const int N = 1000;
int M = 30;
double a[N];
double b[M];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp template u[M]
#pragma xmp distribute t[block] onto p
#pragma xmp distribute u[cyclic] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with u[i]

int main(void)
{
    int i;
    double s = 0.0, sb = 0.0;

#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++) {
        a[i] = 0.5 * i;
        s += a[i];
    }
#pragma xmp loop on u[i] reduction(+:sb)
    for (i = 0; i < M; i++) {
        b[i] = i * i;
        sb += b[i];
    }
#pragma xmp task on p[0]
    printf("N = %d  M = %d  sum a = %.1f  sum b = %.1f\n", N, M, s, sb);
    return 0;
}
