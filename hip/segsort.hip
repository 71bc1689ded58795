/*
 * segsort.hip -- the segmented sort on the GPU (issue 22): pp_segmented_sort_keys / _pairs and
 * the fixed-length forms. Every segment is sorted on its own, stably, by the radix sort
 * family's order (src/key_encoding.h: -0.0 == +0.0, NaN last, complemented when descending);
 * keys and values move as their bits. A stable sort has one result, so the bits are those of
 * the CPU backend whatever class a segment falls in.
 *
 * Size classes (hip/tuning_segsort.h), so that the time grows smoothly with the length:
 *   segsort_count /   one pass over the offsets, twice: the segments of each class counted,
 *   segsort_classify  then each non-empty segment's index written to its class's list (ranks
 *                     within a wave by matching the class, within the block by shared
 *                     counters, across blocks by one atomic per class and block; the order of
 *                     a list is not fixed, which changes no result).
 *   segsort_thread    segments of one key (SEGSORT_THREAD_MAX): a thread each copies it.
 *   segsort_packed    2 keys up to the tile: segments of lengths in (2^(c-1), 2^c] (from 2^2)
 *                     are given 2^c slots each, TILE / 2^c to a block, the slots past a
 *                     segment's length a sentinel that sorts last; a bitonic network of size
 *                     2^c over the block's tile (in registers, by shuffles, through shared
 *                     memory by the partner's distance) sorts every segment's slots on its own
 *                     (below: what a slot holds, so that the result is the stable one). Keys of
 *                     up to 4 bytes alone: segsort_packed_loop, a grid of the blocks that fit on
 *                     the device at once (at most the host's bound 2n / TILE + classes), each
 *                     looping over the block items the counts ask for (4-byte integer keys:
 *                     segsort_packed_pipe, the same loop software-pipelined: the next item's
 *                     table built while an item's keys land by asynchronous copies; on NVIDIA
 *                     two launches, the classes from SEGSORT_BN_MERGE_LOG first, whose network
 *                     sorts groups of 2^SEGSORT_BN_MERGE_RUN_LOG and then merges them through
 *                     shared memory: pp_bn_merge_rounds); the other
 *                     kernels (registers: see seg_packed_loops) a block an item, launched with
 *                     the host's bound, blocks past the classes' need returning at once.
 *   long class        longer segments: cut into chunks of the tile (seg_long_plan, run by
 *                     segsort_thread's blocks: each chunk's (segment begin, length, chunk
 *                     start) appended to one of two lists by the parity of the merge passes its
 *                     segment needs), every chunk sorted by the packed kernel at the tile's
 *                     class from one list of chunk entries (a block a chunk; parity 0 into the
 *                     output, parity 1, flagged SEG_CHUNK_ALT, into a scratch copy at the same
 *                     positions), then segsort_merge passes: pass p
 *                     merges the runs of TILE << p keys in pairs, every long segment at once, a
 *                     block per SEGSORT_MERGE_BATCH output tiles (wave-wide merge-path searches
 *                     on the two runs in global memory for the tiles' bounds, every tile's of
 *                     the batch at once, a wave a search; then for each tile the two ranges
 *                     staged in shared memory, a merge path per thread and ITEMS merge steps;
 *                     ties take the left run: stable). A segment's passes alternate between
 *                     the scratch copy and the output from the list its chunks were sorted to,
 *                     so that its last pass writes the output; a pass it does not need leaves
 *                     it alone. The host bounds the passes by ceil(log2(L / TILE)) for the
 *                     longest segment possible (L = n, or the fixed form's length), without
 *                     reading the device; one cooperative launch of segsort_merge runs the
 *                     passes the longest segment present needs (the plan's count), a grid
 *                     barrier between two.
 *   huge class        (NVIDIA, where the mean segment is at least the tuning row's
 *                     msd_min_mean) segments of more than its msd_lo keys: radix levels, from
 *                     the top digit, each segment's keys moved into buckets, buckets longer than
 *                     the tile moved again by the next digit, the others sorted by the packed
 *                     kernel ("the long class by radix levels" below). The long class then holds
 *                     the segments between the packed bound and msd_lo.
 * The fixed form with segments of at least SEGSORT_FIXED_SORT_MIN keys (lengths the host knows
 * without reading the device) sorts each with the radix sort family's device-wide sort.
 * Memory traffic: the packed and thread classes read and write each key (value) once (the packed
 * class reads a float key twice: loaded, then gathered by its place); the long class as the
 * packed class for its chunk sort, then once more for each merge pass its segment needs; the
 * huge class reads its keys twice and writes them once a level (histogram, scatter), then as
 * the packed class for its buckets.
 */
#include <string.h>

#include <type_traits>

#include "bitonic.h"
#include "blocks.h"
#include "common.h"
#include "key_encoding.h"
#include "lookback.h"
#include "radix_rank.h"
#include "tuning_segsort.h"
#include "tuning_sort.h"

