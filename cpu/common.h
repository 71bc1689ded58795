/*
 * common.h -- what the CPU backend's kernels share (private to cpu/): the operators of the
 * reduce and scan families, segment bounds and the plan of a segmented call, scratch with a
 * message that names the call, and the dispatch rows generated from src/type_pairs.h.
 */
#ifndef PARPRIM_CPU_COMMON_H
#define PARPRIM_CPU_COMMON_H

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cpu.h"
#include "type_pairs.h"

/* ---- operators (a is the running value, b the newer one) ---- */

#define OP_SUM(a, b) ((a) + (b))
#define OP_PROD(a, b) ((a) * (b))
#define OP_AND(a, b) ((a) & (b))
#define OP_OR(a, b) ((a) | (b))
#define OP_XOR(a, b) ((a) ^ (b))
#define OP_IMIN(a, b) ((b) < (a) ? (b) : (a))
#define OP_IMAX(a, b) ((b) > (a) ? (b) : (a))
/* Sticky NaN: b replaces a when it is better or NaN; a NaN a is never replaced by a number.
 * `|` rather than `||` keeps it branch-free, so it vectorizes as compare, or, blend. */
#define OP_FMIN(a, b) ((((b) < (a)) | ((b) != (b))) ? (b) : (a))
#define OP_FMAX(a, b) ((((b) > (a)) | ((b) != (b))) ? (b) : (a))

static inline size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Loops that vectorize: on x86-64 (gcc) the widest vectors the CPU has are chosen at load time
 * (target_clones: AVX-512, AVX2, else SSE2); every clone computes the same results. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(PP_NO_TARGET_CLONES)
#define PP_WIDE_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define PP_WIDE_CLONES
#endif

/* ---- segments of the offsets form ---- */

/* Bounds of segment s, clamped to n; len 0 for an empty (or inverted) segment. */
static inline void segment_bounds(const size_t *offsets, size_t s, size_t n, size_t *begin, size_t *len)
{
    size_t b = min_size(offsets[s], n), e = min_size(offsets[s + 1], n);
    *begin = b;
    *len = e > b ? e - b : 0;
}

/* How the segments of a segmented call are spread over the threads. */
#define CPU_TASK_BYTES ((size_t)64 << 10)     /* at least this much input per parallel task */
#define CPU_PAR_MIN_BYTES ((size_t)256 << 10) /* smaller inputs are handled by one thread */
#define CPU_LONG_SEG_BYTES ((size_t)1 << 20)  /* shortest segment worth all the threads */
struct seg_plan {
    int parallel;    /* spread the segments over the threads */
    size_t batch;    /* segments per dynamic-scheduling step */
    size_t long_len; /* segments at least this long are set aside and split over threads */
};

/* Batches sized from the mean segment length (about CPU_TASK_BYTES of input, so that many short
 * segments do not pay one scheduling step each); a segment of at least CPU_LONG_SEG_BYTES and a
 * quarter of a thread's share is long. */
static inline struct seg_plan make_seg_plan(size_t n, size_t n_segments, size_t elem_size)
{
    struct seg_plan p;
    const int threads = omp_get_max_threads();
    const size_t mean = n / n_segments; /* offsets are unchecked: only an estimate */
    const size_t batch = CPU_TASK_BYTES / elem_size / (mean > 0 ? mean : 1);
    p.batch = batch < 1 ? 1 : batch > 4096 ? 4096 : batch;
    p.parallel = threads > 1 && (n >= CPU_PAR_MIN_BYTES / elem_size || n_segments >= CPU_PAR_MIN_BYTES / 16);
    p.long_len = SIZE_MAX;
    if (threads > 1) {
        const size_t share = n / (4 * (size_t)threads);
        p.long_len = CPU_LONG_SEG_BYTES / elem_size > share ? CPU_LONG_SEG_BYTES / elem_size : share;
    }
    return p;
}

/* ---- memory ---- */

/* pp__scratch, with the message of a failure naming the entry point `fn`. */
static inline pp_status cpu_scratch(pp_context *ctx, const char *fn, size_t bytes, void **out)
{
    const pp_status st = pp__scratch(ctx, bytes, out);
    if (st != PP_OK) {
        char why[PP_MESSAGE_SIZE];
        snprintf(why, sizeof why, "%s", ctx->message);
        return pp__fail(ctx, st, "%s: %s", fn, why);
    }
    return PP_OK;
}

/* ---- dispatch rows ---- */

