/*
 * scan.hip -- the scan family on the GPU: inclusive and exclusive scans, plain and segmented
 * (by head flags, or by offsets turned into head flags), in one pass over the data.
 *
 * One kernel (scan_tiles); tiles of THREADS x ITEMS elements (scan_shape) taken in the order
 * of an atomic ticket, so a tile only ever waits on tiles that have already started. On AMD a
 * block scans one tile; on NVIDIA a grid of as many blocks as fit scans tile after tile, and
 * for the plain scans wave 1 loads the next tile into shared memory (cp.async) and publishes
 * its aggregate while wave 0 looks back for the current one (SCAN_EARLY, early_copy), so that a tile's aggregate is published one load after its
 * ticket and the block's loads are in flight while it looks back.
 *   thread -- ITEMS consecutive elements, scanned sequentially in registers;
 *   wave   -- the thread totals, scanned by shuffles over the compile-time wave width
 *             (Kogge-Stone / Hillis-Steele: log2(W) steps with every lane busy; a
 *             Blelloch up/down sweep does half the operations in twice the steps, and
 *             shuffles, not operations, are what costs here);
 *   block  -- the wave totals (at most W of them) scanned by wave 0 the same way;
 *   device -- a decoupled look-back: the classic chain (lookback_chain) for integer
 *             accumulators, as any association gives them the same bits, and for segmented
 *             f32 sums carried in f64 and folded in tile order; for the other float scans
 *             one whose combination order is a fixed binary tree (below).
 * The classic look-back (Merrill & Garland) adds predecessors' aggregates until it meets an
 * inclusive prefix, so the association of a float sum depends on timing. In the tree the
 * prefix of tile t is the fold, largest run first, of the aligned runs of tiles that the binary digits
 * of t describe (a Fenwick decomposition), each run summed as a balanced binary tree. Every
 * value is computed in one order whatever the timing, so results are bitwise reproducible,
 * and a float passes through about 2 log2(#tiles) roundings across tiles, not #tiles.
 * The runs are gathered from a radix-32 tree of published nodes (see lb_index): each tile
 * publishes its aggregate at once; the last tile of every aligned group of 32^j tiles
 * publishes the group's sum, computed from the 32 children in one round of reads; a tile's
 * prefix needs at most 31 nodes per radix-32 digit of t, read by one lane each. A first
 * version built the runs pairwise (node S(t, k) from S(t - 2^(k-1), k - 1)): that made the
 * nodes a tile needs wait on chains of about log2(tiles in flight) round trips, and the
 * scan ran at half of copy speed (H100, f32, 2^28: 1.38 ms, against 0.73 ms with the
 * look-back switched off); prefetching the next tile in persistent blocks made it worse
 * (4.9 ms: a prefetched tile publishes nothing until its block's current tile is done).
 *
 * Memory traffic: read n, write n (plus n flag bytes for segmented scans); the published
 * states are about 1.03 x #tiles words, cleared by one memset before the kernel. A
 * single-tile input is one launch and needs no state at all.
 *
 * Loads and stores move 16-byte vectors, coalesced across the wave; the blocked arrangement
 * a thread scans is obtained through a per-wave shared-memory transposition whose 16-byte
 * slots are XOR-swizzled so that neither the striped nor the blocked side has bank conflicts.
 * Misaligned pointers, the last tile and segment-covered edges take a scalar path.
 */
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "blocks.h"
#include "common.h"
#include "policy.h"

