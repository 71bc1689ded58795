/*
 * internal.h -- what the dispatch layer (src/) and the backends (cpu/, hip/) share.
 * Not installed. Plain C, usable from the HIP/CUDA C++ translation units.
 *
 * The shape follows ggml's backend interface: the context holds a pointer to one table of
 * function pointers filled by its backend; src/ checks every argument once, for every
 * backend, and then makes one indirect call. A backend entry that is NULL means the backend
 * lacks the primitive (PP_ERROR_UNSUPPORTED), never a silent fallback.
 */
#ifndef PARPRIM_INTERNAL_H
#define PARPRIM_INTERNAL_H

/* The library sees the experimental declarations (options, plans) that users opt in to. */
#ifndef PP_EXPERIMENTAL
#define PP_EXPERIMENTAL 1
#endif
#include "parprim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a backend can say about a pointer. */
typedef enum pp_ptr_kind {
    PP_PTR_UNKNOWN = 0, /* cannot tell: accept */
    PP_PTR_HOST = 1,    /* plain host memory the device cannot use */
    PP_PTR_DEVICE = 2   /* device (or managed / mapped) memory usable by kernels */
} pp_ptr_kind;

/* Arguments of the reduce family, already checked by src/. */
typedef struct pp_reduce_args {
    const void *in;
    size_t n;
    pp_dtype in_type;
    pp_op op;
    void *out;            /* one element of out_type */
    pp_dtype out_type;
    pp_result_space space;
} pp_reduce_args;

typedef struct pp_argreduce_args {
    const void *in;
    size_t n;
    pp_dtype dtype;
    pp_op op;             /* PP_OP_MIN (argmin) or PP_OP_MAX (argmax) */
    void *value;          /* one element of dtype */
    uint64_t *index;
    pp_result_space space;
} pp_argreduce_args;

typedef struct pp_segreduce_args {
    const void *in;
    size_t n;              /* elements in `in`; offsets are clamped to it */
    pp_dtype in_type;
    const size_t *offsets; /* n_segments + 1 */
    size_t n_segments;
    pp_op op;
    void *out;             /* n_segments elements of out_type */
    pp_dtype out_type;
} pp_segreduce_args;

/* Arguments of the scan family, already checked by src/. One entry serves inclusive,
 * exclusive, and both segmented forms. */
typedef struct pp_scan_args {
    const void *in;
    size_t n;
    pp_dtype in_type;
    pp_op op;
    int exclusive;               /* 0: inclusive, 1: exclusive */
    uint64_t init[1];            /* one out_type element (the op's identity if the caller gave
                                  * none; unused by inclusive scans); 8 bytes, aligned */
    const uint8_t *head_flags;   /* NULL unless segmented by flags (n bytes) */
    const size_t *offsets;       /* NULL unless segmented by offsets */
    size_t n_segments;           /* offsets has n_segments + 1 entries */
    void *out;                   /* n elements of out_type */
    pp_dtype out_type;
} pp_scan_args;

/* ---- histogram family (issue 4): arguments, already checked by src/histogram.c ---- */

/*
 * Parameters of even bins, computed once on the host by src/histogram.c; histogram_bins.h
 * holds the arithmetic that uses them (shared by every backend).
 * Float samples: x counted iff lower <= x < upper; t = (x - lower) * scale; bin = t < nbins ?
 * (uint32_t)t : nbins - 1.
 * Integer samples: x counted iff ilower <= x < iupper; with g = gcd(nbins, iupper - ilower),
 * bin = ((x - ilower) * mul) / div, mul = nbins / g, div = (iupper - ilower) / g, exact in
 * 64 bits; the division by the invariant div is a multiplication by `magic` (libdivide's
 * branch-free unsigned 64-bit algorithm).
 */
typedef struct pp_hist_even {
    uint32_t nbins;
    /* float samples */
    double lower, upper, scale;
    float flower, fupper; /* the least floats >= lower and >= upper: for an f32 x,
                             lower <= x < upper  <=>  flower <= x < fupper (the CPU's f32 loop) */
    /* f32 samples in float arithmetic (pp_hist_bin_f32): t ~ x * fscale + foff within ferr of
     * the definition's t; f32_fast == 0 where that bound is not small (then doubles only) */
    float fscale, foff, ferr;
    uint32_t f32_fast;
    /* integer samples */
    int64_t ilower, iupper;
    uint64_t mul;       /* nbins / g */
    uint64_t div;       /* (iupper - ilower) / g */
    uint64_t magic;     /* div > 1: multiplier of the branch-free division */
    uint32_t shift;     /* div > 1: final shift */
    uint32_t div_is_one;
} pp_hist_even;

