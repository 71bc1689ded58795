/* cases_segsort.c -- the segmented sort's rows (issue 22): pp_segmented_sort_keys of the run's u32
 * keys in equal segments of 16, 64, 112, 113, 128 (112's class full), 256, 512, 2048 and 16384
 * keys, in a mixed set (lengths log-uniform in [1, 2^17], a fixed seed: a power law with
 * exponent 1), and
 * pp_segmented_sort_pairs (u32 values 0 .. n-1) at 256, and one segment of all n keys (the long
 * class at its longest); ascending, out of place; n rounded down to whole segments.
 * Peers: on the GPU CUB's DeviceSegmentedSort (SortKeys, SortPairs) and, on the rows named
 * *_vs_radix, one DeviceRadixSort::SortKeys of the whole array as u64 keys (segment index << 32 |
 * key, bits [0, 32 + ceil(log2(segments)))), the keys made before timing; on the CPU parprim's
 * own pp_sort_keys of the whole array (the radix sort the issue measures against).
 * Verified on every backend: every segment in order and holding its input's keys (a multiset
 * hash per segment); pairs: the values (input positions) a stable permutation within each
 * segment. The bitwise parity with the CPU backend is tests/test_segsort.c's. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "oracles.h"

typedef struct seg_spec {
    int pairs;
    size_t len;     /* equal segments of len keys; 0: the mixed set; SEG_ALL: one segment of all */
    int vs_radix;   /* peer: the whole-array radix sort with the segment in the key */
} seg_spec;

#define SEG_ALL ((size_t)-1)

static const seg_spec k16 = {0, 16, 0}, k64 = {0, 64, 0}, k112 = {0, 112, 0}, k113 = {0, 113, 0}, k128 = {0, 128, 0},
                      k256 = {0, 256, 0}, k512 = {0, 512, 0}, k1024 = {0, 1024, 0}, k2048 = {0, 2048, 0},
                      k4096 = {0, 4096, 0}, k8192 = {0, 8192, 0}, k16384 = {0, 16384, 0},
                      kmix = {0, 0, 0}, p256 = {1, 256, 0}, r16 = {0, 16, 1}, r256 = {0, 256, 1},
                      r16384 = {0, 16384, 1}, rmix = {0, 0, 1}, kall = {0, SEG_ALL, 0}, rall = {0, SEG_ALL, 1};

static const pb_case cases[] = {
    PB_ROW("segsort_keys_16", PP_U32, PP_U32, PP_OP_SUM, k16),
    PB_ROW("segsort_keys_64", PP_U32, PP_U32, PP_OP_SUM, k64),
    PB_ROW("segsort_keys_112", PP_U32, PP_U32, PP_OP_SUM, k112),
    PB_ROW("segsort_keys_113", PP_U32, PP_U32, PP_OP_SUM, k113),
    PB_ROW("segsort_keys_128", PP_U32, PP_U32, PP_OP_SUM, k128),
    PB_ROW("segsort_keys_256", PP_U32, PP_U32, PP_OP_SUM, k256),
    PB_ROW("segsort_keys_512", PP_U32, PP_U32, PP_OP_SUM, k512),
    PB_ROW("segsort_keys_1024", PP_U32, PP_U32, PP_OP_SUM, k1024),
    PB_ROW("segsort_keys_2048", PP_U32, PP_U32, PP_OP_SUM, k2048),
    PB_ROW("segsort_keys_4096", PP_U32, PP_U32, PP_OP_SUM, k4096),
    {"segsort_keys_1024@block", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "segsort_pack_log=9", &k1024, 0},
    {"segsort_keys_256@block", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "segsort_pack_log=7", &k256, 0},
    PB_ROW("segsort_keys_8192", PP_U32, PP_U32, PP_OP_SUM, k8192),
    {"segsort_keys_8192@merge", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "segsort_long=1", &k8192, 0},
    PB_ROW("segsort_keys_16384", PP_U32, PP_U32, PP_OP_SUM, k16384),
    /* the long class as chunks and merge passes (PP_OPTION_SEGSORT_LONG 1; the default is the
     * radix levels), and its merge passes a launch each (what every row did before the
     * cooperative launch) */
    {"segsort_keys_16384@merge", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "segsort_long=1", &k16384, 0},
    {"segsort_keys_mixed@merge", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "segsort_long=1", &kmix, 0},
    {"segsort_keys_one@merge", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "segsort_long=1", &kall, 0},
    {"segsort_keys_4096@radix", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "segsort_pack_log=11 segsort_long=2", &k4096, 0},
    {"segsort_keys_16@radix", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "segsort_long=2", &k16, 0},
    {"segsort_keys_2048@radix", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "segsort_pack_log=10 segsort_long=2", &k2048, 0},
    {"segsort_keys_16384@per_pass", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "segsort_long=1 segsort_merge_launch=1", &k16384, 0},
    PB_ROW("segsort_keys_mixed", PP_U32, PP_U32, PP_OP_SUM, kmix),
    PB_ROW("segsort_keys_one", PP_U32, PP_U32, PP_OP_SUM, kall),
    PB_ROW("segsort_pairs_256", PP_U32, PP_U32, PP_OP_SUM, p256),
    PB_ROW("segsort_16_vs_radix", PP_U32, PP_U32, PP_OP_SUM, r16),
    PB_ROW("segsort_256_vs_radix", PP_U32, PP_U32, PP_OP_SUM, r256),
    PB_ROW("segsort_16384_vs_radix", PP_U32, PP_U32, PP_OP_SUM, r16384),
    PB_ROW("segsort_mixed_vs_radix", PP_U32, PP_U32, PP_OP_SUM, rmix),
    PB_ROW("segsort_one_vs_radix", PP_U32, PP_U32, PP_OP_SUM, rall),
};

