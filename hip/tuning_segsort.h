/*
 * tuning_segsort.h -- the segmented sort's tuning (hip/segsort.hip, issue 22), as data: the
 * shapes of its three size classes (compile time: they size registers and shared memory) and one
 * row per target of the run-time class boundary, chosen from the context's device
 * (pp_hip_device), never from a macro of the host pass.
 *
 * Classes, by a segment's length L:
 *   thread   L = SEGSORT_THREAD_MAX = 1: a thread copies the key (and value).
 *   packed   2 <= L <= pack_max (the row's, at most the tile): segments of lengths in
 *            (2^(c-1), 2^c] for c >= SEGSORT_PACK_MIN_LOG (lengths 2 .. 4 in class 2) get 2^c
 *            slots each, TILE / 2^c to a block, which sorts the tile's slots by a bitonic
 *            network of size 2^c (every segment's group on its own, padded with a sentinel).
 *   long     L > pack_max: the segment cut into chunks of the tile, each sorted by the
 *            packed kernel at the tile's class (a block a chunk), then merge passes across
 *            blocks (runs of tile x 2^p merged in pairs, SEGSORT_MERGE_BATCH output tiles a
 *            block).
 * Shapes: SEGSORT_BLOCK 256 threads (a thread per digit of a pass); 16 items per thread (tiles
 * of 4096) where keys and values are at most 4 bytes, 8 (2048) where either is 8 bytes. The
 * packed kernel's shared memory: the tile's slots (64-bit words for stable sorts: 34 KB at
 * 4096 slots), a begin (8 bytes) and a length (2) per segment, TILE / 2^SEGSORT_PACK_MIN_LOG of
 * them: within 48 KB of static shared memory, which is what bounds the smallest class at 2^2
 * (lengths 2 .. 4 share it). Not measured: the class boundaries and shapes of the bitonic
 * version are estimates (the lead's H100 run measures them).
 */
#ifndef PP_HIP_TUNING_SEGSORT_H
#define PP_HIP_TUNING_SEGSORT_H

#include <string.h>

#include "common.h"

#define SEGSORT_BLOCK 256
#define SEGSORT_THREAD_MAX 1
/* log2 of the shortest packed class's bound: segments of 2 .. 4 keys */
#define SEGSORT_PACK_MIN_LOG 2
/* items per thread (tile = SEGSORT_BLOCK x items) for keys of KB bytes and values of VB bytes */
#define SEGSORT_ITEMS(KB, VB) ((KB) > 4 || (VB) > 4 ? 8 : 16)
/* segments a thread per chunk of the two passes over the offsets (segsort_count / _classify),
 * bounded with their loads in flight at once */
#define SEGSORT_CLASSIFY_ITEMS 8

/* Blocks per SM the packed kernel's registers are capped for, by the bytes of its slot word (WB:
 * 4 for integer keys of up to 4 bytes sorted alone). NVIDIA: 4-byte words at 6 blocks (40
 * registers; without a cap ptxas of CUDA 13 for sm_90 chose 45, 5 blocks of 256 threads, the
 * 61% of warps active ncu measured at 2^26 u32 keys, h100-s5call5-a31573d); 8 blocks (32) spilled
 * 16 bytes. 8-byte words stay uncapped (0: ptxas' own choice, 64-80 registers, the same as
 * without the second launch bound; capped for 4 blocks (64) they spilled 4-96 bytes, and a
 * bound of 1 let ptxas take up to 106). AMD: 1, no cap (not measured). Measured on the H100
 * 80GB HBM3 (2026-11-26 ~17:58 UTC, main a5461c2 with this line edited, 2^26 u32 keys alone,
 * bench/results/h100-s5call7-a5461c2-segsort-cap.txt), us for segments of 16 / 112 / 256 / 512 /
 * 1024 / 4096: cap 6: 464.9 / 551.2 / 540.6 / 606.9 / 710.8 / 994.3; no cap: 502.7 / 583.8 / 568.1
 * / 628.5 / 723.3 / 1019; cap 5: 493.8 / 571.5 / 554.5 / 618.9 / 717.3 / 1008; 16384, mixed and
 * pairs at 256 within 1% of each other: 6 stays. */
#if defined(PP_PORT_AMD)
#define SEGSORT_PACK_MIN_BLOCKS(WB) 1
#else
#define SEGSORT_PACK_MIN_BLOCKS(WB) ((WB) == 4 ? 6 : 0)
#endif

