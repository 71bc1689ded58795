/*
 * test_parity.c -- the HIP backend against the CPU backend on the same random inputs:
 * integer results, min/max, argmin/argmax and segmented integer results bitwise equal;
 * float sums within twice the header's bound of each other; scans (plain, head flags,
 * offsets) likewise, output by output. Skips (cmocka skip) where no
 * HIP device is present. Also: PP_BACKEND_AUTO creates a context and reports its backend.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"


/* Both backends' contexts: the test's HIP one and a CPU one. */
struct pair {
    tc_env *gpu;
    tc_env cpu;
};

static struct pair open_pair(void **state)
{
    struct pair p;
    p.gpu = tc_envp(state); /* skips without a device */
    p.cpu.backend = PP_BACKEND_CPU;
    TC_CHECK(pp_context_create(&p.cpu.ctx, PP_BACKEND_CPU, 0) == PP_OK, "%s", pp_last_create_error());
    p.cpu.res = tc_alloc(p.cpu.ctx, 64);
    return p;
}

static void close_pair(struct pair *p)
{
    tc_free(p->cpu.ctx, p->cpu.res);
    pp_context_destroy(p->cpu.ctx);
}

/* Compare two results of (in -> out, op) over x[0, n). */
static void compare(const void *gpu, const void *cpu, const void *x, size_t n, pp_dtype in, pp_op op, pp_dtype out)
{
    const uint64_t gb = tc_bits(gpu, 0, out), cb = tc_bits(cpu, 0, out);
    if (tc_is_float(out) && (op == PP_OP_SUM || op == PP_OP_PROD)) {
        const long double g = tc_value(gpu, 0, out), c = tc_value(cpu, 0, out);
        long double bound;
        if (op == PP_OP_SUM) {
            long double abssum = 0;
            for (size_t i = 0; i < n; ++i) abssum += fabsl(tc_value(x, i, in));
            bound = 2 * tc_sum_gamma(n, out) * abssum;
        } else {
            const long double nu = (long double)(n ? n - 1 : 0) * (out == PP_F32 ? 0x1p-24L : 0x1p-53L);
            if (nu >= 0.25L) return;
            bound = 2 * nu / (1 - nu) * fabsl(c) * 1.0001L;
        }
        TC_CHECK(fabsl(g - c) <= bound, "hip %.21Lg vs cpu %.21Lg: |difference| %.3Lg > %.3Lg (2x the bound)", g, c,
                 fabsl(g - c), bound);
        return;
    }
    if (tc_is_float(out) && isnan((double)tc_value(cpu, 0, out))) {
        TC_CHECK(isnan((double)tc_value(gpu, 0, out)), "cpu gives a NaN, hip bits 0x%llx", (unsigned long long)gb);
        return;
    }
    if (tc_is_float(out) && tc_value(cpu, 0, out) == 0 && tc_value(gpu, 0, out) == 0) return; /* +-0: unspecified */
    TC_CHECK(gb == cb, "hip bits 0x%llx, cpu bits 0x%llx", (unsigned long long)gb, (unsigned long long)cb);
}


/* Random sizes: small ones, tile-sized ones and a few millions. */
static size_t random_size(tc_rng *r, int k)
{
    switch (k % 4) {
    case 0: return tc_below(r, 300);
    case 1: return tc_below(r, 70000);
    case 2: return 8192 * (1 + tc_below(r, 64)) + tc_below(r, 3) - 1;
    default: return tc_below(r, 3u << 20);
    }
}