typedef enum pp_hist_kind {
    PP_HIST_EVEN = 1,  /* pp_histogram_even: `even` holds the bin parameters */
    PP_HIST_RANGE = 2  /* pp_histogram_range: `edges` (nbins + 1, checked on the CPU; the HIP
                          backend checks them itself before counting) */
} pp_hist_kind;

typedef struct pp_histogram_args {
    pp_hist_kind kind;
    const void *samples;
    size_t n;
    pp_dtype sample_type; /* u8, i32, u32, f32, f64 */
    size_t nbins;         /* 1 .. PP_HISTOGRAM_MAX_BINS */
    pp_hist_even even;    /* PP_HIST_EVEN */
    const double *edges;  /* PP_HIST_RANGE */
    void *counts;         /* nbins elements of count_type, overwritten */
    pp_dtype count_type;  /* u32 or u64 */
} pp_histogram_args;

typedef struct pp_reduce_by_index_args {
    const void *values;
    size_t n;
    pp_dtype value_type;  /* i32, u32, i64, u64, f32, f64 */
    const uint32_t *indices;
    pp_op op;             /* SUM, MIN, MAX */
    void *out;            /* n_out elements of value_type, accumulated into */
    size_t n_out;
    uint64_t *n_skipped;  /* NULL, or one count (overwritten) */
} pp_reduce_by_index_args;


/* ---- compaction family (issue 19): arguments, already checked by src/compaction.c ---- */

/* What a call writes. */
typedef enum pp_compact_kind {
    PP_COMPACT_SELECT = 1,    /* out (and payload_out) = the kept elements */
    PP_COMPACT_PARTITION = 2, /* out = the kept, then the rejected, both in input order */
    PP_COMPACT_RLE = 3,       /* out = the first element of each run, lengths = run lengths */
    PP_COMPACT_WHERE = 4      /* indices = the positions of the kept elements */
} pp_compact_kind;

/* Which elements are kept: flags[i] != 0, the predicate, or the first of each run of equal
 * keys (pp_unique is PP_COMPACT_SELECT with PP_KEEP_RUN_HEAD). */
typedef enum pp_keep_mode { PP_KEEP_FLAGS = 1, PP_KEEP_PRED = 2, PP_KEEP_RUN_HEAD = 3 } pp_keep_mode;

/* A predicate compiled for its dtype by src/compaction.c (src/compaction_keep.h evaluates it,
 * the same code on every backend). */
typedef struct pp_keep_pred {
    uint64_t lo, hi;  /* kept when lo <= key(x) <= hi (pp_cmp_key), ... */
    uint32_t invert;  /* ... or, with invert, when it is not ... */
    uint32_t nan_val; /* ... and a NaN x is kept iff nan_val */
} pp_keep_pred;

typedef struct pp_compact_args {
    pp_compact_kind kind;
    pp_keep_mode keep;
    const void *in;       /* n elements of dtype (NULL for PP_KEEP_FLAGS where only indices go out) */
    size_t n;
    pp_dtype dtype;
    const uint8_t *flags; /* PP_KEEP_FLAGS */
    pp_keep_pred pred;    /* PP_KEEP_PRED */
    const void *payload;  /* NULL, or n elements of payload_size bytes */
    size_t payload_size;  /* 0, 1, 4 or 8 */
    void *out;            /* values (not for WHERE) */
    void *payload_out;
    void *indices;        /* WHERE: index_size (4 or 8) bytes each */
    size_t index_size;
    void *lengths;        /* RLE: length_size (4 or 8) bytes each */
    size_t length_size;
    uint64_t *count;
    pp_result_space space;
} pp_compact_args;
/* ---- radix sort family (issue 20): arguments, already checked by src/sort.c ---- */

/* One entry serves pp_sort_keys, pp_sort_pairs and pp_argsort. The keys are ordered by the bits
 * [begin_bit, end_bit) of their sort encoding (src/key_encoding.h, pp_sort_key_u32 / _u64),
 * complemented when descending; the range is resolved here (whole key: [0, width)). */
