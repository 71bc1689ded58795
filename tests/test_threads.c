/*
 * test_threads.c -- several contexts used from several host threads at once.
 *
 * What parprim.h promises ("Thread safety" in its top comment): contexts are independent,
 * so threads that each use their own context may call the library at the same time, and
 * pp_last_create_error is per thread. Each worker thread here creates its own context (of
 * the backend under test), sets its own options, uploads its own data and runs reduce,
 * argmax, scan and histogram calls several rounds, all threads released together by a
 * barrier. Every result must be bitwise equal to the same calls made from the main thread
 * alone (the float results too: the header promises the same bits on a repeat on the same
 * backend and device, and nothing another context does may change that).
 *
 * The workers do not call cmocka (it is not thread-safe): they record the first problem in
 * their job, and the main thread fails the test with it.
 */
#include "common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 8
#define EVEN_BINS 1000
#define RANGE_BINS 256

/* One thread's work: its inputs (host), its options, and what its calls returned. */
typedef struct job {
    pp_backend backend;
    int id;
    size_t n;
    int rounds;
    int64_t hist_round; /* PP_OPTION_CPU_HIST_ROUND for this context (0: default) */
    int64_t hist_lanes; /* PP_OPTION_CPU_HIST_LANES */
    const float *xf;
    const uint32_t *xu;
    const double *edges;
    pthread_barrier_t *start; /* NULL: run at once (the single-thread reference) */

    /* results of the first round; later rounds must repeat them */
    float sum_f32;
    uint64_t sum_u32_u64;
    float max_f32;
    uint64_t max_at;
    float *scan_f32;     /* inclusive sum, n */
    uint64_t *xscan_u64; /* exclusive sum u32 -> u64 from init, n */
    uint32_t *even;      /* EVEN_BINS */
    uint64_t *range;     /* RANGE_BINS */
    char error[512];
} job;

static void job_error(job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void job_error(job *j, const char *fmt, ...)
{
    if (j->error[0]) return; /* keep the first */
    int k = snprintf(j->error, sizeof j->error, "thread %d (n = %zu): ", j->id, j->n);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->error + k, sizeof j->error - (size_t)k, fmt, ap);
    va_end(ap);
}