static void run_pair(struct pair *p, pp_dtype in, pp_op op, pp_dtype out, tc_dist dist, size_t n, tc_rng *r,
                     int with_nan)
{
    const size_t es = tc_size(in);
    void *host = tc_xmalloc(n * es + 1);
    tc_fill(r, host, n, in, dist);
    if (with_nan && n > 0 && tc_is_float(in)) tc_store_value(host, tc_below(r, n), in, NAN);
    void *dg = tc_upload(p->gpu->ctx, host, n * es);
    void *dc = tc_upload(p->cpu.ctx, host, n * es);
    for (int s = 0; s < 2; ++s) {
        const pp_result_space sp = s ? PP_RESULT_CONTEXT : PP_RESULT_HOST;
        tc_case("parity: %s %s->%s n = %zu%s, space %d", tc_oname(op), tc_dname(in), tc_dname(out), n,
                with_nan ? " with a NaN" : "", (int)sp);
        _Alignas(16) unsigned char g[16], c[16];
        TC_OK(p->gpu->ctx, tc_reduce(p->gpu, dg, n, in, op, out, sp, g));
        TC_OK(p->cpu.ctx, tc_reduce(&p->cpu, dc, n, in, op, out, sp, c));
        compare(g, c, host, n, in, op, out);
    }
    tc_free(p->gpu->ctx, dg);
    tc_free(p->cpu.ctx, dc);
    free(host);
}

static void t_parity_reduce(void **state)
{
    struct pair p = open_pair(state);
    tc_rng r = tc_rng_for("parity reduce");
    for (int ti = 0; ti < 7; ++ti)
        for (int oi = 0; oi < 7; ++oi) {
            const pp_dtype t = tc_dtypes[ti];
            const pp_op op = tc_ops[oi];
            if (!tc_op_defined(op, t)) continue;
            for (int k = 0; k < 4; ++k) {
                const tc_dist d = (op == PP_OP_MIN || op == PP_OP_MAX) && k == 1 ? TC_FEW : tc_dist_for(op, t);
                run_pair(&p, t, op, t, d, random_size(&r, k), &r, 0);
            }
            if (tc_is_float(t) && (op == PP_OP_MIN || op == PP_OP_MAX)) {
                run_pair(&p, t, op, t, TC_RANDOM, random_size(&r, 1), &r, 1);
                run_pair(&p, t, op, t, TC_RANDOM, random_size(&r, 3), &r, 1);
            }
            if (tc_is_float(t) && op == PP_OP_PROD) run_pair(&p, t, op, t, TC_NEAR_ONE, random_size(&r, 3), &r, 0);
        }
    for (size_t w = 0; w < TC_N_WIDENINGS; ++w)
        for (int k = 0; k < 4; ++k) run_pair(&p, tc_widenings[w][0], PP_OP_SUM, tc_widenings[w][1], TC_RANDOM, random_size(&r, k), &r, 0);
    close_pair(&p);
}

static void t_parity_arg(void **state)
{
    struct pair p = open_pair(state);
    tc_rng r = tc_rng_for("parity arg");
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        const size_t es = tc_size(t);
        for (int k = 0; k < 8; ++k) {
            const size_t n = random_size(&r, k);
            void *host = tc_xmalloc(n * es + 1);
            tc_fill(&r, host, n, t, k & 1 ? TC_FEW : TC_RANDOM);
            if (tc_is_float(t) && k >= 6 && n > 0) {
                tc_store_value(host, tc_below(&r, n), t, NAN);
                tc_store_value(host, tc_below(&r, n), t, NAN);
            }
            void *dg = tc_upload(p.gpu->ctx, host, n * es);
            void *dc = tc_upload(p.cpu.ctx, host, n * es);
            for (int m = 0; m < 2; ++m)
                for (int s = 0; s < 2; ++s) {
                    const pp_op op = m ? PP_OP_MAX : PP_OP_MIN;
                    const pp_result_space sp = s ? PP_RESULT_CONTEXT : PP_RESULT_HOST;
                    tc_case("parity: arg%s %s n = %zu, space %d", m ? "max" : "min", tc_dname(t), n, (int)sp);
                    _Alignas(16) unsigned char gv[16], cv[16];
                    uint64_t gi, ci;
                    TC_OK(p.gpu->ctx, tc_argreduce(p.gpu, dg, n, t, op, sp, gv, &gi));
                    TC_OK(p.cpu.ctx, tc_argreduce(&p.cpu, dc, n, t, op, sp, cv, &ci));
                    TC_CHECK(gi == ci, "hip index %llu, cpu index %llu", (unsigned long long)gi, (unsigned long long)ci);
                    const int nan = tc_is_float(t) && isnan((double)tc_value(cv, 0, t));
                    if (nan) TC_CHECK(isnan((double)tc_value(gv, 0, t)), "cpu value NaN, hip not");
                    else TC_CHECK(tc_bits(gv, 0, t) == tc_bits(cv, 0, t), "hip value bits 0x%llx, cpu 0x%llx",
                                  (unsigned long long)tc_bits(gv, 0, t), (unsigned long long)tc_bits(cv, 0, t));
                }
            tc_free(p.gpu->ctx, dg);
            tc_free(p.cpu.ctx, dc);
            free(host);
        }
    }
    close_pair(&p);
}

