/*
 * tbb_peer.h -- the C face of tbb_peer.cpp: oneTBB's parallel_reduce / parallel_scan on host
 * data, the peer of parprim's CPU rows in parprim-bench (PB_HAVE_TBB).
 *
 * One job runs one algorithm on host arrays already in place: one untimed warm-up call, then
 * `reps` repetitions of `batch` calls timed with the host clock (as parprim's CPU rows are);
 * the median per call is returned in milliseconds, negative on failure (pb_tbb_last_error).
 * Results: reductions write one out_type element to `result` (and the index for the arg kinds,
 * n_segments elements for SEGSUM); scans write n out_type elements to `out`. dtypes are
 * pp_dtype values; only the pairs the bench's rows use are instantiated.
 */
#ifndef PB_TBB_PEER_H
#define PB_TBB_PEER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_tbb_kind {
    PB_TBB_SUM = 1,           /* parallel_reduce, accumulating in out_type (widening allowed) */
    PB_TBB_MIN = 2,           /* parallel_reduce, same type */
    PB_TBB_MAX = 3,
    PB_TBB_ARGMIN = 4,        /* parallel_reduce of (value, first index) pairs */
    PB_TBB_ARGMAX = 5,
    PB_TBB_SEGSUM = 6,        /* parallel_for over the segments, each summed in order */
    PB_TBB_INCLUSIVE_SUM = 7, /* parallel_scan */
    PB_TBB_EXCLUSIVE_SUM = 8, /* parallel_scan, the sum of the elements before i (0 first) */
    PB_TBB_INCLUSIVE_MAX = 9,
    PB_TBB_SEGSCAN_SUM = 10,  /* parallel_scan of (head flag, sum) pairs: inclusive by flags */
    /* radix sort family (issue 20): the n keys of in_type copied to `out`, then sorted there
     * ascending (the copy is part of each timed call, as parprim's sort reads its input) */
    PB_TBB_SORT = 11,         /* tbb::parallel_sort */
    PB_TBB_STD_SORT = 12      /* std::sort, one thread */
} pb_tbb_kind;

typedef struct pb_tbb_job {
    pb_tbb_kind kind;
    int in_type, out_type;   /* pp_dtype */
    const void *in;          /* n elements of in_type */
    size_t n;
    const size_t *offsets;   /* SEGSUM: n_segments + 1 */
    size_t n_segments;
    const uint8_t *flags;    /* SEGSCAN_SUM: n head flags */
    void *out;               /* scans: n elements of out_type */
    void *result;            /* reductions: one element (SEGSUM: n_segments) */
    uint64_t *index;         /* ARG*: the index */
    int reps, batch;
} pb_tbb_job;

double pb_tbb_run(const pb_tbb_job *job);
const char *pb_tbb_last_error(void);
/* "oneTBB 2021.8 (2 threads)": the version and the arena's concurrency. */
const char *pb_tbb_describe(void);
/* How many distinct threads took part in a parallel_for of small blocks that each spin for
 * about 1 ms (1 if TBB runs serially here). */
int pb_tbb_probe_threads(void);

#ifdef __cplusplus
}
#endif

#endif
