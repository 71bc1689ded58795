/*
 * parprim_mpi.h -- parprim's primitives across the ranks of an MPI communicator (issue 23).
 *
 * An optional component: library parprim_mpi, built when CMake finds MPI (Debian:
 * libopenmpi-dev), over parprim's public API and nothing else. Link parprim_mpi and parprim
 * (CMake: parprim::parprim_mpi). C11; usable from C++.
 *
 * Model
 * -----
 * Every rank holds its part of the data in its own context (pp_context: CPU or GPU, one
 * device per rank; ranks may mix backends), in that context's memory space. The global
 * array is the concatenation of the parts in rank order: rank 0's n elements, then rank 1's,
 * and so on; rank r's element i is global element offset_r + i, offset_r the sum of the
 * counts of the ranks before r. A rank's count may be 0.
 *
 * Every function here is collective over the communicator `comm` the caller passes: every
 * rank of comm calls it, in the same order as the other collectives on comm, with the same
 * dtypes, op, bins and options (the per-rank counts and pointers differ). The library uses
 * comm as it is (no duplicate) and does not change its error handler; it calls MPI only
 * from the calling thread. MPI must be initialised (MPI_Init or MPI_Init_thread).
 *
 * Errors. Every rank returns the same status. Arguments are checked on every rank and the
 * verdicts combined before any output is written, so a NULL pointer, an unknown dtype or a
 * parameter that differs between ranks (a dtype, op, nbins, bit range, ... : "a count
 * mismatch") gives every rank PP_ERROR_INVALID_ARGUMENT, never a hang; the message
 * (pp_mpi_last_error) names the argument and the rank that failed. A failure inside one
 * rank's local work (out of memory, a device error) is also shared: every rank returns a
 * status, the highest code among the ranks' (PP_ERROR_DEVICE above PP_ERROR_OUT_OF_MEMORY,
 * ...), but outputs that other ranks had already written stay written. An MPI call that
 * returns an error (only with an error handler of MPI_ERRORS_RETURN on comm; the default
 * aborts) gives PP_ERROR_COMMUNICATION on that rank.
 *
 * GPU ranks. A HIP context's arrays are device memory. Where the MPI library is GPU-aware
 * (Open MPI built with CUDA or ROCm support, seen at compile time through mpi-ext.h's
 * MPIX_CUDA_AWARE_SUPPORT / MPIX_ROCM_AWARE_SUPPORT and confirmed at run time by
 * MPIX_Query_cuda_support() / MPIX_Query_rocm_support()), the bulk transfers (the sort's
 * exchange, the histogram's counts) pass device pointers to MPI directly; elsewhere they go
 * through host staging buffers of pinned memory (pp_host_malloc; pp_mpi_direct tells which
 * path a context takes). Scalars (a reduction's
 * partial results, a scan's aggregates, counts) always travel through host memory.
 * Nothing here has been run on a GPU yet: the GPU path is compiled, and tested only where a
 * GPU is present (tests/mpi).
 *
 * Determinism. Integer results, counts, indices and sort orders are bitwise the results of
 * the single-process call on the gathered data. Float reductions and scan prefixes combine
 * the ranks' partial results in rank order on every rank (never through MPI_Reduce's
 * implementation-defined tree), so a result does not depend on the MPI library, and every
 * rank receives the same bits.
 */
#ifndef PARPRIM_MPI_H
#define PARPRIM_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "parprim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The status an MPI call's failure gives (see "Errors" above). Not one of pp_status's
 * values, so that pp_status_string does not know it: pp_mpi_status_string does. */
#define PP_ERROR_COMMUNICATION ((pp_status)100)

/* pp_status_string, plus PP_ERROR_COMMUNICATION. */
PP_API const char *pp_mpi_status_string(pp_status status);

/* The message of this thread's last failed pp_mpi_* call ("" if none): the argument, the
 * reason and the rank where it was found. */
PP_API const char *pp_mpi_last_error(void);