namespace {

constexpr int SB = SEGSORT_BLOCK;
constexpr int SEG_MAX_CLASSES = 16; /* class ids fit the 4 bits the classify kernel matches */

/* The segments and the keys' order, resolved on the host. Classes: 0 the thread class, 1 + (c -
 * pack_lo) the packed class of lengths (2^(c-1), 2^c] for c in [pack_lo, pack_hi], long_cls the
 * long class (chunks and merge passes), and where msd_lo is set huge_cls (= nclasses - 1) the
 * segments of more than msd_lo keys (radix levels). */
struct seg_desc {
    uint64_t n;
    const size_t *offsets; /* NULL: the fixed form */
    uint64_t seg_len;
    uint64_t n_segments;
    unsigned long long flip;
    int kind;
    int key_bits;
    int pack_lo, pack_hi;
    int nclasses;
    int long_cls, huge_cls; /* huge_cls: -1 without radix levels */
    uint64_t msd_lo;        /* 0: no radix levels */
    int pack_pipe; /* the packed kernel's form for 4-byte integer keys: SEGSORT_PACK_PIPE's values */
    int pack_pf;   /* segsort_packed_pipe: the next item's keys prefetched from this class up */
    bool pack_pdl; /* segsort_packed_pipe's second part as a programmatic dependent launch */
};

template <typename K, typename V> struct seg_bufs {
    const K *kin;
    K *kout, *ktmp;
    const V *vin;
    V *vout, *vtmp;
};

template <int VB> using val_t = typename std::conditional<
    VB == 8, uint64_t, typename std::conditional<VB == 4, uint32_t, uint8_t>::type>::type;

PP_DEVICE uint32_t seg_enc(uint8_t k, const seg_desc &d) { return pp_sort_key_u32(k, d.kind, (uint32_t)d.flip); }
PP_DEVICE uint32_t seg_enc(uint32_t k, const seg_desc &d) { return pp_sort_key_u32(k, d.kind, (uint32_t)d.flip); }
PP_DEVICE uint64_t seg_enc(uint64_t k, const seg_desc &d) { return pp_sort_key_u64(k, d.kind, d.flip); }

/* Segment s's first key (b) and length (0: empty), clamped as pp_segmented_reduce. */
PP_DEVICE uint64_t seg_bounds(const seg_desc &d, uint64_t s, uint64_t &b)
{
    if (!d.offsets) {
        b = s * d.seg_len;
        return d.seg_len;
    }
    uint64_t lo = d.offsets[s], hi = d.offsets[s + 1];
    lo = lo < d.n ? lo : d.n;
    hi = hi < d.n ? hi : d.n;
    b = lo;
    return hi > lo ? hi - lo : 0;
}

/* The packed class of a segment (or radix-level bucket) of 2 <= len <= 2^pack_hi keys. */
PP_DEVICE int seg_packed_class(uint64_t len, int pack_lo)
{
    int c = 64 - __clzll((long long)(len - 1)); /* ceil(log2(len)) */
    if (c < pack_lo) c = pack_lo;
    return 1 + c - pack_lo;
}

PP_DEVICE int seg_class(uint64_t len, const seg_desc &d)
{
    if (len <= (uint64_t)SEGSORT_THREAD_MAX) return 0;
    if (d.pack_hi >= d.pack_lo && len <= (1ull << d.pack_hi)) return seg_packed_class(len, d.pack_lo);
    return d.msd_lo && len > d.msd_lo ? d.huge_cls : d.long_cls;
}

/* The first list entry of class `cls`: the counts of the classes before it. */
PP_DEVICE uint64_t seg_class_start(const unsigned long long *counts, int cls)
{
    uint64_t s = 0;
    for (int q = 0; q < cls; ++q) s += counts[q];
    return s;
}

/* ---- classes ---- */

/* The wave's lanes of the same class: each lane's rank among them, and the count added by the
 * highest of them to cnt[cls] (shared); returns the rank. Every lane calls it. */
PP_DEVICE unsigned seg_wave_rank(int cls, bool valid, unsigned *cnt)
{
    const pp_lanemask_t peers = pp_match_digit((unsigned)cls, 4, valid);
    const unsigned lane = pp_lane_id();
    const int leader = peers ? 63 - __clzll((long long)peers) : (int)lane;
    unsigned before = 0;
    if (valid && (int)lane == leader) before = atomicAdd(&cnt[cls], (unsigned)__popcll(peers));
    before = pp_shfl(before, leader);
    return before + (unsigned)__popcll(peers & pp_lanemask_lt());
}

/* Both passes over the offsets take chunks of CI x SB segments in a grid stride, a thread's CI
 * segments (s = chunk + j SB + thread) bounded with their loads all in flight at once. The
 * first version took one segment a thread per step, with two or three block barriers and (in
 * segsort_classify) a global atomic's round trip each step: at 2^22 segments the two kernels
 * took 26 and 37 us at 39% of DRAM bandwidth (ncu, H100, a31573d). */
constexpr int CI = SEGSORT_CLASSIFY_ITEMS;

/* The lengths and classes of a thread's CI segments of the chunk at `base`. */
PP_DEVICE void seg_chunk_classes(const seg_desc &d, uint64_t base, uint64_t (&len)[CI], int (&cls)[CI])
{
#pragma unroll
    for (int j = 0; j < CI; ++j) {
        const uint64_t s = base + (uint64_t)j * SB + threadIdx.x;
        uint64_t b = 0;
        len[j] = s < d.n_segments ? seg_bounds(d, s, b) : 0;
    }
#pragma unroll
    for (int j = 0; j < CI; ++j) cls[j] = len[j] ? seg_class(len[j], d) : 0;
}

/* counts[c] += the non-empty segments of class c (zeroed before). */
__global__ __launch_bounds__(SB) void segsort_count(seg_desc d, unsigned long long *__restrict__ counts)
{
    __shared__ unsigned cnt[SEG_MAX_CLASSES];
    if (threadIdx.x < (unsigned)SEG_MAX_CLASSES) cnt[threadIdx.x] = 0;
    __syncthreads();
    const uint64_t stride = (uint64_t)gridDim.x * CI * SB;
    for (uint64_t base = (uint64_t)blockIdx.x * CI * SB; base < d.n_segments; base += stride) {
        uint64_t len[CI];
        int cls[CI];
        seg_chunk_classes(d, base, len, cls);
#pragma unroll
        for (int j = 0; j < CI; ++j) seg_wave_rank(cls[j], len[j] > 0, cnt);
    }
    __syncthreads();
    if (threadIdx.x < (unsigned)d.nclasses && cnt[threadIdx.x])
        atomicAdd(&counts[threadIdx.x], (unsigned long long)cnt[threadIdx.x]);
}

/* list[start of its class + place] = s for every non-empty segment s (cursor zeroed before). */
__global__ __launch_bounds__(SB) void segsort_classify(seg_desc d, const unsigned long long *__restrict__ counts,
                                                       unsigned long long *__restrict__ cursor,
                                                       unsigned long long *__restrict__ list)
{
    __shared__ unsigned cnt[SEG_MAX_CLASSES];
    __shared__ unsigned long long at[SEG_MAX_CLASSES];
    const uint64_t stride = (uint64_t)gridDim.x * CI * SB;
    for (uint64_t base = (uint64_t)blockIdx.x * CI * SB; base < d.n_segments; base += stride) {
        if (threadIdx.x < (unsigned)SEG_MAX_CLASSES) cnt[threadIdx.x] = 0;
        __syncthreads();
        uint64_t len[CI];
        int cls[CI];
        unsigned rank[CI];
        seg_chunk_classes(d, base, len, cls);
#pragma unroll
        for (int j = 0; j < CI; ++j) rank[j] = seg_wave_rank(cls[j], len[j] > 0, cnt);
        __syncthreads();
        if (threadIdx.x < (unsigned)d.nclasses && cnt[threadIdx.x])
            at[threadIdx.x] = seg_class_start(counts, (int)threadIdx.x) + atomicAdd(&cursor[threadIdx.x],
                                                                                     (unsigned long long)cnt[threadIdx.x]);
        __syncthreads();
#pragma unroll
        for (int j = 0; j < CI; ++j)
            if (len[j]) list[at[cls[j]] + rank[j]] = base + (uint64_t)j * SB + threadIdx.x;
        __syncthreads();
    }
}

/* ---- the packed classes: a bitonic network over slots ----
 *
 * A block takes G = TILE / 2^c segments of class c (lengths in (2^(c-1), 2^c]) and gives each
 * 2^c slots of the tile, slot j * 2^c + o holding segment j's key o, the slots past its length a
 * sentinel that sorts after every real key. A bitonic sorting network of size 2^c over the whole
 * tile (hip/bitonic.h: registers, shuffles, shared memory by the partner's distance) then sorts
 * every group of 2^c slots on its own, and the first L slots of each group are its segment,
 * sorted. Loads and stores go slot by slot over the block (coalesced within a segment) through
 * the same shared tile.
 *
 * What a slot holds (pp_bn_word): keys-only integer sorts the encoded key alone (equal
 * encodings are equal keys, so the order of ties cannot show) and decode it at the end; stable
 * sorts (float keys, whose -0.0 / +0.0 and NaN payloads must keep their input order, and every
 * pairs sort) the encoded key with the key's place o in its segment; the key (float) and value
 * are then gathered from their input places, every gather of the block before any write (in
 * place is allowed).
 *
 * The list a block reads: entries of segment ids (segsort_classify's), or with `chunks` set,
 * pieces of up to a tile (begin << SEG_CHUNK_LEN_BITS | length), so that a longer segment's
 * tile-sized chunks can be sorted by this kernel too. */

constexpr int seg_log2(int x) { return x <= 1 ? 0 : 1 + seg_log2(x / 2); }
constexpr int SEG_SB_LOG = seg_log2(SB);

/* Slot i = tid + r SB of the packed tile (the loads' and stores' order, coalesced within a
 * segment): its segment j and place o in the segment. ROWS (the class c at most SEG_SB_LOG): a
 * row of SB slots holds whole segments, so o is the same in every row and j steps by SB >> c,
 * computed once, not a shift and a mask a slot. In the pipelined kernel (H100, fourteenth
 * session, call 3): 2% faster at 64 to 256 keys a segment, though only 0.8% fewer instructions
 * (the loops' cost is elsewhere: bench/NOTES.md). seg_slots_run calls its body with the form the
 * class takes, ROWS only where ROWS_OK: the pipelined kernel's loads and stores. Elsewhere it
 * moved ptxas's registers both ways (sm_90: 48 -> 61 in one stable kernel, 40 bytes of spills
 * in segsort_packed_loop's 4-byte integer keys under its cap of 40). */
template <bool ROWS> struct seg_slots {
    unsigned j0, step, o; /* ROWS: row 0's segment, the step, the place; else j0 = c, o = the mask */
    PP_DEVICE void at(unsigned i, int r, unsigned &j, unsigned &p) const
    {
        if constexpr (ROWS) {
            j = j0 + (unsigned)r * step;
            p = o;
        } else {
            j = i >> j0;
            p = i & o;
        }
    }
};
template <bool ROWS_OK, typename F> PP_DEVICE void seg_slots_run(int c, const F &body)
{
    if (ROWS_OK && c <= SEG_SB_LOG) body(seg_slots<true>{threadIdx.x >> c, (unsigned)SB >> c, threadIdx.x & ((1u << c) - 1u)});
    else body(seg_slots<false>{(unsigned)c, 0u, (1u << c) - 1u});
}

/* The pipelined kernel's loads and stores for classes c above SEG_SB_LOG: a row of SB slots lies
 * within one segment, 2^SH rows a segment (SH = c - SEG_SB_LOG), so a thread takes each of its
 * segments' begin and length once, not once a slot, and its slots' places are constants from
 * them. body(std::integral_constant<int, SH>) for SH = 1 .. log2(ITEMS) (c up to the tile). The
 * generic form read both from the item's table for every slot: 38 of 215 instructions a key at
 * 4096 keys (ncu, eighteenth session, call 3). */
template <int ITEMS, typename F> PP_DEVICE void seg_spans_run(int c, const F &body)
{
    static_assert(ITEMS == 16, "the pipelined kernel's 16 rows: 2 .. 16 a segment");
    const int sh = c - SEG_SB_LOG;
    if (sh <= 1) body(std::integral_constant<int, 1>());
    else if (sh == 2) body(std::integral_constant<int, 2>());
    else if (sh == 3) body(std::integral_constant<int, 3>());
    else body(std::integral_constant<int, 4>());
}

constexpr int SEG_CHUNK_LEN_BITS = 16; /* a chunk entry's length field (lengths up to the tile) */
/* A chunk entry's flag (the length field's top bit): the chunk's sorted keys (values) go to the
 * scratch copy, not the output. Only the long class's chunks set it (seg_long_plan: the
 * parity of the merge passes the chunk's segment needs), whose items hold one chunk each (the
 * tile's class): the flag of an item's first entry chooses the item's output. */
constexpr unsigned long long SEG_CHUNK_ALT = 1ull << (SEG_CHUNK_LEN_BITS - 1);

/* An item of the packed classes' list: its first key (b) and length. */
PP_DEVICE uint64_t seg_item(const seg_desc &d, unsigned long long e, bool chunks, uint64_t &b)
{
    if (chunks) {
        b = e >> SEG_CHUNK_LEN_BITS;
        return e & (SEG_CHUNK_ALT - 1ull);
    }
    return seg_bounds(d, e, b);
}

/* The buffers an item's sorted keys (values) go to: the output, or where its first chunk entry
 * has SEG_CHUNK_ALT (alt), the scratch copy. */
template <typename K, typename V> PP_DEVICE seg_bufs<K, V> seg_item_bufs(const seg_bufs<K, V> &b, bool alt)
{
    seg_bufs<K, V> o = b;
    if (alt) {
        o.kout = b.ktmp;
        o.vout = b.vtmp;
    }
    return o;
}

/* The xor that encodes an integer key and decodes it (pp_sort_key_u32 / _u64 of an integer key;
 * 1-byte keys are unsigned), computed once for the packed kernel's loops. */
template <typename K> PP_DEVICE decltype(seg_enc(K(0), seg_desc())) seg_int_xor(const seg_desc &d)
{
    using E = decltype(seg_enc(K(0), seg_desc()));
    const E sign = d.kind == PP_SORT_KIND_SIGNED ? (E)1 << (8 * sizeof(K) - 1) : (E)0;
    return (E)d.flip ^ sign;
}

/* The integer key of an encoding. */
template <typename K> PP_DEVICE K seg_decode(decltype(seg_enc(K(0), seg_desc())) e, const seg_desc &d)
{
    return (K)(e ^ seg_int_xor<K>(d));
}

/* A block item of the packed classes: its class c (0: past the items), the list index of its
 * first segment, and its segments (at most G = TILE >> c). */
struct seg_pitem {
    uint64_t first;
    unsigned nseg;
    int cl;
};

/* Block item `blk` (the classes' blocks in order, the longest class first), from the class
 * counts in shared memory: the counts read once, all at a time, by the block (not one
 * dependent global load and a 64-bit division a class); the blocks of class c are a shift (G =
 * 2^(tile_log - c) segments each), its list start summed from the counts before it. */
PP_DEVICE seg_pitem seg_pack_find(const seg_desc &d, const unsigned long long *scnt, uint64_t blk, int tile_log)
{
    seg_pitem it;
    it.first = 0;
    it.nseg = 0;
    it.cl = 0;
    const int np = d.pack_hi >= d.pack_lo ? d.pack_hi - d.pack_lo + 1 : 0;
    for (int p = np; p >= 1; --p) {
        const int c = d.pack_lo + p - 1, sh = tile_log - c;
        const uint64_t cnt = scnt[p], nb = (cnt + (1ull << sh) - 1) >> sh;
        if (blk < nb) {
            uint64_t s = 0;
            for (int q = 0; q < p; ++q) s += scnt[q];
            const uint64_t g0 = blk << sh, left = cnt - g0;
            it.cl = c;
            it.first = s + g0;
            it.nseg = (unsigned)(left < (1ull << sh) ? left : 1ull << sh);
            return it;
        }
        blk -= nb;
    }
    return it;
}

/* The same from the classes' block ranges, computed once a block (seg_pack_ranges): class p's
 * items are blocks [cend[p + 1], cend[p]) (the longest class first, cend[np + 1] = 0) and its
 * list entries start at lst[p]; `p` is the caller's cursor (start at np): a block's items come
 * in increasing order, so it only moves down. seg_pack_find searched every class from the
 * longest, in 64-bit arithmetic, twice an item in every thread of segsort_packed_pipe: 14% of
 * its stall samples at 16 keys a segment (ncu, thirteenth session, call 3). */
PP_DEVICE seg_pitem seg_pack_at(const seg_desc &d, const unsigned long long *scnt, const unsigned long long *cend,
                                const unsigned long long *lst, uint64_t blk, int &p, int tile_log)
{
    seg_pitem it;
    it.first = 0;
    it.nseg = 0;
    it.cl = 0;
    while (p >= 1 && blk >= cend[p]) --p;
    if (p < 1) return it;
    const int c = d.pack_lo + p - 1, sh = tile_log - c;
    const uint64_t g0 = (blk - cend[p + 1]) << sh, left = scnt[p] - g0;
    it.cl = c;
    it.first = lst[p] + g0;
    it.nseg = (unsigned)(left < (1ull << sh) ? left : 1ull << sh);
    return it;
}

/* cend / lst of seg_pack_at from the counts in shared memory (thread 0; np <= SEG_MAX_CLASSES - 1).
 * Returns nothing: a barrier must follow before they are read. */
PP_DEVICE void seg_pack_ranges(const seg_desc &d, const unsigned long long *scnt, unsigned long long *cend,
                               unsigned long long *lst, int np, int tile_log)
{
    if (threadIdx.x != 0) return;
    unsigned long long s = scnt[0];
    for (int p = 1; p <= np; ++p) {
        lst[p] = s;
        s += scnt[p];
    }
    cend[np + 1] = 0;
    for (int p = np; p >= 1; --p) {
        const int sh = tile_log - (d.pack_lo + p - 1);
        cend[p] = cend[p + 1] + ((scnt[p] + (1ull << sh) - 1) >> sh);
    }
}

/* A segment's entry in the item's table: sorted alone, the address of its first input key (its
 * output is that plus the uniform distance between the arrays); stable, the first key's place. */
template <typename K, typename V, bool STABLE> PP_DEVICE uint64_t seg_pack_beg(const seg_bufs<K, V> &b, uint64_t bb)
{
    return STABLE ? bb : (uint64_t)(uintptr_t)(b.kin + bb);
}

/* Item `it`'s table (a thread an entry, SB apart): sbeg (seg_pack_beg) and slen (0 past the
 * item's segments) of its G segments; `prefetch`: each segment's keys brought into L2 too.
 * Returns, in thread 0, whether the item's first entry is a chunk with SEG_CHUNK_ALT. */
template <typename K, typename V, bool STABLE, int TILE>
PP_DEVICE bool seg_pack_table(const seg_desc &d, const seg_bufs<K, V> &b, const unsigned long long *__restrict__ list,
                              bool chunks, const seg_pitem &it, uint64_t *sbeg, uint16_t *slen, bool prefetch = false)
{
    const unsigned G = (unsigned)(TILE >> it.cl);
    bool alt = false;
    for (unsigned j = threadIdx.x; j < G; j += SB) {
        uint64_t bb = 0, len = 0;
        if (j < it.nseg) {
            const unsigned long long e = list[it.first + j];
            len = seg_item(d, e, chunks, bb);
            alt = j == 0 && chunks && (e & SEG_CHUNK_ALT);
        }
        sbeg[j] = seg_pack_beg<K, V, STABLE>(b, bb);
        slen[j] = (uint16_t)len;
        if (prefetch && len) pp_prefetch_l2(b.kin + bb, len * sizeof(K));
    }
    return alt;
}

/* The keys of the item of class c whose table is (sbeg, slen) into the tile's slots, slot j 2^c +
 * o segment j's key o, a sentinel past its length. Integer keys sorted alone (!STABLE): the
 * encoding is an xor, without the float test. Loads 8 at a time: fully unrolled (16 loads in
 * flight) the keys-only kernel needed 80 registers on sm_90 once its body runs in a loop over
 * block items (s5-segmerge's segsort_packed_loop), 104-112 bytes of spills under the cap of 40;
 * at 8, 40, no spill. ASYNC (4-byte keys sorted alone): every key by an asynchronous copy
 * (pp_copy4_async, no register held: all in flight at once) of the key as it is, which the
 * caller waits for; the sentinel stored as ~xor, so that the xor applied when the slots are read
 * (seg_pack_sort_store's RAW) encodes both. */
template <typename K, int ITEMS, bool STABLE, bool ASYNC, typename W, int TILE>
PP_DEVICE void seg_pack_load(const seg_desc &d, const K *kin, pp_bn_tile<W, TILE> &st, const uint64_t *sbeg,
                             const uint16_t *slen, int cl)
{
    const unsigned tid = threadIdx.x;
    const auto ix = seg_int_xor<K>(d);
    if constexpr (ASYNC) {
        static_assert(!STABLE && sizeof(K) == 4 && sizeof(W) == 4, "raw 4-byte keys in 4-byte slots");
        if (cl > SEG_SB_LOG) {
            seg_spans_run<ITEMS>(cl, [&](auto shc) {
                constexpr int RS = 1 << decltype(shc)::value; /* rows a segment */
#pragma unroll 1
                for (int j = 0; j < ITEMS / RS; ++j) {
                    const unsigned len = slen[j];
                    const K *src = (const K *)(uintptr_t)sbeg[j] + tid;
#pragma unroll
                    for (int q = 0; q < RS; ++q) {
                        const unsigned i = tid + (unsigned)((j * RS + q) * SB);
                        if (tid + (unsigned)(q * SB) < len) pp_copy4_async(st.slot(i), src + q * SB);
                        else st.put(i, (W)~ix);
                    }
                }
            });
            pp_copy_async_commit();
            return;
        }
        seg_slots_run<true>(cl, [&](const auto &sl) {
#pragma unroll 8
            for (int r = 0; r < ITEMS; ++r) {
                const unsigned i = tid + (unsigned)(r * SB);
                unsigned j, o;
                sl.at(i, r, j, o);
                if (o < slen[j]) pp_copy4_async(st.slot(i), (const K *)(uintptr_t)sbeg[j] + o);
                else st.put(i, (W)~ix);
            }
        });
        pp_copy_async_commit();
    } else {
        /* H keys loaded, then encoded and stored: with each key's load, encoding and store in its
         * slot's branch the compiler issued a load after the store of the one before, one round
         * trip a key (pairs at 256 keys: 45% of the kernel's stall samples on those uses, ncu,
         * thirteenth session, call 7); H = 8 keeps the registers of the loop kernels' cap, 4
         * for 8-byte keys (8 of them spilled 4-8 bytes in two sm_80 stable kernels) */
        constexpr int HM = sizeof(K) > 4 ? 4 : 8, H = ITEMS < HM ? ITEMS : HM;
        static_assert(ITEMS % H == 0, "whole groups of H keys");
        seg_slots_run<false>(cl, [&](const auto &sl) {
#pragma unroll 1
            for (int r0 = 0; r0 < ITEMS; r0 += H) {
                K kk[H];
#pragma unroll
                for (int h = 0; h < H; ++h) {
                    const unsigned i = tid + (unsigned)((r0 + h) * SB);
                    unsigned j, o;
                    sl.at(i, r0 + h, j, o);
                    kk[h] = K(0);
                    if (o < slen[j]) kk[h] = STABLE ? kin[sbeg[j] + o] : ((const K *)(uintptr_t)sbeg[j])[o];
                }
#pragma unroll
                for (int h = 0; h < H; ++h) {
                    const unsigned i = tid + (unsigned)((r0 + h) * SB);
                    unsigned j, o;
                    sl.at(i, r0 + h, j, o);
                    W w;
                    pp_bn_sentinel(w);
                    if (o < slen[j]) {
                        if constexpr (STABLE) pp_bn_make(w, seg_enc(kk[h], d), o);
                        else pp_bn_make(w, (decltype(ix))kk[h] ^ ix, o);
                    }
                    st.put(i, w);
                }
            }
        });
    }
}

/* The network over the loaded tile (RAW: its slots hold the keys as they are, encoded by the
 * xor here), then the item's outputs: integer keys sorted alone decoded from their slots;
 * stable sorts gather every key (floats; else decoded) and value of the block from its input
 * place before any is written (in place is allowed), the key back to its slot (a thread's own),
 * the value to a register. XMIN: the network's exchange form from that class up (pp_bn_bitonic).
 * Block barriers inside; the caller's barrier must follow before the tile or the table is
 * written again. */
template <typename K, int VB, int ITEMS, bool STABLE, bool RAW, int XMIN, typename W, int TILE>
PP_DEVICE void seg_pack_sort_store(const seg_desc &d, const seg_bufs<K, val_t<VB>> &b, pp_bn_tile<W, TILE> &st,
                                   const uint64_t *sbeg, const uint16_t *slen, int cl)
{
    using V = val_t<VB>;
    const unsigned tid = threadIdx.x, base = tid * ITEMS;
    const auto ix = seg_int_xor<K>(d);
    W x[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        x[r] = st.get(base + (unsigned)r);
        if constexpr (RAW) x[r] ^= (W)ix;
    }
    const unsigned out = pp_bn_bitonic<XMIN>(x, st, cl);
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) st.put(out + (unsigned)r, x[r]);
    __syncthreads();
    if constexpr (!STABLE) {
        const uint64_t dout = (uint64_t)(uintptr_t)b.kout - (uint64_t)(uintptr_t)b.kin;
        if constexpr (RAW) { /* the pipelined kernel: seg_spans_run */
            if (cl > SEG_SB_LOG) {
                seg_spans_run<ITEMS>(cl, [&](auto shc) {
                    constexpr int RS = 1 << decltype(shc)::value; /* rows a segment */
#pragma unroll 1
                    for (int j = 0; j < ITEMS / RS; ++j) {
                        const unsigned len = slen[j];
                        K *dst = (K *)(uintptr_t)(sbeg[j] + dout) + tid;
#pragma unroll
                        for (int q = 0; q < RS; ++q)
                            if (tid + (unsigned)(q * SB) < len)
                                dst[q * SB] = (K)(st.get(tid + (unsigned)((j * RS + q) * SB)) ^ ix);
                    }
                });
                return;
            }
        }
        seg_slots_run<RAW>(cl, [&](const auto &sl) {
#pragma unroll
            for (int r = 0; r < ITEMS; ++r) {
                const unsigned i = tid + (unsigned)(r * SB);
                unsigned j, q;
                sl.at(i, r, j, q);
                if (q < slen[j]) ((K *)(uintptr_t)(sbeg[j] + dout))[q] = (K)(st.get(i) ^ ix);
            }
        });
    } else {
        const bool gather_key = d.kind == PP_SORT_KIND_FLOAT;
        using VR = typename std::conditional<sizeof(V) < 4, uint32_t, V>::type; /* registers, not bytes */
        seg_slots_run<false>(cl, [&](const auto &sl) {
            VR v[VB ? ITEMS : 1];
            (void)v;
#pragma unroll
            for (int r = 0; r < ITEMS; ++r) {
                const unsigned i = tid + (unsigned)(r * SB);
                unsigned j, q;
                sl.at(i, r, j, q);
                if (q < slen[j]) {
                    W w = st.get(i);
                    const uint64_t src = sbeg[j] + pp_bn_word_place(w);
                    pp_bn_set_bits(w, gather_key ? (uint64_t)b.kin[src] : (uint64_t)seg_decode<K>(pp_bn_word_key(w), d));
                    st.put(i, w);
                    if constexpr (VB > 0) v[r] = b.vin[src];
                }
            }
            __syncthreads();
#pragma unroll
            for (int r = 0; r < ITEMS; ++r) {
                const unsigned i = tid + (unsigned)(r * SB);
                unsigned j, q;
                sl.at(i, r, j, q);
                if (q < slen[j]) {
                    b.kout[sbeg[j] + q] = (K)pp_bn_bits(st.get(i));
                    if constexpr (VB > 0) b.vout[sbeg[j] + q] = (V)v[r];
                }
            }
        });
    }
}

/* Block item `blk` of the packed classes, sorted by the calling block; segsort_packed below
 * runs one a block, segsort_packed_loop loops it over its items. */
template <typename K, int VB, int ITEMS, bool STABLE>
PP_DEVICE void segsort_packed_tile(const seg_desc &d, const seg_bufs<K, val_t<VB>> &b,
                                   const unsigned long long *__restrict__ counts,
                                   const unsigned long long *__restrict__ list, bool chunks, uint64_t blk)
{
    using V = val_t<VB>;
    using W = pp_bn_word<K, STABLE>;
    constexpr int TILE = SB * ITEMS, TILE_LOG = seg_log2(TILE);
    constexpr int GMAX = TILE >> SEGSORT_PACK_MIN_LOG;
    static_assert(TILE < (int)SEG_CHUNK_ALT && (STABLE || VB == 0), "places fit 16 bits, lengths below the flag");
    static_assert(TILE_LOG - SEGSORT_PACK_MIN_LOG + 2 <= SEG_MAX_CLASSES, "the counts fit scnt");
    __shared__ pp_bn_tile<W, TILE> st;
    __shared__ uint64_t sbeg[GMAX];
    __shared__ uint16_t slen[GMAX]; /* 0 past the block's segments */
    __shared__ unsigned long long scnt[SEG_MAX_CLASSES];
    __shared__ bool salt; /* the item's output: the scratch copy (seg_item_bufs) */

    const unsigned tid = threadIdx.x, np = d.pack_hi >= d.pack_lo ? (unsigned)(d.pack_hi - d.pack_lo + 1) : 0u;
    if (tid <= np) scnt[tid] = counts[tid];
    __syncthreads();
    const seg_pitem it = seg_pack_find(d, scnt, blk, TILE_LOG);
    if (!it.cl) return;
    const bool alt = seg_pack_table<K, V, STABLE, TILE>(d, b, list, chunks, it, sbeg, slen);
    if (tid == 0) salt = alt;
    __syncthreads();
    seg_pack_load<K, ITEMS, STABLE, false>(d, b.kin, st, sbeg, slen, it.cl);
    __syncthreads();
    /* the flip form only: the exchange form was measured in the pipelined kernel alone, and in
     * this one it spilled at the 40-register cap (4 bytes on sm_90, up to 20 on sm_80) */
    seg_pack_sort_store<K, VB, ITEMS, STABLE, false, PP_BN_FLIP_ONLY>(d, seg_item_bufs(b, salt), st, sbeg, slen, it.cl);
}

