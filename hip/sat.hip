/*
 * sat.hip -- the 2-D family on the GPU (issue 21): scans along the rows or the columns of a
 * matrix, the summed-area table, and the transpose.
 *
 * One kernel, grid_tiles, serves the scans and the table: a tile agent over tiles of
 * ROWS x (SAT_THREADS * ITEMS) elements (tuning_sat.h) taken in ticket order (lookback.h), in
 * row-major tile order, so that a tile only ever waits on tiles that have started. Thread i
 * of the block holds ITEMS consecutive columns of every row of the tile in registers (its
 * loads and stores are coalesced across the wave without an exchange: tile_io.h's lane runs).
 *   row prefixes (row scans, the table): every row's lane totals scanned across the wave
 *     (blocks.h, pp_wave_scan_incl) and the wave totals across the block; each row's tile
 *     total is published at once as the aggregate of that row's chain, one chain per row of
 *     the tile row, and one thread per row looks back along its row (lookback.h,
 *     pp_lookback_lane: in tile order, so the same bits every run) for the row prefix of the
 *     tiles to the left. P(r, c) = left carry + wave prefix + lane prefix + the lane's own run.
 *   column carries (column scans, the table): each column's running fold Q down the tile is
 *     published as the aggregate of the column's chain, one chain per column of the tile
 *     column; each thread looks back up its ITEMS columns for the carry B of the tiles above
 *     (which holds the above-left tiles too: B(c) is the table's row above the tile). The
 *     output is B(c) + Q(r, c).
 *   the table: the column pass runs over the row prefixes P, so each tile combines its left,
 *     above and above-left neighbours' prefixes from the two look-backs; the image is read
 *     once and written once (plus two state entries per column and tile, two per row).
 * The forced two-pass table (PP_OPTION_SAT_STRATEGY) runs the same kernel twice: the row scan
 * into the output, then the column scan over it in place; since the one-pass table computes
 * exactly the row scan's P and then the column scan's sums, both give the same bits.
 * Float order: P is sequential over the tiles to the left (one rounding each) and a tree
 * within the tile (ITEMS + log2 threads); B is sequential over the tiles above; Q sequential
 * down the tile: parprim.h's D = (r + 1) + (c + 1) + PP_SAT_DEPTH_SLACK covers it.
 * A single row (not a column scan) is the 1-D scan of scan.hip.
 *
 * The transpose: tiles of TRANSPOSE_TILE x TRANSPOSE_TILE through shared memory, read by rows
 * and written by rows of the output (coalesced both ways). The tile's rows are padded to an
 * odd number of 4-byte banks (1-byte elements: one bank word; 4 and 8 bytes: one element), so
 * that reading a column of the tile -- consecutive lanes, consecutive rows -- touches distinct
 * banks: 32 consecutive rows for 4-byte words, and 16 for 8-byte elements, which take two
 * banks each and are served per half wave; that holds for waves of 32 and of 64 alike (the
 * LDS serves 32 banks at a time), whatever the wave width. Whole tiles of 4- and 1-byte
 * elements whose rows are aligned move in vectors of 4 elements both ways (transpose_tiles:
 * 16- and 4-byte accesses; 1-byte tiles are 128 x 128 so that a tile row is 128 bytes).
 */
#include <string.h>

#include <type_traits>

#include "blocks.h"
#include "common.h"
#include "lookback.h"
#include "policy.h"
#include "tile_io.h"
#include "tuning_sat.h"

namespace {

enum { MODE_ROWS = 1, MODE_COLS = 2, MODE_SAT = 3 };

struct grid_params {
    uint64_t rows, cols, in_pitch, out_pitch;
    uint64_t ntc, tiles;      /* tile columns, all tiles */
    int mode, exclusive;
    int vec_in, vec_out;      /* rows aligned to a lane's run of ITEMS elements */
    void *hstate, *vstate;    /* row chains (2 x ROWS x tiles entries), column chains (2 x TW x tiles) */
    unsigned *ticket;
    void *border;             /* integral table: the first element of its zero column (row 1), else NULL */
    pp_lb_sleeps sleeps;
};

template <typename P>
__global__ __launch_bounds__(SAT_THREADS, SAT_MIN_BLOCKS) void grid_tiles(const typename P::in_t *in,
                                                                            typename P::out_t *out,
                                                                            typename P::acc_t init, grid_params prm)
{
    using In = typename P::in_t;
    using Out = typename P::out_t;
    using A = typename P::acc_t;
    using Op = typename P::op;
    using SO = pp_scan_op<Op, A, false>;
    using E = pp_lb_entry<SO>;
    constexpr int ROWS = sat_rows<A>(), ITEMS = SAT_ITEMS, TW = SAT_TILE_COLS;
    constexpr int WAVES = SAT_THREADS / PP_WAVE;
    static_assert(SAT_THREADS % PP_WAVE == 0 && ROWS <= SAT_THREADS, "rows served by one thread each");

    __shared__ uint64_t s_tile;
    __shared__ A s_wave[ROWS][WAVES]; /* wave totals of each row, then their exclusive prefixes */
    __shared__ A s_left[ROWS];        /* each row's carry from the tiles to the left */
    __shared__ A s_lex[ROWS][SAT_THREADS]; /* each lane's exclusive prefix in its wave, per row
                                            * (kept here, not in registers: the tile holds them) */

    const unsigned tid = threadIdx.x, lane = pp_lane_id(), w = pp_wave_id();
    const pp_lb_sleeps sleeps = prm.sleeps;
    if (tid == 0) s_tile = pp_tile_ticket(prm.ticket);
    __syncthreads();
    const uint64_t t = s_tile;
    if (t >= prm.tiles) return;
    const uint64_t tr = t / prm.ntc, tc = t % prm.ntc;
    const uint64_t r0 = tr * ROWS, cb = tc * TW + (uint64_t)tid * ITEMS;
    const uint32_t nrows = prm.rows - r0 < (uint64_t)ROWS ? (uint32_t)(prm.rows - r0) : (uint32_t)ROWS;
    const uint32_t valid = cb < prm.cols ? (prm.cols - cb < (uint64_t)ITEMS ? (uint32_t)(prm.cols - cb) : ITEMS) : 0;
    const bool excl = prm.exclusive != 0;

    /* ---- the tile, in registers (identity outside the matrix) ---- */
    A x[ROWS][ITEMS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        In v[ITEMS];
        if ((uint32_t)r < nrows && valid > 0) pp_lane_load<In, ITEMS>(in + (r0 + r) * prm.in_pitch + cb, valid, prm.vec_in, v);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            x[r][k] = (uint32_t)r < nrows && (uint32_t)k < valid ? P::make(v[k], 0) : Op::identity();
    }

    /* ---- row prefixes ---- */
    if (prm.mode != MODE_COLS) {
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            A s = x[r][0];
#pragma unroll
            for (int k = 1; k < ITEMS; ++k) s = Op::apply(s, x[r][k]);
            const A incl = pp_wave_scan_incl<Op>(s);
            s_lex[r][tid] = pp_wave_excl_of_incl<Op>(incl);
            if (lane == PP_WAVE - 1) s_wave[r][w] = incl;
        }
        __syncthreads();
        if (tid < (unsigned)ROWS) { /* thread r: row r's wave prefixes, total, and left carry */
            const unsigned r = tid;
            A acc = Op::identity();
#pragma unroll
            for (int v = 0; v < WAVES; ++v) {
                const A tot = s_wave[r][v];
                s_wave[r][v] = acc;
                acc = Op::apply(acc, tot);
            }
            const bool init_here = excl && tc == 0; /* an exclusive row scan starts at init */
            using SOT = typename SO::T;
            const SOT agg = SO::make(init_here ? Op::apply(init, acc) : acc, 0);
            E *aggs = reinterpret_cast<E *>(prm.hstate) + tr * prm.ntc * ROWS;
            E *incl = aggs + prm.tiles * ROWS;
            if (tc > 0) pp_lb_publish<SO>(aggs, tc * ROWS + r, agg);
            const A left = pp_lookback_lane<SO>(aggs, incl, ROWS, tc, r, agg, sleeps).v;
            s_left[r] = tc > 0 ? left : excl ? init : Op::identity();
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            A s = Op::apply(Op::apply(s_left[r], s_wave[r][w]), s_lex[r][tid]);
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                const A v = Op::apply(s, x[r][k]);
                x[r][k] = excl && prm.mode == MODE_ROWS ? s : v;
                s = v;
            }
        }
    }

    /* ---- column carries ---- */
    A carry[ITEMS];
    bool have = false;
    if (prm.mode != MODE_ROWS) {
        const bool excl_c = excl && prm.mode == MODE_COLS;
        E *aggs = reinterpret_cast<E *>(prm.vstate);
        E *incl = aggs + prm.tiles * TW;
        const uint64_t stride = prm.ntc * TW;
        using SOT = typename SO::T;
        SOT agg[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            A q = Op::identity();
#pragma unroll
            for (int r = 0; r < ROWS; ++r) q = Op::apply(q, x[r][k]);
            agg[k] = SO::make(excl_c && tr == 0 ? Op::apply(init, q) : q, 0);
            if (tr > 0) pp_lb_publish<SO>(aggs, tr * stride + cb + k, agg[k]);
        }
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) carry[k] = pp_lookback_lane<SO>(aggs, incl, stride, tr, cb + k, agg[k], sleeps).v;
        have = tr > 0 || excl_c;
        if (tr == 0 && excl_c) {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) carry[k] = init;
        }
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            A q = Op::identity();
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                const A v = Op::apply(q, x[r][k]);
                const A o = excl_c ? q : v;
                x[r][k] = have ? Op::apply(carry[k], o) : o;
                q = v;
            }
        }
    }

    /* ---- the tile out ---- */
    if (prm.border && tc == 0 && tid < nrows) reinterpret_cast<Out *>(prm.border)[(r0 + tid) * prm.out_pitch] = Out(0);
    if (valid == 0) return;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        Out y[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) y[k] = Out(x[r][k]);
        if ((uint32_t)r < nrows) pp_lane_store<Out, ITEMS>(out + (r0 + r) * prm.out_pitch + cb, valid, prm.vec_out, y);
    }
}

