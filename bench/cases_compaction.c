/* cases_compaction.c -- the compaction family's rows (issue 19): select by flags (f32, 50% kept),
 * select by predicate (f32 x < 0: 50%; x < -0.98: 1%; x < 0.98: 99%; the inputs are uniform in
 * [-1, 1)), partition by predicate (f32, x < 0), unique and run-length encoding (u32 in runs of
 * mean length 4, u32 lengths), nonzero (u8, half of them nonzero, u64 indices), and the latency
 * of a small select by flags (n = 1024 and 2^16). Counts go to context memory (enqueued).
 * Verified against the serial oracle of tests/oracles.c (po_compact), bitwise. Peers: CUB's
 * DeviceSelect::Flagged / If / Unique, DevicePartition::If, DeviceRunLengthEncode::Encode, and
 * for nonzero DeviceSelect::Flagged over a counting iterator; none on the CPU (oneTBB has no
 * parallel copy_if: the copy row is the CPU's yardstick). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "oracles.h"

typedef enum ckind { CK_SEL_FLAGS, CK_SEL_IF, CK_PART_IF, CK_UNIQUE, CK_RLE, CK_NONZERO } ckind;

typedef struct cspec {
    ckind kind;
    float lt; /* CK_SEL_IF / CK_PART_IF: x < lt */
} cspec;

static const cspec sel_flags = {CK_SEL_FLAGS, 0}, sel_half = {CK_SEL_IF, 0.0f}, sel_1 = {CK_SEL_IF, -0.98f},
                   sel_99 = {CK_SEL_IF, 0.98f}, part = {CK_PART_IF, 0.0f}, uniq = {CK_UNIQUE, 0}, rle = {CK_RLE, 0},
                   nonzero = {CK_NONZERO, 0};

static const pb_case cases[] = {
    PB_ROW("compact_select_flagged", PP_F32, PP_F32, PP_OP_SUM, sel_flags),
    PB_ROW("compact_select_if_lt50", PP_F32, PP_F32, PP_OP_SUM, sel_half),
    PB_ROW("compact_select_if_lt1", PP_F32, PP_F32, PP_OP_SUM, sel_1),
    PB_ROW("compact_select_if_lt99", PP_F32, PP_F32, PP_OP_SUM, sel_99),
    PB_ROW("compact_partition_if", PP_F32, PP_F32, PP_OP_SUM, part),
    PB_ROW("compact_unique_runs4", PP_U32, PP_U32, PP_OP_SUM, uniq),
    PB_ROW("compact_rle_runs4", PP_U32, PP_U32, PP_OP_SUM, rle),
    PB_ROW("compact_nonzero", PP_U8, PP_U64, PP_OP_SUM, nonzero),
    {"latency_compact_select", PP_F32, PP_F32, PP_OP_SUM, 1024, 0, NULL, &sel_flags, 0},
    {"latency_compact_select", PP_F32, PP_F32, PP_OP_SUM, (size_t)1 << 16, 0, NULL, &sel_flags, 0},
};

typedef struct cpriv {
    void *host_own;          /* unique / rle / nonzero: the row's own input (host) */
    const void *dev_own;     /* ... in context space */
    uint8_t *flags;          /* CK_SEL_FLAGS: host flags */
    const void *dev_flags;
    void *out, *aux;         /* context space: n values (8 bytes max), n lengths / indices */
    uint64_t *count;         /* context space */
    unsigned char *want;     /* the oracle's outputs (host) */
    uint64_t *want_aux, want_count;
    unsigned char *got;      /* read back */
} cpriv;

static ckind kind_of(const pb_state *s) { return ((const cspec *)s->c->spec)->kind; }

static const void *input_of(const pb_state *s)
{
    const cpriv *p = s->priv;
    return p->dev_own ? p->dev_own : s->in;
}
static const void *host_input_of(const pb_state *s)
{
    const cpriv *p = s->priv;
    return p->host_own ? p->host_own : s->host_in;
}

