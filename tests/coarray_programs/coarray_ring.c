/* Coarray puts and gets of elements and sections (global-view §11): every image puts into
 * its right neighbour, then image 0 gets every image's copy and prints it.  The expected
 * output depends on the number of images: tests/test_coarrays.py computes it. */
#include <stdio.h>
#include <xmp.h>

#define N 12
int a[N]:[*];
double d[3][4]:[*];
int s:[*];
long flag:[*];

int main(void)
{
    int me = xmpc_this_image(), n = xmp_num_images();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int v[6];
    double row[4], col[3];
    for (int i = 0; i < N; i++)
        a[i] = -1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            d[i][j] = 0.0;
    for (int j = 0; j < 6; j++)
        v[j] = me * 100 + j;
    for (int j = 0; j < 4; j++)
        row[j] = me + 0.25 * j;
    for (int i = 0; i < 3; i++)
        col[i] = -(me + 1) * (i + 1);
#pragma xmp sync_all
    a[0:6:2]:[right] = v[0:6];          /* a strided section */
    a[11]:[right] = me;                 /* an element */
    a[9:2]:[right] = 42;                /* a scalar into every element of a section */
    d[1][0:4]:[right] = row[0:4];       /* a row */
    d[0:2:2][3]:[left] = col[0:2];      /* rows 0 and 2 of a column, into the left neighbour */
    s:[right] = 10 * me;                /* a scalar coarray */
    s:[right] += 1;                     /* read, add, write back */
#pragma xmp sync_all
    if (me == 0) {
        for (int k = 0; k < n; k++) {
            int buf[N], back[4];
            double loc[3][4];
            buf[0:N] = a[0:N]:[k];
            back[0:4] = a[10:4:-2]:[k];  /* a negative step: a[10], a[8], a[6], a[4] */
            loc[0:3][0:4] = d[0:3][0:4]:[k];
            double sum = 0.0;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++)
                    sum += (i + 1) * loc[i][j];
            printf("image %d: s=%d a=", k, s:[k]);
            for (int i = 0; i < N; i++)
                printf("%d ", buf[i]);
            printf("back=%d %d %d %d d=%.2f last=%d\n", back[0], back[1], back[2], back[3], sum,
                   a[N - 1]:[k] + 0 * a[0]:[k]);
        }
    }
#pragma xmp sync_all
    return 0;
}
