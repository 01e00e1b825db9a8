/* xmpacc_replay.h: the per-iteration calls of a time loop, replayed in C from the plans
 * runtime/replay.py makes at the first call of each site (included by xmpacc_fast.h, whose
 * opening comment says the rules). */
#ifndef XMPACC_REPLAY_H
#define XMPACC_REPLAY_H

static int _xmpacc_overlap_join(void);   /* overlapped reflect ... acc, below */

/* ------------------------------------------------------------------ loop ... acc launch */

/* A launch as runtime/acc.py prepared it: the kernel's parameter array (pointers to the
 * argument values, which the driver reads at the launch: schedules and counts are read
 * afresh each time) and the grid.  Valid while the call passes the same argument
 * addresses, iteration count, block size and innermost schedule shape, on the same stream,
 * with the same device copies. */
typedef struct _xmpacc_launch_plan {
  const char *kernel;
  int nparams;
  long long nthreads;
  int grid2_sched;                     /* parameter index of the innermost schedule; -1: none */
  long long total, inner, pad;         /* iterations; that schedule's count and padding */
  long long generation;
  const void *const *args;             /* the argument addresses it was planned for */
  void *function;                      /* CUfunction, or the host trampoline */
  void **params;
  unsigned grid[2], block[2];
  long long threads;                   /* thread ids (the host trampoline's argument) */
  void *stream;
  int host;                            /* 1: the host backend's trampoline */
  long long calls;
  struct _xmpacc_launch_plan *next;    /* another plan of the same site (one where, two call sites
                                          of a macro or inline function, or other arguments) */
  int nresults;                        /* its scalar reductions (xmpacc_results.h) */
  _xmpacc_result_t *const *results;
  int nscratch;                        /* its private arrays (LAUNCH_SCRATCH): the parameter */
  const int *scratch_at;               /* indices and the bytes per thread each was planned */
  const long long *scratch_bytes;      /* for (the same address may hold another size) */
  int nlocated;                        /* its reductions with location variables (xmpacc_locations.h) */
  struct _xmpacc_located *located;
} _xmpacc_launch_plan_t;

static int _xmpacc_located_pick(const _xmpacc_launch_plan_t *p, void *stream);   /* xmpacc_locations.h */

_XMPACC_PLAN_TABLE(_xmpacc_launch_plans, _xmpacc_launch_plan_set, const char *, _xmpacc_launch_plan_t)

/* A launch with scalar reductions: those of its earlier launch still deferred are waited
 * for first (their partials are about to be rewritten), then the kernel waits until the
 * reductions have read them.  0: leave it to the general path (nothing has run yet). */
static int _xmpacc_results_ready(const _xmpacc_launch_plan_t *p) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  if (r->python_deferred || (r->defer_next && r->ndeferred + p->nresults > 16)) return 0;
  for (int k = 0; k < p->nresults; k++)
    for (int d = 0; d < r->ndeferred; d++)
      if (r->deferred[d] == p->results[k] && !_xmpacc_deferred_finish()) return 0;
  for (int k = 0; k < p->nresults; k++)
    if (_xmpacc_result_before(p->results[k], r->stream)) return 0;
  return 1;
}

/* After the launch: the reductions behind the kernel, and their values now or deferred. */
static int _xmpacc_results_after(const _xmpacc_launch_plan_t *p) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  for (int k = 0; k < p->nresults; k++)
    if (_xmpacc_result_start(p->results[k], r->stream)) return 0;
  if (r->defer_next) {   /* (cleared by the launch) */
    for (int k = 0; k < p->nresults; k++) r->deferred[r->ndeferred++] = p->results[k];
    return 1;
  }
  for (int k = 0; k < p->nresults; k++)
    if (_xmpacc_result_finish(p->results[k])) return 0;
  return 1;
}

/* The private arrays' sizes are those the plan's buffers were made for. */
static int _xmpacc_same_scratch(const _xmpacc_launch_plan_t *p, const void *const *args) {
  for (int k = 0; k < p->nscratch; k++)
    if (*(const long long *)args[p->scratch_at[k]] != p->scratch_bytes[k]) return 0;
  return 1;
}

/* The plan's kernel on the stream; a device kernel may begin before the one before it ends
 * (r->dependent: programmatic dependent launch; it waits in _XMPACC_GRID_WAIT). */
static int _xmpacc_launch_plan(const _xmpacc_replay_t *r, const _xmpacc_launch_plan_t *p, void *stream) {
  if (r->dependent) {
    _xmpacc_launch_attr_t attr = {6, 0, {1}};
    _xmpacc_launch_config_t c = {{p->grid[0], p->grid[1], 1}, {p->block[0], p->block[1], 1}, 0, stream, &attr, 1};
    return r->launch_ex(&c, p->function, p->params, 0);
  }
  return r->launch(p->function, p->grid[0], p->grid[1], 1, p->block[0], p->block[1], 1, 0, stream, p->params, 0);
}

