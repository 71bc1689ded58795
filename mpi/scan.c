/*
 * scan.c -- pp_mpi_inclusive_scan, pp_mpi_exclusive_scan (parprim_mpi.h): each rank reduces
 * its part (pp_reduce, to the host), the aggregates are gathered, rank r folds those of the
 * ranks before it in rank order into its prefix p, and scans its part seeded with p:
 *   exclusive   pp_exclusive_scan(in, init = p)
 *   inclusive   out[0 .. n-1) = pp_exclusive_scan(in[1 .. n), init = p op in[0]) and
 *               out[n-1] = out[n-2] op in[n-1] (in place: through n - 1 elements of scratch)
 * The last rank's aggregate is needed by no one: it reduces nothing (nor does a lone rank,
 * which makes the single-process call).
 * A rank with no data before it (and no init) scans as the single-process call does.
 */
#include "mpi_common.h"

#include <stdlib.h>
#include <string.h>

typedef struct agg {
    pm_cell v;
    uint64_t n;
} agg;

static pp_status scan(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype in_type, pp_op op,
                      int exclusive, const void *init, void *out, pp_dtype out_type)
{
    const char *fn = exclusive ? "pp_mpi_exclusive_scan" : "pp_mpi_inclusive_scan";
    pm_check c = {0};
    int rank, size;
    if (!pm_begin(&c, comm, fn, ctx, &rank, &size)) return c.st;
    const size_t ies = pp_dtype_size(in_type), oes = pp_dtype_size(out_type);
    if (!ctx) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'ctx' is NULL", fn);
    if (!in && n) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in' is NULL with n = %zu", fn, n);
    if (!out && n) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' is NULL with n = %zu", fn, n);
    if (!ies) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in_type' has unknown value %d", fn, (int)in_type);
    if (!oes) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out_type' has unknown value %d", fn, (int)out_type);
    const int in_place = n && (const void *)out == in;
    if (n && ies && oes && !in_place) {
        if (pm_overlaps(in, n * ies, out, n * oes))
            pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' overlaps 'in' (only out == in is allowed)", fn);
    }
    if (in_place && ies != oes)
        pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' equals 'in' with types of different sizes", fn);
    /* init: the same value on every rank */
    pm_cell p;
    memset(&p, 0, sizeof p);
    if (exclusive && init && oes) memcpy(&p, init, oes);
    int64_t same[] = {in_type, op, out_type, exclusive && init, 0};
    memcpy(&same[4], &p, sizeof same[4]);
    static const char *const names[] = {"in_type", "op", "out_type", "init (NULL or not)", "init"};
    pm_same(&c, comm, fn, same, names, 5);
    pp_status st = pm_agree(&c, comm, fn);
    if (st != PP_OK) return st;

    /* the aggregate, which only the ranks after this one need (the last rank and a lone rank
     * reduce nothing: their call with n = 0 still checks types and op) */
    agg mine = {.n = n};
    pm_local(&c, ctx, pp_reduce(ctx, in, rank < size - 1 ? n : 0, in_type, op, &mine.v, out_type, PP_RESULT_HOST), fn);
    agg *all = (agg *)pm_gather_alloc(&c, size, sizeof mine);
    if ((st = pm_agree(&c, comm, fn)) != PP_OK || pm_allgather(&c, comm, &mine, sizeof mine, all) != PP_OK) {
        free(all);
        return st != PP_OK ? st : pm_agree(&c, comm, fn);
    }

    /* the prefix: init (exclusive; NULL: none yet), then the aggregates before this rank */
    int have = exclusive && init;
    if (exclusive && !init) {
        p = pm_identity(out_type, op);
        have = 1;
    }
    for (int r = 0; r < rank; ++r) {
        if (!all[r].n) continue;
        p = have ? pm_combine(out_type, op, p, all[r].v) : all[r].v;
        have = 1;
    }
    free(all);

    if (exclusive) {
        pm_local(&c, ctx, pp_exclusive_scan(ctx, in, n, in_type, op, &p, out, out_type), fn);
    } else if (!have) {
        pm_local(&c, ctx, pp_inclusive_scan(ctx, in, n, in_type, op, out, out_type), fn);
    } else if (n) {
        /* out[0 .. n-1) = exclusive scan of in[1 .. n) from q = p op in[0]; out[n-1] = out[n-2]
         * op in[n-1] (q when n == 1) */
        pm_cell x0, q, prev, xl;
        memset(&x0, 0, sizeof x0), memset(&xl, 0, sizeof xl);
        const unsigned char *in1 = (const unsigned char *)in + ies;
        unsigned char *outc = (unsigned char *)out;
        if (pm_to_host(&c, ctx, &x0, in, ies) == PP_OK) {
            q = pm_combine(out_type, op, p, pm_widen(in_type, out_type, x0));
            prev = q;
            if (n > 1) {
                void *tmp = NULL;
                if (!in_place)
                    pm_local(&c, ctx, pp_exclusive_scan(ctx, in1, n - 1, in_type, op, &q, out, out_type), fn);
                else if (pm_local(&c, ctx, pp_malloc(ctx, &tmp, (n - 1) * oes), fn) == PP_OK &&
                         pm_local(&c, ctx,
                                  pp_exclusive_scan(ctx, in1, n - 1, in_type, op, &q, tmp, out_type), fn) == PP_OK)
                    pm_local(&c, ctx, pp_memcpy(ctx, out, tmp, (n - 1) * oes, PP_COPY_CONTEXT_TO_CONTEXT), fn);
                if (tmp) pp_free(ctx, tmp);
                /* in[n-1] is still the input in place: out[n-1] is written last */
                memset(&prev, 0, sizeof prev);
                if (c.st == PP_OK && pm_to_host(&c, ctx, &prev, outc + (n - 2) * oes, oes) == PP_OK &&
                    pm_to_host(&c, ctx, &xl, in1 + (n - 2) * ies, ies) == PP_OK)
                    prev = pm_combine(out_type, op, prev, pm_widen(in_type, out_type, xl));
            }
            if (c.st == PP_OK) pm_from_host(&c, ctx, outc + (n - 1) * oes, &prev, oes);
        }
    }
    return pm_agree(&c, comm, fn);
}

pp_status pp_mpi_inclusive_scan(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype in_type, pp_op op,
                                void *out, pp_dtype out_type)
{
    return scan(ctx, comm, in, n, in_type, op, 0, NULL, out, out_type);
}

pp_status pp_mpi_exclusive_scan(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype in_type, pp_op op,
                                const void *init, void *out, pp_dtype out_type)
{
    return scan(ctx, comm, in, n, in_type, op, 1, init, out, out_type);
}