/* Segment offsets (malloc'd, nseg + 1 of them, from `first`): lengths of mean `mean` with
 * one in 500 long (70001 .. 100000), or for mean 0 only long ones (30000 .. 180000). */
static size_t *segment_layout(tc_rng *r, size_t mean, size_t first, size_t *nseg_out)
{
    const size_t nseg = mean == 0 ? 7 : mean < 100 ? 5000 : 1000;
    size_t *off = (size_t *)tc_xmalloc((nseg + 1) * sizeof *off);
    off[0] = first;
    for (size_t s = 0; s < nseg; ++s) {
        size_t len;
        if (mean == 0) len = 30000 + tc_below(r, 150000);
        else if (tc_below(r, 500) == 0) len = 70001 + tc_below(r, 30000);
        else len = tc_below(r, 2 * mean + 1);
        off[s + 1] = off[s] + len;
    }
    *nseg_out = nseg;
    return off;
}

static void t_parity_segmented(void **state)
{
    struct pair p = open_pair(state);
    tc_rng r = tc_rng_for("parity segmented");
    tc_combo combos[TC_MAX_COMBOS];
    const size_t nc = tc_all_combos(combos);
    /* Layouts: mean length 3, 60, 400 with a few long segments among them, and one of only
     * long segments. */
    static const size_t means[] = {3, 60, 400, 0};
    for (int l = 0; l < 4; ++l) {
        size_t nseg;
        size_t *off = segment_layout(&r, means[l], 0, &nseg);
        const size_t n = off[nseg];
        for (size_t k = 0; k < nc; ++k) {
            const pp_dtype in = combos[k].in, out = combos[k].out;
            const pp_op op = combos[k].op;
            const size_t es = tc_size(in), os = tc_size(out);
            void *host = tc_xmalloc(n * es + 1);
            tc_fill(&r, host, n, in, tc_dist_for(op, in));
            void *dg = tc_upload(p.gpu->ctx, host, n * es);
            void *dc = tc_upload(p.cpu.ctx, host, n * es);
            unsigned char *g = (unsigned char *)tc_xmalloc(nseg * os), *c = (unsigned char *)tc_xmalloc(nseg * os);
            tc_case("parity: segmented %s %s->%s, %zu segments of mean %zu", tc_oname(op), tc_dname(in),
                    tc_dname(out), nseg, means[l]);
            tc_segreduce(p.gpu, dg, n, in, off, nseg, op, g, out);
            tc_segreduce(&p.cpu, dc, n, in, off, nseg, op, c, out);
            for (size_t s = 0; s < nseg; ++s) {
                tc_case("parity: segmented %s %s->%s, %zu segments of mean %zu: segment %zu [%zu, %zu)", tc_oname(op),
                        tc_dname(in), tc_dname(out), nseg, means[l], s, off[s], off[s + 1]);
                _Alignas(16) unsigned char gs[16], cs[16];
                memcpy(gs, g + s * os, os);
                memcpy(cs, c + s * os, os);
                compare(gs, cs, (const unsigned char *)host + off[s] * es, off[s + 1] - off[s], in, op, out);
            }
            free(g);
            free(c);
            tc_free(p.gpu->ctx, dg);
            tc_free(p.cpu.ctx, dc);
            free(host);
        }
        free(off);
    }
    close_pair(&p);
}

