/*
 * sort.hip -- the radix sort family on the GPU (issue 20): pp_sort_keys, pp_sort_pairs and
 * pp_argsort, by two algorithms over the same keys, which give the same bits (a stable sort has
 * one result).
 *
 * Keys. Every key moves as its own bits, as a 1-, 4- or 8-byte unsigned word; its digits come
 * from its sort encoding (src/key_encoding.h: parprim.h's order, -0.0 == +0.0, every NaN last,
 * complemented when descending), whose kind and flip are run-time values, so one kernel serves
 * every key type of a width. An argsort's 4-byte keys, which no caller sees, move as their
 * encodings from the first onesweep pass that moves them on. Values move as 1-, 4- or 8-byte
 * words; argsort's values are the positions 0, 1, ... written by the first pass that moves them.
 *
 * Onesweep (large inputs; Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix
 * Sort for GPUs", 2022):
 *   sort_histogram  one read of the keys counts the digits of every 8-bit pass (shared-memory
 *                   counters per block, each thread adding runs of equal digits at once, so
 *                   that sorted and all-equal inputs do not pile atomics on one counter);
 *                   its last block to finish (sort_starts) turns them into each pass's digit
 *                   starts (an exclusive scan of the counts) and whether one digit holds every
 *                   key (then the pass is skipped);
 *   onesweep_pass   per pass, a tile (SORT_BLOCK x ITEMS keys, or a wide tile: 512 x ITEMS keys,
 *                   384 x 16 pairs; run_onesweep_sized; taken in ticket order) is ranked
 *                   by its digit in registers and shared memory (radix_rank.h: match ranking),
 *                   each digit's count is published and the counts of the tiles before it are
 *                   looked back (lookback.h, pp_lookback_counter: one counter per thread), the
 *                   tile is staged in shared memory in digit order and written out, each
 *                   digit's run contiguous. Variants (pp_sort_onesweep; PP_OPTION_SORT_ONESWEEP
 *                   or the tuning row): RANKED publishes the counts after the whole ranking,
 *                   then looks back; EARLY publishes them as soon as the match phase has
 *                   counted them (pp_radix_rank_counts_dr), runs the block scan and the ranks
 *                   while the tiles before publish, then looks back; EARLY_BALLOT matches
 *                   digits by one ballot per bit (as CUB) instead of match.any; EARLY_WINDOW
 *                   also reads 4 predecessors' counters per look-back step (2 with values);
 *                   FUSED is EARLY_WINDOW in fewer instructions: the ballots' bit tests made
 *                   predicates (pp_match_digit_wave_fused), a wave's counter updates shared
 *                   atomics, the look-back's words relaxed device-scope accesses;
 *   sort_fixup      in place only (or with no digit to sort on): the data to the output where
 *                   the passes left it elsewhere.
 * Skipped passes are decided on the device (the host never waits): each pass kernel reads where
 * the data is (loc[j]: the input, the output X, or the scratch buffer Y) and whether it runs,
 * and writes where it left the data (loc[j + 1]). A running pass writes X when an even number
 * of running passes follow it, else Y, so the last running pass writes the output, unless the
 * data is already there (in place: keys_out == keys_in, values_out == values_in, the input is X
 * from the start), then the other buffer, and sort_fixup copies at the end; when no pass runs,
 * the last pass copies the input to the output tile by tile. Launches of a sort of P passes
 * (not in place): one memset, the histogram, P passes. Memory traffic per pass: the keys (and
 * values) read and written once, plus the look-back's 256 counters of 8 bytes per tile; the
 * memset clears the counts, tickets and counters of every pass.
 *
 * Tile sort + bitonic merge (small inputs in one launch; the seed's algorithm, forced at any n
 * through PP_OPTION_SORT_STRATEGY; n < 2^32 - 1):
 *   sort_bitonic    keys and pairs of at most one bitonic tile (4096; 2048 where a key or value
 *                   is 8 bytes): one block, one launch, no scratch: the compared field (with the
 *                   input position breaking ties unless it is a whole integer key sorted alone)
 *                   through hip/bitonic.h's network, keys and values gathered by position.
 *                   Larger inputs and argsort take the kernels below.
 *   tile_sort       a block sorts a tile of SORT_TILE keys completely in shared memory, one
 *                   match-ranked 8-bit digit after another (each pass a stable split), keeping
 *                   each key's input position (32 bits);
 *   merge_global    merge steps of runs longer than a block's tile: compare-exchange of (key,
 *   merge_smem      input position) pairs, first the flip that merges two sorted runs into a
 *                   bitonic order, then half-cleaners of halving strides, in global memory while
 *                   the stride is wider than a block's tile, then the rest of them in shared
 *                   memory. Ties are broken by the input position, so the network (not stable
 *                   by itself) gives the stable order. Positions past n act as keys above every
 *                   key and are never read or written.
 *   sort_gather     values_out[j] = values_in[position[j]] (pairs), or the positions widened to
 *                   u64 indices (argsort).
 */
#include <string.h>

#include <type_traits>

#include "bitonic.h"
#include "blocks.h"
#include "common.h"
#include "key_encoding.h"
#include "lookback.h"
#include "radix_rank.h"
#include "tuning_sort.h"

