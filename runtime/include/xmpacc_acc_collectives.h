/* xmpacc_acc_collectives.h: bcast ... acc and reduction ... acc of whole variables and
 * elements, replayed in C from the plans runtime/replay_collectives.py makes at the first
 * call of each site (included by xmpacc_fast.h, whose opening comment says the rules).
 *
 * A plan repeats what the general path (runtime/acc_collectives.py) did on the device
 * copy: NCCL on the compute stream (ncclAllReduce in place, ncclBroadcast in place), or
 * MPI on host memory, the host backend's "device" buffer itself or, between GPUs without
 * NCCL (two ranks on one GPU, operators and types NCCL lacks), a stage the device bytes
 * go through after the compute stream's wait.  Plans per directive (``where``), valid for
 * the same variable, count, type and operator, under the device table's generation and
 * the executing node set they were made under; on and from clauses and async regions
 * take the general path. */
#ifndef XMPACC_ACC_COLLECTIVES_H
#define XMPACC_ACC_COLLECTIVES_H

typedef struct _xmpacc_acc_collective_plan {
  const void *data;                    /* the host address the call passes */
  long long count;                     /* reduction: elements; bcast: bytes */
  int type, op;                        /* the reduction's type code and operator; bcast: 0, 0 */
  long long generation;
  uintptr_t exec;                      /* the executing nodes' communicator */
  uintptr_t device;                    /* the device bytes that mirror data */
  long long nbytes;
  void *nccl;                          /* ncclComm_t: NCCL on the compute stream; 0: MPI */
  int nccl_type, nccl_op, root;        /* root: bcast's source in the communicator */
  int size;                            /* nodes of the communicator (MPI: nothing to do over one) */
  uintptr_t comm, datatype, mpi_op;    /* MPI handles (bcast: MPI_BYTE, no operator) */
  void *stage;                         /* GPU bytes through host memory; 0: in place (host backend) */
  void *scratch;                       /* the reduction's send buffer: nbytes */
  long long calls;
  struct _xmpacc_acc_collective_plan *next;
} _xmpacc_acc_collective_plan_t;

/* NCCL's collectives (runtime/replay_collectives.py finds them where CuPy loaded NCCL) */
typedef struct _xmpacc_acc_collectives {
  int (*allreduce)(const void *, void *, size_t, int, int, void *, void *);   /* ncclAllReduce */
  int (*broadcast)(const void *, void *, size_t, int, int, void *, void *);   /* ncclBroadcast */
} _xmpacc_acc_collectives_t;

_xmpacc_acc_collectives_t _xmpacc_acc_collectives;

_XMPACC_PLAN_TABLE(_xmpacc_acc_collective_plans, _xmpacc_acc_collective_plan_set,
                   const char *, _xmpacc_acc_collective_plan_t)

/* MPI on host memory: the stage filled after the compute stream's wait and emptied
 * again, or the host backend's buffer in place.  0 when nothing moved (a driver error
 * before the collective: the general path runs it and reports it); MPI's errors end the
 * job (MPI_ERRORS_ARE_FATAL), and an error of the copy back is the device's, sticky: the
 * next call that reaches the device through Python reports it. */
static int _xmpacc_acc_collective_mpi(const _xmpacc_acc_collective_plan_t *p) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  void *buf = p->stage ? p->stage : (void *)p->device;
  if (p->size <= 1) return 1;
  if (p->stage && (!_xmpacc_stream_idle() || r->copy_out(p->stage, p->device, (size_t)p->nbytes)))
    return 0;
  if (p->op) {
    memcpy(p->scratch, buf, (size_t)p->nbytes);
    r->allreduce(p->scratch, buf, (int)p->count, p->datatype, p->mpi_op, p->comm);
  } else {
    r->bcast(buf, (int)p->nbytes, p->datatype, p->root, p->comm);
  }
  if (p->stage) r->copy_in(p->device, p->stage, (size_t)p->nbytes);
  return 1;
}

static int _xmpacc_acc_collective_run(int event, const char *where, const void *data, long long count, int type,
                                      int op, int clauses) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_acc_collectives_t *c = &_xmpacc_acc_collectives;
  _xmpacc_acc_collective_plan_t *p;
  long long start;
  if (!r->on || clauses || _xmpacc_fast_paused) return 0;
  for (p = (_xmpacc_acc_collective_plan_t *)_xmpacc_fast_get(_xmpacc_acc_collective_plans, where); p; p = p->next)
    if (p->data == data && p->count == count && p->type == type && p->op == op
        && p->generation == r->generation && p->exec == r->exec)
      break;
  if (!p) {
    r->where = where;   /* the plan Python makes is this site's */
    return 0;
  }
  start = r->profile ? _xmpacc_now() : 0;
  if (p->nccl) {
    void *dev = (void *)p->device;
    if (op ? c->allreduce(dev, dev, (size_t)count, p->nccl_type, p->nccl_op, p->nccl, r->stream)
           : c->broadcast(dev, dev, (size_t)count, p->nccl_type, p->root, p->nccl, r->stream))
      return 0;   /* the general path runs it again and reports NCCL's error */
  } else if (!_xmpacc_acc_collective_mpi(p)) {
    return 0;
  }
  p->calls++;
  if (start) _xmpacc_replay_record(event, where, start, 0, p->nbytes);
  return 1;
}

