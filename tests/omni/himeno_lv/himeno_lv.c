/* Himeno in XcalableMP's local view (our own program, not a copy): the 19-point Jacobi of
 * tests/omni/himeno with the same arithmetic and initial state, the i planes 0..IMAX-1 in
 * equal slabs over the images.  Image me holds planes me*L .. me*L+L-1 (L = IMAX / images)
 * at local planes 1..L of every array, with a halo plane on each side (local 0 and L+1) in
 * the coarray p.  Each iteration puts its first and last planes into the halos of its
 * neighbours (section puts into a coarray) and waits for theirs (xmp_sync_all); gosa is
 * summed by MPI_Allreduce over xmp_get_mpi_comm(), which also keeps an image's next puts
 * away from a neighbour still reading its halos (nobody leaves the sum before everyone has
 * finished reading).  Image 0 prints gosa, the sum of p (an XMP reduction) and p at a few
 * points fetched from their owners (coindexed gets).  make serial builds the same file
 * with cc: one image, no halo to fill. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#define COARRAY :[*]
#else
#include <time.h>
#define COARRAY
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
#ifndef NPMIN
#define NPMIN 1          /* the fewest images this build runs on: its slabs are that big */
#endif
#define LMAX (IMAX / NPMIN + 2)

#pragma xmp nodes procs(*)

float p[LMAX][MJMAX][MKMAX]COARRAY;
float a[4][LMAX][MJMAX][MKMAX], b[3][LMAX][MJMAX][MKMAX], c[3][LMAX][MJMAX][MKMAX];
float bnd[LMAX][MJMAX][MKMAX], wrk1[LMAX][MJMAX][MKMAX], wrk2[LMAX][MJMAX][MKMAX];

static int me, nimages, L, lo;   /* this image, the images, planes per image, first plane */

static void initmt(void)
{
    int li, j, k;
    for (li = 0; li <= L + 1; li++)
        for (j = 0; j < MJMAX; j++)
            for (k = 0; k < MKMAX; k++) {
                int i = lo + li - 1;
                float in = (li >= 1 && li <= L && j < JMAX && k < KMAX) ? 1.0f : 0.0f;
                a[0][li][j][k] = a[1][li][j][k] = a[2][li][j][k] = in;
                a[3][li][j][k] = in * (float)(1.0 / 6.0);
                b[0][li][j][k] = b[1][li][j][k] = b[2][li][j][k] = 0.0f;
                c[0][li][j][k] = c[1][li][j][k] = c[2][li][j][k] = in;
                p[li][j][k] = in * (float)(i * i) / (float)((IMAX - 1) * (IMAX - 1));
                wrk1[li][j][k] = wrk2[li][j][k] = 0.0f;
                bnd[li][j][k] = in;
            }
}

/* The neighbours' edge planes into this image's halos. */
static void exchange(void)
{
#ifdef _XCALABLEMP
    if (me > 0)
        p[L + 1][:][:]:[me - 1] = p[1][:][:];
    if (me < nimages - 1)
        p[0][:][:]:[me + 1] = p[L][:][:];
    xmp_sync_all(NULL);
#endif
}

static float jacobi(int nn)
{
    int li, j, k, n;
    int first = lo == 0 ? 2 : 1, last = lo + L == IMAX ? L - 1 : L;   /* global 1 .. IMAX-2 */
    float gosa = 0.0f, s0, ss, omega = 0.8f;

    for (n = 0; n < nn; n++) {
        exchange();
        gosa = 0.0f;
        for (li = first; li <= last; li++)
            for (j = 1; j < JMAX - 1; j++)
                for (k = 1; k < KMAX - 1; k++) {
                    s0 = a[0][li][j][k] * p[li + 1][j][k] + a[1][li][j][k] * p[li][j + 1][k]
                       + a[2][li][j][k] * p[li][j][k + 1]
                       + b[0][li][j][k] * (p[li + 1][j + 1][k] - p[li + 1][j - 1][k]
                                           - p[li - 1][j + 1][k] + p[li - 1][j - 1][k])
                       + b[1][li][j][k] * (p[li][j + 1][k + 1] - p[li][j - 1][k + 1]
                                           - p[li][j + 1][k - 1] + p[li][j - 1][k - 1])
                       + b[2][li][j][k] * (p[li + 1][j][k + 1] - p[li - 1][j][k + 1]
                                           - p[li + 1][j][k - 1] + p[li - 1][j][k - 1])
                       + c[0][li][j][k] * p[li - 1][j][k] + c[1][li][j][k] * p[li][j - 1][k]
                       + c[2][li][j][k] * p[li][j][k - 1] + wrk1[li][j][k];
                    ss = (s0 * a[3][li][j][k] - p[li][j][k]) * bnd[li][j][k];
                    gosa += ss * ss;
                    wrk2[li][j][k] = p[li][j][k] + omega * ss;
                }
        for (li = first; li <= last; li++)
            for (j = 1; j < JMAX - 1; j++)
                for (k = 1; k < KMAX - 1; k++)
                    p[li][j][k] = wrk2[li][j][k];
#ifdef _XCALABLEMP
        MPI_Allreduce(MPI_IN_PLACE, &gosa, 1, MPI_FLOAT, MPI_SUM, xmp_get_mpi_comm());
#endif
    }
    return gosa;
}

static double now(void)
{
#ifdef _XCALABLEMP
    return xmp_wtime();
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

int main(void)
{
    static const int probe[4][3] = {{1, 1, 1}, {9, 16, 31}, {16, 7, 50}, {30, 30, 62}};
    int li, j, k, s;
    float gosa;
    double psum = 0.0, t0, t1;

    me = 0;
    nimages = 1;
#ifdef _XCALABLEMP
    me = xmpc_this_image();
    nimages = xmp_num_images();
#endif
    if (nimages < NPMIN || IMAX % nimages != 0) {
        if (me == 0)
            fprintf(stderr, "himeno_lv: %d images do not divide %d planes\n", nimages, IMAX);
        return 1;
    }
    L = IMAX / nimages;
    lo = me * L;
    initmt();
#pragma xmp sync_all
    t0 = now();
    gosa = jacobi(NN);
    t1 = now();

    for (li = 1; li <= L; li++)
        if (lo + li - 1 >= 1 && lo + li - 1 < IMAX - 1)
            for (j = 1; j < JMAX - 1; j++)
                for (k = 1; k < KMAX - 1; k++)
                    psum += p[li][j][k];
#pragma xmp reduction (+:psum)
#pragma xmp sync_all
    if (me == 0) {
        printf("himeno %d x %d x %d, %d iterations\n", MIMAX, MJMAX, MKMAX, NN);
        printf("gosa = %.6e\n", gosa);
        printf("psum = %.9e\n", psum);
        for (s = 0; s < 4; s++) {
            int i = probe[s][0], owner = i / L;
            float v;
#ifdef _XCALABLEMP
            v = p[i - owner * L + 1][probe[s][1]][probe[s][2]]:[owner];
#else
            v = p[i - owner * L + 1][probe[s][1]][probe[s][2]];
#endif
            printf("p(%d,%d,%d) = %.9e\n", probe[s][0], probe[s][1], probe[s][2], v);
        }
        fprintf(stderr, "%d images: %.3f s\n", nimages, t1 - t0);
    }
#pragma xmp sync_all
    return 0;
}