namespace {

constexpr int SORT_MAX_PASSES = 8;
constexpr unsigned LOC_IN = 0, LOC_X = 1, LOC_Y = 2;

/* The keys' order: encoding, bit range and digits, resolved on the host. */
struct sort_desc {
    uint64_t n;
    unsigned long long flip; /* all ones of the key width when descending */
    int kind;                /* PP_SORT_KIND_* */
    int passes;
    int begin, width;        /* the compared bits [begin, begin + width) */
    int shift[SORT_MAX_PASSES];
    int bits[SORT_MAX_PASSES];
};

/* The encoded key: 32 bits for 1- and 4-byte keys, 64 for 8-byte ones. */
PP_DEVICE uint32_t sort_enc(uint8_t k, const sort_desc &s) { return pp_sort_key_u32(k, s.kind, (uint32_t)s.flip); }
PP_DEVICE uint32_t sort_enc(uint32_t k, const sort_desc &s) { return pp_sort_key_u32(k, s.kind, (uint32_t)s.flip); }
PP_DEVICE uint64_t sort_enc(uint64_t k, const sort_desc &s) { return pp_sort_key_u64(k, s.kind, s.flip); }

/* sort_enc with the float test decided outside a loop (FLOAT: s.kind is PP_SORT_KIND_FLOAT; else one
 * of the integer kinds, whose encoding is one xor). */
template <bool FLOAT> PP_DEVICE int sort_kind_as(const sort_desc &s)
{
    return FLOAT ? PP_SORT_KIND_FLOAT : s.kind == PP_SORT_KIND_SIGNED ? PP_SORT_KIND_SIGNED : PP_SORT_KIND_UNSIGNED;
}
template <bool FLOAT> PP_DEVICE uint32_t sort_enc_as(uint8_t k, const sort_desc &s)
{
    return pp_sort_key_u32(k, sort_kind_as<FLOAT>(s), (uint32_t)s.flip);
}
template <bool FLOAT> PP_DEVICE uint32_t sort_enc_as(uint32_t k, const sort_desc &s)
{
    return pp_sort_key_u32(k, sort_kind_as<FLOAT>(s), (uint32_t)s.flip);
}
template <bool FLOAT> PP_DEVICE uint64_t sort_enc_as(uint64_t k, const sort_desc &s)
{
    return pp_sort_key_u64(k, sort_kind_as<FLOAT>(s), s.flip);
}

/* The digit of `bits` bits from bit `shift` of an encoded key, and of a key. */
template <typename E> PP_DEVICE unsigned sort_digit_of(E enc, int shift, int bits)
{
    return (unsigned)(enc >> shift) & ((1u << bits) - 1u);
}
template <typename K> PP_DEVICE unsigned sort_digit(K k, const sort_desc &s, int shift, int bits)
{
    return sort_digit_of(sort_enc(k, s), shift, bits);
}

/* s, or (encoded) s for keys that are their own encodings already: unsigned, not complemented (an
 * argsort's keys after the first pass that moves them, onesweep_pass) */
PP_DEVICE sort_desc sort_as_encoded(const sort_desc &s, bool encoded)
{
    sort_desc r = s;
    if (encoded) {
        r.kind = PP_SORT_KIND_UNSIGNED;
        r.flip = 0;
    }
    return r;
}

/* The compared field of a key (all its bits for the whole key; 0 for an empty range). */
template <typename K> PP_DEVICE uint64_t sort_field(K k, const sort_desc &s)
{
    if (s.width == 0) return 0; /* an empty range (begin may be 64: no shift by 64) */
    const uint64_t e = (uint64_t)sort_enc(k, s) >> s.begin;
    return s.width >= 64 ? e : e & ((1ull << s.width) - 1ull);
}

/* Values of VB bytes as an unsigned word (VB 0: none, a placeholder type). */
template <int VB> using val_t = typename std::conditional<
    VB == 8, uint64_t, typename std::conditional<VB == 4, uint32_t, uint8_t>::type>::type;

/* The buffers of a onesweep sort: the input, the output X and the scratch Y, for keys and
 * values (vin NULL: the values are the positions). */
template <typename K, typename V> struct sort_bufs {
    const K *kin;
    K *kx, *ky;
    const V *vin;
    V *vx, *vy;
};

template <typename T> PP_DEVICE const T *sort_src(unsigned loc, const T *in, T *x, T *y)
{
    return loc == LOC_IN ? in : loc == LOC_X ? x : y;
}

/* ---- onesweep ---- */

/* Run by the last block of sort_histogram, once every block's counts are in hist:
 * start[p * 256 + d] = the keys of pass p with a smaller digit; active[p] = 0 when one digit
 * holds every key; loc[0] = where the data starts. */
PP_DEVICE void sort_starts(const sort_desc &sd, const unsigned long long *hist, unsigned long long *start,
                           unsigned *active, unsigned *loc, unsigned loc0)
{
    const unsigned d = threadIdx.x;
    for (int p = 0; p < sd.passes; ++p) {
        const unsigned long long c = d < (unsigned)PP_RADIX ? pp_lb_ld(hist + p * PP_RADIX + d) : 0ull;
        const unsigned long long s = pp_block_scan<pp_op_sum<unsigned long long>, SORT_BLOCK, false>(c);
        if (d < (unsigned)PP_RADIX) start[p * PP_RADIX + d] = s;
        const int constant = __syncthreads_or(c == sd.n);
        if (d == 0) active[p] = !constant;
    }
    if (d == 0) loc[0] = loc0;
}

/* The histogram's keys a thread per chunk: 8-byte keys take half as many (with 16, their 8 passes'
 * runs in registers spilled 4 bytes on sm_90 at 80 registers; with 8, 64 registers and none). */
template <typename K> constexpr int sort_hist_items() { return sizeof(K) > 4 ? SORT_HIST_ITEMS / 2 : SORT_HIST_ITEMS; }

/* The histogram's copies of its counters (sort_histogram): SORT_HIST_COPIES (tuning_sort.h) for keys
 * of at most 4 bytes, half as many for 8-byte keys (8 passes' counters in the same shared memory). */
template <typename K> constexpr int sort_hist_copies()
{
    return sizeof(K) > 4 && SORT_HIST_COPIES > 1 ? SORT_HIST_COPIES / 2 : SORT_HIST_COPIES;
}

/* (e >> sh) << L in 32 bits, for the digit's counter in a copy: 32-bit keys in one funnel
 * shift a pass (the key widened and shifted once), 64-bit keys shifted, then scaled. */
template <int L> PP_DEVICE unsigned sort_hist_scaled(uint32_t e, unsigned sh) { return (unsigned)(((uint64_t)e << L) >> sh); }
template <int L> PP_DEVICE unsigned sort_hist_scaled(uint64_t e, unsigned sh) { return (unsigned)(e >> sh) << L; }

/* f(std::integral_constant<int, P>) for the run-time pass count P in [NP, MAXP]: the histogram's
 * loops over passes unrolled for the count the sort has, with no test of it per key. */
template <int NP, int MAXP, typename F> PP_DEVICE void sort_hist_passes(int P, F &&f)
{
    if constexpr (NP <= MAXP) {
        if (P == NP) f(std::integral_constant<int, NP>{});
        else sort_hist_passes<NP + 1, MAXP>(P, f);
    }
}

/* Every pass's digit counts: hist[p * 256 + d] (zeroed before, as *done). The blocks take chunks
 * of sort_hist_items x SORT_BLOCK keys in a grid stride, each thread loading its sort_hist_items
 * keys of a chunk at once (the first version loaded one key per grid-stride step: 2^20 keys
 * sorted in 80.7 us then, 72.4 now, H100; at 2^16 the 16 blocks' kernel is slower under ncu,
 * 14.1-14.7 us against 10.4), and adds a run of equal digits with one shared atomic (so that
 * sorted and all-equal inputs do not pile atomics on one counter). Per key and pass: the digit's
 * counter index, one compare with the run's, a predicated atomic that flushes the run when they
 * differ, the run's new length; the pass count is a compile-time constant of the loop
 * (sort_hist_passes) and full chunks test no key's bound. The first version (a branch per pass
 * and key around the flush, the pass count and the bound tested per key, the digit masks made
 * per key) ran 97 instructions a key and took 1.01 ms for 2^28 u32 keys on the H100, issue
 * bound at 1.07 TB/s, against CUB's histogram kernel's 0.456 ms (bench/NOTES.md, tenth session).
 * The last block to finish (a counter after a fence, as a one-kernel reduction) turns the counts
 * into the passes' digit starts (sort_starts): one launch fewer per sort than a kernel of its own. */
template <typename K>
__global__ __launch_bounds__(SORT_BLOCK) void sort_histogram(sort_desc sd, const K *__restrict__ keys,
                                                             unsigned long long *__restrict__ hist,
                                                             unsigned long long *__restrict__ start,
                                                             unsigned *__restrict__ active, unsigned *__restrict__ loc,
                                                             unsigned loc0, unsigned *done)
{
    /* 8-bit digits of a key of sizeof(K) bytes: at most one pass a byte (pp_hip_sort) */
    constexpr int MAXP = (int)sizeof(K);
    __shared__ int s_last;
    /* COPIES interleaved copies of the counters (counter k of copy g at k * COPIES + g; lane l
     * adds to copy l % COPIES, so a wave's lanes of one copy share the banks that copy's words
     * lie in: random digits put about 2.95 lanes on the busiest bank with 8 copies, 3.53 with one
     * (a shared atomic takes a wavefront per lane on its busiest bank), then a spare word per
     * lane (at (MAXP * PP_RADIX + l / COPIES) * COPIES + l % COPIES) that takes the adds of runs
     * that go on */
    constexpr int COPIES = sort_hist_copies<K>();
    static_assert(PP_WAVE % COPIES == 0, "a wave's lanes split evenly over the copies");
    __shared__ unsigned cnt[(MAXP * PP_RADIX + PP_WAVE / COPIES) * COPIES];
    const int P = sd.passes;
    constexpr int LOG2C = COPIES == 8 ? 3 : COPIES == 4 ? 2 : COPIES == 2 ? 1 : 0;
    static_assert((1 << LOG2C) == COPIES, "a power of two of copies");
    unsigned *const mine = cnt + pp_lane_id() % COPIES; /* this lane's copy: counter k at mine[k << LOG2C] */
    const unsigned spare = ((unsigned)(MAXP * PP_RADIX) + pp_lane_id() / COPIES) << LOG2C;
    for (unsigned k = threadIdx.x; k < (unsigned)(P * PP_RADIX * COPIES); k += SORT_BLOCK) cnt[k] = 0;
    __syncthreads();
    constexpr int ITEMS = sort_hist_items<K>();
    constexpr uint64_t CHUNK = (uint64_t)SORT_BLOCK * ITEMS;
    const uint64_t stride = (uint64_t)gridDim.x * CHUNK;
    sort_hist_passes<1, MAXP>(P, [&](auto np_tag) {
        constexpr int NP = decltype(np_tag)::value;
        /* per pass: the digit's shift and mask (of the digit scaled by COPIES), and this thread's
         * run of equal digits (its counter's word in the lane's copy, (p * PP_RADIX + digit) <<
         * LOG2C, and its length; a run of 0 at digit 0 to start) */
        unsigned sh[NP], ms[NP], at[NP], run[NP];
#pragma unroll
        for (int p = 0; p < NP; ++p) {
            sh[p] = (unsigned)sd.shift[p];
            ms[p] = ((1u << sd.bits[p]) - 1u) << LOG2C;
            at[p] = (unsigned)(p * PP_RADIX) << LOG2C;
            run[p] = 0;
        }
        /* this thread's keys of a chunk: kp[i * SORT_BLOCK] for i * SORT_BLOCK < have; FULL: have is
         * the whole chunk, and KIND (-1: any, else whether the keys are floats) decided outside */
        const auto chunk = [&](const K *kp, unsigned have, auto full_tag, auto kind_tag) {
            constexpr bool FULL = decltype(full_tag)::value;
            constexpr int KIND = decltype(kind_tag)::value;
            K kk[ITEMS];
#pragma unroll
            for (int i = 0; i < ITEMS; ++i)
                kk[i] = FULL || (unsigned)(i * SORT_BLOCK) < have ? kp[i * SORT_BLOCK] : K(0);
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                if (!FULL && (unsigned)(i * SORT_BLOCK) >= have) break;
                const auto e = KIND < 0 ? sort_enc(kk[i], sd) : sort_enc_as<KIND == 1>(kk[i], sd);
#pragma unroll
                for (int p = 0; p < NP; ++p) {
                    const unsigned a = (sort_hist_scaled<LOG2C>(e, sh[p]) & ms[p]) | (unsigned)(p * PP_RADIX << LOG2C);
                    const bool flush = a != at[p];
                    atomicAdd(&mine[flush ? at[p] : spare], run[p]);
                    run[p] = flush ? 1u : run[p] + 1u;
                    at[p] = a;
                }
            }
        };
        /* the full chunks, then at most one partial chunk (the stride is at least a chunk) */
        uint64_t c = (uint64_t)blockIdx.x * CHUNK + threadIdx.x;
        const auto full_chunks = [&](auto kind_tag) {
            for (; c < sd.n && sd.n - c >= CHUNK; c += stride) chunk(keys + c, (unsigned)CHUNK, std::true_type{}, kind_tag);
        };
        if (sd.kind == PP_SORT_KIND_FLOAT) full_chunks(std::integral_constant<int, 1>{});
        else full_chunks(std::integral_constant<int, 0>{});
        if (c < sd.n) chunk(keys + c, (unsigned)(sd.n - c), std::false_type{}, std::integral_constant<int, -1>{});
#pragma unroll
        for (int p = 0; p < NP; ++p)
            if (run[p]) atomicAdd(&mine[at[p]], run[p]);
    });
    __syncthreads();
    for (unsigned k = threadIdx.x; k < (unsigned)(P * PP_RADIX); k += SORT_BLOCK) {
        unsigned c = 0;
#pragma unroll
        for (int g = 0; g < COPIES; ++g) c += cnt[k * COPIES + g];
        if (c) atomicAdd(&hist[k], (unsigned long long)c);
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) s_last = atomicAdd(done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (s_last) {
        __threadfence();
        sort_starts(sd, hist, start, active, loc, loc0);
    }
}

/* Elements [begin, end) of the data where the passes left it (from) to X, or the positions
 * where the values are an argsort's (no input values). */
template <typename K, typename V, int VB>
PP_DEVICE void sort_copy_out(const sort_bufs<K, V> &b, unsigned from, int argsort, uint64_t begin, uint64_t end,
                             uint64_t stride)
{
    const K *ks = sort_src(from, b.kin, b.kx, b.ky);
    const V *vs = nullptr;
    if constexpr (VB > 0) vs = sort_src(from, b.vin, b.vx, b.vy);
    for (uint64_t i = begin; i < end; i += stride) {
        if (!argsort && ks != b.kx) b.kx[i] = ks[i];
        if constexpr (VB > 0) {
            if (vs != b.vx) b.vx[i] = vs ? vs[i] : (V)i;
        }
    }
}

/* One onesweep pass j (digit bits [shift, shift + bits)) over tiles of BLOCK x ITEMS keys (BLOCK:
 * SORT_BLOCK, or a wide tile's SORT_WIDE_BLOCK / SORT_PAIRS_WIDE_BLOCK with the fused ranking
 * only).
 * The pass writes X when an even number of running passes follow it, else Y, so that the last
 * running pass writes X (the output) and no copy is needed after the passes; where that is the
 * buffer it reads (in place: the input is X), it writes the other one, and sort_fixup copies at
 * the end. copy_out (not in place): the last pass, if it does not run and no pass ran, copies
 * its tile (the tile of its block index) from the input to X. argsort: the keys of the last
 * pass that runs are not written. */
/* A onesweep pass's staged tile, and the ranking's shared memory beside it (ALIAS = false) or
 * over it (ALIAS = true: the wide tiles, whose keys and wave counters together pass the 48 KB
 * of static shared memory; the wave counters are dead once the ranks are made, before the
 * tile is staged). */
template <typename K, typename V, int VB, int TILE> struct onesweep_tile {
    K keys[TILE];
    V vals[VB ? TILE : 1];
};
template <typename K, typename V, int VB, int BLOCK, int TILE, bool ALIAS> struct onesweep_smem {
    pp_radix_rank_smem<BLOCK> rs;
    onesweep_tile<K, V, VB, TILE> t;
};
template <typename K, typename V, int VB, int BLOCK, int TILE> struct onesweep_smem<K, V, VB, BLOCK, TILE, true> {
    union {
        pp_radix_rank_smem<BLOCK> rs;
        onesweep_tile<K, V, VB, TILE> t;
    };
};

template <typename K, int VB, int ITEMS, int MODE /* pp_sort_onesweep, not AUTO */, int BLOCK = SORT_BLOCK>
__global__ __launch_bounds__(BLOCK, BLOCK == SORT_BLOCK ? SORT_ONESWEEP_BLOCKS((int)sizeof(K), VB) : SORT_ONESWEEP_WIDE_BLOCKS) void onesweep_pass(sort_desc sd, int j, int shift, int bits, int copy_out,
                                                            sort_bufs<K, val_t<VB>> b, const unsigned long long *start,
                                                            const unsigned *active, unsigned *loc,
                                                            unsigned long long *states, unsigned *ticket,
                                                            uint64_t tiles, pp_lb_sleeps sl, int argsort)
{
    using V = val_t<VB>;
    constexpr int TILE = BLOCK * ITEMS;
    /* wide tiles (more threads than digits) put the staged tile over the wave counters; with
     * values (48 KB of keys and values) in dynamic shared memory */
    constexpr bool ALIAS = BLOCK > SORT_BLOCK;
    static_assert(!ALIAS || MODE == PP_SORT_ONESWEEP_FUSED, "wide tiles have the fused pass only");
    using smem_t = onesweep_smem<K, V, VB, BLOCK, TILE, ALIAS>;
    extern __shared__ pp_vec16 onesweep_dyn[];
    __shared__ typename std::conditional<VB != 0 && ALIAS, char, smem_t>::type sm_static;
    smem_t &sm = *reinterpret_cast<smem_t *>(VB != 0 && ALIAS ? (void *)onesweep_dyn : (void *)&sm_static);
    pp_radix_rank_smem<BLOCK> &rs = sm.rs;
    K *const skeys = sm.t.keys;
    V *const svals = sm.t.vals;
    __shared__ uint32_t sdlo[PP_RADIX], sdhi[PP_RADIX]; /* digit offsets (64 bits) at pp_radix_slot */
    __shared__ unsigned s_tile;
    const unsigned from = loc[j];
    if (!active[j]) {
        if (blockIdx.x == 0 && threadIdx.x == 0) loc[j + 1] = from;
        if (copy_out && j + 1 == sd.passes && from != LOC_X) {
            const uint64_t base = (uint64_t)blockIdx.x * TILE, end = sd.n - base < (uint64_t)TILE ? sd.n : base + TILE;
            sort_copy_out<K, V, VB>(b, from, argsort, base + threadIdx.x, end, BLOCK);
        }
        return;
    }
    unsigned later = 0; /* running passes after this one */
    for (int q = j + 1; q < sd.passes; ++q) later += active[q] != 0u;
    const unsigned pref = later & 1u ? LOC_Y : LOC_X;
    const unsigned to = pref != from ? pref : LOC_X + LOC_Y - pref;
    if (blockIdx.x == 0 && threadIdx.x == 0) loc[j + 1] = to;
    if (threadIdx.x == 0) s_tile = (unsigned)pp_tile_ticket(ticket);
    __syncthreads();
    const uint64_t t = s_tile, base = t * TILE;
    const unsigned cnt = (unsigned)(sd.n - base < (uint64_t)TILE ? sd.n - base : (uint64_t)TILE);
    const K *ksrc = sort_src(from, b.kin, b.kx, b.ky);
    K *kdst = to == LOC_X ? b.kx : b.ky;
    /* An argsort's keys are the sort's own (scratch, never returned): the first pass that moves
     * them (from the input) stages and writes their encodings, so that the passes after it and
     * every scatter take them as unsigned integers (sdk), with no float encoding (f32 keys made
     * a values pass up to 0.8 ms slower than u32: argsort f32 at 2^28 12.07 -> 10.09 ms, H100,
     * 2026-11-27, 012fa28, CUB 8.38; bench/NOTES.md, eleventh session). sdl: how the loaded keys
     * are encoded. 4-byte keys with u32 / u64 indices only: the other widths' integer keys gain
     * nothing, and the u8 and u64 passes spilled with it on sm_90. */
    constexpr bool ENC_KEYS = sizeof(K) == 4 && (VB == 4 || VB == 8);
    const bool enc_keys = ENC_KEYS && argsort;
    const sort_desc sdl = sort_as_encoded(sd, enc_keys && from != LOC_IN), sdk = sort_as_encoded(sd, enc_keys);
    const unsigned lane = pp_lane_id(), w = pp_wave_id(), first = w * PP_WAVE * ITEMS + lane;
    /* The tile's work, for a full tile (FULL: no element's bound tested; the fused pass, whose
     * tiles are all full but the last) or any tile. */
    const auto body = [&](auto full_tag) {
        constexpr bool FULL = decltype(full_tag)::value;

        K k[ITEMS];
        V v[VB ? ITEMS : 1];
        unsigned dr[ITEMS]; /* digit and rank, packed (radix_rank.h) */
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const unsigned e = first + (unsigned)(i * PP_WAVE);
            k[i] = FULL || e < cnt ? ksrc[base + e] : K(0);
            const auto enc = sort_enc(k[i], sdl);
            if (enc_keys) k[i] = (K)enc;
            dr[i] = sort_digit_of(enc, shift, bits) << PP_RADIX_DR_SHIFT;
        }
        const auto load_values = [&]() {
            if constexpr (VB > 0) {
                const V *vsrc = sort_src(from, b.vin, b.vx, b.vy);
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    const unsigned e = first + (unsigned)(i * PP_WAVE);
                    v[i] = FULL || e < cnt ? (vsrc ? vsrc[base + e] : (V)(base + e)) : V(0);
                }
            }
        };
        load_values();
        const unsigned d = threadIdx.x;
        /* the tile in shared memory in digit order, at stage_slot of its rank */
        const auto stage = [&]() { pp_radix_stage_tile<ITEMS, FULL, (VB > 0)>(k, v, dr, first, cnt, skeys, svals); };
        /* digit d's offset: where its run of this tile starts in the output, less its start in the tile */
        const auto put_delta = [&](unsigned dd, uint64_t delta) { pp_radix_put_delta<true>(sdlo, sdhi, dd, delta); };
        constexpr bool EARLY = MODE != PP_SORT_ONESWEEP_RANKED;
        /* a compile-time window: a run-time one cost SGPR spills on gfx90a / gfx940; 2 with
         * values (4 spilled 4 to 14 bytes on sm_90 with 16 items and 4-byte values) */
        constexpr bool FUSED = MODE == PP_SORT_ONESWEEP_FUSED;
        constexpr int window = MODE < PP_SORT_ONESWEEP_EARLY_WINDOW ? 1 : VB > 0 ? 2 : PP_LB_COUNTER_WINDOW;
        constexpr int MATCH = FUSED ? PP_RANK_BALLOT_FUSED : MODE >= PP_SORT_ONESWEEP_EARLY_BALLOT ? PP_RANK_BALLOT : PP_RANK_MATCH_ANY;
        if constexpr (EARLY) {
            /* the counts published as soon as the match phase has them; the block scan and the
             * ranks run while the tiles before publish theirs; then the look-back (staging before
             * it spilled registers on sm_90 with 16 items and values) */
            const unsigned total =
                pp_radix_rank_counts_dr<BLOCK, ITEMS, MATCH, FULL>(dr, bits, cnt, rs);
            if (tiles > 1 && d < (unsigned)PP_RADIX)
                pp_lookback_counter_publish<FUSED>(states, t, d, PP_RADIX, total, (unsigned)j);

            const unsigned dstart = pp_radix_rank_finish_dr<BLOCK, ITEMS, FULL>(dr, cnt, total, rs);
            if (d < (unsigned)PP_RADIX) {
                /* wide tiles: the count and start from registers (written when the tile was
                 * staged before the look-back; staged after it, as now, the shared copies would
                 * serve as well: measured this way) */
                const unsigned dcount = ALIAS ? total : rs.count[d];
                const uint64_t before =
                    tiles > 1 ? pp_lookback_counter_wait<FUSED>(states, t, d, PP_RADIX, dcount, (unsigned)j, sl, window)
                              : 0;
                put_delta(d, start[d] + before - (ALIAS ? dstart : rs.start[d]));
            }
            /* wide tiles: the tile goes over the wave counters once every thread has read them
             * (staged before the look-back, the 512-thread pass spilled 4 bytes at 64 registers) */
            if constexpr (ALIAS) __syncthreads();
            stage();
        } else {
            const unsigned total = pp_radix_rank_counts_dr<BLOCK, ITEMS>(dr, bits, cnt, rs);
            pp_radix_rank_finish_dr<BLOCK, ITEMS>(dr, cnt, total, rs);
            if (d < (unsigned)PP_RADIX) {
                const uint64_t before =
                    tiles > 1 ? pp_lookback_counter(states, t, d, PP_RADIX, rs.count[d], (unsigned)j, sl) : 0;
                put_delta(d, start[d] + before - rs.start[d]);
            }
            stage();
        }
        __syncthreads();
        /* the keys of an argsort's last running pass are of no use */
        const bool write_keys = !argsort || later > 0;
        V *vdst = nullptr;
        if constexpr (VB > 0) vdst = to == LOC_X ? b.vx : b.vy;
        /* Element e of the staged tile goes to offset[digit] + e: in 32 bits where every position
         * fits them (n <= 2^32; the offset wraps, the sum does not), else in 64. Unrolled, so that
         * a thread's shared-memory reads are in flight together (keys only: with values the whole
         * unroll spilled registers on sm_90). */
        constexpr int UNROLL = VB > 0 ? 2 : ITEMS;
        const auto slot_of = [&](K kk) { return pp_radix_slot(sort_digit(kk, sdk, shift, bits)); };
        if (sd.n <= 0xFFFFFFFFull)
            pp_radix_scatter_tile<BLOCK, ITEMS, UNROLL, FULL, true, (VB > 0)>(skeys, svals, sdlo, sdhi, cnt, slot_of, kdst,
                                                                            vdst, write_keys);
        else
            pp_radix_scatter_tile<BLOCK, ITEMS, UNROLL, FULL, false, (VB > 0)>(skeys, svals, sdlo, sdhi, cnt, slot_of, kdst,
                                                                             vdst, write_keys);
    };
    /* The full tile's copy, keys alone. H100 80GB HBM3, 2026-11-27, same process pairs, ms at
     * 2^28 (u64 2^27), general body (dc3e3f7) -> full-tile copy (cae234b): u32 7.519 -> 6.986,
     * f32 8.413 -> 7.773, 16 distinct i32 7.508 -> 6.702, sorted u32 7.356 -> 6.664; us, 2^16
     * 47.06 -> 40.46; ncu at 2^26, a pass: 297 -> 242 M warp instructions. Values passes lost
     * with it (u32 pairs 12.144 -> 12.631; call 5: 12.593 with it, 12.144 without), so they
     * keep the one body. The digit slot staged beside each key (the scatter not encoding the
     * key again) lost too: u32 6.957 -> 7.734 (3ac68a7, bench/NOTES.md). */
    if constexpr (MODE == PP_SORT_ONESWEEP_FUSED && VB == 0) {
        if (cnt == (unsigned)TILE) body(std::true_type{});
        else body(std::false_type{});
    } else {
        body(std::false_type{});
    }
}

