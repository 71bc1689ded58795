/* cases_scan.c -- the scan family: pp_inclusive_scan, pp_exclusive_scan, the segmented scans
 * (its rows and peers: the help text at the end). */
#include <stdio.h>

#include "bench.h"
#include "oracles.h"

typedef enum scan_kind { SCAN_INCL, SCAN_EXCL, SCAN_FLAGS, SCAN_OFFSETS } scan_kind;

typedef struct scan_spec {
    scan_kind kind;
    size_t seg_mean; /* SCAN_FLAGS / SCAN_OFFSETS: random lengths in [1, 2 seg_mean - 1] */
} scan_spec;

static const scan_spec incl = {SCAN_INCL, 0}, excl = {SCAN_EXCL, 0}, flags = {SCAN_FLAGS, 256},
                       offsets = {SCAN_OFFSETS, 256};

static const pb_case cases[] = {
    PB_ROW("scan_incl_sum", PP_F32, PP_F32, PP_OP_SUM, incl),
    PB_ROW("scan_incl_sum", PP_F64, PP_F64, PP_OP_SUM, incl),
    PB_ROW("scan_excl_sum", PP_U32, PP_U32, PP_OP_SUM, excl),
    PB_ROW("scan_excl_sum", PP_U8, PP_U64, PP_OP_SUM, excl),
    PB_ROW("scan_incl_max", PP_I32, PP_I32, PP_OP_MAX, incl),
    PB_ROW("segscan_sum_flags", PP_F32, PP_F32, PP_OP_SUM, flags),
    PB_ROW("segscan_sum_offsets", PP_F32, PP_F32, PP_OP_SUM, offsets),
    {"latency_scan", PP_F32, PP_F32, PP_OP_SUM, 1024, 0, NULL, &incl, 0},
};

typedef struct scan_priv {
    size_t ns;       /* segments */
    size_t *offsets; /* host, ns + 1 (segmented rows) */
    uint8_t *flags;  /* host, n head flags (segmented rows) */
} scan_priv;

static scan_kind kind_of(const pb_state *s) { return ((const scan_spec *)s->c->spec)->kind; }

/* Segment k's length: counter-based from the seed (every backend and every n sees the same
 * prefix); the last segment is cut at n. */
static size_t segment_length(uint64_t seed, size_t k, size_t mean)
{
    uint64_t r = pb_mix64(pb_mix64(seed ^ 0x452821e638d01377ull) + (uint64_t)(k + 1) * 0x9e3779b97f4a7c15ull);
    return 1 + (size_t)(r % (2 * mean - 1));
}

static int setup(pb_run *r, pb_state *s)
{
    const size_t n = s->n, mean = ((const scan_spec *)s->c->spec)->seg_mean;
    scan_priv *p = s->priv = pb_scratch(r, sizeof *p);
    s->out_bytes = n * pp_dtype_size(s->c->out);
    s->bytes = (double)n * (double)pp_dtype_size(s->c->in) + (double)s->out_bytes;
    if (kind_of(s) != SCAN_FLAGS && kind_of(s) != SCAN_OFFSETS) return 0;
    for (size_t o = 0; o < n; p->ns++) o += segment_length(pb_seed(r), p->ns, mean);
    p->offsets = pb_scratch(r, (p->ns + 1) * sizeof *p->offsets);
    p->flags = pb_scratch(r, n);
    for (size_t k = 0, o = 0; k < p->ns; o += segment_length(pb_seed(r), k, mean), k++) p->flags[p->offsets[k] = o] = 1;
    p->offsets[p->ns] = n;
    const int fl = kind_of(s) == SCAN_FLAGS;
    s->bytes += (double)(fl ? n : (p->ns + 1) * sizeof(size_t));
    s->peer_bytes = fl && pb_gpu(r) ? s->bytes + 4.0 * (double)n : 0; /* CUB's scan by key reads uint32 keys */
    return pb_aux(r, s, fl ? (void *)p->flags : p->offsets, fl ? n : (p->ns + 1) * sizeof(size_t)) ? 0 : -1;
}

static pp_status call(pp_context *ctx, const pb_state *s)
{
    const pb_case *c = s->c;
    switch (kind_of(s)) {
    case SCAN_INCL: return pp_inclusive_scan(ctx, s->in, s->n, c->in, c->op, s->out, c->out);
    case SCAN_EXCL: return pp_exclusive_scan(ctx, s->in, s->n, c->in, c->op, NULL, s->out, c->out);
    case SCAN_FLAGS:
        return pp_segmented_scan_flags(ctx, s->in, s->n, c->in, s->aux, c->op, PP_SCAN_INCLUSIVE, NULL, s->out, c->out);
    case SCAN_OFFSETS:
        return pp_segmented_scan_offsets(ctx, s->in, s->n, c->in, s->aux, ((const scan_priv *)s->priv)->ns, c->op,
                                         PP_SCAN_INCLUSIVE, NULL, s->out, c->out);
    }
    return PP_ERROR_INVALID_ARGUMENT;
}

