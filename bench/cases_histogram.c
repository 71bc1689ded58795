/* cases_histogram.c -- the histogram family's rows (u32 counts): pp_histogram_even over 256 to
 * 2^20 bins (uniform and skewed samples, and u8 bytes), pp_histogram_range from 4096 edges, and
 * pp_reduce_by_index (sums into 4096 outputs); then, on the GPU, the rows NAME@STRATEGY with one
 * strategy forced through the context's options, for the chooser's thresholds. Peers: CUB's
 * HistogramEven / HistogramRange, and for reduce-by-index the plain global-atomics kernel of
 * atomic_peer.hip (rows without a forced strategy only). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "oracles.h"

typedef enum hist_kind { HIST_EVEN, HIST_RANGE, HIST_RBI } hist_kind;

typedef struct hist_spec {
    hist_kind kind;
    size_t nbins; /* HIST_RBI: outputs */
    int skew;     /* f32 even: bins of width 2 over [-1, 2 nbins - 1): every sample in bin 0 */
} hist_spec;

#define B20 ((size_t)1 << 20)
#define SPEC(kind, nbins, skew) (&(const hist_spec){kind, nbins, skew})
#define EVEN(name, nbins, skew, tuning) {name, PP_F32, PP_U32, PP_OP_SUM, 0, 0, tuning, SPEC(HIST_EVEN, nbins, skew)}
#define EVEN_U8(name, tuning) {name, PP_U8, PP_U32, PP_OP_SUM, 0, 4, tuning, SPEC(HIST_EVEN, 256, 0)}
#define RANGE(name, tuning) {name, PP_F32, PP_U32, PP_OP_SUM, 0, 0, tuning, SPEC(HIST_RANGE, 4096, 0)}
#define RBI(name, tuning) {name, PP_F32, PP_F32, PP_OP_SUM, 0, 0, tuning, SPEC(HIST_RBI, PB_RBI_OUTPUTS, 0)}
#define HS "hist_strategy="

static const pb_case cases[] = {
    EVEN("hist_even_256", 256, 0, NULL),
    EVEN("hist_even_4096", 4096, 0, NULL),
    EVEN("hist_even_65536", 65536, 0, NULL),
    EVEN("hist_even_2^20", B20, 0, NULL),
    EVEN("hist_even_256_skew", 256, 1, NULL),
    EVEN("hist_even_65536_skew", 65536, 1, NULL),
    EVEN("hist_even_2^20_skew", B20, 1, NULL),
    EVEN_U8("hist_even_u8_256", NULL),
    RANGE("hist_range_4096", NULL),
    RBI("hist_rbi_sum_4096", NULL),
    /* GPU: every strategy forced, per bin count (the chooser's thresholds come from these) */
    EVEN("hist_even_256@shared_c32", 256, 0, HS "shared hist_copies=32"),
    EVEN("hist_even_256@shared_c32_agg", 256, 0, HS "shared hist_copies=32 hist_wave_aggregation=1"),
    EVEN("hist_even_256@shared_c32_w2", 256, 0, HS "shared hist_copies=32 hist_grid_waves=2"),
    EVEN("hist_even_256@shared_c8", 256, 0, HS "shared hist_copies=8"),
    EVEN("hist_even_256@shared_c1", 256, 0, HS "shared hist_copies=1"),
    EVEN("hist_even_256@global", 256, 0, HS "global"),
    EVEN("hist_even_256@cluster_k2", 256, 0, HS "cluster hist_cluster=2"),
    EVEN("hist_even_256_skew@shared_c32", 256, 1, HS "shared hist_copies=32"),
    EVEN("hist_even_256_skew@shared_c1", 256, 1, HS "shared hist_copies=1"),
    EVEN("hist_even_256_skew@global", 256, 1, HS "global"),
    EVEN("hist_even_4096@shared_c1", 4096, 0, HS "shared hist_copies=1"),
    EVEN("hist_even_4096@shared_c2", 4096, 0, HS "shared hist_copies=2"),
    EVEN("hist_even_4096@shared_c4", 4096, 0, HS "shared hist_copies=4"),
    EVEN("hist_even_4096@shared_c8", 4096, 0, HS "shared hist_copies=8"),
    EVEN("hist_even_4096@shared_r2048", 4096, 0, HS "shared hist_range_bins=2048"),
    EVEN("hist_even_4096@global", 4096, 0, HS "global"),
    EVEN("hist_even_4096@cluster_k2", 4096, 0, HS "cluster hist_cluster=2"),
    EVEN("hist_even_4096@cluster_k4", 4096, 0, HS "cluster hist_cluster=4"),
    EVEN("hist_even_65536@shared_r8192", 65536, 0, HS "shared hist_range_bins=8192"),
    EVEN("hist_even_65536@shared_r16384", 65536, 0, HS "shared hist_range_bins=16384"),
    EVEN("hist_even_65536@shared_r32768", 65536, 0, HS "shared hist_range_bins=32768"),
    EVEN("hist_even_65536@global", 65536, 0, HS "global"),
    EVEN("hist_even_65536@cluster_k2", 65536, 0, HS "cluster hist_cluster=2"),
    EVEN("hist_even_65536@cluster_k4", 65536, 0, HS "cluster hist_cluster=4"),
    EVEN("hist_even_65536@cluster_k8", 65536, 0, HS "cluster hist_cluster=8"),
    EVEN("hist_even_65536@cluster_k16", 65536, 0, HS "cluster hist_cluster=16"),
    EVEN("hist_even_65536_skew@shared", 65536, 1, HS "shared"),
    EVEN("hist_even_65536_skew@global", 65536, 1, HS "global"),
    EVEN("hist_even_65536_skew@cluster_k4", 65536, 1, HS "cluster hist_cluster=4"),
    EVEN("hist_even_2^20@shared", B20, 0, HS "shared"),
    EVEN("hist_even_2^20@shared_r32768", B20, 0, HS "shared hist_range_bins=32768"),
    EVEN("hist_even_2^20@global", B20, 0, HS "global"),
    EVEN("hist_even_2^20@cluster_k4", B20, 0, HS "cluster hist_cluster=4"),
    EVEN("hist_even_2^20@cluster_k8", B20, 0, HS "cluster hist_cluster=8"),
    EVEN("hist_even_2^20@cluster_k16", B20, 0, HS "cluster hist_cluster=16"),
    EVEN("hist_even_2^20_skew@global", B20, 1, HS "global"),
    EVEN("hist_even_2^20_skew@cluster_k16", B20, 1, HS "cluster hist_cluster=16"),
    EVEN_U8("hist_even_u8_256@u8", HS "u8"),
    EVEN_U8("hist_even_u8_256@u8_w2", HS "u8 hist_grid_waves=2"),
    EVEN_U8("hist_even_u8_256@shared_c32", HS "shared hist_copies=32"),
    EVEN_U8("hist_even_u8_256@global", HS "global"),
    RANGE("hist_range_4096@shared_c1", HS "shared hist_copies=1"),
    RANGE("hist_range_4096@shared_c2", HS "shared hist_copies=2"),
    RANGE("hist_range_4096@global", HS "global"),
    RBI("hist_rbi_sum_4096@shared_c1", "rbi_strategy=shared rbi_copies=1"),
    RBI("hist_rbi_sum_4096@shared_c2", "rbi_strategy=shared rbi_copies=2"),
    RBI("hist_rbi_sum_4096@shared_c4", "rbi_strategy=shared rbi_copies=4"),
    RBI("hist_rbi_sum_4096@global", "rbi_strategy=global"),
};

