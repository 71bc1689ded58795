/*
 * compaction.c -- pp_mpi_select_flagged, pp_mpi_select_if, pp_mpi_unique, pp_mpi_where,
 * pp_mpi_nonzero (parprim_mpi.h). The selection stays on its rank: the local call writes it,
 * and one MPI_Allgather of the counts gives every rank its global offset (the exclusive scan
 * of the counts) and the total. unique first learns whether its first key continues the run
 * of the nearest non-empty rank before it (one gather of the parts' first and last keys) and
 * then drops that key from its output; where / nonzero add the rank's input offset to the
 * local indices (on the host: directly on a CPU context, through a copy on a GPU one).
 */
#include "mpi_common.h"

#include <stdlib.h>
#include <string.h>

/* Every rank's count summed: this rank's offset and the total into *out. */
static pp_status global_counts(pm_check *c, MPI_Comm comm, uint64_t count, pp_mpi_counts *out)
{
    out->count = count;
    return pm_offset_total(c, comm, count, &out->offset, &out->total);
}

/* The start of every call: comm, ctx, counts; the same dtype (and payload type, predicate)
 * everywhere. Returns the agreed status. */
static pp_status begin(pm_check *c, const char *fn, pp_context *ctx, MPI_Comm comm, int *rank, int *size,
                       const void *in, size_t n, const void *counts, const int64_t *same, const char *const *names,
                       int nsame)
{
    if (!pm_begin(c, comm, fn, ctx, rank, size)) return c->st;
    if (!in && n) pm_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in' is NULL with n = %zu", fn, n);
    if (!counts) pm_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'counts' is NULL", fn);
    pm_same(c, comm, fn, same, names, nsame);
    return pm_agree(c, comm, fn);
}

/* A predicate as numbers to compare across ranks: its kind and the bytes of a and b that the
 * dtype reads. */
static void pred_words(const pp_predicate *pred, pp_dtype dtype, int64_t *w)
{
    w[0] = pred ? (int64_t)pred->kind : -1;
    w[1] = w[2] = 0;
    const size_t es = pp_dtype_size(dtype);
    if (pred && es) {
        memcpy(&w[1], &pred->a, es);
        memcpy(&w[2], &pred->b, es);
    }
}

