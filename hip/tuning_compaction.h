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
 * wave, so a block has at most PP_WAVE waves (256 / 32 = 8). */
#define COMPACT_THREADS 256
template <int KW> struct compact_shape {
    static constexpr int threads = COMPACT_THREADS;
    static constexpr int items = KW == 8 ? 8 : 16;
    static constexpr int tile = threads * items;
};

/* ---- look-back sleeps (per target, at run time) ----
 * The carry is a count (the chain of lookback.h). sm_90 / sm_80: the scan's chain sleeps for
 * blocks that do not load ahead (tuning_scan.h: 1500 ns before the first poll, 700 between
 * polls; measured there on the H100 for u32 scans, not for compaction). AMD: none (not
 * measured: no AMD GPU here). The first row of a platform is its fallback. */
struct pp_compact_tuning {
    const char *target;   /* as pp_hip_device::arch names it */
    unsigned pause_ns;    /* between two polls */
    unsigned delay_ns;    /* before the first poll */
};

static const pp_compact_tuning pp_compact_tuning_table[] = {
    /* target    pause  delay */
    {"sm_90", 700, 1500},
    {"sm_80", 700, 1500},
    {"gfx90a", 0, 0},
    {"gfx940", 0, 0},
    {"gfx1030", 0, 0},
};

/* The row for the context's device. */
static inline const pp_compact_tuning *pp_compact_tuning_for(const pp_hip_device *d)
{
    return pp_hip_tuning_pick(pp_compact_tuning_table, d);
}

#endif /* PP_HIP_TUNING_COMPACTION_H */