/* The packed classes' kernel, a block item a block: blocks past the items the counts (on the
 * device) ask for return at once. */
template <typename K, int VB, int ITEMS, bool STABLE>
__global__ __launch_bounds__(SB, SEGSORT_PACK_MIN_BLOCKS((int)sizeof(pp_bn_word<K, STABLE>))) void segsort_packed(
    seg_desc d, seg_bufs<K, val_t<VB>> b, const unsigned long long *__restrict__ counts,
    const unsigned long long *__restrict__ list, bool chunks)
{
    segsort_packed_tile<K, VB, ITEMS, STABLE>(d, b, counts, list, chunks, blockIdx.x);
}

/* The same, the blocks looping over the items the grid's stride apart: launched with at most
 * the blocks that fit on the device at once, so that a launch with nothing to do costs one
 * small grid, not a block per item the host's bound allows. Only for keys of up to 4 bytes
 * without values: with ptxas of CUDA 13 for sm_90 the loop took the pairs kernels of 16 items
 * from 80 to 128 registers with 28-60 bytes of spills, those of 8 items (8-byte keys or
 * values) from 42-64 to 74-80 registers, and the 8-byte integer keys from 43 to 64 (a block
 * less a multiprocessor each); those keep segsort_packed. The 4-byte keys: 45 -> 48 (integer),
 * 71 -> 75 (float), the same blocks a multiprocessor; merged with s5-segpack (integer keys
 * capped for 6 blocks, SEGSORT_PACK_MIN_BLOCKS) 40 registers, no spill. */
template <typename K, int VB> constexpr bool seg_packed_loops(int) { return VB == 0 && sizeof(K) <= 4; }

/* segsort_packed_tile, not inlined: the loop kernel's item where seg_packed_loops is false, for
 * the launches that are most often empty (the long class's chunks: a bound of about 2n / TILE +
 * the long segments' count, 65536 blocks for pairs of 4-byte keys and values at 2^26 keys,
 * 37 us a launch with nothing to do, ncu, thirteenth session). ptxas of CUDA 13, sm_90: the
 * loop kernel then takes 112 registers for those pairs (2 blocks an SM; segsort_packed 76, 3),
 * 94 for 8-byte values, 62-80 for 8-byte keys, spilling only in the callee, 4-8 bytes, where
 * values of 1 or 4 bytes go with 8-byte keys; inlined, it spilled more (above). */
template <typename K, int VB, int ITEMS, bool STABLE>
__device__ __noinline__ void segsort_packed_tile_call(const seg_desc &d, const seg_bufs<K, val_t<VB>> &b,
                                                      const unsigned long long *__restrict__ counts,
                                                      const unsigned long long *__restrict__ list, bool chunks, uint64_t blk)
{
    segsort_packed_tile<K, VB, ITEMS, STABLE>(d, b, counts, list, chunks, blk);
}

template <typename K, int VB, int ITEMS, bool STABLE>
__global__ __launch_bounds__(SB, SEGSORT_PACK_MIN_BLOCKS((int)sizeof(pp_bn_word<K, STABLE>))) void segsort_packed_loop(
    seg_desc d, seg_bufs<K, val_t<VB>> b, const unsigned long long *__restrict__ counts,
    const unsigned long long *__restrict__ list, bool chunks)
{
    constexpr int TILE = SB * ITEMS;
    uint64_t items = 0;
    for (int p = 1; p <= d.pack_hi - d.pack_lo + 1; ++p) {
        const uint64_t G = (uint64_t)(TILE >> (d.pack_lo + p - 1));
        items += (counts[p] + G - 1) / G;
    }
#pragma unroll 1
    for (uint64_t blk = blockIdx.x; blk < items; blk += gridDim.x) {
        if constexpr (seg_packed_loops<K, VB>(ITEMS)) segsort_packed_tile<K, VB, ITEMS, STABLE>(d, b, counts, list, chunks, blk);
        else segsort_packed_tile_call<K, VB, ITEMS, STABLE>(d, b, counts, list, chunks, blk);
        __syncthreads(); /* the item's shared memory is rewritten by the next */
    }
}

/* The loop kernel software-pipelined, for 4-byte integer keys sorted alone (the default there;
 * 1-byte keys keep the loop: never run through this one on a GPU; the stable words of 8 bytes
 * leave no room for a second table within 48 KB). An item after another, each item's waits
 * (list entry -> segment bounds -> keys -> network -> stores) were what the short classes
 * waited on: ncu at 16 keys, DRAM 47%, SM 51%. Here two segment tables (sbeg / slen), the
 * item's and the next one's: while item k's keys land, by asynchronous copies of 4 bytes into
 * the tile (pp_copy4_async: all 16 of a thread in flight, no register held), the thread has
 * item k+2's list entry in flight and builds item k+1's table (its list entries were read as
 * item k+2's a step before: cache hits). Item k+1's keys are brought into L2 ahead of their
 * copies (pp_prefetch_l2, a range a segment) where its class is at least d.pack_pf, and item
 * k+2's offsets (a line each) where d.pack_pf <= d.pack_lo (every class). Registers: 40 on
 * sm_90 (CUDA 13), no spill; carrying item k+1's descriptor or a list entry across the
 * network instead spilled 12-68 bytes under that cap. Shared memory 37.5 KB: 6 blocks an SM. */
/* The pipelined kernel's shared memory. */
template <typename K, int ITEMS> struct seg_pipe_smem {
    static constexpr int TILE = SB * ITEMS, GMAX = TILE >> SEGSORT_PACK_MIN_LOG;
    pp_bn_tile<pp_bn_word<K, false>, TILE> st;
    uint64_t sbeg[2][GMAX];
    uint16_t slen[2][GMAX];
    unsigned long long scnt[SEG_MAX_CLASSES], cend[SEG_MAX_CLASSES + 1], lst[SEG_MAX_CLASSES];
    int scl[2]; /* each table's class, | 256 where its output is the scratch copy */
};

/* segsort_packed_pipe's loop over the block's items blk, blk + the grid, .. below hi, sorted by
 * pp_bn_bitonic<XMIN>; leaves blk at the first item past hi. p1 / p2: seg_pack_at's cursors for
 * items k + 1 and k + 2 (they only move down). The block's barrier before it is the caller's;
 * it ends with one. */
template <typename K, int ITEMS, int XMIN>
PP_DEVICE void seg_pipe_items(const seg_desc &d, const seg_bufs<K, val_t<0>> &b, const unsigned long long *__restrict__ list,
                              bool chunks, seg_pipe_smem<K, ITEMS> &sm, uint64_t &blk, uint64_t hi, int &p1, int &p2)
{
    using V = val_t<0>;
    constexpr int TILE = SB * ITEMS, TILE_LOG = seg_log2(TILE);
    constexpr bool ASYNC = true;
    const unsigned tid = threadIdx.x;
    {
        const seg_pitem it = seg_pack_at(d, sm.scnt, sm.cend, sm.lst, blk, p1, TILE_LOG);
        const bool alt = seg_pack_table<K, V, false, TILE>(d, b, list, chunks, it, sm.sbeg[0], sm.slen[0]);
        if (tid == 0) sm.scl[0] = it.cl | (alt ? 256 : 0);
    }
    __syncthreads();
#pragma unroll 1
    for (unsigned buf = 0;; buf ^= 1u) {
        const int cl = sm.scl[buf] & 255;
        /* in flight while item k's keys load: this thread's list entry of item k+2 */
        unsigned long long e2 = 0;
        bool v2 = false;
        if (blk + 2 * gridDim.x < hi) {
            const seg_pitem nn = seg_pack_at(d, sm.scnt, sm.cend, sm.lst, blk + 2 * gridDim.x, p2, TILE_LOG);
            v2 = tid < nn.nseg;
            if (v2) e2 = list[nn.first + tid];
        }
        seg_pack_load<K, ITEMS, false, ASYNC>(d, b.kin, sm.st, sm.sbeg[buf], sm.slen[buf], cl);
        if (blk + gridDim.x < hi) {
            /* item k+1's table: its list entries were read as item k+2's (cache hits), its
             * bounds brought into L2 then where every class prefetches */
            const seg_pitem nx = seg_pack_at(d, sm.scnt, sm.cend, sm.lst, blk + gridDim.x, p1, TILE_LOG);
            const bool alt = seg_pack_table<K, V, false, TILE>(d, b, list, chunks, nx, sm.sbeg[buf ^ 1u],
                                                               sm.slen[buf ^ 1u], nx.cl >= d.pack_pf);
            if (tid == 0) sm.scl[buf ^ 1u] = nx.cl | (alt ? 256 : 0);
            if (d.pack_pf <= d.pack_lo && v2 && !chunks && d.offsets) {
                pp_prefetch_l2_line(d.offsets + e2);
                pp_prefetch_l2_line(d.offsets + e2 + 1);
            }
        }
        if constexpr (ASYNC) pp_copy_async_wait();
        __syncthreads();
        seg_pack_sort_store<K, 0, ITEMS, false, ASYNC, XMIN>(d, seg_item_bufs(b, sm.scl[buf] >= 256), sm.st,
                                                             sm.sbeg[buf], sm.slen[buf], cl);
        __syncthreads(); /* the tile and this item's table are rewritten by the next items */
        blk += gridDim.x;
        if (blk >= hi) break;
    }
}

/* The loop kernel software-pipelined, for 4-byte integer keys sorted alone (the default there;
 * 1-byte keys keep the loop: never run through this one on a GPU; the stable words of 8 bytes
 * leave no room for a second table within 48 KB). An item after another, each item's waits
 * (list entry -> segment bounds -> keys -> network -> stores) were what the short classes
 * waited on: ncu at 16 keys, DRAM 47%, SM 51%. Here two segment tables (sbeg / slen), the
 * item's and the next one's: while item k's keys land, by asynchronous copies of 4 bytes into
 * the tile (pp_copy4_async: all 16 of a thread in flight, no register held), the thread has
 * item k+2's list entry in flight and builds item k+1's table (its list entries were read as
 * item k+2's a step before: cache hits). Item k+1's keys are brought into L2 ahead of their
 * copies (pp_prefetch_l2, a range a segment) where its class is at least d.pack_pf, and item
 * k+2's offsets (a line each) where d.pack_pf <= d.pack_lo (every class). Registers: 40 on
 * sm_90 (CUDA 13), no spill; carrying item k+1's descriptor or a list entry across the
 * network instead spilled 12-68 bytes under that cap. Shared memory 37.5 KB: 6 blocks an SM.
 *
 * Two loops (seg_pipe_items): the items of the first loop's classes (seg_pipe_first: from XL
 * up; they come first, the longest class first) with that loop's network form alone, then the
 * others with the flip form alone. With both forms behind a class test in one loop the classes
 * below ran 1.5-2.6% slower than with the flip form alone (H100, sixteenth session, call 3); the
 * two loops took 64 .. 1024 keys 3.5-4.9% below the one loop, 2048 / 4096 1.5-1.8% (seventeenth
 * session, call 1). Likely cause, not profiled: in the flip form's own loop the network's result
 * (the thread's run, tid * ITEMS) is known to the compiler, so the stores after it take
 * constant offsets. With the merge form the two loops are two kernels (PART below): in one, the
 * merge loop's registers spilled the kernel at its cap of 40 and the flip classes ran 8-14%
 * slower (eighteenth session, call 1; tuning_segsort.h). */
/* The first loop's classes (from XL) and network form (F1: the merge form); none where XL is
 * past the tile. */
template <int TILE_LOG> struct seg_pipe_first {
    static constexpr int XL = SEGSORT_BN_MERGE_LOG;
    static constexpr int F1 = pp_bn_merge_form(SEGSORT_BN_MERGE_RUN_LOG);
    static constexpr bool ANY = XL <= TILE_LOG;
};

/* PART: 0 the first loop's items alone, 1 the others alone, 2 both (one kernel, where there is
 * no first loop). Where it exists, two launches (0 then 1), each kernel compiled alone with its
 * own registers and cap (SEGSORT_PACK_FIRST_MIN_BLOCKS for part 0). The cost: part 0's launch
 * where it has nothing to do, 0.4-2.6% at 16 .. 256 keys a segment (eighteenth session, call 4).
 * The two parts' items are disjoint, so part 1 is launched as a programmatic dependent of part 0
 * where it may be (seg_launch_packed_as): part 0's blocks let it start at once
 * (pp_grid_dep_launch), and part 1's wait for part 0 only as they exit (pp_grid_dep_wait), so
 * that its end still implies part 0's for the stream's next kernel. */
template <typename K, int ITEMS, int PART>
PP_DEVICE void seg_pipe_part(const seg_desc &d, const seg_bufs<K, val_t<0>> &b, const unsigned long long *__restrict__ counts,
                             const unsigned long long *__restrict__ list, bool chunks)
{
    constexpr int TILE_LOG = seg_log2(SB * ITEMS);
    using FL = seg_pipe_first<TILE_LOG>;
    static_assert(sizeof(K) == 4, "4-byte keys: copied 4 bytes at a time");
    __shared__ seg_pipe_smem<K, ITEMS> sm;
    const unsigned tid = threadIdx.x, np = d.pack_hi >= d.pack_lo ? (unsigned)(d.pack_hi - d.pack_lo + 1) : 0u;
    if constexpr (PART == 0) {
        /* blocks past the first loop's items return before any shared-memory work or barrier:
         * the launch is often empty (every class below XL) */
        uint64_t e = 0;
        for (int p = FL::XL - d.pack_lo + 1 > 1 ? FL::XL - d.pack_lo + 1 : 1; p <= (int)np; ++p) {
            const int sh = TILE_LOG - (d.pack_lo + p - 1);
            e += (counts[p] + (1ull << sh) - 1) >> sh;
        }
        if (blockIdx.x >= e) return;
    }
    if (tid <= np) sm.scnt[tid] = counts[tid];
    __syncthreads();
    seg_pack_ranges(d, sm.scnt, sm.cend, sm.lst, (int)np, TILE_LOG);
    __syncthreads();
    const uint64_t items = np ? sm.cend[1] : 0;
    uint64_t ex = 0;
    if constexpr (FL::ANY) {
        /* items [0, ex): classes XL .. pack_hi (cend[p]: the items of class p's and longer) */
        const int px = FL::XL - d.pack_lo + 1;
        ex = px > (int)np ? 0 : px < 1 ? items : sm.cend[px];
    }
    int p1 = (int)np, p2 = (int)np;
    uint64_t blk = blockIdx.x + (PART == 1 ? ex : 0);
    if constexpr (FL::ANY && PART != 1) {
        if (blk < ex) seg_pipe_items<K, ITEMS, FL::F1>(d, b, list, chunks, sm, blk, ex, p1, p2);
        if constexpr (PART == 0) return;
    }
    /* the count read again from shared memory: the form measured with the two loops in one
     * kernel (sixteenth, seventeenth sessions) */
    if (blk >= sm.cend[1]) return;
    seg_pipe_items<K, ITEMS, PP_BN_FLIP_ONLY>(d, b, list, chunks, sm, blk, sm.cend[1], p1, p2);
}
template <typename K, int ITEMS, int PART>
__global__ __launch_bounds__(SB, PART == 0 ? SEGSORT_PACK_FIRST_MIN_BLOCKS
                                           : SEGSORT_PACK_MIN_BLOCKS((int)sizeof(pp_bn_word<K, false>))) void segsort_packed_pipe(
    seg_desc d, seg_bufs<K, val_t<0>> b, const unsigned long long *__restrict__ counts,
    const unsigned long long *__restrict__ list, bool chunks)
{
    if constexpr (PART == 0) pp_grid_dep_launch();
    seg_pipe_part<K, ITEMS, PART>(d, b, counts, list, chunks);
    if constexpr (PART == 1) pp_grid_dep_wait();
}

/* ---- the long class: sorted chunks, then merge passes across blocks ---- */

/* Merge passes a segment of nch chunks needs: ceil(log2(nch)). */
__host__ __device__ inline int seg_passes(uint64_t nch)
{
    int p = 0;
    while (p < 63 && (1ull << p) < nch) ++p;
    return p;
}

constexpr int SEG_MAX_PASSES = 64; /* merge passes: at most log2(2^64 / TILE) */

/* A segment's chunks go to the list of the parity of its passes: parity 0 is sorted into the
 * output, parity 1 into the scratch copy, so that the last pass lands in the output. */
struct seg_long {
    unsigned long long *ccount[2]; /* per parity: {0, chunks}, the packed kernel's counts form;
                                    * ccount[0][2]: the most merge passes a segment needs */
    unsigned long long *chunk[2];  /* per parity: (segment begin, length, chunk start) triples */
    unsigned long long *call;      /* {0, chunks of both parities}: clist's counts form */
    unsigned long long *clist;     /* the packed kernel's chunk entries of both parities (begin <<
                                    * SEG_CHUNK_LEN_BITS | length, | SEG_CHUNK_ALT for parity 1):
                                    * one launch sorts them all */
    uint64_t cap[2];               /* entries each parity's list has room for (clist: both) */
    unsigned long long *next;      /* per merge pass (SEG_MAX_PASSES, zeroed): the next batch a
                                    * block takes */
    unsigned long long *barrier;   /* the merge kernel's grid barrier count (zeroed) */
};

/* n places from counter *c (a list's), or none (~0) where they would pass its room `cap` (only
 * overlapping segments can: their result is unspecified): the places are then given back. */
