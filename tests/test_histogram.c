/*
 * test_histogram.c -- pp_histogram_even, pp_histogram_range and pp_reduce_by_index against
 * serial oracles written here (the definitions of parprim.h, computed directly: long double
 * and 128-bit integer arithmetic, no library code), on the CPU backend and, where a device is
 * present, on HIP (where every GPU strategy is also forced in turn, through the context's
 * experimental options PP_OPTION_HIST_STRATEGY and friends, and each call's plan is checked, so
 * that each strategy is tested on its own).
 *
 * Bin counts 1, 2, 255, 256, 257, 4096, 65536 and 2^20; uniform data (some samples outside
 * the range), skewed data (every sample in one bin: the worst case for atomics), samples at
 * and next to every kind of edge, NaN, infinities, -0.0 and subnormals; u32 and u64 counts;
 * u8 with 256 bins over [0, 256) and other binnings; edges with duplicates and infinities.
 * Reduce by index: every value type and op, indices out of range (skipped and counted),
 * every index equal (skew), the initial contents of out accumulated into.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "histogram_bins.h" /* src/: pp_hist_bin_f32, the CPU's f32 binning in float arithmetic */

#define NOBIN UINT32_MAX

static const size_t bin_counts[] = {1, 2, 255, 256, 257, 4096, 65536, (size_t)1 << 20};
#define N_BIN_COUNTS (sizeof bin_counts / sizeof bin_counts[0])

/* ---- oracles: parprim.h's definitions, in tests/oracles.c (shared with the bench) ---- */

static uint32_t oracle_even(long double x, pp_dtype st, size_t nbins, double lo, double hi)
{
    return po_hist_even_bin(x, st, nbins, lo, hi);
}

static uint32_t oracle_range(long double x, const double *e, size_t nbins) { return po_hist_range_bin(x, e, nbins); }

/* ---- running a histogram ---- */

/* Which API and bins. */
typedef struct hspec {
    pp_dtype st;
    size_t nbins;
    int range;           /* pp_histogram_range with `edges` (host), else even [lo, hi) */
    double lo, hi;
    const double *edges;
    pp_dtype ct;
} hspec;

static const char *hspec_text(const hspec *h, char *buf, size_t size)
{
    if (h->range)
        snprintf(buf, size, "range %s, %zu bins [%g .. %g], %s counts", tc_dname(h->st), h->nbins, h->edges[0],
                 h->edges[h->nbins], tc_dname(h->ct));
    else
        snprintf(buf, size, "even %s, %zu bins over [%.17g, %.17g), %s counts", tc_dname(h->st), h->nbins, h->lo,
                 h->hi, tc_dname(h->ct));
    return buf;
}

/* Run the histogram of host[off, off + n) in env's context (the samples uploaded from host[0]
 * and passed at element `off`, so that off > 0 gives a device pointer off 16-byte alignment)
 * and compare every count with the oracle; the counts buffer holds junk before the call
 * (counts are overwritten) and a sentinel past nbins (never written). `what` names the data. */
static void check_hist_off(tc_env *env, const void *host0, size_t n, const hspec *h, const char *what, size_t off)
{
    pp_context *ctx = env->ctx;
    const size_t es = tc_size(h->st), cs = tc_size(h->ct), nb = h->nbins;
    const void *host = host0 ? (const char *)host0 + off * es : NULL;
    char spec[192];
    hspec_text(h, spec, sizeof spec);
    tc_case("%s: %s, n = %zu (at element %zu), %s", pp_backend_name(env->backend), spec, n, off, what);
    uint64_t *want = (uint64_t *)calloc(nb, sizeof *want);
    TC_CHECK(want != NULL, "out of host memory");
    for (size_t i = 0; i < n; ++i) {
        const long double x = tc_value(host, i, h->st);
        const uint32_t b = h->range ? oracle_range(x, h->edges, nb) : oracle_even(x, h->st, nb, h->lo, h->hi);
        if (b != NOBIN) want[b]++;
    }
    void *dbuf = tc_upload(ctx, host0, (n ? n + off : 0) * es);
    void *dsamp = dbuf ? (char *)dbuf + off * es : NULL;
    double *dedges = h->range ? (double *)tc_upload(ctx, h->edges, (nb + 1) * sizeof(double)) : NULL;
    const size_t bytes = (nb + 8) * cs;
    unsigned char *dcounts = (unsigned char *)tc_alloc(ctx, bytes);
    TC_OK(ctx, pp_memset(ctx, dcounts, 0x5A, nb * cs)); /* junk: counts are overwritten */
    TC_OK(ctx, pp_memset(ctx, dcounts + nb * cs, TC_SENTINEL, 8 * cs));
    pp_status st = h->range ? pp_histogram_range(ctx, dsamp, n, h->st, dedges, nb, dcounts, h->ct)
                            : pp_histogram_even(ctx, dsamp, n, h->st, nb, h->lo, h->hi, dcounts, h->ct);
    TC_OK(ctx, st);
    unsigned char *got = (unsigned char *)tc_xmalloc(bytes);
    tc_download(ctx, got, dcounts, bytes);
    for (size_t b = 0; b < nb; ++b) {
        const uint64_t g = h->ct == PP_U32 ? ((uint32_t *)got)[b] : ((uint64_t *)got)[b];
        const uint64_t w = h->ct == PP_U32 ? (uint32_t)want[b] : want[b];
        if (g != w) {
            /* Find a sample of the bin for the message. */
            long double ex = NAN;
            for (size_t i = 0; i < n; ++i) {
                const long double x = tc_value(host, i, h->st);
                const uint32_t ob = h->range ? oracle_range(x, h->edges, nb) : oracle_even(x, h->st, nb, h->lo, h->hi);
                if (ob == b) {
                    ex = x;
                    break;
                }
            }
            TC_FAIL("bin %zu: count %llu, want %llu (a sample of this bin: %.21Lg)", b, (unsigned long long)g,
                    (unsigned long long)w, ex);
        }
    }
    for (size_t k = nb * cs; k < bytes; ++k)
        TC_CHECK(got[k] == TC_SENTINEL, "byte %zu past the counts was written", k - nb * cs);
    free(got);
    tc_free(ctx, dcounts);
    if (dedges) tc_free(ctx, dedges);
    if (dbuf) tc_free(ctx, dbuf);
    free(want);
}

static void check_hist(tc_env *env, const void *host, size_t n, const hspec *h, const char *what)
{
    check_hist_off(env, host, n, h, what, 0);
}

/* ---- sample generators ---- */

static void store(void *a, size_t i, pp_dtype t, long double v) { tc_store_value(a, i, t, v); }

/* Type range of integer sample types. */
static void int_range(pp_dtype t, long double *mn, long double *mx)
{
    switch (t) {
    case PP_U8: *mn = 0; *mx = 255; break;
    case PP_I32: *mn = INT32_MIN; *mx = INT32_MAX; break;
    default: *mn = 0; *mx = UINT32_MAX; break;
    }
}

/* Uniform over [lo - 5%, hi + 5%) of the width (so some samples fall outside), as the type
 * stores them (floats rounded, integers truncated and clamped to the type). */
static void fill_uniform(tc_rng *r, void *a, size_t n, pp_dtype t, double lo, double hi)
{
    const long double w = (long double)hi - lo;
    long double mn = 0, mx = 0;
    if (!tc_is_float(t)) int_range(t, &mn, &mx);
    for (size_t i = 0; i < n; ++i) {
        long double v = lo + w * (tc_unit(r) * 1.1L - 0.05L);
        if (!tc_is_float(t)) {
            v = floorl(v);
            if (v < mn) v = mn;
            if (v > mx) v = mx;
        }
        store(a, i, t, v);
    }
}

/* Samples exactly at the even edges lower + k (upper - lower) / nbins (as stored), their float
 * neighbours, lower, upper and their neighbours. */
static void fill_edges(tc_rng *r, void *a, size_t n, pp_dtype t, size_t nbins, double lo, double hi)
{
    for (size_t i = 0; i < n; ++i) {
        const size_t k = (size_t)tc_below(r, nbins + 1);
        long double v = lo + ((long double)hi - lo) * (long double)k / (long double)nbins;
        if (t == PP_F32 || t == PP_F64) {
            /* the edge as stored in t, or its neighbour below (pick 0) or above (pick 1) */
            const uint64_t pick = tc_below(r, 4);
            const double to = pick == 0 ? -INFINITY : INFINITY;
            if (t == PP_F32) v = pick < 2 ? nextafterf((float)v, (float)to) : (float)v;
            else v = pick < 2 ? nextafter((double)v, to) : (double)v;
        } else {
            long double mn, mx;
            int_range(t, &mn, &mx);
            v = floorl(v) + (long double)((int)tc_below(r, 3) - 1);
            if (v < mn) v = mn;
            if (v > mx) v = mx;
        }
        store(a, i, t, v);
    }
}

/* Every sample equal: the middle of bin nbins / 3 (even bins). */
static void fill_skewed(void *a, size_t n, pp_dtype t, size_t nbins, double lo, double hi)
{
    const size_t k = nbins / 3;
    long double v = lo + ((long double)hi - lo) * ((long double)k + 0.5L) / (long double)nbins;
    if (!tc_is_float(t)) v = floorl(v);
    for (size_t i = 0; i < n; ++i) store(a, i, t, v);
}

/* ---- even histograms, float samples ---- */

