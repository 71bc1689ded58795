/*
 * parprim.h -- data-parallel primitives for C, on HIP GPUs (AMD and NVIDIA) and on the CPU.
 *
 * This header is the whole public API and its reference manual. C11; usable from C++.
 *
 * Model
 * -----
 * Every call takes a context (pp_context *). A context is created for one backend:
 *   PP_BACKEND_CPU   OpenMP on the host; the reference implementation and the fallback.
 *   PP_BACKEND_HIP   HIP kernels on one GPU (AMD through ROCm, NVIDIA through CUDA).
 *   PP_BACKEND_AUTO  HIP when the library was built with it and a device is present, else CPU.
 * A primitive a backend lacks returns PP_ERROR_UNSUPPORTED; nothing is ever routed to another
 * backend behind the caller's back (AUTO chooses only at context creation).
 *
 * Memory spaces. Array arguments live in the context's memory space: device memory for a
 * HIP context, host memory for a CPU context. pp_malloc / pp_free / pp_memcpy allocate and
 * move memory in that space, so one program runs unchanged on either backend. Where the
 * library can tell that a pointer is in the wrong space (a HIP context given a host pointer
 * that the runtime does not know), the call fails with PP_ERROR_WRONG_MEMORY_SPACE.
 *
 * Ordering and synchronization. A HIP context owns a stream (its own, or one the caller
 * sets). Calls are enqueued on it in order and return without waiting, except where a
 * function's comment says "synchronizes": those wait for the context's stream before they
 * return (they deliver a value to host memory). On the CPU backend every call is complete
 * when it returns.
 *
 * Errors. Every function that can fail returns a pp_status. On failure the context keeps a
 * message naming the argument and the reason (pp_context_last_error, until the next failure)
 * and no output has been written. Arguments are checked once, in the same way, for every
 * backend. A NULL context gives PP_ERROR_INVALID_ARGUMENT and, having nowhere to keep one, no
 * message.
 *
 * Counts are size_t: more than 2^31 (and 2^32) elements work on every backend. A count is
 * PP_ERROR_INVALID_ARGUMENT, with a message naming it, when the byte size of an array it
 * sizes (n * the element size, nbins * the count size, (n_segments + 1) * 8, ...) overflows
 * size_t or runs past the end of the address space, and, on the HIP backend, when the
 * runtime can tell the array's allocation (memory from pp_malloc or the runtime's own
 * allocator) and the array runs past its end.
 *
 * Temporary storage comes from a scratch arena owned by the context: grown when a call needs
 * more than it holds, then reused. Callers never query temporary sizes, unless they choose
 * to hand the context a buffer of their own (pp_context_set_scratch).
 *
 * Thread safety. Contexts are independent: threads that each use their own contexts may call
 * the library at the same time, each context with its own backend, device, stream, scratch
 * arena, options, plan and message, and no call writes state that another context reads
 * (tests/test_threads.c runs reduce, scan and histogram calls from several threads at once
 * and compares the bits with one thread's). One context must not be used by two threads at
 * the same time, and that includes reading its pp_context_last_error, pp_context_last_plan
 * or options while another thread calls with it: serialize such use yourself (a context may
 * move between threads between calls). pp_context_create and pp_context_destroy may run in several threads at once
 * (each on its own context), and pp_last_create_error is per thread: it reports the calling
 * thread's last pp_context_create. The functions without a context (pp_version_string, the
 * names, pp_backend_available, pp_option_bounds, ...) may be called from any thread at any
 * time. Memory from pp_malloc belongs to the context that allocated it; two threads may read
 * the same input arrays at once (calls never write their inputs, except an in-place scan's).
 * What each backend does with the calling thread: a CPU call runs an OpenMP parallel region
 * of the calling thread (its OpenMP thread count, omp_set_num_threads included), so N threads
 * calling at once run N teams; a HIP call makes the context's device the calling thread's
 * current device (hipSetDevice) and enqueues on the context's stream, so contexts that share
 * a stream (pp_context_set_stream) run their work in that stream's order.
 */
#ifndef PARPRIM_H
#define PARPRIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version and visibility -------------------------------------------------------- */

#define PARPRIM_VERSION_MAJOR 0
#define PARPRIM_VERSION_MINOR 1
#define PARPRIM_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH, comparable with pp_version(). */
#define PARPRIM_VERSION \
    (PARPRIM_VERSION_MAJOR * 10000 + PARPRIM_VERSION_MINOR * 100 + PARPRIM_VERSION_PATCH)

#if defined(PARPRIM_STATIC)
#define PP_API
#elif defined(_WIN32)
#if defined(PARPRIM_BUILDING)
#define PP_API __declspec(dllexport)
#else
#define PP_API __declspec(dllimport)
#endif
#else
#define PP_API __attribute__((visibility("default")))
#endif

/* The version of the library actually loaded (PARPRIM_VERSION of its build). */
PP_API unsigned pp_version(void);
/* "MAJOR.MINOR.PATCH" of the library loaded, and the backends it was built with, e.g.
 * "0.1.0 (cpu, hip-nvidia sm_90)". Static storage. */
PP_API const char *pp_version_string(void);

/* ---- status codes ------------------------------------------------------------------ */

typedef enum pp_status {
    PP_OK = 0,
    PP_ERROR_INVALID_ARGUMENT = 1,    /* NULL, unknown enum, bad size, op undefined for dtype */
    PP_ERROR_UNSUPPORTED = 2,         /* the backend does not offer this primitive */
    PP_ERROR_OUT_OF_MEMORY = 3,       /* allocation failed (host or device) */
    PP_ERROR_NO_DEVICE = 4,           /* HIP asked for, no usable device (or not built) */
    PP_ERROR_WRONG_MEMORY_SPACE = 5,  /* a pointer is not in the context's memory space */
    PP_ERROR_DEVICE = 6               /* the GPU runtime reported a failure */
} pp_status;

/* A static, human-readable name of a status ("PP_ERROR_INVALID_ARGUMENT: invalid argument").
 * Unknown values give "unknown status". */
PP_API const char *pp_status_string(pp_status status);

/* ---- contexts ------------------------------------------------------------------------ */

typedef struct pp_context pp_context;

typedef enum pp_backend {
    PP_BACKEND_AUTO = 0,
    PP_BACKEND_CPU = 1,
    PP_BACKEND_HIP = 2
} pp_backend;

/* Name of a backend: "auto", "cpu", "hip". */
PP_API const char *pp_backend_name(pp_backend backend);

/* Nonzero if `backend` can be used on this machine by this build: CPU always; HIP when the
 * library was built with a HIP path and at least one device is present; AUTO always (it
 * falls back to the CPU). */
PP_API int pp_backend_available(pp_backend backend);

/* Create a context. `device` selects the GPU for PP_BACKEND_HIP (0-based). Only
 * PP_BACKEND_HIP reads it: PP_BACKEND_CPU ignores it (any value, -1 included, is accepted),
 * and PP_BACKEND_AUTO ignores it too, using device 0 when it chooses HIP.
 * Errors: PP_ERROR_INVALID_ARGUMENT (out NULL, unknown backend; for PP_BACKEND_HIP device < 0
 * or past the device count), PP_ERROR_NO_DEVICE (HIP requested, none present or not built),
 * PP_ERROR_OUT_OF_MEMORY, PP_ERROR_DEVICE. On failure *out is set to NULL. The reason is
 * then available from pp_last_create_error(). */
PP_API pp_status pp_context_create(pp_context **out, pp_backend backend, int device);

/* Message of the last failed pp_context_create in this thread ("" if none). */
PP_API const char *pp_last_create_error(void);

/* Destroy a context: waits for its queued work, frees its scratch arena and its own
 * stream. Memory from pp_malloc that was not freed is not released. Accepts NULL. */
PP_API void pp_context_destroy(pp_context *ctx);

/* The backend the context runs on (never PP_BACKEND_AUTO, except for a NULL ctx). */
PP_API pp_backend pp_context_backend(const pp_context *ctx);

/* Device name ("NVIDIA H100 80GB HBM3", "AMD Instinct MI250X", or the CPU's model name
 * with its OpenMP thread count; "" for a NULL ctx). Static for the context's lifetime. */
PP_API const char *pp_context_device_name(const pp_context *ctx);

/* Use the caller's stream (a hipStream_t on AMD, a cudaStream_t on NVIDIA, passed as
 * void *) for all later calls; NULL returns to the context's own stream. The caller keeps
 * ownership of its stream and must not destroy it while the context uses it. On the CPU
 * backend the only accepted value is NULL. Errors: PP_ERROR_INVALID_ARGUMENT. */
PP_API pp_status pp_context_set_stream(pp_context *ctx, void *stream);

/* The stream calls are enqueued on (NULL on the CPU backend). */
PP_API void *pp_context_stream(const pp_context *ctx);

/* Wait for all work queued on the context's stream. Synchronizes. */
PP_API pp_status pp_context_synchronize(pp_context *ctx);

/* The message of the last failed call on this context ("" if none has failed). A call that
 * succeeds leaves it as it is, so a program may run clean-up calls between a failure and
 * reading its message; the next failure replaces it. The string belongs to the context and
 * stays valid until pp_context_destroy. ctx NULL gives a static message saying so. */
PP_API const char *pp_context_last_error(const pp_context *ctx);

