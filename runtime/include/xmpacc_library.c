/* xmpacc_library.c: the mapping inquiry functions of xmp.h (XMP ch. 7; global-view §9)
 * and the rest of its functions that are not one line of the glue, compiled into every
 * program (the glue includes it once).
 *
 * Dimension numbers are Omni's: node arrays and templates count theirs in Fortran order,
 * as the parenthesised syntax writes them (Omni keeps them so): dimension 1 of
 * 'nodes p(3,4)', which is 'p[4][3]', has 3 nodes, and 'template t(0:9, 0:19)' has
 * dimension 1 0:9.  Arrays count theirs in C order: dimension 1 of 'double a[N][M]' has N
 * elements.  So xmp_align_axis gives a template dimension and xmp_dist_axis a node
 * dimension in Fortran order.  On a square grid both orders agree; on 3 x 4 they do not.
 *
 * They read the descriptors of xmpacc_types.h, which the runtime fills: no call into the
 * runtime except for a gblock map (not kept in C) and xmp_free.  Every function checks its
 * descriptor's id and its dimension number first, so a wrong argument gives a negative
 * result instead of a crash: -1 bad descriptor, -2 bad dimension or index, -3 not fixed,
 * distributed or allocated yet.  Dimension numbers are 1-based.  One function per library
 * routine: they look alike (check, then read one field), each reads its own.
 */
#include <stdarg.h>
#include "xmpacc.h"

#define _XMPACC_BAD_DESC (-1)
#define _XMPACC_BAD_DIM (-2)
#define _XMPACC_NOT_READY (-3)

static const _xmpacc_nodes_t *_xmpacc_as_nodes(xmp_desc_t d) {
  const _xmpacc_nodes_t *n = (const _xmpacc_nodes_t *)d;
  return n != 0 && n->id == _XMPACC_DESC_NODES ? n : 0;
}

static const _xmpacc_template_t *_xmpacc_as_template(xmp_desc_t d) {
  const _xmpacc_template_t *t = (const _xmpacc_template_t *)d;
  return t != 0 && t->id == _XMPACC_DESC_TEMPLATE ? t : 0;
}

static const _xmpacc_array_t *_xmpacc_as_array(xmp_desc_t d) {
  const _xmpacc_array_t *a = (const _xmpacc_array_t *)d;
  return a != 0 && a->id == _XMPACC_DESC_ARRAY ? a : 0;
}

/* The C index of dimension ``dim`` (1-based, Fortran order) of an object of ``ndims``
 * dimensions, and back: the Fortran number of C index ``k`` (-1: none, gives 0). */
static int _xmpacc_c_index(int ndims, int dim) { return ndims - dim; }
static int _xmpacc_f_number(int ndims, int k) { return k < 0 ? 0 : ndims - k; }

/* ---------------------------------------------------------------- nodes */

int xmp_nodes_ndims(xmp_desc_t d, int *ndims) {
  const _xmpacc_nodes_t *n = _xmpacc_as_nodes(d);
  if (!n) return _XMPACC_BAD_DESC;
  *ndims = n->ndims;
  return 0;
}

int xmpc_nodes_index(xmp_desc_t d, int dim, int *index) {
  const _xmpacc_nodes_t *n = _xmpacc_as_nodes(d);
  if (!n) return _XMPACC_BAD_DESC;
  if (dim < 1 || dim > n->ndims) return _XMPACC_BAD_DIM;
  if (!n->is_member) return _XMPACC_NOT_READY;
  *index = n->coord[_xmpacc_c_index(n->ndims, dim)];
  return 0;
}

int xmp_nodes_index(xmp_desc_t d, int dim, int *index) {
  int r = xmpc_nodes_index(d, dim, index);
  if (r == 0) *index += 1;
  return r;
}

int xmp_nodes_size(xmp_desc_t d, int dim, int *size) {
  const _xmpacc_nodes_t *n = _xmpacc_as_nodes(d);
  if (!n) return _XMPACC_BAD_DESC;
  if (dim < 1 || dim > n->ndims) return _XMPACC_BAD_DIM;
  *size = n->extent[_xmpacc_c_index(n->ndims, dim)];
  return 0;
}

