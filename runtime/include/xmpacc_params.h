/* xmpacc_params.h: an aligned parameter's align, view and release in C after its first
 * call (runtime/replay_params.py makes the plans; included by xmpacc_fast.h, whose opening
 * comment says the rules).
 *
 * A function with aligned dummy arguments (`#pragma xmp align [i] with t(i) :: x`, NPB's
 * CG, Omni's programs) aligns each dummy at every call: _xmpacc_align_pointer, then
 * _xmpacc_malloc with the argument's block (the view of the caller's array), and
 * _xmpacc_array_release when the function returns.  The view depends only on the align
 * (template, element size, dimensions, offsets, shadows), the argument's block and the
 * extents, and the arrays and distributions of the program, which Python's generation
 * counts; Python made each view at its first call (runtime/dynamic.py) and hands it here.
 * A later call with a known view copies its descriptor bytes and enters no Python.
 *
 * Python learns what C did lazily: each plan C changed is on the dirty list, and before
 * any call enters Python the glue has it apply them (_xmpacc_params_sync): the
 * descriptor's array, view and pointer map as the last C call left them. */
#ifndef XMPACC_PARAMS_H
#define XMPACC_PARAMS_H

#define _XMPACC_PARAM_VIEWS 4
#define _XMPACC_PARAMS_DIRTY 64

typedef struct _xmpacc_param_view {
  const void *base;                    /* the argument's block */
  int n;
  long long extents[_XMPACC_MAXDIM];   /* as the call passed them */
  unsigned char desc[sizeof(_xmpacc_array_t)];   /* the descriptor Python made */
} _xmpacc_param_view_t;

typedef struct _xmpacc_param_plan {
  const char *where, *name;            /* the align's, compared by text */
  const void *tmpl;
  long long elem_size;
  int ndims;
  int tdims[_XMPACC_MAXDIM];
  long long offsets[_XMPACC_MAXDIM], shadows[2 * _XMPACC_MAXDIM];
  long long generation;                /* Python's when the views were made */
  int nviews;
  _xmpacc_param_view_t views[_XMPACC_PARAM_VIEWS];
  int aligned;                         /* the align ran here: its malloc may too */
  int current;                         /* the view the descriptor holds; -1: none */
  int dirty;                           /* on the dirty list */
  long long calls;                     /* made here (XMPACC_STATS replayed_parameter_views) */
  struct _xmpacc_param_plan *next;     /* the descriptor's plans of other align sites */
} _xmpacc_param_plan_t;

_XMPACC_PLAN_TABLE(_xmpacc_param_plans, _xmpacc_param_plan_set, const void *, _xmpacc_param_plan_t)
long long _xmpacc_param_generation;    /* Python's: arrays, templates, nodes changed */
int _xmpacc_params_ndirty;
_xmpacc_param_plan_t *_xmpacc_params_dirty[_XMPACC_PARAMS_DIRTY];

/* On the dirty list; 0 when it is full (the call goes to Python, which empties it first). */
static int _xmpacc_param_touch(_xmpacc_param_plan_t *p) {
  if (p->dirty) return 1;
  if (_xmpacc_params_ndirty == _XMPACC_PARAMS_DIRTY) return 0;
  _xmpacc_params_dirty[_xmpacc_params_ndirty++] = p;
  return p->dirty = 1;
}

static int _xmpacc_align_pointer_fast(void *array, const char *where, const char *name, const void *tmpl,
                                      long long elem_size, int ndims, const int *tdims, const long long *offsets,
                                      const long long *shadows) {
  _xmpacc_array_t *c = (_xmpacc_array_t *)array;
  _xmpacc_param_plan_t *p;
  long long start;
  if (!_xmpacc_replay.on) return 0;
  p = 0;
  for (_xmpacc_param_plan_t *q = (_xmpacc_param_plan_t *)_xmpacc_fast_get(_xmpacc_param_plans, array); q; q = q->next)
    if (q->tmpl == tmpl && q->elem_size == elem_size && q->ndims == ndims && !strcmp(q->where, where)
        && !strcmp(q->name, name) && !memcmp(q->tdims, tdims, sizeof(int) * (size_t)ndims)
        && !memcmp(q->offsets, offsets, sizeof(long long) * (size_t)ndims)
        && !memcmp(q->shadows, shadows, sizeof(long long) * 2 * (size_t)ndims))
      p = q;
    else if (q->aligned || q->current >= 0)
      return 0;   /* another site's view: Python's */
  if (!p || p->generation != _xmpacc_param_generation || !_xmpacc_param_touch(p)) return 0;
  start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
  /* as dynamic.py's align: the previous view goes (a static_desc parameter aligned again) */
  c->id = 0, c->ndims = ndims, c->elem_size = elem_size, c->base = 0;
  c->tmpl = (const _xmpacc_template_t *)tmpl;
  p->aligned = 1, p->current = -1;
  if (start) _xmpacc_replay_record(_XMPACC_EV_ALIGN_POINTER, where, start, 0, 0);
  return 1;
}

static int _xmpacc_malloc_fast(void *array, const char *where, int n, const long long *extents, void *base,
                               void **result) {
  _xmpacc_param_plan_t *p;
  long long start;
  if (!_xmpacc_replay.on || !base) return 0;
  for (p = (_xmpacc_param_plan_t *)_xmpacc_fast_get(_xmpacc_param_plans, array); p && !p->aligned; p = p->next) {}
  if (!p || p->generation != _xmpacc_param_generation || n != p->ndims) return 0;
  for (int k = 0; k < p->nviews; k++) {
    _xmpacc_param_view_t *v = &p->views[k];
    if (v->base != base || v->n != n || memcmp(v->extents, extents, sizeof(long long) * (size_t)n)) continue;
    if (!_xmpacc_param_touch(p)) return 0;
    start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
    memcpy(array, v->desc, sizeof(_xmpacc_array_t));
    p->aligned = 0, p->current = k;
    p->calls++;
    *result = base;
    if (start) _xmpacc_replay_record(_XMPACC_EV_MALLOC, where, start, 0, 0);
    return 1;
  }
  return 0;
}

/* The function returns: its parameter's descriptor describes nothing (dynamic.py's
 * _drop_block), whichever side made the view. */
static int _xmpacc_array_release_fast(void *array) {
  _xmpacc_array_t *c = (_xmpacc_array_t *)array;
  _xmpacc_param_plan_t *p;
  long long start;
  if (!_xmpacc_replay.on) return 0;
  for (p = (_xmpacc_param_plan_t *)_xmpacc_fast_get(_xmpacc_param_plans, array); p && p->current < 0; p = p->next) {}
  if (!p || p->aligned || !_xmpacc_param_touch(p)) return 0;
  start = _xmpacc_replay.profile ? _xmpacc_now() : 0;
  c->base = 0, c->id = 0;
  p->current = -1;
  if (start) _xmpacc_replay_record(_XMPACC_EV_ARRAY_RELEASE, "", start, 0, 0);
  return 1;
}

#endif
