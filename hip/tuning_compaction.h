/*
 * tuning_compaction.h -- the compaction family's tuning, as data: the tile shape of each device
 * pass (compile time: it sizes registers and shared memory) and the look-back's sleeps of each
 * target (run time: a row chosen from the device present, pp_hip_device). A context may override
 * the sleeps (PP_OPTION_SCAN_DELAY_NS / _PAUSE_NS, the look-back's options); none of this changes
 * a result.
 */
#ifndef PP_HIP_TUNING_COMPACTION_H
#define PP_HIP_TUNING_COMPACTION_H

#include <string.h>

#include "common.h"

/* ---- tile shapes (per device pass) ----
 * COMPACT_THREADS threads; 16 elements per thread for 1- and 4-byte elements, 8 for 8-byte ones
 * (a tile of 4096 / 2048 elements at 256 threads, 8192 / 4096 at 512): a tile's input stays in
 * shared memory (16 KB a 256-thread tile), each wave's kept values are staged over its own part
 * of it, and, only with a payload or indices, 2 bytes per element for the positions and the
 * payload's staging (dynamic). The block's wave totals are scanned by one wave, so a block has at
 * most PP_WAVE waves (256 threads: 8 waves of 32 or 4 of 64; 512: 16 of 32 or 8 of 64).
 * NVIDIA: 512 threads (8192 elements of 1 or 4 bytes a tile); AMD: 256 (not measured: no AMD
 * GPU here). H100 80GB HBM3, 2^28, CUB 3.0.1 in the same process, every row verified against the
 * CPU backend. First (2026-11-26 ~12:45 UTC, the libraries of aed63e9 built with 256 / 384 / 512
 * threads, one bench binary; 256 run twice): select flagged 717.4 / 723.2 (256), 715.7 (384),
 * 694.5 us (512); select_if 50% 650.9 / 648.2, 641.2, 621.0 us; 1% 520.7 / 516.5, 503.7, 475.0
 * us; 99% 819.5 / 818.9, 821.6, 811.4 us; partition 1.267 / 1.272, 1.253, 1.236 ms; unique 601.6
 * / 598.1, 587.7, 567.3 us; RLE 1.013 / 1.011, 1.019, 0.997 ms; per call n = 1024 3.60 / 3.71,
 * 3.88, 4.66 us and n = 2^16 6.04 / 6.14, 6.48, 6.75 us. Then (2026-11-26 16:41-16:46 UTC, main
 * fda767b at 256 against 24a12d9 at 512, two builds in one call): flagged 717.2 -> 696.9 us,
 * select_if 50% 649.7 -> 620.5, 1% 519.0 -> 475.4, 99% 820.3 -> 814.8, partition 1.269 -> 1.231
 * ms, unique 599.0 -> 572.9 us, RLE 1.021 -> 0.998 ms, nonzero 723.9 -> 699.8 us; n = 1024 4.16
 * -> 4.40 us, n = 2^16 6.13 -> 6.72 us (CUB 8.5 / 8.3-8.6 us); test_compaction[hip] passed at
 * 512, compute-sanitizer memcheck / racecheck / synccheck of t_small clean. */
#if defined(PP_PORT_AMD)
#define COMPACT_THREADS 256
#else
#define COMPACT_THREADS 512
#endif
template <int KW> struct compact_shape {
    static constexpr int threads = COMPACT_THREADS;
    static constexpr int items = KW == 8 ? 8 : 16;
    static constexpr int tile = threads * items;
};

