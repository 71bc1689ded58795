/*
 * histogram.hip -- the histogram family on the GPU: pp_histogram_even, pp_histogram_range and
 * pp_reduce_by_index. The bin of a sample comes from src/histogram_bins.h, the arithmetic every
 * backend shares, so the counts are bitwise those of the CPU backend.
 *
 * Strategies (the seeds' privatized histograms; Nugteren et al., "Multi-GPU histogramming";
 * Gómez-Luna et al., "An optimized approach to histogram computation on GPU" for the copies
 * per block; CUB's DeviceHistogram for the layering):
 *
 *   SHARED   Each block counts its contiguous run of tiles (16-byte loads, like reduce.hip)
 *            into a sub-histogram of u32 counters in shared memory, then adds its nonzero
 *            bins to the counts with global atomics. Small bin counts keep C copies of the
 *            table (C a power of two up to 32), interleaved bin-major (counter of bin b, copy
 *            c at b * C + c, lane l using copy l % C): with C = 32 the lanes of a 32-wide wave
 *            never share an address or a bank, whatever the data (a wave64 has lanes l and
 *            l + 32 on one copy: still exact, atomics; whether they conflict is unmeasured).
 *            With fewer than wave / 2 copies, a wave whose lanes all hold the same bin adds once
 *            (one atomic of the wave's width: the all-in-one-bin case); with more, no lanes
 *            but two meet on one counter anyway, and the check costs more than it saves
 *            (H100, 256 bins, 32 copies: 369 us without it, 588-644 us with it). When the
 *            bins do not fit a block's shared memory, they are split into as few ranges as
 *            fit across blocks: grid (ranges, chunks), the range fastest, so
 *            the blocks reading the same samples run together and share them in L2; each
 *            block counts only its range (range histograms keep their slice of edges in
 *            shared memory beside the counters).
 *   GLOBAL   Atomics straight into the counts (with the same whole-wave aggregation): for
 *            very large bin counts, or fewer samples than bins.
 *   CLUSTER  NVIDIA sm_90: a thread-block cluster of K blocks (2..16) holds K slices of the
 *            bins in distributed shared memory; every block counts its own samples into the
 *            owner block's slice (remote shared atomics), so a cluster covers K times the bins
 *            a block can; more bins than that: ranges as above, across the grid's y.
 *   U8       u8 samples, any binning: 32 copies of 256 value counters (32 KiB per block,
 *            bin-major like SHARED with 32 copies), 16 samples per 16-byte load;
 *            at the end the 256 value counts are folded into the bins (the bin of each value).
 *
 * Which one: choose_strategy() below, from the bin count, the sample count and the device's
 * shared memory; its thresholds, and the copies and range sizes, come from the device's row of
 * hip/tuning_histogram.h, where each number's measurement is written. Where the chooser would
 * split the bins into ranges, a one-block kernel first looks at a sample of the input
 * (hist_skew_check): if most groups of a wave's width of consecutive samples fall into one bin,
 * GLOBAL (wave aggregation: one atomic per such group) beats re-reading the samples once per
 * range; both grids are launched and the one the check did not pick exits at once, so the
 * call does not synchronize. Tuning runs and tests force a plan through the context's
 * experimental options (include/parprim.h): PP_OPTION_HIST_STRATEGY (a strategy the device
 * lacks is replaced by the chooser's), _COPIES (rounded down to a power of two), _RANGE_BINS
 * (per block range; per cluster block for CLUSTER), _CLUSTER (K), _GRID_WAVES (grid = this many
 * waves of resident blocks, default 1), _WAVE_AGGREGATION (SHARED: 1 on, 2 off), and for
 * reduce by index PP_OPTION_RBI_STRATEGY / _RBI_COPIES. Each call records its plan
 * (pp_context_last_plan; record_plan() below says what the fields hold).
 *
 * Range histograms whose edges sit in shared memory (SHARED) bin through a guide table built
 * by each block: cell(x) = min(floor((x - e[0]) s), G - 1), G cells over [e[0], e[R]), and
 * guide[c] = the last k with cell(e[k]) < c (0 for none). cell() is non-decreasing in x and the
 * same function bins the samples and builds the table, so e[guide[c]] <= x < e[guide[c + 1] + 1]
 * for every x of cell c: the bin (the last k with e[k] <= x, exactly as parprim.h defines it)
 * is found by a binary search over those few edges. (Seeded by the CPU backend's guide table,
 * cpu/histogram.c; the "indexed search" of Knuth 6.2.1.)
 *
 * Counters: a u32 shared counter receives at most 2^31 samples (plus the < 32 of the head and
 * tail), so it cannot overflow: a block counts at most 2^31 samples, and a CLUSTER block, whose
 * slice receives the samples of all K blocks of its cluster, at most 2^31 / K (the grid grows to
 * keep it so); u64 counts take 64-bit global atomics.
 *
 * Range histograms: pp_histogram_range first checks the edges on the device (sorted, no NaN)
 * and waits for the answer (the one synchronization of the family), so that bad edges are
 * reported as an error with nothing written.
 *
 * Reduce by index: the same two strategies. SHARED: per-block partial outputs in shared
 * memory (copies for few outputs), combined into out with global atomics; GLOBAL: atomics
 * into out. Sums use atomicAdd (floats: order not reproducible, parprim.h gives the bound);
 * min and max run on unsigned keys (histogram_bins.h) with atomicMin / atomicMax, out being
 * converted to keys before and back after (exact, any order).
 */
#include <string.h>

#include <type_traits>

#include "blocks.h"
#include "common.h"
#include "histogram_bins.h"
#include "tuning_histogram.h"

#if defined(PP_PORT_NVIDIA) && defined(__CUDACC__) && CUDART_VERSION >= 12000
#include <cooperative_groups.h>
#define PP_HIST_CLUSTERS 1 /* thread-block clusters can be built (they run on sm_90 and newer) */
#endif

