/* Coarray dummy arguments (a function's coarray parameter refers to the caller's coarray)
 * with qualifiers in their brackets, as NPB CG's local-view port writes them; a prototype
 * before the definition; a '[*]' dummy of a coarray with two codimensions (its image
 * index is the image); a file-scope coarray with 'restrict' in its brackets. */
#include <stdio.h>
#include <xmp.h>

#define N 6
#pragma xmp nodes p[*]

double w[restrict N]:[*];      /* the qualifier is dropped: C allows it only in a parameter */
int g[4]:[2][*];
double res[2]:[*];             /* what each image found, printed by image 0 */
int squares:[*];

static double exchange(int n, double v[restrict n]:[*], int right, int me);

static void fill(int n, double v[restrict n]:[*], int me)
{
    int i;
    for (i = 0; i < n; i++)
        v[i] = 10.0 * me + i;
}

/* the sum of all images' h[1] */
static int total(const int h[]:[*], int images)
{
    int k, s = 0;
    for (k = 0; k < images; k++)
        s += h[1]:[k];
    return s;
}

int main(void)
{
    int me = xmpc_this_image(), n = xmp_num_images(), k;

    fill(N, w, me);
    g[1] = me * me;
#pragma xmp sync_all
    res[0] = exchange(N, w, (me + 1) % n, me);
    res[1] = w[N - 1];
    squares = total(g, n);
#pragma xmp sync_all
    if (me == 0)
        for (k = 0; k < n; k++)
            printf("image %d: got %.1f last %.1f squares %d\n", k, res[0]:[k], res[1]:[k], squares:[k]);
#pragma xmp sync_all
    return 0;
}

/* v[0:2] of the right neighbour, and -(me + 1) into its v[n - 1] */
static double exchange(int n, double v[restrict n]:[*], int right, int me)
{
    double b[2];
    b[0:2] = v[0:2]:[right];
#pragma xmp sync_all
    v[n - 1]:[right] = -(me + 1);
#pragma xmp sync_all
    return b[0] + b[1];
}
