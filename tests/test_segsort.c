/*
 * test_segsort.c -- pp_segmented_sort_keys / _pairs and the fixed-length forms against a serial
 * oracle (tests/oracles.c's stable merge sort, per segment), on the CPU backend and, where a
 * device is present, on HIP. Every check is exact: a stable sort has one result, so the outputs
 * must be the oracle's bits, and the bytes outside every segment (and 64 past the arrays) must
 * keep what they held; that is also the parity between backends.
 *
 * Covered: every key type, both orders, keys and pairs (every value type), in and out of place;
 * segment lengths 0, 1, 2, every GPU size-class boundary +-1 (the packed classes' powers of two
 * up to the tile, the tile, the long class's chunk counts and merge passes), random mixes of
 * lengths; one segment holding everything; the fixed form; clamped offsets (past n, decreasing, overlapping: for these only
 * the bytes outside the segments are checked); stability (few distinct keys, distinct values);
 * float ties (-0.0 / +0.0, NaNs of every sign and payload); n_segments == 0 and n == 0; on the CPU, 1, 2 and 3 threads.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

typedef struct seg_call {
    pp_dtype kt, vt; /* vt: the value type, or -1 for keys only */
    int pairs;
    int descending;
    int in_place;
    int fixed;             /* the fixed form: segments of seg_len */
    size_t seg_len;
    int overlapping;       /* offsets whose segments overlap: only the uncovered bytes are checked */
} seg_call;

/* Segment s's clamped bounds [*b, *e); 0 when it is empty. */
static int bounds(const seg_call *c, size_t n, const size_t *off, size_t s, size_t *b, size_t *e)
{
    if (c->fixed) {
        *b = s * c->seg_len;
        *e = *b + c->seg_len;
    } else {
        *b = off[s] < n ? off[s] : n;
        *e = off[s + 1] < n ? off[s + 1] : n;
    }
    return *e > *b;
}

/* The expected output: `out` (what the output held before) with every non-empty clamped segment
 * replaced by the oracle's sort of the input's segment. */
static void expect(const seg_call *c, const void *keys, const void *vals, size_t n, const size_t *off, size_t S,
                   unsigned char *ek, unsigned char *ev)
{
    const size_t ks = tc_size(c->kt), vs = c->pairs ? tc_size(c->vt) : 0;
    uint64_t *perm = (uint64_t *)tc_xmalloc((n ? n : 1) * sizeof *perm);
    for (size_t s = 0; s < S; ++s) {
        size_t b, e;
        if (!bounds(c, n, off, s, &b, &e)) continue;
        const size_t m = e - b;
        TC_CHECK(po_sort_perm((const unsigned char *)keys + b * ks, m, c->kt, c->descending, 0, 0, perm) == 0,
                 "oracle out of memory");
        for (size_t j = 0; j < m; ++j) {
            memcpy(ek + (b + j) * ks, (const unsigned char *)keys + (b + perm[j]) * ks, ks);
            if (vs) memcpy(ev + (b + j) * vs, (const unsigned char *)vals + (b + perm[j]) * vs, vs);
        }
    }
    free(perm);
}

/* A map of the n elements: 1 inside some segment. */
static unsigned char *covered_map(const seg_call *c, size_t n, const size_t *off, size_t S)
{
    unsigned char *m = (unsigned char *)calloc(n + 1, 1);
    TC_CHECK(m != NULL, "out of memory");
    for (size_t s = 0; s < S; ++s) {
        size_t b, e;
        if (!bounds(c, n, off, s, &b, &e)) continue;
        for (size_t i = b; i < e; ++i) m[i] = 1;
    }
    return m;
}