static int _xmpacc_launch_fast(const char *where, const char *kernel, long long total, long long nthreads,
                               int nparams, const void *argv, const long long *kinds) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  const void *const *args = (const void *const *)argv;
  _xmpacc_launch_plan_t *p;
  long long start;
  void *stream;
  (void)kinds;
  if (!r->on) return 0;
  r->where = where, r->kernel = kernel;
  for (p = (_xmpacc_launch_plan_t *)_xmpacc_fast_get(_xmpacc_launch_plans, where); p; p = p->next) {
    if (p->kernel != kernel || p->total != total || p->nthreads != nthreads || p->nparams != nparams
        || p->generation != r->generation || (!p->host && p->stream != r->stream)
        || memcmp(p->args, args, sizeof(void *) * (size_t)nparams))
      continue;
    if (p->grid2_sched >= 0) {
      const _xmpacc_sched_t *s = (const _xmpacc_sched_t *)args[p->grid2_sched];
      if (s->count != p->inner || (s->step == 1 ? s->first & 31 : 0) != p->pad) continue;
    }
    if (!_xmpacc_same_scratch(p, args)) continue;
    break;
  }
  if (!p || (p->nresults && !_xmpacc_results_ready(p))) return 0;
  /* a rim's launch (_xmpacc_reflect_acc_rim_fast) goes on the exchange stream, unless it has
   * results, location records or private arrays' buffers, which the interior's launch shares */
  if (r->rim && (p->nresults || p->nscratch || p->nlocated) && !_xmpacc_overlap_join()) return 0;
  stream = r->rim ? r->comm_stream : r->stream;
  start = r->profile ? _xmpacc_now() : 0;
  if (p->host) {
    ((void (*)(long long, void *))p->function)(p->threads, p->params);
  } else {
    if (_xmpacc_launch_plan(r, p, stream)) return 0;   /* the general path launches again and reports it */
    r->pending = where;
  }
  /* An error past the launch is the device's (a failed kernel: every later call fails
   * too); the general path launches again, meets it and reports it with this line. */
  if (p->nresults && !_xmpacc_results_after(p)) return 0;
  if (p->nlocated && !_xmpacc_located_pick(p, stream)) return 0;
  r->defer_next = 0;
  p->calls++;
  if (start) {
    /* as the profile's Python launches: the time includes the kernel's */
    long long host = _xmpacc_now();
    if (!p->host && r->synchronize(stream) == 0 && !r->rim) r->pending = 0;
    _xmpacc_replay_record(_XMPACC_EV_LAUNCH, where, start, host, 0);
  }
  return 1;
}

/* ------------------------------------------------------------------ waits */

/* The kernels launched so far on the compute stream are done; 0 on their failure (the
 * general path then waits again and reports it). */
static int _xmpacc_stream_idle(void) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  if (!r->pending) return 1;
  if (r->synchronize(r->stream)) return 0;
  r->pending = 0;
  return 1;
}

/* The host waits for the kernels launched so far (xmp_wtime, the end of a region). */
static int _xmpacc_device_wait_fast(void) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  long long start;
  if (!r->on) return 0;
  if (!r->pending) return 1;
  start = r->profile ? _xmpacc_now() : 0;
  if (!_xmpacc_stream_idle()) return 0;
  if (start) _xmpacc_replay_record(_XMPACC_EV_DEVICE_WAIT, "", start, 0, 0);
  return 1;
}

static int _xmpacc_queue_wanted(int q, int n, const long long *queues) {
  int wanted = n < 0;
  for (int k = 0; k < n && !wanted; k++) wanted = queues[k] == _xmpacc_replay.queue_id[q];
  return wanted;
}

/* acc wait (n < 0: every queue) and wait(q, ...): the compute stream, then the queues'. */
static int _xmpacc_acc_wait_fast(const char *where, int n, const long long *queues) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  long long start;
  if (!r->on) return 0;
  start = r->profile ? _xmpacc_now() : 0;
  if (!_xmpacc_stream_idle()) return 0;
  for (int q = 0; q < r->nqueues; q++) {
    if (!_xmpacc_queue_wanted(q, n, queues)) continue;
    if (r->synchronize(r->queue_stream[q])) return 0;
    r->queue_moved_host[q] = 0;
  }
  if (start) _xmpacc_replay_record(_XMPACC_EV_ACC_WAIT, where, start, 0, 0);
  return 1;
}

/* An acc wait the host may pass (passes/gpu/acc_reduction_wait.py: only device work
 * follows it until the host's own wait, which the compiler put before the first
 * statement that could tell).  Every stream waits for the queues on the device instead:
 * the compute stream for each queue's event, then every queue for the compute stream's,
 * so whatever is queued next anywhere runs after them, as after the host's wait.  A queue
 * that moved host memory since the host last waited for it (an async update: the host may
 * touch that memory next) is waited for by the host, as written.  The host backend ran
 * every kernel at its launch: nothing to wait for. */
static int _xmpacc_acc_wait_on_device_fast(const char *where, int n, const long long *queues) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  long long start;
  if (!r->on || r->queue_depth) return 0;
  if (r->host_backend) return 1;
  if (r->wait_on_host) return _xmpacc_acc_wait_fast(where, n, queues);
  for (int q = 0; q < r->nqueues; q++)
    if ((_xmpacc_queue_wanted(q, n, queues) && r->queue_moved_host[q]) || !r->queue_event[q])
      return _xmpacc_acc_wait_fast(where, n, queues);
  start = r->profile ? _xmpacc_now() : 0;
  for (int q = 0; q < r->nqueues; q++)
    if (_xmpacc_queue_wanted(q, n, queues)
        && (r->event_record(r->queue_event[q], r->queue_stream[q])
            || r->stream_wait(r->stream, r->queue_event[q], 0)))
      return 0;   /* the general path waits on the host and reports the error */
  if (r->nqueues) {
    if (r->event_record(r->join_event, r->stream)) return 0;
    for (int q = 0; q < r->nqueues; q++)
      if (r->stream_wait(r->queue_stream[q], r->join_event, 0)) return 0;
    r->pending = where;   /* the compute stream now holds the queues' work */
  }
  r->waits_on_device++;
  if (start) _xmpacc_replay_record(_XMPACC_EV_ACC_WAIT_ON_DEVICE, where, start, 0, 0);
  return 1;
}

/* ------------------------------------------------------------------ compute constructs */

/* A compute construct whose variables were all present when it was planned: its data
 * region adds and removes a reference on copies that stay, so replayed it does nothing.
 * The region number it returns (-1) tells _xmpacc_acc_compute_end the same. */
typedef struct _xmpacc_compute_plan {
  int n;
  long long generation;
  const void *const *keys;
  const long long *sizes;
  const int *modes;
  long long calls;
  struct _xmpacc_compute_plan *next;   /* another plan of the same site */
} _xmpacc_compute_plan_t;

