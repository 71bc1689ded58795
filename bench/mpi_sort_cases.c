/* mpi_sort_cases.c -- the distributed sort's rows of parprim-bench-mpi (mpi_sort_cases.h). */
#include "mpi_sort_cases.h"

#include <stdlib.h>
#include <string.h>

/* The key of global element g: splitmix64's finalizer (uniform u32). */
static uint32_t pbm_key(uint64_t g)
{
    uint64_t z = g * 0x9E3779B97F4A7C15ull + 0x5EED23ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 16);
}
/* A pair's value: a function of its key, so that the verify sees each value beside its key. */
static uint32_t pbm_value(uint32_t key) { return key ^ 0xA5C3E1F0u; }

/* The row's verify on this rank (0: wrong, why printed); collective. */
static int verify(MPI_Comm comm, int rank, int P, const uint32_t *k, const uint32_t *v, size_t n_out, uint64_t N,
                  uint64_t sum_in, const char *row)
{
    int ok = 1;
    uint64_t sum = 0;
    for (size_t i = 0; i < n_out; ++i) {
        sum += k[i];
        if (i && k[i] < k[i - 1] && ok) {
            fprintf(stderr, "[rank %d] WRONG %s: output not sorted at %zu (%u after %u)\n", rank, row, i, k[i],
                    k[i - 1]);
            ok = 0;
        }
        if (v && v[i] != pbm_value(k[i]) && ok) {
            fprintf(stderr, "[rank %d] WRONG %s: value %u at %zu is not its key's (%u)\n", rank, row, v[i], i, k[i]);
            ok = 0;
        }
    }
    /* every rank's count, first and last key: the boundaries between ranks */
    uint64_t mine[3] = {n_out, n_out ? k[0] : 0, n_out ? k[n_out - 1] : 0};
    uint64_t *all = (uint64_t *)malloc(sizeof(uint64_t) * 3 * (size_t)P);
    if (!all) abort();
    MPI_Allgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, comm);
    uint64_t count = 0, totals[2] = {sum_in, sum}, sums[2];
    for (int r = 0; r < P; ++r) count += all[3 * r];
    if (n_out)
        for (int r = rank - 1; r >= 0; --r)
            if (all[3 * r]) {
                if (all[3 * r + 2] > mine[1] && ok) {
                    fprintf(stderr, "[rank %d] WRONG %s: first key %llu below rank %d's last %llu\n", rank, row,
                            (unsigned long long)mine[1], r, (unsigned long long)all[3 * r + 2]);
                    ok = 0;
                }
                break;
            }
    free(all);
    MPI_Allreduce(totals, sums, 2, MPI_UINT64_T, MPI_SUM, comm);
    if (rank == 0 && (count != N || sums[0] != sums[1])) {
        fprintf(stderr, "WRONG %s: %llu keys out of %llu, key sum %llu against %llu\n", row, (unsigned long long)count,
                (unsigned long long)N, (unsigned long long)sums[1], (unsigned long long)sums[0]);
        ok = 0;
    }
    return ok;
}

