/* cases_reduce.c -- the reduce family's rows: pp_reduce, pp_argmin / pp_argmax,
 * pp_segmented_reduce, and the latency of a small reduction (result in context memory or in
 * host memory). Peers: CUB's DeviceReduce / DeviceSegmentedReduce on the GPU, oneTBB's
 * parallel_reduce on the CPU. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "oracles.h"

typedef enum red_kind {
    RED_PLAIN,    /* pp_reduce, result in context memory */
    RED_ARG,      /* pp_argmin / pp_argmax (op MIN / MAX), results in context memory */
    RED_SEG,      /* pp_segmented_reduce */
    RED_LAT_CTX,  /* pp_reduce at fixed small n, result in context memory */
    RED_LAT_HOST  /* pp_reduce at fixed small n, result in host memory (synchronizes) */
} red_kind;

typedef struct red_spec {
    red_kind kind;
    size_t seg_len;   /* RED_SEG: segments of this length, or */
    size_t seg_count; /* this many segments of n / seg_count */
} red_spec;

static const red_spec plain = {RED_PLAIN, 0, 0}, arg = {RED_ARG, 0, 0}, seg256 = {RED_SEG, 256, 0},
                      seg64 = {RED_SEG, 0, 64}, lat_ctx = {RED_LAT_CTX, 0, 0}, lat_host = {RED_LAT_HOST, 0, 0};

#define LAT(name, spec) {name, PP_F32, PP_F32, PP_OP_SUM, 1024, 0, NULL, &spec}
static const pb_case cases[] = {
    PB_ROW("reduce_sum", PP_F32, PP_F32, PP_OP_SUM, plain),
    PB_ROW("reduce_sum", PP_F32, PP_F64, PP_OP_SUM, plain),
    PB_ROW("reduce_sum", PP_F64, PP_F64, PP_OP_SUM, plain),
    PB_ROW("reduce_sum", PP_U8, PP_U64, PP_OP_SUM, plain),
    PB_ROW("reduce_sum", PP_I32, PP_I64, PP_OP_SUM, plain),
    PB_ROW("reduce_max", PP_I32, PP_I32, PP_OP_MAX, plain),
    PB_ROW("reduce_min", PP_F32, PP_F32, PP_OP_MIN, plain),
    PB_ROW("argmax", PP_F32, PP_F32, PP_OP_MAX, arg),
    PB_ROW("argmin", PP_F64, PP_F64, PP_OP_MIN, arg),
    PB_ROW("segreduce_sum_len256", PP_F32, PP_F32, PP_OP_SUM, seg256),
    PB_ROW("segreduce_sum_64segs", PP_F32, PP_F32, PP_OP_SUM, seg64),
    LAT("latency_sum_ctx", lat_ctx),
    LAT("latency_sum_host", lat_host),
};

typedef struct red_priv {
    void *out;             /* context space (RED_LAT_HOST: host), ns elements */
    uint64_t *index;       /* RED_ARG, context space */
    size_t ns;             /* results: segments, or 1 */
    size_t *offsets;       /* RED_SEG, host */
    const size_t *dev_offsets;
    unsigned char *ref;    /* GPU runs: the CPU backend's results */
    uint64_t ref_index;
} red_priv;

static red_kind kind_of(const pb_state *s) { return ((const red_spec *)s->c->spec)->kind; }

static int setup(pb_run *r, pb_state *s)
{
    const pb_case *c = s->c;
    const red_spec *sp = c->spec;
    const size_t isz = pp_dtype_size(c->in), osz = pp_dtype_size(c->out);
    red_priv *p = calloc(1, sizeof *p);
    if (!(s->priv = p)) return -1;
    p->ns = 1;
    s->bytes = (double)(s->n * isz + osz);
    if (sp->kind == RED_SEG) {
        const size_t ns = p->ns = sp->seg_len ? (s->n + sp->seg_len - 1) / sp->seg_len : sp->seg_count;
        p->offsets = pb_host_alloc((ns + 1) * sizeof *p->offsets);
        for (size_t k = 0; k <= ns; k++) {
            /* segments of seg_len, or ns near-equal segments (integer arithmetic, exact) */
            size_t o = sp->seg_len ? k * sp->seg_len : k * (s->n / ns) + k * (s->n % ns) / ns;
            p->offsets[k] = o > s->n || k == ns ? s->n : o;
        }
        s->bytes = (double)(s->n * isz + ns * osz + (ns + 1) * sizeof(size_t));
        if (!(p->dev_offsets = pb_upload(r, p->offsets, (ns + 1) * sizeof(size_t)))) return -1;
    }
    if (sp->kind == RED_ARG) {
        s->bytes += sizeof(uint64_t);
        if (!(p->index = pb_alloc(r, sizeof(uint64_t)))) return -1;
    }
    if (sp->kind == RED_LAT_HOST) {
        s->host_clock = 1;
        return (p->out = calloc(1, 16)) ? 0 : -1;
    }
    return (p->out = pb_alloc(r, p->ns * osz)) ? 0 : -1;
}