/* ---- scans ---- */

/* Scan s over host[0, n) on both backends; HIP's outputs against the CPU's: integers, min and
 * max bitwise, float sums and products within twice the header's bound. */
static void scan_pair(struct pair *p, const tc_scan *s, const void *host, size_t n, const char *what)
{
    const size_t osz = tc_size(s->out);
    unsigned char *g = (unsigned char *)tc_xmalloc(n * osz + 1), *c = (unsigned char *)tc_xmalloc(n * osz + 1);
    tc_case("parity: %s scan %s %s->%s n = %zu (%s%s): %s", s->offsets ? "offsets" : s->flags ? "flags" : "plain",
            tc_oname(s->op), tc_dname(s->in), tc_dname(s->out), n, s->exclusive ? "exclusive" : "inclusive",
            s->init ? " with init" : "", what);
    TC_OK(p->gpu->ctx, tc_scan_run(p->gpu, s, host, n, 0, g));
    TC_OK(p->cpu.ctx, tc_scan_run(&p->cpu, s, host, n, 0, c));
    tc_scan_check(s, host, n, NULL, g, c, 2.0);
    free(g);
    free(c);
}


/* One combo over host data of distribution d, plain or with the given flags / offsets:
 * inclusive (variants bit 0) and exclusive with a drawn init (bit 1). */
static void scan_pair_combo(struct pair *p, const tc_combo *c, tc_rng *r, size_t n, tc_dist d, int with_nan,
                            const uint8_t *flags, const size_t *off, size_t nseg, int variants, const char *what)
{
    void *host = tc_xmalloc(n * tc_size(c->in) + 1);
    tc_fill(r, host, n, c->in, d);
    if (with_nan && n > 0) tc_store_value(host, tc_below(r, n), c->in, NAN);
    _Alignas(8) unsigned char init[8] = {0};
    tc_fill(r, init, 1, c->out, tc_is_float(c->out) ? d : TC_RANDOM);
    for (int v = 0; v < 2; ++v) {
        if (!(variants >> v & 1)) continue;
        const tc_scan s = {c->in, c->out, c->op, v, v ? init : NULL, flags, off, nseg, 0};
        scan_pair(p, &s, host, n, what);
    }
    free(host);
}

static void t_parity_scan(void **state)
{
    struct pair p = open_pair(state);
    tc_rng r = tc_rng_for("parity scan");
    tc_combo c[TC_MAX_COMBOS];
    const size_t nc = tc_all_combos(c);
    for (size_t k = 0; k < nc; ++k) {
        const int minmax = c[k].op == PP_OP_MIN || c[k].op == PP_OP_MAX;
        for (int j = 0; j < 4; ++j) {
            const tc_dist d = minmax && j == 1 ? TC_FEW : tc_dist_for(c[k].op, c[k].in);
            scan_pair_combo(&p, &c[k], &r, random_size(&r, j), d, 0, NULL, NULL, 0, 3, "random");
        }
        if (tc_is_float(c[k].in) && minmax) scan_pair_combo(&p, &c[k], &r, random_size(&r, 3), TC_RANDOM, 1, NULL, NULL, 0, 3, "a NaN");
        if (tc_is_float(c[k].in) && c[k].op == PP_OP_PROD)
            scan_pair_combo(&p, &c[k], &r, random_size(&r, 3), TC_NEAR_ONE, 0, NULL, NULL, 0, 3, "near one");
        if (tc_is_float(c[k].in) && c[k].op == PP_OP_SUM)
            scan_pair_combo(&p, &c[k], &r, random_size(&r, 3), TC_POSITIVE, 0, NULL, NULL, 0, 3, "positive");
    }
    close_pair(&p);
}

