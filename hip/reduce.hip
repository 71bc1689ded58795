/*
 * reduce.hip -- the reduce family on the GPU: reduce, argmin/argmax, segmented reduce.
 *
 * Reduce (and argmin/argmax) is a two-level tree (Harris, "Optimizing Parallel Reduction in
 * CUDA"; CUB's DeviceReduce layering), written once over the compile-time wave width:
 *   tile   -- 256 threads, each loading VPT 16-byte vectors (coalesced, streamed past L1),
 *             reduced in registers by a pairwise tree;
 *   block  -- a contiguous run of tiles (even share, grid sized from the CU count), combined
 *             by a pairwise stream accumulator, then a wave butterfly and one cross-wave step;
 *   device -- the per-block partials are reduced by the same kernel (one block when they fit
 *             a block's share), so small inputs are one launch.
 * Every float element passes through at most ~log2(n) + 20 roundings (the header's bound
 * allows log2(n) + 48), with no atomics: results are reproducible run to run.
 *
 * Segmented reduce maps work by segment length: a group of LANES lanes (4, 16 or 32, chosen
 * from the mean segment length) reduces one segment; a segment too long for its group is
 * queued instead and split into 4096-element chunks that all blocks share (persistent
 * grid), whose partials a third kernel combines per segment. No host synchronization.
 */
#include <string.h>

#include <atomic>
#include <type_traits>

#include "blocks.h"
#include "common.h"
#include "policy.h"

