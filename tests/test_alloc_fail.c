/*
 * test_alloc_fail.c -- allocation failure (issue 18, item 4), through the experimental test
 * hook PP_OPTION_FAIL_ALLOC (k > 0: the k-th allocation from now on fails, once).
 *
 * For every entry point and each backend (the HIP cases skip where no GPU is present), the
 * k-th allocation of a call is failed for k = 1, 2, ... on a fresh context (so that the
 * scratch arena, the pinned staging and the call's own tables are all allocated again),
 * until k passes the number of allocations the call makes (the hook then has not fired). A
 * call whose allocation failed must return PP_ERROR_OUT_OF_MEMORY with a message and leave
 * every output as it was (sentinels), or, where the library recovers from that allocation,
 * succeed with the right outputs; either way the context works for the next call, which must
 * give the outputs of a context that never failed. ASan (the CI's sanitizer build) finds
 * leaks on the failure paths. On the GPU a request larger than device memory must fail the
 * same way.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define AF_N (((size_t)1 << 20) + 3) /* elements: several tiles, parallel paths on the CPU */
#define AF_NSEG 100                  /* segments of the segmented calls */
#define AF_BINS 100                  /* bins of the range histogram */
#define AF_NOUT 1000                 /* outputs of reduce-by-index */
#define AF_OUT_BYTES (AF_N * 8 + 256) /* the context-space output buffer */
#define AF_HOST_BYTES 64              /* host results */
#define AF_MAX_K 64                   /* no call makes this many allocations */

/* Inputs, made once on the host. */
static struct af_inputs {
    float *fin;      /* AF_N whole numbers in [0, 15]: every f32 partial sum is exact (< 2^24) */
    int32_t *iin;    /* AF_N values in [0, 255] */
    size_t off[AF_NSEG + 1];
    uint8_t *flags;  /* AF_N head flags */
    double edges[AF_BINS + 1];
    uint32_t *idx;   /* AF_N indices, some >= AF_NOUT (skipped) */
} in_h;

/* One context's copies of the inputs and its outputs. */
typedef struct af_data {
    float *fin;
    int32_t *iin;
    size_t *off;
    uint8_t *flags;
    double *edges;
    uint32_t *idx;
    unsigned char *out;                  /* AF_OUT_BYTES in the context's space */
    _Alignas(16) unsigned char host[AF_HOST_BYTES];
    void *malloced;                      /* pp_malloc's result */
} af_data;

typedef struct af_case {
    const char *name;
    pp_status (*call)(pp_context *ctx, af_data *d);
} af_case;

/* ---- the calls: every entry point that can allocate, and a few that never do ---- */