/* The accumulation policy of plain_policy, with the output type the kernel stores. */
template <typename P, typename Out> struct grid_policy : P {
    using out_t = Out;
};

/* Whether policy Q computes a table pp_summed_area_table offers (a sum into a wider or the
 * same float type: src/sat.c's pairs). */
template <typename Q> constexpr bool sat_pair()
{
    using In = typename Q::in_t;
    using A = typename Q::acc_t;
    return std::is_same<typename Q::op, pp_op_sum<A>>::value &&
           (std::is_floating_point<In>::value ? std::is_floating_point<A>::value : sizeof(A) > sizeof(In) || sizeof(In) == 1);
}

/* Whether p is aligned to `bytes` and a pitch of `pitch` elements of `size` keeps every row so. */
static bool rows_aligned(const void *p, uint64_t pitch, size_t size, size_t bytes)
{
    return (uintptr_t)p % bytes == 0 && (pitch * size) % bytes == 0;
}

/* The look-back states of a launch over rows x cols in `mode`: the row chains' (2 entries a row
 * of every tile) and the column chains' (2 a column of every tile), 256-byte aligned. */
template <typename A> void grid_state_bytes(int mode, uint64_t rows, uint64_t cols, size_t *h, size_t *v)
{
    using E = typename pp_lb_carry<A>::entry;
    constexpr int ROWS = sat_rows<A>(), TW = SAT_TILE_COLS;
    const uint64_t tiles = ((rows + ROWS - 1) / ROWS) * ((cols + TW - 1) / TW);
    *h = mode != MODE_COLS ? pp_align256(2 * tiles * ROWS * sizeof(E)) : 0;
    *v = mode != MODE_ROWS ? pp_align256(2 * tiles * TW * sizeof(E)) : 0;
}

/* One launch of grid_tiles over the matrix of `a` (mode, in, out and pitches given), its states
 * from the scratch arena. Records nothing (the caller's plan). */
template <typename P, typename Out>
pp_status grid_launch(pp_context *ctx, int mode, const void *in, uint64_t in_pitch, Out *out, uint64_t out_pitch,
                      const pp_grid_args *a, void *border, uint64_t *grid_out)
{
    using In = typename P::in_t;
    using A = typename P::acc_t;
    using GP = grid_policy<P, Out>;
    pp_hip_state *hs = pp_hip(ctx);
    constexpr int ROWS = sat_rows<A>(), TW = SAT_TILE_COLS;
    const uint64_t ntr = (a->rows + ROWS - 1) / ROWS, ntc = (a->cols + TW - 1) / TW, tiles = ntr * ntc;
    if (tiles > 0x7FFFFFFFull)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: more than 2^31 tiles of %d x %d",
                        a->kind == PP_GRID_SAT ? "pp_summed_area_table" : "pp_axis_scan", ROWS, TW);
    size_t hbytes, vbytes;
    grid_state_bytes<A>(mode, a->rows, a->cols, &hbytes, &vbytes);
    void *sp = nullptr;
    PP_TRY(pp__scratch(ctx, 256 + hbytes + vbytes, &sp));
    char *scratch = (char *)sp;
    PP_HIP_TRY(ctx, hipMemsetAsync(scratch, 0, 256 + hbytes + vbytes, hs->stream));
    if (border) /* the integral table's zero row (nothing is written before the scratch is there);
                 * the kernel writes the zero column */
        PP_HIP_TRY(ctx, hipMemsetAsync((Out *)border - out_pitch, 0, (a->cols + 1) * sizeof(Out), hs->stream));
    grid_params prm;
    memset(&prm, 0, sizeof prm);
    prm.rows = a->rows;
    prm.cols = a->cols;
    prm.in_pitch = in_pitch;
    prm.out_pitch = out_pitch;
    prm.ntc = ntc;
    prm.tiles = tiles;
    prm.mode = mode;
    prm.exclusive = a->exclusive;
    prm.vec_in = rows_aligned(in, in_pitch, sizeof(In), SAT_ITEMS * sizeof(In));
    prm.vec_out = rows_aligned(out, out_pitch, sizeof(Out), SAT_ITEMS * sizeof(Out));
    prm.ticket = (unsigned *)scratch;
    prm.hstate = hbytes ? scratch + 256 : nullptr;
    prm.vstate = vbytes ? scratch + 256 + hbytes : nullptr;
    prm.border = border;
    const pp_sat_tuning *tu = pp_sat_tuning_for(&hs->dev);
    prm.sleeps.pause_ns = tu->pause_ns;
    prm.sleeps.delay_ns = tu->delay_ns;
    Out init_out;
    memcpy(&init_out, a->init, sizeof init_out);
    grid_tiles<GP><<<(unsigned)tiles, SAT_THREADS, 0, hs->stream>>>((const In *)in, out, A(init_out), prm);
    PP_HIP_CHECK_LAUNCH(ctx, "grid_tiles");
    *grid_out = tiles;
    return PP_OK;
}

