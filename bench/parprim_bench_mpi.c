/*
 * parprim-bench-mpi -- parprim_mpi's primitives timed across ranks (issue 23). Run it under
 * mpiexec with 1, 2, 4, ... ranks (bench/mpi_scaling.sh runs the series): every row prints
 * the rank count, the keys in all and per rank, the time (the slowest rank's, best of the
 * repetitions, each started after an MPI_Barrier) and the throughput; at 1 rank it also
 * prints the plain single-process call on the same data (the "local" rows), the baseline
 * of the scaling table. Strong scaling (default): --n keys in all, split evenly; weak
 * (--weak): --n keys on every rank. Every row is verified on the host (reduce, histogram and
 * the counts against serial loops plus an MPI_Allreduce; the scan and the selection element
 * by element; the sort as bench/mpi_sort_cases.c says) and a failed check fails the program.
 *
 *   mpiexec -n 2 parprim-bench-mpi [--backend cpu|hip] [--n N] [--reps R] [--weak]
 *                                  [--only reduce|scan|histogram|select|sort|sort_pairs]
 */
#include <inttypes.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PBM_HAVE_SORT
#include "mpi_sort_cases.h"
#endif
#include "parprim.h"
#include "parprim_mpi.h"

typedef struct bench {
    MPI_Comm comm;
    int rank, size;
    pp_context *ctx;
    uint64_t n;     /* this rank's keys */
    uint64_t total; /* all ranks' */
    int reps;
    int failed;
} bench;

static double now(void) { return MPI_Wtime(); }

/* The slowest rank's time of one run of `fn` (after a barrier). */
#define TIME_MAX(b, secs, call)                                                 \
    do {                                                                        \
        MPI_Barrier((b)->comm);                                                 \
        const double t0_ = now();                                               \
        pp_status st_ = (call);                                                 \
        pp_context_synchronize((b)->ctx);                                       \
        double dt_ = now() - t0_;                                               \
        if (st_ != PP_OK) {                                                     \
            fprintf(stderr, "[rank %d] %s failed: %s (%s)\n", (b)->rank, #call, \
                    pp_mpi_status_string(st_), pp_mpi_last_error());            \
            (b)->failed = 1;                                                    \
        }                                                                       \
        MPI_Allreduce(MPI_IN_PLACE, &dt_, 1, MPI_DOUBLE, MPI_MAX, (b)->comm);   \
        (secs) = dt_;                                                           \
    } while (0)

/* The best of b->reps timed runs of `call`. */
#define BEST_OF(b, best, call)                        \
    do {                                              \
        (best) = 1e30;                                \
        for (int r_ = 0; r_ < (b)->reps; ++r_) {      \
            double t_;                                \
            TIME_MAX(b, t_, call);                    \
            if (t_ < (best)) (best) = t_;             \
        }                                             \
    } while (0)

static void row(const bench *b, const char *name, const char *how, double secs, int ok)
{
    if (b->rank) return;
    printf("%-12s %-6s %5d %14" PRIu64 " %14" PRIu64 " %12.3f %10.1f  %s\n", name, how, b->size, b->total,
           b->total / (uint64_t)b->size, secs * 1e3, (double)b->total / secs / 1e6, ok ? "verified" : "WRONG");
    fflush(stdout);
}

/* The ranks agree that every rank's check passed. */
static int all_ok(bench *b, int ok)
{
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, b->comm);
    if (!ok) b->failed = 1;
    return ok;
}

static uint32_t *random_u32(const bench *b, uint64_t n, uint32_t mod)
{
    uint32_t *h = (uint32_t *)malloc(n * 4 + 4);
    if (!h) abort();
    uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(b->rank + 1);
    for (uint64_t i = 0; i < n; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        h[i] = mod ? (uint32_t)(s % mod) : (uint32_t)s;
    }
    return h;
}

static void *to_ctx(bench *b, const void *h, size_t bytes)
{
    void *d = NULL;
    if (pp_malloc(b->ctx, &d, bytes ? bytes : 1) != PP_OK) {
        fprintf(stderr, "[rank %d] pp_malloc(%zu) failed\n", b->rank, bytes);
        MPI_Abort(b->comm, 1);
    }
    if (h && bytes) pp_memcpy(b->ctx, d, h, bytes, PP_COPY_HOST_TO_CONTEXT);
    return d;
}