/* 1 when the arrays of ctx go to MPI directly (a CPU context, or a HIP context with a
 * GPU-aware MPI, see "GPU ranks"), 0 when they are staged through host memory. Local: not a
 * collective. */
PP_API int pp_mpi_direct(const pp_context *ctx);

/* ---- reduce ------------------------------------------------------------------------------
 *
 * pp_reduce over the global array: each rank reduces its part (pp_reduce), the partial
 * results are gathered and folded in rank order (r0 op r1 op ... ), and every rank receives
 * the result in `out` (context space or host memory, as `space` says; types and widening as
 * pp_reduce). An empty part contributes nothing (not even the identity's sign of zero).
 * Float error bound: that of pp_reduce with D = ceil(log2(max part)) + PP_SUM_DEPTH_SLACK
 * + (ranks - 1). Synchronizes. */
PP_API pp_status pp_mpi_reduce(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype in_type,
                               pp_op op, void *out, pp_dtype out_type, pp_result_space space);

/* pp_argmin / pp_argmax over the global array: *index is the GLOBAL index (offset_r + i),
 * the first on ties (and the first NaN, as pp_argmin says); every rank receives the same
 * value and index. An empty global array gives UINT64_MAX and the identity. Synchronizes. */
PP_API pp_status pp_mpi_argmin(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype,
                               void *value, uint64_t *index, pp_result_space space);
PP_API pp_status pp_mpi_argmax(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype,
                               void *value, uint64_t *index, pp_result_space space);

/* ---- scan --------------------------------------------------------------------------------
 *
 * pp_inclusive_scan / pp_exclusive_scan over the global array: every rank writes the global
 * prefixes of its own elements to its `out` (n elements of out_type). Each rank but the last
 * reduces its part (pp_reduce, to the host), the aggregates are gathered, rank r folds those
 * of the ranks before it in rank order (after `init`, for the exclusive scan) into a prefix
 * p and scans its part seeded with p. Types, ops, init (the same value on every rank,
 * checked) and in-place use as pp_inclusive_scan / pp_exclusive_scan. An inclusive scan
 * seeded with p runs as the exclusive scan of in[1 .. n) with init p op in[0], and
 * out[n-1] = out[n-2] op in[n-1]; in place it takes n - 1 elements of pp_malloc'd scratch.
 * A rank with nothing before it (rank 0, or only empty parts before it) makes the
 * single-process call, so one rank is exactly pp_inclusive_scan / pp_exclusive_scan.
 * Float error bound: that of the scans with D_scan(m) + ceil(log2(m)) + ranks.
 * The aggregates' reduction synchronizes; the exclusive scan itself is enqueued (a HIP
 * rank's out is complete after pp_context_synchronize), the inclusive one returns complete. */
PP_API pp_status pp_mpi_inclusive_scan(pp_context *ctx, MPI_Comm comm, const void *in, size_t n,
                                       pp_dtype in_type, pp_op op, void *out, pp_dtype out_type);
PP_API pp_status pp_mpi_exclusive_scan(pp_context *ctx, MPI_Comm comm, const void *in, size_t n,
                                       pp_dtype in_type, pp_op op, const void *init, void *out,
                                       pp_dtype out_type);

/* ---- histogram ---------------------------------------------------------------------------
 *
 * pp_histogram_even / pp_histogram_range over the global array: each rank counts its part,
 * one MPI_Allreduce sums the counts (integers: exact, any order), and every rank receives
 * the global counts in `counts` (its context's space). nbins, the bounds or edges' values,
 * sample_type and count_type must agree across ranks (the edges' values are compared).
 * u32 counts wrap modulo 2^32 as in pp_histogram_even. Synchronizes. */
PP_API pp_status pp_mpi_histogram_even(pp_context *ctx, MPI_Comm comm, const void *samples, size_t n,
                                       pp_dtype sample_type, size_t nbins, double lower, double upper,
                                       void *counts, pp_dtype count_type);
PP_API pp_status pp_mpi_histogram_range(pp_context *ctx, MPI_Comm comm, const void *samples, size_t n,
                                        pp_dtype sample_type, const double *edges, size_t nbins,
                                        void *counts, pp_dtype count_type);