/* ---- the table by reduce, then scan (PP_SAT_STRATEGY_REDUCE_SCAN) ----
 * The image is cut into bands of B rows (a power of two, run time) and each band into wave
 * tiles of TW = SAT_RS_ITEMS x PP_WAVE columns; a wave owns one tile and walks its rows
 * sat_rs_chunk at a time. For a pixel (r, c) of tile (b, j), with T the table:
 *   T(r, c) = L(r, c) + C(r) + P(b, c),
 *   L(r, c) = sum of the tile's elements in rows [bB, r] and columns [jTW, c] (the tile's own
 *             table: each row's prefix within the wave, summed down the band in registers),
 *   C(r)    = sum over rows r' in [bB, r] of H(r', j), H(r', j) = sum of row r' left of the tile,
 *   P(b, c) = sum over columns c' <= c of V(b, c'), V(b, c') = sum of column c' above the band,
 *           = K(b, j) + the sum of V(b, c') over the tile's columns c' <= c, with the corner
 *   K(b, j) = sum of the image above the band and left of the tile = sum over tiles j' < j of
 *             U(b, j'), U(b, j') = sum over bands b' < b of S(b', j'), S the tiles' totals.
 * Three launches, no look-back:
 *   rs_sums    (one read of the image) every tile's row sums (transposed: rsum[j][r]), column
 *              sums (csum[b][c]) and total (tsum[b][j]);
 *   rs_carries rsum scanned along j for every row (exclusive: H), csum down the bands for every
 *              column (exclusive: V) and tsum down the bands for every tile column (exclusive:
 *              U), each walk by a few lanes of a wave;
 *   rs_table   (a second read, one write) L + C + P, the integral table's zero column; each wave
 *              first makes its tile's P: K from U (the wave's lanes sum U(b, j') over j' < j) and
 *              the tile's V scanned across the wave.
 * (A fourth launch, a block a band scanning V along the columns, made P before: 30.6 us of
 * latency at 16384 x 16384 u8 -> u32 on the H100, ncu; bench/NOTES.md.)
 * Traffic: the image read twice and the table written once, plus (rows x tile columns + bands x
 * cols) sums read and written twice; bits: fixed orders (no atomics), other than the one-pass
 * form's for floats. Float depth of a term: its column sum within a band (<= B) and the bands
 * above (<= b), then P's pieces: an S term also passes the lane's 4 columns (3) and the wave's
 * reduce (w = log2(PP_WAVE)), K's lane sum (<= j / PP_WAVE) and reduce (w), and the two adds of
 * K, the wave's exclusive V and the lane's prefix (<= 3 + w for a V term): at most
 * B + b + 2w + 5 + j / PP_WAVE (<= B + b + 17 + c), where the four launches' row prefix of V took
 * B + b + c; or the row sums' pieces: within parprim.h's D = (r + 1) + (c + 1) +
 * PP_SAT_DEPTH_SLACK (24) since bB + b <= r + 1 above the band (b >= 1; a band b = 0 has no P). */
struct rs_params {
    uint64_t rows, cols, in_pitch, out_pitch;
    uint64_t ntc, nb, tiles; /* wave tiles across, bands, tiles */
    uint64_t toff;           /* nb x cols: tsum's offset from csum, in elements */
    uint64_t off_v, off_u;   /* rs_carries: the first threads of the V and U walks (multiples of the wave) */
    uint32_t sh_h, sh_v;     /* rs_carries: log2 of the lanes a walk of H, of V and U */
    uint32_t band;           /* rows of a band (a multiple of every chunk) */
    int vec_in, vec_out;
    int vec_sums;            /* csum's rows aligned to a lane's SAT_RS_ITEMS sums (pp_lane_load) */
    void *rsum, *csum;       /* A [ntc][rows], A [2 nb][cols]: the column sums, then the tiles' totals
                              * (tsum: A [nb][cols], of whose rows only the first ntc entries are
                              * used, so that a total's slot follows from the column sums' row) */
    void *border;            /* integral table: the first element of its zero column (row 1), else NULL */
};

/* The tile of wave `g` of the grid: its band b and tile column j; false past the last tile. */
PP_DEVICE bool rs_tile(const rs_params &p, uint64_t &b, uint64_t &j)
{
    const uint64_t g = (uint64_t)blockIdx.x * (SAT_RS_THREADS / PP_WAVE) + pp_wave_id();
    if (g >= p.tiles) return false;
    b = g / p.ntc;
    j = g % p.ntc;
    return true;
}

/* A lane's run of N raw elements of one row, as loaded. 1-byte elements, 4 to a run, are kept
 * packed in one 32-bit word: element by element they held a register each, and at the 64
 * registers of 4 blocks an SM (SAT_RS_MIN_BLOCKS) rs_table spilled 26-32 bytes for u8 -> u32
 * and 236 for u8 -> u64 (CUDA 13, sm_90). */
template <typename In, int N> struct rs_raw {
    In e[N];
    PP_DEVICE In get(int k) const { return e[k]; }
    PP_DEVICE void load(const In *p, uint32_t valid, bool vec) { pp_lane_load<In, N>(p, valid, vec, e); }
};
template <> struct rs_raw<uint8_t, 4> {
    uint32_t w;
    PP_DEVICE uint8_t get(int k) const { return (uint8_t)(w >> (8 * k)); }
    PP_DEVICE void load(const uint8_t *p, uint32_t valid, bool vec)
    {
        if (vec && valid >= 4u) {
            w = *reinterpret_cast<const uint32_t *>(p);
        } else {
            uint32_t x = 0;
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if ((uint32_t)k < valid) x |= (uint32_t)p[k] << (8 * k);
            w = x;
        }
    }
};

/* The raw elements of CH rows of a lane's run, from row rc (rows from r1 on and columns from
 * `valid` on are not loaded: their v keep what they held). */
template <typename In, int CH, int N>
PP_DEVICE void rs_load(const In *__restrict__ in, const rs_params &p, uint64_t rc, uint64_t r1, uint64_t cb,
                       uint32_t valid, rs_raw<In, N> (&v)[CH])
{
#pragma unroll
    for (int r = 0; r < CH; ++r)
        if (rc + r < r1 && valid > 0) v[r].load(in + (rc + r) * p.in_pitch + cb, valid, p.vec_in);
}

/* The accumulators of one loaded row (`row`: inside the matrix): the identity outside it. Made
 * a row at a time inside the loops below, so that the chunk lives as raw elements (packed for
 * 1-byte ones) while the next chunk's loads are in flight, not as CH x N accumulators. */
template <typename P, int N>
PP_DEVICE void rs_make(const rs_raw<typename P::in_t, N> &v, bool row, uint32_t valid, typename P::acc_t (&x)[N])
{
#pragma unroll
    for (int k = 0; k < N; ++k) x[k] = row && (uint32_t)k < valid ? P::make(v.get(k), 0) : P::op::identity();
}

/* Whether rs_sums and rs_table take their packed-byte paths (rs_sums_bytes, rs_table_bytes):
 * u8 elements summed into an unsigned integer type, a lane's run of 4 bytes. Their sums are
 * exact (at most 1024 x 255 down a band, 4 x 255 x PP_WAVE along a tile row), so each cast to A
 * is the wrapping sum the element-by-element path computes: the same bits. */
template <typename P> constexpr bool rs_bytes()
{
    using A = typename P::acc_t;
    return std::is_same<typename P::in_t, uint8_t>::value && std::is_unsigned<A>::value &&
           std::is_same<typename P::op, pp_op_sum<A>>::value && SAT_RS_ITEMS == 4;
}

/* The tiles' totals of band b: tsum[b][j], nb rows of column sums after csum[b]. */
template <typename A> PP_DEVICE A *rs_tsum(const rs_params &p, uint64_t b)
{
    return reinterpret_cast<A *>(p.csum) + p.toff + b * p.cols;
}

/* S(b, j), the tile's total, from each lane's sum of its columns (the identity past the
 * matrix; the lane's first column cb): a wave reduce, written by lane 0 to tsum[b][j], found
 * from csum_b = csum[b] (b and j are not kept to the end: at 64 registers rs_sums u8 -> u32
 * spilled 16 bytes when they were). */
template <typename P>
PP_DEVICE void rs_tile_total(const rs_params &p, typename P::acc_t *csum_b, uint64_t cb, typename P::acc_t lane_sum)
{
    const typename P::acc_t t = pp_wave_reduce<typename P::op>(lane_sum);
    if (pp_lane_id() == 0u) csum_b[p.toff + cb / (uint64_t)(SAT_RS_ITEMS * PP_WAVE)] = t;
}

