/* cases_scan.c -- the scan family's rows: pp_inclusive_scan / pp_exclusive_scan (output of n
 * elements in context memory), the segmented scans by head flags and by offsets (the same
 * random segments of 1..511 elements, mean 256), and the latency of a small scan. Peers: CUB's
 * DeviceScan (the segmented one by key) on the GPU, oneTBB's parallel_scan on the CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    {"latency_scan", PP_F32, PP_F32, PP_OP_SUM, 1024, 0, NULL, &incl},
};

typedef struct scan_priv {
    void *out;        /* context space, n elements */
    size_t ns;        /* segments */
    size_t *offsets;  /* host, ns + 1 */
    uint8_t *flags;   /* host, n head flags (segmented rows) */
    const void *dev_segments; /* the flags or the offsets in context space */
    void *got, *ref;  /* host: the output read back; GPU runs: the CPU backend's */
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
    const pb_case *c = s->c;
    const size_t n = s->n, osz = pp_dtype_size(c->out);
    scan_priv *p = calloc(1, sizeof *p);
    if (!(s->priv = p)) return -1;
    s->bytes = (double)n * (double)(pp_dtype_size(c->in) + osz);
    p->got = pb_host_alloc(n * osz);
    if (kind_of(s) == SCAN_FLAGS || kind_of(s) == SCAN_OFFSETS) {
        const size_t mean = ((const scan_spec *)c->spec)->seg_mean;
        for (size_t o = 0; o < n; p->ns++) o += segment_length(pb_seed(r), p->ns, mean);
        p->offsets = pb_host_alloc((p->ns + 1) * sizeof *p->offsets);
        p->flags = pb_host_alloc(n);
        memset(p->flags, 0, n);
        for (size_t k = 0, o = 0; k < p->ns; o += segment_length(pb_seed(r), k, mean), k++) p->flags[p->offsets[k] = o] = 1;
        p->offsets[p->ns] = n;
        if (kind_of(s) == SCAN_FLAGS) {
            s->bytes += (double)n;
            s->peer_bytes = pb_gpu(r) ? s->bytes + 4.0 * (double)n : 0; /* CUB's scan by key reads uint32 keys */
            p->dev_segments = pb_upload(r, p->flags, n);
        } else {
            s->bytes += (double)((p->ns + 1) * sizeof(size_t));
            p->dev_segments = pb_upload(r, p->offsets, (p->ns + 1) * sizeof(size_t));
        }
        if (!p->dev_segments) return -1;
    }
    return (p->out = pb_alloc(r, n * osz)) ? 0 : -1;
}

/* The row's call on `in` with the segments `seg` (flags or offsets) into `out`. */
static pp_status scan_call(pp_context *ctx, const pb_state *s, const void *in, const void *seg, void *out)
{
    const pb_case *c = s->c;
    const scan_priv *p = s->priv;
    switch (kind_of(s)) {
    case SCAN_INCL: return pp_inclusive_scan(ctx, in, s->n, c->in, c->op, out, c->out);
    case SCAN_EXCL: return pp_exclusive_scan(ctx, in, s->n, c->in, c->op, NULL, out, c->out);
    case SCAN_FLAGS:
        return pp_segmented_scan_flags(ctx, in, s->n, c->in, seg, c->op, PP_SCAN_INCLUSIVE, NULL, out, c->out);
    case SCAN_OFFSETS:
        return pp_segmented_scan_offsets(ctx, in, s->n, c->in, seg, p->ns, c->op, PP_SCAN_INCLUSIVE, NULL, out, c->out);
    }
    return PP_ERROR_INVALID_ARGUMENT;
}

static pp_status call(pp_context *ctx, const pb_state *s)
{
    const scan_priv *p = s->priv;
    return scan_call(ctx, s, s->in, p->dev_segments, p->out);
}

/* Check the n outputs in p->out against the reference (p->ref on GPU runs, else the oracle),
 * in chunks side by side: a first pass reduces each chunk from its last segment head, so that
 * the oracle's state entering every chunk is known (both segmented forms are checked by their
 * flags: the offsets cover [0, n) with the same segments). */
static int check(pb_run *r, const pb_state *s, char *why, size_t why_size)
{
    const pb_case *c = s->c;
    scan_priv *p = s->priv;
    const size_t n = s->n, chunk = (size_t)1 << 16, nc = (n + chunk - 1) / chunk;
    if (pb_download(r, p->got, p->out, n * pp_dtype_size(c->out))) {
        snprintf(why, why_size, "could not read back the output");
        return 0;
    }
    const po_scan sc = {c->in, c->out, c->op, kind_of(s) == SCAN_EXCL, NULL, p->flags, NULL, 0, 0};
    po_red *st = malloc((nc + 1) * sizeof *st);
    int *head = malloc((nc + 1) * sizeof *head);
    if (!st || !head) {
        free(st), free(head);
        snprintf(why, why_size, "out of host memory for the check");
        return 0;
    }
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
#pragma omp parallel for schedule(dynamic, 1)
    for (long long k = 0; k < (long long)nc; k++) {
        const size_t lo = (size_t)k * chunk, hi = n - lo < chunk ? n : lo + chunk;
        size_t bad;
        char w[8];
        if (!po_scan_check_span(&sc, s->host_in, lo, hi, k ? &st[k - 1] : NULL, p->got, p->ref, 2.0, &bad, w, sizeof w)) {
#pragma omp critical
            if ((size_t)k < bad_chunk) bad_chunk = (size_t)k;
        }
    }
    size_t bad = 0;
    if (bad_chunk != SIZE_MAX) /* again, for the message */
        po_scan_check_span(&sc, s->host_in, bad_chunk * chunk, n - bad_chunk * chunk < chunk ? n : (bad_chunk + 1) * chunk,
                           bad_chunk ? &st[bad_chunk - 1] : NULL, p->got, p->ref, 2.0, &bad, why, why_size);
    free(st);
    free(head);
    return bad_chunk == SIZE_MAX;
}

