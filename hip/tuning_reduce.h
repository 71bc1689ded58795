/*
 * tuning_reduce.h -- the reduce family's tuning table (hip/reduce.hip): one row per target,
 * the measurement beside each number, chosen from the context's device (pp_hip_state::dev) on
 * the context's first reduce call, never from a macro of the host pass. Host-side; included
 * by common.h (pp_hip_state holds the chosen row).
 *
 * sm_90 was measured on the H100 (bench/NOTES.md "reduce"); every other row is not measured
 * and repeats sm_90's numbers (grid sizes relative to the device's own CU count and
 * occupancy, so they remain valid plans).
 */
#ifndef PP_HIP_TUNING_REDUCE_H
#define PP_HIP_TUNING_REDUCE_H

#include <string.h>

struct pp_reduce_tuning {
    /* reduce grid = CUs x resident blocks per CU x this. sm_90, f32 sum 2^28 (2026-11-23):
     * 1 -> 376.9 us, 2 -> 356.3 / 354.5 us (CUB 354.3), 4 -> 364.0 us. */
    int grid_waves;
    /* A block's run of tiles is at most this long (its floats combine pairwise over up to
     * 2^8 levels, then sequentially). sm_90: not a speed knob at 2^28 (2 waves of blocks give
     * every block about 16 tiles); 256 keeps the error bound's term small. */
    int max_tiles_per_block;
    /* Persistent grid of the long-segment kernels, blocks per CU. sm_90: 64 segments of 2^22
     * f32 in 396 us (2.70 TB/s, 2.5x CUB) with 8. */
    int seg_blocks_per_cu;
};

/* ---- compile time (per device pass) ----
 * seg_finish's resident blocks per SM for the accumulators of 8-byte floats (reduce.hip,
 * seg_finish_min_blocks), whose 16 pairwise levels of chunk partials take 32 registers.
 * NVIDIA: 3. Without a bound, ptxas (CUDA 13, sm_90 and sm_80) gave the f64 sums and products
 * and the f32 -> f64 sums 64 registers and spilled 32 bytes (stores and loads) in each of
 * their 9 kernels; with 3 (at most 80 registers) they take 56-60 and spill nothing, and 4
 * blocks of 256 threads still fit an SM, as at 64 registers. f64 min / max, 80 registers
 * either way, are unchanged. AMD: 0, no bound (the form without one: hipcc's attributes are
 * the same), as before. */
#if defined(PP_PORT_NVIDIA)
#define REDUCE_SEG_FINISH_MIN_BLOCKS_WIDE 3
#else
#define REDUCE_SEG_FINISH_MIN_BLOCKS_WIDE 0
#endif

/* Before the first reduce call of a context (backend.hip sets it at creation): grid_waves 0
 * means "not chosen yet"; reduce.hip then takes the device's row below. */
static const pp_reduce_tuning pp_reduce_tune_default = {0, 0, 0};

static const pp_reduce_tuning pp_reduce_tune_sm90 = {2, 256, 8};  /* H100, measured above */
static const pp_reduce_tuning pp_reduce_tune_sm80 = {2, 256, 8};  /* not measured: sm_90's row */
static const pp_reduce_tuning pp_reduce_tune_gfx9 = {2, 256, 8};  /* gfx90a / gfx940: not measured */
static const pp_reduce_tuning pp_reduce_tune_gfx10 = {2, 256, 8}; /* gfx1030: not measured */

/* The row of a device: NVIDIA by compute capability, AMD by architecture family. */
static inline pp_reduce_tuning pp_reduce_tuning_for(int cc_major, const char *arch)
{
    if (cc_major >= 9) return pp_reduce_tune_sm90;
    if (cc_major > 0) return pp_reduce_tune_sm80;
    if (!strncmp(arch, "gfx9", 4)) return pp_reduce_tune_gfx9;
    if (!strncmp(arch, "gfx1", 4)) return pp_reduce_tune_gfx10;
    return pp_reduce_tune_sm90;
}

#endif
