/*
 * context.c -- contexts, errors, the scratch arena and memory in the context's space.
 * Every public entry point checks its arguments here (or in the primitive's own file in
 * src/) once, for every backend, then calls through the context's backend table.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define PP_STR2(x) #x
#define PP_STR(x) PP_STR2(x)

unsigned pp_version(void) { return PARPRIM_VERSION; }

const char *pp_version_string(void)
{
    return PP_STR(PARPRIM_VERSION_MAJOR) "." PP_STR(PARPRIM_VERSION_MINOR) "." PP_STR(
        PARPRIM_VERSION_PATCH) " (cpu"
#ifdef PP_HAVE_HIP
#ifdef PP_HIP_NVIDIA
        ", hip-nvidia"
#else
        ", hip-amd"
#endif
#ifdef PP_HIP_TARGETS
        " " PP_HIP_TARGETS
#endif
#endif
        ")";
}

const char *pp_status_string(pp_status status)
{
    switch (status) {
    case PP_OK: return "PP_OK: success";
    case PP_ERROR_INVALID_ARGUMENT: return "PP_ERROR_INVALID_ARGUMENT: invalid argument";
    case PP_ERROR_UNSUPPORTED: return "PP_ERROR_UNSUPPORTED: not supported by this backend";
    case PP_ERROR_OUT_OF_MEMORY: return "PP_ERROR_OUT_OF_MEMORY: out of memory";
    case PP_ERROR_NO_DEVICE: return "PP_ERROR_NO_DEVICE: no usable device";
    case PP_ERROR_WRONG_MEMORY_SPACE:
        return "PP_ERROR_WRONG_MEMORY_SPACE: pointer not in the context's memory space";
    case PP_ERROR_DEVICE: return "PP_ERROR_DEVICE: device runtime failure";
    }
    return "unknown status";
}

const char *pp_backend_name(pp_backend backend)
{
    switch (backend) {
    case PP_BACKEND_AUTO: return "auto";
    case PP_BACKEND_CPU: return "cpu";
    case PP_BACKEND_HIP: return "hip";
    }
    return "unknown";
}

pp_status pp__fail(pp_context *ctx, pp_status status, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->message, sizeof ctx->message, fmt, ap);
        va_end(ap);
        memcpy(ctx->last_error, ctx->message, sizeof ctx->last_error);
    }
    return status;
}

static const struct pp_backend_ops *backend_ops(pp_backend backend)
{
    switch (backend) {
    case PP_BACKEND_CPU: return &pp_cpu_backend;
    case PP_BACKEND_HIP:
#ifdef PP_HAVE_HIP
        return &pp_hip_backend;
#else
        return NULL;
#endif
    default: return NULL;
    }
}

int pp_backend_available(pp_backend backend)
{
    if (backend == PP_BACKEND_AUTO) return 1;
    const struct pp_backend_ops *ops = backend_ops(backend);
    return ops != NULL && ops->device_count() > 0;
}

static void forget_known(pp_context *ctx);
static pp_status check_space(pp_context *ctx, const char *fn, const char *arg, const void *p);
void pp__options_init(pp_context *ctx); /* options.c */

static _Thread_local char create_error[PP_MESSAGE_SIZE];

const char *pp_last_create_error(void) { return create_error; }