/* Run call c over host keys[0, n) with the offsets off[0 .. S] (or S fixed segments) and check. */
static void run_check(tc_env *env, const seg_call *c, const void *keys, size_t n, const size_t *off, size_t S,
                      const char *what)
{
    pp_context *ctx = env->ctx;
    tc_case("%s: segmented sort %s %s%s%s, %s, n = %zu, %zu segments%s%s: %s", pp_backend_name(env->backend),
            c->pairs ? "pairs" : "keys", tc_dname(c->kt), c->pairs ? " / " : "", c->pairs ? tc_dname(c->vt) : "",
            c->descending ? "descending" : "ascending", n, S, c->in_place ? ", in place" : "",
            c->fixed ? ", fixed form" : "", what);
    const size_t ks = tc_size(c->kt), vs = c->pairs ? tc_size(c->vt) : 0, pad = 64;
    tc_rng r = tc_rng_for("segsort values");
    unsigned char *vals = NULL;
    if (c->pairs) {
        vals = (unsigned char *)tc_xmalloc(n * vs + 1);
        tc_fill(&r, vals, n, c->vt, TC_RANDOM);
        for (size_t i = 0; i < n; ++i) { /* distinct within a segment, so a swap of equal keys shows */
            uint64_t b = tc_bits(vals, i, c->vt);
            b = vs == 1 ? (uint64_t)(i & 0xFF) : (b & ~0xFFFFFull) | (i & 0xFFFFFull);
            tc_store_bits(vals, i, c->vt, b);
        }
    }
    /* the outputs' contents before the call: the input in place, else a pattern */
    unsigned char *ek = (unsigned char *)tc_xmalloc(n * ks + pad), *ev = (unsigned char *)tc_xmalloc(n * vs + pad + 1);
    if (c->in_place) {
        memcpy(ek, keys, n * ks);
        if (vs) memcpy(ev, vals, n * vs);
    } else {
        for (size_t i = 0; i < n * ks; ++i) ek[i] = (unsigned char)(0x5A ^ i);
        for (size_t i = 0; i < n * vs; ++i) ev[i] = (unsigned char)(0xA5 ^ i);
    }
    memset(ek + n * ks, TC_SENTINEL, pad);
    memset(ev + n * vs, TC_SENTINEL, pad);

    unsigned char *kin = (unsigned char *)tc_alloc(ctx, n * ks + pad), *kout = kin;
    unsigned char *vin = NULL, *vout = NULL;
    size_t *doff = NULL;
    if (n) TC_OK(ctx, pp_memcpy(ctx, kin, keys, n * ks, PP_COPY_HOST_TO_CONTEXT));
    TC_OK(ctx, pp_memset(ctx, kin + n * ks, TC_SENTINEL, pad));
    if (!c->in_place) {
        kout = (unsigned char *)tc_alloc(ctx, n * ks + pad);
        TC_OK(ctx, pp_memcpy(ctx, kout, ek, n * ks + pad, PP_COPY_HOST_TO_CONTEXT));
    }
    if (vs) {
        vin = (unsigned char *)tc_alloc(ctx, n * vs + pad);
        if (n) TC_OK(ctx, pp_memcpy(ctx, vin, vals, n * vs, PP_COPY_HOST_TO_CONTEXT));
        TC_OK(ctx, pp_memset(ctx, vin + n * vs, TC_SENTINEL, pad));
        vout = vin;
        if (!c->in_place) {
            vout = (unsigned char *)tc_alloc(ctx, n * vs + pad);
            TC_OK(ctx, pp_memcpy(ctx, vout, ev, n * vs + pad, PP_COPY_HOST_TO_CONTEXT));
        }
    }
    if (!c->fixed && S + 1 > 0) {
        doff = (size_t *)tc_alloc(ctx, (S + 1) * sizeof *doff);
        TC_OK(ctx, pp_memcpy(ctx, doff, off, (S + 1) * sizeof *doff, PP_COPY_HOST_TO_CONTEXT));
    }
    const pp_sort_order order = c->descending ? PP_SORT_DESCENDING : PP_SORT_ASCENDING;
    pp_status st;
    void *k0 = n ? kin : NULL, *k1 = n ? kout : NULL, *v0 = n ? vin : NULL, *v1 = n ? vout : NULL;
    if (c->fixed)
        st = c->pairs ? pp_segmented_sort_pairs_fixed(ctx, k0, k1, v0, v1, S, c->seg_len, c->kt, c->vt, order)
                      : pp_segmented_sort_keys_fixed(ctx, k0, k1, S, c->seg_len, c->kt, order);
    else
        st = c->pairs ? pp_segmented_sort_pairs(ctx, k0, k1, v0, v1, n, c->kt, c->vt, doff, S, order)
                      : pp_segmented_sort_keys(ctx, k0, k1, n, c->kt, doff, S, order);
    TC_CHECK(st == PP_OK, "status %s: %s", pp_status_string(st), pp_context_last_error(ctx));

    unsigned char *hk = (unsigned char *)tc_xmalloc(n * ks + pad), *hv = (unsigned char *)tc_xmalloc(n * vs + pad + 1);
    tc_download(ctx, hk, kout, n * ks + pad);
    if (vs) tc_download(ctx, hv, vout, n * vs + pad);
    if (c->overlapping) {
        unsigned char *cov = covered_map(c, n, off, S);
        for (size_t i = 0; i < n + pad / ks; ++i) {
            if (i < n && cov[i]) continue;
            TC_CHECK(memcmp(hk + i * ks, ek + i * ks, ks) == 0, "key %zu outside every segment was written", i);
            if (vs && i < n + pad / vs)
                TC_CHECK(memcmp(hv + i * vs, ev + i * vs, vs) == 0, "value %zu outside every segment was written", i);
        }
        free(cov);
    } else {
        expect(c, keys, vals, n, off, S, ek, ev);
        for (size_t i = 0; i < n * ks + pad; ++i)
            if (hk[i] != ek[i]) {
                const size_t e = i / ks;
                TC_CHECK(0, "key %zu (byte %zu): got 0x%llx, want 0x%llx", e, i,
                         e < n ? (unsigned long long)tc_bits(hk, e, c->kt) : (unsigned long long)hk[i],
                         e < n ? (unsigned long long)tc_bits(ek, e, c->kt) : (unsigned long long)ek[i]);
            }
        for (size_t i = 0; vs && i < n * vs + pad; ++i)
            if (hv[i] != ev[i]) {
                const size_t e = i / vs;
                TC_CHECK(0, "value %zu (byte %zu): got 0x%llx, want 0x%llx", e, i,
                         e < n ? (unsigned long long)tc_bits(hv, e, c->vt) : (unsigned long long)hv[i],
                         e < n ? (unsigned long long)tc_bits(ev, e, c->vt) : (unsigned long long)ev[i]);
            }
    }
    free(hk);
    free(hv);
    free(ek);
    free(ev);
    free(vals);
    if (doff) tc_free(ctx, doff);
    if (vout && vout != vin) tc_free(ctx, vout);
    if (vin) tc_free(ctx, vin);
    if (kout != kin) tc_free(ctx, kout);
    tc_free(ctx, kin);
}