/* The packed classes' kernel for 4-byte integer keys sorted alone (PP_OPTION_SEGSORT_PACK_PIPE's
 * values): 1, an item after another (segsort_packed_loop); 2, software-pipelined
 * (segsort_packed_pipe: the next item's table built while an item's keys land by cp.async, the
 * next item's keys and bounds prefetched into L2) with the L2 prefetch for every class; 3 and 4
 * the same without the prefetch, or with it from class SEGSORT_PACK_PREFETCH_LOG up (not
 * measured). Measured on the H100 80GB HBM3 (2026-11-27 ~12:58 UTC, 38f49d4, whose forms 1 / 4
 * are these 1 / 2, alternating processes, two rounds; bench/results/h100-s12-segpack-call1-*),
 * 2^26 u32 keys, us for segments of 16 / 64 / 112 / 256 / 512 / 1024 / 2048 / 4096 / 16384 /
 * mixed: 1: 415.0 / 423.2 / 520.4 / 509.7 / 574.6 / 675.2 / 802.7 / 961.2 / 1490 / 2175; 2:
 * 418.3 / 403.7 / 494.1 / 476.5 / 529.6 / 626.2 / 756.4 / 915.1 / 1435 / 2123 (one round past
 * 112 keys). Lost (bench/NOTES.md, twelfth session): the pipeline with the keys loaded into
 * registers, with the prefetch (16 keys 463.5) and without (408.1, but 500.4 at 256 and 958.8
 * at 4096). 1-byte keys keep 1. AMD: 1 (not measured; the pipeline's copies and prefetches are
 * plain loads and nothing there, and its 37.5 KB of LDS would halve the blocks a CU of 64 KB;
 * 2 compiles with no scratch).
 * Thirteenth session (H100 80GB HBM3, 2026-11-27 ~16:20 UTC, 2210e4f: the pipelined kernel's
 * class found by a cursor; bench/results/h100-s13-call5-*; two rounds alternating, us): forms
 * 2 / 3 / 4 at 16 keys 376.5-377.7 / 327.3-329.4 / 327.4-328.1, 64 361.9-364.2 / 336.9-338.1 /
 * 338.5-339.6, 112 450.5 / 429.2-432.4 / 427.0-428.2, 256 442.5-447.1 / 436.9-438.8 / 436.3-436.5,
 * 1024 607.3-609.6 / 606.5-613.7 / 603.7-605.1, 4096 903.4-908.6 / 900.8-915.1 / 902.5-903.5: the
 * per-segment prefetch (one cp.async.bulk.prefetch a segment: the address made uniform lane by
 * lane, 32 turns a wave; 15% of the stall samples at 16 keys, ncu call 3) costs the short classes
 * and gains nothing from class 9 up; 4 is the default (3 within noise everywhere). */
#if defined(PP_PORT_AMD)
#define SEGSORT_PACK_PIPE 1
#else
#define SEGSORT_PACK_PIPE 4
#endif
#define SEGSORT_PACK_PREFETCH_LOG 9

/* The pipelined kernel's classes 11 and 12 took the network's exchange form (SEGSORT_BN_EXCHANGE_LOG
 * 11, sixteenth and seventeenth sessions: 4096 keys 899 -> 769 us) until the merge form below
 * replaced it (4096: 638 us); its measurements: bench/NOTES.md, "Sixteenth session" and
 * "Seventeenth session". The radix sort's one-tile path keeps that form (tuning_sort.h). */

