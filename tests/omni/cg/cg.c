/* A conjugate-gradient solver shaped like NPB CG's XcalableMP port (our own program, not
 * a copy): a sparse symmetric positive definite matrix in blocks over a 2-D node grid
 * p(NUM_PROC_COLS, NUM_PROC_ROWS), the vectors in the column layout (distributed over the
 * node columns, replicated over the node rows), declared with combined directives.  A
 * matrix-vector product is the node's block times its part of the vector, a reduction of
 * the partial row sums over the node row (reduction ... on p(:, *)) and a gmove from the
 * row layout to the column layout (NPB's transpose exchange).  The outer iteration is
 * NPB's inverse power method: zeta = SHIFT + 1 / (x.z).  Built by the Makefile with
 * MPICC=xmpacc and NPROCS=1, 2 or 4 (the grid is fixed at compile time, as NPB does); the
 * serial build (make serial) ignores the pragmas and prints the same. */
#include <stdio.h>
#include <math.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#include "cgparams.h"

#pragma xmp nodes p(NUM_PROC_COLS, NUM_PROC_ROWS)
#pragma xmp template, distribute(block, block) onto p :: t(0:NA-1, 0:NA-1)

double x[NA], z[NA], pv[NA], q[NA], r[NA];   /* column layout */
double wr[NA];                               /* row layout: the product before the transpose */
#pragma xmp align [j] with t(j, *) :: x, z, pv, q, r
#pragma xmp align [i] with t(*, i) :: wr
#pragma xmp static_desc :: t, x, z, pv, q, r, wr

/* This node's block of the matrix (CSR, rows firstrow..lastrow, columns firstcol..lastcol,
 * global indices) and the partial row sums of a product. */
static int firstrow, lastrow, firstcol, lastcol, nrows;
static int rowstr[NA + 1], colidx[NZMAX];
static double a[NZMAX], w[NA];

/* The matrix: a band, a far band and one symmetric pair per row, diagonally dominant. */
static double aelem(int i, int j)
{
    int d = i > j ? i - j : j - i;
    if (d == 0)
        return 4.0 + 0.25 * (i % 5);
    if (d == 1)
        return -1.0;
    if (d == BAND)
        return -0.5;
    if (j == (i * 37 + 11) % NA || i == (j * 37 + 11) % NA)
        return -0.25;
    return 0.0;
}

/* This node's rows and columns: the indices its loops on t(*, i) and t(j, *) get. */
static void block_bounds(void)
{
    int i, j;
    firstrow = firstcol = NA;
    lastrow = lastcol = -1;
#pragma xmp loop [i] on t(*, i)
    for (i = 0; i < NA; i++) {
        if (i < firstrow)
            firstrow = i;
        lastrow = i;
    }
#pragma xmp loop [j] on t(j, *)
    for (j = 0; j < NA; j++) {
        if (j < firstcol)
            firstcol = j;
        lastcol = j;
    }
    nrows = lastrow - firstrow + 1;
}

static int makea(void)
{
    int i, j, n = 0;
    for (i = firstrow; i <= lastrow; i++) {
        rowstr[i - firstrow] = n;
        for (j = firstcol; j <= lastcol; j++) {
            double v = aelem(i, j);
            if (v != 0.0) {
                colidx[n] = j;
                a[n] = v;
                n++;
            }
        }
    }
    rowstr[nrows] = n;
    return n;
}

/* res = A v, both in the column layout. */
static void matvec(double v[NA], double res[NA])
{
#pragma xmp align [j] with t(j, *) :: v, res
#pragma xmp static_desc :: v, res
    int i, k;
    for (i = firstrow; i <= lastrow; i++) {
        double s = 0.0;
        for (k = rowstr[i - firstrow]; k < rowstr[i - firstrow + 1]; k++)
            s += a[k] * v[colidx[k]];
        w[i] = s;
    }
    /* the node row adds up its columns' partial sums: every row's whole product */
#pragma xmp reduction (+: w[firstrow:nrows]) on p(:, *)
#pragma xmp loop [i] on t(*, i)
    for (i = 0; i < NA; i++)
        wr[i] = w[i];
    /* row layout -> column layout */
#ifdef _XCALABLEMP
#pragma xmp gmove
    res[0:NA] = wr[0:NA];
#else
    for (i = 0; i < NA; i++)
        res[i] = wr[i];
#endif
}

