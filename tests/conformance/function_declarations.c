/* Declarations as Omni's programs write them (issue 30): a file-scope array aligned by an
 * align directive inside the functions that use it (its mapping is the file-scope
 * array's, everywhere), aligned pointer parameters in a template_fix program ('double *a',
 * 'double a[][M]', 'long b[]': their extents are those of the array passed), and memory
 * from xmp_malloc released with free(), directly, through another pointer, and after which
 * xmp_malloc gives the pointer a new block.  Serial meaning: this file built by cc with
 * ../programs/serial_xmp.h (pragmas ignored). */
#include <stdio.h>
#include <stdlib.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif

#define N 16
#define M 4

#pragma xmp nodes p[*]
#pragma xmp template t1[N]
#pragma xmp distribute t1[block] onto p
#pragma xmp template t[:]
#pragma xmp distribute t[block] onto p
#pragma xmp template g(:)
#pragma xmp distribute g(cyclic(2)) onto p

double f[N], h[N];
#pragma xmp shadow f[1]
double (*x)[M];
#pragma xmp align x[i][*] with t[i]
double *y;
#pragma xmp align y[i] with t[i]
#pragma xmp shadow y[1]
long *z;
#pragma xmp align z[i] with g(i+1)

static void init(void)
{
#pragma xmp align f[i] with t1[i]
#pragma xmp align h[i] with t1[i]
    int i;
#pragma xmp loop on t1[i]
    for (i = 0; i < N; i++) { f[i] = i * i; h[i] = 0; }
}

static double smooth(void)
{
#pragma xmp align f[i] with t1[i]
    int i;
    double s = 0;
#pragma xmp reflect (f)
#pragma xmp loop on t1[i] reduction(+:s)
    for (i = 1; i < N - 1; i++) {
        h[i] = f[i - 1] - 2 * f[i] + f[i + 1];
        s += h[i] * i;
    }
    return s;
}

static void fill(double a[][M], double *b, long c[], int n)
{
#pragma xmp align a[i][*] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp shadow b[1]
#pragma xmp align c[i] with g(i+1)
    int i, j;
#pragma xmp loop on t[i]
    for (i = 0; i < n; i++) {
        b[i] = 0.5 * i;
        for (j = 0; j < M; j++) a[i][j] = i + 0.25 * j;
    }
#pragma xmp loop on g(i)
    for (i = 1; i <= n; i++) c[i - 1] = 3 * i;
}

static double total(double (*a)[M], double *b, long *c, int n)
{
#pragma xmp align a[i][*] with t[i]
#pragma xmp align b[i] with t[i]
#pragma xmp shadow b[1]
#pragma xmp align c[i] with g(i+1)
    int i, j;
    double s = 0;
#pragma xmp reflect (b)
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 1; i < n - 1; i++) {
        s += b[i - 1] + b[i + 1];
        for (j = 0; j < M; j++) s += a[i][j] * (j + 1);
    }
#pragma xmp loop on g(i) reduction(+:s)
    for (i = 1; i <= n; i++) s += c[i - 1];
    return s;
}

int main(void)
{
    int n = 21, k;
    double *alias;
    init();
    double s = smooth();
#pragma xmp template_fix t[n]
#pragma xmp template_fix g(1:n)
    for (k = 0; k < 3; k++) {
        x = (double (*)[M]) xmp_malloc(xmp_desc_of(x), n, M);
        y = (double *) xmp_malloc(xmp_desc_of(y), n);
        z = (long *) xmp_malloc(xmp_desc_of(z), n);
        fill(x, y, z, n);
        s += total(x, y, z, n) * (k + 1);
        alias = y;
        free(x);                    /* Omni's xmp_malloc is malloc: free() releases it */
        free(alias);
        if (k < 2)
            free(z);
        else
            xmp_free(z);
    }
    if (xmpc_node_num() == 0)
        printf("s = %.2f\n", s);
    return 0;
}