static void even_float(tc_env *env, pp_dtype st)
{
    static const double ranges[][2] = {{-1.0, 1.0}, {0.0, 1.0}, {-1000.5, 3.25e3}, {1e-3, 1e-3 + 1e-9}, {-1e30, 1e30}};
    char tag[64];
    snprintf(tag, sizeof tag, "even %s", tc_dname(st));
    tc_rng r = tc_rng_for(tag);
    const size_t nmax = (1u << 20) + 3;
    void *host = tc_xmalloc(nmax * tc_size(st));
    for (size_t bi = 0; bi < N_BIN_COUNTS; ++bi) {
        const size_t nb = bin_counts[bi];
        for (size_t ri = 0; ri < sizeof ranges / sizeof ranges[0]; ++ri) {
            if (ri >= 3 && bi % 3 != 0) continue; /* the odd ranges with a few bin counts */
            const hspec h = {st, nb, 0, ranges[ri][0], ranges[ri][1], NULL, (bi + ri) & 1 ? PP_U64 : PP_U32};
            const size_t n = nb >= 65536 ? (1u << 20) + 3 : 100003;
            fill_uniform(&r, host, n, st, h.lo, h.hi);
            check_hist(env, host, n, &h, "uniform, 10% outside");
            fill_edges(&r, host, 50021, st, nb, h.lo, h.hi);
            check_hist(env, host, 50021, &h, "at and next to the edges");
            if (ri == 0) {
                fill_skewed(host, n, st, nb, h.lo, h.hi);
                check_hist(env, host, n, &h, "skewed: all in one bin");
            }
        }
    }
    free(host);
}

static void t_even_f32(void **state) { even_float(tc_envp(state), PP_F32); }
static void t_even_f64(void **state) { even_float(tc_envp(state), PP_F64); }

/* The plan of the last call on ctx. */
static pp_plan last_plan(pp_context *ctx)
{
    pp_plan p;
    TC_OK(ctx, pp_context_last_plan(ctx, &p));
    return p;
}

/* CPU: the float-vector binning of f32 samples at each of its widths (PP_OPTION_CPU_HIST_LANES:
 * 4, 8, 16 lanes; cpu/histogram.c picks the widest the CPU runs, and the widest it has for a
 * width it lacks: the plan says which ran, a width this CPU lacks is skipped visibly), over
 * the bin counts where that form applies (ferr <= 2^-10), with tails of every length below
 * 16, misaligned starts and samples at and next to the bin edges. */
static void t_even_f32_widths(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    static const int widths[] = {4, 8, 16};
    static const size_t nbs[] = {1, 2, 255, 256, 257, 500, 1024, 2500};
    static const double ranges[][2] = {{-1.0, 1.0}, {0.0, 1.0}, {-1000.5, 3.25e3}};
    static const size_t sizes[] = {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 255, 256, 257, 4099};
    tc_rng r = tc_rng_for("even f32 widths");
    const size_t n = 100003;
    void *host = tc_xmalloc(n * 4 + 64);
    int skipped = 0;
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; ++wi) {
        TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_CPU_HIST_LANES, widths[wi]));
        for (size_t bi = 0; bi < sizeof nbs / sizeof nbs[0]; ++bi)
            for (size_t ri = 0; ri < sizeof ranges / sizeof ranges[0]; ++ri) {
                char what[96];
                snprintf(what, sizeof what, "%d lanes, %zu bins over [%g, %g)", widths[wi], nbs[bi], ranges[ri][0],
                         ranges[ri][1]);
                const hspec h = {PP_F32, nbs[bi], 0, ranges[ri][0], ranges[ri][1], NULL, (bi + ri) & 1 ? PP_U64 : PP_U32};
                fill_uniform(&r, host, n, PP_F32, h.lo, h.hi);
                check_hist(env, host, n, &h, what);
                const pp_plan p = last_plan(ctx);
                TC_CHECK(!strcmp(p.family, "histogram"), "plan family '%s'", p.family);
                /* lanes 0: the float form does not apply to this binning (the doubles ran) */
                if (p.param[0] != 0 && p.param[0] != widths[wi]) { /* this CPU lacks the width */
                    TC_CHECK(p.param[0] == 4 || p.param[0] == 8 || p.param[0] == 16, "lanes %lld",
                             (long long)p.param[0]);
                    ++skipped;
                    break;
                }
                fill_edges(&r, host, n, PP_F32, nbs[bi], h.lo, h.hi);
                check_hist(env, host, n, &h, what);
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
                    check_hist_off(env, host, sizes[si], &h, what, si % 5);
            }
    }
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_CPU_HIST_LANES, 0));
    free(host);
    if (skipped) {
        print_message("this CPU lacks %d of the widths 4, 8, 16\n", skipped);
        skip();
    }
}

/* CPU: the private tables flushed into the counts round after round (PP_OPTION_CPU_HIST_ROUND:
 * a round of 2^16 samples instead of 2^31; the plan says so), for one table, interleaved
 * sub-tables and bin ranges, u32 and u64 counts, uniform and skewed samples. */
static void t_even_rounds(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    tc_rng r = tc_rng_for("even rounds");
    const size_t n = ((size_t)1 << 20) + 12345;
    void *host = tc_xmalloc(n * 4);
    static const size_t nbs[] = {1, 256, 4096, ((size_t)1 << 21) + 1};
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_CPU_HIST_ROUND, 65536));
    for (size_t bi = 0; bi < sizeof nbs / sizeof nbs[0]; ++bi) {
        const hspec hf = {PP_F32, nbs[bi], 0, -1, 1, NULL, bi & 1 ? PP_U64 : PP_U32};
        fill_uniform(&r, host, n, PP_F32, -1, 1);
        check_hist(env, host, n, &hf, "rounds of 2^16 samples");
        const pp_plan p = last_plan(ctx);
        TC_CHECK(!strcmp(p.strategy, "private") && p.param[2] == 65536, "plan %s, round %lld: want private, 65536",
                 p.strategy, (long long)p.param[2]);
        fill_skewed(host, n, PP_F32, nbs[bi], -1, 1);
        check_hist(env, host, n, &hf, "rounds of 2^16 samples, all in one bin");
        const hspec hi = {PP_I32, nbs[bi], 0, -5000, 5000, NULL, PP_U32};
        fill_uniform(&r, host, n, PP_I32, -5000, 5000);
        check_hist(env, host, n, &hi, "rounds of 2^16 samples");
    }
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_CPU_HIST_ROUND, 0));
    free(host);
}

/* NaN, infinities, zeros of both signs, subnormals, the bounds and their neighbours. */
static void t_even_special(void **state)
{
    tc_env *env = tc_envp(state);
    for (int ti = 0; ti < 2; ++ti) {
        const pp_dtype st = ti ? PP_F64 : PP_F32;
        const double lo = -2.0, hi = 3.0;
        long double vals[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, lo, hi, 1e-310, -1e-310, 1e-40, -1e-40,
                              st == PP_F32 ? nextafterf((float)hi, -INFINITY) : nextafter(hi, -INFINITY),
                              st == PP_F32 ? nextafterf((float)lo, -INFINITY) : nextafter(lo, -INFINITY),
                              st == PP_F32 ? nextafterf((float)lo, INFINITY) : nextafter(lo, INFINITY),
                              st == PP_F32 ? nextafterf((float)hi, INFINITY) : nextafter(hi, INFINITY),
                              1e300, -1e300, 0.5, 2.999999, -1.9999999};
        const size_t nv = sizeof vals / sizeof vals[0];
        const size_t n = 10007;
        void *host = tc_xmalloc(n * tc_size(st));
        tc_rng r = tc_rng_for(st == PP_F32 ? "special f32" : "special f64");
        for (size_t i = 0; i < n; ++i) store(host, i, st, vals[tc_below(&r, nv)]);
        for (size_t bi = 0; bi < N_BIN_COUNTS; ++bi) {
            const hspec h = {st, bin_counts[bi], 0, lo, hi, NULL, bi & 1 ? PP_U32 : PP_U64};
            check_hist(env, host, n, &h, "NaN, +-inf, +-0, subnormals, bounds and neighbours");
        }
        /* Bounds 0 and subnormal-wide / huge ranges. */
        const hspec tiny = {st, 7, 0, 0.0, st == PP_F32 ? 1e-30 : 1e-300, NULL, PP_U32};
        fill_uniform(&r, host, n, st, tiny.lo, tiny.hi);
        check_hist(env, host, n, &tiny, "tiny range");
        const hspec huge = {st, 4096, 0, -1e300, 1e300, NULL, PP_U64};
        for (size_t i = 0; i < n; ++i) store(host, i, st, ldexpl(tc_unit(&r) - 0.5, (int)tc_below(&r, 2000) - 1000));
        if (st == PP_F32)
            for (size_t i = 0; i < n; ++i) store(host, i, st, (float)ldexp(tc_unit(&r) - 0.5, (int)tc_below(&r, 250) - 125));
        check_hist(env, host, n, &huge, "huge range, values of every magnitude");
        free(host);
    }
}