static pp_status c_reduce_host(pp_context *c, af_data *d)
{
    return pp_reduce(c, d->fin, AF_N, PP_F32, PP_OP_SUM, d->host, PP_F32, PP_RESULT_HOST);
}
static pp_status c_reduce_ctx(pp_context *c, af_data *d)
{
    return pp_reduce(c, d->iin, AF_N, PP_I32, PP_OP_MAX, d->out, PP_I32, PP_RESULT_CONTEXT);
}
static pp_status c_argmin_host(pp_context *c, af_data *d)
{
    return pp_argmin(c, d->fin, AF_N, PP_F32, d->host, (uint64_t *)(d->host + 16), PP_RESULT_HOST);
}
static pp_status c_argmax_ctx(pp_context *c, af_data *d)
{
    return pp_argmax(c, d->iin, AF_N, PP_I32, d->out, (uint64_t *)(d->out + 16), PP_RESULT_CONTEXT);
}
static pp_status c_segreduce(pp_context *c, af_data *d)
{
    return pp_segmented_reduce(c, d->fin, AF_N, PP_F32, d->off, AF_NSEG, PP_OP_SUM, d->out, PP_F64);
}
static pp_status c_inclusive(pp_context *c, af_data *d)
{
    return pp_inclusive_scan(c, d->iin, AF_N, PP_I32, PP_OP_SUM, d->out, PP_I32);
}
static pp_status c_exclusive(pp_context *c, af_data *d)
{
    const double init = 5;
    return pp_exclusive_scan(c, d->fin, AF_N, PP_F32, PP_OP_SUM, &init, d->out, PP_F64);
}
static pp_status c_scan_flags(pp_context *c, af_data *d)
{
    return pp_segmented_scan_flags(c, d->iin, AF_N, PP_I32, d->flags, PP_OP_MAX, PP_SCAN_INCLUSIVE, NULL, d->out,
                                   PP_I32);
}
static pp_status c_scan_offsets(pp_context *c, af_data *d)
{
    return pp_segmented_scan_offsets(c, d->fin, AF_N, PP_F32, d->off, AF_NSEG, PP_OP_SUM, PP_SCAN_EXCLUSIVE, NULL,
                                     d->out, PP_F32);
}
static pp_status c_hist_u8(pp_context *c, af_data *d)
{
    return pp_histogram_even(c, d->iin, AF_N * 4, PP_U8, 256, 0, 256, d->out, PP_U32);
}
static pp_status c_hist_f32(pp_context *c, af_data *d)
{
    return pp_histogram_even(c, d->fin, AF_N, PP_F32, 4096, 0, 16, d->out, PP_U64);
}
static pp_status c_hist_range(pp_context *c, af_data *d)
{
    return pp_histogram_range(c, d->fin, AF_N, PP_F32, d->edges, AF_BINS, d->out, PP_U32);
}
static pp_status c_rbi(pp_context *c, af_data *d)
{
    return pp_reduce_by_index(c, d->iin, AF_N, PP_I32, d->idx, PP_OP_SUM, d->out, AF_NOUT,
                              (uint64_t *)(d->out + AF_OUT_BYTES - 8));
}
static pp_status c_malloc(pp_context *c, af_data *d)
{
    d->malloced = (void *)d; /* must become NULL on failure */
    return pp_malloc(c, &d->malloced, 4096);
}
static pp_status c_reserve(pp_context *c, af_data *d)
{
    (void)d;
    return pp_context_reserve_scratch(c, (size_t)3 << 20);
}
static pp_status c_memcpy(pp_context *c, af_data *d)
{
    return pp_memcpy(c, d->out, in_h.iin, 4096, PP_COPY_HOST_TO_CONTEXT);
}
static pp_status c_memset(pp_context *c, af_data *d)
{
    return pp_memset(c, d->out + 100, 7, 1000);
}
/* summed-area table, axis scans, transpose (issue 21) */
static pp_status c_sat(pp_context *c, af_data *d)
{
    return pp_summed_area_table(c, d->fin, 1025, 1023, 1023, PP_F32, d->out, 1023, PP_F32, PP_SAT_INCLUSIVE);
}
static pp_status c_sat_integral(pp_context *c, af_data *d)
{
    return pp_summed_area_table(c, d->iin, 700, 1000, 1000, PP_I32, d->out, 1001, PP_I64, PP_SAT_INTEGRAL);
}
static pp_status c_axis_scan(pp_context *c, af_data *d)
{
    return pp_axis_scan(c, d->iin, 1000, 1000, 1000, PP_I32, PP_AXIS_COLS, PP_OP_SUM, PP_SCAN_INCLUSIVE, NULL, d->out,
                        1000, PP_I32);
}
static pp_status c_transpose(pp_context *c, af_data *d)
{
    return pp_transpose(c, d->fin, 1000, 1000, 1000, d->out, 1000, PP_F32, 1);
}

/* compaction family (issue 19) */
static pp_status c_select_flagged(pp_context *c, af_data *d)
{
    return pp_select_flagged(c, d->fin, AF_N, PP_F32, d->flags, d->iin, PP_I32, d->out, d->out + AF_N * 4,
                             (uint64_t *)d->host, PP_RESULT_HOST);
}
static pp_status c_partition_if(pp_context *c, af_data *d)
{
    pp_predicate p;
    memset(&p, 0, sizeof p);
    p.kind = PP_PRED_LT;
    p.a.i32 = 100;
    return pp_partition_if(c, d->iin, AF_N, PP_I32, &p, NULL, PP_U8, d->out, NULL, (uint64_t *)(d->out + AF_N * 8),
                           PP_RESULT_CONTEXT);
}
static pp_status c_rle(pp_context *c, af_data *d)
{
    return pp_run_length_encode(c, d->flags, AF_N, PP_U8, d->out, d->out + AF_N * 4, PP_U32, (uint64_t *)d->host,
                                PP_RESULT_HOST);
}
static pp_status c_nonzero(pp_context *c, af_data *d)
{
    return pp_nonzero(c, d->flags, AF_N, PP_U8, d->out, PP_U64, (uint64_t *)d->host, PP_RESULT_HOST);
}
/* radix sort family (issue 20) */
static pp_status c_sort_keys(pp_context *c, af_data *d)
{
    return pp_sort_keys(c, d->iin, d->out, AF_N, PP_I32, PP_SORT_DESCENDING, 0, 0);
}
static pp_status c_sort_pairs(pp_context *c, af_data *d)
{
    return pp_sort_pairs(c, d->fin, d->out, d->iin, d->out + AF_N * 4, AF_N, PP_F32, PP_I32, PP_SORT_ASCENDING, 0,
                         0);
}
static pp_status c_argsort(pp_context *c, af_data *d)
{
    return pp_argsort(c, d->fin, AF_N, PP_F32, PP_SORT_ASCENDING, d->out, PP_U64);
}
/* segmented sort (issue 22) */
static pp_status c_segsort_pairs(pp_context *c, af_data *d)
{
    return pp_segmented_sort_pairs(c, d->fin, d->out, d->iin, d->out + AF_N * 4, AF_N, PP_F32, PP_I32, d->off,
                                   AF_NSEG, PP_SORT_DESCENDING);
}
static pp_status c_segsort_fixed(pp_context *c, af_data *d)
{
    return pp_segmented_sort_keys_fixed(c, d->iin, d->out, AF_N / 1000, 1000, PP_I32, PP_SORT_ASCENDING);
}