namespace {

/* Block shape per input / accumulator width: threads per block, elements per thread, and the
 * resident blocks per SM/CU the register allocation must allow (tiles in flight).
 * NVIDIA (chosen on the H100 with bench/sweep_scan_h100.sh, figures in bench/NOTES.md):
 *   1-byte inputs:           256 x 16 (4096 per tile), 3 blocks (4 fit);
 *   4-byte input and acc.:   128 x 40 (5120), 5 blocks (96 registers, 40 KB of shared
 *                            memory); f32 at 2^28 833-837 us against 853-861 with 128 x 32
 *                            and 6 blocks, u32 816-823 against 829-832; 128 x 48 with 4
 *                            (dynamic shared memory) 848 / 864-869. Segmented: 128 x 32, 5
 *                            blocks (a lane's head flags are one 32-bit mask; at 6 blocks
 *                            they spill 96-152 bytes, f32 with head flags 1.10 ms against
 *                            0.91);
 *   8-byte input or acc.:    plain: 128 x 16 (2048), 6 blocks (80 registers, 32 KB of
 *                            shared memory), where the next tile is loaded ahead (SCAN_EARLY):
 *                            f64 at 2^28 1.530-1.532 ms against 1.617-1.641 with 128 x 32 and
 *                            3 blocks, 1.634 with 128 x 12 and 8, 1.675 with 128 x 24 and 4.
 *                            Segmented: 128 x 32 (4096), 3 blocks (64 KB of dynamic shared
 *                            memory each; measured before SCAN_EARLY, plain f64 then ran at
 *                            1.708-1.710 ms against 1.760-1.764 with 128 x 16 and 6 blocks:
 *                            half the tiles, half the look-backs).
 * With SCAN_EARLY the plain 4-byte tiles stay at 128 x 40 with 5 blocks (f32 770-775 us, u32
 * 771-775; 128 x 32 with 6: 776 / 772; 128 x 48 with 4: 792 / 821).
 * Small blocks with many elements each (as CUB's sm_90 tuning has them) keep more tiles
 * loading while others look back: a waiting tile holds its block's slot, and a 128-thread
 * block holds half the registers of a 256-thread one (u32 at 2^28: 256 x 16 1.015 ms,
 * 128 x 24 0.999, 128 x 32 0.902 with the chain's sleeps; f32: 1.03, 1.01, 0.904).
 * AMD (compiled, never run here): 256 x 16 / 256 x 8, 3 blocks, the shape that compiles
 * without spills on gfx90a, gfx940 and gfx1030 (128 threads with 6 blocks caps the VGPRs
 * at 80 and spills).
 * SCAN_THREADS, SCAN_MIN_BLOCKS, SCAN_ITEMS4(_PLAIN), SCAN_MIN_BLOCKS4_PLAIN and
 * SCAN_WIDE_ITEMS / SCAN_WIDE_MIN_BLOCKS (_PLAIN) override them for tuning
 * builds (SCAN_THREADS and SCAN_MIN_BLOCKS then apply to every width). The wave totals of a
 * block are scanned by one wave, so a block has at most PP_WAVE waves. */
#if defined(PP_PORT_NVIDIA)
#define SCAN_NV_SHAPE 1
#else
#define SCAN_NV_SHAPE 0
#endif
#ifndef SCAN_ITEMS4
#define SCAN_ITEMS4 (SCAN_NV_SHAPE ? 32 : 16)
#endif
#ifndef SCAN_ITEMS4_PLAIN /* the 4-byte scans without segments (a lane's head flags: 32 bits) */
#define SCAN_ITEMS4_PLAIN (SCAN_NV_SHAPE ? 40 : SCAN_ITEMS4)
#endif
#ifndef SCAN_MIN_BLOCKS4_PLAIN
#define SCAN_MIN_BLOCKS4_PLAIN 5
#endif
#ifndef SCAN_WIDE_ITEMS
#define SCAN_WIDE_ITEMS (SCAN_NV_SHAPE ? 32 : 8)
#endif
#ifndef SCAN_WIDE_MIN_BLOCKS
#define SCAN_WIDE_MIN_BLOCKS 3
#endif
/* The 8-byte scans without segments, where tiles are loaded ahead (SCAN_EARLY, below). */
#ifndef SCAN_WIDE_ITEMS_PLAIN
#define SCAN_WIDE_ITEMS_PLAIN (SCAN_NV_SHAPE && SCAN_EARLY ? 16 : SCAN_WIDE_ITEMS)
#endif
#ifndef SCAN_WIDE_MIN_BLOCKS_PLAIN
#define SCAN_WIDE_MIN_BLOCKS_PLAIN (SCAN_NV_SHAPE && SCAN_EARLY ? 6 : SCAN_WIDE_MIN_BLOCKS)
#endif
/* Whether a block scans tiles one after another, the next one's loads in flight while the
 * current one is written (scan_tiles): where copies to shared memory are asynchronous
 * (NVIDIA). Elsewhere one block scans one tile (the loop would hold its state across tiles:
 * on gfx90a it spilled SGPRs, and without asynchronous copies it has nothing to overlap). */
#ifndef SCAN_PERSISTENT
#define SCAN_PERSISTENT PP_ASYNC_COPY
#endif
/* Whether, in persistent blocks, the plain scans load and fold the next tile in one wave while
 * wave 0 looks back for the current one (early_copy, early_fold), publishing its aggregate
 * before its block comes to it. -DSCAN_EARLY=0: the next tile's loads start after the look-back. */
#ifndef SCAN_EARLY
#define SCAN_EARLY 1
#endif
template <typename In, typename A, bool SEG> struct scan_shape {
    static constexpr int cls = sizeof(In) == 1 ? 1 : (sizeof(In) == 8 || sizeof(A) == 8) ? 8 : 4;
#ifdef SCAN_THREADS
    static constexpr int threads = SCAN_THREADS;
#else
    static constexpr int threads = cls == 1 || !SCAN_NV_SHAPE ? 256 : 128;
#endif
#ifdef SCAN_MIN_BLOCKS
    static constexpr int min_blocks = SCAN_MIN_BLOCKS;
#else
    static constexpr int min_blocks = cls == 1 || !SCAN_NV_SHAPE ? 3
                                      : cls == 4             ? (SEG ? 5 : SCAN_MIN_BLOCKS4_PLAIN)
                                                             : (SEG ? SCAN_WIDE_MIN_BLOCKS : SCAN_WIDE_MIN_BLOCKS_PLAIN);
#endif
    static constexpr int items = cls == 1 ? 16
                                 : cls == 8 ? (SEG ? SCAN_WIDE_ITEMS : SCAN_WIDE_ITEMS_PLAIN)
                                            : (SEG ? SCAN_ITEMS4 : SCAN_ITEMS4_PLAIN);
    static_assert(!SEG || items <= 32, "a lane's head flags are one 32-bit mask");
    static constexpr int waves = threads / PP_WAVE;
    static_assert(threads % PP_WAVE == 0 && waves <= PP_WAVE, "the wave totals fit one wave");
    /* 16-byte slots of a wave's buffer for its run of elements of `bytes` bytes */
    static constexpr int buf_vecs(int bytes) { return PP_WAVE * items * bytes / 16; }
};
/* The same for a policy P (__launch_bounds__ is a macro on HIP: a comma in its arguments
 * needs parentheses around them). */
template <typename P, bool SEG> using scan_shape_of = scan_shape<typename P::in_t, typename P::acc_t, SEG>;
template <typename P> constexpr int scan_threads() { return scan_shape_of<P, false>::threads; }
template <typename P, bool SEG> constexpr int scan_min_blocks() { return scan_shape_of<P, SEG>::min_blocks; }
/* Whether blocks load and fold the next tile ahead (SCAN_EARLY, scan_tiles): the plain scans,
 * in persistent blocks of more than one wave. */
template <typename P, bool SEG> constexpr bool scan_early()
{
    return SCAN_EARLY && SCAN_PERSISTENT && !SEG && scan_shape_of<P, SEG>::waves > 1;
}

/* A scanned value: the accumulator and, for segmented scans, whether a segment starts
 * inside the span it covers. The segmented operator (a, b) -> b.f ? b : a op b is
 * associative, so the same tree serves both; f stays 0 (and is folded away) otherwise. */
template <typename Op, typename A, bool SEG> struct scan_op {
    struct T {
        A v;
        uint32_t f;
    };
    static PP_DEVICE T make(A v, uint32_t f)
    {
        T r;
        r.v = v;
        r.f = SEG ? f : 0u;
        return r;
    }
    static PP_DEVICE T identity() { return make(Op::identity(), 0); }
    static PP_DEVICE T apply(T a, T b)
    {
        if constexpr (SEG) return make(b.f ? b.v : Op::apply(a.v, b.v), a.f | b.f);
        else return make(Op::apply(a.v, b.v), 0);
    }
    static PP_DEVICE T shfl(T x, int src)
    {
        T r;
        r.v = pp_shfl_any(x.v, src);
        r.f = SEG ? pp_shfl_any(x.f, src) : 0u;
        return r;
    }
};

/* ---- published tile states ----
 * The tree over tiles has radix LB_RADIX = 32 (a constant of the tree, not the wave width;
 * "32" below is that radix): node (j, i) holds the canonical (balanced binary) sum
 * of tiles [i * 32^j, (i + 1) * 32^j), that is S(t, 5j) for t = (i + 1) * 32^j - 1. Level 0
 * holds the tile aggregates; a level-j node is published by its last tile, which computes
 * it from its 32 level-(j-1) children in one round of reads (a butterfly that keeps the
 * binary order), not through a chain of pairwise sums. Level j has floor(T / LB_RADIX^j) nodes,
 * stored after those of the lower levels. The radix is the tree's, not the wave's: the
 * look-back uses lanes 0 .. 31 of its wave and shuffles within them, on waves of 32 and 64.
 * Every 64-bit word is written and read whole (single-copy atomic), and each carries its
 * own ready bit 63, so no fence orders anything: a value of at most 4 bytes travels in one
 * word (segment bit 32, value in the low half), an 8-byte value in two (low half with the
 * segment bit, high half), and a reader waits until both are ready. (A first version wrote
 * the 8-byte value, a fence, then a ready word, and fenced again after reading it: f64
 * scans ran at 2.9 ms instead of 1.6 ms with the waits off; the fences were the cost.) */
constexpr int LB_RADIX_BITS = 5;
constexpr int LB_RADIX = 1 << LB_RADIX_BITS;
constexpr int LB_MAX_LEVELS = 7; /* 32^7 tiles: far beyond any n */

struct alignas(16) lb_wide {
    unsigned long long v, s;
};

template <typename A> PP_DEVICE unsigned long long lb_bits(A v)
{
    union {
        A a;
        unsigned long long u;
    } c;
    c.u = 0;
    c.a = v;
    return c.u;
}
template <typename A> PP_DEVICE A lb_value(unsigned long long u)
{
    union {
        A a;
        unsigned long long u;
    } c;
    c.u = u;
    return c.a;
}

template <typename A> struct lb_word {
    static constexpr bool packed = sizeof(A) <= 4;
    using type = typename std::conditional<packed, unsigned long long, lb_wide>::type;
};

/* Look-back knobs (PP_HIP_SCAN_EXP bits, PP_HIP_SCAN_PAUSE / PP_HIP_SCAN_DELAY nanoseconds;
 * see scan_params and scan_launch). */
struct lb_knobs {
    int exp;
    unsigned pause_ns; /* sleep between two polls of a state not yet published (0: the default) */
    unsigned delay_ns; /* sleep once between publishing the aggregate and the first poll */
};

/* Back off inside a look-back poll. */
PP_DEVICE void lb_pause(const lb_knobs &k)
{
    if (k.exp & 2) return;
    if (k.pause_ns) pp_sleep_ns(k.pause_ns);
    else pp_spin_pause();
}

PP_DEVICE uint64_t lb_index(uint64_t tiles, int j, uint64_t i)
{
    uint64_t base = 0;
    for (int l = 0; l < j; ++l) base += tiles >> (LB_RADIX_BITS * l);
    return base + i;
}

/* One state word, loaded or stored whole (volatile: relaxed gpu-scope accesses, as CUB's
 * polls, measured no different on the H100, bench/NOTES.md). */
PP_DEVICE unsigned long long lb_ld(const unsigned long long *p)
{
    return *reinterpret_cast<const volatile unsigned long long *>(p);
}
PP_DEVICE void lb_st(unsigned long long *p, unsigned long long v)
{
    *reinterpret_cast<volatile unsigned long long *>(p) = v;
}

template <typename SO, typename A>
PP_DEVICE void lb_publish(typename lb_word<A>::type *st, uint64_t e, typename SO::T x)
{
    const unsigned long long b = lb_bits(x.v), ready = 1ull << 63, seg = (unsigned long long)x.f << 32;
    unsigned long long *p = reinterpret_cast<unsigned long long *>(st + e);
    lb_st(p, ready | seg | (b & 0xFFFFFFFFull));
    if constexpr (!lb_word<A>::packed) lb_st(p + 1, ready | (b >> 32));
}

/* An entry's words: ready (both words of an 8-byte value), and the value they hold. */
template <typename A> PP_DEVICE bool lb_ready(unsigned long long lo, unsigned long long hi)
{
    return (lo >> 63) && (lb_word<A>::packed || (hi >> 63));
}
template <typename SO, typename A> PP_DEVICE typename SO::T lb_decode(unsigned long long lo, unsigned long long hi)
{
    const unsigned long long b = (lo & 0xFFFFFFFFull) | ((hi & 0xFFFFFFFFull) << 32);
    return SO::make(lb_value<A>(b), (uint32_t)(lo >> 32) & 1u);
}

/* Entry e's value, once ready. PP_HIP_SCAN_EXP bit 16: read once and never wait (results
 * wrong, to time the reads alone). */
template <typename SO, typename A>
PP_DEVICE typename SO::T lb_wait(typename lb_word<A>::type *st, uint64_t e, const lb_knobs &pause)
{
    const unsigned long long *p = reinterpret_cast<const unsigned long long *>(st + e);
    unsigned long long lo, hi = 0;
    for (;;) {
        lo = lb_ld(p);
        if constexpr (!lb_word<A>::packed) hi = lb_ld(p + 1);
        if (lb_ready<A>(lo, hi) || (pause.exp & 16)) break;
        lb_pause(pause);
    }
    return lb_decode<SO, A>(lo, hi);
}

/* lb_wait without the wait: whether entry e is ready, and its value in x if so. */
template <typename SO, typename A>
PP_DEVICE bool lb_try(typename lb_word<A>::type *st, uint64_t e, typename SO::T &x)
{
    const unsigned long long *p = reinterpret_cast<const unsigned long long *>(st + e);
    const unsigned long long lo = lb_ld(p);
    unsigned long long hi = 0;
    if constexpr (!lb_word<A>::packed) hi = lb_ld(p + 1);
    if (!lb_ready<A>(lo, hi)) return false;
    x = lb_decode<SO, A>(lo, hi);
    return true;
}

/* The chained look-back (Merrill & Garland), for the accumulators whose chain stays
 * reproducible (scan_chain below). Each tile publishes its aggregate, then its inclusive
 * prefix: the aggregates at st[0, tiles), the prefixes at st[tiles, 2 tiles), each entry
 * written once with its ready bits (lb_publish). Lanes 0..31 of wave 0 read a window of the
 * 32 tiles before `end`, each lane spinning until its tile has published its inclusive prefix
 * or at least its aggregate; the nearest tile with an inclusive prefix (or, segmented, with
 * a segment head) starts the fold. A tile waits only on the tiles just before it, which
 * have usually finished their reduction already; the tree instead waits on the last tile of
 * every group of 32^j.
 *   SEQ false (integers: any association gives the same bits): the window is folded as a
 *     tree, and without a start in it the window moves back (CUB's look-back).
 *   SEQ true (f32 sums carried in f64): the windows move back in the same way until one holds
 *     a start, then the fold runs strictly in tile order from it, one value after another (the
 *     windows in between read again), so by induction every published prefix is the
 *     sequential f64 sum of the tile aggregates, whatever the timing: reproducible. (Waiting
 *     instead for the inclusive prefix of the window's oldest tile would chain every
 *     LB_RADIX-th tile's publication: #tiles / LB_RADIX round trips in a row.) */
template <typename SO, typename A, bool SEQ>
PP_DEVICE typename SO::T lookback_chain(typename lb_word<A>::type *st, uint64_t tiles, uint64_t t, typename SO::T agg,
                                        bool publish, const lb_knobs &pause)
{
    using T = typename SO::T;
    /* The aggregates and the inclusive prefixes in separate arrays. (One word per tile,
     * holding the aggregate and then overwritten by the inclusive prefix, one load a poll,
     * was slower on the H100: u32 at 2^28 0.999 -> 1.106 ms, u8 -> u64 1.035 -> 1.111 ms.) */
    auto *aggs = st, *incl = st + tiles;
    const unsigned lane = pp_lane_id();
    if (t == 0) {
        if (lane == 0) lb_publish<SO, A>(incl, 0, agg);
        return SO::identity();
    }
    if (publish && lane == 0) lb_publish<SO, A>(aggs, t, agg);
    if (pause.delay_ns) pp_sleep_ns(pause.delay_ns);
    T p = SO::identity(); /* the fold of tiles [end, t), in tile order */
    uint64_t end = t;
    for (;;) {
        const bool active = lane < (unsigned)LB_RADIX && (uint64_t)lane < end;
        T v = SO::identity();
        bool inclusive = false;
        if (active) {
            const uint64_t i = end - 1 - lane;
            for (;;) {
                if (lb_try<SO, A>(incl, i, v)) {
                    inclusive = true;
                    break;
                }
                if (lb_try<SO, A>(aggs, i, v)) break;
                lb_pause(pause);
            }
        }
        /* lanes that start the fold: an inclusive prefix, or a segment head in the tile */
        pp_lanemask_t m = pp_ballot(inclusive || (active && v.f != 0)) & 0xFFFFFFFFull;
        if constexpr (SEQ) {
            if (!m) { /* no start here: the window before (tile 0 always starts one) */
                end -= LB_RADIX;
                continue;
            }
            /* Strictly in tile order from the start: lanes stop, stop - 1, ..., 0 of this
             * window, then every later window, oldest first, lanes 31 .. 0: their aggregates,
             * read again (keeping them would cost registers the segmented f32 kernel does not
             * have; each was published before its tile's inclusive prefix, but that order is
             * not guaranteed to be seen, so they are waited for). */
            const unsigned stop = (unsigned)(__ffsll((long long)m) - 1);
            T w = SO::shfl(v, (int)stop);
            /* Unrolled with a predicate, so that the shuffles do not wait on the sums. */
#pragma unroll
            for (int k = LB_RADIX - 2; k >= 0; --k) {
                const T o = SO::shfl(v, k);
                if (k < (int)stop) w = SO::apply(w, o);
            }
            for (uint64_t e = end + LB_RADIX; e <= t; e += LB_RADIX) {
                T x = SO::identity();
                if (lane < (unsigned)LB_RADIX) x = lb_wait<SO, A>(aggs, e - 1 - lane, pause);
#pragma unroll
                for (int k = LB_RADIX - 1; k >= 0; --k) w = SO::apply(w, SO::shfl(x, k));
            }
            p = w;
            break;
        } else {
            const unsigned stop = m ? (unsigned)(__ffsll((long long)m) - 1) : (unsigned)LB_RADIX;
            if (lane > stop) v = SO::identity(); /* tiles before the start */
            /* Fold lanes 0..31, the higher lane (the earlier tile) on the left. */
#pragma unroll
            for (unsigned s = 1; s < (unsigned)LB_RADIX; s <<= 1) {
                const T o = SO::shfl(v, (int)(lane + s < (unsigned)LB_RADIX ? lane + s : lane));
                if (lane + s < (unsigned)LB_RADIX) v = SO::apply(o, v);
            }
            p = SO::apply(SO::shfl(v, 0), p);
            /* Done at a start, or at tile 0 (which publishes only its inclusive prefix). */
            if (m || end <= (uint64_t)LB_RADIX) break;
            end -= LB_RADIX;
        }
    }
    if (lane == 0) lb_publish<SO, A>(incl, t, SO::apply(p, agg));
    return p;
}

/* Op for another accumulator type: pp_op_sum<float> -> pp_op_sum<double>. */
template <typename Op, typename C> struct op_rebind;
template <template <typename> class OpT, typename X, typename C> struct op_rebind<OpT<X>, C> {
    using type = OpT<C>;
};

/* How the scan of accumulator A with Op looks back: 0 the tree; 1 the chain in A (integers);
 * 2 the chain carried in double and folded in tile order (segmented f32 sums: the sequential
 * f64 sum of up to 2^29 f32 tile aggregates -- n < 2^41 with 4096-element tiles -- errs by
 * less than one f32 rounding of the sum of their magnitudes, so parprim.h's bound holds with
 * the chain counted as one rounding, where the tree counted 2 log2(tiles)).
 * Plain f32 sums keep the tree: the in-order fold re-reads every window back to the nearest
 * inclusive prefix, and without segment heads to stop it that was slower than the tree
 * (H100, 2^28: 1.15-1.47 ms against 1.01-1.03 ms); with heads every few tiles it is faster
 * (1.08-1.12 ms against 1.23-1.43). -DSCAN_TREE_INTEGERS / -DSCAN_TREE_FLOATS keep the tree,
 * -DSCAN_CHAIN_PLAIN_F32 takes the chain for plain f32 sums too, to compare them in one run
 * (bench/sweep_scan_h100.sh). */
template <typename Op, typename A, bool SEG> constexpr int scan_chain()
{
#ifndef SCAN_TREE_INTEGERS
    if (std::is_integral<A>::value) return 1;
#endif
#ifndef SCAN_TREE_FLOATS
#ifdef SCAN_CHAIN_PLAIN_F32
    constexpr bool f32_chain = true;
#else
    constexpr bool f32_chain = SEG;
#endif
    if (f32_chain && std::is_same<A, float>::value && std::is_same<Op, pp_op_sum<float>>::value) return 2;
#endif
    return 0;
}
/* The chain's accumulator. */
template <typename Op, typename A, bool SEG>
using chain_acc = typename std::conditional<scan_chain<Op, A, SEG>() == 2, double, A>::type;

/* Canonical sums of aligned blocks of lanes: lane c (< 32) ends with the balanced binary
 * sum of the block of 2^r lanes that holds it, lower half first, where 2^r = block(c). */
template <typename SO> PP_DEVICE typename SO::T lane_blocks(typename SO::T v, unsigned block)
{
    const unsigned lane = pp_lane_id();
#pragma unroll
    for (unsigned s = 1; s < (unsigned)LB_RADIX; s <<= 1) {
        const typename SO::T o = SO::shfl(v, (int)(lane ^ s));
        if (s < block) v = (lane & s) ? SO::apply(o, v) : SO::apply(v, o);
    }
    return v;
}

/* Run by every lane of one wave of tile t (of `tiles` > 1) once its aggregate `agg` is known:
 * publishes it, and the nodes that end at tile t (which wait for their children). */
template <typename SO, typename A>
PP_DEVICE void lb_publish_tile(typename lb_word<A>::type *st, uint64_t tiles, uint64_t t, typename SO::T agg,
                               const lb_knobs &pause)
{
    using T = typename SO::T;
    const unsigned lane = pp_lane_id();
    if (lane == 0) lb_publish<SO, A>(st, lb_index(tiles, 0, t), agg);
    /* Nodes that end at this tile. */
    T own = agg;
    for (int j = 1; j < LB_MAX_LEVELS; ++j) {
        const uint64_t span = 1ull << (LB_RADIX_BITS * j);
        if ((t + 1) % span != 0) break;
        const uint64_t first = ((t + 1) >> (LB_RADIX_BITS * (j - 1))) - LB_RADIX; /* first child */
        T c = own;
        if (lane < (unsigned)LB_RADIX - 1) c = lb_wait<SO, A>(st, lb_index(tiles, j - 1, first + lane), pause);
        own = lane_blocks<SO>(c, LB_RADIX);
        own = SO::shfl(own, 0);
        if (lane == 0) lb_publish<SO, A>(st, lb_index(tiles, j, first / LB_RADIX), own);
    }
}

/* Run by every lane of wave 0 of tile t (of `tiles` > 1): its exclusive prefix, the fold (high
 * bits first) of the runs the binary digits of t describe (a Fenwick decomposition); the run
 * of bit 5j + r is 2^r consecutive level-j nodes, summed here by lane_blocks. The tile's own
 * nodes are published first if `publish` (else that was done when the tile was loaded ahead,
 * SCAN_EARLY). */
template <typename SO, typename A>
PP_DEVICE typename SO::T lookback(typename lb_word<A>::type *st, uint64_t tiles, uint64_t t, typename SO::T agg,
                                  bool publish, const lb_knobs &pause)
{
    using T = typename SO::T;
    const unsigned lane = pp_lane_id();
    if (publish) lb_publish_tile<SO, A>(st, tiles, t, agg, pause);
    if (t == 0 || (pause.exp & 8)) return SO::identity();
    if (pause.delay_ns) pp_sleep_ns(pause.delay_ns);
    /* Prefix: for each radix-32 digit d_j of t (high first), the first d_j children of the
     * level-j parent that holds t; each set bit r of d_j is one run of 2^r of them. */
    T p = SO::identity();
    bool have = false;
    const int top = (63 - __clzll((long long)t)) / LB_RADIX_BITS;
    for (int j = top; j >= 0; --j) {
        const unsigned d = (unsigned)(t >> (LB_RADIX_BITS * j)) & (LB_RADIX - 1);
        if (d == 0) continue;
        const uint64_t first = (t >> (LB_RADIX_BITS * (j + 1))) << LB_RADIX_BITS;
        T c = SO::identity();
        unsigned block = 1;
        if (lane < d) {
            c = lb_wait<SO, A>(st, lb_index(tiles, j, first + lane), pause);
            block = 1u << (31 - __clz((int)(lane ^ d))); /* the run of d's highest differing bit */
        }
        c = lane_blocks<SO>(c, block);
        for (int r = LB_RADIX_BITS - 1; r >= 0; --r) {
            if (!((d >> r) & 1u)) continue;
            const unsigned head = d & ~((2u << r) - 1u); /* first lane of the run of bit r */
            const T v = SO::shfl(c, (int)head);
            p = have ? SO::apply(p, v) : v;
            have = true;
        }
    }
    return p;
}

/* ---- the per-wave transposition between striped (coalesced) and blocked order ---- */

/* 16-byte slot v of a wave's buffer lives at swz(v): consecutive lanes reading blocked runs
 * of V vectors, and consecutive lanes writing striped vectors, hit 8 distinct slots mod 8. */
PP_DEVICE unsigned swz(unsigned v) { return v ^ ((v >> 3) & 7u); }

template <typename X> PP_DEVICE X &slot_elem(pp_vec16 *buf, unsigned e)
{
    constexpr unsigned EPV = 16 / sizeof(X);
    return reinterpret_cast<X *>(buf + swz(e / EPV))[e % EPV];
}

/* Loading this lane's ITEMS consecutive elements of a wave's run of W * ITEMS elements at
 * `src` is split in two, so that the loads of a block's next tile are in flight while its
 * current tile is written (scan_tiles): load_prefetch starts copying a whole, aligned run into the
 * wave's input buffer (striped: vector j * W + lane to slot swz(j * W + lane); asynchronous
 * where the target has such copies, pp_copy16_async); load_finish waits for them and reads
 * the lane's run in blocked order, or, for a partial or misaligned run (not prefetched),
 * loads the `valid` elements one by one through the wave's staging buffer. */
template <typename X, int ITEMS> struct lane_run {
    static constexpr int EPV = 16 / sizeof(X);
    static constexpr int V = ITEMS / EPV; /* vectors per lane */
    static_assert(ITEMS % EPV == 0, "a lane's run is whole vectors");
};

template <typename X, int ITEMS> PP_DEVICE void load_prefetch(const X *src, pp_vec16 *ib)
{
    using L = lane_run<X, ITEMS>;
    const unsigned lane = pp_lane_id();
#pragma unroll
    for (int j = 0; j < L::V; ++j) {
        const unsigned vi = (unsigned)j * PP_WAVE + lane;
        pp_copy16_async(ib + swz(vi), src + (size_t)vi * L::EPV);
    }
    pp_copy_async_commit();
}

template <typename X, int ITEMS>
PP_DEVICE void load_finish(const X *src, uint32_t valid, bool prefetched, const pp_vec16 *ib, pp_vec16 *buf,
                           X (&x)[ITEMS])
{
    using L = lane_run<X, ITEMS>;
    const unsigned lane = pp_lane_id();
    union U {
        pp_vec16 v[L::V];
        X e[ITEMS];
    } u;
    if (prefetched) {
        pp_copy_async_wait();
        pp_wave_sync();
#pragma unroll
        for (int k = 0; k < L::V; ++k) u.v[k] = ib[swz(lane * L::V + k)];
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const unsigned e = (unsigned)j * PP_WAVE + lane;
            if (e < valid) slot_elem<X>(buf, e) = src[e];
        }
        pp_wave_sync();
#pragma unroll
        for (int k = 0; k < L::V; ++k) u.v[k] = buf[swz(lane * L::V + k)];
        pp_wave_sync(); /* the buffer is reused */
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) x[k] = u.e[k];
}