static int setup(pb_run *r, pb_state *s)
{
    const pb_case *c = s->c;
    const size_t n = s->n, es = pp_dtype_size(c->in);
    cpriv *p = calloc(1, sizeof *p);
    if (!(s->priv = p)) return -1;
    const uint64_t seed = pb_seed(r) ^ 0x3c6ef372fe94f82bull;
    const ckind k = kind_of(s);
    if (k == CK_SEL_FLAGS) {
        p->flags = pb_host_alloc(n ? n : 1);
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < (long long)n; i++) p->flags[i] = (uint8_t)(pb_mix64(seed + (uint64_t)i) & 1);
        if (!(p->dev_flags = pb_upload(r, p->flags, n))) return -1;
    }
    if (k == CK_UNIQUE || k == CK_RLE) { /* runs: a new value with probability 1/4 */
        uint32_t *h = pb_host_alloc(n * 4 + 4);
        uint32_t v = 0;
        for (size_t i = 0; i < n; i++) {
            const uint64_t z = pb_mix64(seed + (uint64_t)i);
            if (i == 0 || (z & 3) == 0) v = (uint32_t)(z >> 32);
            h[i] = v;
        }
        p->host_own = h;
    }
    if (k == CK_NONZERO) {
        uint8_t *h = pb_host_alloc(n ? n : 1);
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < (long long)n; i++) {
            const uint64_t z = pb_mix64(seed + (uint64_t)i);
            h[i] = (z & 1) ? (uint8_t)(1 + (z >> 8) % 255) : 0;
        }
        p->host_own = h;
    }
    if (p->host_own && !(p->dev_own = pb_upload(r, p->host_own, n * es))) return -1;
    const size_t osz = pp_dtype_size(c->out);
    double kept = 0.5 * (double)n;
    if (k == CK_SEL_IF) kept = (double)n * (((const cspec *)c->spec)->lt + 1.0) / 2.0;
    if (k == CK_UNIQUE || k == CK_RLE) kept = (double)n / 4;
    switch (k) {
    case CK_SEL_FLAGS: s->bytes = (double)n * (es + 1) + kept * osz; break;
    case CK_SEL_IF: s->bytes = (double)n * es + kept * osz; break;
    case CK_PART_IF: s->bytes = 2.0 * (double)n * es; break;
    case CK_UNIQUE: s->bytes = (double)n * es + kept * es; break;
    case CK_RLE: s->bytes = (double)n * es + kept * (es + 4); break;
    case CK_NONZERO: s->bytes = (double)n * es + kept * 8; break;
    }
    p->out = pb_alloc(r, n * 8 + 8);
    p->aux = k == CK_RLE ? pb_alloc(r, n * 4 + 4) : NULL;
    p->count = pb_alloc(r, 8);
    p->got = pb_host_alloc(n * 8 + 8);
    return p->out && p->count && (k != CK_RLE || p->aux) ? 0 : -1;
}

static pp_status call(pp_context *ctx, const pb_state *s)
{
    const pb_case *c = s->c;
    const cpriv *p = s->priv;
    const cspec *sp = c->spec;
    pp_predicate pr;
    memset(&pr, 0, sizeof pr);
    pr.kind = PP_PRED_LT;
    pr.a.f32 = sp->lt;
    const void *in = input_of(s);
    switch (sp->kind) {
    case CK_SEL_FLAGS:
        return pp_select_flagged(ctx, in, s->n, c->in, p->dev_flags, NULL, PP_U8, p->out, NULL, p->count,
                                 PP_RESULT_CONTEXT);
    case CK_SEL_IF: return pp_select_if(ctx, in, s->n, c->in, &pr, NULL, PP_U8, p->out, NULL, p->count, PP_RESULT_CONTEXT);
    case CK_PART_IF:
        return pp_partition_if(ctx, in, s->n, c->in, &pr, NULL, PP_U8, p->out, NULL, p->count, PP_RESULT_CONTEXT);
    case CK_UNIQUE: return pp_unique(ctx, in, s->n, c->in, NULL, PP_U8, p->out, NULL, p->count, PP_RESULT_CONTEXT);
    case CK_RLE: return pp_run_length_encode(ctx, in, s->n, c->in, p->out, p->aux, PP_U32, p->count, PP_RESULT_CONTEXT);
    case CK_NONZERO: return pp_nonzero(ctx, in, s->n, c->in, p->out, PP_U64, p->count, PP_RESULT_CONTEXT);
    }
    return PP_ERROR_INVALID_ARGUMENT;
}

/* The oracle's outputs, once per row. */
static void expect(pb_state *s)
{
    cpriv *p = s->priv;
    if (p->want) return;
    const pb_case *c = s->c;
    const cspec *sp = c->spec;
    const size_t n = s->n;
    p->want = pb_host_alloc(n * 8 + 8);
    p->want_aux = pb_host_alloc(n * 8 + 8);
    pp_predicate pr;
    memset(&pr, 0, sizeof pr);
    pr.kind = sp->kind == CK_NONZERO ? PP_PRED_NONZERO : PP_PRED_LT;
    pr.a.f32 = sp->lt;
    const po_compact_op op = sp->kind == CK_SEL_FLAGS || sp->kind == CK_SEL_IF ? PO_SELECT
                             : sp->kind == CK_PART_IF                          ? PO_PARTITION
                             : sp->kind == CK_UNIQUE                           ? PO_UNIQUE
                             : sp->kind == CK_RLE                              ? PO_RLE
                                                                               : PO_WHERE;
    p->want_count = po_compact(op, host_input_of(s), n, c->in, p->flags, sp->kind == CK_SEL_FLAGS ? NULL : &pr, NULL,
                               0, p->want, NULL, p->want_aux);
}

/* The outputs in context space (count, values, lengths / indices) against the oracle's; for
 * `selected_only` (CUB's partition, whose rejected part is reversed) the selected part alone. */