/* rs_sums for rs_bytes: a row's 4 bytes w taken apart as two words of 16-bit halves, lo = bytes
 * 0 and 2, hi = bytes 1 and 3 (an and, a shift and an and), added down the chunk into two packed
 * column sums (a chunk's halves stay below 2^16: CH x 255) and to each other for the row's
 * packed sum, reduced over the wave packed (PP_WAVE x 510 < 2^16) and unpacked once. ncu, H100,
 * 16384 x 16384 u8 -> u32: the element-by-element kernel ran 48 instructions a row, ALU-bound
 * (82%, DRAM 46%, 180.5 us); the packed sums alone 123.6 us (ALU 64%, DRAM 68%: the loads'
 * address products and checks were the rest); with the row-stepping loads below 111.2 us
 * (DRAM 75%). */
template <typename P, int CH>
PP_DEVICE void rs_sums_bytes(const uint8_t *__restrict__ in, const rs_params &p, uint64_t r0, uint64_t r1, uint64_t cb,
                             uint32_t valid, typename P::acc_t *rsum, typename P::acc_t *csum)
{
    using A = typename P::acc_t;
    const unsigned lane = pp_lane_id();
    const uint32_t nrows = (uint32_t)(r1 - r0);
    uint32_t col[4] = {0u, 0u, 0u, 0u};
    rs_raw<uint8_t, 4> v[CH] = {};
    rs_load<uint8_t, CH, 4>(in, p, r0, r1, cb, valid, v);
    /* whole 4-byte runs of aligned rows: a row's word loaded through a pointer that steps a row
     * at a time, with no bound checks before the last two chunks (the general loads, a 64-bit
     * product and a byte-by-byte fallback a row, were most of the kernel's instructions) */
    const bool whole = p.vec_in && valid == 4u;
    const uint32_t *q = reinterpret_cast<const uint32_t *>(in + (r0 + CH) * p.in_pitch + cb);
    for (uint32_t rc = 0; rc < nrows; rc += CH) {
        uint32_t t[CH], clo = 0u, chi = 0u;
        const bool inner = whole && rc + 2u * CH <= nrows;
#pragma unroll
        for (int r = 0; r < CH; ++r) {
            uint32_t w;
            if (inner) {
                w = v[r].w;
                v[r].w = *q;
            } else {
                w = rc + (uint32_t)r < nrows ? v[r].w : 0u;
                if (rc + (uint32_t)(CH + r) < nrows && valid > 0)
                    v[r].load(in + (r0 + rc + CH + r) * p.in_pitch + cb, valid, p.vec_in);
            }
            q = reinterpret_cast<const uint32_t *>(reinterpret_cast<const uint8_t *>(q) + p.in_pitch);
            const uint32_t lo = w & 0x00FF00FFu, hi = (w >> 8) & 0x00FF00FFu;
            clo += lo;
            chi += hi;
            t[r] = lo + hi;
        }
        col[0] += clo & 0xFFFFu;
        col[1] += chi & 0xFFFFu;
        col[2] += clo >> 16;
        col[3] += chi >> 16;
        const uint32_t tot = pp_wave_reduce_many<pp_op_sum<uint32_t>, CH>(t);
        const uint32_t mine = pp_shfl_any(tot, (int)((lane % (unsigned)CH) * (unsigned)(PP_WAVE / CH)));
        if (lane < (unsigned)CH && rc + lane < nrows) rsum[r0 + rc + lane] = A((mine & 0xFFFFu) + (mine >> 16));
    }
#pragma unroll
    for (int k = 0; k < 4; ++k)
        if ((uint32_t)k < valid) csum[cb + k] = A(col[k]);
    rs_tile_total<P>(p, csum, cb, A(col[0]) + A(col[1]) + A(col[2]) + A(col[3]));
}

template <typename P>
__global__ __launch_bounds__(SAT_RS_THREADS, SAT_RS_MIN_BLOCKS((int)sizeof(typename P::in_t))) void rs_sums(const typename P::in_t *__restrict__ in,
                                                                           rs_params p)
{
    using In = typename P::in_t;
    using A = typename P::acc_t;
    using Op = typename P::op;
    constexpr int N = SAT_RS_ITEMS, CH = sat_rs_sums_chunk<In, A>();
    uint64_t b, j;
    if (!rs_tile(p, b, j)) return;
    const unsigned lane = pp_lane_id();
    const uint64_t r0 = b * p.band, cb = j * (uint64_t)(N * PP_WAVE) + (uint64_t)lane * N;
    const uint64_t r1 = p.rows - r0 < (uint64_t)p.band ? p.rows : r0 + p.band;
    const uint32_t valid = cb < p.cols ? (p.cols - cb < (uint64_t)N ? (uint32_t)(p.cols - cb) : N) : 0;
    A *rsum = reinterpret_cast<A *>(p.rsum) + j * p.rows;
    if constexpr (rs_bytes<P>()) {
        rs_sums_bytes<P, CH>(in, p, r0, r1, cb, valid, rsum, reinterpret_cast<A *>(p.csum) + b * p.cols);
    } else {
        A col[N];
#pragma unroll
        for (int k = 0; k < N; ++k) col[k] = Op::identity();
        /* a rolling chunk: each row's slot is reloaded with the row CH below it as soon as it has
         * been made into sums, so CH rows' loads stay in flight with CH raw runs of registers (a
         * copy of the chunk beside the next one's loads, as rs_table keeps, held twice that) */
        rs_raw<In, N> v[CH] = {};
        rs_load<In, CH, N>(in, p, r0, r1, cb, valid, v);
        for (uint64_t rc = r0; rc < r1; rc += CH) {
            A s[CH]; /* the lane's part of each row's sum */
#pragma unroll
            for (int r = 0; r < CH; ++r) {
                A x[N];
                rs_make<P, N>(v[r], rc + r < r1, valid, x);
                if (rc + CH + r < r1 && valid > 0) v[r].load(in + (rc + CH + r) * p.in_pitch + cb, valid, p.vec_in);
                s[r] = x[0];
#pragma unroll
                for (int k = 1; k < N; ++k) s[r] = Op::apply(s[r], x[k]);
#pragma unroll
                for (int k = 0; k < N; ++k) col[k] = Op::apply(col[k], x[k]);
            }
            /* the chunk's row sums over the wave at once (one pp_wave_reduce a row was 5 shuffles a
             * row; 8 rows: 9 shuffles, 16: 16), then lane r of the chunk takes row rc + r's */
            const A tot = pp_wave_reduce_many<Op, CH>(s);
            const A mine = pp_shfl_any(tot, (int)((lane % (unsigned)CH) * (unsigned)(PP_WAVE / CH)));
            if (lane < (unsigned)CH && rc + lane < r1) rsum[rc + lane] = mine;
        }
        A *csum = reinterpret_cast<A *>(p.csum) + b * p.cols;
        A tot = col[0];
#pragma unroll
        for (int k = 0; k < N; ++k) {
            if ((uint32_t)k < valid) csum[cb + k] = col[k];
            if (k > 0) tot = Op::apply(tot, col[k]);
        }
        rs_tile_total<P>(p, csum, cb, tot);
    }
}

/* The exclusive scans of three sets of walks, in place: H, every row's sums along the tile
 * columns (rsum[j][r], j < ntc); V, every column's sums down the bands (csum[b][c], b < nb); U,
 * every tile column's totals down the bands (tsum[b][j]). A walk of n sums is split among
 * S = 2^sh lanes of one wave (sh_h for H, sh_v for V and U: the host's choice, the fewest lanes
 * that leave each at most SAT_RS_CARRY_LOADS sums): the wave's lanes take PP_WAVE / S walks,
 * walk-fastest (so a load of one segment position is contiguous across the walks), each lane
 * one segment of ceil(n / S) sums, loaded at once and summed; the segments' totals are scanned
 * over the walk's S lanes by shuffles, then each lane writes its segment's prefixes. One round
 * trip where a thread walking 128 tile columns 16 sums at a time took eight (rs_carries 18.3-20.1
 * us at 16384 x 16384 on the H100, ncu, b7f5fcc). The thread ranges of H, V and U start at
 * multiples of the wave width (p.off_v, p.off_u), so that every wave lies in one of them. Bits:
 * fixed by n (and the wave width) alone, so the same every run. */
