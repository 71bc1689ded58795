/*
 * tuning_sat.h -- the 2-D family's tuning (hip/sat.hip, issue 21), as data: the tile shapes of
 * each device pass (compile time: they size registers and shared memory; host and device
 * passes agree, nothing here depends on the pass's wave width) and the look-back's sleeps of
 * each target (run time, chosen from the device present, pp_hip_device). Every number says
 * where it was measured, or that it was not.
 */
#ifndef PP_HIP_TUNING_SAT_H
#define PP_HIP_TUNING_SAT_H

#include <string.h>

#include "common.h"

/* ---- tiles of the scans and the table (compile time) ----
 * A tile is SAT_ROWS(A) rows x SAT_THREADS * SAT_ITEMS columns; thread i of the block holds
 * columns [i * ITEMS, (i + 1) * ITEMS) of every row of the tile in registers (ROWS x ITEMS
 * accumulators, plus ROWS lane prefixes), so ROWS x ITEMS is what the register file allows:
 * 4-byte accumulators 32 x 2 (tiles of 32 x 512), 8-byte ones 16 x 2 (16 x 512). Taller tiles
 * mean fewer column carries per element (two state entries per column and tile: 2 / ROWS
 * entries an element) and shorter chains down the image. Chosen, not measured: the first
 * shapes that fit 2 blocks of 256 threads per SM on sm_90 (ptxas: 128 registers, no spills
 * for 4-byte accumulators, 24-68 bytes for some 8-byte ones). AMD: below. */
#define SAT_THREADS 256
#define SAT_ITEMS 2
#define SAT_MIN_BLOCKS 2
/* AMD: 16 rows for every width (with 32, the 32 unrolled rows' addresses spilled SGPRs on
 * gfx90a / gfx940: 58-62 of them; compiled, never run). Host and device passes agree: the
 * platform, not the pass, decides. */
#if defined(PP_PORT_AMD)
template <typename A> constexpr int sat_rows() { return 16; }
#else
template <typename A> constexpr int sat_rows() { return sizeof(A) <= 4 ? 32 : 16; }
#endif
constexpr int SAT_TILE_COLS = SAT_THREADS * SAT_ITEMS;

/* The transpose: tiles of TRANSPOSE_TILE x TRANSPOSE_TILE elements (1-byte elements: twice
 * that, so that a row of a tile is 128 bytes) through shared memory, a block of
 * TRANSPOSE_THREADS threads; whole tiles of 4- and 1-byte elements move in vectors of 4
 * elements (sat.hip). H100 80GB HBM3, 16384 x 16384, one call (2026-11-26 11:26 UTC, commit
 * 2965788 against a0218cb's element-by-element tiles, copy row 720.6 us in the same process):
 * f32 908.9 -> 803.0 us (0.79x -> 0.90x copy), u8 529.7 -> 310.5 us (0.34x -> 0.58x). Tile
 * side and threads not varied. */
#define TRANSPOSE_TILE 64
#define TRANSPOSE_THREADS 256

/* ---- the table by reduce, then scan (PP_SAT_STRATEGY_REDUCE_SCAN; compile time) ----
 * A wave owns a tile of SAT_RS_ITEMS x PP_WAVE columns (128 on a wave of 32, 256 on one of 64:
 * a lane's run of 4 elements, 16-byte accesses for 4-byte elements) by a band of rows (run
 * time, below), walked SAT_RS_CHUNK rows at a time: each lane keeps a chunk of its run in
 * registers and nothing of the wave is shared with another wave (no barrier, no shared memory).
 * Not measured against other shapes. */
#define SAT_RS_ITEMS 4
#define SAT_RS_CHUNK 8
#define SAT_RS_THREADS 256
/* 1: the next chunk's loads are issued before the current chunk is summed (and, in the table,
 * stored); 0: after. Blocks per SM / CU the registers are capped for (1: none). */
#define SAT_RS_PREFETCH 1
#define SAT_RS_MIN_BLOCKS 1

/* ---- run-time choices, per target ----
 * pause_ns / delay_ns: the look-back's sleeps (one-pass form and the scans); auto_strategy: the
 * form PP_SAT_STRATEGY_AUTO runs; rs_waves_per_cu: the reduce-then-scan form's band height is
 * the smallest power of two (8 .. 1024 rows) that leaves at most this many wave tiles per
 * compute unit (rows x tile columns / (compute units x this)): tall bands for few column-sum
 * rows, enough tiles for every compute unit. */
struct pp_sat_tuning {
    const char *target;       /* as pp_hip_device::arch names it */
    unsigned pause_ns;        /* between two polls of an entry not yet published (0: pp_spin_pause) */
    unsigned delay_ns;        /* once, before a lane's first poll */
    int auto_strategy;        /* pp_sat_strategy, not AUTO */
    unsigned rs_waves_per_cu; /* reduce-then-scan: wave tiles per compute unit the bands aim at */
};

/* Sleeps not measured on any target yet: the shortest back-off and no delay everywhere.
 * auto_strategy and rs_waves_per_cu: not measured yet (the fifth session's device call compares
 * the forms on the H100). The first row of a platform is its fallback. */
static const pp_sat_tuning pp_sat_tuning_table[] = {
    /* target  pause delay  AUTO runs                   waves/CU */
    {"sm_90", 0, 0, PP_SAT_STRATEGY_REDUCE_SCAN, 64},
    {"sm_80", 0, 0, PP_SAT_STRATEGY_REDUCE_SCAN, 64},
    {"gfx90a", 0, 0, PP_SAT_STRATEGY_ONE_PASS, 64},
    {"gfx940", 0, 0, PP_SAT_STRATEGY_ONE_PASS, 64},
    {"gfx1030", 0, 0, PP_SAT_STRATEGY_ONE_PASS, 64},
};

/* The row for the context's device (as tuning_scan.h picks its rows). */
static inline const pp_sat_tuning *pp_sat_tuning_for(const pp_hip_device *d)
{
    return pp_hip_tuning_pick(pp_sat_tuning_table, d);
}

#endif /* PP_HIP_TUNING_SAT_H */
