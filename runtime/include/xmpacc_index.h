/* xmpacc_index.h: the macros that generated subscripts use, on the host and in kernels.
 * A subscript a[i][j] of a distributed array becomes
 *     a[_XMPACC_AT2(desc, _XMPACC_L(desc, 0, i), _XMPACC_L(desc, 1, j))]
 * where desc is the array's descriptor (_xmpacc_array_t).  A checked build
 * (-D_XMPACC_CHECK) takes checked versions of the same macros from xmpacc_check.h. */
#ifndef XMPACC_INDEX_H
#define XMPACC_INDEX_H

#include "xmpacc_dist.h"

#ifdef _XMPACC_CHECK
#include "xmpacc_check.h"
#else

/* Local index of global index g in dimension d of array descriptor a. */
#define _XMPACC_L(a, d, g) ((g) - (a).dim[d].gtol)                       /* block, gblock, none */
#define _XMPACC_LC(a, d, g) _xmpacc_loc_cyclic(&(a), (d), (g))            /* cyclic, cyclic(w) */
/* A kernel's subscript of an array whose pointer it rebased (kernels.py): g itself. */
#define _XMPACC_G(a, d, g) (g)

/* An access through an aligned pointer (xmp_malloc): its flat offset, once the pointer is
 * allocated; before, the runtime reports the access at its line and ends the job.  Kernels
 * skip the test (acc replicate has checked the array already). */
#ifdef XMPACC_KERNEL_H
#define _XMPACC_LIVE(a, where, off) (off)
#else
#define _XMPACC_LIVE(a, where, off) ((a).id ? (off) : _xmpacc_not_ready(&(a), where))
#endif

/* Row-major offset of local indices in the local buffer of a. */
#define _XMPACC_AT2(a, l0, l1) ((l0) * (a).dim[1].lext + (l1))
#define _XMPACC_AT3(a, l0, l1, l2) (_XMPACC_AT2(a, l0, l1) * (a).dim[2].lext + (l2))
#define _XMPACC_AT4(a, l0, l1, l2, l3) (_XMPACC_AT3(a, l0, l1, l2) * (a).dim[3].lext + (l3))
#define _XMPACC_AT5(a, l0, l1, l2, l3, l4) (_XMPACC_AT4(a, l0, l1, l2, l3) * (a).dim[4].lext + (l4))
#define _XMPACC_AT6(a, l0, l1, l2, l3, l4, l5) \
  (_XMPACC_AT5(a, l0, l1, l2, l3, l4) * (a).dim[5].lext + (l5))
#define _XMPACC_AT7(a, l0, l1, l2, l3, l4, l5, l6) \
  (_XMPACC_AT6(a, l0, l1, l2, l3, l4, l5) * (a).dim[6].lext + (l6))

#endif
#endif
