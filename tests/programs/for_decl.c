/* Loop indices declared in the for statement (C99), in a 1-D and a nested 2-D loop. */
#include <stdio.h>

#define N 20
#define M 7

double a[N];
double m[N][M];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align m[i][*] with t[i]

int main(void)
{
    double s = 0.0, sm = 0.0;

#pragma xmp loop on t[i] reduction(+:s)
    for (int i = 0; i < N; i++) {
        a[i] = 1.5 * i;
        s += a[i];
    }
#pragma xmp loop on t[i] reduction(+:sm)
    for (int i = N - 1; i >= 0; i--)
        for (int j = 0; j < M; j++) {
            m[i][j] = a[i] + j;
            sm += m[i][j];
        }

#pragma xmp task on p[0]
    printf("s = %.2f  sm = %.2f\n", s, sm);
    return 0;
}
