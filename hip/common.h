/*
 * common.h -- what the HIP backend's translation units share: the per-context state, error
 * reporting, and the per-target tuning table. Host-side; includes port.h.
 */
#ifndef PP_HIP_COMMON_H
#define PP_HIP_COMMON_H

#include <string.h>

#include <atomic>

#include "internal.h"
#include "port.h"

#include "tuning_reduce.h"

/* Facts about the context's device, read once when the context is created; host code asks
 * this, never a macro of the host pass. */
struct pp_hip_device {
    int ordinal;              /* the runtime's index of the device (the context's device) */
    int wave;                 /* the device's wave width (run time) */
    int cu_count;             /* multiprocessors / compute units */
    int smem_block;           /* shared memory a block may use (opted in, on NVIDIA) */
    int smem_sm;              /* shared memory per multiprocessor */
    int cc_major, cc_minor;   /* NVIDIA compute capability (0 on AMD) */
    int clusters;             /* thread-block clusters can be launched (NVIDIA sm_90 and newer) */
    char arch[64];            /* "sm_90", "gfx90a", ... */
};

struct pp_hip_state {
    pp_reduce_tuning tune;    /* reduce.hip: the device's row (tuning_reduce.h), chosen on first use */
    pp_hip_device dev;
    hipStream_t own_stream;   /* created with the context */
    hipStream_t stream;       /* where calls go: own_stream or the caller's */
    void *host_staging;       /* pinned host memory for scalar results (PP_RESULT_HOST); NULL
                                 until the first call that needs it (pp_hip_staging) */
};

/* Bytes of the context's pinned staging buffer. */
#define PP_HIP_STAGING_BYTES 256
/* The context's pinned staging buffer (PP_HIP_STAGING_BYTES), allocated by the first call
 * that needs it, through the allocation-failure hook. */
pp_status pp_hip_staging(pp_context *ctx, void **staging);

static inline pp_hip_state *pp_hip(pp_context *ctx) { return (pp_hip_state *)ctx->backend_state; }

/* The row a family's tuning table (tuning_*.h) keeps for the device: NVIDIA by compute
 * capability ("sm_90" from 9.0 on, "sm_80" below), AMD by the architecture's name ("gfx940"
 * for gfx94x, "gfx90a" for other gfx9, "gfx1030" for gfx10 and later). */
static inline const char *pp_hip_tuning_target(const pp_hip_device *d)
{
    if (d->cc_major > 0) return d->cc_major >= 9 ? "sm_90" : "sm_80";
    if (strncmp(d->arch, "gfx94", 5) == 0) return "gfx940";
    if (strncmp(d->arch, "gfx9", 4) == 0) return "gfx90a";
    return "gfx1030";
}

/* Fail with PP_ERROR_DEVICE naming the runtime call and its error string. */
#define PP_HIP_TRY(ctx, call)                                                                   \
    do {                                                                                        \
        hipError_t e_ = (call);                                                                 \
        if (e_ != hipSuccess)                                                                   \
            return pp__fail((ctx), PP_ERROR_DEVICE, "%s: %s (%s:%d)", #call, hipGetErrorString(e_), \
                            __FILE__, __LINE__);                                                \
    } while (0)

/* After a kernel launch: a launch error (bad configuration, no image for the device). */
#define PP_HIP_CHECK_LAUNCH(ctx, what) PP_HIP_TRY(ctx, (hipGetLastError()))

/* Make the context's device current for this host thread; asks first, since reading the
 * current device is far cheaper than setting it and most programs use one device. */
static inline hipError_t pp_hip_use_device(pp_context *ctx)
{
    int cur = -1;
    if (hipGetDevice(&cur) == hipSuccess && cur == ctx->device) return hipSuccess;
    return hipSetDevice(ctx->device);
}

/* The row of a family's tuning table (an array of structs whose first member `target` names
 * the row) for a device; the first row where none is named for it. */
template <typename Row, size_t N>
static inline const Row *pp_hip_tuning_pick(const Row (&table)[N], const pp_hip_device *d)
{
    const char *want = pp_hip_tuning_target(d);
    for (const Row &r : table)
        if (strcmp(r.target, want) == 0) return &r;
    return &table[0];
}

/* A grid-stride launch of `block` threads a block over n work items: a block per `block` items,
 * at most 8 blocks a CU / SM (enough to fill the device a few times over), at least one. */
