/* xmpacc_async.h: async (id) of host reflects in C, part of xmpacc_fast.h (the glue).
 *
 * Once the runtime turns it on (runtime/fast_async.py), async_begin and async_end run
 * here and Python reads the current id from _xmpacc_fast_async.  A reflect under async
 * (id) whose plan exists starts its first step's persistent requests and stays in
 * flight; wait_async completes the reflects of each id in the order they were started,
 * each step started when the one before it completes (corners need the earlier
 * dimension's data), as the general path's StepsPending does; xmp_test_async tests them
 * the same way without waiting.
 *
 * An id stays Python's while Python holds an operation under it (the ``python`` list,
 * which Python keeps in step): every reflect under it then takes the general path, and
 * before Python adds an operation under an id, waits for it or tests it, it takes over
 * what C started under that id (fast_async.py), so one list per id keeps the order. */
#ifndef XMPACC_ASYNC_H
#define XMPACC_ASYNC_H

#define _XMPACC_ASYNC_OPS 64           /* reflects in flight under C's ids */
#define _XMPACC_ASYNC_PYTHON 16        /* ids Python holds operations under */

typedef struct _xmpacc_fast_async {
  int on;                              /* async_begin/end run here */
  int active;                          /* inside a directive with async (id) */
  long long current;                   /* its id */
  int npython;                         /* Python's ids; -1: more than the list holds (all Python's) */
  long long python[_XMPACC_ASYNC_PYTHON];
  int nops;                            /* reflects in flight, in the order they were started */
  long long id[_XMPACC_ASYNC_OPS];
  _xmpacc_fast_reflect_t *op[_XMPACC_ASYNC_OPS];
  long long waits, tests;              /* wait_async and xmp_test_async done here (XMPACC_STATS) */
} _xmpacc_fast_async_t;

_xmpacc_fast_async_t _xmpacc_fast_async;

static int _xmpacc_async_python(long long id) {
  _xmpacc_fast_async_t *a = &_xmpacc_fast_async;
  if (a->npython < 0) return 1;
  for (int k = 0; k < a->npython; k++)
    if (a->python[k] == id) return 1;
  return 0;
}

/* Start the first step from ``r`` on that has requests: the steps started (0: none left),
 * -1 on an MPI error. */
static int _xmpacc_fast_start_from(_xmpacc_fast_reflect_t *plan, int r) {
  for (; r < plan->nrounds; r++)
    if (plan->count[r]) return plan->startall(plan->count[r], plan->requests[r]) ? -1 : r + 1;
  return 0;
}

/* Complete the step in flight (wait) or see whether it is complete (test), starting the
 * next one whenever one completes: 1 once the reflect is complete, 0 while a step is in
 * flight, -1 on an MPI error.  Python calls it for the reflects it takes over. */
int _xmpacc_fast_reflect_progress(_xmpacc_fast_reflect_t *plan, int wait) {
  while (plan->started > 0) {
    int r = plan->started - 1, done = 1;
    if (wait ? plan->waitall(plan->count[r], plan->requests[r], plan->statuses)
             : plan->testall(plan->count[r], plan->requests[r], &done, plan->statuses))
      return -1;
    if (!done) return 0;
    plan->started = _xmpacc_fast_start_from(plan, r + 1);
  }
  return plan->started < 0 ? -1 : 1;
}

/* reflect under async (id): its first step started, the rest left to the wait. */
static int _xmpacc_async_reflect(_xmpacc_fast_reflect_t *plan) {
  _xmpacc_fast_async_t *a = &_xmpacc_fast_async;
  int started;
  if (!a->on || !a->active || !plan->testall || a->nops == _XMPACC_ASYNC_OPS ||
      _xmpacc_async_python(a->current))
    return 0;
  started = _xmpacc_fast_start_from(plan, 0);
  if (started < 0) return 0;
  if (started) {   /* no step (no neighbour): nothing stays in flight */
    plan->started = started;
    a->id[a->nops] = a->current, a->op[a->nops++] = plan;
  }
  plan->calls++, plan->async_calls++;
  return 1;
}

/* Progress the reflects of one id in order (wait: until each is complete), dropping the
 * complete ones: 1 when none is left, 0 when some is in flight, -1 on an MPI error (the
 * rest stays, for Python). */
static int _xmpacc_async_progress_id(long long id, int wait) {
  _xmpacc_fast_async_t *a = &_xmpacc_fast_async;
  int k, kept = 0, all = 1, got = 1;
  for (k = 0; k < a->nops; k++) {
    if (a->id[k] == id && got >= 0) {
      got = _xmpacc_fast_reflect_progress(a->op[k], wait);
      if (got == 1) continue;
      all = 0;
    }
    a->id[kept] = a->id[k], a->op[kept++] = a->op[k];
  }
  a->nops = kept;
  return got < 0 ? -1 : all;
}

/* Python takes over the reflects of one id (fast_async.py): they leave C's list. */
void _xmpacc_fast_async_drop(long long id) {
  _xmpacc_fast_async_t *a = &_xmpacc_fast_async;
  int k, kept = 0;
  for (k = 0; k < a->nops; k++)
    if (a->id[k] != id) a->id[kept] = a->id[k], a->op[kept++] = a->op[k];
  a->nops = kept;
}

static void _xmpacc_async_record(int entry, const char *where, long long start) {
  if (start) _xmpacc_replay_record(entry, where, start, 0, 0);
}

static int _xmpacc_async_begin_fast(long long async_id) {
  _xmpacc_fast_async_t *a = &_xmpacc_fast_async;
  long long start;
  if (!a->on) return 0;
  start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
  a->active = 1, a->current = async_id;
  _xmpacc_fast_paused = 1;   /* the C side's collectives take the general path (non-blocking) */
  _xmpacc_async_record(_XMPACC_EV_ASYNC_BEGIN, 0, start);
  return 1;
}

static int _xmpacc_async_end_fast(void) {
  _xmpacc_fast_async_t *a = &_xmpacc_fast_async;
  long long start;
  if (!a->on) return 0;
  start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
  a->active = 0;
  _xmpacc_fast_paused = 0;
  _xmpacc_async_record(_XMPACC_EV_ASYNC_END, 0, start);
  return 1;
}

/* wait_async over the executing nodes when no id is Python's; an on clause takes the
 * general path. */
static int _xmpacc_wait_async_fast(const char *where, int n, const long long *ids, const void *on_nodes,
                                   const long long *on_ref) {
  _xmpacc_fast_async_t *a = &_xmpacc_fast_async;
  long long start;
  int k;
  if (!a->on || on_nodes || on_ref) return 0;
  for (k = 0; k < n; k++)
    if (_xmpacc_async_python(ids[k])) return 0;
  start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
  for (k = 0; k < n; k++)
    if (_xmpacc_async_progress_id(ids[k], 1) < 0) return 0;
  a->waits++;
  _xmpacc_async_record(_XMPACC_EV_WAIT_ASYNC, where, start);
  return 1;
}

static int _xmpacc_test_async_fast(long long async_id, int *result) {
  _xmpacc_fast_async_t *a = &_xmpacc_fast_async;
  long long start;
  int got;
  if (!a->on || _xmpacc_async_python(async_id)) return 0;
  start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
  got = _xmpacc_async_progress_id(async_id, 0);
  if (got < 0) return 0;
  *result = got;
  a->tests++;
  _xmpacc_async_record(_XMPACC_EV_TEST_ASYNC, 0, start);
  return 1;
}

#endif