/* Hand the context a buffer of `bytes` in its memory space to use as scratch instead of its
 * own arena (which is then freed). NULL (with bytes == 0) returns to the context's own
 * arena. A call that needs more than `bytes` fails with PP_ERROR_OUT_OF_MEMORY and a message
 * naming the size it needed. Synchronizes. Errors: PP_ERROR_INVALID_ARGUMENT (buffer NULL
 * with bytes > 0, bytes past the end of the buffer's allocation where known),
 * PP_ERROR_WRONG_MEMORY_SPACE. */
PP_API pp_status pp_context_set_scratch(pp_context *ctx, void *buffer, size_t bytes);

/* Grow the context's own arena to at least `bytes` now, so that later calls do not
 * allocate. Synchronizes. Errors: PP_ERROR_OUT_OF_MEMORY (the allocation failed, or a
 * caller's buffer from pp_context_set_scratch is in place and holds fewer bytes). */
PP_API pp_status pp_context_reserve_scratch(pp_context *ctx, size_t bytes);

/* ---- memory in the context's space ------------------------------------------------------ */

typedef enum pp_copy_kind {
    PP_COPY_HOST_TO_CONTEXT = 0,   /* host memory -> context space */
    PP_COPY_CONTEXT_TO_HOST = 1,   /* context space -> host memory */
    PP_COPY_CONTEXT_TO_CONTEXT = 2 /* within the context space */
} pp_copy_kind;

/* Allocate `bytes` (aligned to at least 256 bytes) in the context's space. bytes == 0
 * gives *ptr = NULL and PP_OK. Errors: PP_ERROR_INVALID_ARGUMENT (ptr NULL; bytes above
 * SIZE_MAX - 255, whose rounding to the alignment overflows), PP_ERROR_OUT_OF_MEMORY (also
 * for a request larger than the device's memory); *ptr is NULL after a failure. */
PP_API pp_status pp_malloc(pp_context *ctx, void **ptr, size_t bytes);

/* Free memory from pp_malloc on this context. Accepts NULL. Synchronizes on HIP (as the
 * runtime's free does). */
PP_API pp_status pp_free(pp_context *ctx, void *ptr);

/* Allocate `bytes` of HOST memory that copies to and from the context's space move fastest
 * (pinned, page-locked memory on HIP, through hipHostMalloc; plain 256-byte-aligned host
 * memory on the CPU backend, where it is the context's space itself): for staging buffers,
 * such as parprim_mpi's. bytes == 0 gives *ptr = NULL and PP_OK. Free it with pp_host_free
 * on the same context. Errors: PP_ERROR_INVALID_ARGUMENT (ptr NULL; bytes above SIZE_MAX -
 * 255), PP_ERROR_OUT_OF_MEMORY; *ptr is NULL after a failure. */
PP_API pp_status pp_host_malloc(pp_context *ctx, void **ptr, size_t bytes);

/* Free memory from pp_host_malloc on this context. Accepts NULL. */
PP_API pp_status pp_host_free(pp_context *ctx, void *ptr);

/* Copy `bytes`. Copies that involve host memory synchronize (the data is in place when the
 * call returns); CONTEXT_TO_CONTEXT is enqueued. Errors: PP_ERROR_INVALID_ARGUMENT
 * (NULL with bytes > 0, unknown kind, a range that runs past the end of the address space or
 * of its allocation, see "Counts" above), PP_ERROR_WRONG_MEMORY_SPACE, PP_ERROR_DEVICE. */
PP_API pp_status pp_memcpy(pp_context *ctx, void *dst, const void *src, size_t bytes,
                           pp_copy_kind kind);

/* Set `bytes` bytes of context-space memory to `value` (enqueued). Errors:
 * PP_ERROR_INVALID_ARGUMENT (ptr NULL with bytes > 0, a range past the end of the address
 * space or of its allocation), PP_ERROR_WRONG_MEMORY_SPACE, PP_ERROR_DEVICE. */
PP_API pp_status pp_memset(pp_context *ctx, void *ptr, int value, size_t bytes);

/* ---- element types and operators ---------------------------------------------------------- */

typedef enum pp_dtype {
    PP_U8 = 1,   /* uint8_t  */
    PP_I32 = 2,  /* int32_t  */
    PP_U32 = 3,  /* uint32_t */
    PP_I64 = 4,  /* int64_t  */
    PP_U64 = 5,  /* uint64_t */
    PP_F32 = 6,  /* float    */
    PP_F64 = 7   /* double   */
} pp_dtype;

/* "u8", "i32", ... ; NULL for an unknown value. */
PP_API const char *pp_dtype_name(pp_dtype dtype);
/* Size in bytes of one element; 0 for an unknown value. */
PP_API size_t pp_dtype_size(pp_dtype dtype);

typedef enum pp_op {
    PP_OP_SUM = 1,  /* identity 0; integers wrap modulo 2^bits (both signed and unsigned) */
    PP_OP_PROD = 2, /* identity 1; integers wrap */
    PP_OP_MIN = 3,  /* identity: the type's largest value, +inf for floats */
    PP_OP_MAX = 4,  /* identity: the type's smallest value, -inf for floats */
    PP_OP_AND = 5,  /* integers only; identity all ones */
    PP_OP_OR = 6,   /* integers only; identity 0 */
    PP_OP_XOR = 7   /* integers only; identity 0 */
} pp_op;

/* "sum", "prod", ... ; NULL for an unknown value. */
PP_API const char *pp_op_name(pp_op op);

/* Where a scalar result goes. */
typedef enum pp_result_space {
    PP_RESULT_CONTEXT = 0, /* memory in the context's space; the call is enqueued */
    PP_RESULT_HOST = 1     /* host memory; the call synchronizes */
} pp_result_space;

/* ---- reduce family ---------------------------------------------------------------------------
 *
 * Types. Every op is defined for every dtype, except AND/OR/XOR, which are integer-only
 * (PP_ERROR_INVALID_ARGUMENT on f32/f64). The result type equals the input type, except that
 * a SUM may widen:
 *     u8 -> u32 or u64,   i32 -> i64,   u32 -> u64,   f32 -> f64.
 * A widening sum converts each element exactly and accumulates in the wider type.
 * Any other (in_type, out_type) pair is PP_ERROR_INVALID_ARGUMENT.
 *
 * Floating-point min and max propagate NaN: if any element is NaN the result is a NaN
 * (which NaN payload is unspecified). -0.0 and +0.0 compare equal; which of them a min or
 * max returns when both occur is unspecified.
 *
 * Float sums and products follow a tree order, on every backend, and no atomics: a call
 * repeated on the same data at the same address on the same device gives the same bits.
 * Error bound. Let u = 2^-24 (f32 accumulation) or 2^-53 (f64 accumulation, which includes
 * the f32 -> f64 widening sum), n the element count, and D(n) = ceil(log2(n)) + PP_SUM_DEPTH_SLACK.
 * Every element reaches the result through at most D(n) roundings, so
 *     |computed - exact| <= g * sum(|x_i|),   g = D(n) * u / (1 - D(n) * u),
 * and this is what the tests assert against an exact (long double / compensated) oracle.
 * Results of different backends agree within twice that bound; integer results, min, max,
 * argmin and argmax are bitwise identical across backends (except a NaN's payload and, for
 * min/max, the sign of a zero result, which are unspecified as said above).
 */
#define PP_SUM_DEPTH_SLACK 48

/* out[0] = in[0] op in[1] op ... op in[n-1]; n == 0 gives the op's identity.
 * `in` is in the context's space; `out` is in the context's space (PP_RESULT_CONTEXT,
 * enqueued) or in host memory (PP_RESULT_HOST, synchronizes). One element of out_type is
 * written.
 * Errors: PP_ERROR_INVALID_ARGUMENT (ctx NULL, in NULL with n > 0, out NULL, unknown dtype,
 * op or result space, op undefined for the dtype, out_type not allowed), 
 * PP_ERROR_WRONG_MEMORY_SPACE, PP_ERROR_OUT_OF_MEMORY (scratch), PP_ERROR_DEVICE. */
PP_API pp_status pp_reduce(pp_context *ctx, const void *in, size_t n, pp_dtype in_type,
                           pp_op op, void *out, pp_dtype out_type, pp_result_space space);

/* Index and value of the smallest (argmin) or largest (argmax) element; on ties, the first
 * (lowest) index. NaN: a NaN counts as more extreme than every number for both argmin and
 * argmax, so the first NaN wins if there is one (as numpy and PyTorch do). -0.0 and +0.0
 * tie. n == 0 gives *index = UINT64_MAX and *value = the identity of MIN (argmin) or MAX
 * (argmax). `value` (one element of `dtype`) and `index` are both in the space named by
 * `space`. Errors as pp_reduce. */
PP_API pp_status pp_argmin(pp_context *ctx, const void *in, size_t n, pp_dtype dtype,
                           void *value, uint64_t *index, pp_result_space space);
PP_API pp_status pp_argmax(pp_context *ctx, const void *in, size_t n, pp_dtype dtype,
                           void *value, uint64_t *index, pp_result_space space);

