/*
 * lookback.h -- the single-pass decoupled look-back (Merrill & Garland, "Single-pass Parallel
 * Prefix Scan with Decoupled Look-back", 2016) shared by every single-pass tile algorithm:
 * tile tickets, published state words, the chained look-back for carries whose fold any
 * association gives the same bits (integers, counts), and a fixed-order radix-32 tree for
 * floats, whose result is the same bits whatever the timing.
 *
 * A tile agent takes its tile's number from a ticket (pp_tile_ticket: tiles start in ticket
 * order, so a tile only ever waits on tiles that have started, and the lowest unfinished one
 * waits on nothing), computes its aggregate, and asks the look-back for the fold of every
 * earlier tile (its exclusive prefix). What travels is a scanned value SO::T of a scan
 * operator SO of blocks.h's shape (pp_scan_op<Op, C, SEG>): the carry C (any trivially
 * copyable type pp_shfl_any moves: a count for compaction, a sum for a scan) and, for
 * segmented algorithms, a flag that stops the fold. A wider carry, such as a radix pass's 256
 * digit counts, is a per-lane publish: one state array per digit (st + d * entries), each
 * looked back by the lanes that own the digit; pp_lb_entries / pp_lb_chain_entries size
 * them.
 *
 * State words: every 64-bit word is written and read whole (single-copy atomic, relaxed
 * gpu-scope volatile accesses as CUB's polls), and carries its own ready bit 63 and 32 bits
 * of the carry (word 0 also the segment flag, bit 32), so no fence orders anything: a carry
 * of at most 4 bytes is one word, of 8 bytes two, and a reader waits until every word of an
 * entry is ready. (A first version wrote an 8-byte value, a fence, then a ready word, and
 * fenced again after reading it: f64 scans ran at 2.9 ms instead of 1.6 ms with the waits
 * off; the fences were the cost.) The states are zeroed (one memset) before the kernel.
 *
 * Sleeps (pp_lb_sleeps) come from the caller's tuning table: once between publishing and the
 * first poll (delay), and between two polls of an entry not yet published (pause; 0: the
 * shortest back-off the target has).
 */
#ifndef PP_HIP_LOOKBACK_H
#define PP_HIP_LOOKBACK_H

#include "blocks.h"

/* The tree over tiles has radix LB_RADIX = 32, a constant of the tree, not the wave width: the
 * look-backs use lanes 0 .. 31 of a wave and shuffle within them, on waves of 32 and 64. */
constexpr int PP_LB_RADIX_BITS = 5;
constexpr int PP_LB_RADIX = 1 << PP_LB_RADIX_BITS;
constexpr int PP_LB_MAX_LEVELS = 7; /* 32^7 tiles: far beyond any n */

/* Look-back sleeps in nanoseconds (tuning_scan.h's table, or the options). */
struct pp_lb_sleeps {
    unsigned pause_ns; /* between two polls of an entry not yet published (0: pp_spin_pause) */
    unsigned delay_ns; /* once, between publishing the aggregate and the first poll */
};

/* The next tile's number from the ticket counter (zeroed before the kernel). */
PP_DEVICE uint64_t pp_tile_ticket(unsigned *counter) { return atomicAdd(counter, 1u); }

/* A carry may pack itself instead: pp_lb_pack<C> specialized with W (1 or 2) and put / get of W
 * 64-bit values below 2^63, so that each word holds the ready bit and 63 bits of the carry (no
 * segment flag: unsegmented operators only). Run-length encoding's pair of 64-bit counts
 * (compaction.hip) travels so in two words, not four of 32 bits. W = 0: not packed. */
template <typename C> struct pp_lb_pack {
    static constexpr int W = 0;
};

/* The published entry of a carry C: W words of 32 bits of C each (or as pp_lb_pack<C> packs
 * it). */
template <typename C> struct pp_lb_carry {
    static constexpr int W = pp_lb_pack<C>::W ? pp_lb_pack<C>::W : sizeof(C) <= 4 ? 1 : (int)((sizeof(C) + 3) / 4);
    struct alignas(W == 1 ? 8 : 16) entry {
        unsigned long long w[W];
    };
    union bits {
        C c;
        uint32_t u[W];
    };
};
template <typename SO> using pp_lb_entry = typename pp_lb_carry<typename SO::acc_t>::entry;