static int verify(pb_run *r, pb_state *s, char *why, size_t why_size)
{
    scan_priv *p = s->priv;
    pp_context *ref = pb_ref_ctx(r);
    if (ref) {
        p->ref = pb_host_alloc(s->n * pp_dtype_size(s->c->out));
        pp_status st = scan_call(ref, s, s->host_in, kind_of(s) == SCAN_OFFSETS ? (void *)p->offsets : p->flags, p->ref);
        if (st != PP_OK) {
            snprintf(why, why_size, "reference on the cpu backend failed: %s: %s", pp_status_string(st),
                     pp_context_last_error(ref));
            return 0;
        }
    }
    return check(r, s, why, why_size);
}

/* The peer writes into the row's output (verified already), filled with 0xff bytes first so
 * that a call that writes nothing cannot pass the check. CUB has no scan by offsets. */
static double peer(pb_run *r, pb_state *s, pb_peer_kind kind, int reps, int batch, int *ok)
{
    const pb_case *c = s->c;
    scan_priv *p = s->priv;
    const scan_kind k = kind_of(s);
    double ms = -1;
    const char *err = "";
    if (k == SCAN_OFFSETS || pp_memset(pb_ctx(r), p->out, 0xff, s->n * pp_dtype_size(c->out)) != PP_OK) return -1;
    (void)reps, (void)batch;
#ifdef PB_HAVE_CUB
    if (kind == PB_PEER_GPU) {
        const pb_cub_kind kk = k == SCAN_FLAGS ? PB_CUB_SEGSCAN_SUM
                               : k == SCAN_EXCL ? PB_CUB_EXCLUSIVE_SUM
                               : c->op == PP_OP_SUM ? PB_CUB_INCLUSIVE_SUM : PB_CUB_INCLUSIVE_MAX;
        pb_cub_job j = pb_cub_job_of(r, s, kk, reps, batch);
        j.out = p->out;
        uint32_t *keys = NULL; /* each element's segment id (wrapping: only neighbours must differ) */
        if (k == SCAN_FLAGS) {
            keys = pb_host_alloc(s->n * sizeof *keys);
#pragma omp parallel for schedule(static)
            for (long long g = 0; g < (long long)p->ns; g++)
                for (size_t i = p->offsets[g]; i < p->offsets[g + 1]; i++) keys[i] = (uint32_t)g;
            j.keys = pb_upload(r, keys, s->n * sizeof *keys);
        }
        ms = k == SCAN_FLAGS && !j.keys ? -1 : pb_cub_run(&j);
        err = pb_cub_last_error();
        pb_release_upload(r, j.keys);
        free(keys);
    }
#endif
#ifdef PB_HAVE_TBB
    if (kind == PB_PEER_TBB) {
        const pb_tbb_kind kk = k == SCAN_FLAGS ? PB_TBB_SEGSCAN_SUM
                               : k == SCAN_EXCL ? PB_TBB_EXCLUSIVE_SUM
                               : c->op == PP_OP_SUM ? PB_TBB_INCLUSIVE_SUM : PB_TBB_INCLUSIVE_MAX;
        pb_tbb_job j = pb_tbb_job_of(s, kk, reps, batch);
        j.flags = p->flags;
        j.out = p->out;
        ms = pb_tbb_run(&j);
        err = pb_tbb_last_error();
    }
#endif
    (void)kind;
    char w[512];
    if (ms >= 0) *ok = check(r, s, w, sizeof w);
    else if (err[0]) fprintf(stderr, "parprim-bench: peer of %s: %s\n", c->name, err);
    return ms;
}

static void teardown(pb_run *r, pb_state *s)
{
    scan_priv *p = s->priv;
    if (!p) return;
    pb_release(r, p->out);
    pb_release_upload(r, p->dev_segments);
    free(p->offsets);
    free(p->flags);
    free(p->got);
    free(p->ref);
    free(p);
}

const pb_family pb_family_scan = {
    "scan", cases, sizeof cases / sizeof cases[0], setup, call, verify, peer, teardown, NULL,
    "  scan_incl_sum f32, f64, scan_excl_sum u32, u8->u64, scan_incl_max i32 (output of n\n"
    "  elements in context memory), segscan_sum_flags f32 and segscan_sum_offsets f32\n"
    "  (inclusive, the same random segments of 1..511 elements, mean 256, given as head\n"
    "  flags or as offsets), latency_scan f32 (inclusive sum at n = 1024, calls timed\n"
    "  back to back, time per call); peers: CUB DeviceScan (InclusiveSumByKey for the flags,\n"
    "  none for the offsets), oneTBB parallel_scan\n"};
