/*
 * test_sort.c -- pp_sort_keys, pp_sort_pairs and pp_argsort against a serial oracle
 * (tests/oracles.c: a stable merge sort by parprim.h's order, written without the library's key
 * encoding), on the CPU backend and, where a device is present, on HIP. Every check is exact:
 * a stable sort has one right permutation, so the keys, the values and the indices must be
 * those of the oracle's permutation, bit for bit (which is also the parity between backends).
 *
 * Covered: every key type, both orders, keys / pairs (every value type) / argsort (u32 and u64
 * indices); stability (few distinct keys with distinct values); NaN (both signs, payloads),
 * -0.0 / +0.0, infinities and subnormals; bit ranges, the empty one included; sizes 0, 1, 2,
 * waves +-1, the GPU tiles +-1 (the tile sort's 2048 and 4096 keys, onesweep's 3840 / 7680),
 * merge levels +-1 (2, 4, 8, 32 tiles), 2^20 + 3; all-equal, sorted, reverse-sorted and
 * few-distinct inputs; in place; and on HIP both strategies forced (asked from the plan).
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

typedef enum { SK_KEYS, SK_PAIRS, SK_ARGSORT } sort_kind;
static const char *kind_name(sort_kind k) { return k == SK_KEYS ? "keys" : k == SK_PAIRS ? "pairs" : "argsort"; }

/* Input layouts beyond the random draw. */
typedef enum { L_RANDOM, L_FEW, L_EQUAL, L_SORTED, L_REVERSE, L_SPECIAL } layout;
static const char *layout_name(layout l)
{
    static const char *const names[] = {"random", "few distinct", "all equal", "sorted", "reverse sorted", "special"};
    return names[l];
}

/* One sort call with its arguments. */
typedef struct sort_call {
    sort_kind kind;
    pp_dtype kt, vt; /* vt: the value type (pairs) or the index type (argsort) */
    int descending;
    int begin_bit, end_bit;
    int in_place;    /* keys (and values) sorted in place */
} sort_call;

/* Float specials: NaNs of both signs and several payloads, zeros of both signs, infinities,
 * subnormals, and ordinary numbers. */
static void fill_special(tc_rng *r, void *a, size_t n, pp_dtype t)
{
    static const uint32_t f32s[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFBFFFFFu, 0x00000000u, 0x80000000u,
                                    0x7F800000u, 0xFF800000u, 0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu,
                                    0x3F800000u, 0xBF800000u, 0x7F7FFFFFu, 0xFF7FFFFFu};
    static const uint64_t f64s[] = {0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull,
                                    0xFFF7FFFFFFFFFFFFull, 0x0ull, 0x8000000000000000ull, 0x7FF0000000000000ull,
                                    0xFFF0000000000000ull, 0x1ull, 0x8000000000000001ull, 0x000FFFFFFFFFFFFFull,
                                    0x800FFFFFFFFFFFFFull, 0x3FF0000000000000ull, 0xBFF0000000000000ull,
                                    0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull};
    tc_fill(r, a, n, t, TC_RANDOM);
    for (size_t i = 0; i < n; ++i) {
        if (tc_below(r, 2)) continue;
        const unsigned k = (unsigned)tc_below(r, 16);
        tc_store_bits(a, i, t, t == PP_F32 ? f32s[k] : f64s[k]);
    }
}

static void fill_layout(tc_rng *r, void *a, size_t n, pp_dtype t, layout l)
{
    switch (l) {
    case L_RANDOM: tc_fill(r, a, n, t, TC_RANDOM); break;
    case L_FEW: tc_fill(r, a, n, t, TC_FEW); break;
    case L_EQUAL:
        tc_fill(r, a, n ? 1 : 0, t, TC_RANDOM);
        for (size_t i = 1; i < n; ++i) tc_store_bits(a, i, t, tc_bits(a, 0, t));
        break;
    case L_SORTED:
    case L_REVERSE: {
        tc_fill(r, a, n, t, TC_RANDOM);
        uint64_t *perm = (uint64_t *)tc_xmalloc((n ? n : 1) * sizeof *perm);
        TC_CHECK(po_sort_perm(a, n, t, l == L_REVERSE, 0, 0, perm) == 0, "oracle out of memory");
        unsigned char *b = (unsigned char *)tc_xmalloc(n * tc_size(t) + 1);
        for (size_t i = 0; i < n; ++i) tc_store_bits(b, i, t, tc_bits(a, perm[i], t));
        memcpy(a, b, n * tc_size(t));
        free(b);
        free(perm);
        break;
    }
    case L_SPECIAL:
        if (tc_is_float(t)) fill_special(r, a, n, t);
        else tc_fill(r, a, n, t, TC_RANDOM);
        break;
    }
}

