/*
 * scan.c -- the scan family on the CPU (OpenMP): inclusive and exclusive scans, plain or
 * segmented (head flags, offsets), for every (in_type, op, out_type) of the reduce family.
 *
 * Accumulator types and operators are those of cpu/reduce.c: integer sum / prod and the
 * bitwise ops in the unsigned type of the output's width (wrapping is defined), integer
 * min / max in the input type, floats in the output type (f32 -> f64 converts each element
 * exactly); float min / max keep a NaN once seen (sticky select).
 *
 * Order of evaluation: fixed by the input alone, never by the thread count.
 *   run     RUN = 16 consecutive elements of a block. Its aggregate: a pairwise tree (plain
 *           scans) or, with head flags, a chain that restarts at each flag.
 *   block   BLOCK = 4096 elements (256 runs) from the start of the range. The exclusive
 *           prefixes of its run aggregates come from Blelloch's up-sweep / down-sweep:
 *           prefix(r) folds the aligned power-of-two subtrees left of r from the largest to
 *           the smallest. The block's aggregate is the up-sweep's root.
 *   range   The prefix of block b folds the complete subtrees of the aggregates of blocks
 *           0 .. b-1 in the same way (a binary counter of subtrees, fed block by block).
 *   output  Run r of block b starts at c = (prefix of b) op (prefix of r in b), or at init op c
 *           (exclusive), and takes its elements in order (the only sequential chain).
 * With head flags each combination is the segmented operator on (flag, value) pairs,
 * (f1, v1) . (f2, v2) = (f1 | f2, f2 ? v2 : v1 op v2), so a prefix never mixes in elements
 * before its segment's head. Segments of pp_segmented_scan_offsets are ranges scanned as
 * above (their blocks start at the segment's first element).
 *
 * Rounding depth of out[i] over m terms: a term in the same block passes through at most
 * 15 (run aggregate) + 8 + 8 (sweeps) + 2 (joins with the block prefix and init) + 16 (chain)
 * roundings; one in an earlier block through at most 15 + 8 (block aggregate) +
 * 2 ceil(log2 blocks) (counter) + 2 + 16. Both are within 2 ceil(log2 m) + PP_SCAN_DEPTH_SLACK
 * (a term of an earlier block means m > BLOCK).
 *
 * Threads: blocks go in windows of WINDOW_BLOCKS per thread, in lock step: each thread
 * computes the run prefixes of its blocks of the window (the input's one read from memory),
 * one thread feeds the window's block aggregates to the counter, then each thread scans the
 * blocks it summed, whose input is still in its L2. Offsets: disjoint segments are spread
 * over the threads (dynamic batches), each scanned by one thread; long ones are then scanned
 * by all threads, one at a time. Offsets that are not non-decreasing are scanned in order
 * by one thread (overlapping segments must not race).
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "cpu.h"

#define RUN_PLAIN 16             /* elements per run (the longest sequential chain), plain */
#define RUN_FLAGS 16             /* ... with head flags (whose run aggregate is a chain too) */
#define BLOCK 4096               /* elements per block */
#define RUNS (BLOCK / RUN_FLAGS) /* the most runs per block, a power of two */
#define GROUP 8                  /* runs scanned side by side (independent chains) */
#define WINDOW_BYTES ((size_t)1 << 20) /* input per thread and window (L2, else L3) */
#define WINDOW_MAX_BLOCKS 64             /* ... and at most this many blocks (scratch size) */
#define PAIR_BYTES 16            /* the largest (flag, value) pair */
/* Scratch per block of a window: run prefixes (values, flags) and the block's total. */
#define BLOCK_SCRATCH (RUNS * 8 + RUNS + PAIR_BYTES)
#define PAR_MIN_BYTES ((size_t)256 << 10) /* smaller inputs are scanned by one thread */
#define TASK_ELEMS ((size_t)16 << 10)     /* elements per dynamic step over segments */
#define LONG_SEG_ELEMS ((size_t)1 << 18)  /* shortest segment scanned by all threads */