/* Lengths at every GPU class boundary +-1: the one-key class, the packed classes' powers of two
 * from 4 up to the tile (4096; 2048 where keys or values are 8 bytes), the long class's chunk
 * counts (1, 2, 3: an odd run left alone by a merge pass, 4) and its merge passes (2^15 + 5: 4
 * or 5 passes; 40000). */
static const size_t boundary_lengths[] = {0,    1,    2,    3,    4,    5,    7,    8,    9,    15,   16,    17,    31,
                                          32,   33,   63,   64,   65,   112,  113,  127,  128,   129,   255,
                                          256,  257,  511,  512,  513,  1023, 1024, 1025, 2047,  2048,  2049,
                                          4095, 4096, 4097, 6145, 8191, 8192, 8193, 12289, 16383, 16384,
                                          16385, 32773, 40000};
#define N_BOUNDARY (sizeof boundary_lengths / sizeof boundary_lengths[0])

/* Offsets of segments of the given lengths, in order; returns n. */
static size_t offsets_of(const size_t *len, size_t S, size_t *off)
{
    off[0] = 0;
    for (size_t s = 0; s < S; ++s) off[s + 1] = off[s] + len[s];
    return off[S];
}

/* A shuffled list of the boundary lengths (twice, thorough) and random short ones. */
static size_t mixed_lengths(tc_rng *r, size_t *len, int thorough)
{
    size_t S = 0;
    for (int rep = 0; rep < (thorough ? 2 : 1); ++rep)
        for (size_t i = 0; i < N_BOUNDARY; ++i) len[S++] = boundary_lengths[i];
    for (int i = 0; i < 200; ++i) len[S++] = (size_t)tc_below(r, 300);
    for (size_t i = S; i > 1; --i) {
        const size_t j = (size_t)tc_below(r, i), t = len[i - 1];
        len[i - 1] = len[j];
        len[j] = t;
    }
    return S;
}

static const pp_dtype value_types[] = {PP_U8, PP_I32, PP_U32, PP_I64, PP_U64, PP_F32, PP_F64};

static void segsort_type(void **state, pp_dtype t)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    tc_rng r = tc_rng_for("segsort keys");
    size_t len[2 * N_BOUNDARY + 200], off[2 * N_BOUNDARY + 201];
    const size_t S = mixed_lengths(&r, len, tc_thorough());
    const size_t n = offsets_of(len, S, off);
    unsigned char *keys = (unsigned char *)tc_xmalloc(n * tc_size(t));
    tc_fill(&r, keys, n, t, TC_RANDOM);
    if (tc_is_float(t)) tc_fill_special(&r, keys, n / 2, t, 3);
    for (int desc = 0; desc <= 1; ++desc)
        for (int ip = 0; ip <= 1; ++ip) {
            seg_call c = {t, PP_U32, 0, desc, ip, 0, 0, 0};
            run_check(env, &c, keys, n, off, S, "boundary and random lengths");
            c.pairs = 1;
            c.vt = value_types[(size_t)(2 * desc + ip + (int)t) % 7];
            run_check(env, &c, keys, n, off, S, "boundary and random lengths");
        }
    free(keys);
}

static void t_segsort_u8(void **state) { segsort_type(state, PP_U8); }
static void t_segsort_i32(void **state) { segsort_type(state, PP_I32); }
static void t_segsort_u32(void **state) { segsort_type(state, PP_U32); }
static void t_segsort_i64(void **state) { segsort_type(state, PP_I64); }
static void t_segsort_u64(void **state) { segsort_type(state, PP_U64); }
static void t_segsort_f32(void **state) { segsort_type(state, PP_F32); }
static void t_segsort_f64(void **state) { segsort_type(state, PP_F64); }

/* Equal lengths at each boundary (many segments of one class, several blocks of it), few distinct
 * keys (stability), and the fixed form over the same. */
static void t_segsort_equal(void **state)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    tc_rng r = tc_rng_for("segsort equal");
    const size_t total = tc_thorough() ? 300000 : 70000;
    for (size_t i = 1; i < N_BOUNDARY; ++i) {
        const size_t L = boundary_lengths[i];
        const size_t S = total / L > 0 ? total / L : 1, n = S * L;
        size_t *off = (size_t *)tc_xmalloc((S + 1) * sizeof *off);
        for (size_t s = 0; s <= S; ++s) off[s] = s * L;
        const pp_dtype t = i % 3 == 0 ? PP_F32 : i % 3 == 1 ? PP_U32 : PP_I64;
        unsigned char *keys = (unsigned char *)tc_xmalloc(n * tc_size(t));
        tc_fill(&r, keys, n, t, i % 2 ? TC_FEW : TC_RANDOM);
        char what[64];
        snprintf(what, sizeof what, "equal lengths %zu", L);
        seg_call c = {t, PP_U32, 0, (int)(i & 1), 0, 0, 0, 0};
        run_check(env, &c, keys, n, off, S, what);
        c.pairs = 1;
        c.vt = (i & 2) ? PP_U64 : PP_U32;
        run_check(env, &c, keys, n, off, S, what);
        c.fixed = 1;
        c.seg_len = L;
        c.in_place = 1;
        run_check(env, &c, keys, n, NULL, S, what);
        free(off);
        free(keys);
    }
}