/* Run call `c` on host keys[0, n) in env's context and check every output against the oracle.
 * The outputs are filled with a sentinel first, and 64 bytes past each must keep it. */
static void run_check(tc_env *env, const sort_call *c, const void *keys, size_t n, const char *what)
{
    pp_context *ctx = env->ctx;
    tc_case("%s: %s %s%s%s, %s, bits [%d, %d), n = %zu%s: %s", pp_backend_name(env->backend), kind_name(c->kind),
            tc_dname(c->kt), c->kind == SK_KEYS ? "" : " / ", c->kind == SK_KEYS ? "" : tc_dname(c->vt),
            c->descending ? "descending" : "ascending", c->begin_bit, c->end_bit, n, c->in_place ? ", in place" : "",
            what);
    const size_t ks = tc_size(c->kt), vs = c->kind == SK_KEYS ? 0 : tc_size(c->vt), pad = 64;
    tc_rng r = tc_rng_for("sort values");
    unsigned char *vals = NULL;
    if (c->kind == SK_PAIRS) {
        vals = (unsigned char *)tc_xmalloc(n * vs + 1);
        /* distinct values (the position's low bits, then random), so a swap of equal keys shows */
        tc_fill(&r, vals, n, c->vt, TC_RANDOM);
        for (size_t i = 0; i < n; ++i) {
            uint64_t b = tc_bits(vals, i, c->vt);
            b = vs == 1 ? (uint64_t)(i & 0xFF) : (b & ~0xFFFFFull) | (i & 0xFFFFFull);
            tc_store_bits(vals, i, c->vt, b);
        }
    }
    unsigned char *kin = (unsigned char *)tc_alloc(ctx, n * ks + pad), *kout = kin;
    unsigned char *vin = NULL, *vout = NULL;
    if (n) TC_OK(ctx, pp_memcpy(ctx, kin, keys, n * ks, PP_COPY_HOST_TO_CONTEXT));
    TC_OK(ctx, pp_memset(ctx, kin + n * ks, TC_SENTINEL, pad));
    if (!c->in_place && c->kind != SK_ARGSORT) {
        kout = (unsigned char *)tc_alloc(ctx, n * ks + pad);
        TC_OK(ctx, pp_memset(ctx, kout, TC_SENTINEL, n * ks + pad));
    }
    if (vs) {
        vout = (unsigned char *)tc_alloc(ctx, n * vs + pad);
        TC_OK(ctx, pp_memset(ctx, vout, TC_SENTINEL, n * vs + pad));
        if (c->kind == SK_PAIRS) {
            vin = vout;
            if (!c->in_place) vin = (unsigned char *)tc_alloc(ctx, n * vs + pad);
            if (n) TC_OK(ctx, pp_memcpy(ctx, vin, vals, n * vs, PP_COPY_HOST_TO_CONTEXT));
        }
    }
    pp_status st;
    const pp_sort_order order = c->descending ? PP_SORT_DESCENDING : PP_SORT_ASCENDING;
    if (c->kind == SK_KEYS) st = pp_sort_keys(ctx, n ? kin : NULL, n ? kout : NULL, n, c->kt, order, c->begin_bit, c->end_bit);
    else if (c->kind == SK_PAIRS)
        st = pp_sort_pairs(ctx, n ? kin : NULL, n ? kout : NULL, n ? vin : NULL, n ? vout : NULL, n, c->kt, c->vt,
                           order, c->begin_bit, c->end_bit);
    else st = pp_argsort(ctx, n ? kin : NULL, n, c->kt, order, n ? vout : NULL, c->vt);
    TC_CHECK(st == PP_OK, "status %s: %s", pp_status_string(st), pp_context_last_error(ctx));

    unsigned char *hk = (unsigned char *)tc_xmalloc(n * ks + pad), *hv = (unsigned char *)tc_xmalloc(n * vs + pad + 1);
    tc_download(ctx, hk, kout, n * ks + pad);
    if (vs) tc_download(ctx, hv, vout, n * vs + pad);
    for (size_t i = 0; i < pad; ++i) {
        TC_CHECK(hk[n * ks + i] == TC_SENTINEL, "byte %zu past the keys was written", i);
        if (vs) TC_CHECK(hv[n * vs + i] == TC_SENTINEL, "byte %zu past the values was written", i);
    }
    if (c->kind == SK_ARGSORT) { /* the keys are not written */
        for (size_t i = 0; i < n * ks; ++i)
            TC_CHECK(hk[i] == ((const unsigned char *)keys)[i], "argsort wrote key byte %zu", i);
    }
    uint64_t *perm = (uint64_t *)tc_xmalloc((n ? n : 1) * sizeof *perm);
    TC_CHECK(po_sort_perm(keys, n, c->kt, c->descending, c->begin_bit, c->end_bit, perm) == 0, "oracle out of memory");
    char why[256];
    const int ok = po_sort_check(keys, c->kind == SK_ARGSORT ? NULL : hk, n, c->kt, vals, vs ? hv : NULL, vs, perm, why,
                                 sizeof why);
    TC_CHECK(ok, "%s", why);
    free(perm);
    free(hk);
    free(hv);
    free(vals);
    if (vin && vin != vout) tc_free(ctx, vin);
    if (vout) tc_free(ctx, vout);
    if (kout != kin) tc_free(ctx, kout);
    tc_free(ctx, kin);
}

