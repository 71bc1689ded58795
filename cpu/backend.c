/*
 * backend.c -- the CPU (OpenMP) backend's ops table: device, context and host memory.
 * The primitives live in one file per family (cpu/reduce.c, ...), declared in cpu/cpu.h.
 * On this backend the context's memory space is host memory and every call is complete
 * when it returns, so there is no stream and synchronize has nothing to wait for.
 */
#include <ctype.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

/* Copies and fills at least this large are split over the OpenMP threads: one core does not
 * saturate the memory bus, and below this the fork/join costs more than it saves. */
#define PP_CPU_PARALLEL_MEM_BYTES ((size_t)4 << 20)
#define PP_CPU_ALIGN ((size_t)256)

static int cpu_device_count(void) { return 1; }

/* The "model name" of /proc/cpuinfo (x86; other architectures may lack it), else "". */
static void cpu_model_name(char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *p = strchr(line, ':');
        if (!p) continue;
        for (++p; *p && isspace((unsigned char)*p); ++p) {}
        size_t len = strlen(p);
        while (len > 0 && isspace((unsigned char)p[len - 1])) --len;
        if (len >= size) len = size - 1;
        memcpy(buf, p, len);
        buf[len] = '\0';
        break;
    }
    fclose(f);
}

static pp_status cpu_context_init(pp_context *ctx)
{
    char model[192];
    cpu_model_name(model, sizeof model);
    int threads = omp_get_max_threads();
    snprintf(ctx->device_name, sizeof ctx->device_name, "%s (%d OpenMP thread%s)",
             model[0] ? model : "CPU", threads, threads == 1 ? "" : "s");
    ctx->stream = NULL;
    ctx->backend_state = NULL;
    return PP_OK;
}

static void cpu_context_fini(pp_context *ctx) { (void)ctx; }

static pp_status cpu_set_stream(pp_context *ctx, void *stream)
{
    if (stream != NULL)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "pp_context_set_stream: argument 'stream' must be NULL on the CPU backend "
                        "(it has no streams; every call completes before it returns)");
    ctx->stream = NULL;
    return PP_OK;
}

static pp_status cpu_synchronize(pp_context *ctx)
{
    (void)ctx;
    return PP_OK;
}

static pp_status cpu_mem_alloc(pp_context *ctx, void **ptr, size_t bytes)
{
    *ptr = NULL;
    if (bytes == 0) return PP_OK;
    /* aligned_alloc wants a size that is a multiple of the alignment. */
    if (bytes > SIZE_MAX - (PP_CPU_ALIGN - 1))
        return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY, "pp_malloc: %zu bytes is too large to allocate",
                        bytes);
    size_t rounded = (bytes + PP_CPU_ALIGN - 1) & ~(PP_CPU_ALIGN - 1);
    void *p = aligned_alloc(PP_CPU_ALIGN, rounded);
    if (!p)
        return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY, "pp_malloc: cannot allocate %zu bytes of host memory",
                        bytes);
    *ptr = p;
    return PP_OK;
}

static pp_status cpu_mem_free(pp_context *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
    return PP_OK;
}

/* Byte range [lo, hi) of the slice that thread t of nt handles in a split of `bytes`, cut at
 * 64-byte (cache line) multiples. */
static void mem_slice(size_t bytes, int t, int nt, size_t *lo, size_t *hi)
{
    size_t lines = (bytes + 63) / 64;
    size_t per = lines / (size_t)nt, extra = lines % (size_t)nt;
    size_t first = (size_t)t * per + ((size_t)t < extra ? (size_t)t : extra);
    size_t count = per + ((size_t)t < extra ? 1 : 0);
    *lo = first * 64 < bytes ? first * 64 : bytes;
    *hi = (first + count) * 64 < bytes ? (first + count) * 64 : bytes;
}

/* Copy `bytes` from src to dst (src != NULL) or fill them with `value` (src == NULL), split
 * over the OpenMP threads where that pays. */
static void copy_or_fill(void *dst, const void *src, int value, size_t bytes)
{
    const int serial = bytes < PP_CPU_PARALLEL_MEM_BYTES || omp_get_max_threads() == 1;
#pragma omp parallel if (!serial)
    {
        size_t lo, hi;
        mem_slice(bytes, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
        if (hi > lo) {
            if (src) memcpy((char *)dst + lo, (const char *)src + lo, hi - lo);
            else memset((char *)dst + lo, value, hi - lo);
        }
    }
}

static pp_status cpu_mem_copy(pp_context *ctx, void *dst, const void *src, size_t bytes,
                              pp_copy_kind kind)
{
    (void)ctx;
    (void)kind; /* every space is host memory */
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    if (d < s + bytes && s < d + bytes) { /* overlapping: memmove, serially */
        memmove(dst, src, bytes);
        return PP_OK;
    }
    copy_or_fill(dst, src, 0, bytes);
    return PP_OK;
}

static pp_status cpu_mem_set(pp_context *ctx, void *ptr, int value, size_t bytes)
{
    (void)ctx;
    copy_or_fill(ptr, NULL, value, bytes);
    return PP_OK;
}

/* Every pointer is a host pointer here and the host is the context's space: nothing to
 * reject, and the C library does not tell an allocation's extent. */
static pp_ptr_kind cpu_pointer_kind(pp_context *ctx, const void *ptr, const void **base, size_t *size)
{
    (void)ctx;
    (void)ptr;
    *base = NULL;
    *size = 0;
    return PP_PTR_UNKNOWN;
}

const struct pp_backend_ops pp_cpu_backend = {
    .name = "cpu",
    .device_count = cpu_device_count,
    .context_init = cpu_context_init,
    .context_fini = cpu_context_fini,
    .set_stream = cpu_set_stream,
    .synchronize = cpu_synchronize,
    .mem_alloc = cpu_mem_alloc,
    .mem_free = cpu_mem_free,
    .mem_copy = cpu_mem_copy,
    .mem_set = cpu_mem_set,
    .pointer_kind = cpu_pointer_kind,
    .reduce = pp__cpu_reduce,
    .argreduce = pp__cpu_argreduce,
    .segmented_reduce = pp__cpu_segmented_reduce,
    .scan = pp__cpu_scan,

    /* histogram family (issue 4) */
    .histogram = pp__cpu_histogram,
    .reduce_by_index = pp__cpu_reduce_by_index,

    /* compaction family (issue 19) */
    .compact = pp__cpu_compact,
    /* radix sort family (issue 20) */
    .sort = pp__cpu_sort,
    /* summed-area table, axis scans, transpose (issue 21) */
    .grid_scan = pp__cpu_grid_scan,
    .transpose = pp__cpu_transpose,
    /* segmented sort (issue 22) */
    .segmented_sort = pp__cpu_segmented_sort,
    /* host memory is the context's own: pp_host_malloc is pp_malloc */
    .host_alloc = cpu_mem_alloc,
    .host_free = cpu_mem_free,
};