namespace {

constexpr int BLOCK = 256;       /* threads per block, a multiple of every wave width */
constexpr int VPT = REDUCE_VPT;  /* 16-byte vectors per thread per tile */
constexpr int STREAM_LEVELS = 8; /* pairwise levels of a block's tile stream (2^8 tiles) */

/* ---- accumulation policies beyond policy.h's plain one ---- */



/* argmin / argmax: (value, index) pairs. */
template <typename V, bool IsMax> struct arg_policy {
    using in_t = V;
    using acc_t = pp_argpair<shfl_t<V>>;
    using op = pp_op_arg<shfl_t<V>, IsMax>;
    static constexpr bool ordered = false; /* the index breaks every tie */
    /* Pairs are 16 bytes: fewer vectors per thread keep them (and the SGPR-held index
     * arithmetic on AMD) in registers. */
    static constexpr int vpt = sizeof(V) == 1 ? 2 : 4;
    static PP_DEVICE acc_t make(V x, uint64_t i)
    {
        acc_t r;
        r.v = shfl_t<V>(x);
        r.i = i;
        return r;
    }
    template <typename Out> static PP_DEVICE void store(acc_t r, Out *v, uint64_t *i)
    {
        *v = Out(r.v);
        *i = r.i;
    }
};

/* Later levels read the partials of the level before. */
template <typename P> struct partial_policy {
    using in_t = typename P::acc_t;
    using acc_t = typename P::acc_t;
    using op = typename P::op;
    static constexpr bool ordered = P::ordered;
    static constexpr int vpt = sizeof(acc_t) == 16 ? 4 : VPT;
    static PP_DEVICE acc_t make(acc_t x, uint64_t) { return x; }
    template <typename Out> static PP_DEVICE void store(acc_t r, Out *v, uint64_t *i) { P::store(r, v, i); }
};

/* Combines a stream of values in pairwise order (a binary counter of partial results), so
 * that k values reach the result through about log2(k) + 1 roundings instead of k. Used
 * only where the order matters (floats); otherwise a plain running value. */
template <typename Op, typename A, int LEVELS, bool Ordered> struct stream_acc {
    A slot[LEVELS];
    uint32_t count = 0;
    PP_DEVICE void push(A v)
    {
        /* Binary increment with predication only (no break), so slot[] stays in registers. */
        bool carry = true;
#pragma unroll
        for (int l = 0; l < LEVELS; ++l) {
            if (carry) {
                if (l == LEVELS - 1) { /* top level: sequential beyond 2^LEVELS values */
                    slot[l] = (count >> l) ? Op::apply(slot[l], v) : v;
                    carry = false;
                } else if (count & (1u << l)) {
                    v = Op::apply(slot[l], v);
                } else {
                    slot[l] = v;
                    carry = false;
                }
            }
        }
        ++count;
    }
    PP_DEVICE A result() const
    {
        A r = Op::identity();
        bool any = false;
#pragma unroll
        for (int l = 0; l < LEVELS; ++l) {
            bool has = (l == LEVELS - 1) ? (count >> l) != 0 : ((count >> l) & 1u) != 0;
            if (has) {
                r = any ? Op::apply(slot[l], r) : slot[l];
                any = true;
            }
        }
        return r;
    }
};
template <typename Op, typename A, int LEVELS> struct stream_acc<Op, A, LEVELS, false> {
    A acc = Op::identity();
    PP_DEVICE void push(A v) { acc = Op::apply(acc, v); }
    PP_DEVICE A result() const { return acc; }
};

/*
 * One level of the reduction. `body` is 16-byte aligned and holds nvec whole vectors; the
 * `nhead` elements before it (block 0) and `ntail` after it (last block) are folded in
 * separately. Block b reduces tiles [b*tpb, (b+1)*tpb). With out_v == NULL it writes its
 * partial to partials[b]; otherwise (a single block) it stores the final result.
 */
template <typename P, typename Out>
__global__ __launch_bounds__(BLOCK) void reduce_level(const typename P::in_t *__restrict__ body,
                                                      uint64_t nvec, uint64_t tpb, uint64_t body_index,
                                                      const typename P::in_t *__restrict__ head,
                                                      unsigned nhead,
                                                      const typename P::in_t *__restrict__ tail,
                                                      unsigned ntail, uint64_t tail_index,
                                                      typename P::acc_t *__restrict__ partials,
                                                      Out *out_v, uint64_t *out_i)
{
    using In = typename P::in_t;
    using A = typename P::acc_t;
    using Op = typename P::op;
    constexpr int VEC = 16 / sizeof(In);
    constexpr int VPT = P::vpt;
    constexpr uint64_t TILE = (uint64_t)BLOCK * VPT; /* vectors per tile */
    const unsigned tid = threadIdx.x;
    /* Launched as a programmatic dependent (launch_level): wait for the grids before this one
     * to finish and flush before touching memory; let the next such launch start now, so that
     * its launch overlaps this grid (it waits here in turn). No-ops in an ordinary launch. */
    pp_grid_dep_wait();
    pp_grid_dep_launch();

    const uint64_t ntiles = (nvec + TILE - 1) / TILE;
    const uint64_t t0 = (uint64_t)blockIdx.x * tpb;
    const uint64_t t1 = t0 + tpb < ntiles ? t0 + tpb : ntiles;
    stream_acc<Op, A, STREAM_LEVELS, P::ordered> acc;
    for (uint64_t t = t0; t < t1; ++t) {
        const uint64_t v0 = t * TILE + tid;
        /* A pairwise tree within each vector, then across the thread's vectors. */
        A vr[VPT];
        if ((t + 1) * TILE <= nvec) {
            pp_vec16 raw[VPT];
#pragma unroll
            for (int j = 0; j < VPT; ++j) raw[j] = pp_load16_stream(body + (v0 + (uint64_t)j * BLOCK) * VEC);
#pragma unroll
            for (int j = 0; j < VPT; ++j) {
                A e[VEC];
#pragma unroll
                for (int k = 0; k < VEC; ++k)
                    e[k] = P::make(pp_vec_elem<In>(raw[j], k), body_index + (v0 + (uint64_t)j * BLOCK) * VEC + k);
                vr[j] = pp_tree_reduce<Op>(e);
            }
        } else {
#pragma unroll
            for (int j = 0; j < VPT; ++j) {
                const uint64_t vi = v0 + (uint64_t)j * BLOCK;
                vr[j] = Op::identity();
                if (vi < nvec) {
                    pp_vec16 raw = pp_load16_stream(body + vi * VEC);
                    A e[VEC];
#pragma unroll
                    for (int k = 0; k < VEC; ++k) e[k] = P::make(pp_vec_elem<In>(raw, k), body_index + vi * VEC + k);
                    vr[j] = pp_tree_reduce<Op>(e);
                }
            }
        }
        acc.push(pp_tree_reduce<Op>(vr));
    }
    A r = acc.result();
    if (blockIdx.x == 0 && tid < nhead) r = Op::apply(r, P::make(head[tid], tid));
    if (blockIdx.x == gridDim.x - 1 && tid < ntail) r = Op::apply(r, P::make(tail[tid], tail_index + tid));
    r = pp_block_reduce<Op, BLOCK>(r);
    if (tid == 0) {
        if (out_v)
            P::template store<Out>(r, out_v, out_i);
        else
            partials[blockIdx.x] = r;
    }
}

/* The tuning a reduce call runs with: the device's row of tuning_reduce.h (chosen on the
 * context's first call), overridden by the experimental options where they are set. */
pp_reduce_tuning reduce_tuning(pp_context *ctx)
{
    pp_hip_state *hs = pp_hip(ctx);
    if (hs->tune.grid_waves == 0) hs->tune = pp_reduce_tuning_for(hs->dev.cc_major, hs->dev.arch);
    pp_reduce_tuning t = hs->tune;
    const int64_t waves = pp__option(ctx, PP_OPTION_REDUCE_GRID_WAVES);
    const int64_t tiles = pp__option(ctx, PP_OPTION_REDUCE_MAX_TILES);
    if (waves > 0) t.grid_waves = (int)waves;
    if (tiles > 0) t.max_tiles_per_block = (int)tiles;
    return t;
}

/* Records the plan (pp__set_plan) unless the context's last plan is already this one: the
 * small-n path is a few microseconds a call, and recording copies two strings. */
void set_reduce_plan(pp_context *ctx, const char *strategy, uint64_t grid, uint64_t tiles, int64_t p0, int64_t p1,
                     int64_t p2, int64_t p3)
{
    const pp_plan &q = ctx->plan;
    if (q.grid == grid && q.tiles == tiles && q.param[0] == p0 && q.param[1] == p1 && q.param[2] == p2 &&
        q.param[3] == p3 && !strcmp(q.family, "reduce") && !strcmp(q.strategy, strategy))
        return;
    pp__set_plan(ctx, "reduce", strategy, grid, tiles, p0, p1, p2, p3);
}

/* Geometry of one level over n elements of In starting at `in`. */
struct level_plan {
    uint64_t nhead, nvec, ntail, ntiles, tpb, grid;
};

/* Resident blocks per CU of reduce_level<P, Out> on the context's device. */
template <typename P, typename Out> int level_occupancy(pp_context *ctx)
{
    static std::atomic<int> occ[PP_HIP_CACHE_DEVICES];
    return pp_hip_cached_per_device(occ, ctx->device, [] {
        int o = 0;
        if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&o, reduce_level<P, Out>, BLOCK, 0) != hipSuccess || o < 1) {
            (void)hipGetLastError();
            o = 1;
        }
        return o;
    });
}

