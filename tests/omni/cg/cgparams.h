/* cgparams.h: the problem and the node grid, as NPB's setparams writes npbparams.h.
 * NPROCS (make NPROCS=4) gives the grid by NPB CG's rule: as many node columns as rows,
 * or twice as many; the serial build (no NPROCS) is one node. */
#ifndef CGPARAMS_H
#define CGPARAMS_H

#define NA 256               /* order of the matrix (NPB class S: 1400) */
#define BAND 16              /* the far band of the matrix */
#define NZMAX (NA * 8)       /* nonzeros of one node's block, at most */
#define NITER 5              /* outer (inverse power) iterations */
#define CGITMAX 10           /* CG iterations per outer iteration: the residual stays well above round-off */
#define SHIFT 2.0

#ifndef NPROCS
#define NPROCS 1
#endif
#if NPROCS == 1
#define NUM_PROC_COLS 1
#define NUM_PROC_ROWS 1
#elif NPROCS == 2
#define NUM_PROC_COLS 2
#define NUM_PROC_ROWS 1
#elif NPROCS == 4
#define NUM_PROC_COLS 2
#define NUM_PROC_ROWS 2
#elif NPROCS == 8
#define NUM_PROC_COLS 4
#define NUM_PROC_ROWS 2
#elif NPROCS == 16
#define NUM_PROC_COLS 4
#define NUM_PROC_ROWS 4
#else
#error "NPROCS must be 1, 2, 4, 8 or 16"
#endif

#endif
