/* cases_reduce.c -- the reduce family: pp_reduce, pp_argmin / pp_argmax, pp_segmented_reduce
 * (its rows and peers: the help text at the end). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "oracles.h"

/* pp_reduce (result in context memory, or in host memory: synchronizes), pp_argmin /
 * pp_argmax (op MIN / MAX: the value, and the index at byte 8), pp_segmented_reduce */
typedef enum red_kind { RED_PLAIN, RED_TO_HOST, RED_ARG, RED_SEG } red_kind;

typedef struct red_spec {
    red_kind kind;
    size_t seg_len, seg_count; /* RED_SEG: segments of seg_len, or seg_count segments of n / seg_count */
} red_spec;

static const red_spec plain = {RED_PLAIN, 0, 0}, arg = {RED_ARG, 0, 0}, seg256 = {RED_SEG, 256, 0},
                      seg64 = {RED_SEG, 0, 64}, to_host = {RED_TO_HOST, 0, 0};

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
    {"latency_sum_ctx", PP_F32, PP_F32, PP_OP_SUM, 1024, 0, NULL, &plain, 0},
    {"latency_sum_host", PP_F32, PP_F32, PP_OP_SUM, 1024, 0, NULL, &to_host, 0},
};

static red_kind kind_of(const pb_state *s) { return ((const red_spec *)s->c->spec)->kind; }
static size_t segments(const pb_state *s) { return *(const size_t *)s->priv; }

static int setup(pb_run *r, pb_state *s)
{
    const red_spec *sp = s->c->spec;
    const size_t isz = pp_dtype_size(s->c->in), osz = pp_dtype_size(s->c->out);
    size_t *ns = s->priv = pb_scratch(r, sizeof *ns);
    *ns = sp->kind != RED_SEG ? 1 : sp->seg_len ? (s->n + sp->seg_len - 1) / sp->seg_len : sp->seg_count;
    s->out_bytes = sp->kind == RED_ARG ? 16 : *ns * osz;
    s->bytes = (double)(s->n * isz + *ns * osz + (sp->kind == RED_ARG ? sizeof(uint64_t) : 0));
    if (sp->kind == RED_TO_HOST) s->out = pb_scratch(r, s->out_bytes), s->host_clock = 1;
    if (sp->kind != RED_SEG) return 0;
    size_t *off = pb_scratch(r, (*ns + 1) * sizeof *off);
    for (size_t k = 0; k <= *ns; k++) {
        /* segments of seg_len, or ns near-equal segments (integer arithmetic, exact) */
        size_t o = sp->seg_len ? k * sp->seg_len : k * (s->n / *ns) + k * (s->n % *ns) / *ns;
        off[k] = o > s->n || k == *ns ? s->n : o;
    }
    s->bytes += (double)((*ns + 1) * sizeof(size_t));
    return pb_aux(r, s, off, (*ns + 1) * sizeof(size_t)) ? 0 : -1;
}

static pp_status call(pp_context *ctx, const pb_state *s)
{
    const pb_case *c = s->c;
    switch (kind_of(s)) {
    case RED_ARG: /* the index at byte 8 */
        return (c->op == PP_OP_MAX ? pp_argmax : pp_argmin)(ctx, s->in, s->n, c->in, s->out,
                                                            (uint64_t *)((char *)s->out + 8), PP_RESULT_CONTEXT);
    case RED_SEG: return pp_segmented_reduce(ctx, s->in, s->n, c->in, s->aux, segments(s), c->op, s->out, c->out);
    case RED_TO_HOST: return pp_reduce(ctx, s->in, s->n, c->in, c->op, s->out, c->out, PP_RESULT_HOST);
    default: return pp_reduce(ctx, s->in, s->n, c->in, c->op, s->out, c->out, PP_RESULT_CONTEXT);
    }
}

/* Against the reference (GPU runs), else the oracle; the bound's sum|x| from the oracle; arg*
 * bitwise (value and index; the oracle says why). A peer's segments: within 1e-3 relative
 * (their sequential segment sums). */