/* Where the passes left the data is not X: copy it there (or write the positions). */
template <typename K, int VB>
__global__ __launch_bounds__(SORT_BLOCK) void sort_fixup(uint64_t n, sort_bufs<K, val_t<VB>> b, const unsigned *loc,
                                                         int passes, unsigned loc0, int argsort)
{
    const unsigned from = passes ? loc[passes] : loc0;
    if (from == LOC_X) return;
    const uint64_t stride = (uint64_t)gridDim.x * SORT_BLOCK;
    sort_copy_out<K, val_t<VB>, VB>(b, from, argsort, (uint64_t)blockIdx.x * SORT_BLOCK + threadIdx.x, n, stride);
}

/* ---- tile sort and bitonic merge ---- */

/* (key, position) a above b. A position of ~0u is past n: above every key. */
template <typename K> PP_DEVICE bool sort_above(K ka, unsigned ia, K kb, unsigned ib, const sort_desc &s)
{
    if (ia == ~0u || ib == ~0u) return ia == ~0u && ib != ~0u;
    const uint64_t fa = sort_field(ka, s), fb = sort_field(kb, s);
    return fa > fb || (fa == fb && ia > ib);
}

/* The shared memory of tile_sort_range. */
template <typename K> struct tile_sort_smem {
    pp_radix_rank_smem<SORT_BLOCK> rs;
    K sk[SORT_TILE];
    unsigned si[SORT_TILE];
};

