/* cases_histogram.c -- the histogram family: pp_histogram_even, pp_histogram_range,
 * pp_reduce_by_index (its rows and peers: the help text at the end). */
#include <math.h>
#include <stdio.h>

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
#define EVEN(name, nbins, skew, tuning) {name, PP_F32, PP_U32, PP_OP_SUM, 0, 0, tuning, SPEC(HIST_EVEN, nbins, skew), 0}
#define EVEN_U8(name, tuning) {name, PP_U8, PP_U32, PP_OP_SUM, 0, 4, tuning, SPEC(HIST_EVEN, 256, 0), 0}
#define RANGE(name, tuning) {name, PP_F32, PP_U32, PP_OP_SUM, 0, 0, tuning, SPEC(HIST_RANGE, 4096, 0), 0}
#define RBI(name, tuning) {name, PP_F32, PP_F32, PP_OP_SUM, 0, 0, tuning, SPEC(HIST_RBI, PB_RBI_OUTPUTS, 0), 0}
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
    double lower, upper, *edges; /* HIST_EVEN bounds; HIST_RANGE edges (host) */
    /* HIST_RBI, per output: the exact sum (double: the values are multiples of 2^-23 below 1
     * in magnitude, n < 2^30), sum |x| and the number of values */
    double *sum, *abs_sum;
    uint64_t *count;
} hist_priv;

static const hist_spec *spec_of(const pb_state *s) { return s->c->spec; }

static int setup(pb_run *r, pb_state *s)
{
    const hist_spec *h = spec_of(s);
    const size_t nb = h->nbins, isz = pp_dtype_size(s->c->in);
    hist_priv *p = s->priv = pb_scratch(r, sizeof *p);
    s->out_bytes = nb * sizeof(uint32_t); /* u32 counts, or f32 sums (accumulated into) */
    /* bounds exact in float (CUB's levels): u8 [0, 256); f32 [-1, 1), or bins of width 2 */
    p->lower = s->c->in == PP_U8 ? 0 : -1.0;
    p->upper = s->c->in == PP_U8 ? 256 : h->skew ? -1.0 + 2.0 * (double)nb : 1.0;
    s->bytes = (double)(s->n * isz + s->out_bytes);
    if (h->kind == HIST_RANGE) {
        /* -1 + 2 (k / nbins)^2 rounded to float (CUB's float levels are the same numbers):
         * narrow bins near -1, wide near 1 */
        p->edges = pb_scratch(r, (nb + 1) * sizeof *p->edges);
        for (size_t k = 0; k <= nb; k++) {
            const double f = (double)k / (double)nb;
            p->edges[k] = k == nb ? 1.0 : (float)(-1.0 + 2.0 * f * f);
        }
        s->bytes += (double)((nb + 1) * sizeof(double));
        return pb_aux(r, s, p->edges, (nb + 1) * sizeof(double)) ? 0 : -1;
    }
    if (h->kind != HIST_RBI) return 0;
    const float *v = s->host_in;
    const uint32_t *idx = s->host_aux = pb_host_input(r, PB_DS_IDX);
    double *sum = p->sum = pb_scratch(r, nb * sizeof *sum), *abs_sum = p->abs_sum = pb_scratch(r, nb * sizeof *sum);
    uint64_t *count = p->count = pb_scratch(r, nb * sizeof *count);
#pragma omp parallel for schedule(static) reduction(+ : sum[:nb], abs_sum[:nb], count[:nb])
    for (long long i = 0; i < (long long)s->n; i++)
        if (idx[i] < nb) sum[idx[i]] += v[i], abs_sum[idx[i]] += fabs(v[i]), count[idx[i]]++;
    s->bytes = (double)(s->n * (isz + sizeof(uint32_t)) + 2 * s->out_bytes);
    return (s->aux = pb_input(r, PB_DS_IDX)) ? 0 : -1;
}

static pp_status call(pp_context *ctx, const pb_state *s)
{
    const hist_priv *p = s->priv;
    const size_t nb = spec_of(s)->nbins;
    switch (spec_of(s)->kind) {
    case HIST_EVEN: return pp_histogram_even(ctx, s->in, s->n, s->c->in, nb, p->lower, p->upper, s->out, PP_U32);
    case HIST_RANGE: return pp_histogram_range(ctx, s->in, s->n, s->c->in, s->aux, nb, s->out, PP_U32);
    case HIST_RBI: return pp_reduce_by_index(ctx, s->in, s->n, PP_F32, s->aux, PP_OP_SUM, s->out, nb, NULL);
    }
    return PP_ERROR_INVALID_ARGUMENT;
}

/* Counts bitwise against the reference (GPU runs) or the oracle; reduce-by-index sums within
 * 2 g(m) sum|x| per output (m values: parprim.h's bound for each side) of the reference, or of
 * the exact sum rounded to float. */
static int check(pb_run *r, const pb_state *s, const void *got, int peer, char *why, size_t why_size)
{
    const hist_priv *p = s->priv;
    const size_t nb = spec_of(s)->nbins;
    (void)peer;
    if (spec_of(s)->kind == HIST_RBI) {
        const float *g = got, *f = s->ref;
        for (size_t j = 0; j < nb; j++) {
            const double m = (double)p->count[j], u = 0x1p-24, want = f ? f[j] : (float)p->sum[j];
            const double bound = 2.0 * m * u / (1.0 - m * u) * p->abs_sum[j];
            if (!(fabs((double)g[j] - want) <= bound)) {
                snprintf(why, why_size, "output %zu: got %.9g, reference %.9g, bound %.3g", j, (double)g[j], want, bound);
                return 0;
            }
        }
        return 1;
    }
    const uint32_t *g = got, *c = s->ref ? s->ref : pb_scratch(r, s->out_bytes);
    if (!s->ref) po_hist_counts(s->host_in, s->c->in, s->n, nb, p->lower, p->upper, p->edges, (uint32_t *)c);
    for (size_t k = 0; k < nb; k++)
        if (g[k] != c[k]) {
            snprintf(why, why_size, "bin %zu: count %u, reference %u", k, g[k], c[k]);
            return 0;
        }
    return 1;
}

/* GPU: CUB's HistogramEven / HistogramRange, or for reduce-by-index the atomics kernel. */
static int peer_job(pb_run *r, const pb_state *s, pb_peer *j)
{
    const hist_priv *p = s->priv;
    (void)r;
    j->cub.kind = spec_of(s)->kind == HIST_EVEN ? PB_CUB_HIST_EVEN : PB_CUB_HIST_RANGE;
    j->cub.nbins = spec_of(s)->nbins;
    j->cub.lower = p->lower, j->cub.upper = p->upper, j->cub.edges_host = p->edges;
    j->rbi.n_out = spec_of(s)->kind == HIST_RBI ? spec_of(s)->nbins : 0;
    return 1;
}

PB_FAMILY(histogram,
    .help = "  histogram rows (hist_*, u32 counts): hist_even_256/4096/65536/2^20 f32 (uniform over\n"
            "  [-1, 1)), *_skew (every sample in bin 0), hist_even_u8_256 (4n bytes, bin = value),\n"
            "  hist_range_4096 f32 (edges from nbins + 1 doubles), hist_rbi_sum_4096 f32\n"
            "  (pp_reduce_by_index, indices uniform over 4096 outputs); peers: CUB HistogramEven /\n"
            "  HistogramRange, for hist_rbi a plain global-atomics kernel; on the GPU also the rows\n"
            "  NAME@STRATEGY, one strategy forced through the context's options (hist_*, rbi_*)\n");