PP_DEVICE unsigned long long seg_take(unsigned long long *c, unsigned long long n, uint64_t cap)
{
    if (!n) return ~0ull;
    const unsigned long long at = atomicAdd(c, n);
    if (at + n <= cap) return at;
    atomicAdd(c, (unsigned long long)0 - n);
    return ~0ull;
}

/* Two words at p (16-byte aligned) in one store. */
PP_DEVICE void seg_store_pair(unsigned long long *p, unsigned long long x, unsigned long long y)
{
    ulonglong2 v;
    v.x = x;
    v.y = y;
    *reinterpret_cast<ulonglong2 *>(p) = v;
}

/* The last of a block's SB entries whose first piece (st: exclusive starts, non-decreasing) is at
 * or before piece e: the entry that piece e belongs to. */
PP_DEVICE unsigned seg_last_start(const uint64_t *st, uint64_t e)
{
    unsigned lo = 0, hi = SB;
    while (hi - lo > 1) {
        const unsigned mid = (lo + hi) / 2;
        if (st[mid] <= e) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* The long class's chunks: every segment of the class cut into chunks of 2^tile_log keys, each
 * chunk's triple appended to its parity's list and its entry (SEG_CHUNK_ALT for parity 1) to
 * clist. A block takes its segments' chunks of each parity with one atomic, and their places in
 * clist with one more, or none where they would pass the list's room (only segments that
 * overlap can need more than the host's bound: those are left as they are; the header leaves
 * their result unspecified). Run by segsort_thread's blocks, in a grid stride. */
PP_DEVICE void seg_long_plan(const seg_desc &d, const unsigned long long *__restrict__ counts,
                             const unsigned long long *__restrict__ list, const seg_long &lp, int tile_log)
{
    __shared__ uint64_t sbeg[SB], slen[SB], sst[2][SB];
    __shared__ unsigned long long sat[3];
    __shared__ unsigned smax;
    if (threadIdx.x == 0) smax = 0;
    __syncthreads();
    const int last = d.long_cls;
    const uint64_t nl = counts[last], l0 = seg_class_start(counts, last);
    const uint64_t stride = (uint64_t)gridDim.x * SB;
    const unsigned tid = threadIdx.x;
    for (uint64_t base = (uint64_t)blockIdx.x * SB; base < nl; base += stride) {
        uint64_t bb = 0, m = 0;
        if (base + tid < nl) m = seg_bounds(d, list[l0 + base + tid], bb);
        const uint64_t nch = (m + (1ull << tile_log) - 1) >> tile_log;
        const int P = seg_passes(nch), par = P & 1;
        if (P) atomicMax(&smax, (unsigned)P);
        unsigned long long tot0, tot1;
        const unsigned long long st0 =
            pp_block_scan<pp_op_sum<unsigned long long>, SB, false>((unsigned long long)(par ? 0 : nch), &tot0);
        __syncthreads();
        const unsigned long long st1 =
            pp_block_scan<pp_op_sum<unsigned long long>, SB, false>((unsigned long long)(par ? nch : 0), &tot1);
        sbeg[tid] = bb;
        slen[tid] = m;
        sst[0][tid] = st0;
        sst[1][tid] = st1;
        /* the lists' counts: word 1 */
        if (tid == 0) sat[0] = seg_take(lp.ccount[0] + 1, tot0, lp.cap[0]);
        else if (tid == 1) sat[1] = seg_take(lp.ccount[1] + 1, tot1, lp.cap[1]);
        else if (tid == 2) sat[2] = seg_take(lp.call + 1, tot0 + tot1, lp.cap[0] + lp.cap[1]);
        __syncthreads();
#pragma unroll
        for (int q = 0; q < 2; ++q) {
            const unsigned long long tq = q ? tot1 : tot0;
            if (sat[q] == ~0ull) continue;
            for (uint64_t e = tid; e < tq; e += SB) {
                const unsigned lo = seg_last_start(sst[q], e); /* the segment of chunk e */
                const uint64_t k = sat[q] + e, pos = (e - sst[q][lo]) << tile_log, left = slen[lo] - pos;
                lp.chunk[q][3 * k] = sbeg[lo];
                lp.chunk[q][3 * k + 1] = slen[lo];
                lp.chunk[q][3 * k + 2] = pos;
                if (sat[2] != ~0ull)
                    lp.clist[sat[2] + (q ? tot0 : 0) + e] = (sbeg[lo] + pos) << SEG_CHUNK_LEN_BITS |
                                                            (q ? SEG_CHUNK_ALT : 0ull) |
                                                            (left >> tile_log ? 1ull << tile_log : left);
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0 && smax) atomicMax(&lp.ccount[0][2], (unsigned long long)smax);
}

/* ---- the thread class: segments of SEGSORT_THREAD_MAX (one) key, copied by a thread each, in a
 * grid stride (a block an SB segments of the host's bound was 16384 blocks at 2^22 segments,
 * nearly all returning at once); then, where `plan`, the long class's chunks (seg_long_plan) by
 * the same blocks: one launch, where each was a launch of its own that most calls leave empty
 * (about 3 us each on the H100) ---- */

template <typename K, int VB>
__global__ __launch_bounds__(SB) void segsort_thread(seg_desc d, seg_bufs<K, val_t<VB>> b,
                                                     const unsigned long long *__restrict__ counts,
                                                     const unsigned long long *__restrict__ list, seg_long lp,
                                                     int tile_log, bool plan)
{
    static_assert(SEGSORT_THREAD_MAX == 1, "the thread class copies one-key segments");
    const uint64_t cnt = counts[0], stride = (uint64_t)gridDim.x * SB;
    for (uint64_t i = (uint64_t)blockIdx.x * SB + threadIdx.x; i < cnt; i += stride) {
        uint64_t base;
        seg_bounds(d, list[i], base);
        b.kout[base] = b.kin[base];
        if constexpr (VB > 0) b.vout[base] = b.vin[base];
    }
    if (plan) seg_long_plan(d, counts, list, lp, tile_log);
}

/* The shared-memory place of a tile's e-th key: one pad word every 32 keys, so that threads
 * writing ITEMS consecutive keys each (and reading a merge's scattered positions) spread over
 * the banks. */
PP_DEVICE unsigned seg_pad(unsigned e) { return e + (e >> 5); }

/* The merge path's split on diagonal `diag` of runs A[0, na) and B[0, nb) (global memory): how
 * many of the first diag keys of the stable merge come from A (ties take A first). The whole
 * wave searches: each round every lane tests one of PP_WAVE evenly spaced candidates, so a
 * run of 2^k keys takes about k / log2(PP_WAVE) rounds of loads, not k. Every lane returns
 * the split. */
template <typename K>
PP_DEVICE uint64_t seg_wave_path(const K *A, uint64_t na, const K *B, uint64_t nb, uint64_t diag, const seg_desc &d)
{
    /* the smallest i in [lo, hi) with B[diag - 1 - i] < A[i], else hi */
    uint64_t lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
    const unsigned lane = pp_lane_id();
    while (lo < hi) {
        const uint64_t step = (hi - lo + PP_WAVE - 1) / PP_WAVE;
        const uint64_t i = lo + lane * step;
        const bool t = i >= hi || seg_enc(B[diag - 1 - i], d) < seg_enc(A[i], d);
        const pp_lanemask_t m = pp_ballot(t);
        if (!m) { /* every candidate tested false: past the last one */
            lo += (uint64_t)(PP_WAVE - 1) * step + 1;
            continue;
        }
        const unsigned f = (unsigned)__popcll(~m & (m - 1)); /* the first lane that tested true */
        if (f == 0) break;
        const uint64_t nhi = lo + f * step;
        lo += (uint64_t)(f - 1) * step + 1;
        hi = nhi < hi ? nhi : hi;
    }
    return lo;
}

/* Where output tile `pos` (a multiple of the tile) of a segment of m keys reads in merge pass
 * `pass`: its pair of runs [p0, p0 + na_all) and [p0 + na_all, p0 + na_all + nb_all) (segment
 * places), its diagonals [d0, d1) in the pair, and whether the pass reads the output (else the
 * scratch copy). */
struct seg_merge_geo {
    uint64_t p0, na_all, nb_all, d0, d1;
    bool from_out;
};

PP_DEVICE seg_merge_geo seg_merge_geo_of(uint64_t m, uint64_t pos, int pass, int tile)
{
    seg_merge_geo g;
    const uint64_t W = (uint64_t)tile << pass;
    g.p0 = pos & ~(2 * W - 1); /* W is a power of two */
    g.na_all = m - g.p0 < W ? m - g.p0 : W;
    g.nb_all = (m - g.p0 < 2 * W ? m - g.p0 : 2 * W) - g.na_all;
    g.d0 = pos - g.p0;
    g.d1 = (m - pos < (uint64_t)tile ? m : pos + tile) - g.p0;
    g.from_out = ((seg_passes((m + tile - 1) / tile) - pass) & 1) == 0;
    return g;
}

/* Merge passes [first, last), stopping at the most any segment needs (ccount[0][2]), a grid
 * barrier between two (a range of more than one pass needs a cooperative launch). Pass `pass`:
 * every segment of the long class that needs more than `pass` passes has
 * its sorted runs of TILE << pass keys merged in pairs, a tile of the output at a time. The
 * blocks take batches of BATCH entries of the parity-0 list, then of the parity-1 list (as many
 * as the plan counted), one at a time from a counter of the pass; each entry is one output
 * tile. A batch's block finds its tiles' splits on their two runs in global memory (a wave a
 * search, all at once), then for each tile stages the two input ranges in shared memory, splits the tile among its threads by a merge path there, merges ITEMS keys
 * per thread (noting each output's staged place), and stores the tile in order from there. The
 * source and destination alternate between the output and the scratch copy by the passes the
 * segment has left, so that its last pass writes the output. ENC (integer keys, whose encoding
 * is an xor and fits the key's bits): the keys are staged encoded, compared as they are and
 * decoded when stored, not encoded at every comparison of the merge. */
template <typename K, int VB, int ITEMS, bool ENC>
__global__ __launch_bounds__(SB, SEGSORT_MERGE_MIN_BLOCKS((int)sizeof(K), VB)) void segsort_merge(seg_desc d, seg_bufs<K, val_t<VB>> b,
                                                                              seg_long lp, int first, int last)
{
    using V = val_t<VB>;
    using E = decltype(seg_enc(K(0), d));
    constexpr int TILE = SB * ITEMS, BATCH = SEGSORT_MERGE_BATCH, PADDED = TILE + TILE / 32;
    /* a staged key's order: as staged (ENC), else encoded */
    const auto key = [&d](K v) -> E {
        if constexpr (ENC) return (E)v;
        else return seg_enc(v, d);
    };
    static_assert(BATCH <= SB && 2 * PP_WAVE_MAX <= SB && TILE <= 65536,
                  "a thread per batch entry; two waves search; 16-bit staged places");
    __shared__ K sk[PADDED];
    __shared__ V sv[VB ? PADDED : 1];
    __shared__ uint16_t sidx[PADDED]; /* the staged place of each output */
    __shared__ unsigned long long job[BATCH][3];
    __shared__ unsigned njob;
    __shared__ unsigned long long sbatch;
    __shared__ uint64_t cut[BATCH][2]; /* each job's splits on its first and last diagonals */
    __shared__ struct {
        const K *pa, *pb; /* the tile's keys from run A, from run B */
        K *pd;            /* where the tile's first key goes */
        const V *qa, *qb;
        V *qd;
        unsigned na, tc; /* keys from A; keys in the tile */
    } tls[BATCH];
    const unsigned tid = threadIdx.x;
    const unsigned long long *cc0 = lp.ccount[0], *cc1 = lp.ccount[1];
    /* the pass, the passes to run (none past every segment's need) and the lists' batches, kept
     * in shared memory across the passes' loop and read after each block barrier (held in
     * registers, they spilled the u64 pairs' kernels at their 64) */
    __shared__ int s_pass, s_need;
    __shared__ uint64_t s_nb0, s_nbt;
    if (tid == 0) {
        s_pass = first;
        s_need = (uint64_t)last < cc0[2] ? last : (int)cc0[2];
        s_nb0 = (cc0[1] + BATCH - 1) / BATCH;
        s_nbt = s_nb0 + (cc1[1] + BATCH - 1) / BATCH;
    }
    __syncthreads();
    if (s_pass >= s_need) return;
    for (;;) {
        /* the next batch, taken by the block that is free first (the grid fits on the device at
         * once: a block's batches are not fixed in advance, so that none ends far after the
         * others) */
        if (tid == 0) {
            sbatch = atomicAdd(&lp.next[s_pass], 1ull);
            njob = 0;
        }
        __syncthreads();
        const uint64_t batch = sbatch;
        const uint64_t nb0 = s_nb0;
        if (batch >= s_nbt) { /* the pass's batches are all taken: on to the next pass, if any */
            if (s_pass + 1 >= s_need) break;
            pp_grid_barrier(lp.barrier, (unsigned long long)(s_pass + 1 - first)); /* the pass written */
            if (tid == 0) ++s_pass;
            __syncthreads();
            continue;
        }
        const int q = batch < nb0 ? 0 : 1;
        const uint64_t t0 = (batch - (q ? nb0 : 0)) * BATCH;
        if (tid < (unsigned)BATCH) {
            const uint64_t cnt = (q ? cc1 : cc0)[1], t = t0 + tid;
            if (t < cnt) {
                const unsigned long long *c = (q ? lp.chunk[1] : lp.chunk[0]) + 3 * t;
                const uint64_t m = c[1];
                if (s_pass < seg_passes((m + TILE - 1) / TILE)) {
                    const unsigned at = atomicAdd(&njob, 1u);
                    job[at][0] = c[0];
                    job[at][1] = m;
                    job[at][2] = c[2];
                }
            }
        }
        __syncthreads();
        const unsigned nj = njob;
        /* the splits of every job's first and last diagonals, a search a wave, all at once (a
         * search is a few dependent loads from global memory: done one after another for each
         * tile they were the most of a tile's latency) */
        {
            const unsigned w = pp_wave_id();
            for (unsigned k = w; k < 2 * nj; k += (unsigned)(SB / PP_WAVE)) {
                const unsigned j = k >> 1, side = k & 1u;
                const seg_merge_geo g = seg_merge_geo_of(job[j][1], job[j][2], s_pass, TILE);
                const K *A = (g.from_out ? b.kout : b.ktmp) + job[j][0] + g.p0;
                const uint64_t c = seg_wave_path(A, g.na_all, A + g.na_all, g.nb_all, side ? g.d1 : g.d0, d);
                if (pp_lane_id() == 0) cut[j][side] = c;
            }
        }
        __syncthreads();
        if (tid < nj) { /* each job's ranges, for every thread */
            const unsigned j = tid;
            auto &tl = tls[j];
            const uint64_t sb = job[j][0], pos = job[j][2];
            const seg_merge_geo g = seg_merge_geo_of(job[j][1], pos, s_pass, TILE);
            /* the tile's keys from A: the splits' difference, kept within what both runs hold
             * (a no-op for sorted runs; segments that overlap, whose result is unspecified, may
             * leave the runs unsorted, and must still read nothing outside their segment) */
            const unsigned tc = (unsigned)(g.d1 - g.d0);
            const int64_t left_a = (int64_t)(g.na_all - cut[j][0]), left_b = (int64_t)(g.nb_all - (g.d0 - cut[j][0]));
            int64_t take = (int64_t)cut[j][1] - (int64_t)cut[j][0];
            take = take < (int64_t)tc - left_b ? (int64_t)tc - left_b : take;
            take = take > left_a ? left_a : take;
            take = take < 0 ? 0 : take > (int64_t)tc ? (int64_t)tc : take;
            const uint64_t ga = sb + g.p0 + cut[j][0], gb = sb + g.p0 + g.na_all + (g.d0 - cut[j][0]);
            const K *ks = g.from_out ? b.kout : b.ktmp;
            const V *vs = g.from_out ? b.vout : b.vtmp;
            tl.pa = ks + ga;
            tl.pb = ks + gb;
            tl.pd = (g.from_out ? b.ktmp : b.kout) + sb + pos;
            if constexpr (VB > 0) {
                tl.qa = vs + ga;
                tl.qb = vs + gb;
                tl.qd = (g.from_out ? b.vtmp : b.vout) + sb + pos;
            }
            tl.na = (unsigned)take;
            tl.tc = tc;
        }
        __syncthreads();
        for (unsigned j = 0; j < nj; ++j) {
            const auto &tl = tls[j];
            const unsigned tc = tl.tc, na = tl.na, nb = tc - na;
            /* staged in groups of STAGE loads in flight a thread (keys, then values; the groups
             * not unrolled), so that the registers of the loads stay few */
            {
                constexpr int STAGE = ITEMS < SEGSORT_MERGE_STAGE ? ITEMS : SEGSORT_MERGE_STAGE;
                const K *pa = tl.pa, *pb = tl.pb;
#pragma unroll 1
                for (int h = 0; h < ITEMS; h += STAGE) {
                    K k[STAGE];
#pragma unroll
                    for (int i = 0; i < STAGE; ++i) {
                        const unsigned e = (unsigned)((h + i) * SB) + tid;
                        if (e < tc) k[i] = e < na ? pa[e] : pb[e - na];
                    }
#pragma unroll
                    for (int i = 0; i < STAGE; ++i) {
                        const unsigned e = (unsigned)((h + i) * SB) + tid;
                        if (e < tc) sk[seg_pad(e)] = ENC ? (K)seg_enc(k[i], d) : k[i];
                    }
                }
                if constexpr (VB > 0) {
                    const V *qa = tl.qa, *qb = tl.qb;
#pragma unroll 1
                    for (int h = 0; h < ITEMS; h += STAGE) {
                        V v[STAGE];
#pragma unroll
                        for (int i = 0; i < STAGE; ++i) {
                            const unsigned e = (unsigned)((h + i) * SB) + tid;
                            if (e < tc) v[i] = e < na ? qa[e] : qb[e - na];
                        }
#pragma unroll
                        for (int i = 0; i < STAGE; ++i) {
                            const unsigned e = (unsigned)((h + i) * SB) + tid;
                            if (e < tc) sv[seg_pad(e)] = v[i];
                        }
                    }
                }
            }
            __syncthreads();
            /* this thread's ITEMS outputs from diagonal tid * ITEMS of the staged runs [0, na) and
             * [na, tc): the staged place of each, in output order */
            const unsigned diag = tid * ITEMS;
            if (diag < tc) {
                unsigned lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
                while (lo < hi) {
                    const unsigned mid = (lo + hi) / 2;
                    if (key(sk[seg_pad(na + diag - 1 - mid)]) < key(sk[seg_pad(mid)])) hi = mid;
                    else lo = mid + 1;
                }
                unsigned ia = lo, ib = na + diag - lo;
                E ea = key(ia < na ? sk[seg_pad(ia)] : K(0)), eb = key(ib < tc ? sk[seg_pad(ib)] : K(0));
#pragma unroll 4
                for (int i = 0; i < ITEMS; ++i) {
                    const bool take_b = ib < tc && (ia >= na || eb < ea);
                    if (diag + (unsigned)i < tc) sidx[seg_pad(diag + (unsigned)i)] = (uint16_t)(take_b ? ib : ia);
                    if (take_b) {
                        ++ib;
                        eb = key(ib < tc ? sk[seg_pad(ib)] : K(0));
                    } else {
                        ++ia;
                        ea = key(ia < na ? sk[seg_pad(ia)] : K(0));
                    }
                }
            }
            __syncthreads();
            /* stores need no loads in flight: a short unroll keeps the registers few */
#pragma unroll 4
            for (int i = 0; i < ITEMS; ++i) {
                const unsigned e = (unsigned)(i * SB) + tid;
                if (e < tc) {
                    const unsigned from = seg_pad(sidx[seg_pad(e)]);
                    tl.pd[e] = ENC ? seg_decode<K>((E)sk[from], d) : sk[from];
                    if constexpr (VB > 0) tl.qd[e] = sv[from];
                }
            }
            __syncthreads();
        }
        __syncthreads(); /* sbatch, njob, job, cut and tls are rewritten by the next batch */
    }
}

/* ---- the long class by radix levels (MSD) ----
 *
 * Level v (0, 1, ..: the key's digits of 8 bits from the top, as many levels as the key has
 * digits) takes a list of items (a segment of more than msd_min keys, or a bucket of an earlier
 * level of more than the tile) and moves each item's keys (and values) into the item's buckets
 * by digit v, stably, in four phases:
 *   plan     the items' tiles (tile-sized pieces, the last partial) listed in item order, the
 *            items' digit counts zeroed;
 *   hist     each item's 256 digit counts (a block a run of consecutive tiles, counted in shared
 *            memory, added to the item's counts when the item changes), the tiles' look-back
 *            words zeroed;
 *   scatter  each tile ranked by its digit (radix_rank.h), its counts published and looked back
 *            along its item's tiles only (lookback.h's counters, the item's first tile a chain
 *            head), and scattered to the item's begin + the digit's start in the item + the
 *            tiles before + the rank; a tile that starts an item also finds the item's groups
 *            of buckets, counts them by packed class and marks them in its digit counts;
 *   emit     each bucket: longer than the tile -> an item of level v + 1; the others in groups
 *            of consecutive buckets (seg_msd_group, as the scatter's head tile marked them in
 *            the item's digit counts; each bucket alone without it): 2 .. tile
 *            keys -> an entry (begin << SEG_CHUNK_LEN_BITS | length) of level v's packed list,
 *            by class; one key -> copied to the output if it lies in the scratch copy.
 * Level v writes into the output where (levels - 1 - v) is even, else into the scratch copy, so
 * that the last level (whose buckets hold equal digits all through: sorted, and stable) writes
 * the output. A bucket never moves again once it is emitted (later levels write only inside
 * longer buckets), so the packed kernel sorts each level's buckets after every level has run:
 * a launch a level but the last, from where the level wrote them. Every level's phases run in
 * one cooperative launch (seg_msd_levels), a grid barrier between two, stopping at the first
 * level without items: a call without long segments pays one launch and one barrier for the
 * levels (a launch a phase, 18 for 4-byte keys, cost every bench row about 90 us on the H100:
 * 2026-11-27, s12-msd 100bc02, 16 keys a segment 412 -> 500 us). Where the cooperative launch
 * fails, a launch a phase and level (seg_msd_phase). */
constexpr int SEG_MSD_MAX_LEVELS = 8; /* 8-byte keys */
/* The levels are built for NVIDIA only: on AMD (compiled, never run) the scatter spilled 4-13
 * SGPRs on gfx90a / gfx940 with 16 items (a look-back window of 1 left 4-7), and every phase in
 * one cooperative kernel 40-48 SGPRs and gfx1030's VGPRs; AMD sorts every long segment by
 * chunks and merge passes, as before the levels. */
#if defined(PP_PORT_AMD)
constexpr bool SEG_MSD_ON = false;
#else
constexpr bool SEG_MSD_ON = true;
#endif

struct seg_msd {
    unsigned long long *items[2]; /* per level parity: (begin, length) pairs */
    unsigned long long *tiles;    /* per tile of the level: (item, first key in the item) */
    unsigned long long *hist;     /* per item of the level: PP_RADIX digit counts */
    unsigned long long *states;   /* per tile of the level: PP_RADIX look-back words */
    unsigned long long *list;     /* the levels' packed entries by class, cap_list a level */
    unsigned long long *direct;   /* level 0's segments of at most msd_min keys (a forced packed
                                   * bound below it): chunk entries of the tile's class */
    unsigned long long *ctl;      /* zeroed: SEG_MSD_CTL words a level, then the direct list's
                                   * counts ({0, entries}, the packed kernel's counts form), then
                                   * the grid barrier's count */
    uint64_t cap_items, cap_tiles, cap_list, cap_direct;
};
/* A level's control words: items, tiles, the tile ticket, then the class counts and cursors of
 * the level's packed list (SEG_MAX_CLASSES each). */
constexpr int SEG_MSD_CTL = 4 + 2 * SEG_MAX_CLASSES;
constexpr int SEG_MSD_CTL_WORDS = (SEG_MSD_MAX_LEVELS + 1) * SEG_MSD_CTL + 3;
PP_DEVICE unsigned long long *seg_msd_nitems(const seg_msd &m, int v) { return m.ctl + v * SEG_MSD_CTL; }
PP_DEVICE unsigned long long *seg_msd_ntiles(const seg_msd &m, int v) { return m.ctl + v * SEG_MSD_CTL + 1; }
PP_DEVICE unsigned long long *seg_msd_ticket(const seg_msd &m, int v) { return m.ctl + v * SEG_MSD_CTL + 2; }
__host__ __device__ inline unsigned long long *seg_msd_counts(const seg_msd &m, int v) { return m.ctl + v * SEG_MSD_CTL + 4; }
PP_DEVICE unsigned long long *seg_msd_cursor(const seg_msd &m, int v) { return seg_msd_counts(m, v) + SEG_MAX_CLASSES; }
__host__ __device__ inline unsigned long long *seg_msd_direct_counts(const seg_msd &m)
{
    return m.ctl + (SEG_MSD_MAX_LEVELS + 1) * SEG_MSD_CTL;
}
PP_DEVICE unsigned long long *seg_msd_barrier(const seg_msd &m) { return seg_msd_direct_counts(m) + 2; }

/* Everything the levels' phases read: the classes' counts and list (level 0's items), the
 * buckets' classes (dm: every packed class up to the tile), the buffers. Level v reads src(v)
 * and writes dst(v). No pointer is __restrict__: in one launch a level reads what the level
 * before wrote. */
template <typename K, typename V> struct seg_msd_args {
    seg_desc d, dm;
    const unsigned long long *counts, *list;
    seg_msd m;
    const K *src0;
    const V *vsrc0;
    K *out, *tmp;
    V *vout, *vtmp;
    int levels, tile_log;
    uint64_t msd_min;
    pp_lb_sleeps sl;
    bool group;                                  /* buckets in groups (seg_msd_group) */
    uint64_t group_min;                          /* in items of at least this many keys */
    unsigned short cost[SEGSORT_COST_CLASSES]; /* the tuning row's slot_cost */
    PP_DEVICE bool grouped(uint64_t item_len) const { return group && item_len >= group_min; }
    PP_DEVICE bool to_out(int v) const { return ((levels - 1 - v) & 1) == 0; }
    PP_DEVICE K *dst(int v) const { return to_out(v) ? out : tmp; }
    PP_DEVICE V *vdst(int v) const { return to_out(v) ? vout : vtmp; }
    PP_DEVICE const K *src(int v) const { return v ? dst(v - 1) : src0; }
    PP_DEVICE const V *vsrc(int v) const { return v ? vdst(v - 1) : vsrc0; }
    PP_DEVICE int shift(int v) const { return d.key_bits - PP_RADIX_BITS * (v + 1); }
};

/* ---- a level's buckets in groups ----
 * A level's buckets of at most a tile are sorted by the packed classes. Each alone, a bucket of
 * 1025 keys takes the 2048-slot class: random keys in one segment of 2^26 leave buckets of 1024
 * +- 32 keys after two levels, and a segment of 16384 keys buckets of 64 +- 8 after one, ~65%
 * of the slots used. The buckets of an item are consecutive in its keys, in digit order, and
 * every key of one sorts before every key of the next: consecutive buckets sorted as one piece
 * are the same bits as each sorted alone (stable too: a slot's place is its place in the piece,
 * and the buckets' keys keep the level's order). So an item's buckets go in groups, chosen
 * greedily from each bucket (the next joins while the group's class costs no more than the two
 * apart, by the tuning row's slot costs, and the group fits the tile), the groups from bucket 0
 * on found by pointer jumping (8 steps: 256 buckets). A model over the classes' measured costs
 * (normal bucket sizes): one segment's buckets' sort -11%, 16384 keys' -11% (bench/NOTES.md,
 * fifteenth session). */
/* m.hist's words: a level's digit count (below 2^50: n is), and (from the scatter's head tile of
 * an item whose buckets go in groups) bits SEG_GROUP_SHIFT up: 1 + the length of the group that
 * starts at the bucket (TILE + 1: longer than the tile), 0 where none starts. */
constexpr int SEG_GROUP_SHIFT = 50;
constexpr unsigned long long SEG_COUNT_MASK = (1ull << SEG_GROUP_SHIFT) - 1ull;

struct seg_msd_group_smem {
    unsigned cnt[PP_RADIX];               /* each bucket's length (TILE + 1: longer) */
    unsigned cost[SEGSORT_COST_CLASSES];  /* the tuning row's slot costs */
    unsigned short nxt[PP_RADIX + 1];     /* the bucket after the group that starts here */
    unsigned char reach[PP_RADIX + 1];    /* a group starts here */
};

/* A group of L keys' cost: its class's slots (2^c, c = log2 of seg_packed_class's class) times
 * a slot's cost (nothing for one key or none). */
PP_DEVICE unsigned seg_msd_group_cost(const seg_msd_group_smem &g, int pack_lo, unsigned L)
{
    if (L <= 1) return 0;
    const int c = seg_packed_class(L, pack_lo) - 1 + pack_lo;
    return g.cost[c] << c;
}

/* seg_msd_group's work, not inlined: inlined into the levels' one kernel, its loops cost 24-28
 * bytes of spills under the cap of 80 registers (sm_90, 4-byte and 1-byte keys alone). */
template <int TILE>
__device__ __noinline__ bool seg_msd_group_find(unsigned long long c, int pack_lo, unsigned long long &len,
                                                seg_msd_group_smem &g)
{
    const unsigned tid = threadIdx.x;
    if (tid < (unsigned)PP_RADIX) g.cnt[tid] = c > (unsigned long long)TILE ? (unsigned)TILE + 1u : (unsigned)c;
    __syncthreads();
    if (tid < (unsigned)PP_RADIX) {
        unsigned nx = tid + 1u;
        if (c <= (unsigned long long)TILE) {
            unsigned L = (unsigned)c, cl = seg_msd_group_cost(g, pack_lo, L);
            for (; nx < (unsigned)PP_RADIX; ++nx) {
                const unsigned x = g.cnt[nx];
                if (x == 0) continue;
                if (x > (unsigned)TILE || L + x > (unsigned)TILE) break;
                const unsigned cj = seg_msd_group_cost(g, pack_lo, L + x);
                if (cj > cl + seg_msd_group_cost(g, pack_lo, x)) break;
                L += x;
                cl = cj;
            }
            len = L;
        }
        g.nxt[tid] = (unsigned short)nx;
        g.reach[tid] = tid == 0;
    }
    if (tid == 0) {
        g.nxt[PP_RADIX] = (unsigned short)PP_RADIX;
        g.reach[PP_RADIX] = 0;
    }
    /* reach: the groups from bucket 0 on; after step k every start within 2^(k+1) - 1 groups */
    for (int k = 0; k < PP_RADIX_BITS; ++k) {
        __syncthreads();
        unsigned r = 0, nx = 0, nn = 0;
        if (tid < (unsigned)PP_RADIX) {
            r = g.reach[tid];
            nx = g.nxt[tid];
            nn = g.nxt[nx];
        }
        __syncthreads();
        if (tid < (unsigned)PP_RADIX) {
            if (r) g.reach[nx] = 1;
            g.nxt[tid] = (unsigned short)nn;
        }
    }
    __syncthreads();
    return tid < (unsigned)PP_RADIX && g.reach[tid];
}

/* The groups of an item's buckets, every thread of the block calling (thread d < PP_RADIX with
 * its bucket's length c): returns whether bucket d starts a group and (len) the group's keys
 * (a bucket longer than the tile is a group of its own). Without `on` (seg_msd_args::grouped)
 * every bucket is one; 1-byte keys have one level, which emits nothing (compiled out: sm_80's
 * levels kernel of u8 keys spilled 20 bytes with it, 4 without). */
template <int TILE, typename K, typename A>
PP_DEVICE bool seg_msd_group(const A &a, bool on, unsigned long long c, unsigned long long &len, seg_msd_group_smem &g)
{
    len = c;
    if constexpr (sizeof(K) == 1) {
        return threadIdx.x < (unsigned)PP_RADIX;
    } else {
        if (!on) return threadIdx.x < (unsigned)PP_RADIX;
#pragma unroll
        for (int q = 0; q < SEGSORT_COST_CLASSES; ++q)
            if (threadIdx.x == (unsigned)q) g.cost[q] = a.cost[q];
        return seg_msd_group_find<TILE>(c, a.dm.pack_lo, len, g);
    }
}

/* The phases' shared memory, one at a time. */
template <typename K, typename V, int VB, int TILE> union seg_msd_smem {
    struct {
        uint64_t sst[SB], sid[SB];
        unsigned long long sat[3];
    } plan;
    unsigned hist[PP_RADIX];
    struct {
        pp_radix_rank_smem<SB> rs;
        K keys[TILE];
        V vals[VB ? TILE : 1];
        uint32_t dlo[PP_RADIX], dhi[PP_RADIX]; /* each digit's offset, at pp_radix_slot */
        unsigned tile;
        unsigned cls[SEG_MAX_CLASSES];
        seg_msd_group_smem grp;
    } sc;
    struct {
        unsigned cnt[SEG_MAX_CLASSES];
        unsigned long long at[SEG_MAX_CLASSES];
        unsigned nnext;
        unsigned long long atn;
    } emit;
};

/* A count of the level's work, bounded by its room (a count may pass the room only for
 * overlapping segments, whose extra work is dropped). */
PP_DEVICE uint64_t seg_msd_bounded(const unsigned long long *c, uint64_t cap)
{
    const uint64_t x = pp_lb_ld(c);
    return x < cap ? x : cap;
}

/* Plan: items of level v -> tiles. At level 0 the items are the long class's segments of more
 * than msd_min keys, their bounds written to the item list (the shorter ones, long only under a
 * forced packed bound, go to the direct list: one chunk each, sorted by the packed kernel at the
 * tile's class). A block takes its items' tiles (and at level 0 its items' and direct entries'
 * places) with one atomic each, or none where they would pass the room (only overlapping
 * segments can: their result is unspecified, and nothing outside them is read or written). */
template <typename A, typename S> PP_DEVICE void seg_msd_plan(const A &a, int v, S &sm)
{
    const seg_msd &m = a.m;
    const unsigned tid = threadIdx.x;
    const uint64_t TL = 1ull << a.tile_log;
    unsigned long long *items = m.items[v & 1];
    uint64_t nin;
    const unsigned long long *l0 = nullptr;
    if (v == 0) {
        const int last = a.d.huge_cls;
        nin = a.counts[last];
        l0 = a.list + seg_class_start(a.counts, last);
    } else {
        nin = seg_msd_bounded(seg_msd_nitems(m, v), m.cap_items);
    }
    const uint64_t stride = (uint64_t)gridDim.x * SB;
    for (uint64_t base = (uint64_t)blockIdx.x * SB; base < nin; base += stride) {
        const uint64_t i = base + tid;
        uint64_t b = 0, len = 0, item = i;
        bool big = i < nin;
        if (v == 0) {
            if (i < nin) len = seg_bounds(a.d, l0[i], b);
            big = len > a.msd_min;
            const bool small = len > 0 && !big;
            unsigned long long totb, tots;
            const unsigned long long rb = pp_block_scan<pp_op_sum<unsigned long long>, SB, false>(big ? 1ull : 0ull, &totb);
            __syncthreads();
            const unsigned long long rs = pp_block_scan<pp_op_sum<unsigned long long>, SB, false>(small ? 1ull : 0ull, &tots);
            /* (seg_take here, inlined into the levels' kernel, spilled 24-28 bytes in two of
             * its sm_80 instantiations: the two takes stay written out) */
            if (tid < 2) {
                const unsigned long long tq = tid ? tots : totb, cap = tid ? m.cap_direct : m.cap_items;
                unsigned long long *c = tid ? seg_msd_direct_counts(m) + 1 : seg_msd_nitems(m, 0);
                unsigned long long at = ~0ull;
                if (tq) {
                    at = atomicAdd(c, tq);
                    if (at + tq > cap) { /* no room: give the places back, take none */
                        atomicAdd(c, (unsigned long long)0 - tq);
                        at = ~0ull;
                    }
                }
                sm.sat[tid] = at;
            }
            __syncthreads();
            if (small && sm.sat[1] != ~0ull) m.direct[sm.sat[1] + rs] = b << SEG_CHUNK_LEN_BITS | len;
            big = big && sm.sat[0] != ~0ull;
            item = sm.sat[0] + rb;
            if (big) {
                items[2 * item] = b;
                items[2 * item + 1] = len;
            }
            if (sm.sat[0] != ~0ull) /* the block's items' digit counts, zeroed coalesced */
                for (uint64_t w = tid; w < totb * PP_RADIX; w += SB) m.hist[sm.sat[0] * PP_RADIX + w] = 0;
        } else if (big) {
            b = items[2 * i];
            len = items[2 * i + 1];
        }
        const uint64_t nt = big ? (len + TL - 1) >> a.tile_log : 0;
        unsigned long long tot;
        __syncthreads();
        sm.sst[tid] = pp_block_scan<pp_op_sum<unsigned long long>, SB, false>((unsigned long long)nt, &tot);
        sm.sid[tid] = item;
        if (tid == 0) {
            unsigned long long at = ~0ull;
            if (tot) {
                at = atomicAdd(seg_msd_ntiles(m, v), tot);
                if (at + tot > m.cap_tiles) {
                    atomicAdd(seg_msd_ntiles(m, v), (unsigned long long)0 - tot);
                    at = ~0ull;
                }
            }
            sm.sat[2] = at;
        }
        __syncthreads();
        const unsigned long long at = sm.sat[2];
        if (v > 0) {
            const uint64_t nb = nin - base < (uint64_t)SB ? nin - base : (uint64_t)SB;
            for (uint64_t w = tid; w < nb * PP_RADIX; w += SB) m.hist[base * PP_RADIX + w] = 0;
        }
        if (at != ~0ull && tot) {
            /* a run of consecutive tiles a wave, its lanes' tiles consecutive (each pair one
             * 16-byte store, the wave's stores coalesced): one search for the run's first item,
             * then each lane's item advanced from the wave's item at the step before. A search a
             * tile (8 dependent shared loads, the tiles SB apart) left one block writing one
             * segment's 16384 tiles for 38 us of level 0 (the levels' other blocks waiting at
             * the grid barrier; ncu, thirteenth session, call 3); a run of tiles a thread (one
             * wave's store touching 32 lines) 28 us at level 0 of one segment and 38 at level 1
             * (ncu, fifteenth session, call 6) */
            constexpr unsigned NW = SB / PP_WAVE;
            const unsigned lane = pp_lane_id();
            const uint64_t run = (tot + NW - 1) / NW, e0 = (uint64_t)pp_wave_id() * run, e1 = e0 + run < tot ? e0 + run : tot;
            if (e0 < e1) {
                unsigned lo = seg_last_start(sm.sst, e0); /* the item of tile e0 */
                for (uint64_t eb = e0; eb < e1; eb += PP_WAVE) {
                    const uint64_t e = eb + lane;
                    unsigned l = lo;
                    if (e < e1) {
                        while (l + 1 < (unsigned)SB && sm.sst[l + 1] <= e) ++l;
                        seg_store_pair(&m.tiles[2 * (at + e)], sm.sid[l], (e - sm.sst[l]) << a.tile_log);
                    }
                    lo = pp_shfl(l, PP_WAVE - 1); /* the last lane's: the highest */
                }
            }
        }
        __syncthreads();
    }
}

/* The digit of level v of a key: bits [shift, shift + 8) of its encoding, the key's kind known
 * at compile time (FLT: float keys; else an integer's encoding, an xor). With the kind tested at
 * run time the compiler computed the float encoding predicated beside the integer one for every
 * key, twice a key in the scatter (its digit at the load, again at the store): the loops that
 * use it are written for both kinds and chosen once (seg_msd_kind). */
template <bool FLT, typename K> PP_DEVICE unsigned seg_msd_digit(K k, const seg_desc &d, int shift)
{
    if constexpr (FLT && sizeof(K) == 4)
        return (pp_sort_key_u32(k, PP_SORT_KIND_FLOAT, (uint32_t)d.flip) >> shift) & (unsigned)(PP_RADIX - 1);
    else if constexpr (FLT && sizeof(K) == 8)
        return (unsigned)(pp_sort_key_u64(k, PP_SORT_KIND_FLOAT, d.flip) >> shift) & (unsigned)(PP_RADIX - 1);
    else
        return (unsigned)(((decltype(seg_int_xor<K>(d)))k ^ seg_int_xor<K>(d)) >> shift) & (unsigned)(PP_RADIX - 1);
}

/* f(std::true_type) for float keys, f(std::false_type) for the others (1-byte keys are integers). */
template <typename K, typename F> PP_DEVICE void seg_msd_kind(const seg_desc &d, F &&f)
{
    if (sizeof(K) >= 4 && d.kind == PP_SORT_KIND_FLOAT) f(std::true_type{});
    else f(std::false_type{});
}

/* Hist: every item's digit counts; a block takes a run of consecutive tiles (an item's tiles are
 * consecutive), counts in shared memory and adds the counts to the item's when the item changes;
 * it also zeroes its tiles' look-back words for the scatter (a word a thread; zeroed by the plan,
 * one block of one segment of 2^26 keys zeroed 32 MB alone). */
template <int ITEMS, typename A> PP_DEVICE void seg_msd_hist(const A &a, int v, unsigned *h)
{
    constexpr int TILE = SB * ITEMS;
    const seg_msd &m = a.m;
    const auto *src = a.src(v);
    const int shift = a.shift(v);
    const unsigned tid = threadIdx.x;
    const uint64_t nt = seg_msd_bounded(seg_msd_ntiles(m, v), m.cap_tiles), per = (nt + gridDim.x - 1) / gridDim.x;
    const uint64_t t0 = (uint64_t)blockIdx.x * per, t1 = t0 + per < nt ? t0 + per : nt;
    const unsigned long long *items = m.items[v & 1];
    for (unsigned k = tid; k < (unsigned)PP_RADIX; k += SB) h[k] = 0;
    __syncthreads();
    /* A tile's keys all loaded at once, the next tiles' places read two ahead, an item's bounds
     * read only when the item changes (tile -> item -> keys were three dependent loads a tile:
     * 340-368 us for one level of 2^26 u32 keys, ncu, s12-msd 91384e8 / 58dc3f8, 72% of the
     * stalls on global loads). Loading the next tile's keys during this one's count spilled
     * 48-168 bytes on sm_90 under the levels kernel's 80 registers. */
    uint64_t cur = ~0ull, item = 0, pos = 0, b = 0, len = 0, item1 = 0, pos1 = 0, bitem = ~0ull;
    if (t0 < t1) {
        item = m.tiles[2 * t0];
        pos = m.tiles[2 * t0 + 1];
    }
    if (t0 + 1 < t1) {
        item1 = m.tiles[2 * (t0 + 1)];
        pos1 = m.tiles[2 * (t0 + 1) + 1];
    }
    for (uint64_t t = t0; t < t1; ++t) {
        uint64_t item2 = 0, pos2 = 0; /* tile t + 2's */
        if (t + 2 < t1) {
            item2 = m.tiles[2 * (t + 2)];
            pos2 = m.tiles[2 * (t + 2) + 1];
        }
        if (item != bitem) {
            b = items[2 * item];
            len = items[2 * item + 1];
            bitem = item;
        }
        const unsigned cnt = (unsigned)(len - pos < (uint64_t)TILE ? len - pos : (uint64_t)TILE);
        const auto *p = src + b + pos;
        /* every key of the tile loaded before any is encoded: with the load inside each item's
         * `e < cnt ? digit(p[e]) : ..` the compiler branched around it item by item (the
         * encoding tests the key's kind), and each of the 16 loads waited for the one before:
         * 282 us for a level of 2^26 u32 keys at 32% of DRAM bandwidth, 73% of the stall
         * samples on those 16 uses (ncu source counters, thirteenth session, call 2) */
        using KT = typename std::remove_const<typename std::remove_pointer<decltype(p)>::type>::type;
        KT kk[ITEMS];
        if (cnt == (unsigned)TILE) {
#pragma unroll
            for (int r = 0; r < ITEMS; ++r) kk[r] = p[tid + (unsigned)(r * SB)];
        } else {
#pragma unroll
            for (int r = 0; r < ITEMS; ++r) {
                const unsigned e = tid + (unsigned)(r * SB);
                kk[r] = e < cnt ? p[e] : KT(0);
            }
        }
        unsigned dg[ITEMS];
        seg_msd_kind<KT>(a.d, [&](auto flt) {
#pragma unroll
            for (int r = 0; r < ITEMS; ++r) {
                const unsigned e = tid + (unsigned)(r * SB);
                dg[r] = e < cnt ? seg_msd_digit<decltype(flt)::value>(kk[r], a.d, shift) : (unsigned)PP_RADIX;
            }
        });
        for (unsigned k = tid; k < (unsigned)PP_RADIX; k += SB) m.states[t * PP_RADIX + k] = 0;
        if (item != cur) {
            if (cur != ~0ull) {
                __syncthreads();
                for (unsigned k = tid; k < (unsigned)PP_RADIX; k += SB)
                    if (h[k]) {
                        atomicAdd(&m.hist[cur * PP_RADIX + k], (unsigned long long)h[k]);
                        h[k] = 0;
                    }
                __syncthreads();
            }
            cur = item;
        }
#pragma unroll
        for (int r = 0; r < ITEMS; ++r)
            if (dg[r] < (unsigned)PP_RADIX) atomicAdd(&h[dg[r]], 1u);
        item = item1;
        pos = pos1;
        item1 = item2;
        pos1 = pos2;
    }
    __syncthreads();
    if (cur != ~0ull)
        for (unsigned k = tid; k < (unsigned)PP_RADIX; k += SB)
            if (h[k]) atomicAdd(&m.hist[cur * PP_RADIX + k], (unsigned long long)h[k]);
    __syncthreads(); /* h is the next phase's shared memory */
}

/* Scatter: level v's tiles from src(v) into dst(v), a tile at a time in ticket order (each block
 * takes the next ticket); see above. The item's first tile adds the item's buckets to the
 * level's class counts (but at the last level, whose buckets are done). */
template <typename K, int VB, int ITEMS, typename A, typename S> PP_DEVICE void seg_msd_scatter(const A &a, int v, S &sm)
{
    using V = val_t<VB>;
    constexpr int TILE = SB * ITEMS;
    static_assert(SB >= PP_RADIX, "a thread per digit");
    const seg_msd &m = a.m;
    const K *src = a.src(v);
    K *dst = a.dst(v);
    const V *vsrc = a.vsrc(v);
    V *vdst = a.vdst(v);
    const int shift = a.shift(v);
    const bool last = v + 1 == a.levels;
    const unsigned tid = threadIdx.x, lane = pp_lane_id(), wv = pp_wave_id();
    const unsigned first = wv * PP_WAVE * ITEMS + lane;
    const uint64_t nt = seg_msd_bounded(seg_msd_ntiles(m, v), m.cap_tiles);
    const unsigned long long *items = m.items[v & 1];
    unsigned long long *counts = seg_msd_counts(m, v);
    for (;;) {
        if (tid == 0) sm.tile = (unsigned)atomicAdd(seg_msd_ticket(m, v), 1ull);
        if (tid < (unsigned)SEG_MAX_CLASSES) sm.cls[tid] = 0;
        __syncthreads();
        const uint64_t t = sm.tile;
        if (t >= nt) break;
        const uint64_t item = m.tiles[2 * t], pos = m.tiles[2 * t + 1];
        const uint64_t b0 = items[2 * item], len = items[2 * item + 1];
        const unsigned cnt = (unsigned)(len - pos < (uint64_t)TILE ? len - pos : (uint64_t)TILE);
        const bool head = pos == 0;
        /* The tile's work, for a full tile (FULL: no key's bound tested; keys of 2 bytes and
         * more alone, whose tiles are all full but each item's last), its keys' places in 32 bits
         * (NARROW, with FULL: where every place fits them, n <= 2^32; the offset wraps, the sum
         * does not), as the radix sort's onesweep pass does (sort.hip), or any tile. Each other
         * pairing spilled: every body for keys alone 8 bytes on sm_90 (u32), 16-24 (u8). */
        const auto body = [&](auto full_tag, auto narrow_tag) {
            constexpr bool FULL = decltype(full_tag)::value, NARROW = decltype(narrow_tag)::value;
            const K *ks = src + b0 + pos;
            K k[ITEMS];
            V vv[VB ? ITEMS : 1];
            (void)vv;
            unsigned dr[ITEMS];
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                const unsigned e = first + (unsigned)(i * PP_WAVE);
                k[i] = FULL || e < cnt ? ks[e] : K(0);
            }
            seg_msd_kind<K>(a.d, [&](auto flt) {
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) dr[i] = seg_msd_digit<decltype(flt)::value>(k[i], a.d, shift) << PP_RADIX_DR_SHIFT;
            });
            if constexpr (VB > 0) {
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    const unsigned e = first + (unsigned)(i * PP_WAVE);
                    vv[i] = FULL || e < cnt ? vsrc[b0 + pos + e] : V(0);
                }
            }
            /* the item's count of digit tid, and where the digit's bucket starts in the item */
            const unsigned long long ic = tid < (unsigned)PP_RADIX ? m.hist[item * PP_RADIX + tid] & SEG_COUNT_MASK : 0ull;
            const unsigned long long istart = pp_block_scan<pp_op_sum<unsigned long long>, SB, false>(ic);
            /* the ballots in the fewest instructions (the radix sort's fused pass's ranking): the
             * scatter ran at 75% of the SM's issue, half its stalls on shared memory, with the
             * match instruction (ncu, 2026-11-27, s12-msd 58dc3f8) */
            const unsigned total = pp_radix_rank_counts_dr<SB, ITEMS, PP_RANK_BALLOT_FUSED, FULL>(dr, PP_RADIX_BITS, cnt, sm.rs);
            if (tid < (unsigned)PP_RADIX) pp_lookback_counter_publish<true>(m.states, t, tid, PP_RADIX, total, (unsigned)v, head);
            const unsigned dstart = pp_radix_rank_finish_dr<SB, ITEMS, FULL>(dr, cnt, total, sm.rs);
            if (tid < (unsigned)PP_RADIX) {
                const uint64_t before = pp_lookback_counter_wait<true>(m.states, t, tid, PP_RADIX, total, (unsigned)v, a.sl,
                                                                       VB ? 1 : PP_LB_COUNTER_WINDOW, head);
                pp_radix_put_delta<!NARROW>(sm.dlo, sm.dhi, tid, b0 + istart + before - dstart);
            }
            pp_radix_stage_tile<ITEMS, FULL, (VB > 0)>(k, vv, dr, first, cnt, sm.keys, sm.vals);
            __syncthreads();
            seg_msd_kind<K>(a.d, [&](auto flt) {
                const auto slot_of = [&](K kk) { return pp_radix_slot(seg_msd_digit<decltype(flt)::value>(kk, a.d, shift)); };
                pp_radix_scatter_tile<SB, ITEMS, 4, FULL, NARROW, (VB > 0)>(sm.keys, sm.vals, sm.dlo, sm.dhi, cnt, slot_of, dst,
                                                                           vdst, true);
            });
        };
        if constexpr (VB == 0 && sizeof(K) > 1) {
            if (cnt == (unsigned)TILE && a.d.n <= 0xFFFFFFFFull) body(std::true_type{}, std::true_type{});
            else body(std::false_type{}, std::false_type{});
        } else {
            body(std::false_type{}, std::false_type{});
        }
        if (sizeof(K) > 1 && !last && m.tiles[2 * sm.tile + 1] == 0) {
            /* the item's groups of buckets by class, as seg_msd_emit lists them: here, after the
             * tile's counts are published, since the item's other tiles wait on them (before the
             * ranking, the 16384-key row's levels took 755 -> 830 us, ncu, fifteenth session);
             * the item read again (held through the tile, 4 bytes of spills on sm_90); 1-byte
             * keys have one level, the last */
            const uint64_t it = m.tiles[2 * (uint64_t)sm.tile];
            const unsigned long long c = tid < (unsigned)PP_RADIX ? m.hist[it * PP_RADIX + tid] & SEG_COUNT_MASK : 0ull;
            const bool on = a.grouped(items[2 * it + 1]);
            unsigned long long gl;
            const bool starts = seg_msd_group<TILE, K>(a, on, c, gl, sm.grp);
            if (starts && gl >= 2 && gl <= (unsigned long long)TILE) atomicAdd(&sm.cls[seg_packed_class(gl, a.dm.pack_lo)], 1u);
            if (on && tid < (unsigned)PP_RADIX) /* for seg_msd_emit (the item's other tiles mask it off) */
                m.hist[it * PP_RADIX + tid] =
                    c | (starts ? (gl < (unsigned long long)TILE + 1 ? gl : (unsigned long long)TILE + 1) + 1 : 0ull) << SEG_GROUP_SHIFT;
            __syncthreads();
            if (tid < (unsigned)SEG_MAX_CLASSES && sm.cls[tid]) atomicAdd(&counts[tid], (unsigned long long)sm.cls[tid]);
        }
        __syncthreads(); /* the staged tile, the ticket and the class counts are rewritten next */
    }
    __syncthreads();
}

