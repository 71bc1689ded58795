/* cases_sort.c -- the radix sort family's rows (issue 20): pp_sort_keys (u32, f32, u64 at n / 2,
 * i32 with 16 distinct values, u32 already sorted), pp_sort_pairs u32 / u32 and f32 / u32,
 * pp_argsort f32 and u32 (u32 indices), the latency of sorts of 1024, 2^16 and 2^20 u32 keys,
 * and the tile sort + bitonic merge forced at 2^20 and at the run's n. Output buffers in context
 * memory; ascending.
 * Peers: CUB's DeviceRadixSort (SortKeys; SortPairs, with an index payload for the argsort) on
 * the GPU; oneTBB's parallel_sort and std::sort (keys copied, then sorted in place) on the CPU.
 * Verified on every backend by the order, stability and a multiset hash of the keys (pairs and
 * argsort: the permutation itself). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "oracles.h"

typedef enum { SORT_KEYS, SORT_PAIRS, SORT_ARGSORT } sort_call_kind;
typedef enum { KEYS_DATASET, KEYS_U64, KEYS_FEW, KEYS_SORTED } keys_layout;

typedef struct sort_spec {
    sort_call_kind kind;
    keys_layout layout;
    int std_peer; /* CPU: std::sort instead of tbb::parallel_sort */
} sort_spec;

static const sort_spec keys = {SORT_KEYS, KEYS_DATASET, 0}, keys_std = {SORT_KEYS, KEYS_DATASET, 1},
                       pairs = {SORT_PAIRS, KEYS_DATASET, 0}, args = {SORT_ARGSORT, KEYS_DATASET, 0},
                       u64 = {SORT_KEYS, KEYS_U64, 0}, few = {SORT_KEYS, KEYS_FEW, 0},
                       sorted = {SORT_KEYS, KEYS_SORTED, 0};

/* The rows' `in` dtype is the key type; the u64 row's keys are made in setup (from the f64
 * dataset's slot), the others read the run's dataset (few-distinct and sorted: remade). */
static const pb_case cases[] = {
    PB_ROW("sort_keys", PP_U32, PP_U32, PP_OP_SUM, keys),
    PB_ROW("sort_keys", PP_F32, PP_F32, PP_OP_SUM, keys),
    PB_ROW("sort_pairs", PP_U32, PP_U32, PP_OP_SUM, pairs),
    {"sort_keys_half_n", PP_U64, PP_U64, PP_OP_SUM, 0, 0, NULL, &u64, 0},
    PB_ROW("argsort", PP_F32, PP_U32, PP_OP_SUM, args),
    /* the argsort's cost split (eleventh session): its key type against the pairs' (f32 keys with
     * u32 values 0 .. n-1; u32 keys argsorted) */
    PB_ROW("sort_pairs", PP_F32, PP_U32, PP_OP_SUM, pairs),
    PB_ROW("argsort", PP_U32, PP_U32, PP_OP_SUM, args),
    PB_ROW("sort_keys_16_distinct", PP_I32, PP_I32, PP_OP_SUM, few),
    PB_ROW("sort_keys_sorted", PP_U32, PP_U32, PP_OP_SUM, sorted),
    PB_ROW("sort_keys_vs_std", PP_U32, PP_U32, PP_OP_SUM, keys_std),
    {"latency_sort", PP_U32, PP_U32, PP_OP_SUM, 1024, 0, NULL, &keys, 0},
    {"latency_sort", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 16, 0, NULL, &keys, 0},
    {"latency_sort", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 20, 0, NULL, &keys, 0},
    /* the onesweep tiles' size forced (the small tiles' bound in tuning_sort.h comes from these) */
    {"latency_sort@big_tiles", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 16, 0, "sort_small_tiles=1", &keys, 0},
    {"latency_sort@small_tiles", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 17, 0, "sort_small_tiles=2", &keys, 0},
    {"latency_sort@big_tiles", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 17, 0, "sort_small_tiles=1", &keys, 0},
    {"latency_sort@small_tiles", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 18, 0, "sort_small_tiles=2", &keys, 0},
    {"latency_sort@big_tiles", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 18, 0, "sort_small_tiles=1", &keys, 0},
    {"latency_sort@small_tiles", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 20, 0, "sort_small_tiles=2", &keys, 0},
    /* the onesweep tiles' width forced (tuning_sort.h's wide_min_n comes from these) */
    {"sort_keys@narrow_tiles", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "sort_wide_tiles=1", &keys, 0},
    {"sort_keys@wide_tiles", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "sort_wide_tiles=2", &keys, 0},
    {"sort_keys@narrow_tiles", PP_F32, PP_F32, PP_OP_SUM, 0, 0, "sort_wide_tiles=1", &keys, 0},
    {"sort_keys_half_n@narrow_tiles", PP_U64, PP_U64, PP_OP_SUM, 0, 0, "sort_wide_tiles=1", &u64, 0},
    {"latency_sort@narrow_tiles", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 21, 0, "sort_wide_tiles=1", &keys, 0},
    {"latency_sort@wide_tiles", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 21, 0, "sort_wide_tiles=2", &keys, 0},
    {"latency_sort@narrow_tiles", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 22, 0, "sort_wide_tiles=1", &keys, 0},
    {"latency_sort@wide_tiles", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 22, 0, "sort_wide_tiles=2", &keys, 0},
    {"sort_tile_merge", PP_U32, PP_U32, PP_OP_SUM, (size_t)1 << 20, 0, "sort_strategy=tile_merge", &keys, 0},
    {"sort_tile_merge", PP_U32, PP_U32, PP_OP_SUM, 0, 0, "sort_strategy=tile_merge", &keys, 0},
};

