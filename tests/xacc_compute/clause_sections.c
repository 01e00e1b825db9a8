/* Sections in the data clauses of compute constructs (XcalableACC.md §1-§2): a section of a
 * distributed array in global indices (only the elements each node owns move), sections of
 * C arrays and of a pointer that do not start at 0, an element, rows of a 2-D array; they
 * open an implicit data region around the construct.  Elements outside a copied section
 * keep their host values, as the serial program's. */
#include <stdio.h>
#include <stdlib.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#define N 24
#define M 4

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
double d[N];
#pragma xmp align d[i] with t[i]
double a[N], c[N], g[N][M];

int main(void)
{
    int i, j;
    double *w = malloc(N * sizeof(double));
    double s = 0, sd = 0, sw = 0, sg = 0;
    for (i = 0; i < N; i++) { a[i] = i; c[i] = 0; w[i] = 2 * i; for (j = 0; j < M; j++) g[i][j] = i + j; }
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) d[i] = i;

#pragma xmp loop on t[i]
#pragma acc parallel loop copy(d[5:12])
    for (i = 5; i < 17; i++) d[i] = d[i] * 3 + 1;
#pragma acc parallel loop copyin(a[3:10]) copyout(c[3:10])
    for (i = 3; i < 13; i++) c[i] = a[i] * a[i];
#pragma acc parallel loop copy(w[6:5])
    for (i = 6; i < 11; i++) w[i] = -w[i];
#pragma acc parallel copyout(c[20])
    {
#pragma acc loop
        for (i = 20; i < 21; i++) c[i] = 7;
    }
#pragma acc parallel loop collapse(2) copy(g[2:3][:])
    for (i = 2; i < 5; i++)
        for (j = 0; j < M; j++) g[i][j] = 10 * g[i][j];

    for (i = 0; i < N; i++) { s += c[i]; sw += w[i]; for (j = 0; j < M; j++) sg += g[i][j]; }
#pragma xmp loop on t[i] reduction(+:sd)
    for (i = 0; i < N; i++) sd += d[i];
    if (xmpc_node_num() == 0)
        printf("s = %g sd = %g sw = %g sg = %g\n", s, sd, sw, sg);
    free(w);
    return 0;
}
