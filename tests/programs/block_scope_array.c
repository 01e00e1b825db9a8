/* A distributed array declared inside a function that runs many times, sometimes
 * leaving early through a return: its local buffer must be freed on every exit
 * (no leak, no crash, no stale descriptor). */
#include <stdio.h>

#define N 1000

#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p

static double work(int round)
{
    double b[N];
#pragma xmp align b[i] with t[i]
    double s = 0.0;
    int i;

#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        b[i] = round + 0.001 * i;
    if (round % 3 == 0)
        return -1.0;          /* early return: b's buffer must still be released */
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++)
        s += b[i];
    return s;
}

int main(void)
{
    int r;
    double total = 0.0;
    for (r = 0; r < 300; r++)
        total += work(r);
#pragma xmp task on p[0]
    printf("total = %.6f\n", total);
    return 0;
}