/* Sizes: 0, 1, 2, waves +-1, the GPU tiles +-1 (tile sort 2048 / 4096, onesweep 3840 / 7680),
 * merge levels +-1 (2, 4, 8, 32 tiles of 2048), 2^20 + 3. */
static size_t sort_sizes(size_t *out, int thorough)
{
    static const size_t fixed[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 255, 256, 257};
    size_t k = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i) out[k++] = fixed[i];
    const size_t tiles[] = {2048, 3840, 4096, 7680, 2 * 2048, 4 * 2048, 8 * 2048, 32 * 2048};
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; ++t)
        for (int d = -1; d <= 1; d += thorough ? 1 : 2) out[k++] = tiles[t] + (size_t)d;
    out[k++] = ((size_t)1 << 20) + 3;
    return k;
}

static const pp_dtype value_types[] = {PP_U8, PP_I32, PP_U32, PP_I64, PP_U64, PP_F32, PP_F64};

/* Every size, both orders, keys / pairs / argsort, for key type t. */
static void sort_type(void **state, pp_dtype t)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    size_t sizes[64];
    const size_t ns = sort_sizes(sizes, tc_thorough());
    tc_rng r = tc_rng_for("sort keys");
    for (size_t i = 0; i < ns; ++i) {
        const size_t n = sizes[i];
        unsigned char *keys = (unsigned char *)tc_xmalloc(n * tc_size(t) + 1);
        fill_layout(&r, keys, n, t, tc_is_float(t) ? L_SPECIAL : L_RANDOM);
        for (int desc = 0; desc <= 1; ++desc) {
            sort_call c = {SK_KEYS, t, PP_U32, desc, 0, 0, 0};
            run_check(env, &c, keys, n, "random");
            c.kind = SK_PAIRS;
            c.vt = value_types[(i + (size_t)desc) % 7];
            run_check(env, &c, keys, n, "random");
            c.kind = SK_ARGSORT;
            c.vt = (i + (size_t)desc) % 2 ? PP_U64 : PP_U32;
            run_check(env, &c, keys, n, "random");
        }
        free(keys);
    }
}

static void t_sort_u8(void **state) { sort_type(state, PP_U8); }
static void t_sort_i32(void **state) { sort_type(state, PP_I32); }
static void t_sort_u32(void **state) { sort_type(state, PP_U32); }
static void t_sort_i64(void **state) { sort_type(state, PP_I64); }
static void t_sort_u64(void **state) { sort_type(state, PP_U64); }
static void t_sort_f32(void **state) { sort_type(state, PP_F32); }
static void t_sort_f64(void **state) { sort_type(state, PP_F64); }

/* All-equal, sorted, reverse-sorted and few-distinct inputs (stability: few distinct keys with
 * distinct values), every key type, both orders, at sizes around the tiles. */
static void t_sort_layouts(void **state)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    const size_t sizes[] = {1, 33, 2049, 4097, 65537, ((size_t)1 << 20) + 3};
    const layout layouts[] = {L_FEW, L_EQUAL, L_SORTED, L_REVERSE};
    tc_rng r = tc_rng_for("sort layouts");
    for (size_t ti = 0; ti < 7; ++ti)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
            if (!tc_thorough() && si == 5 && ti % 3) continue;
            const pp_dtype t = tc_dtypes[ti];
            const size_t n = sizes[si];
            unsigned char *keys = (unsigned char *)tc_xmalloc(n * tc_size(t) + 1);
            for (size_t li = 0; li < 4; ++li) {
                fill_layout(&r, keys, n, t, layouts[li]);
                for (int desc = 0; desc <= 1; ++desc) {
                    sort_call c = {SK_PAIRS, t, PP_U32, desc, 0, 0, 0};
                    run_check(env, &c, keys, n, layout_name(layouts[li]));
                    c.kind = SK_ARGSORT;
                    run_check(env, &c, keys, n, layout_name(layouts[li]));
                }
            }
            free(keys);
        }
}