/* The block sorts keys [base, base + cnt) (cnt <= SORT_TILE) on every digit, completely in shared
 * memory: the sorted keys to kout[base ..] (kout may be kin) and their input positions to
 * pos[base ..]. Any run of at most SORT_TILE keys can be given, so a segmented sort can call it
 * per segment (or per piece of one) as tile_sort calls it per tile. Every thread calls it. */
template <typename K>
PP_DEVICE void tile_sort_range(const sort_desc &sd, const K *kin, K *kout, unsigned *pos, uint64_t base, unsigned cnt,
                               tile_sort_smem<K> &sm)
{
    constexpr int ITEMS = SORT_TILE_ITEMS;
    pp_radix_rank_smem<SORT_BLOCK> &rs = sm.rs;
    K *sk = sm.sk;
    unsigned *si = sm.si;
    const unsigned first = pp_wave_id() * PP_WAVE * ITEMS + pp_lane_id();
    K k[ITEMS];
    unsigned ix[ITEMS], dg[ITEMS], rk[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const unsigned e = first + (unsigned)(i * PP_WAVE);
        k[i] = e < cnt ? kin[base + e] : K(0);
        ix[i] = (unsigned)(base + e);
    }
    for (int p = 0; p < sd.passes; ++p) {
        /* the digits of sort_desc, computed (an index into the kernel's argument would put
         * the array in local memory) */
        const int shift = sd.begin + PP_RADIX_BITS * p, end = sd.begin + sd.width;
        const int bits = end - shift < PP_RADIX_BITS ? end - shift : PP_RADIX_BITS;
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) dg[i] = sort_digit(k[i], sd, shift, bits);
        pp_radix_rank<SORT_BLOCK, ITEMS, PP_RANK_BALLOT_FUSED>(dg, bits, cnt, rk, rs);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            if (first + (unsigned)(i * PP_WAVE) < cnt) {
                sk[rk[i]] = k[i];
                si[rk[i]] = ix[i];
            }
        __syncthreads();
        if (p + 1 < sd.passes) {
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                const unsigned e = first + (unsigned)(i * PP_WAVE);
                if (e < cnt) {
                    k[i] = sk[e];
                    ix[i] = si[e];
                }
            }
            __syncthreads();
        }
    }
    if (sd.passes == 0) { /* an empty range: every key equal, the tile as it is */
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const unsigned e = first + (unsigned)(i * PP_WAVE);
            if (e < cnt) {
                sk[e] = k[i];
                si[e] = ix[i];
            }
        }
        __syncthreads();
    }
    for (unsigned e = threadIdx.x; e < cnt; e += SORT_BLOCK) {
        kout[base + e] = sk[e];
        pos[base + e] = si[e];
    }
}

