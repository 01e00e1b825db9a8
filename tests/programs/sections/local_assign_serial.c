/* The serial meaning of local_assign.c: every array assignment as the loop it means
 * (row-major, right-hand side first into a temporary where they overlap). */
#include <stdio.h>
#include <math.h>
#include "../serial_xmp.h"

#define N 12

double a[N], b[N], c[4][6], d[6][4];
int k[N];

static void show(const char *name, const double *v, int n)
{
    int i;
    printf("%s:", name);
    for (i = 0; i < n; i++) printf(" %g", v[i]);
    printf("\n");
}

static void reset(void)
{
    int i, j;
    for (i = 0; i < N; i++) { a[i] = i; b[i] = 100 + i; k[i] = i * i; }
    for (i = 0; i < 4; i++) for (j = 0; j < 6; j++) c[i][j] = 10 * i + j;
    for (i = 0; i < 6; i++) for (j = 0; j < 4; j++) d[i][j] = -(10 * i + j);
}

int main(void)
{
    int n = 4, m = 3, s = 2, i, j;
    double x = 0.5, *p = b + 2, t[N];

    reset();
    for (i = 0; i < 5; i++) a[i] = b[5 + i];
    for (i = 0; i < 3; i++) a[6 + 2 * i] = 2.0 * b[i] + x;
    show("copy", a, N);

    reset();
    for (i = 0; i < N - 1; i++) t[i] = a[i];
    for (i = 0; i < N - 1; i++) a[1 + i] = t[i];
    show("shift right", a, N);
    reset();
    for (i = 0; i < N - 1; i++) t[i] = a[1 + i];
    for (i = 0; i < N - 1; i++) a[i] = t[i];
    show("shift left", a, N);
    reset();
    for (i = 0; i < 6; i++) a[i] = a[6 + i];
    for (i = 0; i < N; i++) a[N - 1 - i] = b[i];
    show("reverse", a, N);
    reset();
    for (i = 0; i < N; i++) t[i] = a[N - 1 - i];
    for (i = 0; i < N; i++) a[i] = t[i];
    show("reverse in place", a, N);

    reset();
    for (i = 0; i < N - 2; i++) a[2 + i] = b[i];
    for (i = 0; i < N; i += 3) a[i] = -1.0;
    show("omitted", a, N);

    reset();
    for (i = 0; i < 4; i++) c[i][2] = d[1][i] + 2.0 * c[i][0];
    for (i = 0; i < 2; i++) for (j = 0; j < 3; j++) c[1 + i][3 + j] += d[i][1 + j];
    show("c row 0", c[0], 6); show("c row 1", c[1], 6); show("c row 2", c[2], 6);
    for (i = 0; i < 6; i++) for (j = 0; j < 4; j++) d[i][j] = c[0][0];
    show("d row 5", d[5], 4);

    reset();
    for (i = 0; i < n; i++) a[s + i * m] = sqrt(b[i]) + k[1 + i];
    for (i = 0; i < m; i++) t[i] = p[i];
    for (i = 0; i < m; i++) a[n + 1 - 2 * i] = t[i];
    for (i = 0; i < 3; i++) t[i] = a[i];
    for (i = 0; i < 3; i++) p[i] = t[i];
    show("run-time", a, N); show("through p", b, N);
    return 0;
}