/* The tile after a block's current one (SCAN_EARLY), loaded and folded by one wave, the
 * helper, while wave 0 looks back: so that a tile's aggregate is published one load after
 * its ticket whatever its block is doing, and the block's loads are in flight while it
 * looks back. early_copy moves a whole tile into the input buffers, region r (IN_VECS slots
 * from ib) where wave r's load_finish reads it, in load_prefetch's layout (asynchronously
 * from 16-byte aligned input; element by element otherwise). */
template <typename X, int ITEMS, int REGIONS> PP_DEVICE void early_copy(const X *src, bool vec, pp_vec16 *ib)
{
    using L = lane_run<X, ITEMS>;
    constexpr uint32_t RUN = (uint32_t)PP_WAVE * ITEMS;
    constexpr int IN_VECS = L::V * PP_WAVE;
    const unsigned lane = pp_lane_id();
    if (vec) {
#pragma unroll
        for (int r = 0; r < REGIONS; ++r) load_prefetch<X, ITEMS>(src + (size_t)r * RUN, ib + r * IN_VECS);
        pp_copy_async_wait();
    } else { /* not a loop the compiler may unroll: its loads would take the registers the
              * block's current tile holds */
#pragma unroll 1
        for (uint32_t e = lane; e < REGIONS * RUN; e += PP_WAVE) slot_elem<X>(ib + (e / RUN) * IN_VECS, e % RUN) = src[e];
    }
    pp_wave_sync();
}

