/*
 * test_scan.c -- pp_inclusive_scan, pp_exclusive_scan, pp_segmented_scan_flags and
 * pp_segmented_scan_offsets against serial oracles (common.c), on the CPU backend and, where a
 * device is present, on HIP.
 *
 * Sizes: 0, 1, 2, around 32 and 64, tiles of 1024 / 2048 / 4096 / 5120 / 8192 elements +-1, 64
 * tiles of 4096 and of 5120 +-1, 2^20 + 3. Every (in, op, out) inclusive, exclusive with the
 * identity and with an init; integer results exact (wrapping); float sums within the header's scan bound against a
 * compensated long double sum (exact on data where every order is); float products within
 * gamma_{m-1}; min / max exact, NaN from the first NaN on. Segmented forms: head flags (any
 * nonzero byte, element 0 always a head) and offsets (empty, clamped, uncovered elements left
 * untouched). In place, determinism, and (CPU) independence of the thread count.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MAX_SIZES 32




/* A few combos that cover every accumulation kind, for the heavier layouts. */
static const tc_combo some_combos[] = {
    {PP_F32, PP_F32, PP_OP_SUM}, {PP_F32, PP_F64, PP_OP_SUM}, {PP_F64, PP_F64, PP_OP_SUM},
    {PP_I32, PP_I32, PP_OP_SUM}, {PP_U8, PP_U64, PP_OP_SUM},  {PP_U8, PP_U8, PP_OP_MAX},
    {PP_I64, PP_I64, PP_OP_MIN}, {PP_F64, PP_F64, PP_OP_MIN}, {PP_U32, PP_U32, PP_OP_XOR},
    {PP_F32, PP_F32, PP_OP_PROD}};
#define N_SOME (sizeof some_combos / sizeof some_combos[0])

/* 0, 1, 2, around 32 / 64, tiles of 1024 .. 8192 +-1, 64 x 4096 and 64 x 5120 +-1, 2^20 + 3
 * (sorted; 5120: the NVIDIA tile of plain 4-byte scans). */
static size_t scan_sizes(size_t *out)
{
    static const size_t fixed[] = {0, 1, 2, 31, 32, 33, 63, 64, 65};
    size_t k = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i) out[k++] = fixed[i];
    const size_t tiles[] = {1024, 2048, 4096, 5120, 8192, 64 * 4096, 64 * 5120};
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; ++t)
        for (int d = -1; d <= 1; ++d) out[k++] = tiles[t] + (size_t)d;
    out[k++] = ((size_t)1 << 20) + 3;
    return k;
}

/* An init for exclusive scans: one out_type element drawn like the data (for integers, all
 * bits random). */
static void draw_init(tc_rng *r, void *init, pp_dtype out, tc_dist dist)
{
    memset(init, 0, 8);
    tc_fill(r, init, 1, out, tc_is_float(out) ? dist : TC_RANDOM);
}

static const char *variant_name(const tc_scan *s)
{
    if (!s->exclusive) return "inclusive";
    return s->init ? "exclusive with init" : "exclusive (identity)";
}

static const char *form_name(const tc_scan *s)
{
    return s->offsets ? "offsets" : s->flags ? "flags" : "plain";
}

/* Run s on host[0, n) and check every output against the oracle. */
static void run_check(tc_env *env, const tc_scan *s, const void *host, size_t n, int in_place, const char *what)
{
    tc_case("%s: %s scan (%s) %s %s->%s, n = %zu%s: %s", pp_backend_name(env->backend), form_name(s),
            variant_name(s), tc_oname(s->op), tc_dname(s->in), tc_dname(s->out), n, in_place ? ", in place" : "",
            what);
    unsigned char *out = (unsigned char *)tc_xmalloc(n * tc_size(s->out) + 1);
    pp_status st = tc_scan_run(env, s, host, n, in_place, out);
    TC_CHECK(st == PP_OK, "status %s: %s", pp_status_string(st), tc_call_message());
    tc_scan_check(s, host, n, in_place ? host : NULL, out, NULL, 1.0);
    free(out);
}

/* (in -> out, op) inclusive, exclusive with the identity and with an init, over every size. */
static void scan_sizes_check(tc_env *env, pp_dtype in, pp_op op, pp_dtype out, tc_dist dist, int exact)
{
    size_t sizes[MAX_SIZES];
    const size_t ns = scan_sizes(sizes), nmax = sizes[ns - 1];
    char tag[96];
    snprintf(tag, sizeof tag, "scan %s %s->%s dist %d", tc_oname(op), tc_dname(in), tc_dname(out), (int)dist);
    tc_rng r = tc_rng_for(tag);
    void *host = tc_xmalloc(nmax * tc_size(in));
    tc_fill(&r, host, nmax, in, dist);
    _Alignas(8) unsigned char init[8];
    draw_init(&r, init, out, dist);
    for (int v = 0; v < 3; ++v) {
        const tc_scan s = {in, out, op, v > 0, v == 2 ? init : NULL, NULL, NULL, 0, exact};
        for (size_t k = 0; k < ns; ++k) run_check(env, &s, host, sizes[k], 0, tag);
    }
    free(host);
}

static void scan_dtype(void **state, pp_dtype t) { tc_each_op(tc_envp(state), t, scan_sizes_check); }

