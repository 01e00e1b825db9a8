/* Coarrays on the device (XcalableACC §5a) with the other image-control statements: a token
 * array passed down the images on their devices with post/wait (each image adds to it in a
 * kernel, then puts it into the next image's device copy), the last image's token into
 * image 0's device copy and sync_images, a device counter on image 0 incremented under a
 * lock and in a critical section, and moves between device copies and host coarrays.
 * Image 0 prints the results; tests/test_device_coarrays.py computes them. */
#include <stdio.h>
#include <xmp.h>

#define M 6
#pragma xmp nodes p[*]
int tok[M]:[*];            /* on the device: the token */
int res[M]:[*];            /* on the device of image 0: the last image's token */
long counter[2]:[*];       /* on the device of image 0: lock and critical counters */
int host_tok[M]:[*];       /* host coarray: each image's token, put from its device copy */
xmp_lock_t lk:[*];
int d[M];                  /* an ordinary array with a device copy */
#pragma acc declare create(tok, res, counter) copyin(d)

int main(void)
{
    int me = xmpc_this_image(), n = xmp_num_images();
    int i;

#pragma acc parallel loop present(tok)
    for (i = 0; i < M; i++)
        tok[i] = 0;
    if (me == 0) {
#pragma acc parallel loop present(counter)
        for (i = 0; i < 2; i++)
            counter[i] = 0;
    }
#pragma xmp sync_all

    /* the token: from image me - 1, a kernel adds to it, on to image me + 1 */
    if (me > 0) {
#pragma xmp wait (p[me - 1], 3)
    }
#pragma acc parallel loop present(tok)
    for (i = 0; i < M; i++)
        tok[i] += (me + 1) * (i + 1);
#pragma acc host_data use_device(tok, res)
    {
        if (me < n - 1)
            tok[0:M]:[me + 1] = tok[0:M];
        else
            res[0:M]:[0] = tok[0:M];
        host_tok[0:M]:[me] = tok[0:M];          /* device to this image's host coarray */
    }
    if (me < n - 1) {
#pragma xmp post (p[me + 1], 3)
    }
    if (me == n - 1) {
#pragma xmp sync_images (0)
    }
    if (me == 0) {
#pragma xmp sync_images (n - 1)
#pragma acc update host(res)
        printf("token:");
        for (i = 0; i < M; i++)
            printf(" %d", res[i]);
        printf("\n");
    }

    /* a counter on image 0's device, read and written under a lock and in critical */
    for (i = 0; i < 3; i++) {
#pragma xmp lock (lk:[0])
#pragma acc host_data use_device(counter)
        counter[0]:[0] += me + 1;
#pragma xmp unlock (lk:[0])
#pragma xmp critical
#pragma acc host_data use_device(counter)
        {
            long c = counter[1]:[0];
            counter[1]:[0] = c + 10 * (me + 1);
        }
#pragma xmp end critical
    }
#pragma xmp sync_memory
#pragma xmp sync_all

    /* image 0 gets the last image's host coarray into its device copy of d */
    if (me == 0) {
#pragma acc host_data use_device(d)
        d[0:M] = host_tok[0:M]:[n - 1];
#pragma acc update host(counter, d)
        printf("counters: %ld %ld\n", counter[0], counter[1]);
        printf("host_tok:");
        for (i = 0; i < M; i++)
            printf(" %d", d[i]);
        printf("\n");
    }
#pragma xmp sync_all
    return 0;
}
