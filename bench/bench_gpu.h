/*
 * bench_gpu.h -- the C face of the bench's GPU-only helpers, so that parprim_bench.c stays
 * plain C11 with no HIP or CUDA types.
 *
 *   gpu_timer.hip  event timing on a stream (PB_HAVE_GPU_TIMER; HIP on AMD, CUDA on NVIDIA
 *                  through hip/port.h)
 *   cub_peer.cu    CUB's device-wide reductions, scans and histograms timed the same way
 *                  (PB_HAVE_CUB; NVIDIA only)
 *   atomic_peer.hip a plain global-atomics reduce-by-index kernel, the peer of pp_reduce_by_index
 *                  (PB_HAVE_GPU_TIMER: every GPU build)
 *
 * Streams are passed as void * (what pp_context_stream returns).
 */
#ifndef PB_BENCH_GPU_H
#define PB_BENCH_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- event timer (gpu_timer.hip) ------------------------------------------------------
 * A pair of events recorded on `stream`. pb_timer_ms waits for the stop event and returns
 * the milliseconds between start and stop. Functions returning int give 0 on success;
 * pb_timer_ms gives a negative value on failure. pb_gpu_last_error describes the last
 * failure of any pb_timer_* or pb_gpu_* call ("" if none). */
typedef struct pb_timer pb_timer;

pb_timer *pb_timer_create(void *stream);
int pb_timer_start(pb_timer *t);
int pb_timer_stop(pb_timer *t);
double pb_timer_ms(pb_timer *t);
void pb_timer_destroy(pb_timer *t);
const char *pb_gpu_last_error(void);

/* ---- CUB peer (cub_peer.cu, NVIDIA only) ----------------------------------------------
 * One job runs a CUB device-wide primitive on device data already in place: the temporary
 * storage and the output (scans: the caller's `out`) are allocated once, outside the timed
 * region; one untimed warm-up call; then `reps` timed repetitions, each of `batch` calls back
 * to back between two events on `stream` (PB_CUB_SUM_HOST: each call is followed by a copy
 * of the result to pinned host memory and a stream synchronization, timed with the host
 * clock). The median per-call time is returned in milliseconds, negative on failure (message
 * from pb_cub_last_error). After timing, the last result is copied to `result` (host memory:
 * one element of out_type, or n_segments elements for PB_CUB_SEGSUM, or n elements of
 * in_type for PB_CUB_COPY) and, for the arg kinds, its index to `index`; NULL skips that.
 * Scans leave their n outputs in `out` (device memory) and ignore `result`.
 * dtypes are pp_dtype values. */
typedef enum pb_cub_kind {
    PB_CUB_COPY = 1,    /* cudaMemcpyAsync device to device of n elements of in_type */
    PB_CUB_SUM = 2,     /* DeviceReduce::Sum, in_type -> out_type (widening allowed) */
    PB_CUB_MIN = 3,     /* DeviceReduce::Min */
    PB_CUB_MAX = 4,     /* DeviceReduce::Max */
    PB_CUB_ARGMIN = 5,  /* DeviceReduce::ArgMin (value and int64 index outputs) */
    PB_CUB_ARGMAX = 6,  /* DeviceReduce::ArgMax (value and int64 index outputs) */
    PB_CUB_SEGSUM = 7,  /* DeviceSegmentedReduce::Sum over size_t offsets */
    PB_CUB_SUM_HOST = 8, /* DeviceReduce::Sum + copy of the result to host + synchronize */
    PB_CUB_INCLUSIVE_SUM = 9,  /* DeviceScan::InclusiveSum, in_type == out_type */
    PB_CUB_EXCLUSIVE_SUM = 10, /* DeviceScan::ExclusiveSum; widening (u8 -> u64, ...):
                                * ExclusiveScan with cuda::std::plus<> and an out_type zero
                                * as init, so that CUB accumulates in out_type */
    PB_CUB_INCLUSIVE_MAX = 11, /* DeviceScan::InclusiveScan with cuda::maximum<> */
    PB_CUB_SEGSCAN_SUM = 12,   /* DeviceScan::InclusiveSumByKey, keys: uint32 segment ids */
    /* histogram family (issue 4): nbins int counters to `result` */
    PB_CUB_HIST_EVEN = 13, /* DeviceHistogram::HistogramEven, nbins + 1 levels over [lower, upper) */
    PB_CUB_HIST_RANGE = 14, /* DeviceHistogram::HistogramRange with edges_host (nbins + 1) as levels */
    /* compaction family (issue 19): outputs to `out` (and `out2`), the count (int64) to the
     * device pointer `count` */
    PB_CUB_SELECT_FLAGGED = 15, /* DeviceSelect::Flagged, f32 values, u8 `flags` */
    PB_CUB_SELECT_LT = 16,      /* DeviceSelect::If, f32, x < lower */
    PB_CUB_PARTITION_LT = 17,   /* DevicePartition::If, f32, x < lower (rejected ones reversed) */
    PB_CUB_UNIQUE = 18,         /* DeviceSelect::Unique, u32 */
    PB_CUB_RLE = 19,            /* DeviceRunLengthEncode::Encode, u32 values to out, u32 lengths to out2 */
    PB_CUB_NONZERO = 20,        /* DeviceSelect::Flagged over a counting iterator: u64 indices of
                                 * the nonzero u8 elements of `in` (the flags) */
    /* radix sort family (issue 20): ascending, every bit; in -> keys_out (n of in_type) */
    PB_CUB_SORT_KEYS = 21,  /* DeviceRadixSort::SortKeys */
    PB_CUB_SORT_PAIRS = 22, /* DeviceRadixSort::SortPairs, values_in -> values_out (n of value_type) */
    /* segmented sort (issue 22): u32 keys in -> keys_out, ascending, n_segments segments of
     * `offsets` (begin offsets[s], end offsets[s + 1]) */
    PB_CUB_SEGSORT_KEYS = 23,  /* DeviceSegmentedSort::SortKeys */
    PB_CUB_SEGSORT_PAIRS = 24, /* DeviceSegmentedSort::SortPairs, u32 values_in -> values_out */
    PB_CUB_SORT_SEGKEY = 25    /* DeviceRadixSort::SortKeys of n u64 keys `in` (segment << 32 | key)
                                * over bits [0, end_bit) into keys_out */
} pb_cub_kind;