typedef struct pp_sort_args {
    const void *keys_in;
    void *keys_out;        /* NULL for pp_argsort (the keys are not written) */
    const void *values_in; /* NULL with values_out set: the values are the indices 0, 1, ... */
    void *values_out;      /* NULL for pp_sort_keys */
    size_t n;              /* > 0 */
    pp_dtype key_type;
    size_t value_size;     /* 0 (keys only), 1, 4 or 8 bytes */
    int descending;
    int begin_bit, end_bit; /* 0 <= begin_bit <= end_bit <= the key's width */
} pp_sort_args;
/* ---- segmented sort (issue 22): arguments, already checked by src/segsort.c ---- */

/* Segment s is [min(offsets[s], n), min(offsets[s+1], n)) (empty when the end is not above the
 * begin), or with offsets NULL [s * segment_length, (s + 1) * segment_length). */
typedef struct pp_segsort_args {
    const void *keys_in;
    void *keys_out;
    const void *values_in; /* NULL for keys only */
    void *values_out;
    size_t n;              /* > 0 */
    pp_dtype key_type;
    size_t value_size;     /* 0 (keys only), 1, 4 or 8 bytes */
    const size_t *offsets; /* NULL: the fixed form */
    size_t n_segments;     /* > 0 */
    size_t segment_length; /* the fixed form's (> 0; n == n_segments * segment_length) */
    int descending;
} pp_segsort_args;
/* ---- summed-area table, axis scans, transpose (issue 21): arguments checked by src/sat.c ---- */

/* What a 2-D call computes. */
typedef enum pp_grid_kind {
    PP_GRID_SCAN_ROWS = 1, /* every row scanned (pp_axis_scan, PP_AXIS_ROWS) */
    PP_GRID_SCAN_COLS = 2, /* every column scanned (pp_axis_scan, PP_AXIS_COLS) */
    PP_GRID_SAT = 3        /* summed-area table (op SUM, inclusive); `integral`: the zero border */
} pp_grid_kind;

typedef struct pp_grid_args {
    pp_grid_kind kind;
    const void *in;
    size_t rows, cols;     /* both > 0 (src/ returns earlier for empty matrices, after writing
                            * an integral table's border) */
    size_t in_pitch;       /* elements */
    pp_dtype in_type;
    pp_op op;
    int exclusive;
    uint64_t init[1];      /* exclusive scans: one out_type element (identity if none given) */
    void *out;             /* element (0, 0) of the table proper (for the integral form, the
                            * element after the zero row and column) */
    size_t out_pitch;
    pp_dtype out_type;
    int integral;          /* PP_GRID_SAT: out - out_pitch - 1 starts the integral image, whose
                            * zero row and column the backend writes */
} pp_grid_args;

typedef struct pp_transpose_args {
    const void *in;
    size_t rows, cols, in_pitch; /* rows, cols > 0 */
    void *out;
    size_t out_pitch;
    size_t esize;                /* 1, 4 or 8 */
    size_t batch;                /* > 0 */
} pp_transpose_args;

struct pp_backend_ops {
    const char *name;
    /* Number of usable devices (1 for the CPU). */
    int (*device_count)(void);
    /* Fill ctx->device_name, ctx->backend_state, ctx->stream; ctx->device is set. */
    pp_status (*context_init)(pp_context *ctx);
    void (*context_fini)(pp_context *ctx);
    pp_status (*set_stream)(pp_context *ctx, void *stream); /* NULL: the context's own */
    pp_status (*synchronize)(pp_context *ctx);

    pp_status (*mem_alloc)(pp_context *ctx, void **ptr, size_t bytes);
    pp_status (*mem_free)(pp_context *ctx, void *ptr);
    pp_status (*mem_copy)(pp_context *ctx, void *dst, const void *src, size_t bytes,
                          pp_copy_kind kind);
    pp_status (*mem_set)(pp_context *ctx, void *ptr, int value, size_t bytes);
    /* What `ptr` is; for device memory whose allocation the runtime can tell, also that
     * allocation's first byte and size (*base = NULL, *size = 0 where it cannot). */
    pp_ptr_kind (*pointer_kind)(pp_context *ctx, const void *ptr, const void **base, size_t *size);

    pp_status (*reduce)(pp_context *ctx, const pp_reduce_args *a);
    pp_status (*argreduce)(pp_context *ctx, const pp_argreduce_args *a);
    pp_status (*segmented_reduce)(pp_context *ctx, const pp_segreduce_args *a);
    pp_status (*scan)(pp_context *ctx, const pp_scan_args *a);


    /* histogram family (issue 4) */
    pp_status (*histogram)(pp_context *ctx, const pp_histogram_args *a);
    pp_status (*reduce_by_index)(pp_context *ctx, const pp_reduce_by_index_args *a);