/* The pipelined kernel's merge form (hip/bitonic.h, pp_bn_merge_form): classes from
 * SEGSORT_BN_MERGE_LOG up (4-byte integer keys sorted alone) sort groups of 2^SEGSORT_BN_MERGE_RUN_LOG
 * slots by the flip form, then merge them in pairs through shared memory, in a kernel of their
 * own (segsort_packed_pipe<.., 0>, capped for SEGSORT_PACK_FIRST_MIN_BLOCKS blocks an SM; none
 * where MERGE_LOG is past the tile: one kernel, the flip form). Measured on the H100 80GB HBM3,
 * 2^26 u32 keys, us, two
 * rounds alternating processes (bench/results/h100-s18-call{1..4}-*), against the exchange form
 * from class 11 in one kernel (5ba18a6):
 *   - one kernel, merge from 11, runs of 2^8 (call 1): 2048 670.5 / 672.0 -> 631.1, 4096 768.7 /
 *     782.9 -> 703.2, but the flip classes slower (256 412 / 417 -> 451, 1024 586 / 592 -> 665):
 *     that kernel spilled 36 bytes at its cap of 40; capped for 5 blocks (48 registers, no
 *     spill), 256 was still 452 (1024: 665).
 *   - two kernels (call 3, 5ba18a6 -> merge from 10 / 9): 1024 599 / 590 -> 551 / 552, 2048 680 /
 *     670 -> 619 / 619, 4096 775 / 776 -> 689 / 687; 512 498 / 491 -> 501 (from 10) / 487 (from
 *     9); the flip classes +0.5-1.1% against the flip form alone in one launch (the first
 *     kernel's launch, empty there).
 *   - runs of 2^5 / 2^6 / 2^7 / 2^9 (calls 1, 2, 4): 4096 +7.3% / +3.0% / +0.5..2.6% / -0.5%
 *     against 2^8, 2048 +7.2% / +4.0% / +0.7..2.4% / -0.7%; 8 kept (2^9 within the runs' noise
 *     and measured once, before the spans: a flip phase past 2^8 costs about a merge round).
 *   - the first kernel capped for 6 blocks (40 registers, 36 bytes of spills; call 2): 4096 +1%,
 *     2048 +0.8%.
 *   - with the loads and stores by spans (seg_spans_run) and merge from 9 (a19580f, call 4):
 *     512 492.0 / 488.3 -> 457.6 / 460.0, 1024 589.2 / 584.6 -> 513.9 / 512.5, 2048 664.5 / 664.2
 *     -> 574.3 / 574.8, 4096 772.5 / 768.5 -> 638.3 / 637.5; 16 .. 256 +0.4..2.6% (the extra
 *     launch), 16384 +0.5%, mixed -0.8%.
 * AMD: never (not measured; 32 compiles the form out). */
#if defined(PP_PORT_AMD)
#define SEGSORT_BN_MERGE_LOG 32
#else
#define SEGSORT_BN_MERGE_LOG 9
#endif
#define SEGSORT_BN_MERGE_RUN_LOG 8
/* The pipelined kernel's second part (segsort_packed_pipe<.., 1>) as a programmatic dependent
 * launch of the first (PP_OPTION_SEGSORT_PIPE_PDL 0; where the device and image have it:
 * common.h pp_hip_pdl_ready), so that it starts while the first runs (their items are disjoint)
 * and an empty first part costs no launch gap. Measured on an H200 (2026-11-28 ~09:25 UTC,
 * 46dc37c, 2^26 u32 keys, two rounds alternating with PP_OPTION_SEGSORT_PIPE_PDL 1,
 * bench/results/h200-s19-call1-*), us, with / without: 112 keys 403.6 / 404.1 against 406.3 /
 * 404.5, 256 412.9 / 414.5 against 417.2 / 415.2, 2048 574.8 / 574.5 against 579.2 / 577.3, 4096
 * 638.4 / 636.7 against 644.5 / 641.7; 16, 64 and mixed within noise. 1 on NVIDIA; 0 on AMD (no
 * such launch). */
#if defined(PP_PORT_AMD)
#define SEGSORT_PIPE_PDL 0
#else
#define SEGSORT_PIPE_PDL 1
#endif
/* Blocks per SM the pipelined kernel's first part (segsort_packed_pipe<.., 0>: the merge form's
 * classes) is capped for: 5 (48 registers on sm_90, no spill; 6 spilled 36 bytes and ran 1%
 * slower at 4096 keys, above). AMD: 1, no cap (the part is not compiled). */
#if defined(PP_PORT_AMD)
#define SEGSORT_PACK_FIRST_MIN_BLOCKS 1
#else
#define SEGSORT_PACK_FIRST_MIN_BLOCKS 5
#endif

/* The long class's merge passes: output tiles (of the segment's tile, SEGSORT_ITEMS keys a
 * thread) per batch, a batch's entries read and their merge-path searches run in one step (a
 * wave a search: 4 tiles, 8 searches, fill the 8 waves of a block on NVIDIA). A pass's grid is
 * the blocks that fit on the device at once, each taking the next batch from a counter when it
 * is free (one cooperative launch runs every pass the longest segment present needs, a grid
 * barrier between two). 8 tiles a batch, a grid of 8 blocks an SM striding over the
 * batches in a fixed order (a31573d; H100, 2^26 u32 keys: 411-513 us a pass where about 190 us
 * would move the bytes at full bandwidth, the searches of a tile done one after another):
 * blocks past the 5 an SM that fit started after the first ones had done their share, so the
 * pass took about 4 batches' time where 3.1 was the average. 4 with the counter: not measured. */