typedef struct seg_priv {
    size_t S;
    size_t *host_off;
    const size_t *off;      /* context space */
    void *keys_out;         /* n u32 */
    uint32_t *host_iota;
    const void *values_in;  /* pairs: 0 .. n-1 */
    void *values_out;
    uint64_t *host_seg;     /* vs_radix on the GPU: (segment << 32 | key) */
    const void *seg_keys;
    void *seg_out;
    int end_bit;
} seg_priv;

static const seg_spec *spec_of(const pb_state *s) { return (const seg_spec *)s->c->spec; }

static int setup(pb_run *r, pb_state *s)
{
    const seg_spec *sp = spec_of(s);
    seg_priv *p = calloc(1, sizeof *p);
    if (!(s->priv = p)) return -1;
    size_t n = s->n, S;
    if (sp->len == SEG_ALL) {
        S = 1;
        p->host_off = pb_host_alloc(2 * sizeof *p->host_off);
        p->host_off[0] = 0;
        p->host_off[1] = n;
    } else if (sp->len) {
        S = n / sp->len;
        n = S * sp->len;
        p->host_off = pb_host_alloc((S + 1) * sizeof *p->host_off);
        for (size_t i = 0; i <= S; ++i) p->host_off[i] = i * sp->len;
    } else { /* lengths 2^(17 u), u uniform in [0, 1): a fixed seed, the last one cut at n */
        size_t cap = 1024, pos = 0;
        S = 0;
        p->host_off = pb_host_alloc(cap * sizeof *p->host_off);
        p->host_off[0] = 0;
        uint64_t z = 22;
        while (pos < n) {
            z = pb_mix64(z + 0x9e3779b97f4a7c15ull);
            const double u = (double)(z >> 11) * 0x1p-53;
            size_t len = (size_t)exp2(17.0 * u);
            if (len > n - pos) len = n - pos;
            pos += len;
            if (S + 2 > cap) {
                size_t *g = pb_host_alloc(2 * cap * sizeof *g);
                memcpy(g, p->host_off, cap * sizeof *g);
                free(p->host_off);
                p->host_off = g;
                cap *= 2;
            }
            p->host_off[++S] = pos;
        }
    }
    s->n = n;
    p->S = S;
    if (!(p->off = pb_upload(r, p->host_off, (S + 1) * sizeof *p->host_off))) return -1;
    if (!(p->keys_out = pb_alloc(r, n * 4))) return -1;
    s->bytes = 8.0 * (double)n;
    if (sp->pairs) {
        s->bytes += 8.0 * (double)n;
        p->host_iota = pb_host_alloc(n * 4);
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < (long long)n; i++) p->host_iota[i] = (uint32_t)i;
        if (!(p->values_in = pb_upload(r, p->host_iota, n * 4))) return -1;
        if (!(p->values_out = pb_alloc(r, n * 4))) return -1;
    }
    if (sp->vs_radix && pb_gpu(r)) {
        p->host_seg = pb_host_alloc(n * 8);
        const uint32_t *k = (const uint32_t *)s->host_in;
#pragma omp parallel for schedule(dynamic, 64)
        for (long long g = 0; g < (long long)S; g++)
            for (size_t i = p->host_off[g]; i < p->host_off[g + 1]; ++i) p->host_seg[i] = ((uint64_t)g << 32) | k[i];
        p->end_bit = 32 + (int)po_ceil_log2(S);
        if (!(p->seg_keys = pb_upload(r, p->host_seg, n * 8))) return -1;
        if (!(p->seg_out = pb_alloc(r, n * 8))) return -1;
        s->peer_bytes = 16.0 * (double)n;
    }
    return 0;
}