_XMPACC_PLAN_TABLE(_xmpacc_compute_plans, _xmpacc_compute_plan_set, const char *, _xmpacc_compute_plan_t)

static int _xmpacc_acc_compute_begin_fast(const char *where, int n, const void *keys,
                                          const long long *sizes, const void *names,
                                          const int *modes, int *region) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_compute_plan_t *p;
  long long start;
  (void)names;
  if (!r->on) return 0;
  r->where = where;
  start = r->profile ? _xmpacc_now() : 0;
  for (p = (_xmpacc_compute_plan_t *)_xmpacc_fast_get(_xmpacc_compute_plans, where); p; p = p->next)
    if (p->n == n && p->generation == r->generation
        && !(n && (memcmp(p->keys, keys, sizeof(void *) * (size_t)n)
                   || memcmp(p->sizes, sizes, sizeof(long long) * (size_t)n)
                   || memcmp(p->modes, modes, sizeof(int) * (size_t)n))))
      break;
  if (!p) return 0;
  p->calls++;
  *region = -1;
  if (start) _xmpacc_replay_record(_XMPACC_EV_COMPUTE_BEGIN, where, start, 0, 0);
  return 1;
}

static int _xmpacc_acc_compute_end_fast(int region) {
  if (region != -1) return 0;
  if (_xmpacc_replay.profile) _xmpacc_replay_record(_XMPACC_EV_COMPUTE_END, "", _xmpacc_now(), 0, 0);
  return 1;
}

/* ------------------------------------------------------------------ reflect ... acc */

/* One send or receive of a device reflect: NCCL between the slab (or its stage) and a
 * peer; a slab that is not one run of the array's bytes is packed into (send) or unpacked
 * from (receive) its contiguous stage by `copies` 2-D copies of `height` rows of `width`
 * bytes, `pitch` apart in the array, the copies `stride` apart. */
typedef struct _xmpacc_slab_op {
  uintptr_t device;                    /* the slab, or its stage */
  long long nbytes;
  int peer, send;
  uintptr_t array;                     /* 0: contiguous, no stage */
  long long pitch, width, height, copies, stride;
} _xmpacc_slab_op_t;

typedef struct _xmpacc_acc_reflect_plan {
  const void *base;                    /* the host buffer of the array when planned */
  long long generation;
  int nrounds;
  int count[_XMPACC_MAXDIM];
  _xmpacc_slab_op_t *ops[_XMPACC_MAXDIM];
  _xmpacc_fast_reflect_t *mpi;         /* the host backend: MPI requests on its "device" copy */
  long long calls;
  long long bytes;                     /* sent per call (the profile's bytes) */
  int nwidths;                         /* explicit widths (lo, hi, periodic per dimension): */
  const long long *widths;             /* the plans of one array, one per set of widths */
  struct _xmpacc_acc_reflect_plan *next;
} _xmpacc_acc_reflect_plan_t;

/* One table per kind (runtime/replay.py REFLECT_DO ... ORTHOGONAL_WIDTHS): reflect_do ...
 * acc (what reflect_init planned), reflect ... acc with the declared or explicit widths,
 * the same orthogonal; each array's plans chained, one per set of widths, as the host
 * reflect's (xmpacc_fast.h). */
#define _XMPACC_ACC_REFLECT_KINDS 5
static _xmpacc_fast_table_t _xmpacc_acc_reflects[_XMPACC_ACC_REFLECT_KINDS];

int _xmpacc_acc_reflect_set(const void *array, int kind, _xmpacc_acc_reflect_plan_t *plan) {
  return kind >= 0 && kind < _XMPACC_ACC_REFLECT_KINDS
         && _xmpacc_fast_put(_xmpacc_acc_reflects[kind], array, plan);
}

static int _xmpacc_stage(const _xmpacc_slab_op_t *op, int pack, void *stream) {
  _xmpacc_memcpy2d_t c;
  for (long long k = 0; k < op->copies; k++) {
    uintptr_t in_array = op->array + (uintptr_t)(k * op->stride);
    uintptr_t in_stage = op->device + (uintptr_t)(k * op->width * op->height);
    memset(&c, 0, sizeof c);
    c.src_type = c.dst_type = 2;   /* CU_MEMORYTYPE_DEVICE */
    c.src_device = pack ? in_array : in_stage;
    c.src_pitch = (size_t)(pack ? op->pitch : op->width);
    c.dst_device = pack ? in_stage : in_array;
    c.dst_pitch = (size_t)(pack ? op->width : op->pitch);
    c.width = (size_t)op->width;
    c.height = (size_t)op->height;
    if (_xmpacc_replay.copy2d(&c, stream)) return 0;
  }
  return 1;
}

/* Each step: pack the strided send slabs, one NCCL group of sends and receives, unpack
 * the strided receive slabs, all on `stream` (the compute stream, or the exchange stream
 * of an overlapped reflect; the host never waits).  An error
 * after the first NCCL call cannot be undone: it is reported by the general path, which
 * runs the exchange again and meets it. */
static int _xmpacc_nccl_rounds(const _xmpacc_acc_reflect_plan_t *p, void *stream) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  for (int s = 0; s < p->nrounds; s++) {
    const _xmpacc_slab_op_t *ops = p->ops[s];
    for (int k = 0; k < p->count[s]; k++)
      if (ops[k].send && ops[k].array && !_xmpacc_stage(&ops[k], 1, stream)) return 0;
    if (r->group_start()) return 0;
    for (int k = 0; k < p->count[s]; k++) {
      const _xmpacc_slab_op_t *o = &ops[k];
      int e = o->send ? r->send((const void *)o->device, (size_t)o->nbytes, 1, o->peer, r->nccl, stream)
                      : r->recv((void *)o->device, (size_t)o->nbytes, 1, o->peer, r->nccl, stream);
      if (e) {
        r->group_end();
        return 0;
      }
    }
    if (r->group_end()) return 0;
    for (int k = 0; k < p->count[s]; k++)
      if (!ops[k].send && ops[k].array && !_xmpacc_stage(&ops[k], 0, stream)) return 0;
  }
  return 1;
}

