/* xmpacc_locations.h: reductions with location variables in C after their first call at a
 * site: their combination over the nodes, and (below) a GPU loop's pick of this node's
 * record after its launch (runtime/replay_locations.py makes the plans; included by
 * xmpacc_fast.h, whose opening comment says the rules).
 *
 * A time loop that looks for its largest element and where it is (`loop on t[i]
 * reduction(firstmax: v /i/)`: a pivot search, a convergence check that reports its worst
 * point) entered Python at every iteration to combine the nodes' answers: 80-140 µs on
 * the development VM.  Here, after the general path (runtime/reductions.py) ran the first
 * call, the same combination runs from a plan: MPI_Allreduce of the value (max or min)
 * from a copy of this node's; each node's record, whether it holds the result and the
 * trip numbers of the iteration that set it (the loop's key; a directive has none), goes to
 * every node through one more MPI_Allreduce (MPI_MAX over a row per node, the other rows
 * LLONG_MIN); the winner, as runtime/reductions.py `_winner` picks it (the first key in
 * sequential order, equal keys to the lowest node; the last and the highest for lastmax and
 * lastmin), broadcasts the location variables' bytes.
 *
 * A plan holds for the same variable, operator, location variables (addresses and
 * descriptions, compared as the call passes them) and key length, under the executing
 * nodes and distributions it was made under, as the loop reductions' plans
 * (xmpacc_replay.h).  The reduction variable is a scalar and each location variable whole
 * (no section); the others stay general. */
#ifndef XMPACC_LOCATIONS_H
#define XMPACC_LOCATIONS_H

#include <limits.h>

#define _XMPACC_LOCATIONS 8                         /* location variables a plan holds */
#define _XMPACC_LOCATION_DESC (_XMPACC_LOCATIONS * (4 + _XMPACC_MAXDIM))

typedef struct _xmpacc_location_plan {
  const void *tmpl;                    /* the loop's template or node array; 0: the directive */
  int ndims;
  int mask[_XMPACC_MAXDIM];            /* the loop_dims it was made for */
  _xmpacc_node_ref_t on;               /* the directive's on clause (none: 0, 0) */
  void *data;                          /* the reduction variable */
  long long var[4];                    /* its description {type, size, 0, 0} as passed */
  int op, elem;                        /* 8 .. 13 (collectives.py OP_NAMES); its bytes */
  int nloc;
  void *loc[_XMPACC_LOCATIONS];        /* the location variables, whole */
  long long loc_bytes[_XMPACC_LOCATIONS];
  int nlocdesc;                        /* their descriptions one after the other, as passed */
  long long locdesc[_XMPACC_LOCATION_DESC];
  int nkey;                            /* trip numbers in the loop's key (0: the directive's, unordered) */
  uintptr_t exec;
  long long layout;
  int size, rank;                      /* of the nodes that combine (size 0: this node is not one) */
  uintptr_t comm, datatype, value_op;  /* MPI handles: the value's allreduce (max or min) */
  uintptr_t record_type, record_op;    /* MPI_LONG_LONG, MPI_MAX: the records' */
  long long *records, *gathered;       /* size x (2 + nkey) each */
  void *scratch;                       /* this node's value before the allreduce */
  long long calls;
  struct _xmpacc_location_plan *next;
} _xmpacc_location_plan_t;

_XMPACC_PLAN_TABLE(_xmpacc_location_plans, _xmpacc_location_plan_set, const void *, _xmpacc_location_plan_t)

/* Do the location variables (addresses and descriptions) match the plan's? */
static int _xmpacc_same_locations(const _xmpacc_location_plan_t *p, int nloc, const void *loc_addrs,
                                  const void *loc_vars) {
  void *const *addrs = (void *const *)loc_addrs;
  const long long *const *descs = (const long long *const *)loc_vars;
  int at = 0;
  if (nloc != p->nloc) return 0;
  for (int k = 0; k < nloc; k++) {
    const long long *d = descs[k];
    long long n;
    if (addrs[k] != p->loc[k] || d[2] < 0 || d[2] > _XMPACC_MAXDIM || d[3 + d[2]] != 0) return 0;
    n = 4 + d[2];
    if (at + n > p->nlocdesc || memcmp(p->locdesc + at, d, sizeof(long long) * (size_t)n)) return 0;
    at += (int)n;
  }
  return at == p->nlocdesc;
}

static _xmpacc_location_plan_t *_xmpacc_location_find(const void *tmpl, const int *loop_dims, void *data,
                                                      const long long *var, int op, int nloc,
                                                      const void *loc_addrs, const void *loc_vars, int nkey,
                                                      const void *on, const long long *ref) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_location_plan_t *p;
  if (!r->on || _xmpacc_fast_paused || nloc < 1 || nloc > _XMPACC_LOCATIONS) return 0;
  for (p = (_xmpacc_location_plan_t *)_xmpacc_fast_get(_xmpacc_location_plans, data); p; p = p->next)
    if (p->tmpl == tmpl && p->op == op && p->nkey == nkey && !memcmp(p->var, var, sizeof p->var)
        && (!tmpl || !memcmp(p->mask, loop_dims, sizeof(int) * (size_t)p->ndims))
        && p->exec == r->exec && p->layout == r->layout && _xmpacc_same_ref(&p->on, on, ref)
        && _xmpacc_same_locations(p, nloc, loc_addrs, loc_vars))
      return p;
  return 0;
}

