/*
 * reduce.c -- the reduce family on the CPU (OpenMP): reduce, argmin/argmax, segmented reduce.
 *
 * Every (input type, op, output type) the API offers is stamped out from one definition, the
 * template header cpu/reduce_impl.h (argmin / argmax: cpu/reduce_arg_impl.h), included once
 * per kernel (through cpu/reduce_int.h and cpu/reduce_float.h for each type) with its
 * accumulator type A:
 *   integer sum / prod   A = the unsigned type of the output's width, so that wrapping is
 *                        defined behaviour (a signed result is the same bits);
 *   integer min / max    A = the input type;   and / or / xor: A = unsigned of its width;
 *   floats               A = the output type (f32 -> f64 converts each element exactly).
 *
 * Order of evaluation (float sum and prod; every other op is exact and order-free).
 * The input is cut into chunks of ORD_CHUNK = 256 elements at multiples of 256 from the
 * start. A chunk is reduced by ORD_LANES = 16 independent accumulators (lane l takes the
 * elements l, l+16, l+32, ... of the chunk's full rows of 16, in order; this loop
 * vectorizes), then a halving tree over the 16 lanes; the elements after the last full row
 * (fewer than 16, only in the input's last chunk) are added in order and joined last. The
 * chunk results are combined by the left-complete pairwise tree over all chunks (the tree
 * of the in-place loop "for s = 1, 2, 4, ...: p[i] op= p[i+s]"), computed by a
 * binary-counter accumulator in O(log n) memory. Aligned runs of 2^k chunks are subtrees of
 * that tree, so the parallel version hands such runs to the threads and combines their
 * results with the same counter: the bits do not depend on the thread count or on how the
 * work is split (pp_reduce, a segment of pp_segmented_reduce over the same elements, any
 * OMP_NUM_THREADS: all give the same bits).
 * Rounding depth: an element of a full row passes through at most 15 sequential adds in
 * its lane (the first, onto the lane's first element, is the first rounding) and 4 levels
 * of the lane tree; a tail element through at most 14 adds and the join. Then come
 * ceil(log2(ceil(n / 256))) = max(0, ceil(log2 n) - 8) chunk-tree levels, so
 *     D(n) <= ceil(log2 n) + 11   (n >= 256);     D(n) <= 19   (n < 256; n < 16: n - 1),
 * within the API's ceil(log2 n) + PP_SUM_DEPTH_SLACK (48).
 *
 * Float min / max propagate NaN with a sticky select (a NaN accumulator never leaves).
 * argmin / argmax: per block of FLAT_CHUNK elements, the block's min (max) by the same
 * vectorized kernel; only when it beats the thread's best so far is the block searched
 * (in L1) for the first element equal to it (or the first NaN). Thread results are merged
 * by (value, index) with NaN the most extreme and the lower index winning ties, so the
 * answer is the unique "first extreme element" whatever the split.
 *
 * Segmented reduce: segments are spread over the threads with dynamic scheduling in
 * batches sized from the mean segment length (about CPU_TASK_BYTES of input per batch, so many
 * short segments do not pay one scheduling step each). A segment long enough to be worth
 * splitting (>= CPU_LONG_SEG_BYTES and >= n / (4 * threads)) is set aside and then reduced by
 * all threads on its own, with the same tree as above.
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "common.h"

#define ORD_LANES 16        /* accumulators of the ordered (float sum/prod) chunk kernel */
#define ORD_CHUNK 256       /* elements per ordered chunk: 16 per lane */
#define FLAT_CHUNK 4096     /* elements per chunk of the order-free ops; also argmin's block */
#define MAX_TASKS 1024      /* parallel tasks of one reduce: a stack array of partials */
#define SEG_MAX_DEFERRED 64 /* long segments set aside; more are done in place */
#define NO_INDEX UINT64_MAX

/* argmin / argmax (reduce_arg_impl.h) */
#define IS_NAN_FLOAT(v) ((v) != (v))
#define IS_NAN_NONE(v) 0
#define LESS(a, b) ((a) < (b))
#define GREATER(a, b) ((a) > (b))

/* ---- helpers shared by every instantiation ---- */

/* Whether `n` elements of `size` bytes are worth the threads. */
static inline int use_threads(size_t n, size_t size)
{
    return n >= CPU_PAR_MIN_BYTES / size && omp_get_max_threads() > 1;
}

/* Chunks per parallel task: a power of two (so a task is a subtree of the chunk tree), at
 * least CPU_TASK_BYTES of input, and at most MAX_TASKS tasks. */
