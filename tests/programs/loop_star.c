/* loop (j, i) on t[j][i] and loop (j) on t[j][*] on a block x block template over
 * p[2][2] (reference section 11, example 4): with t[j][*] the nodes of a row of p run the
 * same j iterations, so a reduction combines only across the first node dimension, and
 * the initial value is counted once. */
#include <stdio.h>

#define NJ 8
#define NI 6

double a[NJ][NI];
#pragma xmp nodes p[2][2]
#pragma xmp template t[NJ][NI]
#pragma xmp distribute t[block][block] onto p
#pragma xmp align a[j][i] with t[j][i]

int main(void)
{
    int i, j;
    double s2 = 10.0, srow = 100.0;
    long cells = 0, jcount = 0;

#pragma xmp loop (j, i) on t[j][i] reduction(+:s2, cells)
    for (j = 0; j < NJ; j++)
        for (i = 0; i < NI; i++) {
            a[j][i] = j * 10.0 + i;
            s2 += a[j][i];
            cells++;
        }

    /* the i loop is not distributed: every node of a row does all of it */
#pragma xmp loop (j) on t[j][*] reduction(+:srow, jcount)
    for (j = 0; j < NJ; j++) {
        jcount++;
        for (i = 0; i < NI; i++)
            srow += j * 10.0 + i;
    }

#pragma xmp task on p[1][1]
    printf("2-D loop: sum = %.1f cells = %ld; loop on t[j][*]: sum = %.1f j count = %ld\n",
           s2, cells, srow, jcount);
    return 0;
}
