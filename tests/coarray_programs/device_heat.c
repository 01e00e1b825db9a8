/* A 1-D heat equation on a ring of N points in the local view, with the data on the device
 * (XcalableACC §5a).  Image k holds points k*nl .. k*nl+nl-1 of the ring in the coarray u,
 * with H halo cells at each end; 'acc declare create' gives u its device copy, where the
 * kernels run and the halos are exchanged: each step puts this image's edge cells into its
 * neighbours' halos, device to device, between two sync_all.  Image 0 sends the initial
 * state from a host array and gathers the result from every image's device copy; the
 * images check their halos by getting their neighbours' cells and report to image 0.
 *
 * The serial build (plain cc: one image, the pragmas ignored) runs the same steps with the
 * halos copied within u, so every build prints what it prints. */
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif

#define N 48          /* points of the ring: 1, 2, 3 or 4 images hold equal blocks */
#define H 2           /* halo width */
#define STEPS 25
#define MAXIMAGES 4

#ifdef _XCALABLEMP
double u[N + 2 * H]:[*];        /* this image's block: cells H .. H+nl-1, halos around */
int checks[MAXIMAGES]:[*];      /* on image 0: each image's halo mismatches */
#else
double u[N + 2 * H];
int checks[MAXIMAGES];
#endif
double unew[N + 2 * H];
#pragma acc declare create(u, checks, unew)

/* the halos of every image: its neighbours' edge cells */
static void exchange(int nl, int left, int right)
{
#pragma xmp sync_all                 /* every image is done with its halos (its kernels too) */
#ifdef _XCALABLEMP
#pragma acc host_data use_device(u)
    {
        u[nl + H:H]:[left] = u[H:H];     /* my first cells: the left neighbour's right halo */
        u[0:H]:[right] = u[nl:H];        /* my last cells: the right neighbour's left halo */
    }
#else
#pragma acc update host(u)
    for (int i = 0; i < H; i++) {
        u[nl + H + i] = u[H + i];
        u[i] = u[nl + i];
    }
#pragma acc update device(u)
#endif
#pragma xmp sync_all                 /* the puts are complete */
}

static void step(int nl)
{
    int i;
#pragma acc parallel loop present(u, unew)
    for (i = H; i < nl + H; i++)
        unew[i] = u[i] + 0.05 * (u[i - 2] + u[i + 2] - 2.0 * u[i]) + 0.2 * (u[i - 1] + u[i + 1] - 2.0 * u[i]);
#pragma acc parallel loop present(u, unew)
    for (i = H; i < nl + H; i++)
        u[i] = unew[i];
}

int main(void)
{
    int me = xmpc_this_image(), n = xmp_num_images();
    int nl = N / n, left = (me + n - 1) % n, right = (me + 1) % n;
    double init[N], all[N], last, sum = 0.0;
    int i, k, bad = 0, reported = 0;

    for (i = 0; i < N; i++)
        init[i] = (i % 7) * 1.5 + (i == 10 ? 40.0 : 0.0);

    /* image 0 sends each image its block: host to device */
    if (me == 0)
        for (k = 0; k < n; k++) {
#ifdef _XCALABLEMP
#pragma acc host_data use_device(u)
            u[H:nl]:[k] = init[k * nl:nl];
#else
            for (i = 0; i < nl; i++)
                u[H + i] = init[k * nl + i];
#pragma acc update device(u)
#endif
        }

    for (k = 0; k < STEPS; k++) {
        exchange(nl, left, right);
        step(nl);
    }
    exchange(nl, left, right);

    /* each image checks its left halo against its left neighbour's last cells (a device to
     * device get) and reports the mismatches into image 0's checks (a host value put) */
#ifdef _XCALABLEMP
#pragma acc host_data use_device(u, unew)
    unew[0:H] = u[nl:H]:[left];
#else
    for (i = 0; i < H; i++)
        unew[i] = u[nl + i];
#pragma acc update device(unew)
#endif
#pragma acc update host(u, unew)
    for (i = 0; i < H; i++)
        bad += u[i] != unew[i];
#ifdef _XCALABLEMP
#pragma acc host_data use_device(checks)
    checks[me]:[0] = bad;
#else
    checks[me] = bad;
#pragma acc update device(checks)
#endif
#pragma xmp sync_all

    if (me == 0) {
        /* every image's block, device to host, and the ring's last point as one element */
        for (k = 0; k < n; k++) {
#ifdef _XCALABLEMP
#pragma acc host_data use_device(u)
            all[k * nl:nl] = u[H:nl]:[k];
#else
            for (i = 0; i < nl; i++)
                all[k * nl + i] = u[H + i];
#endif
        }
#ifdef _XCALABLEMP
#pragma acc host_data use_device(u)
        last = u[H + nl - 1]:[n - 1];
#else
        last = u[H + nl - 1];
#endif
#pragma acc update host(checks)
        for (k = 0; k < n; k++)
            reported += checks[k];
        for (i = 0; i < N; i++)
            sum += (i + 1) * all[i];
        printf("heat: sum = %.12e, u[10] = %.12f, u[%d] = %.12f (last %.12f)\n", sum, all[10], N - 1,
               all[N - 1], last);
        printf("halo mismatches: %d\n", reported);
    }
#pragma xmp sync_all
    return 0;
}