/* NaN / -0.0 / +0.0 / inf / subnormal placement, spelled out (the oracle checks the whole
 * order; this checks the header's words directly on a small case). */
static void t_sort_float_specials(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    /* NaN, -0.0, +inf, 1, -NaN(payload), +0.0, -inf, subnormal, -0.0 */
    const float in[9] = {NAN, -0.0f, INFINITY, 1.0f, -NAN, 0.0f, -INFINITY, 1e-45f, -0.0f};
    uint32_t bits[9];
    memcpy(bits, in, sizeof bits);
    bits[4] = 0xFFC00123u; /* a negative NaN with a payload */
    for (int desc = 0; desc <= 1; ++desc) {
        tc_case("%s: f32 specials %s", pp_backend_name(env->backend), desc ? "descending" : "ascending");
        uint32_t *d = (uint32_t *)tc_upload(ctx, bits, sizeof bits), *o = (uint32_t *)tc_alloc(ctx, sizeof bits);
        TC_OK(ctx, pp_sort_keys(ctx, d, o, 9, PP_F32, desc ? PP_SORT_DESCENDING : PP_SORT_ASCENDING, 0, 0));
        uint32_t got[9];
        tc_download(ctx, got, o, sizeof got);
        /* ascending: -inf, -0.0, +0.0, -0.0 (input order), subnormal, 1, +inf, NaN, -NaN */
        static const uint32_t asc[9] = {0xFF800000u, 0x80000000u, 0x00000000u, 0x80000000u, 0x00000001u,
                                        0x3F800000u, 0x7F800000u, 0x7FC00000u, 0xFFC00123u};
        static const uint32_t dsc[9] = {0x7FC00000u, 0xFFC00123u, 0x7F800000u, 0x3F800000u, 0x00000001u,
                                        0x80000000u, 0x00000000u, 0x80000000u, 0xFF800000u};
        const uint32_t *want = desc ? dsc : asc;
        for (int i = 0; i < 9; ++i)
            TC_CHECK(got[i] == want[i], "out[%d] = 0x%08x, want 0x%08x", i, (unsigned)got[i], (unsigned)want[i]);
        tc_free(ctx, d);
        tc_free(ctx, o);
    }
    /* and at sizes where the GPU uses each path, with the oracle */
    tc_rng r = tc_rng_for("sort specials");
    const size_t sizes[] = {100, 5000, 300000};
    for (size_t si = 0; si < 3; ++si)
        for (int ft = 0; ft < 2; ++ft) {
            const pp_dtype t = ft ? PP_F64 : PP_F32;
            const size_t n = sizes[si];
            unsigned char *keys = (unsigned char *)tc_xmalloc(n * tc_size(t));
            fill_special(&r, keys, n, t);
            for (int desc = 0; desc <= 1; ++desc) {
                sort_call c = {SK_PAIRS, t, PP_U64, desc, 0, 0, 0};
                run_check(env, &c, keys, n, "specials");
            }
            free(keys);
        }
}

/* Bit ranges of integer keys: whole, low byte, a middle range not on digit boundaries, the top
 * bits (the sign of signed keys), one bit, and empty ones (begin == end; begin == width with
 * end 0). */
static void t_sort_bits(void **state)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    const pp_dtype types[] = {PP_U8, PP_I32, PP_U32, PP_I64, PP_U64};
    tc_rng r = tc_rng_for("sort bits");
    const size_t sizes[] = {1000, 70000};
    for (size_t ti = 0; ti < 5; ++ti)
        for (size_t si = 0; si < 2; ++si) {
            const pp_dtype t = types[ti];
            const int w = (int)(8 * tc_size(t));
            const int ranges[][2] = {{0, 0}, {0, 8 < w ? 8 : w}, {3, w > 8 ? 13 : 7}, {w - 5, 0}, {w / 2, w / 2 + 1},
                                     {4, 4}, {w, 0}, {0, w}};
            const size_t n = sizes[si];
            unsigned char *keys = (unsigned char *)tc_xmalloc(n * tc_size(t));
            tc_fill(&r, keys, n, t, TC_RANDOM);
            for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; ++k)
                for (int desc = 0; desc <= 1; ++desc) {
                    sort_call c = {k % 2 ? SK_PAIRS : SK_KEYS, t, PP_F32, desc, ranges[k][0], ranges[k][1], 0};
                    run_check(env, &c, keys, n, "bit range");
                }
            free(keys);
        }
}

