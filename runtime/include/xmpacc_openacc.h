/* xmpacc_openacc.h (openacc.h includes it): the OpenACC runtime library (OpenACC 2.6 §3)
 * for xmpacc programs.  Its own name, in the host C xmpacc writes, because a C compiler may
 * ship an openacc.h of its own (GCC's, with acc_device_nvidia = 5) ahead of ours.
 *
 * xmpacc gives each MPI process one GPU (node-local rank modulo the GPUs of the node) and
 * keeps one present table, the one the data directives use: acc_copyin(a, n) and
 * '#pragma acc enter data copyin(a[0:n])' are the same thing, and a later
 * 'present(a[0:n])' finds either.  The host backend (XMPACC_DEVICE=host) stands in for one
 * NVIDIA GPU: device number 0, separate "device" memory, kernels that say they run on the
 * device, so a GPU program runs and prints the same on it.
 *
 * xmpacc compiles each call of these functions into a call of its _xmpacc_openacc_ form
 * below, which carries the call's file and line for run-time errors; called through a
 * pointer, or from a file xmpacc did not compile, they work the same without the line.
 * Only acc_on_device may be called in a kernel (runtime/include/xmpacc_kernel.h). */
#ifndef OPENACC_H
#define OPENACC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  acc_device_none = 0,
  acc_device_default = 1,
  acc_device_host = 2,
  acc_device_not_host = 3,
  acc_device_nvidia = 4
} acc_device_t;

/* Reserved queue numbers (implementation-defined in OpenACC): the runtime's own codes
 * (runtime/contract.py ACC_SYNC, ACC_ASYNC_NOVAL), so async(acc_async_noval) on a
 * directive means what a bare async does. */
#define acc_async_sync (-1)
#define acc_async_noval (-2)

/* devices */
int acc_get_num_devices(acc_device_t t);
void acc_set_device_type(acc_device_t t);
acc_device_t acc_get_device_type(void);
void acc_set_device_num(int n, acc_device_t t);
int acc_get_device_num(acc_device_t t);
void acc_init(acc_device_t t);
void acc_shutdown(acc_device_t t);
int acc_on_device(acc_device_t t);

/* activity queues */
int acc_async_test(int q);
int acc_async_test_all(void);
void acc_wait(int q);
void acc_wait_async(int q, int q2);
void acc_wait_all(void);
void acc_wait_all_async(int q);
void acc_async_wait(int q);        /* OpenACC 2.0 names */
void acc_async_wait_all(void);

/* data on the present table */
void *acc_copyin(void *h, size_t bytes);
void *acc_present_or_copyin(void *h, size_t bytes);
void *acc_pcopyin(void *h, size_t bytes);
void *acc_create(void *h, size_t bytes);
void *acc_present_or_create(void *h, size_t bytes);
void *acc_pcreate(void *h, size_t bytes);
void acc_copyout(void *h, size_t bytes);
void acc_copyout_finalize(void *h, size_t bytes);
void acc_delete(void *h, size_t bytes);
void acc_delete_finalize(void *h, size_t bytes);
void acc_update_device(void *h, size_t bytes);
void acc_update_self(void *h, size_t bytes);
int acc_is_present(void *h, size_t bytes);
void *acc_deviceptr(void *h);
void *acc_hostptr(void *d);

/* device memory outside the present table */
void *acc_malloc(size_t bytes);
void acc_free(void *d);
void acc_memcpy_to_device(void *d, void *h, size_t bytes);
void acc_memcpy_from_device(void *h, void *d, size_t bytes);

/* What xmpacc compiles the calls above into: the same with the call's "file.c:line" and
 * the text of its first argument (for messages) in front. */
void _xmpacc_openacc_set_device_type(const char *where, const char *what, acc_device_t t);
void _xmpacc_openacc_set_device_num(const char *where, const char *what, int n, acc_device_t t);
void _xmpacc_openacc_wait(const char *where, const char *what, int q);
void _xmpacc_openacc_wait_async(const char *where, const char *what, int q, int q2);
void _xmpacc_openacc_wait_all(const char *where, const char *what);
void _xmpacc_openacc_wait_all_async(const char *where, const char *what, int q);
void _xmpacc_openacc_async_wait(const char *where, const char *what, int q);
void _xmpacc_openacc_async_wait_all(const char *where, const char *what);
void *_xmpacc_openacc_copyin(const char *where, const char *what, void *h, size_t bytes);
void *_xmpacc_openacc_present_or_copyin(const char *where, const char *what, void *h, size_t bytes);
void *_xmpacc_openacc_pcopyin(const char *where, const char *what, void *h, size_t bytes);
void *_xmpacc_openacc_create(const char *where, const char *what, void *h, size_t bytes);
void *_xmpacc_openacc_present_or_create(const char *where, const char *what, void *h, size_t bytes);
void *_xmpacc_openacc_pcreate(const char *where, const char *what, void *h, size_t bytes);
void _xmpacc_openacc_copyout(const char *where, const char *what, void *h, size_t bytes);
void _xmpacc_openacc_copyout_finalize(const char *where, const char *what, void *h, size_t bytes);
void _xmpacc_openacc_delete(const char *where, const char *what, void *h, size_t bytes);
void _xmpacc_openacc_delete_finalize(const char *where, const char *what, void *h, size_t bytes);
void _xmpacc_openacc_update_device(const char *where, const char *what, void *h, size_t bytes);
void _xmpacc_openacc_update_self(const char *where, const char *what, void *h, size_t bytes);
void *_xmpacc_openacc_malloc(const char *where, const char *what, size_t bytes);
void _xmpacc_openacc_free(const char *where, const char *what, void *d);
void _xmpacc_openacc_memcpy_to_device(const char *where, const char *what, void *d, void *h, size_t bytes);
void _xmpacc_openacc_memcpy_from_device(const char *where, const char *what, void *h, void *d, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
