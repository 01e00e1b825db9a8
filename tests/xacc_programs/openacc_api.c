/* The OpenACC runtime library (openacc.h) next to the directives: devices, data on the
 * present table that the directives share (acc_copyin, then a kernel with present),
 * acc_malloc'd memory through a deviceptr clause, and async queues.  Every process does the
 * same on its own data; the nodes agree through a reduction.  Built by a plain C compiler
 * (no _OPENACC) the serial stand-ins make it the host fallback, which prints the same. */
#include <stdio.h>
#include <stddef.h>
#ifdef _XCALABLEMP
#include <xmp.h>
#else
#include "../programs/serial_xmp.h"
#endif
#ifdef _OPENACC
#include <openacc.h>
#define ON_DEVICE 1   /* compute constructs run on the device */
#else
#include "../programs/serial_openacc.h"
#define ON_DEVICE 0
#endif
#define N 64

#pragma xmp nodes p[*]

double a[N], b[N], c[N];

static int check(const char *what, int ok)
{
    if (!ok)
        printf("node %d: %s failed\n", xmpc_node_num(), what);
    return ok;
}

/* The device this process uses is the one the usual MPI idiom asks for (on one node). */
static int devices(void)
{
    int ok = 1, rank = xmpc_node_num();
    int ndev = acc_get_num_devices(acc_device_nvidia);
    if (ndev > 0)
        acc_set_device_num(rank % ndev, acc_device_nvidia);
    acc_device_t type = acc_get_device_type();
    acc_set_device_type(type);
    acc_init(type);
    ok &= check("acc_get_num_devices(host)", acc_get_num_devices(acc_device_host) == 1);
    ok &= check("acc_get_device_num(host)", acc_get_device_num(acc_device_host) == 0);
    ok &= check("device type", ON_DEVICE ? type == acc_device_nvidia && ndev >= 1 : type == acc_device_host);
    ok &= check("acc_get_device_num", !ON_DEVICE || acc_get_device_num(acc_device_nvidia) == rank % ndev);
    ok &= check("acc_get_device_num(not_host)", !ON_DEVICE || acc_get_num_devices(acc_device_not_host) == ndev);
    ok &= check("acc_on_device in host code", acc_on_device(acc_device_host) && !acc_on_device(acc_device_not_host)
                                              && !acc_on_device(acc_device_nvidia));
    return ok;
}

/* acc_copyin / acc_create, a kernel on the present copies, acc_update_*, acc_copyout. */
static int data(double *sum)
{
    int i, ok = 1;
    for (i = 0; i < N; i++) { a[i] = i; b[i] = -1; }
    double *da = (double *)acc_copyin(a, sizeof a);
    acc_create(b, sizeof b);
    ok &= check("acc_is_present", acc_is_present(a, sizeof a) && acc_is_present(a + 8, 8 * sizeof(double))
                                  && acc_is_present(b, sizeof b) && !acc_is_present(c, sizeof c));
    ok &= check("acc_deviceptr", da != NULL && acc_deviceptr(a) == da && acc_deviceptr(a + 3) == da + 3
                                 && acc_deviceptr(c) == NULL);
    ok &= check("acc_hostptr", acc_hostptr(da + 5) == a + 5);
    ok &= check("acc_present_or_copyin", acc_present_or_copyin(a, sizeof a) == da && acc_pcopyin(a, sizeof a) == da);
    acc_delete(a, sizeof a);   /* the two extra references */
    acc_delete(a, sizeof a);
#pragma acc parallel loop present(a, b)
    for (i = 0; i < N; i++)
        b[i] = 2 * a[i] + (acc_on_device(acc_device_not_host) == ON_DEVICE);
    acc_update_self(b, sizeof b);
    for (i = 0; i < N; i++) *sum += b[i];            /* 2 * 2016 + 64 */
    for (i = 0; i < N; i++) a[i] = 10 * i;
    acc_update_device(a + 16, 16 * sizeof(double));  /* a[16..31] only */
    acc_update_device(a, sizeof(double) * 16);
#pragma acc parallel loop present(a[0:32], b)
    for (i = 0; i < 32; i++)
        b[i] = a[i] + 1;
    acc_copyout(b, sizeof b);                        /* b[0..31] = 10 i + 1, the rest 2 i + 1 */
    for (i = 0; i < N; i++) *sum += b[i];
    acc_delete(a, sizeof a);
    acc_pcreate(c, sizeof c);
    acc_present_or_create(c, sizeof c);
    acc_delete_finalize(c, sizeof c);
    acc_copyin(c, sizeof c);
    acc_copyout_finalize(c, sizeof c);
    ok &= check("gone", !acc_is_present(a, sizeof a) && !acc_is_present(b, 1) && !acc_is_present(c, sizeof c)
                        && acc_deviceptr(a) == NULL);
    return ok;
}

/* Device memory of the program's own, used by a kernel through deviceptr. */
static int memory(double *sum)
{
    int i, ok = 1;
    double *d = (double *)acc_malloc(N * sizeof(double));
    ok &= check("acc_malloc", d != NULL && !acc_is_present(d, 1));
    for (i = 0; i < N; i++) c[i] = i + 0.5;
    acc_memcpy_to_device(d, c, sizeof c);
#pragma acc parallel loop deviceptr(d)
    for (i = 0; i < N; i++)
        d[i] = 3 * d[i];
    for (i = 0; i < N; i++) c[i] = 0;
    acc_memcpy_from_device(c + 8, d + 8, 8 * sizeof(double));   /* c[8..15] only */
    acc_free(d);
    for (i = 0; i < N; i++) *sum += c[i];   /* 3 * (sum of 8.5 .. 15.5) = 3 * 96 */
    return ok;
}

/* Queues: kernels and updates with async, then the library's waits and tests. */
static int queues(double *sum)
{
    int i, ok = 1;
    for (i = 0; i < N; i++) a[i] = 1;
    acc_copyin(a, sizeof a);
#pragma acc parallel loop present(a) async(1)
    for (i = 0; i < N; i++)
        a[i] += 1;
#pragma acc update self(a) async(1)
    (void)acc_async_test(1);   /* may still run: no answer to print */
    acc_wait(1);
    ok &= check("acc_async_test after acc_wait", acc_async_test(1) && acc_async_test_all());
    for (i = 0; i < N; i++) *sum += a[i];     /* 2 each */
#pragma acc parallel loop present(a) async(2)
    for (i = 0; i < N; i++)
        a[i] *= 3;
    acc_wait_async(2, 3);
#pragma acc update self(a) async(3)
    acc_async_wait(3);
    for (i = 0; i < N; i++) *sum += a[i];     /* 6 each */
#pragma acc parallel loop present(a) async
    for (i = 0; i < N; i++)
        a[i] += 1;
    acc_wait(acc_async_noval);
#pragma acc parallel loop present(a) async(4)
    for (i = 0; i < N; i++)
        a[i] += 1;
    acc_wait_all();
    acc_wait_all_async(5);
    acc_async_wait_all();
    ok &= check("acc_async_test_all", acc_async_test_all());
    acc_copyout(a, sizeof a);
    for (i = 0; i < N; i++) *sum += a[i];     /* 8 each */
    return ok;
}

int main(void)
{
    double s1 = 0, s2 = 0, s3 = 0;
    int ok = devices();
    ok &= data(&s1);
    ok &= memory(&s2);
    ok &= queues(&s3);
    acc_shutdown(acc_get_device_type());
#pragma xmp reduction(min:ok)
    if (xmpc_node_num() == 0)
        printf("ok %d data %.1f memory %.1f queues %.1f\n", ok, s1, s2, s3);
    return 0;
}
