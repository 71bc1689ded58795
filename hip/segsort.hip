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
 *                     (below: what a slot holds, so that the result is the stable one). Launched
 *                     with a grid bound (2n / TILE + classes) the host computes without reading
 *                     the counts; blocks past the classes' need return at once.
 *   segsort_block     longer segments: a block per segment, LSD passes through global memory:
 *                     the segment's digit counts, then tile by tile a match-ranked tile staged
 *                     in shared memory in digit order and written at its digits' running
 *                     offsets (tiles in order: stable). The passes alternate between the output
 *                     and a scratch copy at the same positions, so that the last lands in the
 *                     output.
 * The fixed form with segments of at least SEGSORT_FIXED_SORT_MIN keys (lengths the host knows
 * without reading the device) sorts each with the radix sort family's device-wide sort.
 * Memory traffic: the packed and thread classes read and write each key (value) once (the packed
 * class reads a float key twice: loaded, then gathered by its place); the block class reads it
 * twice and writes it once per 8-bit pass.
 */
#include <string.h>

#include <type_traits>

#include "bitonic.h"
#include "blocks.h"
#include "common.h"
#include "key_encoding.h"
#include "radix_rank.h"
#include "tuning_segsort.h"

namespace {

constexpr int SB = SEGSORT_BLOCK;
constexpr int SEG_MAX_CLASSES = 16; /* class ids fit the 4 bits the classify kernel matches */

/* The segments and the keys' order, resolved on the host. Classes: 0 the thread class, 1 + (c -
 * pack_lo) the packed class of lengths (2^(c-1), 2^c] for c in [pack_lo, pack_hi], nclasses - 1
 * the block class. */
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

template <typename K> PP_DEVICE unsigned seg_digit(K k, const seg_desc &d, int shift)
{
    return (unsigned)(seg_enc(k, d) >> shift) & (PP_RADIX - 1u);
}

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

PP_DEVICE int seg_class(uint64_t len, const seg_desc &d)
{
    if (len <= (uint64_t)SEGSORT_THREAD_MAX) return 0;
    if (d.pack_hi >= d.pack_lo && len <= (1ull << d.pack_hi)) {
        int c = 64 - __clzll((long long)(len - 1)); /* ceil(log2(len)) */
        if (c < d.pack_lo) c = d.pack_lo;
        return 1 + c - d.pack_lo;
    }
    return d.nclasses - 1;
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

/* counts[c] += the non-empty segments of class c (zeroed before). */
__global__ __launch_bounds__(SB) void segsort_count(seg_desc d, unsigned long long *__restrict__ counts)
{
    __shared__ unsigned cnt[SEG_MAX_CLASSES];
    __shared__ unsigned long long tot[SEG_MAX_CLASSES];
    if (threadIdx.x < (unsigned)SEG_MAX_CLASSES) tot[threadIdx.x] = 0;
    const uint64_t stride = (uint64_t)gridDim.x * SB;
    for (uint64_t base = (uint64_t)blockIdx.x * SB; base < d.n_segments; base += stride) {
        if (threadIdx.x < (unsigned)SEG_MAX_CLASSES) cnt[threadIdx.x] = 0;
        __syncthreads();
        const uint64_t s = base + threadIdx.x;
        uint64_t b = 0;
        const uint64_t len = s < d.n_segments ? seg_bounds(d, s, b) : 0;
        const int cls = len ? seg_class(len, d) : 0;
        seg_wave_rank(cls, len > 0, cnt);
        __syncthreads();
        if (threadIdx.x < (unsigned)SEG_MAX_CLASSES) tot[threadIdx.x] += cnt[threadIdx.x];
    }
    __syncthreads();
    if (threadIdx.x < (unsigned)d.nclasses && tot[threadIdx.x]) atomicAdd(&counts[threadIdx.x], tot[threadIdx.x]);
}

/* list[start of its class + place] = s for every non-empty segment s (cursor zeroed before). */
__global__ __launch_bounds__(SB) void segsort_classify(seg_desc d, const unsigned long long *__restrict__ counts,
                                                       unsigned long long *__restrict__ cursor,
                                                       unsigned long long *__restrict__ list)
{
    __shared__ unsigned cnt[SEG_MAX_CLASSES];
    __shared__ unsigned long long at[SEG_MAX_CLASSES];
    const uint64_t stride = (uint64_t)gridDim.x * SB;
    for (uint64_t base = (uint64_t)blockIdx.x * SB; base < d.n_segments; base += stride) {
        if (threadIdx.x < (unsigned)SEG_MAX_CLASSES) cnt[threadIdx.x] = 0;
        __syncthreads();
        const uint64_t s = base + threadIdx.x;
        uint64_t b = 0;
        const uint64_t len = s < d.n_segments ? seg_bounds(d, s, b) : 0;
        const int cls = len ? seg_class(len, d) : 0;
        const unsigned rank = seg_wave_rank(cls, len > 0, cnt);
        __syncthreads();
        if (threadIdx.x < (unsigned)d.nclasses && cnt[threadIdx.x])
            at[threadIdx.x] = seg_class_start(counts, (int)threadIdx.x) + atomicAdd(&cursor[threadIdx.x],
                                                                                     (unsigned long long)cnt[threadIdx.x]);
        __syncthreads();
        if (len) list[at[cls] + rank] = s;
        __syncthreads();
    }
}

/* ---- the thread class: segments of SEGSORT_THREAD_MAX (one) key, copied by a thread each ---- */

template <typename K, int VB>
__global__ __launch_bounds__(SB) void segsort_thread(seg_desc d, seg_bufs<K, val_t<VB>> b,
                                                     const unsigned long long *__restrict__ counts,
                                                     const unsigned long long *__restrict__ list)
{
    static_assert(SEGSORT_THREAD_MAX == 1, "the thread class copies one-key segments");
    const uint64_t i = (uint64_t)blockIdx.x * SB + threadIdx.x;
    if (i >= counts[0]) return;
    uint64_t base;
    seg_bounds(d, list[i], base);
    b.kout[base] = b.kin[base];
    if constexpr (VB > 0) b.vout[base] = b.vin[base];
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
constexpr int SEG_CHUNK_LEN_BITS = 16; /* a chunk entry's length field (lengths up to the tile) */

/* An item of the packed classes' list: its first key (b) and length. */
PP_DEVICE uint64_t seg_item(const seg_desc &d, unsigned long long e, bool chunks, uint64_t &b)
{
    if (chunks) {
        b = e >> SEG_CHUNK_LEN_BITS;
        return e & ((1ull << SEG_CHUNK_LEN_BITS) - 1ull);
    }
    return seg_bounds(d, e, b);
}

/* The integer key of an encoding (pp_sort_key_u32 / _u64 of an integer key is an xor). */
template <typename K> PP_DEVICE K seg_decode(decltype(seg_enc(K(0), seg_desc())) e, const seg_desc &d)
{
    using E = decltype(e);
    const E sign = d.kind == PP_SORT_KIND_SIGNED ? (E)1 << (8 * sizeof(K) - 1) : (E)0;
    return (K)(e ^ (E)d.flip ^ sign);
}

template <typename K, int VB, int ITEMS, bool STABLE>
__global__ __launch_bounds__(SB) void segsort_packed(seg_desc d, seg_bufs<K, val_t<VB>> b,
                                                     const unsigned long long *__restrict__ counts,
                                                     const unsigned long long *__restrict__ list, bool chunks)
{
    using V = val_t<VB>;
    using W = pp_bn_word<K, STABLE>;
    constexpr int TILE = SB * ITEMS;
    constexpr int GMAX = TILE >> SEGSORT_PACK_MIN_LOG;
    static_assert(TILE <= (1 << SEG_CHUNK_LEN_BITS) - 1 && (STABLE || VB == 0), "places fit 16 bits");
    __shared__ pp_bn_tile<W, TILE> st;
    __shared__ uint64_t sbeg[GMAX];
    __shared__ uint16_t slen[GMAX]; /* 0 past the block's segments */

    /* this block's class (the longest first) and its group of segments there */
    uint64_t blk = blockIdx.x, lstart = 0, lcount = 0;
    int cl = 0;
    for (int p = d.pack_hi - d.pack_lo + 1; p >= 1; --p) {
        const int c = d.pack_lo + p - 1;
        const uint64_t G = (uint64_t)(TILE >> c), cnt = counts[p], nb = (cnt + G - 1) / G;
        if (blk < nb) {
            cl = c;
            lcount = cnt;
            lstart = seg_class_start(counts, p);
            break;
        }
        blk -= nb;
    }
    if (!cl) return;
    const unsigned G = (unsigned)(TILE >> cl), tid = threadIdx.x, mask = (1u << cl) - 1u;
    const uint64_t g0 = blk * G;
    const unsigned nseg = (unsigned)(lcount - g0 < (uint64_t)G ? lcount - g0 : (uint64_t)G);
    for (unsigned j = tid; j < G; j += SB) {
        uint64_t bb = 0;
        const uint64_t len = j < nseg ? seg_item(d, list[lstart + g0 + j], chunks, bb) : 0;
        sbeg[j] = bb;
        slen[j] = (uint16_t)len;
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        const unsigned i = tid + (unsigned)(r * SB), j = i >> cl, o = i & mask;
        W w;
        pp_bn_sentinel(w);
        if (o < slen[j]) pp_bn_make(w, seg_enc(b.kin[sbeg[j] + o], d), o);
        st.put(i, w);
    }
    __syncthreads();
    const unsigned base = tid * ITEMS;
    W x[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) x[r] = st.get(base + (unsigned)r);
    pp_bn_bitonic(x, st, base, cl);
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) st.put(base + (unsigned)r, x[r]);
    __syncthreads();
    if constexpr (!STABLE) {
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
            const unsigned i = tid + (unsigned)(r * SB), j = i >> cl, q = i & mask;
            if (q < slen[j]) b.kout[sbeg[j] + q] = seg_decode<K>(st.get(i), d);
        }
    } else {
        /* every key (gathered for floats, else decoded) and value of the block read before any
         * is written; the key goes back to its slot (a thread's own), the value to a register */
        const bool gather_key = d.kind == PP_SORT_KIND_FLOAT;
        using VR = typename std::conditional<sizeof(V) < 4, uint32_t, V>::type; /* registers, not bytes */
        VR v[VB ? ITEMS : 1];
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
            const unsigned i = tid + (unsigned)(r * SB), j = i >> cl, q = i & mask;
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
            const unsigned i = tid + (unsigned)(r * SB), j = i >> cl, q = i & mask;
            if (q < slen[j]) {
                b.kout[sbeg[j] + q] = (K)pp_bn_bits(st.get(i));
                if constexpr (VB > 0) b.vout[sbeg[j] + q] = (V)v[r];
            }
        }
    }
}