static int check(pb_run *r, const pb_state *s, const void *got, int peer, char *why, size_t why_size)
{
    const pb_case *c = s->c;
    const size_t osz = pp_dtype_size(c->out), *off = s->host_aux;
    const unsigned char *ref = s->ref;
    po_red o;
    (void)r;
    if (kind_of(s) == RED_ARG) {
        po_arg a;
        if (ref && !memcmp(got, ref, 16)) return 1;
        po_arg_init(&a, c->op, c->in);
        po_arg_push(&a, s->host_in, 0, s->n);
        return po_arg_check(&a, got, *(const uint64_t *)((const char *)got + 8), why, why_size);
    }
    po_red_init(&o, c->op, c->in, c->out);
    if (kind_of(s) != RED_SEG) {
        pb_parallel_reduce(&o, s->host_in, 0, s->n);
        return po_red_check(&o, got, ref, 2.0, why, why_size);
    }
    long long bad = LLONG_MAX;
#pragma omp parallel for schedule(dynamic, 64) reduction(min : bad)
    for (long long k = 0; k < (long long)segments(s); k++) {
        po_red q = o;
        char w[2];
        unsigned char want[16];
        const void *gk = (const char *)got + (size_t)k * osz, *rk = ref ? ref + (size_t)k * osz : want;
        po_red_push(&q, s->host_in, off[k], off[k + 1] > off[k] ? off[k + 1] : off[k]);
        po_red_value(&q, want);
        const long double g = po_value(gk, 0, c->out), f = po_value(rk, 0, c->out);
        if (peer ? !(fabsl(g - f) <= 1e-3L * (1 + fabsl(f))) : !po_red_check(&q, gk, ref ? rk : NULL, 2.0, w, sizeof w))
            bad = k < bad ? k : bad;
    }
    if (bad == LLONG_MAX) return 1;
    unsigned char want[16];
    po_red_push(&o, s->host_in, off[bad], off[bad + 1]);
    po_red_value(&o, want);
    snprintf(why, why_size, "segment %lld [%zu, %zu): got %.17Lg, %s %.17Lg", bad, off[bad], off[bad + 1],
             po_value(got, (size_t)bad, c->out), ref ? "reference" : "oracle",
             po_value(ref ? ref : want, ref ? (size_t)bad : 0, c->out));
    return 0;
}

static int peer_job(pb_run *r, const pb_state *s, pb_peer *j)
{
    const pp_op op = s->c->op;
    const red_kind k = kind_of(s);
    (void)r;
    j->cub.kind = k == RED_ARG ? (op == PP_OP_MAX ? PB_CUB_ARGMAX : PB_CUB_ARGMIN)
                  : k == RED_SEG ? PB_CUB_SEGSUM
                  : k == RED_TO_HOST ? PB_CUB_SUM_HOST
                  : op == PP_OP_SUM ? PB_CUB_SUM : op == PP_OP_MAX ? PB_CUB_MAX : PB_CUB_MIN;
    j->tbb.kind = k == RED_ARG ? (op == PP_OP_MAX ? PB_TBB_ARGMAX : PB_TBB_ARGMIN)
                  : k == RED_SEG ? PB_TBB_SEGSUM
                  : op == PP_OP_SUM ? PB_TBB_SUM : op == PP_OP_MAX ? PB_TBB_MAX : PB_TBB_MIN;
    j->cub.n_segments = j->tbb.n_segments = segments(s);
    if (k == RED_ARG) j->cub.index = j->tbb.index = (uint64_t *)((char *)j->cub.result + 8);
    return 1;
}

PB_FAMILY(reduce,
    .help = "  reduce_sum f32, f32->f64, f64, u8->u64, i32->i64, reduce_max i32, reduce_min f32, argmax f32,\n"
            "  argmin f64, segreduce_sum_len256 f32 (n/256 segments of 256), segreduce_sum_64segs f32\n"
            "  (64 long segments), latency_sum_ctx f32 and latency_sum_host f32 (n = 1024; result in\n"
            "  context memory, or in host memory with the synchronizing copy); peers: CUB DeviceReduce /\n"
            "  DeviceSegmentedReduce, oneTBB parallel_reduce (segments: parallel_for, each in order)\n");
