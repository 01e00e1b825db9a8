/* What every program of bench/spelling/ starts with: stdio, xmp.h -- or, built by a plain C
 * compiler (the serial version, pragmas ignored), the few XMP functions the programs call --
 * and the default spelling. */
#ifndef SPELLING_H
#define SPELLING_H
#include <stdio.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include <time.h>
static int xmpc_node_num(void) { return 0; }
static int xmp_all_num_nodes(void) { return 1; }
static double xmp_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif
#ifndef SPELLING
#define SPELLING 1
#endif
#endif