/* ---- the block class ---- */

template <typename K, int VB, int ITEMS>
__global__ __launch_bounds__(SB) void segsort_block(seg_desc d, seg_bufs<K, val_t<VB>> b,
                                                    const unsigned long long *__restrict__ counts,
                                                    const unsigned long long *__restrict__ list)
{
    using V = val_t<VB>;
    constexpr int TILE = SB * ITEMS;
    __shared__ pp_radix_rank_smem<SB> rs;
    __shared__ K sk[TILE];
    __shared__ V sv[VB ? TILE : 1];
    __shared__ unsigned long long at[PP_RADIX]; /* the digits' counts, then their running offsets */
    const int last = d.nclasses - 1;
    if ((uint64_t)blockIdx.x >= counts[last]) return;
    uint64_t bb;
    const uint64_t m = seg_bounds(d, list[seg_class_start(counts, last) + blockIdx.x], bb);
    const unsigned tid = threadIdx.x;
    const int P = d.key_bits / PP_RADIX_BITS;
    const bool in_place = b.kin == b.kout || (VB > 0 && (const void *)b.vin == (const void *)b.vout);
    const K *ksrc = b.kin;
    const V *vsrc = b.vin;
    if (in_place && (P & 1)) { /* an odd number of passes in place: start from a copy */
        for (uint64_t i = tid; i < m; i += SB) {
            b.ktmp[bb + i] = b.kin[bb + i];
            if constexpr (VB > 0) b.vtmp[bb + i] = b.vin[bb + i];
        }
        __syncthreads();
        ksrc = b.ktmp;
        vsrc = b.vtmp;
    }
    const unsigned first = pp_wave_id() * PP_WAVE * ITEMS + pp_lane_id();
    for (int p = 0; p < P; ++p) {
        const bool to_tmp = ((P - 1 - p) & 1) != 0;
        K *kdst = to_tmp ? b.ktmp : b.kout;
        V *vdst = to_tmp ? b.vtmp : b.vout;
        const int sh = PP_RADIX_BITS * p;
        if (tid < (unsigned)PP_RADIX) at[tid] = 0;
        __syncthreads();
        unsigned last_d = 0, run = 0; /* runs of equal digits: one atomic each */
        for (uint64_t i = tid; i < m; i += SB) {
            const unsigned dd = seg_digit(ksrc[bb + i], d, sh);
            if (dd != last_d && run) {
                atomicAdd(&at[last_d], (unsigned long long)run);
                run = 0;
            }
            last_d = dd;
            ++run;
        }
        if (run) atomicAdd(&at[last_d], (unsigned long long)run);
        __syncthreads();
        const unsigned long long c = tid < (unsigned)PP_RADIX ? at[tid] : 0ull;
        const unsigned long long s = pp_block_scan<pp_op_sum<unsigned long long>, SB, false>(c);
        if (tid < (unsigned)PP_RADIX) at[tid] = s;
        __syncthreads();
        for (uint64_t t0 = 0; t0 < m; t0 += TILE) {
            const unsigned tc = (unsigned)(m - t0 < (uint64_t)TILE ? m - t0 : (uint64_t)TILE);
            K k[ITEMS];
            V v[VB ? ITEMS : 1];
            unsigned dg[ITEMS], rk[ITEMS];
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                const unsigned e = first + (unsigned)(i * PP_WAVE);
                k[i] = e < tc ? ksrc[bb + t0 + e] : K(0);
                if constexpr (VB > 0) v[i] = e < tc ? vsrc[bb + t0 + e] : V(0);
                dg[i] = seg_digit(k[i], d, sh);
            }
            pp_radix_rank<SB, ITEMS>(dg, PP_RADIX_BITS, tc, rk, rs);
#pragma unroll
            for (int i = 0; i < ITEMS; ++i)
                if (first + (unsigned)(i * PP_WAVE) < tc) {
                    sk[rk[i]] = k[i];
                    if constexpr (VB > 0) sv[rk[i]] = v[i];
                }
            __syncthreads();
            for (unsigned e = tid; e < tc; e += SB) {
                const K kk = sk[e];
                const unsigned dd = seg_digit(kk, d, sh);
                const uint64_t g = bb + at[dd] + (e - rs.start[dd]);
                kdst[g] = kk;
                if constexpr (VB > 0) vdst[g] = sv[e];
            }
            __syncthreads();
            if (tid < (unsigned)PP_RADIX) at[tid] += rs.count[tid];
            __syncthreads();
        }
        ksrc = kdst;
        vsrc = vdst;
    }
}

