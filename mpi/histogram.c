/*
 * histogram.c -- pp_mpi_histogram_even, pp_mpi_histogram_range (parprim_mpi.h): each rank
 * counts its part with the local call into `counts`, then one MPI_Allreduce (SUM, in place)
 * adds the ranks' counts: on the context's array where MPI may touch it (pm_direct), else
 * through a host copy.
 */
#include "mpi_common.h"

#include <stdlib.h>
#include <string.h>

/* Sum `nbins` counts of count_type across the ranks, in place in the context's array. */
static pp_status allreduce_counts(pm_check *c, pp_context *ctx, MPI_Comm comm, void *counts, size_t nbins,
                                  pp_dtype count_type)
{
    const size_t cs = pp_dtype_size(count_type);
    const MPI_Datatype t = pm_mpi_type(count_type);
    void *buf = counts;
    if (!pm_direct(ctx)) {
        buf = pm_stage_alloc(c, ctx, nbins * cs);
        if (!buf) return c->st;
        if (pm_to_host(c, ctx, buf, counts, nbins * cs) != PP_OK) {
            pm_stage_free(ctx, buf);
            return c->st;
        }
    } else if (pm_local(c, ctx, pp_context_synchronize(ctx), "waiting for the local counts") != PP_OK) {
        return c->st;
    }
    /* nbins may pass INT_MAX: chunks of 2^30 counts */
    const size_t chunk = (size_t)1 << 30;
    for (size_t at = 0; at < nbins && c->st == PP_OK; at += chunk) {
        const size_t k = nbins - at < chunk ? nbins - at : chunk;
        pm_mpi(c, MPI_Allreduce(MPI_IN_PLACE, (unsigned char *)buf + at * cs, (int)k, t, MPI_SUM, comm), "MPI_Allreduce");
    }
    if (buf != counts) {
        if (c->st == PP_OK) pm_from_host(c, ctx, counts, buf, nbins * cs);
        pm_stage_free(ctx, buf);
    }
    return c->st;
}

/* What every histogram call checks before counting. */
static void check_common(pm_check *c, const char *fn, const void *samples, size_t n, const void *counts)
{
    if (!samples && n) pm_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'samples' is NULL with n = %zu", fn, n);
    if (!counts) pm_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'counts' is NULL", fn);
}

/* After the local call: its verdict shared, then the counts summed, then that verdict. */
static pp_status sum_after(pm_check *c, pp_context *ctx, MPI_Comm comm, const char *fn, pp_status local, void *counts,
                           size_t nbins, pp_dtype count_type)
{
    pm_local(c, ctx, local, fn);
    pp_status st = pm_agree(c, comm, fn);
    if (st != PP_OK) return st;
    allreduce_counts(c, ctx, comm, counts, nbins, count_type);
    return pm_agree(c, comm, fn);
}

static int64_t bits_of(double d)
{
    int64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

pp_status pp_mpi_histogram_even(pp_context *ctx, MPI_Comm comm, const void *samples, size_t n, pp_dtype sample_type,
                                size_t nbins, double lower, double upper, void *counts, pp_dtype count_type)
{
    static const char fn[] = "pp_mpi_histogram_even";
    pm_check c = {0};
    int rank, size;
    if (!pm_begin(&c, comm, fn, ctx, &rank, &size)) return c.st;
    check_common(&c, fn, samples, n, counts);
    const int64_t same[] = {sample_type, count_type, (int64_t)nbins, bits_of(lower), bits_of(upper)};
    static const char *const names[] = {"sample_type", "count_type", "nbins", "lower", "upper"};
    pm_same(&c, comm, fn, same, names, 5);
    pp_status st = pm_agree(&c, comm, fn);
    if (st != PP_OK) return st;
    return sum_after(&c, ctx, comm, fn,
                     pp_histogram_even(ctx, samples, n, sample_type, nbins, lower, upper, counts, count_type), counts,
                     nbins, count_type);
}

pp_status pp_mpi_histogram_range(pp_context *ctx, MPI_Comm comm, const void *samples, size_t n, pp_dtype sample_type,
                                 const double *edges, size_t nbins, void *counts, pp_dtype count_type)
{
    static const char fn[] = "pp_mpi_histogram_range";
    pm_check c = {0};
    int rank, size;
    if (!pm_begin(&c, comm, fn, ctx, &rank, &size)) return c.st;
    check_common(&c, fn, samples, n, counts);
    if (!edges) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'edges' is NULL", fn);
    /* the edges' values, compared through a hash of their bits */
    uint64_t h = 1469598103934665603ull;
    if (edges && nbins && nbins <= PP_HISTOGRAM_MAX_BINS && c.st == PP_OK) {
        double *e = (double *)malloc((nbins + 1) * sizeof *e);
        if (!e) pm_fail(&c, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory for the edges", fn);
        else if (pm_to_host(&c, ctx, e, edges, (nbins + 1) * sizeof *e) == PP_OK) {
            const unsigned char *b = (const unsigned char *)e;
            for (size_t i = 0; i < (nbins + 1) * sizeof *e; ++i) h = (h ^ b[i]) * 1099511628211ull;
        }
        free(e);
    }
    const int64_t same[] = {sample_type, count_type, (int64_t)nbins, (int64_t)h};
    static const char *const names[] = {"sample_type", "count_type", "nbins", "edges (their values)"};
    pm_same(&c, comm, fn, same, names, 4);
    pp_status st = pm_agree(&c, comm, fn);
    if (st != PP_OK) return st;
    return sum_after(&c, ctx, comm, fn, pp_histogram_range(ctx, samples, n, sample_type, edges, nbins, counts, count_type),
                     counts, nbins, count_type);
}