static pp_status select_any(pp_context *ctx, MPI_Comm comm, int is_if, const void *in, size_t n, pp_dtype dtype,
                            const uint8_t *flags, const pp_predicate *pred, const void *payload,
                            pp_dtype payload_type, void *out, void *payload_out, pp_mpi_counts *counts)
{
    const char *fn = is_if ? "pp_mpi_select_if" : "pp_mpi_select_flagged";
    pm_check c = {0};
    int rank, size;
    /* the payload is each rank's own (a rank with n = 0 may pass none): not compared */
    int64_t same[4] = {dtype};
    if (is_if) pred_words(pred, dtype, &same[1]);
    static const char *const names[] = {"dtype", "pred->kind", "pred->a", "pred->b"};
    if (!is_if && !flags && n) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'flags' is NULL with n = %zu", fn, n);
    if (is_if && !pred) pm_fail(&c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'pred' is NULL", fn);
    pp_status st = begin(&c, fn, ctx, comm, &rank, &size, in, n, counts, same, names, is_if ? 4 : 1);
    if (st != PP_OK) return st;
    uint64_t count = 0;
    pm_local(&c, ctx,
             is_if ? pp_select_if(ctx, in, n, dtype, pred, payload, payload_type, out, payload_out, &count, PP_RESULT_HOST)
                   : pp_select_flagged(ctx, in, n, dtype, flags, payload, payload_type, out, payload_out, &count,
                                       PP_RESULT_HOST),
             fn);
    if ((st = pm_agree(&c, comm, fn)) != PP_OK) return st;
    global_counts(&c, comm, count, counts);
    return pm_agree(&c, comm, fn);
}

pp_status pp_mpi_select_flagged(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype,
                                const uint8_t *flags, const void *payload, pp_dtype payload_type, void *out,
                                void *payload_out, pp_mpi_counts *counts)
{
    return select_any(ctx, comm, 0, in, n, dtype, flags, NULL, payload, payload_type, out, payload_out, counts);
}

pp_status pp_mpi_select_if(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype,
                           const pp_predicate *pred, const void *payload, pp_dtype payload_type, void *out,
                           void *payload_out, pp_mpi_counts *counts)
{
    return select_any(ctx, comm, 1, in, n, dtype, NULL, pred, payload, payload_type, out, payload_out, counts);
}

/* Move count - 1 elements of `es` bytes from p + es to p (the context's space). */
static pp_status shift_left(pm_check *c, pp_context *ctx, void *p, uint64_t count, size_t es)
{
    if (count < 2) return PP_OK;
    const size_t bytes = (size_t)(count - 1) * es;
    if (pm_host_access(ctx)) {
        memmove(p, (unsigned char *)p + es, bytes);
        return PP_OK;
    }
    void *tmp = NULL;
    if (pm_local(c, ctx, pp_malloc(ctx, &tmp, bytes), "shifting the output") == PP_OK &&
        pm_local(c, ctx, pp_memcpy(ctx, tmp, (unsigned char *)p + es, bytes, PP_COPY_CONTEXT_TO_CONTEXT),
                 "shifting the output") == PP_OK)
        pm_local(c, ctx, pp_memcpy(ctx, p, tmp, bytes, PP_COPY_CONTEXT_TO_CONTEXT), "shifting the output");
    if (tmp) pp_free(ctx, tmp);
    return c->st;
}

typedef struct ends {
    pm_cell first, last;
    uint64_t n;
} ends;

pp_status pp_mpi_unique(pp_context *ctx, MPI_Comm comm, const void *keys, size_t n, pp_dtype dtype,
                        const void *payload, pp_dtype payload_type, void *keys_out, void *payload_out,
                        pp_mpi_counts *counts)
{
    static const char fn[] = "pp_mpi_unique";
    pm_check c = {0};
    int rank, size;
    const int64_t same[] = {dtype};
    static const char *const names[] = {"dtype"};
    pp_status st = begin(&c, fn, ctx, comm, &rank, &size, keys, n, counts, same, names, 1);
    if (st != PP_OK) return st;
    const size_t es = pp_dtype_size(dtype);

    /* the parts' first and last keys (read before the local call: keys_out may be keys) */
    ends mine;
    memset(&mine, 0, sizeof mine);
    mine.n = es ? n : 0;
    if (mine.n && pm_to_host(&c, ctx, &mine.first, keys, es) == PP_OK)
        pm_to_host(&c, ctx, &mine.last, (const unsigned char *)keys + (n - 1) * es, es);
    ends *all = (ends *)pm_gather_alloc(&c, size, sizeof mine);
    if ((st = pm_agree(&c, comm, fn)) != PP_OK || pm_allgather(&c, comm, &mine, sizeof mine, all) != PP_OK) {
        free(all);
        return st != PP_OK ? st : pm_agree(&c, comm, fn);
    }
    int drop = 0;
    if (mine.n)
        for (int r = rank - 1; r >= 0; --r)
            if (all[r].n) {
                drop = pm_keys_equal(dtype, all[r].last, mine.first);
                break;
            }
    free(all);

    uint64_t count = 0;
    pm_local(&c, ctx,
             pp_unique(ctx, keys, n, dtype, payload, payload_type, keys_out, payload_out, &count, PP_RESULT_HOST), fn);
    if (c.st == PP_OK && drop && count) {
        if (shift_left(&c, ctx, keys_out, count, es) == PP_OK && payload)
            shift_left(&c, ctx, payload_out, count, pp_dtype_size(payload_type));
        --count;
    }
    if ((st = pm_agree(&c, comm, fn)) != PP_OK) return st;
    global_counts(&c, comm, count, counts);
    return pm_agree(&c, comm, fn);
}

/* indices[0 .. count) += base, in the index type. */
static pp_status add_base(pm_check *c, pp_context *ctx, void *indices, uint64_t count, pp_dtype index_type,
                          uint64_t base)
{
    if (!count || !base) return PP_OK;
    const size_t es = pp_dtype_size(index_type), bytes = (size_t)count * es;
    const int host = pm_host_access(ctx);
    void *h = host ? indices : pm_stage_alloc(c, ctx, bytes);
    if (!h) return c->st;
    if (host || pm_to_host(c, ctx, h, indices, bytes) == PP_OK) {
        const long long m = (long long)count;
        if (index_type == PP_U32) {
            uint32_t *x = (uint32_t *)h;
#pragma omp parallel for schedule(static) if (m > 65536)
            for (long long i = 0; i < m; ++i) x[i] += (uint32_t)base;
        } else {
            uint64_t *x = (uint64_t *)h;
#pragma omp parallel for schedule(static) if (m > 65536)
            for (long long i = 0; i < m; ++i) x[i] += base;
        }
        if (!host) pm_from_host(c, ctx, indices, h, bytes);
    }
    if (!host) pm_stage_free(ctx, h);
    return c->st;
}

pp_status pp_mpi_where(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype,
                       const pp_predicate *pred, void *indices, pp_dtype index_type, pp_mpi_counts *counts)
{
    static const char fn[] = "pp_mpi_where";
    pm_check c = {0};
    int rank, size;
    int64_t same[5] = {dtype, index_type};
    pred_words(pred, dtype, &same[2]);
    static const char *const names[] = {"dtype", "index_type", "pred->kind", "pred->a", "pred->b"};
    pp_status st = begin(&c, fn, ctx, comm, &rank, &size, in, n, counts, same, names, 5);
    if (st != PP_OK) return st;
    /* the input offset of this rank, and u32 indices only where every global index fits */
    pp_mpi_counts in_counts = {0, 0, 0};
    global_counts(&c, comm, n, &in_counts);
    if (c.st == PP_OK && index_type == PP_U32 && in_counts.total > ((uint64_t)1 << 32))
        pm_fail(&c, PP_ERROR_INVALID_ARGUMENT,
                "%s: argument 'index_type' is u32 but the ranks hold %llu elements in all (u32 needs <= 2^32)", fn,
                (unsigned long long)in_counts.total);
    if ((st = pm_agree(&c, comm, fn)) != PP_OK) return st;
    uint64_t count = 0;
    if (pm_local(&c, ctx, pp_where(ctx, in, n, dtype, pred, indices, index_type, &count, PP_RESULT_HOST), fn) == PP_OK)
        add_base(&c, ctx, indices, count, index_type, in_counts.offset);
    if ((st = pm_agree(&c, comm, fn)) != PP_OK) return st;
    global_counts(&c, comm, count, counts);
    return pm_agree(&c, comm, fn);
}

pp_status pp_mpi_nonzero(pp_context *ctx, MPI_Comm comm, const void *in, size_t n, pp_dtype dtype, void *indices,
                         pp_dtype index_type, pp_mpi_counts *counts)
{
    pp_predicate pred;
    memset(&pred, 0, sizeof pred);
    pred.kind = PP_PRED_NONZERO;
    return pp_mpi_where(ctx, comm, in, n, dtype, &pred, indices, index_type, counts);
}