static void t_scan_u8(void **state) { scan_dtype(state, PP_U8); }
static void t_scan_i32(void **state) { scan_dtype(state, PP_I32); }
static void t_scan_u32(void **state) { scan_dtype(state, PP_U32); }
static void t_scan_i64(void **state) { scan_dtype(state, PP_I64); }
static void t_scan_u64(void **state) { scan_dtype(state, PP_U64); }
static void t_scan_f32(void **state) { scan_dtype(state, PP_F32); }
static void t_scan_f64(void **state) { scan_dtype(state, PP_F64); }

static void t_scan_widening(void **state)
{
    tc_env *env = tc_envp(state);
    for (size_t w = 0; w < TC_N_WIDENINGS; ++w)
        scan_sizes_check(env, tc_widenings[w][0], PP_OP_SUM, tc_widenings[w][1], TC_RANDOM, 0);
}

/* Sums of small integers are exact in every order: equality, not a bound. */
static void t_scan_float_exact(void **state)
{
    tc_env *env = tc_envp(state);
    scan_sizes_check(env, PP_F32, PP_OP_SUM, PP_F32, TC_SMALLINT, 1);
    scan_sizes_check(env, PP_F64, PP_OP_SUM, PP_F64, TC_SMALLINT, 1);
    scan_sizes_check(env, PP_F32, PP_OP_SUM, PP_F64, TC_SMALLINT, 1);
}

/* Positive summands: partial sums grow, so a long sequential chain of roundings would exceed
 * the bound; and products that round. */
static void t_scan_float_rounding(void **state)
{
    tc_env *env = tc_envp(state);
    scan_sizes_check(env, PP_F32, PP_OP_SUM, PP_F32, TC_POSITIVE, 0);
    scan_sizes_check(env, PP_F64, PP_OP_SUM, PP_F64, TC_POSITIVE, 0);
    scan_sizes_check(env, PP_F32, PP_OP_SUM, PP_F64, TC_POSITIVE, 0);
    scan_sizes_check(env, PP_F32, PP_OP_PROD, PP_F32, TC_NEAR_ONE, 0);
    scan_sizes_check(env, PP_F64, PP_OP_PROD, PP_F64, TC_NEAR_ONE, 0);
}

/* Large magnitudes among small ones: runs of +-2^e (e up to 40 for f64, 20 for f32) that
 * cancel, tiny values between them, and a huge init. Every output within the bound. */
static void t_scan_float_adversarial(void **state)
{
    tc_env *env = tc_envp(state);
    const size_t n = ((size_t)1 << 20) + 3;
    for (int fi = 0; fi < 3; ++fi) {
        const pp_dtype in = fi == 1 ? PP_F64 : PP_F32, out = fi == 0 ? PP_F32 : PP_F64;
        const int emax = in == PP_F64 ? 40 : 20;
        char tag[64];
        snprintf(tag, sizeof tag, "adversarial %s->%s", tc_dname(in), tc_dname(out));
        tc_rng r = tc_rng_for(tag);
        void *host = tc_xmalloc(n * tc_size(in));
        long double pending = 0; /* the big value to cancel next */
        for (size_t i = 0; i < n; ++i) {
            long double v;
            const uint64_t pick = tc_below(&r, 16);
            if (pick == 0 && pending == 0) v = pending = ldexpl(1.0L + tc_unit(&r), (int)tc_below(&r, (uint64_t)emax + 1));
            else if (pick == 1 && pending != 0) v = -pending, pending = 0;
            else v = ldexpl(1.0L + tc_unit(&r), -(int)tc_below(&r, 20)) * ((tc_next(&r) & 1) ? -1 : 1);
            if (tc_below(&r, 4096) == 0) v = -v * 0x1p10L;
            tc_store_value(host, i, in, v);
        }
        _Alignas(8) unsigned char init[8];
        tc_store_value(init, 0, out, ldexpl(-1.5L, emax));
        const size_t sizes[] = {4097, 64 * 4096 + 1, n};
        for (int v = 0; v < 3; ++v) {
            const tc_scan s = {in, out, PP_OP_SUM, v > 0, v == 2 ? init : NULL, NULL, NULL, 0, 0};
            for (size_t k = 0; k < 3; ++k) run_check(env, &s, host, sizes[k], 0, tag);
        }
        free(host);
    }
}

/* Data on which every addition of a sequential chain rounds the same way: 1.0 at each
 * segment head, else 0.6 ulp(1). A chain of k adds is then off by about 0.4 k ulp(1), so a
 * chain longer than about D_scan(m) / 0.8 fails the bound; sums of the small values alone
 * are exact, so a tree order stays within a few ulp. */
static void t_scan_float_chain(void **state)
{
    tc_env *env = tc_envp(state);
    const size_t n = ((size_t)1 << 20) + 3;
    uint8_t *flags = (uint8_t *)tc_xmalloc(n);
    for (size_t i = 0; i < n; ++i) flags[i] = i % 100003 == 0;
    for (int fi = 0; fi < 3; ++fi) {
        const pp_dtype in = fi == 1 ? PP_F64 : PP_F32, out = fi == 0 ? PP_F32 : PP_F64;
        const long double small = 0.6L * (out == PP_F32 ? 0x1p-23L : 0x1p-52L);
        void *host = tc_xmalloc(n * tc_size(in));
        for (size_t i = 0; i < n; ++i) tc_store_value(host, i, in, flags[i] ? 1.0L : small);
        _Alignas(8) unsigned char init[8];
        tc_store_value(init, 0, out, 1.0L);
        const size_t sizes[] = {300, 4097, 64 * 4096 + 1, n};
        for (int form = 0; form < 2; ++form)
            for (int v = 0; v < 2; ++v) {
                const tc_scan s = {in, out, PP_OP_SUM, v, v ? init : NULL, form ? flags : NULL, NULL, 0, 0};
                for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
                    run_check(env, &s, host, sizes[k], 0, "1.0 then 0.6 ulp(1) each");
            }
        free(host);
    }
    free(flags);
}

