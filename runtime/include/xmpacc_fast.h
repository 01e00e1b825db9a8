/* xmpacc_fast.h: the C side of the runtime's steady state, part of the program's glue
 * (templates/glue.c.j2).  Python plans; these functions replay the plans without
 * entering the interpreter (runtime/replay.py and runtime/fast_reflect.py make them).
 *
 * Each *_fast function is tried first by its entry's forwarder (contract.py, ``fast``):
 * it returns 1 when it did the whole call, 0 when the call must take the general (Python)
 * path: no plan yet, a plan made for other arguments, a device table changed since
 * (``generation``), an async region (host reflects excepted: xmpacc_async.h), a checked
 * run.  A 0 is always safe, which is what keeps these functions small: they recognise
 * the cases they were told about, nothing else.
 *
 * Plans are keyed by an address that is the same at every call of one directive: the
 * array descriptor (reflect) or the ``where`` literal of the call site (launch, compute
 * constructs).  Python owns every plan's memory and drops a plan (NULL) before freeing it. */
#ifndef XMPACC_FAST_H
#define XMPACC_FAST_H

#include <stdint.h>
#include <string.h>
#include <time.h>
#include "xmpacc_types.h"
#include "xmpacc_push.h"

/* ------------------------------------------------------------------ plan tables */

#define _XMPACC_FAST_SLOTS 512
typedef struct { const void *key; void *plan; } _xmpacc_fast_slot_t;
typedef _xmpacc_fast_slot_t _xmpacc_fast_table_t[_XMPACC_FAST_SLOTS];

static unsigned _xmpacc_fast_hash(const void *key) {
  return (unsigned)(((uintptr_t)key >> 3) * 2654435761u) % _XMPACC_FAST_SLOTS;
}

/* Register (plan) or drop (NULL) the plan of a key; 0 when the table is full. */
static int _xmpacc_fast_put(_xmpacc_fast_table_t table, const void *key, void *plan) {
  unsigned h = _xmpacc_fast_hash(key);
  for (unsigned k = 0; k < _XMPACC_FAST_SLOTS; k++) {
    _xmpacc_fast_slot_t *s = &table[(h + k) % _XMPACC_FAST_SLOTS];
    if (s->key == key || (!s->key && plan)) {
      s->key = key;   /* a dropped entry stays as a tombstone */
      s->plan = plan;
      return 1;
    }
    if (!s->key) return !plan;
  }
  return 0;
}

static void *_xmpacc_fast_get(_xmpacc_fast_table_t table, const void *key) {
  unsigned h = _xmpacc_fast_hash(key);
  for (unsigned k = 0; k < _XMPACC_FAST_SLOTS; k++) {
    _xmpacc_fast_slot_t *s = &table[(h + k) % _XMPACC_FAST_SLOTS];
    if (s->key == key) return s->plan;
    if (!s->key) return 0;
  }
  return 0;
}

/* ------------------------------------------------------------------ shared state */

/* What the replayed calls need from the libraries the runtime loaded (the CUDA driver
 * and NCCL that CuPy uses, found by runtime/replay.py) and the state Python keeps in step. */
typedef struct _xmpacc_memcpy2d {    /* CUDA_MEMCPY2D of the driver API */
  size_t src_x, src_y; int src_type; const void *src_host; uintptr_t src_device; void *src_array;
  size_t src_pitch;
  size_t dst_x, dst_y; int dst_type; void *dst_host; uintptr_t dst_device; void *dst_array;
  size_t dst_pitch;
  size_t width, height;
} _xmpacc_memcpy2d_t;

/* cuLaunchKernelEx's CUlaunchAttribute and CUlaunchConfig (cuda.h, CUDA 12), for the one
 * attribute used: CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION */
typedef struct { int id; int pad; union { int allowed; char bytes[64]; } value; } _xmpacc_launch_attr_t;
typedef struct {
  unsigned grid[3], block[3], shared; void *stream; _xmpacc_launch_attr_t *attrs; unsigned nattrs;
} _xmpacc_launch_config_t;