template <typename P> __global__ __launch_bounds__(SAT_RS_THREADS) void rs_carries(rs_params p)
{
    using A = typename P::acc_t;
    using Op = typename P::op;
    constexpr int G = SAT_RS_CARRY_LOADS;
    const uint64_t t = (uint64_t)blockIdx.x * SAT_RS_THREADS + threadIdx.x;
    const unsigned lane = pp_lane_id();
    uint64_t t0, walks, n, stride;
    unsigned sh;
    A *a0;
    if (t < p.off_v) {
        t0 = 0, sh = p.sh_h, walks = p.rows, n = p.ntc, stride = p.rows;
        a0 = reinterpret_cast<A *>(p.rsum);
    } else if (t < p.off_u) {
        t0 = p.off_v, sh = p.sh_v, walks = p.cols, n = p.nb, stride = p.cols;
        a0 = reinterpret_cast<A *>(p.csum);
    } else {
        t0 = p.off_u, sh = p.sh_v, walks = p.ntc, n = p.nb, stride = p.cols;
        a0 = rs_tsum<A>(p, 0);
    }
    const unsigned per = (unsigned)PP_WAVE >> sh;                        /* walks a wave */
    const unsigned k = (lane << sh) / PP_WAVE;                           /* the lane's segment: lane / per */
    const uint64_t w = (t - t0) / PP_WAVE * per + (lane & (per - 1u)); /* its walk */
    const uint64_t seg = (n + (1u << sh) - 1) >> sh;
    const uint64_t i0 = w < walks && k * seg < n ? k * seg : n, i1 = n - i0 < seg ? n : i0 + seg;
    A *a = a0 + (w < walks ? w : 0);
    A v[G], tot = Op::identity();
#pragma unroll
    for (int g = 0; g < G; ++g) {
        v[g] = i0 + g < i1 ? a[(i0 + g) * stride] : Op::identity();
        tot = Op::apply(tot, v[g]);
    }
    for (uint64_t i = i0 + G; i < i1; ++i) tot = Op::apply(tot, a[i * stride]); /* n > S x G */
    /* the segments' totals scanned over the walk's S lanes, per apart */
    A acc = pp_wave_excl_of_incl_strided<Op>(pp_wave_scan_incl_strided<Op>(tot, per, k, 1u << sh), per, k);
#pragma unroll
    for (int g = 0; g < G; ++g)
        if (i0 + g < i1) {
            a[(i0 + g) * stride] = acc;
            acc = Op::apply(acc, v[g]);
        }
    for (uint64_t i = i0 + G; i < i1; ++i) {
        const A x = a[i * stride];
        a[i * stride] = acc;
        acc = Op::apply(acc, x);
    }
}

/* P(b, c) of the lane's N columns [cb, cb + N) of tile (b, j) (rs_launch's comment): the corner
 * K(b, j), U(b, j') summed over j' < j by the wave's lanes, plus the tile's V scanned across the
 * wave (the lane's run, then the lanes' totals). Every lane of the wave calls it. Cost: up to
 * ntc / PP_WAVE loads a lane (4 at 16384 columns on a wave of 32), so a band's corners cost
 * ntc^2 / 2 loads in all: quadratic in the tile columns of very wide images (2^20 columns: 8192
 * tile columns, up to 256 loads a lane; not measured). The four launches' scan of V was linear
 * but one block a band (16384 columns: 30.6 us). A look-back over the corners (U is complete
 * before rs_table starts, so a wave can add U(b, j - 1) and look further back until it finds a
 * published K) would make it short at every width: left for the next session (bench/NOTES.md). */
template <typename P, int N>
PP_DEVICE void rs_band_prefix(const rs_params &p, uint64_t b, uint64_t j, uint64_t cb, uint32_t valid,
                              typename P::acc_t (&pc)[N])
{
    using A = typename P::acc_t;
    using Op = typename P::op;
    static_assert(N == SAT_RS_ITEMS, "p.vec_sums is for runs of SAT_RS_ITEMS sums");
    const A *v = reinterpret_cast<const A *>(p.csum) + b * p.cols;
    const A *u = rs_tsum<A>(p, b);
#pragma unroll
    for (int k = 0; k < N; ++k) pc[k] = Op::identity();
    pp_lane_load<A, N>(v + cb, valid, p.vec_sums, pc);
    A corner = Op::identity();
    for (uint64_t q = pp_lane_id(); q < j; q += PP_WAVE) corner = Op::apply(corner, u[q]);
    corner = pp_wave_reduce<Op>(corner);
#pragma unroll
    for (int k = 1; k < N; ++k) pc[k] = Op::apply(pc[k - 1], pc[k]);
    const A base = Op::apply(corner, pp_wave_excl_of_incl<Op>(pp_wave_scan_incl<Op>(pc[N - 1])));
#pragma unroll
    for (int k = 0; k < N; ++k) pc[k] = Op::apply(base, pc[k]);
}

/* rs_table for rs_bytes: a lane's 4 bytes w of a row, prefix-summed in the lane; two rows' lane
 * totals (at most 4 x 255) packed into the halves of one word and scanned over the wave at
 * once (an inclusive scan of at most PP_WAVE x 1020 < 2^16 a half), each row's exclusive
 * prefix its half less its own total (no shuffle); the column sums kept with the band's carry
 * P already added (colp = P + col): about 3/4 of the element-by-element path's instructions a
 * row. Exact integer sums in A, so the same bits. */
template <typename P, int CH>
PP_DEVICE void rs_table_bytes(const uint8_t *__restrict__ in, typename P::out_t *__restrict__ out, const rs_params &p,
                              uint64_t r0, uint64_t r1, uint64_t cb, uint32_t valid, uint64_t b, uint64_t j,
                              const typename P::acc_t *hrow)
{
    using Out = typename P::out_t;
    using A = typename P::acc_t;
    static_assert(CH % 2 == 0, "rows scanned in pairs");
    const unsigned lane = pp_lane_id();
    const uint32_t nrows = (uint32_t)(r1 - r0);
    A crun = A(0);
    rs_raw<uint8_t, 4> v[CH] = {};
    rs_load<uint8_t, CH, 4>(in, p, r0, r1, cb, valid, v);
    A colp[4]; /* the band's P, from its sums' loads while the first chunk's are in flight */
    rs_band_prefix<P, 4>(p, b, j, cb, valid, colp);
    for (uint32_t rc = 0; rc < nrows; rc += CH) {
        uint32_t cur[CH];
#pragma unroll
        for (int r = 0; r < CH; ++r) cur[r] = rc + (uint32_t)r < nrows ? v[r].w : 0u;
        if (SAT_RS_PREFETCH && rc + CH < nrows) rs_load<uint8_t, CH, 4>(in, p, r0 + rc + CH, r1, cb, valid, v);
        const A h = lane < (unsigned)CH && rc + lane < nrows ? hrow[r0 + rc + lane] : A(0);
        if (p.border && j == 0 && lane < (unsigned)CH && rc + lane < nrows)
            reinterpret_cast<Out *>(p.border)[(r0 + rc + lane) * p.out_pitch] = Out(0);
#pragma unroll
        for (int r = 0; r < CH; r += 2) {
            uint32_t x[2][4];
#pragma unroll
            for (int q = 0; q < 2; ++q) {
                const uint32_t w = cur[r + q];
                x[q][0] = w & 0xFFu;
                x[q][1] = x[q][0] + ((w >> 8) & 0xFFu);
                x[q][2] = x[q][1] + ((w >> 16) & 0xFFu);
                x[q][3] = x[q][2] + (w >> 24);
            }
            const uint32_t s = pp_wave_scan_incl<pp_op_sum<uint32_t>>(x[0][3] | (x[1][3] << 16));
            const uint32_t ex[2] = {(s & 0xFFFFu) - x[0][3], (s >> 16) - x[1][3]};
#pragma unroll
            for (int q = 0; q < 2; ++q) {
                crun += pp_shfl_any(h, r + q);
                Out y[4];
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    colp[k] += A(ex[q] + x[q][k]);
                    y[k] = Out(colp[k] + crun);
                }
                if (rc + (uint32_t)(r + q) < nrows && valid > 0)
                    pp_lane_store<Out, 4>(out + (r0 + rc + r + q) * p.out_pitch + cb, valid, p.vec_out, y);
            }
        }
        if (!SAT_RS_PREFETCH && rc + CH < nrows) rs_load<uint8_t, CH, 4>(in, p, r0 + rc + CH, r1, cb, valid, v);
    }
}

