/*
 * tuning_sort.h -- the radix sort family's tuning (hip/sort.hip), as data: the tile shapes
 * (compile time: they size registers and shared memory, the same for every target) and one
 * row per target of the run-time choices (the look-back's sleeps, the largest n the tile sort
 * takes by itself), chosen from the context's device (pp_hip_device), never from a macro of
 * the host pass.
 *
 * Shapes (not tuned yet: first version; bench/RESULTS.md has the figures they gave):
 *   SORT_BLOCK    256 threads, one per digit of an 8-bit pass (the ranking's scan over digits
 *                 and the look-back's counters need a thread per digit).
 *   onesweep      16 items per thread (tiles of 4096) where keys and values are at most 4
 *                 bytes, 8 (2048) where either is 8 bytes: the staged tile (keys and values),
 *                 the ranking's wave counters and the digit offsets stay within 48 KB of
 *                 static shared memory (44 KB at most).
 *   tile sort     8 items per thread (tiles of 2048): keys and 32-bit positions staged, every
 *                 digit ranked in shared memory; the bitonic merge's shared-memory stages
 *                 work on blocks of the same 2048 elements.
 */
#ifndef PP_HIP_TUNING_SORT_H
#define PP_HIP_TUNING_SORT_H

#include <string.h>

#include "common.h"

#define SORT_BLOCK 256
#define SORT_TILE_ITEMS 8
#define SORT_TILE (SORT_BLOCK * SORT_TILE_ITEMS)
/* The one-launch bitonic tile's network (sort_bitonic; hip/bitonic.h, pp_bn_bitonic's XMIN): the
 * exchange form from 2^11 keys with 4-byte words, as the segmented sort's packed classes took
 * it where it was measured (bench/NOTES.md, "Sixteenth session"; they now take the merge form,
 * tuning_segsort.h). Here, H100 80GB HBM3 (the same call, the exchange form for every size):
 * sort_keys u32 at n = 4096 9.65 / 9.69 -> 9.53 / 9.34 us; sort_pairs u32 (8-byte words) 21.95 /
 * 21.96 -> 26.74 / 26.47 us, so 8-byte words keep the flip form. AMD: never (not measured). */
#if defined(PP_PORT_AMD)
#define SORT_BN_EXCHANGE_LOG 32
#else
#define SORT_BN_EXCHANGE_LOG 11
#endif
/* onesweep blocks per SM / CU the register allocation must allow (tiles in flight), for keys
 * of at most 4 bytes without values (KEYS) and for the others */
#ifndef SORT_ONESWEEP_MIN_BLOCKS
#define SORT_ONESWEEP_MIN_BLOCKS 3
#endif
/* Keys only on NVIDIA: 4 (64 registers, no spill since digits and ranks are packed; smem
 * allows 4 blocks of 28.7 KB): H100 80GB HBM3, 2026-11-26, commit 6b22389, CUB 3.0.1 in the
 * same run, ms at 2^28, 3 -> 4 blocks: u32 10.47 -> 10.23, f32 11.14 -> 11.01, sorted u32
 * 10.52 -> 10.45, 16 distinct i32 10.45 -> 10.32. AMD keeps 3 (not measured). */
#ifndef SORT_ONESWEEP_MIN_BLOCKS_KEYS
#if defined(PP_PORT_NVIDIA)
#define SORT_ONESWEEP_MIN_BLOCKS_KEYS 4
#else
#define SORT_ONESWEEP_MIN_BLOCKS_KEYS SORT_ONESWEEP_MIN_BLOCKS
#endif
#endif
#define SORT_ONESWEEP_BLOCKS(KB, VB) ((KB) <= 4 && (VB) == 0 ? SORT_ONESWEEP_MIN_BLOCKS_KEYS : SORT_ONESWEEP_MIN_BLOCKS)
/* onesweep items per thread for keys of KB bytes and values of VB bytes (20 for 4-byte keys
 * spilled 8 to 306 bytes on sm_90 at 3 blocks per SM, 96 to 136 at 4) */