/* Min / max with NaN (propagates from the first NaN on), infinities, signed zeros. */
static void t_scan_minmax_special(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t sizes[] = {1, 2, 33, 4097, 8193, 65537, 300007};
    for (int fi = 0; fi < 2; ++fi) {
        const pp_dtype t = fi ? PP_F64 : PP_F32;
        tc_rng r = tc_rng_for(fi ? "scan minmax special f64" : "scan minmax special f32");
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
            const size_t n = sizes[si];
            void *host = tc_xmalloc(n * tc_size(t));
            /* every kind of tc_fill_special: NaNs, infinities, signed zeros */
            for (int kind = 0; kind < TC_N_SPECIAL; ++kind) {
                tc_fill_special(&r, host, n, t, kind);
                char what[32];
                snprintf(what, sizeof what, "special kind %d", kind);
                _Alignas(8) unsigned char init[8];
                tc_store_value(init, 0, t, kind == 4 ? INFINITY : kind == 5 ? -0.0L : 0.25L);
                for (int m = 0; m < 2; ++m)
                    for (int v = 0; v < 3; ++v) {
                        const tc_scan s = {t, t, m ? PP_OP_MAX : PP_OP_MIN, v > 0, v == 2 ? init : NULL, NULL, NULL, 0, 0};
                        run_check(env, &s, host, n, 0, what);
                    }
            }
            free(host);
        }
    }
}

/* n == 0: nothing to do, with in and out NULL or not, every form and combo. */
static void t_scan_empty(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    void *some = tc_alloc(ctx, 256);
    TC_OK(ctx, pp_memset(ctx, some, TC_SENTINEL, 256));
    const size_t off[3] = {0, 0, 0};
    size_t *doff = (size_t *)tc_upload(ctx, off, sizeof off);
    tc_combo c[TC_MAX_COMBOS];
    const size_t nc = tc_all_combos(c);
    for (size_t k = 0; k < nc; ++k)
        for (int p = 0; p < 2; ++p) {
            void *buf = p ? some : NULL;
            tc_case("%s: %s %s->%s with n = 0, pointers %s", pp_backend_name(env->backend), tc_oname(c[k].op),
                    tc_dname(c[k].in), tc_dname(c[k].out), p ? "non-NULL" : "NULL");
            TC_OK(ctx, pp_inclusive_scan(ctx, buf, 0, c[k].in, c[k].op, buf, c[k].out));
            TC_OK(ctx, pp_exclusive_scan(ctx, buf, 0, c[k].in, c[k].op, NULL, buf, c[k].out));
            TC_OK(ctx, pp_segmented_scan_flags(ctx, buf, 0, c[k].in, (const uint8_t *)buf, c[k].op, PP_SCAN_EXCLUSIVE,
                                               NULL, buf, c[k].out));
            TC_OK(ctx, pp_segmented_scan_offsets(ctx, buf, 0, c[k].in, p ? doff : NULL, p ? 2 : 0, c[k].op,
                                                 PP_SCAN_INCLUSIVE, NULL, buf, c[k].out));
        }
    unsigned char back[256];
    tc_download(ctx, back, some, 256);
    for (int i = 0; i < 256; ++i) TC_CHECK(back[i] == TC_SENTINEL, "byte %d written by a scan of n = 0", i);
    tc_free(ctx, doff);
    tc_free(ctx, some);
}

/* out == in (same element size): every dtype with a few ops, each form. */
static void t_scan_in_place(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t sizes[] = {1, 33, 4097, 64 * 4096 + 1, ((size_t)1 << 20) + 3};
    const size_t nmax = sizes[sizeof sizes / sizeof sizes[0] - 1];
    uint8_t *flags = (uint8_t *)tc_xmalloc(nmax);
    tc_rng r = tc_rng_for("scan in place");
    for (size_t i = 0; i < nmax; ++i) flags[i] = tc_below(&r, 300) == 0;
    size_t off[5] = {3, 1000, 1000, 70001, ((size_t)1 << 20) - 5};
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        void *host = tc_xmalloc(nmax * tc_size(t));
        const pp_op ops[3] = {PP_OP_SUM, PP_OP_MAX, tc_is_float(t) ? PP_OP_PROD : PP_OP_XOR};
        for (int k = 0; k < 3; ++k) {
            const tc_dist d = tc_dist_for(ops[k], t);
            tc_fill(&r, host, nmax, t, d);
            _Alignas(8) unsigned char init[8];
            draw_init(&r, init, t, d);
            for (int form = 0; form < 3; ++form)
                for (int v = 0; v < 2; ++v) {
                    tc_scan s = {t, t, ops[k], v, v ? init : NULL, NULL, NULL, 0, tc_is_float(t) && d == TC_PRODSAFE};
                    if (form == 1) s.flags = flags;
                    if (form == 2) s.offsets = off, s.n_segments = 4;
                    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
                        run_check(env, &s, host, sizes[si], 1, "in place");
                }
        }
        free(host);
    }
    free(flags);
}