static pp_status create_fail(pp_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static pp_status create_fail(pp_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(create_error, sizeof create_error, fmt, ap);
    va_end(ap);
    return st;
}

pp_status pp_context_create(pp_context **out, pp_backend backend, int device)
{
    create_error[0] = '\0';
    if (!out) return create_fail(PP_ERROR_INVALID_ARGUMENT, "pp_context_create: argument 'out' is NULL");
    *out = NULL;
    if (backend != PP_BACKEND_AUTO && backend != PP_BACKEND_CPU && backend != PP_BACKEND_HIP)
        return create_fail(PP_ERROR_INVALID_ARGUMENT,
                           "pp_context_create: argument 'backend' has unknown value %d", (int)backend);
    /* Only PP_BACKEND_HIP reads `device`; the CPU ignores it and AUTO takes device 0. */
    if (backend == PP_BACKEND_HIP && device < 0)
        return create_fail(PP_ERROR_INVALID_ARGUMENT,
                           "pp_context_create: argument 'device' is negative (%d)", device);
    if (backend == PP_BACKEND_AUTO) {
        backend = pp_backend_available(PP_BACKEND_HIP) ? PP_BACKEND_HIP : PP_BACKEND_CPU;
        device = 0;
    }

    const struct pp_backend_ops *ops = backend_ops(backend);
    if (!ops)
        return create_fail(PP_ERROR_NO_DEVICE,
                           "pp_context_create: backend '%s' was not built into this library (%s)",
                           pp_backend_name(backend), pp_version_string());
    int count = ops->device_count();
    if (count <= 0)
        return create_fail(PP_ERROR_NO_DEVICE, "pp_context_create: backend '%s' found no device",
                           pp_backend_name(backend));
    if (backend == PP_BACKEND_HIP && device >= count)
        return create_fail(PP_ERROR_INVALID_ARGUMENT,
                           "pp_context_create: argument 'device' is %d but only %d device(s) exist",
                           device, count);

    pp_context *ctx = (pp_context *)calloc(1, sizeof *ctx);
    if (!ctx) return create_fail(PP_ERROR_OUT_OF_MEMORY, "pp_context_create: out of host memory");
    ctx->ops = ops;
    ctx->backend = backend;
    pp__options_init(ctx);
    ctx->device = backend == PP_BACKEND_HIP ? device : 0;
    pp_status st = ops->context_init(ctx);
    if (st != PP_OK) {
        create_fail(st, "pp_context_create: %s", ctx->message);
        free(ctx);
        return st;
    }
    ctx->message[0] = '\0';
    ctx->last_error[0] = '\0';
    *out = ctx;
    return PP_OK;
}

void pp_context_destroy(pp_context *ctx)
{
    if (!ctx) return;
    ctx->ops->synchronize(ctx);
    if (ctx->scratch && !ctx->scratch_is_caller_owned) ctx->ops->mem_free(ctx, ctx->scratch);
    ctx->ops->context_fini(ctx);
    free(ctx);
}

pp_backend pp_context_backend(const pp_context *ctx) { return ctx ? ctx->backend : PP_BACKEND_AUTO; }

const char *pp_context_device_name(const pp_context *ctx) { return ctx ? ctx->device_name : ""; }

const char *pp_context_last_error(const pp_context *ctx)
{
    return ctx ? ctx->last_error : "pp_context_last_error: argument 'ctx' is NULL";
}

pp_status pp_context_set_stream(pp_context *ctx, void *stream)
{
    PP_ENTER(ctx);
    return ctx->ops->set_stream(ctx, stream);
}

void *pp_context_stream(const pp_context *ctx) { return ctx ? ctx->stream : NULL; }

pp_status pp_context_synchronize(pp_context *ctx)
{
    PP_ENTER(ctx);
    return ctx->ops->synchronize(ctx);
}

static void release_scratch(pp_context *ctx)
{
    if (ctx->scratch && !ctx->scratch_is_caller_owned) {
        ctx->ops->synchronize(ctx);
        ctx->ops->mem_free(ctx, ctx->scratch);
    }
    ctx->scratch = NULL;
    ctx->scratch_size = 0;
    ctx->scratch_is_caller_owned = 0;
}

pp_status pp_context_set_scratch(pp_context *ctx, void *buffer, size_t bytes)
{
    static const char fn[] = "pp_context_set_scratch";
    PP_ENTER(ctx);
    if (!buffer && bytes > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'buffer' is NULL with bytes = %zu", fn,
                        bytes);
    PP_TRY(check_space(ctx, fn, "buffer", buffer));
    PP_TRY(pp__check_array(ctx, fn, "buffer", buffer, bytes, 1, "bytes"));
    PP_TRY(ctx->ops->synchronize(ctx));
    forget_known(ctx);
    release_scratch(ctx);
    if (buffer) {
        ctx->scratch = buffer;
        ctx->scratch_size = bytes;
        ctx->scratch_is_caller_owned = 1;
    }
    return PP_OK;
}

pp_status pp__scratch(pp_context *ctx, size_t bytes, void **out)
{
    if (bytes <= ctx->scratch_size && ctx->scratch) {
        *out = ctx->scratch;
        return PP_OK;
    }
    if (ctx->scratch_is_caller_owned)
        return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY,
                        "scratch: the caller's buffer holds %zu bytes, this call needs %zu",
                        ctx->scratch_size, bytes);
    /* One growth is one allocation for the test hook (PP_OPTION_FAIL_ALLOC), also when it
     * retries below at the size asked for; the arena is kept when the hook fails it. */
    if (pp__alloc_fails(ctx))
        return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY,
                        "scratch: cannot allocate %zu bytes (failed on purpose: PP_OPTION_FAIL_ALLOC)", bytes);
    /* Grow geometrically so that a sequence of growing calls allocates O(log) times. */
    size_t want = bytes < 1u << 20 ? 1u << 20 : bytes;
    if (want < ctx->scratch_size * 2 && ctx->scratch_size * 2 > ctx->scratch_size)
        want = ctx->scratch_size * 2;
    release_scratch(ctx);
    void *p = NULL;
    pp_status st = ctx->ops->mem_alloc(ctx, &p, want);
    if (st != PP_OK && want > bytes) {
        /* The geometric size did not fit; the size asked for may. A success leaves no trace of
         * the first failure in the messages. */
        char kept[PP_MESSAGE_SIZE];
        memcpy(kept, ctx->last_error, sizeof kept);
        st = ctx->ops->mem_alloc(ctx, &p, want = bytes);
        if (st == PP_OK) {
            memcpy(ctx->last_error, kept, sizeof kept);
            ctx->message[0] = '\0';
        }
    }
    if (st != PP_OK)
        return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY, "scratch: cannot allocate %zu bytes", bytes);
    ctx->scratch = p;
    ctx->scratch_size = want;
    *out = p;
    return PP_OK;
}