/* Does this node's value (mine) equal the reduced one, as the element type compares? */
static int _xmpacc_location_equal(const void *mine, const void *all, int type, int elem) {
  if (type == 13) return *(const float *)mine == *(const float *)all;
  if (type == 14) return *(const double *)mine == *(const double *)all;
  return !memcmp(mine, all, (size_t)elem);   /* integers: equal bits, equal values */
}

/* Sequential order of two records {holds the result, has a key, key...}: -1, 0, 1. */
static int _xmpacc_location_order(const long long *a, const long long *b, int nkey) {
  if (a[1] != b[1]) return a[1] < b[1] ? -1 : 1;   /* no key (nothing changed) comes first */
  for (int k = 0; a[1] && k < nkey; k++)
    if (a[2 + k] != b[2 + k]) return a[2 + k] < b[2 + k] ? -1 : 1;
  return 0;
}

static void _xmpacc_location_run(_xmpacc_location_plan_t *p, const long long *key, int event, const char *where) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  long long start = r->profile ? _xmpacc_now() : 0;
  int width = 2 + p->nkey, last = p->op == 12 || p->op == 13, winner = -1;
  if (p->size > 1) {
    long long *mine = p->records + (long long)p->rank * width;
    memcpy(p->scratch, p->data, (size_t)p->elem);
    r->allreduce(p->scratch, p->data, 1, p->datatype, p->value_op, p->comm);
    for (long long k = 0; k < (long long)p->size * width; k++) p->records[k] = LLONG_MIN;
    mine[0] = _xmpacc_location_equal(p->scratch, p->data, p->var[0], p->elem);
    mine[1] = key && key[0] != 0;   /* the loop's key: an iteration changed the variables */
    for (int k = 0; k < p->nkey; k++) mine[2 + k] = mine[1] ? key[1 + k] : 0;
    r->allreduce(p->records, p->gathered, p->size * width, p->record_type, p->record_op, p->comm);
    for (int n = 0; n < p->size; n++) {
      const long long *rec = p->gathered + (long long)n * width;
      int order = winner < 0 ? 0 : _xmpacc_location_order(rec, p->gathered + (long long)winner * width, p->nkey);
      if (rec[0] && (winner < 0 || (last ? order >= 0 : order < 0))) winner = n;
    }
    for (int k = 0; winner >= 0 && k < p->nloc; k++)   /* (a NaN value: nobody holds it, nothing moves) */
      r->bcast(p->loc[k], (int)p->loc_bytes[k], r->byte_type, winner, p->comm);
  }
  p->calls++;
  if (start) _xmpacc_replay_record(event, where, start, 0, p->size > 1 ? p->elem : 0);
}

/* The reduction clause with location variables (xmpacc_replay.h's _xmpacc_loop_reduce_var_fast
 * hands those here): the loop's key orders the nodes holding the result. */
static int _xmpacc_loop_reduce_locations(const void *tmpl, const char *where, const int *loop_dims, void *data,
                                         const long long *var, int op, int nloc, const void *loc_addrs,
                                         const void *loc_vars, int nkey, const long long *key) {
  _xmpacc_location_plan_t *p = _xmpacc_location_find(tmpl, loop_dims, data, var, op, nloc, loc_addrs, loc_vars,
                                                     nkey, 0, 0);
  if (!p) {
    _xmpacc_replay.where = where;
    return 0;
  }
  _xmpacc_location_run(p, key, _XMPACC_EV_LOOP_REDUCE_VAR, where);
  return 1;
}

/* The reduction directive with location variables (xmpacc_replay.h's _xmpacc_reduce_var_fast
 * hands those here): no key, the lowest (highest) node of those holding the result wins. */
static int _xmpacc_reduce_var_locations(const char *where, void *data, const long long *var, int op,
                                        const void *on_nodes, const long long *on_ref, int nloc,
                                        const void *loc_addrs, const void *loc_vars) {
  static const int no_dims[1];
  _xmpacc_location_plan_t *p = _xmpacc_location_find(0, no_dims, data, var, op, nloc, loc_addrs, loc_vars, 0,
                                                     on_nodes, on_ref);
  if (!p) {
    _xmpacc_replay.where = where;
    return 0;
  }
  _xmpacc_location_run(p, 0, _XMPACC_EV_REDUCE_VAR, where);
  return 1;
}

/* ------------------------------------------------------------------ a launch's location records */

