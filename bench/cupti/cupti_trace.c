/* A GPU timeline where Nsight Systems does not run (the lent machines: docs/performance.md).
 * The CUDA driver loads this library into any program named by CUDA_INJECTION64_PATH and
 * calls InitializeInjection; CUPTI's activity API then records, with GPU timestamps on one
 * clock, every kernel (NCCL's among them), copy and memset with its stream, and every
 * driver API call with its host thread.  At exit each process writes
 * $CUPTI_TRACE_DIR/trace-<pid>.csv (kind,name,device,stream,start_ns,end_ns,bytes), read by
 * bench/cupti/timeline.py.  Built and run by bench/cupti/trace.sh. */
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFFER_BYTES (8u << 20)

static FILE *out;

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0;
}

static void write_record(const CUpti_Activity *rec)
{
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const void *)rec;
        fprintf(out, "kernel,%s,%u,%u,%llu,%llu,0\n", k->name, k->deviceId, k->streamId,
                (unsigned long long)k->start, (unsigned long long)k->end);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const void *)rec;
        fprintf(out, "memcpy,kind%u,%u,%u,%llu,%llu,%llu\n", (unsigned)m->copyKind, m->deviceId,
                m->streamId, (unsigned long long)m->start, (unsigned long long)m->end,
                (unsigned long long)m->bytes);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const CUpti_ActivityMemcpyPtoP4 *m = (const void *)rec;
        fprintf(out, "memcpy,peer,%u,%u,%llu,%llu,%llu\n", m->deviceId, m->streamId,
                (unsigned long long)m->start, (unsigned long long)m->end, (unsigned long long)m->bytes);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const void *)rec;
        fprintf(out, "memset,memset,%u,%u,%llu,%llu,%llu\n", m->deviceId, m->streamId,
                (unsigned long long)m->start, (unsigned long long)m->end, (unsigned long long)m->bytes);
        break;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const CUpti_ActivityAPI *a = (const void *)rec;
        const char *name = "?";
        cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, a->cbid, &name);
        /* the host thread in the stream column: host calls are per thread, not per stream */
        fprintf(out, "driver,%s,-1,%u,%llu,%llu,0\n", name, a->threadId, (unsigned long long)a->start,
                (unsigned long long)a->end);
        break;
    }
    default:
        break;
    }
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    CUpti_Activity *rec = NULL;
    (void)ctx;
    (void)stream;
    (void)size;
    while (out && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
        write_record(rec);
    free(buffer);
}

static void finish(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (out)
        fclose(out);
    out = NULL;
}

int InitializeInjection(void)
{
    const char *dir = getenv("CUPTI_TRACE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/trace-%d.csv", dir ? dir : ".", (int)getpid());
    out = fopen(path, "w");
    if (!out)
        return 0;
    fprintf(out, "kind,name,device,stream,start_ns,end_ns,bytes\n");
    cuptiActivityRegisterCallbacks(requested, completed);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY2);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
    if (getenv("CUPTI_TRACE_DRIVER"))
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
    atexit(finish);
    return 1;
}