typedef struct hist_priv {
    double lower, upper;    /* HIST_EVEN */
    double *edges;          /* HIST_RANGE, host */
    const double *dev_edges;
    const uint32_t *indices, *host_indices; /* HIST_RBI */
    void *counts;           /* context space: u32 counts, or f32 sums (accumulated into) */
    size_t out_bytes;
} hist_priv;

/* The reference of the last configuration, kept for the strategy rows that follow it: the
 * CPU backend's result on GPU runs, the oracle on CPU runs. */
typedef struct ref_key {
    hist_spec spec;
    pp_dtype in;
    size_t n;
    int gpu;
} ref_key;

static struct hist_ref {
    int valid;
    ref_key key;
    void *data;       /* u32 counts, or f32 sums (HIST_RBI) */
    double *abs_sum;  /* HIST_RBI: sum |x| per output */
    uint64_t *count;  /* HIST_RBI: values per output */
} g_ref;

static void ref_free(void)
{
    free(g_ref.data);
    free(g_ref.abs_sum);
    free(g_ref.count);
    memset(&g_ref, 0, sizeof g_ref);
}

static const hist_spec *spec_of(const pb_state *s) { return s->c->spec; }

static int setup(pb_run *r, pb_state *s)
{
    const hist_spec *h = spec_of(s);
    const size_t nb = h->nbins, isz = pp_dtype_size(s->c->in);
    hist_priv *p = calloc(1, sizeof *p);
    if (!(s->priv = p)) return -1;
    p->out_bytes = nb * (h->kind == HIST_RBI ? sizeof(float) : sizeof(uint32_t));
    /* bounds exact in float (CUB's levels): u8 [0, 256); f32 [-1, 1), or bins of width 2 */
    p->lower = s->c->in == PP_U8 ? 0 : -1.0;
    p->upper = s->c->in == PP_U8 ? 256 : h->skew ? -1.0 + 2.0 * (double)nb : 1.0;
    s->bytes = (double)(s->n * isz + p->out_bytes);
    if (h->kind == HIST_RANGE) {
        /* -1 + 2 (k / nbins)^2 rounded to float (CUB's float levels are the same numbers):
         * narrow bins near -1, wide near 1 */
        p->edges = pb_host_alloc((nb + 1) * sizeof *p->edges);
        for (size_t k = 0; k <= nb; k++) {
            const double f = (double)k / (double)nb;
            p->edges[k] = k == nb ? 1.0 : (float)(-1.0 + 2.0 * f * f);
        }
        s->bytes += (double)((nb + 1) * sizeof(double));
        if (!(p->dev_edges = pb_upload(r, p->edges, (nb + 1) * sizeof(double)))) return -1;
    } else if (h->kind == HIST_RBI) {
        p->host_indices = pb_host_input(r, PB_DS_IDX);
        if (!(p->indices = pb_input(r, PB_DS_IDX))) return -1;
        s->bytes = (double)(s->n * (isz + sizeof(uint32_t)) + 2 * p->out_bytes);
    }
    if (!(p->counts = pb_alloc(r, p->out_bytes)) || pp_memset(pb_ctx(r), p->counts, 0, p->out_bytes) != PP_OK) return -1;
    return 0;
}