/* In place: keys, and pairs with both arrays in place, at sizes with 1 (u8) and several passes,
 * including pass counts that are odd after skipping. */
static void t_sort_in_place(void **state)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    tc_rng r = tc_rng_for("sort in place");
    const size_t sizes[] = {7, 3000, 100000};
    for (size_t ti = 0; ti < 7; ++ti)
        for (size_t si = 0; si < 3; ++si) {
            const pp_dtype t = tc_dtypes[ti];
            const size_t n = sizes[si];
            unsigned char *keys = (unsigned char *)tc_xmalloc(n * tc_size(t));
            tc_fill(&r, keys, n, t, si == 1 ? TC_FEW : TC_RANDOM);
            for (int desc = 0; desc <= 1; ++desc) {
                sort_call c = {SK_KEYS, t, PP_U32, desc, 0, 0, 1};
                run_check(env, &c, keys, n, "in place");
                c.kind = SK_PAIRS;
                c.vt = tc_dtypes[(ti + 3) % 7];
                run_check(env, &c, keys, n, "in place");
                if (!tc_is_float(t)) {
                    c.begin_bit = 0;
                    c.end_bit = 12 < 8 * (int)tc_size(t) ? 12 : 0;
                    run_check(env, &c, keys, n, "in place, 2 passes");
                    c.end_bit = 24 < 8 * (int)tc_size(t) ? 24 : 0;
                    run_check(env, &c, keys, n, "in place, 3 passes");
                }
            }
            free(keys);
        }
}

/* HIP: both strategies forced at several sizes; each must run (asked from the plan) and give
 * the oracle's bits (so the two give the same bits). */
static void t_sort_strategies(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    const size_t sizes[] = {1, 100, 2048, 4096, 2049, 4097, 8193, 65537, 300001, ((size_t)1 << 20) + 3};
    const pp_sort_strategy strategies[] = {PP_SORT_STRATEGY_TILE_MERGE, PP_SORT_STRATEGY_ONESWEEP};
    static const char *const names[] = {"tile_merge", "onesweep"};
    tc_rng r = tc_rng_for("sort strategies");
    int ran[2] = {0, 0};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
        for (size_t ti = 0; ti < 7; ++ti) {
            if (!tc_thorough() && si >= 8 && ti % 2) continue;
            const pp_dtype t = tc_dtypes[ti];
            const size_t n = sizes[si];
            unsigned char *keys = (unsigned char *)tc_xmalloc(n * tc_size(t));
            fill_layout(&r, keys, n, t, tc_is_float(t) ? L_SPECIAL : (ti % 2 ? L_FEW : L_RANDOM));
            for (int s = 0; s < 2; ++s) {
                TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_STRATEGY, strategies[s]));
                for (int k = 0; k < 3; ++k) {
                    sort_call c = {(sort_kind)k, t, k == 2 ? PP_U32 : PP_F64, (int)(si + ti + (size_t)k) % 2, 0, 0, 0};
                    run_check(env, &c, keys, n, names[s]);
                    pp_plan plan;
                    TC_OK(ctx, pp_context_last_plan(ctx, &plan));
                    if (!strcmp(plan.strategy, names[s])) ran[s] = 1;
                    /* the tile sort's one-launch bitonic tile (param[3] = 1): keys and pairs
                     * within 4096 elements, 2048 with an 8-byte key or value (pairs: f64) */
                    const size_t tile = tc_size(t) > 4 || k == SK_PAIRS ? 2048 : 4096;
                    if (s == 0 && !strcmp(plan.strategy, "tile_merge"))
                        TC_CHECK(plan.param[3] == (k != SK_ARGSORT && n <= tile),
                                 "tile_merge at n = %zu, %s: param[3] %lld", n, tc_dname(t),
                                 (long long)plan.param[3]);
                }
            }
            TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_STRATEGY, PP_SORT_STRATEGY_AUTO));
            free(keys);
        }
    if (!ran[0] || !ran[1]) {
        fprintf(stderr, "t_sort_strategies: the device ran %s%s%s\n", ran[0] ? "" : "no tile_merge ",
                ran[1] ? "" : "no onesweep", "");
        skip();
    }
}

/* HIP: every onesweep variant (s2-sortperf) forced at sizes of one tile and of many (tiles of
 * 2048 and 4096 keys, so the look-back and its window run), keys, pairs and argsort, 1-, 4- and
 * 8-byte keys, a bit range of 2 passes; each must run (the plan's param[3]) and give the
 * oracle's bits. The tiles' size (PP_OPTION_SORT_SMALL_TILES) alternates between the calls, so
 * that every variant runs with small tiles (1024 keys: the plan's param[1] 4) and large ones. */
