/*
 * cub_peer.cu -- CUB's device-wide reductions, scans and histograms, timed in the same process
 * and in the same way as parprim's rows of parprim-bench (bench_gpu.h describes the job). NVIDIA only;
 * compiled by nvcc.
 *
 * Fairness: the temporary storage is sized and allocated once, before timing (what a
 * caller that caches CUB's buffer does); the element count is passed as a 32-bit type when
 * n fits (CUB then uses 32-bit offsets, its fastest path) and as a 64-bit type otherwise.
 * Only the type pairs the bench's rows use are instantiated, to keep the build short; any
 * other pair fails with a message. Scans write into the caller's output buffer (job.out).
 * CUB 3.0 has no cub::Max; the max scan uses cuda::maximum<>, as CUB's own DeviceReduce::Max.
 */
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_partition.cuh>   /* compaction family (issue 19) */
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_segmented_sort.cuh> /* segmented sort (issue 22) */
#include <cub/version.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "bench_gpu.h"
#include "parprim.h"

namespace {

char g_message[512];

double fail(const char *what, cudaError_t e)
{
    snprintf(g_message, sizeof g_message, "%s: %s", what, cudaGetErrorString(e));
    return -1.0;
}

double fail_msg(const char *msg)
{
    snprintf(g_message, sizeof g_message, "%s", msg);
    return -1.0;
}

#define PB_TRY(call)                                    \
    do {                                                \
        cudaError_t e_ = (call);                        \
        if (e_ != cudaSuccess) return fail(#call, e_);  \
    } while (0)

/* Device (or pinned host) memory freed when the scope ends. */
struct DeviceBuffer {
    void *p = nullptr;
    ~DeviceBuffer()
    {
        if (p) cudaFree(p);
    }
    cudaError_t alloc(size_t bytes) { return cudaMalloc(&p, bytes ? bytes : 1); }
};
struct PinnedBuffer {
    void *p = nullptr;
    ~PinnedBuffer()
    {
        if (p) cudaFreeHost(p);
    }
};
struct EventPair {
    cudaEvent_t a = nullptr, b = nullptr;
    ~EventPair()
    {
        if (a) cudaEventDestroy(a);
        if (b) cudaEventDestroy(b);
    }
};

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/* Warm up once, then time job.reps repetitions of job.batch back-to-back calls of `call`
 * (cudaError_t(void *temp, size_t &temp_bytes)) between events on the stream. `temp` is
 * allocated here from the size query. Returns the median ms per call. */
template <class Call> double time_device(const pb_cub_job &job, Call call)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    size_t temp_bytes = 0;
    PB_TRY(call(nullptr, temp_bytes));
    DeviceBuffer temp;
    PB_TRY(temp.alloc(temp_bytes));
    PB_TRY(call(temp.p, temp_bytes)); /* warm-up */
    PB_TRY(cudaStreamSynchronize(s));
    EventPair ev;
    PB_TRY(cudaEventCreate(&ev.a));
    PB_TRY(cudaEventCreate(&ev.b));
    int reps = job.reps > 0 ? job.reps : 1, batch = job.batch > 0 ? job.batch : 1;
    std::vector<double> t;
    for (int r = 0; r < reps; r++) {
        PB_TRY(cudaEventRecord(ev.a, s));
        for (int k = 0; k < batch; k++) PB_TRY(call(temp.p, temp_bytes));
        PB_TRY(cudaEventRecord(ev.b, s));
        PB_TRY(cudaEventSynchronize(ev.b));
        float ms = 0;
        PB_TRY(cudaEventElapsedTime(&ms, ev.a, ev.b));
        t.push_back((double)ms / batch);
    }
    PB_TRY(cudaGetLastError());
    return median(t);
}

/* As time_device, but every call is followed by a copy of `bytes` from `d_out` to pinned
 * host memory and a synchronization, timed with the host clock (the latency a caller that
 * wants the value on the host sees). */
template <class Call>
double time_host_sync(const pb_cub_job &job, Call call, const void *d_out, size_t bytes)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    size_t temp_bytes = 0;
    PB_TRY(call(nullptr, temp_bytes));
    DeviceBuffer temp;
    PB_TRY(temp.alloc(temp_bytes));
    PinnedBuffer host;
    PB_TRY(cudaMallocHost(&host.p, bytes));
    auto one = [&]() -> cudaError_t {
        cudaError_t e = call(temp.p, temp_bytes);
        if (e == cudaSuccess) e = cudaMemcpyAsync(host.p, d_out, bytes, cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        return e;
    };
    PB_TRY(one()); /* warm-up */
    int reps = job.reps > 0 ? job.reps : 1, batch = job.batch > 0 ? job.batch : 1;
    std::vector<double> t;
    for (int r = 0; r < reps; r++) {
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < batch; k++) PB_TRY(one());
        auto t1 = std::chrono::steady_clock::now();
        t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / batch);
    }
    return median(t);
}

