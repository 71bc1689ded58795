/*
 * scan.hip -- the scan family on the GPU: inclusive and exclusive scans, plain and segmented
 * (by head flags, or by offsets turned into head flags), in one pass over the data.
 *
 * One kernel, scan_tiles: a tile agent over the shared building blocks. Tiles of THREADS x
 * ITEMS elements (tuning_scan.h's shapes) are taken in ticket order (lookback.h), so a tile
 * only ever waits on tiles that have already started. On AMD a block scans one tile; on
 * NVIDIA a grid of as many blocks as fit scans tile after tile, and for the plain scans wave 1
 * loads the next tile into shared memory (cp.async) and publishes its aggregate while wave 0
 * looks back for the current one, so that a tile's aggregate is published one load after
 * its ticket and the block's loads are in flight while it looks back.
 *   thread -- ITEMS consecutive elements (tile_io.h: 16-byte vectors through a swizzled
 *             per-wave exchange), scanned sequentially in registers;
 *   wave   -- the thread totals, scanned by shuffles (blocks.h, pp_wave_scan_incl);
 *   block  -- the wave totals scanned by wave 0 (pp_block_scan_waves);
 *   device -- a decoupled look-back (lookback.h): the chain for integer accumulators, as any
 *             association gives them the same bits, and for segmented f32 sums carried in f64
 *             and folded in tile order; for the other float scans the fixed-order tree, so
 *             that every float result is bitwise reproducible whatever the timing.
 * Memory traffic: read n, write n (plus n flag bytes for segmented scans); the published
 * states are about 1.03 x #tiles entries (tree) or 2 x #tiles (chain), cleared by one memset
 * before the kernel. A single-tile input is one launch and needs no state at all.
 */
#include <string.h>

#include <type_traits>

#include "blocks.h"
#include "common.h"
#include "lookback.h"
#include "policy.h"
#include "tile_io.h"
#include "tuning_scan.h"

namespace {

/* The shape for a policy P (__launch_bounds__ is a macro on HIP: a comma in its arguments
 * needs parentheses around them). */
template <typename P, bool SEG> using scan_shape_of = scan_shape<typename P::in_t, typename P::acc_t, SEG>;
template <typename P> constexpr int scan_threads() { return scan_shape_of<P, false>::threads; }
template <typename P, bool SEG> constexpr int scan_min_blocks() { return scan_shape_of<P, SEG>::min_blocks; }
/* Whether blocks load and fold the next tile ahead: the plain scans, in persistent blocks of
 * more than one wave. Host and device passes agree (tuning_scan.h). */
template <typename P, bool SEG> constexpr bool scan_early()
{
    return SCAN_EARLY && SCAN_PERSISTENT && !SEG && scan_shape_of<P, SEG>::waves > 1;
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
 * (1.08-1.12 ms against 1.23-1.43). */
template <typename Op, typename A, bool SEG> constexpr int scan_chain()
{
    if (std::is_integral<A>::value) return 1;
    if (SEG && std::is_same<A, float>::value && std::is_same<Op, pp_op_sum<float>>::value) return 2;
    return 0;
}
/* The chain's accumulator. */
template <typename Op, typename A, bool SEG>
using chain_acc = typename std::conditional<scan_chain<Op, A, SEG>() == 2, double, A>::type;

/* The aggregate of a whole tile that pp_tile_copy_runs put in the input buffers (REGIONS runs),
 * folded in one order whoever runs it and however the tile was copied: lane l folds vectors
 * j * W + l of every region, two at a time, into four running values (element e of a pair
 * into value e mod 4: four chains of dependent operations instead of one), then the lanes
 * are combined in order (pp_wave_reduce_ordered); every lane returns the same bits. */
template <typename P, int ITEMS, int REGIONS> PP_DEVICE typename P::acc_t tile_fold(const pp_vec16 *ib)
{
    using X = typename P::in_t;
    using A = typename P::acc_t;
    using Op = typename P::op;
    using L = pp_lane_run<X, ITEMS>;
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
            u.v[h] = ib[r * L::VECS + pp_swz((unsigned)j * PP_WAVE + lane)];
        }
#pragma unroll
        for (int e = 0; e < 2 * L::EPV; ++e) acc[e & 3] = Op::apply(acc[e & 3], P::make(u.e[e], 0));
    }
    const A s = Op::apply(Op::apply(acc[0], acc[1]), Op::apply(acc[2], acc[3]));
    return pp_wave_reduce_ordered<Op>(s);
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
    pp_lb_sleeps sleeps;    /* look-back sleeps (tuning_scan.h, or the context's options) */
};