/* ---- operators (a is the running value, b the newer one), as cpu/reduce.c ---- */

#define OP_SUM(a, b) ((a) + (b))
#define OP_PROD(a, b) ((a) * (b))
#define OP_AND(a, b) ((a) & (b))
#define OP_OR(a, b) ((a) | (b))
#define OP_XOR(a, b) ((a) ^ (b))
#define OP_IMIN(a, b) ((b) < (a) ? (b) : (a))
#define OP_IMAX(a, b) ((b) > (a) ? (b) : (a))
#define OP_FMIN(a, b) ((((b) < (a)) | ((b) != (b))) ? (b) : (a))
#define OP_FMAX(a, b) ((((b) > (a)) | ((b) != (b))) ? (b) : (a))

#define ALWAYS_INLINE static inline __attribute__((always_inline))

static inline size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* The smallest power of two >= n (n >= 1). */
static inline size_t pow2_ceil(size_t n)
{
    size_t p = 1;
    while (p < n) p *= 2;
    return p;
}

/* Blocks per thread and window for elements of `size` bytes. */
static inline size_t window_blocks(size_t size)
{
    const size_t k = WINDOW_BYTES / (BLOCK * size);
    return k < 1 ? 1 : k > WINDOW_MAX_BLOCKS ? WINDOW_MAX_BLOCKS : k;
}

/* The parallel kernel's scratch: two windows of BLOCK_SCRATCH per block, for up to
 * `threads` threads (NULL mem: scan with one thread). */
struct scan_scratch {
    unsigned char *mem;
    int threads;
};

/*
 * DEFINE_SCAN(NAME, IN, A, OP, IDENT) defines, for input type IN scanned in accumulator A:
 *   NAME_pair, NAME_join       (flag, value) pairs and the segmented operator
 *   NAME_counter, _push, _prefix   the binary counter of complete subtrees
 *   NAME_block_prefix          run aggregates of a block -> exclusive run prefixes, block total
 *   NAME_block_scan            a block's output from its run prefixes and the block prefix
 *   NAME_serial, NAME_parallel a whole range (one thread / all threads, same bits)
 *   NAME_run                   the dispatch-table entry (plain, flags or offsets)
 * Run prefixes are kept as separate arrays of values v and head bits f (f only with flags).
 */
