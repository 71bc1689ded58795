/*
 * reduce.c -- the reduce family on the CPU (OpenMP): reduce, argmin/argmax, segmented reduce.
 *
 * Every (input type, op, output type) the API offers is stamped out from one definition
 * (DEFINE_REDUCE) with its accumulator type A:
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
 * batches sized from the mean segment length (about TASK_BYTES of input per batch, so many
 * short segments do not pay one scheduling step each). A segment long enough to be worth
 * splitting (>= LONG_SEG_BYTES and >= n / (4 * threads)) is set aside and then reduced by
 * all threads on its own, with the same tree as above.
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "cpu.h"

#define ORD_LANES 16        /* accumulators of the ordered (float sum/prod) chunk kernel */
#define ORD_CHUNK 256       /* elements per ordered chunk: 16 per lane */
#define FLAT_CHUNK 4096     /* elements per chunk of the order-free ops; also argmin's block */
#define MAX_TASKS 1024      /* parallel tasks of one reduce: a stack array of partials */
#define TASK_BYTES ((size_t)64 << 10)      /* at least this much input per parallel task */
#define PAR_MIN_BYTES ((size_t)256 << 10)  /* smaller inputs are reduced by one thread */
#define LONG_SEG_BYTES ((size_t)1 << 20)   /* shortest segment reduced by all threads */
#define SEG_MAX_DEFERRED 64 /* long segments set aside; more are done in place */
#define NO_INDEX UINT64_MAX

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

#define IS_NAN_FLOAT(v) ((v) != (v))
#define IS_NAN_NONE(v) 0
#define LESS(a, b) ((a) < (b))
#define GREATER(a, b) ((a) > (b))

/* ---- helpers shared by every instantiation ---- */

static inline size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Whether `n` elements of `size` bytes are worth the threads. */
static inline int use_threads(size_t n, size_t size)
{
    return n >= PAR_MIN_BYTES / size && omp_get_max_threads() > 1;
}

/* Chunks per parallel task: a power of two (so a task is a subtree of the chunk tree), at
 * least TASK_BYTES of input, and at most MAX_TASKS tasks. */
static size_t task_chunks(size_t n_chunks, size_t chunk_elems, size_t elem_size)
{
    size_t g = 1;
    while (g * chunk_elems * elem_size < TASK_BYTES) g *= 2;
    while ((n_chunks + g - 1) / g > MAX_TASKS) g *= 2;
    return g;
}

/* Bounds of segment s, clamped to n; len 0 for an empty (or inverted) segment. */
static inline void segment_bounds(const size_t *offsets, size_t s, size_t n, size_t *begin,
                                  size_t *len)
{
    size_t b = min_size(offsets[s], n), e = min_size(offsets[s + 1], n);
    *begin = b;
    *len = e > b ? e - b : 0;
}

struct seg_plan {
    int parallel;    /* spread the segments over the threads */
    size_t batch;    /* segments per dynamic-scheduling step */
    size_t long_len; /* segments at least this long are set aside and split over threads */
};