/* The aggregate of a tile early_copy put in the buffers, folded in one order whoever runs
 * it and however the tile was copied: lane l folds vectors j * W + l of every region, two at
 * a time, into four running values (element e of a pair into value e mod 4: four chains of
 * dependent operations instead of one), then the lanes
 * are combined pairwise, the lower lane on the left; every lane returns the same bits. */
template <typename P, int ITEMS, int REGIONS> PP_DEVICE typename P::acc_t early_fold(const pp_vec16 *ib)
{
    using X = typename P::in_t;
    using A = typename P::acc_t;
    using Op = typename P::op;
    using L = lane_run<X, ITEMS>;
    constexpr int IN_VECS = L::V * PP_WAVE;
    const unsigned lane = pp_lane_id();
    constexpr int NV = REGIONS * L::V; /* vectors per lane, taken two at a time */
    static_assert(NV % 2 == 0, "pairs of vectors");
    A acc[4] = {Op::identity(), Op::identity(), Op::identity(), Op::identity()};
    /* Unrolled only a little: the block's current tile holds most registers meanwhile. */
#pragma unroll 2
    for (int q = 0; q < NV; q += 2) {
        union {
            pp_vec16 v[2];
            X e[2 * L::EPV];
        } u;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = (q + h) / L::V, j = (q + h) % L::V;
            u.v[h] = ib[r * IN_VECS + swz((unsigned)j * PP_WAVE + lane)];
        }
#pragma unroll
        for (int e = 0; e < 2 * L::EPV; ++e) acc[e & 3] = Op::apply(acc[e & 3], P::make(u.e[e], 0));
    }
    A s = Op::apply(Op::apply(acc[0], acc[1]), Op::apply(acc[2], acc[3]));