/* The plan of this kind for these widths (compared as the call passes them). */
static _xmpacc_acc_reflect_plan_t *_xmpacc_reflect_plan(int kind, void *array, const long long *widths) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_acc_reflect_plan_t *p;
  if (!r->on || _xmpacc_fast_paused) return 0;
  p = (_xmpacc_acc_reflect_plan_t *)_xmpacc_fast_get(_xmpacc_acc_reflects[kind], array);
  if (widths)
    while (p && memcmp(p->widths, widths, sizeof(long long) * (size_t)p->nwidths)) p = p->next;
  if (!p || p->generation != r->generation || p->base != ((const _xmpacc_array_t *)array)->base) return 0;
  return p;
}

/* One exchange of plan p on the compute stream (MPI on the host backend); the event of
 * the profile is the entry's. */
static int _xmpacc_run_reflect(_xmpacc_acc_reflect_plan_t *p, int event, const char *where) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  long long start = r->profile ? _xmpacc_now() : 0;
  if (p->mpi ? !_xmpacc_mpi_rounds(p->mpi) : !_xmpacc_nccl_rounds(p, r->stream)) return 0;
  p->calls++;
  if (start) _xmpacc_replay_record(event, where, start, 0, p->bytes);
  return 1;
}

static int _xmpacc_replay_reflect(int kind, int event, void *array, const char *where,
                                  const long long *widths) {
  _xmpacc_acc_reflect_plan_t *p = _xmpacc_reflect_plan(kind, array, widths);
  return p && _xmpacc_run_reflect(p, event, where);
}

/* the kinds of replay.py: 0 reflect_do, 1 + 2 * orthogonal + (explicit widths) */
static int _xmpacc_reflect_acc_fast(void *array, const char *where, const long long *widths) {
  return _xmpacc_replay_reflect(1 + !!widths, _XMPACC_EV_REFLECT_ACC, array, where, widths);
}

static int _xmpacc_reflect_orthogonal_acc_fast(void *array, const char *where, const long long *widths) {
  return _xmpacc_replay_reflect(3 + !!widths, _XMPACC_EV_REFLECT_ORTHOGONAL_ACC, array, where, widths);
}

static int _xmpacc_reflect_do_acc_fast(void *array, const char *where) {
  return _xmpacc_replay_reflect(0, _XMPACC_EV_REFLECT_DO_ACC, array, where, 0);
}

/* ------------------------------------------------------------------ overlapped reflect ... acc */

/* A reflect ... acc whose next loop's interior runs while its halos travel
 * (passes/locality/overlap.py decides where; kernel_ranges.overlapped launches the
 * interior, then _xmpacc_reflect_acc_join, then the rim).  On GPUs its NCCL exchange goes
 * on the exchange stream, a high-priority stream of its own (runtime/acc_comm.py makes
 * it), behind everything the compute stream holds so far; the join makes the compute
 * stream wait for it.  The host backend holds the exchange back until the join, after the
 * interior ran: a loop that read a shadow slot in its interior would see the old value
 * there as it may on a GPU, so the host-backend tests catch a wrong peel.  Python holds
 * the exchanges it made itself (the first call at a site); then the join is Python's too.
 * A general exchange joins first, so two exchanges of the one NCCL communicator are
 * never in flight on two streams. */
static int _xmpacc_overlap_join(void) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  for (int k = 0; k < r->nheld; k++)
    if (!_xmpacc_mpi_rounds(((_xmpacc_acc_reflect_plan_t *)r->held[k])->mpi)) return 0;
  r->nheld = 0;
  if (r->python_overlaps) return 0;
  if (!r->overlap_open) return 1;
  if (r->event_record(r->comm_done, r->comm_stream) || r->stream_wait(r->stream, r->comm_done, 0)) return 0;
  r->overlap_open = r->rim = 0;
  return 1;
}

/* Before a call enters Python (the glue's _XMPACC_TO_PYTHON): Python launches and copies on
 * the compute stream, so a rim left on the exchange stream is joined first. */
static void _xmpacc_leave_rim(void) {
  if (_xmpacc_replay.rim) _xmpacc_overlap_join();
}

/* A site whose kernel makes the exchange itself (include/xmpacc_push.h): from the call after
 * runtime/acc_push.py planned it (collectively), nothing is exchanged here; the next launch
 * of the site's kernel pushes, as call number want. */
static int _xmpacc_push_call(_xmpacc_push_t *push, const char *where) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  long long start = r->profile ? _xmpacc_now() : 0;
  push->active = 1;
  push->want++;
  r->pushed_reflects++;
  if (start) _xmpacc_replay_record(_XMPACC_EV_REFLECT_ACC_OVERLAP, where, start, 0, push->bytes);
  return 1;
}