/* Segmented reduce: for s in [0, n_segments),
 *     out[s] = reduction of in[min(offsets[s], n) .. min(offsets[s+1], n))
 * with the op's identity for an empty segment. `in` holds n elements; `offsets` has
 * n_segments + 1 entries, meant to be non-decreasing. Offsets are not checked against each
 * other (that would need a synchronization); instead every backend clamps them to n and
 * treats a segment with end <= begin as empty, so bad offsets never read outside `in`.
 * `in`, `offsets` and `out` (n_segments elements of out_type) are in the context's space.
 * Types and widening as pp_reduce; float results follow the same error bound with n the
 * segment's length. n_segments == 0 writes nothing (the other arguments are still checked:
 * NULL in with n > 0 is an error then too). Enqueued.
 * The GPU maps work by segment length: short segments share a wave, long ones are split
 * across blocks, so many short segments and few long ones are both fast.
 * Errors: PP_ERROR_INVALID_ARGUMENT (NULL in with n > 0, NULL offsets/out with
 * n_segments > 0, n_segments == SIZE_MAX, unknown dtype or op, op undefined, out_type not
 * allowed, sizes as in "Counts" above),
 * PP_ERROR_WRONG_MEMORY_SPACE, PP_ERROR_OUT_OF_MEMORY (scratch), PP_ERROR_DEVICE. */
PP_API pp_status pp_segmented_reduce(pp_context *ctx, const void *in, size_t n, pp_dtype in_type,
                                     const size_t *offsets, size_t n_segments, pp_op op,
                                     void *out, pp_dtype out_type);


/* ---- scan family -------------------------------------------------------------------------
 *
 * Prefix operations: out[i] = in[0] op in[1] op ... op in[i] (inclusive) or
 * out[i] = init op in[0] op ... op in[i-1] (exclusive; out[0] = init). Types, ops and the
 * widening sums are those of the reduce family (u8 -> u32/u64, i32 -> i64, u32 -> u64,
 * f32 -> f64 for SUM only), so that a scan of 0/1 flags can yield 64-bit offsets.
 * Floating min/max propagate NaN as in pp_reduce: from the first NaN on, every output is a NaN.
 *
 * init. The exclusive scans take `init`: a pointer to one element of out_type in HOST memory
 * (read before the call returns), or NULL for the op's identity. Inclusive scans take no
 * initial value (pass NULL where the argument exists).
 *
 * In place. out == in is allowed when in_type and out_type have the same size; any other
 * overlap of out with in (or with head_flags) is PP_ERROR_INVALID_ARGUMENT.
 *
 * Float error bound. Let m be the number of elements an output combines (i + 1 for an
 * inclusive out[i], counted from its segment's start for segmented scans; for exclusive
 * scans, the elements before i plus init), u = 2^-24 (f32 accumulation) or 2^-53 (f64,
 * including the f32 -> f64 widening sum), and
 *     D_scan(m) = 2 * ceil(log2(m)) + PP_SCAN_DEPTH_SLACK.
 * Every term reaches out[i] through at most D_scan(m) roundings (the GPU combines tiles by a
 * fixed binary tree; segmented f32 sums, by a sum in f64 taken in tile order, whose error is
 * below one f32 rounding for n < 2^41), so
 *     |out[i] - exact_i| <= g * (|init| + sum |x_j|),   g = D_scan(m) * u / (1 - D_scan(m) * u).
 * The order of operations is fixed for a backend (and, on the GPU, for a device): the same
 * input gives the same bits every run, with no atomics in the arithmetic. Different backends
 * agree within twice the bound; integer scans are bitwise identical across backends.
 *
 * All scans are enqueued (none synchronizes). Errors: PP_ERROR_INVALID_ARGUMENT (ctx NULL, in
 * or out NULL with n > 0, unknown dtype or op, op undefined for the dtype, out_type not
 * allowed, init given to an inclusive scan, bad overlap, unknown kind, head_flags or offsets
 * NULL where needed, n_segments == SIZE_MAX, sizes as in "Counts" above),
 * PP_ERROR_WRONG_MEMORY_SPACE, PP_ERROR_OUT_OF_MEMORY (scratch), PP_ERROR_DEVICE.
 */
#define PP_SCAN_DEPTH_SLACK 64

typedef enum pp_scan_kind {
    PP_SCAN_INCLUSIVE = 0,
    PP_SCAN_EXCLUSIVE = 1
} pp_scan_kind;

/* out[i] = in[0] op ... op in[i], for i < n. `in` and `out` (n elements of out_type) are in
 * the context's space. n == 0 writes nothing. */
PP_API pp_status pp_inclusive_scan(pp_context *ctx, const void *in, size_t n, pp_dtype in_type,
                                   pp_op op, void *out, pp_dtype out_type);

/* out[0] = init, out[i] = init op in[0] op ... op in[i-1]. `init`: host pointer to one
 * element of out_type, or NULL for the op's identity. */
PP_API pp_status pp_exclusive_scan(pp_context *ctx, const void *in, size_t n, pp_dtype in_type,
                                   pp_op op, const void *init, void *out, pp_dtype out_type);

/* Segmented scan with head flags: `head_flags` holds n bytes in the context's space; a
 * nonzero byte starts a new segment at that element (element 0 always starts one). Each
 * segment is scanned independently: it restarts at the op's identity (inclusive) or at
 * `init` (exclusive; NULL: identity). `kind` selects inclusive or exclusive; `init` must be
 * NULL for PP_SCAN_INCLUSIVE. */
PP_API pp_status pp_segmented_scan_flags(pp_context *ctx, const void *in, size_t n, pp_dtype in_type,
                                         const uint8_t *head_flags, pp_op op, pp_scan_kind kind,
                                         const void *init, void *out, pp_dtype out_type);

/* Segmented scan over an offsets array (n_segments + 1 size_t entries in the context's space,
 * meant to be non-decreasing): segment s is in[min(offsets[s], n) .. min(offsets[s+1], n)),
 * scanned as in pp_segmented_scan_flags; an empty segment writes nothing, and out elements
 * outside [offsets[0], offsets[n_segments]) are not written. Offsets are not checked
 * against each other (that would synchronize): they are clamped to n, and with offsets that
 * decrease the values written inside the covered range are unspecified, but nothing outside
 * `in` is read and nothing outside out[0 .. n) is written. n_segments == 0 writes nothing. */
PP_API pp_status pp_segmented_scan_offsets(pp_context *ctx, const void *in, size_t n,
                                           pp_dtype in_type, const size_t *offsets,
                                           size_t n_segments, pp_op op, pp_scan_kind kind,
                                           const void *init, void *out, pp_dtype out_type);

/* ---- histogram family ------------------------------------------------------------------------
 *
 * pp_histogram_even and pp_histogram_range count the samples that fall into each of nbins bins;
 * pp_reduce_by_index is the weighted form (out[indices[i]] op= values[i]).
 *
 * Samples: PP_U8, PP_I32, PP_U32, PP_F32 or PP_F64. Counts: PP_U32 or PP_U64; nbins counts of
 * count_type are written to `counts` in the context's space. The counts are overwritten, not
 * accumulated: every bin gets the number of samples in it, 0 if none. A u32 count wraps modulo
 * 2^32 (possible only with n >= 2^32; ask for u64 counts there). 1 <= nbins <= PP_HISTOGRAM_MAX_BINS.
 * A sample that lies in no bin (below the first edge, at or above the last, NaN) is not counted
 * anywhere. Counts are integers and bitwise identical on every backend: the bin of a sample is
 * defined below, to the rounding, and every backend computes exactly that.
 *
 * Even bins (pp_histogram_even), float samples (f32, f64). x is counted iff lower <= x < upper
 * (so NaN and infinities are never counted), into the bin computed in double precision as
 *     scale = (double)nbins / (upper - lower)       once, rounded to nearest
 *     t     = (x - lower) * scale                   x converts to double exactly; a subtraction
 *                                                   and a multiplication, each rounded to
 *                                                   nearest (never fused)
 *     bin   = t < nbins ? floor(t) : nbins - 1      the clamp catches the x just below upper
 *                                                   whose t rounds up to nbins
 * Because of the roundings, a sample within a few units in the last place of an interior edge
 * lower + k (upper - lower) / nbins may land in bin k - 1 instead of k (or k instead of k - 1);
 * bins are non-decreasing in x, and every backend gives the same bin. lower and upper must be
 * finite with lower < upper, and upper - lower and scale must be finite (not overflow).
 *
 * Even bins, integer samples (u8, i32, u32): exact integer arithmetic. lower and upper must be
 * whole numbers with -2^53 <= lower < upper <= 2^53 and (upper - lower) * nbins <= 2^64. x is
 * counted iff lower <= x < upper, into bin floor((x - lower) * nbins / (upper - lower)) computed
 * exactly. For example u8 samples with 256 bins over [0, 256) have bin = x; 16 bins over
 * [0, 256) have bin = x / 16.
 *
 * Bins from edges (pp_histogram_range): `edges` holds nbins + 1 doubles in the context's space,
 * non-decreasing, none NaN (infinite edges are allowed). x, converted to double (exactly), is
 * counted iff edges[0] <= x < edges[nbins], into the bin b with edges[b] <= x < edges[b + 1]
 * (bins between equal edges stay empty).
 *
 * GPU strategy (HIP backend). Chosen per call from the bin count, the sample count and the
 * device's shared memory (hip/histogram.hip documents the chooser and its thresholds):
 * per-block sub-histograms in shared memory (several copies per block for small bin counts),
 * bin ranges split across blocks when the bins do not fit, global atomics for very large bin
 * counts, thread-block clusters with distributed shared memory on NVIDIA sm_90, and for u8
 * samples a per-value count that any binning folds at the end. The CPU backend counts into
 * per-thread private histograms merged at the end (bin ranges in passes when they do not fit
 * its caches). None of this changes any count.
 */
#define PP_HISTOGRAM_MAX_BINS ((size_t)1 << 31)

