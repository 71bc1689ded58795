/*
 * scan.c -- the scan family on the CPU (OpenMP): inclusive and exclusive scans, plain or
 * segmented (head flags, offsets), for every (in_type, op, out_type) of the reduce family.
 *
 * Each kernel is the template header cpu/scan_impl.h, included once per (in, op, out).
 * Accumulator types and operators are those of cpu/reduce.c (cpu/common.h): integer sum /
 * prod and the bitwise ops in the unsigned type of the output's width (wrapping is defined; a signed and an
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

#include "common.h"

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
#define STREAM_MIN_BYTES ((size_t)32 << 20) /* outputs this large bypass the caches */

#define ALWAYS_INLINE static inline __attribute__((always_inline))

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
#define SAD_RUNS(IN, OP) SAD_RUNS_(IN, OP) /* OP expanded first: OP_SUM, ... */
#define SAD_RUNS_(IN, OP) (IS_SUM_##OP && sizeof(IN) == 1)
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


/* ---- segments of the offsets form ---- */

/* cpu/common.h's plan, and whether the segments are disjoint: offsets that are not
 * non-decreasing once clamped are scanned in order by one thread (overlapping segments must
 * not race), as are all segments without the parallel scratch. */
struct scan_seg_plan {
    int monotone;    /* clamped offsets never decrease: the segments are disjoint */
    int parallel;    /* spread the segments over the threads */
    size_t batch;    /* segments per dynamic-scheduling step */
    size_t long_len; /* segments at least this long are scanned by all threads */
};

static struct scan_seg_plan plan_segments(size_t n, const size_t *off, size_t n_seg, size_t elem_size,
                                          const struct scan_scratch *s)
{
    struct scan_seg_plan p = {1, 0, 1, SIZE_MAX};
    for (size_t k = 0; k < n_seg && p.monotone; ++k)
        p.monotone = min_size(off[k], n) <= min_size(off[k + 1], n);
    if (!p.monotone || !s || !s->mem) return p;
    const struct seg_plan c = make_seg_plan(n, n_seg, elem_size);
    p.parallel = c.parallel;
    p.batch = c.batch;
    p.long_len = c.long_len;
    return p;
}

/* ---- instantiations: scan_impl.h once per kernel ---- */

/* Sum, prod and the bitwise ops give the same bits for a signed and an unsigned input of
 * one width: one kernel, named for the unsigned type, reads either (SCAN_EXACT below); min
 * and max need the input's own type. */
