/* The image control of the local view called as functions of xmp.h, as NPB's local-view
 * ports call them (xmp_sync_all(NULL) completes their puts), and Omni-style MPI next to
 * XMP: xmp.h brings <mpi.h>, used inside #ifdef _XCALABLEMP.  Every function is called
 * with a status and with NULL.  Image 0 prints one line per image: 127 when all of its
 * checks passed (one bit each). */
#include <stdio.h>
#include <string.h>
#include <xmp.h>

#define MAX_IMAGES 64

double halo[2]:[*];           /* [0] from the left neighbour, [1] from the right one */
int pair:[*];
int report[MAX_IMAGES]:[*];   /* on image 0: one word per image */

int main(void)
{
    int me = xmpc_this_image(), n = xmp_num_images();
    int left = (me + n - 1) % n, right = (me + 1) % n;
    int neighbours[2] = {left, right};
    int partner = (me ^ 1) < n ? (me ^ 1) : me;   /* pairs 0-1, 2-3; an odd last one alone */
    int st, bad = 0, mpi_ok = 0, ok1, ok2, ok3;

#ifdef _XCALABLEMP
    {
        char name[MPI_MAX_PROCESSOR_NAME];
        int len = 0, rank = -1, size = 0;
        MPI_Get_processor_name(name, &len);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(xmp_get_mpi_comm(), &size);
        mpi_ok = len > 0 && (int)strlen(name) == len && rank == me && size == n && MPI_Wtime() > 0.0;
    }
#endif

    /* puts to both neighbours, completed by sync all */
    halo[1]:[left] = 10.0 * me;
    halo[0]:[right] = 10.0 * me + 1;
    st = -1;
    xmp_sync_all(&st);
    bad += st != 0;
    ok1 = halo[0] == 10.0 * left + 1 && halo[1] == 10.0 * right;
    xmp_sync_all(NULL);   /* every image has read its halo before the next puts */

    /* the same with the two neighbours only */
    halo[1]:[left] = 20.0 * me;
    halo[0]:[right] = 20.0 * me + 1;
    st = -1;
    xmp_sync_memory(&st);
    bad += st != 0;
    st = -1;
    xmp_sync_images(2, neighbours, &st);
    bad += st != 0;
    ok2 = halo[0] == 20.0 * left + 1 && halo[1] == 20.0 * right;
    xmp_sync_images(2, neighbours, NULL);

    /* pairs of images */
    pair:[partner] = 100 + me;
    xmp_sync_memory(NULL);
    st = -1;
    xmp_sync_image(partner, &st);
    bad += st != 0;
    ok3 = pair == 100 + partner;
    xmp_sync_image(partner, NULL);

    /* every image reports to image 0, which syncs with all of them */
    report[me]:[0] = ok1 + 2 * ok2 + 4 * ok3 + 8 * mpi_ok + 16 * (bad == 0)
                     + 32 * (xmp_this_image() == me + 1) + 64 * (xmp_num_nodes() == n);
    st = -1;
    xmp_sync_images_all(&st);
    if (me == 0) {
        for (int k = 0; k < n && k < MAX_IMAGES; k++)
            printf("image %d: %d\n", k, report[k]);
        printf("status %d\n", st);
    }
    xmp_sync_images_all(NULL);
    return 0;
}
