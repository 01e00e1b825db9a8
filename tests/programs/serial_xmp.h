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

/* Dynamic arrays (global-view §4): one node holds everything.  The "descriptor" of a
 * pointer is the size of what it points to; xmp_malloc allocates the product of the
 * extents times that (for double (*a)[M] more than needed, which does no harm). */
#include <stdlib.h>
typedef void *xmp_desc_t;
#define xmp_desc_of(x) ((xmp_desc_t)(size_t)sizeof(*(x)))
static void *serial_xmp_malloc(size_t elem, const size_t *extents, size_t n)
{
    size_t bytes = elem;
    for (size_t k = 0; k < n; k++)
        bytes *= extents[k];
    return calloc(bytes ? bytes : 1, 1);
}
#define xmp_malloc(d, ...) serial_xmp_malloc((size_t)(d), (const size_t[]){__VA_ARGS__}, \
    sizeof((const size_t[]){__VA_ARGS__}) / sizeof(size_t))
static void xmp_free(void *p) { free(p); }
#endif
