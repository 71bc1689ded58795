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
 *             or "differs from the element before", the same code as the CPU backend's);
 *   scan   -- the lanes' counts, block-wide (blocks.h), give each kept element its place in
 *             the tile; the tile's positions list (2 bytes an element) says which element goes
 *             to each place (partition: the rejected ones after the kept ones);
 *   carry  -- wave 0 publishes the tile's count and looks back for the count before it; the
 *             tile's payload is gathered into shared memory before (so that in place, where a
 *             later tile may overwrite this tile's input once it knows its offset, every read
 *             of the tile is done by the time it publishes);
 *   write  -- consecutive threads write consecutive outputs from the staged tile: the kept
 *             elements contiguously at their offset (and the payload, and the indices); the
 *             last tile writes the count.
 * Partition: the rejected elements are written from the back (out[n - 1 - r] for the r-th
 * rejected, all that is known in one pass without the total), then compact_reverse puts them
 * in input order. Run-length encoding: the runs' starts are written as indices (into the
 * lengths buffer where they fit, else into scratch), then rle_bounds and rle_lengths turn them
 * into lengths. A single tile is one launch (no look-back, no state to clear). Elements, keys
 * and payloads move as bits by size (1, 4, 8 bytes): 9 tile kernels (3 sizes x 3 keep modes).
 * Memory traffic of a select: read n elements (and n flags), write the kept ones.
 */
#include <string.h>

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

struct compact_params {
    uint64_t n, tiles;
    void *state;            /* published tile counts (tiles > 1) */
    unsigned *ticket;       /* tile ticket counter (tiles > 1) */
    const uint8_t *flags;   /* PP_KEEP_FLAGS */
    const void *payload;
    void *out, *pout, *idx; /* values (write_vals), payload (psz), indices / run starts (isz) */
    uint64_t *count;        /* device: the number kept */
    pp_keep_pred pred;
    unsigned psz, isz;
    int enc, partition, write_vals, vec_in, vec_flags;
    pp_lb_sleeps sleeps;
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

template <int KW, int MODE>
__global__ __launch_bounds__(COMPACT_THREADS) void compact_tiles(const typename word_of<KW>::type *in, compact_params prm)
{
    using K = typename word_of<KW>::type;
    using SH = compact_shape<KW>;
    using L = pp_lane_run<K, SH::items>;
    constexpr int ITEMS = SH::items, THREADS = SH::threads, WAVES = THREADS / PP_WAVE;
    constexpr uint32_t WAVE_ITEMS = (uint32_t)PP_WAVE * ITEMS;
    constexpr uint64_t TILE = SH::tile;
    __shared__ pp_vec16 xbuf[WAVES][L::VECS]; /* the tile's input, until it is written */
    __shared__ uint16_t pos[TILE];             /* place j of the tile's output: its element */
    __shared__ uint64_t tile_no, tile_prefix;
    extern __shared__ pp_vec16 pstage[];       /* the payload of the tile's outputs (psz > 0) */

    const unsigned lane = pp_lane_id(), w = pp_wave_id();
    if (threadIdx.x == 0) tile_no = prm.tiles > 1 ? pp_tile_ticket(prm.ticket) : 0;
    __syncthreads();
    const uint64_t t = tile_no, tbase = t * TILE;
    const uint64_t wbase = tbase + (uint64_t)w * WAVE_ITEMS;
    const uint64_t left = wbase < prm.n ? prm.n - wbase : 0;
    const uint32_t valid = left < WAVE_ITEMS ? (uint32_t)left : WAVE_ITEMS;
    const bool whole = valid == WAVE_ITEMS;

    /* ---- load ---- */
    const bool started = whole && prm.vec_in;
    if (started) pp_tile_load_start<K, ITEMS>(in + wbase, xbuf[w]);
    uint32_t fm = 0;
    if constexpr (MODE == PP_KEEP_FLAGS) fm = pp_tile_load_flags<ITEMS>(prm.flags + wbase, valid, whole && prm.vec_flags);
    K x[ITEMS];
    pp_tile_load_finish<K, ITEMS>(in + wbase, valid, started, xbuf[w], xbuf[w], x);

    /* ---- keep bits ---- */
    const uint32_t li0 = w * WAVE_ITEMS + lane * ITEMS; /* the tile index of x[0] */
    const uint32_t first = lane * ITEMS;
    const uint32_t mine = first < valid ? (valid - first < (uint32_t)ITEMS ? valid - first : (uint32_t)ITEMS) : 0;
    K prev = 0;
    if constexpr (MODE == PP_KEEP_RUN_HEAD) {
        __syncthreads(); /* the element before x[0] may be in another wave's buffer */
        if (mine && li0 > 0) prev = pp_run_elem<K, ITEMS>(&xbuf[0][0], li0 - 1);
        else if (mine && tbase > 0) prev = in[tbase - 1];
    }
    const pp_keep_pred pred = prm.pred;
    const int enc = prm.enc;
    const pp_lb_sleeps sleeps = prm.sleeps; /* a copy: no reference into the parameters */
    uint32_t keep = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        if ((uint32_t)k >= mine) continue;
        bool kk;
        if constexpr (MODE == PP_KEEP_FLAGS) kk = (fm >> k) & 1u;
        else if constexpr (MODE == PP_KEEP_PRED) kk = pp_keep_eval(&pred, (uint64_t)x[k], KW, enc) != 0;
        else kk = (tbase + li0 + k == 0) || !pp_same_key((uint64_t)(k ? x[k - 1] : prev), (uint64_t)x[k], KW, enc);
        keep |= (uint32_t)kk << k;
    }