    /* compaction family (issue 19) */
    pp_status (*compact)(pp_context *ctx, const pp_compact_args *a);
    /* radix sort family (issue 20) */
    pp_status (*sort)(pp_context *ctx, const pp_sort_args *a);
    /* summed-area table, axis scans, transpose (issue 21) */
    pp_status (*grid_scan)(pp_context *ctx, const pp_grid_args *a);
    pp_status (*transpose)(pp_context *ctx, const pp_transpose_args *a);
    /* segmented sort (issue 22) */
    pp_status (*segmented_sort)(pp_context *ctx, const pp_segsort_args *a);
    /* host memory for staging copies (pp_host_malloc: pinned on HIP; issue 23) */
    pp_status (*host_alloc)(pp_context *ctx, void **ptr, size_t bytes);
    pp_status (*host_free)(pp_context *ctx, void *ptr);
};

#define PP_MESSAGE_SIZE 512

struct pp_context {
    const struct pp_backend_ops *ops;
    pp_backend backend;
    int device;
    char device_name[256];
    void *stream;          /* the stream calls go to (backend's type, opaque here) */
    void *backend_state;   /* owned by the backend */

    /* Scratch arena in the context's space. */
    void *scratch;
    size_t scratch_size;
    int scratch_is_caller_owned;

    /* Device allocations (or, where the runtime cannot tell the extent, single pointers)
     * the backend recently described: the space and extent checks of a call are runtime
     * queries (about a microsecond each on CUDA), repeated on every small call otherwise.
     * A pointer inside [base, base + size) hits; size 0 matches `base` only. pp_free and
     * pp_context_set_scratch clear it. */
    struct pp_known_ptr {
        const void *base;
        size_t size;
    } known_device[4];
    unsigned known_next;

    /* The call in progress: its failure message ("" while it has not failed). Cleared by
     * PP_ENTER; backends and src/ test it to tell whether the call already said why. */
    char message[PP_MESSAGE_SIZE];
    /* What pp_context_last_error returns: the message of the last failed call, kept until
     * the next failure (pp__fail copies `message` here). */
    char last_error[PP_MESSAGE_SIZE];

    /* Experimental options (pp_context_set_option), indexed by pp_option; defaults from
     * pp_option_bounds. Read through pp__option(). */
    int64_t options[PP_OPTION_COUNT_];
    /* What the last primitive call chose (pp__set_plan). */
    pp_plan plan;
};

/* The value of an experimental option on ctx. */
static inline int64_t pp__option(const pp_context *ctx, pp_option o) { return ctx->options[o]; }

/* Test hook (PP_OPTION_FAIL_ALLOC): every allocation a call makes (host or device: scratch,
 * staging, private tables, pp_malloc) asks this first and fails with PP_ERROR_OUT_OF_MEMORY
 * when it returns nonzero. Counts allocations down; 0 when the hook is off. */
int pp__alloc_fails(pp_context *ctx);

/* Allocate `bytes` in the context's space through the backend, honouring the hook; on failure
 * PP_ERROR_OUT_OF_MEMORY with a message naming `what`. */
pp_status pp__mem_alloc(pp_context *ctx, void **ptr, size_t bytes, const char *what);
/* The same through another of the backend's allocators (host_alloc: pp_host_malloc). */
pp_status pp__alloc_with(pp_context *ctx, void **ptr, size_t bytes, const char *what,
                         pp_status (*alloc)(pp_context *ctx, void **ptr, size_t bytes));

/* Record the plan of the call in progress (pp_context_last_plan). family and strategy are
 * copied (truncated to the plan's fields). */
void pp__set_plan(pp_context *ctx, const char *family, const char *strategy, uint64_t grid,
                  uint64_t tiles, int64_t p0, int64_t p1, int64_t p2, int64_t p3);

/* The preamble of every entry point that takes a context: a NULL context cannot hold a
 * message, so the call only returns PP_ERROR_INVALID_ARGUMENT; otherwise the message of the
 * call in progress starts empty (pp_context_last_error keeps the last failure's). */
#define PP_ENTER(ctx)                                       \
    do {                                                    \
        if (!(ctx)) return PP_ERROR_INVALID_ARGUMENT;       \
        (ctx)->message[0] = '\0';                           \
    } while (0)

/* Record a failure on ctx (printf-style message naming the argument and the reason) and
 * return `status`, so that a backend can write `return pp__fail(ctx, PP_ERROR_..., ...)`.
 * The message also becomes pp_context_last_error's. */