static void t_parity_scan_segmented(void **state)
{
    struct pair p = open_pair(state);
    tc_rng r = tc_rng_for("parity scan segmented");
    tc_combo c[TC_MAX_COMBOS];
    const size_t nc = tc_all_combos(c);
    /* Segments of mean length 3, 60, 400 with a few long ones among them, and only long ones:
     * as head flags and as offsets (with elements before the first and after the last). */
    static const size_t means[] = {3, 60, 400, 0};
    for (int l = 0; l < 4; ++l) {
        size_t nseg;
        size_t *off = segment_layout(&r, means[l], tc_below(&r, 100), &nseg);
        const size_t n = off[nseg] + tc_below(&r, 100);
        uint8_t *flags = (uint8_t *)tc_xmalloc(n + 1);
        memset(flags, 0, n + 1);
        for (size_t s = 0; s <= nseg; ++s)
            if (off[s] < n) flags[off[s]] = (uint8_t)(1 + tc_below(&r, 255));
        char what[64];
        snprintf(what, sizeof what, "%zu segments of mean %zu", nseg, means[l]);
        for (size_t k = 0; k < nc; ++k) { /* each form inclusive or exclusive, alternating */
            const tc_dist d = tc_dist_for(c[k].op, c[k].in);
            scan_pair_combo(&p, &c[k], &r, n, d, 0, flags, NULL, 0, 1 + (int)((k + (size_t)l) & 1), what);
            scan_pair_combo(&p, &c[k], &r, n, d, 0, NULL, off, nseg, 2 - (int)((k + (size_t)l) & 1), what);
        }
        free(flags);
        free(off);
    }
    close_pair(&p);
}

/* ---- histogram family (issue 4): HIP counts bitwise equal to the CPU's ---- */

/* Histogram of host[0, n) on both backends; every count must be the same. */
static void hist_pair(struct pair *p, const void *host, size_t n, pp_dtype st, size_t nbins, int range,
                      double lo, double hi, const double *edges, pp_dtype ct, const char *what)
{
    const size_t es = tc_size(st), cs = tc_size(ct);
    tc_case("parity: histogram_%s %s, %zu bins, %s counts, n = %zu, %s", range ? "range" : "even", tc_dname(st),
            nbins, tc_dname(ct), n, what);
    unsigned char *res[2];
    struct { tc_env *e; } envs[2] = {{p->gpu}, {&p->cpu}};
    for (int b = 0; b < 2; ++b) {
        pp_context *ctx = envs[b].e->ctx;
        void *ds = tc_upload(ctx, host, n * es);
        double *de = range ? (double *)tc_upload(ctx, edges, (nbins + 1) * sizeof(double)) : NULL;
        void *dc = tc_alloc(ctx, nbins * cs);
        TC_OK(ctx, range ? pp_histogram_range(ctx, ds, n, st, de, nbins, dc, ct)
                         : pp_histogram_even(ctx, ds, n, st, nbins, lo, hi, dc, ct));
        res[b] = (unsigned char *)tc_xmalloc(nbins * cs);
        tc_download(ctx, res[b], dc, nbins * cs);
        tc_free(ctx, dc);
        if (de) tc_free(ctx, de);
        if (ds) tc_free(ctx, ds);
    }
    for (size_t k = 0; k < nbins; ++k) {
        const uint64_t g = ct == PP_U32 ? ((uint32_t *)res[0])[k] : ((uint64_t *)res[0])[k];
        const uint64_t c = ct == PP_U32 ? ((uint32_t *)res[1])[k] : ((uint64_t *)res[1])[k];
        TC_CHECK(g == c, "bin %zu: hip %llu, cpu %llu", k, (unsigned long long)g, (unsigned long long)c);
    }
    free(res[0]);
    free(res[1]);
}