typedef struct pb_cub_job {
    pb_cub_kind kind;
    int in_type;            /* pp_dtype */
    int out_type;           /* pp_dtype; ignored by COPY, MIN/MAX and ARG* (= in_type) */
    const void *in;         /* device pointer, n elements of in_type */
    size_t n;
    const size_t *offsets;  /* SEGSUM: device pointer, n_segments + 1 entries */
    size_t n_segments;
    void *out;              /* scans: device pointer, n elements of out_type */
    const void *keys;       /* SEGSCAN_SUM: device pointer, n uint32 keys (equal within a
                             * segment, different between neighbouring segments) */
    void *stream;
    int reps;               /* timed repetitions (>= 1) */
    int batch;              /* calls per repetition (>= 1) */
    void *result;           /* host; may be NULL */
    uint64_t *index;        /* host; ARG* only; may be NULL */
    /* HIST_*: bins; levels are float for f32 samples and int for u8 samples (the values the
     * bench uses convert exactly) */
    size_t nbins;
    double lower, upper;       /* HIST_EVEN */
    const double *edges_host;  /* HIST_RANGE: nbins + 1 edges in host memory (uploaded untimed) */
    /* compaction family (issue 19) */
    const void *flags;         /* SELECT_FLAGGED: device, n uint8 flags */
    void *out2;                /* RLE: device, the lengths */
    void *count;               /* compaction kinds: device, the count (written as int64) */
    /* radix sort family (issue 20): device pointers */
    void *keys_out;            /* SORT_*: n keys of in_type */
    const void *values_in;     /* SORT_PAIRS: n values of value_type */
    void *values_out;
    int value_type;            /* SORT_PAIRS: pp_dtype */
    /* segmented sort (issue 22) */
    int end_bit;               /* SORT_SEGKEY: the bits sorted */
} pb_cub_job;

double pb_cub_run(const pb_cub_job *job);
const char *pb_cub_last_error(void);
/* CUB's version, "3.0.1" (CUB_VERSION of the build). */
const char *pb_cub_version(void);

/* ---- reduce-by-index peer (atomic_peer.hip; every GPU build) ---------------------------
 * A plain kernel, out[indices[i]] += values[i] with one global atomicAdd per element (a
 * grid-stride loop), timed like the CUB jobs: `reps` repetitions of `batch` back-to-back
 * launches between events on `stream`, median per launch in ms (negative on failure, message
 * from pb_rbi_last_error). `out` (n_out floats, device) accumulates across the timed launches;
 * afterwards it is zeroed and the kernel run once more, and the n_out sums copied to `result`
 * (host) if not NULL. Indices >= n_out are skipped. */
typedef struct pb_rbi_job {
    const float *values;     /* device, n */
    const uint32_t *indices; /* device, n */
    size_t n, n_out;
    void *stream;
    int reps, batch;
    float *result;           /* host, n_out; may be NULL */
} pb_rbi_job;

double pb_rbi_atomic_run(const pb_rbi_job *job);
const char *pb_rbi_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