/* n == 0 (samples NULL), n == 1, and small sizes around the GPU's vector and tile widths. */
static void t_even_sizes(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 15, 16, 17, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025,
                                   2047, 2048, 2049, 8191, 8192, 8193, 32767, 32768, 32769, 65535, 65536, 65537};
    static const pp_dtype types[] = {PP_U8, PP_I32, PP_U32, PP_F32, PP_F64};
    tc_rng r = tc_rng_for("even sizes");
    void *host = tc_xmalloc(65537 * 8 + 64);
    for (size_t ti = 0; ti < 5; ++ti)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
            const pp_dtype st = types[ti];
            const double lo = st == PP_U8 ? 0 : -100, hi = st == PP_U8 ? 256 : 100;
            const hspec h = {st, si & 1 ? 256 : 37, 0, lo, hi, NULL, si & 2 ? PP_U64 : PP_U32};
            fill_uniform(&r, host, sizes[si], st, lo, hi);
            check_hist(env, sizes[si] ? host : NULL, sizes[si], &h, "uniform");
            /* Misaligned starts (the GPU's unaligned head). */
            if (sizes[si] > 3) {
                check_hist_off(env, host, sizes[si] - 1, &h, "uniform, start misaligned by 1", 1);
                check_hist_off(env, host, sizes[si] - 3, &h, "uniform, start misaligned by 3", 3);
            }
        }
    free(host);
}

/* Bin counts past one private table of the CPU backend (8 MiB: 2^21 counters), so that its
 * split into ranges (one pass over the samples per range) and its atomic path run; on the
 * GPU, bins far past shared memory. Uniform and skewed samples, f32 and i32. */
static void t_even_many_bins(void **state)
{
    tc_env *env = tc_envp(state);
    tc_rng r = tc_rng_for("even many bins");
    const size_t n = ((size_t)1 << 21) + 7;
    void *host = tc_xmalloc(n * 8);
    static const struct {
        size_t nbins, n; /* n: samples used (fewer than nbins / 4: the atomic path) */
    } cases[] = {{3 * ((size_t)1 << 21) + 5, ((size_t)1 << 21) + 7}, {((size_t)1 << 21) + 1, ((size_t)1 << 21) + 7},
                 {(size_t)1 << 25, ((size_t)1 << 20) + 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (int ti = 0; ti < 2; ++ti) {
            const pp_dtype st = ti ? PP_I32 : PP_F32;
            const double lo = ti ? -(double)cases[c].nbins : -3.0, hi = ti ? (double)cases[c].nbins : 5.0;
            const hspec h = {st, cases[c].nbins, 0, lo, hi, NULL, c & 1 ? PP_U64 : PP_U32};
            fill_uniform(&r, host, cases[c].n, st, lo - (hi - lo) / 16, hi + (hi - lo) / 16);
            check_hist(env, host, cases[c].n, &h, "uniform, some outside");
            for (size_t i = 0; i < cases[c].n; ++i) store(host, i, st, i % 5 ? 1.0 : (double)lo);
            check_hist(env, host, cases[c].n, &h, "skewed: 4 in 5 in one bin, the rest in bin 0");
        }
    free(host);
}

/* ---- even histograms, integer samples ---- */

static void t_even_int(void **state)
{
    tc_env *env = tc_envp(state);
    struct ic {
        pp_dtype st;
        double lo, hi;
    } cases[] = {
        {PP_U8, 0, 256},        {PP_U8, 0, 255},           {PP_U8, 10, 200},        {PP_U8, -1000, 1000},
        {PP_I32, -1000, 1000},  {PP_I32, -2147483648.0, 2147483648.0}, {PP_I32, -7, 1e6},
        {PP_I32, -9007199254740992.0, 9007199254740992.0},
        {PP_U32, 0, 4294967296.0}, {PP_U32, 5, 1000003},   {PP_U32, 0, 3},          {PP_U32, 1e9, 4e9},
    };
    tc_rng r = tc_rng_for("even int");
    const size_t nmax = (1u << 20) + 3;
    void *host = tc_xmalloc(nmax * 4);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (size_t bi = 0; bi < N_BIN_COUNTS; ++bi) {
            const size_t nb = bin_counts[bi];
            /* (upper - lower) * nbins <= 2^64 */
            if ((long double)cases[c].hi - cases[c].lo > 18446744073709551616.0L / (long double)nb) continue;
            const hspec h = {cases[c].st, nb, 0, cases[c].lo, cases[c].hi, NULL, (c + bi) & 1 ? PP_U64 : PP_U32};
            const size_t n = nb >= 65536 ? (1u << 20) + 3 : 100003;
            if (cases[c].st == PP_U8 || cases[c].lo < -1e10)
                for (size_t i = 0; i < n; ++i) tc_store_bits(host, i, h.st, tc_next(&r)); /* every value */
            else
                fill_uniform(&r, host, n, h.st, h.lo, h.hi);
            check_hist(env, host, n, &h, "uniform");
            fill_edges(&r, host, 30011, h.st, nb, h.lo, h.hi);
            check_hist(env, host, 30011, &h, "at and next to the edges");
            if (bi == 3 || bi == 6) {
                fill_skewed(host, n, h.st, nb, h.lo, h.hi);
                check_hist(env, host, n, &h, "skewed: all in one bin");
            }
        }
    free(host);
}

/* u8 over [0, 256) with 256 bins (bin = value), the fast path, at sizes around its 16-byte
 * vectors and past 2^24 (the CPU's flush of its 32-bit value counters). */
static void t_u8_256(void **state)
{
    tc_env *env = tc_envp(state);
    tc_rng r = tc_rng_for("u8 256");
    const size_t nmax = ((size_t)1 << 25) + 77;
    uint8_t *host = (uint8_t *)tc_xmalloc(nmax);
    for (size_t i = 0; i < nmax; ++i) host[i] = (uint8_t)(tc_next(&r) >> 56);
    static const size_t sizes[] = {1, 16, 17, 4095, 4096, 65536 + 15, (1u << 20) + 1};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
        for (int c = 0; c < 2; ++c) {
            const hspec h = {PP_U8, 256, 0, 0, 256, NULL, c ? PP_U64 : PP_U32};
            check_hist(env, host, sizes[k], &h, "random bytes");
            check_hist_off(env, host, sizes[k], &h, "random bytes, misaligned", 3);
        }
    if (tc_thorough()) {
        const hspec h = {PP_U8, 256, 0, 0, 256, NULL, PP_U64};
        check_hist(env, host, nmax, &h, "random bytes, 2^25 + 77");
    }
    memset(host, 200, 1u << 20);
    const hspec h = {PP_U8, 256, 0, 0, 256, NULL, PP_U32};
    check_hist(env, host, 1u << 20, &h, "skewed: every byte 200");
    free(host);
}

/* ---- histograms from edges ---- */

/* Sorted random edges over [-100, 100], some duplicated; optionally infinite ends. */
static double *make_edges(tc_rng *r, size_t nbins, int infinite_ends)
{
    double *e = (double *)tc_xmalloc((nbins + 1) * sizeof *e);
    double x = -100.0;
    const double step = 200.0 / (double)nbins;
    for (size_t k = 0; k <= nbins; ++k) {
        e[k] = x;
        if (tc_below(r, 16) != 0) x += step * (0.5 + tc_unit(r)); /* else a duplicate edge */
    }
    if (infinite_ends) {
        e[0] = -INFINITY;
        e[nbins] = INFINITY;
    }
    return e;
}

static void t_range(void **state)
{
    tc_env *env = tc_envp(state);
    tc_rng r = tc_rng_for("range");
    const size_t nmax = (1u << 20) + 3;
    void *host = tc_xmalloc(nmax * 8);
    static const pp_dtype types[] = {PP_U8, PP_I32, PP_U32, PP_F32, PP_F64};
    for (size_t bi = 0; bi < N_BIN_COUNTS; ++bi)
        for (size_t ti = 0; ti < 5; ++ti) {
            const size_t nb = bin_counts[bi];
            const pp_dtype st = types[ti];
            if (nb > 4096 && ti % 2 == 1) continue; /* large bin counts: three types */
            double *e = make_edges(&r, nb, (bi + ti) % 3 == 0);
            const hspec h = {st, nb, 1, 0, 0, e, (bi + ti) & 1 ? PP_U64 : PP_U32};
            const size_t n = nb >= 65536 ? (1u << 19) + 3 : 100003;
            fill_uniform(&r, host, n, st, -110, 110);
            check_hist(env, host, n, &h, "uniform over the edges and outside");
            /* Exactly at edges (as the type stores them) and next to them. */
            for (size_t i = 0; i < 20011; ++i) {
                long double v = e[tc_below(&r, nb + 1)];
                if (isinf((double)v)) v = (long double)e[1 + tc_below(&r, nb > 1 ? nb - 1 : 1)];
                if (st == PP_F32) v = nextafterf((float)v, tc_below(&r, 2) ? INFINITY : -INFINITY);
                else if (st == PP_F64 && tc_below(&r, 2)) v = nextafter((double)v, -INFINITY);
                else if (!tc_is_float(st)) v = floorl(v) + (long double)((int)tc_below(&r, 3) - 1);
                if (st == PP_U8 && (v < 0 || v > 255)) v = tc_below(&r, 256);
                if (st == PP_U32 && v < 0) v = tc_below(&r, 100);
                store(host, i, st, v);
            }
            check_hist(env, host, 20011, &h, "at and next to the edges");
            if (tc_is_float(st)) {
                for (size_t i = 0; i < 10007; ++i) {
                    const long double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-310};
                    store(host, i, st, sp[tc_below(&r, 6)]);
                }
                check_hist(env, host, 10007, &h, "NaN, infinities, zeros");
            }
            if (bi == 5) {
                for (size_t i = 0; i < n; ++i) store(host, i, st, tc_is_float(st) ? e[nb / 2] : 7);
                check_hist(env, host, n, &h, "skewed: all at one edge");
            }
            free(e);
        }
    /* u8 256 bins from edges 0, 1, ..., 256: the same counts as even bins over [0, 256). */
    double e256[257];
    for (int k = 0; k <= 256; ++k) e256[k] = k;
    for (size_t i = 0; i < 100003; ++i) ((uint8_t *)host)[i] = (uint8_t)tc_next(&r);
    const hspec h = {PP_U8, 256, 1, 0, 0, e256, PP_U32};
    check_hist(env, host, 100003, &h, "u8 with edges 0..256");
    free(host);
}

/* Range histograms with unevenly spaced edges (the GPU bins them through a guide table of
 * equal-width cells): quadratic edges rounded to float as the bench makes them (many equal
 * edges near -1, many edges in one cell), edges packed into a sliver of a wide range, a span
 * near the largest double, infinite ends; f32 and f64 samples, uniform and at / next to the
 * edges. */
static void t_range_uneven(void **state)
{
    tc_env *env = tc_envp(state);
    tc_rng r = tc_rng_for("range uneven");
    const size_t n = 200003;
    void *host = tc_xmalloc(n * 8);
    static const size_t nbs[] = {1, 7, 1000, 4096, 30000};
    for (size_t bi = 0; bi < sizeof nbs / sizeof nbs[0]; ++bi)
        for (int kind = 0; kind < 4; ++kind) {
            const size_t nb = nbs[bi];
            double *e = (double *)tc_xmalloc((nb + 1) * sizeof *e);
            double lo = -1, hi = 1;
            for (size_t k = 0; k <= nb; ++k) {
                const double f = (double)k / (double)nb;
                switch (kind) {
                case 0: e[k] = (float)(-1.0 + 2.0 * f * f); break;                    /* the bench's edges */
                case 1: e[k] = k <= nb / 2 ? -1.0 + 1e-9 * (double)k : -0.5 + 1.5 * f; break; /* half in a sliver */
                case 2: e[k] = -1e307 + 2e307 * f * f * f; lo = -1e307, hi = 1e307; break; /* huge span */
                default: e[k] = -1.0 + 2.0 * f; break;                                /* even, infinite ends */
                }
            }
            if (kind == 0) e[nb] = 1.0;
            if (kind == 3) {
                e[0] = -INFINITY;
                e[nb] = INFINITY;
            }
            for (int t = 0; t < 2; ++t) {
                const pp_dtype st = t ? PP_F64 : PP_F32;
                const hspec h = {st, nb, 1, 0, 0, e, t ? PP_U64 : PP_U32};
                char what[96];
                snprintf(what, sizeof what, "uneven edges (kind %d)", kind);
                fill_uniform(&r, host, n, st, kind == 1 ? -1.0 : lo, kind == 1 ? -1.0 + 2e-9 * (double)nb : hi);
                if (kind == 1)
                    for (size_t i = n / 2; i < n; ++i) store(host, i, st, -1.1L + 2.2L * (long double)tc_unit(&r));
                check_hist(env, host, n, &h, what);
                for (size_t i = 0; i < n; ++i) { /* at the edges and next to them */
                    long double v = e[tc_below(&r, nb + 1)];
                    if (isinf((double)v)) v = 0.5;
                    if (st == PP_F32) v = nextafterf((float)v, tc_below(&r, 2) ? INFINITY : -INFINITY);
                    else if (tc_below(&r, 2)) v = nextafter((double)v, tc_below(&r, 2) ? INFINITY : -INFINITY);
                    store(host, i, st, v);
                }
                check_hist(env, host, n, &h, what);
            }
            free(e);
        }
    free(host);
}

/* The CPU grids a test runs: the chooser's, each of the two grids forced
 * (PP_OPTION_CPU_HIST_GRID 1: equal cells, 2: the octave grid) with the AVX-512 loops where
 * the CPU has them, and the two forced again with the scalar loops (PP_OPTION_CPU_HIST_LANES
 * 4). f32 samples take every form, the others (equal cells always) only the first. */
static const struct grid_form {
    int64_t grid, lanes;
    const char *name;
} grid_forms[] = {{0, 0, "the chooser's grid"},           {1, 0, "equal cells"}, {2, 0, "the octave grid"},
                  {1, 4, "equal cells, scalar loop"}, {2, 4, "the octave grid, scalar loop"}};
#define N_GRID_FORMS(st) ((st) == PP_F32 ? sizeof grid_forms / sizeof grid_forms[0] : 1)

/* Sets form f on ctx (NULL: the defaults). */
static void grid_force(pp_context *ctx, const struct grid_form *f)
{
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_CPU_HIST_GRID, f ? f->grid : 0));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_CPU_HIST_LANES, f ? f->lanes : 0));
}

