/*
 * compaction.hip -- the compaction family on the GPU: select and partition (by flags or by a
 * predicate), unique, run-length encoding, where / nonzero; one `compact` entry.
 *
 * One kernel, compact_tiles: a single pass in the manner of Merrill & Garland's decoupled
 * look-back (lookback.h's chain; the carry is the count of kept elements, which any
 * association sums to the same bits). A block takes a tile (THREADS x ITEMS elements,
 * tuning_compaction.h) by ticket, so a tile waits only on tiles that have started:
 *   load   -- each wave's run of the tile into its shared-memory buffer (tile_io.h: 16-byte
 *             vectors, asynchronous where the target has such copies), and into the registers
 *             of its lanes (ITEMS consecutive elements each); the flags as a bit mask;
 *   keep   -- one bit per element (src/compaction_keep.h: the flags, the compiled predicate,
 *             prepared once per call for 4-byte elements (pp_keep32, bitwise the same answers),
 *             or "differs from the element before", the same code as the CPU backend's);
 *   place  -- a wave scan of the lanes' counts gives each kept element its place among the
 *             wave's; each wave stages its kept values (partition: then its rejected ones)
 *             over its own part of the input buffer, and, only with a payload or indices, their
 *             positions (2 bytes an element, dynamic shared memory) and the payload gathered;
 *             no block barrier: the wave read its part of the buffer itself;
 *   carry  -- one block barrier for the waves' counts; wave 0 scans them, publishes the tile's
 *             count and looks back for the count before it; a second barrier. Every wave
 *             stages before the first barrier; when the count is published is a variant
 *             (PP_OPTION_COMPACT_PUBLISH, the tuning table): 1 as the look-back starts, 2
 *             before it, right after the block scan. A payload written in place (payload_out
 *             == payload) is read by the gather, so such a call publishes after it (1): in
 *             place, a later tile may overwrite this tile's input once it knows its offset.
 *             (A third variant staged while wave 0 looked back: it measured as noise against
 *             1 and 2, and, the order being a run-time choice, it kept each lane's elements
 *             live across the barrier and the look-back in every kernel: at 32 registers the
 *             4-byte run-length kernel spilled 80 / 208 bytes with it, none without it);
 *   write  -- each wave writes its outputs, consecutive lanes consecutive places: the kept
 *             values contiguously at the tile's offset plus the waves' before it (and the
 *             payload, and the indices); the last tile writes the count.
 * The first version's block scan, block-wide positions list and gather from the input
 * buffer issued 82 instructions a thread per element at 1% kept (ncu, H100: 691 M warp
 * instructions for 2^28 elements, issue slots 81% busy); this form with the prepared 32-bit
 * predicate (src/compaction_keep.h) 294 M (bench/NOTES.md "compaction: third session").
 * Blocks (PP_OPTION_COMPACT_BLOCKS): one tile each (by ticket, or, 3, by block index as CUB's
 * kernels do, no atomic per tile), or persistent blocks (as many as fit) that
 * take their next ticket after the look-back and start that tile's loads into a second buffer
 * (dynamic shared memory) while the current tile is written, as the scan does on NVIDIA.
 * Partition (PP_OPTION_COMPACT_PARTITION): the rejected elements are written from the back
 * (out[n - 1 - r] for the r-th rejected, all that is known in one pass without the total),
 * then compact_reverse puts them in input order (reads and writes the rejected part again);
 * or compact_count first counts the kept elements (reads the flags, or the keys for a
 * predicate) and the tile kernel writes the r-th rejected at out[kept + r]. (Both halves in
 * input order in one pass would need the kept total before the first rejected element is
 * placed; the rejected half through a scratch buffer and copied after moves as many bytes as
 * the count pass: 3 n element sizes, against CUB's 2 n with its rejected half reversed.)
 * Run-length encoding, in the same single pass: the look-back carries, with the count of run
 * heads, the index of the last head (rle_op's pair); each head writes the length of the run
 * before it (its index minus the previous head's: in the wave's staged positions, or the
 * wave's head-before from wave 0, which takes it from the last earlier wave with a head or
 * from the carry), so a run that crosses tiles, even many, gets its length from the tile that
 * holds the next head, and the last tile writes the last run's (n minus its head). (The first
 * version wrote the heads' indices, then two kernels turned them into lengths: 1.01 ms
 * against unique's 0.60 at 2^28 u32 in runs of 4, H100.) A single tile is one launch (no
 * look-back, no state to clear). Elements, keys and payloads move as bits by size (1, 4, 8
 * bytes): 24 tile kernels (3 sizes x (3 keep modes + run-length encoding) x one tile per block
 * or persistent).
 * Memory traffic of a select: read n elements (and n flags), write the kept ones; of a
 * run-length encoding: read n elements, write the runs' values and lengths.
 */
#include <string.h>

#include <type_traits>

#include "blocks.h"
#include "common.h"
#include "compaction_keep.h"
#include "lookback.h"
#include "tile_io.h"
#include "tuning_compaction.h"

namespace {

template <int KW> struct word_of;
template <> struct word_of<1> { using type = uint8_t; };
template <> struct word_of<4> { using type = uint32_t; };
template <> struct word_of<8> { using type = uint64_t; };

using count_op = pp_scan_op<pp_op_sum<uint64_t>, uint64_t, false>;

/* Run-length encoding's carry: the runs (heads) from the first tile to the end of a span of
 * tiles, and the index of the span's last head. The fold (a, b) -> (a.runs + b.runs, b.runs ?
 * b.head : a.head) is associative (a span without a head passes the earlier head on), with the
 * identity (0, 0), so it takes the chain look-back as a count does; it travels as two state
 * words (pp_lb_pack below). The tile holding run r's head learns run r - 1's head from it, and so
 * writes run r - 1's length even where that run began many tiles before. */
struct rle_carry {
    uint64_t runs, head;
};
using ::pp_shfl_any; /* blocks.h's, beside this one */
PP_DEVICE rle_carry pp_shfl_any(rle_carry x, int src, int w = PP_WAVE)
{
    rle_carry r;
    r.runs = pp_shfl(x.runs, src, w);
    r.head = pp_shfl(x.head, src, w);
    return r;
}
struct rle_fold {
    static PP_DEVICE rle_carry identity() { return rle_carry{0, 0}; }
    static PP_DEVICE rle_carry apply(rle_carry a, rle_carry b)
    {
        return rle_carry{a.runs + b.runs, b.runs ? b.head : a.head};
    }
};
using rle_op = pp_scan_op<rle_fold, rle_carry, false>;

} // namespace