#define DEFINE_SCAN(NAME, IN, A, OP, IDENT)                                                      \
    typedef struct NAME##_pair {                                                                 \
        A v;                                                                                     \
        int f; /* a segment head lies in the range (head flags only) */                        \
    } NAME##_pair;                                                                               \
    _Static_assert(sizeof(NAME##_pair) <= PAIR_BYTES && sizeof(A) <= 8, "scratch layout");      \
                                                                                                 \
    ALWAYS_INLINE A NAME##_op(A a, A b) { return (A)OP(a, b); }                                  \
    ALWAYS_INLINE NAME##_pair NAME##_join(NAME##_pair a, NAME##_pair b)                          \
    {                                                                                            \
        if (b.f) return b;                                                                       \
        a.v = NAME##_op(a.v, b.v);                                                               \
        return a;                                                                                \
    }                                                                                            \
                                                                                                 \
    typedef struct NAME##_counter {                                                              \
        NAME##_pair slot[64]; /* slot[l]: a complete subtree of 2^l leaves */                    \
        uint64_t count;                                                                          \
    } NAME##_counter;                                                                            \
                                                                                                 \
    static inline void NAME##_push(NAME##_counter *c, NAME##_pair p)                             \
    {                                                                                            \
        uint64_t k = c->count;                                                                   \
        unsigned l = 0;                                                                          \
        for (; k & 1u; k >>= 1, ++l) p = NAME##_join(c->slot[l], p);                             \
        c->slot[l] = p;                                                                          \
        ++c->count;                                                                              \
    }                                                                                            \
    /* Everything pushed so far, subtrees folded from the largest; 0 if nothing was. */        \
    static inline int NAME##_prefix(const NAME##_counter *c, NAME##_pair *out)                   \
    {                                                                                            \
        const uint64_t k = c->count;                                                             \
        if (!k) return 0;                                                                        \
        int l = 63 - __builtin_clzll(k);                                                         \
        NAME##_pair r = c->slot[l];                                                              \
        for (--l; l >= 0; --l)                                                                   \
            if ((k >> l) & 1u) r = NAME##_join(r, c->slot[l]);                                   \
        *out = r;                                                                                \
        return 1;                                                                                \
    }                                                                                            \
                                                                                                 \
    /* Exclusive prefixes of the runs of x[0, len) (len <= BLOCK) into v[0, nr) (and f with  \
     * flags); returns the block's aggregate (used only for a full block: a partial one is   \
     * the range's last). The sweeps run over the next power of two of runs, padded with the \
     * identity, which never enters the prefix of a real run. */                              \
    static NAME##_pair NAME##_block_prefix(const IN *x, const uint8_t *fl, size_t len, A *v,    \
                                           uint8_t *f)                                           \
    {                                                                                            \
        const size_t run = fl ? RUN_FLAGS : RUN_PLAIN;                                           \
        const size_t full = len / run, nr = (len + run - 1) / run, np = pow2_ceil(nr);           \
        NAME##_pair total;                                                                       \
        if (!fl) {                                                                               \
            for (size_t r = 0; r < full; ++r) { /* a pairwise tree per run (vectorizes) */      \
                const IN *p = x + r * RUN_PLAIN;                                                 \
                A t[RUN_PLAIN / 2];                                                              \
                for (int j = 0; j < RUN_PLAIN / 2; ++j)                                          \
                    t[j] = NAME##_op((A)p[j], (A)p[j + RUN_PLAIN / 2]);                          \
                for (int h = RUN_PLAIN / 4; h > 0; h /= 2)                                       \
                    for (int j = 0; j < h; ++j) t[j] = NAME##_op(t[j], t[j + h]);                \
                v[r] = t[0];                                                                     \
            }                                                                                    \
            if (full < nr) {                                                                     \
                A a = (A)x[full * RUN_PLAIN];                                                    \
                for (size_t i = full * RUN_PLAIN + 1; i < len; ++i) a = NAME##_op(a, (A)x[i]);   \
                v[full] = a;                                                                     \
            }                                                                                    \
            for (size_t r = nr; r < np; ++r) v[r] = (A)(IDENT);                                  \
            for (size_t d = 1; d < np; d *= 2)                                                   \
                for (size_t i = 2 * d - 1; i < np; i += 2 * d) v[i] = NAME##_op(v[i - d], v[i]); \
            total.v = v[np - 1];                                                                 \
            total.f = 0;                                                                         \
            v[np - 1] = (A)(IDENT);                                                              \
            for (size_t d = np / 2; d >= 1; d /= 2)                                              \
                for (size_t i = 2 * d - 1; i < np; i += 2 * d) {                                 \
                    const A t = v[i - d];                                                        \
                    v[i - d] = v[i];                                                             \
                    v[i] = NAME##_op(v[i], t);                                                   \
                }                                                                                \
            return total;                                                                        \
        }                                                                                        \
        for (size_t r = 0; r < nr; ++r) { /* a chain per run, restarting at each head */        \
            const size_t e = min_size(len, (r + 1) * RUN_FLAGS);                                 \
            A a = (A)(IDENT);                                                                    \
            int h = 0;                                                                           \
            for (size_t i = r * RUN_FLAGS; i < e; ++i) {                                         \
                const int hi = fl[i] != 0;                                                       \
                const A s = NAME##_op(a, (A)x[i]);                                               \
                a = hi ? (A)x[i] : s;                                                            \
                h |= hi;                                                                         \
            }                                                                                    \
            v[r] = a;                                                                            \
            f[r] = (uint8_t)h;                                                                   \
        }                                                                                        \
        for (size_t r = nr; r < np; ++r) {                                                       \
            v[r] = (A)(IDENT);                                                                   \
            f[r] = 0;                                                                            \
        }                                                                                        \
        for (size_t d = 1; d < np; d *= 2)                                                       \
            for (size_t i = 2 * d - 1; i < np; i += 2 * d) {                                     \
                if (!f[i]) v[i] = NAME##_op(v[i - d], v[i]);                                     \
                f[i] |= f[i - d];                                                                \
            }                                                                                    \
        total.v = v[np - 1];                                                                     \
        total.f = f[np - 1];                                                                     \
        v[np - 1] = (A)(IDENT);                                                                  \
        f[np - 1] = 0;                                                                           \
        for (size_t d = np / 2; d >= 1; d /= 2)                                                  \
            for (size_t i = 2 * d - 1; i < np; i += 2 * d) {                                     \
                const A tv = v[i - d];                                                           \
                const uint8_t tf = f[i - d];                                                     \
                v[i - d] = v[i];                                                                 \
                f[i - d] = f[i];                                                                 \
                v[i] = tf ? tv : NAME##_op(v[i], tv);                                            \
                f[i] |= tf;                                                                      \
            }                                                                                    \
        return total;                                                                            \
    }                                                                                            \
                                                                                                 \
    /* One element of a chain: returns out[i]; excl and seg are constants at every call. */    \
    ALWAYS_INLINE A NAME##_step(A *acc, A v, int head, const int excl, const int seg, A init)   \
    {                                                                                            \
        if (excl) {                                                                              \
            const A s = seg && head ? init : *acc;                                               \
            *acc = NAME##_op(s, v);                                                              \
            return s;                                                                            \
        }                                                                                        \
        const A s = NAME##_op(*acc, v);                                                          \
        *acc = seg && head ? v : s;                                                              \
        return *acc;                                                                             \
    }                                                                                            \
                                                                                                 \
    /* The chains of the runs of x[0, len), run r starting at start[r]: GROUP full runs side \
     * by side, then the rest one by one. run, excl and seg are constants at every call. */    \
    ALWAYS_INLINE void NAME##_chains(const IN *x, const uint8_t *fl, A *y, size_t len,           \
                                     const A *start, const size_t run, const int excl,           \
                                     const int seg, A init)                                      \
    {                                                                                            \
        const size_t full = len / run, nr = (len + run - 1) / run;                               \
        size_t r = 0;                                                                            \
        for (; r + GROUP <= full; r += GROUP) {                                                  \
            A acc[GROUP];                                                                        \
            for (int j = 0; j < GROUP; ++j) acc[j] = start[r + j];                               \
            const IN *xk = x + r * run;                                                          \
            const uint8_t *fk = seg ? fl + r * run : NULL;                                       \
            A *yk = y + r * run;                                                                 \
            for (size_t k = 0; k < run; ++k, ++xk, ++yk, fk += seg) /* one base, fixed offsets */ \
                for (size_t j = 0; j < GROUP; ++j)                                               \
                    yk[j * run] = NAME##_step(&acc[j], (A)xk[j * run], seg ? fk[j * run] != 0 : 0, \
                                              excl, seg, init);                                  \
        }                                                                                        \
        for (; r < nr; ++r) {                                                                    \
            A acc = start[r];                                                                    \
            const size_t e = min_size(len, (r + 1) * run);                                       \
            for (size_t i = r * run; i < e; ++i)                                                 \
                y[i] = NAME##_step(&acc, (A)x[i], seg ? fl[i] != 0 : 0, excl, seg, init);        \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    /* Output of the block x[0, len) given its run prefixes and the prefix of the blocks    \
     * before it (base NULL: the range's first block). */                                      \
    static void NAME##_block_scan(const IN *x, const uint8_t *fl, A *y, size_t len, const A *v,  \
                                  const uint8_t *f, const NAME##_pair *base, int excl, A init)   \
    {                                                                                            \
        const size_t run = fl ? RUN_FLAGS : RUN_PLAIN, nr = (len + run - 1) / run;               \
        A start[RUNS];                                                                           \
        start[0] = base ? base->v : excl ? init : (A)(IDENT);                                    \
        for (size_t r = 1; r < nr; ++r)                                                          \
            start[r] = !base || (fl && f[r]) ? v[r] : NAME##_op(base->v, v[r]);                  \
        if (excl)                                                                                \
            for (size_t r = base ? 0 : 1; r < nr; ++r) start[r] = NAME##_op(init, start[r]);     \
        if (fl) {                                                                                \
            if (excl) NAME##_chains(x, fl, y, len, start, RUN_FLAGS, 1, 1, init);                \
            else NAME##_chains(x, fl, y, len, start, RUN_FLAGS, 0, 1, init);                     \
        } else {                                                                                 \
            if (excl) NAME##_chains(x, NULL, y, len, start, RUN_PLAIN, 1, 0, init);              \
            else NAME##_chains(x, NULL, y, len, start, RUN_PLAIN, 0, 0, init);                   \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    static void NAME##_serial(const IN *x, const uint8_t *fl, A *y, size_t n, int excl, A init)  \
    {                                                                                            \
        if (n <= RUN_FLAGS) { /* one run: what the general path does, without its set-up */   \
            NAME##_block_scan(x, fl, y, n, NULL, NULL, NULL, excl, init);                        \
            return;                                                                              \
        }                                                                                        \
        A v[RUNS];                                                                               \
        uint8_t f[RUNS];                                                                         \
        NAME##_counter blocks;                                                                   \
        blocks.count = 0;                                                                        \
        for (size_t b = 0; b < n; b += BLOCK) {                                                  \
            const size_t len = min_size(BLOCK, n - b);                                           \
            const uint8_t *fb = fl ? fl + b : NULL;                                              \
            NAME##_pair base;                                                                    \
            const int have = NAME##_prefix(&blocks, &base);                                      \
            const NAME##_pair total = NAME##_block_prefix(x + b, fb, len, v, f);                 \
            NAME##_block_scan(x + b, fb, y + b, len, v, f, have ? &base : NULL, excl, init);     \
            NAME##_push(&blocks, total);                                                         \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    /* Run prefixes and total of block b into the scratch slot `slot`. */                       \
    static inline void NAME##_phase1(const IN *x, const uint8_t *fl, size_t n, size_t b,         \
                                     unsigned char *slot)                                        \
    {                                                                                            \
        const size_t o = b * BLOCK;                                                              \
        NAME##_pair t = NAME##_block_prefix(x + o, fl ? fl + o : NULL, min_size(BLOCK, n - o),   \
                                            (A *)slot, slot + RUNS * 8);                         \
        memcpy(slot + RUNS * 9, &t, sizeof t);                                                   \
    }                                                                                            \
                                                                                                 \
    /* All threads; the bits are those of NAME_serial. Windows of K blocks per thread: while \
     * the threads scan window w (thread t: its blocks t*K .. t*K+K-1), they already compute \
     * the run prefixes of window w + 1 into the other half of the scratch; one barrier per  \
     * window. Every thread feeds all block totals to its own counter (the same sequence, so \
     * the same prefixes) and takes the bases of its blocks from it. */                       \
    static void NAME##_parallel(const IN *x, const uint8_t *fl, A *y, size_t n, int excl,       \
                                A init, const struct scan_scratch *s)                            \
    {                                                                                            \
        const size_t n_blocks = (n + BLOCK - 1) / BLOCK, K = window_blocks(sizeof(IN));          \
        const size_t half = (size_t)s->threads * K * BLOCK_SCRATCH;                              \
        _Pragma("omp parallel num_threads(s->threads)")                                          \
        {                                                                                        \
            const size_t T = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();    \
            const size_t window = T * K, mine = t * K;                                           \
            NAME##_counter blocks;                                                               \
            blocks.count = 0;                                                                    \
            for (size_t j = mine; j < mine + K && j < n_blocks; ++j)                             \
                NAME##_phase1(x, fl, n, j, s->mem + j * BLOCK_SCRATCH);                          \
            _Pragma("omp barrier")                                                               \
            for (size_t w = 0; w < n_blocks; w += window) {                                      \
                unsigned char *cur = s->mem + ((w / window) & 1) * half;                         \
                unsigned char *next = s->mem + (((w / window) & 1) ^ 1) * half;                  \
                const size_t wn = min_size(window, n_blocks - w);                                \
                for (size_t j = 0; j < wn; ++j) {                                                \
                    unsigned char *slot = cur + j * BLOCK_SCRATCH;                               \
                    NAME##_pair base, total;                                                     \
                    const int have = NAME##_prefix(&blocks, &base);                              \
                    memcpy(&total, slot + RUNS * 9, sizeof total);                               \
                    NAME##_push(&blocks, total);                                                 \
                    if (j < mine || j >= mine + K) continue;                                     \
                    const size_t o = (w + j) * BLOCK;                                            \
                    NAME##_block_scan(x + o, fl ? fl + o : NULL, y + o, min_size(BLOCK, n - o),  \
                                      (const A *)slot, slot + RUNS * 8, have ? &base : NULL,     \
                                      excl, init);                                               \
                }                                                                                \
                for (size_t j = mine; j < mine + K && w + window + j < n_blocks; ++j)            \
                    NAME##_phase1(x, fl, n, w + window + j, next + j * BLOCK_SCRATCH);           \
                _Pragma("omp barrier")                                                           \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    static void NAME##_range(const IN *x, const uint8_t *fl, A *y, size_t n, int excl, A init,  \
                             const struct scan_scratch *s)                                       \
    {                                                                                            \
        if (s && s->mem && n > BLOCK && n * sizeof(IN) >= PAR_MIN_BYTES)                         \
            NAME##_parallel(x, fl, y, n, excl, init, s);                                         \
        else                                                                                     \
            NAME##_serial(x, fl, y, n, excl, init);                                              \
    }                                                                                            \
                                                                                                 \
    static void NAME##_offsets(const IN *x, A *y, size_t n, const size_t *off, size_t n_seg,     \
                               int excl, A init, const struct scan_scratch *s)                   \
    {                                                                                            \
        const struct seg_plan p = plan_segments(n, off, n_seg, sizeof(IN), s);                  \
        if (!p.parallel) {                                                                       \
            for (size_t k = 0; k < n_seg; ++k) {                                                 \
                size_t b, len;                                                                   \
                segment_bounds(off, k, n, &b, &len);                                             \
                if (len) NAME##_range(x + b, NULL, y + b, len, excl, init, p.monotone ? s : NULL); \
            }                                                                                    \
            return;                                                                              \
        }                                                                                        \
        _Pragma("omp parallel for schedule(dynamic, p.batch)")                                   \
        for (size_t k = 0; k < n_seg; ++k) {                                                     \
            size_t b, len;                                                                       \
            segment_bounds(off, k, n, &b, &len);                                                 \
            if (len && len < p.long_len) NAME##_serial(x + b, NULL, y + b, len, excl, init);     \
        }                                                                                        \
        for (size_t k = 0; k < n_seg; ++k) {                                                     \
            size_t b, len;                                                                       \
            segment_bounds(off, k, n, &b, &len);                                                 \
            if (len >= p.long_len) NAME##_range(x + b, NULL, y + b, len, excl, init, s);         \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    static void NAME##_run(const pp_scan_args *a, const struct scan_scratch *s)                 \
    {                                                                                            \
        A init;                                                                                  \
        memcpy(&init, a->init, sizeof init);                                                     \
        if (a->offsets)                                                                          \
            NAME##_offsets((const IN *)a->in, (A *)a->out, a->n, a->offsets, a->n_segments,     \
                           a->exclusive, init, s);                                               \
        else                                                                                     \
            NAME##_range((const IN *)a->in, a->head_flags, (A *)a->out, a->n, a->exclusive, init, \
                         s);                                                                     \
    }

/* ---- segments of the offsets form ---- */

/* Bounds of segment s, clamped to n; len 0 for an empty (or inverted) segment. */
static inline void segment_bounds(const size_t *offsets, size_t s, size_t n, size_t *begin,
                                  size_t *len)
{
    size_t b = min_size(offsets[s], n), e = min_size(offsets[s + 1], n);
    *begin = b;
    *len = e > b ? e - b : 0;
}

struct seg_plan {
    int monotone;    /* clamped offsets never decrease: the segments are disjoint */
    int parallel;    /* spread the segments over the threads */
    size_t batch;    /* segments per dynamic-scheduling step */
    size_t long_len; /* segments at least this long are scanned by all threads */
};

static struct seg_plan plan_segments(size_t n, const size_t *off, size_t n_seg, size_t elem_size,
                                     const struct scan_scratch *s)
{
    struct seg_plan p = {1, 0, 1, SIZE_MAX};
    for (size_t k = 0; k < n_seg && p.monotone; ++k)
        p.monotone = min_size(off[k], n) <= min_size(off[k + 1], n);
    if (!p.monotone || !s || !s->mem) return p;
    const size_t threads = (size_t)omp_get_max_threads();
    const size_t mean = n / n_seg;
    const size_t batch = TASK_ELEMS / (mean > 0 ? mean : 1);
    p.batch = batch < 1 ? 1 : batch > 4096 ? 4096 : batch;
    p.parallel = n * elem_size >= PAR_MIN_BYTES;
    const size_t share = n / (4 * threads);
    p.long_len = share > LONG_SEG_ELEMS ? share : LONG_SEG_ELEMS;
    return p;
}

/* ---- instantiations ---- */

/* Sum, prod and the bitwise ops give the same bits for a signed and an unsigned input of
 * one width (U, the unsigned type, reads either); min and max need the input's own type. */
#define BITS_FAMILY(BN, U)                        \
    DEFINE_SCAN(BN##_sum, U, U, OP_SUM, 0)        \
    DEFINE_SCAN(BN##_prod, U, U, OP_PROD, 1)      \
    DEFINE_SCAN(BN##_and, U, U, OP_AND, (U)~(U)0) \
    DEFINE_SCAN(BN##_or, U, U, OP_OR, 0)          \
    DEFINE_SCAN(BN##_xor, U, U, OP_XOR, 0)
#define ORDER_FAMILY(TN, T, MINOP, MAXOP, LOWEST, HIGHEST) \
    DEFINE_SCAN(TN##_min, T, T, MINOP, HIGHEST)             \
    DEFINE_SCAN(TN##_max, T, T, MAXOP, LOWEST)

BITS_FAMILY(b8, uint8_t)
BITS_FAMILY(b32, uint32_t)
BITS_FAMILY(b64, uint64_t)
ORDER_FAMILY(u8, uint8_t, OP_IMIN, OP_IMAX, 0, UINT8_MAX)
ORDER_FAMILY(i32, int32_t, OP_IMIN, OP_IMAX, INT32_MIN, INT32_MAX)
ORDER_FAMILY(u32, uint32_t, OP_IMIN, OP_IMAX, 0, UINT32_MAX)
ORDER_FAMILY(i64, int64_t, OP_IMIN, OP_IMAX, INT64_MIN, INT64_MAX)
ORDER_FAMILY(u64, uint64_t, OP_IMIN, OP_IMAX, 0, UINT64_MAX)
ORDER_FAMILY(f32, float, OP_FMIN, OP_FMAX, -(float)INFINITY, (float)INFINITY)
ORDER_FAMILY(f64, double, OP_FMIN, OP_FMAX, -(double)INFINITY, (double)INFINITY)
DEFINE_SCAN(f32_sum, float, float, OP_SUM, 0)
DEFINE_SCAN(f32_prod, float, float, OP_PROD, 1)
DEFINE_SCAN(f64_sum, double, double, OP_SUM, 0)
DEFINE_SCAN(f64_prod, double, double, OP_PROD, 1)

/* Widening sums (a signed element converts to the wider unsigned type modulo 2^64, i.e.
 * sign-extended). */
DEFINE_SCAN(u8_sum_u32, uint8_t, uint32_t, OP_SUM, 0)
DEFINE_SCAN(u8_sum_u64, uint8_t, uint64_t, OP_SUM, 0)
DEFINE_SCAN(i32_sum_i64, int32_t, uint64_t, OP_SUM, 0)
DEFINE_SCAN(u32_sum_u64, uint32_t, uint64_t, OP_SUM, 0)
DEFINE_SCAN(f32_sum_f64, float, double, OP_SUM, 0)

/* ---- dispatch ---- */

typedef void (*scan_fn)(const pp_scan_args *a, const struct scan_scratch *s);

#define INT_ROW(TN, BN)                                                                       \
    {                                                                                         \
        [PP_OP_SUM] = BN##_sum_run, [PP_OP_PROD] = BN##_prod_run, [PP_OP_MIN] = TN##_min_run, \
        [PP_OP_MAX] = TN##_max_run, [PP_OP_AND] = BN##_and_run, [PP_OP_OR] = BN##_or_run,     \
        [PP_OP_XOR] = BN##_xor_run                                                            \
    }
#define FLOAT_ROW(TN)                                                                         \
    {                                                                                         \
        [PP_OP_SUM] = TN##_sum_run, [PP_OP_PROD] = TN##_prod_run, [PP_OP_MIN] = TN##_min_run, \
        [PP_OP_MAX] = TN##_max_run                                                            \
    }

/* [in_type][op], for out_type == in_type. */
static const scan_fn same_type_scans[PP_F64 + 1][PP_OP_XOR + 1] = {
    [PP_U8] = INT_ROW(u8, b8),    [PP_I32] = INT_ROW(i32, b32), [PP_U32] = INT_ROW(u32, b32),
    [PP_I64] = INT_ROW(i64, b64), [PP_U64] = INT_ROW(u64, b64), [PP_F32] = FLOAT_ROW(f32),
    [PP_F64] = FLOAT_ROW(f64),
};

static scan_fn find_scan(pp_dtype in, pp_op op, pp_dtype out)
{
    if (!pp__dtype_valid(in) || !pp__op_valid(op) || !pp__dtype_valid(out)) return NULL;
    if (in == out) return same_type_scans[in][op];
    if (op != PP_OP_SUM) return NULL;
    if (in == PP_U8 && out == PP_U32) return u8_sum_u32_run;
    if (in == PP_U8 && out == PP_U64) return u8_sum_u64_run;
    if (in == PP_I32 && out == PP_I64) return i32_sum_i64_run;
    if (in == PP_U32 && out == PP_U64) return u32_sum_u64_run;
    if (in == PP_F32 && out == PP_F64) return f32_sum_f64_run;
    return NULL;
}

static const char *entry_name(const pp_scan_args *a)
{
    if (a->offsets) return "pp_segmented_scan_offsets";
    if (a->head_flags) return "pp_segmented_scan_flags";
    return a->exclusive ? "pp_exclusive_scan" : "pp_inclusive_scan";
}

pp_status pp__cpu_scan(pp_context *ctx, const pp_scan_args *a)
{
    const scan_fn fn = find_scan(a->in_type, a->op, a->out_type);
    if (!fn) {
        const char *in = pp_dtype_name(a->in_type), *op = pp_op_name(a->op), *out = pp_dtype_name(a->out_type);
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: the CPU backend has no kernel for op %s from in_type %s to out_type %s",
                        entry_name(a), op ? op : "?", in ? in : "?", out ? out : "?");
    }
    if (a->n == 0 || (a->offsets && a->n_segments == 0)) return PP_OK;
    struct scan_scratch s = {NULL, omp_get_max_threads()};
    const size_t isz = pp_dtype_size(a->in_type);
    if (s.threads > 1 && a->n > BLOCK && a->n * isz >= PAR_MIN_BYTES) {
        const size_t bytes = 2 * (size_t)s.threads * window_blocks(isz) * BLOCK_SCRATCH;
        void *mem;
        pp_status st = pp__scratch(ctx, bytes, &mem);
        if (st != PP_OK) return st;
        s.mem = (unsigned char *)mem;
    }
    fn(a, &s);
    return PP_OK;
}