/* ---- host ---- */

unsigned seg_stride_grid(const pp_hip_state *hs, uint64_t n)
{
    const uint64_t need = (n + SB - 1) / SB, cap = (uint64_t)hs->dev.cu_count * 8;
    return (unsigned)(need < cap ? (need ? need : 1) : cap);
}

template <typename K, int VB> pp_status run_segsort(pp_context *ctx, const pp_segsort_args *a, seg_desc d)
{
    using V = val_t<VB>;
    constexpr int ITEMS = SEGSORT_ITEMS((int)sizeof(K), VB), TILE = SB * ITEMS, TILE_LOG = seg_log2(TILE);
    pp_hip_state *hs = pp_hip(ctx);
    const pp_segsort_tuning *tu = pp_segsort_tuning_for(&hs->dev);
    const int64_t forced = pp__option(ctx, PP_OPTION_SEGSORT_PACK_LOG);
    const int want = forced ? (int)forced : (int)tu->pack_max_log;
    d.pack_lo = SEGSORT_PACK_MIN_LOG;
    d.pack_hi = want < TILE_LOG ? want : TILE_LOG;
    const int NP = d.pack_hi >= d.pack_lo ? d.pack_hi - d.pack_lo + 1 : 0;
    d.nclasses = NP + 2;
    const uint64_t n = a->n, S = a->n_segments;
    const uint64_t pack_max = NP ? (1ull << d.pack_hi) : (uint64_t)SEGSORT_THREAD_MAX;
    const bool long_possible = n > pack_max;

    const size_t cls_bytes = pp_align256((size_t)SEG_MAX_CLASSES * 8);
    size_t bytes = 2 * cls_bytes + pp_align256((size_t)S * 8);
    if (long_possible) bytes += pp_align256((size_t)n * sizeof(K)) + (VB ? pp_align256((size_t)n * sizeof(V)) : 0);
    void *scratch = nullptr;
    PP_TRY(pp__scratch(ctx, bytes, &scratch));
    char *p = (char *)scratch;
    unsigned long long *counts = (unsigned long long *)p, *cursor = (unsigned long long *)(p + cls_bytes);
    unsigned long long *list = (unsigned long long *)(p + 2 * cls_bytes);
    char *q = p + 2 * cls_bytes + pp_align256((size_t)S * 8);
    seg_bufs<K, V> b;
    b.kin = (const K *)a->keys_in;
    b.kout = (K *)a->keys_out;
    b.vin = (const V *)a->values_in;
    b.vout = (V *)a->values_out;
    b.ktmp = long_possible ? (K *)q : nullptr;
    b.vtmp = long_possible && VB ? (V *)(q + pp_align256((size_t)n * sizeof(K))) : nullptr;

    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    hipStream_t s = hs->stream;
    PP_HIP_TRY(ctx, hipMemsetAsync(counts, 0, 2 * cls_bytes, s));
    const unsigned cg = seg_stride_grid(hs, S);
    segsort_count<<<cg, SB, 0, s>>>(d, counts);
    PP_HIP_CHECK_LAUNCH(ctx, "segsort_count");
    segsort_classify<<<cg, SB, 0, s>>>(d, counts, cursor, list);
    PP_HIP_CHECK_LAUNCH(ctx, "segsort_classify");
    /* grids from bounds the host knows (blocks past the classes' need return at once) */
    const uint64_t most = S < n ? S : n;
    const uint64_t g_thread = (most + SB - 1) / SB;
    segsort_thread<K, VB><<<(unsigned)g_thread, SB, 0, s>>>(d, b, counts, list);
    PP_HIP_CHECK_LAUNCH(ctx, "segsort_thread");
    uint64_t g_packed = 0;
    if (NP && n > (uint64_t)SEGSORT_THREAD_MAX) {
        g_packed = (2 * n / TILE < S ? 2 * n / TILE : S) + (uint64_t)NP;
        /* integer keys alone sort their encodings; float keys and pairs need the stable words */
        if constexpr (VB == 0 && sizeof(K) == 1) { /* u8: an integer */
            segsort_packed<K, 0, ITEMS, false><<<(unsigned)g_packed, SB, 0, s>>>(d, b, counts, list, false);
        } else if constexpr (VB == 0) {
            if (d.kind != PP_SORT_KIND_FLOAT)
                segsort_packed<K, 0, ITEMS, false><<<(unsigned)g_packed, SB, 0, s>>>(d, b, counts, list, false);
            else
                segsort_packed<K, 0, ITEMS, true><<<(unsigned)g_packed, SB, 0, s>>>(d, b, counts, list, false);
        } else {
            segsort_packed<K, VB, ITEMS, true><<<(unsigned)g_packed, SB, 0, s>>>(d, b, counts, list, false);
        }
        PP_HIP_CHECK_LAUNCH(ctx, "segsort_packed");
    }
    uint64_t g_block = 0;
    if (long_possible) {
        g_block = n / (pack_max + 1) < S ? n / (pack_max + 1) : S;
        segsort_block<K, VB, ITEMS><<<(unsigned)g_block, SB, 0, s>>>(d, b, counts, list);
        PP_HIP_CHECK_LAUNCH(ctx, "segsort_block");
    }
    /* plan: grid = the packed kernel's; param: thread-class bound, packed bound, tile, block grid */
    pp__set_plan(ctx, "segmented_sort", "classes", g_packed, S, SEGSORT_THREAD_MAX, (int64_t)pack_max, TILE,
                 (int64_t)g_block);
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
