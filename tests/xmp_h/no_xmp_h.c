/* A file that calls the XMP library without including xmp.h, as Omni compiles it: in
 * code (xmp_num_nodes(), xmp_wtime(), xmp_malloc(xmp_desc_of(a), ...)) and in directive
 * expressions (the template's extent, a task's and a bcast's node).  The template grows
 * with the number of nodes, so what it prints is divided by it: the serial build (one
 * node, serial_xmp.h) prints the same. */
#include <stdio.h>
#ifndef _XCALABLEMP
#include "../programs/serial_xmp.h"
#endif

#define PER 6

/* a declaration of the program's own, compatible with the API's */
double xmp_wtime();

#pragma xmp nodes p[*]
#pragma xmp template t[0:xmp_num_nodes() * PER - 1]
#pragma xmp distribute t[block] onto p
double *a;
#pragma xmp align a[i] with t[i]

int main(void)
{
    int n = xmp_num_nodes(), i, count = 0, last = -1;
    double sum = 0.0, t0 = xmp_wtime();

    a = (double *) xmp_malloc(xmp_desc_of(a), n * PER);
#pragma xmp loop (i) on t[i]
    for (i = 0; i < n * PER; i++)
        a[i] = i % PER + 0.25;
#pragma xmp loop (i) on t[i] reduction (+:sum, count)
    for (i = 0; i < n * PER; i++) {
        sum += a[i];
        count++;
    }
#pragma xmp task on p[xmp_num_nodes() - 1]
    {
        last = xmp_node_num() * 100 + xmp_num_nodes();   /* node 1 of 1 inside the task */
    }
#pragma xmp bcast (last) from p[xmp_num_nodes() - 1]
    if (xmp_node_num() == 1)
        printf("elements per node %d, mean %.3f, sum per node %.3f, task %d, time ok %d\n",
               count / n, sum / count, sum / n, last, xmp_wtime() >= t0);
    xmp_free(a);
    return 0;
}