#pragma unroll
    for (unsigned m = 1; m < (unsigned)PP_WAVE; m <<= 1) {
        const A o = pp_shfl_any(s, (int)(lane ^ m));
        s = (lane & m) ? Op::apply(o, s) : Op::apply(s, o);
    }
    return s;
}

/* Store this lane's ITEMS consecutive results; only elements e < valid with
 * lo <= e < hi (relative to dst) are written on the slow path. */
template <typename X, int ITEMS>
PP_DEVICE void store_blocked(X *dst, uint32_t valid, int64_t lo, int64_t hi, bool fast, pp_vec16 *buf,
                             const X (&y)[ITEMS])
{
    constexpr int EPV = 16 / sizeof(X);
    constexpr int V = ITEMS / EPV;
    static_assert(ITEMS % EPV == 0, "a lane's run is whole vectors");
    const unsigned lane = pp_lane_id();
    union U {
        pp_vec16 v[V];
        X e[ITEMS];
    } u;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) u.e[k] = y[k];
    if (fast && V == 1) {
        *reinterpret_cast<pp_vec16 *>(dst + (size_t)lane * EPV) = u.v[0];
        return;
    }
#pragma unroll
    for (int k = 0; k < V; ++k) buf[swz(lane * V + k)] = u.v[k];
    pp_wave_sync();
    if (fast) {
#pragma unroll
        for (int j = 0; j < V; ++j) {
            const unsigned vi = (unsigned)j * PP_WAVE + lane;
            *reinterpret_cast<pp_vec16 *>(dst + (size_t)vi * EPV) = buf[swz(vi)];
        }
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const unsigned e = (unsigned)j * PP_WAVE + lane;
            if (e < valid && (int64_t)e >= lo && (int64_t)e < hi) dst[e] = slot_elem<X>(buf, e);
        }
    }
    pp_wave_sync();
}

/* Head flags of this lane's ITEMS elements (bit k: element k starts a segment). */
template <int ITEMS>
PP_DEVICE uint32_t load_flags(const uint8_t *src, uint32_t valid, bool fast)
{
    const unsigned lane = pp_lane_id();
    const uint8_t *p = src + (size_t)lane * ITEMS;
    uint8_t b[ITEMS];
    if (fast) {
        if constexpr (ITEMS == 16) {
            union {
                pp_vec16 v;
                uint8_t e[16];
            } u;
            u.v = pp_load16_stream(p);
#pragma unroll
            for (int k = 0; k < 16; ++k) b[k] = u.e[k];
        } else {
            static_assert(ITEMS % 8 == 0, "flags are read 8 bytes at a time");
            union {
                uint2 v[ITEMS / 8];
                uint8_t e[ITEMS];
            } u;
#pragma unroll
            for (int j = 0; j < ITEMS / 8; ++j) u.v[j] = reinterpret_cast<const uint2 *>(p)[j];
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) b[k] = u.e[k];
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) b[k] = (lane * ITEMS + k < valid) ? p[k] : 0;
    }
    uint32_t m = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) m |= (b[k] != 0 ? 1u : 0u) << k;
    return m;
}

struct scan_params {
    uint64_t n;
    uint64_t tiles;
    void *state;            /* published tile states (tiles > 1) */
    unsigned *ticket;       /* tile ticket counter (tiles > 1) */
    const size_t *cover;    /* offsets form: only [offsets[0], offsets[nseg]) is written */
    uint64_t nseg;
    int exclusive;
    int vec_in, vec_out, vec_flags; /* 16-byte aligned pointers */
    int exp; /* PP_HIP_SCAN_EXP: tuning experiments (1: no look-back, 8: publish only, 16: read
                without waiting -- results wrong; 2: spin without pause; 4: tiles by block index;
                32: a grid of one block per tile) */
    unsigned pause_ns, delay_ns; /* PP_HIP_SCAN_PAUSE / PP_HIP_SCAN_DELAY: look-back sleeps in
                                    nanoseconds, see lb_knobs and scan_launch */
};

/* scan_tiles' buffers: every element of a tile once in each (counted in threads, not waves:
 * the host pass's PP_WAVE is not the device's), and whether they are dynamic. */