typedef struct sort_priv {
    const void *keys;      /* context space: the keys sorted (s->in, or made here) */
    const void *host_keys; /* the same on the host */
    void *own_host;        /* host keys made here (freed) */
    const void *own_dev;   /* their context-space copy (released) */
    void *keys_out;        /* context space, n keys (NULL for argsort) */
    void *values_in;       /* pairs: 0, 1, ..., n - 1 (u32); argsort peer's payload too */
    void *values_out;      /* pairs: n u32; argsort: n u32 indices */
    uint32_t *host_iota;
} sort_priv;

static const sort_spec *spec_of(const pb_state *s) { return (const sort_spec *)s->c->spec; }

static int setup(pb_run *r, pb_state *s)
{
    const pb_case *c = s->c;
    const sort_spec *sp = spec_of(s);
    sort_priv *p = calloc(1, sizeof *p);
    if (!(s->priv = p)) return -1;
    const size_t ks = pp_dtype_size(c->in);
    if (sp->layout == KEYS_U64) s->n /= 2;
    const size_t n = s->n;
    p->keys = s->in;
    p->host_keys = s->host_in;
    if (sp->layout != KEYS_DATASET) {
        p->own_host = pb_host_alloc(n * ks);
        const uint64_t seed = pb_seed(r);
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < (long long)n; i++) {
            const uint64_t x = pb_mix64(seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1)));
            if (sp->layout == KEYS_U64) ((uint64_t *)p->own_host)[i] = x;
            else if (sp->layout == KEYS_FEW) ((int32_t *)p->own_host)[i] = (int32_t)(x % 16) * 1000003 - 7000000;
            else ((uint32_t *)p->own_host)[i] = (uint32_t)((uint64_t)i * 0xFFFFFFFFull / (n ? n : 1)); /* sorted */
        }
        p->host_keys = p->own_host;
        if (!(p->keys = p->own_dev = pb_upload(r, p->own_host, n * ks))) return -1;
    }
    const int vals = sp->kind != SORT_KEYS;
    s->bytes = 2.0 * (double)n * (double)ks;
    if (sp->kind == SORT_PAIRS) s->bytes += 8.0 * (double)n;
    if (sp->kind == SORT_ARGSORT) s->bytes = (double)n * (double)(ks + 4);
    if (sp->kind != SORT_ARGSORT || pb_gpu(r)) /* the argsort's CUB peer sorts keys too */
        if (!(p->keys_out = pb_alloc(r, n * ks))) return -1;
    if (vals || pb_gpu(r)) {
        p->host_iota = pb_host_alloc(n * 4);
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < (long long)n; i++) p->host_iota[i] = (uint32_t)i;
        if (!(p->values_in = (void *)pb_upload(r, p->host_iota, n * 4))) return -1;
        if (!(p->values_out = pb_alloc(r, n * 4))) return -1;
    }
    return 0;
}