/* Copy `bytes` of the device result to job.result (if any), after the stream is idle. */
double deliver(const pb_cub_job &job, double ms, const void *d_out, size_t bytes, const int64_t *d_index)
{
    if (ms < 0) return ms;
    PB_TRY(cudaStreamSynchronize((cudaStream_t)job.stream));
    if (job.result && bytes) PB_TRY(cudaMemcpy(job.result, d_out, bytes, cudaMemcpyDeviceToHost));
    if (job.index && d_index) {
        int64_t i = 0;
        PB_TRY(cudaMemcpy(&i, d_index, sizeof i, cudaMemcpyDeviceToHost));
        *job.index = (uint64_t)i;
    }
    return ms;
}

template <class In, class Out> double run_sum(const pb_cub_job &job, bool host_sync)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const In *in = (const In *)job.in;
    DeviceBuffer out;
    PB_TRY(out.alloc(sizeof(Out)));
    Out *o = (Out *)out.p;
    double ms;
    if (job.n <= UINT32_MAX) {
        uint32_t n = (uint32_t)job.n;
        auto call = [&](void *t, size_t &b) { return cub::DeviceReduce::Sum(t, b, in, o, n, s); };
        ms = host_sync ? time_host_sync(job, call, o, sizeof(Out)) : time_device(job, call);
    } else {
        unsigned long long n = job.n;
        auto call = [&](void *t, size_t &b) { return cub::DeviceReduce::Sum(t, b, in, o, n, s); };
        ms = host_sync ? time_host_sync(job, call, o, sizeof(Out)) : time_device(job, call);
    }
    return deliver(job, ms, o, sizeof(Out), nullptr);
}

template <class T> double run_minmax(const pb_cub_job &job, bool is_max)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const T *in = (const T *)job.in;
    DeviceBuffer out;
    PB_TRY(out.alloc(sizeof(T)));
    T *o = (T *)out.p;
    double ms;
    if (job.n <= UINT32_MAX) {
        uint32_t n = (uint32_t)job.n;
        if (is_max)
            ms = time_device(job, [&](void *t, size_t &b) { return cub::DeviceReduce::Max(t, b, in, o, n, s); });
        else
            ms = time_device(job, [&](void *t, size_t &b) { return cub::DeviceReduce::Min(t, b, in, o, n, s); });
    } else {
        unsigned long long n = job.n;
        if (is_max)
            ms = time_device(job, [&](void *t, size_t &b) { return cub::DeviceReduce::Max(t, b, in, o, n, s); });
        else
            ms = time_device(job, [&](void *t, size_t &b) { return cub::DeviceReduce::Min(t, b, in, o, n, s); });
    }
    return deliver(job, ms, o, sizeof(T), nullptr);
}

/* CUB 3.x's ArgMin/ArgMax overload with separate value and index outputs (the older one,
 * writing a KeyValuePair, is deprecated). */