template <typename P, typename Out, bool SEG> constexpr size_t scan_smem_bytes()
{
    using SH = scan_shape_of<P, SEG>;
    using In = typename P::in_t;
    constexpr size_t xb = sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out);
    return (size_t)SH::threads * SH::items * (xb + sizeof(In));
}
template <typename P, typename Out, bool SEG> constexpr bool scan_smem_dynamic()
{
    return scan_smem_bytes<P, Out, SEG>() > 40 * 1024;
}

/* AHEAD: whether this instantiation loads tiles ahead where scan_early allows it; the launch
 * takes the one without for single-tile inputs, which have nothing to load ahead. (Taken for a
 * rise of n = 1024 calls from 4.5-4.7 to 5.1-6.1 us on the H100, it changed nothing: the
 * rise was the process's, CUB's calls in the same processes rising with parprim's, 8.5-8.9
 * -> 11.2-11.4 us; one process of the same binary ran 4.70 us against CUB's 9.01.) */
template <typename P, typename Out, bool SEG, bool AHEAD>
__global__ __launch_bounds__(scan_threads<P>(), (scan_min_blocks<P, SEG>())) void scan_tiles(const typename P::in_t *in, Out *out,
                                                         const uint8_t *__restrict__ flags,
                                                         typename P::acc_t init, scan_params prm)
{
    using In = typename P::in_t;
    using A = typename P::acc_t;
    using Op = typename P::op;
    using SO = scan_op<Op, A, SEG>;
    using T = typename SO::T;
    using SH = scan_shape_of<P, SEG>;
    constexpr int ITEMS = SH::items, SCAN_WAVES = SH::waves;
    constexpr uint32_t WAVE_ITEMS = (uint32_t)PP_WAVE * ITEMS;
    constexpr uint64_t TILE = (uint64_t)SH::threads * ITEMS;
    constexpr int XB = sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out);
    constexpr int BUF_VECS = SH::buf_vecs(XB);
    constexpr int IN_VECS = SH::buf_vecs(sizeof(In));

    /* Per wave: a staging buffer for partial or misaligned loads and for stores, and the
     * input of the tile prefetched next (SCAN_IBUF). Static, or dynamic where they pass 40 KB
     * (scan_smem_bytes: the 8-byte tiles of 4096 on NVIDIA). (Dynamic buffers for every
     * kernel were slower on the H100: f32 878 us against 856, u32 860-865 against 828.) */
    constexpr bool DYN = scan_smem_dynamic<P, Out, SEG>();
    __shared__ pp_vec16 xbuf[DYN ? 1 : SCAN_WAVES][DYN ? 1 : BUF_VECS];
    __shared__ pp_vec16 ibuf[DYN || !SCAN_PERSISTENT ? 1 : SCAN_WAVES][DYN || !SCAN_PERSISTENT ? 1 : IN_VECS];
    extern __shared__ pp_vec16 scan_smem[];
#define SCAN_XBUF (DYN ? scan_smem + w * BUF_VECS : xbuf[w])
/* One tile per block (no asynchronous copies): its loads land in the staging buffer, free until
 * the tile is written (on gfx90a / gfx940, 64 KB of LDS per CU, a second buffer would leave
 * room for 2 blocks instead of 3). */