/* HIP: cap the scan's grid at `blocks` (PP_OPTION_SCAN_MAX_BLOCKS; 0 lifts the cap), then check
 * through the plan of a probe scan (f32, 64 tiles and more) that the capped grid ran: blocks
 * that loop over tiles. Where blocks scan one tile each (AMD: the device has no such loop and
 * the option is ignored), the test is skipped, visibly, instead of passing without it. */
static void cap_scan_grid(tc_env *env, int64_t blocks)
{
    pp_context *ctx = env->ctx;
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SCAN_MAX_BLOCKS, blocks));
    const size_t n = 64 * 5120;
    float *din = (float *)tc_alloc(ctx, n * sizeof(float));
    float *dout = (float *)tc_alloc(ctx, n * sizeof(float));
    TC_OK(ctx, pp_memset(ctx, din, 0, n * sizeof(float)));
    tc_case("%s: probe scan with at most %lld blocks", pp_backend_name(env->backend), (long long)blocks);
    TC_OK(ctx, pp_inclusive_scan(ctx, din, n, PP_F32, PP_OP_SUM, dout, PP_F32));
    pp_plan plan;
    TC_OK(ctx, pp_context_last_plan(ctx, &plan));
    tc_free(ctx, dout);
    tc_free(ctx, din);
    TC_CHECK(strcmp(plan.family, "scan") == 0 && plan.tiles > 1, "plan of the probe: family '%s', %llu tiles",
             plan.family, (unsigned long long)plan.tiles);
    if (plan.grid >= plan.tiles) {
        printf("[  SKIPPED ] blocks do not loop over tiles on this device (grid %llu for %llu tiles): "
               "no capped grid to test\n", (unsigned long long)plan.grid, (unsigned long long)plan.tiles);
        skip();
    }
    TC_CHECK(plan.grid <= (uint64_t)blocks, "plan: grid %llu, asked for at most %lld blocks",
             (unsigned long long)plan.grid, (long long)blocks);
}

/* NVIDIA: a grid of 3 blocks (PP_OPTION_SCAN_MAX_BLOCKS), so that every block scans tens of tiles one
 * after another, the next one's loads in flight, at sizes the sanitizers run through (the
 * default grid loops only past a few hundred tiles). Every dtype in place in each form, and a
 * widening sum (a wider output than input) over every size. */
static void t_scan_few_blocks(void **state)
{
    cap_scan_grid(tc_envp(state), 3);
    t_scan_in_place(state);
    scan_sizes_check(tc_envp(state), PP_U8, PP_OP_SUM, PP_U64, TC_RANDOM, 0);
}

/* The loop across tiles at sizes racecheck gets through: 2 blocks, each scanning a few tiles of
 * every tile class (1-, 4- and 8-byte, segmented), the last one partial; in place and not. */
static void t_scan_few_blocks_small(void **state)
{
    tc_env *env = tc_envp(state);
    cap_scan_grid(env, 2);
    const tc_combo combos[] = {{PP_F32, PP_F32, PP_OP_SUM}, {PP_F64, PP_F64, PP_OP_SUM}, {PP_U8, PP_U64, PP_OP_SUM},
                               {PP_I32, PP_I32, PP_OP_MAX}, {PP_U64, PP_U64, PP_OP_XOR}, {PP_F32, PP_F64, PP_OP_SUM}};
    static const size_t sizes[] = {6 * 4096 + 1, 6 * 5120 - 1};
    tc_rng r = tc_rng_for("scan few blocks small");
    uint8_t *flags = (uint8_t *)tc_xmalloc(6 * 5120);
    for (size_t i = 0; i < 6 * 5120; ++i) flags[i] = tc_below(&r, 3000) == 0;
    void *host = tc_xmalloc(6 * 5120 * 8);
    for (size_t c = 0; c < sizeof combos / sizeof combos[0]; ++c) {
        tc_fill(&r, host, 6 * 5120, combos[c].in, TC_RANDOM);
        const int same = tc_size(combos[c].in) == tc_size(combos[c].out);
        for (int form = 0; form < 2; ++form)
            for (int v = 0; v < 2; ++v) {
                tc_scan s = {combos[c].in, combos[c].out, combos[c].op, v, NULL, NULL, NULL, 0, 0};
                if (form == 1) s.flags = flags;
                for (size_t si = 0; si < 2; ++si) run_check(env, &s, host, sizes[si], same && si == 0, "few blocks small");
            }
    }
    free(host);
    free(flags);
}