/* rle_carry in the look-back's state: two words of 63 bits (its counts are below n < 2^63), not
 * four of 32 (lookback.h). */
template <> struct pp_lb_pack<rle_carry> {
    static constexpr int W = 2;
    static PP_DEVICE void put(const rle_carry &c, unsigned long long (&w)[2])
    {
        w[0] = c.runs;
        w[1] = c.head;
    }
    static PP_DEVICE rle_carry get(const unsigned long long (&w)[2]) { return rle_carry{w[0], w[1]}; }
};

namespace {

/* A tile's aggregate: `total` kept (and for run-length encoding the index of its last head,
 * meaningful where total > 0), and the kept count of a carry. */
template <typename SO> PP_DEVICE typename SO::T tile_agg(uint32_t total, uint64_t head);
template <> PP_DEVICE count_op::T tile_agg<count_op>(uint32_t total, uint64_t) { return count_op::make(total, 0); }
template <> PP_DEVICE rle_op::T tile_agg<rle_op>(uint32_t total, uint64_t head)
{
    return rle_op::make(rle_carry{total, head}, 0);
}
PP_DEVICE uint64_t kept_of(uint64_t c) { return c; }
PP_DEVICE uint64_t kept_of(rle_carry c) { return c.runs; }

struct compact_params {
    uint64_t n, tiles;
    void *state;            /* published tile counts (tiles > 1) */
    unsigned *ticket;       /* tile ticket counter (tiles > 1) */
    const uint8_t *flags;   /* PP_KEEP_FLAGS */
    const void *payload;
    void *out, *pout, *idx; /* values (write_vals), payload (psz), indices (isz) */
    uint64_t *count;        /* device: the number kept */
    pp_keep_pred pred;
    pp_keep32 k32;          /* pred prepared for 4-byte elements */
    unsigned psz, isz;
    int enc, partition, write_vals, vec_in, vec_flags;
    int publish;            /* 1 .. 2 (tuning_compaction.h) */
    int persistent;         /* blocks loop over tiles, loading the next one ahead */
    int by_index;           /* a block per tile, the tile its block index (no ticket) */
    const uint64_t *kept_total; /* partition counted first: the number kept, else NULL */
    pp_lb_sleeps sleeps;
    /* run-length encoding: the runs' lengths, lsz bytes each (last: the offsets of the fields
     * before them stay those of the other kernels, whose register allocation moved when they
     * did: the 4-byte run-head kernel spilled 16 / 52 bytes instead of 12 / 36) */
    void *len;
    unsigned lsz;
};

PP_DEVICE uint64_t get_sized(const void *p, uint64_t i, unsigned size)
{
    if (size == 1) return ((const uint8_t *)p)[i];
    if (size == 4) return ((const uint32_t *)p)[i];
    return ((const uint64_t *)p)[i];
}
PP_DEVICE void put_sized(void *p, uint64_t i, unsigned size, uint64_t v)
{
    if (size == 1) ((uint8_t *)p)[i] = (uint8_t)v;
    else if (size == 4) ((uint32_t *)p)[i] = (uint32_t)v;
    else ((uint64_t *)p)[i] = v;
}

/* The dynamic shared memory of the tile kernel: the payload's staging (psz x TILE bytes,
 * whole vectors), the positions list (2 bytes an element, with a payload or indices), then,
 * for persistent blocks, the second input buffer. */
template <int KW> constexpr size_t stage_vecs(unsigned psz)
{
    return ((size_t)psz * compact_shape<KW>::tile + 15) / 16;
}
template <int KW> constexpr size_t ibuf_vecs() { return (size_t)compact_shape<KW>::tile * KW / 16; }
template <int KW> constexpr size_t pos_vecs() { return (size_t)compact_shape<KW>::tile * 2 / 16; }

/* Start the loads of wave w's run of tile u (of TILE elements) into its part of buffer b, if
 * the run is whole and aligned; whether it did. bv (run heads; else null): with them, lane 0
 * copies the 16 bytes before the run (its last element the one before the wave's first) into
 * the wave's slot bv[w], in the same batch, so that the element before the wave arrives with
 * the run and no load waits on the run's wait. */
template <typename K, int ITEMS, uint64_t TILE>
PP_DEVICE bool compact_prefetch(const K *in, const compact_params &prm, uint64_t u, unsigned w, pp_vec16 *b,
                                pp_vec16 *bv)
{
    using L = pp_lane_run<K, ITEMS>;
    const uint64_t base = u * TILE + (uint64_t)w * L::RUN;
    const bool ok = prm.vec_in && base < prm.n && prm.n - base >= L::RUN;
    if (ok) {
        /* base is a multiple of the run (whole vectors), so base - EPV is a whole vector too */
        if (bv && base > 0 && pp_lane_id() == 0) pp_copy16_async(bv + w, in + base - L::EPV);
        pp_tile_load_start<K, ITEMS>(in + base, b + w * L::VECS);
    }
    return ok;
}

/* Wave 0 of tile t with `total` kept (and `head`, tile_agg): the carry before the tile, of the
 * scan operator SO (count_op, or rle_op for run-length encoding), from the look-back (which
 * publishes the tile's aggregate first unless it was published early), returned in every
 * lane, its count into *prefix; the last tile writes the count; persistent blocks take their
 * next ticket into *next once it is done (as the scan does: a tile's count is then published
 * soon after its ticket is taken). */
template <bool PERSIST, typename SO>
PP_DEVICE typename SO::T compact_lookback(const compact_params &prm, uint64_t t, uint32_t total, uint64_t head,
                                          const pp_lb_sleeps &sleeps, uint64_t *prefix, uint64_t *next)
{
    typename SO::T p = SO::identity();
    const bool publish = !COMPACT_VARIANTS_BUILT || prm.publish == 1; /* else published early */
    if (prm.tiles > 1)
        p = pp_lookback_chain<SO, false>(reinterpret_cast<pp_lb_entry<SO> *>(prm.state), prm.tiles, t,
                                         tile_agg<SO>(total, head), publish, sleeps);
    if (pp_lane_id() == 0) {
        *prefix = kept_of(p.v);
        if (t == prm.tiles - 1) *prm.count = kept_of(p.v) + total;
        if (PERSIST) *next = pp_tile_ticket(prm.ticket);
    }
    return p;
}

/* One lane's elements x (keep bits `keep`) placed in its wave's part of the tile's outputs:
 * the values into vw (VALS), their tile indices into pw (POS); place i < kw (the wave's kept
 * count): the i-th kept element of the wave, from o (this lane's first kept place); place
 * kw + r (partition): the wave's r-th rejected, from r0 (this lane's first). Elements past
 * the tile's end have no keep bit and go, for a partition, to places past the wave's outputs
 * (their own index in the wave), never read. */
template <bool VALS, bool POS, typename K, int ITEMS>
PP_DEVICE void compact_place(bool partition, uint32_t keep, const K (&x)[ITEMS], uint32_t o, uint32_t r0,
                             uint32_t e0, K *vw, uint16_t *pw)
{
    if (partition) {
        uint32_t r = r0;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const uint32_t kk = (keep >> k) & 1u, d = kk ? o : r;
            if (VALS) vw[d] = x[k];
            if (POS) pw[d] = (uint16_t)(e0 + k);
            o += kk;
            r += kk ^ 1u;
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            if ((keep >> k) & 1u) {
                if (VALS) vw[o] = x[k];
                if (POS) pw[o] = (uint16_t)(e0 + k);
                ++o;
            }
    }
}

/* The wave's outputs staged in its own part of shared memory (no block barrier): the values
 * (write_vals) over the wave's input buffer vw (every lane has read its elements), the
 * positions list (payload, indices, or RLE's run heads) into pw, the payload of the outputs
 * gathered into psw.
 * o: the kept ones before this lane in the wave, kw: the wave's, first: the wave index of
 * x[0], w0: the tile index of the wave's first element, outs: the wave's outputs. */
template <int ITEMS, bool RLE, typename K>
PP_DEVICE void compact_stage(const compact_params &prm, uint32_t keep, const K (&x)[ITEMS], uint32_t o, uint32_t kw,
                             uint32_t first, uint32_t w0, uint32_t outs, uint64_t tbase, K *vw, uint16_t *pw,
                             unsigned char *psw)
{
    pp_wave_sync(); /* every lane has read its elements from the wave's buffer */
    const uint32_t r0 = kw + (first - o);
    if (RLE) compact_place<true, true>(false, keep, x, o, r0, w0 + first, vw, pw); /* values, heads */
    else if (!prm.psz && !prm.isz) compact_place<true, false>(prm.partition, keep, x, o, r0, w0 + first, vw, pw);
    else if (prm.write_vals) compact_place<true, true>(prm.partition, keep, x, o, r0, w0 + first, vw, pw);
    else compact_place<false, true>(prm.partition, keep, x, o, r0, w0 + first, vw, pw);
    pp_wave_sync();
    const unsigned psz = prm.psz;
    if (psz) {
        for (uint32_t i = pp_lane_id(); i < outs; i += PP_WAVE)
            put_sized(psw, i, psz, get_sized(prm.payload, tbase + pw[i], psz));
        pp_wave_sync();
    }
}

/* The keep bits of a lane's 4-byte elements under the prepared predicate q (unrolled; q.nanfix
 * a constant where the caller's branch made it one). */
template <int ITEMS, typename K> PP_DEVICE uint32_t compact_keep32(const pp_keep32 &q, const K (&x)[ITEMS])
{
    uint32_t keep = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) keep |= pp_keep32_eval(&q, (uint32_t)x[k]) << k;
    return keep;
}

