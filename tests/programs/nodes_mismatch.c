/* nodes p(4) needs exactly 4 processes: on any other count rank 0 reports both numbers
 * and the job exits with a non-zero status. */
#include <stdio.h>

#pragma xmp nodes p(4)

int main(void)
{
    printf("running\n");
    return 0;
}