template <class T> double run_arg(const pb_cub_job &job, bool is_max)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const T *in = (const T *)job.in;
    DeviceBuffer out, idx;
    PB_TRY(out.alloc(sizeof(T)));
    PB_TRY(idx.alloc(sizeof(int64_t)));
    T *o = (T *)out.p;
    int64_t *ix = (int64_t *)idx.p;
    int64_t n = (int64_t)job.n;
    double ms;
    if (is_max)
        ms = time_device(job, [&](void *t, size_t &b) { return cub::DeviceReduce::ArgMax(t, b, in, o, ix, n, s); });
    else
        ms = time_device(job, [&](void *t, size_t &b) { return cub::DeviceReduce::ArgMin(t, b, in, o, ix, n, s); });
    return deliver(job, ms, o, sizeof(T), ix);
}

template <class In, class Out> double run_segsum(const pb_cub_job &job)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const In *in = (const In *)job.in;
    const size_t *begin = job.offsets, *end = job.offsets + 1;
    DeviceBuffer out;
    PB_TRY(out.alloc(job.n_segments * sizeof(Out)));
    Out *o = (Out *)out.p;
    int64_t ns = (int64_t)job.n_segments;
    double ms = time_device(
        job, [&](void *t, size_t &b) { return cub::DeviceSegmentedReduce::Sum(t, b, in, o, ns, begin, end, s); });
    return deliver(job, ms, o, job.n_segments * sizeof(Out), nullptr);
}

/* time_device for a call that takes the element count: `call(temp, temp_bytes, n)` gets n as a
 * 32-bit type when it fits (CUB's 32-bit offsets) and as a 64-bit type otherwise. */
template <class Call> double time_device_n(const pb_cub_job &job, Call call)
{
    if (job.n <= UINT32_MAX) {
        uint32_t n = (uint32_t)job.n;
        return time_device(job, [&](void *t, size_t &b) { return call(t, b, n); });
    }
    unsigned long long n = job.n;
    return time_device(job, [&](void *t, size_t &b) { return call(t, b, n); });
}

template <class T> double run_inclusive_sum(const pb_cub_job &job)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const T *in = (const T *)job.in;
    T *out = (T *)job.out;
    double ms = time_device_n(
        job, [&](void *t, size_t &b, auto n) { return cub::DeviceScan::InclusiveSum(t, b, in, out, n, s); });
    return deliver(job, ms, nullptr, 0, nullptr);
}

/* ExclusiveSum seeds CUB with an input-type zero, so CUB would accumulate u8 in int; a widening
 * scan passes an Out zero as init instead (CUB's accumulator: the type of init + element). */
template <class In, class Out> double run_exclusive_sum(const pb_cub_job &job)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const In *in = (const In *)job.in;
    Out *out = (Out *)job.out;
    double ms = time_device_n(job, [&](void *t, size_t &b, auto n) {
        if constexpr (std::is_same_v<In, Out>)
            return cub::DeviceScan::ExclusiveSum(t, b, in, out, n, s);
        else
            return cub::DeviceScan::ExclusiveScan(t, b, in, out, cuda::std::plus<>{}, Out{0}, n, s);
    });
    return deliver(job, ms, nullptr, 0, nullptr);
}

template <class T> double run_inclusive_max(const pb_cub_job &job)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const T *in = (const T *)job.in;
    T *out = (T *)job.out;
    double ms = time_device_n(job, [&](void *t, size_t &b, auto n) {
        return cub::DeviceScan::InclusiveScan(t, b, in, out, cuda::maximum<>{}, n, s);
    });
    return deliver(job, ms, nullptr, 0, nullptr);
}

template <class T> double run_segscan_sum(const pb_cub_job &job)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const uint32_t *keys = (const uint32_t *)job.keys;
    const T *in = (const T *)job.in;
    T *out = (T *)job.out;
    if (!keys && job.n > 0) return fail_msg("pb_cub_run: PB_CUB_SEGSCAN_SUM needs job.keys");
    double ms = time_device_n(job, [&](void *t, size_t &b, auto n) {
        return cub::DeviceScan::InclusiveSumByKey(t, b, keys, in, out, n, cuda::std::equal_to<>{}, s);
    });
    return deliver(job, ms, nullptr, 0, nullptr);
}

