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
    if (e == hipSuccess) e = hipHostMalloc(&st->host_staging, 256, 0);
    if (e != hipSuccess) {
        if (st->own_stream) hipStreamDestroy(st->own_stream);
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
    hipSetDevice(ctx->device);
    hipStreamSynchronize(st->stream);
    hipStreamDestroy(st->own_stream);
    hipHostFree(st->host_staging);
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
 * runtime does not know is plain host memory. */
static pp_ptr_kind hip_pointer_kind(pp_context *ctx, const void *ptr)
{
    (void)ctx;
    hipPointerAttribute_t attr;
    memset(&attr, 0, sizeof attr);
    hipError_t e = hipPointerGetAttributes(&attr, ptr);
    if (e != hipSuccess) {
        (void)hipGetLastError(); /* HIP reports unknown host memory as an error */
        return PP_PTR_HOST;
    }
#if defined(PP_PORT_NVIDIA)
    if (attr.type == cudaMemoryTypeUnregistered) return PP_PTR_HOST;
    return PP_PTR_DEVICE;
#else
    return attr.memoryType == hipMemoryTypeHost && attr.hostPointer && !attr.devicePointer
               ? PP_PTR_HOST
               : PP_PTR_DEVICE;
#endif
}

/* Host-only: clang would otherwise also emit the table as device data and fail the device
 * link on its host function pointers. */
#if !defined(__HIP_DEVICE_COMPILE__)
extern "C" const struct pp_backend_ops pp_hip_backend = {
    "hip",
    hip_device_count,
    hip_context_init,
    hip_context_fini,
    hip_set_stream,
    hip_synchronize,
    hip_mem_alloc,
    hip_mem_free,
    hip_mem_copy,
    hip_mem_set,
    hip_pointer_kind,
    pp_hip_reduce,
    pp_hip_argreduce,
    pp_hip_segmented_reduce,
    pp_hip_scan,
    /* histogram family (issue 4) */
    pp_hip_histogram,
    pp_hip_reduce_by_index,
};
#endif