/* Keys at the top of the encoded order (~0 words: the largest key ascending, the smallest
 * descending), most of the keys or a few of them, in segments of every length about the merge
 * form's classes (257 .. 4096 and a little past the tile): the GPU's merge rounds read ~0 where a
 * run ends, and a real ~0 key must come out as many times as it went in. 4-byte integer keys,
 * alone and with values. */
static void t_segsort_top_keys(void **state)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    tc_rng r = tc_rng_for("segsort top keys");
    static const size_t lens[] = {255, 256, 257, 300, 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 3001, 4095, 4096, 4097, 9000};
    const size_t total = tc_thorough() ? 200000 : 60000;
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; ++i) {
        const size_t L = lens[i], S = total / L > 0 ? total / L : 1, n = S * L;
        size_t *off = (size_t *)tc_xmalloc((S + 1) * sizeof *off);
        for (size_t s = 0; s <= S; ++s) off[s] = s * L - (s && s < S && i % 2 ? tc_below(&r, 3) : 0);
        uint32_t *keys = (uint32_t *)tc_xmalloc(n * sizeof *keys);
        for (int form = 0; form < 4; ++form) {
            /* form 0/1: u32 ascending, the maximum 60% / 2% of the keys; 2: u32 descending, zero
             * at 60%; 3: i32 ascending, INT32_MAX and its neighbours at 60% */
            const int descending = form == 2, share = form == 1 ? 2 : 60;
            for (size_t j = 0; j < n; ++j) {
                const int top = (int)tc_below(&r, 100) < share;
                uint32_t v = (uint32_t)tc_below(&r, 1u << 30) * 4u + (uint32_t)tc_below(&r, 4);
                if (top) v = form == 2 ? 0u : form == 3 ? (uint32_t)INT32_MAX - (uint32_t)tc_below(&r, 2) : UINT32_MAX;
                keys[j] = v;
            }
            char what[64];
            snprintf(what, sizeof what, "top keys, form %d, lengths about %zu", form, L);
            seg_call c = {form == 3 ? PP_I32 : PP_U32, PP_U32, 0, descending, 0, 0, 0, 0};
            run_check(env, &c, keys, n, off, S, what);
            if (form == 0) {
                c.pairs = 1;
                run_check(env, &c, keys, n, off, S, what);
            }
        }
        free(off);
        free(keys);
    }
}

/* One segment holding everything (past the CPU's parallel threshold of 2^18 keys, and past
 * 2^20, where the GPU sorts a fixed form's segments with the device-wide sort), and the same as
 * one fixed segment. */
static void t_segsort_one_segment(void **state)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    tc_rng r = tc_rng_for("segsort one");
    const size_t sizes[] = {5000, 300001, ((size_t)1 << 20) + 3};
    for (int k = 0; k < 3; ++k) {
        const size_t n = sizes[k];
        size_t off[2] = {0, n};
        unsigned char *keys = (unsigned char *)tc_xmalloc(n * 8);
        tc_fill(&r, keys, n, PP_F64, TC_RANDOM);
        seg_call c = {PP_F64, PP_U32, 1, k & 1, 0, 0, 0, 0};
        run_check(env, &c, keys, n, off, 1, "one segment");
        tc_fill(&r, keys, n, PP_U32, TC_RANDOM);
        seg_call d = {PP_U32, PP_U8, k == 2, 1 - (k & 1), 1, 1, n, 0};
        run_check(env, &d, keys, n, NULL, 1, "one fixed segment");
        free(keys);
    }
}

/* The long class, both forms (HIP: chunks of the tile merged by passes across blocks, and radix
 * levels; PP_OPTION_SEGSORT_LONG): lengths around 1 .. 4 chunks of either tile (4096, 2048), an
 * odd chunk count, many passes; few distinct keys (ties
 * across chunks and runs: stability), float keys of signed zeros and NaNs with distinct
 * payloads and signs, both orders, pairs, in place. */