/* Even bins over [lower, upper): see above. `samples` (n elements of sample_type) and `counts`
 * (nbins elements of count_type) are in the context's space; counts are overwritten. n == 0
 * zero-fills the counts (samples may then be NULL). Enqueued (no synchronization).
 * Errors: PP_ERROR_INVALID_ARGUMENT (ctx NULL; samples NULL with n > 0; counts NULL;
 * sample_type not u8/i32/u32/f32/f64 ('sample_type'); count_type not u32/u64 ('count_type');
 * nbins 0 or above PP_HISTOGRAM_MAX_BINS ('nbins'); lower or upper NaN or infinite, lower >= upper,
 * upper - lower or nbins / (upper - lower) overflowing ('lower' / 'upper'); for integer samples
 * lower or upper not a whole number in [-2^53, 2^53], or (upper - lower) * nbins > 2^64;
 * n or nbins too large for its array, as in "Counts" above),
 * PP_ERROR_WRONG_MEMORY_SPACE, PP_ERROR_OUT_OF_MEMORY (scratch), PP_ERROR_DEVICE. */
PP_API pp_status pp_histogram_even(pp_context *ctx, const void *samples, size_t n, pp_dtype sample_type,
                                   size_t nbins, double lower, double upper, void *counts,
                                   pp_dtype count_type);

/* Bins given by nbins + 1 edges (doubles in the context's space): see above. Counts are
 * overwritten as by pp_histogram_even.
 * Checking the edges. The edges must be non-decreasing and free of NaN. The CPU backend checks
 * them on the host. The HIP backend checks them on the device before anything is counted and
 * waits for the verdict, so this call synchronizes on HIP (the wait costs about as much as
 * one small kernel launch and an 8-byte copy to the host; the counting itself is queued after
 * the check, so when the call returns with PP_OK the histogram may still be running).
 * Bad edges give PP_ERROR_INVALID_ARGUMENT naming 'edges' (and the first bad index), with the
 * counts untouched.
 * Errors: as pp_histogram_even, with 'edges' (NULL, unsorted, NaN) in place of lower/upper. */
PP_API pp_status pp_histogram_range(pp_context *ctx, const void *samples, size_t n, pp_dtype sample_type,
                                    const double *edges, size_t nbins, void *counts, pp_dtype count_type);

/* Reduce by index (a weighted histogram, "reduce values into out at indices"):
 *     for every i < n with indices[i] < n_out:   out[indices[i]] = out[indices[i]] op values[i]
 * so out accumulates: each out[j] ends as its initial value combined with every value whose
 * index is j (set out to 0 / the op's identity first for a plain reduction). value_type is
 * PP_I32, PP_U32, PP_I64, PP_U64, PP_F32 or PP_F64; out holds n_out elements of value_type;
 * op is PP_OP_SUM, PP_OP_MIN or PP_OP_MAX. values, indices (uint32_t), out and n_skipped are in
 * the context's space. An index >= n_out is skipped; when n_skipped is not NULL, *n_skipped is
 * set to the number of skipped elements (overwritten, also when it is 0). Enqueued.
 *
 * Results. Integer sums wrap modulo 2^bits (signed as unsigned) and are exact, as are min and
 * max, on every backend and in every run (bitwise equal across backends). Min and max order
 * floats numerically with -0.0 below +0.0; a NaN among the values of out[j] or in its initial
 * value makes out[j] a NaN (payload unspecified).
 * Float sums accumulate in the value type and are NOT reproducible bit for bit on the HIP
 * backend: values meeting at one output are added with atomic operations whose order changes
 * from run to run. (The CPU backend adds them in an order fixed by n and its thread count.)
 * Either way, with m the number of values whose index is j, u = 2^-24 (f32) or 2^-53 (f64) and
 * g(m) = m u / (1 - m u):
 *     |computed out[j] - exact| <= g(m) * (|initial out[j]| + sum of |values| with index j),
 * so the two backends agree within twice that bound. (A caller that needs reproducible float
 * sums can sort by index and use pp_segmented_reduce.)
 * Errors: PP_ERROR_INVALID_ARGUMENT (ctx NULL; values or indices NULL with n > 0; out NULL
 * with n_out > 0; value_type not one of the six ('value_type'); op not SUM/MIN/MAX ('op'); n or
 * n_out too large for its arrays, as in "Counts" above),
 * PP_ERROR_WRONG_MEMORY_SPACE, PP_ERROR_OUT_OF_MEMORY (scratch), PP_ERROR_DEVICE. */
PP_API pp_status pp_reduce_by_index(pp_context *ctx, const void *values, size_t n, pp_dtype value_type,
                                    const uint32_t *indices, pp_op op, void *out, size_t n_out,
                                    uint64_t *n_skipped);

/* ---- compaction family (issue 19) ----------------------------------------------------------
 *
 * Stream compaction: keep the elements a flag or a predicate selects, in input order (stable).
 *   pp_select_flagged / pp_select_if        out[0 .. count) = the selected elements of in;
 *   pp_partition_flagged / pp_partition_if  out[0 .. count) = the selected elements, then
 *                                           out[count .. n) = the rejected ones, BOTH in input
 *                                           order (CUB's DevicePartition writes the rejected
 *                                           ones reversed; parprim does not);
 *   pp_unique                               the first element of every run of consecutive
 *                                           duplicates (see "Equal keys" below);
 *   pp_run_length_encode                    those first elements and the length of each run;
 *   pp_where / pp_nonzero                   the indices (u32 or u64) of the selected elements.
 * A selection keeps element i of `in` where flags[i] != 0 (flags: n bytes of uint8_t) or where
 * the predicate holds for in[i] (below). An optional payload (`payload`, n elements of
 * payload_type, any dtype; NULL for none) travels with the elements: the same positions of
 * payload are written to payload_out. Elements of every dtype are moved as bits, unchanged.
 *
 * Counts. The number of selected elements (runs, for unique and run-length encoding) is one
 * uint64_t written to `count`: memory in the context's space (PP_RESULT_CONTEXT, the call is
 * enqueued) or host memory (PP_RESULT_HOST, the call synchronizes). count is never NULL.
 * Outputs are sized by the caller for the worst case (n elements; n for partition); only
 * out[0 .. count) (payload_out, indices, lengths alike; out[0 .. n) for partition) is
 * written, nothing past it. Results are bitwise identical on every backend.
 *
 * Predicates (pp_predicate). `kind` picks the test, `a` and `b` are constants of the input's
 * dtype (the union member of that dtype is read: a.f32 for PP_F32 input, a.u8 for PP_U8, ...):
 *   LT, LE, GT, GE, EQ, NE   x < a, x <= a, x > a, x >= a, x == a, x != a
 *   INSIDE                   a <= x < b   (half-open; empty when b <= a)
 *   OUTSIDE                  x < a or x >= b
 *   ISNAN, NOTNAN            x is (not) a NaN; for integers ISNAN never holds, NOTNAN always
 *   NONZERO                  x != 0
 * Floats compare as IEEE 754 says: -0.0 == +0.0, and every comparison with a NaN is false
 * except !=, so a NaN x passes NE and NONZERO and no other compare, and is neither INSIDE nor
 * OUTSIDE a range; a NaN constant `a` makes LT .. EQ select nothing and NE everything. A NaN
 * bound of INSIDE / OUTSIDE is refused (PP_ERROR_INVALID_ARGUMENT naming 'pred'). Integers
 * compare exactly in their own type (signed or unsigned).
 *
 * Equal keys (pp_unique, pp_run_length_encode). Integers are equal when their bits are. Floats
 * are equal when they are numerically equal (so -0.0 and +0.0 are duplicates) or both NaN
 * (whatever their payloads and signs: a run of NaNs is one run). The element kept for a run is
 * its first, with its own bits (a run of -0.0, +0.0 keeps -0.0).
 *
 * In place. pp_select_flagged and pp_select_if accept out == in (and payload_out == payload);
 * the elements past count of an array written in place are then unspecified. Any other
 * overlap between an output and an input or another output (or count) is
 * PP_ERROR_INVALID_ARGUMENT naming the output.
 *
 * Sizes. n may exceed 2^32 on every backend. Index outputs of u32 accept n <= 2^32 (every
 * index then fits); run lengths of u32 wrap modulo 2^32 (only possible when n >= 2^32).
 *
 * GPU (HIP backend): select, unique, run-length encoding and where run in one pass over the
 * input (tiles, a decoupled look-back over the tiles' counts, the kept elements staged in
 * shared memory and written contiguously); partition writes the rejected elements from the
 * back in the same pass, then a second kernel puts them in input order; run-length encoding
 * writes the lengths in the same pass (the look-back carries the index of the last run head
 * with the count). Select, unique, run-length encoding and where of n up to one tile (4096
 * elements of 1 or 4 bytes, 2048 of 8) are one launch. The CPU backend counts per thread, then scatters
 * (bench/RESULTS.md has the figures of both).
 *
 * Errors, every entry point: PP_ERROR_INVALID_ARGUMENT (ctx NULL; in / flags / out /
 * payload_out / indices / values_out / lengths_out NULL with n > 0; payload_out without
 * payload; count NULL; pred NULL or with an unknown kind or NaN range bounds; unknown dtype,
 * payload_type, index_type (u32 / u64), length_type (u32 / u64) or space; u32 indices with
 * n > 2^32; an overlap other than the in-place one; n too large for its arrays, as in
 * "Counts" above), PP_ERROR_WRONG_MEMORY_SPACE, PP_ERROR_OUT_OF_MEMORY (scratch),
 * PP_ERROR_DEVICE. On failure nothing is written, count included.
 */
