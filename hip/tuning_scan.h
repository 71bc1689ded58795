/*
 * tuning_scan.h -- the scan's tuning, as data: the tile shapes of each device pass (compile
 * time: they size registers and shared memory) and the look-back's sleeps of each target (run
 * time: a row chosen from the device present, pp_hip_device). Every number says where it
 * was measured; bench/NOTES.md holds the runs. Tuning builds may override the shapes with
 * -DSCAN_THREADS / -DSCAN_MIN_BLOCKS / -DSCAN_ITEMS4 / -DSCAN_ITEMS4_PLAIN /
 * -DSCAN_MIN_BLOCKS4_PLAIN / -DSCAN_WIDE_ITEMS / -DSCAN_WIDE_MIN_BLOCKS /
 * -DSCAN_WIDE_ITEMS_PLAIN / -DSCAN_WIDE_MIN_BLOCKS_PLAIN / -DSCAN_EARLY=0 (bench builds only;
 * SCAN_THREADS and SCAN_MIN_BLOCKS then apply to every width), and a context may override the
 * sleeps (PP_OPTION_SCAN_DELAY_NS / _PAUSE_NS); none of them changes a result.
 */
#ifndef PP_HIP_TUNING_SCAN_H
#define PP_HIP_TUNING_SCAN_H

#include <string.h>

#include "common.h"

/* ---- what host and device code must agree on ----
 * Whether a block scans tiles one after another (persistent blocks, the grid capped at the
 * blocks that fit), or one tile and stops (a grid of one block per tile). NVIDIA: every device
 * pass loops, with or without asynchronous copies (below sm_80 pp_copy16_async is a plain
 * load and store: the loop is correct, with less overlap), and the host pass says the same,
 * because both derive it from the platform, never from a macro that differs between passes
 * (PP_ASYNC_COPY is 1 in the host pass and 0 in sm_70 / sm_75 device passes: a grid capped
 * by the host while each block scanned one tile would leave tiles unscanned). AMD: one tile
 * per block in every pass (the loop held its state across tiles: on gfx90a it spilled SGPRs,
 * and without asynchronous copies it has nothing to overlap). */
#if defined(PP_PORT_NVIDIA)
#define SCAN_PERSISTENT 1
#define SCAN_NV_SHAPE 1
#else
#define SCAN_PERSISTENT 0
#define SCAN_NV_SHAPE 0
#endif
/* Whether, in persistent blocks, the plain scans load and fold the next tile in one wave while
 * wave 0 looks back for the current one (scan.hip's tile agent). */
#ifndef SCAN_EARLY
#define SCAN_EARLY 1
#endif

