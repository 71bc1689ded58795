/*
 * atomic_peer.hip -- the peer of pp_reduce_by_index in parprim-bench (bench_gpu.h): the plain
 * kernel a caller would write first, one global atomicAdd per element. Written in HIP names;
 * on NVIDIA, nvcc compiles it as CUDA through hip/port.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#include "port.h"
#include "bench_gpu.h"

static char pb_rbi_message[256];

extern "C" const char *pb_rbi_last_error(void) { return pb_rbi_message; }

static double pb_rbi_fail(const char *what, hipError_t e)
{
    snprintf(pb_rbi_message, sizeof pb_rbi_message, "%s: %s", what, hipGetErrorString(e));
    return -1.0;
}

#define PB_RBI_TRY(call)                                      \
    do {                                                      \
        hipError_t e_ = (call);                               \
        if (e_ != hipSuccess) return pb_rbi_fail(#call, e_);  \
    } while (0)

__global__ __launch_bounds__(256) void pb_rbi_atomic_kernel(const float *__restrict__ v, const uint32_t *__restrict__ ix,
                                                            uint64_t n, uint64_t n_out, float *out)
{
    for (uint64_t i = (uint64_t)blockIdx.x * 256 + threadIdx.x; i < n; i += (uint64_t)gridDim.x * 256) {
        const uint32_t j = ix[i];
        if (j < n_out) atomicAdd(&out[j], v[i]);
    }
}

extern "C" double pb_rbi_atomic_run(const pb_rbi_job *job)
{
    pb_rbi_message[0] = '\0';
    hipStream_t s = (hipStream_t)job->stream;
    int dev = 0, sms = 0, occ = 0;
    PB_RBI_TRY(hipGetDevice(&dev));
    PB_RBI_TRY(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev));
    PB_RBI_TRY(hipOccupancyMaxActiveBlocksPerMultiprocessor(&occ, pb_rbi_atomic_kernel, 256, 0));
    const unsigned grid = (unsigned)(sms * (occ > 0 ? occ : 1));
    float *out = NULL;
    PB_RBI_TRY(hipMalloc((void **)&out, (job->n_out ? job->n_out : 1) * sizeof(float)));
    hipEvent_t a = NULL, b = NULL;
    double ms = -1.0;
    std::vector<double> t;
    hipError_t e = hipMemsetAsync(out, 0, job->n_out * sizeof(float), s);
    if (e == hipSuccess) e = hipEventCreate(&a);
    if (e == hipSuccess) e = hipEventCreate(&b);
    if (e != hipSuccess) goto done;
    pb_rbi_atomic_kernel<<<grid, 256, 0, s>>>(job->values, job->indices, job->n, job->n_out, out); /* warm-up */
    for (int r = 0; r < (job->reps > 0 ? job->reps : 1) && e == hipSuccess; ++r) {
        e = hipEventRecord(a, s);
        for (int k = 0; k < (job->batch > 0 ? job->batch : 1); ++k)
            pb_rbi_atomic_kernel<<<grid, 256, 0, s>>>(job->values, job->indices, job->n, job->n_out, out);
        if (e == hipSuccess) e = hipEventRecord(b, s);
        if (e == hipSuccess) e = hipEventSynchronize(b);
        float f = 0;
        if (e == hipSuccess) e = hipEventElapsedTime(&f, a, b);
        t.push_back((double)f / (job->batch > 0 ? job->batch : 1));
    }
    if (e == hipSuccess) e = hipGetLastError();
    if (e == hipSuccess && job->result) {
        e = hipMemsetAsync(out, 0, job->n_out * sizeof(float), s);
        pb_rbi_atomic_kernel<<<grid, 256, 0, s>>>(job->values, job->indices, job->n, job->n_out, out);
        if (e == hipSuccess) e = hipMemcpyAsync(job->result, out, job->n_out * sizeof(float), hipMemcpyDeviceToHost, s);
        if (e == hipSuccess) e = hipStreamSynchronize(s);
    }
    if (e == hipSuccess && !t.empty()) {
        std::sort(t.begin(), t.end());
        const size_t m = t.size() / 2;
        ms = t.size() % 2 ? t[m] : 0.5 * (t[m - 1] + t[m]);
    }
done:
    if (e != hipSuccess) pb_rbi_fail("pb_rbi_atomic_run", e);
    if (a) (void)hipEventDestroy(a);
    if (b) (void)hipEventDestroy(b);
    (void)hipFree(out);
    return ms;
}