/* Kernel names: CPU_KERNEL(IN, OUT, op, part) is the identifier in_out_op_part for the dtype
 * enumerators IN and OUT, e.g. CPU_KERNEL(PP_F32, PP_F64, sum, run) -> f32_f64_sum_run. */
#define CPU_TN_PP_U8 u8
#define CPU_TN_PP_I32 i32
#define CPU_TN_PP_U32 u32
#define CPU_TN_PP_I64 i64
#define CPU_TN_PP_U64 u64
#define CPU_TN_PP_F32 f32
#define CPU_TN_PP_F64 f64
#define CPU_CAT_(a, b) a##b
#define CPU_CAT(a, b) CPU_CAT_(a, b)
#define CPU_CAT4(a, b, c, d) CPU_CAT(CPU_CAT(a, b), CPU_CAT(c, d))
#define CPU_TN(T) CPU_CAT(CPU_TN_, T)
#define CPU_KERNEL(IN, OUT, op, part) \
    CPU_CAT4(CPU_TN(IN), CPU_CAT(_, CPU_TN(OUT)), CPU_CAT(_, op), CPU_CAT(_, part))

/* The ops of a same-type pair: every op on integers, no bitwise op on floats. E(IN, OUT, OP,
 * op) gives one initialiser of a row indexed by pp_op (OP the enumerator's suffix). */
#define CPU_INT_OPS(E, IN, OUT)                                                                \
    E(IN, OUT, SUM, sum) E(IN, OUT, PROD, prod) E(IN, OUT, MIN, min) E(IN, OUT, MAX, max)      \
    E(IN, OUT, AND, and) E(IN, OUT, OR, or) E(IN, OUT, XOR, xor)
#define CPU_FLOAT_OPS(E, IN, OUT) E(IN, OUT, SUM, sum) E(IN, OUT, PROD, prod) E(IN, OUT, MIN, min) E(IN, OUT, MAX, max)
#define CPU_OPS_PP_U8 CPU_INT_OPS
#define CPU_OPS_PP_I32 CPU_INT_OPS
#define CPU_OPS_PP_U32 CPU_INT_OPS
#define CPU_OPS_PP_I64 CPU_INT_OPS
#define CPU_OPS_PP_U64 CPU_INT_OPS
#define CPU_OPS_PP_F32 CPU_FLOAT_OPS
#define CPU_OPS_PP_F64 CPU_FLOAT_OPS

/* CPU_DISPATCH_ROWS(E_SAME, E_WIDE): the initialisers of a table [in][out][op] (CPU_TABLE_DIMS)
 * with one entry E(IN, OUT, OP, op) for each (in, op, out) of src/type_pairs.h: every op
 * defined for the dtype on a same-type pair (E_SAME), SUM on a widening one (E_WIDE). */
#define CPU_PRAGMA(x) _Pragma(x)
#define CPU_SAME_ROW_(E, IN, OUT, in_c, out_c) [IN][OUT] = {CPU_CAT(CPU_OPS_, IN)(E, IN, OUT)},
#define CPU_WIDE_ROW_(E, IN, OUT, in_c, out_c) [IN][OUT] = {E(IN, OUT, SUM, sum)},
#define CPU_DISPATCH_ROWS(E_SAME, E_WIDE) PP_FOR_EACH_SAME(CPU_SAME_ROW_, E_SAME) PP_FOR_EACH_WIDENING(CPU_WIDE_ROW_, E_WIDE)
#define CPU_TABLE_DIMS [PP_F64 + 1][PP_F64 + 1][PP_OP_XOR + 1]

/* Whether (in, op, out) indexes a table of CPU_TABLE_DIMS. */
static inline int cpu_table_index_ok(pp_dtype in, pp_op op, pp_dtype out)
{
    return pp__dtype_valid(in) && pp__op_valid(op) && pp__dtype_valid(out) && in <= PP_F64 && out <= PP_F64 &&
           op <= PP_OP_XOR;
}

/* The message of a combination no table holds (src/ lets none through). */
static inline pp_status cpu_no_kernel(pp_context *ctx, const char *fn, pp_dtype in, pp_op op, pp_dtype out)
{
    const char *in_name = pp_dtype_name(in), *op_name = pp_op_name(op), *out_name = pp_dtype_name(out);
    return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                    "%s: the CPU backend has no kernel for op %s from in_type %s to out_type %s", fn,
                    op_name ? op_name : "?", in_name ? in_name : "?", out_name ? out_name : "?");
}

#endif