/* Inputs and outputs that start off a 16-byte boundary. */
static void t_scan_misaligned(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    static const size_t sizes[] = {1, 3, 17, 4097, 8192 * 3 + 5};
    const tc_combo combos[] = {{PP_F32, PP_F32, PP_OP_SUM}, {PP_U8, PP_U8, PP_OP_SUM}, {PP_U8, PP_U32, PP_OP_SUM},
                                   {PP_I32, PP_I64, PP_OP_SUM}, {PP_F64, PP_F64, PP_OP_MAX}, {PP_U64, PP_U64, PP_OP_XOR}};
    for (size_t c = 0; c < sizeof combos / sizeof combos[0]; ++c) {
        const size_t isz = tc_size(combos[c].in), osz = tc_size(combos[c].out), nmax = 8192 * 3 + 5 + 16;
        char tag[64];
        snprintf(tag, sizeof tag, "scan misaligned %s %s->%s", tc_oname(combos[c].op), tc_dname(combos[c].in),
                 tc_dname(combos[c].out));
        tc_rng r = tc_rng_for(tag);
        unsigned char *host = (unsigned char *)tc_xmalloc(nmax * isz);
        tc_fill(&r, host, nmax, combos[c].in, TC_RANDOM);
        unsigned char *din = (unsigned char *)tc_upload(ctx, host, nmax * isz);
        unsigned char *dout = (unsigned char *)tc_alloc(ctx, nmax * osz);
        unsigned char *got = (unsigned char *)tc_xmalloc(nmax * osz);
        for (size_t io = 1; io < 4; io += 2)
            for (size_t oo = 0; oo < 3; ++oo)
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
                    for (int v = 0; v < 2; ++v) {
                        const size_t n = sizes[si];
                        const tc_scan s = {combos[c].in, combos[c].out, combos[c].op, v, NULL, NULL, NULL, 0, 0};
                        tc_case("%s: %s, n = %zu, in at element %zu, out at element %zu, %s", pp_backend_name(env->backend),
                                tag, n, io, oo, variant_name(&s));
                        TC_OK(ctx, pp_memset(ctx, dout, TC_SENTINEL, nmax * osz));
                        TC_OK(ctx, v ? pp_exclusive_scan(ctx, din + io * isz, n, s.in, s.op, NULL, dout + oo * osz, s.out)
                                     : pp_inclusive_scan(ctx, din + io * isz, n, s.in, s.op, dout + oo * osz, s.out));
                        tc_download(ctx, got, dout, nmax * osz);
                        for (size_t b = 0; b < oo * osz; ++b) TC_CHECK(got[b] == TC_SENTINEL, "byte %zu before out written", b);
                        for (size_t b = (oo + n) * osz; b < nmax * osz; ++b)
                            TC_CHECK(got[b] == TC_SENTINEL, "byte %zu past out written", b);
                        tc_scan_check(&s, host + io * isz, n, NULL, got + oo * osz, NULL, 1.0);
                    }
        free(got);
        free(host);
        tc_free(ctx, dout);
        tc_free(ctx, din);
    }
}

/* The same call gives the same bits every time (float sums and products, plain and segmented):
 * the largest size five times (on the GPU the tiles' look-backs meet their predecessors at
 * different points from run to run). */
static void t_scan_determinism(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t sizes[] = {8193, ((size_t)1 << 20) + 3, 3 * ((size_t)1 << 20) + 7};
    const size_t nmax = sizes[2];
    const struct { pp_dtype in, out; pp_op op; tc_dist d; } cases[] = {
        {PP_F32, PP_F32, PP_OP_SUM, TC_RANDOM}, {PP_F64, PP_F64, PP_OP_SUM, TC_RANDOM},
        {PP_F32, PP_F64, PP_OP_SUM, TC_RANDOM}, {PP_F32, PP_F32, PP_OP_PROD, TC_NEAR_ONE},
        {PP_F64, PP_F64, PP_OP_PROD, TC_NEAR_ONE}};
    tc_rng r = tc_rng_for("scan determinism");
    uint8_t *flags = (uint8_t *)tc_xmalloc(nmax);
    for (size_t i = 0; i < nmax; ++i) flags[i] = tc_below(&r, 50000) == 0;
    const size_t off[4] = {0, 5, 1500000, nmax};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const size_t osz = tc_size(cases[c].out);
        void *host = tc_xmalloc(nmax * tc_size(cases[c].in));
        tc_fill(&r, host, nmax, cases[c].in, cases[c].d);
        unsigned char *a = (unsigned char *)tc_xmalloc(nmax * osz), *b = (unsigned char *)tc_xmalloc(nmax * osz);
        for (int form = 0; form < 3; ++form)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
                const size_t n = sizes[si];
                tc_scan s = {cases[c].in, cases[c].out, cases[c].op, form == 2, NULL, NULL, NULL, 0, 0};
                if (form == 1) s.flags = flags;
                if (form == 2) s.offsets = off, s.n_segments = 3;
                tc_case("%s: %s scan %s %s->%s n = %zu, repeated", pp_backend_name(env->backend), form_name(&s),
                        tc_oname(s.op), tc_dname(s.in), tc_dname(s.out), n);
                TC_OK(env->ctx, tc_scan_run(env, &s, host, n, 0, a));
                for (int rep = 0; rep < (si == 2 ? 4 : 1); ++rep) {
                    TC_OK(env->ctx, tc_scan_run(env, &s, host, n, 0, b));
                    for (size_t i = 0; i < n; ++i)
                        if (memcmp(a + i * osz, b + i * osz, osz) != 0)
                            TC_FAIL("out[%zu]: bits 0x%llx, then 0x%llx (repeat %d)", i,
                                    (unsigned long long)tc_bits(a, i, s.out), (unsigned long long)tc_bits(b, i, s.out),
                                    rep + 1);
                }
                tc_scan_check(&s, host, n, NULL, a, NULL, 1.0);
            }
        free(a);
        free(b);
        free(host);
    }
    free(flags);
}

/* GPU: the bits do not depend on how tiles meet blocks or on the input's alignment either:
 * the same scan with the default grid, with a grid of 3 or 5 blocks (each block then scans
 * hundreds of tiles, most loaded ahead of their turn), and from an input one element off a
 * 16-byte boundary (tiles copied element by element), bitwise equal; the first one checked
 * against the oracle. */