/* After a call with form f: the plan's range search (param[1]) is a grid of that form; the
 * octave grid forced may fall back to equal cells where it cannot serve (edges that span no
 * finite width, or too many bins for its cells' bits): *octave counts the calls it ran. */
static void grid_check(pp_context *ctx, const struct grid_form *f, const char *what, int *octave)
{
    const long long s = (long long)last_plan(ctx).param[1];
    TC_CHECK(s == 1 || s == 3, "%s: the range search was %lld, want 1 or 3 (a grid)", what, s);
    TC_CHECK(f->grid != 1 || s == 1, "%s: equal cells forced, the search was %lld", what, s);
    *octave += s == 3;
}

/* CPU: the range search through the cell grids (cpu/histogram.c, GRID_BLOCK and
 * grid_t_flog; the plan's param[1] = 1 or 3 says which ran), with enough samples for the grid:
 * edges that bunch (the bench's quadratic ones, and many edges in one tiny interval: cells
 * with several edges), runs of equal edges, infinite edges at and next to the ends, more bins
 * than cells (2^19 bins); samples uniform, exactly at the edges (as the type stores them) and
 * next to them, NaN, infinities, zeros; f32 samples through each grid, f64 and i32. */
static void t_range_grid(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    tc_rng r = tc_rng_for("range grid");
    const size_t nb_big = (size_t)1 << 19;
    const size_t nmax = 6 * nb_big + 1; /* n / 4 >= cells + nbins */
    void *host = tc_xmalloc(nmax * 8);
    static const pp_dtype types[] = {PP_F32, PP_F64, PP_I32};
    int octave = 0;
    for (int kind = 0; kind < 5; ++kind) {
        const size_t nb = kind == 4 ? nb_big : kind == 3 ? 300 : 4096;
        if (kind == 4 && !tc_thorough()) continue;
        double *e = (double *)tc_xmalloc((nb + 1) * sizeof *e);
        const char *name = "";
        for (size_t k = 0; k <= nb; ++k) {
            const double f = (double)k / (double)nb;
            switch (kind) {
            case 0: name = "quadratic edges"; e[k] = (float)(-1.0 + 2.0 * f * f) * 100; break;
            case 1: /* runs of 1 to 4 equal edges */
                name = "runs of equal edges";
                e[k] = k == 0 ? -100 : e[k - 1] + (tc_below(&r, 3) == 0 ? 0.0 : 0.05 + 0.01 * tc_unit(&r));
                break;
            case 2: /* half the edges within 1e-6, the rest spread */
                name = "half the edges in a tiny interval";
                e[k] = k < nb / 2 ? 1.0 + 1e-6 * f : 1.0 + 1e-6 + 200 * (f - 0.5);
                break;
            case 3: /* infinite edges: two -inf, two +inf, finite in between */
                name = "infinite edges at both ends, twice";
                e[k] = k <= 1 ? -INFINITY : k + 1 >= nb ? INFINITY : -50.0 + (double)k / 3;
                break;
            default: name = "more bins than cells"; e[k] = -100.0 + 200.0 * f; break;
            }
        }
        for (size_t ti = 0; ti < 3; ++ti)
          for (size_t fi = 0; fi < N_GRID_FORMS(types[ti]); ++fi) {
            const pp_dtype st = types[ti];
            const struct grid_form *form = &grid_forms[fi];
            if (kind == 4 && st != PP_F32) continue;
            const hspec h = {st, nb, 1, 0, 0, e, ti & 1 ? PP_U64 : PP_U32};
            const size_t n = kind == 4 ? nmax : 4 * 33 * nb + 1001; /* 4 (cells + nbins), cells <= 32 nbins */
            const double lo = isinf(e[0]) ? -150 : e[0] - 10, hi = isinf(e[nb]) ? 150 : e[nb] + 10;
            grid_force(ctx, form);
            char what[160];
            snprintf(what, sizeof what, "%s, uniform, %s", name, form->name);
            fill_uniform(&r, host, n, st, lo, hi);
            check_hist(env, host, n, &h, what);
            grid_check(ctx, form, what, &octave);
            TC_CHECK(!(kind == 0 && form->grid == 2) || last_plan(ctx).param[1] == 3, "%s: not the octave grid", what);
            for (size_t i = 0; i < n; ++i) {
                long double v;
                const unsigned pick = (unsigned)tc_below(&r, 16);
                if (pick == 0 && tc_is_float(st)) {
                    const long double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-310};
                    v = sp[tc_below(&r, 6)];
                } else {
                    v = e[tc_below(&r, nb + 1)];
                    if (isinf((double)v)) v = tc_is_float(st) ? v : 0;
                    if (st == PP_F32) {
                        const float vf = (float)v; /* nearest float, then maybe a neighbour */
                        const unsigned side = (unsigned)tc_below(&r, 3);
                        v = side == 0 ? vf : nextafterf(vf, side == 1 ? INFINITY : -INFINITY);
                    } else if (st == PP_F64) {
                        const unsigned side = (unsigned)tc_below(&r, 3);
                        v = side == 0 ? v : nextafter((double)v, side == 1 ? INFINITY : -INFINITY);
                    } else {
                        v = floorl(v) + (long double)((int)tc_below(&r, 3) - 1);
                    }
                }
                store(host, i, st, v);
            }
            snprintf(what, sizeof what, "%s, at and next to the edges, NaN, infinities, %s", name, form->name);
            check_hist(env, host, n, &h, what);
            grid_check(ctx, form, what, &octave);
        }
        free(e);
    }
    grid_force(ctx, NULL);
    TC_CHECK(octave >= 8, "the octave grid ran %d times, want at least 8", octave);
    free(host);
}

