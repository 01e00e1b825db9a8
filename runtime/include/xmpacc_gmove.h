/* xmpacc_gmove.h: a gmove between host arrays, replayed in C from the plan runtime/gmove.py
 * made at the first call at a site (runtime/replay_gmove.py hands it over; included by
 * xmpacc_fast.h, whose opening comment says the rules).
 *
 * As gmove_exec.run_collective runs it: the elements each peer gets are gathered into a
 * buffer (or sent in place), those that stay on the node are gathered too, every source
 * element is read before one message may land; then MPI persistent requests (receives,
 * then sends), the staying elements scattered, the wait, the received elements scattered
 * from their buffers.  Each part of elements is pieces of `size` elements at `starts` (a
 * block, pieces at a stride, or any offsets alike).  A plan holds while the call passes
 * the same arrays (or local bases) and sections, both descriptors hold what they held
 * when it was made (their blocks and layouts: an aligned dummy aligned anew at each call
 * holds the same), under the same executing nodes and distributions, outside async. */
#ifndef XMPACC_GMOVE_H
#define XMPACC_GMOVE_H

typedef struct _xmpacc_gmove_part {
  long long npieces, size;             /* pieces of size elements */
  const long long *starts;             /* each piece's first element in the side's view */
  char *buffer;                        /* gathered into, scattered from; NULL: sent or received in place */
} _xmpacc_gmove_part_t;

typedef struct _xmpacc_gmove_plan {
  int mode;
  const void *lhs_array, *rhs_array;   /* the descriptors as the call passes them (NULL: local) */
  const void *lhs_base, *rhs_base;     /* a local side's base */
  const long long *lhs_sec, *rhs_sec;  /* the sections' longs as planned, */
  long long lhs_nsec, rhs_nsec;        /* how many (2 + 5 per dimension) */
  const void *lhs_desc, *rhs_desc;     /* the descriptors' bytes as planned (NULL: local side) */
  uintptr_t exec;
  long long layout;
  long long esize;
  char *dst, *src;                     /* the sides' element views */
  int nsends, nrecvs;
  _xmpacc_gmove_part_t *sends, *recvs;
  _xmpacc_gmove_part_t stay_src, stay_dst;   /* npieces 0: nothing stays */
  _xmpacc_fast_reflect_t *requests;    /* one round: the receives, then the sends */
  long long calls, bytes;              /* bytes sent per call (XMPACC_STATS gmove_bytes) */
  struct _xmpacc_gmove_plan *next;
} _xmpacc_gmove_plan_t;

_XMPACC_PLAN_TABLE(_xmpacc_gmove_plans, _xmpacc_gmove_plan_set, const char *, _xmpacc_gmove_plan_t)

static void _xmpacc_gmove_gather(const _xmpacc_gmove_part_t *t, const char *view, long long esize) {
  long long piece = t->size * esize;
  for (long long k = 0; k < t->npieces; k++)
    memcpy(t->buffer + k * piece, view + t->starts[k] * esize, (size_t)piece);
}

static void _xmpacc_gmove_scatter(const _xmpacc_gmove_part_t *t, char *view, const char *from, long long esize) {
  long long piece = t->size * esize;
  for (long long k = 0; k < t->npieces; k++)
    memcpy(view + t->starts[k] * esize, from + k * piece, (size_t)piece);
}

/* One side as the call passes it against the plan's. */
static int _xmpacc_gmove_side(const void *array, const void *base, const long long *sec, const void *planned_array,
                              const void *planned_base, const long long *planned_sec, long long nsec,
                              const void *desc) {
  if (array != planned_array || (!array && base != planned_base)) return 0;
  if (sec[0] < 0 || sec[0] > _XMPACC_MAXDIM || 2 + 5 * sec[0] != nsec
      || memcmp(sec, planned_sec, sizeof(long long) * (size_t)nsec))
    return 0;
  return !array || !memcmp(array, desc, sizeof(_xmpacc_array_t));
}

static int _xmpacc_gmove_fast(const char *where, int mode, const void *lhs_array, void *lhs_base,
                              const long long *lhs_sec, const void *rhs_array, void *rhs_base,
                              const long long *rhs_sec) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_gmove_plan_t *p;
  _xmpacc_fast_reflect_t *q;
  long long start;
  if (!r->on || _xmpacc_fast_paused) return 0;
  r->where = where;
  for (p = (_xmpacc_gmove_plan_t *)_xmpacc_fast_get(_xmpacc_gmove_plans, where); p; p = p->next)
    if (p->mode == mode && p->exec == r->exec && p->layout == r->layout
        && _xmpacc_gmove_side(lhs_array, lhs_base, lhs_sec, p->lhs_array, p->lhs_base, p->lhs_sec, p->lhs_nsec,
                              p->lhs_desc)
        && _xmpacc_gmove_side(rhs_array, rhs_base, rhs_sec, p->rhs_array, p->rhs_base, p->rhs_sec, p->rhs_nsec,
                              p->rhs_desc))
      break;
  if (!p) return 0;
  start = r->profile ? _xmpacc_now() : 0;
  q = p->requests;
  for (int k = 0; k < p->nsends; k++)
    if (p->sends[k].buffer) _xmpacc_gmove_gather(&p->sends[k], p->src, p->esize);
  if (p->stay_src.npieces) _xmpacc_gmove_gather(&p->stay_src, p->src, p->esize);
  /* a failure past the start cannot be undone; MPI's default handler ends the job there */
  if (q->count[0] && q->startall(q->count[0], q->requests[0])) return 0;
  if (p->stay_dst.npieces) _xmpacc_gmove_scatter(&p->stay_dst, p->dst, p->stay_src.buffer, p->esize);
  if (q->count[0] && q->waitall(q->count[0], q->requests[0], q->statuses)) return 0;
  for (int k = 0; k < p->nrecvs; k++)
    if (p->recvs[k].buffer) _xmpacc_gmove_scatter(&p->recvs[k], p->dst, p->recvs[k].buffer, p->esize);
  p->calls++;
  if (start) _xmpacc_replay_record(_XMPACC_EV_GMOVE, where, start, 0, p->bytes);
  return 1;
}

#endif