namespace {

constexpr int HB = 512;                        /* threads per block */
/* At least 2 resident blocks: a 64-register budget. Without the minimum, ptxas (CUDA 13) caps
 * some of these kernels at 40 registers and spills; with it none spills (ptxas -v). */
#define PP_HIST_BOUNDS __launch_bounds__(HB, 2)
constexpr int HV = 4;                          /* 16-byte vectors per thread per tile */
constexpr uint64_t HTILE = (uint64_t)HB * HV;  /* vectors per tile */
constexpr uint32_t NOBIN = PP_HIST_NOBIN;
constexpr int U8_COPIES = 32;                  /* U8: value tables per block */
constexpr uint64_t MAX_BLOCK_SAMPLES = (uint64_t)1 << 31; /* u32 shared counters stay exact */

/* ======================= tuning ======================= */

enum hist_strategy { HS_AUTO = 0, HS_SHARED, HS_GLOBAL, HS_CLUSTER, HS_U8 };
static_assert(HS_AUTO == (int)PP_HIST_STRATEGY_AUTO && HS_SHARED == (int)PP_HIST_STRATEGY_SHARED &&
                  HS_GLOBAL == (int)PP_HIST_STRATEGY_GLOBAL && HS_CLUSTER == (int)PP_HIST_STRATEGY_CLUSTER &&
                  HS_U8 == (int)PP_HIST_STRATEGY_U8,
              "hist_strategy mirrors pp_hist_strategy");

/* What a call runs with: the device's row of the tuning table and the context's options
 * (0: the chooser's value). */
struct hist_tuning {
    const pp_hist_tuning *thr;
    hist_strategy strategy;
    uint32_t copies;
    uint64_t range_bins;
    uint32_t cluster;
    uint32_t grid_waves;
    int agg;             /* SHARED's wave aggregation: 0 chooser, 1 on, 2 off */
    hist_strategy rbi_strategy;
    uint32_t rbi_copies;
};

static hist_tuning read_tuning(pp_context *ctx)
{
    hist_tuning t;
    t.thr = &pp_hist_tuning_for(pp_hip(ctx)->dev);
    t.strategy = (hist_strategy)pp__option(ctx, PP_OPTION_HIST_STRATEGY);
    t.copies = (uint32_t)pp__option(ctx, PP_OPTION_HIST_COPIES);
    t.range_bins = (uint64_t)pp__option(ctx, PP_OPTION_HIST_RANGE_BINS);
    t.cluster = (uint32_t)pp__option(ctx, PP_OPTION_HIST_CLUSTER);
    t.grid_waves = (uint32_t)pp__option(ctx, PP_OPTION_HIST_GRID_WAVES);
    if (t.grid_waves == 0) t.grid_waves = 1;
    t.agg = (int)pp__option(ctx, PP_OPTION_HIST_WAVE_AGGREGATION);
    t.rbi_strategy = (hist_strategy)pp__option(ctx, PP_OPTION_RBI_STRATEGY);
    t.rbi_copies = (uint32_t)pp__option(ctx, PP_OPTION_RBI_COPIES);
    return t;
}

static uint32_t pow2_floor_u32(uint64_t v)
{
    uint32_t p = 1;
    while ((uint64_t)p * 2 <= v && p < (1u << 31)) p *= 2;
    return p;
}

static uint32_t log2_u32(uint32_t p)
{
    uint32_t l = 0;
    while ((1u << l) < p) ++l;
    return l;
}

/* Opt a kernel in to `smem` bytes of dynamic shared memory (NVIDIA needs it above 48 KiB). */
template <typename K> pp_status allow_smem(pp_context *ctx, K kernel, size_t smem)
{
#if defined(PP_PORT_NVIDIA)
    if (smem > (48u << 10))
        PP_HIP_TRY(ctx, hipFuncSetAttribute((const void *)kernel, hipFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
#else
    (void)ctx;
    (void)kernel;
    (void)smem;
#endif
    return PP_OK;
}

/* Resident blocks of HB threads per CU (at least 1). */
template <typename K> int occupancy(K kernel, size_t smem)
{
    int o = 0;
    if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&o, kernel, HB, smem) != hipSuccess || o < 1) {
        (void)hipGetLastError();
        o = 1;
    }
    return o;
}

/* ======================= samples ======================= */

/* n samples cut for 16-byte loads (pp_split_for16), in tiles of HTILE vectors. */
template <typename T> struct samples16 {
    const T *body;
    uint64_t nvec, ntiles;
    const T *head;
    uint32_t nhead;
    const T *tail;
    uint32_t ntail;
};

template <typename T> samples16<T> cut_samples(const T *p, uint64_t n)
{
    const pp_split16 sp = pp_split_for16(p, n);
    samples16<T> s;
    s.head = p;
    s.nhead = (uint32_t)sp.head;
    s.body = p + sp.head;
    s.nvec = sp.nvec;
    s.ntiles = (sp.nvec + HTILE - 1) / HTILE;
    s.tail = s.body + sp.nvec * (16 / sizeof(T));
    s.ntail = (uint32_t)sp.tail;
    return s;
}

/*
 * Calls f(x, valid) for every sample of tiles [t0, t1), plus the head (first chunk) and the
 * tail (last chunk). Every thread of the block makes the same number of calls, with valid
 * false for the slots past the end, so f may use wave-wide operations.
 */
template <typename T, typename F>
PP_DEVICE void for_each_sample(const samples16<T> &s, uint64_t t0, uint64_t t1, bool first, bool last, F &&f)
{
    /* All of a tile's loads, then all of its samples. (Issuing each vector's load for the next
     * tile as soon as the vector was counted measured 8-36% slower on the H100: bench/NOTES.md.) */
    constexpr int VEC = 16 / sizeof(T);
    for (uint64_t t = t0; t < t1; ++t) {
        const uint64_t v0 = t * HTILE + threadIdx.x;
        pp_vec16 raw[HV];
        bool ok[HV];
#pragma unroll
        for (int j = 0; j < HV; ++j) {
            const uint64_t vi = v0 + (uint64_t)j * HB;
            ok[j] = vi < s.nvec;
            raw[j] = ok[j] ? pp_load16_stream(s.body + vi * VEC) : pp_vec16{};
        }
#pragma unroll
        for (int j = 0; j < HV; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) f(pp_vec_elem<T>(raw[j], k), ok[j]);
    }
    /* fewer than 16 head or tail elements, one per thread */
    if (first) {
        const bool ok = threadIdx.x < s.nhead;
        f(ok ? s.head[threadIdx.x] : T(0), ok);
    }
    if (last) {
        const bool ok = threadIdx.x < s.ntail;
        f(ok ? s.tail[threadIdx.x] : T(0), ok);
    }
}

/*
 * Counts 1 for each lane's `slot` (NOBIN: nothing) through add(slot, count), per wave:
 *  - a wave whose lanes all hold the same slot does not add at once: the wave keeps a run
 *    (slot, count) in registers, the same in every lane, and adds it from lane 0 when a
 *    uniform wave brings another slot, or at flush(). All samples in one bin thus cost one
 *    atomic per wave per block instead of one per sample (the worst case of global atomics);
 *  - otherwise each lane adds its own.
 * Every lane of the wave must call count() the same number of times, and flush() once at the
 * end. Branch-free around the wave operations: ptxas would otherwise keep a convergence
 * barrier per call site (16 and more per tile) and spill them.
 */
struct wave_counter {
    uint32_t run_slot = NOBIN;
    uint32_t run_count = 0;
    template <typename Add> PP_DEVICE void count(uint32_t slot, Add &&add)
    {
        const uint32_t first = pp_shfl(slot, 0);
        const pp_lanemask_t all = pp_ballot(1);
        const bool uniform = pp_ballot(slot == first) == all;
        const uint32_t w = (uint32_t)__popcll(all);
        const bool lane0 = pp_lane_id() == 0;
        const bool restart = uniform && first != run_slot;
        if (restart && lane0 && run_slot != NOBIN && run_count) add(run_slot, run_count);
        if (!uniform && slot != NOBIN) add(slot, 1u);
        run_count = uniform ? (restart ? w : run_count + w) : run_count;
        run_slot = restart ? first : run_slot;
    }
    template <typename Add> PP_DEVICE void flush(Add &&add)
    {
        if (pp_lane_id() == 0 && run_slot != NOBIN && run_count) add(run_slot, run_count);
        run_count = 0;
    }
};

/* ======================= binners ======================= */

/*
 * What a kernel asks of the bins. A binner (a kernel parameter, never modified) makes a view
 * (a local object, kept in registers):
 *   make_global()          view of all bins: bin(x) is the bin of x or NOBIN
 *   make_range(r0, R, c, g, G)
 *                          view of bins [r0, r0 + R): local(x) is bin(x) - r0 in that range,
 *                          else NOBIN. Range histograms copy their R + 1 edges into c (shared
 *                          memory; the caller syncs the block, then, where the view's G is
 *                          not 0, calls build_guide(view, g) and syncs again before local()),
 *                          or, with c NULL, search the global edges. g: G + 1 guide entries
 *                          in shared memory (G = 0: no guide).
 */
template <bool Float> struct even_binner {
    pp_hist_even p;
    static constexpr bool uses_edges = false;
    __host__ __device__ uint32_t nbins() const { return p.nbins; }
    struct view {
        pp_hist_even p;
        uint32_t r0, R;
        template <typename T> PP_DEVICE uint32_t bin(T x) const
        {
            if constexpr (Float) return pp_hist_bin_float((double)x, &p);
            else return pp_hist_bin_int((int64_t)x, &p);
        }
        template <typename T> PP_DEVICE uint32_t local(T x) const
        {
            const uint32_t l = bin(x) - r0; /* NOBIN and bins below r0 wrap past R */
            return l < R ? l : NOBIN;
        }
    };
    PP_DEVICE view make_global() const { return view{p, 0u, p.nbins}; }
    PP_DEVICE view make_range(uint32_t r0, uint32_t R, double *, uint16_t *, uint32_t) const { return view{p, r0, R}; }
    static PP_DEVICE void build_guide(const view &, uint16_t *) {}
};

/* The guide's cell of x in [e0, e[R]] (t >= 0 there): min(floor((x - e0) sc), G - 1). Non-decreasing
 * in x (each rounded step is), and the one function both the table and the samples go through. */
PP_DEVICE uint32_t guide_cell(double x, double e0, double sc, uint32_t G)
{
    double t = (x - e0) * sc;
    t = t < (double)(G - 1) ? t : (double)(G - 1);
#if defined(__CUDA_ARCH__)
    return (uint32_t)__double2loint(__dadd_rd(t, 4503599627370496.0 /* 2^52: floor, as pp_hist_bin_float */));
#else
    return (uint32_t)t;
#endif
}

/* The largest power of two <= v (v >= 1), in one instruction. */
PP_DEVICE uint32_t pow2_floor_dev(uint32_t v) { return 1u << (31 - __clz((int)v)); }

struct range_binner {
    const double *edges;
    uint32_t nb;
    static constexpr bool uses_edges = true;
    __host__ __device__ uint32_t nbins() const { return nb; }
    struct view {
        const double *s;       /* the view's edges (shared or global) */
        const uint16_t *guide; /* G + 1 entries (G > 0) */
        double lo, hi;         /* s[0], s[R] */
        double sc;             /* the guide's cells per unit of x */
        uint32_t R, step, G;
        template <typename T> PP_DEVICE uint32_t local(T x) const
        {
            const double d = (double)x;
            if (!(d >= lo && d < hi)) return NOBIN; /* edges[r0] <= x < edges[r0 + R]: in the range */
            if (G) { /* s[k0] <= d < s[k1 + 1]: search those k1 - k0 + 1 edges */
                const uint32_t c = guide_cell(d, lo, sc, G);
                const uint32_t k0 = guide[c], len = guide[c + 1] - k0 + 1u;
                return k0 + pp_hist_search(s + k0, len, pow2_floor_dev(len), d);
            }
            return pp_hist_search(s, R, step, d);
        }
        template <typename T> PP_DEVICE uint32_t bin(T x) const { return local(x); } /* global view: r0 = 0 */
    };
    /* cells: the guide's G (0 or R >= 65536: none; none either where the range's width is not a
     * finite positive number, e.g. an infinite edge, so that cell() sees finite values only). */
    PP_DEVICE view make_range(uint32_t r0, uint32_t R, double *cache, uint16_t *guide, uint32_t cells) const
    {
        view v;
        v.R = R;
        v.lo = edges[r0];
        v.hi = edges[r0 + R];
        v.step = pp_hist_pow2_floor(R);
        v.s = edges + r0;
        if (cache) {
            for (uint32_t i = threadIdx.x; i <= R; i += blockDim.x) cache[i] = edges[r0 + i];
            v.s = cache;
        }
        const double sc = (double)cells / (v.hi - v.lo);
        v.G = cache && guide && cells && R < 65536 && sc > 0 && sc < 1e300 ? cells : 0;
        v.sc = v.G ? sc : 0.0;
        v.guide = guide;
        return v;
    }
    PP_DEVICE view make_global() const { return make_range(0, nb, nullptr, nullptr, 0); }
    /* guide[c] = the last k in [0, R) with cell(s[k]) < c (0 for none), for c in [0, G]: thread
     * of k fills the cells (cell(s[k]), cell(s[k + 1])] (k = 0 from cell 0, k = R - 1 up to G). */
    static PP_DEVICE void build_guide(const view &v, uint16_t *guide)
    {
        for (uint32_t k = threadIdx.x; k < v.R; k += blockDim.x) {
            const uint32_t c0 = k == 0 ? 0u : guide_cell(v.s[k], v.lo, v.sc, v.G) + 1u;
            const uint32_t c1 = k + 1 < v.R ? guide_cell(v.s[k + 1], v.lo, v.sc, v.G) : v.G;
            for (uint32_t c = c0; c <= c1; ++c) guide[c] = (uint16_t)k;
        }
    }
};

/* ======================= kernels ======================= */

/* A skew-checked launch (hist_skew_check): the grid runs only where *gate == want. */
PP_DEVICE bool gated_out(const uint32_t *gate, uint32_t want) { return gate && *gate != want; }

/* SHARED: grid (ranges, chunks). Block (x, y) counts bins [x range_bins, ...) of the samples
 * of tiles [y tpb, (y + 1) tpb), into 2^copies_log2 interleaved copies in shared memory.
 * Range histograms: the range's edges, then guide_per_bin * R guide cells, after the table. */
template <typename T, typename Binner, typename Count, bool Agg>
__global__ PP_HIST_BOUNDS void hist_shared(samples16<T> s, Binner bn, uint32_t range_bins, uint32_t copies_log2,
                                           uint32_t guide_per_bin, uint64_t tpb, Count *__restrict__ counts,
                                           const uint32_t *gate)
{
    if (gated_out(gate, 0)) return;
    extern __shared__ uint64_t hist_smem[];
    uint32_t *table = (uint32_t *)hist_smem;
    const uint32_t nb = bn.nbins();
    const uint32_t r0 = blockIdx.x * range_bins;
    const uint32_t R = range_bins < nb - r0 ? range_bins : nb - r0;
    const uint32_t slots = R << copies_log2;
    for (uint32_t i = threadIdx.x; i < slots; i += HB) table[i] = 0;
    double *cache = Binner::uses_edges ? (double *)(hist_smem + (slots + 1) / 2) : nullptr;
    uint16_t *guide = Binner::uses_edges ? (uint16_t *)(cache + R + 1) : nullptr;
    const auto view = bn.make_range(r0, R, cache, guide, guide_per_bin * R);
    __syncthreads();
    if constexpr (Binner::uses_edges) {
        if (view.G) { /* the same for the whole block */
            Binner::build_guide(view, guide);
            __syncthreads();
        }
    }
    const uint32_t cmask = (1u << copies_log2) - 1;
    const uint32_t copy = threadIdx.x & cmask;
    const uint64_t t0 = (uint64_t)blockIdx.y * tpb;
    const uint64_t t1 = t0 + tpb < s.ntiles ? t0 + tpb : s.ntiles;
    auto add = [&](uint32_t slot, uint32_t v) { atomicAdd(&table[(slot << copies_log2) | copy], v); };
    if constexpr (Agg) {
        wave_counter wc;
        for_each_sample(s, t0, t1, blockIdx.y == 0, blockIdx.y == gridDim.y - 1,
                        [&](T x, bool valid) { wc.count(valid ? view.local(x) : NOBIN, add); });
        wc.flush(add);
    } else { /* enough copies that a wave's lanes meet at most two to an address, whatever the data */
        for_each_sample(s, t0, t1, blockIdx.y == 0, blockIdx.y == gridDim.y - 1, [&](T x, bool valid) {
            const uint32_t slot = valid ? view.local(x) : NOBIN;
            if (slot != NOBIN) add(slot, 1u);
        });
    }
    __syncthreads();
    for (uint32_t b = threadIdx.x; b < R; b += HB) {
        uint32_t sum = 0;
        for (uint32_t c = 0; c <= cmask; ++c) sum += table[(b << copies_log2) | ((c + b) & cmask)]; /* banks spread */
        if (sum) atomicAdd(&counts[r0 + b], (Count)sum);
    }
}

/* GLOBAL: atomics into the counts; block b counts tiles [b tpb, (b + 1) tpb). */
template <typename T, typename Binner, typename Count>
__global__ PP_HIST_BOUNDS void hist_global(samples16<T> s, Binner bn, uint64_t tpb, Count *__restrict__ counts,
                                           const uint32_t *gate)
{
    if (gated_out(gate, 1)) return;
    const auto view = bn.make_global();
    const uint64_t t0 = (uint64_t)blockIdx.x * tpb;
    const uint64_t t1 = t0 + tpb < s.ntiles ? t0 + tpb : s.ntiles;
    auto add = [&](uint32_t b, uint32_t v) { atomicAdd(&counts[b], (Count)v); };
    wave_counter wc;
    for_each_sample(s, t0, t1, blockIdx.x == 0, blockIdx.x == gridDim.x - 1,
                    [&](T x, bool valid) { wc.count(valid ? view.bin(x) : NOBIN, add); });
    wc.flush(add);
}

/* U8: count by value (per lane copy, bin-major), then fold the 256 value counts into bins. */
template <typename Binner, typename Count>
__global__ PP_HIST_BOUNDS void hist_u8(samples16<uint8_t> s, Binner bn, uint64_t tpb, Count *__restrict__ counts)
{
    __shared__ uint32_t vc[256 * U8_COPIES];
    for (uint32_t i = threadIdx.x; i < 256 * U8_COPIES; i += HB) vc[i] = 0;
    __syncthreads();
    const uint32_t copy = threadIdx.x & (U8_COPIES - 1);
    const uint64_t t0 = (uint64_t)blockIdx.x * tpb;
    const uint64_t t1 = t0 + tpb < s.ntiles ? t0 + tpb : s.ntiles;
    for_each_sample(s, t0, t1, blockIdx.x == 0, blockIdx.x == gridDim.x - 1, [&](uint8_t x, bool valid) {
        if (valid) atomicAdd(&vc[(uint32_t)x * U8_COPIES + copy], 1u);
    });
    __syncthreads();
    const auto view = bn.make_global();
    for (uint32_t v = threadIdx.x; v < 256; v += HB) {
        uint32_t sum = 0;
        for (uint32_t c = 0; c < U8_COPIES; ++c) sum += vc[v * U8_COPIES + ((c + v) & (U8_COPIES - 1))];
        const uint32_t b = view.bin((uint8_t)v);
        if (sum && b != NOBIN) atomicAdd(&counts[b], (Count)sum);
    }
}

#if defined(PP_HIST_CLUSTERS)
/* CLUSTER: grid (chunks, ranges), clusters of K blocks along x. The cluster of y counts bins
 * [y cluster_bins, ...): its block of rank r holds the 2^slice_log2 bins from r 2^slice_log2
 * in its shared memory; every block counts its own tiles into the owners' slices. */
template <typename T, typename Binner, typename Count>
__global__ PP_HIST_BOUNDS void hist_cluster(samples16<T> s, Binner bn, uint32_t slice_log2, uint32_t cluster_bins,
                                                   uint64_t tpb, Count *__restrict__ counts)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    extern __shared__ uint64_t hist_smem[];
    uint32_t *table = (uint32_t *)hist_smem;
    cg::cluster_group cl = cg::this_cluster();
    const uint32_t slice = 1u << slice_log2;
    const uint32_t nb = bn.nbins();
    const uint32_t c0 = blockIdx.y * cluster_bins;
    const uint32_t CR = cluster_bins < nb - c0 ? cluster_bins : nb - c0;
    for (uint32_t i = threadIdx.x; i < slice; i += HB) table[i] = 0;
    const auto view = bn.make_range(c0, CR, nullptr, nullptr, 0); /* range histograms search the global edges */
    cl.sync();                                         /* every slice zeroed before any remote add */
    const uint64_t t0 = (uint64_t)blockIdx.x * tpb;
    const uint64_t t1 = t0 + tpb < s.ntiles ? t0 + tpb : s.ntiles;
    auto add = [&](uint32_t slot, uint32_t v) {
        uint32_t *owner = cl.map_shared_rank(table, slot >> slice_log2);
        atomicAdd(owner + (slot & (slice - 1)), v);
    };
    wave_counter wc;
    for_each_sample(s, t0, t1, blockIdx.x == 0, blockIdx.x == gridDim.x - 1,
                    [&](T x, bool valid) { wc.count(valid ? view.local(x) : NOBIN, add); });
    wc.flush(add);
    cl.sync(); /* every remote add done; also keeps each slice alive until then */
    const uint32_t my0 = (uint32_t)cl.block_rank() << slice_log2;
    const uint32_t myR = my0 < CR ? (CR - my0 < slice ? CR - my0 : slice) : 0;
    for (uint32_t b = threadIdx.x; b < myR; b += HB) {
        const uint32_t v = table[b];
        if (v) atomicAdd(&counts[c0 + my0 + b], (Count)v);
    }
#else
    (void)s; (void)bn; (void)slice_log2; (void)cluster_bins; (void)tpb; (void)counts;
#endif
}
#endif

