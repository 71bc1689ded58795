/*
 * scan.c -- the scan family on the CPU (OpenMP): inclusive and exclusive scans, plain or
 * segmented (head flags, offsets), for every (in_type, op, out_type) of the reduce family.
 *
 * Accumulator types and operators are those of cpu/reduce.c: integer sum / prod and the
 * bitwise ops in the unsigned type of the output's width (wrapping is defined; a signed and an
 * unsigned input of one width share the kernel), integer min / max in the input type, floats
 * in the output type (f32 -> f64 converts each element exactly); float min / max keep a NaN
 * once seen (sticky select).
 *
 * Order of evaluation: fixed by the input alone, never by the thread count.
 *   run     RUN = 16 consecutive elements of a block. Its aggregate: a pairwise tree (plain
 *           scans) or, with head flags, a chain that restarts at each head.
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
 * before its segment's head. A segment of pp_segmented_scan_offsets is a range scanned as
 * above (its blocks start at the segment's first element).
 *
 * Rounding depth of out[i] over m terms: a term in the same block passes through at most
 * 15 (run aggregate) + 8 + 8 (sweeps) + 2 (joins with the block prefix and init) + 16 (chain)
 * roundings; one in an earlier block through at most 15 + 8 (block aggregate) +
 * 2 ceil(log2 blocks) (counter) + 2 + 16. Both are within 2 ceil(log2 m) + PP_SCAN_DEPTH_SLACK
 * (a term of an earlier block means m > BLOCK).
 *
 * Threads (NAME_parallel): chunks of up to 1 MiB of input, claimed in order; a thread computes
 * its chunk's run prefixes (the input's one read from memory), publishes the block totals,
 * feeds its private counter the totals before the chunk, and scans the chunk from its cache.
 * No barriers: a total that is late is computed by the thread that needs it, so a descheduled
 * thread does not stall the others (lock-step windows with a barrier each ran 5-10x slower
 * than a copy here whenever another process shared the two cores); in place, where the owner
 * of a late block may start overwriting it while it is read, the thread waits instead. Outputs of 32 MiB and more
 * are written with non-temporal stores (about 15% faster at n = 2^26 f32 here).
 * Offsets: disjoint segments are spread over the threads (dynamic batches), each scanned by
 * one thread; long ones are then scanned by all threads, one at a time. Offsets that are not
 * non-decreasing are scanned in order by one thread (overlapping segments must not race).
 */
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "cpu.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define RUN 16                   /* elements per run: the longest sequential chain */
#define BLOCK 4096               /* elements per block */
#define RUNS (BLOCK / RUN)       /* runs per block, a power of two */
#define GROUP 8                  /* runs scanned side by side (independent chains) */
#define CHUNK_BYTES ((size_t)1 << 20)  /* input a thread claims at a time (stays in its L2) */
#define CHUNK_MAX_BLOCKS 64              /* ... and at most this many blocks (scratch size) */
#define SPIN_LIMIT 4096                  /* polls for another thread's block total (~50 us) */
#define PAIR_BYTES 16            /* the largest (flag, value) pair */
/* Scratch per block of a chunk: its run prefixes (values, flags). */
#define BLOCK_SCRATCH (RUNS * 8 + RUNS)
#define PAR_MIN_BYTES ((size_t)256 << 10) /* smaller inputs are scanned by one thread */
#define TASK_ELEMS ((size_t)16 << 10)     /* elements per dynamic step over segments */
#define LONG_SEG_ELEMS ((size_t)1 << 18)  /* shortest segment scanned by all threads */
#define STREAM_MIN_BYTES ((size_t)32 << 20) /* outputs this large bypass the caches */

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

/* Blocks per chunk (what a thread claims at a time) for elements of `size` bytes. */
static inline size_t chunk_blocks(size_t size)
{
    const size_t k = CHUNK_BYTES / (BLOCK * size);
    return k < 1 ? 1 : k > CHUNK_MAX_BLOCKS ? CHUNK_MAX_BLOCKS : k;
}

/* Scratch shared by the threads of a parallel scan of n_blocks blocks: the block totals and
 * their ready flags. Each thread then has (chunk_blocks + 1) slots of BLOCK_SCRATCH. */
static inline size_t shared_bytes(size_t n_blocks) { return (n_blocks * (PAIR_BYTES + 1) + 63) & ~(size_t)63; }

static inline size_t parallel_scratch_bytes(size_t n, size_t size, int threads)
{
    return shared_bytes((n + BLOCK - 1) / BLOCK) + (size_t)threads * (chunk_blocks(size) + 1) * BLOCK_SCRATCH;
}