pp_status pp__fail(pp_context *ctx, pp_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Scratch memory of at least `bytes` (256-byte aligned) in the context's space, valid until
 * the next call that asks for scratch. Grows the arena (after synchronizing) when needed;
 * with a caller-owned buffer that is too small, fails with PP_ERROR_OUT_OF_MEMORY. */
pp_status pp__scratch(pp_context *ctx, size_t bytes, void **out);

/* PP_ERROR_WRONG_MEMORY_SPACE with a message naming `fn` and `arg` when the backend can
 * tell that `p` is not in the context's space; PP_OK otherwise (p may be NULL). */
pp_status pp__check_in_space(pp_context *ctx, const char *fn, const char *arg, const void *p);

/* The array argument `arg` = p of `count` elements of `size` bytes, `count` being the
 * argument (or expression) named `count_arg`. With count > 0 (p not NULL: the caller checks
 * that first), PP_ERROR_INVALID_ARGUMENT naming `count_arg` and `arg` when count * size
 * overflows size_t, when [p, p + count * size) runs past the end of the address space, or
 * when the backend can tell p's allocation and the range runs past its end; then the space
 * check of pp__check_in_space. count == 0: PP_OK. */
pp_status pp__check_array(pp_context *ctx, const char *fn, const char *arg, const void *p, size_t count,
                          size_t size, const char *count_arg);

/* Sets of dtypes for pp__check_dtype: bit t is dtype t. */
#define PP_DT(t) (1u << (t))
#define PP_DT_ALL (PP_DT(PP_U8) | PP_DT(PP_I32) | PP_DT(PP_U32) | PP_DT(PP_I64) | PP_DT(PP_U64) | \
                   PP_DT(PP_F32) | PP_DT(PP_F64))
/* PP_ERROR_INVALID_ARGUMENT naming `arg` when `t` is not a dtype ("has unknown value") or
 * not in `allowed` (the message lists the set); PP_OK otherwise. */
pp_status pp__check_dtype(pp_context *ctx, const char *fn, const char *arg, pp_dtype t, unsigned allowed);

/* Facts about dtypes and ops shared by every backend (src/types.c). */
int pp__dtype_valid(pp_dtype t);
int pp__dtype_is_float(pp_dtype t);
int pp__dtype_is_signed(pp_dtype t);
int pp__op_valid(pp_op op);
/* Whether `op` is defined for dtype `t` (bitwise ops on integers only). */
int pp__op_defined(pp_op op, pp_dtype t);
/* Whether a reduction with `op` from in_type may produce out_type. */
int pp__reduce_out_allowed(pp_op op, pp_dtype in_type, pp_dtype out_type);
/* "u8->u32, u8->u64, ..." : the widening sums of type_pairs.h, for messages. */
void pp__widenings_text(char *buf, size_t size);
/* Checks of (in_type, op, out_type) shared by the reduce and scan families (src/reduce.c):
 * valid dtypes and op, op defined for in_type, out_type allowed (pp__reduce_out_allowed).
 * `fn` names the entry point in the message. */
pp_status pp__check_op_types(pp_context *ctx, const char *fn, pp_dtype in_type, pp_op op,
                             pp_dtype out_type);

/* The offsets argument of the segmented calls (n_segments + 1 entries): NULL with
 * n_segments > 0, n_segments == SIZE_MAX, sizes, space (src/reduce.c). */
pp_status pp__check_offsets(pp_context *ctx, const char *fn, const size_t *offsets, size_t n_segments);

/* Whether the byte ranges [a, a + an) and [b, b + bn) share a byte (empty ranges never do). */
static inline int pp__overlaps(const void *a, size_t an, const void *b, size_t bn)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    if (an == 0 || bn == 0) return 0;
    return x < y + bn && y < x + an;
}

/* Return the status of `x` from the enclosing function unless it is PP_OK. */
#define PP_TRY(x)                         \
    do {                                  \
        pp_status st_ = (x);              \
        if (st_ != PP_OK) return st_;     \
    } while (0)

/* Write the identity of `op` for dtype `t` (one element of t) to `out`. */
void pp__identity(pp_op op, pp_dtype t, void *out);

/* The backends compiled into this library. */
extern const struct pp_backend_ops pp_cpu_backend;
#ifdef PP_HAVE_HIP
extern const struct pp_backend_ops pp_hip_backend;
#endif

#ifdef __cplusplus
}
#endif

#endif