typedef enum pp_pred_kind {
    PP_PRED_LT = 1,
    PP_PRED_LE = 2,
    PP_PRED_GT = 3,
    PP_PRED_GE = 4,
    PP_PRED_EQ = 5,
    PP_PRED_NE = 6,
    PP_PRED_INSIDE = 7,
    PP_PRED_OUTSIDE = 8,
    PP_PRED_ISNAN = 9,
    PP_PRED_NOTNAN = 10,
    PP_PRED_NONZERO = 11
} pp_pred_kind;

/* One constant of any dtype: the member named after the dtype is the one read. */
typedef union pp_scalar {
    uint8_t u8;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
} pp_scalar;

typedef struct pp_predicate {
    pp_pred_kind kind;
    pp_scalar a; /* the constant (compares), the lower bound (INSIDE / OUTSIDE) */
    pp_scalar b; /* the upper bound (INSIDE / OUTSIDE); unused otherwise */
} pp_predicate;

/* "lt", "le", ..., "nonzero"; NULL for an unknown value. */
PP_API const char *pp_pred_name(pp_pred_kind kind);

/* Keep in[i] where flags[i] != 0 (and payload[i] with it). out may be in (in place). */
PP_API pp_status pp_select_flagged(pp_context *ctx, const void *in, size_t n, pp_dtype dtype,
                                   const uint8_t *flags, const void *payload, pp_dtype payload_type,
                                   void *out, void *payload_out, uint64_t *count, pp_result_space space);
/* Keep in[i] where *pred holds for it (pred in host memory, read during the call). */
PP_API pp_status pp_select_if(pp_context *ctx, const void *in, size_t n, pp_dtype dtype,
                              const pp_predicate *pred, const void *payload, pp_dtype payload_type,
                              void *out, void *payload_out, uint64_t *count, pp_result_space space);
/* The selected elements, then the rejected ones, both in input order; count = selected. */
PP_API pp_status pp_partition_flagged(pp_context *ctx, const void *in, size_t n, pp_dtype dtype,
                                      const uint8_t *flags, const void *payload, pp_dtype payload_type,
                                      void *out, void *payload_out, uint64_t *count, pp_result_space space);
PP_API pp_status pp_partition_if(pp_context *ctx, const void *in, size_t n, pp_dtype dtype,
                                 const pp_predicate *pred, const void *payload, pp_dtype payload_type,
                                 void *out, void *payload_out, uint64_t *count, pp_result_space space);
/* The first key of every run of equal consecutive keys (and its payload); count = runs. */
PP_API pp_status pp_unique(pp_context *ctx, const void *keys, size_t n, pp_dtype dtype, const void *payload,
                           pp_dtype payload_type, void *keys_out, void *payload_out, uint64_t *count,
                           pp_result_space space);
/* values_out[r] = the first element of run r, lengths_out[r] = its length (length_type u32 or
 * u64); count = runs. */
PP_API pp_status pp_run_length_encode(pp_context *ctx, const void *in, size_t n, pp_dtype dtype,
                                      void *values_out, void *lengths_out, pp_dtype length_type,
                                      uint64_t *count, pp_result_space space);
/* indices[0 .. count) = the i (ascending) where *pred holds for in[i]; index_type u32 or u64. */
PP_API pp_status pp_where(pp_context *ctx, const void *in, size_t n, pp_dtype dtype, const pp_predicate *pred,
                          void *indices, pp_dtype index_type, uint64_t *count, pp_result_space space);
/* pp_where with PP_PRED_NONZERO: the indices of the elements != 0 (NaN included, -0.0 not). */
PP_API pp_status pp_nonzero(pp_context *ctx, const void *in, size_t n, pp_dtype dtype, void *indices,
                            pp_dtype index_type, uint64_t *count, pp_result_space space);
/* ---- radix sort family (issue 20) ------------------------------------------------------------
 *
 * pp_sort_keys sorts keys; pp_sort_pairs sorts keys and carries a value of any dtype with each
 * key; pp_argsort writes the indices (u32 or u64) of the keys in sorted order. Every sort is
 * stable: keys that compare equal keep their input order (their values, their indices).
 *
 * Keys: every dtype (u8, i32, u32, i64, u64, f32, f64). Integers compare numerically. Floats
 * compare in this order, on every backend:
 *     ascending:   -inf < ... < -0.0 == +0.0 < ... < +inf < NaN
 *     descending:  NaN > +inf > ... > +0.0 == -0.0 > ... > -inf      (NaN first)
 * -0.0 and +0.0 are equal keys, and so are all NaNs whatever their sign and payload (NaN last
 * ascending, as numpy and PyTorch put it; first descending): equal keys keep their input order.
 * Output keys are the input's bits, moved, never canonicalised (a -0.0 stays -0.0, a NaN keeps
 * its payload).
 *
 * Bit range (integer keys). begin_bit = end_bit = 0 sorts on the whole key (the usual call, and
 * the only one float keys accept). Otherwise end_bit = 0 stands for the key's width w (8, 32 or
 * 64) and the keys are ordered by the bits [begin_bit, end_bit) of their order-preserving
 * unsigned form (unsigned keys: the value; signed keys: the two's-complement bits with the
 * sign bit inverted, so a range that holds the top bit keeps the signed order):
 *     0 <= begin_bit <= end_bit <= w;
 * fewer bits, fewer passes, when the caller knows that the keys differ only there. An empty
 * range (begin_bit == end_bit, or begin_bit == w with end_bit 0) compares nothing: every key is
 * equal, so the output is the input (pairs: both arrays copied; argsort: 0, 1, ..., n-1).
 * Keys outside the range still move whole (all their bits are written).
 *
 * Out of place by default: keys_out (and values_out) receive the sorted arrays, keys_in and
 * values_in are not written. In place: keys_out == keys_in (and values_out == values_in) is
 * allowed; the library takes its double buffer from the scratch arena (n keys, and n values
 * for pairs). Any other overlap between two of the arrays is PP_ERROR_INVALID_ARGUMENT.
 * Temporary storage: the scratch arena holds the double buffer (n keys and n values, where a
 * call needs one: in place, or more than one pass) and the digit counts.
 *
 * Counts are size_t: more than 2^32 keys work on every backend. u32 indices (pp_argsort)
 * require n <= 2^32.
 *
 * Algorithms (none changes a result, which is the same bits on every backend). CPU: LSD radix
 * sort over 8-bit digits of the keys' order-preserving unsigned form, with OpenMP (per-thread
 * digit counts, one scatter per pass; a pass whose digit is the same for every key is skipped).
 * Small inputs run the same passes on one thread. GPU: onesweep (one read of the keys counts the digits of every pass, then one kernel per
 * 8-bit pass ranks a tile in registers and shared memory, takes its digits' offsets from the
 * decoupled look-back and scatters; constant digits are skipped) for large inputs, and a tile
 * radix sort in shared memory with a bitonic merge of sorted tiles for small ones (the
 * experimental option PP_OPTION_SORT_STRATEGY forces either); of those, keys and pairs within
 * 4096 elements (2048 with 8-byte keys or values) are one block's bitonic sort, one launch.
 *
 * All sorts are enqueued (none synchronizes). Errors: PP_ERROR_INVALID_ARGUMENT (ctx NULL; an
 * array NULL with n > 0; key_type, value_type or index_type unknown or not allowed; order not
 * PP_SORT_ASCENDING / PP_SORT_DESCENDING ('order'); a bit range on float keys, begin_bit or
 * end_bit negative or past the key's width, begin_bit > end_bit ('begin_bit' / 'end_bit');
 * u32 indices with n > 2^32 ('index_type'); bad overlap; sizes as in "Counts" above),
 * PP_ERROR_WRONG_MEMORY_SPACE, PP_ERROR_OUT_OF_MEMORY (scratch), PP_ERROR_DEVICE.
 */
typedef enum pp_sort_order {
    PP_SORT_ASCENDING = 0,
    PP_SORT_DESCENDING = 1
} pp_sort_order;

/* Sort n keys of key_type from keys_in into keys_out (both in the context's space; equal for an
 * in-place sort). n == 0 writes nothing (the pointers may then be NULL). */
PP_API pp_status pp_sort_keys(pp_context *ctx, const void *keys_in, void *keys_out, size_t n,
                              pp_dtype key_type, pp_sort_order order, int begin_bit, int end_bit);

/* Sort n (key, value) pairs by key: keys_out and values_out receive the keys in order and each
 * key's value (value_type: any dtype; values move as their bits). In place: keys_out ==
 * keys_in and values_out == values_in, each or both. */
PP_API pp_status pp_sort_pairs(pp_context *ctx, const void *keys_in, void *keys_out, const void *values_in,
                               void *values_out, size_t n, pp_dtype key_type, pp_dtype value_type,
                               pp_sort_order order, int begin_bit, int end_bit);

/* indices[j] = the input position of the j-th key in sorted order (stable: equal keys in
 * increasing position). index_type PP_U32 (n <= 2^32) or PP_U64. The keys are not written. */
PP_API pp_status pp_argsort(pp_context *ctx, const void *keys, size_t n, pp_dtype key_type,
                            pp_sort_order order, void *indices, pp_dtype index_type);