static size_t task_chunks(size_t n_chunks, size_t chunk_elems, size_t elem_size)
{
    size_t g = 1;
    while (g * chunk_elems * elem_size < CPU_TASK_BYTES) g *= 2;
    while ((n_chunks + g - 1) / g > MAX_TASKS) g *= 2;
    return g;
}

/* Queue segment s for the all-threads pass; 0 when the queue is full (then the caller
 * reduces it in place: only possible with overlapping, i.e. invalid, offsets). */
static int defer_segment(size_t *queue, size_t *count, size_t s)
{
    int queued = 0;
#pragma omp critical(pp_cpu_segmented_defer)
    {
        if (*count < SEG_MAX_DEFERRED) {
            queue[(*count)++] = s;
            queued = 1;
        }
    }
    return queued;
}


/*
 * The flavours. gcc 12 (-O3, SSE2 baseline) vectorizes each op best through a different
 * shape of the lane loop. One thread, 64 KiB in cache, on this machine (AMD EPYC, 2 cores):
 *   ORDERED  float sum / prod: 16 lanes, unrolled (registers)     f32 sum ~60 GB/s, f64 ~55,
 *                                                                 f32->f64 ~25, f32 prod ~29
 *   FLAT     4- and 8-byte integers: a 64-byte row, unrolled      i32 sum ~100, u64 xor ~95,
 *                                                                 i32 max ~28, i64 min ~40
 *   SELECT   float min / max: a 128-byte row, loop-vectorized     f32 max ~24 (unrolled: ~3)
 *   BYTES    u8 -> u8: one lane, i.e. gcc's vectorized reduction  u8 sum ~50, u8 max ~28
 *                                                                 (a 64-lane u8 row: 4-6)
 *   U8_WIDEN u8 -> u32/u64 sums: 32 16-bit lanes, loop-vectorized ~44 (32-bit lanes: ~12)
 * Memory streams ~20-23 GB/s to one thread here and ~30-40 GB/s to two, so every shape
 * leaves a two-thread reduce memory-bound.
 */
/* u8 sums add in 16-bit lanes: a lane sees FLAT_CHUNK / 32 elements of at most 255. */
_Static_assert(FLAT_CHUNK / 32 * 255 <= UINT16_MAX, "u8 sum lanes would overflow");

/* ---- instantiations: the template headers, once per kernel ---- */

/* u8 -> u8: BYTES (one lane: gcc's vectorized reduction); the other integers: FLAT (64-byte rows) */
#define TN u8_u8
#define T uint8_t
#define U uint8_t
#define TMIN 0
#define TMAX UINT8_MAX
#define ROW_BYTES 1
#define ROW_LOOP "GCC unroll 1"
#include "reduce_int.h"
#define TN i32_i32
#define T int32_t
#define U uint32_t
#define TMIN INT32_MIN
#define TMAX INT32_MAX
#define ROW_BYTES 64
#define ROW_LOOP "GCC unroll 64"
#include "reduce_int.h"
#define TN u32_u32
#define T uint32_t
#define U uint32_t
#define TMIN 0
#define TMAX UINT32_MAX
#define ROW_BYTES 64
#define ROW_LOOP "GCC unroll 64"
#include "reduce_int.h"
#define TN i64_i64
#define T int64_t
#define U uint64_t
#define TMIN INT64_MIN
#define TMAX INT64_MAX
#define ROW_BYTES 64
#define ROW_LOOP "GCC unroll 64"
#include "reduce_int.h"
#define TN u64_u64
#define T uint64_t
#define U uint64_t
#define TMIN 0
#define TMAX UINT64_MAX
#define ROW_BYTES 64
#define ROW_LOOP "GCC unroll 64"
#include "reduce_int.h"
#define TN f32_f32
#define T float
#include "reduce_float.h"
#define TN f64_f64
#define T double
#include "reduce_float.h"

/* Widening sums (a signed element converts to the wider unsigned type modulo 2^64, i.e.
 * sign-extended): u8 in 32 16-bit lanes, loop-vectorized (U8_WIDEN); i32 and u32 in 64-byte
 * rows; f32 -> f64 in the ordered kernel. */