static int _xmpacc_reflect_acc_overlap_fast(void *array, const char *where, const long long *widths,
                                            int orthogonal, void *push) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  int kind = 1 + 2 * !!orthogonal + !!widths;
  _xmpacc_acc_reflect_plan_t *p;
  long long start;
  _xmpacc_push_t *pushed = (_xmpacc_push_t *)push;
  if (pushed && pushed->npeers) {
    /* a device copy added or removed since, or another array: Python checks that the
     * site's copy stayed (and never the transport here: the neighbours push) */
    if (!r->on || pushed->generation != r->generation || pushed->array != array) return 0;
    return _xmpacc_push_call(pushed, where);
  }
  p = _xmpacc_reflect_plan(kind, array, widths);
  if (!p || (!p->mpi && !r->comm_stream) || (p->mpi && r->nheld == _XMPACC_HELD)) {
    if (!_xmpacc_overlap_join()) return 0;
    return p && _xmpacc_run_reflect(p, orthogonal ? _XMPACC_EV_REFLECT_ORTHOGONAL_ACC : _XMPACC_EV_REFLECT_ACC,
                                    where);
  }
  if (r->overlap_min_bytes > 0) {
    const _xmpacc_array_t *a = (const _xmpacc_array_t *)array;
    if (a->local_elems * a->elem_size < r->overlap_min_bytes)   /* a small block: at once */
      return _xmpacc_overlap_join() && _xmpacc_run_reflect(p, _XMPACC_EV_REFLECT_ACC, where);
  }
  start = r->profile ? _xmpacc_now() : 0;
  p->calls++;
  if (p->mpi) {   /* the host backend: at the rim */
    r->held[r->nheld++] = p;
  } else if (p->nrounds) {
    if (!r->overlap_open) {   /* the exchange reads what the compute stream wrote so far */
      if (r->event_record(r->comm_ready, r->stream) || r->stream_wait(r->comm_stream, r->comm_ready, 0))
        return 0;
      r->overlap_open = 1;
    }
    /* an error after the first NCCL call is the general path's to report (it joins first) */
    if (!_xmpacc_nccl_rounds(p, r->comm_stream)) return 0;
  }   /* else nothing to exchange (one node): no event, no wait */
  r->overlapped_reflects++;
  if (start) _xmpacc_replay_record(_XMPACC_EV_REFLECT_ACC_OVERLAP, where, start, 0, p->bytes);
  return 1;
}

/* Whether the loop is split: an exchange in flight (interior, rim, join), or every one made
 * (one launch over the whole range).  Python answers where it holds exchanges. */
static int _xmpacc_reflect_acc_split_fast(const char *where, int *split) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  (void)where;
  if (r->python_overlaps) return 0;
  *split = r->overlap_open || r->nheld > 0;
  return 1;
}

/* After the interior: the rim reads the shadow slots, so its launches go behind the
 * exchange, on the exchange stream itself, while the interior may still run on the compute
 * stream (the rim's rows are not the interior's); the join after the rim makes the compute
 * stream wait for both.  So the rim costs no wait between the streams of its own, and the
 * exchange and rim together need only take less time than the interior.  The host backend
 * makes its held exchanges here. */
static int _xmpacc_reflect_acc_rim_fast(const char *where) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  long long start = r->profile && (r->overlap_open || r->nheld) ? _xmpacc_now() : 0;
  if (r->python_overlaps) return 0;
  if (r->nheld && !_xmpacc_overlap_join()) return 0;
  if (r->overlap_open) r->rim = 1;
  if (start) _xmpacc_replay_record(_XMPACC_EV_REFLECT_ACC_RIM, where, start, 0, 0);
  return 1;
}

static int _xmpacc_reflect_acc_join_fast(const char *where) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  long long start = r->profile && (r->overlap_open || r->nheld) ? _xmpacc_now() : 0;
  if (!_xmpacc_overlap_join()) return 0;   /* Python's exchanges, or it waits for the whole device */
  if (start) _xmpacc_replay_record(_XMPACC_EV_REFLECT_ACC_JOIN, where, start, 0, 0);
  return 1;
}

/* ------------------------------------------------------------------ loop reductions */

/* The reduction clause of an XMP loop on the host: before the loop every node but the
 * first of each set of nodes that share the loop starts from the identity (sums, products,
 * ^), after it MPI_Allreduce over that set, through the MPI library's own function.  One
 * plan per variable serves both calls; it holds while the executing node set and the
 * templates' distribution are those it was made under (the set's communicator comes from
 * them).  The logical operators, bool, long double and complex stay general. */
typedef struct _xmpacc_loop_reduce_plan {
  const void *tmpl, *data;
  long long count;
  int type, op, ndims;
  int mask[_XMPACC_MAXDIM];            /* the loop_dims it was made for */
  uintptr_t exec;
  long long layout;
  int size, rank;                      /* of the loop's nodes (size 0: this node is not one) */
  uintptr_t comm, datatype, mpi_op;    /* MPI handles */
  void *scratch;                       /* the send buffer: count elements */
  int elem;                            /* bytes per element */
  long long calls;
  struct _xmpacc_loop_reduce_plan *next;
  _xmpacc_node_ref_t on;               /* the reduction directive's on clause (none: 0, 0) */
  int nvar;                            /* a section's: its description's longs (0: none), */
  long long var[4 + 5 * _XMPACC_MAXDIM];   /* and where its count contiguous elements start */
  long long offset;                    /* (bytes into the variable) */
} _xmpacc_loop_reduce_plan_t;

_XMPACC_PLAN_TABLE(_xmpacc_loop_reduce_plans, _xmpacc_loop_reduce_plan_set,
                   const void *, _xmpacc_loop_reduce_plan_t)

/* The plan was made for the call's nodes: the executing set, the templates' layout and
 * the on clause. */
static int _xmpacc_reduce_here(const _xmpacc_loop_reduce_plan_t *p, const void *on, const long long *ref) {
  return p->exec == _xmpacc_replay.exec && p->layout == _xmpacc_replay.layout && _xmpacc_same_ref(&p->on, on, ref);
}

static _xmpacc_loop_reduce_plan_t *_xmpacc_reduce_find_on(const void *tmpl, const int *loop_dims, const void *data,
                                                          long long count, int type, int op, const void *on,
                                                          const long long *ref) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_loop_reduce_plan_t *p;
  if (!r->on || _xmpacc_fast_paused) return 0;
  for (p = (_xmpacc_loop_reduce_plan_t *)_xmpacc_fast_get(_xmpacc_loop_reduce_plans, data); p; p = p->next)
    if (p->tmpl == tmpl && p->count == count && p->type == type && p->op == op && !p->nvar
        && !memcmp(p->mask, loop_dims, sizeof(int) * (size_t)p->ndims) && _xmpacc_reduce_here(p, on, ref))
      return p;
  return 0;
}

