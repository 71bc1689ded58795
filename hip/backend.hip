/*
 * backend.hip -- the HIP backend's table: device discovery, contexts, streams and memory.
 * The kernel families live in their own files (reduce.hip, ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static int hip_device_count(void)
{
    int n = 0;
    if (hipGetDeviceCount(&n) != hipSuccess) {
        (void)hipGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

static pp_status read_device(pp_context *ctx, const hipDeviceProp_t &prop, pp_hip_device *d)
{
    int v = 0;
    d->ordinal = ctx->device;
    d->cu_count = prop.multiProcessorCount;
    d->wave = prop.warpSize;
#if defined(PP_PORT_NVIDIA)
    PP_HIP_TRY(ctx, hipDeviceGetAttribute(&v, hipDeviceAttributeSharedMemPerBlockOptin, ctx->device));
    d->smem_block = v;
    d->cc_major = prop.major;
    d->cc_minor = prop.minor;
    d->clusters = prop.major >= 9;
    snprintf(d->arch, sizeof d->arch, "sm_%d%d", prop.major, prop.minor);
#else
    PP_HIP_TRY(ctx, hipDeviceGetAttribute(&v, hipDeviceAttributeMaxSharedMemoryPerBlock, ctx->device));
    d->smem_block = v;
    d->cc_major = d->cc_minor = 0;
    d->clusters = 0;
    snprintf(d->arch, sizeof d->arch, "%s", prop.gcnArchName);
    char *colon = strchr(d->arch, ':'); /* "gfx90a:sramecc+:xnack-" */
    if (colon) *colon = '\0';
#endif
    PP_HIP_TRY(ctx, hipDeviceGetAttribute(&v, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, ctx->device));
    if (d->smem_block <= 0) d->smem_block = 48 << 10;
    d->smem_sm = v > 0 ? v : d->smem_block;
    return PP_OK;
}

static pp_status hip_context_init(pp_context *ctx)
{
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    hipDeviceProp_t prop;
    PP_HIP_TRY(ctx, hipGetDeviceProperties(&prop, ctx->device));
    pp_hip_state *st = (pp_hip_state *)calloc(1, sizeof *st);
    if (!st) return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY, "context: out of host memory");
    snprintf(ctx->device_name, sizeof ctx->device_name, "%s", prop.name);
    pp_status fs = read_device(ctx, prop, &st->dev);
    if (fs != PP_OK) {
        free(st);
        return fs;
    }
    hipError_t e = hipStreamCreateWithFlags(&st->own_stream, hipStreamNonBlocking);
    if (e != hipSuccess) {
        free(st);
        return pp__fail(ctx, PP_ERROR_DEVICE, "context: %s", hipGetErrorString(e));
    }
    st->stream = st->own_stream;
    st->tune = pp_reduce_tune_default;
    ctx->backend_state = st;
    ctx->stream = st->stream;
    return PP_OK;
}

static void hip_context_fini(pp_context *ctx)
{
    pp_hip_state *st = pp_hip(ctx);
    if (!st) return;
    (void)hipSetDevice(ctx->device);
    (void)hipStreamSynchronize(st->stream);
    (void)hipStreamDestroy(st->own_stream);
    if (st->host_staging) (void)hipHostFree(st->host_staging);
    free(st);
    ctx->backend_state = NULL;
}

static pp_status hip_set_stream(pp_context *ctx, void *stream)
{
    pp_hip_state *st = pp_hip(ctx);
    st->stream = stream ? (hipStream_t)stream : st->own_stream;
    ctx->stream = st->stream;
    return PP_OK;
}

static pp_status hip_synchronize(pp_context *ctx)
{
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    PP_HIP_TRY(ctx, hipStreamSynchronize(pp_hip(ctx)->stream));
    return PP_OK;
}

pp_status pp_hip_staging(pp_context *ctx, void **staging)
{
    pp_hip_state *st = pp_hip(ctx);
    if (!st->host_staging) {
        if (pp__alloc_fails(ctx))
            return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY,
                            "staging: cannot allocate %d bytes of pinned host memory (failed on purpose: "
                            "PP_OPTION_FAIL_ALLOC)",
                            PP_HIP_STAGING_BYTES);
        hipError_t e = hipHostMalloc(&st->host_staging, PP_HIP_STAGING_BYTES, 0);
        if (e != hipSuccess) {
            (void)hipGetLastError();
            st->host_staging = NULL;
            return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY, "staging: cannot allocate %d bytes of pinned host memory: %s",
                            PP_HIP_STAGING_BYTES, hipGetErrorString(e));
        }
    }
    *staging = st->host_staging;
    return PP_OK;
}

static pp_status hip_mem_alloc(pp_context *ctx, void **ptr, size_t bytes)
{
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    hipError_t e = hipMalloc(ptr, bytes);
    if (e != hipSuccess) {
        (void)hipGetLastError();
        *ptr = NULL;
        return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes of device memory: %s",
                        bytes, hipGetErrorString(e));
    }
    return PP_OK;
}

static pp_status hip_mem_free(pp_context *ctx, void *ptr)
{
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    PP_HIP_TRY(ctx, hipFree(ptr));
    return PP_OK;
}