static void t_parity_histogram(void **state)
{
    struct pair p = open_pair(state);
    tc_rng r = tc_rng_for("parity histogram");
    static const pp_dtype types[] = {PP_U8, PP_I32, PP_U32, PP_F32, PP_F64};
    static const size_t nbs[] = {1, 2, 255, 256, 257, 4096, 65536, (size_t)1 << 20};
    const size_t nmax = (1u << 20) + 11;
    void *host = tc_xmalloc(nmax * 8);
    for (size_t bi = 0; bi < sizeof nbs / sizeof nbs[0]; ++bi)
        for (size_t ti = 0; ti < 5; ++ti) {
            const pp_dtype st = types[ti];
            const size_t nb = nbs[bi];
            const size_t n = tc_below(&r, 2) ? nmax : 1 + tc_below(&r, 200000);
            /* Floats: random magnitudes around the range (bins compared bitwise, the double
             * arithmetic included); integers: random bits. */
            for (size_t i = 0; i < n; ++i) {
                if (tc_is_float(st)) tc_store_value(host, i, st, (long double)(tc_unit(&r) * 2.2 - 1.1) * 1000.0L);
                else tc_store_bits(host, i, st, tc_next(&r));
            }
            if (tc_is_float(st))
                for (int k = 0; k < 50; ++k) tc_store_value(host, tc_below(&r, n), st, k % 2 ? NAN : INFINITY);
            const pp_dtype ct = (bi + ti) & 1 ? PP_U64 : PP_U32;
            double lo = -1000.0, hi = 1000.0;
            if (!tc_is_float(st)) {
                lo = st == PP_I32 ? -2147483648.0 : 0;
                hi = st == PP_U8 ? 256 : lo + 4294967296.0;
            }
            hist_pair(&p, host, n, st, nb, 0, lo, hi, NULL, ct, "random");
            if (tc_is_float(st)) hist_pair(&p, host, n, st, nb, 0, -3.3, 777.125, NULL, ct, "random, odd bounds");
            double *e = (double *)tc_xmalloc((nb + 1) * sizeof *e);
            double x = tc_is_float(st) ? -1100.0 : st == PP_I32 ? -2.2e9 : -10;
            const double step = (tc_is_float(st) ? 2200.0 : st == PP_U8 ? 280.0 : 4.4e9) / (double)nb;
            for (size_t k = 0; k <= nb; ++k) {
                e[k] = x;
                x += step * tc_unit(&r) * 2;
            }
            hist_pair(&p, host, n, st, nb, 1, 0, 0, e, ct, "random edges");
            free(e);
        }
    free(host);
    close_pair(&p);
}