/* A block sorts tile blockIdx.x of keys[0, n). */
template <typename K>
__global__ __launch_bounds__(SORT_BLOCK) void tile_sort(sort_desc sd, const K *kin, K *kout, unsigned *__restrict__ pos)
{
    __shared__ tile_sort_smem<K> sm;
    const uint64_t base = (uint64_t)blockIdx.x * SORT_TILE;
    const unsigned cnt = (unsigned)(sd.n - base < (uint64_t)SORT_TILE ? sd.n - base : (uint64_t)SORT_TILE);
    tile_sort_range<K>(sd, kin, kout, pos, base, cnt, sm);
}

/* One merge step in global memory over runs of length L (merged in pairs into runs of 2L):
 * the flip (s == L: element i of a pair's first run against element L - 1 - i of its second),
 * or a half-cleaner of stride s. */
template <typename K>
__global__ __launch_bounds__(SORT_BLOCK) void merge_global(sort_desc sd, K *keys, unsigned *pos, uint64_t L, uint64_t s)
{
    const uint64_t pairs = (sd.n + 1) / 2 + L, stride = (uint64_t)gridDim.x * SORT_BLOCK;
    for (uint64_t q = (uint64_t)blockIdx.x * SORT_BLOCK + threadIdx.x; q < pairs; q += stride) {
        uint64_t lo, hi;
        if (s == L) {
            const uint64_t g = q / L, i = q % L;
            lo = g * 2 * L + i;
            hi = g * 2 * L + 2 * L - 1 - i;
        } else {
            const uint64_t g = q / s, i = q % s;
            lo = g * 2 * s + i;
            hi = lo + s;
        }
        if (hi >= sd.n) continue;
        const K a = keys[lo], c = keys[hi];
        const unsigned ia = pos[lo], ic = pos[hi];
        if (sort_above(a, ia, c, ic, sd)) {
            keys[lo] = c;
            keys[hi] = a;
            pos[lo] = ic;
            pos[hi] = ia;
        }
    }
}

/* The merge steps of runs of length L whose strides fit a block's tile of SORT_TILE elements:
 * with 2L <= SORT_TILE the flip and every half-cleaner, else the half-cleaners of strides
 * SORT_TILE / 2 .. 1 (the wider ones ran in merge_global). */
template <typename K>
__global__ __launch_bounds__(SORT_BLOCK) void merge_smem(sort_desc sd, K *keys, unsigned *pos, uint64_t L)
{
    __shared__ K sk[SORT_TILE];
    __shared__ unsigned si[SORT_TILE];
    const uint64_t base = (uint64_t)blockIdx.x * SORT_TILE;
    for (unsigned e = threadIdx.x; e < (unsigned)SORT_TILE; e += SORT_BLOCK) {
        const bool in = base + e < sd.n;
        sk[e] = in ? keys[base + e] : K(0);
        si[e] = in ? pos[base + e] : ~0u;
    }
    __syncthreads();
    unsigned s = (unsigned)SORT_TILE / 2;
    if (2 * L <= (uint64_t)SORT_TILE) {
        const unsigned l = (unsigned)L;
        for (unsigned q = threadIdx.x; q < (unsigned)SORT_TILE / 2; q += SORT_BLOCK) {
            const unsigned g = q / l, i = q % l, lo = g * 2 * l + i, hi = g * 2 * l + 2 * l - 1 - i;
            if (sort_above(sk[lo], si[lo], sk[hi], si[hi], sd)) {
                const K a = sk[lo];
                const unsigned ia = si[lo];
                sk[lo] = sk[hi];
                si[lo] = si[hi];
                sk[hi] = a;
                si[hi] = ia;
            }
        }
        __syncthreads();
        s = l / 2;
    }
    for (; s >= 1; s /= 2) {
        for (unsigned q = threadIdx.x; q < (unsigned)SORT_TILE / 2; q += SORT_BLOCK) {
            const unsigned g = q / s, i = q % s, lo = g * 2 * s + i, hi = lo + s;
            if (sort_above(sk[lo], si[lo], sk[hi], si[hi], sd)) {
                const K a = sk[lo];
                const unsigned ia = si[lo];
                sk[lo] = sk[hi];
                si[lo] = si[hi];
                sk[hi] = a;
                si[hi] = ia;
            }
        }
        __syncthreads();
    }
    for (unsigned e = threadIdx.x; e < (unsigned)SORT_TILE; e += SORT_BLOCK)
        if (base + e < sd.n) {
            keys[base + e] = sk[e];
            pos[base + e] = si[e];
        }
}