static const af_case cases[] = {
    {"pp_reduce f32 sum, host result", c_reduce_host},
    {"pp_reduce i32 max, context result", c_reduce_ctx},
    {"pp_argmin f32, host result", c_argmin_host},
    {"pp_argmax i32, context result", c_argmax_ctx},
    {"pp_segmented_reduce f32 -> f64 sum", c_segreduce},
    {"pp_inclusive_scan i32 sum", c_inclusive},
    {"pp_exclusive_scan f32 -> f64 sum", c_exclusive},
    {"pp_segmented_scan_flags i32 max", c_scan_flags},
    {"pp_segmented_scan_offsets f32 sum", c_scan_offsets},
    {"pp_histogram_even u8, 256 bins", c_hist_u8},
    {"pp_histogram_even f32, 4096 bins", c_hist_f32},
    {"pp_histogram_range f32, 100 bins", c_hist_range},
    {"pp_reduce_by_index i32 sum", c_rbi},
    {"pp_malloc", c_malloc},
    {"pp_context_reserve_scratch", c_reserve},
    {"pp_memcpy", c_memcpy},
    {"pp_memset", c_memset},
    /* compaction family (issue 19) */
    {"pp_select_flagged f32 with i32 payload, host count", c_select_flagged},
    {"pp_partition_if i32 < 100, context count", c_partition_if},
    {"pp_run_length_encode u8 -> u32 lengths", c_rle},
    {"pp_nonzero u8 -> u64", c_nonzero},
    /* radix sort family (issue 20) */
    {"pp_sort_keys i32 descending", c_sort_keys},
    {"pp_sort_pairs f32 / i32", c_sort_pairs},
    {"pp_argsort f32, u64 indices", c_argsort},
    /* summed-area table, axis scans, transpose (issue 21) */
    {"pp_summed_area_table f32 1025 x 1023", c_sat},
    {"pp_summed_area_table i32 -> i64 integral 700 x 1000", c_sat_integral},
    {"pp_axis_scan i32 columns 1000 x 1000", c_axis_scan},
    {"pp_transpose f32 1000 x 1000", c_transpose},
    /* segmented sort (issue 22) */
    {"pp_segmented_sort_pairs f32 / i32", c_segsort_pairs},
    {"pp_segmented_sort_keys_fixed i32, 1000 keys a segment", c_segsort_fixed},
};
#define AF_NCASES (sizeof cases / sizeof cases[0])

/* ---- set-up ---- */

static void make_inputs(void)
{
    if (in_h.fin) return;
    tc_rng r = tc_rng_for("alloc fail inputs");
    in_h.fin = (float *)tc_xmalloc(AF_N * sizeof(float));
    in_h.iin = (int32_t *)tc_xmalloc(AF_N * sizeof(int32_t));
    in_h.flags = (uint8_t *)tc_xmalloc(AF_N);
    in_h.idx = (uint32_t *)tc_xmalloc(AF_N * sizeof(uint32_t));
    for (size_t i = 0; i < AF_N; ++i) {
        in_h.fin[i] = (float)tc_below(&r, 16);
        in_h.iin[i] = (int32_t)tc_below(&r, 256);
        in_h.flags[i] = tc_below(&r, 1000) == 0;
        in_h.idx[i] = (uint32_t)tc_below(&r, AF_NOUT + AF_NOUT / 10);
    }
    /* Segments: a few long ones (split across blocks on the GPU) among short ones. */
    in_h.off[0] = 0;
    for (size_t s = 1; s <= AF_NSEG; ++s) in_h.off[s] = s == AF_NSEG ? AF_N : (AF_N / AF_NSEG) * s + tc_below(&r, 64);
    for (int b = 0; b <= AF_BINS; ++b) in_h.edges[b] = 16.0 * b / AF_BINS;
}