/* About CGITMAX steps of CG on A z = x from z = 0; returns ||x - A z||. */
static double conj_grad(void)
{
    int j, cgit;
    double rho = 0.0, rho0, alpha, beta, d, sum = 0.0;

#pragma xmp loop [j] on t(j, *)
    for (j = 0; j < NA; j++) {
        q[j] = z[j] = 0.0;
        r[j] = pv[j] = x[j];
        rho += r[j] * r[j];
    }
#pragma xmp reduction (+: rho) on p(:, *)

    for (cgit = 0; cgit < CGITMAX; cgit++) {
        matvec(pv, q);
        d = 0.0;
#pragma xmp loop [j] on t(j, *) reduction(+: d)
        for (j = 0; j < NA; j++)
            d += pv[j] * q[j];
        alpha = rho / d;
        rho0 = rho;
        rho = 0.0;
#pragma xmp loop [j] on t(j, *) reduction(+: rho)
        for (j = 0; j < NA; j++) {
            z[j] += alpha * pv[j];
            r[j] -= alpha * q[j];
            rho += r[j] * r[j];
        }
        beta = rho / rho0;
#pragma xmp loop [j] on t(j, *)
        for (j = 0; j < NA; j++)
            pv[j] = r[j] + beta * pv[j];
    }

    matvec(z, r);
#pragma xmp loop [j] on t(j, *)
    for (j = 0; j < NA; j++)
        sum += (x[j] - r[j]) * (x[j] - r[j]);
#pragma xmp reduction (+: sum) on p(:, *)
    return sqrt(sum);
}

int main(void)
{
    int it, j, nnz;
    double zeta = 0.0, zmin, zmax, norm1, norm2, rnorm;

    block_bounds();
    nnz = makea();
    /* the nonzeros of a node column, then the column leaders (node row 1) add theirs */
#pragma xmp reduction (+: nnz) on p(*, :)
#pragma xmp task on p(:, 1)
    {
#pragma xmp reduction (+: nnz)
    }
#pragma xmp task on p(1, 1)
    printf("CG: NA = %d, %d nonzeros, %d iterations of %d CG steps, shift %.1f\n",
           NA, nnz, NITER, CGITMAX, SHIFT);

#pragma xmp loop [j] on t(j, *)
    for (j = 0; j < NA; j++)
        x[j] = 1.0;

    for (it = 1; it <= NITER; it++) {
        rnorm = conj_grad();
        norm1 = norm2 = 0.0;
#pragma xmp loop [j] on t(j, *)
        for (j = 0; j < NA; j++) {
            norm1 += x[j] * z[j];
            norm2 += z[j] * z[j];
        }
#pragma xmp reduction (+: norm1, norm2) on p(:, *)
        norm2 = 1.0 / sqrt(norm2);
        zeta = SHIFT + 1.0 / norm1;
        /* each node row computed zeta by itself: the row leaders (node column 1) compare */
        zmin = zmax = zeta;
#pragma xmp task on p(1, :)
        {
#pragma xmp reduction (min: zmin)
#pragma xmp reduction (max: zmax)
        }
#pragma xmp task on p(1, 1)
        printf("  iteration %2d  ||r|| = %.8e  zeta = %.13e%s\n", it, rnorm, zeta,
               zmax - zmin <= 1e-12 * fabs(zeta) ? "" : "  (the node rows disagree)");
#pragma xmp loop [j] on t(j, *)
        for (j = 0; j < NA; j++)
            x[j] = norm2 * z[j];
    }
#pragma xmp bcast (zeta) from p(1, 1)
#pragma xmp task on p(1, 1)
    printf("zeta = %.13e\n", zeta);
    return 0;
}