static pp_status sort_call(pp_context *ctx, const pb_state *s, const void *keys, void *keys_out, const void *vin,
                           void *vout)
{
    switch (spec_of(s)->kind) {
    case SORT_KEYS: return pp_sort_keys(ctx, keys, keys_out, s->n, s->c->in, PP_SORT_ASCENDING, 0, 0);
    case SORT_PAIRS:
        return pp_sort_pairs(ctx, keys, keys_out, vin, vout, s->n, s->c->in, PP_U32, PP_SORT_ASCENDING, 0, 0);
    case SORT_ARGSORT: return pp_argsort(ctx, keys, s->n, s->c->in, PP_SORT_ASCENDING, vout, PP_U32);
    }
    return PP_ERROR_INVALID_ARGUMENT;
}

static pp_status call(pp_context *ctx, const pb_state *s)
{
    const sort_priv *p = s->priv;
    return sort_call(ctx, s, p->keys, spec_of(s)->kind == SORT_ARGSORT ? NULL : p->keys_out, p->values_in,
                     p->values_out);
}

/* The outputs in context space against the order: keys sorted and (keys only) the same multiset
 * as the input; with a permutation (pairs: the values, which are the positions; argsort: the
 * indices), a permutation whose keys are in order, equal keys in increasing position, and the
 * keys out equal to the input's keys at it. */
static int check(pb_run *r, const pb_state *s, const void *got_keys, const uint32_t *got_perm, char *why, size_t ws)
{
    const pb_case *c = s->c;
    const sort_priv *p = s->priv;
    const size_t n = s->n, ks = pp_dtype_size(c->in);
    const sort_call_kind kind = spec_of(s)->kind;
    unsigned char *k = NULL;
    uint32_t *v = NULL;
    int ok = 1;
    if (kind != SORT_ARGSORT) {
        k = pb_host_alloc(n * ks);
        if (pb_download(r, k, got_keys, n * ks)) goto readback;
    }
    if (kind != SORT_KEYS) {
        v = pb_host_alloc(n * 4);
        if (pb_download(r, v, got_perm, n * 4)) goto readback;
    }
    if (kind == SORT_KEYS) {
        uint64_t h_in = 0, h_out = 0;
        long long bad = -1;
#pragma omp parallel for reduction(+ : h_in, h_out) schedule(static)
        for (long long i = 0; i < (long long)n; i++) {
            h_in += pb_mix64(po_bits(p->host_keys, (size_t)i, c->in) + 0x51ull);
            h_out += pb_mix64(po_bits(k, (size_t)i, c->in) + 0x51ull);
            if (i > 0 && po_sort_cmp(k, (size_t)i - 1, (size_t)i, c->in) > 0) {
#pragma omp critical
                if (bad < 0 || i < bad) bad = i;
            }
        }
        if (bad >= 0) ok = 0, snprintf(why, ws, "keys_out[%lld] is below keys_out[%lld]", bad, bad - 1);
        else if (h_in != h_out) ok = 0, snprintf(why, ws, "the keys out are not the keys in (multiset hash)");
    } else {
        unsigned char *seen = calloc(n ? n : 1, 1);
        long long bad = -1;
        for (size_t j = 0; j < n && ok; j++) {
            if (v[j] >= n || seen[v[j]]) ok = 0, snprintf(why, ws, "position %zu: %u is not a permutation's", j, v[j]);
            else seen[v[j]] = 1;
        }
        free(seen);
#pragma omp parallel for schedule(static)
        for (long long j = 1; j < (long long)n; j++) {
            if (!ok) continue;
            const int cmp = po_sort_cmp(p->host_keys, v[j - 1], v[j], c->in);
            if (cmp > 0 || (cmp == 0 && v[j - 1] > v[j])) {
#pragma omp critical
                if (bad < 0 || j < bad) bad = j;
            }
        }
        if (ok && bad >= 0)
            ok = 0, snprintf(why, ws, "position %lld (input %u) is out of order or unstable", bad, v[bad]);
        for (size_t j = 0; k && ok && j < n; j++)
            if (memcmp(k + j * ks, (const unsigned char *)p->host_keys + (size_t)v[j] * ks, ks))
                ok = 0, snprintf(why, ws, "keys_out[%zu] is not the key of values_out[%zu] = %u", j, j, v[j]);
    }
    free(k);
    free(v);
    return ok;
readback:
    free(k);
    free(v);
    snprintf(why, ws, "could not read back the output");
    return 0;
}