double run_copy(const pb_cub_job &job)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    size_t bytes = job.n * pp_dtype_size((pp_dtype)job.in_type);
    DeviceBuffer dst;
    PB_TRY(dst.alloc(bytes));
    auto call = [&](void *t, size_t &b) -> cudaError_t {
        if (!t) {
            b = 0;
            return cudaSuccess;
        }
        return cudaMemcpyAsync(dst.p, job.in, bytes, cudaMemcpyDeviceToDevice, s);
    };
    /* the size query returns 0 bytes; time_device allocates one byte, so `t` is non-NULL */
    double ms = time_device(job, call);
    return deliver(job, ms, dst.p, job.result ? bytes : 0, nullptr);
}

/* ---- histogram family (issue 4) ---- */

/* HistogramEven of n samples into nbins int counters (levels: float for f32 samples, int for
 * u8, where the bench's bounds are exact). */
template <class Sample, class Level> double run_hist_even(const pb_cub_job &job)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const Sample *in = (const Sample *)job.in;
    DeviceBuffer out;
    PB_TRY(out.alloc(job.nbins * sizeof(int)));
    int *o = (int *)out.p;
    const int levels = (int)job.nbins + 1;
    const Level lo = (Level)job.lower, hi = (Level)job.upper;
    double ms;
    if (job.n <= (size_t)INT32_MAX) {
        const int n = (int)job.n;
        ms = time_device(job, [&](void *t, size_t &b) {
            return cub::DeviceHistogram::HistogramEven(t, b, in, o, levels, lo, hi, n, s);
        });
    } else {
        const long long n = (long long)job.n;
        ms = time_device(job, [&](void *t, size_t &b) {
            return cub::DeviceHistogram::HistogramEven(t, b, in, o, levels, lo, hi, n, s);
        });
    }
    return deliver(job, ms, o, job.nbins * sizeof(int), nullptr);
}

/* HistogramRange with the job's edges as float levels (uploaded before timing). */
double run_hist_range_f32(const pb_cub_job &job)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const float *in = (const float *)job.in;
    const int levels = (int)job.nbins + 1;
    std::vector<float> lv(levels);
    for (int k = 0; k < levels; ++k) lv[k] = (float)job.edges_host[k];
    DeviceBuffer dlev, out;
    PB_TRY(dlev.alloc(levels * sizeof(float)));
    PB_TRY(cudaMemcpy(dlev.p, lv.data(), levels * sizeof(float), cudaMemcpyHostToDevice));
    PB_TRY(out.alloc(job.nbins * sizeof(int)));
    int *o = (int *)out.p;
    const float *lp = (const float *)dlev.p;
    double ms;
    if (job.n <= (size_t)INT32_MAX) {
        const int n = (int)job.n;
        ms = time_device(job, [&](void *t, size_t &b) {
            return cub::DeviceHistogram::HistogramRange(t, b, in, o, levels, lp, n, s);
        });
    } else {
        const long long n = (long long)job.n;
        ms = time_device(job, [&](void *t, size_t &b) {
            return cub::DeviceHistogram::HistogramRange(t, b, in, o, levels, lp, n, s);
        });
    }
    return deliver(job, ms, o, job.nbins * sizeof(int), nullptr);
}

#define PB_PAIR(a, b) ((a) * 16 + (b))
#define PB_KIND_PAIR(k, a, b) ((k) * 256 + PB_PAIR(a, b))

/* ---- compaction family (issue 19) ---- */

struct less_than {
    float c;
    __host__ __device__ bool operator()(const float &x) const { return x < c; }
};