/* ---- summed-area table, scans along an axis, transpose (issue 21) ----------------------------
 *
 * Matrices. A matrix of `rows` x `cols` elements is stored row after row: element (r, c) of
 * `in` is in[r * in_pitch + c], `in_pitch` (>= cols) counting elements, not bytes, so that a
 * sub-image of a larger one is passed by its first element and the larger one's pitch; the
 * same for `out` with `out_pitch`. Elements between cols and the pitch are neither read nor
 * written. rows == 0 or cols == 0 is an empty matrix (the pointers may then be NULL).
 * Every call here is out of place: `out` must not share a byte with `in` (the byte ranges
 * from the first element to one past the last are compared); calls are enqueued (no
 * synchronization).
 * Errors common to all of them: PP_ERROR_INVALID_ARGUMENT (ctx NULL; in / out NULL with a
 * non-empty matrix; a pitch smaller than its row ('in_pitch' / 'out_pitch'); rows * cols, or
 * the extent (rows - 1) * pitch + cols times the element size, overflowing size_t or running
 * past the end of the address space or of the allocation ('rows' / 'cols'); unknown or
 * refused dtype; out overlapping in ('out')), PP_ERROR_WRONG_MEMORY_SPACE,
 * PP_ERROR_OUT_OF_MEMORY (scratch), PP_ERROR_DEVICE, PP_ERROR_UNSUPPORTED. A failed call
 * writes nothing.
 */

/* Transpose a stack of `batch` matrices: out[c * out_pitch + r] = in[r * in_pitch + c] for
 * each rows x cols input (out is cols x rows, out_pitch >= rows). Matrix k of the stack starts
 * at element k * rows * in_pitch of `in` and at element k * cols * out_pitch of `out`.
 * `dtype` gives only the element size: 1 byte (u8), 4 (i32, u32, f32) or 8 (i64, u64, f64);
 * the bits are copied. batch == 0 writes nothing. */
PP_API pp_status pp_transpose(pp_context *ctx, const void *in, size_t rows, size_t cols, size_t in_pitch,
                              void *out, size_t out_pitch, pp_dtype dtype, size_t batch);

typedef enum pp_axis {
    PP_AXIS_ROWS = 1, /* scan every row: out[r][c] = in[r][0] op ... op in[r][c] (torch dim=1) */
    PP_AXIS_COLS = 2  /* scan every column: out[r][c] = in[0][c] op ... op in[r][c] (dim=0) */
} pp_axis;

/* Inclusive or exclusive scan of every row or every column of a rows x cols matrix, with the
 * ops, (in_type, out_type) pairs, widenings and identities of the scan family (above): each
 * row (or column) is scanned as pp_inclusive_scan / pp_exclusive_scan would scan it, `init`
 * (exclusive only, NULL: the op's identity) starting every row (column). Integer results are
 * exact (sums wrap modulo 2^bits) and bitwise equal on every backend; float min / max are
 * exact; float sums and products of an output combining m terms satisfy the scan family's
 * bound with D(m) = m + PP_SAT_DEPTH_SLACK roundings in place of D_scan(m):
 *     |computed - exact| <= g * sum(|terms|),   g = D u / (1 - D u)
 * (a product: relative to the exact product). Floats are the same bits on every run with the
 * same arguments on the same device. out is rows x cols with out_pitch >= cols. */
PP_API pp_status pp_axis_scan(pp_context *ctx, const void *in, size_t rows, size_t cols, size_t in_pitch,
                              pp_dtype in_type, pp_axis axis, pp_op op, pp_scan_kind kind, const void *init,
                              void *out, size_t out_pitch, pp_dtype out_type);

typedef enum pp_sat_form {
    PP_SAT_INCLUSIVE = 0, /* out[r][c] = sum of in[0..r][0..c]; out is rows x cols */
    PP_SAT_INTEGRAL = 1   /* OpenCV's integral image: (rows + 1) x (cols + 1), out[0][*] and
                           * out[*][0] zero, out[r + 1][c + 1] = the inclusive table at (r, c);
                           * out_pitch >= cols + 1 */
} pp_sat_form;

/* Rounding depth allowance of the 2-D calls (see pp_summed_area_table). */
#define PP_SAT_DEPTH_SLACK 24

/* Summed-area table (2-D inclusive prefix sum) of a rows x cols matrix, in the form `form`.
 * (in_type, out_type): u8 -> u32, u8 -> u64, i32 -> i64, u32 -> u64, f32 -> f32, f32 -> f64,
 * f64 -> f64 (each element converted exactly, summed in out_type). Integer sums wrap modulo
 * 2^bits of out_type (the table of a large u8 image in u32 wraps past 2^32: a box sum read
 * from four corners by wrapping subtraction is still exact while the box itself sums below
 * 2^32). Floats: every output is the same bits on every run with the same arguments on the
 * same device (no atomics in its arithmetic; the order of the additions depends on the shape
 * and the backend only), and with u = 2^-24 (f32 out) or 2^-53 (f64 out),
 *     |computed(r, c) - exact(r, c)| <= g * sum over r' <= r, c' <= c of |in[r'][c']|,
 *     g = D u / (1 - D u),  D = (r + 1) + (c + 1) + PP_SAT_DEPTH_SLACK,
 * (each term passes through at most D roundings: a row prefix, then a column sum, with the
 * tiles' carries); so results of two backends agree within twice that bound. NaN and
 * infinities propagate as in the sums they enter.
 * GPU (HIP backend), by the device's tuning row (PP_OPTION_SAT_STRATEGY forces one): one pass
 * over tiles, each combining the row prefixes of the tiles to its left and the column carries
 * of the tiles above it, published through a decoupled look-back (the image read once and
 * written once); or, on NVIDIA at every size, reduce-then-scan: the row and column sums and
 * the totals of every tile of a band of rows (one read), their scans, then each tile's table
 * from them (a second read, one write), no tile waiting on another -- faster on the H100 from
 * 128 x 128 to 16384 x 16384 (bench/RESULTS.md). Float bits depend on the form (each within
 * the bound above). */
PP_API pp_status pp_summed_area_table(pp_context *ctx, const void *in, size_t rows, size_t cols, size_t in_pitch,
                                      pp_dtype in_type, void *out, size_t out_pitch, pp_dtype out_type,
                                      pp_sat_form form);

/* ---- segmented sort (issue 22) ---------------------------------------------------------------
 *
 * Many independent sorts in one call: each segment of the keys (and of the values, for pairs)
 * is sorted on its own, by the radix sort family's order (above: every key dtype, integers
 * numerically, floats with -0.0 == +0.0 and every NaN last ascending / first descending),
 * ascending or descending, stably (equal keys keep their input order, their values with them),
 * on the whole key (no bit range). Keys and values move as their bits. A stable sort has one
 * result: the outputs are the same bits on every backend.
 *
 * Segments. The offsets form takes `offsets`, n_segments + 1 size_t entries in the context's
 * space, meant to be non-decreasing: segment s is [min(offsets[s], n), min(offsets[s+1], n)),
 * empty when its end is not above its begin (the clamping of pp_segmented_reduce: offsets are
 * never checked against each other, which would synchronize, and bad ones never make a call
 * read or write outside [0, n)). Output elements outside every segment are not written
 * (out of place they keep what they held). Segments that overlap (offsets that decrease, then
 * rise again below an earlier end) leave the keys and values written inside the overlapping
 * segments unspecified, and nothing outside them is written. The fixed form sorts n_segments
 * consecutive segments of segment_length keys each (the rows of a dense matrix), n_segments *
 * segment_length keys in all.
 *
 * Out of place: keys_out (values_out) receive the sorted segments; keys_in (values_in) are not
 * written. In place: keys_out == keys_in (and values_out == values_in) is allowed. Any other
 * overlap between two of the arrays, or of `offsets` with an output, is
 * PP_ERROR_INVALID_ARGUMENT. Counts are size_t: more than 2^32 keys in all, and single segments
 * past 2^32 keys, work on every backend.
 *
 * Algorithms (none changes a result). CPU: OpenMP over segments with a dynamic schedule;
 * segments of a few keys by insertion sort, short ones of keys of at most 32 bits by a merge
 * sort, longer ones by the radix sort family's LSD radix sort on one thread, and the longest
 * ones one after another by that sort on every thread.
 * GPU: segments are put in size classes by a count and a scatter over the offsets (the
 * packed classes' bound is the device's tuning row, or PP_OPTION_SEGSORT_PACK_LOG): segments
 * of one key are copied by a thread each; segments of 2 keys up to one tile are packed,
 * several to a block by length class (2^c slots each for lengths in (2^(c-1), 2^c], padded),
 * and sorted by a bitonic network over the block's slots in registers, shuffles and shared
 * memory (stable: float keys and pairs sort (key, place) words); longer ones are cut into
 * chunks of a tile, each sorted as a packed segment, and then merged by passes across blocks
 * (runs of twice the width each pass, a tile of the output a block, found by a merge path), so
 * a segment of L keys takes about log2(L / tile) passes over its keys, spread over the whole
 * GPU. On NVIDIA, where the mean segment (n / n_segments) is long, segments longer than the
 * tuning row's bound (4096 keys on sm_90, 2^15 on sm_80) take radix levels instead: each segment's
 * keys are moved stably into buckets by their top 8 bits (a histogram, then ranked tiles
 * scattered with a look-back a segment), buckets longer than a tile again by the next 8 bits,
 * the others sorted by the packed classes; all levels run in one cooperative launch that stops
 * at the first level without work (PP_OPTION_SEGSORT_LONG forces either form). The fixed form,
 * whose lengths the host knows, sorts segments of at least 2^20 keys one after another with
 * the radix sort family's device-wide sort.
 * Temporary storage: the scratch arena (the class lists, and where segments longer than the
 * packed classes are possible a double buffer of n keys and n values and the chunk lists,
 * 64 bytes a chunk of a tile; with radix levels about n bytes more of look-back words, 2n
 * with 8-byte keys or values, n / 2 of bucket counts, and n / 2 of bucket entries a level of
 * the key's digits but the last).
 *
 * All calls are enqueued (none synchronizes). Errors: PP_ERROR_INVALID_ARGUMENT (ctx NULL; an
 * array NULL with n > 0 ('keys_in', 'keys_out', 'values_in', 'values_out'); offsets NULL with
 * n_segments > 0 or n_segments == SIZE_MAX ('offsets', 'n_segments'); n_segments *
 * segment_length overflowing ('segment_length'); key_type or value_type unknown; order not
 * PP_SORT_ASCENDING / PP_SORT_DESCENDING ('order'); bad overlap (the later array of the pair);
 * sizes as in "Counts" above), PP_ERROR_WRONG_MEMORY_SPACE, PP_ERROR_OUT_OF_MEMORY (scratch),
 * PP_ERROR_DEVICE. A failed call writes nothing.
 */