/* Random edge sets for the cell grid's exactness: sorted draws from a pool that mixes spread
 * values, float and double subnormals, signed zeros, runs of adjacent floats, doubles between
 * two adjacent floats (an f32 sample compares with the edge rounded up to a float), duplicated
 * edges, values beyond the float range (infinite as f32 keys) and infinite edges. */
static double random_edge(tc_rng *r, const double *e, size_t have)
{
    switch (tc_below(r, 10)) {
    case 0: return (tc_below(r, 2) ? 1 : -1) * ldexp((double)(1 + tc_below(r, 1000)), -149); /* float subnormal */
    case 1: return (tc_below(r, 2) ? 1 : -1) * 1e-310 * (1 + tc_unit(r));                    /* double subnormal */
    case 2: return tc_below(r, 2) ? 0.0 : -0.0;
    case 3: { /* the next float after a pool value, or the double between it and its neighbour */
        if (!have) return 1.0;
        const float f = (float)e[tc_below(r, have)];
        const float g = nextafterf(f, tc_below(r, 2) ? INFINITY : -INFINITY);
        return tc_below(r, 3) ? (double)g : ((double)f + (double)g) / 2;
    }
    case 4: return have ? e[tc_below(r, have)] : 0.0; /* a duplicate */
    case 5: { /* a huge value: near or past FLT_MAX, or far past it */
        const double big[] = {3.0e38, 3.4028234663852886e38, 3.5e38, 1e300};
        return (tc_below(r, 2) ? 1 : -1) * big[tc_below(r, 4)];
    }
    case 6: return tc_below(r, 2) ? INFINITY : -INFINITY;
    default: return -100.0 + 200.0 * tc_unit(r) * tc_unit(r); /* spread, denser near -100 */
    }
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A sample near the edges of e (nb + 1 of them), as type st stores it. */
static long double sample_near(tc_rng *r, const double *e, size_t nb, pp_dtype st)
{
    const unsigned pick = (unsigned)tc_below(r, 8);
    if (pick == 0 && tc_is_float(st)) {
        const long double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-45, -1e-45, 1e-310, -1e-310, 3.4e38, -3.4e38};
        return sp[tc_below(r, sizeof sp / sizeof sp[0])];
    }
    double v = e[tc_below(r, nb + 1)];
    if (pick == 1) v = -100.0 + 200.0 * tc_unit(r);
    if (st == PP_F32) {
        float f = (float)v;
        for (unsigned k = (unsigned)tc_below(r, 4); k > 0; --k) f = nextafterf(f, tc_below(r, 2) ? INFINITY : -INFINITY);
        return f;
    }
    if (st == PP_F64) {
        if (tc_below(r, 2)) v = nextafter(v, tc_below(r, 2) ? INFINITY : -INFINITY);
        return v;
    }
    if (isinf(v) || v > 2e9 || v < -2e9) v = 0; /* i32 */
    return floorl((long double)v) + (long double)((int)tc_below(r, 3) - 1);
}

/* CPU: random edge sets through the cell grid (plan param[1] = 1), f32, f64 and i32 samples
 * against the oracle. */
static void t_range_grid_random(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    tc_rng r = tc_rng_for("range grid random");
    static const size_t nbs[] = {1, 2, 3, 5, 17, 100, 1000, 4096};
    static const pp_dtype types[] = {PP_F32, PP_F64, PP_I32};
    const int trials = tc_thorough() ? 6 : 2;
    const size_t nmax = 4 * (((size_t)16 << 12) + 4096) + 4099; /* n / 4 >= cells + nbins at 4096 bins */
    void *host = tc_xmalloc(nmax * 8);
    int octave = 0;
    for (int trial = 0; trial < trials; ++trial)
        for (size_t bi = 0; bi < sizeof nbs / sizeof nbs[0]; ++bi) {
            const size_t nb = nbs[bi];
            double *e = (double *)tc_xmalloc((nb + 1) * sizeof *e);
            for (size_t k = 0; k <= nb; ++k) e[k] = random_edge(&r, e, k);
            qsort(e, nb + 1, sizeof *e, cmp_double);
            size_t cells = 1;
            while (cells < 16 * nb && cells < ((size_t)1 << 18)) cells *= 2;
            const size_t n = 4 * (cells + nb) + 1 + (size_t)tc_below(&r, 64);
            for (size_t ti = 0; ti < 3; ++ti)
              for (size_t fi = 0; fi < N_GRID_FORMS(types[ti]); ++fi) {
                const pp_dtype st = types[ti];
                const struct grid_form *form = &grid_forms[fi];
                const hspec h = {st, nb, 1, 0, 0, e, (trial + ti) & 1 ? PP_U64 : PP_U32};
                grid_force(ctx, form);
                char what[200];
                snprintf(what, sizeof what, "random edges (trial %d, edges %.9g .. %.9g), %s", trial, e[0], e[nb], form->name);
                for (size_t i = 0; i < n; ++i) store(host, i, st, sample_near(&r, e, nb, st));
                check_hist(env, host, n, &h, what);
                grid_check(ctx, form, what, &octave);
            }
            free(e);
        }
    grid_force(ctx, NULL);
    TC_CHECK(octave >= trials, "the octave grid ran %d times, want at least %d", octave, trials);
    free(host);
}

/* ---- every GPU strategy, forced ---- */

/* A forced plan: strategy and the options beside it (0: the chooser's). */
typedef struct hist_config {
    pp_hist_strategy strategy;
    int64_t copies, range_bins, cluster;
} hist_config;

static const char *const strategy_names[] = {"auto", "shared", "global", "cluster", "u8"};

/* Every histogram option back to its default (the chooser). */
static void reset_hist_options(tc_env *env)
{
    static const pp_option opts[] = {PP_OPTION_HIST_STRATEGY, PP_OPTION_HIST_COPIES, PP_OPTION_HIST_RANGE_BINS,
                                     PP_OPTION_HIST_CLUSTER, PP_OPTION_RBI_STRATEGY, PP_OPTION_RBI_COPIES};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; ++i) {
        int64_t dflt = 0;
        assert_int_equal(pp_option_bounds(opts[i], NULL, NULL, &dflt), PP_OK);
        TC_OK(env->ctx, pp_context_set_option(env->ctx, opts[i], dflt));
    }
}

static void set_config(tc_env *env, const hist_config *c)
{
    TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_HIST_STRATEGY, c->strategy));
    TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_HIST_COPIES, c->copies));
    TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_HIST_RANGE_BINS, c->range_bins));
    TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_HIST_CLUSTER, c->cluster));
}

/* After a histogram of `st` samples under config c: the plan must be the forced strategy
 * (u8 applies to u8 samples only; the others fall back to the chooser, as parprim.h says).
 * CLUSTER on a device (or build) without clusters: the case skips, saying so, rather than
 * passing with the chooser's plan. */
static void expect_plan(tc_env *env, const hist_config *c, pp_dtype st, size_t nbins)
{
    pp_plan plan;
    TC_OK(env->ctx, pp_context_last_plan(env->ctx, &plan));
    TC_CHECK(!strcmp(plan.family, "histogram"), "plan family '%s', want 'histogram'", plan.family);
    if (c->strategy == PP_HIST_STRATEGY_AUTO || (c->strategy == PP_HIST_STRATEGY_U8 && st != PP_U8)) return;
    const char *want = strategy_names[c->strategy];
    if (c->strategy == PP_HIST_STRATEGY_CLUSTER && strcmp(plan.strategy, want) != 0) {
        print_message("    (skipped: forced strategy 'cluster' ran as '%s': this device or build has no thread-block "
                      "clusters)\n", plan.strategy);
        reset_hist_options(env);
        skip();
    }
    TC_CHECK(!strcmp(plan.strategy, want), "forced strategy '%s' ran as '%s' (%zu bins)", want, plan.strategy, nbins);
    if (c->strategy == PP_HIST_STRATEGY_SHARED && c->copies)
        TC_CHECK(plan.param[0] <= c->copies, "forced %lld copies, plan has %lld", (long long)c->copies,
                 (long long)plan.param[0]);
    if (c->strategy == PP_HIST_STRATEGY_CLUSTER && c->cluster)
        TC_CHECK(plan.param[2] <= c->cluster, "forced cluster %lld, plan has %lld", (long long)c->cluster,
                 (long long)plan.param[2]);
}

/* HIP: the same checks under each strategy forced in turn, configs[first, last), each call's
 * plan checked (expect_plan); several cmocka cases below, so that compute-sanitizer can take
 * them in parallel processes (PP_TEST_FILTER). */