template <typename P>
__global__ __launch_bounds__(SAT_RS_THREADS, SAT_RS_MIN_BLOCKS((int)sizeof(typename P::in_t))) void rs_table(const typename P::in_t *__restrict__ in,
                                                                            typename P::out_t *__restrict__ out,
                                                                            rs_params p)
{
    using In = typename P::in_t;
    using Out = typename P::out_t;
    using A = typename P::acc_t;
    using Op = typename P::op;
    constexpr int N = SAT_RS_ITEMS, CH = sat_rs_chunk<In, A>();
    uint64_t b, j;
    if (!rs_tile(p, b, j)) return;
    const unsigned lane = pp_lane_id();
    const uint64_t r0 = b * p.band, cb = j * (uint64_t)(N * PP_WAVE) + (uint64_t)lane * N;
    const uint64_t r1 = p.rows - r0 < (uint64_t)p.band ? p.rows : r0 + p.band;
    const uint32_t valid = cb < p.cols ? (p.cols - cb < (uint64_t)N ? (uint32_t)(p.cols - cb) : N) : 0;
    const A *hrow = reinterpret_cast<const A *>(p.rsum) + j * p.rows;
    if constexpr (rs_bytes<P>()) {
        rs_table_bytes<P, CH>(in, out, p, r0, r1, cb, valid, b, j, hrow);
    } else {
        A pc[N], col[N];
#pragma unroll
        for (int k = 0; k < N; ++k) col[k] = Op::identity();
        A crun = Op::identity();
        rs_raw<In, N> v[CH] = {};
        rs_load<In, CH, N>(in, p, r0, r1, cb, valid, v);
        rs_band_prefix<P, N>(p, b, j, cb, valid, pc);
        for (uint64_t rc = r0; rc < r1; rc += CH) {
            rs_raw<In, N> cur[CH];
#pragma unroll
            for (int r = 0; r < CH; ++r) cur[r] = v[r];
            if (SAT_RS_PREFETCH && rc + CH < r1) rs_load<In, CH, N>(in, p, rc + CH, r1, cb, valid, v);
            const A h = lane < (unsigned)CH && rc + lane < r1 ? hrow[rc + lane] : Op::identity();
            if (p.border && j == 0 && lane < (unsigned)CH && rc + lane < r1)
                reinterpret_cast<Out *>(p.border)[(rc + lane) * p.out_pitch] = Out(0);
#pragma unroll
            for (int r = 0; r < CH; ++r) {
                A x[N];
                rs_make<P, N>(cur[r], rc + r < r1, valid, x);
#pragma unroll
                for (int k = 1; k < N; ++k) x[k] = Op::apply(x[k - 1], x[k]);
                const A ex = pp_wave_excl_of_incl<Op>(pp_wave_scan_incl<Op>(x[N - 1]));
                crun = Op::apply(crun, pp_shfl_any(h, r));
                Out y[N];
#pragma unroll
                for (int k = 0; k < N; ++k) {
                    col[k] = Op::apply(col[k], Op::apply(ex, x[k]));
                    y[k] = Out(Op::apply(Op::apply(col[k], crun), pc[k]));
                }
                if (rc + r < r1 && valid > 0) pp_lane_store<Out, N>(out + (rc + r) * p.out_pitch + cb, valid, p.vec_out, y);
            }
            if (!SAT_RS_PREFETCH && rc + CH < r1) rs_load<In, CH, N>(in, p, rc + CH, r1, cb, valid, v);
        }
    }
}

/* The three launches of the reduce-then-scan table over the matrix of `a`; *band_out: the band. */
template <typename P, typename Out>
pp_status rs_launch(pp_context *ctx, Out *out, const pp_grid_args *a, void *border, uint64_t *tiles_out,
                    uint64_t *band_out)
{
    using In = typename P::in_t;
    using A = typename P::acc_t;
    pp_hip_state *hs = pp_hip(ctx);
    const pp_sat_tuning *tu = pp_sat_tuning_for(&hs->dev);
    const uint64_t wave = (uint64_t)hs->dev.wave, tw = (uint64_t)SAT_RS_ITEMS * wave;
    const uint64_t ntc = (a->cols + tw - 1) / tw;
    const uint64_t aim = (uint64_t)hs->dev.cu_count * tu->rs_waves_per_cu;
    uint64_t band = SAT_RS_BAND_MIN;
    while (band < 1024 && (a->rows + band - 1) / band * ntc > aim) band *= 2;
    const uint64_t nb = (a->rows + band - 1) / band, tiles = nb * ntc;
    const uint64_t wpb = SAT_RS_THREADS / wave;
    /* rs_carries: lanes a walk (the fewest leaving each lane at most SAT_RS_CARRY_LOADS sums, at
     * most a wave), the H, V and U ranges of threads each from a multiple of the wave width */
    uint32_t sh_h = 0, sh_v = 0;
    while ((ntc + (1u << sh_h) - 1) >> sh_h > SAT_RS_CARRY_LOADS && (1u << sh_h) < wave) ++sh_h;
    while ((nb + (1u << sh_v) - 1) >> sh_v > SAT_RS_CARRY_LOADS && (1u << sh_v) < wave) ++sh_v;
    const uint64_t off_v = ((a->rows << sh_h) + wave - 1) / wave * wave,
                   off_u = off_v + ((a->cols << sh_v) + wave - 1) / wave * wave;
    const uint64_t blocks = (tiles + wpb - 1) / wpb,
                   cblocks = (off_u + (ntc << sh_v) + SAT_RS_THREADS - 1) / SAT_RS_THREADS;
    if (blocks > 0x7FFFFFFFull || cblocks > 0x7FFFFFFFull)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "pp_summed_area_table: more than 2^31 blocks of tiles");
    const size_t rbytes = pp_align256((size_t)(ntc * a->rows * sizeof(A)));
    void *sp = nullptr;
    PP_TRY(pp__scratch(ctx, rbytes + pp_align256((size_t)(2 * nb * a->cols * sizeof(A))), &sp));
    if (border) /* the integral table's zero row (the kernel writes the zero column) */
        PP_HIP_TRY(ctx, hipMemsetAsync((Out *)border - a->out_pitch, 0, (a->cols + 1) * sizeof(Out), hs->stream));
    rs_params p;
    memset(&p, 0, sizeof p);
    p.rows = a->rows;
    p.cols = a->cols;
    p.in_pitch = a->in_pitch;
    p.out_pitch = a->out_pitch;
    p.ntc = ntc;
    p.nb = nb;
    p.tiles = tiles;
    p.toff = nb * a->cols;
    p.off_v = off_v;
    p.off_u = off_u;
    p.sh_h = sh_h;
    p.sh_v = sh_v;
    p.band = (uint32_t)band;
    p.vec_in = rows_aligned(a->in, a->in_pitch, sizeof(In), SAT_RS_ITEMS * sizeof(In));
    p.vec_out = rows_aligned(out, a->out_pitch, sizeof(Out), SAT_RS_ITEMS * sizeof(Out));
    p.rsum = sp;
    p.csum = (char *)sp + rbytes;
    p.vec_sums = rows_aligned(p.csum, a->cols, sizeof(A), SAT_RS_ITEMS * sizeof(A));
    p.border = border;
    using GP = grid_policy<P, Out>;
    hipStream_t s = hs->stream;
    rs_sums<GP><<<(unsigned)blocks, SAT_RS_THREADS, 0, s>>>((const In *)a->in, p);
    PP_HIP_CHECK_LAUNCH(ctx, "rs_sums");
    rs_carries<GP><<<(unsigned)cblocks, SAT_RS_THREADS, 0, s>>>(p);
    PP_HIP_CHECK_LAUNCH(ctx, "rs_carries");
    rs_table<GP><<<(unsigned)blocks, SAT_RS_THREADS, 0, s>>>((const In *)a->in, out, p);
    PP_HIP_CHECK_LAUNCH(ctx, "rs_table");
    *tiles_out = tiles;
    *band_out = band;
    return PP_OK;
}