static pp_status call(pp_context *ctx, const pb_state *s)
{
    const hist_priv *p = s->priv;
    const size_t nb = spec_of(s)->nbins;
    switch (spec_of(s)->kind) {
    case HIST_EVEN: return pp_histogram_even(ctx, s->in, s->n, s->c->in, nb, p->lower, p->upper, p->counts, PP_U32);
    case HIST_RANGE: return pp_histogram_range(ctx, s->in, s->n, s->c->in, p->dev_edges, nb, p->counts, PP_U32);
    case HIST_RBI: return pp_reduce_by_index(ctx, s->in, s->n, PP_F32, p->indices, PP_OP_SUM, p->counts, nb, NULL);
    }
    return PP_ERROR_INVALID_ARGUMENT;
}

/* The reference of the row (cached in g_ref). 0 on success. */
static int reference(pb_run *r, const pb_state *s)
{
    const hist_spec *h = spec_of(s);
    const hist_priv *p = s->priv;
    const size_t nb = h->nbins, n = s->n;
    pp_context *ref = pb_ref_ctx(r);
    ref_key key;
    memset(&key, 0, sizeof key); /* the padding too: keys are compared with memcmp */
    key.spec = *h;
    key.in = s->c->in;
    key.n = n;
    key.gpu = ref != NULL;
    if (g_ref.valid && !memcmp(&key, &g_ref.key, sizeof key)) return 0;
    ref_free();
    pp_status st = PP_OK;
    if (h->kind == HIST_RBI) {
        float *sum = calloc(nb, sizeof *sum);
        double *ds = calloc(nb, sizeof *ds);
        g_ref.abs_sum = calloc(nb, sizeof *g_ref.abs_sum);
        g_ref.count = calloc(nb, sizeof *g_ref.count);
        g_ref.data = sum;
        if (!sum || !ds || !g_ref.abs_sum || !g_ref.count) {
            free(ds);
            return -1;
        }
        const float *v = s->host_in;
        for (size_t i = 0; i < n; i++) {
            const uint32_t j = p->host_indices[i];
            if (j >= nb) continue;
            ds[j] += v[i];
            g_ref.abs_sum[j] += fabs(v[i]);
            g_ref.count[j]++;
        }
        if (ref) st = pp_reduce_by_index(ref, s->host_in, n, PP_F32, p->host_indices, PP_OP_SUM, sum, nb, NULL);
        else
            for (size_t j = 0; j < nb; j++) sum[j] = (float)ds[j];
        free(ds);
    } else {
        uint32_t *c = g_ref.data = malloc(nb * sizeof *c);
        if (!c) return -1;
        if (ref && h->kind == HIST_EVEN)
            st = pp_histogram_even(ref, s->host_in, n, s->c->in, nb, p->lower, p->upper, c, PP_U32);
        else if (ref)
            st = pp_histogram_range(ref, s->host_in, n, s->c->in, p->edges, nb, c, PP_U32);
        else
            po_hist_counts(s->host_in, s->c->in, n, nb, p->lower, p->upper, h->kind == HIST_RANGE ? p->edges : NULL, c);
    }
    if (st != PP_OK) {
        fprintf(stderr, "parprim-bench: reference on the cpu backend failed: %s\n", pp_context_last_error(ref));
        return -1;
    }
    g_ref.valid = 1;
    g_ref.key = key;
    return 0;
}

/* Counts bitwise; reduce-by-index sums within 2 g(m) sum|x| per output (m values: parprim.h's
 * bound for each side). */