/* Blocks per compute unit the registers are capped for (__launch_bounds__'s second argument),
 * NVIDIA only (ptxas of CUDA 13, sm_90, 256 threads). One tile per block, the kernel of the
 * third session (wave-local staging, commit abef101): 8 for 1- and 4-byte flags and for 4-byte
 * predicates and run heads (32 registers, 100% occupancy; ptxas spills 8-20 bytes there, a
 * few local accesses per tile: ncu counted 8 spill requests a tile for select flagged; at 6
 * blocks the flags kernel took 40 registers and spilled 40 bytes), 5 for 8-byte flags (48
 * registers, no spill; 32 bytes of spill at 8), 6 for the other 1- and 8-byte kernels (40
 * registers, no spill; 56 bytes for 1-byte run heads at 8). Run-length encoding (eleventh
 * session, after the staging-during-look-back variant was removed: bench/NOTES.md "Eleventh
 * session: compaction"): 8 for 4-byte keys (32 registers, 8 / 20 bytes of spill; before the
 * removal 80 / 208 bytes at 8, hence 6 blocks of 40 registers: 3 of 512 threads, 75%
 * occupancy), 6 for 1-byte keys (40 registers, no spill; 16 / 40 bytes at 8), 6 for 8-byte keys
 * (40 registers, no spill; it was 5 at 48: 2 blocks of 512 threads). H100 80GB HBM3, 2^28 u32
 * in runs of 4, 2026-11-27 09:43-09:59 UTC, main 60e49cf against 4b39bd9 (this cap and the
 * vector before each wave copied with the run), alternating, CUB 3.0.1 in the same process:
 * RLE 835.2 / 833.3 -> 698.6 / 697.9 us (CUB 838-847), unique 573.6 / 569.1 / 567.4 -> 551.5 /
 * 548.8 / 550.0 us (CUB 615-620); ncu: RLE achieved occupancy 97.5%. Measured on the H100
 * (2^28 f32, bench/NOTES.md "compaction: third session"):
 * select flagged 999 -> 717 us with the flags
 * kernel at 8 blocks (achieved occupancy 61% -> 98%) together with the staging change.
 * Persistent blocks (PP_OPTION_COMPACT_BLOCKS 2): 4 (56-64 registers). AMD: the first
 * publication order only (publish 1, one tile per block: the options are ignored there, and
 * the plan says so), no cap; no spill on gfx90a / gfx940 / gfx1030 (PP_RESOURCE_USAGE). */
#ifdef PP_PORT_NVIDIA
#define COMPACT_VARIANTS_BUILT 1
#define COMPACT_PRED_MIN_BLOCKS 8
#define COMPACT_RUN_MIN_BLOCKS 8
#define COMPACT_RLE_MIN_BLOCKS 8
#define COMPACT_RLE1_MIN_BLOCKS 6
#define COMPACT_RLE8_MIN_BLOCKS 6
#define COMPACT_FLAGS_MIN_BLOCKS 8
#define COMPACT_FLAGS8_MIN_BLOCKS 5
#define COMPACT_OTHER_MIN_BLOCKS 6
#define COMPACT_PERSIST_MIN_BLOCKS 4
#else
#define COMPACT_VARIANTS_BUILT 0
#define COMPACT_PRED_MIN_BLOCKS 1
#define COMPACT_RUN_MIN_BLOCKS 1
#define COMPACT_RLE_MIN_BLOCKS 1
#define COMPACT_RLE1_MIN_BLOCKS 1
#define COMPACT_RLE8_MIN_BLOCKS 1
#define COMPACT_FLAGS_MIN_BLOCKS 1
#define COMPACT_FLAGS8_MIN_BLOCKS 1
#define COMPACT_OTHER_MIN_BLOCKS 1
#define COMPACT_PERSIST_MIN_BLOCKS 1
#endif
/* The caps above are blocks of 256 threads; compact_min_blocks keeps their threads per compute
 * unit for another COMPACT_THREADS (at least one block). */
template <bool PERSIST, int MODE, int KW, bool RLE> constexpr int compact_min_blocks256()
{
    return PERSIST                  ? COMPACT_PERSIST_MIN_BLOCKS
           : MODE == PP_KEEP_FLAGS ? (KW == 8 ? COMPACT_FLAGS8_MIN_BLOCKS : COMPACT_FLAGS_MIN_BLOCKS)
           : RLE ? (KW == 8 ? COMPACT_RLE8_MIN_BLOCKS : KW == 1 ? COMPACT_RLE1_MIN_BLOCKS : COMPACT_RLE_MIN_BLOCKS)
           : KW != 4               ? COMPACT_OTHER_MIN_BLOCKS
           : MODE == PP_KEEP_PRED  ? COMPACT_PRED_MIN_BLOCKS
                                   : COMPACT_RUN_MIN_BLOCKS;
}
template <bool PERSIST, int MODE, int KW, bool RLE> constexpr int compact_min_blocks()
{
    return compact_min_blocks256<PERSIST, MODE, KW, RLE>() * 256 / COMPACT_THREADS > 0
               ? compact_min_blocks256<PERSIST, MODE, KW, RLE>() * 256 / COMPACT_THREADS
               : 1;
}

