/*
 * reduce.c -- pp_mpi_reduce, pp_mpi_argmin, pp_mpi_argmax (parprim_mpi.h): each rank reduces
 * its part with the local call (results to the host), the partial results are gathered, and
 * every rank folds them in rank order, so every rank holds the same bits whatever the MPI
 * library's reduction tree.
 */
#include "mpi_common.h"

#include <stdlib.h>
#include <string.h>

/* One rank's partial result. */
typedef struct part {
    pm_cell v;
    uint64_t index; /* argmin/argmax: local index (UINT64_MAX: none) */
    uint64_t n;     /* the rank's count */
} part;

/* Write one result of `bytes` to out in `space`. */
static pp_status put_result(pm_check *c, pp_context *ctx, void *out, const void *v, size_t bytes, pp_result_space space)
{
    if (space == PP_RESULT_HOST) {
        memcpy(out, v, bytes);
        return PP_OK;
    }
    return pm_from_host(c, ctx, out, v, bytes);
}

pp_status pp_mpi_reduce(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype in_type, pp_op op,
                        void *out, pp_dtype out_type, pp_result_space space)
{
    static const char fn[] = "pp_mpi_reduce";
    pm_check c = {0};
    int rank, size;
    if (!pm_begin(&c, comm, fn, ctx, &rank, &size)) return c.st;
    if (!in && n) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in' is NULL with n = %zu", fn, n);
    if (!out) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", fn);
    if (space != PP_RESULT_HOST && space != PP_RESULT_CONTEXT)
        pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'space' has unknown value %d", fn, (int)space);
    const int64_t same[] = {in_type, op, out_type, space};
    static const char *const names[] = {"in_type", "op", "out_type", "space"};
    pm_same(&c, comm, fn, same, names, 4);
    pp_status st = pm_agree(&c, comm, fn);
    if (st != PP_OK) return st;

    /* the local call checks the rest (dtypes, op, widening) on every rank, n = 0 included */
    part mine = {.index = UINT64_MAX, .n = n};
    pm_local(&c, ctx, pp_reduce(ctx, in, n, in_type, op, &mine.v, out_type, PP_RESULT_HOST), fn);
    part *all = (part *)pm_gather_alloc(&c, size, sizeof mine);
    if ((st = pm_agree(&c, comm, fn)) != PP_OK) {
        free(all);
        return st;
    }
    if (pm_allgather(&c, comm, &mine, sizeof mine, all) == PP_OK) {
        /* rank order; an empty part contributes nothing; none at all: rank 0's identity */
        pm_cell acc = all[0].v;
        int have = 0;
        for (int r = 0; r < size; ++r) {
            if (!all[r].n) continue;
            acc = have ? pm_combine(out_type, op, acc, all[r].v) : all[r].v;
            have = 1;
        }
        put_result(&c, ctx, out, &acc, pp_dtype_size(out_type), space);
    }
    free(all);
    return pm_agree(&c, comm, fn);
}

static pp_status argext(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype, void *value,
                        uint64_t *index, pp_result_space space, int is_max)
{
    const char *fn = is_max ? "pp_mpi_argmax" : "pp_mpi_argmin";
    pm_check c = {0};
    int rank, size;
    if (!pm_begin(&c, comm, fn, ctx, &rank, &size)) return c.st;
    if (!in && n) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in' is NULL with n = %zu", fn, n);
    if (!value) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'value' is NULL", fn);
    if (!index) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'index' is NULL", fn);
    if (space != PP_RESULT_HOST && space != PP_RESULT_CONTEXT)
        pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'space' has unknown value %d", fn, (int)space);
    const int64_t same[] = {dtype, space};
    static const char *const names[] = {"dtype", "space"};
    pm_same(&c, comm, fn, same, names, 2);
    pp_status st = pm_agree(&c, comm, fn);
    if (st != PP_OK) return st;

    part mine = {.index = UINT64_MAX, .n = n};
    pm_local(&c, ctx,
             (is_max ? pp_argmax : pp_argmin)(ctx, in, n, dtype, &mine.v, &mine.index, PP_RESULT_HOST), fn);
    part *all = (part *)pm_gather_alloc(&c, size, sizeof mine);
    if ((st = pm_agree(&c, comm, fn)) != PP_OK) {
        free(all);
        return st;
    }
    if (pm_allgather(&c, comm, &mine, sizeof mine, all) == PP_OK) {
        /* rank order, strictly more extreme replaces: the first (global) index wins ties */
        pm_cell best = all[0].v;
        uint64_t best_index = UINT64_MAX, offset = 0;
        for (int r = 0; r < size; ++r) {
            if (all[r].index != UINT64_MAX &&
                (best_index == UINT64_MAX || pm_more_extreme(dtype, is_max, all[r].v, best))) {
                best = all[r].v;
                best_index = offset + all[r].index;
            }
            offset += all[r].n;
        }
        if (put_result(&c, ctx, value, &best, pp_dtype_size(dtype), space) == PP_OK)
            put_result(&c, ctx, index, &best_index, sizeof best_index, space);
    }
    free(all);
    return pm_agree(&c, comm, fn);
}

pp_status pp_mpi_argmin(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype, void *value,
                        uint64_t *index, pp_result_space space)
{
    return argext(ctx, comm, in, n, dtype, value, index, space, 0);
}

pp_status pp_mpi_argmax(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype, void *value,
                        uint64_t *index, pp_result_space space)
{
    return argext(ctx, comm, in, n, dtype, value, index, space, 1);
}