static int check(pb_run *r, pb_state *s, int selected_only, char *why, size_t why_size)
{
    cpriv *p = s->priv;
    const ckind k = kind_of(s);
    const size_t n = s->n, es = pp_dtype_size(s->c->in);
    expect(s);
    uint64_t cnt = 0;
    if (pb_download(r, &cnt, p->count, 8)) return snprintf(why, why_size, "could not read the count"), 0;
    if (cnt != p->want_count)
        return snprintf(why, why_size, "count %llu, expected %llu", (unsigned long long)cnt,
                        (unsigned long long)p->want_count), 0;
    const size_t vals = k == CK_PART_IF && !selected_only ? n : (size_t)cnt;
    if (k == CK_NONZERO) {
        if (pb_download(r, p->got, p->out, vals * 8)) return snprintf(why, why_size, "could not read back"), 0;
        if (memcmp(p->got, p->want_aux, vals * 8)) return snprintf(why, why_size, "indices differ"), 0;
        return 1;
    }
    if (pb_download(r, p->got, p->out, vals * es)) return snprintf(why, why_size, "could not read back"), 0;
    if (memcmp(p->got, p->want, vals * es)) return snprintf(why, why_size, "values differ"), 0;
    if (k == CK_RLE) {
        if (pb_download(r, p->got, p->aux, vals * 4)) return snprintf(why, why_size, "could not read back"), 0;
        for (size_t i = 0; i < vals; i++) {
            uint32_t g;
            memcpy(&g, p->got + 4 * i, 4);
            if (g != (uint32_t)p->want_aux[i])
                return snprintf(why, why_size, "length %zu: %u, expected %llu", i, g, (unsigned long long)p->want_aux[i]), 0;
        }
    }
    return 1;
}

static int verify(pb_run *r, pb_state *s, char *why, size_t why_size) { return check(r, s, 0, why, why_size); }

static double peer(pb_run *r, pb_state *s, pb_peer_kind kind, int reps, int batch, int *ok)
{
    (void)r, (void)s, (void)reps, (void)batch;
    *ok = -1;
    if (kind != PB_PEER_GPU) return -1;
#ifdef PB_HAVE_CUB
    cpriv *p = s->priv;
    const ckind k = kind_of(s);
    const pb_cub_kind kk = k == CK_SEL_FLAGS ? PB_CUB_SELECT_FLAGGED
                           : k == CK_SEL_IF  ? PB_CUB_SELECT_LT
                           : k == CK_PART_IF ? PB_CUB_PARTITION_LT
                           : k == CK_UNIQUE  ? PB_CUB_UNIQUE
                           : k == CK_RLE     ? PB_CUB_RLE
                                             : PB_CUB_NONZERO;
    if (pp_memset(pb_ctx(r), p->out, 0xff, s->n * pp_dtype_size(s->c->out)) != PP_OK ||
        pp_memset(pb_ctx(r), p->count, 0xff, 8) != PP_OK)
        return -1;
    pb_cub_job j = pb_cub_job_of(r, s, kk, reps, batch);
    j.in = input_of(s);
    j.out = p->out;
    j.flags = p->dev_flags;
    j.out2 = p->aux;
    j.count = p->count;
    j.lower = ((const cspec *)s->c->spec)->lt;
    const double ms = pb_cub_run(&j);
    if (ms < 0) {
        fprintf(stderr, "parprim-bench: peer of %s: %s\n", s->c->name, pb_cub_last_error());
        return ms;
    }
    char w[256];
    *ok = check(r, s, 1, w, sizeof w);
    if (!*ok) fprintf(stderr, "parprim-bench: peer of %s: %s\n", s->c->name, w);
    return ms;
#else
    return -1;
#endif
}

static void teardown(pb_run *r, pb_state *s)
{
    cpriv *p = s->priv;
    if (!p) return;
    pb_release_upload(r, p->dev_own);
    pb_release_upload(r, p->dev_flags);
    pb_release(r, p->out);
    pb_release(r, p->aux);
    pb_release(r, p->count);
    free(p->host_own);
    free(p->flags);
    free(p->want);
    free(p->want_aux);
    free(p->got);
    free(p);
}

const pb_family pb_family_compaction = {
    "compaction", cases, sizeof cases / sizeof cases[0], setup, call, verify, peer, teardown, NULL,
    "  compact_select_flagged f32 (u8 flags, half set), compact_select_if_lt50 / lt1 / lt99 f32\n"
    "  (x < 0, -0.98, 0.98 over [-1, 1): 50%, 1%, 99% kept), compact_partition_if f32 (x < 0),\n"
    "  compact_unique_runs4 and compact_rle_runs4 u32 (runs of mean length 4, u32 lengths),\n"
    "  compact_nonzero u8 -> u64 indices (half nonzero), latency_compact_select f32 (flags) at\n"
    "  n = 1024 and 2^16 (count to context memory; --only compact: every row); peers: CUB\n"
    "  DeviceSelect::Flagged / If / Unique, DevicePartition::If, DeviceRunLengthEncode::Encode,\n"
    "  DeviceSelect::Flagged over a counting iterator (nonzero); none on the CPU\n"};
