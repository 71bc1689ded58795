/*
 * radix_rank.h -- block-level radix ranking (radix sort family, issue 20): the stable rank of
 * each element of a tile by one digit of up to 8 bits, the building block of both GPU sorts
 * (hip/sort.hip): a onesweep pass ranks a tile once and scatters it, the tile sort ranks the
 * same tile once per digit in shared memory.
 *
 * Match ranking (as CUB's BlockRadixRankMatch and rocPRIM's match-based block radix rank): a
 * tile is wave-striped (item i of lane l of wave w is element w * PP_WAVE * ITEMS + i * PP_WAVE
 * + l, so a wave's items come in element order, item by item, lane by lane). For each item the
 * wave finds the lanes holding the same digit (pp_match_digit: NVIDIA's match instruction;
 * or pp_match_digit_wave, one ballot per digit bit, on every target and always on AMD), in
 * masks of the wave's own width (pp_wavemask_t: 32 bits on waves of 32, 64 on waves of 64,
 * from PP_WAVE, so waves of 32 and 64 run the same code); the highest of them adds the group's
 * size to the wave's counter of that digit in shared memory, and each lane's rank within the
 * wave is the counter before the add plus the group's lanes below it. Then each digit's wave
 * counters are scanned across the waves (one thread per digit) and the digit totals across
 * the block (a block scan), whose starts are added to the wave counters: rank = that counter
 * + the rank within the wave. Equal digits keep element order, so the rank is stable. The
 * counters sit at pp_radix_slot(digit), a permutation that keeps strided digits (sorted
 * input) off a few banks.
 *
 * Below the ranking, the tile scatter both radix passes share (a onesweep pass, the segmented
 * sort's radix levels): the ranked tile staged in digit order, then written to the output.
 */
#ifndef PP_HIP_RADIX_RANK_H
#define PP_HIP_RADIX_RANK_H

#include "blocks.h"

constexpr int PP_RADIX_BITS = 8;
constexpr int PP_RADIX = 1 << PP_RADIX_BITS;

/* The slot of digit d in the per-digit arrays that lanes index by their items' digits (the wave
 * counters, a onesweep pass's digit offsets): d with its bits 0..2 flipped by its bits 5..7, a
 * permutation of [0, PP_RADIX) that keeps each aligned run of 32 digits in place (so thread d
 * reaching slot pp_radix_slot(d) stays conflict-free) and spreads digits of a common stride
 * over the banks: sorted keys give a wave digits 16 apart (16 lanes on 2 of the 32 banks, an
 * 8-way conflict on every counter update, measured 7.8-way on the H100) or 32 apart. */
PP_DEVICE unsigned pp_radix_slot(unsigned d) { return d ^ (d >> 5); }

/* Where a radix pass stages the element of rank r in shared memory before its scatter (a
 * onesweep pass, the segmented sort's radix levels): r with its bits 0..4 flipped by its bits
 * 5..9, a permutation of each aligned run of 32 (so the scatter's reads of consecutive elements
 * stay conflict-free) that spreads ranks of a common stride over the banks: sorted keys give the
 * lanes of a wave ranks 256 apart (16 digits of 256 keys each), all on 2 banks, a 16-way
 * conflict on every store of the tile (4-way with the slot). */
PP_DEVICE unsigned pp_radix_stage_slot(unsigned r) { return r ^ ((r >> 5) & 31u); }

/* Shared memory of pp_radix_rank for blocks of BLOCK threads. */
template <int BLOCK> struct pp_radix_rank_smem {
    uint32_t wave_cnt[BLOCK / PP_WAVE][PP_RADIX]; /* per wave and digit slot: count, then the rank base */
    uint32_t start[PP_RADIX];                     /* the digit's first position in the tile */
    uint32_t count[PP_RADIX];                     /* how many elements of the tile hold the digit */
};

/* Items in packed form, one register each: the digit in the bits from PP_RADIX_DR_SHIFT up,
 * the rank (below 2^PP_RADIX_DR_SHIFT: a tile holds at most that many elements) below. A
 * onesweep pass keeps its 16 items' digits and ranks this way: as two arrays, with 16 keys
 * and 16 values, they spilled registers on sm_90 (80 registers, three blocks per SM). */
constexpr int PP_RADIX_DR_SHIFT = 16;
PP_DEVICE unsigned pp_dr_digit(unsigned dr) { return dr >> PP_RADIX_DR_SHIFT; }
PP_DEVICE unsigned pp_dr_rank(unsigned dr) { return dr & ((1u << PP_RADIX_DR_SHIFT) - 1u); }

/* How the ranking finds a wave's lanes of equal digit (MATCH): pp_match_digit (NVIDIA's match
 * instruction where it has one), one ballot per digit bit (pp_match_digit_wave), or the same
 * ballots in the fewest instructions the target allows (pp_match_digit_wave_fused), the
 * leader's counter update one shared atomic and no wave barrier between items on NVIDIA
 * (pp_shared_add_order). */
enum { PP_RANK_MATCH_ANY = 0, PP_RANK_BALLOT = 1, PP_RANK_BALLOT_FUSED = 2 };