template <typename P, typename Out>
level_plan plan_level(pp_context *ctx, const typename P::in_t *in, uint64_t n, const pp_reduce_tuning &tune)
{
    constexpr uint64_t TILE = (uint64_t)BLOCK * P::vpt;
    level_plan p;
    const pp_split16 sp = pp_split_for16(in, n);
    p.nhead = sp.head;
    p.nvec = sp.nvec;
    p.ntail = sp.tail;
    p.ntiles = (p.nvec + TILE - 1) / TILE;
    const uint64_t target = (uint64_t)pp_hip(ctx)->dev.cu_count * level_occupancy<P, Out>(ctx) * tune.grid_waves;
    uint64_t tpb = (p.ntiles + target - 1) / (target ? target : 1);
    const uint64_t max_tpb = (uint64_t)tune.max_tiles_per_block;
    if (tpb < 1) tpb = 1;
    if (tpb > max_tpb) tpb = max_tpb;
    if (p.ntiles <= max_tpb && p.ntiles <= 4) tpb = p.ntiles ? p.ntiles : 1; /* one block: one launch */
    p.tpb = tpb;
    p.grid = p.ntiles ? (p.ntiles + tpb - 1) / tpb : 1;
    return p;
}

/* reduce_level<P, Out> is launched as a programmatic dependent where it may be
 * (pp_hip_pdl_ready): its grid starts while the previous kernel of the stream finishes, and
 * waits in the kernel. Measured on an H200 (2026-11-26, CUB in the same process):
 * latency_sum_ctx (n = 1024, calls back to back) 5.68 / 3.91 us before, 3.49 / 3.12 / 3.50 /
 * 3.72 us with it, against CUB 3.0.1's 4.46 / 4.02 us and CUB 3.6.0's 5.17 / 5.00 us; the 2^28
 * rows 0 to 0.9% faster, u8 -> u64 sums 67.4 -> 65.6 us. */
