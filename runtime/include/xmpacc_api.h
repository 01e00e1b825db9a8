/* xmpacc_api.h: the XcalableMP C API (XMP 1.4 ch. 7 and the local view's functions)
 * without MPI.  xmp.h is <mpi.h> plus this header; xmpacc also gives it to every file it
 * translates (preprocess.py), as Omni declares the API for every file, so a file with
 * directives may call xmp_num_nodes() without including xmp.h.  C89 throughout: it is
 * read under the user's -std.
 * Node numbers follow the XcalableMP specification: xmp_* are 1-based, xmpc_* 0-based. */
#ifndef XMPACC_API_H
#define XMPACC_API_H

#include <stddef.h>

typedef void *xmp_desc_t;
/* A lock for '#pragma xmp lock (l:[k])': declare it as a coarray (xmp_lock_t l:[*];). */
typedef struct { long long _xmpacc_owner; } xmp_lock_t;

#define XMP_NOT_DISTRIBUTED 2100
#define XMP_BLOCK 2101
#define XMP_CYCLIC 2102
#define XMP_GBLOCK 2103

int xmp_node_num(void);       /* 1-based number in the executing node set */
int xmpc_node_num(void);      /* 0-based number in the executing node set */
int xmp_num_nodes(void);      /* size of the executing node set */
int xmp_all_node_num(void);   /* 1-based number in the entire node set */
int xmpc_all_node_num(void);  /* 0-based number in the entire node set (MPI world rank) */
int xmp_all_num_nodes(void);  /* size of the entire node set */
double xmp_wtime(void);       /* wall-clock seconds, not synchronised between nodes */
double xmp_wtick(void);       /* resolution of xmp_wtime */
int xmp_num_images(void);     /* alias of xmp_num_nodes */
int xmp_this_image(void);     /* alias of xmp_node_num (1-based) */
int xmpc_this_image(void);    /* alias of xmpc_node_num (0-based, as coindices are in C) */
void xmp_barrier(void);       /* barrier on the executing node set */
void xmp_exit(int status);    /* end the whole job with this status */
int xmp_get_gpu_count(void);  /* number of GPUs this process can see */
int xmp_test_async(int async_id); /* 1 if the operations started with async (id) are complete */

/* ---- dynamic global data (global-view §4).  xmp_desc_of(x) is an operator: the
 * descriptor of the distributed array, template or node array x. */
void *xmp_malloc(xmp_desc_t d, ...);  /* one extent per dimension of an aligned pointer */
void xmp_free(void *p);               /* a block xmp_malloc returned */

/* ---- mapping inquiry (XMP ch. 7).  Results through the pointer arguments; the return
 * value is 0 on success, -1 for a bad descriptor (NULL or of another kind), -2 for a bad
 * dimension or index, -3 when the object is not fixed, distributed or allocated yet.
 * Dimension numbers are 1-based, as Omni counts them: a node array's and a template's in
 * Fortran order (as a parenthesised declaration writes them; a bracketed one counts from
 * its last), an array's in C order. */
#define XMP_ENTIRE_NODES 2000
#define XMP_EXECUTING_NODES 2001
#define XMP_PRIMARY_NODES 2002
#define XMP_EQUIVALENCE_NODES 2003

int xmp_nodes_ndims(xmp_desc_t d, int *ndims);
int xmp_nodes_index(xmp_desc_t d, int dim, int *index);    /* this node's index, 1-based */
int xmpc_nodes_index(xmp_desc_t d, int dim, int *index);   /* the same, 0-based */
int xmp_nodes_size(xmp_desc_t d, int dim, int *size);
int xmp_nodes_attr(xmp_desc_t d, int *attr);               /* XMP_*_NODES */
int xmp_nodes_equiv(xmp_desc_t d, xmp_desc_t *dn, int lb[], int ub[], int st[]);
int xmp_template_fixed(xmp_desc_t d, int *fixed);
int xmp_template_ndims(xmp_desc_t d, int *ndims);
int xmp_template_lbound(xmp_desc_t d, int dim, int *lbound);
int xmp_template_ubound(xmp_desc_t d, int dim, int *ubound);
int xmp_dist_format(xmp_desc_t d, int dim, int *format);   /* XMP_BLOCK, XMP_CYCLIC, ... */
int xmp_dist_blocksize(xmp_desc_t d, int dim, int *blocksize);
int xmp_dist_gblockmap(xmp_desc_t d, int dim, int *map);
int xmp_dist_nodes(xmp_desc_t d, xmp_desc_t *dn);
int xmp_dist_axis(xmp_desc_t d, int dim, int *axis);       /* node dimension; 0: not distributed */
int xmp_align_axis(xmp_desc_t d, int dim, int *axis);      /* template dimension; 0: collapsed */
int xmp_align_offset(xmp_desc_t d, int dim, int *offset);
int xmp_align_replicated(xmp_desc_t d, int dim, int *replicated);  /* dim: of the template */
int xmp_align_template(xmp_desc_t d, xmp_desc_t *dt);
int xmp_array_ndims(xmp_desc_t d, int *ndims);
int xmp_array_lbound(xmp_desc_t d, int dim, int *lbound);
int xmp_array_ubound(xmp_desc_t d, int dim, int *ubound);
int xmp_array_lshadow(xmp_desc_t d, int dim, int *lshadow);
int xmp_array_ushadow(xmp_desc_t d, int dim, int *ushadow);
int xmp_array_gtol(xmp_desc_t d, int dim, int g_idx, int *l_idx);
int xmp_array_lsize(xmp_desc_t d, int dim, int *lsize);    /* owned elements, no shadow */
int xmp_array_laddr(xmp_desc_t d, void **laddr);
int xmp_array_lda(xmp_desc_t d, int *lda);                 /* allocated extent of the last dimension */
int xmp_array_type_size(xmp_desc_t d, size_t *size);