/* The first phase of the ranking, on packed items (dr[i] = digit << PP_RADIX_DR_SHIFT, rank
 * bits 0): the wave counters of every digit by matching (BALLOT: one ballot per digit bit on
 * every target, pp_match_digit_wave, as CUB's MatchAny; else pp_match_digit), then each
 * digit's wave counters replaced by the waves before. Returns the tile's count of digit
 * threadIdx.x to the threads below PP_RADIX (0 to the others), which a onesweep pass publishes
 * at once, before pp_radix_rank_finish_dr. The rank bits of dr[i] hold the rank within the
 * wave. FULL: every item is valid (valid_count is the whole tile), no bound tested. Contains
 * __syncthreads(); every thread calls it. */
template <int BLOCK, int ITEMS, int MATCH = PP_RANK_MATCH_ANY, bool FULL = false>
PP_DEVICE unsigned pp_radix_rank_counts_dr(unsigned (&dr)[ITEMS], int bits, unsigned valid_count,
                                           pp_radix_rank_smem<BLOCK> &sm)
{
    constexpr int WAVES = BLOCK / PP_WAVE;
    static_assert(BLOCK >= PP_RADIX && BLOCK % PP_WAVE == 0, "a block holds every digit, in whole waves");
    static_assert(BLOCK * ITEMS <= (1 << PP_RADIX_DR_SHIFT), "a rank fits below the digit");
    const unsigned lane = pp_lane_id(), w = pp_wave_id();
    uint32_t *flat = &sm.wave_cnt[0][0];
    for (unsigned k = threadIdx.x; k < (unsigned)(WAVES * PP_RADIX); k += BLOCK) flat[k] = 0;
    __syncthreads();
    uint32_t *mine = sm.wave_cnt[w];
    const pp_wavemask_t below = pp_wavemask_lt();
    const unsigned first = w * PP_WAVE * ITEMS + lane;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const bool valid = FULL || first + (unsigned)(i * PP_WAVE) < valid_count;
        const unsigned digit = pp_dr_digit(dr[i]);
        const pp_wavemask_t peers = MATCH == PP_RANK_BALLOT_FUSED ? pp_match_digit_wave_fused<PP_RADIX_BITS>(digit, valid)
                                    : MATCH == PP_RANK_BALLOT   ? pp_match_digit_wave<PP_RADIX_BITS>(digit, valid)
                                                               : (pp_wavemask_t)pp_match_digit(digit, bits, valid);
        const int leader = peers ? pp_wavemask_top(peers) : (int)lane;
        const unsigned slot = pp_radix_slot(digit);
        unsigned before = 0;
        if constexpr (MATCH == PP_RANK_BALLOT_FUSED) {
            /* a shared atomic: the compiler predicates it (a load and a store cost more) */
            if (valid && (int)lane == leader) before = atomicAdd(&mine[slot], pp_wavemask_popc(peers));
        } else if (valid && (int)lane == leader) {
            before = mine[slot];
            mine[slot] = before + pp_wavemask_popc(peers);
        }
        before = pp_shfl(before, leader);
        dr[i] += before + pp_wavemask_popc(peers & below);
        if constexpr (MATCH == PP_RANK_BALLOT_FUSED) pp_shared_add_order();
        else pp_wave_sync();
    }
    __syncthreads();
    unsigned total = 0;
    if (threadIdx.x < (unsigned)PP_RADIX) {
        const unsigned d = threadIdx.x, slot = pp_radix_slot(d);
#pragma unroll
        for (int v = 0; v < WAVES; ++v) {
            const unsigned c = sm.wave_cnt[v][slot];
            sm.wave_cnt[v][slot] = total;
            total += c;
        }
        sm.count[d] = total;
    }
    return total;
}

/* The second phase: the digits' starts in the tile (a block scan of the counts `total` that
 * pp_radix_rank_counts_dr returned), added to each digit's wave counters, and every valid
 * item's rank in the tile into the rank bits of dr[i]. Returns digit threadIdx.x's start to
 * the threads below PP_RADIX (what sm.start holds), so that a caller may reuse the shared
 * memory once every thread has returned. Contains __syncthreads(); every thread calls it. */