/* Entries of the tree's states for `tiles` tiles: level j holds floor(tiles / 32^j) nodes,
 * stored after those of the lower levels (pp_lb_index). Host and device. */
__host__ __device__ inline uint64_t pp_lb_entries(uint64_t tiles)
{
    uint64_t e = 0;
    for (uint64_t t = tiles; t; t >>= PP_LB_RADIX_BITS) e += t;
    return e;
}
/* Entries of the chain's states: the aggregates, then the inclusive prefixes. */
__host__ __device__ inline uint64_t pp_lb_chain_entries(uint64_t tiles) { return 2 * tiles; }

/* Index of node i of level j of the tree. */
PP_DEVICE uint64_t pp_lb_index(uint64_t tiles, int j, uint64_t i)
{
    uint64_t base = 0;
    for (int l = 0; l < j; ++l) base += tiles >> (PP_LB_RADIX_BITS * l);
    return base + i;
}

/* Back off inside a poll. */
PP_DEVICE void pp_lb_pause(const pp_lb_sleeps &s)
{
    if (s.pause_ns) pp_sleep_ns(s.pause_ns);
    else pp_spin_pause();
}

PP_DEVICE unsigned long long pp_lb_ld(const unsigned long long *p)
{
    return *reinterpret_cast<const volatile unsigned long long *>(p);
}
PP_DEVICE void pp_lb_st(unsigned long long *p, unsigned long long v)
{
    *reinterpret_cast<volatile unsigned long long *>(p) = v;
}

/* A barrier across the whole grid, for kernels launched cooperatively (every block resident
 * at once: hipLaunchCooperativeKernel guarantees it or fails; a grid merely sized to fit can
 * share the device with another stream's blocks and wait forever). `count` is zeroed before the
 * kernel; the k-th barrier of the kernel (k = 1, 2, ...) waits until k * gridDim.x blocks have
 * arrived. Each block's thread 0 fences its block's writes (ordered before it by the block
 * barrier) before arriving, and fences again after the wait, before its block reads what the
 * others wrote: the pattern of cooperative groups' grid sync, without its header. */
PP_DEVICE void pp_grid_barrier(unsigned long long *count, unsigned long long k)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(count, 1ull);
        const unsigned long long want = k * (unsigned long long)gridDim.x;
        while (pp_lb_ld(count) < want) pp_spin_pause();
        __threadfence();
    }
    __syncthreads();
}

/* Publish x as entry e (one lane). Carries of one or two words go through one 64-bit value,
 * which the compiler keeps in registers: the per-word loop of wider carries cost the
 * segmented f32 scan 4% on the H200 (flags, 2^28: 843-855 us against 812-818), the only
 * difference between the two builds. */
template <typename SO> PP_DEVICE void pp_lb_publish(pp_lb_entry<SO> *st, uint64_t e, typename SO::T x)
{
    using C = typename SO::acc_t;
    using K = pp_lb_carry<C>;
    constexpr unsigned long long ready = 1ull << 63;
    if constexpr (pp_lb_pack<C>::W > 0) {
        static_assert(!SO::segmented, "a packed carry has no segment flag");
        unsigned long long w[K::W];
        pp_lb_pack<C>::put(x.v, w);
        unsigned long long *p = st[e].w;
#pragma unroll
        for (int k = 0; k < K::W; ++k) pp_lb_st(p + k, ready | w[k]);
    } else if constexpr (K::W <= 2) {
        union {
            C a;
            unsigned long long u;
        } c;
        c.u = 0;
        c.a = x.v;
        const unsigned long long b = c.u, seg = (unsigned long long)x.f << 32;
        unsigned long long *p = st[e].w;
        pp_lb_st(p, ready | seg | (b & 0xFFFFFFFFull));
        if constexpr (K::W == 2) pp_lb_st(p + 1, ready | (b >> 32));
    } else {
        const unsigned long long seg = (unsigned long long)x.f << 32;
        unsigned long long *p = st[e].w;
        typename K::bits b;
#pragma unroll
        for (int k = 0; k < K::W; ++k) b.u[k] = 0;
        b.c = x.v;
#pragma unroll
        for (int k = 0; k < K::W; ++k) pp_lb_st(p + k, ready | (k == 0 ? seg : 0ull) | b.u[k]);
    }
}

