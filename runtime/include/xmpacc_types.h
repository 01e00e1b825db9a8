/* xmpacc_types.h: the descriptors shared by generated host C, kernels and the Python
 * runtime.  The runtime (xmpacc/runtime/cstructs.py) mirrors these layouts with ctypes and
 * fills them in; generated code only reads them.  Keep both in step (a test compares the
 * sizes and offsets).
 *
 * Vocabulary: "glb" is a global (template or array) index as written in the source,
 * "loc" an index into the local buffer, "pos" the position of an owned template index
 * among this node's owned indices (0, 1, 2, ...).  All dimension lists are in C order.
 */
#ifndef XMPACC_TYPES_H
#define XMPACC_TYPES_H

/* no libc headers: NVRTC compiles this file too */

#define _XMPACC_MAXDIM 7

/* Distribution kinds of a template dimension (values follow xmp.h's XMP_* constants). */
#define _XMPACC_DIST_NONE 2100   /* '*': not distributed, every node owns all of it */
#define _XMPACC_DIST_BLOCK 2101
#define _XMPACC_DIST_CYCLIC 2102 /* cyclic and cyclic(w): width says which */
#define _XMPACC_DIST_GBLOCK 2103

/* The id of an initialised descriptor says what it describes (0: not initialised), so
 * that xmp_desc_t functions (xmp_desc_of, the inquiry functions of xmp.h) can check it. */
#define _XMPACC_DESC_NODES 0x4e4f
#define _XMPACC_DESC_TEMPLATE 0x544d
#define _XMPACC_DESC_ARRAY 0x4152

typedef struct _xmpacc_nodes {
  int id;                        /* runtime handle; 0 until initialised */
  int ndims;
  int size;                      /* number of nodes in the node array */
  int is_member;                 /* this process is one of its nodes */
  int extent[_XMPACC_MAXDIM];
  int coord[_XMPACC_MAXDIM];     /* this process's 0-based coordinates (-1: not a member) */
} _xmpacc_nodes_t;

typedef struct _xmpacc_tdim {
  int kind;                      /* _XMPACC_DIST_* */
  int node_dim;                  /* node dimension it is distributed onto, -1 for NONE */
  long long lower, upper;        /* template bounds, inclusive */
  long long width;               /* block: B = ceil(N/P); cyclic: w (1 = plain cyclic);
                                    none: N; gblock: 0 (unused) */
  long long nprocs;              /* P: node extent along node_dim (1 for NONE) */
  long long coord;               /* k: this node's coordinate along node_dim (0 for NONE) */
  long long owned_first;         /* block/gblock/none: first owned template index (an empty
                                    block node keeps L + k*B); cyclic: L + k*w */
  long long owned_count;         /* how many template indices this node owns */
} _xmpacc_tdim_t;

typedef struct _xmpacc_template {
  int id;
  int ndims;
  int distributed;               /* 1 once 'distribute' ran (and template_fix, if needed) */
  int fixed;                     /* 1 once its bounds are known (dim[].lower/upper) */
  const _xmpacc_nodes_t *nodes;  /* onto; NULL until distributed */
  _xmpacc_tdim_t dim[_XMPACC_MAXDIM];
} _xmpacc_template_t;

typedef struct _xmpacc_adim {
  int tdim;                      /* template dimension it is aligned with; -1: collapsed */
  int kind;                      /* kind used to index this dimension (NONE when collapsed
                                    or full shadow: the buffer holds the whole extent) */
  long long extent;              /* declared global extent */
  long long offset;              /* align offset c: template index = glb + c */
  long long shadow_lo, shadow_hi;/* shadow widths (0 when none) */
  int full_shadow;
  int check;                     /* checked runs (runtime/checked_run.py), dim[0] only: 1 while a
                                    kernel's writes are on the device only; else 0 */
  long long lext;                /* allocated local extent (owned + shadows) */
  long long gtol;                /* NONE/block/gblock: loc = glb - gtol */
  long long owned_first;         /* first owned array index (glb) of this node */
  long long owned_count;         /* number of owned array indices of this node */
} _xmpacc_adim_t;

typedef struct _xmpacc_array {
  int id;
  int ndims;
  long long elem_size;
  void *base;                    /* local buffer, row-major over dim[].lext */
  long long local_elems;         /* product of dim[].lext */
  const _xmpacc_template_t *tmpl;
  _xmpacc_adim_t dim[_XMPACC_MAXDIM];
  int elem_type;                 /* _XMPACC_TYPE code, set where xmp_desc_of(array) is
                                    evaluated (0: not yet), for the intrinsics that take a
                                    descriptor held in a variable (xmp_sort_up, xmp_matmul) */
} _xmpacc_array_t;

/* A loop schedule: this node's iterations of one distributed loop, in source order.
 * Plain form (block, gblock, cyclic, none): for (g = first; step > 0 ? g <= last : g >= last;
 * g += step).  count is the number of iterations (0: none).  Block-cyclic (cyclic(w), w > 1)
 * gives a range of positions instead: see xmpacc_dist.h. */
typedef struct _xmpacc_sched {
  long long first, last, step, count;
  double inv_count;              /* 1.0 / count, for kernels (see _xmpacc_divmod); 0 elsewhere */
} _xmpacc_sched_t;

/* A cyclic(w) loop in a kernel (passes/loopsched.py): its schedule is in positions, and a
 * thread turns its position into the loop variable with the template dimension, carried by
 * value (a kernel cannot follow the host's pointers), and the loop's progression in
 * template indices, for the positions off it when |step| > 1 (xmpacc_dist.h). */
typedef struct _xmpacc_posmap {
  _xmpacc_tdim_t dim;
  long long init, step;          /* the loop's first index and step, in template indices */
  long long shift;               /* c of loop on t[i+c]: the loop variable is g - c */
} _xmpacc_posmap_t;

#endif
