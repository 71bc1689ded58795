/* mpi_sort_cases.h -- the distributed sort's rows of parprim-bench-mpi (issue 23). */
#ifndef PBM_MPI_SORT_CASES_H
#define PBM_MPI_SORT_CASES_H

#include <stdint.h>
#include <stdio.h>

#include "parprim_mpi.h"

/* Two rows, u32 keys (pp_mpi_sort_keys) and u32 keys with u32 values (pp_mpi_sort_pairs), on
 * the ranks of comm, each rank in its own ctx. Keys: uniform random u32, a function of the
 * global index, so a strong-scaling series sorts the same array at every rank count. Strong
 * (weak 0): n_total keys in all, split evenly; weak (1): n_total keys on every rank. Each row
 * is timed reps times (MPI_Barrier, the call, the slowest rank's time) and the best kept, then
 * verified: every rank's output sorted, each rank's first key not below the last key of the
 * nearest rank before it that holds keys, the count and the sum of the keys preserved, each
 * value still beside its key. Rank 0 prints to `out` (a header line, then one line per row):
 * ranks, keys, seconds, Mkeys/s, bytes sent (all ranks) against the minimum, the slowest
 * rank's step times, staged. Collective; returns 0 on every rank, or nonzero on every rank
 * when a call failed or a result was wrong (the reason on stderr, "WRONG" in a wrong
 * result's line). */
int pbm_sort_rows(pp_context *ctx, MPI_Comm comm, uint64_t n_total, int reps, int weak, FILE *out);

#endif /* PBM_MPI_SORT_CASES_H */
