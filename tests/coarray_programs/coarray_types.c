/* Coarrays of other element types and shapes (global-view §11): a structure, a 2-D array
 * with strided sections on both sides, a scalar get into every element of a local section,
 * an extern declaration before the definition and the 'coarray' directive.  Image 0 prints
 * what it got. */
#include <stdio.h>
#include <xmp.h>

struct point { double x, y; int tag; };
extern struct point pts[4]:[*];
struct point pts[4]:[*];
float g[4][6]:[*];
char name[8]:[*];
long hits[2];
#pragma xmp coarray hits : [*]

int main(void)
{
    int me = xmpc_this_image(), n = xmp_num_images();
    for (int i = 0; i < 4; i++) {
        pts[i].x = me + i;
        pts[i].y = -me;
        pts[i].tag = 10 * me + i;
        for (int j = 0; j < 6; j++)
            g[i][j] = 0.0f;
    }
    snprintf(name, sizeof name, "img%d", me);
    hits[0] = me * me;
    hits[1] = 0;
    float block[2][3];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            block[i][j] = 100 * me + 10 * i + j;
#pragma xmp sync_all
    /* rows 1 and 3, columns 0, 2, 4 of image (me+1)%n get my block */
    g[1:2:2][0:3:2]:[(me + 1) % n] = block[0:2][0:3];
#pragma xmp sync_all
    if (me == 0) {
        for (int k = 0; k < n; k++) {
            struct point p = pts[2]:[k];
            double y = pts[1]:[k].y;
            int tags[3];
            tags[0:3] = pts[3]:[k].tag * 0 + 7;     /* a get inside a scalar expression */
            float row[3], col[2];
            row[0:3] = g[3][0:3:2]:[k];
            col[0:2] = g[1:2:2][4]:[k];
            char who[8];
            who[0:8] = name[0:8]:[k];
            int fill[4];
            fill[0:4] = pts[0]:[k].tag;              /* one element into every element */
            printf("%d: p=(%.1f %.1f %d) y=%.1f tags=%d %d row=%.0f %.0f %.0f col=%.0f %.0f who=%s fill=%d %d"
                   " hits=%ld\n", k, p.x, p.y, p.tag, y, tags[0], tags[2], row[0], row[1], row[2], col[0],
                   col[1], who, fill[0], fill[3], hits[0]:[k]);
        }
    }
#pragma xmp sync_all
    return 0;
}