static void t_scan_determinism_grid(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const size_t n = 3 * ((size_t)1 << 20) + 7;
    const struct { pp_dtype in, out; pp_op op; tc_dist d; } cases[] = {
        {PP_F32, PP_F32, PP_OP_SUM, TC_RANDOM}, {PP_F64, PP_F64, PP_OP_SUM, TC_RANDOM},
        {PP_F32, PP_F64, PP_OP_SUM, TC_RANDOM}, {PP_F64, PP_F64, PP_OP_PROD, TC_NEAR_ONE},
        {PP_F32, PP_F32, PP_OP_MAX, TC_RANDOM}};
    static const int64_t grids[] = {0, 3, 0, 5}; /* runs 2 and 3: input misaligned */
    cap_scan_grid(env, 3);
    tc_rng r = tc_rng_for("scan determinism grid");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const size_t isz = tc_size(cases[c].in), osz = tc_size(cases[c].out);
        unsigned char *host = (unsigned char *)tc_xmalloc(n * isz);
        tc_fill(&r, host, n, cases[c].in, cases[c].d);
        unsigned char *dal = (unsigned char *)tc_upload(ctx, host, n * isz);
        unsigned char *dmis = (unsigned char *)tc_alloc(ctx, (n + 1) * isz);
        TC_OK(ctx, pp_memcpy(ctx, dmis + isz, host, n * isz, PP_COPY_HOST_TO_CONTEXT));
        unsigned char *dout = (unsigned char *)tc_alloc(ctx, n * osz);
        unsigned char *a = (unsigned char *)tc_xmalloc(n * osz), *b = (unsigned char *)tc_xmalloc(n * osz);
        for (int v = 0; v < 2; ++v) {
            const tc_scan s = {cases[c].in, cases[c].out, cases[c].op, v, NULL, NULL, NULL, 0, 0};
            for (int run = 0; run < 4; ++run) {
                tc_case("%s: %s %s->%s n = %zu, %s, at most %lld blocks (0: as many as fit), input %s",
                        pp_backend_name(env->backend), tc_oname(s.op), tc_dname(s.in), tc_dname(s.out), n,
                        variant_name(&s), (long long)grids[run], run >= 2 ? "misaligned" : "aligned");
                TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SCAN_MAX_BLOCKS, grids[run]));
                const void *din = run >= 2 ? (const void *)(dmis + isz) : (const void *)dal;
                const pp_status st = v ? pp_exclusive_scan(ctx, din, n, s.in, s.op, NULL, dout, s.out)
                                       : pp_inclusive_scan(ctx, din, n, s.in, s.op, dout, s.out);
                TC_OK(ctx, st);
                pp_plan plan;
                TC_OK(ctx, pp_context_last_plan(ctx, &plan));
                if (grids[run])
                    TC_CHECK(plan.grid <= (uint64_t)grids[run], "plan: grid %llu, asked for at most %lld blocks",
                             (unsigned long long)plan.grid, (long long)grids[run]);
                tc_download(ctx, run == 0 ? a : b, dout, n * osz);
                if (run == 0) {
                    tc_scan_check(&s, host, n, NULL, a, NULL, 1.0);
                    continue;
                }
                for (size_t i = 0; i < n; ++i)
                    if (memcmp(a + i * osz, b + i * osz, osz) != 0)
                        TC_FAIL("out[%zu]: bits 0x%llx with the default grid, 0x%llx here", i,
                                (unsigned long long)tc_bits(a, i, s.out), (unsigned long long)tc_bits(b, i, s.out));
            }
        }
        free(a);
        free(b);
        tc_free(ctx, dout);
        tc_free(ctx, dmis);
        tc_free(ctx, dal);
        free(host);
    }
}

/* CPU: the bits do not depend on the OpenMP thread count (plain, flags, offsets). A context
 * is created after each omp_set_num_threads, in case the backend reads the count there. */
static void t_cpu_thread_count(void **state)
{
    (void)tc_envp(state);
    static const int threads[] = {1, 2, 3, 4, 7};
    const size_t n = 5 * ((size_t)1 << 20) + 1;
    const tc_combo cases[] = {{PP_F32, PP_F32, PP_OP_SUM}, {PP_F64, PP_F64, PP_OP_SUM},
                                  {PP_F32, PP_F64, PP_OP_SUM}, {PP_F32, PP_F32, PP_OP_PROD}};
    tc_rng r = tc_rng_for("scan threads");
    uint8_t *flags = (uint8_t *)tc_xmalloc(n);
    for (size_t i = 0; i < n; ++i) flags[i] = tc_below(&r, 100000) == 0;
    const size_t off[6] = {0, 3, 70000, 70001, 3000000, n};
    const int saved = omp_get_max_threads();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const size_t osz = tc_size(cases[c].out);
        void *host = tc_xmalloc(n * tc_size(cases[c].in));
        tc_fill(&r, host, n, cases[c].in, cases[c].op == PP_OP_PROD ? TC_NEAR_ONE : TC_RANDOM);
        unsigned char *ref = (unsigned char *)tc_xmalloc(n * osz), *got = (unsigned char *)tc_xmalloc(n * osz);
        for (int form = 0; form < 3; ++form)
            for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ++ti) {
                omp_set_num_threads(threads[ti]);
                tc_env e = {PP_BACKEND_CPU, NULL, NULL};
                TC_CHECK(pp_context_create(&e.ctx, PP_BACKEND_CPU, 0) == PP_OK, "%s", pp_last_create_error());
                tc_scan s = {cases[c].in, cases[c].out, cases[c].op, form == 1, NULL, NULL, NULL, 0, 0};
                if (form == 1) s.flags = flags;
                if (form == 2) s.offsets = off, s.n_segments = 5;
                tc_case("cpu: %s scan %s %s->%s n = %zu with %d OpenMP threads", form_name(&s), tc_oname(s.op),
                        tc_dname(s.in), tc_dname(s.out), n, threads[ti]);
                pp_status st = tc_scan_run(&e, &s, host, n, 0, ti ? got : ref);
                pp_context_destroy(e.ctx);
                omp_set_num_threads(saved);
                TC_CHECK(st == PP_OK, "status %s: %s", pp_status_string(st), tc_call_message());
                if (ti == 0) tc_scan_check(&s, host, n, NULL, ref, NULL, 1.0);
                else if (memcmp(got, ref, n * osz) != 0)
                    for (size_t i = 0; i < n; ++i)
                        TC_CHECK(memcmp(got + i * osz, ref + i * osz, osz) == 0, "out[%zu]: bits 0x%llx, 0x%llx with 1 thread",
                                 i, (unsigned long long)tc_bits(got, i, s.out), (unsigned long long)tc_bits(ref, i, s.out));
            }
        free(ref);
        free(got);
        free(host);
    }
    free(flags);
}