static void af_setup(pp_context *ctx, af_data *d)
{
    memset(d, 0, sizeof *d);
    d->fin = (float *)tc_upload(ctx, in_h.fin, AF_N * sizeof(float));
    d->iin = (int32_t *)tc_upload(ctx, in_h.iin, AF_N * sizeof(int32_t));
    d->off = (size_t *)tc_upload(ctx, in_h.off, sizeof in_h.off);
    d->flags = (uint8_t *)tc_upload(ctx, in_h.flags, AF_N);
    d->edges = (double *)tc_upload(ctx, in_h.edges, sizeof in_h.edges);
    d->idx = (uint32_t *)tc_upload(ctx, in_h.idx, AF_N * sizeof(uint32_t));
    d->out = (unsigned char *)tc_alloc(ctx, AF_OUT_BYTES);
    TC_OK(ctx, pp_memset(ctx, d->out, TC_SENTINEL, AF_OUT_BYTES));
    TC_OK(ctx, pp_context_synchronize(ctx));
    memset(d->host, TC_SENTINEL, sizeof d->host);
}

static void af_teardown(pp_context *ctx, af_data *d)
{
    if (d->malloced && d->malloced != (void *)d) tc_free(ctx, d->malloced);
    tc_free(ctx, d->out);
    tc_free(ctx, d->idx);
    tc_free(ctx, d->edges);
    tc_free(ctx, d->flags);
    tc_free(ctx, d->off);
    tc_free(ctx, d->iin);
    tc_free(ctx, d->fin);
}

/* Every output: the context buffer, then the host results. */
static void af_snapshot(pp_context *ctx, const af_data *d, unsigned char *snap)
{
    TC_OK(ctx, pp_context_synchronize(ctx));
    tc_download(ctx, snap, d->out, AF_OUT_BYTES);
    memcpy(snap + AF_OUT_BYTES, d->host, AF_HOST_BYTES);
}

static pp_context *af_context(pp_backend backend)
{
    pp_context *ctx = NULL;
    TC_CHECK(pp_context_create(&ctx, backend, 0) == PP_OK, "pp_context_create: %s", pp_last_create_error());
    return ctx;
}

static void expect_same(const unsigned char *got, const unsigned char *want, const char *what)
{
    for (size_t i = 0; i < AF_OUT_BYTES + AF_HOST_BYTES; ++i)
        if (got[i] != want[i])
            TC_FAIL("%s: output byte %zu%s is 0x%02x, want 0x%02x", what, i < AF_OUT_BYTES ? i : i - AF_OUT_BYTES,
                    i < AF_OUT_BYTES ? " (context buffer)" : " (host result)", got[i], want[i]);
}