static pp_status call(pp_context *ctx, const pb_state *s)
{
    const pb_case *c = s->c;
    const red_priv *p = s->priv;
    switch (kind_of(s)) {
    case RED_ARG:
        return c->op == PP_OP_MAX ? pp_argmax(ctx, s->in, s->n, c->in, p->out, p->index, PP_RESULT_CONTEXT)
                                  : pp_argmin(ctx, s->in, s->n, c->in, p->out, p->index, PP_RESULT_CONTEXT);
    case RED_SEG: return pp_segmented_reduce(ctx, s->in, s->n, c->in, p->dev_offsets, p->ns, c->op, p->out, c->out);
    case RED_LAT_HOST: return pp_reduce(ctx, s->in, s->n, c->in, c->op, p->out, c->out, PP_RESULT_HOST);
    default: return pp_reduce(ctx, s->in, s->n, c->in, c->op, p->out, c->out, PP_RESULT_CONTEXT);
    }
}

/* Check results `got` (host: one element, or one per segment) and `got_index` against the
 * reference (p->ref on GPU runs, else the oracle), the bound's sum|x| from the oracle.
 * `loose`: per segment within 1e-3 relative (the peers' sequential segment sums). */
static int check(const pb_state *s, const void *got, uint64_t got_index, int loose, char *why, size_t why_size)
{
    const pb_case *c = s->c;
    const red_priv *p = s->priv;
    const size_t osz = pp_dtype_size(c->out);
    if (kind_of(s) == RED_ARG) {
        if (!p->ref) {
            po_arg o;
            po_arg_init(&o, c->op, c->in);
            po_arg_push(&o, s->host_in, 0, s->n);
            return po_arg_check(&o, got, got_index, why, why_size);
        }
        if (!memcmp(got, p->ref, osz) && got_index == p->ref_index) return 1;
        snprintf(why, why_size, "got index %" PRIu64 " (value %.17Lg), reference index %" PRIu64 " (value %.17Lg)",
                 got_index, po_value(got, 0, c->out), p->ref_index, po_value(p->ref, 0, c->out));
        return 0;
    }
    if (kind_of(s) != RED_SEG) {
        po_red o;
        po_red_init(&o, c->op, c->in, c->out);
        pb_parallel_reduce(&o, s->host_in, 0, s->n);
        return po_red_check(&o, got, p->ref, 2.0, why, why_size);
    }
    long long bad = -1;
    const long long ns = (long long)p->ns;
#pragma omp parallel for schedule(dynamic, 64)
    for (long long k = 0; k < ns; k++) {
        po_red o;
        char w[2];
        const size_t lo = p->offsets[k], hi = p->offsets[k + 1] > lo ? p->offsets[k + 1] : lo;
        po_red_init(&o, c->op, c->in, c->out);
        po_red_push(&o, s->host_in, lo, hi);
        const void *gk = (const char *)got + (size_t)k * osz, *rk = p->ref ? p->ref + (size_t)k * osz : NULL;
        int ok;
        if (loose) {
            unsigned char want[16];
            po_red_value(&o, want);
            const long double g = po_value(gk, 0, c->out), f = po_value(rk ? rk : want, 0, c->out);
            ok = fabsl(g - f) <= 1e-3L * (1 + fabsl(f));
        } else {
            ok = po_red_check(&o, gk, rk, 2.0, w, sizeof w);
        }
        if (!ok) {
#pragma omp critical
            if (bad < 0 || k < bad) bad = k;
        }
    }
    if (bad < 0) return 1;
    po_red o;
    unsigned char want[16];
    po_red_init(&o, c->op, c->in, c->out);
    po_red_push(&o, s->host_in, p->offsets[bad], p->offsets[bad + 1]);
    po_red_value(&o, want);
    snprintf(why, why_size, "segment %lld [%zu, %zu): got %.17Lg, %s %.17Lg", bad, p->offsets[bad], p->offsets[bad + 1],
             po_value(got, (size_t)bad, c->out), p->ref ? "reference" : "oracle",
             po_value(p->ref ? p->ref : want, p->ref ? (size_t)bad : 0, c->out));
    return 0;
}