/* ---- segmented by head flags ---- */

/* One segment layout, head flags or offsets (the other NULL), for the given combos, inclusive
 * and exclusive with an init. */
static void seg_layout(tc_env *env, const tc_combo *combos, size_t nc, const uint8_t *flags, const size_t *off,
                       size_t nseg, size_t n, const char *layout)
{
    for (size_t k = 0; k < nc; ++k) {
        char tag[160];
        snprintf(tag, sizeof tag, "%s %s %s %s->%s", flags ? "flags" : "offsets", layout, tc_oname(combos[k].op),
                 tc_dname(combos[k].in), tc_dname(combos[k].out));
        tc_rng r = tc_rng_for(tag);
        const tc_dist d = tc_dist_for(combos[k].op, combos[k].in);
        void *host = tc_xmalloc(n * tc_size(combos[k].in) + 1);
        tc_fill(&r, host, n, combos[k].in, d);
        _Alignas(8) unsigned char init[8];
        draw_init(&r, init, combos[k].out, d);
        const int exact = tc_is_float(combos[k].in) && d == TC_PRODSAFE;
        for (int v = 0; v < 2; ++v) {
            const tc_scan s = {combos[k].in, combos[k].out, combos[k].op, v, v ? init : NULL, flags, off, nseg, exact};
            run_check(env, &s, host, n, 0, layout);
        }
        free(host);
    }
}

/* Flags with a head where chance(r) says; the nonzero value is `value` (any nonzero byte is a head). */
static uint8_t *make_flags(tc_rng *r, size_t n, uint64_t one_in, uint8_t value, int head_at_0)
{
    uint8_t *f = (uint8_t *)tc_xmalloc(n + 1);
    for (size_t i = 0; i < n; ++i) f[i] = tc_below(r, one_in) == 0 ? value : 0;
    if (n) f[0] = head_at_0 ? value : 0;
    return f;
}

static void t_seg_flags(void **state)
{
    tc_env *env = tc_envp(state);
    tc_combo all[TC_MAX_COMBOS];
    const size_t nall = tc_all_combos(all);
    tc_rng r = tc_rng_for("scan flags layouts");
    /* Heads drawn one in `one_in` (value `value`, at element 0 or not), in this order. */
    const struct {
        size_t n;
        uint64_t one_in;
        uint8_t value;
        int head_at_0, every_combo;
        const char *layout;
    } random_layouts[] = {
        /* Random lengths (mean 20), every combo. */
        {100003, 20, 1, 1, 1, "random lengths, mean 20"},
        /* Every element a head: segments of length 1. */
        {10007, 1, 1, 1, 1, "all flags set"},
        /* No head at element 0 (it is one all the same), heads of value 7 and 0x80. */
        {65537, 300, 7, 0, 0, "no flag at 0, flags of value 7"},
        {65537, 3000, 0x80, 1, 0, "flags of value 0x80"},
        /* No flags at all: one segment, long enough for every thread. */
        {((size_t)1 << 20) + 3, UINT64_MAX, 1, 0, 0, "no flags"},
    };
    for (size_t k = 0; k < sizeof random_layouts / sizeof random_layouts[0]; ++k) {
        const size_t n = random_layouts[k].n;
        uint8_t *f = make_flags(&r, n, random_layouts[k].one_in, random_layouts[k].value, random_layouts[k].head_at_0);
        if (random_layouts[k].every_combo) seg_layout(env, all, nall, f, NULL, 0, n, random_layouts[k].layout);
        else seg_layout(env, some_combos, N_SOME, f, NULL, 0, n, random_layouts[k].layout);
        free(f);
    }
    /* Segments longer than any tile (10000 and up), a few short ones, heads next to tile and
     * block edges. */
    const size_t n = 3 * ((size_t)1 << 20) + 11;
    uint8_t *f = make_flags(&r, n, UINT64_MAX, 1, 1);
    static const size_t heads[] = {1, 2, 4095, 4096, 4097, 10000, 20000, 20001, 65536, 65537, 262143,
                                   1000000, 1048576, 2500000, 3 * ((size_t)1 << 20) + 10};
    for (size_t k = 0; k < sizeof heads / sizeof heads[0]; ++k) f[heads[k]] = 1;
    seg_layout(env, some_combos, N_SOME, f, NULL, 0, n, "long segments");
    free(f);
}