/* Emit: level v's buckets, a block an item (a thread a digit); see above. */
template <typename K, int VB, int TILE, typename A, typename S> PP_DEVICE void seg_msd_emit(const A &a, int v, S &sm)
{
    const seg_msd &m = a.m;
    const unsigned tid = threadIdx.x;
    const uint64_t nin = seg_msd_bounded(seg_msd_nitems(m, v), m.cap_items);
    const K *dst = a.dst(v);
    const auto *vdst = a.vdst(v);
    const bool copy1 = !a.to_out(v);
    const unsigned long long *items = m.items[v & 1];
    unsigned long long *next = m.items[(v + 1) & 1];
    const unsigned long long *counts = seg_msd_counts(m, v);
    unsigned long long *cursor = seg_msd_cursor(m, v), *list = m.list + (uint64_t)v * m.cap_list;
    for (uint64_t item = blockIdx.x; item < nin; item += gridDim.x) {
        if (tid < (unsigned)SEG_MAX_CLASSES) sm.cnt[tid] = 0;
        if (tid == 0) sm.nnext = 0;
        __syncthreads();
        const unsigned long long h = tid < (unsigned)PP_RADIX ? m.hist[item * PP_RADIX + tid] : 0ull, b = h & SEG_COUNT_MASK;
        const uint64_t pos = items[2 * item] + pp_block_scan<pp_op_sum<unsigned long long>, SB, false>(b);
        /* the group that starts at this bucket (c keys from pos), if one does: as the scatter's
         * head tile found it (seg_msd_group) */
        unsigned long long c = b;
        if (sizeof(K) > 1 && a.grouped(items[2 * item + 1])) {
            const unsigned long long code = h >> SEG_GROUP_SHIFT;
            c = code == 0 ? 0ull : b > (unsigned long long)TILE ? b : code - 1;
        }
        const bool packed = c >= 2 && c <= (unsigned long long)TILE, longer = c > (unsigned long long)TILE;
        const int cls = packed ? seg_packed_class(c, a.dm.pack_lo) : 0;
        const unsigned rank = seg_wave_rank(cls, packed, sm.cnt);
        unsigned nrank = 0;
        if (longer) nrank = atomicAdd(&sm.nnext, 1u);
        if (c == 1 && copy1) {
            a.out[pos] = dst[pos];
            if constexpr (VB > 0) a.vout[pos] = vdst[pos];
        }
        __syncthreads();
        if (tid < (unsigned)a.dm.nclasses && sm.cnt[tid])
            sm.at[tid] = seg_class_start(counts, (int)tid) + atomicAdd(&cursor[tid], (unsigned long long)sm.cnt[tid]);
        if (tid == 0) sm.atn = sm.nnext ? atomicAdd(seg_msd_nitems(m, v + 1), (unsigned long long)sm.nnext) : 0ull;
        __syncthreads();
        if (packed) {
            const unsigned long long e = sm.at[cls] + rank;
            if (e < m.cap_list) list[e] = (unsigned long long)pos << SEG_CHUNK_LEN_BITS | c;
        }
        if (longer && sm.atn + nrank < m.cap_items) {
            next[2 * (sm.atn + nrank)] = pos;
            next[2 * (sm.atn + nrank) + 1] = c;
        }
        __syncthreads();
    }
}

