/* 2-D reflect: a block x block array with shadow [1][1] on nodes p[2][2].  Each element
 * is 1000*i+j; after reflect every node reads all 8 neighbours of its owned elements,
 * corners included, and checks them.  The checksum equals the serial program's. */
#include <stdio.h>

#define N 10

double a[N][N];
#pragma xmp nodes p[2][2]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][block] onto p
#pragma xmp align a[i][j] with t[i][j]
#pragma xmp shadow a[1][1]

int main(void)
{
    int i, j, di, dj, bad = 0, reads = 0;
    double sum = 0.0;

#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            a[i][j] = 1000.0 * i + j;

#pragma xmp reflect (a)

#pragma xmp loop (i, j) on t[i][j] reduction(+:sum, bad, reads)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            for (di = -1; di <= 1; di++)
                for (dj = -1; dj <= 1; dj++) {
                    int y = i + di, x = j + dj;
                    if ((di == 0 && dj == 0) || y < 0 || y >= N || x < 0 || x >= N)
                        continue;
                    sum += a[y][x];
                    bad += a[y][x] != 1000.0 * y + x;
                    reads++;
                }

#pragma xmp task on p[0][0]
    printf("neighbour reads = %d  checksum = %.1f  wrong = %d\n", reads, sum, bad);
    return 0;
}