/* W words from p, each read once; whether every one is ready. */
template <int W> PP_DEVICE bool pp_lb_ld_words(const unsigned long long *p, unsigned long long (&w)[W])
{
    bool ready = true;
#pragma unroll
    for (int k = 0; k < W; ++k) {
        w[k] = pp_lb_ld(p + k);
        ready = ready && (w[k] >> 63);
    }
    return ready;
}

/* Entry e's words, read once: whether every one is ready, and then its value in x. */
template <typename SO> PP_DEVICE bool pp_lb_try(const pp_lb_entry<SO> *st, uint64_t e, typename SO::T &x)
{
    using C = typename SO::acc_t;
    using K = pp_lb_carry<C>;
    const unsigned long long *p = st[e].w;
    if constexpr (pp_lb_pack<C>::W > 0) {
        unsigned long long w[K::W];
        if (!pp_lb_ld_words<K::W>(p, w)) return false;
#pragma unroll
        for (int k = 0; k < K::W; ++k) w[k] &= ~(1ull << 63);
        x = SO::make(pp_lb_pack<C>::get(w), 0);
    } else if constexpr (K::W <= 2) {
        const unsigned long long lo = pp_lb_ld(p);
        unsigned long long hi = 0;
        if constexpr (K::W == 2) hi = pp_lb_ld(p + 1);
        if (!((lo >> 63) && (K::W == 1 || (hi >> 63)))) return false;
        union {
            C a;
            unsigned long long u;
        } c;
        c.u = (lo & 0xFFFFFFFFull) | ((hi & 0xFFFFFFFFull) << 32);
        x = SO::make(c.a, (uint32_t)(lo >> 32) & 1u);
    } else {
        unsigned long long w[K::W];
        if (!pp_lb_ld_words<K::W>(p, w)) return false;
        typename K::bits b;
#pragma unroll
        for (int k = 0; k < K::W; ++k) b.u[k] = (uint32_t)w[k];
        x = SO::make(b.c, (uint32_t)(w[0] >> 32) & 1u);
    }
    return true;
}

/* Entry e's value, once published. */
template <typename SO> PP_DEVICE typename SO::T pp_lb_wait(const pp_lb_entry<SO> *st, uint64_t e, const pp_lb_sleeps &s)
{
    typename SO::T x;
    while (!pp_lb_try<SO>(st, e, x)) pp_lb_pause(s);
    return x;
}

/* The chained look-back, run by every lane of one wave of tile t (of `tiles` > 1), with the
 * tile's aggregate `agg` (published first if `publish`; else the caller published it at index
 * t already). Each tile publishes its aggregate, then its inclusive prefix: the aggregates at
 * st[0, tiles), the prefixes at st[tiles, 2 tiles). (One entry per tile, the aggregate then
 * overwritten by the prefix, one load a poll, was slower on the H100: u32 at 2^28 0.999 ->
 * 1.106 ms, u8 -> u64 1.035 -> 1.111 ms.) Lanes 0 .. 31 read a window of the 32 tiles before
 * `end`, each spinning until its tile has published its inclusive prefix or at least its
 * aggregate; the nearest tile with an inclusive prefix (or, segmented, with a segment head)
 * starts the fold. A tile waits only on the tiles just before it, which have usually
 * finished their reduction already.
 *   SEQ false (any association gives the same bits): the window is folded as a tree, and
 *     without a start in it the window moves back (CUB's look-back).
 *   SEQ true (f32 sums carried in f64): the windows move back in the same way until one holds
 *     a start, then the fold runs strictly in tile order from it, one value after another (the
 *     windows in between read again), so by induction every published prefix is the
 *     sequential sum of the tile aggregates, whatever the timing: reproducible. (Waiting
 *     instead for the inclusive prefix of the window's oldest tile would chain every 32nd
 *     tile's publication: #tiles / 32 round trips in a row.)
 * Returns the exclusive prefix of tile t in every lane. */
