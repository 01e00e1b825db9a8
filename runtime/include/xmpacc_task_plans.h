/* xmpacc_task_plans.h: `task on` (and `task ... nocomm`) in C after its first call at a site (runtime/replay_tasks.py
 * makes the plans; included by xmpacc_fast.h, whose opening comment says the rules).
 *
 * A task in a time loop (`task on p(1)` around a printf, a row's reduction) entered Python
 * twice per iteration: the node set's membership and communicator (split once, cached),
 * the executing set pushed and published, then popped.  Here a plan of the site, valid
 * while the call names the same nodes and reference under the same executing set,
 * distributions and node sets (Python's parameter generation counts those), answers
 * whether this node runs the body and, where it does, makes the task's communicator the
 * executing one for the C side (the collectives' plans name it) and for xmp_node_num().
 *
 * Python learns of a task entered here lazily: before a call enters Python inside it, the
 * glue has Python push the task's node sets as its own (_xmpacc_tasks_sync); the task's end
 * is then Python's.  A task that ends before any call enters Python never reaches it. */
#ifndef XMPACC_TASK_PLANS_H
#define XMPACC_TASK_PLANS_H

#define _XMPACC_TASK_DEPTH 16

typedef struct _xmpacc_task_plan {
  _xmpacc_node_ref_t on;               /* the nodes and reference as the call passes them */
  uintptr_t parent;                    /* the executing set's communicator when planned */
  long long layout, generation;        /* distributions, node sets and templates then */
  int member;                          /* 0: this node skips the body */
  uintptr_t exec;                      /* the task's communicator (member only) */
  int exec_rank, exec_size;
  long long calls;
  struct _xmpacc_task_plan *next;      /* the site's plans of other references */
} _xmpacc_task_plan_t;

typedef struct _xmpacc_task_entered {
  _xmpacc_task_plan_t *plan;
  uintptr_t exec;                      /* what the end restores */
  int exec_rank, exec_size;
} _xmpacc_task_entered_t;

_XMPACC_PLAN_TABLE(_xmpacc_task_plans, _xmpacc_task_plan_set, const char *, _xmpacc_task_plan_t)
const char *_xmpacc_task_where;        /* the site of a call that went to Python (its plan's key) */
int _xmpacc_task_depth;                /* tasks entered here that Python has not taken over */
_xmpacc_task_entered_t _xmpacc_task_entered[_XMPACC_TASK_DEPTH];

/* The site's plan for the nodes and reference the call passes, while it holds; 0 (the call
 * goes to Python, which plans it) otherwise.  The site is noted for Python's plan. */
static _xmpacc_task_plan_t *_xmpacc_task_plan(const char *where, const void *nodes, const long long *ref) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_task_plan_t *p;
  _xmpacc_task_where = where;
  if (!r->on || _xmpacc_fast_paused) return 0;
  for (p = (_xmpacc_task_plan_t *)_xmpacc_fast_get(_xmpacc_task_plans, where); p; p = p->next)
    if (_xmpacc_same_ref(&p->on, nodes, ref)) break;
  if (!p || p->parent != r->exec || p->layout != r->layout || p->generation != _xmpacc_param_generation)
    return 0;
  return p;
}

static int _xmpacc_task_begin_fast(const char *where, const void *nodes, const long long *ref, int *result) {
  _xmpacc_replay_t *r = &_xmpacc_replay;
  _xmpacc_task_plan_t *p = _xmpacc_task_plan(where, nodes, ref);
  long long start;
  if (!p || (p->member && _xmpacc_task_depth == _XMPACC_TASK_DEPTH)) return 0;
  start = r->profile ? _xmpacc_now() : 0;
  if (p->member) {
    _xmpacc_task_entered_t *e = &_xmpacc_task_entered[_xmpacc_task_depth++];
    e->plan = p, e->exec = r->exec;
    e->exec_rank = _xmpacc_exec.exec_rank, e->exec_size = _xmpacc_exec.exec_size;
    r->exec = p->exec;
    _xmpacc_exec.exec_rank = p->exec_rank, _xmpacc_exec.exec_size = p->exec_size;
  }
  p->calls++;
  *result = p->member;
  if (start) _xmpacc_replay_record(_XMPACC_EV_TASK_BEGIN, where, start, 0, 0);
  return 1;
}

/* task ... nocomm: whether this node runs the body; no node set of its own. */
static int _xmpacc_task_nocomm_fast(const char *where, const void *nodes, const long long *ref, int *result) {
  _xmpacc_task_plan_t *p = _xmpacc_task_plan(where, nodes, ref);
  long long start;
  if (!p) return 0;
  start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
  p->calls++;
  *result = p->member;
  if (start) _xmpacc_replay_record(_XMPACC_EV_TASK_NOCOMM, where, start, 0, 0);
  return 1;
}

/* The end of a task entered here; one Python took over (or entered) is Python's. */
static int _xmpacc_task_end_fast(void) {
  _xmpacc_task_entered_t *e;
  long long start;
  if (!_xmpacc_task_depth) return 0;
  start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
  e = &_xmpacc_task_entered[--_xmpacc_task_depth];
  _xmpacc_replay.exec = e->exec;
  _xmpacc_exec.exec_rank = e->exec_rank, _xmpacc_exec.exec_size = e->exec_size;
  if (start) _xmpacc_replay_record(_XMPACC_EV_TASK_END, "", start, 0, 0);
  return 1;
}

#endif