typedef struct _xmpacc_replay {
  int on;                                /* 0: every call takes the general path */
  int profile;                           /* XMPACC_PROFILE: time each replayed call */
  long long generation;                  /* the runtime's device-table generation */
  void *stream;                          /* the current CUDA stream (async queues switch it) */
  const char *pending;                   /* where of the last launch not waited for (NULL: none) */
  int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                void *, void **, void **);            /* cuLaunchKernel */
  int (*synchronize)(void *);                          /* cuStreamSynchronize */
  int (*copy2d)(const _xmpacc_memcpy2d_t *, void *);   /* cuMemcpy2DAsync_v2 */
  int (*group_start)(void), (*group_end)(void);        /* NCCL */
  int (*send)(const void *, size_t, int, int, void *, void *);
  int (*recv)(void *, size_t, int, int, void *, void *);
  void *nccl;                                          /* the world's ncclComm_t */
  int nqueues;                                         /* async queues made so far */
  long long queue_id[64];
  void *queue_stream[64];
  /* profiled runs: one record per replayed call (runtime/profile.py reads them) */
  struct _xmpacc_replay_event {
    const char *where, *detail; long long start, host, stop, bytes; int entry;
  } *events;
  long long nevents, capacity, dropped;
  /* the site of the call a fast function hands to Python: the plan Python makes is keyed by it */
  const char *where, *kernel;
  uintptr_t exec;                        /* the executing nodes' communicator (MPI handle) */
  long long layout;                      /* changes when a template is distributed (again) */
  int (*allreduce)(const void *, void *, int, uintptr_t, uintptr_t, uintptr_t);   /* MPI_Allreduce */
  /* the reductions of launches (xmpacc_results.h): driver calls, the deferred results */
  int (*event_record)(void *, void *);                 /* cuEventRecord(event, stream) */
  int (*stream_wait)(void *, void *, unsigned);        /* cuStreamWaitEvent(stream, event, 0) */
  int (*event_synchronize)(void *);                    /* cuEventSynchronize */
  int (*copy_to_host)(void *, uintptr_t, size_t, void *);   /* cuMemcpyDtoHAsync_v2 */
  int defer_next;                        /* acc_defer_reductions: the next launch's results wait */
  int ndeferred;                         /* results waiting for _xmpacc_acc_reductions_wait */
  struct _xmpacc_result *deferred[16];
  int python_deferred;                   /* deferred results and work Python holds: C leaves them all to it */
  /* async queues switched in C (xmpacc_queues.h): the streams before, 0 where none was switched */
  int queue_depth;
  void *queue_saved[8];
  int queue_switched[8];
  int dirty;                             /* Python's current stream is not r->stream: sync first */
  int host_backend;                      /* kernels run on the host: no streams */
  /* barrier and bcast over the executing nodes (xmpacc_replay.h) */
  int (*barrier)(uintptr_t);                           /* MPI_Barrier */
  int (*bcast)(void *, int, uintptr_t, int, uintptr_t);   /* MPI_Bcast */
  uintptr_t byte_type;                                 /* MPI_BYTE */
  long long barriers, bcasts;                          /* calls made here (XMPACC_STATS) */
  /* acc update of whole variables (xmpacc_replay.h) */
  int (*copy_in)(uintptr_t, const void *, size_t);                 /* cuMemcpyHtoD_v2 */
  int (*copy_out)(void *, uintptr_t, size_t);                      /* cuMemcpyDtoH_v2 */
  int (*copy_in_async)(uintptr_t, const void *, size_t, void *);   /* cuMemcpyHtoDAsync_v2 */
  long long sync_in_bytes, sync_out_bytes;                         /* moved here (XMPACC_STATS) */
  /* acc wait on the device (xmpacc_replay.h): an event per queue and one on the compute
   * stream (runtime/replay.py makes them); the queues that moved host memory since the
   * host last waited for them (async update) */
  void *queue_event[64];
  void *join_event;
  int queue_moved_host[64];
  int wait_on_host;                      /* XMPACC_WAIT_ON_DEVICE=0: every acc wait blocks the host */
  long long waits_on_device;             /* made here (XMPACC_STATS) */
  /* overlapped reflect ... acc (xmpacc_replay.h): the exchange stream and its two events
   * (runtime/acc_comm.py makes them), whether an exchange is in flight there */
  void *comm_stream, *comm_ready, *comm_done;
  int overlap_open;
  long long overlapped_reflects;         /* made here (XMPACC_STATS) */
  int python_overlaps;                   /* Python holds exchanges for the join */
  int nheld;                             /* the host backend's, held here for the join */
  void *held[8];
  int rim;                               /* launches go on the exchange stream, behind it */
  long long overlap_min_bytes;           /* a smaller block is exchanged at once (XMPACC_OVERLAP_BYTES) */
  long long pushed_reflects;             /* made by their loops' kernels (xmpacc_push.h; XMPACC_STATS) */
  /* programmatic dependent launch (sm_90 on): a loop's kernel may begin while the one before
   * it ends, and waits in _XMPACC_GRID_WAIT until that one's memory is visible */
  int (*launch_ex)(const void *, void *, void **, void **);   /* cuLaunchKernelEx (0: none) */
  int dependent;                         /* XMPACC_DEPENDENT_LAUNCH (default 1) and the device can */
} _xmpacc_replay_t;