template <typename SO, bool SEQ>
PP_DEVICE typename SO::T pp_lookback_chain(pp_lb_entry<SO> *st, uint64_t tiles, uint64_t t, typename SO::T agg,
                                           bool publish, const pp_lb_sleeps &sl)
{
    using T = typename SO::T;
    pp_lb_entry<SO> *aggs = st, *incl = st + tiles;
    const unsigned lane = pp_lane_id();
    if (t == 0) {
        if (lane == 0) pp_lb_publish<SO>(incl, 0, agg);
        return SO::identity();
    }
    if (publish && lane == 0) pp_lb_publish<SO>(aggs, t, agg);
    if (sl.delay_ns) pp_sleep_ns(sl.delay_ns);
    T p = SO::identity(); /* the fold of tiles [end, t), in tile order */
    uint64_t end = t;
    for (;;) {
        const bool active = lane < (unsigned)PP_LB_RADIX && (uint64_t)lane < end;
        T v = SO::identity();
        bool inclusive = false;
        if (active) {
            const uint64_t i = end - 1 - lane;
            for (;;) {
                if (pp_lb_try<SO>(incl, i, v)) {
                    inclusive = true;
                    break;
                }
                if (pp_lb_try<SO>(aggs, i, v)) break;
                pp_lb_pause(sl);
            }
        }
        /* lanes that start the fold: an inclusive prefix, or a segment head in the tile */
        pp_lanemask_t m = pp_ballot(inclusive || (active && v.f != 0)) & 0xFFFFFFFFull;
        if constexpr (SEQ) {
            if (!m) { /* no start here: the window before (tile 0 always starts one) */
                end -= PP_LB_RADIX;
                continue;
            }
            /* Strictly in tile order from the start: lanes stop, stop - 1, ..., 0 of this
             * window, then every later window, oldest first, lanes 31 .. 0: their aggregates,
             * read again (keeping them would cost registers the segmented f32 kernel does not
             * have; each was published before its tile's inclusive prefix, but that order is
             * not guaranteed to be seen, so they are waited for). */
            const unsigned stop = (unsigned)(__ffsll((long long)m) - 1);
            T w = pp_shfl_any(v, (int)stop);
            /* Unrolled with a predicate, so that the shuffles do not wait on the sums. */
#pragma unroll
            for (int k = PP_LB_RADIX - 2; k >= 0; --k) {
                const T o = pp_shfl_any(v, k);
                if (k < (int)stop) w = SO::apply(w, o);
            }
            for (uint64_t e = end + PP_LB_RADIX; e <= t; e += PP_LB_RADIX) {
                T x = SO::identity();
                if (lane < (unsigned)PP_LB_RADIX) x = pp_lb_wait<SO>(aggs, e - 1 - lane, sl);
#pragma unroll
                for (int k = PP_LB_RADIX - 1; k >= 0; --k) w = SO::apply(w, pp_shfl_any(x, k));
            }
            p = w;
            break;
        } else {
            const unsigned stop = m ? (unsigned)(__ffsll((long long)m) - 1) : (unsigned)PP_LB_RADIX;
            if (lane > stop) v = SO::identity(); /* tiles before the start */
            /* Fold lanes 0..31, the higher lane (the earlier tile) on the left. */
#pragma unroll
            for (unsigned s = 1; s < (unsigned)PP_LB_RADIX; s <<= 1) {
                const T o = pp_shfl_any(v, (int)(lane + s < (unsigned)PP_LB_RADIX ? lane + s : lane));
                if (lane + s < (unsigned)PP_LB_RADIX) v = SO::apply(o, v);
            }
            p = SO::apply(pp_shfl_any(v, 0), p);
            /* Done at a start, or at tile 0 (which publishes only its inclusive prefix). */
            if (m || end <= (uint64_t)PP_LB_RADIX) break;
            end -= PP_LB_RADIX;
        }
    }
    if (lane == 0) pp_lb_publish<SO>(incl, t, SO::apply(p, agg));
    return p;
}