/* Stops the job at the first failed call, with the call and the context's message. */
#define JOB_CALL(j, ctx, call)                                                                       \
    do {                                                                                             \
        pp_status st_ = (call);                                                                      \
        if (st_ != PP_OK) {                                                                          \
            job_error(j, "%s returned %s: %s", #call, pp_status_string(st_), pp_context_last_error(ctx)); \
            goto done;                                                                               \
        }                                                                                            \
    } while (0)

static void *run_job(void *arg)
{
    job *j = (job *)arg;
    const size_t n = j->n;
    pp_context *ctx = NULL;
    void *xf = NULL, *xu = NULL, *edges = NULL, *scan = NULL, *xscan = NULL, *even = NULL, *range = NULL;
    float *h_scan = (float *)malloc(n * sizeof(float));
    uint64_t *h_xscan = (uint64_t *)malloc(n * sizeof(uint64_t));
    uint32_t h_even[EVEN_BINS];
    uint64_t h_range[RANGE_BINS];
    if (!h_scan || !h_xscan) {
        job_error(j, "out of host memory");
        goto done;
    }
    if (j->start) pthread_barrier_wait(j->start); /* every thread creates its context at once */
    if (pp_context_create(&ctx, j->backend, 0) != PP_OK) {
        job_error(j, "pp_context_create(%s): %s", pp_backend_name(j->backend), pp_last_create_error());
        ctx = NULL;
        goto done;
    }
    if (j->hist_round) JOB_CALL(j, ctx, pp_context_set_option(ctx, PP_OPTION_CPU_HIST_ROUND, j->hist_round));
    if (j->hist_lanes) JOB_CALL(j, ctx, pp_context_set_option(ctx, PP_OPTION_CPU_HIST_LANES, j->hist_lanes));
    JOB_CALL(j, ctx, pp_malloc(ctx, &xf, n * sizeof(float)));
    JOB_CALL(j, ctx, pp_malloc(ctx, &xu, n * sizeof(uint32_t)));
    JOB_CALL(j, ctx, pp_malloc(ctx, &edges, (RANGE_BINS + 1) * sizeof(double)));
    JOB_CALL(j, ctx, pp_malloc(ctx, &scan, n * sizeof(float)));
    JOB_CALL(j, ctx, pp_malloc(ctx, &xscan, n * sizeof(uint64_t)));
    JOB_CALL(j, ctx, pp_malloc(ctx, &even, EVEN_BINS * sizeof(uint32_t)));
    JOB_CALL(j, ctx, pp_malloc(ctx, &range, RANGE_BINS * sizeof(uint64_t)));
    JOB_CALL(j, ctx, pp_memcpy(ctx, xf, j->xf, n * sizeof(float), PP_COPY_HOST_TO_CONTEXT));
    JOB_CALL(j, ctx, pp_memcpy(ctx, xu, j->xu, n * sizeof(uint32_t), PP_COPY_HOST_TO_CONTEXT));
    JOB_CALL(j, ctx, pp_memcpy(ctx, edges, j->edges, (RANGE_BINS + 1) * sizeof(double), PP_COPY_HOST_TO_CONTEXT));

    for (int r = 0; r < j->rounds; ++r) {
        float sum_f32, max_f32;
        uint64_t sum_u64, max_at;
        const uint64_t init = 1000u + (uint64_t)j->id;
        JOB_CALL(j, ctx, pp_reduce(ctx, xf, n, PP_F32, PP_OP_SUM, &sum_f32, PP_F32, PP_RESULT_HOST));
        JOB_CALL(j, ctx, pp_reduce(ctx, xu, n, PP_U32, PP_OP_SUM, &sum_u64, PP_U64, PP_RESULT_HOST));
        JOB_CALL(j, ctx, pp_argmax(ctx, xf, n, PP_F32, &max_f32, &max_at, PP_RESULT_HOST));
        JOB_CALL(j, ctx, pp_inclusive_scan(ctx, xf, n, PP_F32, PP_OP_SUM, scan, PP_F32));
        JOB_CALL(j, ctx, pp_exclusive_scan(ctx, xu, n, PP_U32, PP_OP_SUM, &init, xscan, PP_U64));
        JOB_CALL(j, ctx, pp_histogram_even(ctx, xf, n, PP_F32, EVEN_BINS, -1.0, 1.0, even, PP_U32));
        JOB_CALL(j, ctx, pp_histogram_range(ctx, xf, n, PP_F32, (const double *)edges, RANGE_BINS, range, PP_U64));
        JOB_CALL(j, ctx, pp_memcpy(ctx, h_scan, scan, n * sizeof(float), PP_COPY_CONTEXT_TO_HOST));
        JOB_CALL(j, ctx, pp_memcpy(ctx, h_xscan, xscan, n * sizeof(uint64_t), PP_COPY_CONTEXT_TO_HOST));
        JOB_CALL(j, ctx, pp_memcpy(ctx, h_even, even, sizeof h_even, PP_COPY_CONTEXT_TO_HOST));
        JOB_CALL(j, ctx, pp_memcpy(ctx, h_range, range, sizeof h_range, PP_COPY_CONTEXT_TO_HOST));
        if (r == 0) {
            j->sum_f32 = sum_f32;
            j->sum_u32_u64 = sum_u64;
            j->max_f32 = max_f32;
            j->max_at = max_at;
            memcpy(j->scan_f32, h_scan, n * sizeof(float));
            memcpy(j->xscan_u64, h_xscan, n * sizeof(uint64_t));
            memcpy(j->even, h_even, sizeof h_even);
            memcpy(j->range, h_range, sizeof h_range);
            continue;
        }
        if (memcmp(&sum_f32, &j->sum_f32, sizeof sum_f32) || sum_u64 != j->sum_u32_u64 ||
            memcmp(&max_f32, &j->max_f32, sizeof max_f32) || max_at != j->max_at ||
            memcmp(h_scan, j->scan_f32, n * sizeof(float)) || memcmp(h_xscan, j->xscan_u64, n * sizeof(uint64_t)) ||
            memcmp(h_even, j->even, sizeof h_even) || memcmp(h_range, j->range, sizeof h_range)) {
            job_error(j, "round %d differs from round 0 of the same thread", r);
            goto done;
        }
    }
done:
    if (ctx) {
        pp_free(ctx, range);
        pp_free(ctx, even);
        pp_free(ctx, xscan);
        pp_free(ctx, scan);
        pp_free(ctx, edges);
        pp_free(ctx, xu);
        pp_free(ctx, xf);
        pp_context_destroy(ctx);
    }
    free(h_xscan);
    free(h_scan);
    return NULL;
}

static void job_alloc(job *j)
{
    j->scan_f32 = (float *)tc_xmalloc(j->n * sizeof(float));
    j->xscan_u64 = (uint64_t *)tc_xmalloc(j->n * sizeof(uint64_t));
    j->even = (uint32_t *)tc_xmalloc(EVEN_BINS * sizeof(uint32_t));
    j->range = (uint64_t *)tc_xmalloc(RANGE_BINS * sizeof(uint64_t));
    j->error[0] = '\0';
}

static void job_release(job *j)
{
    free(j->scan_f32);
    free(j->xscan_u64);
    free(j->even);
    free(j->range);
}

/* The first difference between a thread's results and the reference's, or NULL. */
static const char *job_diff(const job *a, const job *ref, char *buf, size_t size)
{
    if (memcmp(&a->sum_f32, &ref->sum_f32, sizeof a->sum_f32))
        snprintf(buf, size, "reduce sum f32: %a, one thread alone: %a", (double)a->sum_f32, (double)ref->sum_f32);
    else if (a->sum_u32_u64 != ref->sum_u32_u64)
        snprintf(buf, size, "reduce sum u32->u64: %llu, one thread alone: %llu", (unsigned long long)a->sum_u32_u64,
                 (unsigned long long)ref->sum_u32_u64);
    else if (memcmp(&a->max_f32, &ref->max_f32, sizeof a->max_f32) || a->max_at != ref->max_at)
        snprintf(buf, size, "argmax f32: %a at %llu, one thread alone: %a at %llu", (double)a->max_f32,
                 (unsigned long long)a->max_at, (double)ref->max_f32, (unsigned long long)ref->max_at);
    else {
        for (size_t i = 0; i < a->n; ++i) {
            if (memcmp(&a->scan_f32[i], &ref->scan_f32[i], sizeof(float))) {
                snprintf(buf, size, "inclusive scan f32: out[%zu] = %a, one thread alone: %a", i,
                         (double)a->scan_f32[i], (double)ref->scan_f32[i]);
                return buf;
            }
            if (a->xscan_u64[i] != ref->xscan_u64[i]) {
                snprintf(buf, size, "exclusive scan u32->u64: out[%zu] = %llu, one thread alone: %llu", i,
                         (unsigned long long)a->xscan_u64[i], (unsigned long long)ref->xscan_u64[i]);
                return buf;
            }
        }
        for (size_t b = 0; b < EVEN_BINS; ++b)
            if (a->even[b] != ref->even[b]) {
                snprintf(buf, size, "histogram_even: bin %zu = %u, one thread alone: %u", b, a->even[b], ref->even[b]);
                return buf;
            }
        for (size_t b = 0; b < RANGE_BINS; ++b)
            if (a->range[b] != ref->range[b]) {
                snprintf(buf, size, "histogram_range: bin %zu = %llu, one thread alone: %llu", b,
                         (unsigned long long)a->range[b], (unsigned long long)ref->range[b]);
                return buf;
            }
        return NULL;
    }
    return buf;
}

/* Every thread with its own context and data, at once; then each job again alone. */
static void t_threads_contexts(void **state)
{
    tc_env *env = tc_envp(state);
    const int nthreads = tc_thorough() ? MAX_THREADS : 4;
    const int rounds = tc_thorough() ? 4 : 2;
    tc_rng rng = tc_rng_for("t_threads_contexts");

    double edges[RANGE_BINS + 1];
    for (int b = 0; b <= RANGE_BINS; ++b) /* uneven bins over [-1, 1): binary search, not arithmetic */
        edges[b] = -1.0 + 2.0 * ((double)b / RANGE_BINS) * ((double)b / RANGE_BINS);

    job jobs[MAX_THREADS], ref;
    float *xf[MAX_THREADS];
    uint32_t *xu[MAX_THREADS];
    pthread_barrier_t start;
    TC_CHECK(pthread_barrier_init(&start, NULL, (unsigned)nthreads) == 0, "pthread_barrier_init");
    for (int t = 0; t < nthreads; ++t) {
        /* sizes around the CPU's parallel thresholds and GPU tile counts, each thread its own */
        const size_t n = (tc_thorough() ? (size_t)1 << 20 : (size_t)1 << 17) + (size_t)t * 40009 + tc_below(&rng, 4096);
        xf[t] = (float *)tc_xmalloc(n * sizeof(float));
        xu[t] = (uint32_t *)tc_xmalloc(n * sizeof(uint32_t));
        for (size_t i = 0; i < n; ++i) xf[t][i] = (float)(2.0 * tc_unit(&rng) - 1.0);
        tc_fill(&rng, xu[t], n, PP_U32, TC_RANDOM);
        jobs[t] = (job){.backend = env->backend, .id = t, .n = n, .rounds = rounds, .xf = xf[t], .xu = xu[t],
                        .edges = edges, .start = &start,
                        /* per-context options that change the CPU histogram's passes, not its counts */
                        .hist_round = t % 2 ? (int64_t)1 << 16 : 0, .hist_lanes = t % 3 == 1 ? 4 : 0};
        job_alloc(&jobs[t]);
    }
    tc_case("backend %s, %d threads x %d rounds, seed %llu", pp_backend_name(env->backend), nthreads, rounds, tc_seed);

    pthread_t th[MAX_THREADS];
    for (int t = 0; t < nthreads; ++t)
        TC_CHECK(pthread_create(&th[t], NULL, run_job, &jobs[t]) == 0, "pthread_create %d", t);
    for (int t = 0; t < nthreads; ++t) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    for (int t = 0; t < nthreads; ++t)
        if (jobs[t].error[0]) TC_FAIL("in parallel: %s", jobs[t].error);

    for (int t = 0; t < nthreads; ++t) {
        ref = jobs[t];
        ref.start = NULL;
        ref.rounds = 1;
        job_alloc(&ref);
        run_job(&ref);
        if (ref.error[0]) TC_FAIL("alone: %s", ref.error);
        char buf[256];
        const char *d = job_diff(&jobs[t], &ref, buf, sizeof buf);
        if (d) TC_FAIL("thread %d of %d (n = %zu): %s", t, nthreads, jobs[t].n, d);
        job_release(&ref);
    }
    for (int t = 0; t < nthreads; ++t) {
        job_release(&jobs[t]);
        free(xf[t]);
        free(xu[t]);
    }
}

/* pp_last_create_error is per thread: each thread's failed creations report its own
 * argument, while other threads create and destroy contexts and fail with theirs. */
typedef struct create_job {
    pp_backend backend;
    int id, iters;
    pthread_barrier_t *start;
    char error[512];
} create_job;

static void *run_create(void *arg)
{
    create_job *j = (create_job *)arg;
    const int bad = 100 + j->id; /* not a pp_backend */
    char own[16];
    snprintf(own, sizeof own, "%d", bad);
    pthread_barrier_wait(j->start);
    for (int i = 0; i < j->iters && !j->error[0]; ++i) {
        pp_context *ctx = NULL;
        if (pp_context_create(&ctx, (pp_backend)bad, 0) != PP_ERROR_INVALID_ARGUMENT) {
            snprintf(j->error, sizeof j->error, "thread %d: backend %d was not rejected", j->id, bad);
            break;
        }
        const char *msg = pp_last_create_error();
        if (!strstr(msg, own)) {
            snprintf(j->error, sizeof j->error, "thread %d: its message for backend %d is \"%s\"", j->id, bad, msg);
            break;
        }
        pp_status st = pp_context_create(&ctx, j->backend, 0);
        if (st != PP_OK) {
            snprintf(j->error, sizeof j->error, "thread %d: pp_context_create(%s): %s", j->id,
                     pp_backend_name(j->backend), pp_last_create_error());
            break;
        }
        float one = 1.0f, sum = 0.0f;
        void *x = NULL;
        if (pp_malloc(ctx, &x, sizeof one) != PP_OK || pp_memcpy(ctx, x, &one, sizeof one, PP_COPY_HOST_TO_CONTEXT) != PP_OK ||
            pp_reduce(ctx, x, 1, PP_F32, PP_OP_SUM, &sum, PP_F32, PP_RESULT_HOST) != PP_OK || sum != 1.0f)
            snprintf(j->error, sizeof j->error, "thread %d: a one-element reduce failed: %s", j->id,
                     pp_context_last_error(ctx));
        pp_free(ctx, x);
        pp_context_destroy(ctx);
    }
    return NULL;
}

static void t_threads_create(void **state)
{
    tc_env *env = tc_envp(state);
    const int nthreads = MAX_THREADS;
    const int iters = tc_thorough() ? 200 : 40;
    create_job jobs[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    pthread_barrier_t start;
    TC_CHECK(pthread_barrier_init(&start, NULL, (unsigned)nthreads) == 0, "pthread_barrier_init");
    tc_case("backend %s, %d threads x %d creations", pp_backend_name(env->backend), nthreads, iters);
    for (int t = 0; t < nthreads; ++t) {
        jobs[t] = (create_job){.backend = env->backend, .id = t, .iters = iters, .start = &start};
        TC_CHECK(pthread_create(&th[t], NULL, run_create, &jobs[t]) == 0, "pthread_create %d", t);
    }
    for (int t = 0; t < nthreads; ++t) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    for (int t = 0; t < nthreads; ++t)
        if (jobs[t].error[0]) TC_FAIL("%s", jobs[t].error);
}

int main(void)
{
    tc_init("test_threads");
    const struct CMUnitTest tests[] = {
        TC_BOTH(t_threads_contexts),
        TC_BOTH(t_threads_create),
    };
    return TC_RUN("threads", tests);
}