#define SORT_ONESWEEP_ITEMS(KB, VB) ((KB) > 4 || (VB) > 4 ? 8 : 16)
/* Wide onesweep tiles (more threads than digits, SORT_ONESWEEP_ITEMS a thread, the fused pass
 * only, keys without values: sort.hip's run_onesweep_sized): blocks of 512 threads,
 * SORT_ONESWEEP_WIDE_BLOCKS of them an SM / CU (64 registers a thread on sm_90, no spill).
 * A tile's own costs (the look-back, the scans over digits, the barriers) are shared by twice
 * the keys, and half as many tiles are in flight for the look-back to walk over. H100 80GB
 * HBM3, 2026-11-27, commit ab5ba30, ms per sort at 2^28, same process, tiles of 256 / 384 /
 * 512 threads (x 16 keys; 384 ran at 80 registers, 24 warps an SM): u32 7.979 / 8.129 / 7.526,
 * again 8.004 / 8.145 / 7.504 (CUB 3.0.1 6.406); f32 8.606 / - / 8.400 (CUB 5.736); sorted u32
 * 7.765 / - / 7.367; 16 distinct i32 7.890 / - / 7.495. ncu at 2^26, a pass: 330 -> 291 M warp
 * instructions, 528 -> 506 us. 384 was dropped. 8-byte keys (512 x 8 = 4096 a tile, against
 * 256 x 8 at 80 registers, 3 blocks an SM): u64 keys at 2^27 14.279 / 14.260 ms narrow, 11.488 /
 * 11.522 wide (CUB 8.500 / 8.545), H100, 2026-11-27, commit 60e10ff, same process. */
#define SORT_WIDE_BLOCK 512
#define SORT_ONESWEEP_WIDE_BLOCKS 2
/* Wide tiles with values (4-byte keys and 4-byte values, the fused pass): blocks of 384 x 16 =
 * 6144 pairs, 2 an SM at 80 registers (the 3 narrow blocks' 24 warps), the staged tile (48 KB)
 * in dynamic shared memory over the wave counters. H100 80GB HBM3, 2026-11-27, commit 995886f,
 * n = 2^28, same process, two rounds: u32 / u32 pairs 10.789 / 10.697 ms wide against 12.069 /
 * 12.100 narrow (-11%); argsort f32 -> u32 on wide tiles with the fused pass 12.710 / 12.699
 * ms against its narrow EARLY_WINDOW default 14.312 / 14.361 (-11%; main 15.43). */
#define SORT_PAIRS_WIDE_BLOCK 384
/* onesweep items per thread for small n (the row's small_tile_max_n): tiles of 1024, so that a
 * pass at n = 2^16 runs 64 tiles, not 16 (each pass then took one 4096-key tile's latency,
 * 14 us under ncu on the H100) */
#define SORT_ONESWEEP_SMALL_ITEMS 4
/* the histogram's keys a thread per chunk, loaded at once (half as many for 8-byte keys: sort.hip's
 * sort_hist_items) */
#define SORT_HIST_ITEMS 16
/* The histogram's interleaved copies of its counters (a power of two; sort.hip sort_histogram):
 * NVIDIA 8 (33 KB of shared memory a block). H100 80GB HBM3, 2026-11-27, u32 keys at 2^28, ncu:
 * one copy 524.6 us, 119.6 M shared wavefronts for 33.6 M atomics (commit b18e181, call 2);
 * 8 copies 520 us, 104.7 M (1f91ee0, call 3); f32 keys 576 us with 8 copies, and the sort f32
 * 7.12 -> 6.93 ms across the two calls (bench/NOTES.md, tenth session). AMD 1: not measured, and
 * 33 KB of LDS would leave one 256-thread block a CU on gfx9. */
#ifndef SORT_HIST_COPIES
#if defined(PP_PORT_NVIDIA)
#define SORT_HIST_COPIES 8
#else
#define SORT_HIST_COPIES 1
#endif
#endif

struct pp_sort_tuning {
    const char *target;       /* as pp_hip_device::arch names it */
    unsigned pause_ns;        /* look-back: between polls (0: the shortest back-off) */
    unsigned delay_ns;        /* look-back: once before the first poll */
    uint64_t tile_max_n;      /* the chooser sorts n <= this with the tile sort alone (one tile) */
    int onesweep;             /* the onesweep pass's variant (pp_sort_onesweep, not AUTO) */
    int onesweep_argsort;     /* the same for pp_argsort (the values are the positions) */
    uint64_t small_tile_max_n; /* onesweep tiles of SORT_ONESWEEP_SMALL_ITEMS a thread up to this n */
    uint64_t wide_min_n;       /* wide onesweep tiles (SORT_WIDE_BLOCK threads) from this n (0: never) */
};

