/*
 * tuning_histogram.h -- the histogram family's tuning table (hip/histogram.hip): one row per
 * target, the measurement beside each number, chosen per call from the context's device
 * (pp_hip_state::dev), never from a macro of the host pass. Host-side.
 *
 * sm_90 rows were measured on the H100 (f32, n = 2^28, uniform in [-1, 1) unless said; rows
 * hist_even_<bins>@<strategy> of `parprim-bench --only hist`, bench/NOTES.md "histogram"),
 * the guide table and the skew check on an H200 (sm_90 as well; its CUB in the same run).
 * Every other row is not measured: it repeats sm_90's numbers, which are ratios of the
 * device's own shared memory and CU count, so they stay valid plans (never wrong results)
 * until someone measures that target.
 */
#ifndef PP_HIP_TUNING_HISTOGRAM_H
#define PP_HIP_TUNING_HISTOGRAM_H

#include <string.h>

#include "common.h"

struct pp_hist_tuning {
    /* n < sparse_ratio * nbins: GLOBAL. A SHARED block zeroes and merges its whole table, so
     * with fewer samples than bins the atomics straight into the counts are fewer.
     * sm_90: predicted, not measured (the bench has no sparse row). */
    double sparse_ratio;
    /* Shared memory per block spent on copies of a small table. sm_90: 256 bins with 32
     * copies 369 us, with 8 or 1 copy 588 us (CUB 369 us); 4096 bins with 1, 2 or 4 copies
     * within 1% (515-596 us over the runs), 8 copies (128 KiB, 1 block/SM) 915-966 us. */
    uint32_t copy_bytes;
    /* Splitting bins across blocks: a range takes at most 1/this of an SM's shared memory.
     * sm_90, 65536 bins: 2 ranges of 32768 bins (1 block/SM) 1.437 ms, 3 of 21846 (2 blocks/SM)
     * 1.670 ms, 4 of 16384 2.207-2.270 ms, 8 of 8192 4.38-5.84 ms: the largest range wins. */
    uint32_t split_blocks_per_sm;
    /* At most this many ranges; more: GLOBAL (each range re-reads and re-bins every sample).
     * sm_90, 65536 bins: 4 ranges 2.27 ms, 8 ranges 4.44 ms, GLOBAL 3.89 ms; 2^20 bins (19
     * ranges of 55189) SHARED 14.2-21.3 ms, GLOBAL 3.16 ms. */
    uint32_t max_ranges;
    /* Use CLUSTER automatically above this many bins (0: never). sm_90: never the fastest:
     * 65536 bins K = 2 1.670 ms (SHARED 1.437 ms), 2^20 bins K = 16 3.81 ms (GLOBAL 3.16 ms);
     * all samples in one bin slower still (2^20: K = 16 1.78-2.04 ms, GLOBAL 0.50 ms). */
    uint64_t cluster_min_bins;
    /* Default K when CLUSTER is forced. sm_90: the fastest K at 2^20 bins (3.81 ms). */
    uint32_t cluster_size;
    /* Range histograms in shared memory: cells of the guide table per bin (0: plain binary
     * search over the range's edges). A sample's cell bounds its bin to the few edges the cell
     * spans. sm_90, measured on an H200 (2026-11-26, hist_range_4096: f32, 4097 quadratic
     * edges, CUB 3.0.1 4.64-4.66 ms in the same run): 2 cells 1.076 ms, 4 cells 0.972-0.975 ms,
     * 8 cells 0.982 ms; the plain search 6.54-6.56 ms (the H100's 6.53 ms before). */
    uint32_t guide_cells_per_bin;
    /* Multi-range SHARED plans check for skew first: a one-block kernel bins skew_groups
     * groups of PP_WAVE consecutive samples spread over the input, and if at least
     * skew_uniform_per_64 / 64 of the groups fall wholly into one bin, GLOBAL (whose wave
     * aggregation adds one atomic per such group) runs instead. 0 groups: never.
     * sm_90 (H100, 2026-11-23): all samples in one of 65536 bins took 1.19 ms under SHARED
     * (2 ranges, each re-reading the samples; CUB 0.76 ms); uniform data 1.437 ms (SHARED)
     * against 3.89 ms (GLOBAL). H200 (2026-11-26): the all-in-one-bin row forced to GLOBAL
     * 0.39 ms, to SHARED 1.17 ms. With the check (H200, 2026-11-26, CUB
     * 3.0.1 in the same run): hist_even_65536_skew 1.167-1.171 ms -> 0.398-0.402 ms (CUB
     * 0.69-0.74 ms), hist_even_65536 1.421-1.422 -> 1.428-1.439 ms (the check and the empty
     * grid). 128 groups and 56 / 64 not swept: both rows are all or nothing. */
    uint32_t skew_groups;
    uint32_t skew_uniform_per_64;
};

/* A tuning build (bench only, as CUB's TUNE_* macros) may set sm_90's guide cells per bin. */
#ifndef PP_TUNE_HIST_GUIDE_CELLS
#define PP_TUNE_HIST_GUIDE_CELLS 4
#endif

/* sm_90: H100, measured as above (2026-11-23). */
static const pp_hist_tuning pp_hist_tune_sm90 = {0.5, 32u << 10, 1, 4, 0, 16, PP_TUNE_HIST_GUIDE_CELLS, 128, 56};
/* sm_80 (A100: 164 KiB of shared memory per SM, no clusters): not measured; sm_90's row. */
static const pp_hist_tuning pp_hist_tune_sm80 = {0.5, 32u << 10, 1, 4, 0, 16, 4, 128, 56};
/* gfx90a / gfx940 (64 KiB of LDS per CU, wave64): not measured; sm_90's row. */
static const pp_hist_tuning pp_hist_tune_gfx9 = {0.5, 32u << 10, 1, 4, 0, 16, 4, 128, 56};
/* gfx1030 (RDNA2, wave32): not measured; sm_90's row. */
static const pp_hist_tuning pp_hist_tune_gfx10 = {0.5, 32u << 10, 1, 4, 0, 16, 4, 128, 56};

/* The row of the context's device: NVIDIA by compute capability (sm_90 and newer take the
 * H100's row, older ones sm_80's), AMD by architecture family. */
static inline const pp_hist_tuning &pp_hist_tuning_for(const pp_hip_device &d)
{
    if (d.cc_major >= 9) return pp_hist_tune_sm90;
    if (d.cc_major > 0) return pp_hist_tune_sm80;
    if (!strncmp(d.arch, "gfx9", 4)) return pp_hist_tune_gfx9;
    if (!strncmp(d.arch, "gfx1", 4)) return pp_hist_tune_gfx10;
    return pp_hist_tune_sm90;
}

#endif