/* Node arrays cover the entire node set (subsets are not supported yet). */
int xmp_nodes_attr(xmp_desc_t d, int *attr) {
  if (!_xmpacc_as_nodes(d)) return _XMPACC_BAD_DESC;
  *attr = XMP_ENTIRE_NODES;
  return 0;
}

/* An entire-node-set array is equivalenced to no other node array: *dn = NULL. */
int xmp_nodes_equiv(xmp_desc_t d, xmp_desc_t *dn, int lb[], int ub[], int st[]) {
  (void)lb; (void)ub; (void)st;
  if (!_xmpacc_as_nodes(d)) return _XMPACC_BAD_DESC;
  *dn = 0;
  return 0;
}

/* ---------------------------------------------------------------- templates */

int xmp_template_fixed(xmp_desc_t d, int *fixed) {
  const _xmpacc_template_t *t = _xmpacc_as_template(d);
  if (!t) return _XMPACC_BAD_DESC;
  *fixed = t->fixed;
  return 0;
}

int xmp_template_ndims(xmp_desc_t d, int *ndims) {
  const _xmpacc_template_t *t = _xmpacc_as_template(d);
  if (!t) return _XMPACC_BAD_DESC;
  *ndims = t->ndims;
  return 0;
}

/* The template dimension ``dim`` (1-based) once the bounds are known. */
static int _xmpacc_tdim(xmp_desc_t d, int dim, int need_dist, const _xmpacc_tdim_t **out) {
  const _xmpacc_template_t *t = _xmpacc_as_template(d);
  if (!t) return _XMPACC_BAD_DESC;
  if (dim < 1 || dim > t->ndims) return _XMPACC_BAD_DIM;
  if (!t->fixed || (need_dist && !t->distributed)) return _XMPACC_NOT_READY;
  *out = &t->dim[_xmpacc_c_index(t->ndims, dim)];
  return 0;
}

int xmp_template_lbound(xmp_desc_t d, int dim, int *lbound) {
  const _xmpacc_tdim_t *td;
  int r = _xmpacc_tdim(d, dim, 0, &td);
  if (r == 0) *lbound = (int)td->lower;
  return r;
}

int xmp_template_ubound(xmp_desc_t d, int dim, int *ubound) {
  const _xmpacc_tdim_t *td;
  int r = _xmpacc_tdim(d, dim, 0, &td);
  if (r == 0) *ubound = (int)td->upper;
  return r;
}

int xmp_dist_format(xmp_desc_t d, int dim, int *format) {
  const _xmpacc_tdim_t *td;
  int r = _xmpacc_tdim(d, dim, 1, &td);
  if (r == 0) *format = td->kind;   /* the _XMPACC_DIST_* values are the XMP_* ones */
  return r;
}

/* block: the block size (n of block(n)); cyclic(w): w; gblock: this node's block; '*':
 * the extent. */
int xmp_dist_blocksize(xmp_desc_t d, int dim, int *blocksize) {
  const _xmpacc_tdim_t *td;
  int r = _xmpacc_tdim(d, dim, 1, &td);
  if (r == 0) *blocksize = (int)(td->kind == _XMPACC_DIST_GBLOCK ? td->owned_count : td->width);
  return r;
}

int xmp_dist_gblockmap(xmp_desc_t d, int dim, int *map) {
  const _xmpacc_tdim_t *td;
  int r = _xmpacc_tdim(d, dim, 1, &td);
  if (r != 0) return r;
  if (td->kind != _XMPACC_DIST_GBLOCK) return _XMPACC_BAD_DIM;
  int k = _xmpacc_c_index(((const _xmpacc_template_t *)d)->ndims, dim);
  return _xmpacc_gblock_map(d, k, map) == 0 ? 0 : _XMPACC_BAD_DIM;
}

int xmp_dist_nodes(xmp_desc_t d, xmp_desc_t *dn) {
  const _xmpacc_template_t *t = _xmpacc_as_template(d);
  if (!t) return _XMPACC_BAD_DESC;
  if (!t->distributed) return _XMPACC_NOT_READY;
  *dn = (xmp_desc_t)t->nodes;
  return 0;
}

int xmp_dist_axis(xmp_desc_t d, int dim, int *axis) {
  const _xmpacc_tdim_t *td;
  int r = _xmpacc_tdim(d, dim, 1, &td);
  /* node_dim -1 ('*') gives 0 */
  if (r == 0) *axis = _xmpacc_f_number(((const _xmpacc_template_t *)d)->nodes->ndims, td->node_dim);
  return r;
}