template <typename P, typename Out>
pp_status launch_level(pp_context *ctx, const typename P::in_t *in, uint64_t n, const level_plan &p,
                       typename P::acc_t *partials, Out *out_v, uint64_t *out_i)
{
    using In = typename P::in_t;
    constexpr int VEC = 16 / sizeof(In);
    const In *body = in + p.nhead;
    const In *tail = body + p.nvec * VEC;
    if (pp_hip_pdl_ready<reduce_level<P, Out>>(pp_hip(ctx)->dev)) {
        PP_HIP_TRY(ctx, pp_hip_launch_pdl(reduce_level<P, Out>, (unsigned)p.grid, BLOCK, pp_hip(ctx)->stream, body,
                                          p.nvec, p.tpb, (uint64_t)p.nhead, in, (unsigned)p.nhead, tail,
                                          (unsigned)p.ntail, p.nhead + p.nvec * VEC, partials, out_v, out_i));
        (void)n;
        return PP_OK;
    }
    reduce_level<P, Out><<<(unsigned)p.grid, BLOCK, 0, pp_hip(ctx)->stream>>>(
        body, p.nvec, p.tpb, p.nhead, in, (unsigned)p.nhead, tail, (unsigned)p.ntail,
        p.nhead + p.nvec * VEC, partials, out_v, out_i);
    PP_HIP_CHECK_LAUNCH(ctx, "reduce_level");
    (void)n;
    return PP_OK;
}

/* Runs every level; the final result goes to out_v / out_i (device memory). The plan
 * (pp_context_last_plan): family "reduce", strategy "single_tile" (one launch) or "tiles",
 * grid and tiles of the first level; param[0] levels (launches), [1] tiles per block of the
 * first level, [2] grid_waves, [3] max_tiles_per_block. */
template <typename P, typename Out>
pp_status run_reduce(pp_context *ctx, const typename P::in_t *in, uint64_t n, const level_plan &p,
                     const pp_reduce_tuning &tune, Out *out_v, uint64_t *out_i, void *scratch_base)
{
    using A = typename P::acc_t;
    if (p.grid == 1) {
        set_reduce_plan(ctx, "single_tile", 1, p.ntiles, 1, (int64_t)p.tpb, tune.grid_waves,
                     tune.max_tiles_per_block);
        return launch_level<P, Out>(ctx, in, n, p, nullptr, out_v, out_i);
    }

    A *buf[2] = {(A *)scratch_base, (A *)((char *)scratch_base + pp_align256(p.grid * sizeof(A)))};
    pp_status st = launch_level<P, Out>(ctx, in, n, p, buf[0], nullptr, nullptr);
    if (st != PP_OK) return st;
    uint64_t m = p.grid;
    for (int level = 1;; ++level) {
        const A *src = buf[(level - 1) & 1];
        level_plan q = plan_level<partial_policy<P>, Out>(ctx, src, m, tune);
        if (q.grid == 1) {
            set_reduce_plan(ctx, "tiles", p.grid, p.ntiles, level + 1, (int64_t)p.tpb, tune.grid_waves,
                         tune.max_tiles_per_block);
            return launch_level<partial_policy<P>, Out>(ctx, src, m, q, nullptr, out_v, out_i);
        }
        st = launch_level<partial_policy<P>, Out>(ctx, src, m, q, buf[level & 1], nullptr, nullptr);
        if (st != PP_OK) return st;
        m = q.grid;
    }
}

/* Scratch a reduction whose first level is p needs: two partial buffers (and 256 bytes spare). */
template <typename P> size_t reduce_scratch_bytes(const level_plan &p)
{
    return 2 * pp_align256(p.grid * sizeof(typename P::acc_t)) + 256;
}

