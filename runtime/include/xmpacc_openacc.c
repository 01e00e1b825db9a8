/* xmpacc_openacc.c: the OpenACC runtime library (openacc.h), included by the glue of every
 * program (templates/glue.c.j2).
 *
 * The data routines are the data directives by another name: acc_copyin(h, n) is
 * 'acc enter data copyin' of the n bytes at h, on the same runtime entries and so on the
 * same present table (runtime/acc_data.py); the device, queue and memory routines the
 * directives have no entry for are in runtime/acc_api.py.  Each routine has a located
 * form, _xmpacc_openacc_NAME(where, what, ...), which is what compiled calls use
 * (passes/openacc_calls.py): where is "file.c:line", what the text of the first argument.
 * The plain names call it with neither. */
#include "xmpacc_openacc.h"

/* runtime/contract.py's data clause kinds and the synchronous queue
 * (tests/test_openacc_api.py checks that they agree) */
enum { _XMPACC_OACC_COPYIN = 1, _XMPACC_OACC_COPYOUT = 2, _XMPACC_OACC_CREATE = 3, _XMPACC_OACC_DELETE = 5 };
enum { _XMPACC_OACC_SYNC = -1 };

/* ---- devices: one per process, chosen by the runtime (runtime/device.py) */
int acc_get_num_devices(acc_device_t t) { return _xmpacc_acclib_num_devices((int)t); }
acc_device_t acc_get_device_type(void) { return (acc_device_t)_xmpacc_acclib_device_type(); }
int acc_get_device_num(acc_device_t t) { return _xmpacc_acclib_device_num((int)t); }
void _xmpacc_openacc_set_device_type(const char *where, const char *what, acc_device_t t) {
  (void)what;
  _xmpacc_acclib_set_device(where ? where : "acc_set_device_type", "acc_set_device_type", -1, (int)t);
}
void acc_set_device_type(acc_device_t t) { _xmpacc_openacc_set_device_type(0, 0, t); }
void _xmpacc_openacc_set_device_num(const char *where, const char *what, int n, acc_device_t t) {
  (void)what;
  _xmpacc_acclib_set_device(where ? where : "acc_set_device_num", "acc_set_device_num", n < 0 ? -1 : n, (int)t);
}
void acc_set_device_num(int n, acc_device_t t) { _xmpacc_openacc_set_device_num(0, 0, n, t); }
/* the runtime set the device up before main and releases it after: nothing to do */
void acc_init(acc_device_t t) { (void)t; }
void acc_shutdown(acc_device_t t) { (void)t; }
/* host code; kernels have their own (xmpacc_kernel.h) */
int acc_on_device(acc_device_t t) { return t == acc_device_host || t == acc_device_none; }

/* ---- activity queues (acc_queues.py: a CUDA stream per queue; the host backend has none) */
int acc_async_test(int q) {
  long long queue = q;
  return _xmpacc_acclib_async_test(1, &queue);
}
int acc_async_test_all(void) { return _xmpacc_acclib_async_test(-1, 0); }
void _xmpacc_openacc_wait(const char *where, const char *what, int q) {
  long long queue = q;
  (void)what;
  _xmpacc_acc_wait(where ? where : "acc_wait", 1, &queue);
}
void acc_wait(int q) { _xmpacc_openacc_wait(0, 0, q); }
/* q2 waits for q: the host waits for q, and q2's later work starts after that */
void _xmpacc_openacc_wait_async(const char *where, const char *what, int q, int q2) {
  (void)q2;
  _xmpacc_openacc_wait(where, what, q);
}
void acc_wait_async(int q, int q2) { _xmpacc_openacc_wait_async(0, 0, q, q2); }
void _xmpacc_openacc_wait_all(const char *where, const char *what) {
  (void)what;
  _xmpacc_acc_wait(where ? where : "acc_wait_all", -1, 0);
}
void acc_wait_all(void) { _xmpacc_openacc_wait_all(0, 0); }
void _xmpacc_openacc_wait_all_async(const char *where, const char *what, int q) {
  (void)q;
  _xmpacc_openacc_wait_all(where, what);
}
void acc_wait_all_async(int q) { _xmpacc_openacc_wait_all_async(0, 0, q); }
void _xmpacc_openacc_async_wait(const char *where, const char *what, int q) { _xmpacc_openacc_wait(where, what, q); }
void acc_async_wait(int q) { _xmpacc_openacc_wait(0, 0, q); }
void _xmpacc_openacc_async_wait_all(const char *where, const char *what) { _xmpacc_openacc_wait_all(where, what); }
void acc_async_wait_all(void) { _xmpacc_openacc_wait_all(0, 0); }

/* ---- data on the present table: acc_copyin(h, n) and the others are one variable of an
 * enter / exit data directive */
static const char *_xmpacc_oacc_name(const char *what) { return what && *what ? what : "data"; }

static void *_xmpacc_oacc_enter(const char *where, const char *what, const char *call, void *h, size_t bytes,
                                long long kind) {
  if (!h || !bytes) return 0;   /* OpenACC: no action */
  const void *keys[1] = {h};
  long long sizes[1] = {(long long)bytes}, kinds[1] = {kind};
  const char *names[1] = {_xmpacc_oacc_name(what)};
  _xmpacc_acc_enter_data(where ? where : call, 1, keys, sizes, names, kinds, 0, 1, _XMPACC_OACC_SYNC);
  return _xmpacc_acc_deviceptr(where ? where : call, h, names[0]);
}