/* Sortedness and NaN of the edges: the smallest bad index into *first_bad (atomicMin). */
__global__ __launch_bounds__(256) void hist_check_edges(const double *__restrict__ e, uint64_t count,
                                                        unsigned long long *first_bad)
{
    for (uint64_t k = (uint64_t)blockIdx.x * 256 + threadIdx.x; k < count; k += (uint64_t)gridDim.x * 256) {
        const double x = e[k];
        if (x != x || (k > 0 && x < e[k - 1])) atomicMin(first_bad, (unsigned long long)k);
    }
}

/*
 * The skew check of a multi-range plan: `groups` groups of PP_WAVE consecutive samples, spread
 * evenly over the n samples (n >= groups * PP_WAVE), one wave per group; *gate = 1 where at
 * least uniform_per_64 / 64 of the groups hold one bin (or none) in every lane, else 0.
 */
template <typename T, typename Binner>
__global__ __launch_bounds__(HB) void hist_skew_check(const T *__restrict__ x, uint64_t n, Binner bn, uint32_t groups,
                                                      uint32_t uniform_per_64, uint32_t *gate)
{
    __shared__ uint32_t uniform;
    if (threadIdx.x == 0) uniform = 0;
    __syncthreads();
    const auto view = bn.make_global();
    const uint32_t waves = HB / PP_WAVE, wave = threadIdx.x / PP_WAVE;
    for (uint32_t g = wave; g < groups; g += waves) { /* the same trip count in every lane of a wave */
        const uint64_t i = (n - PP_WAVE) / (groups > 1 ? groups - 1 : 1) * g + pp_lane_id();
        const uint32_t b = view.bin(x[i]);
        const bool same = pp_ballot(b == pp_shfl(b, 0)) == pp_ballot(1);
        if (same && pp_lane_id() == 0) atomicAdd(&uniform, 1u);
    }
    __syncthreads();
    if (threadIdx.x == 0) *gate = (uint64_t)uniform * 64 >= (uint64_t)uniform_per_64 * groups ? 1u : 0u;
}