/* ---- compaction --------------------------------------------------------------------------
 *
 * The selection stays where it is: each rank writes the elements it keeps to its own out
 * (out[0 .. count), as the local call would), and learns where they sit in the global
 * output from an exclusive scan of the counts: its kept elements are global outputs
 * [offset, offset + count) of total. */
typedef struct pp_mpi_counts {
    uint64_t count;  /* kept on this rank (written to its out) */
    uint64_t offset; /* kept on the ranks before it */
    uint64_t total;  /* kept on all ranks */
} pp_mpi_counts;

/* pp_select_flagged / pp_select_if on each part, with the global counts in *counts (host
 * memory). Arguments as the local calls (flags, predicate, payload, in place), except that
 * the count goes to *counts. The predicate must be the same on every rank. Synchronizes. */
PP_API pp_status pp_mpi_select_flagged(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype,
                                       const uint8_t *flags, const void *payload, pp_dtype payload_type,
                                       void *out, void *payload_out, pp_mpi_counts *counts);
PP_API pp_status pp_mpi_select_if(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype,
                                  const pp_predicate *pred, const void *payload, pp_dtype payload_type,
                                  void *out, void *payload_out, pp_mpi_counts *counts);

/* pp_unique over the global array: a rank's first key is dropped when it equals (as
 * pp_unique's "Equal keys" say) the last key of the nearest rank before it that holds keys,
 * so runs that cross ranks are kept once, on the rank where they start. */
PP_API pp_status pp_mpi_unique(pp_context *ctx, MPI_Comm comm, const void *keys, size_t n, pp_dtype dtype,
                               const void *payload, pp_dtype payload_type, void *keys_out, void *payload_out,
                               pp_mpi_counts *counts);

/* pp_where / pp_nonzero with GLOBAL indices (offset_r + i); index_type u32 needs a global
 * count n_total <= 2^32 (checked). */
PP_API pp_status pp_mpi_where(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype,
                              const pp_predicate *pred, void *indices, pp_dtype index_type, pp_mpi_counts *counts);
PP_API pp_status pp_mpi_nonzero(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype,
                                void *indices, pp_dtype index_type, pp_mpi_counts *counts);

/* ---- sort --------------------------------------------------------------------------------
 *
 * pp_sort_keys / pp_sort_pairs over the global array (stable: equal keys keep their global
 * input order, that is rank order, then position). Output layout, balanced: with N keys in
 * all and P ranks, rank r receives the global sorted positions
 *     [pp_mpi_sort_first(N, r, P), pp_mpi_sort_first(N, r + 1, P))    (N r / P, rounded down)
 * so every rank holds N / P keys, rounded down or up, whatever the input's distribution.
 * keys_out (and values_out) hold out_capacity elements on each rank, at least that share
 * (checked on every rank against the global N: PP_ERROR_INVALID_ARGUMENT naming
 * 'out_capacity'); *n_out receives the share. Keys, values, orders and bit ranges as
 * pp_sort_keys / pp_sort_pairs (key_type, value_type, order, begin_bit and end_bit must be
 * the same on every rank, end_bit 0 and the key's width counting as the same; every rank
 * calls the same one of the two functions). keys_out may equal keys_in, and values_out
 * values_in (the part is sorted into scratch before any output is written; out_capacity
 * counts the output only); the two inputs may overlap each other; any other overlap is
 * PP_ERROR_INVALID_ARGUMENT. An array may be NULL where its count (n for the inputs,
 * out_capacity for the outputs) is 0.
 *
 * Algorithm (one rank: a single pp_sort_keys / pp_sort_pairs into keys_out / values_out): each
 * rank sorts its part (pp_sort_pairs / pp_sort_keys) into scratch (pp_malloc: n keys and n
 * values; a CPU rank also pp_mallocs the keys and values it receives). The P - 1 splitters are
 * found exactly: a key's "sort word" is its order-preserving unsigned form restricted to
 * [begin_bit, end_bit) (-0.0 and +0.0 one word, every NaN the largest, complemented when
 * descending); a bisection over the word's bits, one MPI_Allreduce of the P - 1 counts per
 * bit, finds the word at each boundary, each rank counting its keys below a candidate by
 * binary search in its sorted part (a HIP rank copies its sorted keys to the host once for
 * this); the keys equal to a boundary's word are split in rank order, then position (one
 * MPI_Allreduce and one MPI_Exscan). One exchange then moves every key at most once:
 * MPI_Alltoallv of the keys, and of the values, in a contiguous datatype of the element's
 * size; when some rank holds more than INT_MAX elements (its part or its share), MPI_Isend /
 * MPI_Irecv on comm with tag 23023 in chunks of 2^30 elements instead (comm must have no other
 * message with that tag pending). Keys already on their destination rank are not sent. A CPU
 * rank merges the P sorted runs it holds (stable, the lower rank first on ties; OpenMP threads
 * each merge one slice of the output, split exactly as the ranks were) into keys_out /
 * values_out. A HIP rank (and any rank with PP_OPTION_MPI_STAGING = 1) receives the runs into
 * keys_out / values_out in rank order (its own run copied in place) and sorts them there again
 * with pp_sort_keys / pp_sort_pairs (a stable radix sort of runs that arrive in rank order is
 * their merge; scratch: the in-place sort's double buffer); staged (pp_mpi_direct 0), its
 * sorted values go to the host too and the received runs arrive in a host buffer, both of
 * pp_host_malloc. Host memory besides: O(P) counts, per thread O(P) for the merge, and on such
 * a rank the host copy of its sorted keys (staged: of its values and the received runs too).
 * Synchronizes. */
