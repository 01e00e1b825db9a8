/* xmpacc_results.h: how a scalar reduction of a launch reaches its variable, from the
 * partials the kernel leaves (one per warp; per thread on the host backend).  One record
 * per reduction of a prepared launch (runtime/device_results.py makes it); the general
 * path calls these functions through ctypes and the replayed launch (xmpacc_replay.h)
 * calls them directly, so both reduce alike, bit for bit.
 *
 * On a GPU, _xmpacc_result_start queues behind the kernel, on a side stream, the partials
 * kernel (runtime/partials.py: one launch, a value per block, the last block folds them),
 * the copy of the value into page-locked memory and an event; _xmpacc_result_finish waits
 * for that event alone and folds the value into the variable.  Kernels queued after the
 * launch do not wait for the reduction, nor it for them.  On the host backend the
 * partials are reduced here, after the kernel (which ran inside its launch).
 *
 * The deferred results (acc_defer_reductions) wait in _xmpacc_replay.deferred until
 * _xmpacc_acc_reductions_wait, or are dropped by _xmpacc_acc_reductions_discard; Python
 * takes them over whenever it runs one of those entries (runtime/deferred.py), and
 * while it holds any (python_deferred) the C side leaves every one of them to it. */
#ifndef XMPACC_RESULTS_H
#define XMPACC_RESULTS_H

typedef struct _xmpacc_result {
  void *host;                          /* the variable */
  int type, op;                        /* _XMPACC_TYPE code, XMP operator (1 + ... 9 min) */
  const void *partials;                /* the kernel's partials */
  long long n;                         /* how many (0: the variable keeps its value) */
  void *value;                         /* the reduced value, in host memory (page-locked on a GPU) */
  /* a GPU only (function 0: the host backend) */
  void *function;                      /* the partials kernel (CUfunction) */
  unsigned grid;                       /* its blocks, of 256 threads */
  uintptr_t blocks, done, out;         /* device: a value per block, the blocks' counter, the value */
  void *side, *launched, *reduced, *ready;   /* CUstream; CUevents */
  int over_nodes;                      /* the value is final (reduced over the nodes): stored as it is */
  int finished;                        /* the host waited for it since its start: its partials are read */
  void *params[5];                     /* the kernel's: &partials, &n, &blocks, &done, &out */
} _xmpacc_result_t;

static int _xmpacc_result_size(int type) {
  switch (type) {
    case 2: case 3: case 4: return 1;
    case 5: case 6: return 2;
    case 7: case 8: case 13: return 4;
    default: return 8;
  }
}

/* a = a op b in type T; && and || on 0/1; max and min keep a NaN (as CuPy's max and min) */
#define _XMPACC_RESULT_OP(T, a, b, op)                                         \
  switch (op) {                                                                \
    case 1: a = (T)(a + b); break;                                             \
    case 2: a = (T)(a * b); break;                                             \
    case 6: a = (T)(a != 0 && b != 0); break;                                  \
    case 7: a = (T)(a != 0 || b != 0); break;                                  \
    case 8: if (b > a || b != b) a = b; break;                                 \
    case 9: if (b < a || b != b) a = b; break;                                 \
    default: break;                                                            \
  }
#define _XMPACC_RESULT_BITS(T, a, b, op)                                       \
  switch (op) {                                                                \
    case 3: a = (T)(a & b); break;                                             \
    case 4: a = (T)(a | b); break;                                             \
    case 5: a = (T)(a ^ b); break;                                             \
    default: _XMPACC_RESULT_OP(T, a, b, op)                                    \
  }

/* WHAT(T, OPS) for the C type of a record's _XMPACC_TYPE code (floating types without
 * the bitwise operators) */
#define _XMPACC_RESULT_SWITCH(type, WHAT)                                      \
  switch (type) {                                                              \
    case 2: case 3: WHAT(signed char, _XMPACC_RESULT_BITS)                     \
    case 4: WHAT(unsigned char, _XMPACC_RESULT_BITS)                           \
    case 5: WHAT(short, _XMPACC_RESULT_BITS)                                   \
    case 6: WHAT(unsigned short, _XMPACC_RESULT_BITS)                          \
    case 7: WHAT(int, _XMPACC_RESULT_BITS)                                     \
    case 8: WHAT(unsigned int, _XMPACC_RESULT_BITS)                            \
    case 9: case 11: WHAT(long long, _XMPACC_RESULT_BITS)                      \
    case 10: case 12: WHAT(unsigned long long, _XMPACC_RESULT_BITS)            \
    case 13: WHAT(float, _XMPACC_RESULT_OP)                                    \
    case 14: WHAT(double, _XMPACC_RESULT_OP)                                   \
    default: break;                                                            \
  }

/* The host backend: value = op over the partials, in order. */
#define _XMPACC_RESULT_HOST(T, OPS)                                            \
  {                                                                            \
    const T *in = (const T *)r->partials;                                      \
    T a = r->op >= 6 && r->op <= 7 ? (T)(in[0] != 0) : in[0];                  \
    for (long long i = 1; i < r->n; i++) {                                     \
      T b = in[i];                                                             \
      OPS(T, a, b, r->op)                                                      \
    }                                                                          \
    *(T *)r->value = a;                                                        \
  }                                                                            \
  break;