#define LANES 32
#define CHUNK FLAT_CHUNK
#define LANE_LOOP "GCC unroll 1"
#define IN uint8_t
#define NAME u8_u32_sum
#define A uint32_t
#define LT uint16_t
#define OP OP_SUM
#define IDENT 0
#include "reduce_impl.h"
#define IN uint8_t
#define NAME u8_u64_sum
#define A uint64_t
#define LT uint16_t
#define OP OP_SUM
#define IDENT 0
#include "reduce_impl.h"
#undef LANES
#undef LANE_LOOP
#define LANES (64 / sizeof(A))
#define LANE_LOOP "GCC unroll 64"
#define IN int32_t
#define NAME i32_i64_sum
#define A uint64_t
#define OP OP_SUM
#define IDENT 0
#include "reduce_impl.h"
#define IN uint32_t
#define NAME u32_u64_sum
#define A uint64_t
#define OP OP_SUM
#define IDENT 0
#include "reduce_impl.h"
#undef LANES
#undef CHUNK
#define LANES ORD_LANES
#define CHUNK ORD_CHUNK
#define IN float
#define NAME f32_f64_sum
#define A double
#define OP OP_SUM
#define IDENT 0
#include "reduce_impl.h"
#undef LANES
#undef CHUNK
#undef LANE_LOOP

/* ---- dispatch tables ---- */

struct reduce_impl {
    void (*reduce)(const void *in, size_t n, void *out);
    void (*segmented)(const void *in, size_t n, const size_t *offsets, size_t n_segments, void *out);
};

/* [in][out][op]: every combination of src/type_pairs.h */
#define REDUCE_ENTRY(IN, OUT, OP, op) \
    [PP_OP_##OP] = {CPU_KERNEL(IN, OUT, op, reduce), CPU_KERNEL(IN, OUT, op, segmented)},
static const struct reduce_impl reduce_impls CPU_TABLE_DIMS = {CPU_DISPATCH_ROWS(REDUCE_ENTRY, REDUCE_ENTRY)};

/* [dtype][0 = argmin, 1 = argmax] */
#define ARG_ROW(A_, IN, OUT, in_c, out_c) [IN] = {CPU_KERNEL(IN, OUT, argmin, arg), CPU_KERNEL(IN, OUT, argmax, arg)},
static void (*const arg_impls[PP_F64 + 1][2])(const void *, size_t, void *, uint64_t *) = {
    PP_FOR_EACH_SAME(ARG_ROW, _)};

/* The kernel for a combination src/ has already validated; NULL if there is none. */
static const struct reduce_impl *find_impl(pp_dtype in, pp_op op, pp_dtype out)
{
    if (!cpu_table_index_ok(in, op, out)) return NULL;
    const struct reduce_impl *r = &reduce_impls[in][out][op];
    return r->reduce ? r : NULL;
}

/* The plan of a reduce-family call: strategy "cpu", param[0] = the threads it may use. */
static void reduce_plan(pp_context *ctx, const char *family, size_t n, pp_dtype in_type)
{
    pp__set_plan(ctx, family, "cpu", 0, 0, use_threads(n, pp_dtype_size(in_type)) ? omp_get_max_threads() : 1, 0, 0,
                 0);
}

pp_status pp__cpu_reduce(pp_context *ctx, const pp_reduce_args *a)
{
    const struct reduce_impl *impl = find_impl(a->in_type, a->op, a->out_type);
    if (!impl) return cpu_no_kernel(ctx, "pp_reduce", a->in_type, a->op, a->out_type);
    reduce_plan(ctx, "reduce", a->n, a->in_type);
    /* Both result spaces are host memory here. */
    impl->reduce(a->in, a->n, a->out);
    return PP_OK;
}

pp_status pp__cpu_argreduce(pp_context *ctx, const pp_argreduce_args *a)
{
    const char *fn = a->op == PP_OP_MAX ? "pp_argmax" : "pp_argmin";
    if (!pp__dtype_valid(a->dtype) || (a->op != PP_OP_MIN && a->op != PP_OP_MAX))
        return cpu_no_kernel(ctx, fn, a->dtype, a->op, a->dtype);
    reduce_plan(ctx, "argreduce", a->n, a->dtype);
    arg_impls[a->dtype][a->op == PP_OP_MAX](a->in, a->n, a->value, a->index);
    return PP_OK;
}

pp_status pp__cpu_segmented_reduce(pp_context *ctx, const pp_segreduce_args *a)
{
    const struct reduce_impl *impl = find_impl(a->in_type, a->op, a->out_type);
    if (!impl) return cpu_no_kernel(ctx, "pp_segmented_reduce", a->in_type, a->op, a->out_type);
    const int threads = a->n_segments ? make_seg_plan(a->n, a->n_segments, pp_dtype_size(a->in_type)).parallel : 0;
    pp__set_plan(ctx, "segmented_reduce", "cpu", 0, 0, threads ? omp_get_max_threads() : 1, 0, 0, 0);
    if (a->n_segments == 0) return PP_OK;
    impl->segmented(a->in, a->n, a->offsets, a->n_segments, a->out);
    return PP_OK;
}