static inline uint64_t pp_mpi_sort_first(uint64_t total, int rank, int ranks)
{
    /* floor(total * rank / ranks) without overflow */
    return total / (uint64_t)ranks * (uint64_t)rank + total % (uint64_t)ranks * (uint64_t)rank / (uint64_t)ranks;
}

PP_API pp_status pp_mpi_sort_keys(pp_context *ctx, MPI_Comm comm, const void *keys_in, size_t n,
                                  void *keys_out, size_t out_capacity, size_t *n_out, pp_dtype key_type,
                                  pp_sort_order order, int begin_bit, int end_bit);
PP_API pp_status pp_mpi_sort_pairs(pp_context *ctx, MPI_Comm comm, const void *keys_in, const void *values_in,
                                   size_t n, void *keys_out, void *values_out, size_t out_capacity,
                                   size_t *n_out, pp_dtype key_type, pp_dtype value_type, pp_sort_order order,
                                   int begin_bit, int end_bit);

/* What this rank's last pp_mpi_sort_* moved and how long its steps took (for the bench).
 * Bytes count keys and values; copies within a rank are not counted. The exact splitters send
 * exactly the minimum: bytes_sent == bytes_min on every rank. Steps, in seconds of this rank:
 * the local sort (with the host copy of a HIP rank), the splitters (with the exchange of the
 * counts; waiting for the slowest rank's local sort shows here), the exchange, the merge (HIP:
 * the sort of the received runs). A single rank sorts in one step (seconds_local_sort). */
typedef struct pp_mpi_sort_stats {
    uint64_t bytes_sent;     /* keys and values this rank sent to other ranks */
    uint64_t bytes_received; /* ... and received from them */
    uint64_t bytes_min;      /* the least any exchange must move out of this rank: the bytes of
                                its keys whose output position lies on another rank */
    double seconds_local_sort, seconds_splitters, seconds_exchange, seconds_merge;
    int staged;              /* 1: the exchange went through host staging buffers */
} pp_mpi_sort_stats;

/* The stats of this thread's last pp_mpi_sort_keys / pp_mpi_sort_pairs (all zero after a call
 * that failed or sorted nothing). Local: not a collective. Errors: PP_ERROR_INVALID_ARGUMENT
 * (stats NULL). */
PP_API pp_status pp_mpi_last_sort_stats(pp_mpi_sort_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* PARPRIM_MPI_H */