static void hip_strategies_bins(tc_env *env, size_t first, size_t last, size_t nb_first, size_t nb_last)
{
    static const hist_config configs[] = {
        {PP_HIST_STRATEGY_SHARED, 0, 0, 0},    {PP_HIST_STRATEGY_SHARED, 1, 0, 0},
        {PP_HIST_STRATEGY_SHARED, 32, 0, 0},   {PP_HIST_STRATEGY_SHARED, 4, 1000, 0},
        {PP_HIST_STRATEGY_SHARED, 0, 257, 0},  {PP_HIST_STRATEGY_GLOBAL, 0, 0, 0},
        {PP_HIST_STRATEGY_CLUSTER, 0, 0, 0},   {PP_HIST_STRATEGY_CLUSTER, 0, 0, 2},
        {PP_HIST_STRATEGY_CLUSTER, 0, 3000, 4}, {PP_HIST_STRATEGY_CLUSTER, 0, 0, 8},
        {PP_HIST_STRATEGY_CLUSTER, 0, 1024, 16}, /* 16: non-portable size, small slices */
        {PP_HIST_STRATEGY_U8, 0, 0, 0},        {PP_HIST_STRATEGY_AUTO, 0, 0, 0},
    };
    tc_rng r = tc_rng_for("strategies");
    const size_t n = 300007;
    void *host = tc_xmalloc(n * 8);
    if (last > sizeof configs / sizeof configs[0]) last = sizeof configs / sizeof configs[0];
    for (size_t c = first; c < last; ++c) {
        const hist_config *cf = &configs[c];
        set_config(env, cf);
        static const size_t nbs[] = {1, 255, 256, 4096, 65536, (size_t)1 << 20};
        for (size_t bi = nb_first; bi < nb_last && bi < sizeof nbs / sizeof nbs[0]; ++bi) {
            const size_t nb = nbs[bi];
            char what[128];
            snprintf(what, sizeof what, "strategy %s copies %lld range_bins %lld cluster %lld",
                     strategy_names[cf->strategy], (long long)cf->copies, (long long)cf->range_bins,
                     (long long)cf->cluster);
            const hspec hf = {PP_F32, nb, 0, -1, 1, NULL, bi & 1 ? PP_U64 : PP_U32};
            fill_uniform(&r, host, n, PP_F32, -1, 1);
            check_hist(env, host, n, &hf, what);
            expect_plan(env, cf, PP_F32, nb);
            check_hist_off(env, host, n - 7, &hf, what, 3); /* unaligned head and a tail */
            expect_plan(env, cf, PP_F32, nb);
            fill_skewed(host, n, PP_F32, nb, -1, 1);
            check_hist(env, host, n, &hf, what);
            expect_plan(env, cf, PP_F32, nb);
            const hspec hi = {PP_I32, nb, 0, -5000, 5000, NULL, PP_U64};
            fill_uniform(&r, host, n, PP_I32, -5000, 5000);
            check_hist(env, host, n, &hi, what);
            expect_plan(env, cf, PP_I32, nb);
            const hspec hu32 = {PP_U32, nb, 0, 1000, 4294967296.0 - 1000, NULL, PP_U32};
            fill_uniform(&r, host, n, PP_U32, hu32.lo, hu32.hi);
            check_hist_off(env, host, n - 2, &hu32, what, 1);
            expect_plan(env, cf, PP_U32, nb);
            const hspec hu = {PP_U8, nb, 0, 0, 256, NULL, PP_U32};
            for (size_t i = 0; i < n; ++i) ((uint8_t *)host)[i] = (uint8_t)tc_next(&r);
            check_hist(env, host, n, &hu, what);
            expect_plan(env, cf, PP_U8, nb);
            check_hist_off(env, host, n - 5, &hu, what, 5);
            expect_plan(env, cf, PP_U8, nb);
            double *e = make_edges(&r, nb, 0);
            const hspec hr = {PP_F64, nb, 1, 0, 0, e, PP_U32};
            fill_uniform(&r, host, n, PP_F64, -110, 110);
            check_hist(env, host, n, &hr, what);
            expect_plan(env, cf, PP_F64, nb);
            check_hist_off(env, host, n - 1, &hr, what, 1); /* 8-byte samples off 16-byte alignment */
            expect_plan(env, cf, PP_F64, nb);
            const hspec hr8 = {PP_U8, nb, 1, 0, 0, e, PP_U64};
            for (size_t i = 0; i < n; ++i) ((uint8_t *)host)[i] = (uint8_t)tc_next(&r);
            check_hist(env, host, n, &hr8, what);
            expect_plan(env, cf, PP_U8, nb);
            free(e);
        }
    }
    reset_hist_options(env);
    free(host);
}
static void hip_strategies(tc_env *env, size_t first, size_t last) { hip_strategies_bins(env, first, last, 0, 6); }
static void t_hip_strategies_shared(void **state) { hip_strategies(tc_envp(state), 0, 5); }
static void t_hip_strategies_global(void **state) { hip_strategies(tc_envp(state), 5, 6); }
/* The clusters one configuration per case, the slowest two also split by bin count (1 to
 * 4096; 65536 and 2^20): racecheck instruments every distributed-shared-memory access; the
 * five configurations together did not finish in 480 s under it, and alone the chooser's
 * cluster size and 16 blocks per cluster did not finish in 575 s (2 to 8 blocks: 252-521 s). */
static void t_hip_strategies_cluster(void **state) { hip_strategies_bins(tc_envp(state), 6, 7, 0, 4); }
static void t_hip_strategies_cluster_big(void **state) { hip_strategies_bins(tc_envp(state), 6, 7, 4, 6); }
static void t_hip_strategies_cluster_k2(void **state) { hip_strategies(tc_envp(state), 7, 8); }
static void t_hip_strategies_cluster_k4(void **state) { hip_strategies(tc_envp(state), 8, 9); }
static void t_hip_strategies_cluster_k8(void **state) { hip_strategies(tc_envp(state), 9, 10); }
static void t_hip_strategies_cluster_k16(void **state) { hip_strategies_bins(tc_envp(state), 10, 11, 0, 4); }
static void t_hip_strategies_cluster_k16_big(void **state) { hip_strategies_bins(tc_envp(state), 10, 11, 4, 6); }
static void t_hip_strategies_u8_auto(void **state) { hip_strategies(tc_envp(state), 11, 13); }

/* ---- reduce by index ---- */

static const pp_dtype rbi_types[] = {PP_I32, PP_U32, PP_I64, PP_U64, PP_F32, PP_F64};
static const pp_op rbi_ops[] = {PP_OP_SUM, PP_OP_MIN, PP_OP_MAX};

/* Whether float a precedes b in the min order: numeric, -0.0 below +0.0. */
static int float_less(long double a, long double b)
{
    if (a != b) return a < b;
    return signbit(a) && !signbit(b);
}

/* Oracle of out[j] for every j: integers in 64-bit (wrapping to the type), floats exactly
 * (long double sums with the bound's terms), NaN flags for min / max. */
typedef struct rbi_oracle {
    uint64_t *iv;       /* integers: result bits (sign-extended for i32) */
    long double *fv;    /* floats: sum / extreme */
    long double *abs;   /* floats: |initial| + sum |values| */
    uint64_t *count;    /* values per output */
    unsigned char *nan; /* min / max saw a NaN */
    uint64_t skipped;
} rbi_oracle;

static void rbi_reference(rbi_oracle *o, const void *vals, const uint32_t *idx, size_t n, pp_dtype t, pp_op op,
                          const void *init, size_t n_out)
{
    const int fl = tc_is_float(t), sg = tc_is_signed(t);
    o->iv = (uint64_t *)calloc(n_out + 1, 8);
    o->fv = (long double *)calloc(n_out + 1, sizeof(long double));
    o->abs = (long double *)calloc(n_out + 1, sizeof(long double));
    o->count = (uint64_t *)calloc(n_out + 1, 8);
    o->nan = (unsigned char *)calloc(n_out + 1, 1);
    o->skipped = 0;
    for (size_t j = 0; j < n_out; ++j) {
        if (fl) {
            const long double v = tc_value(init, j, t);
            o->fv[j] = v;
            o->abs[j] = fabsl(v);
            o->nan[j] = isnan(v) != 0;
        } else {
            o->iv[j] = tc_bits(init, j, t);
            if (t == PP_I32) o->iv[j] = (uint64_t)(int64_t)(int32_t)(uint32_t)o->iv[j];
        }
    }
    for (size_t i = 0; i < n; ++i) {
        const size_t j = idx[i];
        if (j >= n_out) {
            o->skipped++;
            continue;
        }
        o->count[j]++;
        if (fl) {
            const long double v = tc_value(vals, i, t);
            if (op == PP_OP_SUM) {
                o->fv[j] += v; /* long double: exact enough for the data used (see below) */
                o->abs[j] += fabsl(v);
            } else if (isnan(v)) {
                o->nan[j] = 1;
            } else if (!o->nan[j]) {
                if (op == PP_OP_MIN ? float_less(v, o->fv[j]) : float_less(o->fv[j], v)) o->fv[j] = v;
            }
        } else {
            uint64_t v = tc_bits(vals, i, t);
            if (t == PP_I32) v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
            uint64_t *a = &o->iv[j];
            if (op == PP_OP_SUM) *a += v;
            else if (op == PP_OP_MIN) *a = (sg ? (int64_t)v < (int64_t)*a : v < *a) ? v : *a;
            else *a = (sg ? (int64_t)v > (int64_t)*a : v > *a) ? v : *a;
        }
    }
}

