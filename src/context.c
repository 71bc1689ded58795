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
    if (device < 0)
        return create_fail(PP_ERROR_INVALID_ARGUMENT,
                           "pp_context_create: argument 'device' is negative (%d)", device);
    if (backend == PP_BACKEND_AUTO)
        backend = pp_backend_available(PP_BACKEND_HIP) ? PP_BACKEND_HIP : PP_BACKEND_CPU;

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
    return ctx ? ctx->message : "pp_context_last_error: argument 'ctx' is NULL";
}

/* Every entry point starts with this: a NULL context cannot hold a message, so it only
 * returns the status. */
#define CHECK_CTX(ctx)                                      \
    do {                                                    \
        if (!(ctx)) return PP_ERROR_INVALID_ARGUMENT;       \
        (ctx)->message[0] = '\0';                           \
    } while (0)

pp_status pp_context_set_stream(pp_context *ctx, void *stream)
{
    CHECK_CTX(ctx);
    return ctx->ops->set_stream(ctx, stream);
}

void *pp_context_stream(const pp_context *ctx) { return ctx ? ctx->stream : NULL; }

pp_status pp_context_synchronize(pp_context *ctx)
{
    CHECK_CTX(ctx);
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
    CHECK_CTX(ctx);
    if (!buffer && bytes > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "pp_context_set_scratch: argument 'buffer' is NULL with bytes = %zu", bytes);
    if (buffer && ctx->ops->pointer_kind(ctx, buffer) == PP_PTR_HOST)
        return pp__fail(ctx, PP_ERROR_WRONG_MEMORY_SPACE,
                        "pp_context_set_scratch: argument 'buffer' is host memory, not %s memory",
                        ctx->ops->name);
    pp_status st = ctx->ops->synchronize(ctx);
    if (st != PP_OK) return st;
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
    /* Grow geometrically so that a sequence of growing calls allocates O(log) times. */
    size_t want = bytes < 1u << 20 ? 1u << 20 : bytes;
    if (want < ctx->scratch_size * 2 && ctx->scratch_size * 2 > ctx->scratch_size)
        want = ctx->scratch_size * 2;
    release_scratch(ctx);
    void *p = NULL;
    pp_status st = pp__mem_alloc(ctx, &p, want, "scratch");
    if (st != PP_OK && want > bytes) st = pp__mem_alloc(ctx, &p, want = bytes, "scratch");
    if (st != PP_OK)
        return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY, "scratch: cannot allocate %zu bytes", bytes);
    ctx->scratch = p;
    ctx->scratch_size = want;
    *out = p;
    return PP_OK;
}

pp_status pp_context_reserve_scratch(pp_context *ctx, size_t bytes)
{
    CHECK_CTX(ctx);
    void *p;
    if (bytes == 0) return PP_OK;
    return pp__scratch(ctx, bytes, &p);
}

/* ---- memory ---- */

static void forget_known(pp_context *ctx)
{
    for (unsigned i = 0; i < 4; ++i) ctx->known_device[i] = NULL;
}

static pp_status check_space(pp_context *ctx, const char *fn, const char *arg, const void *p)
{
    if (!p) return PP_OK;
    for (unsigned i = 0; i < 4; ++i)
        if (ctx->known_device[i] == p) return PP_OK;
    pp_ptr_kind k = ctx->ops->pointer_kind(ctx, p);
    if (k == PP_PTR_HOST)
        return pp__fail(ctx, PP_ERROR_WRONG_MEMORY_SPACE,
                        "%s: argument '%s' is host memory, not %s device memory", fn, arg,
                        ctx->ops->name);
    if (k == PP_PTR_DEVICE) ctx->known_device[ctx->known_next++ & 3] = p;
    return PP_OK;
}

pp_status pp__check_in_space(pp_context *ctx, const char *fn, const char *arg, const void *p)
{
    return check_space(ctx, fn, arg, p);
}

pp_status pp_malloc(pp_context *ctx, void **ptr, size_t bytes)
{
    CHECK_CTX(ctx);
    if (!ptr) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_malloc: argument 'ptr' is NULL");
    *ptr = NULL;
    if (bytes == 0) return PP_OK;
    return pp__mem_alloc(ctx, ptr, bytes, "pp_malloc");
}

pp_status pp_free(pp_context *ctx, void *ptr)
{
    CHECK_CTX(ctx);
    if (!ptr) return PP_OK;
    forget_known(ctx);
    return ctx->ops->mem_free(ctx, ptr);
}

pp_status pp_memcpy(pp_context *ctx, void *dst, const void *src, size_t bytes, pp_copy_kind kind)
{
    CHECK_CTX(ctx);
    if (kind != PP_COPY_HOST_TO_CONTEXT && kind != PP_COPY_CONTEXT_TO_HOST &&
        kind != PP_COPY_CONTEXT_TO_CONTEXT)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "pp_memcpy: argument 'kind' has unknown value %d", (int)kind);
    if (bytes == 0) return PP_OK;
    if (!dst) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_memcpy: argument 'dst' is NULL with bytes = %zu", bytes);
    if (!src) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_memcpy: argument 'src' is NULL with bytes = %zu", bytes);
    pp_status st;
    if (kind != PP_COPY_HOST_TO_CONTEXT && (st = check_space(ctx, "pp_memcpy", "src", src)) != PP_OK) return st;
    if (kind != PP_COPY_CONTEXT_TO_HOST && (st = check_space(ctx, "pp_memcpy", "dst", dst)) != PP_OK) return st;
    return ctx->ops->mem_copy(ctx, dst, src, bytes, kind);
}

pp_status pp_memset(pp_context *ctx, void *ptr, int value, size_t bytes)
{
    CHECK_CTX(ctx);
    if (bytes == 0) return PP_OK;
    if (!ptr) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_memset: argument 'ptr' is NULL with bytes = %zu", bytes);
    pp_status st = check_space(ctx, "pp_memset", "ptr", ptr);
    if (st != PP_OK) return st;
    return ctx->ops->mem_set(ctx, ptr, value, bytes);
}