_xmpacc_replay_t _xmpacc_replay;

/* The node numbers the runtime publishes (tasks in C switch them: xmpacc_task_plans.h); a
 * tentative definition, which the glue's gives its initial values. */
struct _xmpacc_exec_info { int world_rank, world_size, exec_rank, exec_size, gpu_count; };
struct _xmpacc_exec_info _xmpacc_exec;
#define _XMPACC_HELD 8

/* entry numbers of profile events (runtime/replay.py REPLAYED lists them in this order) */
enum { _XMPACC_EV_REFLECT, _XMPACC_EV_REFLECT_ACC, _XMPACC_EV_LAUNCH, _XMPACC_EV_COMPUTE_BEGIN,
       _XMPACC_EV_COMPUTE_END, _XMPACC_EV_DEVICE_WAIT, _XMPACC_EV_ACC_WAIT, _XMPACC_EV_REFLECT_DO_ACC,
       _XMPACC_EV_LOOP_REDUCE_BEGIN, _XMPACC_EV_LOOP_REDUCE, _XMPACC_EV_SWAP_REDUCED, _XMPACC_EV_REDUCE,
       _XMPACC_EV_DEFER, _XMPACC_EV_REDUCTIONS_WAIT, _XMPACC_EV_REDUCTIONS_DISCARD, _XMPACC_EV_QUEUE_BEGIN,
       _XMPACC_EV_QUEUE_END, _XMPACC_EV_BARRIER, _XMPACC_EV_BCAST, _XMPACC_EV_UPDATE,
       _XMPACC_EV_REFLECT_ORTHOGONAL, _XMPACC_EV_ASYNC_BEGIN, _XMPACC_EV_ASYNC_END, _XMPACC_EV_WAIT_ASYNC,
       _XMPACC_EV_TEST_ASYNC, _XMPACC_EV_ACC_WAIT_ON_DEVICE,
       _XMPACC_EV_REFLECT_ORTHOGONAL_ACC, _XMPACC_EV_REDUCE_ACC, _XMPACC_EV_BCAST_ACC, _XMPACC_EV_REDUCE_VAR,
       _XMPACC_EV_REFLECT_ACC_OVERLAP, _XMPACC_EV_REFLECT_ACC_JOIN, _XMPACC_EV_GMOVE,
       _XMPACC_EV_REFLECT_ACC_RIM, _XMPACC_EV_ALIGN_POINTER, _XMPACC_EV_MALLOC, _XMPACC_EV_ARRAY_RELEASE,
       _XMPACC_EV_TASK_BEGIN, _XMPACC_EV_TASK_END, _XMPACC_EV_TASK_NOCOMM, _XMPACC_EV_LOOP_REDUCE_VAR_BEGIN,
       _XMPACC_EV_LOOP_REDUCE_VAR };

static long long _xmpacc_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void _xmpacc_replay_record(int entry, const char *where, long long start, long long host,
                                  long long bytes) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  if (r->nevents < r->capacity) {
    struct _xmpacc_replay_event *e = &r->events[r->nevents++];
    e->entry = entry, e->where = where, e->detail = entry == _XMPACC_EV_LAUNCH ? r->kernel : 0;
    e->start = start, e->host = host, e->stop = _xmpacc_now(), e->bytes = bytes;
  } else {
    r->dropped++;
  }
}

/* ------------------------------------------------------------------ host reflect */

/* reflect (a) on the host: MPI persistent requests on the array's buffer, one
 * MPI_Startall + MPI_Waitall per step (dimensions one after the other, so that corners
 * arrive), through the MPI library's own functions (runtime/fast_reflect.py).  The same
 * plan form serves reflect ... acc on the host backend's "device" buffers. */
typedef struct _xmpacc_fast_reflect {
  const void *base;                    /* the buffer the requests were bound to */
  int nrounds;                         /* steps, in order */
  int count[_XMPACC_MAXDIM];           /* requests of each step */
  void *requests[_XMPACC_MAXDIM];      /* MPI_Request arrays, in the MPI's handle size */
  void *statuses;                      /* room for the statuses of the largest step */
  int (*startall)(int, void *);        /* MPI_Startall, MPI_Waitall */
  int (*waitall)(int, void *, void *);
  long long calls;                     /* for XMPACC_STATS; the runtime reads and clears it */
  long long bytes;                     /* sent per call (the profile's bytes) */
  int nwidths;                         /* explicit widths (lo, hi, periodic per dimension): */
  const long long *widths;             /* the plans of one array, one per set of widths */
  struct _xmpacc_fast_reflect *next;
  int (*testall)(int, void *, int *, void *);   /* MPI_Testall (async reflects) */
  int started;                         /* async: steps started so far, 0 when none is in flight */
  long long async_calls;               /* of calls, those under async (XMPACC_STATS) */
} _xmpacc_fast_reflect_t;