static int check(const pb_state *s, const void *got, char *why, size_t why_size)
{
    const size_t nb = spec_of(s)->nbins;
    if (spec_of(s)->kind == HIST_RBI) {
        const float *g = got, *f = g_ref.data;
        for (size_t j = 0; j < nb; j++) {
            const double m = (double)g_ref.count[j], u = 0x1p-24;
            const double bound = 2.0 * m * u / (1.0 - m * u) * g_ref.abs_sum[j];
            if (!(fabs((double)g[j] - (double)f[j]) <= bound)) {
                snprintf(why, why_size, "output %zu: got %.9g, reference %.9g, bound %.3g", j, (double)g[j], (double)f[j],
                         bound);
                return 0;
            }
        }
        return 1;
    }
    const uint32_t *g = got, *c = g_ref.data;
    for (size_t k = 0; k < nb; k++)
        if (g[k] != c[k]) {
            snprintf(why, why_size, "bin %zu: count %u, reference %u", k, g[k], c[k]);
            return 0;
        }
    return 1;
}

static int verify(pb_run *r, pb_state *s, char *why, size_t why_size)
{
    hist_priv *p = s->priv;
    void *got = pb_host_alloc(p->out_bytes);
    int ok = 0;
    /* reduce-by-index accumulated over the timed calls: once more from 0 for the check */
    if (spec_of(s)->kind == HIST_RBI &&
        (pp_memset(pb_ctx(r), p->counts, 0, p->out_bytes) != PP_OK || call(pb_ctx(r), s) != PP_OK))
        snprintf(why, why_size, "running again from 0: %s", pp_context_last_error(pb_ctx(r)));
    else if (pb_download(r, got, p->counts, p->out_bytes) || reference(r, s))
        snprintf(why, why_size, "could not read back or compute the reference");
    else
        ok = check(s, got, why, why_size);
    free(got);
    return ok;
}

static double peer(pb_run *r, pb_state *s, pb_peer_kind kind, int reps, int batch, int *ok)
{
    hist_priv *p = s->priv;
    void *res = calloc(1, p->out_bytes);
    double ms = -1;
    const char *err = "";
    (void)r, (void)reps, (void)batch;
#ifdef PB_HAVE_GPU_TIMER
    if (kind == PB_PEER_GPU && spec_of(s)->kind == HIST_RBI) {
        pb_rbi_job j;
        memset(&j, 0, sizeof j);
        j.values = s->in;
        j.indices = p->indices;
        j.n = s->n;
        j.n_out = spec_of(s)->nbins;
        j.stream = pb_stream(r);
        j.reps = reps;
        j.batch = batch;
        j.result = res;
        ms = pb_rbi_atomic_run(&j);
        err = pb_rbi_last_error();
    }
#endif
#ifdef PB_HAVE_CUB
    if (kind == PB_PEER_GPU && spec_of(s)->kind != HIST_RBI) {
        const pb_cub_kind kk = spec_of(s)->kind == HIST_EVEN ? PB_CUB_HIST_EVEN : PB_CUB_HIST_RANGE;
        pb_cub_job j = pb_cub_job_of(r, s, kk, reps, batch);
        j.result = res;
        j.nbins = spec_of(s)->nbins;
        j.lower = p->lower;
        j.upper = p->upper;
        j.edges_host = p->edges;
        ms = pb_cub_run(&j);
        err = pb_cub_last_error();
    }
#endif
    (void)kind;
    char w[256];
    if (ms >= 0) *ok = res && g_ref.valid && check(s, res, w, sizeof w);
    else if (err[0]) fprintf(stderr, "parprim-bench: peer of %s: %s\n", s->c->name, err);
    free(res);
    return ms;
}

static void teardown(pb_run *r, pb_state *s)
{
    hist_priv *p = s->priv;
    if (!p) return;
    pb_release(r, p->counts);
    pb_release_upload(r, p->dev_edges);
    free(p->edges);
    free(p);
}

const pb_family pb_family_histogram = {
    "histogram", cases, sizeof cases / sizeof cases[0], setup, call, verify, peer, teardown, ref_free,
    "  histogram rows (hist_*, u32 counts): hist_even_256/4096/65536/2^20 f32 (uniform over\n"
    "  [-1, 1)), *_skew (every sample in bin 0), hist_even_u8_256 (4n bytes, bin = value),\n"
    "  hist_range_4096 f32 (edges from nbins + 1 doubles), hist_rbi_sum_4096 f32\n"
    "  (pp_reduce_by_index, indices uniform over 4096 outputs); on the GPU CUB's\n"
    "  HistogramEven / HistogramRange (or, for hist_rbi, a plain global-atomics kernel) in\n"
    "  the peer columns, and the rows NAME@STRATEGY with one GPU strategy forced through the\n"
    "  context's experimental options (hist_strategy, hist_copies, ...; rbi_*), for the\n"
    "  chooser; their plan column shows the strategy that ran.\n"};