static int _xmpacc_reduce_acc_fast(void *data, const char *where, long long count, int type, int op,
                                   const void *on_nodes, const long long *on_ref, const char *name) {
  (void)name;
  return _xmpacc_acc_collective_run(_XMPACC_EV_REDUCE_ACC, where, data, count, type, op, on_nodes || on_ref);
}

/* The reduction directive over more nodes than one of a variable whose launch result is
 * still deferred (runtime/reductions.py: acc_collectives.reduce_pending made the plan):
 * NCCL in place on the result's device value, on its side stream behind the partials
 * kernel, then the value's copy to the host and its ready event again, so that the wait
 * stores the value as it is.  The host's own value is joined first where it is not the
 * operator's identity; that, and results the host reduces (the host backend, no C record),
 * take the general path.  Plans per variable, for the executing nodes they were made for;
 * NCCL's side communicator is the general path's (one order of its collectives). */
typedef struct _xmpacc_over_nodes_plan {
  const void *data;
  int type, op;
  uintptr_t exec;                      /* the executing nodes' communicator */
  void *nccl;                          /* ncclComm_t of the side stream's reductions */
  int nccl_type, nccl_op;
  long long calls;
  struct _xmpacc_over_nodes_plan *next;
} _xmpacc_over_nodes_plan_t;

_XMPACC_PLAN_TABLE(_xmpacc_over_nodes_plans, _xmpacc_over_nodes_plan_set,
                   const void *, _xmpacc_over_nodes_plan_t)

/* the variable holds the identity of + or * (device_results._IDENTITY) */
#define _XMPACC_IDENTITY(T, OPS)                                               \
  {                                                                            \
    T h = *(const T *)r->host;                                                 \
    return r->op == 1 ? h == (T)0 : r->op == 2 && h == (T)1;                   \
  }
static int _xmpacc_holds_identity(const _xmpacc_result_t *r) {
  _XMPACC_RESULT_SWITCH(r->type, _XMPACC_IDENTITY)
  return 0;
}

static int _xmpacc_reduce_deferred(void *data, long long count, int type, int op, const char *where) {
  _xmpacc_replay_t *x = &_xmpacc_replay;
  _xmpacc_result_t *r = 0;
  _xmpacc_over_nodes_plan_t *p;
  long long start;
  int found = 0;
  if (count != 1 || !_xmpacc_acc_collectives.allreduce) return 0;
  for (int k = 0; k < x->ndeferred; k++)
    if (x->deferred[k]->host == data) r = x->deferred[k], found++;
  if (found != 1 || !r->function || !r->n || r->type != type || r->op != op
      || (!r->over_nodes && !_xmpacc_holds_identity(r)))
    return 0;
  for (p = (_xmpacc_over_nodes_plan_t *)_xmpacc_fast_get(_xmpacc_over_nodes_plans, data); p; p = p->next)
    if (p->type == type && p->op == op && p->exec == x->exec) break;
  if (!p) return 0;
  start = x->profile ? _xmpacc_now() : 0;
  if (_xmpacc_acc_collectives.allreduce((const void *)r->out, (void *)r->out, 1, p->nccl_type, p->nccl_op,
                                        p->nccl, r->side))
    return 0;   /* the general path runs it again and reports NCCL's error */
  r->over_nodes = 1;
  /* an error of these is the device's, sticky: the wait meets it and reports it */
  (void)x->copy_to_host(r->value, r->out, (size_t)_xmpacc_result_size(r->type), r->side);
  (void)x->event_record(r->ready, r->side);
  p->calls++;
  if (start) _xmpacc_replay_record(_XMPACC_EV_REDUCE, where, start, 0, 0);
  return 1;
}

/* op 0: no reduction operator is 0 (contract.REDUCTION_OPS) */
static int _xmpacc_bcast_acc_fast(void *data, const char *where, long long nbytes, const void *from_nodes,
                                  const long long *from_ref, const void *on_nodes, const long long *on_ref,
                                  const char *name) {
  (void)name;
  return _xmpacc_acc_collective_run(_XMPACC_EV_BCAST_ACC, where, data, nbytes, 0, 0,
                                    from_nodes || from_ref || on_nodes || on_ref);
}

#endif