template <int BLOCK, int ITEMS, bool FULL = false>
PP_DEVICE unsigned pp_radix_rank_finish_dr(unsigned (&dr)[ITEMS], unsigned valid_count, unsigned total,
                                       pp_radix_rank_smem<BLOCK> &sm)
{
    constexpr int WAVES = BLOCK / PP_WAVE;
    const unsigned first = pp_wave_id() * PP_WAVE * ITEMS + pp_lane_id();
    const uint32_t *mine = sm.wave_cnt[pp_wave_id()];
    const unsigned start = pp_block_scan<pp_op_sum<unsigned>, BLOCK, false>(total);
    if (threadIdx.x < (unsigned)PP_RADIX) {
        const unsigned slot = pp_radix_slot(threadIdx.x);
        sm.start[threadIdx.x] = start;
#pragma unroll
        for (int v = 0; v < WAVES; ++v) sm.wave_cnt[v][slot] += start;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        if (FULL || first + (unsigned)(i * PP_WAVE) < valid_count) dr[i] += mine[pp_radix_slot(pp_dr_digit(dr[i]))];
    return start;
}

/* Every thread of the block calls it. digit[i]: item i's digit (< 2^bits); an item is valid when
 * its element index (above) is below valid_count, and only valid items are ranked. On return
 * rank[i] is the valid item's position in the tile ordered stably by digit, and sm.start /
 * sm.count hold each digit's start and count (read them after the call: it ends with a
 * barrier). Contains __syncthreads(). BLOCK >= PP_RADIX. (The packed form above with separate
 * arrays.) */
template <int BLOCK, int ITEMS, int MATCH = PP_RANK_MATCH_ANY>
PP_DEVICE void pp_radix_rank(const unsigned (&digit)[ITEMS], int bits, unsigned valid_count, unsigned (&rank)[ITEMS],
                             pp_radix_rank_smem<BLOCK> &sm)
{
    unsigned dr[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) dr[i] = digit[i] << PP_RADIX_DR_SHIFT;
    const unsigned total = pp_radix_rank_counts_dr<BLOCK, ITEMS, MATCH>(dr, bits, valid_count, sm);
    pp_radix_rank_finish_dr<BLOCK, ITEMS>(dr, valid_count, total, sm);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) rank[i] = pp_dr_rank(dr[i]);
}

/* ---- a radix pass's tile scatter (a onesweep pass, hip/sort.hip; the segmented sort's radix
 * levels, hip/segsort.hip): the ranked tile staged in shared memory in digit order, then each
 * element written from there to where its digit's run of this tile starts in the output plus its
 * place in the tile. The caller ranks the tile (above), finds each digit's start in the output
 * (a look-back) and stores start - the digit's start in the tile at the digit's slot
 * (pp_radix_put_delta). ---- */

/* The tile's item i of this thread (ranked dr[i]; element first + i * PP_WAVE of the tile, first =
 * pp_wave_id() * PP_WAVE * ITEMS + pp_lane_id()) into skeys / svals at pp_radix_stage_slot of its
 * rank; FULL: every element present, else those below cnt. VALS: values too. */
template <int ITEMS, bool FULL, bool VALS, typename K, typename V, int NV>
PP_DEVICE void pp_radix_stage_tile(const K (&k)[ITEMS], const V (&v)[NV], const unsigned (&dr)[ITEMS], unsigned first,
                                   unsigned cnt, K *skeys, V *svals)
{
    static_assert(!VALS || NV == ITEMS, "a value an item");
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        if (FULL || first + (unsigned)(i * PP_WAVE) < cnt) {
            const unsigned p = pp_radix_stage_slot(pp_dr_rank(dr[i]));
            skeys[p] = k[i];
            if constexpr (VALS) svals[p] = v[i];
        }
}

/* Digit d's delta (its run's start in the output less its start in the tile) at its slot: the
 * low 32 bits in dlo, the high in dhi where WIDE. */
template <bool WIDE> PP_DEVICE void pp_radix_put_delta(uint32_t *dlo, uint32_t *dhi, unsigned d, uint64_t delta)
{
    const unsigned slot = pp_radix_slot(d);
    dlo[slot] = (uint32_t)delta;
    if constexpr (WIDE) dhi[slot] = (uint32_t)(delta >> 32);
}

/* The staged tile (after a barrier) to the output: element e (threadIdx.x + i * BLOCK, below cnt
 * unless FULL) to kdst[delta of its digit + e] (vdst too where VALS; the key only where
 * write_keys). slot_of(key): its digit's slot (pp_radix_slot of the digit, computed again from
 * the key). NARROW: the places in 32 bits (every place below 2^32: the delta wraps, the sum does
 * not), else 64 from dlo / dhi. UNROLL: the loop's unroll, so that a thread's shared-memory
 * reads are in flight together (callers with values unroll less: the whole unroll spilled). */
template <int BLOCK, int ITEMS, int UNROLL, bool FULL, bool NARROW, bool VALS, typename K, typename V, typename F>
PP_DEVICE void pp_radix_scatter_tile(const K *skeys, const V *svals, const uint32_t *dlo, const uint32_t *dhi,
                                     unsigned cnt, const F &slot_of, K *kdst, V *vdst, bool write_keys)
{
#pragma unroll UNROLL
    for (int i = 0; i < ITEMS; ++i) {
        const unsigned e = threadIdx.x + (unsigned)(i * BLOCK);
        if (FULL || e < cnt) {
            const unsigned p = pp_radix_stage_slot(e);
            const K kk = skeys[p];
            const unsigned slot = slot_of(kk);
            if constexpr (NARROW) {
                const uint32_t g = dlo[slot] + e;
                if (write_keys) kdst[g] = kk;
                if constexpr (VALS) vdst[g] = svals[p];
            } else {
                const uint64_t g = ((uint64_t)dhi[slot] << 32 | dlo[slot]) + e;
                if (write_keys) kdst[g] = kk;
                if constexpr (VALS) vdst[g] = svals[p];
            }
        }
    }
}

#endif /* PP_HIP_RADIX_RANK_H */
