/* xmp.h: the XcalableMP library functions available to xmpacc programs (reference §9).
 * Node numbers follow the XcalableMP specification: xmp_* are 1-based, xmpc_* 0-based. */
#ifndef XMP_H
#define XMP_H

typedef void *xmp_desc_t;

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
int xmpc_this_image(void);    /* alias of xmpc_node_num */
void xmp_barrier(void);       /* barrier on the executing node set */
void xmp_exit(int status);    /* end the whole job with this status */
int xmp_get_gpu_count(void);  /* number of GPUs this process can see */
int xmp_test_async(int async_id); /* 1 if the operations started with async (id) are complete */

#endif