pp_status pp_context_reserve_scratch(pp_context *ctx, size_t bytes)
{
    PP_ENTER(ctx);
    void *p;
    if (bytes == 0) return PP_OK;
    return pp__scratch(ctx, bytes, &p);
}

/* ---- memory ---- */

static void forget_known(pp_context *ctx)
{
    memset(ctx->known_device, 0, sizeof ctx->known_device);
}

/* What the backend says about p, through the cache of recent device allocations unless
 * `fresh`: its kind and, where known, its allocation's [base, base + size) (else base NULL,
 * size 0). *cached tells whether the answer came from the cache. */
static pp_ptr_kind lookup(pp_context *ctx, const void *p, const void **base, size_t *size, int fresh,
                          int *cached)
{
    const uintptr_t a = (uintptr_t)p;
    *cached = 0;
    for (unsigned i = 0; i < 4; ++i) {
        struct pp_known_ptr *k = &ctx->known_device[i];
        if (!k->base || !(k->size ? a - (uintptr_t)k->base < k->size : p == k->base)) continue;
        if (fresh) { /* drop it: the query below replaces it */
            k->base = NULL;
            k->size = 0;
            continue;
        }
        *base = k->size ? k->base : NULL;
        *size = k->size;
        *cached = 1;
        return PP_PTR_DEVICE;
    }
    *base = NULL;
    *size = 0;
    pp_ptr_kind kind = ctx->ops->pointer_kind(ctx, p, base, size);
    if (!*base || *size == 0 || a - (uintptr_t)*base >= *size) { /* no usable extent */
        *base = NULL;
        *size = 0;
    }
    if (kind == PP_PTR_DEVICE) {
        struct pp_known_ptr *k = &ctx->known_device[ctx->known_next++ & 3];
        k->base = *size ? *base : p;
        k->size = *size;
    }
    return kind;
}

static pp_status check_space(pp_context *ctx, const char *fn, const char *arg, const void *p)
{
    if (!p) return PP_OK;
    const void *base;
    size_t size;
    int cached;
    if (lookup(ctx, p, &base, &size, 0, &cached) == PP_PTR_HOST)
        return pp__fail(ctx, PP_ERROR_WRONG_MEMORY_SPACE,
                        "%s: argument '%s' is host memory, not %s device memory", fn, arg,
                        ctx->ops->name);
    return PP_OK;
}

pp_status pp__check_in_space(pp_context *ctx, const char *fn, const char *arg, const void *p)
{
    return check_space(ctx, fn, arg, p);
}

/* The size checks of pp__check_array; `in_space`: also the space and the allocation's
 * extent (0 for host memory that is not in the context's space, such as a memcpy's host
 * side). */