/* The n outputs against the reference (GPU runs), else the oracle, in chunks side by side: a
 * first pass reduces each chunk from its last segment head, so that the oracle's state entering
 * every chunk is known (both segmented forms are checked by their flags: the offsets cover
 * [0, n) with the same segments). */
static int check(pb_run *r, const pb_state *s, const void *got, int peer, char *why, size_t why_size)
{
    const pb_case *c = s->c;
    const scan_priv *p = s->priv;
    const size_t n = s->n, chunk = (size_t)1 << 16, nc = (n + chunk - 1) / chunk;
    const po_scan sc = {c->in, c->out, c->op, kind_of(s) == SCAN_EXCL, NULL, p->flags, NULL, 0, 0};
    po_red *st = pb_scratch(r, (nc + 1) * sizeof *st);
    int *head = pb_scratch(r, (nc + 1) * sizeof *head);
    (void)peer;
#pragma omp parallel for schedule(static)
    for (long long k = 0; k < (long long)nc; k++) {
        const size_t lo = (size_t)k * chunk, hi = n - lo < chunk ? n : lo + chunk;
        size_t h = hi;
        while (h > lo && !(h - 1 == 0 || (p->flags && p->flags[h - 1]))) h--;
        head[k] = h > lo;
        if (head[k]) po_scan_seed(&st[k], &sc), h--;
        else po_red_init(&st[k], c->op, c->in, c->out);
        po_red_push(&st[k], s->host_in, head[k] ? h : lo, hi);
    }
    for (size_t k = 1; k < nc; k++) /* st[k]: the state after chunk k */
        if (!head[k]) {
            po_red t = st[k - 1];
            po_red_merge(&t, &st[k]);
            st[k] = t;
        }
    size_t bad_chunk = SIZE_MAX;
#pragma omp parallel for schedule(dynamic, 1) reduction(min : bad_chunk)
    for (long long k = 0; k < (long long)nc; k++) {
        const size_t lo = (size_t)k * chunk, hi = n - lo < chunk ? n : lo + chunk;
        size_t bad;
        char w[8];
        if (!po_scan_check_span(&sc, s->host_in, lo, hi, k ? &st[k - 1] : NULL, got, s->ref, 2.0, &bad, w, sizeof w))
            bad_chunk = (size_t)k < bad_chunk ? (size_t)k : bad_chunk;
    }
    size_t bad = 0;
    if (bad_chunk != SIZE_MAX) /* again, for the message */
        po_scan_check_span(&sc, s->host_in, bad_chunk * chunk, n - bad_chunk * chunk < chunk ? n : (bad_chunk + 1) * chunk,
                           bad_chunk ? &st[bad_chunk - 1] : NULL, got, s->ref, 2.0, &bad, why, why_size);
    return bad_chunk == SIZE_MAX;
}

/* The peer writes into the row's output (verified already). CUB has no scan by offsets; its
 * scan by key reads each element's segment id (wrapping: only neighbours must differ). */
static int peer_job(pb_run *r, const pb_state *s, pb_peer *j)
{
    const scan_priv *p = s->priv;
    const scan_kind k = kind_of(s);
    const int sum = s->c->op == PP_OP_SUM;
    j->cub.kind = k == SCAN_FLAGS ? PB_CUB_SEGSCAN_SUM : k == SCAN_EXCL ? PB_CUB_EXCLUSIVE_SUM
                  : sum ? PB_CUB_INCLUSIVE_SUM : PB_CUB_INCLUSIVE_MAX;
    j->tbb.kind = k == SCAN_FLAGS ? PB_TBB_SEGSCAN_SUM : k == SCAN_EXCL ? PB_TBB_EXCLUSIVE_SUM
                  : sum ? PB_TBB_INCLUSIVE_SUM : PB_TBB_INCLUSIVE_MAX;
    j->to_out = 1;
    if (k == SCAN_FLAGS && pb_gpu(r)) {
        uint32_t *keys = pb_scratch(r, s->n * sizeof *keys);
#pragma omp parallel for schedule(static)
        for (long long g = 0; g < (long long)p->ns; g++)
            for (size_t i = p->offsets[g]; i < p->offsets[g + 1]; i++) keys[i] = (uint32_t)g;
        j->cub.keys = pb_upload_row(r, keys, s->n * sizeof *keys);
    }
    return k != SCAN_OFFSETS && (k != SCAN_FLAGS || !pb_gpu(r) || j->cub.keys);
}

PB_FAMILY(scan,
    .help = "  scan_incl_sum f32, f64, scan_excl_sum u32, u8->u64, scan_incl_max i32 (output of n\n"
            "  elements in context memory), segscan_sum_flags f32 and segscan_sum_offsets f32\n"
            "  (inclusive, the same random segments of 1..511 elements, mean 256, given as head\n"
            "  flags or as offsets), latency_scan f32 (inclusive sum at n = 1024); peers: CUB\n"
            "  DeviceScan (InclusiveSumByKey for the flags, none for the offsets), oneTBB parallel_scan\n");