/* Every backend by the order itself (a run of the CPU backend's sort per 2^28 row made the GPU
 * rows take about 9 s each; the bitwise parity with the CPU is tests/test_sort.c's). */
static int verify(pb_run *r, pb_state *s, char *why, size_t why_size)
{
    const sort_priv *p = s->priv;
    return check(r, s, p->keys_out, p->values_out, why, why_size);
}

/* The peer writes into the row's outputs (verified already), filled with 0xff bytes first. */
static double peer(pb_run *r, pb_state *s, pb_peer_kind kind, int reps, int batch, int *ok)
{
    const pb_case *c = s->c;
    sort_priv *p = s->priv;
    const sort_call_kind k = spec_of(s)->kind;
    const size_t n = s->n, ks = pp_dtype_size(c->in);
    double ms = -1;
    const char *err = "";
    (void)reps, (void)batch, (void)n, (void)ks, (void)k;
#ifdef PB_HAVE_CUB
    if (kind == PB_PEER_GPU) {
        if (p->keys_out && pp_memset(pb_ctx(r), p->keys_out, 0xff, n * ks) != PP_OK) return -1;
        if (p->values_out && pp_memset(pb_ctx(r), p->values_out, 0xff, n * 4) != PP_OK) return -1;
        pb_cub_job j = pb_cub_job_of(r, s, k == SORT_KEYS ? PB_CUB_SORT_KEYS : PB_CUB_SORT_PAIRS, reps, batch);
        j.in = p->keys;
        j.keys_out = p->keys_out;
        j.values_in = p->values_in;
        j.values_out = p->values_out;
        j.value_type = PP_U32;
        ms = pb_cub_run(&j);
        err = pb_cub_last_error();
        char w[512];
        if (ms >= 0) *ok = check(r, s, p->keys_out, k == SORT_KEYS ? NULL : p->values_out, w, sizeof w);
    }
#endif
#ifdef PB_HAVE_TBB
    if (kind == PB_PEER_TBB && k == SORT_KEYS) {
        memset(p->keys_out, 0xff, n * ks);
        pb_tbb_job j = pb_tbb_job_of(s, spec_of(s)->std_peer ? PB_TBB_STD_SORT : PB_TBB_SORT, reps, batch);
        j.in = p->host_keys;
        j.out = p->keys_out;
        ms = pb_tbb_run(&j);
        err = pb_tbb_last_error();
        char w[512];
        if (ms >= 0) *ok = check(r, s, p->keys_out, NULL, w, sizeof w);
    }
#endif
    (void)kind, (void)ok, (void)p;
    if (ms < 0 && err[0]) fprintf(stderr, "parprim-bench: peer of %s: %s\n", c->name, err);
    return ms;
}

static void teardown(pb_run *r, pb_state *s)
{
    sort_priv *p = s->priv;
    if (!p) return;
    pb_release(r, p->keys_out);
    pb_release_upload(r, p->values_in);
    pb_release(r, p->values_out);
    pb_release_upload(r, p->own_dev);
    free(p->own_host);
    free(p->host_iota);
    free(p);
}

const pb_family pb_family_sort = {
    "sort", cases, sizeof cases / sizeof cases[0], setup, call, verify, peer, teardown, NULL,
    "  sort_keys u32, f32 (random; f32 uniform in [-1, 1)), sort_pairs u32 / u32 and f32 / u32 (values\n"
    "  0 .. n-1), sort_keys_half_n u64 (random bits, n / 2 keys), argsort f32 and u32 (u32 indices),\n"
    "  sort_keys_16_distinct i32, sort_keys_sorted u32, sort_keys_vs_std u32 (CPU peer: std::sort),\n"
    "  latency_sort u32 at n = 1024 / 2^16 / 2^20 (time per call), sort_tile_merge u32 at 2^20 and n\n"
    "  (the tile sort + bitonic merge forced); ascending, out of place; peers: CUB DeviceRadixSort\n"
    "  (SortKeys, SortPairs; the argsort as SortPairs with an index payload), oneTBB parallel_sort\n"};