#define SEGSORT_MERGE_BATCH 4
/* Blocks per SM / CU the merge kernel's registers are capped for (KB: key bytes, VB: value
 * bytes): without a cap ptxas of CUDA 13 for sm_90 chose 48 / 64 registers and spilled 4-16
 * bytes in 5 of the 12 instantiations; capped for 4 blocks (64 registers) none spills. Keys of
 * up to 4 bytes alone on NVIDIA: 6 blocks (40 registers, none spilled; they took 46 capped for 4,
 * which fit 5 blocks an SM: warps active 51% on the H100 at a31573d). Not measured for speed. */
#if defined(PP_PORT_AMD)
#define SEGSORT_MERGE_MIN_BLOCKS(KB, VB) 4
#else
#define SEGSORT_MERGE_MIN_BLOCKS(KB, VB) ((KB) <= 4 && (VB) == 0 ? 6 : 4)
#endif
/* Loads in flight a thread while the merge stages a tile (keys, then values, in groups of this
 * many): 8 on NVIDIA; 4 on AMD, where 8 spilled 2-23 SGPRs in the 8-item (8-byte) kernels on
 * gfx940 and the 16-item ones spilled up to 123 with the groups unrolled. Not measured. */
#if defined(PP_PORT_AMD)
#define SEGSORT_MERGE_STAGE 4
#else
#define SEGSORT_MERGE_STAGE 8
#endif

/* Blocks per SM the radix levels' kernels (their scatter) are capped for (NVIDIA only: the levels
 * are not built for AMD, hip/segsort.hip), by key and value bytes: 3 (80 registers on NVIDIA) where the tile holds 16 items of keys alone or 8 items; 2
 * (128) for 16 items with values (capped for 3 they spilled 44-56 bytes). Uncapped, ptxas of
 * CUDA 13 for sm_90 took 148 registers for 4-byte keys with values (one block an SM) and 80 for
 * keys alone. Not measured for speed. */
#define SEG_MSD_SCATTER_BLOCKS(KB, VB) ((VB) > 0 && SEGSORT_ITEMS(KB, VB) == 16 ? 2 : 3)

/* The radix levels take segments of more than this many keys, or than the huge class's bound
 * (msd_lo) where that is longer; under PP_OPTION_SEGSORT_LONG 2 with a forced packed bound, the
 * huge segments up to this many keys are sorted a chunk a block. 1024, so that the bench's
 * L@radix rows (PP_OPTION_SEGSORT_PACK_LOG) measure the levels at 2048 and 4096 keys; level 0's
 * digit counts take 2 KB an item, at most 2 bytes a key. */
#define SEGSORT_MSD_MIN 1024

/* Classes of slot_cost below: 2^0 .. 2^12 slots (the largest tile). */
#define SEGSORT_COST_CLASSES 13

/* The fixed form's segments of at least this many keys are sorted one after another by the
 * radix sort family's device-wide sort (pp_hip_sort) instead of a block each. Not measured: an
 * estimate (one block ranks a tile of 4096 keys a pass in microseconds, so a segment of 2^20
 * u32 keys takes a block about a thousand tile passes, where the device-wide sort of 2^20 keys
 * takes tens of microseconds, mostly its launches). */
#define SEGSORT_FIXED_SORT_MIN ((uint64_t)1 << 20)

struct pp_segsort_tuning {
    const char *target;     /* as pp_hip_device::arch names it */
    unsigned pack_max_log;  /* segments of up to 2^this keys (capped by the tile) are packed */
    uint64_t msd_min_mean;  /* radix levels only where n / n_segments >= this */
    uint64_t msd_lo;        /* then segments of more than this many keys by radix levels, the
                             * other long ones by chunks and merge passes */
    /* The radix levels' buckets sorted in groups (seg_msd_group, PP_OPTION_SEGSORT_MSD_GROUP):
     * a slot's cost in the packed class of 2^c slots, c = 0 .. 12, relative (all zero: each
     * bucket alone by default). */
    unsigned short slot_cost[SEGSORT_COST_CLASSES];
    uint64_t group_min; /* grouped only in items (segments, buckets) of at least this many keys */
};