/* ---- look-back sleeps and kernel variants (per target, at run time) ----
 * The carry is a count (the chain of lookback.h). sm_90 / sm_80: the scan's chain sleeps for
 * blocks that do not load ahead (tuning_scan.h: 1500 ns before the first poll, 700 between
 * polls; measured there on the H100 for u32 scans, not for compaction). AMD: none (not
 * measured: no AMD GPU here). The variants (PP_OPTION_COMPACT_PUBLISH / _BLOCKS / _PARTITION
 * override them): when the tile's count is published and the outputs staged (1: every wave
 * stages, then wave 0 publishes as it looks back; 2: the same, the count published by wave 0
 * before its look-back starts; 3: wave 0 publishes and looks back while the other waves
 * stage), the blocks (1 one per tile by ticket, 2 persistent, loading the next tile ahead, 3
 * one per tile by block index), partition's rejected elements (1 reversed by a second
 * kernel, 2 a count pass first). The first row of a platform is its fallback.
 * sm_90, measured on an H100 80GB HBM3 (2026-11-26, 2^28 f32, bench/NOTES.md "compaction:
 * the variants" for the first kernel, "compaction: third session" for the staging kernel,
 * abef101): the publish variants, blocks 3 and the sleeps stay within noise of each other,
 * except no delay: 1% kept 518.3 us (publish 1) / 517.4 (2) / 519.3 (3) / 512.7 (blocks 3);
 * flagged 717.2 / 716.7 / 713.5 / 712.1; delay 0, pause 100 ns: 533.9 and 746.1 (3-4% slower:
 * more polls): publish 1, blocks 1 and the scan's sleeps stay. partition_if: the count pass
 * 1.277 ms, the reverse kernel 1.612 ms: partition 2. Where every tile has a CU (tiles <=
 * CUs: n = 2^16 f32 is 16 tiles) no tile waits long: delay 0, pause 100 ns; the latency row
 * (select flagged, n = 2^16) went 8.88 -> 8.06 us with those options on a0218cb, and 8.47 ->
 * 7.30 us with the staging kernel (CUB 3.0.1: 7.95 us, same process). sm_80 and AMD: the first
 * version's (1, 1, 1), not measured. */
struct pp_compact_tuning {
    const char *target;   /* as pp_hip_device::arch names it */
    unsigned pause_ns;    /* between two polls */
    unsigned delay_ns;    /* before the first poll */
    int publish;          /* 1 .. 3 */
    int blocks;           /* 1 .. 3 */
    int partition;        /* 1 .. 2 */
    unsigned small_pause_ns, small_delay_ns; /* the sleeps where every tile has a CU (tiles <= CUs) */
};

static const pp_compact_tuning pp_compact_tuning_table[] = {
    /* target    pause  delay  publish blocks partition small: pause delay */
    {"sm_90", 700, 1500, 1, 1, 2, 100, 0},
    {"sm_80", 700, 1500, 1, 1, 1, 700, 1500},
    {"gfx90a", 0, 0, 1, 1, 1, 0, 0},
    {"gfx940", 0, 0, 1, 1, 1, 0, 0},
    {"gfx1030", 0, 0, 1, 1, 1, 0, 0},
};

/* The row for the context's device. */
static inline const pp_compact_tuning *pp_compact_tuning_for(const pp_hip_device *d)
{
    return pp_hip_tuning_pick(pp_compact_tuning_table, d);
}

#endif /* PP_HIP_TUNING_COMPACTION_H */