static pp_status check_range(pp_context *ctx, const char *fn, const char *arg, const void *p, size_t count,
                             size_t size, const char *count_arg, int in_space)
{
    if (count == 0) return PP_OK;
    if (!p)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is NULL with %s = %zu", fn, arg,
                        count_arg, count);
    if (count > SIZE_MAX / size)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument '%s' is too large (%zu): %zu elements of %zu bytes for '%s' "
                        "overflow size_t",
                        fn, count_arg, count, count, size, arg);
    const size_t bytes = count * size;
    const uintptr_t a = (uintptr_t)p;
    if (bytes - 1 > UINTPTR_MAX - a)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument '%s' is too large (%zu): %zu bytes from '%s' (%p) run past the end of "
                        "the address space",
                        fn, count_arg, count, bytes, arg, p);
    if (!in_space) return PP_OK;
    const void *base;
    size_t extent;
    int cached;
    pp_ptr_kind kind = lookup(ctx, p, &base, &extent, 0, &cached);
    /* The allocation the cache remembers may have been freed (by another context, or by the
     * runtime directly) and its address reused by a larger one: ask again before refusing. */
    if (cached && extent && bytes > extent - (a - (uintptr_t)base))
        kind = lookup(ctx, p, &base, &extent, 1, &cached);
    if (kind == PP_PTR_HOST)
        return pp__fail(ctx, PP_ERROR_WRONG_MEMORY_SPACE,
                        "%s: argument '%s' is host memory, not %s device memory", fn, arg,
                        ctx->ops->name);
    if (extent && bytes > extent - (a - (uintptr_t)base))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument '%s' is too large (%zu): '%s' needs %zu bytes, but its allocation "
                        "(%zu bytes) ends %zu bytes after %p",
                        fn, count_arg, count, arg, bytes, extent, extent - (size_t)(a - (uintptr_t)base), p);
    return PP_OK;
}

pp_status pp__check_array(pp_context *ctx, const char *fn, const char *arg, const void *p, size_t count,
                          size_t size, const char *count_arg)
{
    return check_range(ctx, fn, arg, p, count, size, count_arg, 1);
}

/* Every allocation is rounded up to the backend's 256-byte alignment. */
#define PP_ALLOC_ROUND ((size_t)256)

/* pp_malloc and pp_host_malloc: the same checks, then the backend's allocator for `fn`. */
static pp_status alloc_entry(pp_context *ctx, void **ptr, size_t bytes, const char *fn,
                             pp_status (*alloc)(pp_context *ctx, void **ptr, size_t bytes))
{
    PP_ENTER(ctx);
    if (!ptr) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'ptr' is NULL", fn);
    *ptr = NULL;
    if (bytes == 0) return PP_OK;
    if (bytes > SIZE_MAX - (PP_ALLOC_ROUND - 1))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'bytes' is too large (%zu): rounded up to a multiple of %zu it "
                        "overflows size_t",
                        fn, bytes, PP_ALLOC_ROUND);
    return pp__alloc_with(ctx, ptr, bytes, fn, alloc);
}

pp_status pp_malloc(pp_context *ctx, void **ptr, size_t bytes)
{
    return alloc_entry(ctx, ptr, bytes, "pp_malloc", ctx ? ctx->ops->mem_alloc : NULL);
}

pp_status pp_host_malloc(pp_context *ctx, void **ptr, size_t bytes)
{
    return alloc_entry(ctx, ptr, bytes, "pp_host_malloc", ctx ? ctx->ops->host_alloc : NULL);
}

pp_status pp_free(pp_context *ctx, void *ptr)
{
    PP_ENTER(ctx);
    if (!ptr) return PP_OK;
    forget_known(ctx);
    return ctx->ops->mem_free(ctx, ptr);
}

pp_status pp_host_free(pp_context *ctx, void *ptr)
{
    PP_ENTER(ctx);
    if (!ptr) return PP_OK;
    return ctx->ops->host_free(ctx, ptr);
}

pp_status pp_memcpy(pp_context *ctx, void *dst, const void *src, size_t bytes, pp_copy_kind kind)
{
    static const char fn[] = "pp_memcpy";
    PP_ENTER(ctx);
    if (kind != PP_COPY_HOST_TO_CONTEXT && kind != PP_COPY_CONTEXT_TO_HOST &&
        kind != PP_COPY_CONTEXT_TO_CONTEXT)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'kind' has unknown value %d", fn, (int)kind);
    if (bytes == 0) return PP_OK;
    if (!dst) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'dst' is NULL with bytes = %zu", fn, bytes);
    if (!src) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'src' is NULL with bytes = %zu", fn, bytes);
    PP_TRY(check_range(ctx, fn, "src", src, bytes, 1, "bytes", kind != PP_COPY_HOST_TO_CONTEXT));
    PP_TRY(check_range(ctx, fn, "dst", dst, bytes, 1, "bytes", kind != PP_COPY_CONTEXT_TO_HOST));
    return ctx->ops->mem_copy(ctx, dst, src, bytes, kind);
}

pp_status pp_memset(pp_context *ctx, void *ptr, int value, size_t bytes)
{
    PP_ENTER(ctx);
    if (bytes == 0) return PP_OK;
    if (!ptr) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_memset: argument 'ptr' is NULL with bytes = %zu", bytes);
    PP_TRY(pp__check_array(ctx, "pp_memset", "ptr", ptr, bytes, 1, "bytes"));
    return ctx->ops->mem_set(ctx, ptr, value, bytes);
}