static _xmpacc_loop_reduce_plan_t *_xmpacc_loop_reduce_find(const void *tmpl, const int *loop_dims, const void *data,
                                                            long long count, int type, int op) {
  return _xmpacc_reduce_find_on(tmpl, loop_dims, data, count, type, op, 0, 0);
}

/* Before the loop: every node of the plan but its first starts count elements at data
 * from the identity of op (+ and ^: 0, *: 1; the others start from their own value). */
static void _xmpacc_reset_identity(const _xmpacc_loop_reduce_plan_t *p, void *data, long long count, int type,
                                   int op) {
  if (!p->size || !p->rank) return;
  if (op == 1 || op == 5) {
    memset(data, 0, (size_t)(count * p->elem));
  } else if (op == 2) {
    for (long long k = 0; k < count; k++) {
      char *e = (char *)data + k * p->elem;
      switch (type) {
        case 13: *(float *)e = 1.0f; break;
        case 14: *(double *)e = 1.0; break;
        default: memset(e, 0, (size_t)p->elem); *e = 1; break;   /* integers, little-endian */
      }
    }
  }
}

static int _xmpacc_loop_reduce_begin_fast(const void *tmpl, const int *loop_dims, void *data, long long count,
                                          int type, int op) {
  _xmpacc_loop_reduce_plan_t *p = _xmpacc_loop_reduce_find(tmpl, loop_dims, data, count, type, op);
  long long start;
  if (!p) return 0;
  start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
  _xmpacc_reset_identity(p, data, count, type, op);
  if (start) _xmpacc_replay_record(_XMPACC_EV_LOOP_REDUCE_BEGIN, "", start, 0, 0);
  return 1;
}

/* data op= the other nodes' over the plan's node set, in place (nothing over one node).
 * MPI's errors end the job (MPI_ERRORS_ARE_FATAL): there is no way back from here. */
static void _xmpacc_allreduce_planned(_xmpacc_loop_reduce_plan_t *p, void *data, long long count, int event,
                                      const char *where) {
  long long start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
  if (p->size > 1) {
    memcpy(p->scratch, data, (size_t)(count * p->elem));
    _xmpacc_replay.allreduce(p->scratch, data, (int)count, p->datatype, p->mpi_op, p->comm);
  }
  p->calls++;
  if (start) _xmpacc_replay_record(event, where, start, 0, p->size > 1 ? count * p->elem : 0);
}

static int _xmpacc_loop_reduce_fast(const void *tmpl, const char *where, const int *loop_dims, void *data,
                                    long long count, int type, int op) {
  _xmpacc_loop_reduce_plan_t *p = _xmpacc_loop_reduce_find(tmpl, loop_dims, data, count, type, op);
  if (!p) {
    _xmpacc_replay.where = where;
    return 0;
  }
  _xmpacc_allreduce_planned(p, data, count, _XMPACC_EV_LOOP_REDUCE, where);
  return 1;
}

/* The reduction clause of a section (w[1][:]) without location variables: a loop plan
 * whose section is the call's, its description {type, elem size, rank, extents..., nsubs,
 * (kind, a, b, c)...} compared long for long, its elements contiguous (the general path
 * reduces the others through a copy).  tmpl 0: the directive's (_xmpacc_reduce_var_fast). */
static _xmpacc_loop_reduce_plan_t *_xmpacc_section_plan(const void *tmpl, const int *loop_dims, const void *data,
                                                        const long long *var, int op, const void *on,
                                                        const long long *ref) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_loop_reduce_plan_t *p;
  long long n;
  if (!r->on || _xmpacc_fast_paused || var[2] < 0 || var[2] > _XMPACC_MAXDIM) return 0;
  n = 4 + var[2] + 4 * var[3 + var[2]];
  for (p = (_xmpacc_loop_reduce_plan_t *)_xmpacc_fast_get(_xmpacc_loop_reduce_plans, data); p; p = p->next)
    if (p->tmpl == tmpl && p->nvar == n && p->op == op && _xmpacc_reduce_here(p, on, ref)
        && (!tmpl || !memcmp(p->mask, loop_dims, sizeof(int) * (size_t)p->ndims))
        && !memcmp(p->var, var, sizeof(long long) * (size_t)n))
      return p;
  return 0;
}

/* Before the loop: the location operators, max, min and the logical ones start from the
 * node's own value, as the general path leaves them; + * ^ of a section reset from its plan. */
static int _xmpacc_loop_reduce_var_begin_fast(const void *tmpl, const int *loop_dims, void *data,
                                              const long long *var, int op) {
  _xmpacc_loop_reduce_plan_t *p = 0;
  long long start;
  if (!_xmpacc_replay.on || _xmpacc_fast_paused) return 0;
  if ((op == 1 || op == 2 || op == 5) && !(p = _xmpacc_section_plan(tmpl, loop_dims, data, var, op, 0, 0)))
    return 0;
  start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
  if (p) _xmpacc_reset_identity(p, (char *)data + p->offset, p->count, p->type, op);
  if (start) _xmpacc_replay_record(_XMPACC_EV_LOOP_REDUCE_VAR_BEGIN, "", start, 0, 0);
  return 1;
}

static int _xmpacc_loop_reduce_locations(const void *tmpl, const char *where, const int *loop_dims, void *data,
                                         const long long *var, int op, int nloc, const void *loc_addrs,
                                         const void *loc_vars, int nkey, const long long *key);   /* xmpacc_locations.h */

static int _xmpacc_loop_reduce_var_fast(const void *tmpl, const char *where, const int *loop_dims, void *data,
                                        const long long *var, int op, int nloc, const void *loc_addrs,
                                        const void *loc_vars, int nkey, const long long *key) {
  _xmpacc_loop_reduce_plan_t *p;
  if (nloc) return _xmpacc_loop_reduce_locations(tmpl, where, loop_dims, data, var, op, nloc, loc_addrs, loc_vars,
                                                 nkey, key);
  p = _xmpacc_section_plan(tmpl, loop_dims, data, var, op, 0, 0);
  if (!p) {
    _xmpacc_replay.where = where;
    return 0;
  }
  _xmpacc_allreduce_planned(p, (char *)data + p->offset, p->count, _XMPACC_EV_LOOP_REDUCE_VAR, where);
  return 1;
}

