/* xmpacc_loops.h: iteration ranges of loop ... expand / margin / peel_and_wait and of
 * loop on a node array (global-view §6, §7), on the host and in kernels.  C99, no library
 * calls.  The Python model they are tested against is in tests/test_loop_ranges.py.
 *
 * All indices here are template indices (a loop on t(i+c) works with g = i + c).  For one
 * distributed loop   for (g = init; step > 0 ? g <= last : g >= last; g += step):
 *   R  = [min, max] of the iterations the loop runs (the global loop range);
 *   O' = this node's owned indices inside R (what a plain loop directive runs);
 *   E' = [owned_first - wlo, owned_last + whi], inside R unless unbound (empty when the
 *        node owns nothing; negative widths shrink it);
 * expand runs the progression over E', margin over E' xor O' (their symmetric
 * difference).  _xmpacc_range splits the line into at most three segments, each inside
 * E', O' or both; margin loops of several dimensions run every cell (one segment per
 * dimension) that lies in exactly one of E' and O' as boxes.  Only block, gblock and '*'
 * dimensions (and node arrays) have interval ranges; cyclic ones take zero widths only.
 */
#ifndef XMPACC_LOOPS_H
#define XMPACC_LOOPS_H

#include "xmpacc_dist.h"

typedef struct _xmpacc_range {
  long long elo, ehi;            /* E' (elo > ehi: empty) */
  long long lo[3], hi[3];        /* segments, increasing */
  int in_e[3], in_o[3];          /* segment inside E' / inside O' */
  int n;                         /* number of segments */
} _xmpacc_range_t;

/* Iterations g = init + j*step (any integer j) inside [lo, hi], in the loop's direction. */
_XMPACC_HD static inline _xmpacc_sched_t _xmpacc_schedule_span(long long init, long long step,
                                                              long long lo, long long hi) {
  long long t = step > 0 ? step : -step, glo, ghi;
  _xmpacc_sched_t s;
  if (lo > hi) return _xmpacc_sched_empty(step);
  glo = init + _xmpacc_ceildiv(lo - init, t) * t;
  ghi = init + _xmpacc_floordiv(hi - init, t) * t;
  if (glo > ghi) return _xmpacc_sched_empty(step);
  s.first = step > 0 ? glo : ghi;
  s.last = step > 0 ? ghi : glo;
  s.step = step;
  s.count = (ghi - glo) / t + 1;
  s.inv_count = 0.0;
  return s;
}

_XMPACC_HD static inline void _xmpacc_range_cut(long long *cuts, int *n, long long x) {
  int k, j;
  for (k = 0; k < *n && cuts[k] < x; k++) {}
  if (k < *n && cuts[k] == x) return;
  for (j = *n; j > k; j--) cuts[j] = cuts[j - 1];
  cuts[k] = x;
  (*n)++;
}

/* E', O' and their segments for one loop dimension (wlo, whi: widths below and above). */
_XMPACC_HD static inline _xmpacc_range_t _xmpacc_range(const _xmpacc_tdim_t *d, long long init,
                                                      long long last, long long step,
                                                      long long wlo, long long whi, int unbound) {
  _xmpacc_range_t r;
  long long n = _xmpacc_trip_count(init, last, step), gend = init + (n - 1) * step;
  long long rlo = step > 0 ? init : gend, rhi = step > 0 ? gend : init;
  long long olo = d->owned_first, ohi = d->owned_first + d->owned_count - 1;
  long long cuts[4];
  int k, ncut = 0;
  for (k = 0; k < 3; k++) {
    r.lo[k] = r.hi[k] = 0;
    r.in_e[k] = r.in_o[k] = 0;
  }
  r.n = 0;
  r.elo = olo - wlo;
  r.ehi = ohi + whi;
  if (n == 0 || d->owned_count == 0) {
    r.elo = 1;
    r.ehi = 0;
    return r;
  }
  if (!unbound) {
    r.elo = r.elo > rlo ? r.elo : rlo;
    r.ehi = r.ehi < rhi ? r.ehi : rhi;
  }
  olo = olo > rlo ? olo : rlo;
  ohi = ohi < rhi ? ohi : rhi;
  if (r.elo <= r.ehi) { _xmpacc_range_cut(cuts, &ncut, r.elo); _xmpacc_range_cut(cuts, &ncut, r.ehi + 1); }
  if (olo <= ohi) { _xmpacc_range_cut(cuts, &ncut, olo); _xmpacc_range_cut(cuts, &ncut, ohi + 1); }
  for (k = 0; k + 1 < ncut; k++) {
    long long a = cuts[k], b = cuts[k + 1] - 1;
    int e = r.elo <= a && b <= r.ehi, o = olo <= a && b <= ohi;
    if (!e && !o) continue;
    r.lo[r.n] = a;
    r.hi[r.n] = b;
    r.in_e[r.n] = e;
    r.in_o[r.n] = o;
    r.n++;
  }
  return r;
}

/* The iterations of segment k of r (none when there is no such segment). */
_XMPACC_HD static inline _xmpacc_sched_t _xmpacc_range_sched(const _xmpacc_range_t *r, long long k,
                                                            long long init, long long step) {
  if (k >= r->n) return _xmpacc_sched_empty(step);
  return _xmpacc_schedule_span(init, step, r->lo[k], r->hi[k]);
}

/* Shift a schedule computed in template indices back to the loop variable (t(i+c)). */
_XMPACC_HD static inline _xmpacc_sched_t _xmpacc_sched_shift(_xmpacc_sched_t s, long long c) {
  s.first -= c;
  s.last -= c;
  return s;
}

/* Loop on a node array, loop on p[i]: node k of dimension dim runs iteration base + k
 * (base 0 in brackets, 1 in parentheses), as a block distribution of one index per node;
 * a node outside the array runs none. */
_XMPACC_HD static inline _xmpacc_tdim_t _xmpacc_nodes_tdim(const _xmpacc_nodes_t *p, int dim,
                                                          long long base) {
  _xmpacc_tdim_t d;
  d.kind = _XMPACC_DIST_BLOCK;
  d.node_dim = dim;
  d.lower = base;
  d.upper = base + p->extent[dim] - 1;
  d.width = 1;
  d.nprocs = p->extent[dim];
  d.coord = p->is_member ? p->coord[dim] : p->extent[dim];
  d.owned_first = base + d.coord;
  d.owned_count = p->is_member ? 1 : 0;
  return d;
}

/* Reductions with location variables (passes/locations.py, kernel_locations.py): does the
 * record (key w, value above / below mine) beat mine (key m)?  key[0] = 1 when its
 * iterations changed something; then the better value wins, and on equal values the key
 * (trip numbers) that comes first in sequential order, or last for lastmax / lastmin.  A
 * kernel's threads compare their records so, and so do the parts of a host loop that margin
 * and peel_and_wait run out of sequential order. */
_XMPACC_HD static inline int _xmpacc_loc_better(const long long *w, const long long *m, int n, int above,
                                               int below, int last) {
  if (!w[0]) return 0;
  if (!m[0]) return 1;
  if (above) return 1;
  if (below) return 0;
  for (int k = 1; k < n; k++)
    if (w[k] != m[k]) return last ? w[k] > m[k] : w[k] < m[k];
  return 0;
}

#endif
