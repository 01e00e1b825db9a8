/* post/wait, sync_images, lock/unlock and critical (global-view §11): a token passed
 * around the ring of images with post/wait, a counter on image 0 incremented by every image
 * under a lock and under critical, and a 2-D coindex.  Image 0 prints the results. */
#include <stdio.h>
#include <xmp.h>

#pragma xmp nodes p[*]
int token:[*];
int counter:[*];
int total:[*];
int grid[2]:[2][*];
xmp_lock_t l:[*];

int main(void)
{
    int me = xmpc_this_image(), n = xmp_num_images();
    token = 0;
    counter = 0;
    total = 0;
#pragma xmp sync_all
    /* the token goes 0 -> 1 -> ... -> n-1 -> 0, one increment per image */
    if (me == 0) {
        token:[1 % n] = 1;
#pragma xmp post (p[1 % n], 7)
#pragma xmp wait (p[n - 1], 7)
        printf("token %d\n", token);
    } else {
#pragma xmp wait (p[me - 1])
        token:[(me + 1) % n] = token + 1;
#pragma xmp post (p[(me + 1) % n], 7)
    }
    for (int r = 0; r < 5; r++) {
#pragma xmp lock (l:[0])
        int c = counter:[0];
        counter:[0] = c + 1;
#pragma xmp unlock (l:[0])
#pragma xmp critical
        total:[0] = total:[0] + me;
#pragma xmp end critical
    }
    grid[0] = me;
    grid[1] = 2 * me;
#pragma xmp sync_images (*)
    if (me == 0) {
        printf("counter %d total %d\n", counter, total);
        int sum = 0;
        for (int i = 0; i < 2 && i * ((n + 1) / 2) < n; i++)
            for (int j = 0; j < (n + 1) / 2 && i * ((n + 1) / 2) + j < n; j++)
                sum += grid[1]:[i][j];
        printf("grid %d\n", sum);
    }
    if (n > 1 && me < 2) {
        int other = 1 - me;
#pragma xmp sync_images (other)
        if (me == 0)
            printf("pair done\n");
    }
#pragma xmp sync_memory
#pragma xmp sync_all
    return 0;
}
