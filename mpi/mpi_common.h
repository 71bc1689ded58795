/*
 * mpi_common.h -- what the files of parprim_mpi share: the collective verdict on a call's
 * arguments, the per-thread message, host arithmetic on one element of any dtype, and the
 * staging of context-space arrays for MPI. Not installed. Uses parprim's public API only.
 */
#ifndef PARPRIM_MPI_COMMON_H
#define PARPRIM_MPI_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "parprim_mpi.h"

/* ---- verdicts ------------------------------------------------------------------------------
 * A call checks its arguments into a pm_check, then asks pm_agree: every rank learns the
 * highest status among the ranks' and, if it is not PP_OK, the message of the lowest rank
 * that failed with it becomes every rank's pp_mpi_last_error. */
typedef struct pm_check {
    pp_status st;
    char msg[384];
} pm_check;

/* Record a failure (the first one recorded wins). Returns st. */
pp_status pm_fail(pm_check *c, pp_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The status of a local pp_* call: its context's message is recorded on failure. */
pp_status pm_local(pm_check *c, pp_context *ctx, pp_status st, const char *what);

/* The collective verdict (see above). Returns the status every rank returns; on an MPI
 * failure, PP_ERROR_COMMUNICATION on this rank. */
pp_status pm_agree(pm_check *c, MPI_Comm comm, const char *fn);

/* Check that `v` is the same on every rank (a dtype, an op, nbins, a flag): records
 * PP_ERROR_INVALID_ARGUMENT naming `name` on every rank when it differs. The values of one
 * call are compared together: pass them as an array. Collective. */
pp_status pm_same(pm_check *c, MPI_Comm comm, const char *fn, const int64_t *v, const char *const *names, int count);

/* The communicator's rank and size (checked: comm != MPI_COMM_NULL). */
pp_status pm_comm(pm_check *c, MPI_Comm comm, const char *fn, int *rank, int *size);

/* Every call's start: pm_comm, then ctx checked (a NULL ctx is recorded, for pm_agree).
 * Returns 0 when comm itself is unusable: the call then returns c->st at once (the message
 * is set; no collective can tell the other ranks). */
int pm_begin(pm_check *c, MPI_Comm comm, const char *fn, const pp_context *ctx, int *rank, int *size);

/* An MPI return code: PP_OK or PP_ERROR_COMMUNICATION with the MPI error string recorded. */
pp_status pm_mpi(pm_check *c, int rc, const char *what);

/* Set this thread's pp_mpi_last_error. */
void pm_set_error(const char *msg);

/* ---- host arithmetic on one element ---------------------------------------------------------
 * Elements are 8-byte cells holding one value of the dtype at their start. */
typedef pp_scalar pm_cell; /* parprim.h's union of one value of each dtype */

/* The op's identity in dtype t (as parprim.h's reduce family defines it). */
pm_cell pm_identity(pp_dtype t, pp_op op);
/* a op b in dtype t (SUM/PROD wrap for integers; float MIN/MAX propagate NaN; AND/OR/XOR on
 * integers). */
pm_cell pm_combine(pp_dtype t, pp_op op, pm_cell a, pm_cell b);
/* x of type from, converted exactly to type to (a widening sum's conversion). */
pm_cell pm_widen(pp_dtype from, pp_dtype to, pm_cell x);
/* 1 when a is strictly more extreme than b for argmin (is_max 0) / argmax (is_max 1): NaN is
 * the most extreme of all, -0.0 and +0.0 tie. */
int pm_more_extreme(pp_dtype t, int is_max, pm_cell a, pm_cell b);
/* Keys equal as pp_unique's "Equal keys" say (integers by bits, floats numerically or both
 * NaN). */
int pm_keys_equal(pp_dtype t, pm_cell a, pm_cell b);

/* ---- memory --------------------------------------------------------------------------------- */

/* Copy `bytes` between the context's space and host memory (a plain memcpy on a CPU
 * context). Synchronizes. */
pp_status pm_to_host(pm_check *c, pp_context *ctx, void *host, const void *src, size_t bytes);
pp_status pm_from_host(pm_check *c, pp_context *ctx, void *dst, const void *host, size_t bytes);

/* A host staging buffer of `bytes` for ctx's copies (pp_host_malloc: pinned on HIP), and its
 * release. NULL (recorded as PP_ERROR_OUT_OF_MEMORY) when it cannot be had. */
void *pm_stage_alloc(pm_check *c, pp_context *ctx, size_t bytes);
void pm_stage_free(pp_context *ctx, void *p);

/* 1 when ctx's arrays may be handed to MPI (see pp_mpi_direct; PP_OPTION_MPI_STAGING = 1
 * makes it 0). */
int pm_direct(const pp_context *ctx);
/* 1 when the host may read and write ctx's arrays in place (a CPU context, unless
 * PP_OPTION_MPI_STAGING = 1 asks for the staged path). */
int pm_host_access(const pp_context *ctx);

/* The MPI datatype that sums or moves elements of t (MPI_UINT8_T, ..., MPI_DOUBLE). */
MPI_Datatype pm_mpi_type(pp_dtype t);

/* The counts of every rank, gathered: all[r] = n of rank r (all holds size entries).
 * Collective. */
pp_status pm_allgather_u64(pm_check *c, MPI_Comm comm, uint64_t v, uint64_t *all);

/* A gather's host array of `size` items of `bytes` (malloc; NULL is recorded as
 * PP_ERROR_OUT_OF_MEMORY). Take it BEFORE the pm_agree that precedes the gather, so that a rank
 * without it makes every rank stop there instead of skipping the collective. */
void *pm_gather_alloc(pm_check *c, int size, size_t bytes);
/* Every rank's `bytes` at `mine`, in rank order, into all (from pm_gather_alloc). Collective. */
pp_status pm_allgather(pm_check *c, MPI_Comm comm, const void *mine, size_t bytes, void *all);

/* This rank's exclusive prefix (offset) and the total of a count over the ranks: integer
 * sums, exact in any order, with no host array. Collective. */
pp_status pm_offset_total(pm_check *c, MPI_Comm comm, uint64_t v, uint64_t *offset, uint64_t *total);

/* Whether [a, a + an) and [b, b + bn) share a byte. */
int pm_overlaps(const void *a, size_t an, const void *b, size_t bn);

/* Monotonic seconds. */
double pm_seconds(void);

#endif /* PARPRIM_MPI_COMMON_H */