/* out[j] = vin[pos[j]] (pairs), or (V)pos[j] with vin NULL (argsort's u64 indices). */
template <int VB>
__global__ __launch_bounds__(SORT_BLOCK) void sort_gather(uint64_t n, const val_t<VB> *vin, const unsigned *pos,
                                                          val_t<VB> *out)
{
    const uint64_t stride = (uint64_t)gridDim.x * SORT_BLOCK;
    for (uint64_t i = (uint64_t)blockIdx.x * SORT_BLOCK + threadIdx.x; i < n; i += stride)
        out[i] = vin ? vin[pos[i]] : (val_t<VB>)pos[i];
}

/* ---- host ---- */

/* A grid-stride launch: enough blocks to fill the device a few times over. */
unsigned stride_grid(const pp_hip_state *hs, uint64_t n) { return pp_hip_stride_grid(hs, n, SORT_BLOCK); }

/* Scratch of a call, carved from one pp__scratch. */
struct carve {
    char *p;
    size_t off;
    template <typename T> T *take(size_t count)
    {
        T *r = (T *)(p + off);
        off += pp_align256(count * sizeof(T));
        return r;
    }
};

/* The onesweep pass's variant: as PP_OPTION_SORT_ONESWEEP forces, else the tuning row's. */
int onesweep_variant(pp_context *ctx, const pp_sort_tuning *tu, bool argsort)
{
    const int64_t forced = pp__option(ctx, PP_OPTION_SORT_ONESWEEP);
    return forced != PP_SORT_ONESWEEP_AUTO ? (int)forced : argsort ? tu->onesweep_argsort : tu->onesweep;
}

template <typename K, int VB, int ITEMS, int BLOCK = SORT_BLOCK>
pp_status run_onesweep(pp_context *ctx, const pp_sort_args *a, const sort_desc &sd)
{
    using V = val_t<VB>;
    constexpr uint64_t TILE = (uint64_t)BLOCK * ITEMS;
    pp_hip_state *hs = pp_hip(ctx);
    const uint64_t n = a->n, tiles = (n + TILE - 1) / TILE;
    const int P = sd.passes, argsort = a->keys_out == nullptr;
    const bool vals = VB > 0;
    const bool kin_place = !argsort && a->keys_out == a->keys_in;
    const bool vin_place = vals && a->values_in && a->values_out == a->values_in;
    const bool in_place = kin_place || vin_place;
    /* sizes: the Y buffers (and argsort's X keys), then the zeroed block (counts, the passes'
     * tickets and the histogram's counter of finished blocks, states) */
    size_t bytes = pp_align256(n * sizeof(K)) + (argsort ? pp_align256(n * sizeof(K)) : 0) +
                   (vals ? pp_align256(n * sizeof(V)) : 0);
    const size_t zero_bytes = P == 0 ? 0
                                     : pp_align256((size_t)P * PP_RADIX * 8) + pp_align256((size_t)(P + 1) * 4) +
                                           (tiles > 1 ? pp_align256((size_t)tiles * PP_RADIX * 8) : 0);
    bytes += zero_bytes + 2 * pp_align256((size_t)P * PP_RADIX * 8) + 2 * pp_align256((size_t)(P + 1) * 4);
    void *scratch = nullptr;
    PP_TRY(pp__scratch(ctx, bytes, &scratch));
    carve c{(char *)scratch, 0};
    sort_bufs<K, V> b;
    b.kin = (const K *)a->keys_in;
    b.ky = c.take<K>(n);
    b.kx = argsort ? c.take<K>(n) : (K *)a->keys_out;
    b.vin = (const V *)a->values_in;
    b.vx = (V *)a->values_out;
    b.vy = vals ? c.take<V>(n) : nullptr;
    char *zero = c.p + c.off;
    unsigned long long *hist = c.take<unsigned long long>((size_t)P * PP_RADIX);
    unsigned *tickets = c.take<unsigned>((size_t)P + 1); /* tickets[P]: the histogram's blocks done */
    unsigned long long *states = tiles > 1 ? c.take<unsigned long long>((size_t)tiles * PP_RADIX) : nullptr;
    unsigned long long *start = c.take<unsigned long long>((size_t)P * PP_RADIX);
    unsigned *active = c.take<unsigned>((size_t)P);
    unsigned *loc = c.take<unsigned>((size_t)P + 1);

    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    hipStream_t s = hs->stream;
    /* One array in place and the other not: the other is copied to its output first, so that
     * both start in X. */
    if (kin_place != vin_place && vals && a->values_in) {
        if (!kin_place) PP_HIP_TRY(ctx, hipMemcpyAsync(b.kx, b.kin, n * sizeof(K), hipMemcpyDeviceToDevice, s));
        else PP_HIP_TRY(ctx, hipMemcpyAsync(b.vx, b.vin, n * sizeof(V), hipMemcpyDeviceToDevice, s));
    }
    if (zero_bytes) PP_HIP_TRY(ctx, hipMemsetAsync(zero, 0, zero_bytes, s));
    const unsigned loc0 = in_place ? LOC_X : LOC_IN;
    if (P > 0) {
        /* a block a chunk of sort_hist_items keys a thread, at most stride_grid's cap */
        constexpr uint64_t hi = (uint64_t)sort_hist_items<K>();
        sort_histogram<K><<<stride_grid(hs, (n + hi - 1) / hi), SORT_BLOCK, 0, s>>>(
            sd, b.kin, hist, start, active, loc, loc0, tickets + P);
        PP_HIP_CHECK_LAUNCH(ctx, "sort_histogram");
    }
    const pp_sort_tuning *tu = pp_sort_tuning_for(&hs->dev);
    /* the look-back's sleeps: the tuning row's, or the look-back options that scan and
     * compaction read too (-1: the row) */
    const int64_t opt_pause = pp__option(ctx, PP_OPTION_SCAN_PAUSE_NS), opt_delay = pp__option(ctx, PP_OPTION_SCAN_DELAY_NS);
    pp_lb_sleeps sl{opt_pause >= 0 ? (unsigned)opt_pause : tu->pause_ns, opt_delay >= 0 ? (unsigned)opt_delay : tu->delay_ns};
    const int variant = BLOCK != SORT_BLOCK ? (int)PP_SORT_ONESWEEP_FUSED : onesweep_variant(ctx, tu, argsort);
    const int copy_out = !in_place;
    /* wide tiles with values: the staged tile in dynamic shared memory (past the 48 KB of static) */
    constexpr size_t dyn = BLOCK != SORT_BLOCK && VB > 0 ? sizeof(onesweep_smem<K, V, VB, BLOCK, (int)TILE, true>) : 0;
    if (dyn && P > 0)
        PP_HIP_TRY(ctx, hipFuncSetAttribute(
                            reinterpret_cast<const void *>(onesweep_pass<K, VB, ITEMS, PP_SORT_ONESWEEP_FUSED, BLOCK>),
                            hipFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
    for (int j = 0; j < P; ++j) {
        const unsigned long long *sj = start + (size_t)j * PP_RADIX;
        const unsigned g = (unsigned)tiles;
        if constexpr (BLOCK != SORT_BLOCK)
            onesweep_pass<K, VB, ITEMS, PP_SORT_ONESWEEP_FUSED, BLOCK><<<g, BLOCK, dyn, s>>>(
                sd, j, sd.shift[j], sd.bits[j], copy_out, b, sj, active, loc, states, tickets + j, tiles, sl, argsort);
        else if (variant == PP_SORT_ONESWEEP_RANKED)
            onesweep_pass<K, VB, ITEMS, PP_SORT_ONESWEEP_RANKED><<<g, SORT_BLOCK, 0, s>>>(
                sd, j, sd.shift[j], sd.bits[j], copy_out, b, sj, active, loc, states, tickets + j, tiles, sl, argsort);
        else if (variant == PP_SORT_ONESWEEP_EARLY)
            onesweep_pass<K, VB, ITEMS, PP_SORT_ONESWEEP_EARLY><<<g, SORT_BLOCK, 0, s>>>(
                sd, j, sd.shift[j], sd.bits[j], copy_out, b, sj, active, loc, states, tickets + j, tiles, sl, argsort);
        else if (variant == PP_SORT_ONESWEEP_EARLY_BALLOT)
            onesweep_pass<K, VB, ITEMS, PP_SORT_ONESWEEP_EARLY_BALLOT><<<g, SORT_BLOCK, 0, s>>>(
                sd, j, sd.shift[j], sd.bits[j], copy_out, b, sj, active, loc, states, tickets + j, tiles, sl, argsort);
        else if (variant == PP_SORT_ONESWEEP_EARLY_WINDOW)
            onesweep_pass<K, VB, ITEMS, PP_SORT_ONESWEEP_EARLY_WINDOW><<<g, SORT_BLOCK, 0, s>>>(
                sd, j, sd.shift[j], sd.bits[j], copy_out, b, sj, active, loc, states, tickets + j, tiles, sl, argsort);
        else
            onesweep_pass<K, VB, ITEMS, PP_SORT_ONESWEEP_FUSED><<<g, SORT_BLOCK, 0, s>>>(
                sd, j, sd.shift[j], sd.bits[j], copy_out, b, sj, active, loc, states, tickets + j, tiles, sl, argsort);
        PP_HIP_CHECK_LAUNCH(ctx, "onesweep_pass");
    }
    /* not in place, the last running pass wrote X, or the last pass copied the input */
    if (in_place || P == 0) {
        sort_fixup<K, VB><<<stride_grid(hs, n), SORT_BLOCK, 0, s>>>(n, b, loc, P, loc0, argsort);
        PP_HIP_CHECK_LAUNCH(ctx, "sort_fixup");
    }
    pp__set_plan(ctx, "sort", "onesweep", tiles, tiles, P, ITEMS, (int64_t)TILE, variant);
    return PP_OK;
}

/* ---- one tile in one launch: a block's bitonic network (hip/bitonic.h) ---- */

/* Slots (items per thread) of the one-launch sort: 256 x 16 = 4096 where keys and values are at
 * most 4 bytes (16-byte-or-less stable words: 34 KB of shared memory), 256 x 8 = 2048 else. */
constexpr int sort_bitonic_items(int kb, int vb) { return kb > 4 || vb > 4 ? 8 : 16; }

/* One block sorts keys[0, n) (n <= SORT_BLOCK * ITEMS) completely: the compared field of each key
 * (alone where that is the whole integer key and there are no values, STABLE = false), else with
 * its input position breaking ties, padded to 2^ceil(log2 n) slots by sentinels; the keys
 * (decoded, or gathered by position) and values (gathered) read before any is written (in place
 * is allowed). */
template <typename K, int VB, int ITEMS, bool STABLE>
__global__ __launch_bounds__(SORT_BLOCK) void sort_bitonic(sort_desc sd, const K *kin, K *kout,
                                                           const val_t<VB> *vin, val_t<VB> *vout)
{
    using V = val_t<VB>;
    using W = pp_bn_word<K, STABLE>;
    using E = decltype(sort_enc(K(0), sd));
    constexpr int TILE = SORT_BLOCK * ITEMS;
    static_assert(TILE <= 65536 && (STABLE || VB == 0), "positions fit a stable word's 16 bits");
    __shared__ pp_bn_tile<W, TILE> st;
    const unsigned n = (unsigned)sd.n, tid = threadIdx.x, base = tid * ITEMS;
    const int c = n > 1 ? 32 - __clz((int)(n - 1)) : 0; /* ceil(log2 n) */
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
        const unsigned i = tid + (unsigned)(r * SORT_BLOCK);
        W w;
        pp_bn_sentinel(w);
        if (i < n) pp_bn_make(w, (E)sort_field(kin[i], sd), i);
        st.put(i, w);
    }
    __syncthreads();
    W x[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) x[r] = st.get(base + (unsigned)r);
    const unsigned out = pp_bn_bitonic<SORT_BN_EXCHANGE_LOG>(x, st, c);
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) st.put(out + (unsigned)r, x[r]);
    __syncthreads();
    if constexpr (!STABLE) { /* the whole integer key: its encoding's inverse is an xor */
        const E sign = sd.kind == PP_SORT_KIND_SIGNED ? (E)1 << (8 * sizeof(K) - 1) : (E)0;
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
            const unsigned i = tid + (unsigned)(r * SORT_BLOCK);
            if (i < n) kout[i] = (K)(st.get(i) ^ (E)sd.flip ^ sign);
        }
    } else {
        using VR = typename std::conditional<sizeof(V) < 4, uint32_t, V>::type;
        VR v[VB ? ITEMS : 1];
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
            const unsigned i = tid + (unsigned)(r * SORT_BLOCK);
            if (i < n) {
                W w = st.get(i);
                const unsigned src = pp_bn_word_place(w);
                pp_bn_set_bits(w, (uint64_t)kin[src]);
                st.put(i, w);
                if constexpr (VB > 0) v[r] = vin[src];
            }
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
            const unsigned i = tid + (unsigned)(r * SORT_BLOCK);
            if (i < n) {
                kout[i] = (K)pp_bn_bits(st.get(i));
                if constexpr (VB > 0) vout[i] = (V)v[r];
            }
        }
    }
}