/* ---- tile shapes (per device pass) ----
 * Threads per block, elements per thread, and the resident blocks per SM/CU the register
 * allocation must allow (tiles in flight), per input / accumulator width.
 * NVIDIA (chosen on the H100 with bench/sweep_scan_h100.sh; used for every NVIDIA pass, sm_80
 * not measured):
 *   1-byte inputs:           256 x 16 (4096 per tile), 3 blocks (4 fit);
 *   4-byte input and acc.:   plain: 128 x 40 (5120), 5 blocks (96 registers, 40 KB of shared
 *                            memory); f32 at 2^28 833-837 us against 853-861 with 128 x 32
 *                            and 6 blocks, u32 816-823 against 829-832; 128 x 48 with 4
 *                            (dynamic shared memory) 848 / 864-869. With the next tile loaded
 *                            ahead: f32 770-775 us, u32 771-775; 128 x 32 with 6: 776 / 772;
 *                            128 x 48 with 4: 792 / 821.
 *                            Segmented: 128 x 32, 5 blocks (a lane's head flags are one
 *                            32-bit mask; at 6 blocks they spill 96-152 bytes, f32 with head
 *                            flags 1.10 ms against 0.91);
 *   8-byte input or acc.:    plain: 128 x 16 (2048), 6 blocks (80 registers, 32 KB of
 *                            shared memory), the next tile loaded ahead: f64 at 2^28
 *                            1.530-1.532 ms against 1.617-1.641 with 128 x 32 and 3 blocks,
 *                            1.634 with 128 x 12 and 8, 1.675 with 128 x 24 and 4.
 *                            Segmented: 128 x 32 (4096), 3 blocks (64 KB of dynamic shared
 *                            memory each; measured before the loads ahead, plain f64 then ran
 *                            at 1.708-1.710 ms against 1.760-1.764 with 128 x 16 and 6 blocks:
 *                            half the tiles, half the look-backs).
 * Small blocks with many elements each (as CUB's sm_90 tuning has them) keep more tiles
 * loading while others look back: a waiting tile holds its block's slot, and a 128-thread
 * block holds half the registers of a 256-thread one (u32 at 2^28: 256 x 16 1.015 ms,
 * 128 x 24 0.999, 128 x 32 0.902 with the chain's sleeps; f32: 1.03, 1.01, 0.904).
 * AMD (gfx90a, gfx940, gfx1030; compiled, never run here): 256 x 16 / 256 x 8, 3 blocks, the
 * shape that compiles without spills on all three (128 threads with 6 blocks caps the VGPRs
 * at 80 and spills). The wave totals of a block are scanned by one wave, so a block has at
 * most PP_WAVE waves. */
#ifndef SCAN_ITEMS4
#define SCAN_ITEMS4 (SCAN_NV_SHAPE ? 32 : 16)
#endif
#ifndef SCAN_ITEMS4_PLAIN
#define SCAN_ITEMS4_PLAIN (SCAN_NV_SHAPE ? 40 : SCAN_ITEMS4)
#endif
#ifndef SCAN_MIN_BLOCKS4_PLAIN
#define SCAN_MIN_BLOCKS4_PLAIN 5
#endif
#ifndef SCAN_WIDE_ITEMS
#define SCAN_WIDE_ITEMS (SCAN_NV_SHAPE ? 32 : 8)
#endif
#ifndef SCAN_WIDE_MIN_BLOCKS
#define SCAN_WIDE_MIN_BLOCKS 3
#endif
#ifndef SCAN_WIDE_ITEMS_PLAIN
#define SCAN_WIDE_ITEMS_PLAIN (SCAN_NV_SHAPE && SCAN_EARLY ? 16 : SCAN_WIDE_ITEMS)
#endif
#ifndef SCAN_WIDE_MIN_BLOCKS_PLAIN
#define SCAN_WIDE_MIN_BLOCKS_PLAIN (SCAN_NV_SHAPE && SCAN_EARLY ? 6 : SCAN_WIDE_MIN_BLOCKS)
#endif

template <typename In, typename A, bool SEG> struct scan_shape {
    static constexpr int cls = sizeof(In) == 1 ? 1 : (sizeof(In) == 8 || sizeof(A) == 8) ? 8 : 4;
#ifdef SCAN_THREADS
    static constexpr int threads = SCAN_THREADS;
#else
    static constexpr int threads = cls == 1 || !SCAN_NV_SHAPE ? 256 : 128;
#endif
#ifdef SCAN_MIN_BLOCKS
    static constexpr int min_blocks = SCAN_MIN_BLOCKS;
#else
    static constexpr int min_blocks = cls == 1 || !SCAN_NV_SHAPE ? 3
                                      : cls == 4             ? (SEG ? 5 : SCAN_MIN_BLOCKS4_PLAIN)
                                                             : (SEG ? SCAN_WIDE_MIN_BLOCKS : SCAN_WIDE_MIN_BLOCKS_PLAIN);
#endif
    static constexpr int items = cls == 1 ? 16
                                 : cls == 8 ? (SEG ? SCAN_WIDE_ITEMS : SCAN_WIDE_ITEMS_PLAIN)
                                            : (SEG ? SCAN_ITEMS4 : SCAN_ITEMS4_PLAIN);
    static_assert(!SEG || items <= 32, "a lane's head flags are one 32-bit mask");
    static constexpr int waves = threads / PP_WAVE;
    static_assert(threads % PP_WAVE == 0 && waves <= PP_WAVE, "the wave totals fit one wave");
};