/* The compaction kinds: outputs to job.out (/ out2), the count as int64 to job.count. */
double run_compaction(const pb_cub_job &job)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    int64_t *cnt = (int64_t *)job.count;
    if (!cnt) return fail_msg("pb_cub_run: a compaction needs job.count");
    const less_than lt{(float)job.lower};
    double ms = -1;
    switch (job.kind) {
    case PB_CUB_SELECT_FLAGGED: {
        const float *in = (const float *)job.in;
        const uint8_t *f = (const uint8_t *)job.flags;
        float *out = (float *)job.out;
        ms = time_device_n(job, [&](void *t, size_t &b, auto n) {
            return cub::DeviceSelect::Flagged(t, b, in, f, out, cnt, n, s);
        });
        break;
    }
    case PB_CUB_SELECT_LT: {
        const float *in = (const float *)job.in;
        float *out = (float *)job.out;
        ms = time_device_n(job, [&](void *t, size_t &b, auto n) { return cub::DeviceSelect::If(t, b, in, out, cnt, n, lt, s); });
        break;
    }
    case PB_CUB_PARTITION_LT: {
        const float *in = (const float *)job.in;
        float *out = (float *)job.out;
        ms = time_device_n(job, [&](void *t, size_t &b, auto n) { return cub::DevicePartition::If(t, b, in, out, cnt, n, lt, s); });
        break;
    }
    case PB_CUB_UNIQUE: {
        const uint32_t *in = (const uint32_t *)job.in;
        uint32_t *out = (uint32_t *)job.out;
        ms = time_device_n(job, [&](void *t, size_t &b, auto n) { return cub::DeviceSelect::Unique(t, b, in, out, cnt, n, s); });
        break;
    }
    case PB_CUB_RLE: {
        const uint32_t *in = (const uint32_t *)job.in;
        uint32_t *out = (uint32_t *)job.out, *len = (uint32_t *)job.out2;
        ms = time_device_n(job, [&](void *t, size_t &b, auto n) {
            return cub::DeviceRunLengthEncode::Encode(t, b, in, out, len, cnt, n, s);
        });
        break;
    }
    case PB_CUB_NONZERO: {
        const uint8_t *f = (const uint8_t *)job.in;
        unsigned long long *out = (unsigned long long *)job.out;
        thrust::counting_iterator<unsigned long long> idx(0);
        ms = time_device_n(job, [&](void *t, size_t &b, auto n) {
            return cub::DeviceSelect::Flagged(t, b, idx, f, out, cnt, n, s);
        });
        break;
    }
    default: return fail_msg("pb_cub_run: not a compaction kind");
    }
    return deliver(job, ms, nullptr, 0, nullptr);
}

} // namespace
/* radix sort family (issue 20): CUB's DeviceRadixSort, ascending over every bit, out of place
 * (keys_out, values_out: device buffers of the caller). */
template <class K> double run_sort_keys(const pb_cub_job &job)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const K *in = (const K *)job.in;
    K *out = (K *)job.keys_out;
    double ms = time_device_n(job, [&](void *t, size_t &b, auto n) {
        return cub::DeviceRadixSort::SortKeys(t, b, in, out, n, 0, (int)sizeof(K) * 8, s);
    });
    return deliver(job, ms, nullptr, 0, nullptr);
}

template <class K, class V> double run_sort_pairs(const pb_cub_job &job)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const K *in = (const K *)job.in;
    K *out = (K *)job.keys_out;
    const V *vin = (const V *)job.values_in;
    V *vout = (V *)job.values_out;
    double ms = time_device_n(job, [&](void *t, size_t &b, auto n) {
        return cub::DeviceRadixSort::SortPairs(t, b, in, out, vin, vout, n, 0, (int)sizeof(K) * 8, s);
    });
    return deliver(job, ms, nullptr, 0, nullptr);
}

/* segmented sort (issue 22): u32 keys (and u32 values), ascending, size_t offsets; the counts
 * passed as int (CUB's segmented sort takes 32-bit counts in the versions measured). */