/* ---- the fixed-order tree ----
 * Node (j, i) holds the canonical (balanced binary) fold of tiles [i * 32^j, (i + 1) * 32^j).
 * Level 0 holds the tile aggregates; a level-j node is published by its last tile, which
 * computes it from its 32 level-(j-1) children in one round of reads (an order-keeping
 * butterfly, pp_wave_reduce_ordered), not through a chain of pairwise sums. The prefix of
 * tile t is the fold, largest run first, of the aligned runs of tiles that the binary digits
 * of t describe (a Fenwick decomposition), each run a balanced binary tree: every value is
 * computed in one order whatever the timing, so results are bitwise reproducible, and a
 * float passes through about 2 log2(#tiles) roundings across tiles, not #tiles. A tile's
 * prefix needs at most 31 nodes per radix-32 digit of t, read by one lane each. (A first
 * version built the runs pairwise, node S(t, k) from S(t - 2^(k-1), k - 1): the nodes a tile
 * needs then waited on chains of about log2(tiles in flight) round trips, and the scan ran
 * at half of copy speed, H100, f32, 2^28: 1.38 ms against 0.73 ms with no look-back.) */

/* Run by every lane of one wave of tile t (of `tiles` > 1) once its aggregate `agg` is known:
 * publishes it, and the nodes that end at tile t (which wait for their children). */
template <typename SO>
PP_DEVICE void pp_lookback_tree_publish(pp_lb_entry<SO> *st, uint64_t tiles, uint64_t t, typename SO::T agg,
                                        const pp_lb_sleeps &sl)
{
    using T = typename SO::T;
    const unsigned lane = pp_lane_id();
    if (lane == 0) pp_lb_publish<SO>(st, pp_lb_index(tiles, 0, t), agg);
    T own = agg;
    for (int j = 1; j < PP_LB_MAX_LEVELS; ++j) {
        const uint64_t span = 1ull << (PP_LB_RADIX_BITS * j);
        if ((t + 1) % span != 0) break;
        const uint64_t first = ((t + 1) >> (PP_LB_RADIX_BITS * (j - 1))) - PP_LB_RADIX; /* first child */
        T c = own;
        if (lane < (unsigned)PP_LB_RADIX - 1) c = pp_lb_wait<SO>(st, pp_lb_index(tiles, j - 1, first + lane), sl);
        own = pp_wave_reduce_ordered<SO, PP_LB_RADIX>(c);
        own = pp_shfl_any(own, 0);
        if (lane == 0) pp_lb_publish<SO>(st, pp_lb_index(tiles, j, first / PP_LB_RADIX), own);
    }
}

/* Run by every lane of one wave of tile t (of `tiles` > 1): its exclusive prefix, the fold
 * (high digits first) of the runs the binary digits of t describe; the run of bit 5j + r is
 * 2^r consecutive level-j nodes. The tile's own nodes are published first if `publish` (else
 * the caller did, pp_lookback_tree_publish). */
template <typename SO>
PP_DEVICE typename SO::T pp_lookback_tree(pp_lb_entry<SO> *st, uint64_t tiles, uint64_t t, typename SO::T agg,
                                          bool publish, const pp_lb_sleeps &sl)
{
    using T = typename SO::T;
    const unsigned lane = pp_lane_id();
    if (publish) pp_lookback_tree_publish<SO>(st, tiles, t, agg, sl);
    if (t == 0) return SO::identity();
    if (sl.delay_ns) pp_sleep_ns(sl.delay_ns);
    /* For each radix-32 digit d_j of t (high first), the first d_j children of the level-j
     * parent that holds t; each set bit r of d_j is one run of 2^r of them. */
    T p = SO::identity();
    bool have = false;
    const int top = (63 - __clzll((long long)t)) / PP_LB_RADIX_BITS;
    for (int j = top; j >= 0; --j) {
        const unsigned d = (unsigned)(t >> (PP_LB_RADIX_BITS * j)) & (PP_LB_RADIX - 1);
        if (d == 0) continue;
        const uint64_t first = (t >> (PP_LB_RADIX_BITS * (j + 1))) << PP_LB_RADIX_BITS;
        T c = SO::identity();
        unsigned block = 1;
        if (lane < d) {
            c = pp_lb_wait<SO>(st, pp_lb_index(tiles, j, first + lane), sl);
            block = 1u << (31 - __clz((int)(lane ^ d))); /* the run of d's highest differing bit */
        }
        c = pp_wave_reduce_ordered<SO, PP_LB_RADIX>(c, block);
        for (int r = PP_LB_RADIX_BITS - 1; r >= 0; --r) {
            if (!((d >> r) & 1u)) continue;
            const unsigned head = d & ~((2u << r) - 1u); /* first lane of the run of bit r */
            const T v = pp_shfl_any(c, (int)head);
            p = have ? SO::apply(p, v) : v;
            have = true;
        }
    }
    return p;
}

