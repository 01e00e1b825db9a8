/* serial_xmp.h: the xmp.h functions for the serial build of a test program (one node,
 * every task runs on it).  Programs include it only when _XCALABLEMP is not defined:
 *     #ifdef _XCALABLEMP
 *     #include <xmp.h>
 *     #else
 *     #include "serial_xmp.h"
 *     #endif
 */
#ifndef SERIAL_XMP_H
#define SERIAL_XMP_H
#include <time.h>

static int xmp_node_num(void) { return 1; }
static int xmpc_node_num(void) { return 0; }
static int xmp_num_nodes(void) { return 1; }
static int xmp_all_node_num(void) { return 1; }
static int xmpc_all_node_num(void) { return 0; }
static int xmp_all_num_nodes(void) { return 1; }
static double xmp_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double xmp_wtick(void) { return 1e-9; }
static int xmp_test_async(int async_id) { (void)async_id; return 1; }
static int xmp_num_images(void) { return 1; }
static int xmpc_this_image(void) { return 0; }
typedef struct { long long _xmpacc_owner; } xmp_lock_t;

/* Dynamic arrays (global-view §4): one node holds everything.  A "descriptor" is a
 * compound literal describing the array (serial_xmp_desc): for xmp_malloc the size of
 * what a pointer points to (for double (*a)[M] more than needed, which does no harm);
 * for the intrinsics the address, element type and extents of an array of rank 1 or 2
 * (a pointer's extents are those its xmp_malloc gave). */
#include <stdlib.h>
#include <string.h>
typedef struct {
    void *base;
    int is_array;          /* a declared array (else an xmp_malloc'd pointer) */
    size_t deref;          /* sizeof(*x) */
    size_t total, row;     /* sizeof(x), sizeof(x[0]) of an array */
    int type, rank;        /* SERIAL_XMP_TYPE code of the elements, 1 or 2 */
} serial_xmp_desc;
typedef serial_xmp_desc *xmp_desc_t;
#define SERIAL_XMP_CODES(T) T(char, 2) T(short, 5) T(int, 7) T(unsigned, 8) T(long, 9) \
    T(unsigned long, 10) T(long long, 11) T(float, 13) T(double, 14) T(long double, 15)
#define SERIAL_XMP_SCALAR(t, c) t: c,
#define SERIAL_XMP_ROW(t, c) t *: c,
#define xmp_desc_of(x) (&(serial_xmp_desc){(void *)(x), (void *)&(x) == (void *)(x), sizeof(*(x)), \
    sizeof(x), sizeof((x)[0]), \
    _Generic((x)[0], SERIAL_XMP_CODES(SERIAL_XMP_SCALAR) SERIAL_XMP_CODES(SERIAL_XMP_ROW) default: 0), \
    _Generic((x)[0], SERIAL_XMP_CODES(SERIAL_XMP_ROW) default: 1) == 1 ? 1 : 2})

static struct { void *p; size_t ext[2]; } serial_xmp_blocks[64];
static void *serial_xmp_malloc(xmp_desc_t d, const size_t *extents, size_t n)
{
    size_t bytes = d->deref;
    for (size_t k = 0; k < n; k++)
        bytes *= extents[k];
    void *p = calloc(bytes ? bytes : 1, 1);
    for (int k = 0; k < 64; k++)
        if (!serial_xmp_blocks[k].p) {
            serial_xmp_blocks[k].p = p;
            serial_xmp_blocks[k].ext[0] = extents[0];
            serial_xmp_blocks[k].ext[1] = n > 1 ? extents[1] : 1;
            break;
        }
    return p;
}
#define xmp_malloc(d, ...) serial_xmp_malloc((d), (const size_t[]){__VA_ARGS__}, \
    sizeof((const size_t[]){__VA_ARGS__}) / sizeof(size_t))
static void xmp_free(void *p) { free(p); }