#define SCAN_IBUF (!SCAN_PERSISTENT ? SCAN_XBUF : DYN ? scan_smem + SCAN_WAVES * BUF_VECS + w * IN_VECS : ibuf[w])
    __shared__ T wave_excl[SCAN_WAVES];
    __shared__ T tile_prefix;
    __shared__ uint64_t tile_no[2]; /* the block's first tile; then the one after the current */
    /* SCAN_EARLY: wave 1 loads and folds the next tile while wave 0 looks back (a whole tile,
     * read from the input buffers at the start of its turn; its aggregate already published).
     * (Spreading the copies and the fold over every wave but wave 0, with barriers among them,
     * measured no faster on the H100: f32 773-779 us against 770-775, f64 1.547-1.562 ms
     * against 1.530-1.532.) */
    constexpr bool EARLY = AHEAD && scan_early<P, SEG>();
    __shared__ A early_agg;
    __shared__ int early_ok;

    const unsigned lane = pp_lane_id(), w = pp_wave_id();
    /* Where wave w's run of tile t starts, and how many of its elements exist. */
    auto run_base = [&](uint64_t t) { return t * TILE + (uint64_t)w * WAVE_ITEMS; };
    auto run_valid = [&](uint64_t b) -> uint32_t {
        const uint64_t left = b < prm.n ? prm.n - b : 0;
        return left < WAVE_ITEMS ? (uint32_t)left : WAVE_ITEMS;
    };
    /* Start the loads of wave w's run of tile t if it is whole and aligned. */
    auto prefetch = [&](uint64_t t) -> bool {
        const uint64_t base = run_base(t);
        const bool whole = prm.vec_in && run_valid(base) == WAVE_ITEMS;
        if (whole) load_prefetch<In, ITEMS>(in + base, SCAN_IBUF);
        return whole;
    };
    /* A block scans tiles one after another (SCAN_PERSISTENT; else one), taken by ticket so
     * that a tile only waits on started tiles (a block that holds a ticket is running, and
     * the lowest unfinished ticket never waits). It takes the next ticket when the current
     * tile's look-back is done, and that tile's loads are in flight while the current one
     * is written and while the block moves on: no block launch between two tiles, and the
     * load latency overlapped. (Tiles by block index, PP_HIP_SCAN_EXP bit 4, can deadlock
     * when not every block of the grid is resident: an experiment only.) */
    auto take = [&](uint64_t after, bool first) -> uint64_t {
        if (prm.tiles <= 1) return first ? 0 : prm.tiles;
        if (prm.exp & 4) return first ? blockIdx.x : after + gridDim.x;
        return atomicAdd(prm.ticket, 1u);
    };
    /* SCAN_EARLY, wave 1: tile u into the input buffers and its aggregate published, if u is
     * whole (the last tile, if partial, is loaded and published in its turn). */
    auto early = [&](uint64_t u) {
        const bool ok = u < prm.tiles && (u + 1) * TILE <= prm.n;
        A g = Op::identity();
        if (ok) {
            pp_vec16 *ib0 = DYN ? scan_smem + SCAN_WAVES * BUF_VECS : &ibuf[0][0];
            early_copy<In, ITEMS, SCAN_WAVES>(in + u * TILE, prm.vec_in != 0, ib0);
            g = early_fold<P, ITEMS, SCAN_WAVES>(ib0);
            /* the tile's aggregate (at index u for the chain and the tree alike), and for the
             * tree the nodes that end at tile u: waiting for them here, not in u's look-back, is
             * what lets the look-backs of later tiles find them published */
            using PO = scan_op<Op, A, false>;
            auto *st = reinterpret_cast<typename lb_word<A>::type *>(prm.state);
            if (prm.tiles > 1 && !(prm.exp & 1)) {
                if constexpr (scan_chain<Op, A, SEG>() != 0) {
                    if (lane == 0) lb_publish<PO, A>(st, u, PO::make(g, 0));
                } else {
                    const lb_knobs knobs = {prm.exp, prm.pause_ns, prm.delay_ns};
                    lb_publish_tile<PO, A>(st, prm.tiles, u, PO::make(g, 0), knobs);
                }
            }
        }
        if (lane == 0) {
            early_agg = g;
            early_ok = ok;
            tile_no[1] = u;
        }
    };
    if (threadIdx.x == 0) tile_no[0] = take(0, true);
    __syncthreads();
    uint64_t t = tile_no[0];
    if (t >= prm.tiles) return;
    bool pre;
    A eagg = Op::identity();
    if constexpr (EARLY) {
        if (w == 1) early(t);
        __syncthreads();
        pre = early_ok != 0;
        eagg = early_agg;
    } else {
        pre = prefetch(t);
    }
    for (;;) {
        /* SCAN_EARLY: the ticket of the tile after this one, taken now so that the atomic's
         * round trip passes while this tile is scanned; its loads start once every wave has
         * read this tile out of the input buffers. */
        uint64_t tk = 0;
        if (EARLY && w == 1 && lane == 0) tk = take(t, false);
        const uint64_t base = run_base(t);
        const uint32_t valid = run_valid(base);
        const bool whole = valid == WAVE_ITEMS;

        /* Covered range relative to this wave's run (offsets form). */
        int64_t lo = 0, hi = WAVE_ITEMS;
        if (prm.cover) {
            uint64_t c0 = prm.cover[0], c1 = prm.cover[prm.nseg];
            if (c0 > prm.n) c0 = prm.n;
            if (c1 > prm.n) c1 = prm.n;
            lo = (int64_t)c0 - (int64_t)base;
            hi = (int64_t)c1 - (int64_t)base;
        }
        const bool covered = lo <= 0 && hi >= (int64_t)WAVE_ITEMS;

        /* ---- this lane's elements, scanned ---- */
        In x[ITEMS];
        load_finish<In, ITEMS>(in + base, valid, pre, SCAN_IBUF, SCAN_XBUF, x);
        uint32_t fm = 0;
        if constexpr (SEG) fm = load_flags<ITEMS>(flags + base, valid, whole && prm.vec_flags);
        /* lv[k]: the lane's inclusive values, restarting at its heads (bit k of fm). */
        A lv[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const A e = lane * ITEMS + k < valid ? P::make(x[k], 0) : Op::identity();
            const bool head = SEG && ((fm >> k) & 1u);
            lv[k] = (k == 0 || head) ? e : Op::apply(lv[k - 1], e);
        }

        /* ---- wave: inclusive scan of the lane totals ---- */
        T v = SO::make(lv[ITEMS - 1], fm != 0);
#pragma unroll
        for (int d = 1; d < PP_WAVE; d <<= 1) {
            const T y = SO::shfl(v, (int)lane >= d ? (int)lane - d : 0);
            if ((int)lane >= d) v = SO::apply(y, v);
        }
        T lane_excl = SO::shfl(v, lane > 0 ? (int)lane - 1 : 0);
        if (lane == 0) lane_excl = SO::identity();
        if (lane == PP_WAVE - 1) wave_excl[w] = v; /* the wave's total, for now */
        __syncthreads();

        /* ---- block: wave 0 scans the wave totals, then looks back ---- */
        if (EARLY && w == 1) {
            early((uint64_t)pp_shfl_any(tk, 0));
        } else if (w == 0) {
            T s = lane < (unsigned)SCAN_WAVES ? wave_excl[lane] : SO::identity();
#pragma unroll
            for (int d = 1; d < SCAN_WAVES; d <<= 1) {
                const T y = SO::shfl(s, (int)lane >= d ? (int)lane - d : 0);
                if ((int)lane >= d) s = SO::apply(y, s);
            }
            T ex = SO::shfl(s, lane > 0 ? (int)lane - 1 : 0);
            if (lane == 0) ex = SO::identity();
            /* the tile's aggregate: the block's, or, for a tile loaded early, the one published */
            const T agg = EARLY && pre ? SO::make(eagg, 0) : SO::shfl(s, SCAN_WAVES - 1);
            pp_wave_sync();
            if (lane < (unsigned)SCAN_WAVES) wave_excl[lane] = ex;
            T p = SO::identity();
            auto *lb_state = reinterpret_cast<typename lb_word<A>::type *>(prm.state);
            const lb_knobs knobs = {prm.exp, prm.pause_ns, prm.delay_ns};
            if (prm.tiles > 1 && !(prm.exp & 1)) {
                if constexpr (scan_chain<Op, A, SEG>() != 0) {
                    using C = chain_acc<Op, A, SEG>;
                    using CO = scan_op<typename op_rebind<Op, C>::type, C, SEG>;
                    const typename CO::T pc = lookback_chain<CO, C, scan_chain<Op, A, SEG>() == 2>(
                        reinterpret_cast<typename lb_word<C>::type *>(prm.state), prm.tiles, t, CO::make(C(agg.v), agg.f),
                        !(EARLY && pre), knobs);
                    p = SO::make(A(pc.v), pc.f);
                } else {
                    p = lookback<SO, A>(lb_state, prm.tiles, t, agg, !(EARLY && pre), knobs);
                }
            }
            if (lane == 0) {
                tile_prefix = p;
                /* The next ticket only now: a tile's aggregate is published soon after its
                 * ticket is taken, or every tile after it waits (taken before this look-back,
                 * u32 at 2^28 ran at 1.08 ms against 0.86). */
                if (SCAN_PERSISTENT && !EARLY) tile_no[1] = take(t, false);
            }
        }
        __syncthreads();

        /* ---- the next tile's loads, in flight while this one is written ---- */
        uint64_t t_next = prm.tiles;
        bool pre_next = false;
        A eagg_next = Op::identity();
        if constexpr (EARLY) {
            t_next = tile_no[1];
            pre_next = early_ok != 0;
            eagg_next = early_agg;
        } else if constexpr (SCAN_PERSISTENT) {
            t_next = tile_no[1];
            pre_next = t_next < prm.tiles && prefetch(t_next);
        }

        /* ---- results: prefix = ((tile prefix op wave prefix) op lane prefix) ---- */
        const T pre_v = SO::apply(SO::apply(tile_prefix, wave_excl[w]), lane_excl);
        /* Element k's result is pre op lv[k], unless a head at or before k (in this lane)
         * already restarted it: the segmented operator, spelled out per element. */
        Out y[ITEMS];
        const A a_init = init;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const bool seen = SEG && (fm & ((2u << k) - 1u)) != 0;
            if (!prm.exclusive) {
                y[k] = Out(seen ? lv[k] : Op::apply(pre_v.v, lv[k]));
            } else {
                const bool seen_before = SEG && (fm & ((1u << k) - 1u)) != 0;
                const A e = k == 0 ? pre_v.v : (seen_before ? lv[k - 1] : Op::apply(pre_v.v, lv[k - 1]));
                const bool head = SEG && ((fm >> k) & 1u);
                y[k] = Out(head ? a_init : Op::apply(a_init, e));
            }
        }
        store_blocked<Out, ITEMS>(out + base, valid, lo, hi, whole && covered && prm.vec_out, SCAN_XBUF, y);
        if (!SCAN_PERSISTENT || t_next >= prm.tiles) break;
        t = t_next;
        pre = pre_next;
        eagg = eagg_next;
    }
}
#undef SCAN_XBUF
#undef SCAN_IBUF

/* Offsets form: flag the first element of every non-empty (clamped) segment. */
constexpr int HEADS_BLOCK = 256;
__global__ __launch_bounds__(HEADS_BLOCK) void scan_offset_heads(const size_t *__restrict__ offsets, uint64_t nseg,
                                                                uint64_t n, uint8_t *__restrict__ flags)
{
    const uint64_t stride = (uint64_t)gridDim.x * HEADS_BLOCK;
    for (uint64_t s = (uint64_t)blockIdx.x * HEADS_BLOCK + threadIdx.x; s < nseg; s += stride) {
        uint64_t b = offsets[s], e = offsets[s + 1];
        if (b > n) b = n;
        if (e > n) e = n;
        if (b < e) flags[b] = 1;
    }
}

inline bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

/* Entries of the published states for `tiles` tiles (see lb_index). */
inline uint64_t lb_entries(uint64_t tiles)
{
    uint64_t e = 0;
    for (uint64_t t = tiles; t; t >>= LB_RADIX_BITS) e += t;
    return e;
}