/* ======================= plans ======================= */

struct hist_plan {
    hist_strategy strategy;
    uint32_t range_bins, ranges; /* SHARED: bins per block range; CLUSTER: bins per cluster */
    uint32_t copies_log2;
    uint32_t cluster, slice_log2;
    uint32_t guide_per_bin;      /* SHARED range histograms: guide cells per bin (0: none) */
    uint64_t chunks, tpb;
    size_t smem;
    int occupancy;
    bool agg; /* SHARED: whole-wave aggregation */
};

/*
 * The chooser: which strategy for nbins bins of n samples, on a device whose blocks hold
 * bins_per_range bins with one copy (the numbers: the device's row of tuning_histogram.h).
 */
static hist_strategy choose_strategy(const pp_hist_tuning &thr, bool u8, uint64_t n, uint64_t nbins,
                                     uint32_t bins_per_range, bool clusters)
{
    if (u8) return HS_U8; /* 256 value counters whatever the bins: always fits, never conflicts */
    if ((double)n < thr.sparse_ratio * (double)nbins) return HS_GLOBAL;
    const uint64_t ranges = (nbins + bins_per_range - 1) / bins_per_range;
    if (ranges <= 1) return HS_SHARED;
    if (clusters && thr.cluster_min_bins != 0 && nbins + 1 > thr.cluster_min_bins) return HS_CLUSTER;
    if (ranges <= thr.max_ranges) return HS_SHARED;
    return HS_GLOBAL;
}

/* Tiles per block and chunks for `want` chunks, keeping each block under MAX_BLOCK_SAMPLES / sharers
 * (sharers: how many blocks add into one shared counter; K for CLUSTER). */
template <typename T>
static void size_chunks(const samples16<T> &s, uint64_t want, uint64_t limit, hist_plan &p, uint32_t sharers = 1)
{
    constexpr uint64_t VEC = 16 / sizeof(T);
    const uint64_t max_tpb = MAX_BLOCK_SAMPLES / sharers / (HTILE * VEC);
    if (want < 1) want = 1;
    if (want > limit) want = limit;
    uint64_t tpb = s.ntiles ? (s.ntiles + want - 1) / want : 1;
    if (tpb > max_tpb) tpb = max_tpb;
    if (tpb < 1) tpb = 1;
    p.tpb = tpb;
    p.chunks = s.ntiles ? (s.ntiles + tpb - 1) / tpb : 1;
}

/*
 * The plan of a histogram call (pp_context_last_plan): family "histogram", strategy "shared",
 * "global", "cluster", "u8", or "shared|global" where the skew check decides on the device;
 * grid = blocks of the main kernel, tiles = tiles of the samples; param[0] copies per table,
 * [1] bins per block range (SHARED; CLUSTER: bins per cluster), [2] cluster size (CLUSTER),
 * [3] whole-wave aggregation (1 on, 0 off).
 */
template <typename T>
static void record_plan(pp_context *ctx, const char *strategy, const hist_plan &p, const samples16<T> &s)
{
    pp__set_plan(ctx, "histogram", strategy, (uint64_t)p.chunks * p.ranges,
                 s.ntiles, (int64_t)1 << p.copies_log2, p.range_bins, p.cluster, p.agg ? 1 : 0);
}

/* ======================= histogram: host ======================= */