static void rbi_free(rbi_oracle *o)
{
    free(o->iv);
    free(o->fv);
    free(o->abs);
    free(o->count);
    free(o->nan);
}

/* Run pp_reduce_by_index on host data and check every output and the skip count. */
/* The values and indices are uploaded whole and passed at elements voff and ioff (device
 * pointers off 16-byte alignment when nonzero); n counts from there. */
static void check_rbi_off(tc_env *env, const void *vals0, const uint32_t *idx0, size_t n, pp_dtype t, pp_op op,
                          const void *init, size_t n_out, int with_skipped, const char *what, size_t voff,
                          size_t ioff)
{
    pp_context *ctx = env->ctx;
    const size_t es = tc_size(t);
    tc_case("%s: reduce_by_index %s %s, n = %zu, n_out = %zu, %s (values at %zu, indices at %zu)",
            pp_backend_name(env->backend), tc_oname(op), tc_dname(t), n, n_out, what, voff, ioff);
    const void *vals = vals0 ? (const char *)vals0 + voff * es : NULL;
    const uint32_t *idx = idx0 ? idx0 + ioff : NULL;
    rbi_oracle o;
    rbi_reference(&o, vals, idx, n, t, op, init, n_out);
    void *dvb = tc_upload(ctx, vals0, n ? (n + voff) * es : 0);
    uint32_t *dib = (uint32_t *)tc_upload(ctx, idx0, n ? (n + ioff) * 4 : 0);
    void *dv = dvb ? (char *)dvb + voff * es : NULL;
    uint32_t *di = dib ? dib + ioff : NULL;
    const size_t bytes = (n_out + 4) * es;
    unsigned char *dout = (unsigned char *)tc_alloc(ctx, bytes);
    TC_OK(ctx, pp_memset(ctx, dout + n_out * es, TC_SENTINEL, 4 * es));
    if (n_out) TC_OK(ctx, pp_memcpy(ctx, dout, init, n_out * es, PP_COPY_HOST_TO_CONTEXT));
    uint64_t *dsk = (uint64_t *)tc_alloc(ctx, 16);
    TC_OK(ctx, pp_memset(ctx, dsk, 0x77, 16));
    TC_OK(ctx, pp_reduce_by_index(ctx, dv, n, t, di, op, n_out ? dout : NULL, n_out, with_skipped ? dsk : NULL));
    unsigned char *got = (unsigned char *)tc_xmalloc(bytes);
    tc_download(ctx, got, dout, bytes);
    uint64_t sk[2];
    tc_download(ctx, sk, dsk, 16);
    if (with_skipped)
        TC_CHECK(sk[0] == o.skipped, "n_skipped %llu, want %llu", (unsigned long long)sk[0],
                 (unsigned long long)o.skipped);
    else
        TC_CHECK(sk[0] == 0x7777777777777777ull, "n_skipped written although NULL was passed");
    TC_CHECK(sk[1] == 0x7777777777777777ull, "bytes past n_skipped were written");
    const long double u = t == PP_F32 ? 0x1p-24L : 0x1p-53L;
    for (size_t j = 0; j < n_out; ++j) {
        if (tc_is_float(t)) {
            const long double g = tc_value(got, j, t);
            if (op == PP_OP_SUM) {
                const long double m = (long double)o.count[j], gm = m * u / (1 - m * u);
                const long double bound = gm * o.abs[j];
                TC_CHECK(fabsl(g - o.fv[j]) <= bound, "out[%zu] = %.21Lg, exact %.21Lg, |error| %.3Lg > bound %.3Lg (%llu values)",
                         j, g, o.fv[j], fabsl(g - o.fv[j]), bound, (unsigned long long)o.count[j]);
            } else if (o.nan[j]) {
                TC_CHECK(isnan(g), "out[%zu] = %.21Lg, want a NaN", j, g);
            } else {
                TC_CHECK(g == o.fv[j] && signbit(g) == signbit(o.fv[j]), "out[%zu] = %.21Lg, want %.21Lg", j, g,
                         o.fv[j]);
            }
        } else {
            const uint64_t g = tc_bits(got, j, t), w = o.iv[j] & tc_mask(t);
            TC_CHECK(g == w, "out[%zu] = 0x%llx, want 0x%llx (%llu values)", j, (unsigned long long)g,
                     (unsigned long long)w, (unsigned long long)o.count[j]);
        }
    }
    for (size_t k = n_out * es; k < bytes; ++k)
        TC_CHECK(got[k] == TC_SENTINEL, "byte %zu past out was written", k - n_out * es);
    free(got);
    tc_free(ctx, dsk);
    tc_free(ctx, dout);
    if (dib) tc_free(ctx, dib);
    if (dvb) tc_free(ctx, dvb);
    rbi_free(&o);
}

static void check_rbi(tc_env *env, const void *vals, const uint32_t *idx, size_t n, pp_dtype t, pp_op op,
                      const void *init, size_t n_out, int with_skipped, const char *what)
{
    check_rbi_off(env, vals, idx, n, t, op, init, n_out, with_skipped, what, 0, 0);
}

/* Values of type t: integers random (all bits), floats random in +-[2^-8, 2^9) (the float sum
 * oracle in long double is then exact for sums of up to 2^40 values). */
static void rbi_values(tc_rng *r, void *a, size_t n, pp_dtype t) { tc_fill(r, a, n, t, TC_RANDOM); }

static void rbi_indices(tc_rng *r, uint32_t *idx, size_t n, size_t n_out, int layout)
{
    for (size_t i = 0; i < n; ++i) {
        switch (layout) {
        case 0: idx[i] = (uint32_t)tc_below(r, n_out + n_out / 8 + 1); break; /* ~11% out of range */
        case 1: idx[i] = (uint32_t)(n_out / 2); break;                        /* all in one output */
        case 2: idx[i] = tc_below(r, 64) ? (uint32_t)tc_below(r, n_out ? n_out : 1) : UINT32_MAX - (uint32_t)tc_below(r, 3); break;
        default: idx[i] = (uint32_t)((i * 7) % (n_out + 1)); break;         /* sequential runs */
        }
    }
}

static void t_rbi(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t outs[] = {1, 5, 4096, 70001};
    static const size_t ns[] = {0, 1, 1000, 100003, (1u << 20) + 7};
    const size_t nmax = (1u << 20) + 7;
    void *vals = tc_xmalloc(nmax * 8);
    uint32_t *idx = (uint32_t *)tc_xmalloc(nmax * 4);
    void *init = tc_xmalloc(70001 * 8 + 8);
    for (size_t ti = 0; ti < 6; ++ti)
        for (size_t oi = 0; oi < 3; ++oi) {
            const pp_dtype t = rbi_types[ti];
            const pp_op op = rbi_ops[oi];
            char tag[64];
            snprintf(tag, sizeof tag, "rbi %s %s", tc_dname(t), tc_oname(op));
            tc_rng r = tc_rng_for(tag);
            for (size_t k = 0; k < sizeof outs / sizeof outs[0]; ++k)
                for (size_t q = 0; q < sizeof ns / sizeof ns[0]; ++q) {
                    const size_t n = ns[q], n_out = outs[k];
                    if (n > 200000 && (k % 2 == 0) != (oi == 0)) continue; /* keep the run short */
                    const int layout = (int)((k + q + oi) % 4);
                    rbi_values(&r, vals, n, t);
                    rbi_indices(&r, idx, n, n_out, layout);
                    if (op == PP_OP_SUM) tc_fill(&r, init, n_out, t, TC_RANDOM);
                    else tc_fill(&r, init, n_out, t, TC_RANDOM);
                    static const char *const names[] = {"uniform, ~11% out of range", "all in one output",
                                                        "near-UINT32_MAX indices", "runs"};
                    check_rbi(env, n ? vals : NULL, n ? idx : NULL, n, t, op, init, n_out, (q & 1) == 0, names[layout]);
                }
        }
    free(init);
    free(idx);
    free(vals);
}

/* Min / max with NaN, zeros of both signs and infinities, in the values and in out. */
static void t_rbi_special(void **state)
{
    tc_env *env = tc_envp(state);
    tc_rng r = tc_rng_for("rbi special");
    const size_t n = 50021, n_out = 97;
    double *vals = (double *)tc_xmalloc(n * 8);
    uint32_t *idx = (uint32_t *)tc_xmalloc(n * 4);
    double init[97];
    for (int ti = 0; ti < 2; ++ti) {
        const pp_dtype t = ti ? PP_F64 : PP_F32;
        const long double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 1e-310, 3.5};
        for (size_t i = 0; i < n; ++i) {
            /* NaN rare enough that most outputs see none */
            const size_t k = tc_below(&r, 400) == 0 ? 0 : 1 + tc_below(&r, 8);
            tc_store_value(vals, i, t, sp[k]);
            idx[i] = (uint32_t)tc_below(&r, n_out);
        }
        for (size_t j = 0; j < n_out; ++j) tc_store_value(init, j, t, j == 3 ? NAN : sp[1 + tc_below(&r, 8)]);
        for (int oi = 0; oi < 3; ++oi) {
            if (oi == 0) continue; /* sums of infinities: NaN or inf, covered by parity */
            check_rbi(env, vals, idx, n, t, rbi_ops[oi], init, n_out, 1, "NaN, +-inf, +-0, subnormals");
        }
        /* Only zeros: -0.0 is below +0.0. */
        for (size_t i = 0; i < n; ++i) tc_store_value(vals, i, t, tc_below(&r, 2) ? 0.0 : -0.0L);
        for (size_t j = 0; j < n_out; ++j) tc_store_value(init, j, t, j % 2 ? 0.0 : -0.0L);
        check_rbi(env, vals, idx, n, t, PP_OP_MIN, init, n_out, 1, "zeros of both signs");
        check_rbi(env, vals, idx, n, t, PP_OP_MAX, init, n_out, 1, "zeros of both signs");
    }
    free(idx);
    free(vals);
}