static pp_status call(pp_context *ctx, const pb_state *s)
{
    const seg_priv *p = s->priv;
    if (spec_of(s)->pairs)
        return pp_segmented_sort_pairs(ctx, s->in, p->keys_out, p->values_in, p->values_out, s->n, PP_U32, PP_U32,
                                       p->off, p->S, PP_SORT_ASCENDING);
    return pp_segmented_sort_keys(ctx, s->in, p->keys_out, s->n, PP_U32, p->off, p->S, PP_SORT_ASCENDING);
}

/* Every segment of the outputs (context space) against its input: in order, the same keys
 * (multiset hash), and for pairs the values a stable permutation of the segment's positions. */
static int check(pb_run *r, const pb_state *s, const void *got_keys, const void *got_vals, char *why, size_t ws)
{
    const seg_priv *p = s->priv;
    const size_t n = s->n;
    const uint32_t *in = (const uint32_t *)s->host_in;
    uint32_t *k = pb_host_alloc(n * 4), *v = NULL;
    int ok = 1;
    if (pb_download(r, k, got_keys, n * 4)) ok = 0;
    if (ok && got_vals) {
        v = pb_host_alloc(n * 4);
        if (pb_download(r, v, got_vals, n * 4)) ok = 0;
    }
    if (!ok) {
        snprintf(why, ws, "could not read back the output");
    } else {
        long long bad = -1;
#pragma omp parallel for schedule(dynamic, 16)
        for (long long g = 0; g < (long long)p->S; g++) {
            const size_t b = p->host_off[g], e = p->host_off[g + 1];
            uint64_t hi = 0, ho = 0;
            int fine = 1;
            for (size_t i = b; i < e && fine; ++i) {
                hi += pb_mix64(in[i] + 0x51ull);
                ho += pb_mix64(k[i] + 0x51ull);
                if (i > b && k[i - 1] > k[i]) fine = 0;
                if (v && (v[i] < b || v[i] >= e || in[v[i]] != k[i] ||
                          (i > b && k[i - 1] == k[i] && v[i - 1] >= v[i])))
                    fine = 0;
            }
            if (!fine || hi != ho) {
#pragma omp critical
                if (bad < 0 || g < bad) bad = g;
            }
        }
        if (bad >= 0) ok = 0, snprintf(why, ws, "segment %lld is not its input sorted (stably)", bad);
    }
    free(k);
    free(v);
    return ok;
}

static int verify(pb_run *r, pb_state *s, char *why, size_t why_size)
{
    const seg_priv *p = s->priv;
    return check(r, s, p->keys_out, p->values_out, why, why_size);
}