static void t_sort_onesweep_variants(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    const size_t sizes[] = {1, 100, 4095, 4097, 20000, 300001, ((size_t)1 << 20) + 3};
    const pp_dtype types[] = {PP_U8, PP_U32, PP_F32, PP_I64, PP_F64};
    static const char *const names[] = {"", "onesweep ranked", "onesweep early", "onesweep early ballot",
                                        "onesweep early window", "onesweep fused"};
    tc_rng r = tc_rng_for("sort onesweep variants");
    int ran[6] = {0, 0, 0, 0, 0, 0}, ran_small[6] = {0, 0, 0, 0, 0, 0};
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_STRATEGY, PP_SORT_STRATEGY_ONESWEEP));
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
        for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ++ti) {
            if (!tc_thorough() && si >= 8 && ti % 2) continue;
            const pp_dtype t = types[ti];
            const size_t n = sizes[si];
            unsigned char *keys = (unsigned char *)tc_xmalloc(n * tc_size(t));
            fill_layout(&r, keys, n, t, tc_is_float(t) ? L_SPECIAL : (si % 2 ? L_FEW : L_RANDOM));
            for (int v = PP_SORT_ONESWEEP_RANKED; v <= PP_SORT_ONESWEEP_FUSED; ++v) {
                TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_ONESWEEP, v));
                for (int k = 0; k < 3; ++k) {
                    const int small = (int)((si + ti + (size_t)v + (size_t)k) % 2);
                    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_SMALL_TILES, 1 + small));
                    sort_call c = {(sort_kind)k, t, k == 2 ? PP_U64 : PP_U32, (int)(si + ti + (size_t)k) % 2, 0, 0, 0};
                    if (k == 1 && !tc_is_float(t) && tc_size(t) > 1) c.end_bit = 16; /* 2 passes */
                    char what[64];
                    snprintf(what, sizeof what, "%s, %s tiles", names[v], small ? "small" : "large");
                    run_check(env, &c, keys, n, what);
                    pp_plan plan;
                    TC_OK(ctx, pp_context_last_plan(ctx, &plan));
                    if (!strcmp(plan.strategy, "onesweep") && plan.param[3] == v) {
                        if (plan.param[1] == 4) ran_small[v] = 1;
                        else ran[v] = 1;
                    }
                }
                TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_SMALL_TILES, 0));
            }
            TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_ONESWEEP, PP_SORT_ONESWEEP_AUTO));
            free(keys);
        }
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_STRATEGY, PP_SORT_STRATEGY_AUTO));
    for (int v = PP_SORT_ONESWEEP_RANKED; v <= PP_SORT_ONESWEEP_FUSED; ++v)
        if (!ran[v] || !ran_small[v]) {
            fprintf(stderr, "t_sort_onesweep_variants: the device ran no %s%s\n", names[v],
                    ran[v] ? " with small tiles" : "");
            skip();
        }
}

/* HIP: the wide onesweep tiles (blocks of 512 threads, 16 keys a thread, the
 * staged tile over the ranking's shared memory) forced at sizes around one wide tile and of
 * many (the look-back runs), keys of 1, 4 and 8 bytes (u8, u32, i32, u64, f32 and f64 with
 * specials), random,
 * few-distinct, sorted and reversed, ascending and descending, the whole key and a range of 2
 * passes, in place and not; each must run wide (the plan's tile, param[2]) and give the
 * oracle's bits. Then 4-byte keys (u32, i32, f32) with 4-byte values, pairs and argsort's u32
 * indices, on their own wide tiles (384 x 16 = 6144) at sizes around one tile and of many, in
 * place and not; u64 pairs and argsort with the option set must still sort (by narrow tiles). */
