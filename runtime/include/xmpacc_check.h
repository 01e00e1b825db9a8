/* xmpacc_check.h: checked subscripts, for checked runs (xmpacc -fcheck, XMPACC_CHECK=1).
 *
 * A checked build compiles the same generated C with -D_XMPACC_CHECK; xmpacc_index.h then
 * takes the subscript macros from here instead of its plain definitions, so that an
 * unchecked build pays nothing.  Every subscript of a distributed array checks that the
 * element is owned by this node or lies in a shadow slot (runtime/check.py: holds);
 * host code (not kernels) also
 * checks that no kernel wrote the array on the device since the last replicate_sync out.
 * The line comes from __LINE__, which the #line markers of the generated code point at the
 * user's statement.
 *
 * A 1-D subscript is checked in _XMPACC_L/_XMPACC_LC; an n-D one in _XMPACC_AT<n>, which
 * turns each local index back into its global index (a cyclic index not owned here travels
 * as _XMPACC_CHECK_FOREIGN + g, since its local position would be meaningless).
 *
 * A violation on the host (host code and the host backend's kernels) calls the runtime
 * (_xmpacc_check_fail), which ends the job with the message.  In a CUDA kernel the first
 * violation is recorded in _xmpacc_violation, the access goes to slot 0 instead, and the
 * runtime reports it after the launch. */
#ifndef XMPACC_CHECK_H
#define XMPACC_CHECK_H

#include "xmpacc_dist.h"

#define _XMPACC_CHECK_NOT_LOCAL 1     /* neither owned nor in a shadow slot, or outside the array */
#define _XMPACC_CHECK_DEVICE_NEWER 2  /* host access while a kernel's writes are on the device only */
#define _XMPACC_CHECK_FOREIGN (-(1LL << 60))

#ifdef __CUDACC__
#define _XMPACC_CHECK_FN __device__ static inline
typedef struct _xmpacc_violation {
  int flag, what, id, line;
  long long glb[_XMPACC_MAXDIM];
} _xmpacc_violation_t;
extern "C" {
__device__ _xmpacc_violation_t _xmpacc_violation;   /* read and cleared by the runtime */
}
_XMPACC_CHECK_FN void _xmpacc_check_report(const _xmpacc_array_t *a, int what, const long long *g,
                                           const char *file, int line) {
  (void)file;   /* the runtime takes the file of the loop */
  if (atomicCAS(&_xmpacc_violation.flag, 0, 1) == 0) {
    _xmpacc_violation.what = what;
    _xmpacc_violation.id = a->id;
    _xmpacc_violation.line = line;
    for (int d = 0; d < a->ndims; d++) _xmpacc_violation.glb[d] = g[d];
    __threadfence();
  }
}
#else
#define _XMPACC_CHECK_FN static inline
/* the runtime entry (runtime/contract.py); it does not return */
void _xmpacc_check_fail(const void * array, int what, const long long * globals, const char * file, int line);
_XMPACC_CHECK_FN void _xmpacc_check_report(const _xmpacc_array_t *a, int what, const long long *g,
                                           const char *file, int line) {
  _xmpacc_check_fail(a, what, g, file, line);
}
#endif

/* 1 if this node's buffer holds element g of dimension d (runtime/check.py: holds): an
 * owned element or a shadow slot.  The shadow slots beyond the ends of a block dimension
 * count (a[-1] on the first node holds a[N-1] after a periodic reflect). */
_XMPACC_CHECK_FN int _xmpacc_check_dim(const _xmpacc_array_t *a, int d, long long g) {
  const _xmpacc_adim_t *ad = &a->dim[d];
  if (ad->kind == _XMPACC_DIST_BLOCK || ad->kind == _XMPACC_DIST_GBLOCK)
    return ad->owned_count > 0 && g >= ad->owned_first - ad->shadow_lo
           && g < ad->owned_first + ad->owned_count + ad->shadow_hi;
  if (g < 0 || g >= ad->extent) return 0;
  if (ad->kind == _XMPACC_DIST_CYCLIC) return _xmpacc_tdim_owns(&a->tmpl->dim[ad->tdim], g + ad->offset);
  return 1;
}

/* Check element g (one global index per dimension); 0 after a violation. */
_XMPACC_CHECK_FN int _xmpacc_check_elem(const _xmpacc_array_t *a, const long long *g,
                                        const char *file, int line) {
  for (int d = 0; d < a->ndims; d++) {
    if (!_xmpacc_check_dim(a, d, g[d])) {
      _xmpacc_check_report(a, _XMPACC_CHECK_NOT_LOCAL, g, file, line);
      return 0;
    }
  }
#ifndef _XMPACC_IN_KERNEL
  if (a->dim[0].check) {
    _xmpacc_check_report(a, _XMPACC_CHECK_DEVICE_NEWER, g, file, line);
    return 0;
  }
#endif
  return 1;
}

_XMPACC_CHECK_FN long long _xmpacc_check_l(const _xmpacc_array_t *a, int d, long long g,
                                           const char *file, int line) {
  if (a->ndims == 1 && !_xmpacc_check_elem(a, &g, file, line)) return 0;
  return g - a->dim[d].gtol;
}

