/* STREAM's four kernels (copy, scale, add, triad) over distributed arrays, written as an
 * XcalableMP + OpenMP hybrid for Omni (xmpcc -omp): XMP splits the arrays and each loop
 * over the nodes, OpenMP splits each node's share of a loop over its threads.  Each loop
 * has its OpenMP line next to its loop directive, in either order; the checksums are
 * reductions of both; the results are verified as STREAM's checkSTREAMresults does.
 * Without XMP and OpenMP (cc triad.c -lm) it is the serial program. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifndef STREAM_ARRAY_SIZE
#define STREAM_ARRAY_SIZE 24000
#endif
#define NTIMES 5
#define SCALAR 3.0

static double a[STREAM_ARRAY_SIZE], b[STREAM_ARRAY_SIZE], c[STREAM_ARRAY_SIZE];
#pragma xmp nodes p[*]
#pragma xmp template t[STREAM_ARRAY_SIZE]
#pragma xmp distribute t[block] onto p
#pragma xmp align [j] with t[j] :: a, b, c

/* the average absolute error of each array against the value every element should hold */
static int check_results(void)
{
    double aj = 1.0, bj = 2.0, cj = 0.0, scalar = SCALAR;
    double a_err = 0.0, b_err = 0.0, c_err = 0.0, epsilon = 1.e-13;
    int j, k, errors = 0;

    aj = 2.0 * aj;
    for (k = 0; k < NTIMES; k++) {
        cj = aj;
        bj = scalar * cj;
        cj = aj + bj;
        aj = bj + scalar * cj;
    }
#pragma xmp loop on t[j] reduction(+:a_err, b_err, c_err)
#pragma omp parallel for reduction(+:a_err, b_err, c_err)
    for (j = 0; j < STREAM_ARRAY_SIZE; j++) {
        a_err += fabs(a[j] - aj);
        b_err += fabs(b[j] - bj);
        c_err += fabs(c[j] - cj);
    }
    a_err /= STREAM_ARRAY_SIZE;
    b_err /= STREAM_ARRAY_SIZE;
    c_err /= STREAM_ARRAY_SIZE;
#pragma xmp task on p[0]
    {
        if (fabs(a_err / aj) > epsilon) {
            printf("Failed Validation on array a[], AvgRelAbsErr > epsilon (%e)\n", epsilon);
            errors++;
        }
        if (fabs(b_err / bj) > epsilon) {
            printf("Failed Validation on array b[], AvgRelAbsErr > epsilon (%e)\n", epsilon);
            errors++;
        }
        if (fabs(c_err / cj) > epsilon) {
            printf("Failed Validation on array c[], AvgRelAbsErr > epsilon (%e)\n", epsilon);
            errors++;
        }
        if (errors == 0)
            printf("Solution Validates: avg error less than %e on all three arrays\n", epsilon);
    }
    return errors;
}

int main(void)
{
    double scalar = SCALAR, asum = 0.0, bsum = 0.0, csum = 0.0;
    int j, k, threads = 1;

#pragma xmp loop on t[j]
#pragma omp parallel for
    for (j = 0; j < STREAM_ARRAY_SIZE; j++) {
        a[j] = 1.0;
        b[j] = 2.0;
        c[j] = 0.0;
    }
#pragma omp parallel for
#pragma xmp loop on t[j]
    for (j = 0; j < STREAM_ARRAY_SIZE; j++)
        a[j] = 2.0E0 * a[j];

    for (k = 0; k < NTIMES; k++) {
        /* copy */
#pragma xmp loop on t[j]
#pragma omp parallel for
        for (j = 0; j < STREAM_ARRAY_SIZE; j++)
            c[j] = a[j];
        /* scale */
#pragma omp parallel for
#pragma xmp loop on t[j]
        for (j = 0; j < STREAM_ARRAY_SIZE; j++)
            b[j] = scalar * c[j];
        /* add */
#pragma xmp loop on t[j]
#pragma omp parallel for
        for (j = 0; j < STREAM_ARRAY_SIZE; j++)
            c[j] = a[j] + b[j];
        /* triad */
#pragma xmp loop on t[j]
#pragma omp parallel for
        for (j = 0; j < STREAM_ARRAY_SIZE; j++)
            a[j] = b[j] + scalar * c[j];
    }

    /* the checksums, and how many threads each node's loops ran on */
#pragma omp parallel for reduction(+:asum, bsum, csum) reduction(max:threads)
#pragma xmp loop on t[j] reduction(+:asum, bsum, csum) reduction(max:threads)
    for (j = 0; j < STREAM_ARRAY_SIZE; j++) {
        asum += a[j];
        bsum += b[j];
        csum += c[j];
#ifdef _OPENMP
        if (omp_get_num_threads() > threads)
            threads = omp_get_num_threads();
#endif
    }
#pragma xmp task on p[0]
    {
        printf("Array size = %d (elements), %d times\n", STREAM_ARRAY_SIZE, NTIMES);
        printf("Checksums: a %.10e  b %.10e  c %.10e\n", asum, bsum, csum);
        fprintf(stderr, "OpenMP threads per node: %d\n", threads);
    }
    return check_results();
}