/* Sort each segment of keys[0, n) given by offsets (n_segments + 1 entries). n_segments == 0
 * or n == 0 writes nothing (the arguments are still checked). */
PP_API pp_status pp_segmented_sort_keys(pp_context *ctx, const void *keys_in, void *keys_out, size_t n,
                                        pp_dtype key_type, const size_t *offsets, size_t n_segments,
                                        pp_sort_order order);

/* Sort each segment's (key, value) pairs by key (value_type: any dtype). */
PP_API pp_status pp_segmented_sort_pairs(pp_context *ctx, const void *keys_in, void *keys_out,
                                         const void *values_in, void *values_out, size_t n, pp_dtype key_type,
                                         pp_dtype value_type, const size_t *offsets, size_t n_segments,
                                         pp_sort_order order);

/* The fixed form: segment s is keys[s * segment_length, (s + 1) * segment_length). */
PP_API pp_status pp_segmented_sort_keys_fixed(pp_context *ctx, const void *keys_in, void *keys_out,
                                              size_t n_segments, size_t segment_length, pp_dtype key_type,
                                              pp_sort_order order);
PP_API pp_status pp_segmented_sort_pairs_fixed(pp_context *ctx, const void *keys_in, void *keys_out,
                                               const void *values_in, void *values_out, size_t n_segments,
                                               size_t segment_length, pp_dtype key_type, pp_dtype value_type,
                                               pp_sort_order order);

/* ---- experimental: options, the chosen plan, test hooks ----------------------------------
 *
 * Declared only where PP_EXPERIMENTAL is defined before this header is included (the symbols
 * are always exported). Not part of the stable API: options may change or go away between
 * versions. The library reads no environment variable; tuning runs (parprim-bench), tests and
 * curious users force strategies and limits through these calls instead.
 *
 * No option changes a result. Every value an option accepts computes the same outputs (bitwise
 * where the primitive promises bits, within the documented bound otherwise) at another speed,
 * with one exception that exists for tests: PP_OPTION_FAIL_ALLOC makes an allocation fail on
 * purpose, so that the call that makes it returns PP_ERROR_OUT_OF_MEMORY with nothing written.
 * A forced strategy the device cannot run (a cluster strategy on a GPU without clusters, for
 * instance) is replaced by the one the chooser would take; pp_context_last_plan says which ran.
 * Options are per context, start at their defaults (pp_option_bounds), and apply to the calls
 * made after they are set. Options that a backend does not use are accepted and ignored
 * (the HIP options on a CPU context, and the CPU options on a HIP one).
 */
#ifdef PP_EXPERIMENTAL

typedef enum pp_option {
    /* HIP reduce: grid = resident blocks x this many waves of blocks (0: the device's table). */
    PP_OPTION_REDUCE_GRID_WAVES = 1,    /* 0 .. 64 */
    /* HIP reduce: at most this many tiles per block (0: the table). */
    PP_OPTION_REDUCE_MAX_TILES = 2,     /* 0 .. 65536 */
    /* HIP scan: at most this many blocks in a grid where blocks scan tiles one after another
     * (0: as many as fit); lets tests loop over many tiles at sizes the sanitizers can run. */
    PP_OPTION_SCAN_MAX_BLOCKS = 3,      /* 0 .. 2^24 */
    /* HIP look-backs: sleep before the first poll / between polls, in ns (-1: each family's
     * table). Read by the scan, the compaction family and the radix sort's onesweep passes
     * (PP_OPTION_SCAN_MAX_BLOCKS caps the compaction's persistent grid too). */
    PP_OPTION_SCAN_DELAY_NS = 4,        /* -1 .. 100000 */
    PP_OPTION_SCAN_PAUSE_NS = 5,        /* -1 .. 100000 */
    /* HIP histogram (even and range): force a strategy (pp_hist_strategy). */
    PP_OPTION_HIST_STRATEGY = 6,        /* PP_HIST_STRATEGY_AUTO .. PP_HIST_STRATEGY_U8 */
    PP_OPTION_HIST_COPIES = 7,          /* 0 (chooser) .. 32; rounded down to a power of two */
    PP_OPTION_HIST_RANGE_BINS = 8,      /* 0 (chooser) .. 2^31: bins per block range */
    PP_OPTION_HIST_CLUSTER = 9,         /* 0 (chooser), 2 .. 16: cluster size */
    PP_OPTION_HIST_GRID_WAVES = 10,     /* 0 (1) .. 64 */
    PP_OPTION_HIST_WAVE_AGGREGATION = 11, /* 0 chooser, 1 on, 2 off */
    /* HIP reduce by index. */
    PP_OPTION_RBI_STRATEGY = 12,        /* AUTO, SHARED or GLOBAL */
    PP_OPTION_RBI_COPIES = 13,          /* 0 (chooser) .. 32 */
    /* CPU histogram: float-vector width of the f32 even histogram (0: the widest the CPU runs;
     * a width it lacks falls back to the widest it has); 4 or 8 also run the range grid's
     * loops of f32 samples without their AVX-512 forms. */
    PP_OPTION_CPU_HIST_LANES = 14,      /* 0, 4, 8, 16 */
    /* CPU histogram: samples counted into the private tables before they are added to the
     * counts (0: 2^31); small values let tests run many rounds. */
    PP_OPTION_CPU_HIST_ROUND = 15,      /* 0, 2^16 .. 2^31 */
    /* Test hook: k > 0 makes the k-th allocation from now on (scratch growth, staging, private
     * tables, pp_malloc; host or device) fail as if memory were exhausted, once; 0: off. A
     * growth of the scratch arena counts as one allocation (its retry at the size asked for
     * included); the call that makes the failing allocation returns PP_ERROR_OUT_OF_MEMORY
     * with a message, writes no output, and the context works for the next call. */
    PP_OPTION_FAIL_ALLOC = 16,          /* 0 .. 2^31 */
    /* radix sort family (issue 20) */
    /* HIP sort: force the tile radix sort + bitonic merge or onesweep at any n
     * (pp_sort_strategy; the CPU backend has one algorithm and ignores it). */
    PP_OPTION_SORT_STRATEGY = 17,       /* PP_SORT_STRATEGY_AUTO .. PP_SORT_STRATEGY_ONESWEEP */
    /* summed-area table (issue 21), HIP: force a strategy (pp_sat_strategy). */
    PP_OPTION_SAT_STRATEGY = 18,        /* PP_SAT_STRATEGY_AUTO .. PP_SAT_STRATEGY_REDUCE_SCAN */
    /* radix sort performance (issue 20, s2-sortperf) */
    /* HIP onesweep pass: how a tile publishes and looks back its digit counts
     * (pp_sort_onesweep; 0: the device's tuning row). */
    PP_OPTION_SORT_ONESWEEP = 19,       /* PP_SORT_ONESWEEP_AUTO .. PP_SORT_ONESWEEP_FUSED */
    /* compaction family (issue 19), HIP: variants of the tile kernel (0: the device's table).
     * Publish: 1 the tile's count after the staging (first version), 2 right after the block
     * scan (the look-back after the staging); a call with payload_out == payload publishes after
     * the staging whatever this says. (3, the staging during the look-back, is gone: noise, and
     * it cost the kernels registers.) Blocks: 1 one tile per block (by ticket), 2 persistent
     * blocks (as many as fit, capped by PP_OPTION_SCAN_MAX_BLOCKS) loading their next tile
     * during the current one's writes, 3 one tile per block, the tile its block index (no
     * ticket; blocks start in index order).
     * Partition: 1 rejected written from the back then reversed by a second kernel, 2 a count
     * pass first, then the rejected written in order. No variant changes a result. */
    PP_OPTION_COMPACT_PUBLISH = 20,     /* 0 .. 2 */
    PP_OPTION_COMPACT_BLOCKS = 21,      /* 0 .. 3 */
    PP_OPTION_COMPACT_PARTITION = 22,   /* 0 .. 2 */
    /* segmented sort (issue 22), HIP: the longest segments packed several to a block, as log2
     * of their length (0: the device's tuning row; 1 .. 4: none packed, segments past the
     * thread class go to the long class, chunks of a tile sorted a block each and merged; 5 ..
     * 12: up to 2^value keys, capped by the tile). */
    PP_OPTION_SEGSORT_PACK_LOG = 23,    /* 0 .. 12 */
    /* parprim_mpi (issue 23): 0 hands the context's arrays to MPI directly where it can take
     * them (a CPU context; a HIP one with a GPU-aware MPI), 1 always goes through pinned host
     * staging buffers and host copies (what a GPU rank without a GPU-aware MPI does; on a CPU
     * context it runs that path, for the tests). */
    PP_OPTION_MPI_STAGING = 24,         /* 0 .. 1 */
    /* segmented sort, HIP: how the long class's merge passes or radix levels are launched (0:
     * the default, one cooperative launch running the passes the longest segment needs, or the
     * levels the keys need, a grid barrier between two steps; 1: a launch per pass the longest
     * segment possible could need, or per phase of every level the key has, as a device without
     * cooperative launches does). No value changes a result. */
    PP_OPTION_SEGSORT_MERGE_LAUNCH = 25, /* 0 .. 1 */
    /* radix sort, HIP: the onesweep tiles' size (0: the device's tuning row, small tiles up to
     * its bound on n; 1: never small; 2: small at every n). No value changes a result. */
    PP_OPTION_SORT_SMALL_TILES = 26,     /* 0 .. 2 */
    /* radix sort, HIP: wide onesweep tiles, blocks of more threads than digits, where the
     * pass has them (keys without values, and 4-byte keys with 4-byte values or u32 argsort
     * indices; tiles that are not small; always the fused pass, so a PP_OPTION_SORT_ONESWEEP
     * other than AUTO or FUSED keeps narrow tiles) (0: the device's tuning row; 1: never;
     * 2: wherever the pass has them). No value changes a result. */
    PP_OPTION_SORT_WIDE_TILES = 27,      /* 0 .. 2 */
    /* CPU range histogram of f32 samples: the cell grid (0: the chooser; 1: cells of equal
     * width; 2: the octave grid, cells by the bits of x - edges[0], where it can serve). */
    PP_OPTION_CPU_HIST_GRID = 28,        /* 0 .. 2 */
    /* segmented sort, HIP: how the long class (segments past the packed bound) is sorted (0:
     * the device's rule: on NVIDIA, where the mean segment is long, the segments past the tuning
     * row's bound (hip/tuning_segsort.h) by radix levels -- each segment's keys moved into
     * buckets by their top 8 bits, the buckets longer than a tile again by the next 8, the
     * others sorted by the packed classes -- and the other long ones by chunks of a tile sorted
     * a block each, then merge passes across blocks; 1: chunks and merge passes for every long
     * segment; 2: radix levels for every long segment, on NVIDIA (AMD has no radix levels: 2
     * is 1 there). No value changes a result. */
    PP_OPTION_SEGSORT_LONG = 29,         /* 0 .. 2 */
    /* segmented sort, HIP: the packed classes' kernel for 4-byte integer keys sorted alone (0:
     * the device's tuning; 1: a block item after another; 2: software-pipelined, the next
     * item's keys and bounds prefetched into L2; 3: 2 without the prefetch; 4: 2 prefetching
     * only segments of more than 256 keys). Experimental. No value changes a result. */
    PP_OPTION_SEGSORT_PACK_PIPE = 30,    /* 0 .. 4 */
    /* segmented sort, HIP radix levels: how a level's buckets of at most a tile are sorted (0:
     * the device's tuning row, hip/tuning_segsort.h: groups as 2 in the segments and buckets of
     * at least its group_min keys, where it has slot costs; 1: each bucket alone, in the packed
     * class of its length; 2: in every segment and bucket, consecutive buckets in groups, each
     * sorted as one piece, where that costs fewer slots' time by the row's table, or the
     * H100's where the row has none: the keys of a bucket all come before the next one's, so a
     * group sorted is its buckets sorted). Experimental. No value changes a result. */
    PP_OPTION_SEGSORT_MSD_GROUP = 31,    /* 0 .. 2 */
    /* segmented sort, HIP: the pipelined packed kernel's second launch (0: the device's tuning,
     * hip/tuning_segsort.h: on NVIDIA sm_90 and later as a programmatic dependent launch, which
     * may start while the first one runs; 1: an ordinary launch after the first). Experimental.
     * No value changes a result. */
    PP_OPTION_SEGSORT_PIPE_PDL = 32,     /* 0 .. 1 */
    PP_OPTION_COUNT_                    /* one past the last option */
} pp_option;

