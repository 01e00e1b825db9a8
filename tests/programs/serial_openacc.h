/* serial_openacc.h: openacc.h for the serial build of a test program, which a plain C
 * compiler builds without _OPENACC: OpenACC's host fallback, where the host is the only
 * device and "device" data are the host data.  Presence is still kept, as a device would
 * keep it, so that acc_is_present and acc_deviceptr answer as they do under xmpacc.
 * Programs include it only when _OPENACC is not defined:
 *     #ifdef _OPENACC
 *     #include <openacc.h>
 *     #else
 *     #include "serial_openacc.h"
 *     #endif
 */
#ifndef SERIAL_OPENACC_H
#define SERIAL_OPENACC_H
#include <stdlib.h>
#include <string.h>

typedef enum {
    acc_device_none = 0, acc_device_default = 1, acc_device_host = 2, acc_device_not_host = 3,
    acc_device_nvidia = 4
} acc_device_t;
#define acc_async_sync (-1)
#define acc_async_noval (-2)

static int acc_get_num_devices(acc_device_t t) { return t == acc_device_host; }
static void acc_set_device_type(acc_device_t t) { (void)t; }
static acc_device_t acc_get_device_type(void) { return acc_device_host; }
static void acc_set_device_num(int n, acc_device_t t) { (void)n; (void)t; }
static int acc_get_device_num(acc_device_t t) { return t == acc_device_host ? 0 : -1; }
static void acc_init(acc_device_t t) { (void)t; }
static void acc_shutdown(acc_device_t t) { (void)t; }
static int acc_on_device(acc_device_t t) { return t == acc_device_host || t == acc_device_none; }

static int acc_async_test(int q) { (void)q; return 1; }
static int acc_async_test_all(void) { return 1; }
static void acc_wait(int q) { (void)q; }
static void acc_wait_async(int q, int q2) { (void)q; (void)q2; }
static void acc_wait_all(void) {}
static void acc_wait_all_async(int q) { (void)q; }
static void acc_async_wait(int q) { (void)q; }
static void acc_async_wait_all(void) {}

/* the present table: one entry per acc_copyin / acc_create of data not present */
static struct { char *p; size_t n; int refs; } serial_acc_present[64];

static int serial_acc_find(const void *h, size_t n)
{
    for (int k = 0; k < 64; k++)
        if (serial_acc_present[k].refs && serial_acc_present[k].p <= (const char *)h
                && (const char *)h + n <= serial_acc_present[k].p + serial_acc_present[k].n)
            return k;
    return -1;
}
static void *acc_copyin(void *h, size_t n)
{
    int k = serial_acc_find(h, n);
    if (k < 0)
        for (k = 0; serial_acc_present[k].refs; k++) {}
    serial_acc_present[k].p = serial_acc_present[k].refs ? serial_acc_present[k].p : (char *)h;
    serial_acc_present[k].n = serial_acc_present[k].refs ? serial_acc_present[k].n : n;
    serial_acc_present[k].refs++;
    return h;
}
static void *acc_present_or_copyin(void *h, size_t n) { return acc_copyin(h, n); }
static void *acc_pcopyin(void *h, size_t n) { return acc_copyin(h, n); }
static void *acc_create(void *h, size_t n) { return acc_copyin(h, n); }
static void *acc_present_or_create(void *h, size_t n) { return acc_copyin(h, n); }
static void *acc_pcreate(void *h, size_t n) { return acc_copyin(h, n); }
static void acc_delete(void *h, size_t n)
{
    int k = serial_acc_find(h, n);
    if (k >= 0) serial_acc_present[k].refs--;
}
static void acc_delete_finalize(void *h, size_t n)
{
    int k = serial_acc_find(h, n);
    if (k >= 0) serial_acc_present[k].refs = 0;
}
static void acc_copyout(void *h, size_t n) { acc_delete(h, n); }
static void acc_copyout_finalize(void *h, size_t n) { acc_delete_finalize(h, n); }
static void acc_update_device(void *h, size_t n) { (void)h; (void)n; }
static void acc_update_self(void *h, size_t n) { (void)h; (void)n; }
static int acc_is_present(void *h, size_t n) { return serial_acc_find(h, n ? n : 1) >= 0; }
static void *acc_deviceptr(void *h) { return serial_acc_find(h, 1) >= 0 ? h : NULL; }
static void *acc_hostptr(void *d) { return serial_acc_find(d, 1) >= 0 ? d : NULL; }

static void *acc_malloc(size_t n) { return malloc(n); }
static void acc_free(void *d) { free(d); }
static void acc_memcpy_to_device(void *d, void *h, size_t n) { memcpy(d, h, n); }
static void acc_memcpy_from_device(void *h, void *d, size_t n) { memcpy(h, d, n); }
#endif