static inline unsigned pp_hip_stride_grid(const pp_hip_state *hs, uint64_t n, int block)
{
    const uint64_t need = (n + (uint64_t)block - 1) / (uint64_t)block, cap = (uint64_t)hs->dev.cu_count * 8;
    return (unsigned)(need < cap ? (need ? need : 1) : cap);
}

/* Per-device answers cached per kernel (or per instantiation), written and read by any host
 * thread (contexts in several threads, on several devices): relaxed atomics, 0 = not asked yet.
 * Devices past the table are asked on every call. */
constexpr int PP_HIP_CACHE_DEVICES = 64;
template <typename Ask>
static inline int pp_hip_cached_per_device(std::atomic<int> (&cache)[PP_HIP_CACHE_DEVICES], int device, Ask ask)
{
    if (device < 0 || device >= PP_HIP_CACHE_DEVICES) return ask();
    int v = cache[device].load(std::memory_order_relaxed);
    if (v == 0) {
        v = ask();
        cache[device].store(v, std::memory_order_relaxed);
    }
    return v;
}

/* Whether KERNEL may be launched as a programmatic dependent (pp_hip_launch_pdl: the grid may
 * start while the previous kernel of the stream finishes; port.h's pp_grid_dep_wait keeps that
 * safe): NVIDIA, a device of sm_90 or newer running an image compiled for sm_90 or newer, so
 * that it holds the griddepcontrol instructions (an older image JIT-compiled for the device
 * lacks them). Asked once per kernel and device. Elsewhere (AMD) never. */
template <auto KERNEL> static inline bool pp_hip_pdl_ready(const pp_hip_device &dev)
{
#if defined(PP_PORT_NVIDIA)
    static std::atomic<int> ready[PP_HIP_CACHE_DEVICES]; /* 1 no, 2 yes */
    if (dev.cc_major < 9) return false;
    return pp_hip_cached_per_device(ready, dev.ordinal, [] {
        hipFuncAttributes fa;
        if (hipFuncGetAttributes(&fa, reinterpret_cast<const void *>(KERNEL)) != hipSuccess) {
            (void)hipGetLastError();
            fa.ptxVersion = 0;
        }
        return fa.ptxVersion >= 90 ? 2 : 1;
    }) == 2;
#else
    (void)dev;
    return false;
#endif
}

/* Launches `kernel` (grid x block threads, no dynamic shared memory) on stream s as a
 * programmatic dependent of the stream's previous kernel (only where pp_hip_pdl_ready said yes;
 * elsewhere an ordinary launch). Returns the launch's error. */
template <typename... P, typename... A>
static inline hipError_t pp_hip_launch_pdl(void (*kernel)(P...), unsigned grid, unsigned block, hipStream_t s, A... args)
{
#if defined(PP_PORT_NVIDIA)
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.gridDim = dim3(grid, 1, 1);
    cfg.blockDim = dim3(block, 1, 1);
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, kernel, args...);
#else
    kernel<<<grid, block, 0, s>>>(args...);
    return hipGetLastError();
#endif
}

/* Round x up to a multiple of 256 bytes (scratch sub-allocations). */
static inline size_t pp_align256(size_t x) { return (x + 255) & ~(size_t)255; }

pp_status pp_hip_reduce(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_hip_argreduce(pp_context *ctx, const pp_argreduce_args *a);
pp_status pp_hip_segmented_reduce(pp_context *ctx, const pp_segreduce_args *a);
pp_status pp_hip_scan(pp_context *ctx, const pp_scan_args *a);

/* histogram.hip (issue 4) */
pp_status pp_hip_histogram(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_hip_reduce_by_index(pp_context *ctx, const pp_reduce_by_index_args *a);

/* compaction family (issue 19) */
pp_status pp_hip_compact(pp_context *ctx, const pp_compact_args *a);


/* sort.hip (issue 20) */
pp_status pp_hip_sort(pp_context *ctx, const pp_sort_args *a);
/* sat.hip (issue 21) */
pp_status pp_hip_grid_scan(pp_context *ctx, const pp_grid_args *a);
pp_status pp_hip_transpose(pp_context *ctx, const pp_transpose_args *a);
/* segsort.hip (issue 22) */
pp_status pp_hip_segmented_sort(pp_context *ctx, const pp_segsort_args *a);

#endif
