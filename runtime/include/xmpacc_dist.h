/* xmpacc_dist.h: distribution index arithmetic (reference §4.7, §5, §6.1), defined once for
 * generated host C and CUDA kernels.  runtime/distribution.py is the Python twin and the
 * oracle; tests/test_distribution.py runs both and compares.
 *
 * Everything here is a static inline function of the descriptors in xmpacc_types.h, with no
 * library calls, so that a kernel can use it too (_XMPACC_HD marks them __host__ __device__
 * under nvcc).  C99.
 *
 * Vocabulary (as in xmpacc_types.h): g / glb is a template or array index as written in the
 * source, pos the position of an owned template index among this node's owned indices
 * (0, 1, ...), loc an index into the local buffer.
 *
 * Loop schedules (_xmpacc_schedule).  For the loop
 *     for (g = init; step > 0 ? g <= last : g >= last; g += step)      (step != 0)
 * this node's iterations are those whose g is a template index it owns, in source order.
 *   - NONE, BLOCK, GBLOCK, and CYCLIC with width 1: the result is a plain triple in template
 *     indices; run   for (g = s.first; s.step > 0 ? g <= s.last : g >= s.last; g += s.step)
 *     or, in a kernel, g = s.first + tid * s.step for tid < s.count.  For plain cyclic the
 *     step is step * P / gcd(|step|, P).
 *   - CYCLIC with width > 1 (block-cyclic): the owned iterations are no progression, so the
 *     result is a range of *positions*: s.step is +1 or -1 following the loop direction and
 *     s.count the number of positions in the range.  Run
 *         for (p = s.first; s.step > 0 ? p <= s.last : p >= s.last; p += s.step) {
 *           g = _xmpacc_tdim_glb(d, p);
 *           if ((g - init) % step != 0) continue;      (not on the loop's progression)
 *           ...
 *         }
 *     _xmpacc_sched_by_pos(d) says which form _xmpacc_schedule returns.  When the form is
 *     not known at compile time (cyclic(w) with a run-time w), use _xmpacc_schedule_pos,
 *     which returns the position form for every kind.
 * An empty schedule has count 0 and first = 0, last = -step, so both loop forms above run
 * zero times for either sign of step.
 */
#ifndef XMPACC_DIST_H
#define XMPACC_DIST_H

#include "xmpacc_types.h"

#ifdef __CUDACC__
#define _XMPACC_HD __host__ __device__
#else
#define _XMPACC_HD
#endif

/* ---- integer helpers (divisor b > 0; C's / and % truncate, these do not) ---- */

