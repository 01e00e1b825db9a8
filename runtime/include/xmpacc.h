/* xmpacc.h: included by every host C file that xmpacc generates.
 *
 * It holds what generated code needs besides the runtime calls themselves (whose
 * prototypes the compiler writes from runtime/contract.py): the descriptors, the
 * distribution formulas, and short macros that keep the generated subscripts readable.
 */
#ifndef XMPACC_H
#define XMPACC_H

#include "xmpacc_types.h"
#include "xmpacc_dist.h"
#include "xmpacc_index.h"
#include "xmpacc_loops.h"
#include "xmpacc_push.h"
#include "xmpacc_sections.h"
#include "xmpacc_api.h"   /* the XMP C API (xmp.h is <mpi.h> plus this header) */
#include "xmpacc_rt.h"
#include "xmpacc_unit.h"

/* Run f(&var) when var goes out of scope, on every exit path (return, break, goto):
 * this frees block-scope distributed arrays and ends tasks. */
#define _XMPACC_CLEANUP(f) __attribute__((cleanup(f)))

/* The descriptor of a nodes or template directive of a header: one object for all the
 * files that include the header (each file's start-up code declares it; the runtime
 * creates it once and checks that the declarations agree). */
#define _XMPACC_SHARED __attribute__((weak))

/* Element type codes for reductions (the runtime maps them to MPI datatypes). */
#define _XMPACC_TYPE(x) _Generic((x), \
  _Bool: 1, char: 2, signed char: 3, unsigned char: 4, short: 5, unsigned short: 6, \
  int: 7, unsigned int: 8, long: 9, unsigned long: 10, long long: 11, \
  unsigned long long: 12, float: 13, double: 14, long double: 15, \
  float _Complex: 16, double _Complex: 17, long double _Complex: 18, \
  default: 0)   /* 0: not reducible */

/* xmp_desc_of(array) outside an intrinsic call: the descriptor, which records the element
 * type so that a descriptor kept in a variable still tells xmp_sort_up or xmp_matmul. */
static inline void *_xmpacc_typed_desc(_xmpacc_array_t *desc, int type) {
  desc->elem_type = type;
  return (void *)desc;
}

/* The schedule of a distributed loop of a loop ... acc, with the reciprocal of its count
 * that kernels use to split thread indices (_xmpacc_divmod in xmpacc_kernel.h). */
static inline _xmpacc_sched_t _xmpacc_schedule_k(const _xmpacc_tdim_t *d, long long init,
                                                 long long last, long long step) {
  _xmpacc_sched_t s = _xmpacc_schedule(d, init, last, step);
  s.inv_count = s.count > 0 ? 1.0 / (double)s.count : 0.0;
  return s;
}

/* The groups of v points of a vector streaming kernel's innermost loop (step 1): one
 * thread per group, the first group starting up to v - 1 points before the loop's first
 * iteration (passes/kernel/stream_vector.py).  The kernel gets the loop's own schedule too. */
static inline _xmpacc_sched_t _xmpacc_sched_groups(_xmpacc_sched_t s, long long v) {
  _xmpacc_sched_t g = s;
  g.first = 0;
  g.step = v;
  g.count = s.count > 0 ? (s.count + 2 * v - 2) / v : 0;
  g.last = g.count > 0 ? (g.count - 1) * v : -1;
  g.inv_count = g.count > 0 ? 1.0 / (double)g.count : 0.0;
  return g;
}

/* The schedule of a cyclic(w) loop of a loop ... acc, in positions (every kind takes the
 * position form here, so the compiler need not know w); its kernel turns a position into
 * the loop variable with an _xmpacc_posmap (xmpacc_dist.h). */
static inline _xmpacc_sched_t _xmpacc_schedule_pos_k(const _xmpacc_tdim_t *d, long long init,
                                                     long long last, long long step) {
  _xmpacc_sched_t s = _xmpacc_schedule_pos(d, init, last, step);
  s.inv_count = s.count > 0 ? 1.0 / (double)s.count : 0.0;
  return s;
}

/* The whole range of a loop that no XMP loop distributes (a loop of an OpenACC compute
 * construct runs all its iterations on this node's GPU). */
static inline _xmpacc_sched_t _xmpacc_range_k(long long init, long long last, long long step) {
  _xmpacc_sched_t s = _xmpacc_schedule_interval(init, last, step, step > 0 ? init : last,
                                                step > 0 ? last : init);
  s.inv_count = s.count > 0 ? 1.0 / (double)s.count : 0.0;
  return s;
}

/* Iterations of a cyclic(w) loop come as positions; skip those off the progression. */
static inline int _xmpacc_on_progression(long long g, long long init, long long step) {
  return (g - init) % step == 0;
}

/* End of a task scope: pop the task's node set if this node ran it (cleanup handler). */
void _xmpacc_task_end(void);
static inline void _xmpacc_task_scope_end(int *active) {
  if (*active) _xmpacc_task_end();
}

/* End of a tasks construct (cleanup handler; every node of the executing set runs it). */
static inline void _xmpacc_tasks_scope_end(int *mine) {
  (void)mine;
  _xmpacc_tasks_end();
}

/* End of an acc replicate region: free its device copies (cleanup handler). */
void _xmpacc_replicate_end(int region);
static inline void _xmpacc_replicate_scope_end(int *region) {
  _xmpacc_replicate_end(*region);
}

/* End of an OpenACC data region or block-scope declare (XcalableACC): copyout and
 * detach its variables (cleanup handler; region 0: its if condition was false). */
void _xmpacc_acc_data_end(int region);
static inline void _xmpacc_acc_data_scope_end(int *region) {
  if (*region) _xmpacc_acc_data_end(*region);
}

/* A block-scope object of a structure with aligned members (global-view §8): at the end
 * of its block the local blocks of its members are released (cleanup handler). */
typedef struct { void *base; long long nbytes; } _xmpacc_object_t;
static inline void _xmpacc_object_end(_xmpacc_object_t *o) {
  _xmpacc_release_range(o->base, o->nbytes);
}

/* MPI_Init and MPI_Finalize of a program that mixes MPI and XMP (global-view §9): the
 * runtime initialises MPI before main and finalises it after main, so they succeed and
 * do nothing (0 is MPI_SUCCESS). */
static inline int _xmpacc_mpi_init(int *argc, char ***argv) {
  (void)argc; (void)argv;
  return 0;
}
static inline int _xmpacc_mpi_init_thread(int *argc, char ***argv, int required, int *provided) {
  (void)argc; (void)argv; (void)required;
  *provided = _xmpacc_mpi_thread_level();
  return 0;
}
static inline int _xmpacc_mpi_finalize(void) { return 0; }

#endif