static void _xmpacc_oacc_exit(const char *where, const char *what, const char *call, void *h, size_t bytes,
                              long long kind, int finalize) {
  if (!h || !bytes) return;
  const void *keys[1] = {h};
  long long sizes[1] = {(long long)bytes}, kinds[1] = {kind};
  const char *names[1] = {_xmpacc_oacc_name(what)};
  _xmpacc_acc_exit_data(where ? where : call, 1, keys, sizes, names, kinds, 0, 1 | (finalize ? 2 : 0));
}

/* OpenACC 2.5: the present_or_ forms are the plain ones */
#define _XMPACC_OACC_ENTER(name, kind)                                                   \
  void *_xmpacc_openacc_##name(const char *where, const char *what, void *h, size_t bytes) { \
    return _xmpacc_oacc_enter(where, what, "acc_" #name, h, bytes, kind);               \
  }                                                                                      \
  void *acc_##name(void *h, size_t bytes) { return _xmpacc_openacc_##name(0, 0, h, bytes); }
_XMPACC_OACC_ENTER(copyin, _XMPACC_OACC_COPYIN)
_XMPACC_OACC_ENTER(present_or_copyin, _XMPACC_OACC_COPYIN)
_XMPACC_OACC_ENTER(pcopyin, _XMPACC_OACC_COPYIN)
_XMPACC_OACC_ENTER(create, _XMPACC_OACC_CREATE)
_XMPACC_OACC_ENTER(present_or_create, _XMPACC_OACC_CREATE)
_XMPACC_OACC_ENTER(pcreate, _XMPACC_OACC_CREATE)

#define _XMPACC_OACC_EXIT(name, kind, finalize)                                         \
  void _xmpacc_openacc_##name(const char *where, const char *what, void *h, size_t bytes) { \
    _xmpacc_oacc_exit(where, what, "acc_" #name, h, bytes, kind, finalize);              \
  }                                                                                      \
  void acc_##name(void *h, size_t bytes) { _xmpacc_openacc_##name(0, 0, h, bytes); }
_XMPACC_OACC_EXIT(copyout, _XMPACC_OACC_COPYOUT, 0)
_XMPACC_OACC_EXIT(copyout_finalize, _XMPACC_OACC_COPYOUT, 1)
_XMPACC_OACC_EXIT(delete, _XMPACC_OACC_DELETE, 0)
_XMPACC_OACC_EXIT(delete_finalize, _XMPACC_OACC_DELETE, 1)

/* the bytes only, which may be part of a present copy (acc_api.py) */
#define _XMPACC_OACC_UPDATE(name, direction)                                             \
  void _xmpacc_openacc_##name(const char *where, const char *what, void *h, size_t bytes) { \
    if (h && bytes)                                                                      \
      _xmpacc_acclib_update(where ? where : "acc_" #name, direction, _xmpacc_oacc_name(what), h, \
                            (long long)bytes);                                           \
  }                                                                                      \
  void acc_##name(void *h, size_t bytes) { _xmpacc_openacc_##name(0, 0, h, bytes); }
_XMPACC_OACC_UPDATE(update_device, 0)
_XMPACC_OACC_UPDATE(update_self, 1)

int acc_is_present(void *h, size_t bytes) { return _xmpacc_acclib_is_present(h, (long long)bytes); }
void *acc_deviceptr(void *h) { return _xmpacc_acclib_deviceptr(h); }
void *acc_hostptr(void *d) { return _xmpacc_acclib_hostptr(d); }

/* ---- device memory of the program's own (no host counterpart) */
void *_xmpacc_openacc_malloc(const char *where, const char *what, size_t bytes) {
  (void)what;
  return _xmpacc_acclib_malloc(where ? where : "acc_malloc", (long long)bytes);
}
void *acc_malloc(size_t bytes) { return _xmpacc_openacc_malloc(0, 0, bytes); }
void _xmpacc_openacc_free(const char *where, const char *what, void *d) {
  if (d) _xmpacc_acclib_free(where ? where : "acc_free", _xmpacc_oacc_name(what), d);
}
void acc_free(void *d) { _xmpacc_openacc_free(0, 0, d); }
void _xmpacc_openacc_memcpy_to_device(const char *where, const char *what, void *d, void *h, size_t bytes) {
  (void)what;
  if (bytes) _xmpacc_acclib_memcpy(where ? where : "acc_memcpy_to_device", 0, d, h, (long long)bytes);
}
void acc_memcpy_to_device(void *d, void *h, size_t bytes) { _xmpacc_openacc_memcpy_to_device(0, 0, d, h, bytes); }
void _xmpacc_openacc_memcpy_from_device(const char *where, const char *what, void *h, void *d, size_t bytes) {
  (void)what;
  if (bytes) _xmpacc_acclib_memcpy(where ? where : "acc_memcpy_from_device", 1, h, d, (long long)bytes);
}
void acc_memcpy_from_device(void *h, void *d, size_t bytes) { _xmpacc_openacc_memcpy_from_device(0, 0, h, d, bytes); }