/* Result to device memory, or through pinned staging to the host. */
template <typename P, typename Out>
pp_status reduce_to(pp_context *ctx, const typename P::in_t *in, uint64_t n, void *out_v_user,
                    uint64_t *out_i_user, pp_result_space space)
{
    pp_hip_state *hs = pp_hip(ctx);
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    const pp_reduce_tuning tune = reduce_tuning(ctx);
    const level_plan p = plan_level<P, Out>(ctx, in, n, tune);
    const size_t need = reduce_scratch_bytes<P>(p);
    void *scratch = nullptr;
    pp_status st = pp__scratch(ctx, need, &scratch);
    if (st != PP_OK) return st;
    void *staging = nullptr;
    if (space == PP_RESULT_HOST) PP_TRY(pp_hip_staging(ctx, &staging));
    /* A host result: the last kernel writes it straight into the pinned staging block (device
     * accessible on both runtimes), so the call ends with one synchronization and no copy node
     * ([0, 16): value, [16, 24): index); the caller's memory is written only on success. */
    char *res = space == PP_RESULT_CONTEXT ? nullptr : (char *)staging;
    Out *dv = res ? (Out *)res : (Out *)out_v_user;
    uint64_t *di = out_i_user ? (res ? (uint64_t *)(res + 16) : out_i_user) : nullptr;
    st = run_reduce<P, Out>(ctx, in, n, p, tune, dv, di, scratch);
    if (st != PP_OK || space == PP_RESULT_CONTEXT) return st;
    PP_HIP_TRY(ctx, hipStreamSynchronize(hs->stream));
    memcpy(out_v_user, staging, sizeof(Out));
    if (out_i_user) memcpy(out_i_user, (char *)staging + 16, sizeof(uint64_t));
    return PP_OK;
}


/* pp_hip_dispatch's family: a reduction of P's inputs to an Out. */
struct reduce_family {
    pp_context *ctx;
    const pp_reduce_args *a;
    template <typename P, typename Out> pp_status go()
    {
        return reduce_to<P, Out>(ctx, (const typename P::in_t *)a->in, a->n, a->out, nullptr, a->space);
    }
};

} // namespace

pp_status pp_hip_reduce(pp_context *ctx, const pp_reduce_args *a)
{
    reduce_family fam = {ctx, a};
    return pp_hip_dispatch(ctx, "pp_reduce", a->in_type, a->op, a->out_type, fam);
}

namespace {
template <typename V> pp_status argreduce_t(pp_context *ctx, const pp_argreduce_args *a)
{
    if (a->op == PP_OP_MAX)
        return reduce_to<arg_policy<V, true>, V>(ctx, (const V *)a->in, a->n, a->value, a->index, a->space);
    return reduce_to<arg_policy<V, false>, V>(ctx, (const V *)a->in, a->n, a->value, a->index, a->space);
}
} // namespace

pp_status pp_hip_argreduce(pp_context *ctx, const pp_argreduce_args *a)
{
#define PP_CALL_ARG(I, O) argreduce_t<I>(ctx, a)
    const pp_dtype same = a->dtype;
    PP_DISPATCH_IN_OUT(ctx, a->dtype, same, PP_CALL_ARG);
#undef PP_CALL_ARG
    return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "argmin/argmax: hip has no %s", pp_dtype_name(a->dtype));
}

/* ======================= segmented reduce ======================= */