static void *to_host(bench *b, const void *d, size_t bytes)
{
    void *h = malloc(bytes ? bytes : 1);
    if (!h) abort();
    if (bytes) pp_memcpy(b->ctx, h, d, bytes, PP_COPY_CONTEXT_TO_HOST);
    return h;
}

static void bench_reduce(bench *b)
{
    uint32_t *h = random_u32(b, b->n, 0);
    void *d = to_ctx(b, h, b->n * 4);
    uint64_t want = 0, got = 0;
    for (uint64_t i = 0; i < b->n; ++i) want += h[i];
    MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_UINT64_T, MPI_SUM, b->comm);
    double best;
    BEST_OF(b, best, pp_mpi_reduce(b->ctx, b->comm, d, b->n, PP_U32, PP_OP_SUM, &got, PP_U64, PP_RESULT_HOST));
    row(b, "reduce", "mpi", best, all_ok(b, got == want));
    if (b->size == 1) {
        BEST_OF(b, best, pp_reduce(b->ctx, d, b->n, PP_U32, PP_OP_SUM, &got, PP_U64, PP_RESULT_HOST));
        row(b, "reduce", "local", best, all_ok(b, got == want));
    }
    pp_free(b->ctx, d);
    free(h);
}

static void bench_scan(bench *b)
{
    uint32_t *h = random_u32(b, b->n, 1000);
    void *d = to_ctx(b, h, b->n * 4), *o = to_ctx(b, NULL, b->n * 8);
    uint64_t sum = 0, prefix = 0;
    for (uint64_t i = 0; i < b->n; ++i) sum += h[i];
    MPI_Exscan(&sum, &prefix, 1, MPI_UINT64_T, MPI_SUM, b->comm);
    if (b->rank == 0) prefix = 0;
    double best;
    BEST_OF(b, best, pp_mpi_inclusive_scan(b->ctx, b->comm, d, b->n, PP_U32, PP_OP_SUM, o, PP_U64));
    uint64_t *g = (uint64_t *)to_host(b, o, b->n * 8);
    int ok = 1;
    for (uint64_t i = 0, acc = prefix; i < b->n && ok; ++i) ok = g[i] == (acc += h[i]);
    row(b, "scan", "mpi", best, all_ok(b, ok));
    if (b->size == 1) {
        BEST_OF(b, best, pp_inclusive_scan(b->ctx, d, b->n, PP_U32, PP_OP_SUM, o, PP_U64));
        row(b, "scan", "local", best, all_ok(b, ok));
    }
    free(g);
    pp_free(b->ctx, o);
    pp_free(b->ctx, d);
    free(h);
}

static void bench_histogram(bench *b)
{
    uint32_t *h = random_u32(b, b->n, 0);
    void *d = to_ctx(b, h, b->n * 4), *counts = to_ctx(b, NULL, 1024 * 8);
    uint64_t *want = (uint64_t *)calloc(1024, 8);
    for (uint64_t i = 0; i < b->n; ++i) ++want[h[i] >> 22];
    MPI_Allreduce(MPI_IN_PLACE, want, 1024, MPI_UINT64_T, MPI_SUM, b->comm);
    double best;
    BEST_OF(b, best, pp_mpi_histogram_even(b->ctx, b->comm, d, b->n, PP_U32, 1024, 0, 4294967296.0, counts, PP_U64));
    uint64_t *g = (uint64_t *)to_host(b, counts, 1024 * 8);
    row(b, "histogram", "mpi", best, all_ok(b, memcmp(g, want, 1024 * 8) == 0));
    if (b->size == 1) {
        BEST_OF(b, best, pp_histogram_even(b->ctx, d, b->n, PP_U32, 1024, 0, 4294967296.0, counts, PP_U64));
        row(b, "histogram", "local", best, all_ok(b, 1));
    }
    free(g);
    free(want);
    pp_free(b->ctx, counts);
    pp_free(b->ctx, d);
    free(h);
}