/* Pinned host memory for staging (pp_host_malloc). */
static pp_status hip_host_alloc(pp_context *ctx, void **ptr, size_t bytes)
{
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    hipError_t e = hipHostMalloc(ptr, bytes, 0);
    if (e != hipSuccess) {
        (void)hipGetLastError();
        *ptr = NULL;
        return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes of pinned host memory: %s", bytes,
                        hipGetErrorString(e));
    }
    return PP_OK;
}

static pp_status hip_host_free(pp_context *ctx, void *ptr)
{
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    PP_HIP_TRY(ctx, hipHostFree(ptr));
    return PP_OK;
}

static pp_status hip_mem_copy(pp_context *ctx, void *dst, const void *src, size_t bytes, pp_copy_kind kind)
{
    pp_hip_state *st = pp_hip(ctx);
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    switch (kind) {
    case PP_COPY_HOST_TO_CONTEXT:
        PP_HIP_TRY(ctx, hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice, st->stream));
        PP_HIP_TRY(ctx, hipStreamSynchronize(st->stream));
        break;
    case PP_COPY_CONTEXT_TO_HOST:
        PP_HIP_TRY(ctx, hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, st->stream));
        PP_HIP_TRY(ctx, hipStreamSynchronize(st->stream));
        break;
    case PP_COPY_CONTEXT_TO_CONTEXT:
        PP_HIP_TRY(ctx, hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, st->stream));
        break;
    }
    return PP_OK;
}

static pp_status hip_mem_set(pp_context *ctx, void *ptr, int value, size_t bytes)
{
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    PP_HIP_TRY(ctx, hipMemsetAsync(ptr, value, bytes, pp_hip(ctx)->stream));
    return PP_OK;
}

/* Device, managed and registered/mapped host memory are usable by kernels; memory the
 * runtime does not know is plain host memory. For a plain device allocation, its extent too
 * (pp_alloc_extent in port.h); other memory reports none. */
static pp_ptr_kind hip_pointer_kind(pp_context *ctx, const void *ptr, const void **base, size_t *size)
{
    *base = NULL;
    *size = 0;
    hipPointerAttribute_t attr;
    memset(&attr, 0, sizeof attr);
    hipError_t e = hipPointerGetAttributes(&attr, ptr);
    if (e != hipSuccess) {
        (void)hipGetLastError(); /* HIP reports unknown host memory as an error */
        return PP_PTR_HOST;
    }
#if defined(PP_PORT_NVIDIA)
    if (attr.type == cudaMemoryTypeUnregistered) return PP_PTR_HOST;
    const bool device_alloc = attr.type == cudaMemoryTypeDevice;
#else
    if (attr.memoryType == hipMemoryTypeHost && attr.hostPointer && !attr.devicePointer) return PP_PTR_HOST;
    const bool device_alloc = attr.memoryType == hipMemoryTypeDevice;
#endif
    if (device_alloc && pp_hip_use_device(ctx) == hipSuccess) {
        void *b = nullptr;
        size_t s = 0;
        if (pp_alloc_extent(&b, &s, ptr) == hipSuccess) {
            *base = b;
            *size = s;
        } else {
            (void)hipGetLastError();
        }
    }
    return PP_PTR_DEVICE;
}

/* Host-only: clang would otherwise also emit the table as device data and fail the device
 * link on its host function pointers. Labelled as ggml labels its backend interfaces (C++17
 * has no designated initialisers): keep the order of struct pp_backend_ops. */
#if !defined(__HIP_DEVICE_COMPILE__)
extern "C" const struct pp_backend_ops pp_hip_backend = {
    /* .name             = */ "hip",
    /* .device_count     = */ hip_device_count,
    /* .context_init     = */ hip_context_init,
    /* .context_fini     = */ hip_context_fini,
    /* .set_stream       = */ hip_set_stream,
    /* .synchronize      = */ hip_synchronize,
    /* .mem_alloc        = */ hip_mem_alloc,
    /* .mem_free         = */ hip_mem_free,
    /* .mem_copy         = */ hip_mem_copy,
    /* .mem_set          = */ hip_mem_set,
    /* .pointer_kind     = */ hip_pointer_kind,
    /* .reduce           = */ pp_hip_reduce,
    /* .argreduce        = */ pp_hip_argreduce,
    /* .segmented_reduce = */ pp_hip_segmented_reduce,
    /* .scan             = */ pp_hip_scan,
    /* .histogram        = */ pp_hip_histogram,
    /* .reduce_by_index  = */ pp_hip_reduce_by_index,
    /* compaction family (issue 19) */
    /* .compact          = */ pp_hip_compact,
    /* radix sort family (issue 20) */
    /* .sort             = */ pp_hip_sort,
    /* summed-area table, axis scans, transpose (issue 21) */
    /* .grid_scan        = */ pp_hip_grid_scan,
    /* .transpose        = */ pp_hip_transpose,
    /* segmented sort (issue 22) */
    /* .segmented_sort   = */ pp_hip_segmented_sort,
    /* host memory for staging (issue 23) */
    /* .host_alloc       = */ hip_host_alloc,
    /* .host_free        = */ hip_host_free,
};
#endif