/* The one-launch sort of n <= its tile (keys and pairs). Plan: the tile sort's, param[3] = 1
 * (one launch) and the last = 1 (the bitonic tile). */
template <typename K, int VB> pp_status run_bitonic(pp_context *ctx, const pp_sort_args *a, const sort_desc &sd)
{
    using V = val_t<VB>;
    constexpr int ITEMS = sort_bitonic_items((int)sizeof(K), VB);
    pp_hip_state *hs = pp_hip(ctx);
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    hipStream_t s = hs->stream;
    const K *kin = (const K *)a->keys_in;
    K *kout = (K *)a->keys_out;
    const V *vin = (const V *)a->values_in;
    V *vout = (V *)a->values_out;
    /* the whole integer key alone: equal encodings are equal keys, the order of ties invisible */
    const bool whole_int = sd.kind != PP_SORT_KIND_FLOAT && sd.begin == 0 && sd.width == (int)(8 * sizeof(K));
    if constexpr (VB == 0) {
        if (whole_int) sort_bitonic<K, 0, ITEMS, false><<<1, SORT_BLOCK, 0, s>>>(sd, kin, kout, vin, vout);
        else sort_bitonic<K, 0, ITEMS, true><<<1, SORT_BLOCK, 0, s>>>(sd, kin, kout, vin, vout);
    } else {
        sort_bitonic<K, VB, ITEMS, true><<<1, SORT_BLOCK, 0, s>>>(sd, kin, kout, vin, vout);
    }
    PP_HIP_CHECK_LAUNCH(ctx, "sort_bitonic");
    pp__set_plan(ctx, "sort", "tile_merge", 1, 1, sd.passes, 1, SORT_BLOCK * ITEMS, 1);
    return PP_OK;
}