/* SHARED's plan; gate: see hist_skew_check (NULL: always runs). */
template <typename T, typename Binner, typename Count>
pp_status run_shared(pp_context *ctx, const samples16<T> &s, uint64_t n, const Binner &bn, uint32_t nbins,
                     const hist_tuning &tu, hist_plan &p, Count *counts, const char *what, const uint32_t *gate)
{
    pp_hip_state *hs = pp_hip(ctx);
    const pp_hist_tuning &thr = *tu.thr;
    const size_t edge_bytes = Binner::uses_edges ? 8 : 0;
    const size_t budget = (size_t)hs->dev.smem_block - 1024; /* static shared memory of the block reduce etc. */
    /* Copies: as many as copy_bytes holds (or forced), down to what fits. */
    uint32_t R = nbins;
    if (tu.range_bins) R = (uint32_t)(tu.range_bins < nbins ? tu.range_bins : nbins);
    const uint64_t fit_copies = thr.copy_bytes / (4 * (uint64_t)R);
    uint32_t C = pow2_floor_u32(tu.copies ? tu.copies : fit_copies ? fit_copies : 1);
    if (C > 32) C = 32;
    /* table, edges, guide (G + 1 two-byte entries), each rounded to 8 bytes */
    auto bytes = [&](uint64_t r, uint32_t c, uint32_t g) {
        const uint64_t cells = Binner::uses_edges && g && r < 65536 ? g * r + 1 : 0;
        return (size_t)(((r * c + 1) / 2) * 8 + (r + 1) * edge_bytes + (cells * 2 + 7) / 8 * 8);
    };
    while (C > 1 && bytes(R, C, 0) > budget) C /= 2;
    if (bytes(R, C, 0) > budget && !tu.range_bins) {
        /* Split into ranges of at most 1/split_blocks_per_sm of the SM's shared memory. */
        const size_t target = (size_t)hs->dev.smem_sm / thr.split_blocks_per_sm;
        const size_t room = (target < budget ? target : budget) - 1024;
        uint64_t rmax = room / (4 * (uint64_t)C + edge_bytes);
        if (rmax < 1) rmax = 1;
        const uint64_t ranges = (nbins + rmax - 1) / rmax;
        R = (uint32_t)((nbins + ranges - 1) / ranges);
    }
    while (R > 1 && bytes(R, C, 0) > budget) R = (R + 1) / 2;
    /* The guide takes what is left without costing a resident block: within half an SM's
     * shared memory where the rest fits there (2 blocks per SM: PP_HIST_BOUNDS). */
    uint32_t G = Binner::uses_edges && R < 65536 ? thr.guide_cells_per_bin : 0;
    const size_t half = (size_t)hs->dev.smem_sm / 2 - 1024;
    const size_t guide_room = bytes(R, C, 0) <= half && half < budget ? half : budget;
    while (G && bytes(R, C, G) > guide_room) G /= 2;
    p.strategy = HS_SHARED;
    p.range_bins = R;
    p.ranges = (nbins + R - 1) / R;
    p.copies_log2 = log2_u32(C);
    p.cluster = 0;
    p.slice_log2 = 0;
    p.guide_per_bin = G;
    p.smem = bytes(R, C, G);
    /* Whole-wave aggregation (wave_counter) only where all-in-one-bin data would put more than
     * two lanes of a wave on one counter: fewer than wave / 2 copies. */
    p.agg = tu.agg ? tu.agg == 1 : (C * 2 < (uint32_t)hs->dev.wave);
    auto kernel = p.agg ? hist_shared<T, Binner, Count, true> : hist_shared<T, Binner, Count, false>;
    pp_status st = allow_smem(ctx, kernel, p.smem);
    if (st != PP_OK) return st;
    p.occupancy = occupancy(kernel, p.smem);
    const uint64_t capacity = (uint64_t)p.occupancy * hs->dev.cu_count * tu.grid_waves;
    uint64_t want = capacity / p.ranges;
    /* each block should count at least about as many samples as its bins */
    const uint64_t by_samples = n / (2 * (uint64_t)R) + 1;
    if (want > by_samples) want = by_samples;
    size_chunks(s, want, 65535, p);
    if (p.chunks > 65535)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: %llu samples need more than 65535 blocks of %u ranges", what,
                        (unsigned long long)n, p.ranges);
    if (!gate) record_plan(ctx, "shared", p, s);
    dim3 grid(p.ranges, (unsigned)p.chunks);
    kernel<<<grid, HB, p.smem, hs->stream>>>(s, bn, R, p.copies_log2, G, p.tpb, counts, gate);
    PP_HIP_CHECK_LAUNCH(ctx, "hist_shared");
    return PP_OK;
}

template <typename T, typename Binner, typename Count>
pp_status run_global(pp_context *ctx, const samples16<T> &s, const Binner &bn, const hist_tuning &tu, hist_plan &p,
                     Count *counts, const uint32_t *gate)
{
    pp_hip_state *hs = pp_hip(ctx);
    auto kernel = hist_global<T, Binner, Count>;
    p.strategy = HS_GLOBAL;
    p.range_bins = bn.nbins();
    p.ranges = 1;
    p.copies_log2 = 0;
    p.cluster = 0;
    p.slice_log2 = 0;
    p.guide_per_bin = 0;
    p.smem = 0;
    p.agg = true;
    p.occupancy = occupancy(kernel, 0);
    size_chunks(s, (uint64_t)p.occupancy * hs->dev.cu_count * 2 * tu.grid_waves, 0x7fffffff, p);
    if (!gate) record_plan(ctx, "global", p, s);
    kernel<<<(unsigned)p.chunks, HB, 0, hs->stream>>>(s, bn, p.tpb, counts, gate);
    PP_HIP_CHECK_LAUNCH(ctx, "hist_global");
    return PP_OK;
}

template <typename Binner, typename Count>
pp_status run_u8(pp_context *ctx, const samples16<uint8_t> &s, const Binner &bn, const hist_tuning &tu, hist_plan &p,
                 Count *counts)
{
    pp_hip_state *hs = pp_hip(ctx);
    auto kernel = hist_u8<Binner, Count>;
    p.strategy = HS_U8;
    p.range_bins = bn.nbins();
    p.ranges = 1;
    p.copies_log2 = log2_u32(U8_COPIES);
    p.cluster = 0;
    p.slice_log2 = 0;
    p.guide_per_bin = 0;
    p.smem = 256 * U8_COPIES * 4;
    p.occupancy = occupancy(kernel, 0);
    size_chunks(s, (uint64_t)p.occupancy * hs->dev.cu_count * tu.grid_waves, 0x7fffffff, p);
    record_plan(ctx, "u8", p, s);
    kernel<<<(unsigned)p.chunks, HB, 0, hs->stream>>>(s, bn, p.tpb, counts);
    PP_HIP_CHECK_LAUNCH(ctx, "hist_u8");
    return PP_OK;
}

#if defined(PP_HIST_CLUSTERS)
/* Whether the device runs hist_cluster's sm_90 body: in a build without an sm_90 (or newer)
 * target, an sm_90 device JIT-compiles the PTX of an older one, whose body is empty and would
 * count nothing. (The PTX version of the device's image is the __CUDA_ARCH__ it was compiled for.) */
template <typename K> bool cluster_body_present(K kernel)
{
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, kernel) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return fa.ptxVersion >= 90;
}

template <typename T, typename Binner, typename Count>
pp_status run_cluster(pp_context *ctx, const samples16<T> &s, const Binner &bn, uint32_t nbins, const hist_tuning &tu,
                      hist_plan &p, Count *counts, const char *what)
{
    pp_hip_state *hs = pp_hip(ctx);
    uint32_t K = tu.cluster ? tu.cluster : tu.thr->cluster_size;
    if (K < 1) K = 1;
    if (K > 16) K = 16;
    K = pow2_floor_u32(K);
    /* Slice per block: a power of two of bins that fits, no more than the bins need. */
    const size_t budget = (size_t)hs->dev.smem_block - 1024;
    auto kernel = hist_cluster<T, Binner, Count>;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[1];
    int clusters = 0;
    /* The largest K <= the asked one whose cluster fits the device (16 blocks with large
     * slices may not fit one GPC: then 8, 4, 2). */
    for (;; K /= 2) {
        uint32_t slice = pow2_floor_u32(budget / 4);
        if (tu.range_bins) slice = pow2_floor_u32(tu.range_bins < budget / 4 ? tu.range_bins : budget / 4);
        while (slice > 1 && (uint64_t)(slice / 2) * K >= nbins) slice /= 2;
        p.strategy = HS_CLUSTER;
        p.cluster = K;
        p.slice_log2 = log2_u32(slice);
        p.range_bins = slice * K;
        p.ranges = (uint32_t)(((uint64_t)nbins + p.range_bins - 1) / p.range_bins);
        p.copies_log2 = 0;
        p.guide_per_bin = 0;
        p.agg = true;
        p.smem = (size_t)slice * 4;
        if (p.ranges > 65535) /* the grid's y */
            return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: %u bins need more than 65535 clusters of %u bins", what,
                            nbins, p.range_bins);
        PP_HIP_TRY(ctx, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p.smem));
        if (K > 8) PP_HIP_TRY(ctx, cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        memset(&cfg, 0, sizeof cfg);
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = K;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.blockDim = dim3(HB, 1, 1);
        cfg.dynamicSmemBytes = p.smem;
        cfg.stream = hs->stream;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        cfg.gridDim = dim3(K, p.ranges, 1);
        clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) == cudaSuccess && clusters >= 1) break;
        (void)cudaGetLastError();
        if (K <= 1)
            return pp__fail(ctx, PP_ERROR_DEVICE, "%s: no cluster of %u blocks with %zu bytes of shared memory each fits",
                            what, K, p.smem);
    }
    p.occupancy = clusters; /* resident clusters (on the whole device) */
    uint64_t want = (uint64_t)clusters * K * tu.grid_waves;
    size_chunks(s, want, 0x7fffffff, p, K); /* a slice counts the samples of K blocks */
    p.chunks = (p.chunks + K - 1) / K * K; /* whole clusters; the extra blocks find no tiles */
    record_plan(ctx, "cluster", p, s);
    cfg.gridDim = dim3((unsigned)p.chunks, p.ranges, 1);
    PP_HIP_TRY(ctx, cudaLaunchKernelEx(&cfg, kernel, s, bn, p.slice_log2, p.range_bins, p.tpb, counts));
    return PP_OK;
}
#endif

