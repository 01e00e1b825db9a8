/* A program in four files (see field.h), built file by file and in one command, under
 * 1-4 processes; it prints what its serial build prints. */
#include <stdio.h>
#include "field.h"
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif

double u[NX][NY], unew[NX][NY];

int main(void)
{
    int i, j;
    double err, sum = 0.0;

    init_field();
    err = relax(15);
#pragma xmp loop (i, j) on t[i][j] reduction(+:sum)
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++)
            sum += u[i][j] * weight(i, j);
    if (xmpc_node_num() == 0)
        printf("last change = %.10e\nweighted sum = %.10e\n", err, sum);
    return 0;
}