double run_segsort(const pb_cub_job &job, bool pairs)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    if (job.n > (size_t)INT32_MAX || job.n_segments > (size_t)INT32_MAX)
        return fail_msg("pb_cub_run: DeviceSegmentedSort with more than 2^31 - 1 keys or segments");
    const uint32_t *in = (const uint32_t *)job.in;
    uint32_t *out = (uint32_t *)job.keys_out;
    const uint32_t *vin = (const uint32_t *)job.values_in;
    uint32_t *vout = (uint32_t *)job.values_out;
    const size_t *begin = job.offsets, *end = job.offsets + 1;
    const int n = (int)job.n, segs = (int)job.n_segments;
    double ms = time_device(job, [&](void *t, size_t &b) {
        return pairs ? cub::DeviceSegmentedSort::SortPairs(t, b, in, out, vin, vout, n, segs, begin, end, s)
                     : cub::DeviceSegmentedSort::SortKeys(t, b, in, out, n, segs, begin, end, s);
    });
    return deliver(job, ms, nullptr, 0, nullptr);
}

double run_sort_segkey(const pb_cub_job &job)
{
    cudaStream_t s = (cudaStream_t)job.stream;
    const unsigned long long *in = (const unsigned long long *)job.in;
    unsigned long long *out = (unsigned long long *)job.keys_out;
    double ms = time_device_n(job, [&](void *t, size_t &b, auto n) {
        return cub::DeviceRadixSort::SortKeys(t, b, in, out, n, 0, job.end_bit, s);
    });
    return deliver(job, ms, nullptr, 0, nullptr);
}

extern "C" const char *pb_cub_last_error(void) { return g_message; }

extern "C" const char *pb_cub_version(void)
{
    static char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
    return v;
}