template <typename P, typename Out, bool SEG> pp_status scan_launch(pp_context *ctx, const pp_scan_args *a)
{
    using In = typename P::in_t;
    using A = typename P::acc_t;
    using SH = scan_shape_of<P, SEG>;
    constexpr uint64_t TILE = (uint64_t)SH::threads * SH::items;
    pp_hip_state *hs = pp_hip(ctx);
    const uint64_t n = a->n;
    const uint64_t tiles = (n + TILE - 1) / TILE;
    if (tiles > 0x7FFFFFFFull)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "scan: n = %llu needs more than 2^31 tiles",
                        (unsigned long long)n);
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));

    /* Scratch: [head flags (offsets form)] [ticket, 256 bytes] [tile states]. */
    const size_t flag_bytes = a->offsets ? pp_align256(n) : 0;
    /* the chain's aggregates and inclusive prefixes, or the tree's nodes */
    using Op = typename P::op;
    constexpr bool chain = scan_chain<Op, A, SEG>() != 0;
    const size_t lb_bytes = chain ? 2 * tiles * sizeof(typename lb_word<chain_acc<Op, A, SEG>>::type)
                                  : lb_entries(tiles) * sizeof(typename lb_word<A>::type);
    const size_t state_bytes = tiles > 1 ? 256 + pp_align256(lb_bytes) : 0;
    char *scratch = nullptr;
    if (flag_bytes + state_bytes > 0) {
        void *sp = nullptr;
        pp_status st = pp__scratch(ctx, flag_bytes + state_bytes, &sp);
        if (st != PP_OK) return st;
        scratch = (char *)sp;
    }
    const uint8_t *flags = a->head_flags;
    if (a->offsets) {
        uint8_t *f = (uint8_t *)scratch;
        PP_HIP_TRY(ctx, hipMemsetAsync(f, 0, n, hs->stream));
        uint64_t g = (a->n_segments + HEADS_BLOCK - 1) / HEADS_BLOCK;
        const uint64_t gmax = (uint64_t)hs->dev.cu_count * 16;
        if (g > gmax) g = gmax;
        scan_offset_heads<<<(unsigned)g, HEADS_BLOCK, 0, hs->stream>>>(a->offsets, a->n_segments, n, f);
        PP_HIP_CHECK_LAUNCH(ctx, "scan_offset_heads");
        flags = f;
    }
    scan_params prm;
    memset(&prm, 0, sizeof prm);
    prm.n = n;
    prm.tiles = tiles;
    if (tiles > 1) {
        prm.ticket = (unsigned *)(scratch + flag_bytes);
        prm.state = scratch + flag_bytes + 256;
        PP_HIP_TRY(ctx, hipMemsetAsync(scratch + flag_bytes, 0, state_bytes, hs->stream));
    }
    prm.cover = a->offsets;
    prm.nseg = a->n_segments;
    prm.exclusive = a->exclusive;
    prm.vec_in = aligned16(a->in);
    prm.vec_out = aligned16(a->out);
    prm.vec_flags = aligned16(flags);
    const char *exp = getenv("PP_HIP_SCAN_EXP");
    prm.exp = exp ? atoi(exp) : 0;
    /* The chain sleeps as CUB's sm_90 look-back does: once before its first poll, and between
     * polls, so that waiting tiles do not crowd the L2 with polls of the state words their
     * predecessors are about to write (H100, u32 at 2^28: no sleeps 1.020 ms, 1000 / 500 ns
     * 0.941, 1500 / 700 ns 0.902, 2000 / 1000 ns no better). The tree, whose reads are
     * mostly of nodes published long before, was best without sleeps between polls (f32
     * 0.904, 0.907, 0.919 ms), and a little faster with 2000 ns before its first (H100, 2^28,
     * f32 0.889 ms against 0.901-0.908, f64 1.860 ms against 1.896-1.900; f32 894-895 us
     * against 910 with no delay, in one run). With the tiles of 5120 that blocks scan one
     * after another, 4-byte trees wait 3000 ns (f32 828-829 us against 833-837 at 2000; 4000
     * no better at 128 x 32) and 8-byte trees keep 2000 (f64 1.709-1.717 ms against 1.741-
     * 1.749 at 3000 and 4000). Where the next tile is loaded and published ahead (SCAN_EARLY:
     * the plain scans), predecessors have mostly published by the time a tile looks back: the
     * tree waits 1000 ns (f64, 128 x 32 tiles: 1.623-1.627 ms at 0, 500 and 1000 against 1.638-1.641 at 2000;
     * f32 flat, 769-776 us from 0 to 3000) and the chain none (u8 -> u64 907 us against 950 at
     * 1500, u32 flat). The defaults are the H100's; on AMD (not measured) both poll without
     * sleeps, unless the variables ask for them. */
    const unsigned dflt_pause = !SCAN_NV_SHAPE ? 0u : chain ? 700u : 0u;
    const unsigned dflt_delay = !SCAN_NV_SHAPE ? 0u
                                : scan_early<P, SEG>() ? (chain ? 0u : 1000u)
                                : chain        ? 1500u
                                : sizeof(A) <= 4 ? 3000u : 2000u;
    auto ns = [](const char *v, unsigned dflt) -> unsigned {
        if (!v) return dflt;
        const long x = atol(v);
        return x < 0 ? 0u : x > 100000 ? 100000u : (unsigned)x; /* at most 0.1 ms */
    };
    prm.pause_ns = ns(getenv("PP_HIP_SCAN_PAUSE"), dflt_pause);
    prm.delay_ns = ns(getenv("PP_HIP_SCAN_DELAY"), dflt_delay);
    Out init_out;
    memcpy(&init_out, a->init, sizeof init_out);
    /* One block per tile up to the blocks that fit at once; beyond, each block scans tiles
     * one after another (scan_tiles), prefetching the next while the current is written.
     * (The occupancy query and the attribute run per call, as the histogram's do: about a
     * microsecond, and only for grids past the guess or for the 8-byte kernels.) */
    constexpr bool ahead = scan_early<P, SEG>();
    auto kernel = ahead && tiles > 1 ? scan_tiles<P, Out, SEG, ahead> : scan_tiles<P, Out, SEG, false>;
    constexpr size_t smem = scan_smem_dynamic<P, Out, SEG>() ? scan_smem_bytes<P, Out, SEG>() : 0;
    if (smem)
        PP_HIP_TRY(ctx, hipFuncSetAttribute(reinterpret_cast<const void *>(kernel),
                                            hipFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    uint64_t grid = tiles;
    const uint64_t fit_guess = (uint64_t)hs->dev.cu_count * SH::min_blocks;
    if (SCAN_PERSISTENT && tiles > fit_guess && !(prm.exp & 32)) {
        int per_cu = 0;
        if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, kernel, SH::threads, smem) != hipSuccess || per_cu < 1) {
            (void)hipGetLastError();
            per_cu = SH::min_blocks;
        }
        const uint64_t fit = (uint64_t)hs->dev.cu_count * (unsigned)per_cu;
        if (grid > fit) grid = fit;
    }
    /* PP_HIP_SCAN_BLOCKS: at most this many blocks, so that tests can have every block scan
     * many tiles at sizes the sanitizers can run (only where blocks loop over tiles). */
    const char *cap = SCAN_PERSISTENT ? getenv("PP_HIP_SCAN_BLOCKS") : nullptr;
    if (cap && atol(cap) > 0 && grid > (uint64_t)atol(cap)) grid = (uint64_t)atol(cap);
    kernel<<<(unsigned)grid, SH::threads, smem, hs->stream>>>((const In *)a->in, (Out *)a->out, flags, A(init_out), prm);
    PP_HIP_CHECK_LAUNCH(ctx, "scan_tiles");
    return PP_OK;
}

template <typename In, typename Out> struct scan_run {
    pp_context *ctx;
    const pp_scan_args *a;
    template <typename P> pp_status go()
    {
        if (a->head_flags || a->offsets) return scan_launch<P, Out, true>(ctx, a);
        return scan_launch<P, Out, false>(ctx, a);
    }
};

template <typename In, typename Out> pp_status scan_io(pp_context *ctx, const pp_scan_args *a)
{
    scan_run<In, Out> run = {ctx, a};
    pp_status st = with_policy<In, Out>(a->op, run);
    if (st == PP_ERROR_UNSUPPORTED && !ctx->message[0])
        return pp__fail(ctx, st, "scan: hip has no %s from %s to %s", pp_op_name(a->op), pp_dtype_name(a->in_type),
                        pp_dtype_name(a->out_type));
    return st;
}

} // namespace

pp_status pp_hip_scan(pp_context *ctx, const pp_scan_args *a)
{
#define PP_CALL_SCAN(I, O) scan_io<I, O>(ctx, a)
    PP_DISPATCH_IN_OUT(ctx, a->in_type, a->out_type, PP_CALL_SCAN);
#undef PP_CALL_SCAN
    return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "scan: hip has no scan from %s to %s", pp_dtype_name(a->in_type),
                    pp_dtype_name(a->out_type));
}
