/*
 * gpu_timer.hip -- event timing for parprim-bench (bench_gpu.h). Written in HIP names; on
 * NVIDIA, nvcc compiles it as CUDA and hip/port.h maps the names onto CUDA.
 *
 * Events are recorded on the stream the context enqueues on, so the time between them is
 * the device time of the work enqueued in between (launch gaps included, host waits not).
 */
#include <stdio.h>
#include <stdlib.h>

#include "port.h"
#include "bench_gpu.h"

struct pb_timer {
    hipStream_t stream;
    hipEvent_t start;
    hipEvent_t stop;
};

static char pb_gpu_message[256];

static int pb_gpu_fail(const char *what, hipError_t e)
{
    snprintf(pb_gpu_message, sizeof pb_gpu_message, "%s: %s", what, hipGetErrorString(e));
    return -1;
}

#define PB_GPU_TRY(call)                                      \
    do {                                                      \
        hipError_t e_ = (call);                               \
        if (e_ != hipSuccess) return pb_gpu_fail(#call, e_);  \
    } while (0)

extern "C" const char *pb_gpu_last_error(void) { return pb_gpu_message; }

extern "C" pb_timer *pb_timer_create(void *stream)
{
    pb_timer *t = (pb_timer *)calloc(1, sizeof *t);
    if (!t) {
        snprintf(pb_gpu_message, sizeof pb_gpu_message, "pb_timer_create: out of host memory");
        return NULL;
    }
    t->stream = (hipStream_t)stream;
    hipError_t e = hipEventCreate(&t->start);
    if (e == hipSuccess) {
        e = hipEventCreate(&t->stop);
        if (e != hipSuccess) (void)hipEventDestroy(t->start);
    }
    if (e != hipSuccess) {
        pb_gpu_fail("hipEventCreate", e);
        free(t);
        return NULL;
    }
    return t;
}

extern "C" int pb_timer_start(pb_timer *t)
{
    PB_GPU_TRY(hipEventRecord(t->start, t->stream));
    return 0;
}

extern "C" int pb_timer_stop(pb_timer *t)
{
    PB_GPU_TRY(hipEventRecord(t->stop, t->stream));
    return 0;
}

extern "C" double pb_timer_ms(pb_timer *t)
{
    float ms = 0.0f;
    PB_GPU_TRY(hipEventSynchronize(t->stop));
    PB_GPU_TRY(hipEventElapsedTime(&ms, t->start, t->stop));
    return (double)ms;
}

extern "C" void pb_timer_destroy(pb_timer *t)
{
    if (!t) return;
    (void)hipEventDestroy(t->start);
    (void)hipEventDestroy(t->stop);
    free(t);
}