static int _xmpacc_reduce_deferred(void *data, long long count, int type, int op, const char *where);

/* The reduction directive: a plan of the same form, made with no template, over the
 * executing nodes or the on clause's nodes (the reference's values compared with the
 * plan's; size 0 where this node is not one of them: nothing to do).  A variable whose
 * launch result is still deferred needs nothing over one node (the result reaches it at
 * the wait, as it would alone); over more, NCCL behind that result on the device
 * (xmpacc_acc_collectives.h), for the executing nodes. */
static int _xmpacc_reduce_fast(void *data, const char *where, long long count, int type, int op,
                               const void *on_nodes, const long long *on_ref) {
  static const int no_dims[1];
  _xmpacc_loop_reduce_plan_t *p;
  if (_xmpacc_replay.python_deferred) return 0;
  p = _xmpacc_reduce_find_on(0, no_dims, data, count, type, op, on_nodes, on_ref);
  if (!p) {
    _xmpacc_replay.where = where;
    return 0;
  }
  if (p->size > 1 && _xmpacc_deferred_has(data))
    return !on_nodes && _xmpacc_reduce_deferred(data, count, type, op, where);
  _xmpacc_allreduce_planned(p, data, count, _XMPACC_EV_REDUCE, where);
  return 1;
}

static int _xmpacc_reduce_var_locations(const char *where, void *data, const long long *var, int op,
                                        const void *on_nodes, const long long *on_ref, int nloc,
                                        const void *loc_addrs, const void *loc_vars);   /* xmpacc_locations.h */

/* The reduction directive of a section (w[lo:n] on p(:, *)): its section plan (no template);
 * with location variables, xmpacc_locations.h's. */
static int _xmpacc_reduce_var_fast(const char *where, void *data, const long long *var, int op,
                                   const void *on_nodes, const long long *on_ref, int nloc, const void *loc_addrs,
                                   const void *loc_vars) {
  static const int no_dims[1];
  _xmpacc_loop_reduce_plan_t *p;
  if (nloc) return _xmpacc_reduce_var_locations(where, data, var, op, on_nodes, on_ref, nloc, loc_addrs, loc_vars);
  p = _xmpacc_section_plan(0, no_dims, data, var, op, on_nodes, on_ref);
  if (!p) {
    _xmpacc_replay.where = where;
    return 0;
  }
  _xmpacc_allreduce_planned(p, (char *)data + p->offset, p->count, _XMPACC_EV_REDUCE_VAR, where);
  return 1;
}

/* ------------------------------------------------------------------ barrier, bcast */

/* barrier and bcast (from the first node) over the executing nodes, outside async: the
 * executing set's communicator is _xmpacc_replay.exec, which Python keeps in step (a task
 * changes it), so these need no plan.  A from clause needs its source's rank (a plan per
 * site and reference); an on clause takes the general path. */
static int _xmpacc_barrier_fast(const char *where, const void *on_nodes, const long long *on_ref) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  long long start;
  if (!r->on || !r->barrier || !r->exec || on_nodes || on_ref || _xmpacc_fast_paused) return 0;
  start = r->profile ? _xmpacc_now() : 0;
  r->barrier(r->exec);   /* MPI's errors end the job (MPI_ERRORS_ARE_FATAL) */
  r->barriers++;
  if (start) _xmpacc_replay_record(_XMPACC_EV_BARRIER, where, start, 0, 0);
  return 1;
}

/* A from clause: its source's rank in the executing nodes' communicator, as the general
 * path found it (collectively) at the first call of the site with this reference. */
typedef struct _xmpacc_bcast_plan {
  _xmpacc_node_ref_t source;           /* the from clause */
  uintptr_t exec;
  long long layout;
  int root;
  long long calls;
  struct _xmpacc_bcast_plan *next;
} _xmpacc_bcast_plan_t;

_XMPACC_PLAN_TABLE(_xmpacc_bcast_plans, _xmpacc_bcast_plan_set, const char *, _xmpacc_bcast_plan_t)

static int _xmpacc_bcast_fast(void *data, const char *where, long long nbytes, const void *from_nodes,
                              const long long *from_ref, const void *on_nodes, const long long *on_ref) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_bcast_plan_t *p = 0;
  long long start;
  if (!r->on || !r->bcast || !r->exec || on_nodes || on_ref || _xmpacc_fast_paused
      || nbytes < 0 || nbytes > 0x7fffffff)
    return 0;
  if (from_nodes) {
    for (p = (_xmpacc_bcast_plan_t *)_xmpacc_fast_get(_xmpacc_bcast_plans, where); p; p = p->next)
      if (p->exec == r->exec && p->layout == r->layout && _xmpacc_same_ref(&p->source, from_nodes, from_ref))
        break;
    if (!p) {
      r->where = where;   /* the plan Python makes is this site's */
      return 0;
    }
    p->calls++;
  } else if (from_ref) {
    return 0;
  }
  start = r->profile ? _xmpacc_now() : 0;
  r->bcast(data, (int)nbytes, r->byte_type, p ? p->root : 0, r->exec);
  r->bcasts++;
  if (start) _xmpacc_replay_record(_XMPACC_EV_BCAST, where, start, 0, nbytes);
  return 1;
}

/* ------------------------------------------------------------------ acc update */

/* acc update host/device of a present variable: the compute stream waited for (as the
 * general path waits), then a whole variable in one copy, synchronous or on the async
 * queue's stream, or a section (the bytes the call passes compared with the plan's) as
 * 2-D copies on the compute stream, which the host waits for (the general path copies
 * sections synchronously, async or not).  Plans per directive (PLANS_PER_SITE of
 * runtime/replay.py: other variables or sections there), valid while the device table's
 * generation is the one they were made under; a false if clause needs no plan. */