/* The plan of the last reduce by index: a forced strategy must have run (both are available
 * on every device wherever the partial outputs fit shared memory; 70001 outputs of 8 bytes
 * do not fit one block's, so SHARED forced there falls back to GLOBAL). */
static void expect_rbi_plan(tc_env *env, const char *strategy, size_t n_out)
{
    pp_plan plan;
    TC_OK(env->ctx, pp_context_last_plan(env->ctx, &plan));
    TC_CHECK(!strcmp(plan.family, "reduce_by_index"), "plan family '%s', want 'reduce_by_index'", plan.family);
    if (!strcmp(strategy, "auto") || (!strcmp(strategy, "shared") && n_out > 4096)) return;
    TC_CHECK(!strcmp(plan.strategy, strategy), "forced strategy '%s' ran as '%s' (%zu outputs)", strategy,
             plan.strategy, n_out);
}

/* HIP: reduce by index under each strategy. */
static void t_hip_rbi_strategies(void **state)
{
    tc_env *env = tc_envp(state);
    static const char *const strategies[] = {"shared", "global", "auto"};
    static const int64_t strategy_values[] = {PP_HIST_STRATEGY_SHARED, PP_HIST_STRATEGY_GLOBAL, PP_HIST_STRATEGY_AUTO};
    tc_rng r = tc_rng_for("rbi strategies");
    const size_t n = 300007;
    void *vals = tc_xmalloc(n * 8);
    uint32_t *idx = (uint32_t *)tc_xmalloc(n * 4);
    void *init = tc_xmalloc(70001 * 8);
    for (size_t s = 0; s < 3; ++s) {
        TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_RBI_STRATEGY, strategy_values[s]));
        for (size_t ti = 0; ti < 6; ++ti)
            for (size_t oi = 0; oi < 3; ++oi) {
                static const size_t outs[] = {7, 4096, 70001};
                for (size_t k = 0; k < 3; ++k) {
                    const pp_dtype t = rbi_types[ti];
                    rbi_values(&r, vals, n, t);
                    rbi_indices(&r, idx, n, outs[k], (int)(k + ti) % 4);
                    tc_fill(&r, init, outs[k], t, TC_RANDOM);
                    check_rbi(env, vals, idx, n, t, rbi_ops[oi], init, outs[k], 1, strategies[s]);
                    expect_rbi_plan(env, strategies[s], outs[k]);
                    check_rbi_off(env, vals, idx, n - 3, t, rbi_ops[oi], init, outs[k], 1, strategies[s], 1, 3);
                    check_rbi_off(env, vals, idx, n - 3, t, rbi_ops[oi], init, outs[k], 1, strategies[s], 2, 2);
                }
            }
    }
    reset_hist_options(env);
    free(init);
    free(idx);
    free(vals);
}

/* n_out == 0 (out NULL): everything is skipped and counted; n == 0: nothing to do, the count
 * is still written. */
static void t_rbi_empty(void **state)
{
    tc_env *env = tc_envp(state);
    const int32_t v[3] = {1, 2, 3};
    const uint32_t ix[3] = {0, 5, UINT32_MAX};
    check_rbi(env, v, ix, 3, PP_I32, PP_OP_SUM, v, 0, 1, "n_out = 0");
    check_rbi(env, NULL, NULL, 0, PP_F32, PP_OP_MAX, v, 3, 1, "n = 0");
    check_rbi(env, NULL, NULL, 0, PP_F32, PP_OP_MAX, v, 0, 1, "n = 0 and n_out = 0");
}

/* ---- the f32 binning in float arithmetic (pp_hist_bin_f32; the CPU's vector loop) ---- */

static uint32_t float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static uint32_t bin_f32_checked(float x, const pp_hist_even *p, const char *what, unsigned long long *checked)
{
    const uint32_t fast = pp_hist_bin_f32(x, p), def = pp_hist_bin_float((double)x, p);
    if (fast != def)
        fail_msg("%s: f32 binning of %.9g (bits %08x) gives %u, the definition %u (%u bins over [%.17g, %.17g), "
                 "scale %.9g, offset %.9g, err %.3g)",
                 what, (double)x, (unsigned)float_bits(x), fast, def, p->nbins, p->lower, p->upper,
                 (double)p->fscale, (double)p->foff, (double)p->ferr);
    ++*checked;
    return fast;
}

/*
 * pp_hist_bin_f32 (float arithmetic, falling back to doubles near bin boundaries) must give
 * the bin of the definition (pp_hist_bin_float on the double of the sample) for every f32
 * sample. Checked for the bench's binnings, ranges off zero and random ones: random samples,
 * and the floats within 8 ulps of every bin boundary (where a wrong error bound shows).
 */
static void t_f32_binning(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("f32 binning");
    struct { double lo, hi; uint32_t nbins; } cfg[64] = {
        {-1, 1, 256}, {-1, 1, 4096}, {-1, 1, 65536}, {-1, 1, 1u << 20}, {0, 1, 256}, {0, 256, 256},
        {1000, 1001, 4096}, {-3.5, 1e6, 65536}, {0.1, 0.7, 3}, {-1e-30, 1e-30, 1000},
    };
    size_t ncfg = 10;
    while (ncfg < sizeof cfg / sizeof cfg[0]) { /* random ranges and bin counts */
        const double lo = (tc_unit(&r) - 0.5) * pow(10.0, (double)tc_below(&r, 9) - 3);
        const double w = pow(10.0, (double)tc_below(&r, 13) - 6) * (0.5 + tc_unit(&r));
        cfg[ncfg].lo = lo;
        cfg[ncfg].hi = lo + w;
        cfg[ncfg].nbins = 1u + (uint32_t)tc_below(&r, (uint64_t)1 << (1 + tc_below(&r, 20)));
        ncfg++;
    }
    unsigned long long checked = 0, fast_cfgs = 0;
    for (size_t c = 0; c < ncfg; c++) {
        pp_hist_even p;
        memset(&p, 0, sizeof p);
        p.nbins = cfg[c].nbins;
        p.lower = cfg[c].lo;
        p.upper = cfg[c].hi;
        p.scale = (double)p.nbins / (p.upper - p.lower);
        p.flower = pp_hist_ceil_to_float(p.lower);
        p.fupper = pp_hist_ceil_to_float(p.upper);
        pp_hist_f32_params(&p);
        fast_cfgs += p.f32_fast;
        char what[96];
        snprintf(what, sizeof what, "config %zu", c);
        for (int i = 0; i < 20000; i++) { /* random samples, a few outside the range */
            const double x = p.lower + (tc_unit(&r) * 1.1 - 0.05) * (p.upper - p.lower);
            bin_f32_checked((float)x, &p, what, &checked);
        }
        const uint32_t step = p.nbins > 4096 ? p.nbins / 4096 : 1; /* boundaries: all, or 4096 of them */
        for (uint64_t b = 0; b <= p.nbins; b += step) {
            const float e = (float)(p.lower + (double)b / p.scale);
            float lo = e, hi = e;
            for (int k = 0; k < 8; k++) lo = nextafterf(lo, -INFINITY), hi = nextafterf(hi, INFINITY);
            for (float x = lo; x <= hi; x = nextafterf(x, INFINITY)) bin_f32_checked(x, &p, what, &checked);
        }
        const float special[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, p.flower, p.fupper, 1e-45f, -1e-45f};
        for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) bin_f32_checked(special[i], &p, what, &checked);
    }
    print_message("f32 binning: %llu samples over %zu binnings (%llu with the float path) agree with the definition\n",
                  checked, ncfg, fast_cfgs);
    assert_true(fast_cfgs >= 8); /* the float path is in fact exercised */
}

int main(void)
{
    tc_init("test_histogram");
    const struct CMUnitTest tests[] = {
        TC_BOTH(t_even_f32),     TC_BOTH(t_even_f64),     TC_BOTH(t_even_special), TC_BOTH(t_even_sizes),
        TC_BOTH(t_even_many_bins), TC_CPU(t_even_f32_widths), TC_CPU(t_even_rounds), TC_CPU(t_range_grid),
        TC_CPU(t_range_grid_random),
        TC_BOTH(t_even_int),     TC_BOTH(t_u8_256),       TC_BOTH(t_range),        TC_BOTH(t_range_uneven),
        TC_HIP(t_hip_strategies_shared), TC_HIP(t_hip_strategies_global),
        TC_HIP(t_hip_strategies_cluster), TC_HIP(t_hip_strategies_cluster_big), TC_HIP(t_hip_strategies_cluster_k2),
        TC_HIP(t_hip_strategies_cluster_k4), TC_HIP(t_hip_strategies_cluster_k8), TC_HIP(t_hip_strategies_cluster_k16),
        TC_HIP(t_hip_strategies_cluster_k16_big), TC_HIP(t_hip_strategies_u8_auto),
        TC_BOTH(t_rbi),          TC_BOTH(t_rbi_special),  TC_BOTH(t_rbi_empty),    TC_HIP(t_hip_rbi_strategies),
        cmocka_unit_test(t_f32_binning),
    };
    return TC_RUN("histogram", tests);
}