extern "C" double pb_cub_run(const pb_cub_job *job)
{
    g_message[0] = '\0';
    if (!job || (!job->in && job->n > 0)) return fail_msg("pb_cub_run: no job or no input");
    const pb_cub_job &j = *job;
    switch (j.kind) {
    case PB_CUB_COPY: return run_copy(j);
    case PB_CUB_SUM:
    case PB_CUB_SUM_HOST: {
        bool hs = j.kind == PB_CUB_SUM_HOST;
        switch (PB_PAIR(j.in_type, j.out_type)) {
        case PB_PAIR(PP_F32, PP_F32): return run_sum<float, float>(j, hs);
        case PB_PAIR(PP_F32, PP_F64): return run_sum<float, double>(j, hs);
        case PB_PAIR(PP_F64, PP_F64): return run_sum<double, double>(j, hs);
        case PB_PAIR(PP_U8, PP_U64): return run_sum<uint8_t, unsigned long long>(j, hs);
        case PB_PAIR(PP_I32, PP_I64): return run_sum<int32_t, long long>(j, hs);
        default: break;
        }
        break;
    }
    case PB_CUB_MIN:
    case PB_CUB_MAX: {
        bool mx = j.kind == PB_CUB_MAX;
        switch (j.in_type) {
        case PP_I32: return run_minmax<int32_t>(j, mx);
        case PP_F32: return run_minmax<float>(j, mx);
        default: break;
        }
        break;
    }
    case PB_CUB_ARGMIN:
    case PB_CUB_ARGMAX: {
        bool mx = j.kind == PB_CUB_ARGMAX;
        switch (j.in_type) {
        case PP_F32: return run_arg<float>(j, mx);
        case PP_F64: return run_arg<double>(j, mx);
        default: break;
        }
        break;
    }
    case PB_CUB_SEGSUM:
        switch (PB_PAIR(j.in_type, j.out_type)) {
        case PB_PAIR(PP_F32, PP_F32): return run_segsum<float, float>(j);
        default: break;
        }
        break;
    case PB_CUB_INCLUSIVE_SUM:
    case PB_CUB_EXCLUSIVE_SUM:
    case PB_CUB_INCLUSIVE_MAX:
    case PB_CUB_SEGSCAN_SUM:
        if (!j.out && j.n > 0) return fail_msg("pb_cub_run: a scan needs job.out");
        switch (PB_KIND_PAIR(j.kind, j.in_type, j.out_type)) {
        case PB_KIND_PAIR(PB_CUB_INCLUSIVE_SUM, PP_F32, PP_F32): return run_inclusive_sum<float>(j);
        case PB_KIND_PAIR(PB_CUB_INCLUSIVE_SUM, PP_F64, PP_F64): return run_inclusive_sum<double>(j);
        case PB_KIND_PAIR(PB_CUB_EXCLUSIVE_SUM, PP_U32, PP_U32): return run_exclusive_sum<uint32_t, uint32_t>(j);
        case PB_KIND_PAIR(PB_CUB_EXCLUSIVE_SUM, PP_U8, PP_U64):
            return run_exclusive_sum<uint8_t, unsigned long long>(j);
        case PB_KIND_PAIR(PB_CUB_INCLUSIVE_MAX, PP_I32, PP_I32): return run_inclusive_max<int32_t>(j);
        case PB_KIND_PAIR(PB_CUB_SEGSCAN_SUM, PP_F32, PP_F32): return run_segscan_sum<float>(j);
        default: break;
        }
        break;
    case PB_CUB_HIST_EVEN:
        switch (j.in_type) {
        case PP_F32: return run_hist_even<float, float>(j);
        case PP_U8: return run_hist_even<unsigned char, int>(j);
        default: break;
        }
        break;
    case PB_CUB_HIST_RANGE:
        if (j.in_type == PP_F32 && j.edges_host) return run_hist_range_f32(j);
        break;
    /* compaction family (issue 19) */
    case PB_CUB_SELECT_FLAGGED:
    case PB_CUB_SELECT_LT:
    case PB_CUB_PARTITION_LT:
    case PB_CUB_UNIQUE:
    case PB_CUB_RLE:
    case PB_CUB_NONZERO: return run_compaction(j);
    /* radix sort family (issue 20) */
    case PB_CUB_SORT_KEYS:
        if (!j.keys_out && j.n > 0) return fail_msg("pb_cub_run: a sort needs job.keys_out");
        switch (j.in_type) {
        case PP_U32: return run_sort_keys<uint32_t>(j);
        case PP_I32: return run_sort_keys<int32_t>(j);
        case PP_F32: return run_sort_keys<float>(j);
        case PP_U64: return run_sort_keys<unsigned long long>(j);
        default: break;
        }
        break;
    case PB_CUB_SORT_PAIRS:
        if ((!j.keys_out || !j.values_in || !j.values_out) && j.n > 0)
            return fail_msg("pb_cub_run: SortPairs needs job.keys_out, values_in and values_out");
        switch (PB_PAIR(j.in_type, j.value_type)) {
        case PB_PAIR(PP_U32, PP_U32): return run_sort_pairs<uint32_t, uint32_t>(j);
        case PB_PAIR(PP_F32, PP_U32): return run_sort_pairs<float, uint32_t>(j);
        default: break;
        }
        break;
    /* segmented sort (issue 22) */
    case PB_CUB_SEGSORT_KEYS:
    case PB_CUB_SEGSORT_PAIRS:
        if (j.in_type != PP_U32 || (j.kind == PB_CUB_SEGSORT_PAIRS && j.value_type != PP_U32)) break;
        if ((!j.keys_out || !j.offsets || (j.kind == PB_CUB_SEGSORT_PAIRS && (!j.values_in || !j.values_out))) &&
            j.n > 0)
            return fail_msg("pb_cub_run: a segmented sort needs job.keys_out, offsets (and values)");
        return run_segsort(j, j.kind == PB_CUB_SEGSORT_PAIRS);
    case PB_CUB_SORT_SEGKEY:
        if (!j.keys_out && j.n > 0) return fail_msg("pb_cub_run: SORT_SEGKEY needs job.keys_out");
        return run_sort_segkey(j);
    }
    snprintf(g_message, sizeof g_message, "pb_cub_run: kind %d with %s -> %s is not instantiated in cub_peer.cu",
             (int)j.kind, pp_dtype_name((pp_dtype)j.in_type) ? pp_dtype_name((pp_dtype)j.in_type) : "?",
             pp_dtype_name((pp_dtype)j.out_type) ? pp_dtype_name((pp_dtype)j.out_type) : "?");
    return -1.0;
}