/* The plan and the launch for one (sample type, binner, count type). */
template <typename T, typename Binner, typename Count>
pp_status hist_launch(pp_context *ctx, const pp_histogram_args *a, const Binner &bn, const hist_tuning &tu)
{
    pp_hip_state *hs = pp_hip(ctx);
    const pp_hist_tuning &thr = *tu.thr;
    const char *what = a->kind == PP_HIST_EVEN ? "pp_histogram_even" : "pp_histogram_range";
    const samples16<T> s = cut_samples((const T *)a->samples, a->n);
    Count *counts = (Count *)a->counts;
    const uint32_t nbins = (uint32_t)a->nbins;
    const bool u8 = std::is_same<T, uint8_t>::value;
#if defined(PP_HIST_CLUSTERS)
    const bool clusters = hs->dev.clusters != 0;
#else
    const bool clusters = false;
#endif
    /* bins one block can hold with one copy (the chooser's split criterion) */
    const size_t edge_bytes = Binner::uses_edges ? 8 : 0;
    const size_t split_room = ((size_t)hs->dev.smem_block - 2048);
    const uint32_t bins_per_block = (uint32_t)(split_room / (4 + edge_bytes));
    hist_strategy strat = tu.strategy;
    if (strat == HS_U8 && !u8) strat = HS_AUTO;
    if (strat == HS_CLUSTER && !clusters) strat = HS_AUTO;
    const bool chosen = strat == HS_AUTO;
    if (chosen) strat = choose_strategy(thr, u8, a->n, nbins, bins_per_block, clusters);
    hist_plan p;
    memset(&p, 0, sizeof p);
    switch (strat) {
    case HS_U8:
        if constexpr (std::is_same<T, uint8_t>::value) return run_u8(ctx, s, bn, tu, p, counts);
        break;
    case HS_GLOBAL: return run_global(ctx, s, bn, tu, p, counts, nullptr);
    case HS_CLUSTER:
#if defined(PP_HIST_CLUSTERS)
        if (cluster_body_present(hist_cluster<T, Binner, Count>))
            return run_cluster(ctx, s, bn, nbins, tu, p, counts, what);
#endif
        break;
    default: break;
    }
    /* A chosen multi-range SHARED plan: the skew check decides between it and GLOBAL (u8
     * samples took HS_U8 above). */
    if constexpr (!std::is_same<T, uint8_t>::value) {
        const uint64_t groups = thr.skew_groups;
        if (chosen && nbins > bins_per_block && groups && a->n >= groups * (uint64_t)hs->dev.wave * 16) {
            void *scratch = nullptr;
            pp_status st = pp__scratch(ctx, 256, &scratch);
            if (st != PP_OK) return st;
            uint32_t *gate = (uint32_t *)scratch;
            hist_skew_check<T, Binner><<<1, HB, 0, hs->stream>>>((const T *)a->samples, a->n, bn, (uint32_t)groups,
                                                                 thr.skew_uniform_per_64, gate);
            PP_HIP_CHECK_LAUNCH(ctx, "hist_skew_check");
            st = run_shared(ctx, s, a->n, bn, nbins, tu, p, counts, what, gate);
            if (st != PP_OK) return st;
            hist_plan q;
            memset(&q, 0, sizeof q);
            st = run_global(ctx, s, bn, tu, q, counts, gate);
            if (st == PP_OK) record_plan(ctx, "shared|global", p, s);
            return st;
        }
    }
    return run_shared(ctx, s, a->n, bn, nbins, tu, p, counts, what, nullptr);
}

template <typename T, typename Binner>
pp_status hist_count_type(pp_context *ctx, const pp_histogram_args *a, const Binner &bn, const hist_tuning &tu)
{
    if (a->count_type == PP_U64) return hist_launch<T, Binner, unsigned long long>(ctx, a, bn, tu);
    return hist_launch<T, Binner, uint32_t>(ctx, a, bn, tu);
}

template <typename T, bool Float>
pp_status hist_binner(pp_context *ctx, const pp_histogram_args *a, const hist_tuning &tu)
{
    if (a->kind == PP_HIST_RANGE) {
        range_binner bn;
        memset(&bn, 0, sizeof bn);
        bn.edges = a->edges;
        bn.nb = (uint32_t)a->nbins;
        return hist_count_type<T>(ctx, a, bn, tu);
    }
    even_binner<Float> bn;
    memset(&bn, 0, sizeof bn);
    bn.p = a->even;
    return hist_count_type<T>(ctx, a, bn, tu);
}

/* Checks the edges on the device and waits for the verdict. */
pp_status check_edges(pp_context *ctx, const double *edges, uint64_t nbins)
{
    pp_hip_state *hs = pp_hip(ctx);
    void *scratch = nullptr;
    pp_status st = pp__scratch(ctx, 256, &scratch);
    if (st != PP_OK) return st;
    void *staging = nullptr;
    PP_TRY(pp_hip_staging(ctx, &staging));
    unsigned long long *flag = (unsigned long long *)scratch;
    PP_HIP_TRY(ctx, hipMemsetAsync(flag, 0xFF, sizeof *flag, hs->stream));
    const uint64_t count = nbins + 1;
    uint64_t blocks = (count + 255) / 256;
    const uint64_t cap = (uint64_t)hs->dev.cu_count * 8;
    if (blocks > cap) blocks = cap;
    hist_check_edges<<<(unsigned)blocks, 256, 0, hs->stream>>>(edges, count, flag);
    PP_HIP_CHECK_LAUNCH(ctx, "hist_check_edges");
    PP_HIP_TRY(ctx, hipMemcpyAsync(staging, flag, sizeof *flag, hipMemcpyDeviceToHost, hs->stream));
    PP_HIP_TRY(ctx, hipStreamSynchronize(hs->stream));
    unsigned long long bad;
    memcpy(&bad, staging, sizeof bad);
    if (bad != ~0ull) {
        double e[2] = {0, 0};
        const uint64_t from = bad > 0 ? bad - 1 : 0;
        PP_HIP_TRY(ctx, hipMemcpyAsync(e, edges + from, (bad > 0 ? 2 : 1) * sizeof(double), hipMemcpyDeviceToHost,
                                       hs->stream));
        PP_HIP_TRY(ctx, hipStreamSynchronize(hs->stream));
        const double x = bad > 0 ? e[1] : e[0];
        if (x != x)
            return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_histogram_range: argument 'edges' has a NaN at index %llu",
                            bad);
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "pp_histogram_range: argument 'edges' is not sorted: edges[%llu] = %.17g is below edges[%llu] = "
                        "%.17g",
                        bad, x, bad - 1, e[0]);
    }
    return PP_OK;
}

/* ======================= reduce by index ======================= */

/* Accumulation of a value type V under op OPK (0 sum, 1 min, 2 max): the accumulator A (what
 * out holds during the call), enc / dec between V and A, and whether out is converted. */