/* The strategy of a table: the option's, or the tuning row's for AUTO (by the table's size). */
static int sat_strategy(pp_context *ctx, const pp_sat_tuning *tu, const pp_grid_args *a)
{
    const int64_t forced = pp__option(ctx, PP_OPTION_SAT_STRATEGY);
    if (forced != PP_SAT_STRATEGY_AUTO) return (int)forced;
    return a->rows * a->cols >= tu->auto_min ? tu->auto_strategy : PP_SAT_STRATEGY_ONE_PASS;
}

/* The plan: family "sat" or "axis_scan"; strategy "one_pass", "two_pass", "reduce_scan" (the
 * table), "tiles" (scans) or "single_row" (the 1-D scan's, whose own plan it replaces); grid =
 * tiles = the blocks (reduce_scan: the wave tiles) of the (last) launch; param = {tile rows,
 * tile columns, pause, delay (ns)} (reduce_scan: {band rows, tile columns, 0, 0}). */
template <typename P, typename Out> struct grid_run {
    pp_context *ctx;
    const pp_grid_args *a;
    template <typename Q> pp_status go()
    {
        using A = typename Q::acc_t;
        const char *family = a->kind == PP_GRID_SAT ? "sat" : "axis_scan";
        Out *out = (Out *)a->out;
        void *border = a->integral ? (void *)((Out *)a->out - 1) : nullptr;
        const pp_sat_tuning *tu = pp_sat_tuning_for(&pp_hip(ctx)->dev);
        uint64_t grid = 0;
        if (a->kind == PP_GRID_SCAN_ROWS) {
            PP_TRY((grid_launch<Q, Out>(ctx, MODE_ROWS, a->in, a->in_pitch, out, a->out_pitch, a, nullptr, &grid)));
            pp__set_plan(ctx, family, "tiles", grid, grid, sat_rows<A>(), SAT_TILE_COLS, tu->pause_ns, tu->delay_ns);
        } else if (a->kind == PP_GRID_SCAN_COLS) {
            PP_TRY((grid_launch<Q, Out>(ctx, MODE_COLS, a->in, a->in_pitch, out, a->out_pitch, a, nullptr, &grid)));
            pp__set_plan(ctx, family, "tiles", grid, grid, sat_rows<A>(), SAT_TILE_COLS, tu->pause_ns, tu->delay_ns);
        } else if constexpr (!sat_pair<Q>()) {
            return PP_ERROR_UNSUPPORTED; /* src/ lets no other table through */
        } else if (sat_strategy(ctx, tu, a) == PP_SAT_STRATEGY_REDUCE_SCAN) {
            uint64_t band = 0;
            PP_TRY((rs_launch<Q, Out>(ctx, out, a, border, &grid, &band)));
            pp__set_plan(ctx, family, "reduce_scan", grid, grid, (int64_t)band,
                         (int64_t)SAT_RS_ITEMS * pp_hip(ctx)->dev.wave, 0, 0);
        } else if (sat_strategy(ctx, tu, a) == PP_SAT_STRATEGY_TWO_PASS) {
            /* rows into out, then the columns of out in place (the same-type sum's kernel); the
             * scratch of both first, so that a failure writes nothing */
            size_t h1, v1, h2, v2;
            void *sp = nullptr;
            grid_state_bytes<A>(MODE_ROWS, a->rows, a->cols, &h1, &v1);
            grid_state_bytes<typename grid_policy_cols<Out>::acc_t>(MODE_COLS, a->rows, a->cols, &h2, &v2);
            PP_TRY(pp__scratch(ctx, 256 + (h1 + v1 > h2 + v2 ? h1 + v1 : h2 + v2), &sp));
            PP_TRY((grid_launch<Q, Out>(ctx, MODE_ROWS, a->in, a->in_pitch, out, a->out_pitch, a, border, &grid)));
            using C = grid_policy_cols<Out>;
            PP_TRY((grid_launch<C, Out>(ctx, MODE_COLS, out, a->out_pitch, out, a->out_pitch, a, nullptr, &grid)));
            pp__set_plan(ctx, family, "two_pass", grid, grid, sat_rows<A>(), SAT_TILE_COLS, tu->pause_ns,
                         tu->delay_ns);
        } else {
            PP_TRY((grid_launch<Q, Out>(ctx, MODE_SAT, a->in, a->in_pitch, out, a->out_pitch, a, border, &grid)));
            pp__set_plan(ctx, family, "one_pass", grid, grid, sat_rows<A>(), SAT_TILE_COLS, tu->pause_ns,
                         tu->delay_ns);
        }
        return PP_OK;
    }
    /* The second pass of the two-pass table: the column sums of Out, accumulated as the first
     * pass's sums are (plain_policy of the same-type sum). */
    template <typename O>
    using grid_policy_cols = plain_policy<O, typename unsigned_of<O>::type, pp_op_sum<typename unsigned_of<O>::type>>;
};

/* Exact ops of a signed integer type run the unsigned type's kernel (the same bits): fewer
 * kernels to compile. */
template <typename In, typename Out> pp_status grid_io(pp_context *ctx, const pp_grid_args *a)
{
    grid_run<In, Out> run = {ctx, a};
    pp_status st = PP_ERROR_UNSUPPORTED;
    if constexpr (std::is_same<In, Out>::value && std::is_integral<In>::value && std::is_signed<In>::value) {
        /* pp_hip_grid_scan sends the other ops to the unsigned type's kernels */
        if (a->op == PP_OP_MIN) st = run.template go<plain_policy<In, In, pp_op_min<In>>>();
        else if (a->op == PP_OP_MAX) st = run.template go<plain_policy<In, In, pp_op_max<In>>>();
    } else {
        st = with_policy<In, Out>(a->op, run);
    }
    if (st == PP_ERROR_UNSUPPORTED && !ctx->message[0])
        return pp__fail(ctx, st, "%s: hip has no %s from %s to %s", a->kind == PP_GRID_SAT ? "pp_summed_area_table" : "pp_axis_scan",
                        pp_op_name(a->op), pp_dtype_name(a->in_type), pp_dtype_name(a->out_type));
    return st;
}

/* ---- transpose ---- */

/* Tiles of TD x TD elements; a whole tile of a matrix whose rows are aligned to VW elements
 * (`vec`) moves in vectors of VW elements both ways (4-byte elements: 16 bytes; 1-byte: 4):
 * thread (ty, tx) loads the vectors at columns [VW tx, VW tx + VW) of rows ty, ty + TY, ...
 * and scatters their elements into the tile, then gathers VW elements of a tile column --
 * rows [VW tx, VW tx + VW) of column j -- into the vector it stores at output row j. The
 * element order within the scatter and the gather is rotated by `rot` = (tx / 8) x VW / (TX /
 * 8) (for 4-byte elements, 2 for lanes 8 .. 15 of a row: the two rows a wave of 32 covers land
 * on the other half of each group of 4 banks; for 1-byte ones, 0 .. 3 for the four groups of
 * 8 lanes of a wave of 32), so that the lanes of one access hit distinct banks. Other tiles
 * (the edges, unaligned rows, 8-byte elements) move element by element. */
