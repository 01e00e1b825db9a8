/* A Himeno-like XcalableACC program written the way Omni's users write theirs: the
 * parenthesised syntax, arrays aligned in the template's reverse order, shadows wider on
 * the upper side, OpenACC's gang/vector spelling with async queues, and MPI calls of
 * xmp.h's <mpi.h> under _XCALABLEMP.  19-point Jacobi for a Poisson equation in fp32 with
 * Himeno's arithmetic and initial state; a plain C compiler builds the serial version. */
#include <stdio.h>
#include <string.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#endif

#define MIMAX 33
#define MJMAX 33
#define MKMAX 65
#define IMAX (MIMAX - 1)
#define JMAX (MJMAX - 1)
#define KMAX (MKMAX - 1)
#ifndef NN
#define NN 12
#endif

float p[MIMAX][MJMAX][MKMAX];
float a[4][MIMAX][MJMAX][MKMAX], b[3][MIMAX][MJMAX][MKMAX], c[3][MIMAX][MJMAX][MKMAX];
float bnd[MIMAX][MJMAX][MKMAX], wrk1[MIMAX][MJMAX][MKMAX], wrk2[MIMAX][MJMAX][MKMAX];

#pragma xmp nodes procs(1, 1, *)
#pragma xmp template t(0:MKMAX-1, 0:MJMAX-1, 0:MIMAX-1)
#pragma xmp distribute t(block, block, block) onto procs
#pragma xmp align p[i][j][k] with t(k, j, i)
#pragma xmp align [*][i][j][k] with t(k, j, i) :: a, b, c
#pragma xmp align [i][j][k] with t(k, j, i) :: bnd, wrk1, wrk2
#pragma xmp shadow p[1:2][0][0]

static void initmt(void)
{
    int i, j, k;
#pragma xmp loop (k, j, i) on t(k, j, i)
    for (i = 0; i < MIMAX; i++)
        for (j = 0; j < MJMAX; j++)
            for (k = 0; k < MKMAX; k++) {
                float in = (i < IMAX && j < JMAX && k < KMAX) ? 1.0f : 0.0f;
                a[0][i][j][k] = a[1][i][j][k] = a[2][i][j][k] = in;
                a[3][i][j][k] = in * (float)(1.0 / 6.0);
                b[0][i][j][k] = b[1][i][j][k] = b[2][i][j][k] = 0.0f;
                c[0][i][j][k] = c[1][i][j][k] = c[2][i][j][k] = in;
                p[i][j][k] = in * (float)(i * i) / (float)((IMAX - 1) * (IMAX - 1));
                wrk1[i][j][k] = wrk2[i][j][k] = 0.0f;
                bnd[i][j][k] = in;
            }
}

static float jacobi(int nn)
{
    int i, j, k, n;
    float gosa = 0.0f, s0, ss, omega = 0.8f;

    for (n = 0; n < nn; n++) {
        gosa = 0.0f;
#pragma xmp reflect (p) acc
#pragma xmp loop (k, j, i) on t(k, j, i)
#pragma acc parallel loop firstprivate(omega) reduction(+:gosa) collapse(2) gang vector_length(64) async
        for (i = 1; i < IMAX - 1; i++)
            for (j = 1; j < JMAX - 1; j++) {
#pragma acc loop vector reduction(+:gosa) private(s0, ss)
                for (k = 1; k < KMAX - 1; k++) {
                    s0 = a[0][i][j][k] * p[i + 1][j][k] + a[1][i][j][k] * p[i][j + 1][k]
                       + a[2][i][j][k] * p[i][j][k + 1]
                       + b[0][i][j][k] * (p[i + 1][j + 1][k] - p[i + 1][j - 1][k]
                                          - p[i - 1][j + 1][k] + p[i - 1][j - 1][k])
                       + b[1][i][j][k] * (p[i][j + 1][k + 1] - p[i][j - 1][k + 1]
                                          - p[i][j + 1][k - 1] + p[i][j - 1][k - 1])
                       + b[2][i][j][k] * (p[i + 1][j][k + 1] - p[i - 1][j][k + 1]
                                          - p[i + 1][j][k - 1] + p[i - 1][j][k - 1])
                       + c[0][i][j][k] * p[i - 1][j][k] + c[1][i][j][k] * p[i][j - 1][k]
                       + c[2][i][j][k] * p[i][j][k - 1] + wrk1[i][j][k];
                    ss = (s0 * a[3][i][j][k] - p[i][j][k]) * bnd[i][j][k];
                    gosa += ss * ss;
                    wrk2[i][j][k] = p[i][j][k] + omega * ss;
                }
            }
#pragma acc wait
#pragma xmp reduction (+:gosa)
#pragma xmp loop (k, j, i) on t(k, j, i)
#pragma acc parallel loop collapse(2) gang vector_length(64) async
        for (i = 1; i < IMAX - 1; i++)
            for (j = 1; j < JMAX - 1; j++) {
#pragma acc loop vector
                for (k = 1; k < KMAX - 1; k++)
                    p[i][j][k] = wrk2[i][j][k];
            }
#pragma acc wait
    }
    return gosa;
}

int main(void)
{
    int i, j, k, me = 0;
    float gosa;
    double psum = 0.0;

#ifdef _XCALABLEMP
    char name[MPI_MAX_PROCESSOR_NAME];
    int len, rank;
    MPI_Get_processor_name(name, &len);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    me = xmp_node_num() - 1;
    fprintf(stderr, "node %d (rank %d) of %d on %s\n", xmp_node_num(), rank, xmp_num_nodes(), name);
#endif
    initmt();
#pragma acc data copy(p) copyin(a, b, c, bnd, wrk1, wrk2)
    {
        gosa = jacobi(NN);
    }
#pragma xmp loop (k, j, i) on t(k, j, i) reduction(+:psum)
    for (i = 1; i < IMAX - 1; i++)
        for (j = 1; j < JMAX - 1; j++)
            for (k = 1; k < KMAX - 1; k++)
                psum += p[i][j][k];
    if (me == 0) {
        printf("himeno %d x %d x %d, %d iterations\n", MIMAX, MJMAX, MKMAX, NN);
        printf("gosa = %.6e\n", gosa);
        printf("psum = %.9e\n", psum);
    }
    return 0;
}
