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
 * 256 threads; 16 elements per thread for 1- and 4-byte elements (4096 per tile), 8 for 8-byte
 * ones (2048): a tile's input stays in shared memory (16 KB) until its kept elements are
 * written, with 2 bytes per element for the positions of the kept ones, and the payload's
 * staging (dynamic, 0 .. 32 KB). Every target the same (first version; not measured against
 * other shapes: no device time for a sweep). The block's wave totals are scanned by one
 * wave, so a block has at most PP_WAVE waves (256 threads: 8 waves of 32 or 4 of 64). */
#define COMPACT_THREADS 256
template <int KW> struct compact_shape {
    static constexpr int threads = COMPACT_THREADS;
    static constexpr int items = KW == 8 ? 8 : 16;
    static constexpr int tile = threads * items;
};

/* Blocks per compute unit the registers are capped for (__launch_bounds__'s second argument),
 * NVIDIA only (ptxas of CUDA 13, sm_90, 256 threads). One tile per block: 8 for predicates and
 * run heads (32 registers, the first version's occupancy; the 4-byte run-head kernel spills 8
 * bytes there, and 7 blocks round to the same 32 registers), 5 for flags (48; at 8 they
 * spilled 28 bytes); without a cap the variants' code (below) took the kernels from the first
 * version's 32-48 registers to 47-56. Persistent blocks (PP_OPTION_COMPACT_BLOCKS 2): 4 (44-56
 * registers; uncapped, the loop took 80-108): two input buffers and the positions list are
 * 40 KB of shared memory for 4-byte elements, 5 blocks in the H100's 228 KB anyway.
 * AMD: the first version's kernel only (publish 1, one tile per block: the options are ignored
 * there, and the plan says so), no cap: the early publication cost gfx90a / gfx940 4-12 SGPR
 * spills, the persistent loop 100-148 VGPRs and 50-70 SGPR spills, and there is no AMD device
 * to measure whether either pays. */
#ifdef PP_PORT_NVIDIA
#define COMPACT_VARIANTS_BUILT 1
#define COMPACT_PRED_MIN_BLOCKS 8
#define COMPACT_RUN_MIN_BLOCKS 8
#define COMPACT_FLAGS_MIN_BLOCKS 8
#define COMPACT_FLAGS8_MIN_BLOCKS 5
#define COMPACT_OTHER_MIN_BLOCKS 6
#define COMPACT_PERSIST_MIN_BLOCKS 4
#else
#define COMPACT_VARIANTS_BUILT 0
#define COMPACT_PRED_MIN_BLOCKS 1
#define COMPACT_RUN_MIN_BLOCKS 1
#define COMPACT_FLAGS_MIN_BLOCKS 1
#define COMPACT_FLAGS8_MIN_BLOCKS 1
#define COMPACT_OTHER_MIN_BLOCKS 1
#define COMPACT_PERSIST_MIN_BLOCKS 1
#endif
template <bool PERSIST, int MODE, int KW> constexpr int compact_min_blocks()
{
    return PERSIST                  ? COMPACT_PERSIST_MIN_BLOCKS
           : MODE == PP_KEEP_FLAGS ? (KW == 8 ? COMPACT_FLAGS8_MIN_BLOCKS : COMPACT_FLAGS_MIN_BLOCKS)
           : KW != 4               ? COMPACT_OTHER_MIN_BLOCKS
           : MODE == PP_KEEP_PRED  ? COMPACT_PRED_MIN_BLOCKS
                                   : COMPACT_RUN_MIN_BLOCKS;
}

/* ---- look-back sleeps and kernel variants (per target, at run time) ----
 * The carry is a count (the chain of lookback.h). sm_90 / sm_80: the scan's chain sleeps for
 * blocks that do not load ahead (tuning_scan.h: 1500 ns before the first poll, 700 between
 * polls; measured there on the H100 for u32 scans, not for compaction). AMD: none (not
 * measured: no AMD GPU here). The variants (PP_OPTION_COMPACT_PUBLISH / _BLOCKS / _PARTITION
 * override them): when the tile's count is published (1 after the staging, 2 after the block
 * scan, 3 after the block scan with the look-back before the staging), the blocks (1 one per
 * tile by ticket, 2 persistent, loading the next tile ahead, 3 one per tile by block index), partition's rejected elements (1 reversed
 * by a second kernel, 2 a count pass first). The first row of a platform is its fallback.
 * sm_90, measured on an H100 (2026-11-26, one device call, 2^28 f32, 20 repetitions each,
 * bench/NOTES.md "compaction: the variants"): compact_select_if_lt1 (1% kept) ran 816-827 us
 * with every publish variant (1: 826.5, 2: 821.7, 3: 822.7) and every sleep tried (delay /
 * pause 0/0: 819.4, 0/100: 816.6, 300/100: 816.1, table 1500/700: 821.7), all within the
 * runs' noise: publish 1 and the scan's sleeps stay; persistent blocks ran 1.03-1.14 ms (25%
 * slower): blocks 1; partition_if with the count pass 1.943 ms against 2.182 with the reverse
 * kernel (both persistent, publish 2, 0/100): partition 2. Blocks 3 (tiles by block index)
 * not measured yet. sm_80 and AMD: the first version's (1, 1, 1), not measured. */
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
