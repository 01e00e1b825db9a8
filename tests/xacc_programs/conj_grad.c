/* A conjugate-gradient solver in the style of NPB-CG's XcalableACC version: rows of a
 * sparse matrix (CSR) in blocks over the nodes, the search direction p with a full shadow
 * refreshed on the device by reflect ... acc, OpenACC kernels under XMP loops with
 * reductions, an inner vector reduction per row.  The data region is in main and the
 * solver in a function of its own, whose reflect ... acc and present clauses find the
 * caller's device copies at run time.  Prints NPB's zeta of each outer iteration (the
 * residual is at round-off level, so only its bound is printed). */
#include <stdio.h>
#include <math.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif
#define NA 1000
#define NZR 7
#define NZ (NA * NZR)
#define NITER 4
#define CGITMAX 25

double x[NA], z[NA], p[NA], q[NA], r[NA];
double a[NZ];
int colidx[NZ], rowstr[NA + 1];
#pragma xmp nodes proc[*]
#pragma xmp template t[NA]
#pragma xmp distribute t[block] onto proc
#pragma xmp align x[i] with t[i]
#pragma xmp align z[i] with t[i]
#pragma xmp align p[i] with t[i]
#pragma xmp align q[i] with t[i]
#pragma xmp align r[i] with t[i]
#pragma xmp shadow p[*]
#pragma xmp shadow z[*]

static void makea(void)
{
    int i, k, n = 0;
    for (i = 0; i < NA; i++) {
        rowstr[i] = n;
        for (k = 0; k < NZR; k++) {
            int c = (i + (k - NZR / 2) * 37 + NA) % NA;
            colidx[n] = c;
            a[n] = (c == i) ? 20.0 + (i % 5) : -1.0 / (1 + (i + c) % 7);
            n++;
        }
    }
    rowstr[NA] = n;
}

static double conj_grad(void)
{
    int j, k, cgit;
    double rho = 0, rho0, d, alpha, beta, sum, rnorm = 0;

#pragma xmp loop on t[j]
#pragma acc parallel loop present(q, z, r, x, p)
    for (j = 0; j < NA; j++) {
        q[j] = 0.0;
        z[j] = 0.0;
        r[j] = x[j];
        p[j] = r[j];
    }
#pragma xmp loop on t[j] reduction(+: rho)
#pragma acc parallel loop reduction(+: rho) present(r)
    for (j = 0; j < NA; j++)
        rho += r[j] * r[j];

    for (cgit = 0; cgit < CGITMAX; cgit++) {
#pragma xmp reflect (p) acc
#pragma xmp loop on t[j]
#pragma acc parallel loop gang present(a, colidx, rowstr, p, q)
        for (j = 0; j < NA; j++) {
            sum = 0.0;
#pragma acc loop vector reduction(+: sum)
            for (k = rowstr[j]; k < rowstr[j + 1]; k++)
                sum += a[k] * p[colidx[k]];
            q[j] = sum;
        }
        d = 0.0;
#pragma xmp loop on t[j] reduction(+: d)
#pragma acc parallel loop reduction(+: d) present(p, q)
        for (j = 0; j < NA; j++)
            d += p[j] * q[j];
        alpha = rho / d;
        rho0 = rho;
        rho = 0.0;
#pragma xmp loop on t[j] reduction(+: rho)
#pragma acc parallel loop reduction(+: rho) present(z, r, p, q)
        for (j = 0; j < NA; j++) {
            z[j] += alpha * p[j];
            r[j] -= alpha * q[j];
            rho += r[j] * r[j];
        }
        beta = rho / rho0;
#pragma xmp loop on t[j]
#pragma acc parallel loop present(p, r)
        for (j = 0; j < NA; j++)
            p[j] = r[j] + beta * p[j];
    }

#pragma xmp reflect (z) acc
#pragma xmp loop on t[j]
#pragma acc parallel loop gang present(a, colidx, rowstr, z, r)
    for (j = 0; j < NA; j++) {
        double s = 0.0;
#pragma acc loop vector reduction(+: s)
        for (k = rowstr[j]; k < rowstr[j + 1]; k++)
            s += a[k] * z[colidx[k]];
        r[j] = s;
    }
#pragma xmp loop on t[j] reduction(+: rnorm)
#pragma acc parallel loop reduction(+: rnorm) present(x, r)
    for (j = 0; j < NA; j++)
        rnorm += (x[j] - r[j]) * (x[j] - r[j]);
    return sqrt(rnorm);
}

int main(void)
{
    int it, j;
    double zeta = 0, norm1, norm2, rnorm;

    makea();
#pragma xmp loop on t[j]
    for (j = 0; j < NA; j++) x[j] = 1.0;

#pragma acc data copyin(a, colidx, rowstr) create(z, q, r, p) copy(x)
    {
        for (it = 0; it < NITER; it++) {
            rnorm = conj_grad();
            norm1 = norm2 = 0.0;
#pragma xmp loop on t[j] reduction(+: norm1, norm2)
#pragma acc parallel loop reduction(+: norm1, norm2) present(x, z)
            for (j = 0; j < NA; j++) {
                norm1 += x[j] * z[j];
                norm2 += z[j] * z[j];
            }
            norm2 = 1.0 / sqrt(norm2);
            zeta = 10.0 + 1.0 / norm1;
#pragma xmp loop on t[j]
#pragma acc parallel loop present(x, z)
            for (j = 0; j < NA; j++)
                x[j] = norm2 * z[j];
#ifdef _XCALABLEMP
            if (xmpc_node_num() == 0)
#endif
                printf("%2d %20.12e %s\n", it + 1, zeta, rnorm < 1e-10 ? "converged" : "not converged");
        }
    }
    return 0;
}