/* ---- segmented by offsets ---- */

/* Consecutive offsets from `first`, segment lengths below `bound` (0 allowed: empty segments). */
static size_t *make_offsets(tc_rng *r, size_t nseg, size_t first, uint64_t bound)
{
    size_t *off = (size_t *)tc_xmalloc((nseg + 1) * sizeof *off);
    off[0] = first;
    for (size_t s = 0; s < nseg; ++s) off[s + 1] = off[s] + tc_below(r, bound);
    return off;
}

static void t_seg_offsets(void **state)
{
    tc_env *env = tc_envp(state);
    tc_combo all[TC_MAX_COMBOS];
    const size_t nall = tc_all_combos(all);
    tc_rng r = tc_rng_for("scan offsets layouts");
    /* Many short segments (lengths 0..5, so many empty ones), every combo. */
    size_t *off = make_offsets(&r, 20011, 0, 6);
    seg_layout(env, all, nall, NULL, off, 20011, off[20011], "lengths 0..5");
    free(off);
    /* Uncovered elements before the first and after the last offset stay untouched; repeated
     * offsets; segments across tiles. */
    off = make_offsets(&r, 300, 77, 700);
    seg_layout(env, all, nall, NULL, off, 300, off[300] + 1234, "first offset 77, last < n");
    free(off);
    /* Offsets past n (clamped), one of them SIZE_MAX. */
    const size_t past[8] = {0, 10, 4096, 5000, 5000, 6000, 100000, SIZE_MAX};
    seg_layout(env, some_combos, N_SOME, NULL, past, 7, 5500, "offsets past n");
    /* Long segments (the CPU scans those with all threads) among short ones, gaps between. */
    const size_t lng[8] = {5, 1500000, 1500001, 1500003, 2700000, 2700000, 2700100, 3 * ((size_t)1 << 20)};
    seg_layout(env, some_combos, N_SOME, NULL, lng, 7, 3 * ((size_t)1 << 20) + 9, "long segments");
    /* Short segments of mean 60 with a few long ones (many threads over many segments). */
    off = (size_t *)tc_xmalloc(30001 * sizeof *off);
    off[0] = 0;
    for (size_t s = 0; s < 30000; ++s)
        off[s + 1] = off[s] + (tc_below(&r, 2000) == 0 ? 70001 + tc_below(&r, 30000) : tc_below(&r, 121));
    seg_layout(env, some_combos, N_SOME, NULL, off, 30000, off[30000], "mean 60 with long ones");
    free(off);
}

/* n_segments == 0 writes nothing (also with NULL offsets). */
static void t_seg_zero_segments(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const int32_t data[4] = {1, 2, 3, 4};
    const size_t off[1] = {0};
    int32_t *din = (int32_t *)tc_upload(ctx, data, sizeof data);
    size_t *doff = (size_t *)tc_upload(ctx, off, sizeof off);
    int32_t *dout = (int32_t *)tc_alloc(ctx, 64);
    TC_OK(ctx, pp_memset(ctx, dout, TC_SENTINEL, 64));
    tc_case("%s: segmented scan with n_segments == 0", pp_backend_name(env->backend));
    TC_OK(ctx, pp_segmented_scan_offsets(ctx, din, 4, PP_I32, doff, 0, PP_OP_SUM, PP_SCAN_INCLUSIVE, NULL, dout, PP_I32));
    TC_OK(ctx, pp_segmented_scan_offsets(ctx, din, 4, PP_I32, NULL, 0, PP_OP_SUM, PP_SCAN_EXCLUSIVE, NULL, dout, PP_I32));
    TC_OK(ctx, pp_segmented_scan_offsets(ctx, din, 4, PP_U8, doff, 0, PP_OP_SUM, PP_SCAN_EXCLUSIVE, NULL, dout, PP_U64));
    unsigned char back[64];
    tc_download(ctx, back, dout, 64);
    for (int i = 0; i < 64; ++i) TC_CHECK(back[i] == TC_SENTINEL, "byte %d of out was written", i);
    tc_free(ctx, dout);
    tc_free(ctx, doff);
    tc_free(ctx, din);
}

int main(void)
{
    tc_init("test_scan");
    const struct CMUnitTest tests[] = {
        TC_BOTH(t_scan_u8),           TC_BOTH(t_scan_i32),
        TC_BOTH(t_scan_u32),          TC_BOTH(t_scan_i64),
        TC_BOTH(t_scan_u64),          TC_BOTH(t_scan_f32),
        TC_BOTH(t_scan_f64),          TC_BOTH(t_scan_widening),
        TC_BOTH(t_scan_float_exact),  TC_BOTH(t_scan_float_rounding),
        TC_BOTH(t_scan_float_adversarial), TC_BOTH(t_scan_float_chain),
        TC_BOTH(t_scan_minmax_special),
        TC_BOTH(t_scan_empty),        TC_BOTH(t_scan_in_place),
        TC_BOTH(t_scan_misaligned),   TC_BOTH(t_scan_determinism),
        TC_CPU(t_cpu_thread_count),   TC_BOTH(t_seg_flags),
        TC_BOTH(t_seg_offsets),       TC_BOTH(t_seg_zero_segments),
        TC_HIP(t_scan_few_blocks),    TC_HIP(t_scan_few_blocks_small),
        TC_HIP(t_scan_determinism_grid),
    };
    return TC_RUN("scan", tests);
}