template <typename V, int OPK> struct rbi_map;
template <int OPK> struct rbi_map<float, OPK> {
    using A = typename std::conditional<OPK == 0, float, unsigned int>::type;
    static constexpr bool converts = OPK != 0;
    static PP_DEVICE A enc(float v)
    {
        if constexpr (OPK == 0) return v;
        else return pp_key_u32_of_f32(__float_as_uint(v), OPK == 2);
    }
    static PP_DEVICE float dec(A a)
    {
        if constexpr (OPK == 0) return a;
        else return __uint_as_float(pp_f32_of_key_u32(a));
    }
};
template <int OPK> struct rbi_map<double, OPK> {
    using A = typename std::conditional<OPK == 0, double, unsigned long long>::type;
    static constexpr bool converts = OPK != 0;
    static PP_DEVICE A enc(double v)
    {
        if constexpr (OPK == 0) return v;
        else return (A)pp_key_u64_of_f64((uint64_t)__double_as_longlong(v), OPK == 2);
    }
    static PP_DEVICE double dec(A a)
    {
        if constexpr (OPK == 0) return a;
        else return __longlong_as_double((long long)pp_f64_of_key_u64(a));
    }
};
template <int OPK> struct rbi_map<int32_t, OPK> {
    using A = unsigned int;
    static constexpr bool converts = OPK != 0;
    static PP_DEVICE A enc(int32_t v) { return OPK == 0 ? (A)v : pp_key_u32_of_i32((uint32_t)v); }
    static PP_DEVICE int32_t dec(A a) { return (int32_t)(OPK == 0 ? a : pp_key_u32_of_i32(a)); }
};
template <int OPK> struct rbi_map<uint32_t, OPK> {
    using A = unsigned int;
    static constexpr bool converts = false;
    static PP_DEVICE A enc(uint32_t v) { return v; }
    static PP_DEVICE uint32_t dec(A a) { return a; }
};
template <int OPK> struct rbi_map<int64_t, OPK> {
    using A = unsigned long long;
    static constexpr bool converts = OPK != 0;
    static PP_DEVICE A enc(int64_t v) { return OPK == 0 ? (A)v : (A)pp_key_u64_of_i64((uint64_t)v); }
    static PP_DEVICE int64_t dec(A a) { return (int64_t)(OPK == 0 ? a : pp_key_u64_of_i64(a)); }
};
template <int OPK> struct rbi_map<uint64_t, OPK> {
    using A = unsigned long long;
    static constexpr bool converts = false;
    static PP_DEVICE A enc(uint64_t v) { return v; }
    static PP_DEVICE uint64_t dec(A a) { return a; }
};

/* The op over A, in blocks.h's shape (identity, apply) for pp_wave_reduce, and its atomic. */
template <typename A, int OPK> struct rbi_op {
    static PP_DEVICE A identity() { return OPK == 0 ? A(0) : OPK == 1 ? A(~A(0)) : A(0); }
    static PP_DEVICE A apply(A a, A b)
    {
        if constexpr (OPK == 0) return a + b;
        else if constexpr (OPK == 1) return b < a ? b : a;
        else return b > a ? b : a;
    }
    static PP_DEVICE void atomic(A *p, A v)
    {
        if constexpr (OPK == 0) atomicAdd(p, v);
        else if constexpr (OPK == 1) atomicMin(p, v);
        else atomicMax(p, v);
    }
};
/* Floats only sum (min / max run on integer keys). */
template <> struct rbi_op<float, 0> {
    static PP_DEVICE float identity() { return 0.0f; }
    static PP_DEVICE float apply(float a, float b) { return a + b; }
    static PP_DEVICE void atomic(float *p, float v) { atomicAdd(p, v); }
};
template <> struct rbi_op<double, 0> {
    static PP_DEVICE double identity() { return 0.0; }
    static PP_DEVICE double apply(double a, double b) { return a + b; }
    static PP_DEVICE void atomic(double *p, double v) { atomicAdd(p, v); }
};

constexpr int RV = 8; /* scalar path: elements in flight per thread */
constexpr int RVV = 2; /* vector path: groups of 4 elements in flight per thread */

/* Values of one 4-element group from 16-byte loads (V of 4 or 8 bytes). */
template <typename V> PP_DEVICE void load4(const V *p, V (&v)[4])
{
    if constexpr (sizeof(V) == 4) {
        const pp_vec16 r = pp_load16_stream(p);
#pragma unroll
        for (int k = 0; k < 4; ++k) v[k] = pp_vec_elem<V>(r, k);
    } else {
        const pp_vec16 r0 = pp_load16_stream(p), r1 = pp_load16_stream(p + 2);
        v[0] = pp_vec_elem<V>(r0, 0);
        v[1] = pp_vec_elem<V>(r0, 1);
        v[2] = pp_vec_elem<V>(r1, 0);
        v[3] = pp_vec_elem<V>(r1, 1);
    }
}

/*
 * Block b reduces elements [b per_block, (b + 1) per_block) (per_block a multiple of 4):
 * into 2^copies_log2 interleaved copies of partial outputs in shared memory (SHARED), or
 * straight into out. VEC: values and indices both 16-byte aligned; groups of 4 elements by
 * 16-byte loads, the last n % 4 elements by the last block one by one.
 */
template <typename V, int OPK, bool SHARED, bool VEC>
__global__ PP_HIST_BOUNDS void rbi_kernel(const V *__restrict__ values, const uint32_t *__restrict__ idx,
                                                 uint64_t n, uint64_t per_block, uint64_t n_out, uint32_t copies_log2,
                                                 typename rbi_map<V, OPK>::A *out, unsigned long long *skipped)
{
    using M = rbi_map<V, OPK>;
    using A = typename M::A;
    using Op = rbi_op<A, OPK>;
    extern __shared__ uint64_t rbi_smem[];
    A *part = (A *)rbi_smem;
    const uint32_t cmask = (1u << copies_log2) - 1;
    if constexpr (SHARED) {
        const uint64_t slots = n_out << copies_log2;
        for (uint64_t i = threadIdx.x; i < slots; i += HB) part[i] = Op::identity();
        __syncthreads();
    }
    const uint32_t copy = threadIdx.x & cmask;
    const uint64_t lo = (uint64_t)blockIdx.x * per_block;
    const uint64_t hi = lo + per_block < n ? lo + per_block : n;
    unsigned long long sk = 0;
    /* Every thread calls this the same number of times (in: the element exists). */
    auto apply = [&](uint32_t j, V v, bool in) {
        const bool valid = in && (uint64_t)j < n_out;
        sk += in && !valid;
        A a = M::enc(v);
        const uint32_t j0 = pp_shfl(j, 0);
        const pp_lanemask_t all = pp_ballot(1);
        A *base = SHARED ? part : out;
        if (pp_ballot(valid && j == j0) == all) { /* one output for the whole wave */
            a = pp_wave_reduce<Op>(a);
            if (pp_lane_id() == 0) Op::atomic(base + (SHARED ? (((uint64_t)j0 << copies_log2) | copy) : j0), a);
        } else if (valid) {
            Op::atomic(base + (SHARED ? (((uint64_t)j << copies_log2) | copy) : j), a);
        }
    };
    if (VEC) {
        const uint64_t g_lo = lo / 4, g_hi = hi / 4; /* whole groups; per_block is a multiple of 4 */
        for (uint64_t g0 = g_lo; g0 < g_hi; g0 += (uint64_t)HB * RVV) {
            uint32_t j[RVV][4];
            V v[RVV][4];
            bool in[RVV];
#pragma unroll
            for (int r = 0; r < RVV; ++r) {
                const uint64_t g = g0 + (uint64_t)r * HB + threadIdx.x;
                in[r] = g < g_hi;
                if (in[r]) {
                    const pp_vec16 ix = pp_load16_stream(idx + 4 * g);
#pragma unroll
                    for (int k = 0; k < 4; ++k) j[r][k] = ix.w[k];
                    load4(values + 4 * g, v[r]);
                } else {
#pragma unroll
                    for (int k = 0; k < 4; ++k) {
                        j[r][k] = 0;
                        v[r][k] = V(0);
                    }
                }
            }
#pragma unroll
            for (int r = 0; r < RVV; ++r)
#pragma unroll
                for (int k = 0; k < 4; ++k) apply(j[r][k], v[r][k], in[r]);
        }
        if (blockIdx.x == gridDim.x - 1) { /* the last n % 4 elements */
            const uint64_t i = (n / 4) * 4 + threadIdx.x;
            const bool in = i < n;
            apply(in ? idx[i] : 0u, in ? values[i] : V(0), in);
        }
    } else {
        for (uint64_t b0 = lo; b0 < hi; b0 += (uint64_t)HB * RV) {
            uint32_t j[RV];
            V v[RV];
            bool in[RV];
#pragma unroll
            for (int r = 0; r < RV; ++r) {
                const uint64_t i = b0 + (uint64_t)r * HB + threadIdx.x;
                in[r] = i < hi;
                j[r] = in[r] ? idx[i] : 0u;
                v[r] = in[r] ? values[i] : V(0);
            }
#pragma unroll
            for (int r = 0; r < RV; ++r) apply(j[r], v[r], in[r]);
        }
    }
    if (skipped) {
        sk = pp_block_reduce<pp_op_sum<unsigned long long>, HB>(sk);
        if (threadIdx.x == 0 && sk) atomicAdd(skipped, sk);
    }
    if constexpr (SHARED) {
        __syncthreads();
        for (uint64_t o = threadIdx.x; o < n_out; o += HB) {
            A r = Op::identity();
            for (uint32_t c = 0; c <= cmask; ++c) r = Op::apply(r, part[(o << copies_log2) | ((c + o) & cmask)]);
            if (!(r == Op::identity())) Op::atomic(out + o, r);
        }
    }
}