template <typename T> constexpr int transpose_tile() { return sizeof(T) == 1 ? 2 * TRANSPOSE_TILE : TRANSPOSE_TILE; }
template <typename T> constexpr int transpose_vw() { return sizeof(T) <= 4 ? 4 : 1; }

template <typename T>
__global__ __launch_bounds__(TRANSPOSE_THREADS) void transpose_tiles(const T *in, T *out, uint64_t rows, uint64_t cols,
                                                                      uint64_t ip, uint64_t op, uint64_t tiles_r,
                                                                      uint64_t tiles_c, uint64_t total, int vec)
{
    constexpr int TD = transpose_tile<T>(), STEP = TRANSPOSE_THREADS / TD;
    constexpr int PAD = sizeof(T) < 4 ? 4 / (int)sizeof(T) : 1; /* an odd number of banks per row */
    constexpr int VW = transpose_vw<T>(), TX = TD / VW, TY = TRANSPOSE_THREADS / TX;
    static_assert(TD % VW == 0 && TRANSPOSE_THREADS % TX == 0 && TD % TY == 0, "the vector layout covers the tile");
    __shared__ T tile[TD][TD + PAD];
    const unsigned tx = threadIdx.x % TD, ty = threadIdx.x / TD;
    const unsigned vx = threadIdx.x % TX, vy = threadIdx.x / TX;
    const unsigned rot = TX >= 8 ? (vx / 8) * (VW / (TX / 8 > 0 ? TX / 8 : 1)) : 0;
    for (uint64_t b = blockIdx.x; b < total; b += gridDim.x) {
        const uint64_t per = tiles_r * tiles_c, k = b / per, i = (b % per) / tiles_c, j = b % tiles_c;
        const T *x = in + k * rows * ip;
        T *y = out + k * cols * op;
        const uint64_t r0 = i * TD, c0 = j * TD;
        if (VW > 1 && vec && r0 + TD <= rows && c0 + TD <= cols) {
#pragma unroll
            for (int q0 = 0; q0 < TD; q0 += TY) {
                const unsigned q = q0 + vy;
                T v[VW];
                pp_lane_load<T, VW>(x + (r0 + q) * ip + c0 + (uint64_t)vx * VW, VW, true, v);
#pragma unroll
                for (int e = 0; e < VW; ++e) {
                    const unsigned m = (e + rot) % VW;
#pragma unroll
                    for (int f = 0; f < VW; ++f) /* v[m], without a dynamic register index */
                        if ((unsigned)f == m) tile[q][vx * VW + f] = v[f];
                }
            }
            __syncthreads();
#pragma unroll
            for (int q0 = 0; q0 < TD; q0 += TY) {
                const unsigned q = q0 + vy; /* output row: tile column q */
                T v[VW];
#pragma unroll
                for (int e = 0; e < VW; ++e) {
                    const unsigned m = (e + rot) % VW;
                    const T t = tile[vx * VW + m][q];
#pragma unroll
                    for (int f = 0; f < VW; ++f)
                        if ((unsigned)f == m) v[f] = t;
                }
                pp_lane_store<T, VW>(y + (c0 + q) * op + r0 + (uint64_t)vx * VW, VW, true, v);
            }
            __syncthreads();
            continue;
        }
#pragma unroll
        for (int q0 = 0; q0 < TD; q0 += STEP) {
            const unsigned q = q0 + ty;
            if (r0 + q < rows && c0 + tx < cols) tile[q][tx] = x[(r0 + q) * ip + c0 + tx];
        }
        __syncthreads();
#pragma unroll
        for (int q0 = 0; q0 < TD; q0 += STEP) {
            const unsigned q = q0 + ty;
            if (c0 + q < cols && r0 + tx < rows) y[(c0 + q) * op + r0 + tx] = tile[tx][q];
        }
        __syncthreads();
    }
}

template <typename T> pp_status transpose_launch(pp_context *ctx, const pp_transpose_args *a)
{
    pp_hip_state *hs = pp_hip(ctx);
    constexpr int TD = transpose_tile<T>(), VW = transpose_vw<T>();
    const uint64_t tr = (a->rows + TD - 1) / TD, tc = (a->cols + TD - 1) / TD;
    const uint64_t total = tr * tc * a->batch;
    const uint64_t grid = total < 0x7FFFFFFFull ? total : 0x7FFFFFFFull;
    /* every row of both matrices (and of the batch's other matrices) aligned to a vector */
    const size_t vb = VW * sizeof(T);
    const int vec = VW > 1 && (uintptr_t)a->in % vb == 0 && (uintptr_t)a->out % vb == 0 && a->in_pitch % VW == 0 &&
                    a->out_pitch % VW == 0;
    /* The plan: family "transpose", strategy "tiles", grid, tiles, param = {tile side, threads,
     * vector elements (1: element by element)}. */
    pp__set_plan(ctx, "transpose", "tiles", grid, total, TD, TRANSPOSE_THREADS, vec ? VW : 1, 0);
    transpose_tiles<T><<<(unsigned)grid, TRANSPOSE_THREADS, 0, hs->stream>>>(
        (const T *)a->in, (T *)a->out, a->rows, a->cols, a->in_pitch, a->out_pitch, tr, tc, total, vec);
    PP_HIP_CHECK_LAUNCH(ctx, "transpose_tiles");
    return PP_OK;
}

} // namespace

pp_status pp_hip_grid_scan(pp_context *ctx, const pp_grid_args *a)
{
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    pp_hip_state *hs = pp_hip(ctx);
    const size_t osz = pp_dtype_size(a->out_type);
    if (a->rows == 1 && a->kind != PP_GRID_SCAN_COLS) {
        /* one row: the 1-D scan */
        pp_scan_args s;
        memset(&s, 0, sizeof s);
        s.in = a->in;
        s.n = a->cols;
        s.in_type = a->in_type;
        s.op = a->op;
        s.exclusive = a->exclusive;
        memcpy(s.init, a->init, sizeof s.init);
        s.out = a->out;
        s.out_type = a->out_type;
        PP_TRY(pp_hip_scan(ctx, &s));
        if (a->integral) { /* the zero row, and the zero before the row */
            PP_HIP_TRY(ctx, hipMemsetAsync((char *)a->out - (a->out_pitch + 1) * osz, 0, (a->cols + 1) * osz, hs->stream));
            PP_HIP_TRY(ctx, hipMemsetAsync((char *)a->out - osz, 0, osz, hs->stream));
        }
        const pp_plan inner = ctx->plan;
        pp__set_plan(ctx, a->kind == PP_GRID_SAT ? "sat" : "axis_scan", "single_row", inner.grid, inner.tiles,
                     inner.param[0], inner.param[1], inner.param[2], inner.param[3]);
        return PP_OK;
    }
    pp_dtype in_t = a->in_type, out_t = a->out_type;
    const int exact = a->op != PP_OP_MIN && a->op != PP_OP_MAX;
    if (exact && in_t == out_t && in_t == PP_I32) in_t = out_t = PP_U32;
    if (exact && in_t == out_t && in_t == PP_I64) in_t = out_t = PP_U64;
#define PP_CALL_GRID(I, O) grid_io<I, O>(ctx, a)
    PP_DISPATCH_IN_OUT(ctx, in_t, out_t, PP_CALL_GRID);
#undef PP_CALL_GRID
    return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "2-D scan: hip has none from %s to %s", pp_dtype_name(a->in_type),
                    pp_dtype_name(a->out_type));
}

pp_status pp_hip_transpose(pp_context *ctx, const pp_transpose_args *a)
{
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    switch (a->esize) {
    case 1: return transpose_launch<uint8_t>(ctx, a);
    case 4: return transpose_launch<uint32_t>(ctx, a);
    default: return transpose_launch<uint64_t>(ctx, a);
    }
}