/* ---- collective intrinsics (global-view §9, XMP ch. 7).  Every argument but
 * xmp_transpose's opt is xmp_desc_of(array) of an aligned array; they are collective over
 * the executing node set and mean the Fortran intrinsic on the global arrays, in C's
 * row-major element order with 0-based index values. */
void xmp_gather(xmp_desc_t x, xmp_desc_t a, ...);   /* x[k] = a[i1[k]]...[in[k]], ... = i1..in */
void xmp_scatter(xmp_desc_t x, xmp_desc_t a, ...);  /* x[i1[k]]...[in[k]] = a[k] */
void xmp_pack(xmp_desc_t v, xmp_desc_t a, xmp_desc_t mask);    /* v[0:n] = a where mask != 0 */
void xmp_unpack(xmp_desc_t a, xmp_desc_t v, xmp_desc_t mask);  /* a where mask != 0 = v[0:n] */
void xmp_transpose(xmp_desc_t dst, xmp_desc_t src, int opt);   /* dst[i][j] = src[j][i] */
void xmp_matmul(xmp_desc_t c, xmp_desc_t a, xmp_desc_t b);     /* c = a b */
void xmp_sort_up(xmp_desc_t dst, xmp_desc_t src);              /* dst = src, ascending */
void xmp_sort_down(xmp_desc_t dst, xmp_desc_t src);            /* dst = src, descending */

/* ---- MPI interoperability (global-view §9): the runtime owns MPI (initialised before
 * main, finalised after it); these succeed and do nothing.  xmp_init takes an optional
 * communicator argument (an unprototyped declaration accepts both forms). */
void xmp_init_mpi(int *argc, char ***argv);
void xmp_finalize_mpi(void);
void xmp_init();
void xmp_finalize(void);

/* ---- image control of the local view as functions (XMP 1.4, local view): what the
 * directives sync_memory, sync_all and sync_images do.  Images are numbered from 0, as
 * in coindices (xmpc_this_image()).  status may be NULL; otherwise it receives 0
 * (success: a failure ends the job with a message instead). */
void xmp_sync_memory(int *status);
void xmp_sync_all(int *status);
void xmp_sync_image(int image, int *status);
void xmp_sync_images(int num, int *image_set, int *status);
void xmp_sync_images_all(int *status);

#endif

/* After <mpi.h>: xmp_get_mpi_comm(), the executing node set's communicator.  Outside the
 * include guard, so that it comes in either order: xmp.h includes <mpi.h> first, and the
 * generated C of a file that includes only <mpi.h> includes this header after it.  An
 * inline function: the runtime's C is compiled without <mpi.h>, whose MPI_Comm is an int
 * in MPICH and a pointer in Open MPI. */
#if defined(MPI_VERSION) && !defined(_XMPACC_XMP_H_MPI)
#define _XMPACC_XMP_H_MPI
#include <stdint.h>
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define _XMPACC_INLINE inline
#else
#define _XMPACC_INLINE __inline__   /* -std=c89: GCC's and Clang's spelling */
#endif
long long _xmpacc_mpi_comm(void);
static _XMPACC_INLINE MPI_Comm xmp_get_mpi_comm(void) { return (MPI_Comm)(intptr_t)_xmpacc_mpi_comm(); }
#endif