enum { SEG_MSD_PLAN, SEG_MSD_HIST, SEG_MSD_SCATTER, SEG_MSD_EMIT };

/* Phase PHASE of level v (the launch-a-phase form): a kernel a phase, so that each holds only
 * its phase's registers (one kernel switching on the phase spilled 40-48 SGPRs on gfx90a /
 * gfx940 / gfx1030). */
template <typename K, int VB, int ITEMS, int PHASE>
__global__ __launch_bounds__(SB, SEG_MSD_SCATTER_BLOCKS((int)sizeof(K), VB)) void seg_msd_phase(
    seg_msd_args<K, val_t<VB>> a, int v)
{
    __shared__ seg_msd_smem<K, val_t<VB>, VB, SB * ITEMS> sm;
    if (v > 0 && pp_lb_ld(seg_msd_nitems(a.m, v)) == 0) return; /* the levels past the keys' need */
    if constexpr (PHASE == SEG_MSD_PLAN) seg_msd_plan(a, v, sm.plan);
    else if constexpr (PHASE == SEG_MSD_HIST) seg_msd_hist<ITEMS>(a, v, sm.hist);
    else if constexpr (PHASE == SEG_MSD_SCATTER) seg_msd_scatter<K, VB, ITEMS>(a, v, sm.sc);
    else seg_msd_emit<K, VB, SB * ITEMS>(a, v, sm.emit);
}