/* ---------------------------------------------------------------- aligned arrays */

static int _xmpacc_adim(xmp_desc_t d, int dim, const _xmpacc_array_t **arr, const _xmpacc_adim_t **out) {
  const _xmpacc_array_t *a = _xmpacc_as_array(d);
  if (!a) return _XMPACC_BAD_DESC;
  if (dim < 1 || dim > a->ndims) return _XMPACC_BAD_DIM;
  *arr = a;
  *out = &a->dim[dim - 1];
  return 0;
}

int xmp_align_axis(xmp_desc_t d, int dim, int *axis) {
  const _xmpacc_array_t *a;
  const _xmpacc_adim_t *ad;
  int r = _xmpacc_adim(d, dim, &a, &ad);
  if (r == 0) *axis = a->tmpl ? _xmpacc_f_number(a->tmpl->ndims, ad->tdim) : 0;   /* collapsed: 0 */
  return r;
}

int xmp_align_offset(xmp_desc_t d, int dim, int *offset) {
  const _xmpacc_array_t *a;
  const _xmpacc_adim_t *ad;
  int r = _xmpacc_adim(d, dim, &a, &ad);
  if (r == 0) *offset = (int)ad->offset;
  return r;
}

/* 1 when no array dimension is aligned with template dimension ``dim``: the array is
 * replicated along it ('*' in the align subscripts). */
int xmp_align_replicated(xmp_desc_t d, int dim, int *replicated) {
  const _xmpacc_array_t *a = _xmpacc_as_array(d);
  if (!a) return _XMPACC_BAD_DESC;
  if (!a->tmpl || dim < 1 || dim > a->tmpl->ndims) return _XMPACC_BAD_DIM;
  *replicated = 1;
  for (int k = 0; k < a->ndims; k++)
    if (a->dim[k].tdim == _xmpacc_c_index(a->tmpl->ndims, dim)) *replicated = 0;
  return 0;
}

int xmp_align_template(xmp_desc_t d, xmp_desc_t *dt) {
  const _xmpacc_array_t *a = _xmpacc_as_array(d);
  if (!a) return _XMPACC_BAD_DESC;
  *dt = (xmp_desc_t)a->tmpl;
  return 0;
}

int xmp_array_ndims(xmp_desc_t d, int *ndims) {
  const _xmpacc_array_t *a = _xmpacc_as_array(d);
  if (!a) return _XMPACC_BAD_DESC;
  *ndims = a->ndims;
  return 0;
}

int xmp_array_lbound(xmp_desc_t d, int dim, int *lbound) {
  const _xmpacc_array_t *a;
  const _xmpacc_adim_t *ad;
  int r = _xmpacc_adim(d, dim, &a, &ad);
  if (r == 0) *lbound = 0;   /* C arrays start at 0 */
  return r;
}

int xmp_array_ubound(xmp_desc_t d, int dim, int *ubound) {
  const _xmpacc_array_t *a;
  const _xmpacc_adim_t *ad;
  int r = _xmpacc_adim(d, dim, &a, &ad);
  if (r == 0) *ubound = (int)(ad->extent - 1);
  return r;
}

/* A full shadow's widths are the slots the node holds below and above its own elements. */
int xmp_array_lshadow(xmp_desc_t d, int dim, int *lshadow) {
  const _xmpacc_array_t *a;
  const _xmpacc_adim_t *ad;
  int r = _xmpacc_adim(d, dim, &a, &ad);
  if (r == 0) *lshadow = (int)(ad->full_shadow ? ad->owned_first : ad->shadow_lo);
  return r;
}

int xmp_array_ushadow(xmp_desc_t d, int dim, int *ushadow) {
  const _xmpacc_array_t *a;
  const _xmpacc_adim_t *ad;
  int r = _xmpacc_adim(d, dim, &a, &ad);
  if (r == 0)
    *ushadow = (int)(ad->full_shadow ? ad->extent - ad->owned_first - ad->owned_count : ad->shadow_hi);
  return r;
}