static void t_sort_wide_tiles(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    const size_t sizes[] = {1, 100, 4097, 8191, 8192, 8193, 20000, 300001, ((size_t)1 << 20) + 3};
    const pp_dtype types[] = {PP_U8, PP_U32, PP_I32, PP_F32, PP_U64, PP_F64};
    const layout lays[] = {L_RANDOM, L_FEW, L_SORTED, L_REVERSE};
    tc_rng r = tc_rng_for("sort wide tiles");
    int ran = 0;
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_STRATEGY, PP_SORT_STRATEGY_ONESWEEP));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_ONESWEEP, PP_SORT_ONESWEEP_FUSED));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_SMALL_TILES, 1));
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
        for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ++ti) {
            if (!tc_thorough() && si == 8 && ti != 1 && ti != 4) continue; /* quick: 2^20 + 3 for u32, u64 */
            const pp_dtype t = types[ti];
            const size_t n = sizes[si];
            unsigned char *keys = (unsigned char *)tc_xmalloc(n * tc_size(t));
            const layout lay = tc_is_float(t) && si % 2 ? L_SPECIAL : lays[(si + ti) % 4];
            fill_layout(&r, keys, n, t, lay);
            TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_WIDE_TILES, 2));
            for (int k = 0; k < 3; ++k) {
                sort_call c = {SK_KEYS, t, PP_U32, (int)(si + ti + (size_t)k) % 2, 0, 0, k == 2};
                if (k == 1 && !tc_is_float(t)) {
                    if (tc_size(t) > 1) c.end_bit = 16; /* 2 passes */
                    else c.begin_bit = 3;               /* 5 bits */
                }
                run_check(env, &c, keys, n, "wide tiles");
                pp_plan plan;
                TC_OK(ctx, pp_context_last_plan(ctx, &plan));
                if (!strcmp(plan.strategy, "onesweep") && plan.param[2] == 512 * (tc_size(t) > 4 ? 8 : 16))
                    ran |= tc_size(t) > 4 ? 2 : 1;
            }
            if (si == 7 && ti == 4) { /* 8-byte keys with values: the option leaves them on narrow tiles */
                sort_call c = {SK_PAIRS, t, PP_U32, 1, 0, 0, 0};
                run_check(env, &c, keys, n, "u64 pairs, wide tiles asked for");
                c.kind = SK_ARGSORT;
                run_check(env, &c, keys, n, "u64 argsort, wide tiles asked for");
            }
            TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_WIDE_TILES, 0));
            free(keys);
        }
    /* 4-byte keys with 4-byte values (pairs, argsort's u32 indices): tiles of 384 x 16 = 6144 */
    const size_t psizes[] = {1, 6143, 6144, 6145, 12289, 300001, ((size_t)1 << 20) + 3};
    const pp_dtype ptypes[] = {PP_U32, PP_I32, PP_F32};
    for (size_t si = 0; si < sizeof psizes / sizeof psizes[0]; ++si)
        for (size_t ti = 0; ti < sizeof ptypes / sizeof ptypes[0]; ++ti) {
            if (!tc_thorough() && si == 6 && ti != 2) continue; /* quick: 2^20 + 3 for f32 */
            const pp_dtype t = ptypes[ti];
            const size_t n = psizes[si];
            unsigned char *keys = (unsigned char *)tc_xmalloc(n * 4);
            fill_layout(&r, keys, n, t, tc_is_float(t) && si % 2 ? L_SPECIAL : lays[(si + ti) % 4]);
            TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_WIDE_TILES, 2));
            for (int k = 0; k < 4; ++k) {
                sort_call c = {k == 3 ? SK_ARGSORT : SK_PAIRS, t, PP_U32, (int)(si + ti + (size_t)k) % 2, 0, 0, k == 2};
                if (k == 1 && !tc_is_float(t)) c.end_bit = 16;
                run_check(env, &c, keys, n, k == 3 ? "argsort, wide tiles" : "pairs, wide tiles");
                pp_plan plan;
                TC_OK(ctx, pp_context_last_plan(ctx, &plan));
                if (!strcmp(plan.strategy, "onesweep") && plan.param[2] == 384 * 16) ran |= 4;
            }
            TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_WIDE_TILES, 0));
            free(keys);
        }
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_SMALL_TILES, 0));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_ONESWEEP, PP_SORT_ONESWEEP_AUTO));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_STRATEGY, PP_SORT_STRATEGY_AUTO));
    if (ran != 7) {
        fprintf(stderr, "t_sort_wide_tiles: the device ran no wide tile of %s\n",
                !(ran & 1) ? "1- and 4-byte keys" : !(ran & 2) ? "8-byte keys" : "4-byte keys with 4-byte values");
        fail();
    }
}

/* Argsort of 4-byte keys (f32 with specials, i32, u32) whose low digits are constant, so that
 * the first running pass is not pass 0 (HIP: the keys move as their encodings from the first
 * running pass on, which reads the input), or whose top digit is constant (the last pass is
 * skipped); both orders, u32 and u64 indices, at sizes of the onesweep's small, narrow and wide
 * tiles (auto, then wide tiles forced), and the tile sort below them. */
