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
 * time, below), walked sat_rs_chunk rows at a time: each lane keeps a chunk of its run in
 * registers and nothing of the wave is shared with another wave (no barrier, no shared memory).
 * Chunk rows and the register cap (blocks per SM / CU), by the input's size, H100 80GB HBM3
 * (2026-11-26 ~17:00 UTC, commit 0d46800 with tuning_sat.h edited per variant, 16384 x 16384,
 * ms for f32 -> f32 / u8 -> u32; copy row 717-724 us): chunk 8 uncapped (f32: 105 / 118
 * registers in the two tile kernels, 2 blocks an SM) 1.198 / 1.492; chunk 4 uncapped 1.189 /
 * 1.269; chunk 4 capped at 4 blocks 1.300 / 1.092; chunk 8 capped at 3 blocks 1.532 / 2.244.
 * ncu of chunk 8 (f32): the sums kernel 370 us at 88% of DRAM bandwidth, the table kernel 754
 * us at 85%, the scans of the sums 40 + 22 us: the f32 table moves what it must at close to the
 * card's speed; the u8 one is far from it (4-byte loads a lane: latency). Chunk 8, uncapped,
 * for 4-byte inputs into 4-byte sums; 8-byte inputs or sums: chunk 4, uncapped (not measured:
 * chunk 8 took 135-202 registers there, one block an SM for f64). The next chunk's loads are
 * issued before the current one is summed (SAT_RS_PREFETCH 1): 1.198 / 1.492 against 1.192 /
 * 1.482 with 0, no difference.
 * 1-byte inputs, 4 blocks an SM: their rows kept packed (sat.hip, rs_raw) and made into sums a
 * row at a time, so a chunk of 8 rows fits the 64 registers (rs_table u8 -> u32: 56, no spill;
 * it had 64 and 26-32 bytes of spills at chunk 4 unpacked; rs_sums 63, no spill, since its rows
 * are reduced over the wave at once, pp_wave_reduce_many: 64 and a 16-byte spill before).
 * H100 80GB HBM3 (2026-11-26 ~23:00 UTC, seventh session's call 4, three builds in one call,
 * 16384 x 16384 u8 -> u32, two rounds; copy row 716-721 us): unpacked chunk 4 (0d46800's
 * tuning) 1.094 / 1.090 ms, packed chunk 4 775.8 / 777.2 us, packed chunk 8 738.3 / 738.1 us;
 * f32 1.192 / 1.193 ms in every build. ncu (u8 -> u32): sums 361 -> 211 us (DRAM 23% -> 40%, SM
 * 53% -> 73%), table 745 -> 516 us (DRAM 58% -> 77%). The rows reduced at once (call 5, same
 * call as b3310c9): 737.1 / 741.9 -> 724.2 / 722.6 us; f32 1.190 / 1.197 ms. */
#define SAT_RS_ITEMS 4
#define SAT_RS_THREADS 256
/* rs_carries' loads in flight a thread: a group of this many sums is read before any of it is
 * written back (its threads walk 128 tile columns (H) or 64 bands (V, U) at 16384 x 16384).
 * 8 took a round trip for every 8 tile columns; 16: rs_carries 18.3-20.1 us (ncu, H100, 16384 x
 * 16384 u8 -> u32, 2026-11-27, b7f5fcc), latency bound (32768 threads, about one block an SM).
 * 32 against 16, H100 80GB HBM3, 2026-11-27: call 1 (b7f5fcc; separate processes) u8 -> u32
 * 640.2 / 641.3 -> 631.8 us, but call 2 (8cc3283, alternating processes, two rounds) 16384^2
 * u8 -> u32 631.0 / 631.7 us with 16 against 631.5 / 635.2 with 32, f32 1.149 / 1.151 against
 * 1.151 / 1.149 ms, 1920 x 1080 u8 -> u32 16.09 / 16.02 against 16.48 / 16.71 us: no gain, 16. */