/* ---- many counters per tile (radix sort family, issue 20) ----
 * A onesweep radix pass publishes C = 256 digit counts per tile; each counter is looked back by
 * its own thread, serially over the tiles before it (CUB's onesweep look-back has this shape):
 * counter c of tile t lives at st[t * C + c], one 64-bit word carrying a 5-bit tag and 59 bits
 * of count, written and read whole (no fence orders anything). The tag says whose word it is:
 * 0 not published, 1 + 2 * epoch an aggregate, 2 + 2 * epoch an inclusive prefix. The epoch (a
 * pass number, < 15) lets the passes of one call share one state array zeroed once: a word
 * left by another pass reads as not published. */
constexpr int PP_LB_COUNTER_TAG_SHIFT = 59;
constexpr unsigned long long PP_LB_COUNTER_MASK = (1ull << PP_LB_COUNTER_TAG_SHIFT) - 1ull;

PP_DEVICE unsigned long long pp_lb_counter_word(unsigned epoch, bool inclusive, uint64_t count)
{
    const unsigned long long tag = 1ull + 2ull * epoch + (inclusive ? 1ull : 0ull);
    return (tag << PP_LB_COUNTER_TAG_SHIFT) | (count & PP_LB_COUNTER_MASK);
}

/* The two halves of pp_lookback_counter, for a caller that works between them (a onesweep
 * pass publishes its digit counts as soon as it has them, ranks and stages its tile, and only
 * then waits). pp_lookback_counter_publish: the aggregate `count` of counter c of tile t (tile
 * 0: its inclusive prefix). pp_lookback_counter_wait: the look-back of tile t > 0, `window`
 * predecessors' words read at once (independent loads, 1 .. PP_LB_COUNTER_WINDOW), folded
 * newest first up to the first inclusive prefix (a word not yet published: a pause, then the
 * window again from that tile); publishes the inclusive prefix and returns the exclusive one.
 * Segmented chains (`head`): a tile that starts a segment of consecutive tiles publishes its
 * inclusive prefix at once and waits on nothing, as tile 0 does, so the walk of a later tile
 * of its segment stops there and never folds the tiles of the segment before (the segmented
 * sort's radix levels: a chain per segment, hip/segsort.hip). */
constexpr int PP_LB_COUNTER_WINDOW = 4;

/* The counter words' accesses. RELAXED = false: pp_lb_ld / pp_lb_st (volatile, which sm_90
 * compiles to system-scope .STRONG.SYS accesses). RELAXED = true: relaxed atomic accesses at
 * device scope, which is all the counters need (each word is written and read whole and
 * carries everything a reader uses, so nothing else is ordered by it): NVIDIA ld / st
 * .relaxed.gpu, AMD __hip_atomic_load / store at agent scope. */
template <bool RELAXED> PP_DEVICE unsigned long long pp_lb_counter_ld(const unsigned long long *p)
{
    if constexpr (!RELAXED) {
        return pp_lb_ld(p);
    } else {
#if defined(PP_PORT_NVIDIA)
        unsigned long long v;
        asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p));
        return v;
#else
        return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#endif
    }
}
template <bool RELAXED> PP_DEVICE void pp_lb_counter_st(unsigned long long *p, unsigned long long v)
{
    if constexpr (!RELAXED) {
        pp_lb_st(p, v);
    } else {
#if defined(PP_PORT_NVIDIA)
        asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
#else
        __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#endif
    }
}

template <bool RELAXED = false>
PP_DEVICE void pp_lookback_counter_publish(unsigned long long *st, uint64_t t, unsigned c, unsigned C, uint64_t count,
                                           unsigned epoch, bool head = false)
{
    pp_lb_counter_st<RELAXED>(st + t * C + c, pp_lb_counter_word(epoch, t == 0 || head, count));
}