typedef enum pp_hist_strategy {
    PP_HIST_STRATEGY_AUTO = 0,   /* the chooser (hip/histogram.hip) */
    PP_HIST_STRATEGY_SHARED = 1, /* per-block tables in shared memory, ranges of bins if needed */
    PP_HIST_STRATEGY_GLOBAL = 2, /* atomics straight into the counts */
    PP_HIST_STRATEGY_CLUSTER = 3, /* NVIDIA sm_90: distributed shared memory of a block cluster */
    PP_HIST_STRATEGY_U8 = 4      /* u8 samples: per-value tables folded into the bins */
} pp_hist_strategy;

/* radix sort family (issue 20) */
typedef enum pp_sort_strategy {
    PP_SORT_STRATEGY_AUTO = 0,       /* the chooser: tile sort + merge for small n, else onesweep */
    PP_SORT_STRATEGY_TILE_MERGE = 1, /* tiles radix-sorted in shared memory, bitonic merge of tiles */
    PP_SORT_STRATEGY_ONESWEEP = 2    /* onesweep LSD passes */
} pp_sort_strategy;
/* summed-area table (issue 21): how the HIP backend computes pp_summed_area_table. The
 * one-pass and two-pass forms give the same bits (the two-pass form runs the one-pass form's row
 * scan, then its column scan over the row prefixes); the reduce-then-scan form adds in another
 * order (float bits differ from theirs, within the same bound; integers are the same bits). */
typedef enum pp_sat_strategy {
    PP_SAT_STRATEGY_AUTO = 0,        /* the device's tuning row picks one of the forms below */
    PP_SAT_STRATEGY_ONE_PASS = 1,    /* tiles with a 2-D look-back: read once, written once */
    PP_SAT_STRATEGY_TWO_PASS = 2,    /* every row scanned, then every column (reads and writes twice) */
    PP_SAT_STRATEGY_REDUCE_SCAN = 3  /* bands of rows: row and column sums of every band's tiles (one
                                      * read), their scans (small arrays), then every tile's table
                                      * from its sums' prefixes (a second read, one write); no
                                      * look-back */
} pp_sat_strategy;

/* radix sort performance (issue 20, s2-sortperf): the onesweep pass's variants (the plan's
 * param[3] says which ran) */
typedef enum pp_sort_onesweep {
    PP_SORT_ONESWEEP_AUTO = 0,         /* the device's tuning row (hip/tuning_sort.h) */
    PP_SORT_ONESWEEP_RANKED = 1,       /* the counts published after the whole ranking, then the look-back */
    PP_SORT_ONESWEEP_EARLY = 2,        /* published as soon as counted; look-back after ranking and staging */
    PP_SORT_ONESWEEP_EARLY_BALLOT = 3, /* EARLY, digits matched by one ballot per bit (not match.any) */
    PP_SORT_ONESWEEP_EARLY_WINDOW = 4, /* EARLY_BALLOT, the look-back reading 4 predecessors at once */
    /* s3-sortperf2: EARLY_WINDOW in fewer instructions: the ballots' bit tests as predicates, the
     * counter adds as shared atomics, the look-back's words relaxed at device scope */
    PP_SORT_ONESWEEP_FUSED = 5
} pp_sort_onesweep;

/* Set an option on the context. Errors: PP_ERROR_INVALID_ARGUMENT (ctx NULL, unknown option,
 * value outside pp_option_bounds: the message names both). */
PP_API pp_status pp_context_set_option(pp_context *ctx, pp_option option, int64_t value);
/* The option's current value. Errors: PP_ERROR_INVALID_ARGUMENT (NULL, unknown option); the
 * context is const here, so this call leaves no message. */
PP_API pp_status pp_context_get_option(const pp_context *ctx, pp_option option, int64_t *value);
/* Bounds and default of an option (any pointer may be NULL). Errors: unknown option. */
PP_API pp_status pp_option_bounds(pp_option option, int64_t *lo, int64_t *hi, int64_t *dflt);
/* "scan_max_blocks", ...; NULL for an unknown option. */
PP_API const char *pp_option_name(pp_option option);
/* The option named `name` (as pp_option_name gives it). Errors: PP_ERROR_INVALID_ARGUMENT. */
PP_API pp_status pp_option_from_name(const char *name, pp_option *option);

/* What the last primitive call on the context chose (the plan), so that a test can tell
 * whether a forced strategy ran. Every field is set by the call; unused ones are 0 / "". */
typedef struct pp_plan {
    char family[24];     /* "reduce", "scan", "histogram", "reduce_by_index", ... */
    char strategy[24];   /* e.g. "shared", "cluster", "global", "u8", "tiles", "single_tile",
                          * "cpu" */
    uint64_t grid;       /* blocks of the main kernel (0 on the CPU) */
    uint64_t tiles;      /* tiles of the input, where the algorithm has tiles */
    int64_t param[4];    /* family-specific, documented where the plan is recorded */
} pp_plan;

/* The plan of the last primitive call on the context (a zeroed plan before the first).
 * Errors: PP_ERROR_INVALID_ARGUMENT (NULL; no message, as for pp_context_get_option). */
PP_API pp_status pp_context_last_plan(const pp_context *ctx, pp_plan *plan);

#endif /* PP_EXPERIMENTAL */

#ifdef __cplusplus
}
#endif

#endif /* PARPRIM_H */
