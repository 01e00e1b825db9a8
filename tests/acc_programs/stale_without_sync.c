/* A kernel writes b on the device; without 'replicate_sync out (b)' the host keeps
 * its old values.  The serial build has no device, so it prints the new ones: this
 * program is the one case where the XMP-ACC run must differ, and the test checks that
 * the host backend shows the same stale data a GPU would. */
#include <stdio.h>
#define N 40
int b[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align b[i] with t[i]

int main(void)
{
    int i, s = 0;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        b[i] = 1;
#pragma xmp acc replicate (b)
    {
#pragma xmp acc replicate_sync in (b)
#pragma xmp loop on t[i] acc
        for (i = 0; i < N; i++)
            b[i] = 2;
        /* no replicate_sync out (b): the host still has 1s */
    }
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++)
        s += b[i];
#pragma xmp task on p[0]
    printf("sum = %d\n", s);
    return 0;
}