/* Every level, a grid barrier between two phases (a cooperative launch: every block resident),
 * stopping at the first level without items. */
template <typename K, int VB, int ITEMS>
__global__ __launch_bounds__(SB, SEG_MSD_SCATTER_BLOCKS((int)sizeof(K), VB)) void seg_msd_levels(
    seg_msd_args<K, val_t<VB>> a)
{
    __shared__ seg_msd_smem<K, val_t<VB>, VB, SB * ITEMS> sm;
    unsigned long long k = 0;
    for (int v = 0; v < a.levels; ++v) {
        seg_msd_plan(a, v, sm.plan);
        pp_grid_barrier(seg_msd_barrier(a.m), ++k);
        if (pp_lb_ld(seg_msd_nitems(a.m, v)) == 0) break; /* the same word for every block */
        seg_msd_hist<ITEMS>(a, v, sm.hist);
        pp_grid_barrier(seg_msd_barrier(a.m), ++k);
        seg_msd_scatter<K, VB, ITEMS>(a, v, sm.sc);
        if (v + 1 == a.levels) break;
        pp_grid_barrier(seg_msd_barrier(a.m), ++k);
        seg_msd_emit<K, VB, SB * ITEMS>(a, v, sm.emit);
        pp_grid_barrier(seg_msd_barrier(a.m), ++k);
    }
}

/* ---- host ---- */

unsigned seg_stride_grid(const pp_hip_state *hs, uint64_t n) { return pp_hip_stride_grid(hs, n, SB); }

/* The blocks of `kernel` (SB threads, static shared memory) that fit on the device at once. */
template <typename F> uint64_t seg_resident(const pp_hip_state *hs, F kernel)
{
    int per_cu = 1;
    if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, kernel, SB, 0) != hipSuccess || per_cu < 1) {
        (void)hipGetLastError();
        per_cu = 1;
    }
    return (uint64_t)hs->dev.cu_count * (uint64_t)per_cu;
}

/* The packed classes' kernel over `list` (segment ids, or with `chunks` the long class's chunk
 * entries): the one launch that both the packed classes and the long class's chunk sort use.
 * Its grid: the host's bound on the block items (`bound`); for segsort_packed_loop at most the
 * blocks of the kernel that fit on the device at once. `capped`: the loop kernel whatever the
 * registers (its item not inlined where seg_packed_loops is false), for a launch that is
 * most often empty. Returns the grid. */
template <typename K, int VB, int ITEMS, bool STABLE>
unsigned seg_launch_packed_as(const pp_hip_state *hs, uint64_t bound, hipStream_t s, const seg_desc &d,
                              const seg_bufs<K, val_t<VB>> &b, const unsigned long long *counts,
                              const unsigned long long *list, bool chunks, bool capped)
{
    if constexpr (seg_packed_loops<K, VB>(ITEMS) && !STABLE && sizeof(K) == 4) {
        if (d.pack_pipe >= 2) {
            /* PP_OPTION_SEGSORT_PACK_PIPE 2: the L2 prefetch for every class; 3: none; 4: from
             * class SEGSORT_PACK_PREFETCH_LOG up (the default on NVIDIA: tuning_segsort.h) */
            seg_desc dp = d;
            dp.pack_pf = d.pack_pipe == 2 ? 0 : d.pack_pipe == 3 ? 64 : SEGSORT_PACK_PREFETCH_LOG;
            unsigned grid = 0;
            const auto launch = [&](auto k, bool pdl) {
                const uint64_t cap = seg_resident(hs, k);
                const unsigned g = (unsigned)(bound < cap ? (bound ? bound : 1) : cap);
                /* a failed launch stays the thread's last error: the caller's PP_HIP_CHECK_LAUNCH */
                if (pdl) (void)pp_hip_launch_pdl(k, g, SB, s, dp, b, counts, list, chunks);
                else k<<<g, SB, 0, s>>>(dp, b, counts, list, chunks);
                grid = g > grid ? g : grid;
            };
            if constexpr (seg_pipe_first<seg_log2(SB * ITEMS)>::ANY) {
                launch(segsort_packed_pipe<K, ITEMS, 0>, false);
                launch(segsort_packed_pipe<K, ITEMS, 1>,
                       d.pack_pdl && pp_hip_pdl_ready<segsort_packed_pipe<K, ITEMS, 1>>(hs->dev));
            } else {
                launch(segsort_packed_pipe<K, ITEMS, 2>, false);
            }
            return grid;
        }
    }
    if constexpr (!seg_packed_loops<K, VB>(ITEMS)) {
        if (!capped) {
            const unsigned grid = (unsigned)(bound ? bound : 1);
            segsort_packed<K, VB, ITEMS, STABLE><<<grid, SB, 0, s>>>(d, b, counts, list, chunks);
            return grid;
        }
    }
    const uint64_t cap = seg_resident(hs, segsort_packed_loop<K, VB, ITEMS, STABLE>);
    const unsigned grid = (unsigned)(bound < cap ? (bound ? bound : 1) : cap);
    segsort_packed_loop<K, VB, ITEMS, STABLE><<<grid, SB, 0, s>>>(d, b, counts, list, chunks);
    return grid;
}

template <typename K, int VB, int ITEMS>
unsigned seg_launch_packed(const pp_hip_state *hs, uint64_t bound, hipStream_t s, const seg_desc &d,
                           const seg_bufs<K, val_t<VB>> &b, const unsigned long long *counts,
                           const unsigned long long *list, bool chunks, bool capped = false)
{
    /* integer keys alone sort their encodings; float keys and pairs need the stable words */
    if constexpr (VB == 0 && sizeof(K) == 1) /* u8: an integer */
        return seg_launch_packed_as<K, 0, ITEMS, false>(hs, bound, s, d, b, counts, list, chunks, capped);
    else if constexpr (VB == 0)
        return d.kind != PP_SORT_KIND_FLOAT
                   ? seg_launch_packed_as<K, 0, ITEMS, false>(hs, bound, s, d, b, counts, list, chunks, capped)
                   : seg_launch_packed_as<K, 0, ITEMS, true>(hs, bound, s, d, b, counts, list, chunks, capped);
    else
        return seg_launch_packed_as<K, VB, ITEMS, true>(hs, bound, s, d, b, counts, list, chunks, capped);
}

/* The levels a launch a phase (where the cooperative launch fails or is not used). */
template <typename K, int VB, int ITEMS, int PHASE>
pp_status seg_msd_launch_phase(pp_context *ctx, const pp_hip_state *hs, hipStream_t s,
                               const seg_msd_args<K, val_t<VB>> &ma, int v, uint64_t work)
{
    const uint64_t cap = seg_resident(hs, seg_msd_phase<K, VB, ITEMS, PHASE>);
    seg_msd_phase<K, VB, ITEMS, PHASE><<<(unsigned)(work < cap ? (work ? work : 1) : cap), SB, 0, s>>>(ma, v);
    PP_HIP_CHECK_LAUNCH(ctx, "seg_msd_phase");
    return PP_OK;
}

