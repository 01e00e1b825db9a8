/* The triad of triad.c over a matrix on a 2 x 2 node grid (run it on 4 nodes): rows in
 * blocks, columns cyclic in pairs; OpenMP collapses both loops of each nest (the node's
 * rows and its columns) or splits the rows only.  Without XMP and OpenMP it is the serial
 * program. */
#include <math.h>
#include <stdio.h>

#define NR 60
#define NC 45
#define NTIMES 3
#define SCALAR 3.0

static double a[NR][NC], b[NR][NC], c[NR][NC];
#pragma xmp nodes q[2][2]
#pragma xmp template t[NR][NC]
#pragma xmp distribute t[block][cyclic(2)] onto q
#pragma xmp align [i][j] with t[i][j] :: a, b, c

int main(void)
{
    double scalar = SCALAR, sum = 0.0, err = 0.0, aj = 2.0, bj = 2.0, cj = 0.0;
    int i, j, k;

#pragma xmp loop (i, j) on t[i][j]
#pragma omp parallel for collapse(2)
    for (i = 0; i < NR; i++)
        for (j = 0; j < NC; j++) {
            a[i][j] = 2.0;
            b[i][j] = 2.0;
            c[i][j] = 0.0;
        }
    for (k = 0; k < NTIMES; k++) {
#pragma omp parallel for private(j)
#pragma xmp loop (i, j) on t[i][j]
        for (i = 0; i < NR; i++)
            for (j = 0; j < NC; j++)
                c[i][j] = a[i][j];
#pragma xmp loop (i, j) on t[i][j]
#pragma omp parallel for collapse(2)
        for (i = 0; i < NR; i++)
            for (j = 0; j < NC; j++)
                b[i][j] = scalar * c[i][j];
#pragma xmp loop (i, j) on t[i][j]
#pragma omp parallel for collapse(2)
        for (i = 0; i < NR; i++)
            for (j = 0; j < NC; j++)
                c[i][j] = a[i][j] + b[i][j];
#pragma xmp loop (i, j) on t[i][j]
#pragma omp parallel for collapse(2)
        for (i = 0; i < NR; i++)
            for (j = 0; j < NC; j++)
                a[i][j] = b[i][j] + scalar * c[i][j] + 1.0e-3 * (i - j);
        cj = aj;
        bj = scalar * cj;
        cj = aj + bj;
        aj = bj + scalar * cj;
    }
#pragma xmp loop (i, j) on t[i][j] reduction(+:sum) reduction(max:err)
#pragma omp parallel for collapse(2) reduction(+:sum) reduction(max:err)
    for (i = 0; i < NR; i++)
        for (j = 0; j < NC; j++) {
            sum += a[i][j] * (i + 1) + b[i][j] * (j + 1) - c[i][j];
            if (fabs(b[i][j] - bj) / bj > err)
                err = fabs(b[i][j] - bj) / bj;
        }
#pragma xmp task on q[0][0]
    printf("%d x %d, %d times: weighted sum %.10e, b %s\n", NR, NC, NTIMES, sum,
           err < 1.e-2 ? "validates" : "fails");
    return 0;
}