static void segsort_long_form(void **state, int form)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    tc_rng r = tc_rng_for(form == 1 ? "segsort long" : "segsort long levels");
    TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_SEGSORT_LONG, form));
    const size_t len[] = {4095, 2047, 4096, 4097, 3, 8191, 8193, 12289, 2049, 6145, 100, 32773, 8192, 70001, 1, 16385};
    const size_t S = sizeof len / sizeof len[0];
    size_t off[sizeof len / sizeof len[0] + 1];
    const size_t n = offsets_of(len, S, off);
    unsigned char *keys = (unsigned char *)tc_xmalloc(n * 8);
    tc_fill(&r, keys, n, PP_U32, TC_FEW);
    seg_call c = {PP_U32, PP_U32, 0, 0, 0, 0, 0, 0};
    run_check(env, &c, keys, n, off, S, "long segments, few keys");
    c.pairs = 1;
    c.descending = 1;
    c.in_place = 1;
    run_check(env, &c, keys, n, off, S, "long segments, few keys");
    tc_fill(&r, keys, n, PP_U64, TC_FEW);
    seg_call u = {PP_U64, PP_U8, 1, 0, 0, 0, 0, 0};
    run_check(env, &u, keys, n, off, S, "long segments, few keys");
    const pp_dtype ft[] = {PP_F32, PP_F64};
    for (int k = 0; k < 2; ++k) {
        const pp_dtype t = ft[k];
        tc_fill(&r, keys, n, t, TC_FEW);
        const uint64_t sign = t == PP_F32 ? 0x80000000ull : 0x8000000000000000ull;
        const uint64_t qnan = t == PP_F32 ? 0x7FC00000ull : 0x7FF8000000000000ull;
        for (size_t i = 0; i < n; ++i) {
            const uint64_t x = tc_below(&r, 8);
            if (x == 0) tc_store_bits(keys, i, t, (i & 1) ? sign : 0);             /* -0.0 / +0.0 */
            if (x == 1) tc_store_bits(keys, i, t, qnan | (i & 0xFFFF) | ((i & 2) ? sign : 0)); /* NaNs */
        }
        seg_call f = {t, PP_U32, 1, k, k, 0, 0, 0};
        run_check(env, &f, keys, n, off, S, "long segments, signed zeros and NaN payloads");
        f.pairs = 0;
        f.descending = 1 - k;
        run_check(env, &f, keys, n, off, S, "long segments, signed zeros and NaN payloads");
    }
    /* the merge passes a launch each (HIP; what a device without cooperative launches runs):
     * the same bits */
    pp_context *ctx = env->ctx;
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_MERGE_LAUNCH, 1));
    tc_fill(&r, keys, n, PP_U32, TC_FEW);
    seg_call m = {PP_U32, PP_U32, 1, 1, 0, 0, 0, 0};
    run_check(env, &m, keys, n, off, S, form == 1 ? "long segments, a merge launch a pass" : "long segments, a launch a phase");
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_MERGE_LAUNCH, 0));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_LONG, 0));
    free(keys);
}

static void t_segsort_long(void **state)
{
    segsort_long_form(state, 1); /* chunks and merge passes */
    segsort_long_form(state, 2); /* radix levels */
}

/* The long class's radix levels (HIP, where the mean segment is long, as here, for segments past
 * the tuning row's msd_lo; the shorter long ones merged in the same call): keys whose top digits are all equal (every
 * level's one bucket holds the whole segment, down to the last level), keys all equal, buckets of
 * exactly the tile, one more than the tile (a level more) and one key (copied from the scratch
 * copy), segments at the huge class's bound -1 / 0 / +1, signed keys, 1-byte keys in place (one
 * level, which writes the output: the input copied first), and the same calls through the
 * chunks-and-merge form (PP_OPTION_SEGSORT_LONG 1) and with the levels a launch a phase
 * (PP_OPTION_SEGSORT_MERGE_LAUNCH 1): the same bits. */
static void t_segsort_radix_levels(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    tc_rng r = tc_rng_for("segsort radix levels");
    /* the huge class's bound -1 .. +1: 4096 / 4097 on sm_90 (the tile; a mean past 8192, as
     * here, sends every longer segment to the levels), 2^15 on sm_80 */
    const size_t len[] = {4096 + 4097 + 1, 70001, 5, 9000, 4097, 131072 + 3, 32767, 32768, 32769, 4096};
    const size_t S = sizeof len / sizeof len[0];
    size_t off[sizeof len / sizeof len[0] + 1];
    const size_t n = offsets_of(len, S, off);
    unsigned char *keys = (unsigned char *)tc_xmalloc(n * 8);
    /* forms: the device's rule (segments past 2^15 by levels in one launch, the other long ones
     * merged); merge passes for all; the rule, a launch a phase or pass; levels for all */
    for (int form = 0; form < 4; ++form) {
        TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_LONG, form == 1 ? 1 : form == 3 ? 2 : 0));
        TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_MERGE_LAUNCH, form == 2 ? 1 : 0));
        /* segment 0: top digits 0 (4096 keys), 1 (4097 keys) and 2 (one key), shuffled */
        for (size_t i = 0; i < len[0]; ++i) {
            const uint64_t top = i < 4096 ? 0 : i < 4096 + 4097 ? 1 : 2;
            tc_store_bits(keys, i, PP_U32, top << 24 | tc_below(&r, 1u << 24));
        }
        tc_shuffle(&r, keys, len[0], PP_U32);
        for (size_t i = len[0]; i < n; ++i) /* the rest: small keys (the top three digits 0), ties */
            tc_store_bits(keys, i, PP_U32, tc_below(&r, 300));
        seg_call c = {PP_U32, PP_U32, 0, 0, 0, 0, 0, 0};
        const char *what = form == 1   ? "radix levels' shapes, merge form"
                           : form == 2 ? "radix levels' shapes, a launch a phase"
                           : form == 3 ? "radix levels' shapes, levels for every long segment"
                                       : "radix levels' shapes";
        run_check(env, &c, keys, n, off, S, what);
        c.pairs = 1;
        c.descending = 1;
        run_check(env, &c, keys, n, off, S, what);
        for (size_t i = 0; i < n; ++i) tc_store_bits(keys, i, PP_U64, 0x0123456789ABCDEFull); /* all equal */
        seg_call e = {PP_U64, PP_U32, 1, 0, 0, 0, 0, 0};
        run_check(env, &e, keys, n, off, S, "all keys equal");
        tc_fill(&r, keys, n, PP_U8, TC_RANDOM);
        seg_call u = {PP_U8, PP_U64, 1, form & 1, 1, 0, 0, 0};
        run_check(env, &u, keys, n, off, S, "1-byte keys, in place");
        u.pairs = 0;
        run_check(env, &u, keys, n, off, S, "1-byte keys, in place");
        tc_fill(&r, keys, n, PP_I32, TC_RANDOM);
        seg_call si = {PP_I32, PP_U32, 1, form & 1, 0, 0, 0, 0};
        run_check(env, &si, keys, n, off, S, "signed keys");
        tc_fill(&r, keys, n, PP_F32, TC_RANDOM);
        for (size_t i = 0; i < n; i += 7) tc_store_bits(keys, i, PP_F32, (i & 8) ? 0x80000000u : 0u); /* signed zeros */
        seg_call f = {PP_F32, PP_U32, 0, 1, 1, 0, 0, 0};
        run_check(env, &f, keys, n, off, S, "float keys, in place");
    }
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_LONG, 0));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_MERGE_LAUNCH, 0));
    free(keys);
}