namespace {

constexpr int SEG_CH = 8;                       /* loads in flight per lane per chunk */
constexpr int SEG_CHUNK_ITEMS = 16;             /* long path: items per thread per chunk */
constexpr uint64_t SEG_CHUNK = (uint64_t)BLOCK * SEG_CHUNK_ITEMS; /* 4096 elements */
constexpr int SEG_PACK_SHIFT = 40;              /* control word: count << 40 | chunks */

/* A queued long segment: [begin, end), output slot s, its chunks start at `chunk0`. */
struct seg_long {
    uint64_t s, begin, end, chunk0;
};

PP_DEVICE void seg_bounds(const size_t *offsets, uint64_t s, uint64_t n, uint64_t &b, uint64_t &e)
{
    b = offsets[s];
    e = offsets[s + 1];
    if (b > n) b = n;
    if (e > n) e = n;
    if (e < b) e = b;
}

/* The group path's reduction of [b, e) by the LANES lanes of a group (lane = 0 .. LANES-1):
 * a fixed order for given (b, e, LANES), wherever the group runs. Every lane of the group
 * must call it (the result is the group's, in every lane). */
template <typename P, int LANES>
PP_DEVICE typename P::acc_t seg_group_reduce(const typename P::in_t *__restrict__ in, uint64_t b, uint64_t e,
                                             unsigned lane)
{
    using A = typename P::acc_t;
    using Op = typename P::op;
    /* 12 pairwise levels: a long segment reduced here (see seg_finish) keeps the bound. */
    stream_acc<Op, A, 12, P::ordered> acc;
    for (uint64_t base = b + lane; base < e; base += (uint64_t)LANES * SEG_CH) {
        A v[SEG_CH];
#pragma unroll
        for (int c = 0; c < SEG_CH; ++c) {
            const uint64_t i = base + (uint64_t)c * LANES;
            v[c] = i < e ? P::make(in[i], i) : Op::identity();
        }
        acc.push(pp_tree_reduce<Op>(v));
    }
    return pp_wave_reduce<Op, LANES>(acc.result());
}

/* Control words in the scratch (256 bytes, zeroed before seg_groups): ctrl[0] the queue
 * (count << 40 | chunks), ctrl[1] nonzero once a long segment did not fit the queue. */
constexpr int SEG_CTRL_OVERFLOW = 1;

/* Group of LANES lanes per segment. Segments longer than LANES * SEG_CH * 8 are queued.
 *
 * Determinism with offsets that are not monotone. Clamped offsets may overlap, so the long
 * segments can ask for more queue entries or chunks than the buffers hold (they are sized
 * for n elements). Which claims then fit depends on the order in which groups run, and a
 * segment reduced by its group adds in another order than one reduced in chunks: the bits
 * of a float sum would change from call to call. So the path of a long segment must not
 * depend on the race: whether the total demand exceeds the buffers does not (claims only
 * add up), and when it does, seg_groups raises ctrl[1], seg_chunks does nothing, and
 * seg_finish reduces the queued segments with the group path (seg_group_reduce, same
 * LANES) that reduced the others. With monotone offsets the demand always fits. */
template <typename P, typename Out, int LANES>
__global__ __launch_bounds__(BLOCK) void seg_groups(const typename P::in_t *__restrict__ in, uint64_t n,
                                                    const size_t *__restrict__ offsets, uint64_t nseg,
                                                    Out *__restrict__ out, unsigned long long *ctrl,
                                                    seg_long *list, uint64_t max_long, uint64_t max_chunks)
{
    constexpr uint64_t LONG = (uint64_t)LANES * SEG_CH * 8;
    const uint64_t g = ((uint64_t)blockIdx.x * BLOCK + threadIdx.x) / LANES;
    const unsigned lane = threadIdx.x % LANES;
    /* No early return: every lane must reach the group's shuffles. */
    const bool valid = g < nseg;
    bool queued = false;
    uint64_t b = 0, e = 0;
    if (valid) {
        seg_bounds(offsets, g, n, b, e);
        if (e - b > LONG && lane == 0) {
            /* Claim a queue entry and a run of chunk slots in one step (count << 40 | chunks),
             * only while both fit the buffers; a claim that does not fit raises the overflow
             * word (see above) and the segment stays with the group. */
            const unsigned long long chunks = (e - b + SEG_CHUNK - 1) / SEG_CHUNK;
            unsigned long long old = *(volatile unsigned long long *)ctrl, seen;
            for (;;) {
                const uint64_t count = old >> SEG_PACK_SHIFT, total = old & ((1ull << SEG_PACK_SHIFT) - 1);
                if (count + 1 > max_long || total + chunks > max_chunks) {
                    atomicOr(ctrl + SEG_CTRL_OVERFLOW, 1ull);
                    break;
                }
                seen = atomicCAS(ctrl, old, old + ((1ull << SEG_PACK_SHIFT) | chunks));
                if (seen == old) {
                    seg_long item = {g, b, e, total};
                    list[count] = item;
                    queued = true;
                    break;
                }
                old = seen;
            }
        }
    }
    queued = pp_shfl_any((int)queued, 0, LANES) != 0; /* the group follows its lane 0 */
    if (queued) e = b;
    const typename P::acc_t r = seg_group_reduce<P, LANES>(in, b, e, lane);
    if (valid && !queued && lane == 0) P::template store<Out>(r, out + g, nullptr);
}

/* Persistent grid over all chunks of all queued segments; chunk t's partial to part[t].
 * Nothing to do after an overflow (seg_finish then takes the group path). */
template <typename P>
__global__ __launch_bounds__(BLOCK) void seg_chunks(const typename P::in_t *__restrict__ in,
                                                    const unsigned long long *ctrl, const seg_long *list,
                                                    typename P::acc_t *__restrict__ part)
{
    using A = typename P::acc_t;
    using Op = typename P::op;
    if (ctrl[SEG_CTRL_OVERFLOW]) return;
    const unsigned long long c = *ctrl;
    const uint64_t count = c >> SEG_PACK_SHIFT, total = c & ((1ull << SEG_PACK_SHIFT) - 1);
    for (uint64_t t = blockIdx.x; t < total; t += gridDim.x) {
        uint64_t lo = 0, hi = count; /* last entry with chunk0 <= t */
        while (hi - lo > 1) {
            const uint64_t mid = (lo + hi) / 2;
            if (list[mid].chunk0 <= t) lo = mid; else hi = mid;
        }
        const seg_long L = list[lo];
        const uint64_t b = L.begin + (t - L.chunk0) * SEG_CHUNK;
        const uint64_t e = b + SEG_CHUNK < L.end ? b + SEG_CHUNK : L.end;
        A v[SEG_CHUNK_ITEMS];
#pragma unroll
        for (int k = 0; k < SEG_CHUNK_ITEMS; ++k) {
            const uint64_t i = b + (uint64_t)k * BLOCK + threadIdx.x;
            v[k] = i < e ? P::make(in[i], i) : Op::identity();
        }
        A r = pp_block_reduce<Op, BLOCK>(pp_tree_reduce<Op>(v));
        if (threadIdx.x == 0) part[t] = r;
        __syncthreads(); /* the block reduction's shared slots are reused next round */
    }
}

/* seg_finish's resident blocks per SM (tuning_reduce.h): a bound for the 8-byte float
 * accumulators only; 0 is no bound (the same code as __launch_bounds__(BLOCK)). */
template <typename P> constexpr int seg_finish_min_blocks()
{
    return P::ordered && sizeof(typename P::acc_t) == 8 ? REDUCE_SEG_FINISH_MIN_BLOCKS_WIDE : 0;
}

/* The queued segments' results: without an overflow one block per segment combines its chunk
 * partials; after one (ctrl[1], the same in every block) each group of LANES lanes reduces
 * one queued segment as seg_groups reduces a segment it keeps. */
template <typename P, typename Out, int LANES>
__global__ __launch_bounds__(BLOCK, (seg_finish_min_blocks<P>())) void seg_finish(
    const typename P::in_t *__restrict__ in, const unsigned long long *ctrl, const seg_long *list,
    const typename P::acc_t *__restrict__ part, Out *__restrict__ out)
{
    using A = typename P::acc_t;
    using Op = typename P::op;
    const uint64_t count = *ctrl >> SEG_PACK_SHIFT;
    if (ctrl[SEG_CTRL_OVERFLOW]) {
        constexpr uint64_t GROUPS = BLOCK / LANES;
        const unsigned lane = threadIdx.x % LANES;
        /* Rounds uniform across the block: every lane of every group reaches the shuffles. */
        for (uint64_t j0 = (uint64_t)blockIdx.x * GROUPS; j0 < count; j0 += (uint64_t)gridDim.x * GROUPS) {
            const uint64_t j = j0 + threadIdx.x / LANES;
            const bool valid = j < count;
            seg_long L = {0, 0, 0, 0};
            if (valid) L = list[j];
            const A r = seg_group_reduce<P, LANES>(in, L.begin, L.end, lane);
            if (valid && lane == 0) P::template store<Out>(r, out + L.s, nullptr);
        }
        return;
    }
    for (uint64_t j = blockIdx.x; j < count; j += gridDim.x) {
        const seg_long L = list[j];
        const uint64_t chunks = (L.end - L.begin + SEG_CHUNK - 1) / SEG_CHUNK;
        stream_acc<Op, A, 16, P::ordered> acc;
        for (uint64_t k = threadIdx.x; k < chunks; k += BLOCK) acc.push(part[L.chunk0 + k]);
        A r = pp_block_reduce<Op, BLOCK>(acc.result());
        if (threadIdx.x == 0) P::template store<Out>(r, out + L.s, nullptr);
        __syncthreads();
    }
}

template <typename P, typename Out, int LANES>
pp_status segmented_launch(pp_context *ctx, const pp_segreduce_args *a, uint64_t grid, unsigned long long *ctrl,
                           seg_long *list, typename P::acc_t *part, uint64_t max_long, uint64_t max_chunks)
{
    using In = typename P::in_t;
    pp_hip_state *hs = pp_hip(ctx);
    const In *in = (const In *)a->in;
    Out *out = (Out *)a->out;
    seg_groups<P, Out, LANES><<<(unsigned)grid, BLOCK, 0, hs->stream>>>(in, a->n, a->offsets, a->n_segments, out,
                                                                       ctrl, list, max_long, max_chunks);
    PP_HIP_CHECK_LAUNCH(ctx, "seg_groups");
    if (max_long == 0) return PP_OK; /* no segment can be long: one launch */
    const uint64_t wide = (uint64_t)hs->dev.cu_count * hs->tune.seg_blocks_per_cu;
    const uint64_t g2 = max_chunks < wide ? max_chunks : wide;
    seg_chunks<P><<<(unsigned)(g2 ? g2 : 1), BLOCK, 0, hs->stream>>>(in, ctrl, list, part);
    PP_HIP_CHECK_LAUNCH(ctx, "seg_chunks");
    const uint64_t g3 = max_long < wide ? max_long : wide;
    seg_finish<P, Out, LANES><<<(unsigned)(g3 ? g3 : 1), BLOCK, 0, hs->stream>>>(in, ctrl, list, part, out);
    PP_HIP_CHECK_LAUNCH(ctx, "seg_finish");
    return PP_OK;
}

template <typename P, typename Out>
pp_status segmented_run(pp_context *ctx, const pp_segreduce_args *a)
{
    using A = typename P::acc_t;
    pp_hip_state *hs = pp_hip(ctx);
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    const uint64_t n = a->n, nseg = a->n_segments;
    const uint64_t mean = n / nseg;
    const int lanes = mean <= 16 ? 4 : mean <= 128 ? 16 : 32;
    const uint64_t long_min = (uint64_t)lanes * SEG_CH * 8 + 1;
    /* Bounds on the long queue: each queued segment has more than long_min elements. */
    uint64_t max_long = n / long_min;
    if (max_long > nseg) max_long = nseg;
    const uint64_t max_chunks = n / SEG_CHUNK + max_long;
    const size_t need = 256 + pp_align256(max_long * sizeof(seg_long)) + pp_align256(max_chunks * sizeof(A));
    void *scratch = nullptr;
    pp_status st = pp__scratch(ctx, need, &scratch);
    if (st != PP_OK) return st;
    unsigned long long *ctrl = (unsigned long long *)scratch;
    seg_long *list = (seg_long *)((char *)scratch + 256);
    A *part = (A *)((char *)list + pp_align256(max_long * sizeof(seg_long)));
    if (max_long) PP_HIP_TRY(ctx, hipMemsetAsync(ctrl, 0, 2 * sizeof *ctrl, hs->stream));

    const uint64_t groups_per_block = BLOCK / lanes;
    const uint64_t grid = (nseg + groups_per_block - 1) / groups_per_block;
    if (grid > 0x7fffffffu)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "pp_segmented_reduce: %llu segments exceed one launch",
                        (unsigned long long)nseg);
    switch (lanes) {
    case 4: return segmented_launch<P, Out, 4>(ctx, a, grid, ctrl, list, part, max_long, max_chunks);
    case 16: return segmented_launch<P, Out, 16>(ctx, a, grid, ctrl, list, part, max_long, max_chunks);
    default: return segmented_launch<P, Out, 32>(ctx, a, grid, ctrl, list, part, max_long, max_chunks);
    }
}

/* pp_hip_dispatch's family: a segmented reduction of P's inputs to Outs. */
struct segmented_family {
    pp_context *ctx;
    const pp_segreduce_args *a;
    template <typename P, typename Out> pp_status go() { return segmented_run<P, Out>(ctx, a); }
};

} // namespace

pp_status pp_hip_segmented_reduce(pp_context *ctx, const pp_segreduce_args *a)
{
    (void)reduce_tuning(ctx); /* the device's row in pp_hip(ctx)->tune (seg_blocks_per_cu) */
    segmented_family fam = {ctx, a};
    return pp_hip_dispatch(ctx, "pp_segmented_reduce", a->in_type, a->op, a->out_type, fam);
}