static void _xmpacc_result_on_host(const _xmpacc_result_t *r) {
  _XMPACC_RESULT_SWITCH(r->type, _XMPACC_RESULT_HOST)
}

/* variable = variable op value, in the variable's type (&& and ||: 0 or 1) */
#define _XMPACC_RESULT_FOLD(T, OPS)                                            \
  {                                                                            \
    T a = *(T *)r->host, b = *(const T *)r->value;                             \
    OPS(T, a, b, r->op)                                                        \
    *(T *)r->host = a;                                                         \
  }                                                                            \
  break;

static void _xmpacc_result_fold(const _xmpacc_result_t *r) {
  _XMPACC_RESULT_SWITCH(r->type, _XMPACC_RESULT_FOLD)
}

/* Before the kernel runs again: it waits until the reduction has read its partials
 * (unless the host has waited for the whole reduction since).  Each of these functions
 * returns the driver's error (CUresult), 0 when none. */
int _xmpacc_result_before(const _xmpacc_result_t *r, void *stream) {
  return r->function && !r->finished ? _xmpacc_replay.stream_wait(stream, r->reduced, 0) : 0;
}

/* Right after the kernel's launch on `stream`: the reduction behind it. */
int _xmpacc_result_start(_xmpacc_result_t *r, void *stream) {
  _xmpacc_replay_t *x = &_xmpacc_replay;
  int e;
  r->over_nodes = r->finished = 0;
  if (!r->n) return 0;
  if (!r->function) {
    _xmpacc_result_on_host(r);
    return 0;
  }
  r->params[0] = (void *)&r->partials, r->params[1] = &r->n, r->params[2] = &r->blocks;
  r->params[3] = &r->done, r->params[4] = &r->out;
  if ((e = x->event_record(r->launched, stream)) || (e = x->stream_wait(r->side, r->launched, 0))
      || (e = x->launch(r->function, r->grid, 1, 1, 256, 1, 1, 0, r->side, r->params, 0))
      || (e = x->event_record(r->reduced, r->side))
      || (e = x->copy_to_host(r->value, r->out, (size_t)_xmpacc_result_size(r->type), r->side)))
    return e;
  return x->event_record(r->ready, r->side);
}

/* The host needs the variable: wait for this reduction alone, then fold (or store) it.
 * An error here is the kernel's or its reduction's (the caller reports it). */
int _xmpacc_result_finish(_xmpacc_result_t *r) {
  int e;
  if (!r->n) return 0;
  if (r->function && (e = _xmpacc_replay.event_synchronize(r->ready))) return e;
  r->finished = 1;
  if (r->over_nodes)
    memcpy(r->host, r->value, (size_t)_xmpacc_result_size(r->type));
  else
    _xmpacc_result_fold(r);
  return 0;
}

/* ------------------------------------------------------------------ deferred results */

/* Wait for every deferred result, in order; 0 on an error, the failing one and those
 * after it still deferred (the general path finishes them and reports it). */
static int _xmpacc_deferred_finish(void) {
  _xmpacc_replay_t *x = &_xmpacc_replay;
  int k = 0;
  for (; k < x->ndeferred; k++)
    if (_xmpacc_result_finish(x->deferred[k])) break;
  memmove(x->deferred, x->deferred + k, sizeof(x->deferred[0]) * (size_t)(x->ndeferred - k));
  x->ndeferred -= k;
  return x->ndeferred == 0;
}

static int _xmpacc_deferred_has(const void *data) {
  for (int k = 0; k < _xmpacc_replay.ndeferred; k++)
    if (_xmpacc_replay.deferred[k]->host == data) return 1;
  return 0;
}

static int _xmpacc_acc_defer_reductions_fast(void) {
  _xmpacc_replay_t *x = &_xmpacc_replay;
  if (!x->on) return 0;
  x->defer_next = 1;
  if (x->profile) _xmpacc_replay_record(_XMPACC_EV_DEFER, "", _xmpacc_now(), 0, 0);
  return 1;
}

static int _xmpacc_acc_reductions_wait_fast(const char *where) {
  _xmpacc_replay_t *x = &_xmpacc_replay;
  long long start;
  if (!x->on || x->python_deferred) return 0;
  start = x->profile ? _xmpacc_now() : 0;
  if (!_xmpacc_deferred_finish()) return 0;
  if (start) _xmpacc_replay_record(_XMPACC_EV_REDUCTIONS_WAIT, where, start, 0, 0);
  return 1;
}

static int _xmpacc_acc_reductions_discard_fast(const void *data) {
  _xmpacc_replay_t *x = &_xmpacc_replay;
  int kept = 0;
  if (!x->on || x->python_deferred) return 0;
  for (int k = 0; k < x->ndeferred; k++)
    if (x->deferred[k]->host != data) x->deferred[kept++] = x->deferred[k];
  x->ndeferred = kept;
  if (x->profile) _xmpacc_replay_record(_XMPACC_EV_REDUCTIONS_DISCARD, "", _xmpacc_now(), 0, 0);
  return 1;
}

#endif