_XMPACC_HD static inline long long _xmpacc_floordiv(long long a, long long b) {
  long long q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

_XMPACC_HD static inline long long _xmpacc_ceildiv(long long a, long long b) {
  return -_xmpacc_floordiv(-a, b);
}

/* a mod b in [0, b) */
_XMPACC_HD static inline long long _xmpacc_mod(long long a, long long b) {
  long long r = a % b;
  return r < 0 ? r + b : r;
}

_XMPACC_HD static inline long long _xmpacc_clamp(long long x, long long lo, long long hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

_XMPACC_HD static inline long long _xmpacc_gcd(long long a, long long b) {
  while (b != 0) {
    long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Inverse of a modulo m (gcd(a, m) == 1, m >= 1), in [0, m); extended Euclid. */
_XMPACC_HD static inline long long _xmpacc_modinv(long long a, long long m) {
  long long t = 0, nt = 1, r = m, nr = _xmpacc_mod(a, m);
  while (nr != 0) {
    long long q = r / nr, tmp;
    tmp = t - q * nt; t = nt; nt = tmp;
    tmp = r - q * nr; r = nr; nr = tmp;
  }
  return _xmpacc_mod(t, m);
}

/* ---- one template dimension, seen from this node (d->coord) ---- */

/* NONE, BLOCK and GBLOCK own one contiguous interval [owned_first, owned_first+owned_count). */
_XMPACC_HD static inline int _xmpacc_tdim_is_cyclic(const _xmpacc_tdim_t *d) {
  return d->kind == _XMPACC_DIST_CYCLIC;
}

/* 1 if this node owns template index g (inside the template bounds), else 0. */
_XMPACC_HD static inline int _xmpacc_tdim_owns(const _xmpacc_tdim_t *d, long long g) {
  if (g < d->lower || g > d->upper) return 0;
  if (_xmpacc_tdim_is_cyclic(d))
    return ((g - d->lower) / d->width) % d->nprocs == d->coord;
  return g >= d->owned_first && g - d->owned_first < d->owned_count;
}

/* Position of g among this node's owned indices; g must be owned by this node. */
_XMPACC_HD static inline long long _xmpacc_tdim_pos(const _xmpacc_tdim_t *d, long long g) {
  if (_xmpacc_tdim_is_cyclic(d)) {
    long long r = g - d->lower;
    return d->width * (r / (d->width * d->nprocs)) + r % d->width;
  }
  return g - d->owned_first;
}

/* Template index at position pos (>= 0) of this node; the inverse of _xmpacc_tdim_pos. */
_XMPACC_HD static inline long long _xmpacc_tdim_glb(const _xmpacc_tdim_t *d, long long pos) {
  if (_xmpacc_tdim_is_cyclic(d))
    return d->lower + (pos / d->width) * d->width * d->nprocs + d->coord * d->width
           + pos % d->width;
  return d->owned_first + pos;
}

/* Number of template indices owned by this node that are < g (any g).  Positions are
 * increasing in g, so the owned indices in [a, b] are positions
 * [count_below(a), count_below(b + 1) - 1]. */
_XMPACC_HD static inline long long _xmpacc_tdim_count_below(const _xmpacc_tdim_t *d,
                                                           long long g) {
  if (_xmpacc_tdim_is_cyclic(d)) {
    long long r = _xmpacc_clamp(g, d->lower, d->upper + 1) - d->lower;
    /* a node outside the node array (coord == nprocs) owns nothing; the formula below
       would count whole periods for it */
    if (d->owned_count == 0) return 0;
    long long period = d->width * d->nprocs;
    return (r / period) * d->width
           + _xmpacc_clamp(r % period - d->coord * d->width, 0, d->width);
  }
  return _xmpacc_clamp(g - d->owned_first, 0, d->owned_count);
}

/* ---- loop schedules ---- */

/* Number of iterations of the source loop (step != 0). */
_XMPACC_HD static inline long long _xmpacc_trip_count(long long init, long long last,
                                                     long long step) {
  if (step > 0) return last >= init ? (last - init) / step + 1 : 0;
  return init >= last ? (init - last) / (-step) + 1 : 0;
}

_XMPACC_HD static inline _xmpacc_sched_t _xmpacc_sched_empty(long long step) {
  _xmpacc_sched_t s;
  s.first = 0;
  s.last = -step;
  s.step = step;
  s.count = 0;
  return s;
}

/* Iteration numbers j (g = init + j*step, 0 <= j < n) whose g lies in [a, b]:
 * returns j range [*jlo, *jhi] (empty when *jlo > *jhi). */
_XMPACC_HD static inline void _xmpacc_iter_range(long long init, long long step, long long n,
                                                long long a, long long b,
                                                long long *jlo, long long *jhi) {
  long long t = step > 0 ? step : -step;
  /* distance d = j*t from init: g = init + d going up, init - d going down */
  long long lo_d = step > 0 ? a - init : init - b;
  long long hi_d = step > 0 ? b - init : init - a;
  long long lo = _xmpacc_ceildiv(lo_d, t), hi = _xmpacc_floordiv(hi_d, t);
  *jlo = lo > 0 ? lo : 0;
  *jhi = hi < n - 1 ? hi : n - 1;
}

/* The position form for any kind: this node's owned positions inside the loop's range. */
_XMPACC_HD static inline _xmpacc_sched_t _xmpacc_schedule_pos(const _xmpacc_tdim_t *d,
                                                             long long init, long long last,
                                                             long long step) {
  long long dir = step > 0 ? 1 : -1;
  long long n = _xmpacc_trip_count(init, last, step);
  long long gend = init + (n - 1) * step; /* the last iteration actually run */
  long long gmin = step > 0 ? init : gend, gmax = step > 0 ? gend : init;
  long long plo, phi;
  _xmpacc_sched_t s;
  if (n == 0) return _xmpacc_sched_empty(dir);
  plo = _xmpacc_tdim_count_below(d, gmin);
  phi = _xmpacc_tdim_count_below(d, gmax + 1) - 1;
  if (plo > phi) return _xmpacc_sched_empty(dir);
  s.first = dir > 0 ? plo : phi;
  s.last = dir > 0 ? phi : plo;
  s.step = dir;
  s.count = phi - plo + 1;
  return s;
}

/* Triple over [a, b] for block-like kinds. */
_XMPACC_HD static inline _xmpacc_sched_t _xmpacc_schedule_interval(long long init,
                                                                  long long last,
                                                                  long long step, long long a,
                                                                  long long b) {
  long long n = _xmpacc_trip_count(init, last, step), jlo, jhi;
  _xmpacc_sched_t s;
  _xmpacc_iter_range(init, step, n, a, b, &jlo, &jhi);
  if (jlo > jhi) return _xmpacc_sched_empty(step);
  s.first = init + jlo * step;
  s.last = init + jhi * step;
  s.step = step;
  s.count = jhi - jlo + 1;
  return s;
}

/* Triple for plain cyclic: g = init + j*step is owned iff j*step == L + k - init (mod P),
 * which has solutions iff gcd(step, P) divides the right side, and then they are
 * j == j0 (mod m), m = P / gcd: one progression with step step*m. */
_XMPACC_HD static inline _xmpacc_sched_t _xmpacc_schedule_cyclic1(const _xmpacc_tdim_t *d,
                                                                 long long init,
                                                                 long long last,
                                                                 long long step) {
  long long P = d->nprocs, n = _xmpacc_trip_count(init, last, step), jlo, jhi;
  long long r = _xmpacc_mod(d->lower + d->coord - init, P), sm = _xmpacc_mod(step, P);
  long long gd = _xmpacc_gcd(sm, P), m, j0, j1, j2;
  _xmpacc_sched_t s;
  _xmpacc_iter_range(init, step, n, d->lower, d->upper, &jlo, &jhi);
  /* owned_count 0: a node outside the node array (its coord is past the last one) */
  if (jlo > jhi || r % gd != 0 || d->owned_count == 0) return _xmpacc_sched_empty(step);
  m = P / gd;
  j0 = (r / gd) * _xmpacc_modinv(sm / gd, m) % m;
  j1 = jlo + _xmpacc_mod(j0 - jlo, m);
  if (j1 > jhi) return _xmpacc_sched_empty(step);
  j2 = jhi - _xmpacc_mod(jhi - j0, m);
  s.first = init + j1 * step;
  s.last = init + j2 * step;
  s.step = step * m;
  s.count = (j2 - j1) / m + 1;
  return s;
}

/* 1 when _xmpacc_schedule returns the position form (block-cyclic), 0 for a triple. */
_XMPACC_HD static inline int _xmpacc_sched_by_pos(const _xmpacc_tdim_t *d) {
  return _xmpacc_tdim_is_cyclic(d) && d->width > 1;
}

/* This node's iterations of the loop (see the top of this file for the two forms). */
_XMPACC_HD static inline _xmpacc_sched_t _xmpacc_schedule(const _xmpacc_tdim_t *d,
                                                         long long init, long long last,
                                                         long long step) {
  if (_xmpacc_sched_by_pos(d)) return _xmpacc_schedule_pos(d, init, last, step);
  if (_xmpacc_tdim_is_cyclic(d)) return _xmpacc_schedule_cyclic1(d, init, last, step);
  return _xmpacc_schedule_interval(init, last, step, d->owned_first,
                                   d->owned_first + d->owned_count - 1);
}

/* ---- cyclic(w) loops in kernels: position -> loop variable ---- */

/* What a kernel needs for a cyclic(w) loop: the template dimension by value, the loop's
 * init and step in template indices, and the on-ref offset c of t[i+c]. */
_XMPACC_HD static inline _xmpacc_posmap_t _xmpacc_posmap(const _xmpacc_tdim_t *d, long long init,
                                                        long long step, long long shift) {
  _xmpacc_posmap_t m;
  m.dim = *d;
  m.init = init;
  m.step = step;
  m.shift = shift;
  return m;
}

/* The loop variable at position pos of this node (a kernel's thread: pos = s.first +
 * tid * s.step of the position form); the host loop does the same with the descriptor. */
_XMPACC_HD static inline long long _xmpacc_posmap_var(_xmpacc_posmap_t m, long long pos) {
  return _xmpacc_tdim_glb(&m.dim, pos) - m.shift;
}

/* 1 when loop variable v is an iteration of the loop: positions cover every owned index
 * of the range, the loop only those on its progression (|step| > 1). */
_XMPACC_HD static inline int _xmpacc_posmap_on(_xmpacc_posmap_t m, long long v) {
  return (v + m.shift - m.init) % m.step == 0;
}

/* ---- local buffer indices of aligned arrays (reference §4.7) ---- */

/* NONE (collapsed, '*'-distributed, full shadow), BLOCK, GBLOCK: loc = glb - gtol, valid for
 * owned indices and shadow slots. */
_XMPACC_HD static inline long long _xmpacc_loc_block(const _xmpacc_array_t *a, int dim,
                                                    long long glb) {
  return glb - a->dim[dim].gtol;
}

/* CYCLIC (plain and block-cyclic), given the template dimension directly (a kernel that
 * holds copies of the descriptors by value cannot follow a->tmpl). */
_XMPACC_HD static inline long long _xmpacc_loc_cyclic_t(const _xmpacc_tdim_t *td,
                                                       const _xmpacc_adim_t *ad,
                                                       long long glb) {
  /* the buffer is indexed by template position, so slots below the array's first owned
     element may go unused when the align offset or a short array leaves them empty */
  return _xmpacc_tdim_pos(td, glb + ad->offset);
}

/* CYCLIC: loc = template position of glb + offset; glb must be owned by this node. */
_XMPACC_HD static inline long long _xmpacc_loc_cyclic(const _xmpacc_array_t *a, int dim,
                                                     long long glb) {
  const _xmpacc_adim_t *ad = &a->dim[dim];
  return _xmpacc_loc_cyclic_t(&a->tmpl->dim[ad->tdim], ad, glb);
}

/* Any kind, dispatching on the array dimension's kind. */
_XMPACC_HD static inline long long _xmpacc_loc(const _xmpacc_array_t *a, int dim,
                                              long long glb) {
  if (a->dim[dim].kind == _XMPACC_DIST_CYCLIC) return _xmpacc_loc_cyclic(a, dim, glb);
  return _xmpacc_loc_block(a, dim, glb);
}

#endif