template <typename K> pp_status run_tile_merge(pp_context *ctx, const pp_sort_args *a, const sort_desc &sd)
{
    /* keys and pairs of at most one bitonic tile: one launch (argsort keeps the tile sort) */
    if (a->keys_out && a->n <= (uint64_t)SORT_BLOCK * sort_bitonic_items((int)sizeof(K), (int)a->value_size)) {
        switch (a->value_size) {
        case 0: return run_bitonic<K, 0>(ctx, a, sd);
        case 1: return run_bitonic<K, 1>(ctx, a, sd);
        case 4: return run_bitonic<K, 4>(ctx, a, sd);
        default: return run_bitonic<K, 8>(ctx, a, sd);
        }
    }
    pp_hip_state *hs = pp_hip(ctx);
    const uint64_t n = a->n, tiles = (n + SORT_TILE - 1) / SORT_TILE;
    const int argsort = a->keys_out == nullptr;
    const size_t vb = a->value_size;
    /* positions: argsort's u32 indices are the output itself */
    const bool pos_is_out = argsort && vb == 4;
    const bool copy_values = !argsort && vb && a->values_in == a->values_out;
    size_t bytes = (pos_is_out ? 0 : pp_align256(n * 4)) + (argsort ? pp_align256(n * sizeof(K)) : 0) +
                   (copy_values ? pp_align256(n * vb) : 0);
    void *scratch = nullptr;
    PP_TRY(pp__scratch(ctx, bytes ? bytes : 256, &scratch));
    carve c{(char *)scratch, 0};
    unsigned *pos = pos_is_out ? (unsigned *)a->values_out : c.take<unsigned>(n);
    K *keys = argsort ? c.take<K>(n) : (K *)a->keys_out;
    const void *vin = a->values_in;
    PP_HIP_TRY(ctx, pp_hip_use_device(ctx));
    hipStream_t s = hs->stream;
    if (copy_values) { /* in place: the gather must not read what it overwrites */
        void *tmp = c.take<char>(n * vb);
        PP_HIP_TRY(ctx, hipMemcpyAsync(tmp, vin, n * vb, hipMemcpyDeviceToDevice, s));
        vin = tmp;
    }
    tile_sort<K><<<(unsigned)tiles, SORT_BLOCK, 0, s>>>(sd, (const K *)a->keys_in, keys, pos);
    PP_HIP_CHECK_LAUNCH(ctx, "tile_sort");
    int launches = 1;
    for (uint64_t L = SORT_TILE; L < n; L *= 2) {
        const unsigned g = stride_grid(hs, n / 2 + L);
        merge_global<K><<<g, SORT_BLOCK, 0, s>>>(sd, keys, pos, L, L);
        PP_HIP_CHECK_LAUNCH(ctx, "merge_global");
        ++launches;
        for (uint64_t st = L / 2; 2 * st > (uint64_t)SORT_TILE; st /= 2) {
            merge_global<K><<<g, SORT_BLOCK, 0, s>>>(sd, keys, pos, L, st);
            PP_HIP_CHECK_LAUNCH(ctx, "merge_global");
            ++launches;
        }
        merge_smem<K><<<(unsigned)tiles, SORT_BLOCK, 0, s>>>(sd, keys, pos, L);
        PP_HIP_CHECK_LAUNCH(ctx, "merge_smem");
        ++launches;
    }
    if (vb && !pos_is_out) {
        const unsigned g = stride_grid(hs, n);
        const bool idx = argsort; /* u64 indices from the positions */
        switch (vb) {
        case 1: sort_gather<1><<<g, SORT_BLOCK, 0, s>>>(n, (const uint8_t *)vin, pos, (uint8_t *)a->values_out); break;
        case 4:
            sort_gather<4><<<g, SORT_BLOCK, 0, s>>>(n, (const uint32_t *)vin, pos, (uint32_t *)a->values_out);
            break;
        default:
            sort_gather<8><<<g, SORT_BLOCK, 0, s>>>(n, idx ? nullptr : (const uint64_t *)vin, pos,
                                                     (uint64_t *)a->values_out);
            break;
        }
        PP_HIP_CHECK_LAUNCH(ctx, "sort_gather");
        ++launches;
    }
    pp__set_plan(ctx, "sort", "tile_merge", tiles, tiles, sd.passes, launches, SORT_TILE, 0);
    return PP_OK;
}

/* The onesweep tiles' shape: SORT_ONESWEEP_SMALL_ITEMS a thread up to the tuning row's
 * small_tile_max_n (or as PP_OPTION_SORT_SMALL_TILES forces); else wide tiles from the row's
 * wide_min_n (or as PP_OPTION_SORT_WIDE_TILES forces), where the kernel has them, always with
 * the fused pass (unless PP_OPTION_SORT_ONESWEEP forces another: then narrow tiles):
 *   keys without values: SORT_WIDE_BLOCK (512) threads, SORT_ONESWEEP_ITEMS a thread;
 *   4-byte keys with 4-byte values (pairs, argsort's u32 indices): SORT_PAIRS_WIDE_BLOCK (384)
 *   x 16, the staged tile in dynamic shared memory (48 KB; at 512 threads the pass would need
 *   more than 64 registers). Argsort's narrow tiles keep the row's onesweep_argsort; on wide
 *   tiles the fused pass won (tuning_sort.h);
 * else blocks of SORT_BLOCK. */
template <typename K, int VB> pp_status run_onesweep_sized(pp_context *ctx, const pp_sort_args *a, const sort_desc &sd)
{
    const pp_sort_tuning *tu = pp_sort_tuning_for(&pp_hip(ctx)->dev);
    const int64_t forced = pp__option(ctx, PP_OPTION_SORT_SMALL_TILES);
    const bool small = forced == 2 || (forced == 0 && a->n <= tu->small_tile_max_n);
    if (small) return run_onesweep<K, VB, SORT_ONESWEEP_SMALL_ITEMS>(ctx, a, sd);
    constexpr int ITEMS = SORT_ONESWEEP_ITEMS((int)sizeof(K), VB);
    if constexpr (VB == 0 || (sizeof(K) == 4 && VB == 4)) {
        const int64_t forced_wide = pp__option(ctx, PP_OPTION_SORT_WIDE_TILES);
        const bool wide = forced_wide == 2 || (forced_wide == 0 && tu->wide_min_n && a->n >= tu->wide_min_n);
        const int64_t forced_variant = pp__option(ctx, PP_OPTION_SORT_ONESWEEP);
        if (wide && (forced_variant == PP_SORT_ONESWEEP_AUTO || forced_variant == PP_SORT_ONESWEEP_FUSED))
            return run_onesweep<K, VB, ITEMS, VB == 0 ? SORT_WIDE_BLOCK : SORT_PAIRS_WIDE_BLOCK>(ctx, a, sd);
    }
    return run_onesweep<K, VB, ITEMS>(ctx, a, sd);
}

template <typename K> pp_status dispatch_values(pp_context *ctx, const pp_sort_args *a, const sort_desc &sd, bool tile)
{
    if (tile) return run_tile_merge<K>(ctx, a, sd);
    switch (a->value_size) {
    case 0: return run_onesweep_sized<K, 0>(ctx, a, sd);
    case 1: return run_onesweep_sized<K, 1>(ctx, a, sd);
    case 4: return run_onesweep_sized<K, 4>(ctx, a, sd);
    default: return run_onesweep_sized<K, 8>(ctx, a, sd);
    }
}

} // namespace

pp_status pp_hip_sort(pp_context *ctx, const pp_sort_args *a)
{
    pp_hip_state *hs = pp_hip(ctx);
    const size_t kb = pp_dtype_size(a->key_type);
    sort_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.n = a->n;
    sd.kind = pp__dtype_is_float(a->key_type) ? PP_SORT_KIND_FLOAT
              : pp__dtype_is_signed(a->key_type) ? PP_SORT_KIND_SIGNED
                                                  : PP_SORT_KIND_UNSIGNED;
    sd.flip = a->descending ? (kb == 8 ? ~0ull : ((1ull << (8 * kb)) - 1ull)) : 0ull;
    sd.begin = a->begin_bit;
    sd.width = a->end_bit - a->begin_bit;
    for (int b = a->begin_bit; b < a->end_bit; b += PP_RADIX_BITS) {
        sd.shift[sd.passes] = b;
        sd.bits[sd.passes] = a->end_bit - b < PP_RADIX_BITS ? a->end_bit - b : PP_RADIX_BITS;
        ++sd.passes;
    }
    /* The tile sort carries 32-bit positions, ~0u meaning "past n". */
    const bool tile_ok = a->n < 0xFFFFFFFFull;
    const int64_t forced = pp__option(ctx, PP_OPTION_SORT_STRATEGY);
    const bool tile = tile_ok && (forced == PP_SORT_STRATEGY_TILE_MERGE ||
                                  (forced == PP_SORT_STRATEGY_AUTO && a->n <= pp_sort_tuning_for(&hs->dev)->tile_max_n));
    switch (kb) {
    case 1: return dispatch_values<uint8_t>(ctx, a, sd, tile);
    case 4: return dispatch_values<uint32_t>(ctx, a, sd, tile);
    default: return dispatch_values<uint64_t>(ctx, a, sd, tile);
    }
}
