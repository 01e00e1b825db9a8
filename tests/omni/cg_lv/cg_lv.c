/* NPB CG's outer iteration in XcalableMP's local view (our own program, not a copy): the
 * NA rows of a sparse symmetric positive definite matrix in equal blocks over the images,
 * every vector distributed the same way by hand (image me holds elements lo .. lo+L-1 at
 * 0 .. L-1).  A matrix-vector product gathers the whole vector it reads from every image
 * with coindexed section gets (x_all[k*L : L] = v[0:L]:[k]), the vector being a coarray
 * dummy argument; dot products are local sums and a reduction directive.  The outer
 * iteration is NPB's inverse power method, zeta = SHIFT + 1 / (x.z).  The matrix: a
 * 5-point Laplacian on an NX x NY grid with a diagonal that varies and one symmetric far
 * coupling per row, diagonally dominant.  make serial builds the same file with cc: one
 * image, the gather a copy. */
#include <stdio.h>
#include <string.h>
#include <math.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#define COARRAY :[*]
#else
#define COARRAY
#endif

#define NX 32
#define NY 16
#define NA (NX * NY)         /* order of the matrix */
#define NZMAX (NA * 7)       /* nonzeros of one image's rows, at most */
#define NITER 6              /* outer (inverse power) iterations */
#define CGITMAX 12           /* CG steps per outer iteration: the residual stays well above round-off */
#define SHIFT 3.0

#pragma xmp nodes procs[*]

double pv[NA]COARRAY, z[NA]COARRAY;       /* the vectors a product reads: this image's part */
static double x[NA], q[NA], r[NA];        /* this image's parts */
static double x_all[NA];                  /* the whole vector a product reads */
static double a[NZMAX];
static int colidx[NZMAX], rowstr[NA + 1];
static int me, nimages, L, lo;

static double aelem(int i, int j)
{
    int ix = i % NX, iy = i / NX, jx = j % NX, jy = j / NX;
    if (i == j)
        return 4.75 + 0.125 * (i % 7);
    if ((ix == jx && (iy - jy == 1 || jy - iy == 1)) || (iy == jy && (ix - jx == 1 || jx - ix == 1)))
        return -1.0;
    if (j == (i * 29 + 5) % NA || i == (j * 29 + 5) % NA)
        return -0.3;
    return 0.0;
}

static int makea(void)
{
    int i, j, n = 0;
    for (i = 0; i < L; i++) {
        rowstr[i] = n;
        for (j = 0; j < NA; j++) {
            double v = aelem(lo + i, j);
            if (v != 0.0) {
                colidx[n] = j;
                a[n] = v;
                n++;
            }
        }
    }
    rowstr[L] = n;
    return n;
}

/* res = A v: this image's rows of the product of the whole v, gathered from its owners. */
static void matvec(double v[restrict NA]COARRAY, double res[])
{
    int i, k;
#ifdef _XCALABLEMP
    xmp_sync_all(NULL);                   /* every image has written its part of v */
    for (k = 0; k < nimages; k++)
        x_all[k * L:L] = v[0:L]:[k];
    xmp_sync_all(NULL);                   /* nobody writes v before everyone has read it */
#else
    memcpy(x_all, v, NA * sizeof(double));
#endif
    for (i = 0; i < L; i++) {
        double s = 0.0;
        for (k = rowstr[i]; k < rowstr[i + 1]; k++)
            s += a[k] * x_all[colidx[k]];
        res[i] = s;
    }
}

/* CGITMAX steps of CG on A z = x from z = 0; returns ||x - A z||. */
static double conj_grad(void)
{
    int j, cgit;
    double rho = 0.0, rho0, alpha, beta, d, sum = 0.0;

    for (j = 0; j < L; j++) {
        q[j] = z[j] = 0.0;
        r[j] = pv[j] = x[j];
        rho += r[j] * r[j];
    }
#pragma xmp reduction (+:rho)
    for (cgit = 0; cgit < CGITMAX; cgit++) {
        matvec(pv, q);
        d = 0.0;
        for (j = 0; j < L; j++)
            d += pv[j] * q[j];
#pragma xmp reduction (+:d)
        alpha = rho / d;
        rho0 = rho;
        rho = 0.0;
        for (j = 0; j < L; j++) {
            z[j] += alpha * pv[j];
            r[j] -= alpha * q[j];
            rho += r[j] * r[j];
        }
#pragma xmp reduction (+:rho)
        beta = rho / rho0;
        for (j = 0; j < L; j++)
            pv[j] = r[j] + beta * pv[j];
    }
    matvec(z, r);
    for (j = 0; j < L; j++)
        sum += (x[j] - r[j]) * (x[j] - r[j]);
#pragma xmp reduction (+:sum)
    return sqrt(sum);
}

int main(void)
{
    int it, j, nnz;
    double zeta = 0.0, norm1, norm2, rnorm;

    me = 0;
    nimages = 1;
#ifdef _XCALABLEMP
    me = xmpc_this_image();
    nimages = xmp_num_images();
#endif
    if (NA % nimages != 0) {
        if (me == 0)
            fprintf(stderr, "cg_lv: %d images do not divide %d rows\n", nimages, NA);
        return 1;
    }
    L = NA / nimages;
    lo = me * L;
    nnz = makea();
#pragma xmp reduction (+:nnz)
    if (me == 0)
        printf("CG (local view): NA = %d, %d nonzeros, %d iterations of %d CG steps, shift %.1f\n",
               NA, nnz, NITER, CGITMAX, SHIFT);

    for (j = 0; j < L; j++)
        x[j] = 1.0;
    for (it = 1; it <= NITER; it++) {
        rnorm = conj_grad();
        norm1 = norm2 = 0.0;
        for (j = 0; j < L; j++) {
            norm1 += x[j] * z[j];
            norm2 += z[j] * z[j];
        }
#pragma xmp reduction (+:norm1, norm2)
        norm2 = 1.0 / sqrt(norm2);
        zeta = SHIFT + 1.0 / norm1;
        if (me == 0)
            printf("  iteration %2d  ||r|| = %.8e  zeta = %.13e\n", it, rnorm, zeta);
        for (j = 0; j < L; j++)
            x[j] = norm2 * z[j];
    }
    if (me == 0)
        printf("zeta = %.13e\n", zeta);
    return 0;
}