/* ---- the collective intrinsics (global-view §9), serially: plain loops in row-major order */
static size_t serial_xmp_esize(int type)
{
    switch (type) {
    case 2: return sizeof(char); case 5: return sizeof(short); case 7: case 8: return sizeof(int);
    case 9: case 10: return sizeof(long); case 11: return sizeof(long long);
    case 13: return sizeof(float); case 14: return sizeof(double); default: return sizeof(long double);
    }
}
static void serial_xmp_shape(xmp_desc_t d, size_t ext[2])
{
    size_t es = serial_xmp_esize(d->type);
    if (d->is_array) {
        ext[0] = d->total / d->row;
        ext[1] = d->rank == 2 ? d->row / es : 1;
        return;
    }
    for (int k = 0; k < 64; k++)
        if (serial_xmp_blocks[k].p == d->base) {
            ext[0] = serial_xmp_blocks[k].ext[0];
            ext[1] = serial_xmp_blocks[k].ext[1];
            return;
        }
    ext[0] = ext[1] = 0;
}
static size_t serial_xmp_size(xmp_desc_t d) { size_t e[2]; serial_xmp_shape(d, e); return e[0] * e[1]; }
static char *serial_xmp_at(xmp_desc_t d, size_t k) { return (char *)d->base + k * serial_xmp_esize(d->type); }
static long long serial_xmp_int(xmp_desc_t d, size_t k)
{
    char *p = serial_xmp_at(d, k);
    switch (d->type) {
    case 2: return *(char *)p; case 5: return *(short *)p; case 7: return *(int *)p;
    case 8: return *(unsigned *)p; case 9: case 10: return *(long *)p; default: return *(long long *)p;
    }
}
static double serial_xmp_real(xmp_desc_t d, size_t k)
{
    char *p = serial_xmp_at(d, k);
    switch (d->type) {
    case 13: return *(float *)p; case 14: return *(double *)p; case 15: return (double)*(long double *)p;
    default: return (double)serial_xmp_int(d, k);
    }
}
static size_t serial_xmp_lin(xmp_desc_t a, xmp_desc_t i1, xmp_desc_t i2, size_t k)
{
    size_t e[2];
    serial_xmp_shape(a, e);
    return (size_t)serial_xmp_int(i1, k) * (a->rank == 2 ? e[1] : 1) + (i2 ? (size_t)serial_xmp_int(i2, k) : 0);
}
static void xmp_gather(xmp_desc_t x, xmp_desc_t a, xmp_desc_t i1, ...)
{
    xmp_desc_t i2 = 0;
    if (a->rank == 2) { __builtin_va_list ap; __builtin_va_start(ap, i1); i2 = __builtin_va_arg(ap, xmp_desc_t); __builtin_va_end(ap); }
    size_t es = serial_xmp_esize(x->type);
    for (size_t k = 0; k < serial_xmp_size(x); k++)
        memcpy(serial_xmp_at(x, k), serial_xmp_at(a, serial_xmp_lin(a, i1, i2, k)), es);
}
static void xmp_scatter(xmp_desc_t x, xmp_desc_t a, xmp_desc_t i1, ...)
{
    xmp_desc_t i2 = 0;
    if (x->rank == 2) { __builtin_va_list ap; __builtin_va_start(ap, i1); i2 = __builtin_va_arg(ap, xmp_desc_t); __builtin_va_end(ap); }
    size_t es = serial_xmp_esize(x->type);
    for (size_t k = 0; k < serial_xmp_size(a); k++)
        memcpy(serial_xmp_at(x, serial_xmp_lin(x, i1, i2, k)), serial_xmp_at(a, k), es);
}
static void xmp_pack(xmp_desc_t v, xmp_desc_t a, xmp_desc_t mask)
{
    size_t n = 0, es = serial_xmp_esize(a->type);
    for (size_t k = 0; k < serial_xmp_size(a); k++)
        if (serial_xmp_int(mask, k))
            memcpy(serial_xmp_at(v, n++), serial_xmp_at(a, k), es);
}
static void xmp_unpack(xmp_desc_t a, xmp_desc_t v, xmp_desc_t mask)
{
    size_t n = 0, es = serial_xmp_esize(a->type);
    for (size_t k = 0; k < serial_xmp_size(a); k++)
        if (serial_xmp_int(mask, k))
            memcpy(serial_xmp_at(a, k), serial_xmp_at(v, n++), es);
}
static void xmp_transpose(xmp_desc_t dst, xmp_desc_t src, int opt)
{
    size_t e[2], es = serial_xmp_esize(src->type);
    (void)opt;
    serial_xmp_shape(src, e);
    char *copy = malloc(e[0] * e[1] * es);   /* dst may be src */
    memcpy(copy, src->base, e[0] * e[1] * es);
    for (size_t i = 0; i < e[1]; i++)
        for (size_t j = 0; j < e[0]; j++)
            memcpy(serial_xmp_at(dst, i * e[0] + j), copy + (j * e[1] + i) * es, es);
    free(copy);
}
static void xmp_matmul(xmp_desc_t c, xmp_desc_t a, xmp_desc_t b)
{
    size_t ea[2], eb[2];
    serial_xmp_shape(a, ea);
    serial_xmp_shape(b, eb);
    for (size_t i = 0; i < ea[0]; i++)
        for (size_t j = 0; j < eb[1]; j++) {
            double s = 0;
            long long t = 0;
            for (size_t k = 0; k < ea[1]; k++) {
                s += serial_xmp_real(a, i * ea[1] + k) * serial_xmp_real(b, k * eb[1] + j);
                t += serial_xmp_int(a, i * ea[1] + k) * serial_xmp_int(b, k * eb[1] + j);
            }
            char *p = serial_xmp_at(c, i * eb[1] + j);
            switch (c->type) {
            case 13: *(float *)p = (float)s; break; case 14: *(double *)p = s; break;
            case 15: *(long double *)p = s; break; case 7: *(int *)p = (int)t; break;
            case 9: *(long *)p = (long)t; break; default: *(long long *)p = t; break;
            }
        }
}
static int serial_xmp_sort_type;
static int serial_xmp_cmp(const void *x, const void *y)
{
    serial_xmp_desc d = {0};
    d.type = serial_xmp_sort_type;
    d.base = (void *)x; double a = serial_xmp_real(&d, 0); long long ia = serial_xmp_int(&d, 0);
    d.base = (void *)y; double b = serial_xmp_real(&d, 0); long long ib = serial_xmp_int(&d, 0);
    if (serial_xmp_sort_type >= 13) return a < b ? -1 : a > b;
    return ia < ib ? -1 : ia > ib;
}
static void xmp_sort_up(xmp_desc_t dst, xmp_desc_t src)
{
    size_t n = serial_xmp_size(src), es = serial_xmp_esize(src->type);
    memmove(dst->base, src->base, n * es);
    serial_xmp_sort_type = src->type;
    qsort(dst->base, n, es, serial_xmp_cmp);
}
static void xmp_sort_down(xmp_desc_t dst, xmp_desc_t src)
{
    size_t n = serial_xmp_size(src), es = serial_xmp_esize(src->type);
    char tmp[sizeof(long double)];
    xmp_sort_up(dst, src);
    for (size_t k = 0; k < n / 2; k++) {
        memcpy(tmp, serial_xmp_at(dst, k), es);
        memcpy(serial_xmp_at(dst, k), serial_xmp_at(dst, n - 1 - k), es);
        memcpy(serial_xmp_at(dst, n - 1 - k), tmp, es);
    }
}
#endif