/* The larger of the input and output types: the staging buffer holds a run of either. */
template <typename P, typename Out>
using scan_xtype = typename std::conditional<(sizeof(typename P::in_t) > sizeof(Out)), typename P::in_t, Out>::type;

/* scan_tiles' buffers: every element of a tile once in each (counted in threads, not waves:
 * the host pass's PP_WAVE is not the device's), and whether they are dynamic. */
template <typename P, typename Out, bool SEG> constexpr size_t scan_smem_bytes()
{
    using SH = scan_shape_of<P, SEG>;
    return (size_t)SH::threads * SH::items * (sizeof(scan_xtype<P, Out>) + sizeof(typename P::in_t));
}
template <typename P, typename Out, bool SEG> constexpr bool scan_smem_dynamic()
{
    return scan_smem_bytes<P, Out, SEG>() > 40 * 1024;
}

template <typename P, typename Out, bool SEG>
__global__ __launch_bounds__(scan_threads<P>(), (scan_min_blocks<P, SEG>())) void scan_tiles(const typename P::in_t *in, Out *out,
                                                         const uint8_t *__restrict__ flags,
                                                         typename P::acc_t init, scan_params prm)
{
    using In = typename P::in_t;
    using A = typename P::acc_t;
    using Op = typename P::op;
    using SO = pp_scan_op<Op, A, SEG>;
    using T = typename SO::T;
    using SH = scan_shape_of<P, SEG>;
    constexpr int ITEMS = SH::items, SCAN_WAVES = SH::waves;
    constexpr uint32_t WAVE_ITEMS = (uint32_t)PP_WAVE * ITEMS;
    constexpr uint64_t TILE = (uint64_t)SH::threads * ITEMS;
    constexpr int BUF_VECS = pp_lane_run<scan_xtype<P, Out>, ITEMS>::VECS;
    constexpr int IN_VECS = pp_lane_run<In, ITEMS>::VECS;

    /* Per wave: a staging buffer for partial or misaligned loads and for stores, and the
     * input of the tile loaded next (SCAN_IBUF). Static, or dynamic where they pass 40 KB
     * (scan_smem_bytes: the 8-byte tiles of 4096 on NVIDIA). (Dynamic buffers for every
     * kernel were slower on the H100: f32 878 us against 856, u32 860-865 against 828.) */
    constexpr bool DYN = scan_smem_dynamic<P, Out, SEG>();
    __shared__ pp_vec16 xbuf[DYN ? 1 : SCAN_WAVES][DYN ? 1 : BUF_VECS];
    __shared__ pp_vec16 ibuf[DYN || !SCAN_PERSISTENT ? 1 : SCAN_WAVES][DYN || !SCAN_PERSISTENT ? 1 : IN_VECS];
    extern __shared__ pp_vec16 scan_smem[];
#define SCAN_XBUF (DYN ? scan_smem + w * BUF_VECS : xbuf[w])
/* One tile per block (no loop over tiles): its loads land in the staging buffer, free until
 * the tile is written (on gfx90a / gfx940, 64 KB of LDS per CU, a second buffer would leave
 * room for 2 blocks instead of 3). */
#define SCAN_IBUF (!SCAN_PERSISTENT ? SCAN_XBUF : DYN ? scan_smem + SCAN_WAVES * BUF_VECS + w * IN_VECS : ibuf[w])
    __shared__ T wave_excl[SCAN_WAVES];
    __shared__ T tile_prefix;
    __shared__ uint64_t tile_no[2]; /* the block's first tile; then the one after the current */
    /* EARLY: wave 1 loads and folds the next tile while wave 0 looks back (a whole tile, read
     * from the input buffers at the start of its turn; its aggregate already published).
     * (Spreading the copies and the fold over every wave but wave 0, with barriers among them,
     * measured no faster on the H100: f32 773-779 us against 770-775, f64 1.547-1.562 ms
     * against 1.530-1.532.) */
    constexpr bool EARLY = scan_early<P, SEG>();
    __shared__ A early_agg;
    __shared__ int early_ok;

    const unsigned lane = pp_lane_id(), w = pp_wave_id();
    const pp_lb_sleeps sleeps = prm.sleeps; /* a copy: no reference into the parameters */
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
        if (whole) pp_tile_load_start<In, ITEMS>(in + base, SCAN_IBUF);
        return whole;
    };
    /* A block scans tiles one after another (SCAN_PERSISTENT; else one), taken by ticket. It
     * takes the next ticket when the current tile's look-back is done (or, EARLY, at the start
     * of the current tile), and that tile's loads are in flight while the current one is
     * written and while the block moves on: no block launch between two tiles, and the load
     * latency overlapped. */
    auto take = [&](bool first) -> uint64_t {
        if (prm.tiles <= 1) return first ? 0 : prm.tiles;
        return pp_tile_ticket(prm.ticket);
    };
    /* EARLY, wave 1: tile u into the input buffers and its aggregate published, if u is whole
     * (the last tile, if partial, is loaded and published in its turn). */
    auto early = [&](uint64_t u) {
        const bool ok = u < prm.tiles && (u + 1) * TILE <= prm.n;
        A g = Op::identity();
        if (ok) {
            pp_vec16 *ib0 = DYN ? scan_smem + SCAN_WAVES * BUF_VECS : &ibuf[0][0];
            pp_tile_copy_runs<In, ITEMS, SCAN_WAVES>(in + u * TILE, prm.vec_in != 0, ib0);
            g = tile_fold<P, ITEMS, SCAN_WAVES>(ib0);
            /* the tile's aggregate (at index u for the chain and the tree alike), and for the
             * tree the nodes that end at tile u: waiting for them here, not in u's look-back, is
             * what lets the look-backs of later tiles find them published */
            using PO = pp_scan_op<Op, A, false>;
            auto *st = reinterpret_cast<pp_lb_entry<PO> *>(prm.state);
            if (prm.tiles > 1) {
                if constexpr (scan_chain<Op, A, SEG>() != 0) {
                    if (lane == 0) pp_lb_publish<PO>(st, u, PO::make(g, 0));
                } else {
                    pp_lookback_tree_publish<PO>(st, prm.tiles, u, PO::make(g, 0), sleeps);
                }
            }
        }
        if (lane == 0) {
            early_agg = g;
            early_ok = ok;
            tile_no[1] = u;
        }
    };
    if (threadIdx.x == 0) tile_no[0] = take(true);
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
        /* EARLY: the ticket of the tile after this one, taken now so that the atomic's round
         * trip passes while this tile is scanned; its loads start once every wave has read
         * this tile out of the input buffers. */
        uint64_t tk = 0;
        if (EARLY && w == 1 && lane == 0) tk = take(false);
        const uint64_t base = run_base(t);
        const uint32_t valid = run_valid(base);
        const bool whole = valid == WAVE_ITEMS;

        /* ---- this lane's elements, scanned ---- */
        In x[ITEMS];
        pp_tile_load_finish<In, ITEMS>(in + base, valid, pre, SCAN_IBUF, SCAN_XBUF, x);
        uint32_t fm = 0;
        if constexpr (SEG) fm = pp_tile_load_flags<ITEMS>(flags + base, valid, whole && prm.vec_flags);
        /* lv[k]: the lane's inclusive values, restarting at its heads (bit k of fm). */
        A lv[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const A e = lane * ITEMS + k < valid ? P::make(x[k], 0) : Op::identity();
            const bool head = SEG && ((fm >> k) & 1u);
            lv[k] = (k == 0 || head) ? e : Op::apply(lv[k - 1], e);
        }

        /* ---- wave: inclusive scan of the lane totals ---- */
        const T v = pp_wave_scan_incl<SO>(SO::make(lv[ITEMS - 1], fm != 0));
        const T lane_excl = pp_wave_excl_of_incl<SO>(v);
        if (lane == PP_WAVE - 1) wave_excl[w] = v; /* the wave's total, for now */
        __syncthreads();

        /* ---- block: wave 0 scans the wave totals, then looks back ---- */
        if (EARLY && w == 1) {
            early((uint64_t)pp_shfl_any(tk, 0));
        } else if (w == 0) {
            const T block_total = pp_block_scan_waves<SO, SCAN_WAVES>(wave_excl);
            /* the tile's aggregate: the block's, or, for a tile loaded early, the one published */
            const T agg = EARLY && pre ? SO::make(eagg, 0) : block_total;
            T p = SO::identity();
            if (prm.tiles > 1) {
                if constexpr (scan_chain<Op, A, SEG>() != 0) {
                    using C = chain_acc<Op, A, SEG>;
                    using CO = pp_scan_op<typename op_rebind<Op, C>::type, C, SEG>;
                    const typename CO::T pc = pp_lookback_chain<CO, scan_chain<Op, A, SEG>() == 2>(
                        reinterpret_cast<pp_lb_entry<CO> *>(prm.state), prm.tiles, t, CO::make(C(agg.v), agg.f),
                        !(EARLY && pre), sleeps);
                    p = SO::make(A(pc.v), pc.f);
                } else {
                    p = pp_lookback_tree<SO>(reinterpret_cast<pp_lb_entry<SO> *>(prm.state), prm.tiles, t, agg,
                                             !(EARLY && pre), sleeps);
                }
            }
            if (lane == 0) {
                tile_prefix = p;
                /* The next ticket only now: a tile's aggregate is published soon after its
                 * ticket is taken, or every tile after it waits (taken before this look-back,
                 * u32 at 2^28 ran at 1.08 ms against 0.86). */
                if (SCAN_PERSISTENT && !EARLY) tile_no[1] = take(false);
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

        /* Covered range relative to this wave's run (offsets form, a segmented scan: the
         * plain scans have no cover). Read only now: live across the look-back, the range
         * cost the segmented kernels registers (ptxas, sm_90: f32 sums spilled 40 / 64
         * bytes, 20 / 32 without). */
        int64_t lo = 0, hi = WAVE_ITEMS;
        if (SEG && prm.cover) {
            uint64_t c0 = prm.cover[0], c1 = prm.cover[prm.nseg];
            if (c0 > prm.n) c0 = prm.n;
            if (c1 > prm.n) c1 = prm.n;
            lo = (int64_t)c0 - (int64_t)base;
            hi = (int64_t)c1 - (int64_t)base;
        }
        const bool covered = lo <= 0 && hi >= (int64_t)WAVE_ITEMS;

        /* ---- results: prefix = ((tile prefix op wave prefix) op lane prefix) ---- */
        const T pre_v = SO::apply(SO::apply(tile_prefix, wave_excl[w]), lane_excl);
        /* Element k's result is pre op lv[k], unless a head at or before k (in this lane)
         * already restarted it: the segmented operator, spelled out per element. A head
         * comes at or before k where k >= fh, the lane's first head: one compare with a
         * constant per element. (Testing fm against a mask per element, ptxas of CUDA 13
         * spilled in every segmented kernel, f32 min / max 84 / 144 bytes on sm_90.) */
        Out y[ITEMS];
        const A a_init = init;
        const int fh = SEG && fm ? (int)__ffs((int)fm) - 1 : ITEMS;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const bool seen = SEG && k >= fh;
            if (!prm.exclusive) {
                y[k] = Out(seen ? lv[k] : Op::apply(pre_v.v, lv[k]));
            } else {
                const bool seen_before = SEG && k > fh;
                const A e = k == 0 ? pre_v.v : (seen_before ? lv[k - 1] : Op::apply(pre_v.v, lv[k - 1]));
                const bool head = SEG && ((fm >> k) & 1u);
                y[k] = Out(head ? a_init : Op::apply(a_init, e));
            }
        }
        pp_tile_store<Out, ITEMS>(out + base, valid, lo, hi, whole && covered && prm.vec_out, SCAN_XBUF, y);
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

template <typename P, typename Out, bool SEG> pp_status scan_launch(pp_context *ctx, const pp_scan_args *a)
{
    using In = typename P::in_t;
    using A = typename P::acc_t;
    using Op = typename P::op;
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
    constexpr bool chain = scan_chain<Op, A, SEG>() != 0;
    using CE = typename pp_lb_carry<chain_acc<Op, A, SEG>>::entry;
    const size_t lb_bytes = chain ? pp_lb_chain_entries(tiles) * sizeof(CE)
                                  : pp_lb_entries(tiles) * sizeof(typename pp_lb_carry<A>::entry);
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
    /* Look-back sleeps: the device's row of tuning_scan.h, unless the context sets them. */
    constexpr bool ahead = scan_early<P, SEG>();
    const pp_scan_tuning *tu = pp_scan_tuning_for(&hs->dev);
    const unsigned dflt_pause = chain ? tu->chain_pause_ns : tu->tree_pause_ns;
    const unsigned dflt_delay = ahead ? (chain ? tu->ahead_chain_delay_ns : tu->ahead_tree_delay_ns)
                                : chain ? tu->chain_delay_ns
                                : sizeof(A) <= 4 ? tu->tree_delay4_ns : tu->tree_delay8_ns;
    const int64_t opt_pause = pp__option(ctx, PP_OPTION_SCAN_PAUSE_NS);
    const int64_t opt_delay = pp__option(ctx, PP_OPTION_SCAN_DELAY_NS);
    prm.sleeps.pause_ns = opt_pause >= 0 ? (unsigned)opt_pause : dflt_pause;
    prm.sleeps.delay_ns = opt_delay >= 0 ? (unsigned)opt_delay : dflt_delay;
    Out init_out;
    memcpy(&init_out, a->init, sizeof init_out);
    /* One block per tile up to the blocks that fit at once; beyond, where blocks loop over
     * tiles (SCAN_PERSISTENT), each block scans tiles one after another. (The occupancy query
     * and the attribute run per call, as the histogram's do: about a microsecond, and only
     * for grids past the guess or for the 8-byte kernels.) */
    auto kernel = scan_tiles<P, Out, SEG>;
    constexpr size_t smem = scan_smem_dynamic<P, Out, SEG>() ? scan_smem_bytes<P, Out, SEG>() : 0;
    if (smem)
        PP_HIP_TRY(ctx, hipFuncSetAttribute(reinterpret_cast<const void *>(kernel),
                                            hipFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    uint64_t grid = tiles;
    if (SCAN_PERSISTENT) {
        const uint64_t fit_guess = (uint64_t)hs->dev.cu_count * SH::min_blocks;
        if (tiles > fit_guess) {
            int per_cu = 0;
            if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, kernel, SH::threads, smem) != hipSuccess ||
                per_cu < 1) {
                (void)hipGetLastError();
                per_cu = SH::min_blocks;
            }
            const uint64_t fit = (uint64_t)hs->dev.cu_count * (unsigned)per_cu;
            if (grid > fit) grid = fit;
        }
        /* PP_OPTION_SCAN_MAX_BLOCKS: at most this many blocks (0: no cap), so that tests can
         * have every block scan many tiles at sizes the sanitizers can run. */
        const int64_t cap = pp__option(ctx, PP_OPTION_SCAN_MAX_BLOCKS);
        if (cap > 0 && grid > (uint64_t)cap) grid = (uint64_t)cap;
    }
    /* The plan: param = {elements per thread, threads per block, delay, pause (ns)}. */
    pp__set_plan(ctx, "scan", tiles <= 1 ? "single_tile" : ahead ? "tiles_early" : "tiles", grid, tiles, SH::items,
                 SH::threads, prm.sleeps.delay_ns, prm.sleeps.pause_ns);
    kernel<<<(unsigned)grid, SH::threads, smem, hs->stream>>>((const In *)a->in, (Out *)a->out, flags, A(init_out), prm);
    PP_HIP_CHECK_LAUNCH(ctx, "scan_tiles");
    return PP_OK;
}

/* pp_hip_dispatch's family: a scan of P's inputs to Outs, segmented where the call has head
 * flags or offsets. */
struct scan_family {
    pp_context *ctx;
    const pp_scan_args *a;
    template <typename P, typename Out> pp_status go()
    {
        if (a->head_flags || a->offsets) return scan_launch<P, Out, true>(ctx, a);
        return scan_launch<P, Out, false>(ctx, a);
    }
};

} // namespace

pp_status pp_hip_scan(pp_context *ctx, const pp_scan_args *a)
{
    scan_family fam = {ctx, a};
    return pp_hip_dispatch(ctx, "scan", a->in_type, a->op, a->out_type, fam);
}