static void t_parity_reduce_by_index(void **state)
{
    struct pair p = open_pair(state);
    tc_rng r = tc_rng_for("parity reduce_by_index");
    static const pp_dtype types[] = {PP_I32, PP_U32, PP_I64, PP_U64, PP_F32, PP_F64};
    static const pp_op ops[] = {PP_OP_SUM, PP_OP_MIN, PP_OP_MAX};
    static const size_t outs[] = {1, 100, 4096, 100003};
    const size_t nmax = (1u << 20) + 5;
    void *vals = tc_xmalloc(nmax * 8);
    uint32_t *idx = (uint32_t *)tc_xmalloc(nmax * 4);
    void *init = tc_xmalloc(100003 * 8);
    for (size_t ti = 0; ti < 6; ++ti)
        for (size_t oi = 0; oi < 3; ++oi)
            for (size_t k = 0; k < 4; ++k) {
                const pp_dtype t = types[ti];
                const pp_op op = ops[oi];
                const size_t es = tc_size(t), n_out = outs[k];
                const size_t n = tc_below(&r, 2) ? nmax : tc_below(&r, 100000);
                tc_fill(&r, vals, n, t, TC_RANDOM);
                if (tc_is_float(t) && op != PP_OP_SUM)
                    for (int q = 0; q < 20 && n; ++q) tc_store_value(vals, tc_below(&r, n), t, q % 2 ? NAN : -0.0L);
                for (size_t i = 0; i < n; ++i) idx[i] = (uint32_t)tc_below(&r, n_out + n_out / 10 + 1);
                tc_fill(&r, init, n_out, t, TC_RANDOM);
                tc_case("parity: reduce_by_index %s %s, n = %zu, n_out = %zu", tc_oname(op), tc_dname(t), n, n_out);
                unsigned char *res[2];
                uint64_t sk[2];
                tc_env *envs[2] = {p.gpu, &p.cpu};
                for (int b = 0; b < 2; ++b) {
                    pp_context *ctx = envs[b]->ctx;
                    void *dv = tc_upload(ctx, vals, n * es);
                    uint32_t *di = (uint32_t *)tc_upload(ctx, idx, n * 4);
                    void *dout = tc_upload(ctx, init, n_out * es);
                    uint64_t *dsk = (uint64_t *)tc_alloc(ctx, 8);
                    TC_OK(ctx, pp_reduce_by_index(ctx, dv, n, t, di, op, dout, n_out, dsk));
                    res[b] = (unsigned char *)tc_xmalloc(n_out * es);
                    tc_download(ctx, res[b], dout, n_out * es);
                    tc_download(ctx, &sk[b], dsk, 8);
                    tc_free(ctx, dsk);
                    tc_free(ctx, dout);
                    if (di) tc_free(ctx, di);
                    if (dv) tc_free(ctx, dv);
                }
                TC_CHECK(sk[0] == sk[1], "n_skipped: hip %llu, cpu %llu", (unsigned long long)sk[0],
                         (unsigned long long)sk[1]);
                if (tc_is_float(t) && op == PP_OP_SUM) {
                    /* Within twice the header's bound of each other. */
                    long double *abs = (long double *)calloc(n_out, sizeof(long double));
                    uint64_t *cnt = (uint64_t *)calloc(n_out, 8);
                    for (size_t j = 0; j < n_out; ++j) abs[j] = fabsl(tc_value(init, j, t));
                    for (size_t i = 0; i < n; ++i)
                        if (idx[i] < n_out) {
                            abs[idx[i]] += fabsl(tc_value(vals, i, t));
                            cnt[idx[i]]++;
                        }
                    const long double u = t == PP_F32 ? 0x1p-24L : 0x1p-53L;
                    for (size_t j = 0; j < n_out; ++j) {
                        const long double m = (long double)cnt[j], bound = 2 * m * u / (1 - m * u) * abs[j];
                        const long double g = tc_value(res[0], j, t), c = tc_value(res[1], j, t);
                        TC_CHECK(fabsl(g - c) <= bound, "out[%zu]: hip %.21Lg, cpu %.21Lg, |diff| %.3Lg > %.3Lg", j, g,
                                 c, fabsl(g - c), bound);
                    }
                    free(abs);
                    free(cnt);
                } else {
                    for (size_t j = 0; j < n_out; ++j) {
                        const uint64_t g = tc_bits(res[0], j, t), c = tc_bits(res[1], j, t);
                        if (tc_is_float(t) && isnan((double)tc_value(res[1], j, t)))
                            TC_CHECK(isnan((double)tc_value(res[0], j, t)), "out[%zu]: cpu NaN, hip bits 0x%llx", j,
                                     (unsigned long long)g);
                        else
                            TC_CHECK(g == c, "out[%zu]: hip bits 0x%llx, cpu bits 0x%llx", j, (unsigned long long)g,
                                     (unsigned long long)c);
                    }
                }
                free(res[0]);
                free(res[1]);
            }
    free(init);
    free(idx);
    free(vals);
    close_pair(&p);
}