/* A table of plans by key (a site's where, or an address) and its setter, through which
 * the runtime's Python (replay.py, replay_collectives.py) registers each key's chain. */
#define _XMPACC_PLAN_TABLE(table, setter, key_type, plan_type)                  \
  static _xmpacc_fast_table_t table;                                           \
  int setter(key_type key, plan_type *plan) { return _xmpacc_fast_put(table, key, plan); }

/* A node set an on or from clause names as the call passes it: the nodes or template, and
 * the reference's longs {ndims, (kind, a, b, c)...} (whole: n 0); runtime/replay.py node_ref. */
typedef struct _xmpacc_node_ref {
  const void *nodes;
  int n;
  long long longs[1 + 4 * _XMPACC_MAXDIM];
} _xmpacc_node_ref_t;

static int _xmpacc_same_ref(const _xmpacc_node_ref_t *planned, const void *nodes, const long long *ref) {
  if (planned->nodes != nodes) return 0;
  if (!ref) return planned->n == 0;
  return ref[0] >= 0 && ref[0] <= _XMPACC_MAXDIM && planned->n == 1 + 4 * ref[0]
         && !memcmp(planned->longs, ref, sizeof(long long) * (size_t)planned->n);
}

/* One table per kind of reflect, each array's plans chained in it: the declared widths,
 * explicit widths, orthogonal, orthogonal with explicit widths (fast_reflect.py KINDS). */
static _xmpacc_fast_table_t _xmpacc_fast_reflects[4];
int _xmpacc_fast_paused;               /* inside async (id): set by the runtime or by async_begin below */

int _xmpacc_fast_reflect_set(const void *array, int kind, _xmpacc_fast_reflect_t *plan) {
  return kind >= 0 && kind < 4 && _xmpacc_fast_put(_xmpacc_fast_reflects[kind], array, plan);
}

/* The plan for these widths, NULL when there is none or its requests are in flight. */
static _xmpacc_fast_reflect_t *_xmpacc_fast_find(void *array, const long long *widths, int orthogonal) {
  _xmpacc_fast_reflect_t *plan =
      (_xmpacc_fast_reflect_t *)_xmpacc_fast_get(_xmpacc_fast_reflects[2 * orthogonal + !!widths], array);
  if (widths)
    while (plan && memcmp(plan->widths, widths, sizeof(long long) * (size_t)plan->nwidths)) plan = plan->next;
  if (!plan || plan->base != ((const _xmpacc_array_t *)array)->base || plan->started) return 0;
  return plan;
}

static int _xmpacc_mpi_rounds(_xmpacc_fast_reflect_t *plan) {
  for (int r = 0; r < plan->nrounds; r++)
    if (plan->count[r] && (plan->startall(plan->count[r], plan->requests[r]) ||
                           plan->waitall(plan->count[r], plan->requests[r], plan->statuses)))
      return 0;
  plan->calls++;
  return 1;
}

#include "xmpacc_async.h"

static int _xmpacc_fast_reflect_run(int entry, void *array, const char *where, const long long *widths,
                                    int orthogonal) {
  _xmpacc_fast_reflect_t *plan = _xmpacc_fast_find(array, widths, orthogonal);
  long long start;
  if (!plan) return 0;
  start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
  if (_xmpacc_fast_paused ? !_xmpacc_async_reflect(plan) : !_xmpacc_mpi_rounds(plan)) return 0;
  if (start) _xmpacc_replay_record(entry, where, start, 0, plan->bytes);
  return 1;
}

static int _xmpacc_reflect_fast(void *array, const char *where, const long long *widths) {
  return _xmpacc_fast_reflect_run(_XMPACC_EV_REFLECT, array, where, widths, 0);
}

static int _xmpacc_reflect_orthogonal_fast(void *array, const char *where, const long long *widths) {
  return _xmpacc_fast_reflect_run(_XMPACC_EV_REFLECT_ORTHOGONAL, array, where, widths, 1);
}

#include "xmpacc_results.h"
#include "xmpacc_replay.h"
#include "xmpacc_locations.h"
#include "xmpacc_acc_collectives.h"
#include "xmpacc_queues.h"
#include "xmpacc_gmove.h"
#include "xmpacc_params.h"
#include "xmpacc_task_plans.h"

#endif