template <bool RELAXED = false>
PP_DEVICE uint64_t pp_lookback_counter_wait(unsigned long long *st, uint64_t t, unsigned c, unsigned C,
                                            uint64_t count, unsigned epoch, const pp_lb_sleeps &sl, int window,
                                            bool head = false)
{
    if (t == 0 || head) return 0;
    if (sl.delay_ns) pp_sleep_ns(sl.delay_ns);
    if constexpr (RELAXED) {
        /* the same walk in fewer instructions: 32-bit tile counts (t comes from a 32-bit
         * ticket), the window's words at constant offsets from one pointer, and the fold
         * without per-word bounds: a word before tile 0 is read as 0 and never folded, since
         * tile 0's word is an inclusive prefix (the fold stops there) or not yet published
         * (it stalls there) */
        const unsigned agg = 1u + 2u * epoch;
        uint64_t excl = 0;
        unsigned k = (unsigned)t;                               /* tiles [k, t) folded */
        const unsigned long long *p = st + (size_t)(k - 1) * C + c; /* tile k - 1's word */
        for (;;) {
            unsigned long long w[PP_LB_COUNTER_WINDOW];
#pragma unroll
            for (int i = 0; i < PP_LB_COUNTER_WINDOW; ++i)
                w[i] = i < window && k > (unsigned)i ? pp_lb_counter_ld<true>(p - (size_t)i * C) : 0ull;
            bool go = true, done = false;
            unsigned used = 0;
#pragma unroll
            for (int i = 0; i < PP_LB_COUNTER_WINDOW; ++i) {
                if (i >= window) break;
                const unsigned tag = (unsigned)(w[i] >> PP_LB_COUNTER_TAG_SHIFT);
                const bool use = go && tag - agg <= 1u;
                excl += use ? w[i] & PP_LB_COUNTER_MASK : 0ull;
                used += use ? 1u : 0u;
                done = done || (use && tag != agg);
                go = use && tag == agg;
            }
            if (done) break;
            k -= used;
            p -= (size_t)used * C;
            if (!go) pp_lb_pause(sl);
        }
        pp_lb_counter_st<true>(st + t * C + c, pp_lb_counter_word(epoch, true, excl + count));
        return excl;
    }
    const unsigned long long agg_tag = 1ull + 2ull * epoch;
    uint64_t excl = 0, k = t; /* tiles [k, t) folded */
    for (;;) {
        unsigned long long w[PP_LB_COUNTER_WINDOW];
#pragma unroll
        for (int i = 0; i < PP_LB_COUNTER_WINDOW; ++i)
            w[i] = i < window && k > (uint64_t)i ? pp_lb_counter_ld<RELAXED>(st + (k - 1 - (uint64_t)i) * C + c) : 0ull;
        bool done = false, stalled = false;
        uint64_t used = 0;
#pragma unroll
        for (int i = 0; i < PP_LB_COUNTER_WINDOW; ++i) {
            if (done || stalled || i >= window || k <= (uint64_t)i) continue;
            const unsigned long long tag = w[i] >> PP_LB_COUNTER_TAG_SHIFT;
            if (tag != agg_tag && tag != agg_tag + 1) {
                stalled = true;
                continue;
            }
            excl += w[i] & PP_LB_COUNTER_MASK;
            ++used;
            done = tag == agg_tag + 1;
        }
        if (done) break;
        k -= used;
        if (stalled) pp_lb_pause(sl);
    }
    pp_lb_counter_st<RELAXED>(st + t * C + c, pp_lb_counter_word(epoch, true, excl + count));
    return excl;
}

/* Run by the thread that owns counter c of tile t (every thread of a tile owns one counter,
 * c < C): publishes `count` (tile 0 publishes its inclusive prefix at once), waits for and
 * adds the counts of the tiles before it, newest first, until a tile with an inclusive prefix,
 * publishes its own inclusive prefix, and returns the exclusive one (the sum of counter c over
 * tiles 0 .. t - 1). */
PP_DEVICE uint64_t pp_lookback_counter(unsigned long long *st, uint64_t t, unsigned c, unsigned C, uint64_t count,
                                       unsigned epoch, const pp_lb_sleeps &sl)
{
    pp_lookback_counter_publish(st, t, c, C, count, epoch);
    return pp_lookback_counter_wait(st, t, c, C, count, epoch, sl, 1);
}