static int sort_row(pp_context *ctx, MPI_Comm comm, uint64_t n_total, int reps, int weak, int pairs, FILE *out)
{
    int rank = 0, P = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    const uint64_t n = weak ? n_total : n_total / (uint64_t)P + ((uint64_t)rank < n_total % (uint64_t)P);
    const uint64_t N = weak ? n_total * (uint64_t)P : n_total;
    uint64_t offset = 0;
    MPI_Exscan(&n, &offset, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (rank == 0) offset = 0;
    const uint64_t cap = pp_mpi_sort_first(N, rank + 1, P) - pp_mpi_sort_first(N, rank, P);
    const char *row = pairs ? "sort_pairs u32/u32" : "sort_keys u32";

    const size_t most = (size_t)(n > cap ? n : cap); /* the host arrays hold the input, then the output */
    uint32_t *hk = (uint32_t *)malloc(4 * most + 4), *hv = (uint32_t *)malloc(4 * most + 4);
    if (!hk || !hv) abort();
    uint64_t sum_in = 0;
    for (uint64_t i = 0; i < n; ++i) {
        hk[i] = pbm_key(offset + i);
        hv[i] = pbm_value(hk[i]);
        sum_in += hk[i];
    }
    void *kin = NULL, *vin = NULL, *kout = NULL, *vout = NULL;
    int fail = pp_malloc(ctx, &kin, 4 * (size_t)n) != PP_OK || pp_malloc(ctx, &kout, 4 * (size_t)cap) != PP_OK;
    if (pairs) fail |= pp_malloc(ctx, &vin, 4 * (size_t)n) != PP_OK || pp_malloc(ctx, &vout, 4 * (size_t)cap) != PP_OK;
    if (!fail && n) {
        fail |= pp_memcpy(ctx, kin, hk, 4 * (size_t)n, PP_COPY_HOST_TO_CONTEXT) != PP_OK;
        if (pairs) fail |= pp_memcpy(ctx, vin, hv, 4 * (size_t)n, PP_COPY_HOST_TO_CONTEXT) != PP_OK;
    }
    int any = 0;
    MPI_Allreduce(&fail, &any, 1, MPI_INT, MPI_MAX, comm);
    double best = 1e300;
    pp_mpi_sort_stats best_stats;
    memset(&best_stats, 0, sizeof best_stats);
    size_t n_out = 0;
    for (int r = 0; r < reps && !any; ++r) {
        MPI_Barrier(comm);
        const double t0 = MPI_Wtime();
        const pp_status st = pairs ? pp_mpi_sort_pairs(ctx, comm, kin, vin, (size_t)n, kout, vout, (size_t)cap, &n_out,
                                                       PP_U32, PP_U32, PP_SORT_ASCENDING, 0, 0)
                                   : pp_mpi_sort_keys(ctx, comm, kin, (size_t)n, kout, (size_t)cap, &n_out, PP_U32,
                                                      PP_SORT_ASCENDING, 0, 0);
        double t = MPI_Wtime() - t0, slowest = 0;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (st != PP_OK) {
            if (rank == 0) fprintf(stderr, "%s: %s (%s)\n", row, pp_mpi_status_string(st), pp_mpi_last_error());
            any = 1;
            break;
        }
        if (slowest < best) {
            best = slowest;
            pp_mpi_last_sort_stats(&best_stats);
        }
    }
    int ok = 0;
    if (!any) {
        const int copied = pp_memcpy(ctx, hk, kout, 4 * n_out, PP_COPY_CONTEXT_TO_HOST) == PP_OK &&
                           (!pairs || pp_memcpy(ctx, hv, vout, 4 * n_out, PP_COPY_CONTEXT_TO_HOST) == PP_OK);
        if (!copied) fprintf(stderr, "[rank %d] WRONG %s: the output's copy to the host failed\n", rank, row);
        ok = verify(comm, rank, P, hk, pairs ? hv : NULL, copied ? n_out : 0, N, sum_in, row) && copied;
    }
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);

    /* sums of the bytes, the slowest rank's steps */
    uint64_t bytes[2] = {best_stats.bytes_sent, best_stats.bytes_min}, bsum[2];
    double steps[4] = {best_stats.seconds_local_sort, best_stats.seconds_splitters, best_stats.seconds_exchange,
                       best_stats.seconds_merge},
           smax[4];
    int staged = best_stats.staged, any_staged = 0;
    MPI_Reduce(bytes, bsum, 2, MPI_UINT64_T, MPI_SUM, 0, comm);
    MPI_Reduce(steps, smax, 4, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(&staged, &any_staged, 1, MPI_INT, MPI_MAX, 0, comm);
    if (rank == 0 && all_ok)
        fprintf(out, "%-20s %5s %5d %12llu %10.4f %10.1f %12.1f %12.1f %9.4f %9.4f %9.4f %9.4f %6d\n", row,
                weak ? "weak" : "strong", P, (unsigned long long)N, best, (double)N / best * 1e-6,
                (double)bsum[0] / 1e6, (double)bsum[1] / 1e6, smax[0], smax[1], smax[2], smax[3], any_staged);
    pp_free(ctx, kin), pp_free(ctx, vin), pp_free(ctx, kout), pp_free(ctx, vout);
    free(hk), free(hv);
    return all_ok ? 0 : 1;
}

int pbm_sort_rows(pp_context *ctx, MPI_Comm comm, uint64_t n_total, int reps, int weak, FILE *out)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (reps < 1) reps = 1;
    if (rank == 0)
        fprintf(out, "%-20s %5s %5s %12s %10s %10s %12s %12s %9s %9s %9s %9s %6s\n", "# mpi sort", "scale", "ranks",
                "keys", "seconds", "Mkeys/s", "sent MB", "min MB", "local s", "split s", "exch s", "merge s",
                "staged");
    const int a = sort_row(ctx, comm, n_total, reps, weak, 0, out);
    const int b = sort_row(ctx, comm, n_total, reps, weak, 1, out);
    if (rank == 0) fflush(out);
    return a || b;
}