/* Whether *flag is set, spinning for it a while if `patient`. */
static inline int wait_ready(atomic_uchar *flag, int patient)
{
    for (unsigned i = 0; patient && i < SPIN_LIMIT; ++i) {
        if (atomic_load_explicit(flag, memory_order_acquire)) return 1;
#if defined(__SSE2__)
        _mm_pause();
#endif
    }
    return atomic_load_explicit(flag, memory_order_acquire) != 0;
}

/* The parallel kernel's scratch (parallel_scratch_bytes for up to `threads` threads; NULL:
 * scan with one thread), and whether to stream the output. */
struct scan_scratch {
    unsigned char *mem;
    int threads;
    int stream;
};

/* Copy `bytes` (a multiple of 16) from the cached buffer src to dst with non-temporal stores
 * where there are any (SSE2): an output larger than the caches then costs one write instead
 * of a read for ownership and a write-back. dst is 16-byte aligned. */
static inline void stream_out(void *dst, const void *src, size_t bytes)
{
#if defined(__SSE2__)
    __m128i *d = (__m128i *)dst;
    const __m128i *q = (const __m128i *)src;
    for (size_t i = 0; i < bytes / 16; ++i) _mm_stream_si128(d + i, _mm_loadu_si128(q + i));
#else
    memcpy(dst, src, bytes);
#endif
}

/* Order the non-temporal stores before whatever follows. */
static inline void stream_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/* Integer sums are exact in any order (wrapping arithmetic is associative and commutative),
 * so a run of 16 bytes summed into a wider accumulator may take psadbw (two 8-byte sums in
 * one instruction) instead of the pairwise tree, which gcc turned into scalar adds and
 * 8-byte stores read back 16 bytes at a time (stalled store forwarding): u8 -> u64 scans ran
 * at twice the time of f64 scans, which move 8 times the input. SAD_RUNS(IN, OP) is a
 * constant: 1 for byte inputs with OP_SUM where SSE2 is there. */