/* HIP radix levels: a level's buckets sorted in groups of consecutive buckets
 * (PP_OPTION_SEGSORT_MSD_GROUP 2), each alone (1) and the device's row (0): the same bits. Segment
 * 0's top digits hold buckets of every size around the classes' bounds and the tile (0, 1, 2,
 * 3, .., 1023 .. 1025, 2047 .. 2049, 4095 .. 4097, 9000: longer than the tile, split again at
 * level 1, half of them into one bucket of the next digit), in a row that mixes them; the
 * others are random (buckets of ~64 keys at 16384 a segment, of ~273 at 70001); keys of 4 and
 * 8 bytes, floats, pairs, both orders. */
static void t_segsort_msd_groups(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    tc_rng r = tc_rng_for("segsort msd groups");
    static const size_t cnt[] = {0, 1, 2, 3, 17, 100, 600, 1023, 1024, 1025, 2047,
                                 2048, 2049, 4095, 4096, 4097, 9000, 0, 0, 1, 1, 30};
    const size_t NC = sizeof cnt / sizeof cnt[0];
    size_t len0 = 0;
    for (unsigned d = 0; d < 256; ++d) len0 += cnt[(d * 7u) % NC];
    const size_t len[] = {len0, 16384, 70001, 9000, 32769};
    const size_t S = sizeof len / sizeof len[0];
    size_t off[sizeof len / sizeof len[0] + 1];
    const size_t n = offsets_of(len, S, off);
    unsigned char *keys = (unsigned char *)tc_xmalloc(n * 8);
    for (int64_t grp = 1; grp <= 3; ++grp) {
        const int64_t opt = grp % 3; /* 1, 2, then 0 */
        TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_MSD_GROUP, opt));
        char what[48];
        snprintf(what, sizeof what, "segsort_msd_group %lld", (long long)opt);
        size_t i = 0;
        for (unsigned d = 0; d < 256; ++d)
            for (size_t k = 0; k < cnt[(d * 7u) % NC]; ++k, ++i)
                tc_store_bits(keys, i, PP_U32, (uint64_t)d << 24 | tc_below(&r, d & 1 ? 1u << 24 : 1u << 16));
        tc_shuffle(&r, keys, len0, PP_U32);
        for (i = len0; i < n; ++i) tc_store_bits(keys, i, PP_U32, tc_below(&r, 1u << 31) << 1 | tc_below(&r, 2));
        seg_call c = {PP_U32, PP_U32, 0, 0, 0, 0, 0, 0};
        run_check(env, &c, keys, n, off, S, what);
        c.pairs = 1;
        c.descending = 1;
        run_check(env, &c, keys, n, off, S, what);
        tc_fill(&r, keys, n, PP_F32, TC_RANDOM);
        seg_call f = {PP_F32, PP_U32, 0, 0, 0, 0, 0, 0};
        run_check(env, &f, keys, n, off, S, what);
        tc_fill(&r, keys, n, PP_I64, TC_RANDOM);
        seg_call w = {PP_I64, PP_U64, 1, (int)(grp & 1), 0, 0, 0, 0};
        run_check(env, &w, keys, n, off, S, what);
    }
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_MSD_GROUP, 0));
    free(keys);
}

/* Offsets past n, decreasing (the segments from the first decrease on are empty, or overlap an
 * earlier one: here they stay empty, checked exactly), and overlapping (only the bytes outside
 * every segment are checked). */
static void t_segsort_clamped(void **state)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    tc_rng r = tc_rng_for("segsort clamped");
    const size_t n = 10000;
    unsigned char *keys = (unsigned char *)tc_xmalloc(n * 4);
    tc_fill(&r, keys, n, PP_I32, TC_RANDOM);
    const size_t past[] = {100, 300, 5000, 9990, 12000, (size_t)-1, 20000};
    const size_t decr[] = {50, 3000, 6000, 9000, 4000, 2000, 2000, 1000, 100, 0};
    const size_t over[] = {0, 6000, 100, 8000, 50, 7000};
    seg_call c = {PP_I32, PP_F64, 1, 0, 0, 0, 0, 0};
    run_check(env, &c, keys, n, past, 6, "offsets past n");
    run_check(env, &c, keys, n, decr, 9, "decreasing offsets");
    c.overlapping = 1;
    run_check(env, &c, keys, n, over, 5, "overlapping segments");
    c.in_place = 1;
    run_check(env, &c, keys, n, over, 5, "overlapping segments");
    free(keys);
}