static struct seg_plan make_seg_plan(size_t n, size_t n_segments, size_t elem_size)
{
    struct seg_plan p;
    int threads = omp_get_max_threads();
    size_t mean = n / n_segments; /* offsets are unchecked: only an estimate */
    size_t batch = TASK_BYTES / elem_size / (mean > 0 ? mean : 1);
    p.batch = batch < 1 ? 1 : batch > 4096 ? 4096 : batch;
    p.parallel = threads > 1 && (n >= PAR_MIN_BYTES / elem_size || n_segments >= PAR_MIN_BYTES / 16);
    p.long_len = SIZE_MAX;
    if (threads > 1) {
        size_t share = n / (4 * (size_t)threads);
        p.long_len = LONG_SEG_BYTES / elem_size > share ? LONG_SEG_BYTES / elem_size : share;
    }
    return p;
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
 * DEFINE_REDUCE(NAME, IN, LT, A, OP, IDENT, LANES, CHUNK, LANE_LOOP) defines, for input
 * type IN reduced in accumulator type A:
 *   NAME_short(x, n)       n < LANES elements, in order
 *   NAME_base(x, n)        n <= CHUNK elements: full rows of LANES into LANES accumulators
 *                          of type LT (A, or a narrower type that cannot overflow within a
 *                          chunk), converted to A for a halving tree; then the tail in order
 *   NAME_serial(x, n)      chunks of CHUNK, combined by the pairwise chunk tree
 *   NAME_range(x, n, par)  the same value, computed by all threads when par and n is large
 *   NAME_reduce, NAME_segmented: the entries of the dispatch table.
 * LANES is a power of two from 1 to 64. LANE_LOOP is the pragma for the loop over the
 * lanes: "GCC unroll 64" unrolls it for the basic-block vectorizer, which keeps the
 * accumulators in registers; "GCC unroll 1" leaves it to the loop vectorizer, which is the
 * one that handles the NaN-aware select and the u8 widening (the accumulators then live in
 * L1, cheap next to the memory stream). NAME_base is kept out of line so that its
 * vectorization does not depend on the caller it would be inlined into.
 */
#define DEFINE_REDUCE(NAME, IN, LT, A, OP, IDENT, LANES, CHUNK, LANE_LOOP)                       \
    static inline LT NAME##_lane_op(LT a, LT b) { return (LT)OP(a, b); }                        \
    static inline A NAME##_op(A a, A b) { return (A)OP(a, b); }                                  \
                                                                                                 \
    /* Fewer than LANES elements: one sequential pass (also inlined for short segments). */    \
    static inline A NAME##_short(const IN *x, size_t n)                                          \
    {                                                                                            \
        A r = (IDENT);                                                                           \
        for (size_t i = 0; i < n; ++i) r = NAME##_op(r, (A)x[i]);                                \
        return r;                                                                                \
    }                                                                                            \
                                                                                                 \
    static __attribute__((noinline)) A NAME##_base(const IN *restrict x, size_t n)               \
    {                                                                                            \
        if (n < (LANES)) return NAME##_short(x, n);                                              \
        LT lane[LANES];                                                                          \
        for (size_t l = 0; l < (LANES); ++l) lane[l] = (LT)x[l];                                 \
        size_t i = (LANES);                                                                      \
        for (; i + (LANES) <= n; i += (LANES)) {                                                 \
            _Pragma(LANE_LOOP)                                                                   \
            for (size_t l = 0; l < (LANES); ++l) lane[l] = NAME##_lane_op(lane[l], (LT)x[i + l]); \
        }                                                                                        \
        A acc[LANES];                                                                            \
        for (size_t l = 0; l < (LANES); ++l) acc[l] = (A)lane[l];                                \
        if ((LANES) > 32) for (size_t l = 0; l < 32; ++l) acc[l] = NAME##_op(acc[l], acc[l + 32]); \
        if ((LANES) > 16) for (size_t l = 0; l < 16; ++l) acc[l] = NAME##_op(acc[l], acc[l + 16]); \
        if ((LANES) > 8) for (size_t l = 0; l < 8; ++l) acc[l] = NAME##_op(acc[l], acc[l + 8]);    \
        if ((LANES) > 4) for (size_t l = 0; l < 4; ++l) acc[l] = NAME##_op(acc[l], acc[l + 4]);    \
        if ((LANES) > 2) for (size_t l = 0; l < 2; ++l) acc[l] = NAME##_op(acc[l], acc[l + 2]);    \
        if ((LANES) > 1) for (size_t l = 0; l < 1; ++l) acc[l] = NAME##_op(acc[l], acc[l + 1]);    \
        A r = acc[0];                                                                            \
        if (i < n) { /* fewer than LANES left: one sequential tail, joined last */              \
            A t = (A)x[i];                                                                       \
            for (++i; i < n; ++i) t = NAME##_op(t, (A)x[i]);                                     \
            r = NAME##_op(r, t);                                                                 \
        }                                                                                        \
        return r;                                                                                \
    }                                                                                            \
                                                                                                 \
    /* Binary counter of subtree results: slot[l] holds a complete subtree of 2^l leaves. */    \
    static inline void NAME##_push(A *slot, uint64_t *count, A v)                                \
    {                                                                                            \
        uint64_t c = *count;                                                                     \
        unsigned l = 0;                                                                          \
        for (; c & 1u; c >>= 1, ++l) v = NAME##_op(slot[l], v);                                  \
        slot[l] = v;                                                                             \
        ++*count;                                                                                \
    }                                                                                            \
    /* The root: the partial subtrees joined from the smallest (rightmost) one up. */           \
    static inline A NAME##_root(const A *slot, uint64_t count)                                   \
    {                                                                                            \
        A r = (IDENT);                                                                           \
        int any = 0;                                                                             \
        for (unsigned l = 0; count; count >>= 1, ++l) {                                          \
            if (count & 1u) {                                                                    \
                r = any ? NAME##_op(slot[l], r) : slot[l];                                       \
                any = 1;                                                                         \
            }                                                                                    \
        }                                                                                        \
        return r;                                                                                \
    }                                                                                            \
                                                                                                 \
    static A NAME##_serial(const IN *x, size_t n)                                                \
    {                                                                                            \
        if (n <= (CHUNK)) return NAME##_base(x, n);                                              \
        A slot[64];                                                                              \
        uint64_t count = 0;                                                                      \
        for (size_t b = 0; b < n; b += (CHUNK))                                                  \
            NAME##_push(slot, &count, NAME##_base(x + b, min_size(CHUNK, n - b)));               \
        return NAME##_root(slot, count);                                                         \
    }                                                                                            \
                                                                                                 \
    static A NAME##_range(const IN *x, size_t n, int parallel)                                   \
    {                                                                                            \
        if (!parallel || !use_threads(n, sizeof(IN))) return NAME##_serial(x, n);                \
        size_t task = task_chunks((n + (CHUNK) - 1) / (CHUNK), CHUNK, sizeof(IN)) * (CHUNK);     \
        size_t n_tasks = (n + task - 1) / task;                                                  \
        A part[MAX_TASKS];                                                                       \
        _Pragma("omp parallel for schedule(static)")                                             \
        for (size_t t = 0; t < n_tasks; ++t)                                                     \
            part[t] = NAME##_serial(x + t * task, min_size(task, n - t * task));                 \
        A slot[64];                                                                              \
        uint64_t count = 0;                                                                      \
        for (size_t t = 0; t < n_tasks; ++t) NAME##_push(slot, &count, part[t]);                 \
        return NAME##_root(slot, count);                                                         \
    }                                                                                            \
                                                                                                 \
    static void NAME##_reduce(const void *in, size_t n, void *out)                               \
    {                                                                                            \
        A r = NAME##_range((const IN *)in, n, 1);                                                \
        memcpy(out, &r, sizeof r);                                                               \
    }                                                                                            \
                                                                                                 \
    static void NAME##_segmented(const void *in_, size_t n, const size_t *offsets,               \
                                 size_t n_segments, void *out_)                                  \
    {                                                                                            \
        const IN *in = (const IN *)in_;                                                          \
        A *out = (A *)out_;                                                                      \
        struct seg_plan p = make_seg_plan(n, n_segments, sizeof(IN));                            \
        size_t deferred[SEG_MAX_DEFERRED];                                                       \
        size_t n_deferred = 0;                                                                   \
        _Pragma("omp parallel for schedule(dynamic, p.batch) if(p.parallel)")                    \
        for (size_t s = 0; s < n_segments; ++s) {                                                \
            size_t b, len;                                                                       \
            segment_bounds(offsets, s, n, &b, &len);                                             \
            if (len < (LANES)) { /* short: inline, the same sequence as NAME_base */            \
                out[s] = len ? NAME##_short(in + b, len) : (A)(IDENT);                           \
                continue;                                                                        \
            }                                                                                    \
            if (len >= p.long_len && defer_segment(deferred, &n_deferred, s)) continue;          \
            out[s] = NAME##_serial(in + b, len);                                                 \
        }                                                                                        \
        for (size_t k = 0; k < n_deferred; ++k) {                                                \
            size_t b, len;                                                                       \
            segment_bounds(offsets, deferred[k], n, &b, &len);                                   \
            out[deferred[k]] = NAME##_range(in + b, len, 1);                                     \
        }                                                                                        \
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
#define ORDERED(NAME, IN, A, OP, IDENT) \
    DEFINE_REDUCE(NAME, IN, A, A, OP, IDENT, ORD_LANES, ORD_CHUNK, "GCC unroll 64")
#define FLAT(NAME, IN, A, OP, IDENT) \
    DEFINE_REDUCE(NAME, IN, A, A, OP, IDENT, 64 / sizeof(A), FLAT_CHUNK, "GCC unroll 64")
#define SELECT(NAME, T, OP, IDENT) \
    DEFINE_REDUCE(NAME, T, T, T, OP, IDENT, 128 / sizeof(T), FLAT_CHUNK, "GCC unroll 1")
#define BYTES(NAME, T, A, OP, IDENT) DEFINE_REDUCE(NAME, T, A, A, OP, IDENT, 1, FLAT_CHUNK, "GCC unroll 1")
/* u8 sums add in 16-bit lanes: a lane sees FLAT_CHUNK / 32 elements of at most 255. */
_Static_assert(FLAT_CHUNK / 32 * 255 <= UINT16_MAX, "u8 sum lanes would overflow");
#define U8_WIDEN(NAME, A) DEFINE_REDUCE(NAME, uint8_t, uint16_t, A, OP_SUM, 0, 32, FLAT_CHUNK, "GCC unroll 1")

/*
 * DEFINE_ARG(NAME, T, BLOCK_EXTREME, IS_NAN, BETTER, IDENT): argmin (BETTER = LESS, with
 * BLOCK_EXTREME the min kernel) or argmax over T.
 */
#define DEFINE_ARG(NAME, T, BLOCK_EXTREME, IS_NAN, BETTER, IDENT)                                \
    /* First index in x[0, n) holding m (or a NaN if m is one); m occurs. Checks 64 at a time  \
     * with a branch-free (vectorizable) test before looking for the exact place. */            \
    static size_t NAME##_find(const T *x, size_t n, T m)                                         \
    {                                                                                            \
        const int want_nan = IS_NAN(m);                                                          \
        for (size_t c = 0; c < n; c += 64) {                                                     \
            size_t e = min_size(64, n - c);                                                      \
            int hit = 0;                                                                         \
            if (want_nan)                                                                        \
                for (size_t i = 0; i < e; ++i) hit |= IS_NAN(x[c + i]);                          \
            else                                                                                 \
                for (size_t i = 0; i < e; ++i) hit |= x[c + i] == m;                             \
            if (hit)                                                                             \
                for (size_t i = 0; i < e; ++i)                                                   \
                    if (want_nan ? IS_NAN(x[c + i]) : x[c + i] == m) return c + i;               \
        }                                                                                        \
        return n;                                                                                \
    }                                                                                            \
    /* Whether (v, i) precedes (bv, bi): NaN first, then BETTER, then the lower index. */       \
    static inline int NAME##_precedes(T v, uint64_t i, T bv, uint64_t bi)                        \
    {                                                                                            \
        if (i == NO_INDEX) return 0;                                                             \
        if (bi == NO_INDEX) return 1;                                                            \
        int vn = IS_NAN(v), bn = IS_NAN(bv);                                                     \
        if (vn || bn) return vn && (!bn || i < bi);                                              \
        return BETTER(v, bv) || (v == bv && i < bi);                                             \
    }                                                                                            \
    static void NAME##_arg(const void *in, size_t n, void *value, uint64_t *index)              \
    {                                                                                            \
        const T *x = (const T *)in;                                                              \
        size_t n_blocks = (n + FLAT_CHUNK - 1) / FLAT_CHUNK;                                     \
        T best = (IDENT);                                                                        \
        uint64_t best_i = NO_INDEX;                                                              \
        const int threaded = use_threads(n, sizeof(T));                                          \
        _Pragma("omp parallel if(threaded)")                                                     \
        {                                                                                        \
            T v = (IDENT);                                                                       \
            uint64_t vi = NO_INDEX;                                                              \
            _Pragma("omp for schedule(static) nowait")                                           \
            for (size_t k = 0; k < n_blocks; ++k) {                                              \
                size_t b = k * FLAT_CHUNK, len = min_size(FLAT_CHUNK, n - b);                    \
                T m = BLOCK_EXTREME(x + b, len);                                                 \
                /* m first occurs at some j >= b: search only if (m, b) would precede. */        \
                if (NAME##_precedes(m, b, v, vi)) {                                              \
                    size_t j = b + NAME##_find(x + b, len, m);                                   \
                    if (NAME##_precedes(x[j], j, v, vi)) {                                       \
                        v = x[j];                                                                \
                        vi = j;                                                                  \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
            _Pragma("omp critical(pp_cpu_argreduce)")                                            \
            if (NAME##_precedes(v, vi, best, best_i)) {                                          \
                best = v;                                                                        \
                best_i = vi;                                                                     \
            }                                                                                    \
        }                                                                                        \
        memcpy(value, &best, sizeof best);                                                       \
        *index = best_i;                                                                         \
    }

/* ---- instantiations ---- */

#define INT_FAMILY(FLAVOUR, TN, T, U, TMIN, TMAX)                         \
    FLAVOUR(TN##_sum, T, U, OP_SUM, 0)                                    \
    FLAVOUR(TN##_prod, T, U, OP_PROD, 1)                                  \
    FLAVOUR(TN##_min, T, T, OP_IMIN, TMAX)                                \
    FLAVOUR(TN##_max, T, T, OP_IMAX, TMIN)                                \
    FLAVOUR(TN##_and, T, U, OP_AND, (U)~(U)0)                             \
    FLAVOUR(TN##_or, T, U, OP_OR, 0)                                      \
    FLAVOUR(TN##_xor, T, U, OP_XOR, 0)                                    \
    DEFINE_ARG(TN##_argmin, T, TN##_min_base, IS_NAN_NONE, LESS, TMAX)    \
    DEFINE_ARG(TN##_argmax, T, TN##_max_base, IS_NAN_NONE, GREATER, TMIN)

#define FLOAT_FAMILY(TN, T)                                                         \
    ORDERED(TN##_sum, T, T, OP_SUM, 0)                                              \
    ORDERED(TN##_prod, T, T, OP_PROD, 1)                                            \
    SELECT(TN##_min, T, OP_FMIN, (T)INFINITY)                                       \
    SELECT(TN##_max, T, OP_FMAX, -(T)INFINITY)                                      \
    DEFINE_ARG(TN##_argmin, T, TN##_min_base, IS_NAN_FLOAT, LESS, (T)INFINITY)      \
    DEFINE_ARG(TN##_argmax, T, TN##_max_base, IS_NAN_FLOAT, GREATER, -(T)INFINITY)

INT_FAMILY(BYTES, u8, uint8_t, uint8_t, 0, UINT8_MAX)
INT_FAMILY(FLAT, i32, int32_t, uint32_t, INT32_MIN, INT32_MAX)
INT_FAMILY(FLAT, u32, uint32_t, uint32_t, 0, UINT32_MAX)
INT_FAMILY(FLAT, i64, int64_t, uint64_t, INT64_MIN, INT64_MAX)
INT_FAMILY(FLAT, u64, uint64_t, uint64_t, 0, UINT64_MAX)
FLOAT_FAMILY(f32, float)
FLOAT_FAMILY(f64, double)

/* Widening sums (a signed element converts to the wider unsigned type modulo 2^64, i.e.
 * sign-extended). */
U8_WIDEN(u8_sum_u32, uint32_t)
U8_WIDEN(u8_sum_u64, uint64_t)
FLAT(i32_sum_i64, int32_t, uint64_t, OP_SUM, 0)
FLAT(u32_sum_u64, uint32_t, uint64_t, OP_SUM, 0)
ORDERED(f32_sum_f64, float, double, OP_SUM, 0)

/* ---- dispatch tables ---- */

struct reduce_impl {
    void (*reduce)(const void *in, size_t n, void *out);
    void (*segmented)(const void *in, size_t n, const size_t *offsets, size_t n_segments, void *out);
};

#define IMPL(NAME) {NAME##_reduce, NAME##_segmented}
#define INT_ROW(TN)                                                                               \
    {                                                                                             \
        [PP_OP_SUM] = IMPL(TN##_sum), [PP_OP_PROD] = IMPL(TN##_prod), [PP_OP_MIN] = IMPL(TN##_min), \
        [PP_OP_MAX] = IMPL(TN##_max), [PP_OP_AND] = IMPL(TN##_and), [PP_OP_OR] = IMPL(TN##_or),     \
        [PP_OP_XOR] = IMPL(TN##_xor)                                                              \
    }
#define FLOAT_ROW(TN)                                                                             \
    {                                                                                             \
        [PP_OP_SUM] = IMPL(TN##_sum), [PP_OP_PROD] = IMPL(TN##_prod), [PP_OP_MIN] = IMPL(TN##_min), \
        [PP_OP_MAX] = IMPL(TN##_max)                                                              \
    }

/* [in_type][op], for out_type == in_type. */
static const struct reduce_impl same_type_impls[PP_F64 + 1][PP_OP_XOR + 1] = {
    [PP_U8] = INT_ROW(u8),     [PP_I32] = INT_ROW(i32),   [PP_U32] = INT_ROW(u32),
    [PP_I64] = INT_ROW(i64),   [PP_U64] = INT_ROW(u64),   [PP_F32] = FLOAT_ROW(f32),
    [PP_F64] = FLOAT_ROW(f64),
};

static const struct reduce_impl widening_impls[] = {
    IMPL(u8_sum_u32), IMPL(u8_sum_u64), IMPL(i32_sum_i64), IMPL(u32_sum_u64), IMPL(f32_sum_f64),
};

/* [dtype][0 = argmin, 1 = argmax] */
static void (*const arg_impls[PP_F64 + 1][2])(const void *, size_t, void *, uint64_t *) = {
    [PP_U8] = {u8_argmin_arg, u8_argmax_arg},    [PP_I32] = {i32_argmin_arg, i32_argmax_arg},
    [PP_U32] = {u32_argmin_arg, u32_argmax_arg}, [PP_I64] = {i64_argmin_arg, i64_argmax_arg},
    [PP_U64] = {u64_argmin_arg, u64_argmax_arg}, [PP_F32] = {f32_argmin_arg, f32_argmax_arg},
    [PP_F64] = {f64_argmin_arg, f64_argmax_arg},
};

/* The kernel for a combination src/ has already validated; NULL if there is none. */
static const struct reduce_impl *find_impl(pp_dtype in, pp_op op, pp_dtype out)
{
    if (!pp__dtype_valid(in) || !pp__op_valid(op) || !pp__dtype_valid(out)) return NULL;
    const struct reduce_impl *r = NULL;
    if (in == out) {
        r = &same_type_impls[in][op];
    } else if (op == PP_OP_SUM) {
        if (in == PP_U8 && out == PP_U32) r = &widening_impls[0];
        else if (in == PP_U8 && out == PP_U64) r = &widening_impls[1];
        else if (in == PP_I32 && out == PP_I64) r = &widening_impls[2];
        else if (in == PP_U32 && out == PP_U64) r = &widening_impls[3];
        else if (in == PP_F32 && out == PP_F64) r = &widening_impls[4];
    }
    return r && r->reduce ? r : NULL;
}

static pp_status no_kernel(pp_context *ctx, const char *fn, pp_dtype in, pp_op op, pp_dtype out)
{
    const char *in_name = pp_dtype_name(in), *op_name = pp_op_name(op), *out_name = pp_dtype_name(out);
    return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                    "%s: the CPU backend has no kernel for op %s from in_type %s to out_type %s", fn,
                    op_name ? op_name : "?", in_name ? in_name : "?", out_name ? out_name : "?");
}

pp_status pp__cpu_reduce(pp_context *ctx, const pp_reduce_args *a)
{
    const struct reduce_impl *impl = find_impl(a->in_type, a->op, a->out_type);
    if (!impl) return no_kernel(ctx, "pp_reduce", a->in_type, a->op, a->out_type);
    /* Both result spaces are host memory here. */
    impl->reduce(a->in, a->n, a->out);
    return PP_OK;
}

pp_status pp__cpu_argreduce(pp_context *ctx, const pp_argreduce_args *a)
{
    const char *fn = a->op == PP_OP_MAX ? "pp_argmax" : "pp_argmin";
    if (!pp__dtype_valid(a->dtype) || (a->op != PP_OP_MIN && a->op != PP_OP_MAX))
        return no_kernel(ctx, fn, a->dtype, a->op, a->dtype);
    arg_impls[a->dtype][a->op == PP_OP_MAX](a->in, a->n, a->value, a->index);
    return PP_OK;
}

pp_status pp__cpu_segmented_reduce(pp_context *ctx, const pp_segreduce_args *a)
{
    const struct reduce_impl *impl = find_impl(a->in_type, a->op, a->out_type);
    if (!impl) return no_kernel(ctx, "pp_segmented_reduce", a->in_type, a->op, a->out_type);
    if (a->n_segments == 0) return PP_OK;
    impl->segmented(a->in, a->n, a->offsets, a->n_segments, a->out);
    return PP_OK;
}