#define NAME u8_u8_sum
#define IN uint8_t
#define A uint8_t
#define OP OP_SUM
#define IDENT 0
#include "scan_impl.h"
#define NAME u8_u8_prod
#define IN uint8_t
#define A uint8_t
#define OP OP_PROD
#define IDENT 1
#include "scan_impl.h"
#define NAME u8_u8_and
#define IN uint8_t
#define A uint8_t
#define OP OP_AND
#define IDENT (uint8_t)~(uint8_t)0
#include "scan_impl.h"
#define NAME u8_u8_or
#define IN uint8_t
#define A uint8_t
#define OP OP_OR
#define IDENT 0
#include "scan_impl.h"
#define NAME u8_u8_xor
#define IN uint8_t
#define A uint8_t
#define OP OP_XOR
#define IDENT 0
#include "scan_impl.h"
#define NAME u32_u32_sum
#define IN uint32_t
#define A uint32_t
#define OP OP_SUM
#define IDENT 0
#include "scan_impl.h"
#define NAME u32_u32_prod
#define IN uint32_t
#define A uint32_t
#define OP OP_PROD
#define IDENT 1
#include "scan_impl.h"
#define NAME u32_u32_and
#define IN uint32_t
#define A uint32_t
#define OP OP_AND
#define IDENT (uint32_t)~(uint32_t)0
#include "scan_impl.h"
#define NAME u32_u32_or
#define IN uint32_t
#define A uint32_t
#define OP OP_OR
#define IDENT 0
#include "scan_impl.h"
#define NAME u32_u32_xor
#define IN uint32_t
#define A uint32_t
#define OP OP_XOR
#define IDENT 0
#include "scan_impl.h"
#define NAME u64_u64_sum
#define IN uint64_t
#define A uint64_t
#define OP OP_SUM
#define IDENT 0
#include "scan_impl.h"
#define NAME u64_u64_prod
#define IN uint64_t
#define A uint64_t
#define OP OP_PROD
#define IDENT 1
#include "scan_impl.h"
#define NAME u64_u64_and
#define IN uint64_t
#define A uint64_t
#define OP OP_AND
#define IDENT (uint64_t)~(uint64_t)0
#include "scan_impl.h"
#define NAME u64_u64_or
#define IN uint64_t
#define A uint64_t
#define OP OP_OR
#define IDENT 0
#include "scan_impl.h"
#define NAME u64_u64_xor
#define IN uint64_t
#define A uint64_t
#define OP OP_XOR
#define IDENT 0
#include "scan_impl.h"
#define NAME u8_u8_min
#define IN uint8_t
#define A uint8_t
#define OP OP_IMIN
#define IDENT UINT8_MAX
#include "scan_impl.h"
#define NAME u8_u8_max
#define IN uint8_t
#define A uint8_t
#define OP OP_IMAX
#define IDENT 0
#include "scan_impl.h"
#define NAME i32_i32_min
#define IN int32_t
#define A int32_t
#define OP OP_IMIN
#define IDENT INT32_MAX
#include "scan_impl.h"
#define NAME i32_i32_max
#define IN int32_t
#define A int32_t
#define OP OP_IMAX
#define IDENT INT32_MIN
#include "scan_impl.h"
#define NAME u32_u32_min
#define IN uint32_t
#define A uint32_t
#define OP OP_IMIN
#define IDENT UINT32_MAX
#include "scan_impl.h"
#define NAME u32_u32_max
#define IN uint32_t
#define A uint32_t
#define OP OP_IMAX
#define IDENT 0
#include "scan_impl.h"
#define NAME i64_i64_min
#define IN int64_t
#define A int64_t
#define OP OP_IMIN
#define IDENT INT64_MAX
#include "scan_impl.h"
#define NAME i64_i64_max
#define IN int64_t
#define A int64_t
#define OP OP_IMAX
#define IDENT INT64_MIN
#include "scan_impl.h"
#define NAME u64_u64_min
#define IN uint64_t
#define A uint64_t
#define OP OP_IMIN
#define IDENT UINT64_MAX
#include "scan_impl.h"
#define NAME u64_u64_max
#define IN uint64_t
#define A uint64_t
#define OP OP_IMAX
#define IDENT 0
#include "scan_impl.h"
#define NAME f32_f32_min
#define IN float
#define A float
#define OP OP_FMIN
#define IDENT (float)INFINITY
#include "scan_impl.h"
#define NAME f32_f32_max
#define IN float
#define A float
#define OP OP_FMAX
#define IDENT -(float)INFINITY
#include "scan_impl.h"
#define NAME f64_f64_min
#define IN double
#define A double
#define OP OP_FMIN
#define IDENT (double)INFINITY
#include "scan_impl.h"
#define NAME f64_f64_max
#define IN double
#define A double
#define OP OP_FMAX
#define IDENT -(double)INFINITY
#include "scan_impl.h"
#define NAME f32_f32_sum
#define IN float
#define A float
#define OP OP_SUM
#define IDENT 0
#include "scan_impl.h"
#define NAME f32_f32_prod
#define IN float
#define A float
#define OP OP_PROD
#define IDENT 1
#include "scan_impl.h"
#define NAME f64_f64_sum
#define IN double
#define A double
#define OP OP_SUM
#define IDENT 0
#include "scan_impl.h"
#define NAME f64_f64_prod
#define IN double
#define A double
#define OP OP_PROD
#define IDENT 1
#include "scan_impl.h"

/* Widening sums (a signed element converts to the wider unsigned type modulo 2^64, i.e.
 * sign-extended). */