/* Floats made of ties the order cannot see: -0.0 and +0.0 (one key), NaNs of every sign and
 * payload (one key, the last), next to a few ordinary numbers, in segments of every class
 * boundary; keys alone (the GPU's stable words) and pairs, both orders, in and out of place:
 * the input order of the ties is the oracle's, bit for bit. */
static void t_segsort_float_ties(void **state)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    tc_rng r = tc_rng_for("segsort float ties");
    size_t len[2 * N_BOUNDARY + 200], off[2 * N_BOUNDARY + 201];
    const size_t S = mixed_lengths(&r, len, 0);
    const size_t n = offsets_of(len, S, off);
    const pp_dtype types[] = {PP_F32, PP_F64};
    unsigned char *keys = (unsigned char *)tc_xmalloc(n * 8);
    for (int ti = 0; ti < 2; ++ti) {
        const pp_dtype t = types[ti];
        const int f32 = t == PP_F32;
        const uint64_t sign = f32 ? 0x80000000ull : 0x8000000000000000ull;
        const uint64_t qnan = f32 ? 0x7FC00000ull : 0x7FF8000000000000ull;
        const uint64_t payload = f32 ? 0x3FFFFFull : 0x7FFFFFFFFFFFFull;
        const uint64_t one = f32 ? 0x3F800000ull : 0x3FF0000000000000ull;
        for (size_t i = 0; i < n; ++i) {
            const uint64_t x = tc_next(&r), s = (x >> 60) & 1 ? sign : 0;
            uint64_t b;
            switch (x % 4) {
            case 0: b = s; break;                                              /* -0.0, +0.0 */
            case 1: b = s | qnan | ((x >> 8) & payload); break;                /* NaNs */
            case 2: b = s | one; break;                                        /* -1.0, 1.0 */
            default: b = s | (f32 ? 0x7F800000ull : 0x7FF0000000000000ull); /* -inf, inf */
            }
            tc_store_bits(keys, i, t, b);
        }
        for (int desc = 0; desc <= 1; ++desc)
            for (int ip = 0; ip <= 1; ++ip) {
                seg_call c = {t, PP_U32, 0, desc, ip, 0, 0, 0};
                run_check(env, &c, keys, n, off, S, "signed zeros, NaN payloads");
                c.pairs = 1;
                c.vt = ip ? PP_U8 : PP_U64;
                run_check(env, &c, keys, n, off, S, "signed zeros, NaN payloads");
            }
    }
    free(keys);
}

/* Nothing to do: n == 0, n_segments == 0, every segment empty, fixed form with no keys. */
static void t_segsort_empty(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    TC_OK(ctx, pp_segmented_sort_keys(ctx, NULL, NULL, 0, PP_U32, NULL, 0, PP_SORT_ASCENDING));
    TC_OK(ctx, pp_segmented_sort_pairs(ctx, NULL, NULL, NULL, NULL, 0, PP_F64, PP_U8, NULL, 0, PP_SORT_DESCENDING));
    TC_OK(ctx, pp_segmented_sort_keys_fixed(ctx, NULL, NULL, 0, 5, PP_U8, PP_SORT_ASCENDING));
    TC_OK(ctx, pp_segmented_sort_keys_fixed(ctx, NULL, NULL, 5, 0, PP_U8, PP_SORT_ASCENDING));
    tc_rng r = tc_rng_for("segsort empty");
    unsigned char keys[400];
    tc_fill(&r, keys, 100, PP_U32, TC_RANDOM);
    const size_t empty[] = {0, 0, 0, 100, 100, 100};
    seg_call c = {PP_U32, PP_U32, 0, 0, 0, 0, 0, 0};
    run_check(env, &c, keys, 100, empty, 5, "empty segments and one of everything");
    const size_t none[] = {100, 100, 100};
    run_check(env, &c, keys, 100, none, 2, "every segment empty");
    size_t ones[101];
    for (size_t i = 0; i <= 100; ++i) ones[i] = i;
    c.pairs = 1;
    run_check(env, &c, keys, 100, ones, 100, "one-key segments");
}

/* HIP: the packed classes' bound forced (PP_OPTION_SEGSORT_PACK_LOG: up to 16, 128 keys, the
 * tile, none packed, only the smallest packed class), asked from the plan (param[1]: the longest packed length): the same bits. */
static void t_segsort_pack_log(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    tc_rng r = tc_rng_for("segsort pack log");
    size_t len[2 * N_BOUNDARY + 200], off[2 * N_BOUNDARY + 201];
    const size_t S = mixed_lengths(&r, len, 0);
    const size_t n = offsets_of(len, S, off);
    unsigned char *keys = (unsigned char *)tc_xmalloc(n * 4);
    tc_fill(&r, keys, n, PP_F32, TC_RANDOM);
    const int64_t logs[] = {4, 7, 12, 1, 2};
    const int64_t want[] = {16, 128, 4096, 1, 4}; /* 1: nothing packed; 4: the smallest packed class */
    for (int k = 0; k < 5; ++k) {
        TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_PACK_LOG, logs[k]));
        char what[48];
        snprintf(what, sizeof what, "segsort_pack_log %lld", (long long)logs[k]);
        seg_call c = {PP_F32, PP_U32, k != 1, k == 2, 0, 0, 0, 0};
        run_check(env, &c, keys, n, off, S, what);
        pp_plan plan;
        TC_OK(ctx, pp_context_last_plan(ctx, &plan));
        TC_CHECK(strcmp(plan.family, "segmented_sort") == 0 && plan.param[1] == want[k],
                 "plan %s / %s, packed up to %lld keys, want %lld", plan.family, plan.strategy,
                 (long long)plan.param[1], (long long)want[k]);
    }
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_PACK_LOG, 0));
    free(keys);
}