/* The local buffer index of global index g_idx; -2 when this node holds no slot for it. */
int xmp_array_gtol(xmp_desc_t d, int dim, int g_idx, int *l_idx) {
  const _xmpacc_array_t *a;
  const _xmpacc_adim_t *ad;
  int r = _xmpacc_adim(d, dim, &a, &ad);
  if (r != 0) return r;
  if (g_idx < 0 || g_idx >= ad->extent) return _XMPACC_BAD_DIM;
  if (ad->kind == _XMPACC_DIST_CYCLIC) {
    const _xmpacc_tdim_t *td = &a->tmpl->dim[ad->tdim];
    long long g = g_idx + ad->offset;
    if (!_xmpacc_tdim_owns(td, g)) return _XMPACC_BAD_DIM;
    *l_idx = (int)_xmpacc_loc_cyclic(a, dim - 1, g_idx);
    return 0;
  }
  long long l = g_idx - ad->gtol;
  if (l < 0 || l >= ad->lext) return _XMPACC_BAD_DIM;
  *l_idx = (int)l;
  return 0;
}

int xmp_array_lsize(xmp_desc_t d, int dim, int *lsize) {
  const _xmpacc_array_t *a;
  const _xmpacc_adim_t *ad;
  int r = _xmpacc_adim(d, dim, &a, &ad);
  if (r == 0) *lsize = (int)ad->owned_count;
  return r;
}

int xmp_array_laddr(xmp_desc_t d, void **laddr) {
  const _xmpacc_array_t *a = _xmpacc_as_array(d);
  if (!a) return _XMPACC_BAD_DESC;
  *laddr = a->base;
  return 0;
}

int xmp_array_lda(xmp_desc_t d, int *lda) {
  const _xmpacc_array_t *a = _xmpacc_as_array(d);
  if (!a) return _XMPACC_BAD_DESC;
  *lda = (int)a->dim[a->ndims - 1].lext;
  return 0;
}

int xmp_array_type_size(xmp_desc_t d, size_t *size) {
  const _xmpacc_array_t *a = _xmpacc_as_array(d);
  if (!a) return _XMPACC_BAD_DESC;
  *size = (size_t)a->elem_size;
  return 0;
}

/* ---------------------------------------------------------------- the rest of xmp.h */

/* ---------------------------------------------------------------- functions xmpacc lowers
 * In a translated file xmpacc turns a call of these into the runtime call itself, with
 * its line and the element types it sees (passes/localize/library.py): these are for
 * the other calls, from a file without directives or through a pointer.  Descriptors
 * then carry the element type that xmp_desc_of recorded (type code 0). */

void xmp_free(void *p) { _xmpacc_free(p, "xmp_free()"); }   /* xmpacc passes the line instead */

/* xmp_malloc's blocks come from calloc, as Omni's come from malloc, so free(p) may release
 * one.  The program is linked with --wrap=free: every free() in it comes here, and when p
 * is such a block the runtime forgets the block's array first, so that it never frees the
 * block again nor keeps a view of it (runtime/dynamic.py).  The runtime keeps the blocks'
 * addresses here (all of them up to _XMPACC_LIVE_MAX; beyond, every free asks it), so the
 * program's other frees cost a scan of a few pointers. */
#define _XMPACC_LIVE_MAX 64
int _xmpacc_live_blocks;
void *_xmpacc_live_bases[_XMPACC_LIVE_MAX];
void __real_free(void *p);
void __wrap_free(void *p) {
  int n = _xmpacc_live_blocks, hit = n > _XMPACC_LIVE_MAX;
  for (int k = 0; p && !hit && k < n; k++) hit = _xmpacc_live_bases[k] == p;
  if (p && hit) _xmpacc_forget_block(p);
  __real_free(p);
}

/* One extent per dimension of the aligned pointer, as ints (a long argument is read as
 * its low int, which is its value on the 64-bit ABIs xmpacc runs on). */
void *xmp_malloc(xmp_desc_t d, ...) {
  long long extents[_XMPACC_MAXDIM];
  int n = d ? ((const _xmpacc_array_t *)d)->ndims : 0;   /* set by the align, before the block */
  va_list ap;
  va_start(ap, d);
  for (int k = 0; k < n && k < _XMPACC_MAXDIM; k++) extents[k] = va_arg(ap, int);
  va_end(ap);
  return _xmpacc_malloc(d, "xmp_malloc()", n < _XMPACC_MAXDIM ? n : _XMPACC_MAXDIM, extents, 0);
}