/* One entry point on one backend: fail its k-th allocation for k = 1, 2, ... */
static void run_case(pp_backend backend, const af_case *c)
{
    const char *bk = pp_backend_name(backend);
    const size_t snap_bytes = AF_OUT_BYTES + AF_HOST_BYTES;
    unsigned char *want = (unsigned char *)tc_xmalloc(snap_bytes);
    unsigned char *got = (unsigned char *)tc_xmalloc(snap_bytes);
    unsigned char *sentinel = (unsigned char *)tc_xmalloc(snap_bytes);
    memset(sentinel, TC_SENTINEL, snap_bytes);

    /* The outputs of a context that never fails. */
    tc_case("%s: %s without failures", bk, c->name);
    pp_context *ctx = af_context(backend);
    af_data d;
    af_setup(ctx, &d);
    TC_OK(ctx, c->call(ctx, &d));
    af_snapshot(ctx, &d, want);
    af_teardown(ctx, &d);
    pp_context_destroy(ctx);

    int failed = 0, recovered = 0, k = 1;
    for (;; ++k) {
        TC_CHECK(k <= AF_MAX_K, "the hook still fires at allocation %d", k);
        tc_case("%s: %s, allocation %d fails", bk, c->name, k);
        ctx = af_context(backend);
        af_setup(ctx, &d);
        TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_FAIL_ALLOC, k));
        const pp_status st = c->call(ctx, &d);
        int64_t left = -1;
        TC_OK(ctx, pp_context_get_option(ctx, PP_OPTION_FAIL_ALLOC, &left));
        TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_FAIL_ALLOC, 0));
        if (left > 0) { /* the call made fewer than k allocations: the hook did not fire */
            TC_CHECK(st == PP_OK, "returned %s without a failed allocation: %s", pp_status_string(st),
                     pp_context_last_error(ctx));
            af_snapshot(ctx, &d, got);
            expect_same(got, want, "a call made without a failure");
            af_teardown(ctx, &d);
            pp_context_destroy(ctx);
            break;
        }
        if (st == PP_OK) { /* the library recovered from the failed allocation */
            ++recovered;
            af_snapshot(ctx, &d, got);
            expect_same(got, want, "a call that recovered from a failed allocation");
        } else {
            ++failed;
            const char *msg = pp_context_last_error(ctx);
            TC_CHECK(st == PP_ERROR_OUT_OF_MEMORY, "returned %s, want PP_ERROR_OUT_OF_MEMORY (message \"%s\")",
                     pp_status_string(st), msg);
            TC_CHECK(msg[0] != '\0', "no message after a failed allocation");
            if (c->call == c_malloc) TC_CHECK(d.malloced == NULL, "pp_malloc failed but left %p", d.malloced);
            af_snapshot(ctx, &d, got);
            expect_same(got, sentinel, "a call whose allocation failed");
            /* The context works for the next call, and gives the outputs of one that never failed. */
            tc_case("%s: %s, the call after allocation %d failed", bk, c->name, k);
            TC_OK(ctx, c->call(ctx, &d));
            af_snapshot(ctx, &d, got);
            expect_same(got, want, "the call after a failure");
            TC_CHECK(pp_context_last_error(ctx)[0] != '\0', "the failure's message was lost by a success");
        }
        af_teardown(ctx, &d);
        pp_context_destroy(ctx);
    }
    print_message("    %s: %-36s %d allocation(s): %d failed the call, %d recovered\n", bk, c->name, k - 1, failed,
                  recovered);
    free(sentinel);
    free(got);
    free(want);
}

static void t_each_allocation(void **state)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state); /* skips where the backend is not available */
    make_inputs();
    for (size_t i = 0; i < AF_NCASES; ++i) run_case(env->backend, &cases[i]);
}

/* GPU: requests larger than device memory fail as the hook does. */
static void t_larger_than_device(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    if (env->backend != PP_BACKEND_HIP) skip();
    const size_t huge = (size_t)1 << 50;
    tc_case("hip: pp_malloc(2^50)");
    void *p = (void *)&p;
    pp_status st = pp_malloc(ctx, &p, huge);
    TC_CHECK(st == PP_ERROR_OUT_OF_MEMORY, "returned %s: %s", pp_status_string(st), pp_context_last_error(ctx));
    TC_CHECK(p == NULL, "pp_malloc failed but left %p", p);
    TC_CHECK(strstr(pp_context_last_error(ctx), "1125899906842624") != NULL, "message \"%s\" does not give the size",
             pp_context_last_error(ctx));
    tc_case("hip: pp_context_reserve_scratch(2^50)");
    st = pp_context_reserve_scratch(ctx, huge);
    TC_CHECK(st == PP_ERROR_OUT_OF_MEMORY, "returned %s: %s", pp_status_string(st), pp_context_last_error(ctx));
    TC_CHECK(pp_context_last_error(ctx)[0] != '\0', "no message");
    /* The context works afterwards: the reduce of run_case, against a sum taken here. */
    tc_case("hip: a reduce after the failures");
    make_inputs();
    af_data d;
    af_setup(ctx, &d);
    TC_OK(ctx, c_reduce_host(ctx, &d));
    double want = 0;
    for (size_t i = 0; i < AF_N; ++i) want += in_h.fin[i];
    float got;
    memcpy(&got, d.host, sizeof got);
    TC_CHECK(got == (float)want, "sum %.9g, want %.17g (exact in f32)", got, want);
    af_teardown(ctx, &d);
}

int main(void)
{
    tc_init("test_alloc_fail");
    const struct CMUnitTest tests[] = {
        TC_BOTH(t_each_allocation),
        TC_HIP(t_larger_than_device),
    };
    int rc = TC_RUN("alloc_fail", tests);
    free(in_h.fin);
    free(in_h.iin);
    free(in_h.flags);
    free(in_h.idx);
    return rc;
}
