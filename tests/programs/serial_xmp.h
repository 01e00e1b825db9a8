/* serial_xmp.h: the xmp.h functions for the serial build of a test program (one node,
 * every task runs on it).  Programs include it only when _XCALABLEMP is not defined:
 *     #ifdef _XCALABLEMP
 *     #include <xmp.h>
 *     #else
 *     #include "serial_xmp.h"
 *     #endif
 */
#ifndef SERIAL_XMP_H
#define SERIAL_XMP_H
#include <time.h>

static int xmp_node_num(void) { return 1; }
static int xmpc_node_num(void) { return 0; }
static int xmp_num_nodes(void) { return 1; }
static int xmp_all_node_num(void) { return 1; }
static int xmpc_all_node_num(void) { return 0; }
static int xmp_all_num_nodes(void) { return 1; }
static double xmp_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double xmp_wtick(void) { return 1e-9; }
static int xmp_test_async(int async_id) { (void)async_id; return 1; }
#endif