static void bench_select(bench *b)
{
    uint32_t *h = random_u32(b, b->n, 0);
    void *d = to_ctx(b, h, b->n * 4), *o = to_ctx(b, NULL, b->n * 4);
    pp_predicate pred;
    memset(&pred, 0, sizeof pred);
    pred.kind = PP_PRED_LT;
    pred.a.u32 = 1u << 31; /* half */
    pp_mpi_counts c = {0, 0, 0};
    double best;
    BEST_OF(b, best, pp_mpi_select_if(b->ctx, b->comm, d, b->n, PP_U32, &pred, NULL, PP_U8, o, NULL, &c));
    uint32_t *g = (uint32_t *)to_host(b, o, c.count * 4);
    uint64_t k = 0, total = 0;
    int ok = 1;
    for (uint64_t i = 0; i < b->n && ok; ++i)
        if (h[i] < pred.a.u32) ok = k < c.count && g[k++] == h[i];
    ok = ok && k == c.count;
    MPI_Allreduce(&k, &total, 1, MPI_UINT64_T, MPI_SUM, b->comm);
    row(b, "select_if", "mpi", best, all_ok(b, ok && total == c.total));
    if (b->size == 1) {
        uint64_t cnt = 0;
        BEST_OF(b, best, pp_select_if(b->ctx, d, b->n, PP_U32, &pred, NULL, PP_U8, o, NULL, &cnt, PP_RESULT_HOST));
        row(b, "select_if", "local", best, all_ok(b, cnt == c.count));
    }
    free(g);
    pp_free(b->ctx, o);
    pp_free(b->ctx, d);
    free(h);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench b;
    memset(&b, 0, sizeof b);
    b.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(b.comm, &b.rank);
    MPI_Comm_size(b.comm, &b.size);
    uint64_t n = (uint64_t)1 << 24;
    int weak = 0;
    const char *only = NULL, *backend = "cpu";
    b.reps = 5;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) n = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) b.reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--weak")) weak = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) backend = argv[++i];
        else {
            if (b.rank == 0)
                fprintf(stderr, "usage: mpiexec -n P %s [--backend cpu|hip] [--n N] [--reps R] [--weak] [--only NAME]\n",
                        argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (b.reps < 1) b.reps = 1;
    const int hip = !strcmp(backend, "hip");
    pp_status st = PP_ERROR_NO_DEVICE;
    if (hip) st = pp_context_create(&b.ctx, PP_BACKEND_HIP, b.rank);
    if (st != PP_OK) st = pp_context_create(&b.ctx, hip ? PP_BACKEND_HIP : PP_BACKEND_CPU, 0);
    if (st != PP_OK) {
        fprintf(stderr, "[rank %d] no %s context: %s\n", b.rank, backend, pp_last_create_error());
        MPI_Abort(b.comm, 1);
    }
    b.n = weak ? n : n / (uint64_t)b.size + ((uint64_t)b.rank < n % (uint64_t)b.size);
    MPI_Allreduce(&b.n, &b.total, 1, MPI_UINT64_T, MPI_SUM, b.comm);
    if (b.rank == 0) {
        printf("parprim-bench-mpi: %d ranks, %s scaling, backend %s (%s), direct MPI buffers: %s, parprim %s\n",
               b.size, weak ? "weak" : "strong", backend, pp_context_device_name(b.ctx),
               pp_mpi_direct(b.ctx) ? "yes" : "no (host staging)", pp_version_string());
        printf("%-12s %-6s %5s %14s %14s %12s %10s  %s\n", "primitive", "how", "ranks", "keys", "keys/rank", "ms",
               "Mkeys/s", "check");
    }
    if (!only || !strcmp(only, "reduce")) bench_reduce(&b);
    if (!only || !strcmp(only, "scan")) bench_scan(&b);
    if (!only || !strcmp(only, "histogram")) bench_histogram(&b);
    if (!only || !strcmp(only, "select")) bench_select(&b);
#ifdef PBM_HAVE_SORT
    if (!only || !strcmp(only, "sort") || !strcmp(only, "sort_pairs"))
        if (pbm_sort_rows(b.ctx, b.comm, weak ? n : b.total, b.reps, weak, stdout) != 0) b.failed = 1;
#endif
    pp_context_destroy(b.ctx);
    int failed = b.failed;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, b.comm);
    MPI_Finalize();
    return failed ? 1 : 0;
}