/* AUTO picks HIP where a device is present, else the CPU; the context works. */
static void t_auto_context(void **state)
{
    (void)state;
    tc_case("PP_BACKEND_AUTO");
    pp_context *ctx = NULL;
    TC_CHECK(pp_context_create(&ctx, PP_BACKEND_AUTO, 0) == PP_OK, "%s", pp_last_create_error());
    const pp_backend b = pp_context_backend(ctx);
    TC_CHECK(b == PP_BACKEND_CPU || b == PP_BACKEND_HIP, "backend %d", (int)b);
    TC_CHECK(b == (pp_backend_available(PP_BACKEND_HIP) ? PP_BACKEND_HIP : PP_BACKEND_CPU),
             "AUTO chose %s with HIP %savailable", pp_backend_name(b), pp_backend_available(PP_BACKEND_HIP) ? "" : "not ");
    TC_CHECK(pp_context_device_name(ctx) && pp_context_device_name(ctx)[0], "no device name");
    print_message("    AUTO -> %s (%s)\n", pp_backend_name(b), pp_context_device_name(ctx));
    TC_CHECK(pp_backend_available(PP_BACKEND_AUTO), "AUTO is always available");
    const int64_t h[3] = {5, -7, 11};
    void *d = tc_upload(ctx, h, sizeof h);
    int64_t sum = 0;
    uint64_t idx = 0;
    TC_OK(ctx, pp_reduce(ctx, d, 3, PP_I64, PP_OP_SUM, &sum, PP_I64, PP_RESULT_HOST));
    TC_CHECK(sum == 9, "sum %lld", (long long)sum);
    TC_OK(ctx, pp_argmin(ctx, d, 3, PP_I64, &sum, &idx, PP_RESULT_HOST));
    TC_CHECK(sum == -7 && idx == 1, "argmin %lld at %llu", (long long)sum, (unsigned long long)idx);
    TC_OK(ctx, pp_context_synchronize(ctx));
    tc_free(ctx, d);
    pp_context_destroy(ctx);
}

/* HIP: the caller's stream is used, and results come back in order. */
static void t_hip_user_stream(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    void *own = pp_context_stream(ctx);
    TC_CHECK(own != NULL, "a HIP context without a stream");
    /* Another context's stream stands in for the caller's own. */
    pp_context *other = NULL;
    TC_CHECK(pp_context_create(&other, PP_BACKEND_HIP, 0) == PP_OK, "%s", pp_last_create_error());
    void *theirs = pp_context_stream(other);
    tc_case("hip: reduce on a caller's stream");
    TC_OK(ctx, pp_context_set_stream(ctx, theirs));
    TC_CHECK(pp_context_stream(ctx) == theirs, "stream not taken");
    const size_t n = 1u << 20;
    uint32_t *h = (uint32_t *)tc_xmalloc(n * sizeof *h);
    uint64_t want = 0;
    for (size_t i = 0; i < n; ++i) want += h[i] = (uint32_t)(i * 2654435761u);
    void *d = tc_upload(ctx, h, n * sizeof *h);
    uint64_t got = 0;
    TC_OK(ctx, pp_reduce(ctx, d, n, PP_U32, PP_OP_SUM, env->res, PP_U64, PP_RESULT_CONTEXT));
    tc_download(ctx, &got, env->res, 8);
    TC_CHECK(got == want, "sum %llu, want %llu", (unsigned long long)got, (unsigned long long)want);
    TC_OK(ctx, pp_context_set_stream(ctx, NULL));
    TC_CHECK(pp_context_stream(ctx) == own, "set_stream(NULL) did not return to the context's stream");
    TC_OK(ctx, pp_reduce(ctx, d, n, PP_U32, PP_OP_SUM, &got, PP_U64, PP_RESULT_HOST));
    TC_CHECK(got == want, "sum %llu, want %llu", (unsigned long long)got, (unsigned long long)want);
    tc_free(ctx, d);
    free(h);
    pp_context_destroy(other);
}

int main(void)
{
    tc_init("test_parity");
    const struct CMUnitTest tests[] = {
        TC_CPU(t_auto_context),  TC_HIP(t_parity_reduce), TC_HIP(t_parity_arg),
        TC_HIP(t_parity_segmented), TC_HIP(t_parity_scan), TC_HIP(t_parity_scan_segmented),
        TC_HIP(t_hip_user_stream),
        /* histogram family (issue 4) */
        TC_HIP(t_parity_histogram), TC_HIP(t_parity_reduce_by_index),
    };
    return TC_RUN("parity", tests);
}