    /* ---- places in the tile ---- */
    uint32_t total;
    const uint32_t before = pp_block_scan<pp_op_sum<uint32_t>, THREADS, false>((uint32_t)__popc(keep), &total);
    uint32_t o = before, r = total + (li0 - before);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        if ((uint32_t)k >= mine) continue;
        if ((keep >> k) & 1u) pos[o++] = (uint16_t)(li0 + k);
        else if (prm.partition) pos[r++] = (uint16_t)(li0 + k);
    }
    const uint64_t tile_left = prm.n - tbase;
    const uint32_t outs = prm.partition ? (tile_left < TILE ? (uint32_t)tile_left : (uint32_t)TILE) : total;
    __syncthreads();
    const unsigned psz = prm.psz;
    if (psz)
        for (uint32_t j = threadIdx.x; j < outs; j += THREADS)
            put_sized(pstage, j, psz, get_sized(prm.payload, tbase + pos[j], psz));
    __syncthreads(); /* every read of the tile's inputs is done */

    /* ---- the count before the tile ---- */
    if (w == 0) {
        uint64_t p = 0;
        if (prm.tiles > 1)
            p = pp_lookback_chain<count_op, false>(reinterpret_cast<pp_lb_entry<count_op> *>(prm.state), prm.tiles, t,
                                                   count_op::make(total, 0), true, sleeps)
                    .v;
        if (lane == 0) {
            tile_prefix = p;
            if (t == prm.tiles - 1) *prm.count = p + total;
        }
    }
    __syncthreads();

    /* ---- write ---- */
    const uint64_t pre = tile_prefix, rej_before = tbase - pre;
    const unsigned isz = prm.isz;
    for (uint32_t j = threadIdx.x; j < outs; j += THREADS) {
        const uint32_t li = pos[j];
        const uint64_t dst = j < total ? pre + j : prm.n - 1 - (rej_before + (j - total));
        if (prm.write_vals) reinterpret_cast<K *>(prm.out)[dst] = pp_run_elem<K, ITEMS>(&xbuf[0][0], li);
        if (psz) put_sized(prm.pout, dst, psz, get_sized(pstage, j, psz));
        if (isz) put_sized(prm.idx, dst, isz, tbase + li);
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

/* Run-length encoding, step 1: for every chunk of AUX_BLOCK runs, the start of the run after it
 * (n after the last), read before rle_lengths overwrites starts that share the lengths buffer. */
__global__ __launch_bounds__(AUX_BLOCK) void rle_bounds(const void *starts, unsigned ssz, uint64_t n,
                                                        const uint64_t *count, uint64_t *bnd)
{
    const uint64_t c = *count, chunks = (c + AUX_BLOCK - 1) / AUX_BLOCK;
    const uint64_t stride = (uint64_t)gridDim.x * AUX_BLOCK;
    for (uint64_t ch = (uint64_t)blockIdx.x * AUX_BLOCK + threadIdx.x; ch < chunks; ch += stride) {
        const uint64_t e = (ch + 1) * AUX_BLOCK;
        bnd[ch] = e < c ? get_sized(starts, e, ssz) : n;
    }
}

/* Step 2: lengths[r] = start[r + 1] - start[r] (u32 lengths wrap), a block per chunk of runs:
 * every start of the chunk is read before any length is written. */
__global__ __launch_bounds__(AUX_BLOCK) void rle_lengths(const void *starts, unsigned ssz, void *len, unsigned lsz,
                                                         const uint64_t *count, const uint64_t *bnd)
{
    __shared__ uint64_t s[AUX_BLOCK];
    const uint64_t c = *count;
    for (uint64_t ch = blockIdx.x; ch * AUX_BLOCK < c; ch += gridDim.x) {
        const uint64_t r = ch * AUX_BLOCK + threadIdx.x;
        s[threadIdx.x] = r < c ? get_sized(starts, r, ssz) : 0;
        __syncthreads();
        if (r < c) {
            const uint64_t next = threadIdx.x + 1 < (unsigned)AUX_BLOCK && r + 1 < c ? s[threadIdx.x + 1] : bnd[ch];
            put_sized(len, r, lsz, next - s[threadIdx.x]);
        }
        __syncthreads();
    }
}

inline bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

int encoding_of(pp_dtype t)
{
    if (t == PP_F32 || t == PP_F64) return PP_ENC_FLOAT;
    if (t == PP_I32 || t == PP_I64) return PP_ENC_SIGNED;
    return PP_ENC_UNSIGNED;
}

template <int KW, int MODE>
pp_status launch_tiles(pp_context *ctx, const void *in, const compact_params &prm, size_t smem)
{
    using K = typename word_of<KW>::type;
    if (smem)
        PP_HIP_TRY(ctx, hipFuncSetAttribute(reinterpret_cast<const void *>(compact_tiles<KW, MODE>),
                                            hipFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    compact_tiles<KW, MODE><<<(unsigned)prm.tiles, COMPACT_THREADS, smem, pp_hip(ctx)->stream>>>((const K *)in, prm);
    PP_HIP_CHECK_LAUNCH(ctx, "compact_tiles");
    return PP_OK;
}

template <int KW> pp_status launch_mode(pp_context *ctx, int mode, const void *in, const compact_params &prm, size_t smem)
{
    if (mode == PP_KEEP_FLAGS) return launch_tiles<KW, PP_KEEP_FLAGS>(ctx, in, prm, smem);
    if (mode == PP_KEEP_PRED) return launch_tiles<KW, PP_KEEP_PRED>(ctx, in, prm, smem);
    return launch_tiles<KW, PP_KEEP_RUN_HEAD>(ctx, in, prm, smem);
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
    /* run-length encoding: the runs' starts go where the lengths will be when they fit there */
    const bool rle = a->kind == PP_COMPACT_RLE;
    const unsigned ssz = rle ? (a->length_size == 8 || n <= 0xFFFFFFFFull ? (unsigned)a->length_size : 8u) : 0;
    const bool starts_apart = rle && ssz != a->length_size;

    /* Scratch: [count slot, 256] [ticket, 256] [tile states] [starts (u64, if apart)] [bounds] */
    using CE = pp_lb_carry<uint64_t>::entry;
    const size_t state_bytes = tiles > 1 ? 256 + pp_align256(pp_lb_chain_entries(tiles) * sizeof(CE)) : 0;
    const size_t starts_bytes = starts_apart ? pp_align256(n * 8) : 0;
    const size_t bnd_bytes = rle ? pp_align256(((n + AUX_BLOCK - 1) / AUX_BLOCK + 1) * 8) : 0;
    const size_t need = 256 + state_bytes + starts_bytes + bnd_bytes;
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
    const int items = esz == 8 ? compact_shape<8>::items : 16;
    /* The plan: param = {elements per thread, threads per block, delay, pause (ns)}. */
    pp__set_plan(ctx, "compaction", tiles <= 1 ? "single_tile" : "tiles", tiles, tiles, items, COMPACT_THREADS,
                 prm.sleeps.delay_ns, prm.sleeps.pause_ns);
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
        prm.partition = a->kind == PP_COMPACT_PARTITION;
        if (a->kind == PP_COMPACT_WHERE) {
            prm.idx = a->indices;
            prm.isz = (unsigned)a->index_size;
        }
        void *starts = starts_apart ? (void *)(scratch + 256 + state_bytes) : a->lengths;
        if (rle) {
            prm.idx = starts;
            prm.isz = ssz;
        }
        prm.count = dcount;
        prm.pred = a->pred;
        prm.enc = encoding_of(a->dtype);
        prm.vec_in = aligned16(a->in);
        prm.vec_flags = prm.flags && aligned16(prm.flags);
        const size_t smem = (size_t)prm.psz * tile;
        pp_status st = esz == 8 ? launch_mode<8>(ctx, a->keep, a->in, prm, smem)
                       : esz == 4 ? launch_mode<4>(ctx, a->keep, a->in, prm, smem)
                                  : launch_mode<1>(ctx, a->keep, a->in, prm, smem);
        if (st != PP_OK) return st;
        uint64_t g = (n + AUX_BLOCK - 1) / AUX_BLOCK;
        const uint64_t gmax = (uint64_t)hs->dev.cu_count * 8;
        if (g > gmax) g = gmax;
        if (prm.partition) {
            compact_reverse<<<(unsigned)g, AUX_BLOCK, 0, hs->stream>>>(a->out, esz, a->payload_out, prm.psz, n, dcount);
            PP_HIP_CHECK_LAUNCH(ctx, "compact_reverse");
        }
        if (rle) {
            uint64_t *bnd = (uint64_t *)(scratch + 256 + state_bytes + starts_bytes);
            rle_bounds<<<(unsigned)g, AUX_BLOCK, 0, hs->stream>>>(starts, ssz, n, dcount, bnd);
            PP_HIP_CHECK_LAUNCH(ctx, "rle_bounds");
            rle_lengths<<<(unsigned)g, AUX_BLOCK, 0, hs->stream>>>(starts, ssz, a->lengths, (unsigned)a->length_size,
                                                                  dcount, bnd);
            PP_HIP_CHECK_LAUNCH(ctx, "rle_lengths");
        }
    }
    if (a->space == PP_RESULT_HOST) {
        PP_HIP_TRY(ctx, hipMemcpyAsync(staging, dcount, 8, hipMemcpyDeviceToHost, hs->stream));
        PP_HIP_TRY(ctx, hipStreamSynchronize(hs->stream));
        memcpy(a->count, staging, 8);
    }
    return PP_OK;
}