static double median_ms(double *t, int k)
{
    for (int i = 1; i < k; ++i)
        for (int j = i; j > 0 && t[j - 1] > t[j]; --j) {
            const double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
}

static double peer(pb_run *r, pb_state *s, pb_peer_kind kind, int reps, int batch, int *ok)
{
    seg_priv *p = s->priv;
    const seg_spec *sp = spec_of(s);
    const size_t n = s->n;
    double ms = -1;
    const char *err = "";
#ifdef PB_HAVE_CUB
    if (kind == PB_PEER_GPU) {
        if (pp_memset(pb_ctx(r), p->keys_out, 0xff, n * 4) != PP_OK) return -1;
        if (p->values_out && pp_memset(pb_ctx(r), p->values_out, 0xff, n * 4) != PP_OK) return -1;
        pb_cub_job j = pb_cub_job_of(r, s, sp->pairs ? PB_CUB_SEGSORT_PAIRS : PB_CUB_SEGSORT_KEYS, reps, batch);
        if (sp->vs_radix) {
            j.kind = PB_CUB_SORT_SEGKEY;
            j.in = p->seg_keys;
            j.keys_out = p->seg_out;
            j.end_bit = p->end_bit;
        } else {
            j.keys_out = p->keys_out;
            j.offsets = p->off;
            j.n_segments = p->S;
            j.values_in = p->values_in;
            j.values_out = p->values_out;
            j.value_type = PP_U32;
        }
        ms = pb_cub_run(&j);
        err = pb_cub_last_error();
        char w[512];
        if (ms >= 0 && !sp->vs_radix) *ok = check(r, s, p->keys_out, p->values_out, w, sizeof w);
    }
#endif
    if (kind == PB_PEER_TBB) { /* CPU: parprim's radix sort of the whole array */
        pp_context *ctx = pb_ctx(r);
        double t[64];
        const int k = reps < 64 ? (reps > 0 ? reps : 1) : 64, bt = batch > 0 ? batch : 1;
        for (int i = 0; i < k; ++i) {
            const double t0 = omp_get_wtime();
            for (int b = 0; b < bt; ++b)
                if (pp_sort_keys(ctx, s->in, p->keys_out, n, PP_U32, PP_SORT_ASCENDING, 0, 0) != PP_OK) return -1;
            t[i] = (omp_get_wtime() - t0) * 1e3 / bt;
        }
        ms = median_ms(t, k);
        *ok = -1;
    }
    (void)reps, (void)batch, (void)ok, (void)sp, (void)n;
    if (ms < 0 && err[0]) fprintf(stderr, "parprim-bench: peer of %s: %s\n", s->c->name, err);
    return ms;
}

static void teardown(pb_run *r, pb_state *s)
{
    seg_priv *p = s->priv;
    if (!p) return;
    pb_release_upload(r, p->off);
    pb_release(r, p->keys_out);
    pb_release_upload(r, p->values_in);
    pb_release(r, p->values_out);
    pb_release_upload(r, p->seg_keys);
    pb_release(r, p->seg_out);
    free(p->host_off);
    free(p->host_iota);
    free(p->host_seg);
    free(p);
}

const pb_family pb_family_segsort = {
    "segsort", cases, sizeof cases / sizeof cases[0], setup, call, verify, peer, teardown, NULL,
    "  segsort_keys_L u32 in equal segments of L = 16, 64, 112, 113, 256, 512, 1024, 2048, 4096,\n"
    "  16384 keys (L@block: segments of L keys sent to the long class, one chunk each, sorted a\n"
    "  block each at the tile's class: segsort_pack_log below log2 L; L@radix: the long class by\n"
    "  radix levels, segsort_long=2 (2048, 4096: sent there); L@merge: the long class as chunks\n"
    "  and merge passes, segsort_long=1),\n"
    "  segsort_keys_mixed (lengths log-uniform in [1, 2^17], fixed seed), segsort_keys_one (one\n"
    "  segment of all n keys, offsets form), segsort_pairs_256 (u32 values 0 .. n-1); peers: CUB\n"
    "  DeviceSegmentedSort (SortKeys, SortPairs), on the CPU parprim's pp_sort_keys of the whole\n"
    "  array; segsort_L_vs_radix / segsort_mixed_vs_radix / segsort_one_vs_radix: the same sort,\n"
    "  peer CUB DeviceRadixSort of the whole array with the segment index in the key's high bits\n"};