/* RLE (MODE PP_KEEP_RUN_HEAD only): run-length encoding, the lengths written in the same pass
 * (the carry is rle_op's pair; each head writes the length of the run before it: see the write
 * step). */
template <int KW, int MODE, bool PERSIST, bool RLE>
__global__ __launch_bounds__(COMPACT_THREADS, (compact_min_blocks<PERSIST, MODE, KW, RLE>())) void compact_tiles(
    const typename word_of<KW>::type *in, compact_params prm)
{
    static_assert(!RLE || MODE == PP_KEEP_RUN_HEAD, "run-length encoding keeps run heads");
    using SO = typename std::conditional<RLE, rle_op, count_op>::type; /* the look-back's carry */
    using K = typename word_of<KW>::type;
    using S = typename std::conditional<KW == 8, uint64_t, uint32_t>::type; /* K as shuffled */
    using SH = compact_shape<KW>;
    using L = pp_lane_run<K, SH::items>;
    constexpr int ITEMS = SH::items, THREADS = SH::threads, WAVES = THREADS / PP_WAVE;
    constexpr uint32_t WAVE_ITEMS = (uint32_t)PP_WAVE * ITEMS;
    constexpr uint64_t TILE = SH::tile;
    __shared__ pp_vec16 xbuf[WAVES][L::VECS]; /* the tile's input, then its outputs' values */
    __shared__ uint64_t tile_no[2], tile_prefix; /* this tile, the next one (persistent) */
    __shared__ uint32_t wsum[WAVES];           /* the waves' kept counts, then those before them */
    /* RLE: wlast, each wave's last head (tile index; set where the wave has one); wprev, the
     * index of the head before each wave's first (~0: the last one before the tile, tile_head) */
    __shared__ uint32_t wlast[RLE ? WAVES : 1];
    __shared__ uint64_t wprev[RLE ? WAVES : 1], tile_head;
    /* run heads: the 16 bytes before each wave's run, copied with it (compact_prefetch), one
     * slot a wave and input buffer */
    constexpr bool HEADS = MODE == PP_KEEP_RUN_HEAD;
    __shared__ pp_vec16 bvec[PERSIST ? 2 : 1][HEADS ? WAVES : 1];
    /* dynamic: the payload of the tile's outputs (psz > 0), the positions list (place i of a
     * wave's outputs: its element; with a payload or indices only), the second input buffer
     * (persistent) */
    extern __shared__ pp_vec16 dyn[];
    unsigned char *const pstage = reinterpret_cast<unsigned char *>(dyn);
    uint16_t *const pos = reinterpret_cast<uint16_t *>(dyn + stage_vecs<KW>(prm.psz));
    /* the input buffers: persistent blocks alternate between xbuf and a dynamic one */
    pp_vec16 *const buf0 = &xbuf[0][0];
    pp_vec16 *const buf1 = dyn + stage_vecs<KW>(prm.psz) + (RLE || prm.psz || prm.isz ? pos_vecs<KW>() : 0);

    const unsigned lane = pp_lane_id(), w = pp_wave_id();
    const pp_keep_pred pred = prm.pred;
    const int enc = prm.enc;
    const pp_keep32 k32 = prm.k32;
    const pp_lb_sleeps sleeps = prm.sleeps; /* a copy: no reference into the parameters */
    const unsigned psz = prm.psz, isz = prm.isz;
    const int publish = COMPACT_VARIANTS_BUILT && prm.publish == 2 ? 2 : 1; /* 1 or 2, nothing else */
    /* the tile: a ticket, or (by_index, NVIDIA only) the block's index, as CUB does: blocks
     * start in index order there, so a tile still waits only on tiles that have started */
    if (threadIdx.x == 0)
        tile_no[0] = prm.tiles <= 1                             ? 0
                     : COMPACT_VARIANTS_BUILT && prm.by_index ? blockIdx.x
                                                              : pp_tile_ticket(prm.ticket);
    __syncthreads();
    uint64_t t = tile_no[0];
    if (t >= prm.tiles) return;
    int cur = 0;
    bool pre = compact_prefetch<K, ITEMS, TILE>(in, prm, t, w, buf0, HEADS ? bvec[0] : nullptr);
    for (;;) {
        pp_vec16 *const xb = cur ? buf1 : buf0;
        const uint64_t tbase = t * TILE;
        const uint32_t w0 = w * WAVE_ITEMS; /* the tile index of the wave's first element */
        const uint64_t wbase = tbase + w0;
        const uint64_t left = wbase < prm.n ? prm.n - wbase : 0;
        const uint32_t valid = left < WAVE_ITEMS ? (uint32_t)left : WAVE_ITEMS;
        const bool whole = valid == WAVE_ITEMS;

        /* ---- load (started by prefetch) ---- */
        uint32_t fm = 0;
        if constexpr (MODE == PP_KEEP_FLAGS)
            fm = pp_tile_load_flags<ITEMS>(prm.flags + wbase, valid, whole && prm.vec_flags);
        K x[ITEMS];
        pp_tile_load_finish<K, ITEMS>(in + wbase, valid, pre, xb + w * L::VECS, xb + w * L::VECS, x);

        /* ---- keep bits: every element's, then those past the tile's end cleared (their x[k]
         * are undefined) ---- */
        const uint32_t first = lane * ITEMS; /* the wave index of x[0] */
        const uint32_t mine = first < valid ? (valid - first < (uint32_t)ITEMS ? valid - first : (uint32_t)ITEMS) : 0;
        uint32_t keep = 0;
        if constexpr (MODE == PP_KEEP_FLAGS) {
            keep = fm;
        } else if constexpr (MODE == PP_KEEP_PRED && KW == 4) {
            pp_keep32 q = k32;
            if (!q.nanfix) { /* the common case: no NaN test */
                q.nanfix = 0;
                keep = compact_keep32<ITEMS>(q, x);
            } else {
                keep = compact_keep32<ITEMS>(q, x);
            }
        } else if constexpr (MODE == PP_KEEP_PRED) {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) keep |= (uint32_t)(pp_keep_eval(&pred, (uint64_t)x[k], KW, enc) != 0) << k;
        } else {
            /* the element before x[0]: the lane before's last, or the one before the wave (its
             * slot, copied with the run, or a load where the run was not copied) */
            K prev = (K)pp_shfl_any((S)x[ITEMS - 1], lane ? (int)lane - 1 : 0);
            if (lane == 0)
                prev = !mine || wbase == 0 ? (K)0
                       : pre               ? pp_vec_elem<K>(bvec[PERSIST ? cur : 0][w], L::EPV - 1)
                                           : in[wbase - 1];
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                bool kk;
                if constexpr (KW <= 4) kk = !pp_same_key32((uint32_t)(k ? x[k - 1] : prev), (uint32_t)x[k], enc);
                else kk = !pp_same_key((uint64_t)(k ? x[k - 1] : prev), (uint64_t)x[k], KW, enc);
                keep |= (uint32_t)kk << k;
            }
            if (wbase == 0 && lane == 0) keep |= 1u; /* the first element starts a run */
        }
        keep &= mine >= 32u ? ~0u : (1u << mine) - 1u;

        /* ---- places in the wave, then in the tile ---- */
        const uint32_t cnt = (uint32_t)__popc(keep);
        const uint32_t incl = pp_wave_scan_incl<pp_op_sum<uint32_t>>(cnt);
        const uint32_t o = incl - cnt, kw = pp_shfl_any(incl, PP_WAVE - 1);
        if (lane == PP_WAVE - 1) wsum[w] = kw;
        if constexpr (RLE) /* the lane with the wave's last head */
            if (cnt && o + cnt == kw) wlast[w] = w0 + first + (31u - (uint32_t)__clz((int)keep));
        K *const vw = reinterpret_cast<K *>(xb + w * L::VECS); /* the wave's outputs' values */
        uint16_t *const pw = pos + w0;
        unsigned char *const psw = pstage + (size_t)w0 * psz;
        const uint32_t outs = prm.partition ? valid : kw;
        /* The staging, before the tile's count is known: every read of the tile's inputs, the
         * payload's too, done before the publication. */
        compact_stage<ITEMS, RLE>(prm, keep, x, o, kw, first, w0, outs, tbase, vw, pw, psw);
        __syncthreads(); /* the waves' counts */
        if (w == 0) {
            uint64_t head = 0; /* RLE: the tile's last head (of its last wave with one) */
            if constexpr (RLE) {
                /* lane v < WAVES: wave v's last head (tile index), if it has one; the head
                 * before wave v's first: the last head of the nearest wave before v with one,
                 * else the last head before the tile (~0 here: the look-back's, below) */
                const uint32_t vc = lane < (unsigned)WAVES ? wsum[lane] : 0u;
                const uint32_t vlast = vc ? wlast[lane] : 0u;
                const pp_wavemask_t heads = pp_ballot_wave(vc != 0), earlier = heads & pp_wavemask_lt();
                const uint32_t eh = pp_shfl(vlast, earlier ? pp_wavemask_top(earlier) : 0);
                if (lane < (unsigned)WAVES) wprev[lane] = earlier ? tbase + eh : ~0ull;
                head = tbase + pp_shfl(vlast, heads ? pp_wavemask_top(heads) : 0);
            }
            const uint32_t total = pp_block_scan_waves<pp_op_sum<uint32_t>, WAVES>(wsum);
            /* publish 2: the count first (compact_lookback then does not) */
            if (publish != 1 && prm.tiles > 1 && lane == 0) {
                auto *st = reinterpret_cast<pp_lb_entry<SO> *>(prm.state);
                if (t == 0) pp_lb_publish<SO>(st + prm.tiles, 0, tile_agg<SO>(total, head));
                else pp_lb_publish<SO>(st, t, tile_agg<SO>(total, head));
            }
            const typename SO::T before =
                compact_lookback<PERSIST, SO>(prm, t, total, head, sleeps, &tile_prefix, &tile_no[1]);
            if constexpr (RLE)
                if (lane == 0) {
                    tile_head = before.v.head;
                    /* the last run ends at n: the last tile writes its length */
                    if (t == prm.tiles - 1)
                        put_sized(prm.len, before.v.runs + total - 1, prm.lsz,
                                  prm.n - (total ? head : before.v.head));
                }
        }
        __syncthreads(); /* the prefix, the waves' offsets */

        /* ---- the next tile's loads (persistent), in flight while this one is written ---- */
        const uint64_t t_next = PERSIST ? tile_no[1] : prm.tiles;
        const bool pre_next =
            t_next < prm.tiles &&
            compact_prefetch<K, ITEMS, TILE>(in, prm, t_next, w, cur ? buf0 : buf1, HEADS ? bvec[PERSIST ? cur ^ 1 : 0] : nullptr);

        /* ---- write: each wave its outputs, consecutive lanes consecutive places ---- */
        const uint64_t at = tile_prefix + wsum[w]; /* the wave's first kept place */
        K *const outv = reinterpret_cast<K *>(prm.out);
        if constexpr (RLE) {
            /* the values, and the lengths: the head of run r (at + i) ends run r - 1, which began
             * at the wave's head before it, or (i = 0) at the head before the wave */
            const uint64_t wp = wprev[w], prev = wp != ~0ull ? wp : tile_head;
            const unsigned lsz = prm.lsz;
            for (uint32_t i = lane; i < kw; i += PP_WAVE) {
                const uint64_t r = at + i;
                const uint32_t h = pw[i];
                outv[r] = vw[i];
                const uint64_t len = i ? (uint64_t)(h - pw[i - 1]) : tbase + h - prev;
                if (r) put_sized(prm.len, r - 1, lsz, len);
            }
        } else if (!prm.partition && !psz && !isz) { /* select: the values alone */
            for (uint32_t i = lane; i < kw; i += PP_WAVE) outv[at + i] = vw[i];
        } else {
            /* partition: the rejected ones in order after the kept total (counted first), or
             * from the back, reversed later; rej: the rejected ones before the wave */
            const uint64_t kept_all = prm.kept_total ? *prm.kept_total : 0, rej = wbase - at;
            for (uint32_t i = lane; i < outs; i += PP_WAVE) {
                const uint64_t rj = rej + (i - kw);
                const uint64_t dst = i < kw ? at + i : prm.kept_total ? kept_all + rj : prm.n - 1 - rj;
                if (prm.write_vals) outv[dst] = vw[i];
                if (psz) put_sized(prm.pout, dst, psz, get_sized(psw, i, psz));
                if (isz) put_sized(prm.idx, dst, isz, tbase + pw[i]);
            }
        }
        if (!PERSIST || t_next >= prm.tiles) break;
        t = t_next;
        pre = pre_next;
        cur ^= 1;
    }
}