/* out[j] <-> keys (min / max of floats and signed integers). */
template <typename V, int OPK, bool ToKeys>
__global__ __launch_bounds__(256) void rbi_convert(typename rbi_map<V, OPK>::A *out, uint64_t n_out)
{
    using M = rbi_map<V, OPK>;
    for (uint64_t j = (uint64_t)blockIdx.x * 256 + threadIdx.x; j < n_out; j += (uint64_t)gridDim.x * 256) {
        if (ToKeys) {
            V v;
            memcpy(&v, &out[j], sizeof v);
            out[j] = M::enc(v);
        } else {
            const V v = M::dec(out[j]);
            memcpy(&out[j], &v, sizeof v);
        }
    }
}

template <typename V, int OPK> pp_status rbi_run(pp_context *ctx, const pp_reduce_by_index_args *a, const hist_tuning &tu)
{
    using M = rbi_map<V, OPK>;
    using A = typename M::A;
    pp_hip_state *hs = pp_hip(ctx);
    A *out = (A *)a->out;
    const uint64_t n = a->n, n_out = a->n_out;
    unsigned long long *skipped = (unsigned long long *)a->n_skipped;
    if (skipped) PP_HIP_TRY(ctx, hipMemsetAsync(skipped, 0, sizeof *skipped, hs->stream));
    if (n == 0) {
        pp__set_plan(ctx, "reduce_by_index", "none", 0, 0, 0, 0, 0, 0);
        return PP_OK;
    }
    const uint64_t conv_blocks = n_out ? ((n_out + 255) / 256 < (uint64_t)hs->dev.cu_count * 8 ? (n_out + 255) / 256
                                                                                           : (uint64_t)hs->dev.cu_count * 8)
                                       : 0;
    /* Plan: SHARED when the partial outputs fit with room to spare, else GLOBAL. */
    const size_t budget = (size_t)hs->dev.smem_block - 1024;
    const uint64_t fit = n_out ? tu.thr->copy_bytes / (n_out * sizeof(A)) : 1;
    uint32_t C = pow2_floor_u32(tu.rbi_copies ? (tu.rbi_copies < 32 ? tu.rbi_copies : 32) : fit ? fit : 1);
    if (C > 8 && !tu.rbi_copies) C = 8;
    while (C > 1 && n_out * C * sizeof(A) > budget) C /= 2;
    const size_t smem = (size_t)(n_out * C * sizeof(A) + 7) / 8 * 8;
    bool shared = smem <= budget && n_out > 0 && (double)n >= tu.thr->sparse_ratio * (double)n_out;
    if (tu.rbi_strategy == HS_GLOBAL) shared = false;
    if (tu.rbi_strategy == HS_SHARED && smem <= budget && n_out > 0) shared = true;
    const bool vec = ((uintptr_t)a->values % 16 == 0) && ((uintptr_t)a->indices % 16 == 0);
    const uint32_t clog = shared ? log2_u32(C) : 0;
    auto pick = [&](auto kernel, size_t sm) -> pp_status {
        pp_status st = allow_smem(ctx, kernel, sm);
        if (st != PP_OK) return st;
        const int occ = occupancy(kernel, sm);
        uint64_t blocks = (uint64_t)occ * hs->dev.cu_count * (shared ? 1 : 2) * tu.grid_waves;
        const uint64_t unit = (uint64_t)HB * (vec ? 4 * RVV : RV); /* elements per block step */
        uint64_t per_block = (n + blocks - 1) / blocks;
        per_block = (per_block + unit - 1) / unit * unit;
        if (shared && per_block < 2 * n_out) per_block = (2 * n_out + unit - 1) / unit * unit; /* amortize the merge */
        blocks = (n + per_block - 1) / per_block;
        /* plan: param[0] copies, [1] elements per block, [2] 16-byte loads (1) or not, [3] shared bytes */
        pp__set_plan(ctx, "reduce_by_index", shared ? "shared" : "global", blocks, 0, (int64_t)1 << clog,
                     (int64_t)per_block, vec ? 1 : 0, (int64_t)sm);
        /* out to keys only now: a failure above leaves out as it was */
        if (M::converts && n_out) {
            rbi_convert<V, OPK, true><<<(unsigned)conv_blocks, 256, 0, hs->stream>>>(out, n_out);
            PP_HIP_CHECK_LAUNCH(ctx, "rbi_convert");
        }
        kernel<<<(unsigned)blocks, HB, sm, hs->stream>>>((const V *)a->values, a->indices, n, per_block, n_out, clog, out,
                                                        skipped);
        PP_HIP_CHECK_LAUNCH(ctx, "rbi_kernel");
        return PP_OK;
    };
    pp_status st;
    if (shared) st = vec ? pick(rbi_kernel<V, OPK, true, true>, smem) : pick(rbi_kernel<V, OPK, true, false>, smem);
    else st = vec ? pick(rbi_kernel<V, OPK, false, true>, 0) : pick(rbi_kernel<V, OPK, false, false>, 0);
    if (st != PP_OK) return st;
    if (M::converts && n_out) {
        rbi_convert<V, OPK, false><<<(unsigned)conv_blocks, 256, 0, hs->stream>>>(out, n_out);
        PP_HIP_CHECK_LAUNCH(ctx, "rbi_convert");
    }
    return PP_OK;
}

template <typename V> pp_status rbi_op_dispatch(pp_context *ctx, const pp_reduce_by_index_args *a, const hist_tuning &tu)
{
    switch (a->op) {
    case PP_OP_SUM: return rbi_run<V, 0>(ctx, a, tu);
    case PP_OP_MIN: return rbi_run<V, 1>(ctx, a, tu);
    case PP_OP_MAX: return rbi_run<V, 2>(ctx, a, tu);
    default: break;
    }
    return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "pp_reduce_by_index: hip has no op %s", pp_op_name(a->op) ? pp_op_name(a->op) : "?");
}

} // namespace

pp_status pp_hip_histogram(pp_context *ctx, const pp_histogram_args *a)
{
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    pp_status st;
    if (a->kind == PP_HIST_RANGE && (st = check_edges(ctx, a->edges, a->nbins)) != PP_OK) return st;
    pp_hip_state *hs = pp_hip(ctx);
    const size_t cs = a->count_type == PP_U64 ? 8 : 4;
    PP_HIP_TRY(ctx, hipMemsetAsync(a->counts, 0, a->nbins * cs, hs->stream));
    if (a->n == 0) {
        pp__set_plan(ctx, "histogram", "none", 0, 0, 0, 0, 0, 0);
        return PP_OK;
    }
    const hist_tuning tu = read_tuning(ctx);
    switch (a->sample_type) {
    case PP_U8: return hist_binner<uint8_t, false>(ctx, a, tu);
    case PP_I32: return hist_binner<int32_t, false>(ctx, a, tu);
    case PP_U32: return hist_binner<uint32_t, false>(ctx, a, tu);
    case PP_F32: return hist_binner<float, true>(ctx, a, tu);
    case PP_F64: return hist_binner<double, true>(ctx, a, tu);
    default: break;
    }
    return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "histogram: hip has no %s samples",
                    pp_dtype_name(a->sample_type) ? pp_dtype_name(a->sample_type) : "?");
}

pp_status pp_hip_reduce_by_index(pp_context *ctx, const pp_reduce_by_index_args *a)
{
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    const hist_tuning tu = read_tuning(ctx);
    switch (a->value_type) {
    case PP_I32: return rbi_op_dispatch<int32_t>(ctx, a, tu);
    case PP_U32: return rbi_op_dispatch<uint32_t>(ctx, a, tu);
    case PP_I64: return rbi_op_dispatch<int64_t>(ctx, a, tu);
    case PP_U64: return rbi_op_dispatch<uint64_t>(ctx, a, tu);
    case PP_F32: return rbi_op_dispatch<float>(ctx, a, tu);
    case PP_F64: return rbi_op_dispatch<double>(ctx, a, tu);
    default: break;
    }
    return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "pp_reduce_by_index: hip has no %s values",
                    pp_dtype_name(a->value_type) ? pp_dtype_name(a->value_type) : "?");
}
