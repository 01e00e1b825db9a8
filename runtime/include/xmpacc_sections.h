/* xmpacc_sections.h: array sections in generated host C (global-view §1, §3).
 *
 * A triplet [base:length:step] names base, base+step, ..., base+(length-1)*step.  When the
 * length is omitted it runs "to the end of the dimension":
 *   step > 0: ceil((extent - base) / step) elements (base, base+step, ... < extent);
 *   step < 0: base / (-step) + 1 elements (base, base+step, ... >= 0), i.e. towards the
 *             start of the dimension, so a[9::-1] of a 10-element array reverses it.
 * (An omitted base is 0 whatever the step, as the specification says.)  The runtime
 * (runtime/sections.py) receives lengths already resolved by this function. */
#ifndef XMPACC_SECTIONS_H
#define XMPACC_SECTIONS_H

#include "xmpacc_dist.h"

/* The omitted length of a triplet over a dimension of `extent` elements (0: empty). */
static inline long long _xmpacc_sec_len(long long extent, long long base, long long step) {
  if (step > 0) return base < extent ? (extent - base + step - 1) / step : 0;
  if (step < 0) return base >= 0 ? base / (-step) + 1 : 0;
  return 0;
}

/* 1 when element `glb` of dimension d of a distributed array is in this node's local
 * buffer (owned, or one of its shadow slots): what an `array` directive may touch. */
static inline int _xmpacc_is_local(const _xmpacc_array_t *a, int d, long long glb) {
  const _xmpacc_adim_t *ad = &a->dim[d];
  if (glb < 0 || glb >= ad->extent) return 0;
  if (ad->kind == _XMPACC_DIST_CYCLIC)
    return _xmpacc_tdim_owns(&a->tmpl->dim[ad->tdim], glb + ad->offset);
  return glb - ad->gtol >= 0 && glb - ad->gtol < ad->lext;
}

#endif