/* HIP: every form of the packed classes' kernel for integer keys sorted alone
 * (PP_OPTION_SEGSORT_PACK_PIPE 1 .. 4: an item after another, and the software-pipelined
 * kernel's prefetch choices; then 4 with PP_OPTION_SEGSORT_PIPE_PDL 1; 1-byte keys run the
 * first whatever the option), with enough block items that every block of the grid takes
 * several (2^23 keys in segments of 16: 2048 items; a mix of short lengths with a few long
 * segments, whose chunks the same kernel sorts from the long class's list): the same bits. */
static void t_segsort_pipe(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    tc_rng r = tc_rng_for("segsort pipe");
    const size_t cap = (size_t)1 << 23;
    size_t *len = (size_t *)tc_xmalloc(cap * sizeof *len), *off = (size_t *)tc_xmalloc((cap + 1) * sizeof *off);
    size_t S = 0, m = 0;
    while (m < (size_t)6000000) {
        const size_t l = S % 997 == 5 ? 4097 + (size_t)tc_below(&r, 20000) : (size_t)tc_below(&r, 41);
        len[S++] = l;
        m += l;
    }
    const size_t n = offsets_of(len, S, off), nf = (size_t)1 << 23;
    unsigned char *keys = (unsigned char *)tc_xmalloc((n > nf ? n : nf) * 4);
    for (int64_t it = 1; it <= 5; ++it) {
        /* 5: the pipelined kernel (4) with its second part launched after the first, not as
         * its programmatic dependent */
        const int64_t pipe = it <= 4 ? it : 4, pdl = it == 5 ? 1 : 0;
        TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_PACK_PIPE, pipe));
        TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_PIPE_PDL, pdl));
        char what[64];
        snprintf(what, sizeof what, "segsort_pack_pipe %lld, segsort_pipe_pdl %lld", (long long)pipe, (long long)pdl);
        tc_fill(&r, keys, n, PP_U32, TC_RANDOM);
        seg_call c = {PP_U32, PP_U32, 0, 0, 0, 0, 0, 0};
        run_check(env, &c, keys, n, off, S, what);
        tc_fill(&r, keys, nf, PP_I32, pipe & 1 ? TC_FEW : TC_RANDOM);
        seg_call f = {PP_I32, PP_U32, 0, 1, 1, 1, 16, 0};
        run_check(env, &f, keys, nf, NULL, nf / 16, what);
        if (tc_thorough()) {
            tc_fill(&r, keys, n, PP_U8, TC_RANDOM);
            seg_call u = {PP_U8, PP_U32, 0, (int)(pipe & 1), 0, 0, 0, 0};
            run_check(env, &u, keys, n, off, S, what);
        }
    }
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_PACK_PIPE, 0));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SEGSORT_PIPE_PDL, 0));
    free(keys);
    free(off);
    free(len);
}

/* CPU: 1, 2 and 3 threads over many segments and a few long ones (the second phase). */
static void t_cpu_segsort_threads(void **state)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    const int before = omp_get_max_threads();
    tc_rng r = tc_rng_for("segsort threads");
    size_t len[64], off[65];
    for (int i = 0; i < 64; ++i) len[i] = (size_t)tc_below(&r, 5000);
    len[10] = ((size_t)1 << 18) + 7;
    len[40] = ((size_t)1 << 18);
    const size_t n = offsets_of(len, 64, off);
    unsigned char *keys = (unsigned char *)tc_xmalloc(n * 4);
    tc_fill(&r, keys, n, PP_F32, TC_RANDOM);
    for (int th = 1; th <= 3; ++th) {
        omp_set_num_threads(th);
        char what[32];
        snprintf(what, sizeof what, "%d threads", th);
        seg_call c = {PP_F32, PP_U64, 1, th == 2, th == 3, 0, 0, 0};
        run_check(env, &c, keys, n, off, 64, what);
    }
    omp_set_num_threads(before);
    free(keys);
}

int main(void)
{
    tc_init("test_segsort");
    const struct CMUnitTest tests[] = {
        TC_BOTH(t_segsort_u8),    TC_BOTH(t_segsort_i32),     TC_BOTH(t_segsort_u32),
        TC_BOTH(t_segsort_i64),   TC_BOTH(t_segsort_u64),     TC_BOTH(t_segsort_f32),
        TC_BOTH(t_segsort_f64),   TC_BOTH(t_segsort_equal),   TC_BOTH(t_segsort_one_segment),
        TC_BOTH(t_segsort_long),  TC_BOTH(t_segsort_clamped), TC_BOTH(t_segsort_empty),
        TC_BOTH(t_segsort_float_ties), TC_BOTH(t_segsort_radix_levels), TC_BOTH(t_segsort_top_keys),
        TC_CPU(t_cpu_segsort_threads),
        TC_HIP(t_segsort_pack_log),
        TC_HIP(t_segsort_pipe),
        TC_HIP(t_segsort_msd_groups),
    };
    return TC_RUN("segsort", tests);
}