constexpr int AUX_BLOCK = 256;

/* Partition: the rejected elements out[count .. n) (and their payload), written from the back,
 * reversed into input order. */
__global__ __launch_bounds__(AUX_BLOCK) void compact_reverse(void *out, unsigned esz, void *pout, unsigned psz,
                                                             uint64_t n, const uint64_t *count)
{
    const uint64_t c = *count, half = (n - c) / 2;
    const uint64_t stride = (uint64_t)gridDim.x * AUX_BLOCK;
    for (uint64_t i = (uint64_t)blockIdx.x * AUX_BLOCK + threadIdx.x; i < half; i += stride) {
        const uint64_t a = c + i, b = n - 1 - i;
        const uint64_t va = get_sized(out, a, esz), vb = get_sized(out, b, esz);
        put_sized(out, a, esz, vb);
        put_sized(out, b, esz, va);
        if (psz) {
            const uint64_t pa = get_sized(pout, a, psz), pb = get_sized(pout, b, psz);
            put_sized(pout, a, psz, pb);
            put_sized(pout, b, psz, pa);
        }
    }
}

/* Partition counted first: the number of kept elements, added into *total (zeroed before):
 * the flags' or the predicate's keep bits, 16 bytes a load where aligned. */
template <int KW, int MODE>
__global__ __launch_bounds__(AUX_BLOCK) void compact_count(const typename word_of<KW>::type *in, compact_params prm,
                                                           uint64_t *total)
{
    using K = typename word_of<KW>::type;
    constexpr int BATCH = 4; /* vectors in flight per thread */
    const pp_keep_pred pred = prm.pred;
    const pp_keep32 k32 = prm.k32;
    const int enc = prm.enc;
    const uint64_t n = prm.n, stride = (uint64_t)gridDim.x * AUX_BLOCK;
    const uint64_t gid = (uint64_t)blockIdx.x * AUX_BLOCK + threadIdx.x;
    const bool flags = MODE == PP_KEEP_FLAGS;
    const uint8_t *src = flags ? prm.flags : reinterpret_cast<const uint8_t *>(in);
    const int esz = flags ? 1 : KW;
    const uint64_t epv = (uint64_t)(16 / esz); /* elements per vector */
    /* the keep bits of one 16-byte vector */
    auto count16 = [&](const uint4 q) -> uint32_t {
        if constexpr (MODE == PP_KEEP_FLAGS) {
            const uint32_t u[4] = {q.x, q.y, q.z, q.w};
            uint32_t c = 0;
#pragma unroll
            for (int k = 0; k < 4; ++k) /* bit 7 of each nonzero byte */
                c += (uint32_t)__popc((int)((((u[k] & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | u[k]) & 0x80808080u));
            return c;
        } else {
            union {
                uint4 q;
                K e[16 / KW];
            } u;
            u.q = q;
            uint32_t c = 0;
#pragma unroll
            for (int k = 0; k < 16 / KW; ++k) {
                if constexpr (KW == 4) c += pp_keep32_eval(&k32, u.e[k]);
                else c += pp_keep_eval(&pred, (uint64_t)u.e[k], KW, enc) != 0;
            }
            return c;
        }
    };
    uint64_t c = 0, done = 0; /* elements counted by vectors */
    if (flags ? prm.vec_flags : prm.vec_in) {
        const uint4 *vp = reinterpret_cast<const uint4 *>(src);
        const uint64_t nv = n / epv;
        uint64_t v = gid;
        for (; v + (BATCH - 1) * stride < nv; v += BATCH * stride) {
            uint4 q[BATCH];
#pragma unroll
            for (int b = 0; b < BATCH; ++b) q[b] = vp[v + b * stride];
#pragma unroll
            for (int b = 0; b < BATCH; ++b) c += count16(q[b]);
        }
        for (; v < nv; v += stride) c += count16(vp[v]);
        done = nv * epv;
    }
    for (uint64_t i = done + gid; i < n; i += stride) {
        if constexpr (MODE == PP_KEEP_FLAGS) c += prm.flags[i] != 0;
        else c += pp_keep_eval(&pred, (uint64_t)in[i], KW, enc) != 0;
    }
    uint64_t sum;
    (void)pp_block_scan<pp_op_sum<uint64_t>, AUX_BLOCK, false>(c, &sum);
    if (threadIdx.x == 0 && sum) atomicAdd(reinterpret_cast<unsigned long long *>(total), (unsigned long long)sum);
}

inline bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

int encoding_of(pp_dtype t)
{
    if (t == PP_F32 || t == PP_F64) return PP_ENC_FLOAT;
    if (t == PP_I32 || t == PP_I64) return PP_ENC_SIGNED;
    return PP_ENC_UNSIGNED;
}

template <int KW, int MODE, bool RLE>
pp_status launch_tiles(pp_context *ctx, const void *in, const compact_params &prm, size_t smem, uint64_t grid,
                       uint64_t count_grid)
{
    using K = typename word_of<KW>::type;
    pp_hip_state *hs = pp_hip(ctx);
    if (prm.kept_total) {
        if constexpr (MODE != PP_KEEP_RUN_HEAD) {
            uint64_t *kept = const_cast<uint64_t *>(prm.kept_total);
            compact_count<KW, MODE><<<(unsigned)count_grid, AUX_BLOCK, 0, hs->stream>>>((const K *)in, prm, kept);
            PP_HIP_CHECK_LAUNCH(ctx, "compact_count");
        }
    }
    auto kernel = compact_tiles<KW, MODE, false, RLE>;
#if COMPACT_VARIANTS_BUILT
    if (prm.persistent) kernel = compact_tiles<KW, MODE, true, RLE>;
#endif
    if (smem)
        PP_HIP_TRY(ctx, hipFuncSetAttribute(reinterpret_cast<const void *>(kernel),
                                            hipFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    kernel<<<(unsigned)grid, COMPACT_THREADS, smem, hs->stream>>>((const K *)in, prm);
    PP_HIP_CHECK_LAUNCH(ctx, "compact_tiles");
    return PP_OK;
}

/* Persistent blocks of compact_tiles<KW, MODE, RLE> that fit on one compute unit with smem bytes
 * of dynamic shared memory (at least 1). */
template <int KW, int MODE, bool RLE> int tiles_per_cu(size_t smem)
{
    int per_cu = 1;
#if COMPACT_VARIANTS_BUILT
    if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, compact_tiles<KW, MODE, true, RLE>, COMPACT_THREADS,
                                                     smem) !=
            hipSuccess ||
        per_cu < 1) {
        (void)hipGetLastError();
        per_cu = 1;
    }
#else
    (void)smem;
#endif
    return per_cu;
}

/* The kernel of the call: mode, and (run heads) run-length encoding or not. */
template <int KW>
pp_status launch_mode(pp_context *ctx, int mode, bool rle, const void *in, const compact_params &prm, size_t smem,
                      uint64_t grid, uint64_t count_grid)
{
    if (mode == PP_KEEP_FLAGS) return launch_tiles<KW, PP_KEEP_FLAGS, false>(ctx, in, prm, smem, grid, count_grid);
    if (mode == PP_KEEP_PRED) return launch_tiles<KW, PP_KEEP_PRED, false>(ctx, in, prm, smem, grid, count_grid);
    if (rle) return launch_tiles<KW, PP_KEEP_RUN_HEAD, true>(ctx, in, prm, smem, grid, count_grid);
    return launch_tiles<KW, PP_KEEP_RUN_HEAD, false>(ctx, in, prm, smem, grid, count_grid);
}

template <int KW> int per_cu_of(int mode, bool rle, size_t smem)
{
    if (mode == PP_KEEP_FLAGS) return tiles_per_cu<KW, PP_KEEP_FLAGS, false>(smem);
    if (mode == PP_KEEP_PRED) return tiles_per_cu<KW, PP_KEEP_PRED, false>(smem);
    if (rle) return tiles_per_cu<KW, PP_KEEP_RUN_HEAD, true>(smem);
    return tiles_per_cu<KW, PP_KEEP_RUN_HEAD, false>(smem);
}

template <int KW> constexpr uint64_t tile_of() { return compact_shape<KW>::tile; }

} // namespace

pp_status pp_hip_compact(pp_context *ctx, const pp_compact_args *a)
{
    pp_hip_state *hs = pp_hip(ctx);
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    const uint64_t n = a->n;
    const unsigned esz = (unsigned)pp_dtype_size(a->dtype);
    const uint64_t tile = esz == 8 ? tile_of<8>() : esz == 4 ? tile_of<4>() : tile_of<1>();
    const uint64_t tiles = (n + tile - 1) / tile;
    if (tiles > 0x7FFFFFFFull)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "compaction: n = %llu needs more than 2^31 tiles",
                        (unsigned long long)n);
    const bool rle = a->kind == PP_COMPACT_RLE;

    /* Scratch: [count slot, kept count (partition counted first), 256] [ticket, 256] [tile states:
     * a count each, or run-length encoding's (runs, last head) pair] */
    const size_t entry_bytes = rle ? sizeof(pp_lb_carry<rle_carry>::entry) : sizeof(pp_lb_carry<uint64_t>::entry);
    const size_t state_bytes = tiles > 1 ? 256 + pp_align256(pp_lb_chain_entries(tiles) * entry_bytes) : 0;
    const size_t need = 256 + state_bytes;
    void *sp = nullptr;
    PP_TRY(pp__scratch(ctx, need, &sp));
    char *scratch = (char *)sp;
    void *staging = nullptr;
    if (a->space == PP_RESULT_HOST) PP_TRY(pp_hip_staging(ctx, &staging));
    uint64_t *dcount = a->space == PP_RESULT_CONTEXT ? a->count : (uint64_t *)scratch;
    const pp_compact_tuning *tu = pp_compact_tuning_for(&hs->dev);
    const int64_t opt_pause = pp__option(ctx, PP_OPTION_SCAN_PAUSE_NS), opt_delay = pp__option(ctx, PP_OPTION_SCAN_DELAY_NS);
    compact_params prm;
    memset(&prm, 0, sizeof prm);
    prm.sleeps.pause_ns = opt_pause >= 0 ? (unsigned)opt_pause : tu->pause_ns;
    prm.sleeps.delay_ns = opt_delay >= 0 ? (unsigned)opt_delay : tu->delay_ns;
    if (tiles <= (uint64_t)hs->dev.cu_count) { /* every tile at once: no one to wait for (tuning_compaction.h) */
        if (opt_delay < 0) prm.sleeps.delay_ns = tu->small_delay_ns;
        if (opt_pause < 0) prm.sleeps.pause_ns = tu->small_pause_ns;
    }
    const int items = esz == 8 ? compact_shape<8>::items : 16;
    /* The variants (tuning_compaction.h): the table's row unless the context forces one. A
     * payload written in place is read after the publication of the tile's count, so such a
     * call publishes late. */
    const int64_t opt_pub = pp__option(ctx, PP_OPTION_COMPACT_PUBLISH);
    const int64_t opt_blk = pp__option(ctx, PP_OPTION_COMPACT_BLOCKS);
    const int64_t opt_part = pp__option(ctx, PP_OPTION_COMPACT_PARTITION);
    prm.publish = opt_pub > 0 ? (int)opt_pub : tu->publish;
    if (!COMPACT_VARIANTS_BUILT || (a->payload_size && a->payload_out == a->payload)) prm.publish = 1;
    const bool partition = a->kind == PP_COMPACT_PARTITION;
    const int part_variant = partition ? (opt_part > 0 ? (int)opt_part : tu->partition) : 0;
    /* Persistent blocks: the second input buffer in dynamic shared memory, where it fits. */
    const size_t stage_bytes = 16 * (esz == 8 ? stage_vecs<8>((unsigned)a->payload_size)
                                     : esz == 4 ? stage_vecs<4>((unsigned)a->payload_size)
                                                : stage_vecs<1>((unsigned)a->payload_size));
    const size_t ibuf_bytes = 16 * (esz == 8 ? ibuf_vecs<8>() : esz == 4 ? ibuf_vecs<4>() : ibuf_vecs<1>());
    /* the positions list: with a payload or indices (where, run heads) only */
    const size_t pos_bytes = a->payload_size || a->kind == PP_COMPACT_WHERE || rle ? tile * 2 : 0;
    const size_t static_bytes = ibuf_bytes + 256; /* xbuf, the rest (at most) */
    const int blocks = opt_blk > 0 ? (int)opt_blk : tu->blocks;
    prm.by_index = COMPACT_VARIANTS_BUILT && tiles > 1 && blocks == 3;
    prm.persistent = COMPACT_VARIANTS_BUILT && tiles > 1 && blocks == 2 &&
                     static_bytes + stage_bytes + pos_bytes + ibuf_bytes <= (size_t)hs->dev.smem_block;
    const size_t smem = stage_bytes + pos_bytes + (prm.persistent ? ibuf_bytes : 0);
    uint64_t grid = tiles;
    if (prm.persistent) {
        const int per_cu = esz == 8   ? per_cu_of<8>(a->keep, rle, smem)
                           : esz == 4 ? per_cu_of<4>(a->keep, rle, smem)
                                      : per_cu_of<1>(a->keep, rle, smem);
        const uint64_t fit = (uint64_t)hs->dev.cu_count * (unsigned)per_cu;
        if (grid > fit) grid = fit;
        /* PP_OPTION_SCAN_MAX_BLOCKS caps it too: tests loop blocks over many tiles */
        const int64_t cap = pp__option(ctx, PP_OPTION_SCAN_MAX_BLOCKS);
        if (cap > 0 && grid > (uint64_t)cap) grid = (uint64_t)cap;
    }
    /* The plan: param = {elements per thread, the variant as decimal digits (whether the
     * publish / blocks variants are built for the target, publish, blocks, partition: 0 where
     * the call is no partition), delay, pause (ns)}. */
    const int64_t variant =
        COMPACT_VARIANTS_BUILT * 1000 + prm.publish * 100 + (prm.persistent ? 2 : prm.by_index ? 3 : 1) * 10 + part_variant;
    pp__set_plan(ctx, "compaction", tiles <= 1 ? "single_tile" : prm.persistent ? "persistent" : "tiles", grid, tiles,
                 items, variant, prm.sleeps.delay_ns, prm.sleeps.pause_ns);
    if (n == 0) {
        PP_HIP_TRY(ctx, hipMemsetAsync(dcount, 0, 8, hs->stream));
    } else {
        prm.n = n;
        prm.tiles = tiles;
        if (tiles > 1) {
            prm.ticket = (unsigned *)(scratch + 256);
            prm.state = scratch + 512;
            PP_HIP_TRY(ctx, hipMemsetAsync(scratch + 256, 0, state_bytes, hs->stream));
        }
        prm.flags = a->keep == PP_KEEP_FLAGS ? a->flags : nullptr;
        prm.payload = a->payload;
        prm.psz = (unsigned)a->payload_size;
        prm.out = a->out;
        prm.pout = a->payload_out;
        prm.write_vals = a->kind != PP_COMPACT_WHERE;
        prm.partition = partition;
        if (a->kind == PP_COMPACT_WHERE) {
            prm.idx = a->indices;
            prm.isz = (unsigned)a->index_size;
        }
        if (rle) {
            prm.len = a->lengths;
            prm.lsz = (unsigned)a->length_size;
        }
        prm.count = dcount;
        prm.pred = a->pred;
        prm.k32 = pp_keep32_of(&a->pred, encoding_of(a->dtype));
        prm.enc = encoding_of(a->dtype);
        prm.vec_in = aligned16(a->in);
        prm.vec_flags = prm.flags && aligned16(prm.flags);
        uint64_t g = (n + AUX_BLOCK - 1) / AUX_BLOCK;
        const uint64_t gmax = (uint64_t)hs->dev.cu_count * 8;
        if (g > gmax) g = gmax;
        if (part_variant == 2) { /* the count pass's sum, in the count slot's 256 bytes */
            uint64_t *kt = (uint64_t *)(scratch + 8);
            PP_HIP_TRY(ctx, hipMemsetAsync(kt, 0, 8, hs->stream));
            prm.kept_total = kt;
        }
        pp_status st = esz == 8   ? launch_mode<8>(ctx, a->keep, rle, a->in, prm, smem, grid, g)
                       : esz == 4 ? launch_mode<4>(ctx, a->keep, rle, a->in, prm, smem, grid, g)
                                  : launch_mode<1>(ctx, a->keep, rle, a->in, prm, smem, grid, g);
        if (st != PP_OK) return st;
        if (prm.partition && !prm.kept_total) {
            compact_reverse<<<(unsigned)g, AUX_BLOCK, 0, hs->stream>>>(a->out, esz, a->payload_out, prm.psz, n, dcount);
            PP_HIP_CHECK_LAUNCH(ctx, "compact_reverse");
        }
    }
    if (a->space == PP_RESULT_HOST) {
        PP_HIP_TRY(ctx, hipMemcpyAsync(staging, dcount, 8, hipMemcpyDeviceToHost, hs->stream));
        PP_HIP_TRY(ctx, hipStreamSynchronize(hs->stream));
        memcpy(a->count, staging, 8);
    }
    return PP_OK;
}
