/* XMP-ACC features beyond the samples: a file-scope acc replicate, 2-D block x block
 * distribution with shadows on a 2 x 2 node grid (run with 4 processes), a 2-D acc
 * loop, reductions of several kinds on the GPU, private and firstprivate scalars,
 * num_threads, a replicated local array and a replicated scalar. */
#include <stdio.h>
#include <math.h>

#define NX 18
#define NY 13

double u[NX][NY], w[NX][NY];
double coef[3] = {0.5, 0.25, 0.125};
double scale = 2.0;

#pragma xmp nodes p[2][2]
#pragma xmp template t[NX][NY]
#pragma xmp distribute t[block][block] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align w[i][j] with t[i][j]
#pragma xmp shadow u[1][1]
#pragma xmp acc replicate (coef, scale)

int main(void)
{
    int i, j;
    double total = 0.0, biggest = -1.0e30, smallest = 1.0e30;
    long count = 0;
    int all_pos = 1, any_big = 0, bits = 0;
    double tmp, off = 0.5;

#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++)
            u[i][j] = sin(0.3 * i) + cos(0.2 * j) + 0.01 * i * j;
#pragma xmp acc replicate_sync in (coef, scale)

#pragma xmp reflect (u)
#pragma xmp acc replicate (u, w)
    {
#pragma xmp acc replicate_sync in (u)
#pragma xmp loop (i, j) on t[i][j] acc private(tmp) firstprivate(off) num_threads(8, 8)
        for (i = 1; i < NX - 1; i++)
            for (j = 1; j < NY - 1; j++) {
                tmp = coef[0] * u[i][j] + coef[1] * (u[i - 1][j] + u[i + 1][j])
                      + coef[2] * (u[i][j - 1] + u[i][j + 1] + u[i - 1][j - 1] + u[i + 1][j + 1]);
                w[i][j] = scale * tmp + off;
            }
#pragma xmp loop (i, j) on t[i][j] reduction(+:total, count) reduction(max:biggest) reduction(min:smallest) reduction(&&:all_pos) reduction(||:any_big) reduction(|:bits) acc
        for (i = 1; i < NX - 1; i++)
            for (j = 1; j < NY - 1; j++) {
                total += w[i][j];
                count += 1;
                biggest = fmax(biggest, w[i][j]);
                smallest = fmin(smallest, w[i][j]);
                all_pos = all_pos && (w[i][j] > -100.0);
                any_big = any_big || (w[i][j] > 4.0);
                bits = bits | (1 << (i % 5));
            }
    }
#pragma xmp task on p[0][0]
    {
        printf("total = %.12e count = %ld\n", total, count);
        printf("max = %.12e min = %.12e\n", biggest, smallest);
        printf("all_pos = %d any_big = %d bits = %d\n", all_pos, any_big, bits);
    }
    return 0;
}
