/*
 * radix_rank.h -- block-level radix ranking (radix sort family, issue 20): the stable rank of
 * each element of a tile by one digit of up to 8 bits, the building block of both GPU sorts
 * (hip/sort.hip): a onesweep pass ranks a tile once and scatters it, the tile sort ranks the
 * same tile once per digit in shared memory.
 *
 * Match ranking (as CUB's BlockRadixRankMatch and rocPRIM's match-based block radix rank): a
 * tile is wave-striped (item i of lane l of wave w is element w * PP_WAVE * ITEMS + i * PP_WAVE
 * + l, so a wave's items come in element order, item by item, lane by lane). For each item the
 * wave finds the lanes holding the same digit (pp_match_digit: NVIDIA's match instruction, or
 * one ballot per digit bit in 64-bit masks on AMD, so waves of 32 and 64 run the same code);
 * the highest of them adds the group's size to the wave's counter of that digit in shared
 * memory, and each lane's rank within the wave is the counter before the add plus the group's
 * lanes below it. Then each digit's wave counters are scanned across the waves (one thread per
 * digit) and the digit totals across the block (a block scan): rank = start of the digit in the
 * tile + the waves before + the rank within the wave. Equal digits keep element order, so the
 * rank is stable.
 */
#ifndef PP_HIP_RADIX_RANK_H
#define PP_HIP_RADIX_RANK_H

#include "blocks.h"

constexpr int PP_RADIX_BITS = 8;
constexpr int PP_RADIX = 1 << PP_RADIX_BITS;

/* Shared memory of pp_radix_rank for blocks of BLOCK threads. */
template <int BLOCK> struct pp_radix_rank_smem {
    uint32_t wave_cnt[BLOCK / PP_WAVE][PP_RADIX]; /* per wave and digit: count, then the waves before */
    uint32_t start[PP_RADIX];                     /* the digit's first position in the tile */
    uint32_t count[PP_RADIX];                     /* how many elements of the tile hold the digit */
};

/* The first phase of pp_radix_rank: the wave counters of every digit by matching (BALLOT: one
 * ballot per digit bit on every target, pp_match_digit_ballot, as CUB's MatchAny; else
 * pp_match_digit), then each digit's wave counters replaced by the waves before. Returns the
 * tile's count of digit threadIdx.x to the threads below PP_RADIX (0 to the others), which a
 * onesweep pass publishes at once, before pp_radix_rank_finish. rank[i] holds the rank within
 * the wave. Contains __syncthreads(); every thread calls it. */
template <int BLOCK, int ITEMS>
PP_DEVICE unsigned pp_radix_rank_counts(const unsigned (&digit)[ITEMS], int bits, unsigned valid_count,
                                        unsigned (&rank)[ITEMS], pp_radix_rank_smem<BLOCK> &sm, bool ballot = false)
{
    constexpr int WAVES = BLOCK / PP_WAVE;
    static_assert(BLOCK >= PP_RADIX && BLOCK % PP_WAVE == 0, "a block holds every digit, in whole waves");
    const unsigned lane = pp_lane_id(), w = pp_wave_id();
    uint32_t *flat = &sm.wave_cnt[0][0];
    for (unsigned k = threadIdx.x; k < (unsigned)(WAVES * PP_RADIX); k += BLOCK) flat[k] = 0;
    __syncthreads();
    uint32_t *mine = sm.wave_cnt[w];
    const pp_lanemask_t below = pp_lanemask_lt();
    const unsigned first = w * PP_WAVE * ITEMS + lane;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const bool valid = first + (unsigned)(i * PP_WAVE) < valid_count;
        const pp_lanemask_t peers = ballot ? pp_match_digit_ballot<PP_RADIX_BITS>(digit[i], bits, valid)
                                           : pp_match_digit(digit[i], bits, valid);
        const int leader = peers ? 63 - __clzll((long long)peers) : (int)lane;
        unsigned before = 0;
        if (valid && (int)lane == leader) {
            before = mine[digit[i]];
            mine[digit[i]] = before + (unsigned)__popcll(peers);
        }
        before = pp_shfl(before, leader);
        rank[i] = before + (unsigned)__popcll(peers & below);
        pp_wave_sync();
    }
    __syncthreads();
    unsigned total = 0;
    if (threadIdx.x < (unsigned)PP_RADIX) {
        const unsigned d = threadIdx.x;
#pragma unroll
        for (int v = 0; v < WAVES; ++v) {
            const unsigned c = sm.wave_cnt[v][d];
            sm.wave_cnt[v][d] = total;
            total += c;
        }
        sm.count[d] = total;
    }
    return total;
}

/* The second phase: the digits' starts in the tile (a block scan of the counts `total` that
 * pp_radix_rank_counts returned) and every valid item's rank in the tile. Contains
 * __syncthreads(); every thread calls it. */
template <int BLOCK, int ITEMS>
PP_DEVICE void pp_radix_rank_finish(const unsigned (&digit)[ITEMS], unsigned valid_count, unsigned total,
                                    unsigned (&rank)[ITEMS], pp_radix_rank_smem<BLOCK> &sm)
{
    const unsigned first = pp_wave_id() * PP_WAVE * ITEMS + pp_lane_id();
    const uint32_t *mine = sm.wave_cnt[pp_wave_id()];
    const unsigned start = pp_block_scan<pp_op_sum<unsigned>, BLOCK, false>(total);
    if (threadIdx.x < (unsigned)PP_RADIX) sm.start[threadIdx.x] = start;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        if (first + (unsigned)(i * PP_WAVE) < valid_count) rank[i] += sm.start[digit[i]] + mine[digit[i]];
}

/* Every thread of the block calls it. digit[i]: item i's digit (< 2^bits); an item is valid when
 * its element index (above) is below valid_count, and only valid items are ranked. On return
 * rank[i] is the valid item's position in the tile ordered stably by digit, and sm.start /
 * sm.count hold each digit's start and count (read them after the call: it ends with a
 * barrier). Contains __syncthreads(). BLOCK >= PP_RADIX. */
template <int BLOCK, int ITEMS>
PP_DEVICE void pp_radix_rank(const unsigned (&digit)[ITEMS], int bits, unsigned valid_count, unsigned (&rank)[ITEMS],
                             pp_radix_rank_smem<BLOCK> &sm)
{
    const unsigned total = pp_radix_rank_counts<BLOCK, ITEMS>(digit, bits, valid_count, rank, sm);
    pp_radix_rank_finish<BLOCK, ITEMS>(digit, valid_count, total, rank, sm);
}

#endif /* PP_HIP_RADIX_RANK_H */