/* Every target packs up to the tile (2^12 keys; 2^11 for 8-byte keys or values): not measured
 * against other bounds. Radix levels for segments of more than 2^15 keys where the mean segment
 * has 8192 or more: measured on the H100 80GB HBM3 (2026-11-27, branch s12-msd, 2^26 u32 keys,
 * CUB 3.0.1 in the same process; bench/NOTES.md, twelfth session), every long segment by the
 * levels against every one by merge passes: one segment of all keys 3.56 against 5.04 ms, the
 * mixed set (mean ~11k) 1.97 against 2.18 ms, but 16384 keys a segment 1.86 against 1.50 ms
 * (ncu, a level of 2^26 keys: histogram 368 us, scatter 884 us, the buckets' packed sort 698 us
 * at 64 keys a bucket; merge: chunks 1.13 ms, two passes 0.62 ms): the levels win from about
 * three merge passes (2^15 keys) up. Where the mean is below 8192 (the 4096 row and shorter:
 * no segment that long, or few), the levels' launches, 20-25 us with nothing to do, are not
 * made. The first row of a platform is its fallback.
 * sm_90 since the thirteenth session: every segment of more than 4096 keys (the tile of 4-byte
 * keys: every long one; 8-byte keys' long segments of 2049 .. 4096 keys keep the merge passes,
 * not measured) by the levels where the mean is 8192 or more. With the levels' histogram
 * loading a tile's keys at once (99b6725: 281 -> 147 us a level of 2^26 u32 keys, ncu) they won
 * at 16384 keys and in the mixed
 * set (H100 80GB HBM3, 2210e4f, bench/results/h100-s13-call5-*, two rounds each: levels for every
 * long segment / the rule of 2^15: 16384 keys 1.294 / 1.292 against 1.481 / 1.460 ms, mixed
 * 1.411 / 1.416 against 1.600 / 1.598 ms, one segment 2.584 / 2.599 against 2.605 / 2.594). At
 * two tiles the forms are even once the levels' digit takes the key's kind at compile time
 * (07210fc, call 6, two rounds: 8192 keys 1.156 / 1.143 ms by the levels against 1.175 / 1.159 by
 * merge passes; before it 1.270 / 1.277 against 1.160 / 1.172). The other rows keep 2^15 (not
 * measured since). */
/* slot_cost on sm_90: the packed rows' time at full classes, us for 2^26 u32 keys (H100 80GB
 * HBM3, 2026-11-27, 695f000, bench/RESULTS.md "Fourteenth session"): 16 keys 318.6, 64 325.2,
 * 128 368.6, 256 423.2, 512 496.4, 1024 598.4, 2048 730.5, 4096 899.3; 32 taken as 320 and
 * 4 / 8 as 16's. group_min 0 (every item): measured on the H100 80GB HBM3 (2026-11-27, 4aaf873,
 * bench/results/h100-s15-call3-*, three rounds, ms, each bucket alone / groups in every item /
 * only in items of 2^16 keys up): one segment 2.360 2.353 2.366 / 2.274 2.261 2.278 / 2.267
 * 2.258 2.271; 16384 keys 1.153 1.138 1.150 / 1.115 1.106 1.123 / 1.146 1.159 1.154; 8192
 * 1.167 1.166 1.178 / 1.149 1.144 1.153 / 1.176 1.186 1.171; mixed 1.274 1.271 1.278 / 1.268
 * 1.264 1.276 / 1.270 1.270 1.272 (ncu at 16384: the packed sort 555 -> 500 us, the levels
 * 756 -> 780 us finding the groups). The levels are NVIDIA's only (hip/segsort.hip); sm_80 has
 * no figures of its own: each bucket alone. */
#define SEGSORT_COST_H100 {319, 319, 319, 319, 319, 320, 325, 369, 423, 496, 598, 731, 899}
#define SEGSORT_COST_NONE {0}
static const pp_segsort_tuning pp_segsort_tuning_table[] = {
    {"sm_90", 12, 8192, 4096, SEGSORT_COST_H100, 0},
    {"sm_80", 12, 8192, 32768, SEGSORT_COST_NONE, 0},
    {"gfx90a", 12, 8192, 32768, SEGSORT_COST_NONE, 0},
    {"gfx940", 12, 8192, 32768, SEGSORT_COST_NONE, 0},
    {"gfx1030", 12, 8192, 32768, SEGSORT_COST_NONE, 0},
};
/* The costs grouping takes where the row has none and PP_OPTION_SEGSORT_MSD_GROUP asks for it. */
static const unsigned short pp_segsort_cost_fallback[SEGSORT_COST_CLASSES] = SEGSORT_COST_H100;

/* The row for the context's device. */
static inline const pp_segsort_tuning *pp_segsort_tuning_for(const pp_hip_device *d)
{
    return pp_hip_tuning_pick(pp_segsort_tuning_table, d);
}

#endif /* PP_HIP_TUNING_SEGSORT_H */