static void t_sort_argsort_skips(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    const size_t sizes[] = {1000, 20000, 300001};
    const pp_dtype types[] = {PP_F32, PP_I32, PP_U32};
    /* the bits each key keeps: low 8 zero, low 16 zero, the top 8 of the input's first key */
    const uint32_t masks[] = {0xFFFFFF00u, 0xFFFF0000u, 0x00FFFFFFu};
    tc_rng r = tc_rng_for("sort argsort skips");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
        for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ++ti)
            for (size_t mi = 0; mi < sizeof masks / sizeof masks[0]; ++mi) {
                const pp_dtype t = types[ti];
                const size_t n = sizes[si];
                uint32_t *keys = (uint32_t *)tc_xmalloc(n * 4);
                /* specials only with the top digit kept: a NaN's key (all ones) has no constant low digit */
                fill_layout(&r, keys, n, t, tc_is_float(t) && mi == 2 ? L_SPECIAL : L_RANDOM);
                const uint32_t top = keys[0] & ~masks[mi];
                for (size_t i = 0; i < n; ++i) keys[i] = (keys[i] & masks[mi]) | (mi == 2 ? top : 0u);
                for (int wide = 0; wide <= (env->backend == PP_BACKEND_HIP); ++wide) {
                    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_WIDE_TILES, wide ? 2 : 0));
                    for (int desc = 0; desc <= 1; ++desc) {
                        sort_call c = {SK_ARGSORT, t, (si + mi + (size_t)desc) % 2 ? PP_U64 : PP_U32, desc, 0, 0, 0};
                        run_check(env, &c, keys, n, wide ? "constant digits, wide tiles asked for" : "constant digits");
                    }
                }
                TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SORT_WIDE_TILES, 0));
                free(keys);
            }
}

/* CPU: the parallel passes with 1, 2, 3 and 5 threads (uneven chunks; the next pass's counts
 * kept per owning thread), above the size that sorts on one thread. */
static void t_cpu_threads(void **state)
{
    tc_env *env = tc_envp(state);
    (void)tc_ctx(state);
    const int before = omp_get_max_threads();
    tc_rng r = tc_rng_for("sort threads");
    const size_t n = 300001;
    for (int ti = 0; ti < 3; ++ti) {
        const pp_dtype t = ti == 0 ? PP_U32 : ti == 1 ? PP_F64 : PP_I32;
        unsigned char *keys = (unsigned char *)tc_xmalloc(n * tc_size(t));
        fill_layout(&r, keys, n, t, ti == 2 ? L_FEW : L_SPECIAL);
        for (int th = 1; th <= 5; th += th < 3 ? 1 : 2) {
            omp_set_num_threads(th);
            char what[32];
            snprintf(what, sizeof what, "%d threads", th);
            sort_call c = {SK_PAIRS, t, PP_U64, ti == 1, 0, 0, 0};
            run_check(env, &c, keys, n, what);
            c.kind = SK_ARGSORT;
            c.vt = PP_U32;
            run_check(env, &c, keys, n, what);
            c.kind = SK_KEYS;
            c.in_place = 1;
            run_check(env, &c, keys, n, what);
        }
        free(keys);
    }
    omp_set_num_threads(before);
}

/* n == 0: nothing written, NULL pointers accepted. */
static void t_sort_empty(void **state)
{
    pp_context *ctx = tc_ctx(state);
    TC_OK(ctx, pp_sort_keys(ctx, NULL, NULL, 0, PP_U32, PP_SORT_ASCENDING, 0, 0));
    TC_OK(ctx, pp_sort_pairs(ctx, NULL, NULL, NULL, NULL, 0, PP_F64, PP_U8, PP_SORT_DESCENDING, 0, 0));
    TC_OK(ctx, pp_argsort(ctx, NULL, 0, PP_F32, PP_SORT_ASCENDING, NULL, PP_U64));
}

int main(void)
{
    tc_init("test_sort");
    const struct CMUnitTest tests[] = {
        TC_BOTH(t_sort_u8),    TC_BOTH(t_sort_i32),      TC_BOTH(t_sort_u32),
        TC_BOTH(t_sort_i64),   TC_BOTH(t_sort_u64),      TC_BOTH(t_sort_f32),
        TC_BOTH(t_sort_f64),   TC_BOTH(t_sort_layouts),  TC_BOTH(t_sort_float_specials),
        TC_BOTH(t_sort_bits),  TC_BOTH(t_sort_in_place), TC_HIP(t_sort_strategies),
        TC_BOTH(t_sort_empty), TC_CPU(t_cpu_threads),
        /* radix sort performance (s2-sortperf) */
        TC_HIP(t_sort_onesweep_variants),
        /* wide onesweep tiles (eighth session) */
        TC_HIP(t_sort_wide_tiles),
        /* argsort's keys as their encodings (eleventh session) */
        TC_BOTH(t_sort_argsort_skips),
    };
    return TC_RUN("sort", tests);
}