#define NAME u8_u32_sum
#define IN uint8_t
#define A uint32_t
#define OP OP_SUM
#define IDENT 0
#include "scan_impl.h"
#define NAME u8_u64_sum
#define IN uint8_t
#define A uint64_t
#define OP OP_SUM
#define IDENT 0
#include "scan_impl.h"
#define NAME i32_i64_sum
#define IN int32_t
#define A uint64_t
#define OP OP_SUM
#define IDENT 0
#include "scan_impl.h"
#define NAME u32_u64_sum
#define IN uint32_t
#define A uint64_t
#define OP OP_SUM
#define IDENT 0
#include "scan_impl.h"
#define NAME f32_f64_sum
#define IN float
#define A double
#define OP OP_SUM
#define IDENT 0
#include "scan_impl.h"

/* ---- dispatch ---- */

typedef void (*scan_fn)(const pp_scan_args *a, const struct scan_scratch *s);

/* [in][out][op]: every combination of src/type_pairs.h. A same-type row takes the kernel of
 * the unsigned type of its width for the exact ops (SCAN_EXACT), its own for min and max. */
#define SCAN_UNS_PP_U8 PP_U8
#define SCAN_UNS_PP_I32 PP_U32
#define SCAN_UNS_PP_U32 PP_U32
#define SCAN_UNS_PP_I64 PP_U64
#define SCAN_UNS_PP_U64 PP_U64
#define SCAN_UNS_PP_F32 PP_F32
#define SCAN_UNS_PP_F64 PP_F64
#define SCAN_EXACT(IN, op) CPU_KERNEL(CPU_CAT(SCAN_UNS_, IN), CPU_CAT(SCAN_UNS_, IN), op, run)
#define SCAN_PICK_SUM SCAN_EXACT
#define SCAN_PICK_PROD SCAN_EXACT
#define SCAN_PICK_AND SCAN_EXACT
#define SCAN_PICK_OR SCAN_EXACT
#define SCAN_PICK_XOR SCAN_EXACT
#define SCAN_PICK_MIN(IN, op) CPU_KERNEL(IN, IN, op, run)
#define SCAN_PICK_MAX(IN, op) CPU_KERNEL(IN, IN, op, run)
#define SCAN_SAME(IN, OUT, OP, op) [PP_OP_##OP] = SCAN_PICK_##OP(IN, op),
#define SCAN_WIDE(IN, OUT, OP, op) [PP_OP_##OP] = CPU_KERNEL(IN, OUT, op, run),
static const scan_fn scan_impls CPU_TABLE_DIMS = {CPU_DISPATCH_ROWS(SCAN_SAME, SCAN_WIDE)};

static scan_fn find_scan(pp_dtype in, pp_op op, pp_dtype out)
{
    return cpu_table_index_ok(in, op, out) ? scan_impls[in][out][op] : NULL;
}

static const char *entry_name(const pp_scan_args *a)
{
    if (a->offsets) return "pp_segmented_scan_offsets";
    if (a->head_flags) return "pp_segmented_scan_flags";
    return a->exclusive ? "pp_exclusive_scan" : "pp_inclusive_scan";
}

/* The plan: strategy "cpu", tiles = the blocks of BLOCK elements, param[0] = the threads of
 * the parallel kernel (1: one thread), param[1] = 1 where the output bypasses the caches. */
pp_status pp__cpu_scan(pp_context *ctx, const pp_scan_args *a)
{
    const scan_fn fn = find_scan(a->in_type, a->op, a->out_type);
    if (!fn) return cpu_no_kernel(ctx, entry_name(a), a->in_type, a->op, a->out_type);
    struct scan_scratch s = {NULL, omp_get_max_threads(), a->n * pp_dtype_size(a->out_type) >= STREAM_MIN_BYTES};
    const size_t isz = pp_dtype_size(a->in_type);
    if (a->n > 0 && (!a->offsets || a->n_segments > 0) && s.threads > 1 && a->n > BLOCK &&
        a->n * isz >= CPU_PAR_MIN_BYTES) {
        void *mem;
        PP_TRY(cpu_scratch(ctx, entry_name(a), parallel_scratch_bytes(a->n, isz, s.threads), &mem));
        s.mem = (unsigned char *)mem;
    }
    pp__set_plan(ctx, "scan", "cpu", 0, (a->n + BLOCK - 1) / BLOCK, s.mem ? s.threads : 1, s.stream, 0, 0);
    if (a->n == 0 || (a->offsets && a->n_segments == 0)) return PP_OK;
    fn(a, &s);
    return PP_OK;
}
