/*
 * mpi_check.h -- the harness of parprim_mpi's tests (tests/mpi), run under mpirun with 1, 2
 * and 4 ranks. Not cmocka: a failed check on one rank must not leave the others waiting in
 * a collective, so checks count failures and go on, every case ends with the ranks agreeing
 * on the count, and the program's exit status is the same on every rank (0, 1 on a failure,
 * 77 when the backend asked for is absent: ctest's Skipped).
 *
 * Each rank makes its own context of PP_TEST_BACKEND (cpu, the default, or hip: device rank
 * % devices) and a CPU context for the oracles: the single-process call on the gathered
 * data. The seed (PP_TEST_SEED or the time) is rank 0's, broadcast, printed, and in every
 * failure. Header-only (static functions): one test program includes it once.
 */
#ifndef PP_MPI_CHECK_H
#define PP_MPI_CHECK_H

#include <inttypes.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parprim.h"
#include "parprim_mpi.h"

/* Every function of the harness: a program uses some of them. */
#define MC_FN static __attribute__((unused))

typedef struct mc_env {
    MPI_Comm comm;
    int rank, size;
    pp_context *ctx; /* PP_TEST_BACKEND's */
    pp_context *cpu; /* the oracles' */
    const char *backend;
    unsigned long long seed;
    const char *suite;
    const char *case_name;
    long failures; /* this rank's, in the current case */
    long failed_cases;
    int cases;
    int skip;    /* the backend is absent on some rank: every case is counted and skipped */
    int skipped;
} mc_env;

static mc_env mc;

/* ---- random numbers: splitmix64, one stream per (case, rank, purpose) --------------------- */
typedef struct mc_rng {
    uint64_t s;
} mc_rng;

MC_FN uint64_t mc_next(mc_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
MC_FN uint64_t mc_below(mc_rng *r, uint64_t bound) { return bound ? mc_next(r) % bound : 0; }

/* A stream for `what` on rank `rank` (pass mc.rank for this rank's data, or -1 for data
 * every rank draws alike). */
MC_FN mc_rng mc_rng_for(const char *what, int rank)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = what; *p; ++p) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    mc_rng r = {mc.seed ^ h ^ ((uint64_t)(rank + 2) << 40)};
    mc_next(&r);
    return r;
}