#define IS_SUM_OP_SUM 1
#define IS_SUM_OP_PROD 0
#define IS_SUM_OP_AND 0
#define IS_SUM_OP_OR 0
#define IS_SUM_OP_XOR 0
#define IS_SUM_OP_IMIN 0
#define IS_SUM_OP_IMAX 0
#define IS_SUM_OP_FMIN 0
#define IS_SUM_OP_FMAX 0
#if defined(__SSE2__)
#define SAD_RUNS(IN, OP) (IS_SUM_##OP && sizeof(IN) == 1)
static inline uint64_t sad_run(const void *p)
{
    _Static_assert(RUN == 16, "one 16-byte vector a run");
    const __m128i s = _mm_sad_epu8(_mm_loadu_si128((const __m128i *)p), _mm_setzero_si128());
    return (uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s));
}
#else
#define SAD_RUNS(IN, OP) 0
static inline uint64_t sad_run(const void *p)
{
    (void)p;
    return 0;
}
#endif

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
        const size_t full = len / RUN, nr = (len + RUN - 1) / RUN, np = pow2_ceil(nr);           \
        NAME##_pair total;                                                                       \
        if (!fl) {                                                                               \
            for (size_t r = 0; r < full; ++r) { /* a pairwise tree per run (vectorizes) */      \
                const IN *p = x + r * RUN;                                                 \
                if (SAD_RUNS(IN, OP)) { /* byte sums: one psadbw a run (any order: exact) */ \
                    v[r] = (A)sad_run(p);                                                  \
                    continue;                                                              \
                }                                                                          \
                A t[RUN / 2];                                                              \
                for (int j = 0; j < RUN / 2; ++j)                                          \
                    t[j] = NAME##_op((A)p[j], (A)p[j + RUN / 2]);                          \
                for (int h = RUN / 4; h > 0; h /= 2)                                       \
                    for (int j = 0; j < h; ++j) t[j] = NAME##_op(t[j], t[j + h]);                \
                v[r] = t[0];                                                                     \
            }                                                                                    \
            if (full < nr) {                                                                     \
                A a = (A)x[full * RUN];                                                    \
                for (size_t i = full * RUN + 1; i < len; ++i) a = NAME##_op(a, (A)x[i]);   \
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
            const size_t e = min_size(len, (r + 1) * RUN);                                 \
            A a = (A)(IDENT);                                                                    \
            int h = 0;                                                                           \
            for (size_t i = r * RUN; i < e; ++i) {                                         \
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
     * by side (through buf and stream_out when `stream`), then the rest one by one. excl and \
     * seg are constants at every call. */                                                     \
    ALWAYS_INLINE void NAME##_chains(const IN *x, const uint8_t *fl, A *y, size_t len,           \
                                     const A *start, const int excl, const int seg, A init,      \
                                     int stream)                                                 \
    {                                                                                            \
        const size_t full = len / RUN, nr = (len + RUN - 1) / RUN;                               \
        A buf[GROUP * RUN];                                                                      \
        size_t r = 0;                                                                            \
        for (; r + GROUP <= full; r += GROUP) {                                                  \
            A acc[GROUP];                                                                        \
            for (int j = 0; j < GROUP; ++j) acc[j] = start[r + j];                               \
            const IN *xk = x + r * RUN;                                                          \
            const uint8_t *fk = seg ? fl + r * RUN : NULL;                                       \
            A *yk = stream ? buf : y + r * RUN;                                                  \
            for (int k = 0; k < RUN; ++k, ++xk, ++yk, fk += seg) /* one base, fixed offsets */  \
                for (int j = 0; j < GROUP; ++j)                                                  \
                    yk[j * RUN] = NAME##_step(&acc[j], (A)xk[j * RUN], seg ? fk[j * RUN] != 0 : 0, \
                                              excl, seg, init);                                  \
            if (stream) stream_out(y + r * RUN, buf, sizeof buf);                                \
        }                                                                                        \
        for (; r < nr; ++r) {                                                                    \
            A acc = start[r];                                                                    \
            const size_t e = min_size(len, (r + 1) * RUN);                                       \
            for (size_t i = r * RUN; i < e; ++i)                                                 \
                y[i] = NAME##_step(&acc, (A)x[i], seg ? fl[i] != 0 : 0, excl, seg, init);        \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    /* Output of the block x[0, len) given its run prefixes and the prefix of the blocks    \
     * before it (base NULL: the range's first block). */                                      \
    static void NAME##_block_scan(const IN *x, const uint8_t *fl, A *y, size_t len, const A *v,  \
                                  const uint8_t *f, const NAME##_pair *base, int excl, A init,   \
                                  int stream)                                                    \
    {                                                                                            \
        const size_t nr = (len + RUN - 1) / RUN;                                                 \
        A start[RUNS];                                                                           \
        start[0] = base ? base->v : excl ? init : (A)(IDENT);                                    \
        for (size_t r = 1; r < nr; ++r)                                                          \
            start[r] = !base || (fl && f[r]) ? v[r] : NAME##_op(base->v, v[r]);                  \
        if (excl)                                                                                \
            for (size_t r = base ? 0 : 1; r < nr; ++r) start[r] = NAME##_op(init, start[r]);     \
        stream = stream && ((uintptr_t)y & 15) == 0;                                             \
        if (fl) {                                                                                \
            if (excl) NAME##_chains(x, fl, y, len, start, 1, 1, init, stream);             \
            else NAME##_chains(x, fl, y, len, start, 0, 1, init, stream);                  \
        } else {                                                                                 \
            if (excl) NAME##_chains(x, NULL, y, len, start, 1, 0, init, stream);           \
            else NAME##_chains(x, NULL, y, len, start, 0, 0, init, stream);                \
        }                                                                                        \
        if (stream) stream_fence();                                                              \
    }                                                                                            \
                                                                                                 \
    static void NAME##_serial(const IN *x, const uint8_t *fl, A *y, size_t n, int excl, A init,  \
                              int stream)                                                        \
    {                                                                                            \
        if (n <= RUN) { /* one run: what the general path does, without its set-up */   \
            NAME##_block_scan(x, fl, y, n, NULL, NULL, NULL, excl, init, 0);                     \
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
            NAME##_block_scan(x + b, fb, y + b, len, v, f, have ? &base : NULL, excl, init, stream); \
            NAME##_push(&blocks, total);                                                         \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    /* Run prefixes of block b into `slot`; returns its total. */                              \
    static inline NAME##_pair NAME##_phase1(const IN *x, const uint8_t *fl, size_t n, size_t b,  \
                                            unsigned char *slot)                                 \
    {                                                                                            \
        const size_t o = b * BLOCK;                                                              \
        return NAME##_block_prefix(x + o, fl ? fl + o : NULL, min_size(BLOCK, n - o), (A *)slot,  \
                                   slot + RUNS * 8);                                             \
    }                                                                                            \
                                                                                                 \
    /* All threads; the bits are those of NAME_serial. The threads claim chunks of K blocks in \
     * order. For its chunk a thread computes the run prefixes (kept in its own scratch) and  \
     * publishes the block totals; feeds its own counter every total before the chunk (the   \
     * same sequence in every thread, so the same prefixes), waiting a little for a total that \
     * is not published yet and then computing it itself, so that a descheduled thread never \
     * stalls the others; then scans the chunk, whose input is still in its cache. */        \
    static void NAME##_parallel(const IN *x, const uint8_t *fl, A *y, size_t n, int excl,       \
                                A init, const struct scan_scratch *s)                            \
    {                                                                                            \
        const size_t n_blocks = (n + BLOCK - 1) / BLOCK, K = chunk_blocks(sizeof(IN));           \
        const size_t n_chunks = (n_blocks + K - 1) / K;                                          \
        /* In place, a late block's owner may overwrite it while we read it: wait instead. */   \
        const int in_place = (const void *)x == (const void *)y;                                 \
        NAME##_pair *total = (NAME##_pair *)s->mem;                                              \
        atomic_uchar *ready = (atomic_uchar *)(s->mem + n_blocks * PAIR_BYTES);                  \
        unsigned char *own = s->mem + shared_bytes(n_blocks);                                    \
        for (size_t b = 0; b < n_blocks; ++b) atomic_store_explicit(&ready[b], 0, memory_order_relaxed); \
        atomic_size_t next;                                                                      \
        atomic_init(&next, 0);                                                                   \
        _Pragma("omp parallel num_threads(s->threads)")                                          \
        {                                                                                        \
            unsigned char *mine = own + (size_t)omp_get_thread_num() * (K + 1) * BLOCK_SCRATCH;  \
            NAME##_counter blocks;                                                               \
            blocks.count = 0;                                                                    \
            for (;;) {                                                                           \
                const size_t c = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);      \
                if (c >= n_chunks) break;                                                        \
                const size_t b0 = c * K, b1 = min_size(n_blocks, b0 + K);                        \
                for (size_t b = b0; b < b1; ++b) {                                               \
                    total[b] = NAME##_phase1(x, fl, n, b, mine + (b - b0) * BLOCK_SCRATCH);      \
                    atomic_store_explicit(&ready[b], 1, memory_order_release);                   \
                }                                                                                \
                int patient = 1;                                                                 \
                for (size_t b = (size_t)blocks.count; b < b0; ++b) {                             \
                    int ready_b = wait_ready(&ready[b], patient);                                \
                    while (!ready_b && in_place) ready_b = wait_ready(&ready[b], 1);             \
                    if (ready_b) {                                                               \
                        NAME##_push(&blocks, total[b]);                                          \
                    } else {                                                                     \
                        patient = 0;                                                             \
                        NAME##_push(&blocks, NAME##_phase1(x, fl, n, b, mine + K * BLOCK_SCRATCH)); \
                    }                                                                            \
                }                                                                                \
                for (size_t b = b0; b < b1; ++b) {                                               \
                    const size_t o = b * BLOCK;                                                  \
                    const unsigned char *slot = mine + (b - b0) * BLOCK_SCRATCH;                 \
                    NAME##_pair base;                                                            \
                    const int have = NAME##_prefix(&blocks, &base);                              \
                    NAME##_block_scan(x + o, fl ? fl + o : NULL, y + o, min_size(BLOCK, n - o),  \
                                      (const A *)slot, slot + RUNS * 8, have ? &base : NULL,     \
                                      excl, init, s->stream);                                    \
                    NAME##_push(&blocks, total[b]);                                              \
                }                                                                                \
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
            NAME##_serial(x, fl, y, n, excl, init, s && s->stream);                              \
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
            if (len && len < p.long_len) NAME##_serial(x + b, NULL, y + b, len, excl, init, 0);  \
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
    struct scan_scratch s = {NULL, omp_get_max_threads(), a->n * pp_dtype_size(a->out_type) >= STREAM_MIN_BYTES};
    const size_t isz = pp_dtype_size(a->in_type);
    if (s.threads > 1 && a->n > BLOCK && a->n * isz >= PAR_MIN_BYTES) {
        const size_t bytes = parallel_scratch_bytes(a->n, isz, s.threads);
        void *mem;
        pp_status st = pp__scratch(ctx, bytes, &mem);
        if (st != PP_OK) return st;
        s.mem = (unsigned char *)mem;
    }
    fn(a, &s);
    return PP_OK;
}