/* A GPU loop with location variables (passes/kernel/kernel_locations.py) leaves a record per
 * warp (per thread on the host backend): key[0] (1: a thread changed the variables), the
 * trip numbers of its iteration, and the value of each field (the reduction variable, then
 * its location variables).  The node's record goes to the host variables and the loop's key
 * array, as runtime/acc_locations.py `pick` chooses it: among the changed records, those of
 * the best value (all of them where a value is NaN), the first key in sequential order (the
 * last for lastmax and lastmin), equal keys to the lowest record (the highest for last).
 * The replayed launch waits for its kernel and copies the records to host memory (the plan
 * is made only where they are small: runtime/replay_locations.py), or reads them there on
 * the host backend.  Loops launched in parts (margin, peel_and_wait) stay general. */
#define _XMPACC_LOCATED_FIELDS 9

typedef struct _xmpacc_located {
  int op, type;                        /* the operator (8..13) and the value's type code */
  int nkey;                            /* longs per record key: 1 + trip numbers */
  int nfields;
  long long records;
  uintptr_t keys;                      /* records x nkey int64: device memory, host on the host backend */
  uintptr_t partials[_XMPACC_LOCATED_FIELDS];   /* records values of each field, the same */
  int size[_XMPACC_LOCATED_FIELDS];    /* bytes of a field's value */
  void *host[_XMPACC_LOCATED_FIELDS];  /* the host variables */
  long long *host_key;                 /* the loop's key array */
  char *stage;                         /* host memory for the records (GPUs; 0 on the host backend) */
} _xmpacc_located_t;

/* A field's value as a long double (every integer type and float of C exactly). */
static long double _xmpacc_located_value(const char *at, int type) {
  switch (type) {
    case 2: case 3: return *(const signed char *)at;
    case 4: return *(const unsigned char *)at;
    case 5: return *(const short *)at;
    case 6: return *(const unsigned short *)at;
    case 7: return *(const int *)at;
    case 8: return *(const unsigned *)at;
    case 10: case 12: return (long double)*(const unsigned long long *)at;
    case 13: return *(const float *)at;
    case 14: return *(const double *)at;
    default: return (long double)*(const long long *)at;   /* 9, 11 */
  }
}

/* The record acc_locations.py `pick` writes; -1 where no thread changed the variables. */
static long long _xmpacc_located_best(const _xmpacc_located_t *l, const long long *keys, const char *values) {
  int max = l->op == 8 || l->op == 10 || l->op == 12, last = l->op == 12 || l->op == 13, nan = 0, have = 0;
  long double best = 0;
  long long chosen = -1;
  for (long long r = 0; r < l->records; r++) {
    long double v;
    if (!keys[r * l->nkey]) continue;
    v = _xmpacc_located_value(values + r * l->size[0], l->type);
    if (v != v) nan = 1;
    else if (!have || (max ? v > best : v < best)) best = v, have = 1;
  }
  for (long long r = 0; r < l->records; r++) {
    const long long *k = keys + r * l->nkey;
    int order = 0;
    if (!k[0] || (!nan && _xmpacc_located_value(values + r * l->size[0], l->type) != best)) continue;
    if (chosen < 0) {
      chosen = r;
      continue;
    }
    for (int n = 1; n < l->nkey && !order; n++) {
      const long long *c = keys + chosen * l->nkey;
      order = k[n] < c[n] ? -1 : k[n] > c[n];
    }
    if (l->nkey > 1 && (last ? order >= 0 : order < 0)) chosen = r;
  }
  return chosen;
}

static int _xmpacc_located_pick(const _xmpacc_launch_plan_t *p, void *stream) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  if (!p->host && r->synchronize(stream)) return 0;   /* the general path meets the kernel's failure */
  for (int n = 0; n < p->nlocated; n++) {
    const _xmpacc_located_t *l = &p->located[n];
    const long long *keys = (const long long *)l->keys;
    const char *fields[_XMPACC_LOCATED_FIELDS];
    long long row;
    if (!p->host) {   /* the records, one field after the other, to the stage */
      size_t at = (size_t)(l->records * l->nkey) * sizeof(long long);
      if (r->copy_out(l->stage, l->keys, at)) return 0;
      keys = (const long long *)l->stage;
      for (int f = 0; f < l->nfields; f++) {
        if (r->copy_out(l->stage + at, l->partials[f], (size_t)(l->records * l->size[f]))) return 0;
        fields[f] = l->stage + at;
        at += (size_t)(l->records * l->size[f]);
      }
    } else {
      for (int f = 0; f < l->nfields; f++) fields[f] = (const char *)l->partials[f];
    }
    row = _xmpacc_located_best(l, keys, fields[0]);
    if (row < 0) continue;   /* no thread changed the variables: they keep their values */
    memcpy(l->host_key, keys + row * l->nkey, sizeof(long long) * (size_t)l->nkey);
    for (int f = 0; f < l->nfields; f++) memcpy(l->host[f], fields[f] + row * l->size[f], (size_t)l->size[f]);
  }
  r->pending = 0;   /* the host waited for the compute stream */
  return 1;
}

#endif