/* xmp_gather(x, a, i1, ..., in) and xmp_scatter(x, a, ...): one index array per
 * dimension of the indexed array (a for gather, x for scatter). */
static void _xmpacc_indexed(int scatter, xmp_desc_t x, xmp_desc_t a, va_list ap) {
  const void *descs[2 + _XMPACC_MAXDIM] = {x, a};
  const int types[2 + _XMPACC_MAXDIM] = {0};
  const _xmpacc_array_t *indexed = _xmpacc_as_array(scatter ? x : a);
  int n = indexed ? indexed->ndims : 0;   /* not an array: the runtime says so */
  for (int k = 0; k < n; k++) descs[2 + k] = va_arg(ap, xmp_desc_t);
  if (scatter)
    _xmpacc_scatter("xmp_scatter()", 2 + n, descs, types);
  else
    _xmpacc_gather("xmp_gather()", 2 + n, descs, types);
}

void xmp_gather(xmp_desc_t x, xmp_desc_t a, ...) {
  va_list ap;
  va_start(ap, a);
  _xmpacc_indexed(0, x, a, ap);
  va_end(ap);
}

void xmp_scatter(xmp_desc_t x, xmp_desc_t a, ...) {
  va_list ap;
  va_start(ap, a);
  _xmpacc_indexed(1, x, a, ap);
  va_end(ap);
}

void xmp_pack(xmp_desc_t v, xmp_desc_t a, xmp_desc_t mask) {
  const void *descs[3] = {v, a, mask};
  const int types[3] = {0, 0, 0};
  _xmpacc_pack("xmp_pack()", 3, descs, types);
}

void xmp_unpack(xmp_desc_t a, xmp_desc_t v, xmp_desc_t mask) {
  const void *descs[3] = {a, v, mask};
  const int types[3] = {0, 0, 0};
  _xmpacc_unpack("xmp_unpack()", 3, descs, types);
}

void xmp_matmul(xmp_desc_t c, xmp_desc_t a, xmp_desc_t b) {
  const void *descs[3] = {c, a, b};
  const int types[3] = {0, 0, 0};
  _xmpacc_matmul("xmp_matmul()", 3, descs, types);
}

void xmp_transpose(xmp_desc_t dst, xmp_desc_t src, int opt) {
  _xmpacc_transpose("xmp_transpose()", dst, src, opt);
}
void xmp_sort_up(xmp_desc_t dst, xmp_desc_t src) { _xmpacc_sort("xmp_sort_up()", dst, src, 0, 0); }
void xmp_sort_down(xmp_desc_t dst, xmp_desc_t src) { _xmpacc_sort("xmp_sort_down()", dst, src, 0, 1); }

/* ---------------------------------------------------------------- MPI interoperability
 * The runtime owns MPI (initialised before main, finalised after it). */
void xmp_init_mpi(int *argc, char ***argv) { (void)argc; (void)argv; }
void xmp_finalize_mpi(void) {}
void xmp_init() {}
void xmp_finalize(void) {}

int xmp_this_image(void) { return xmpc_this_image() + 1; }

/* ---------------------------------------------------------------- image control
 * The functions of the local view's directives (coarray_sync.py).  Run-time errors name
 * the function: a call has no directive line to give.  Success is the only status they
 * return (a failure ends the job). */

static void _xmpacc_status_ok(int *status) {
  if (status) *status = 0;
}

void xmp_sync_memory(int *status) {
  _xmpacc_sync_memory("xmp_sync_memory()");
  _xmpacc_status_ok(status);
}

void xmp_sync_all(int *status) {
  _xmpacc_sync_all("xmp_sync_all()");
  _xmpacc_status_ok(status);
}

void xmp_sync_images(int num, int *image_set, int *status) {
  _xmpacc_sync_image_list("xmp_sync_images()", num, image_set);
  _xmpacc_status_ok(status);
}

void xmp_sync_image(int image, int *status) {
  _xmpacc_sync_image_list("xmp_sync_image()", 1, &image);
  _xmpacc_status_ok(status);
}

void xmp_sync_images_all(int *status) {
  _xmpacc_sync_images("xmp_sync_images_all()", -1, 0);
  _xmpacc_status_ok(status);
}