_XMPACC_CHECK_FN long long _xmpacc_check_lc(const _xmpacc_array_t *a, int d, long long g,
                                            const char *file, int line) {
  if (a->ndims == 1) return _xmpacc_check_elem(a, &g, file, line) ? _xmpacc_loc_cyclic(a, d, g) : 0;
  if (!_xmpacc_check_dim(a, d, g)) return _XMPACC_CHECK_FOREIGN + g;
  return _xmpacc_loc_cyclic(a, d, g);
}

/* The global index of local index l of dimension d (the inverse of _XMPACC_L/_XMPACC_LC). */
_XMPACC_CHECK_FN long long _xmpacc_check_glb(const _xmpacc_array_t *a, int d, long long l) {
  const _xmpacc_adim_t *ad = &a->dim[d];
  if (ad->kind != _XMPACC_DIST_CYCLIC) return l + ad->gtol;
  if (l < _XMPACC_CHECK_FOREIGN / 2) return l - _XMPACC_CHECK_FOREIGN;
  return _xmpacc_tdim_glb(&a->tmpl->dim[ad->tdim], l) - ad->offset;
}

/* The row-major offset of n local indices, after checking the element. */
_XMPACC_CHECK_FN long long _xmpacc_check_at(const _xmpacc_array_t *a, int n, const long long *l,
                                            const char *file, int line) {
  long long g[_XMPACC_MAXDIM], off = 0;
  for (int d = 0; d < n; d++) g[d] = _xmpacc_check_glb(a, d, l[d]);
  if (!_xmpacc_check_elem(a, g, file, line)) return 0;
  for (int d = 0; d < n; d++) off = off * a->dim[d].lext + l[d];
  return off;
}

#define _XMPACC_CHECK_AT_N(n, ...) \
  _XMPACC_CHECK_FN long long _xmpacc_check_at##n(const _xmpacc_array_t *a, __VA_ARGS__, const char *f, int ln)
_XMPACC_CHECK_AT_N(2, long long l0, long long l1) {
  long long l[2] = {l0, l1}; return _xmpacc_check_at(a, 2, l, f, ln);
}
_XMPACC_CHECK_AT_N(3, long long l0, long long l1, long long l2) {
  long long l[3] = {l0, l1, l2}; return _xmpacc_check_at(a, 3, l, f, ln);
}
_XMPACC_CHECK_AT_N(4, long long l0, long long l1, long long l2, long long l3) {
  long long l[4] = {l0, l1, l2, l3}; return _xmpacc_check_at(a, 4, l, f, ln);
}
_XMPACC_CHECK_AT_N(5, long long l0, long long l1, long long l2, long long l3, long long l4) {
  long long l[5] = {l0, l1, l2, l3, l4}; return _xmpacc_check_at(a, 5, l, f, ln);
}
_XMPACC_CHECK_AT_N(6, long long l0, long long l1, long long l2, long long l3, long long l4, long long l5) {
  long long l[6] = {l0, l1, l2, l3, l4, l5}; return _xmpacc_check_at(a, 6, l, f, ln);
}
_XMPACC_CHECK_AT_N(7, long long l0, long long l1, long long l2, long long l3, long long l4, long long l5,
                   long long l6) {
  long long l[7] = {l0, l1, l2, l3, l4, l5, l6}; return _xmpacc_check_at(a, 7, l, f, ln);
}

#define _XMPACC_L(a, d, g) _xmpacc_check_l(&(a), (d), (g), __FILE__, __LINE__)
#define _XMPACC_LC(a, d, g) _xmpacc_check_lc(&(a), (d), (g), __FILE__, __LINE__)
#define _XMPACC_G(a, d, g) _XMPACC_L(a, d, g)   /* kernels are not rebased in checked builds */
#define _XMPACC_AT2(a, l0, l1) _xmpacc_check_at2(&(a), (l0), (l1), __FILE__, __LINE__)
#define _XMPACC_AT3(a, l0, l1, l2) _xmpacc_check_at3(&(a), (l0), (l1), (l2), __FILE__, __LINE__)
#define _XMPACC_AT4(a, l0, l1, l2, l3) _xmpacc_check_at4(&(a), (l0), (l1), (l2), (l3), __FILE__, __LINE__)
#define _XMPACC_AT5(a, l0, l1, l2, l3, l4) \
  _xmpacc_check_at5(&(a), (l0), (l1), (l2), (l3), (l4), __FILE__, __LINE__)
#define _XMPACC_AT6(a, l0, l1, l2, l3, l4, l5) \
  _xmpacc_check_at6(&(a), (l0), (l1), (l2), (l3), (l4), (l5), __FILE__, __LINE__)
#define _XMPACC_AT7(a, l0, l1, l2, l3, l4, l5, l6) \
  _xmpacc_check_at7(&(a), (l0), (l1), (l2), (l3), (l4), (l5), (l6), __FILE__, __LINE__)

#endif