/* ---- look-back sleeps (per target, at run time) ----
 * The chain sleeps as CUB's sm_90 look-back does: once before its first poll, and between
 * polls, so that waiting tiles do not crowd the L2 with polls of the state words their
 * predecessors are about to write (H100, u32 at 2^28: no sleeps 1.020 ms, 1000 / 500 ns 0.941,
 * 1500 / 700 ns 0.902, 2000 / 1000 ns no better). The tree, whose reads are mostly of nodes
 * published long before, was best without sleeps between polls (f32 0.904, 0.907, 0.919 ms),
 * and a little faster with 2000 ns before its first (H100, 2^28, f32 0.889 ms against
 * 0.901-0.908, f64 1.860 ms against 1.896-1.900). With the tiles of 5120 that blocks scan one
 * after another, 4-byte trees wait 3000 ns (f32 828-829 us against 833-837 at 2000; 4000 no
 * better at 128 x 32) and 8-byte trees keep 2000 (f64 1.709-1.717 ms against 1.741-1.749 at
 * 3000 and 4000). Where the next tile is loaded and published ahead (the plain scans),
 * predecessors have mostly published by the time a tile looks back: the tree waits 1000 ns
 * (f64, 128 x 32 tiles: 1.623-1.627 ms at 0, 500 and 1000 against 1.638-1.641 at 2000; f32 flat,
 * 769-776 us from 0 to 3000) and the chain none (u8 -> u64 907 us against 950 at 1500, u32
 * flat). */
struct pp_scan_tuning {
    const char *target;          /* the row's target, as pp_hip_device::arch names it */
    unsigned chain_pause_ns;     /* chain: between polls */
    unsigned tree_pause_ns;      /* tree: between polls */
    unsigned chain_delay_ns;     /* chain, blocks that do not load ahead: before the first poll */
    unsigned tree_delay4_ns;     /* tree, 4-byte carries, no loads ahead */
    unsigned tree_delay8_ns;     /* tree, 8-byte carries, no loads ahead */
    unsigned ahead_chain_delay_ns; /* chain where the next tile is loaded ahead */
    unsigned ahead_tree_delay_ns;  /* tree where the next tile is loaded ahead */
};

/* sm_90: measured on the H100 (above). sm_80 (and older NVIDIA devices): the H100's numbers,
 * not measured on an A100. AMD: no sleeps (s_sleep is coarse; not measured: no AMD GPU here).
 * The first row of a platform is its fallback. */
static const pp_scan_tuning pp_scan_tuning_table[] = {
    /* target    chain/tree pause  chain  tree4  tree8  ahead chain/tree delay */
    {"sm_90", 700, 0, 1500, 3000, 2000, 0, 1000},
    {"sm_80", 700, 0, 1500, 3000, 2000, 0, 1000},
    {"gfx90a", 0, 0, 0, 0, 0, 0, 0},
    {"gfx940", 0, 0, 0, 0, 0, 0, 0},
    {"gfx1030", 0, 0, 0, 0, 0, 0, 0},
};

/* The row for the context's device: NVIDIA by compute capability (sm_90 from 9.0 on, sm_80
 * below), AMD by the architecture's name (gfx94x -> gfx940, other gfx9 -> gfx90a, gfx10 and
 * later -> gfx1030). */
static inline const pp_scan_tuning *pp_scan_tuning_for(const pp_hip_device *d)
{
    return pp_hip_tuning_pick(pp_scan_tuning_table, d);
}

#endif /* PP_HIP_TUNING_SCAN_H */