/* ---- checks --------------------------------------------------------------------------------- */
MC_FN void mc_fail_at(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
MC_FN void mc_fail_at(const char *file, int line, const char *fmt, ...)
{
    if (mc.failures < 8) {
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        fprintf(stderr, "[rank %d/%d] FAIL %s (%s:%d): %s [backend %s, PP_TEST_SEED=%llu]\n", mc.rank, mc.size,
                mc.case_name ? mc.case_name : "?", file, line, msg, mc.backend, mc.seed);
    }
    ++mc.failures;
}
#define MC_FAIL(...) mc_fail_at(__FILE__, __LINE__, __VA_ARGS__)
/* MC_CHECK(cond, "format", ...): the format must be a string literal. */
#define MC_CHECK(cond, ...)                                 \
    do {                                                    \
        if (!(cond)) MC_FAIL("(" #cond ") " __VA_ARGS__);   \
    } while (0)
/* A call that must return PP_OK (parprim_mpi's or parprim's). */
#define MC_OK(call)                                                                                    \
    do {                                                                                               \
        pp_status st_ = (call);                                                                        \
        if (st_ != PP_OK)                                                                              \
            MC_FAIL("%s returned %s (mpi message \"%s\", context message \"%s\")", #call,              \
                    pp_mpi_status_string(st_), pp_mpi_last_error(), pp_context_last_error(mc.ctx));    \
    } while (0)

/* ---- memory in the test context's space ----------------------------------------------------- */

/* A copy of `bytes` of host data in the test context's space (NULL for 0 bytes). */
MC_FN void *mc_to_ctx(const void *host, size_t bytes)
{
    void *p = NULL;
    if (!bytes) return NULL;
    if (pp_malloc(mc.ctx, &p, bytes) != PP_OK) {
        MC_FAIL("pp_malloc(%zu) failed", bytes);
        return NULL;
    }
    if (host && pp_memcpy(mc.ctx, p, host, bytes, PP_COPY_HOST_TO_CONTEXT) != PP_OK) MC_FAIL("copy to the context failed");
    return p;
}
/* `bytes` of context memory, set to 0xA5 bytes (so that unwritten outputs show). */
MC_FN void *mc_ctx_alloc(size_t bytes)
{
    void *p = NULL;
    if (!bytes) return NULL;
    if (pp_malloc(mc.ctx, &p, bytes) != PP_OK) {
        MC_FAIL("pp_malloc(%zu) failed", bytes);
        return NULL;
    }
    pp_memset(mc.ctx, p, 0xA5, bytes);
    return p;
}
/* A host copy (malloc; the caller frees) of `bytes` of context memory. */
MC_FN void *mc_from_ctx(const void *p, size_t bytes)
{
    void *h = malloc(bytes ? bytes : 1);
    if (!h) abort();
    if (bytes && pp_memcpy(mc.ctx, h, p, bytes, PP_COPY_CONTEXT_TO_HOST) != PP_OK) MC_FAIL("copy to the host failed");
    return h;
}
MC_FN void mc_ctx_free(void *p)
{
    if (p) pp_free(mc.ctx, p);
}

/* ---- gathering ------------------------------------------------------------------------------ */

/* The counts of every rank (size entries, malloc) and their sum / this rank's offset. */
MC_FN uint64_t *mc_counts(uint64_t n, uint64_t *total, uint64_t *offset)
{
    uint64_t *all = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)mc.size);
    if (!all) abort();
    MPI_Allgather(&n, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, mc.comm);
    uint64_t t = 0, o = 0;
    for (int r = 0; r < mc.size; ++r) {
        if (r < mc.rank) o += all[r];
        t += all[r];
    }
    if (total) *total = t;
    if (offset) *offset = o;
    return all;
}

/* Every rank's `n` elements of `esize` bytes, concatenated in rank order, on every rank
 * (malloc; the caller frees). *total receives the element count. */
MC_FN void *mc_allgather(const void *mine, uint64_t n, size_t esize, uint64_t *total)
{
    uint64_t t = 0;
    uint64_t *all = mc_counts(n, &t, NULL);
    const size_t bytes_all = (size_t)t * esize;
    unsigned char *out = (unsigned char *)malloc(bytes_all > 0 ? bytes_all : 1);
    if (!out) abort();
    /* byte counts may pass INT_MAX in big runs: send rank by rank with MPI_Bcast in chunks */
    uint64_t at = 0;
    for (int r = 0; r < mc.size; ++r) {
        uint64_t bytes = all[r] * esize;
        if (r == mc.rank && bytes) memcpy(out + at, mine, bytes);
        for (uint64_t o = 0; o < bytes; o += 1u << 30) {
            const uint64_t k = bytes - o < (1u << 30) ? bytes - o : (1u << 30);
            MPI_Bcast(out + at + o, (int)k, MPI_BYTE, r, mc.comm);
        }
        at += bytes;
    }
    free(all);
    if (total) *total = t;
    return out;
}

/* 1 on every rank when all ranks pass 1. */
MC_FN int mc_all(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, mc.comm);
    return all;
}

/* ---- the program ---------------------------------------------------------------------------- */