template <typename K, int VB> pp_status run_segsort(pp_context *ctx, const pp_segsort_args *a, seg_desc d)
{
    using V = val_t<VB>;
    constexpr int ITEMS = SEGSORT_ITEMS((int)sizeof(K), VB), TILE = SB * ITEMS, TILE_LOG = seg_log2(TILE);
    pp_hip_state *hs = pp_hip(ctx);
    const pp_segsort_tuning *tu = pp_segsort_tuning_for(&hs->dev);
    const int64_t forced = pp__option(ctx, PP_OPTION_SEGSORT_PACK_LOG), pipe = pp__option(ctx, PP_OPTION_SEGSORT_PACK_PIPE);
    d.pack_pipe = pipe ? (int)pipe : SEGSORT_PACK_PIPE;
    d.pack_pdl = pp__option(ctx, PP_OPTION_SEGSORT_PIPE_PDL) == 1 ? false : SEGSORT_PIPE_PDL != 0;
    const int want = forced ? (int)forced : (int)tu->pack_max_log;
    d.pack_lo = SEGSORT_PACK_MIN_LOG;
    d.pack_hi = want < TILE_LOG ? want : TILE_LOG;
    const int NP = d.pack_hi >= d.pack_lo ? d.pack_hi - d.pack_lo + 1 : 0;
    const uint64_t n = a->n, S = a->n_segments;
    const uint64_t pack_max = NP ? (1ull << d.pack_hi) : (uint64_t)SEGSORT_THREAD_MAX;
    /* the longest segment possible: n keys, or the fixed form's length */
    const uint64_t longest = a->offsets ? n : (uint64_t)a->segment_length;
    /* Past the packed classes: segments of more than msd_lo keys by radix levels (MSD), the
     * others by chunks and merge passes. msd_lo: the tuning row's, where the mean segment
     * (n / n_segments, which the host knows) is at least the row's msd_min_mean, else none
     * (where the mean is short the long segments hold few keys, and the levels' fixed cost, a
     * cooperative launch and a packed launch a level, about 25 us on the H100 with nothing to
     * do, is what counts). PP_OPTION_SEGSORT_LONG: 1 merge passes for all, 2 radix levels for
     * all (from SEGSORT_MSD_MIN keys; the shorter long ones a chunk each). */
    const int64_t long_opt = pp__option(ctx, PP_OPTION_SEGSORT_LONG);
    const uint64_t avg = S ? n / S : 0;
    uint64_t msd_lo = 0;
    if (!SEG_MSD_ON) msd_lo = 0;
    else if (long_opt == 2) msd_lo = pack_max;
    else if (long_opt == 0 && avg >= tu->msd_min_mean) msd_lo = tu->msd_lo > pack_max ? tu->msd_lo : pack_max;
    d.long_cls = NP + 1;
    d.huge_cls = msd_lo ? NP + 2 : -1;
    d.msd_lo = msd_lo;
    d.nclasses = msd_lo ? NP + 3 : NP + 2;
    const bool long_possible = longest > pack_max && msd_lo != pack_max;
    /* the long class: at most n / (pack_max + 1) segments (unless they overlap); their chunks,
     * at most n / TILE + one per segment, of which those of segments of odd pass counts (longer
     * than the tile) at most n / TILE + n / (TILE + 1); merge passes for the longest segment */
    const uint64_t n_long = long_possible ? (n / (pack_max + 1) < S ? n / (pack_max + 1) : S) : 0;
    const uint64_t n_over = n / (TILE + 1) < S ? n / (TILE + 1) : S;
    const uint64_t cap0 = long_possible ? n / TILE + n_long + 1 : 0, cap1 = long_possible ? n / TILE + n_over + 1 : 0;
    const bool merge_long = long_possible, msd_long = msd_lo && longest > msd_lo;
    const uint64_t merge_longest = msd_lo && msd_lo < longest ? msd_lo : longest;
    const int passes = merge_long ? seg_passes((merge_longest + TILE - 1) / TILE) : 0;
    /* radix levels: items (segments of more than msd_min keys, buckets of more than the tile)
     * at most n / (min(msd_min, TILE) + 1) a level (a bound of n / (msd_min + 1) dropped the
     * buckets past it: few distinct keys in segments of 40000 made more than two); their tiles at most n / TILE + one partial each; buckets of 2 ..
     * TILE keys a level at most PP_RADIX an item; level 0's segments of at most msd_min keys (a
     * forced packed bound) at most n_long */
    const int levels = d.key_bits / PP_RADIX_BITS;
    const uint64_t msd_min = msd_lo > (uint64_t)SEGSORT_MSD_MIN ? msd_lo : (uint64_t)SEGSORT_MSD_MIN;
    const uint64_t item_min = msd_min < (uint64_t)TILE ? msd_min : (uint64_t)TILE; /* level 0's, later levels' */
    const uint64_t m_items = msd_long ? n / (item_min + 1) + 1 : 0, m_tiles = msd_long ? n / TILE + m_items + 1 : 0;
    const uint64_t m_list = m_items * PP_RADIX, m_direct = msd_long && msd_lo < msd_min ? n / (msd_lo + 1) + 1 : 0;
    const size_t msd_bytes = msd_long ? 2 * pp_align256((size_t)m_items * 16) + pp_align256((size_t)m_tiles * 16) +
                                            pp_align256((size_t)m_items * PP_RADIX * 8) +
                                            pp_align256((size_t)m_tiles * PP_RADIX * 8) + pp_align256((size_t)m_list * 8 * (size_t)(levels > 1 ? levels - 1 : 1)) +
                                            pp_align256((size_t)m_direct * 8 + 8) +
                                            pp_align256((size_t)SEG_MSD_CTL_WORDS * 8)
                                      : 0;

    /* scratch: the counts and cursors and the chunk lists' counts (zeroed), the class list; for
     * the long class the double buffer and the chunk lists */
    const size_t cls_bytes = pp_align256((size_t)SEG_MAX_CLASSES * 8);
    const size_t tri_bytes[2] = {pp_align256((size_t)cap0 * 24), pp_align256((size_t)cap1 * 24)};
    const size_t cl_bytes = pp_align256((size_t)(cap0 + cap1) * 8);
    const size_t next_bytes = pp_align256((size_t)(SEG_MAX_PASSES + 1) * 8); /* + the barrier's count */
    size_t bytes = 5 * cls_bytes + next_bytes + pp_align256((size_t)S * 8);
    if (long_possible || msd_long) bytes += pp_align256((size_t)n * sizeof(K)) + (VB ? pp_align256((size_t)n * sizeof(V)) : 0);
    if (merge_long) bytes += tri_bytes[0] + tri_bytes[1] + cl_bytes;
    bytes += msd_bytes;
    void *scratch = nullptr;
    PP_TRY(pp__scratch(ctx, bytes, &scratch));
    char *p = (char *)scratch;
    unsigned long long *counts = (unsigned long long *)p, *cursor = (unsigned long long *)(p + cls_bytes);
    seg_long lp;
    lp.ccount[0] = (unsigned long long *)(p + 2 * cls_bytes);
    lp.ccount[1] = (unsigned long long *)(p + 3 * cls_bytes);
    lp.call = (unsigned long long *)(p + 4 * cls_bytes);
    lp.next = (unsigned long long *)(p + 5 * cls_bytes);
    lp.barrier = lp.next + SEG_MAX_PASSES;
    lp.clist = nullptr;
    unsigned long long *list = (unsigned long long *)(p + 5 * cls_bytes + next_bytes);
    char *q = p + 5 * cls_bytes + next_bytes + pp_align256((size_t)S * 8);
    seg_bufs<K, V> b;
    b.kin = (const K *)a->keys_in;
    b.kout = (K *)a->keys_out;
    b.vin = (const V *)a->values_in;
    b.vout = (V *)a->values_out;
    b.ktmp = nullptr;
    b.vtmp = nullptr;
    if (long_possible || msd_long) {
        b.ktmp = (K *)q;
        q += pp_align256((size_t)n * sizeof(K));
        if (VB) {
            b.vtmp = (V *)q;
            q += pp_align256((size_t)n * sizeof(V));
        }
    }
    if (merge_long) {
        for (int r = 0; r < 2; ++r) {
            lp.chunk[r] = (unsigned long long *)q;
            q += tri_bytes[r];
        }
        lp.clist = (unsigned long long *)q;
        q += cl_bytes;
    }
    seg_msd m;
    memset(&m, 0, sizeof m);
    if (msd_long) {
        const auto take = [&q](size_t sz) {
            unsigned long long *r = (unsigned long long *)q;
            q += pp_align256(sz);
            return r;
        };
        m.items[0] = take((size_t)m_items * 16);
        m.items[1] = take((size_t)m_items * 16);
        m.tiles = take((size_t)m_tiles * 16);
        m.hist = take((size_t)m_items * PP_RADIX * 8);
        m.states = take((size_t)m_tiles * PP_RADIX * 8);
        m.list = take((size_t)m_list * 8 * (size_t)(levels > 1 ? levels - 1 : 1));
        m.direct = take((size_t)m_direct * 8 + 8);
        m.ctl = take((size_t)SEG_MSD_CTL_WORDS * 8);
        m.cap_items = m_items;
        m.cap_tiles = m_tiles;
        m.cap_list = m_list;
        m.cap_direct = m_direct;
    }
    lp.cap[0] = cap0;
    lp.cap[1] = cap1;

    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    hipStream_t s = hs->stream;
    PP_HIP_TRY(ctx, hipMemsetAsync(counts, 0, 5 * cls_bytes + next_bytes, s));
    const unsigned cg = seg_stride_grid(hs, (S + CI - 1) / CI); /* a block a chunk of CI x SB segments */
    segsort_count<<<cg, SB, 0, s>>>(d, counts);
    PP_HIP_CHECK_LAUNCH(ctx, "segsort_count");
    segsort_classify<<<cg, SB, 0, s>>>(d, counts, cursor, list);
    PP_HIP_CHECK_LAUNCH(ctx, "segsort_classify");
    /* grids from bounds the host knows (blocks past the classes' need return at once) */
    const uint64_t most = S < n ? S : n;
    /* the thread class, and the long class's chunks (where it may have segments) */
    segsort_thread<K, VB><<<seg_stride_grid(hs, most), SB, 0, s>>>(d, b, counts, list, lp, TILE_LOG, merge_long);
    PP_HIP_CHECK_LAUNCH(ctx, "segsort_thread");
    uint64_t g_packed = 0;
    if (NP && n > (uint64_t)SEGSORT_THREAD_MAX) {
        g_packed = seg_launch_packed<K, VB, ITEMS>(hs, (2 * n / TILE < S ? 2 * n / TILE : S) + (uint64_t)NP, s, d, b,
                                                   counts, list, false);
        PP_HIP_CHECK_LAUNCH(ctx, "segsort_packed");
    }
    if constexpr (SEG_MSD_ON) {
        if (msd_long) {
            /* Every long segment, however long, by radix levels (above), with no count read by the
             * host: the levels' launch finds its work's counts on the device and stops at the
             * first level without items; then a packed launch a level but the last. */
            PP_HIP_TRY(ctx, hipMemsetAsync(m.ctl, 0, (size_t)SEG_MSD_CTL_WORDS * 8, s));
            seg_desc dm = d; /* the buckets' packed classes: every class up to the tile */
            dm.pack_lo = SEGSORT_PACK_MIN_LOG;
            dm.pack_hi = TILE_LOG;
            dm.nclasses = TILE_LOG - SEGSORT_PACK_MIN_LOG + 3;
            const K *src = b.kin;
            const V *vsrc = b.vin;
            /* level 0 writes the output where the levels are odd in number (1-byte keys): an
             * in-place call first copies the input to the scratch copy, whence level 0 reads */
            if (levels % 2 == 1 && (const void *)b.kin == (const void *)b.kout) {
                PP_HIP_TRY(ctx, hipMemcpyAsync(b.ktmp, b.kin, (size_t)n * sizeof(K), hipMemcpyDeviceToDevice, s));
                src = b.ktmp;
                if (VB) {
                    PP_HIP_TRY(ctx, hipMemcpyAsync(b.vtmp, b.vin, (size_t)n * sizeof(V), hipMemcpyDeviceToDevice, s));
                    vsrc = b.vtmp;
                }
            }
            seg_msd_args<K, V> ma;
            ma.d = d;
            ma.dm = dm;
            ma.counts = counts;
            ma.list = list;
            ma.m = m;
            ma.src0 = src;
            ma.vsrc0 = vsrc;
            ma.out = b.kout;
            ma.tmp = b.ktmp;
            ma.vout = b.vout;
            ma.vtmp = b.vtmp;
            ma.levels = levels;
            ma.tile_log = TILE_LOG;
            ma.msd_min = msd_min;
            /* the buckets in groups: the row's slot costs (PP_OPTION_SEGSORT_MSD_GROUP 2: the
             * H100's where the row has none; 1: each bucket alone) */
            const int64_t grp = pp__option(ctx, PP_OPTION_SEGSORT_MSD_GROUP);
            const bool row_costs = tu->slot_cost[SEGSORT_COST_CLASSES - 1] != 0;
            ma.group = grp == 2 || (grp == 0 && row_costs);
            ma.group_min = grp == 2 ? 0 : tu->group_min;
            for (int c = 0; c < SEGSORT_COST_CLASSES; ++c) ma.cost[c] = row_costs ? tu->slot_cost[c] : pp_segsort_cost_fallback[c];
            /* the scatter's look-back sleeps: the radix sort's row (a onesweep pass's look-back) */
            const pp_sort_tuning *ts = pp_sort_tuning_for(&hs->dev);
            ma.sl = pp_lb_sleeps{ts->pause_ns, ts->delay_ns};
            /* one cooperative launch of every level on the blocks that fit, or a launch a phase */
            bool coop = false;
            if (pp__option(ctx, PP_OPTION_SEGSORT_MERGE_LAUNCH) != 1) {
                const uint64_t g_cap = seg_resident(hs, seg_msd_levels<K, VB, ITEMS>);
                const unsigned g_levels = (unsigned)(m_tiles < g_cap ? m_tiles : g_cap);
                void *args[] = {&ma};
                coop = hipLaunchCooperativeKernel((const void *)seg_msd_levels<K, VB, ITEMS>, dim3(g_levels), dim3(SB), args, 0,
                                                  s) == hipSuccess;
                if (!coop) (void)hipGetLastError();
                else PP_HIP_CHECK_LAUNCH(ctx, "seg_msd_levels");
            }
            if (!coop)
                for (int v = 0; v < levels; ++v) {
                    PP_TRY((seg_msd_launch_phase<K, VB, ITEMS, SEG_MSD_PLAN>(ctx, hs, s, ma, v, v ? m_items : n_long)));
                    PP_TRY((seg_msd_launch_phase<K, VB, ITEMS, SEG_MSD_HIST>(ctx, hs, s, ma, v, m_tiles)));
                    PP_TRY((seg_msd_launch_phase<K, VB, ITEMS, SEG_MSD_SCATTER>(ctx, hs, s, ma, v, m_tiles)));
                    if (v + 1 < levels) PP_TRY((seg_msd_launch_phase<K, VB, ITEMS, SEG_MSD_EMIT>(ctx, hs, s, ma, v, m_items)));
                }
            if (m_direct) { /* level 0's segments of at most msd_min keys: a chunk each */
                seg_desc dc = d;
                dc.pack_lo = dc.pack_hi = TILE_LOG;
                dc.nclasses = 3;
                seg_launch_packed<K, VB, ITEMS>(hs, m_direct + 1, s, dc, b, seg_msd_direct_counts(m), m.direct, true);
                PP_HIP_CHECK_LAUNCH(ctx, "segsort_packed (direct)");
            }
            /* each level's buckets of 2 .. TILE keys, sorted from where the level wrote them */
            for (int v = 0; v + 1 < levels; ++v) {
                const bool to_out = (levels - 1 - v) % 2 == 0;
                seg_bufs<K, V> bl = b;
                bl.kin = to_out ? b.kout : b.ktmp;
                bl.vin = to_out ? b.vout : b.vtmp;
                seg_launch_packed<K, VB, ITEMS>(hs, 2 * n / TILE + (uint64_t)(dm.nclasses - 2), s, dm, bl, seg_msd_counts(m, v),
                                                m.list + (uint64_t)v * m_list, true);
                PP_HIP_CHECK_LAUNCH(ctx, "segsort_packed (buckets)");
            }
        }
    }
    if (merge_long) {
        /* Every long segment, however long, is sorted here, with no count read by the host.
         * Branch s3-segsort2 (928c2c3, never run on a GPU) sent the offsets form's segments of
         * >= 2^20 keys to the device-wide radix sort, which needs their bounds on the host: a
         * copy back and a stream synchronization in every call with n >= 2^20 (every bench
         * row), one sort launch sequence per huge segment, and a header that no longer says
         * "none synchronizes"; not taken. The merge passes are bandwidth-bound (each reads and
         * writes the keys and values of the segments that need it once), so a segment of L
         * keys costs its chunk sort plus ceil(log2(L / TILE)) such passes. Estimates for the
         * H100, 2^26 u32 keys (not measured): a pass over all of them about 0.2-0.25 ms, so
         * segments of 2^14 add 2 passes (~0.5 ms), and one segment of all 2^26 keys 14 passes
         * (~3-3.5 ms), where pp_sort_keys of the whole array takes about 2.2 ms: at that
         * extreme pp_sort_keys stays the better call (the bench's segsort_keys_one and
         * segsort_one_vs_radix rows measure it). The fixed form's segments of >= 2^20 keys,
         * whose lengths the host knows, still go to the device-wide sort (pp_hip_segmented_sort). */
        /* the chunks (listed by segsort_thread's blocks above), a block each, by the packed
         * classes' kernel at the tile's class (its list form of chunk entries), in one launch:
         * an entry's SEG_CHUNK_ALT (parity 1) sends its chunk into the scratch copy */
        seg_desc dc = d;
        dc.pack_lo = dc.pack_hi = TILE_LOG;
        dc.nclasses = 3;
        seg_launch_packed<K, VB, ITEMS>(hs, cap0 + cap1 + 1, s, dc, b, lp.call, lp.clist, true, true);
        PP_HIP_CHECK_LAUNCH(ctx, "segsort_packed (chunks)");
        /* the passes: a grid of the blocks that fit on the device at once, each taking the
         * lists' batches (which the device counts) one after another, the next free block the
         * next batch. One cooperative launch runs them all, with a grid barrier between two
         * passes, and only as many as the longest segment needs (the device's count): the host
         * knows only the bound `passes` (14 for 2^26 u32 keys in the offsets form), and a
         * launch a pass cost ~3.5 us each when empty, ~50 us a call at every segment length
         * (ncu, call 5). Where the cooperative launch fails (a device without it), or
         * PP_OPTION_SEGSORT_MERGE_LAUNCH asks, a launch a pass. */
        const uint64_t nbt = (cap0 + SEGSORT_MERGE_BATCH - 1) / SEGSORT_MERGE_BATCH +
                             (cap1 + SEGSORT_MERGE_BATCH - 1) / SEGSORT_MERGE_BATCH;
        /* integer keys are staged encoded (ENC); float keys, whose encoding loses -0.0 and NaN
         * payloads, encoded at each comparison */
        void (*merge)(seg_desc, seg_bufs<K, V>, seg_long, int, int);
        if constexpr (sizeof(K) == 1) /* u8: an integer */
            merge = segsort_merge<K, VB, ITEMS, true>;
        else
            merge = d.kind != PP_SORT_KIND_FLOAT ? segsort_merge<K, VB, ITEMS, true> : segsort_merge<K, VB, ITEMS, false>;
        const uint64_t g_cap = seg_resident(hs, merge);
        const unsigned g_merge = (unsigned)(nbt < g_cap ? (nbt ? nbt : 1) : g_cap);
        if (passes) {
            int first = 0, last = passes;
            void *args[] = {&d, &b, &lp, &first, &last};
            if (pp__option(ctx, PP_OPTION_SEGSORT_MERGE_LAUNCH) == 1 ||
                hipLaunchCooperativeKernel((const void *)merge, dim3(g_merge), dim3(SB), args, 0, s) != hipSuccess) {
                (void)hipGetLastError();
                for (int pass = 0; pass < passes; ++pass) {
                    merge<<<g_merge, SB, 0, s>>>(d, b, lp, pass, pass + 1);
                    PP_HIP_CHECK_LAUNCH(ctx, "segsort_merge");
                }
            }
        }
    }
    /* plan: grid = the packed kernel's; param: thread-class bound, packed bound, tile, merge
     * passes launched */
    pp__set_plan(ctx, "segmented_sort", msd_long ? "classes_radix" : "classes", g_packed, S, SEGSORT_THREAD_MAX,
                 (int64_t)pack_max, TILE, (int64_t)(msd_long ? levels : passes));
    return PP_OK;
}

template <typename K> pp_status dispatch_values(pp_context *ctx, const pp_segsort_args *a, const seg_desc &d)
{
    switch (a->value_size) {
    case 0: return run_segsort<K, 0>(ctx, a, d);
    case 1: return run_segsort<K, 1>(ctx, a, d);
    case 4: return run_segsort<K, 4>(ctx, a, d);
    default: return run_segsort<K, 8>(ctx, a, d);
    }
}

} // namespace

pp_status pp_hip_segmented_sort(pp_context *ctx, const pp_segsort_args *a)
{
    const size_t kb = pp_dtype_size(a->key_type);
    seg_desc d;
    memset(&d, 0, sizeof d);
    d.n = a->n;
    d.offsets = a->offsets;
    d.seg_len = a->segment_length;
    d.n_segments = a->n_segments;
    d.kind = pp__dtype_is_float(a->key_type) ? PP_SORT_KIND_FLOAT
             : pp__dtype_is_signed(a->key_type) ? PP_SORT_KIND_SIGNED
                                                 : PP_SORT_KIND_UNSIGNED;
    d.flip = a->descending ? (kb == 8 ? ~0ull : ((1ull << (8 * kb)) - 1ull)) : 0ull;
    d.key_bits = (int)(8 * kb);
    if (!a->offsets && a->segment_length >= SEGSORT_FIXED_SORT_MIN) {
        /* the fixed form's long segments, whose lengths the host knows: the radix sort family's
         * device-wide sort per segment (one block per segment would sort each alone); every call
         * asks the same scratch, so only the first can fail, before anything is written */
        const uint64_t L = a->segment_length;
        pp_sort_args r;
        memset(&r, 0, sizeof r);
        r.n = L;
        r.key_type = a->key_type;
        r.value_size = a->value_size;
        r.descending = a->descending;
        r.end_bit = d.key_bits;
        for (uint64_t s = 0; s < a->n_segments; ++s) {
            r.keys_in = (const char *)a->keys_in + s * L * kb;
            r.keys_out = (char *)a->keys_out + s * L * kb;
            if (a->value_size) {
                r.values_in = (const char *)a->values_in + s * L * a->value_size;
                r.values_out = (char *)a->values_out + s * L * a->value_size;
            }
            PP_TRY(pp_hip_sort(ctx, &r));
        }
        pp__set_plan(ctx, "segmented_sort", "radix_sort", 0, a->n_segments, SEGSORT_THREAD_MAX, 0, 0, (int64_t)L);
        return PP_OK;
    }
    switch (kb) {
    case 1: return dispatch_values<uint8_t>(ctx, a, d);
    case 4: return dispatch_values<uint32_t>(ctx, a, d);
    default: return dispatch_values<uint64_t>(ctx, a, d);
    }
}
