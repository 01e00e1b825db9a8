/* A file without directives (so xmpacc compiles it as it is) that calls the collective
 * intrinsics, xmp_malloc and xmp_free of xmp.h as functions, on descriptors its caller
 * passes: intrinsics_main.c. */
#include <xmp.h>

void lib_sort(xmp_desc_t dst, xmp_desc_t src, int down)
{
    if (down)
        xmp_sort_down(dst, src);
    else
        xmp_sort_up(dst, src);
}

void lib_gather(xmp_desc_t x, xmp_desc_t a, xmp_desc_t i) { xmp_gather(x, a, i); }
void lib_scatter(xmp_desc_t x, xmp_desc_t a, xmp_desc_t i) { xmp_scatter(x, a, i); }
void lib_pack(xmp_desc_t v, xmp_desc_t a, xmp_desc_t mask) { xmp_pack(v, a, mask); }
void lib_unpack(xmp_desc_t a, xmp_desc_t v, xmp_desc_t mask) { xmp_unpack(a, v, mask); }
void lib_transpose(xmp_desc_t dst, xmp_desc_t src) { xmp_transpose(dst, src, 0); }
void lib_matmul(xmp_desc_t c, xmp_desc_t a, xmp_desc_t b) { xmp_matmul(c, a, b); }
void *lib_malloc(xmp_desc_t d, int n) { return xmp_malloc(d, n); }
void lib_free(void *p) { xmp_free(p); }