/* ---- many chains, one lane each (the 2-D tiles of sat.hip) ----
 * A tile whose carry is a vector -- the row prefixes of a 2-D tile's rows, the carries of its
 * columns -- publishes one entry per component: chain k of `stride` interleaved chains has
 * tile t's entries at t * stride + k, the aggregate in `aggs`, the inclusive prefix in `incl`
 * (both zeroed before the kernel). One lane serves one chain, so the lanes of a block serve
 * all of a tile's chains at once. The lane walks back over the tiles before t, PP_LB_LANE_WIN
 * of them per round (their words read at once, so that a long walk costs rounds, not one
 * round trip per tile), to the nearest tile that has published its inclusive prefix (tile 0
 * publishes only that), moving past a window only once every tile in it has published at
 * least its aggregate; then it folds forward in tile order from there, the aggregates read
 * again, a window at a time. By induction every inclusive prefix is the sequential fold of
 * the aggregates from tile 0, whatever the timing: the results are the same bits on every run
 * for any associative operator, floats included (a float passes through one rounding per
 * tile of the chain).
 * Run by one lane for chain k of tile t, once the caller has published agg at aggs (t > 0;
 * as early as it could, pp_lb_publish): publishes tile t's inclusive prefix (the exclusive
 * prefix folded with agg; agg itself for tile 0) and returns the exclusive prefix
 * (SO::identity() for tile 0). */
constexpr int PP_LB_LANE_WIN = 4;

template <typename SO>
PP_DEVICE typename SO::T pp_lookback_lane(pp_lb_entry<SO> *aggs, pp_lb_entry<SO> *incl, uint64_t stride, uint64_t t,
                                          uint64_t k, typename SO::T agg, const pp_lb_sleeps &sl)
{
    using T = typename SO::T;
    constexpr int WIN = PP_LB_LANE_WIN;
    if (t == 0) {
        pp_lb_publish<SO>(incl, k, agg);
        return SO::identity();
    }
    if (sl.delay_ns) pp_sleep_ns(sl.delay_ns);
    /* back to the nearest inclusive prefix; every tile in [end, t) has published its aggregate */
    uint64_t end = t, start = 0;
    T v = SO::identity();
    for (;;) {
        const int cnt = end < (uint64_t)WIN ? (int)end : WIN;
        T iv[WIN];
        bool ir[WIN];
#pragma unroll
        for (int i = 0; i < WIN; ++i) ir[i] = i < cnt && pp_lb_try<SO>(incl, (end - 1 - i) * stride + k, iv[i]);
        int found = WIN;
#pragma unroll
        for (int i = WIN - 1; i >= 0; --i)
            if (ir[i]) found = i;
        if (found < WIN) {
#pragma unroll
            for (int i = 0; i < WIN; ++i)
                if (i == found) v = iv[i];
            start = end - 1 - (uint64_t)found;
            break;
        }
        bool all = true; /* tile 0 has no aggregate: its window waits for its inclusive prefix */
#pragma unroll
        for (int i = 0; i < WIN; ++i) {
            T a;
            if (i < cnt && (end - 1 - i == 0 || !pp_lb_try<SO>(aggs, (end - 1 - i) * stride + k, a))) all = false;
        }
        if (all) end -= (uint64_t)cnt;
        else pp_lb_pause(sl);
    }
    /* forward from the start, in tile order */
    for (uint64_t b = start + 1; b < t; b += WIN) {
        T a[WIN];
        bool ok[WIN];
#pragma unroll
        for (int i = 0; i < WIN; ++i) ok[i] = b + i >= t || pp_lb_try<SO>(aggs, (b + i) * stride + k, a[i]);
#pragma unroll
        for (int i = 0; i < WIN; ++i)
            while (!ok[i]) {
                pp_lb_pause(sl);
                ok[i] = pp_lb_try<SO>(aggs, (b + i) * stride + k, a[i]);
            }
#pragma unroll
        for (int i = 0; i < WIN; ++i)
            if (b + i < t) v = SO::apply(v, a[i]);
    }
    pp_lb_publish<SO>(incl, t * stride + k, SO::apply(v, agg));
    return v;
}

#endif /* PP_HIP_LOOKBACK_H */