static int verify(pb_run *r, pb_state *s, char *why, size_t why_size)
{
    const pb_case *c = s->c;
    red_priv *p = s->priv;
    const size_t osz = pp_dtype_size(c->out), bytes = p->ns * osz;
    unsigned char *got = pb_host_alloc(bytes > 16 ? bytes : 16);
    uint64_t got_index = 0;
    int ok = 0;
    if (kind_of(s) == RED_LAT_HOST) memcpy(got, p->out, osz);
    else if (pb_download(r, got, p->out, bytes) || (p->index && pb_download(r, &got_index, p->index, 8))) goto out;
    pp_context *ref = pb_ref_ctx(r);
    if (ref) {
        pp_status st;
        p->ref = pb_host_alloc(bytes > 16 ? bytes : 16);
        if (kind_of(s) == RED_ARG)
            st = c->op == PP_OP_MAX ? pp_argmax(ref, s->host_in, s->n, c->in, p->ref, &p->ref_index, PP_RESULT_HOST)
                                    : pp_argmin(ref, s->host_in, s->n, c->in, p->ref, &p->ref_index, PP_RESULT_HOST);
        else if (kind_of(s) == RED_SEG)
            st = pp_segmented_reduce(ref, s->host_in, s->n, c->in, p->offsets, p->ns, c->op, p->ref, c->out);
        else
            st = pp_reduce(ref, s->host_in, s->n, c->in, c->op, p->ref, c->out, PP_RESULT_HOST);
        if (st != PP_OK) {
            snprintf(why, why_size, "reference on the cpu backend failed: %s: %s", pp_status_string(st),
                     pp_context_last_error(ref));
            goto out;
        }
    }
    ok = check(s, got, got_index, 0, why, why_size);
out:
    free(got);
    return ok;
}

static double peer(pb_run *r, pb_state *s, pb_peer_kind kind, int reps, int batch, int *ok)
{
    const pb_case *c = s->c;
    red_priv *p = s->priv;
    const size_t osz = pp_dtype_size(c->out);
    unsigned char *res = calloc(p->ns, osz > 8 ? osz : 8);
    uint64_t index = 0;
    double ms = -1;
    const char *err = "";
    const red_kind k = kind_of(s);
    (void)r, (void)reps, (void)batch;
#ifdef PB_HAVE_CUB
    if (kind == PB_PEER_GPU) {
        const pb_cub_kind kk = k == RED_ARG ? (c->op == PP_OP_MAX ? PB_CUB_ARGMAX : PB_CUB_ARGMIN)
                               : k == RED_SEG ? PB_CUB_SEGSUM
                               : k == RED_LAT_HOST ? PB_CUB_SUM_HOST
                               : c->op == PP_OP_SUM ? PB_CUB_SUM : c->op == PP_OP_MAX ? PB_CUB_MAX : PB_CUB_MIN;
        pb_cub_job j = pb_cub_job_of(r, s, kk, reps, batch);
        j.offsets = p->dev_offsets;
        j.n_segments = p->ns;
        j.result = res;
        j.index = k == RED_ARG ? &index : NULL;
        ms = pb_cub_run(&j);
        err = pb_cub_last_error();
    }
#endif
#ifdef PB_HAVE_TBB
    if (kind == PB_PEER_TBB) {
        const pb_tbb_kind kk = k == RED_ARG ? (c->op == PP_OP_MAX ? PB_TBB_ARGMAX : PB_TBB_ARGMIN)
                               : k == RED_SEG ? PB_TBB_SEGSUM
                               : c->op == PP_OP_SUM ? PB_TBB_SUM : c->op == PP_OP_MAX ? PB_TBB_MAX : PB_TBB_MIN;
        pb_tbb_job j = pb_tbb_job_of(s, kk, reps, batch);
        j.offsets = p->offsets;
        j.n_segments = p->ns;
        j.result = res;
        j.index = &index;
        ms = pb_tbb_run(&j);
        err = pb_tbb_last_error();
    }
#endif
    (void)kind;
    char w[512];
    if (ms >= 0) *ok = res && check(s, res, index, k == RED_SEG, w, sizeof w);
    else if (err[0]) fprintf(stderr, "parprim-bench: peer of %s: %s\n", c->name, err);
    free(res);
    return ms;
}

static void teardown(pb_run *r, pb_state *s)
{
    red_priv *p = s->priv;
    if (!p) return;
    if (kind_of(s) == RED_LAT_HOST) free(p->out);
    else pb_release(r, p->out);
    pb_release(r, p->index);
    pb_release_upload(r, p->dev_offsets);
    free(p->offsets);
    free(p->ref);
    free(p);
}

const pb_family pb_family_reduce = {
    "reduce", cases, sizeof cases / sizeof cases[0], setup, call, verify, peer, teardown, NULL,
    "  reduce_sum f32, f32->f64, f64, u8->u64, i32->i64, reduce_max i32, reduce_min f32, argmax f32,\n"
    "  argmin f64, segreduce_sum_len256 f32 (n/256 segments of 256), segreduce_sum_64segs f32\n"
    "  (64 long segments), latency_sum_ctx f32 and latency_sum_host f32 (n = 1024; result in\n"
    "  context memory timed back to back, and result to host memory including the synchronizing\n"
    "  copy; time per call); peers: CUB DeviceReduce / DeviceSegmentedReduce, oneTBB\n"
    "  parallel_reduce (segments: parallel_for, each summed in order)\n"};