/* Sleeps and tile_max_n are not measured yet (no sleeps; one tile of the tile sort). The
 * onesweep variant: sm_90 measured (2026-11-26, H100 80GB HBM3, commit ea151f8 merged into
 * main, CUB 3.0.1 in the same process, n = 2^28, u64 2^27; ms per sort, variants 1 / 2 / 3 / 4
 * = RANKED / EARLY / EARLY_BALLOT / EARLY_WINDOW): u32 keys 12.07 / 12.04 / 10.56 / 10.16
 * (CUB 6.42); f32 keys 11.58 (1) / 10.97 (4) (CUB 5.73); u32 pairs 13.85 / 12.31 (CUB
 * 8.73); u64 keys 20.02 / 15.85 (CUB 8.55); argsort f32 17.12 / 14.85 (CUB 8.32): EARLY_WINDOW.
 * The others keep the first measured version's RANKED until measured on their card. The first
 * row of a platform is its fallback.
 * sm_90 -> FUSED (5): H100 80GB HBM3, 2026-11-26, commit b63362a, CUB 3.0.1 in the same run,
 * u32 keys at 2^28: EARLY_WINDOW 10.297 ms, FUSED 8.452 ms (CUB 6.416); the other rows were
 * not measured with FUSED in that call (bench/results/h100-sortperf4-b63362a-*).
 * Argsort keeps EARLY_WINDOW on sm_90 on narrow tiles (wide tiles, from wide_min_n, run the fused
 * pass: above, SORT_PAIRS_WIDE_BLOCK): H100 80GB HBM3, 2026-11-26, main 618d7f6, CUB 3.0.1 in the
 * same process, argsort f32 -> u32 at 2^28: EARLY_WINDOW 15.017 ms, FUSED 17.071 ms (CUB 8.35);
 * u32 / u32 pairs FUSED 12.596 ms (EARLY_WINDOW 12.80 in the first call of the session).
 * small_tile_max_n: sm_90 2^18 (H100 80GB HBM3, 2026-11-27, commit 49fd185, the full-tile copy
 * in both shapes, u32 keys, us per sort, small tiles (1024) / large (4096), same process: 2^16
 * 39.01 / 47.13; 2^17 42.85 / 48.65; 2^18 50.00 / 51.04; 2^20 106.70 / 69.38. Before the
 * full-tile copy it was 2^16: commit e8d817a, 2^16 47.19 / 51.25; 2^18 63.06 / 55.54; commit
 * 71bb20c, 2^17 53.46 / 52.77). The others: 0 (not measured).
 * wide_min_n: sm_90 2^21 (H100 80GB HBM3, 2026-11-27, u32 keys, wide / narrow, same process:
 * commit ab5ba30, 2^20 72.44 / 72.04 us (tied; 128 wide tiles, fewer than the SMs), 2^28
 * -6%, above; commit 49fd185 (the full-tile copy), 2^21 102.46 / 118.06 us, 2^22 182.61 /
 * 193.01 us, 2^28 6.969 / 7.800 ms). The others: 0 (not measured; the AMD build compiles them without scratch). */
static const pp_sort_tuning pp_sort_tuning_table[] = {
    {"sm_90", 0, 0, SORT_TILE, PP_SORT_ONESWEEP_FUSED, PP_SORT_ONESWEEP_EARLY_WINDOW, (uint64_t)1 << 18, (uint64_t)1 << 21},
    {"sm_80", 0, 0, SORT_TILE, PP_SORT_ONESWEEP_RANKED, PP_SORT_ONESWEEP_RANKED, 0, 0},
    {"gfx90a", 0, 0, SORT_TILE, PP_SORT_ONESWEEP_RANKED, PP_SORT_ONESWEEP_RANKED, 0, 0},
    {"gfx940", 0, 0, SORT_TILE, PP_SORT_ONESWEEP_RANKED, PP_SORT_ONESWEEP_RANKED, 0, 0},
    {"gfx1030", 0, 0, SORT_TILE, PP_SORT_ONESWEEP_RANKED, PP_SORT_ONESWEEP_RANKED, 0, 0},
};

/* The row for the context's device. */
static inline const pp_sort_tuning *pp_sort_tuning_for(const pp_hip_device *d)
{
    return pp_hip_tuning_pick(pp_sort_tuning_table, d);
}

#endif /* PP_HIP_TUNING_SORT_H */