typedef struct _xmpacc_update_plan {
  const void *key;
  long long size, queue, generation;
  int direction, flags;
  void *host;
  uintptr_t device;
  long long nbytes;
  void *stream;                        /* the queue's (async), else 0 */
  long long calls;
  struct _xmpacc_update_plan *next;
  int nsec;                            /* the section as the call passes it (long longs); 0: none */
  int section;                         /* 1: host and device start the section's box of bytes: */
  const long long *sec;
  long long pitch, width, height, copies, stride;   /* (runtime/byte_boxes.py) */
} _xmpacc_update_plan_t;

_XMPACC_PLAN_TABLE(_xmpacc_update_plans, _xmpacc_update_plan_set, const char *, _xmpacc_update_plan_t)

static int _xmpacc_same_section(const _xmpacc_update_plan_t *p, const long long *sec) {
  if (!sec) return !p->nsec;
  return p->nsec == 2 + 5 * sec[0] && !memcmp(p->sec, sec, sizeof(long long) * (size_t)p->nsec);
}

/* The section's box between the variable and its device copy: memcpy on the host backend,
 * else 2-D copies on the compute stream and the host's wait for them; 0 on a driver error
 * (the general path copies again and reports it). */
static int _xmpacc_update_section(const _xmpacc_update_plan_t *p) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_memcpy2d_t c;
  for (long long k = 0; k < p->copies; k++) {
    char *host = (char *)p->host + k * p->stride;
    uintptr_t device = p->device + (uintptr_t)(k * p->stride);
    if (r->host_backend) {
      for (long long row = 0; row < p->height; row++) {
        char *h = host + row * p->pitch, *d = (char *)(device + (uintptr_t)(row * p->pitch));
        memcpy(p->direction ? h : d, p->direction ? d : h, (size_t)p->width);
      }
      continue;
    }
    memset(&c, 0, sizeof c);
    c.src_type = p->direction ? 2 : 1;   /* CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_HOST */
    c.dst_type = p->direction ? 1 : 2;
    if (p->direction) c.src_device = device, c.dst_host = host;
    else c.src_host = host, c.dst_device = device;
    c.src_pitch = c.dst_pitch = (size_t)p->pitch;
    c.width = (size_t)p->width;
    c.height = (size_t)p->height;
    if (r->copy2d(&c, r->stream)) return 0;
  }
  return r->host_backend || !r->synchronize(r->stream);
}

static int _xmpacc_acc_update_fast(const char *where, int direction, const void *key, long long size,
                                   const char *name, const long long *sec, int flags, long long queue) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_update_plan_t *p;
  long long start;
  (void)name;
  if (!r->on) return 0;
  if (!(flags & 1)) return 1;   /* the if clause is false: nothing to do */
  for (p = (_xmpacc_update_plan_t *)_xmpacc_fast_get(_xmpacc_update_plans, where); p; p = p->next)
    if (p->key == key && p->size == size && p->direction == direction && p->flags == flags
        && p->queue == queue && p->generation == r->generation && _xmpacc_same_section(p, sec))
      break;
  if (!p) {
    r->where = where;
    return 0;
  }
  start = r->profile ? _xmpacc_now() : 0;
  if (p->section) {
    if ((!r->host_backend && !_xmpacc_stream_idle()) || !_xmpacc_update_section(p)) return 0;
  } else if (r->host_backend) {
    if (direction) memcpy(p->host, (const void *)p->device, (size_t)p->nbytes);
    else memcpy((void *)p->device, p->host, (size_t)p->nbytes);
  } else {
    if (!_xmpacc_stream_idle()) return 0;
    if (p->stream ? (direction ? r->copy_to_host(p->host, p->device, (size_t)p->nbytes, p->stream)
                               : r->copy_in_async(p->device, p->host, (size_t)p->nbytes, p->stream))
                  : (direction ? r->copy_out(p->host, p->device, (size_t)p->nbytes)
                               : r->copy_in(p->device, p->host, (size_t)p->nbytes)))
      return 0;   /* nothing moved: the general path tries again and reports it */
  }
  if (p->stream)   /* the host waits for that queue at its next acc wait (as written) */
    for (int q = 0; q < r->nqueues; q++)
      if (r->queue_id[q] == p->queue) r->queue_moved_host[q] = 1;
  if (direction) r->sync_out_bytes += p->nbytes;
  else r->sync_in_bytes += p->nbytes;
  p->calls++;
  if (start) _xmpacc_replay_record(_XMPACC_EV_UPDATE, where, start, 0, p->nbytes);
  return 1;
}

/* ------------------------------------------------------------------ swap around a loop reduction */

/* _xmpacc_acc_swap_reduced of a variable that no device copy holds (the usual case: a
 * scalar the construct's reduction sent to the host): nothing to swap while the device
 * table is the one it was planned under. */
typedef struct _xmpacc_swap_plan {
  const void *key;
  long long size, generation;
  struct _xmpacc_swap_plan *next;
} _xmpacc_swap_plan_t;

_XMPACC_PLAN_TABLE(_xmpacc_swap_plans, _xmpacc_swap_plan_set, const char *, _xmpacc_swap_plan_t)

static int _xmpacc_acc_swap_reduced_fast(const char *where, const void *key, long long size, const char *name,
                                         int required) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_swap_plan_t *p;
  (void)name, (void)required;
  if (!r->on) return 0;
  r->where = where;
  for (p = (_xmpacc_swap_plan_t *)_xmpacc_fast_get(_xmpacc_swap_plans, where); p; p = p->next)
    if (p->key == key && p->size == size && p->generation == r->generation) break;
  if (!p) return 0;
  if (r->profile) _xmpacc_replay_record(_XMPACC_EV_SWAP_REDUCED, where, _xmpacc_now(), 0, 0);
  return 1;
}

#endif