#define SAT_RS_CARRY_LOADS 16
#define SAT_RS_PREFETCH 1 /* rs_table's; rs_sums reloads each row's slot once it is summed */
template <typename In, typename A> constexpr int sat_rs_chunk() { return (sizeof(In) == 4 || sizeof(In) == 1) && sizeof(A) == 4 ? 8 : 4; }
/* rs_sums' chunk, where it differs: 16 rows for 1-byte inputs into 4-byte sums. Why: rs_sums
 * u8 -> u32 ran at 40% of DRAM bandwidth (ncu, call 4) with 8 rows of 128 bytes a wave in
 * flight: 32 waves an SM x 1 KB, one chunk's loads a loop iteration, 3.3 us an iteration (211
 * us for 32 iterations of each of two rounds of waves), so about 10 GB/s an SM; the f32 sums
 * keep 4 KB a wave in flight and run at 88%. The table kernel keeps 8 (its stores keep it at
 * 77%, and 16 rows there cost registers it does not have at 4 blocks an SM). */
#if defined(PP_PORT_AMD)
/* AMD: the table's chunk (16 rows took rs_sums u8 -> u32 to 128 VGPRs and 228-248 bytes of
 * scratch on gfx90a / gfx940, 184 VGPRs on gfx1030; compiled, never run) */
template <typename In, typename A> constexpr int sat_rs_sums_chunk() { return sat_rs_chunk<In, A>(); }
#else
template <typename In, typename A> constexpr int sat_rs_sums_chunk()
{
    return sizeof(In) == 1 && sizeof(A) == 4 ? 16 : sat_rs_chunk<In, A>();
}
#endif
#define SAT_RS_MIN_BLOCKS(IB) ((IB) == 1 ? 4 : 1)
/* The bands' heights are powers of two from this (a multiple of every chunk). */
#define SAT_RS_BAND_MIN 16

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
    int auto_strategy;        /* pp_sat_strategy, not AUTO: for tables of at least auto_min elements */
    uint64_t auto_min;        /* smaller tables: the one-pass form */
    unsigned rs_waves_per_cu; /* reduce-then-scan: wave tiles per compute unit the bands aim at */
};

/* Sleeps not measured on any target yet: the shortest back-off and no delay everywhere.
 * AUTO on sm_90: reduce-then-scan at every size. H100 80GB HBM3, 2026-11-27 ~10:05 UTC, commit
 * 8cc3283 (three launches), us per call for square images (bench --only sat_square --n N, f32 ->
 * f32 / u8 -> u32), one-pass form against reduce-then-scan: 128^2 15.2 / 15.7 against 13.7 /
 * 12.9; 256^2 17.5 / 17.3 against 14.1 / 13.4; 512^2 19.1 / 19.3 against 14.7 / 13.9; 1024^2
 * 24.3 / 24.4 against 15.9 / 15.3; 1448^2 27.8 / 27.8 against 20.6 / 18.5; 1920 x 1080 26.1 /
 * 26.3 against 17.6 / 16.6; 2048^2 39.5 / 34.9 against 23.5 / 20.7; 4096^2 128.2 / 121.3
 * against 99.5 / 58.5; tall 16384 x 64: 100.5 / 100.4 against 43.6 / 43.0; 16384 x 256 108.9 /
 * 101.8 against 57.3 / 55.8. (With four launches, 2026-11-26, commit 0d46800, 1920 x 1080 had
 * the one-pass form ahead: 24.6 / 26.5 against 25.6 / 26.0 us, and AUTO switched at 2^22.)
 * sm_80 follows sm_90 (not measured); AMD keeps the one-pass form (not measured: no AMD GPU
 * here). The first row of a platform is its fallback. */
static const pp_sat_tuning pp_sat_tuning_table[] = {
    /* target  pause delay  AUTO runs                   from          waves/CU */
    {"sm_90", 0, 0, PP_SAT_STRATEGY_REDUCE_SCAN, 0, 64},
    {"sm_80", 0, 0, PP_SAT_STRATEGY_REDUCE_SCAN, 0, 64},
    {"gfx90a", 0, 0, PP_SAT_STRATEGY_ONE_PASS, 0, 64},
    {"gfx940", 0, 0, PP_SAT_STRATEGY_ONE_PASS, 0, 64},
    {"gfx1030", 0, 0, PP_SAT_STRATEGY_ONE_PASS, 0, 64},
};

/* The row for the context's device (as tuning_scan.h picks its rows). */
static inline const pp_sat_tuning *pp_sat_tuning_for(const pp_hip_device *d)
{
    return pp_hip_tuning_pick(pp_sat_tuning_table, d);
}

#endif /* PP_HIP_TUNING_SAT_H */