MC_FN void mc_init(int *argc, char ***argv, const char *suite)
{
    MPI_Init(argc, argv);
    mc.comm = MPI_COMM_WORLD;
    mc.suite = suite;
    MPI_Comm_rank(mc.comm, &mc.rank);
    MPI_Comm_size(mc.comm, &mc.size);
    const char *b = getenv("PP_TEST_BACKEND");
    mc.backend = b && *b ? b : "cpu";
    unsigned long long seed = 0;
    const char *s = getenv("PP_TEST_SEED");
    if (mc.rank == 0) seed = s && *s ? strtoull(s, NULL, 0) : (unsigned long long)time(NULL) ^ 0x5EEDull;
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, mc.comm);
    mc.seed = seed;

    /* contexts; a missing backend skips on every rank alike */
    const int hip = strcmp(mc.backend, "hip") == 0;
    int ok = 1;
    if (hip && !pp_backend_available(PP_BACKEND_HIP)) ok = 0;
    if (!mc_all(ok)) { /* mc_run counts the cases, mc_finish reports them and exits 77 */
        mc.skip = 1;
        return;
    }
    /* HIP: device `rank` where it exists (one device per rank), else device 0 (ranks
     * sharing one GPU) */
    pp_status st = PP_ERROR_NO_DEVICE;
    if (hip) st = pp_context_create(&mc.ctx, PP_BACKEND_HIP, mc.rank);
    if (st != PP_OK) st = pp_context_create(&mc.ctx, hip ? PP_BACKEND_HIP : PP_BACKEND_CPU, 0);
    pp_status st2 = pp_context_create(&mc.cpu, PP_BACKEND_CPU, 0);
    if (!mc_all(st == PP_OK && st2 == PP_OK)) {
        fprintf(stderr, "[rank %d] %s: context creation failed: %s\n", mc.rank, suite, pp_last_create_error());
        MPI_Finalize();
        exit(1);
    }
    /* PP_TEST_MPI_STAGED=1: every transfer through host staging (PP_OPTION_MPI_STAGING), the
     * path of a GPU rank without a GPU-aware MPI, run here on any backend */
    const char *staged = getenv("PP_TEST_MPI_STAGED");
    if (staged && !strcmp(staged, "1") && pp_context_set_option(mc.ctx, PP_OPTION_MPI_STAGING, 1) != PP_OK) {
        fprintf(stderr, "[rank %d] %s: cannot set PP_OPTION_MPI_STAGING\n", mc.rank, suite);
        MPI_Abort(mc.comm, 1);
    }
    if (mc.rank == 0)
        printf("%s: %d ranks, backend %s (%s), transfers %s, parprim %s, PP_TEST_SEED=%llu\n", suite, mc.size,
               mc.backend, pp_context_device_name(mc.ctx), pp_mpi_direct(mc.ctx) ? "direct" : "staged",
               pp_version_string(), mc.seed);
    fflush(stdout);
}

/* Run one case on every rank; the ranks agree on its verdict. */
MC_FN void mc_run(const char *name, void (*fn)(void))
{
    mc.case_name = name;
    mc.failures = 0;
    const char *filter = getenv("PP_TEST_FILTER");
    if (filter && *filter && !strstr(name, filter)) return;
    if (mc.skip) {
        ++mc.skipped;
        return;
    }
    double t0 = MPI_Wtime();
    fn();
    long all = 0;
    MPI_Allreduce(&mc.failures, &all, 1, MPI_LONG, MPI_SUM, mc.comm);
    ++mc.cases;
    if (all) ++mc.failed_cases;
    if (mc.rank == 0) {
        printf("[%s] %-40s %s (%.2f s)\n", all ? "FAILED" : "    ok", name, all ? "see the ranks' messages" : "",
               MPI_Wtime() - t0);
        fflush(stdout);
    }
}

MC_FN int mc_finish(void)
{
    if (mc.skip) {
        /* the line .ci/run adds up, as tests/common.c prints it */
        if (mc.rank == 0)
            printf("[gpu-skip] %s: %d HIP cases not run (no HIP device on some of the %d ranks)\n", mc.suite, mc.skipped,
                   mc.size);
        MPI_Finalize();
        /* a GPU present but unusable is a failure, as in tests/common.c */
        const int gpu_here = access("/dev/nvidia0", F_OK) == 0 || access("/dev/kfd", F_OK) == 0;
        return getenv("PP_TEST_REQUIRE_GPU") || gpu_here ? 1 : 77;
    }
    if (mc.rank == 0)
        printf("%s: %d cases on %d ranks, %ld failed (PP_TEST_SEED=%llu)\n", mc.suite, mc.cases, mc.size,
               mc.failed_cases, mc.seed);
    pp_context_destroy(mc.ctx);
    pp_context_destroy(mc.cpu);
    MPI_Finalize();
    return mc.failed_cases ? 1 : 0;
}

#endif /* PP_MPI_CHECK_H */
