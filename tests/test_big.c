/*
 * test_big.c -- counts past 2^31 and 2^32 (ctest label "big"; needs about 4 GiB of memory
 * in the context's space, plus a 256 MiB staging buffer on the host for HIP).
 *
 * u8 arrays of n = 2^31 + 2^20 + 7 and n = 2^32 + 5 elements hold a known pattern in
 * [1, 253] with one 255 and one 0 placed past 2^31 (and past 2^32): sum u8 -> u64 and
 * u8 -> u32 (wrapping), max, min, xor, argmax/argmin (indices past 2^31 / 2^32), and a
 * segmented sum whose segments cross 2^31 and 2^32. HIP also sums 2^31 + 2^20 + 3 f32
 * (memset, no host copy), which the CPU skips (8.6 GB of host memory).
 * Scans, in place so that the memory stays about 4 GiB, checked element by element against
 * a streamed oracle: 2^32 + 2^20 + 5 u8 (inclusive sum, then exclusive xor over offsets
 * crossing 2^31 and 2^32), and 2^31 + 2^20 + 5 u8 with as many head flags (segmented sum).
 * Histograms of the u8 arrays (even and from edges, u64 and u32 counts) against value counts
 * taken while filling them, a select in place (u8 >= 200) of both arrays, and on HIP the f32 array's 2^31 + 2^20 + 2 samples in one bin.
 * The 2-D family (issue 21): the transpose of 65537 x 65536 u8 (past 2^32 elements; 8.6 GB),
 * and a u8 -> u32 table of 16385 x 65536 (output byte offsets past 2^32; 5.4 GB).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define STAGE ((size_t)256 << 20)

static uint8_t pattern(uint64_t i) { return (uint8_t)(1 + (i * 7 + (i >> 17)) % 253); }

/* Segment boundaries of the segmented test: segments cross 2^31 and 2^32, one ends past n. */
#define NCUT 7
static const size_t cuts[NCUT] = {0, 3, ((size_t)1 << 31) - 5, ((size_t)1 << 31) + 9, ((size_t)1 << 32) - 1,
                                  ((size_t)1 << 32) + 3, (size_t)1 << 33};

struct big {
    uint8_t *dev;    /* n elements in the context's space */
    size_t n;
    uint64_t sum;    /* oracle: sum as u64 */
    uint8_t xr;      /* xor */
    uint64_t imax, imin;
    uint64_t prefix[NCUT]; /* sum of the elements before min(cuts[k], n) */
    uint64_t vc[256];      /* how many elements hold each value (the histograms' oracle) */
};

/* Fill the array chunk by chunk, straight into context memory on the CPU (host memory
 * there) and through a staging buffer on HIP; the oracle is computed on the way. */
static struct big make_big(tc_env *env, size_t n, uint64_t imax, uint64_t imin)
{
    struct big b = {NULL, n, 0, 0, imax, imin, {0}, {0}};
    b.dev = (uint8_t *)tc_alloc(env->ctx, n);
    const int direct = env->backend == PP_BACKEND_CPU;
    uint8_t *stage = direct ? NULL : (uint8_t *)tc_xmalloc(STAGE);
    int cut = 0;
    for (size_t base = 0; base < n; base += STAGE) {
        const size_t len = n - base < STAGE ? n - base : STAGE;
        uint8_t *dst = direct ? b.dev + base : stage;
        uint8_t x = 0;
        for (size_t k = 0; k < len;) {
            while (cut < NCUT && cuts[cut] <= base + k) b.prefix[cut++] = b.sum;
            size_t end = len;
            if (cut < NCUT && cuts[cut] < base + len) end = cuts[cut] - base;
            uint64_t s = 0;
            for (; k < end; ++k) {
                const uint64_t i = base + k;
                uint8_t v = pattern(i);
                if (i == imax) v = 255;
                if (i == imin) v = 0;
                dst[k] = v;
                b.vc[v]++;
                s += v;
                x ^= v;
            }
            b.sum += s;
        }
        b.xr ^= x;
        if (!direct) TC_OK(env->ctx, pp_memcpy(env->ctx, b.dev + base, stage, len, PP_COPY_HOST_TO_CONTEXT));
    }
    while (cut < NCUT) b.prefix[cut++] = b.sum;
    free(stage);
    return b;
}

static void check_big(tc_env *env, const struct big *b)
{
    pp_context *ctx = env->ctx;
    const size_t n = b->n;
    _Alignas(16) unsigned char res[16];
    uint64_t u64;
    uint32_t u32;
    for (int s = 0; s < 2; ++s) {
        const pp_result_space sp = s ? PP_RESULT_CONTEXT : PP_RESULT_HOST;
        tc_case("%s: big u8 n = %zu, sum u8->u64, space %d", pp_backend_name(env->backend), n, s);
        TC_OK(ctx, tc_reduce(env, b->dev, n, PP_U8, PP_OP_SUM, PP_U64, sp, res));
        memcpy(&u64, res, 8);
        TC_CHECK(u64 == b->sum, "got %llu, want %llu", (unsigned long long)u64, (unsigned long long)b->sum);
        tc_case("%s: big u8 n = %zu, sum u8->u32 (wraps), space %d", pp_backend_name(env->backend), n, s);
        TC_OK(ctx, tc_reduce(env, b->dev, n, PP_U8, PP_OP_SUM, PP_U32, sp, res));
        memcpy(&u32, res, 4);
        TC_CHECK(u32 == (uint32_t)b->sum, "got %u, want %u", u32, (uint32_t)b->sum);
        tc_case("%s: big u8 n = %zu, sum u8->u8 (wraps)", pp_backend_name(env->backend), n);
        TC_OK(ctx, tc_reduce(env, b->dev, n, PP_U8, PP_OP_SUM, PP_U8, sp, res));
        TC_CHECK(res[0] == (uint8_t)b->sum, "got %u, want %u", res[0], (uint8_t)b->sum);
        tc_case("%s: big u8 n = %zu, max / min / xor", pp_backend_name(env->backend), n);
        TC_OK(ctx, tc_reduce(env, b->dev, n, PP_U8, PP_OP_MAX, PP_U8, sp, res));
        TC_CHECK(res[0] == 255, "max %u", res[0]);
        TC_OK(ctx, tc_reduce(env, b->dev, n, PP_U8, PP_OP_MIN, PP_U8, sp, res));
        TC_CHECK(res[0] == 0, "min %u", res[0]);
        TC_OK(ctx, tc_reduce(env, b->dev, n, PP_U8, PP_OP_XOR, PP_U8, sp, res));
        TC_CHECK(res[0] == b->xr, "xor 0x%02x, want 0x%02x", res[0], b->xr);
        tc_case("%s: big u8 n = %zu, argmax / argmin, space %d", pp_backend_name(env->backend), n, s);
        uint64_t idx;
        TC_OK(ctx, tc_argreduce(env, b->dev, n, PP_U8, PP_OP_MAX, sp, res, &idx));
        TC_CHECK(idx == b->imax && res[0] == 255, "argmax %u at %llu, want 255 at %llu", res[0],
                 (unsigned long long)idx, (unsigned long long)b->imax);
        TC_OK(ctx, tc_argreduce(env, b->dev, n, PP_U8, PP_OP_MIN, sp, res, &idx));
        TC_CHECK(idx == b->imin && res[0] == 0, "argmin %u at %llu, want 0 at %llu", res[0],
                 (unsigned long long)idx, (unsigned long long)b->imin);
    }
    /* Segments across 2^31 and 2^32 (and one past n, clamped). */
    const size_t *off = cuts;
    const size_t nseg = NCUT - 1;
    uint64_t want[NCUT - 1];
    for (size_t s = 0; s < nseg; ++s) want[s] = b->prefix[s + 1] - b->prefix[s];
    uint64_t got[NCUT - 1];
    tc_case("%s: big u8 n = %zu, segmented sum u8->u64 across 2^31 and 2^32", pp_backend_name(env->backend), n);
    tc_segreduce(env, b->dev, n, PP_U8, off, nseg, PP_OP_SUM, got, PP_U64);
    for (size_t s = 0; s < nseg; ++s)
        TC_CHECK(got[s] == want[s], "segment %zu [%zu, %zu): %llu, want %llu", s, off[s], off[s + 1],
                 (unsigned long long)got[s], (unsigned long long)want[s]);
    /* And the same segments with u8 max: the 255 lies in exactly one. */
    uint8_t gmax[NCUT - 1];
    tc_segreduce(env, b->dev, n, PP_U8, off, nseg, PP_OP_MAX, gmax, PP_U8);
    for (size_t s = 0; s < nseg; ++s) {
        const size_t lo = off[s] < n ? off[s] : n, hi = off[s + 1] < n ? off[s + 1] : n;
        uint8_t w = 0;
        if (lo < hi) w = b->imax >= lo && b->imax < hi ? 255 : 253; /* the pattern reaches 253 in any long run */
        if (hi - lo < 300) {
            w = 0;
            for (size_t i = lo; i < hi; ++i) {
                uint8_t v = i == b->imax ? 255 : i == b->imin ? 0 : pattern(i);
                if (v > w) w = v;
            }
        }
        TC_CHECK(gmax[s] == w, "segment %zu max %u, want %u", s, gmax[s], w);
    }
}

/* Histograms of the same array: 256 bins over [0, 256) (bin = value) with u64 and u32
 * counts, 7 bins over [0, 256) (bin = value * 7 / 256), and 256 bins from the edges 0..256. */
static void check_big_hist(tc_env *env, const struct big *b)
{
    pp_context *ctx = env->ctx;
    const size_t n = b->n;
    uint64_t *dc = (uint64_t *)tc_alloc(ctx, 256 * 8);
    uint64_t got[256];
    uint32_t got32[256];
    tc_case("%s: big u8 n = %zu, histogram 256 bins, u64 counts", pp_backend_name(env->backend), n);
    TC_OK(ctx, pp_histogram_even(ctx, b->dev, n, PP_U8, 256, 0, 256, dc, PP_U64));
    tc_download(ctx, got, dc, sizeof got);
    for (int v = 0; v < 256; ++v)
        TC_CHECK(got[v] == b->vc[v], "bin %d: %llu, want %llu", v, (unsigned long long)got[v],
                 (unsigned long long)b->vc[v]);
    tc_case("%s: big u8 n = %zu, histogram 256 bins, u32 counts", pp_backend_name(env->backend), n);
    TC_OK(ctx, pp_histogram_even(ctx, b->dev, n, PP_U8, 256, 0, 256, dc, PP_U32));
    tc_download(ctx, got32, dc, sizeof got32);
    for (int v = 0; v < 256; ++v)
        TC_CHECK(got32[v] == (uint32_t)b->vc[v], "bin %d: %u, want %u", v, got32[v], (uint32_t)b->vc[v]);
    tc_case("%s: big u8 n = %zu, histogram 7 bins over [0, 256), u64 counts", pp_backend_name(env->backend), n);
    uint64_t want7[7] = {0};
    for (int v = 0; v < 256; ++v) want7[v * 7 / 256] += b->vc[v];
    TC_OK(ctx, pp_histogram_even(ctx, b->dev, n, PP_U8, 7, 0, 256, dc, PP_U64));
    tc_download(ctx, got, dc, 7 * 8);
    for (int k = 0; k < 7; ++k)
        TC_CHECK(got[k] == want7[k], "bin %d: %llu, want %llu", k, (unsigned long long)got[k],
                 (unsigned long long)want7[k]);
    tc_case("%s: big u8 n = %zu, histogram from edges 0..256, u64 counts", pp_backend_name(env->backend), n);
    double e[257];
    for (int k = 0; k <= 256; ++k) e[k] = k;
    double *de = (double *)tc_upload(ctx, e, sizeof e);
    TC_OK(ctx, pp_histogram_range(ctx, b->dev, n, PP_U8, de, 256, dc, PP_U64));
    tc_download(ctx, got, dc, sizeof got);
    for (int v = 0; v < 256; ++v)
        TC_CHECK(got[v] == b->vc[v], "bin %d: %llu, want %llu", v, (unsigned long long)got[v],
                 (unsigned long long)b->vc[v]);
    tc_free(ctx, de);
    tc_free(ctx, dc);
}

/* compaction family (issue 19): pp_select_if in place (u8 >= 200) over the array, the count
 * against the value counts, the kept elements streamed back and compared with the pattern's
 * (the 255 past 2^32 among them), count to context memory. Destroys the array. */
static void check_big_select(tc_env *env, const struct big *b)
{
    pp_context *ctx = env->ctx;
    const size_t n = b->n;
    uint64_t want = 0;
    for (int v = 200; v < 256; ++v) want += b->vc[v];
    pp_predicate p;
    memset(&p, 0, sizeof p);
    p.kind = PP_PRED_GE;
    p.a.u8 = 200;
    tc_case("%s: big select_if u8 >= 200 in place, n = %zu", pp_backend_name(env->backend), n);
    TC_OK(ctx, pp_select_if(ctx, b->dev, n, PP_U8, &p, NULL, PP_U8, b->dev, NULL, (uint64_t *)env->res,
                            PP_RESULT_CONTEXT));
    uint64_t got = 0;
    tc_download(ctx, &got, env->res, 8);
    TC_CHECK(got == want, "count %llu, want %llu", (unsigned long long)got, (unsigned long long)want);
    uint8_t *stage = (uint8_t *)tc_xmalloc(STAGE);
    uint64_t i = 0; /* the next input index to match */
    for (size_t base = 0; base < got; base += STAGE) {
        const size_t len = got - base < STAGE ? got - base : STAGE;
        tc_download(ctx, stage, b->dev + base, len);
        for (size_t k = 0; k < len; ++k) {
            uint8_t v;
            do {
                v = i == b->imax ? 255 : i == b->imin ? 0 : pattern(i);
                ++i;
            } while (v < 200);
            if (stage[k] != v) TC_FAIL("out[%zu] = %u, want %u (input %llu)", base + k, stage[k], v, (unsigned long long)(i - 1));
        }
    }
    free(stage);
}

/* make_big(n, imax, imin), then every family's check and the histogram's on it. */
static void big_case(void **state, size_t n, uint64_t imax, uint64_t imin)
{
    tc_env *env = tc_envp(state);
    struct big big = make_big(env, n, imax, imin);
    check_big(env, &big);
    check_big_hist(env, &big);
    check_big_select(env, &big); /* compaction family (issue 19); last: it overwrites the array */
    tc_free(env->ctx, big.dev);
}

static void t_big_2g(void **state)
{
    big_case(state, ((size_t)1 << 31) + ((size_t)1 << 20) + 7, ((size_t)1 << 31) + 12345, ((size_t)1 << 31) + 777);
}

static void t_big_4g(void **state)
{
    big_case(state, ((size_t)1 << 32) + 5, ((size_t)1 << 32) + 2, ((size_t)1 << 32) + 1);
}

/* f32 past 2^31 elements, filled on the device by memset (every byte 0x3c: each element
 * is the same float), so no host copy is needed. HIP only. */
static void t_big_f32(void **state)
{
    tc_env *env = tc_envp(state);
    if (env->backend != PP_BACKEND_HIP) skip();
    pp_context *ctx = env->ctx;
    const size_t n = ((size_t)1 << 31) + ((size_t)1 << 20) + 3;
    float *d = (float *)tc_alloc(ctx, n * sizeof(float));
    TC_OK(ctx, pp_memset(ctx, d, 0x3c, n * sizeof(float)));
    float x;
    memset(&x, 0x3c, sizeof x);
    float one = 1.0f;
    TC_OK(ctx, pp_memcpy(ctx, d + n - 1, &one, sizeof one, PP_COPY_HOST_TO_CONTEXT)); /* a different last one */
    const long double exact = (long double)x * (long double)(n - 1) + 1.0L;
    const long double abssum = exact;
    _Alignas(16) unsigned char res[16];
    const pp_dtype outs[2] = {PP_F32, PP_F64};
    for (int k = 0; k < 2; ++k) {
        tc_case("hip: big f32 sum -> %s, n = %zu", tc_dname(outs[k]), n);
        TC_OK(ctx, tc_reduce(env, d, n, PP_F32, PP_OP_SUM, outs[k], PP_RESULT_HOST, res));
        const long double got = tc_value(res, 0, outs[k]), bound = tc_sum_gamma(n, outs[k]) * abssum;
        TC_CHECK(fabsl(got - exact) <= bound, "got %.17Lg, exact %.17Lg, bound %.3Lg", got, exact, bound);
    }
    tc_case("hip: big f32 argmax, n = %zu", n);
    uint64_t idx;
    TC_OK(ctx, tc_argreduce(env, d, n, PP_F32, PP_OP_MAX, PP_RESULT_HOST, res, &idx));
    TC_CHECK(idx == n - 1, "argmax at %llu, want %zu", (unsigned long long)idx, n - 1);
    TC_OK(ctx, tc_argreduce(env, d, n, PP_F32, PP_OP_MIN, PP_RESULT_HOST, res, &idx));
    TC_CHECK(idx == 0, "argmin at %llu, want 0", (unsigned long long)idx);
    /* Every sample but the last (1.0, at the upper bound: not counted) in bin 0 of 4 over
     * [0, 1): more than 2^31 samples in one bin. */
    uint64_t *dc = (uint64_t *)tc_alloc(ctx, 4 * 8);
    for (int c = 0; c < 2; ++c) {
        const pp_dtype ct = c ? PP_U32 : PP_U64;
        tc_case("hip: big f32 histogram, all in one bin, %s counts, n = %zu", tc_dname(ct), n);
        TC_OK(ctx, pp_histogram_even(ctx, d, n, PP_F32, 4, 0.0, 1.0, dc, ct));
        uint64_t got64[4] = {0, 0, 0, 0};
        uint32_t got32[4] = {0, 0, 0, 0};
        if (c) tc_download(ctx, got32, dc, sizeof got32);
        else tc_download(ctx, got64, dc, sizeof got64);
        const uint64_t b0 = c ? got32[0] : got64[0];
        TC_CHECK(b0 == n - 1, "bin 0: %llu, want %zu", (unsigned long long)b0, n - 1);
    }
    tc_free(ctx, dc);
    tc_free(ctx, d);
}

/* ---- scans ---- */

/* Fill the n bytes at dev: directly on the CPU (host memory), through the staging buffer on HIP;
 * byte i = byte(i), or where word is set, the 4-byte word i = word(i) (n a multiple of 4).
 * big_fill: bytes. */
struct big_gen {
    uint8_t (*byte)(uint64_t);
    uint32_t (*word)(uint64_t);
};

static void big_fill_gen(tc_env *env, uint8_t *dev, size_t n, struct big_gen g)
{
    const int direct = env->backend == PP_BACKEND_CPU;
    uint8_t *stage = direct ? NULL : (uint8_t *)tc_xmalloc(STAGE);
    for (size_t base = 0; base < n; base += STAGE) {
        const size_t len = n - base < STAGE ? n - base : STAGE;
        uint8_t *dst = direct ? dev + base : stage;
        if (g.word) {
            uint32_t *w = (uint32_t *)(void *)dst; /* base: a multiple of STAGE */
            for (size_t k = 0; k < len / 4; ++k) w[k] = g.word(base / 4 + k);
        } else {
            for (size_t k = 0; k < len; ++k) dst[k] = g.byte(base + k);
        }
        if (!direct) TC_OK(env->ctx, pp_memcpy(env->ctx, dev + base, stage, len, PP_COPY_HOST_TO_CONTEXT));
    }
    free(stage);
}

static void big_fill(tc_env *env, uint8_t *dev, size_t n, uint8_t (*gen)(uint64_t))
{
    const struct big_gen g = {gen, NULL};
    big_fill_gen(env, dev, n, g);
}

/* Give the n bytes at dev to visit(chunk, base, len, arg), chunk by chunk (downloaded on HIP). */
static void big_visit(tc_env *env, const uint8_t *dev, size_t n, void (*visit)(const uint8_t *, size_t, size_t, void *),
                      void *arg)
{
    const int direct = env->backend == PP_BACKEND_CPU;
    uint8_t *stage = direct ? NULL : (uint8_t *)tc_xmalloc(STAGE);
    for (size_t base = 0; base < n; base += STAGE) {
        const size_t len = n - base < STAGE ? n - base : STAGE;
        if (!direct) tc_download(env->ctx, stage, dev + base, len);
        visit(direct ? dev + base : stage, base, len, arg);
    }
    free(stage);
}

/* The streamed oracle of the scans below. p = the inclusive u8 sum of pattern (wrapping);
 * after the second scan, element i of a segment [b, e) of `off` holds
 * init ^ p[b] ^ ... ^ p[i-1] (exclusive xor), elements outside every segment keep p[i]. */
struct scan_oracle {
    int second;        /* check the second scan (else the first) */
    const size_t *off; /* n_seg + 1 offsets, non-decreasing */
    size_t n_seg;
    uint8_t init;
    uint8_t p, x;      /* running inclusive sum; running exclusive xor */
    size_t seg;        /* the segment i is in or next to */
    size_t bad, first_bad;
    uint8_t got_bad, want_bad;
};

static void scan_oracle_visit(const uint8_t *chunk, size_t base, size_t len, void *arg)
{
    struct scan_oracle *o = (struct scan_oracle *)arg;
    for (size_t k = 0; k < len; ++k) {
        const size_t i = base + k;
        const uint8_t prev = o->p;
        o->p = (uint8_t)(o->p + pattern(i));
        uint8_t want = o->p;
        if (o->second) {
            while (o->seg < o->n_seg && o->off[o->seg + 1] <= i) ++o->seg;
            if (o->seg < o->n_seg && o->off[o->seg] <= i) {
                o->x = i == o->off[o->seg] ? o->init : (uint8_t)(o->x ^ prev);
                want = o->x;
            }
        }
        if (chunk[k] != want && o->bad++ == 0) {
            o->first_bad = i;
            o->got_bad = chunk[k];
            o->want_bad = want;
        }
    }
}

static void scan_oracle_check(tc_env *env, const uint8_t *dev, size_t n, struct scan_oracle *o)
{
    o->p = o->x = 0;
    o->seg = 0;
    o->bad = 0;
    big_visit(env, dev, n, scan_oracle_visit, o);
    TC_CHECK(o->bad == 0, "%zu wrong outputs, the first at %zu: %u, want %u", o->bad, o->first_bad, o->got_bad,
             o->want_bad);
}

/* n = 2^32 + 2^20 + 5 u8, in place (4 GiB): an inclusive sum, then an exclusive xor over
 * offsets whose segments cross 2^31 and 2^32 (elements before the first offset untouched,
 * the last offset past n). */
static void t_big_scan(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const size_t n = ((size_t)1 << 32) + ((size_t)1 << 20) + 5;
    uint8_t *d = (uint8_t *)tc_alloc(ctx, n);
    big_fill(env, d, n, pattern);
    const uint8_t init = 0x5A;
    struct scan_oracle o = {0, cuts + 1, NCUT - 2, init, 0, 0, 0, 0, 0, 0, 0};
    tc_case("%s: big inclusive scan u8 sum in place, n = %zu", pp_backend_name(env->backend), n);
    TC_OK(ctx, pp_inclusive_scan(ctx, d, n, PP_U8, PP_OP_SUM, d, PP_U8));
    scan_oracle_check(env, d, n, &o);
    tc_case("%s: big exclusive segmented (offsets) scan u8 xor in place, n = %zu", pp_backend_name(env->backend), n);
    size_t *doff = (size_t *)tc_upload(ctx, o.off, (o.n_seg + 1) * sizeof(size_t));
    TC_OK(ctx, pp_segmented_scan_offsets(ctx, d, n, PP_U8, doff, o.n_seg, PP_OP_XOR, PP_SCAN_EXCLUSIVE, &init, d, PP_U8));
    o.second = 1;
    scan_oracle_check(env, d, n, &o);
    tc_free(ctx, doff);
    tc_free(ctx, d);
}

/* Segment heads of the flags test: across 2^31, and one near the end. */
#define NHEAD 5
static const size_t heads[NHEAD] = {7, ((size_t)1 << 31) - 3, ((size_t)1 << 31) + 11, ((size_t)1 << 31) + 12,
                                    ((size_t)1 << 31) + ((size_t)1 << 20)};
static uint8_t head_at(uint64_t i)
{
    for (int k = 0; k < NHEAD; ++k)
        if (heads[k] == i) return (uint8_t)(k + 1);
    return 0;
}

struct flags_oracle {
    uint8_t acc;
    size_t bad, first_bad;
};

static void flags_oracle_visit(const uint8_t *chunk, size_t base, size_t len, void *arg)
{
    struct flags_oracle *o = (struct flags_oracle *)arg;
    for (size_t k = 0; k < len; ++k) {
        const size_t i = base + k;
        o->acc = head_at(i) ? pattern(i) : (uint8_t)(o->acc + pattern(i));
        if (chunk[k] != o->acc && o->bad++ == 0) o->first_bad = i;
    }
}

/* n = 2^31 + 2^20 + 5 u8 with as many head flags (4.3 GB): inclusive segmented sum in place. */
static void t_big_scan_flags(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const size_t n = ((size_t)1 << 31) + ((size_t)1 << 20) + 5;
    uint8_t *d = (uint8_t *)tc_alloc(ctx, n), *f = (uint8_t *)tc_alloc(ctx, n);
    big_fill(env, d, n, pattern);
    big_fill(env, f, n, head_at);
    tc_case("%s: big inclusive segmented (flags) scan u8 sum in place, n = %zu", pp_backend_name(env->backend), n);
    TC_OK(ctx, pp_segmented_scan_flags(ctx, d, n, PP_U8, f, PP_OP_SUM, PP_SCAN_INCLUSIVE, NULL, d, PP_U8));
    struct flags_oracle o = {0, 0, 0};
    big_visit(env, d, n, flags_oracle_visit, &o);
    TC_CHECK(o.bad == 0, "%zu wrong outputs, the first at %zu", o.bad, o.first_bad);
    tc_free(ctx, f);
    tc_free(ctx, d);
}

/* radix sort family (issue 20): 2^32 + 5 u8 keys sorted in place, descending (the library's
 * double buffer from scratch: about 8.6 GB in the context's space in all), checked against the
 * value counts taken while filling them, chunk by chunk. */
static void t_big_sort(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    const size_t n = ((size_t)1 << 32) + 5;
    struct big b = make_big(env, n, ((size_t)1 << 32) + 3, ((size_t)1 << 32) + 4);
    tc_case("%s: pp_sort_keys u8 descending in place, n = %zu", pp_backend_name(env->backend), n);
    TC_OK(ctx, pp_sort_keys(ctx, b.dev, b.dev, n, PP_U8, PP_SORT_DESCENDING, 0, 0));
    uint8_t *stage = (uint8_t *)tc_xmalloc(STAGE);
    int v = 255;
    uint64_t left = b.vc[255];
    for (size_t base = 0; base < n; base += STAGE) {
        const size_t len = n - base < STAGE ? n - base : STAGE;
        tc_download(ctx, stage, b.dev + base, len);
        for (size_t k = 0; k < len; ++k) {
            while (left == 0 && v > 0) left = b.vc[--v];
            TC_CHECK(stage[k] == v, "key %zu is %u, want %d", base + k, stage[k], v);
            --left;
        }
    }
    free(stage);
    tc_free(ctx, b.dev);
}

/* ---- summed-area table, transpose (issue 21) ---- */

/* A u8 matrix of rows x cols (pitch cols) of pattern(i) in the context's space, written in
 * chunks (through a staging buffer on HIP). */
static uint8_t *make_matrix(tc_env *env, size_t rows, size_t cols)
{
    const size_t n = rows * cols;
    uint8_t *dev = (uint8_t *)tc_alloc(env->ctx, n);
    const int direct = env->backend == PP_BACKEND_CPU;
    uint8_t *stage = direct ? NULL : (uint8_t *)tc_xmalloc(STAGE);
    for (size_t o = 0; o < n; o += STAGE) {
        const size_t len = n - o < STAGE ? n - o : STAGE;
        uint8_t *dst = direct ? dev + o : stage;
        for (size_t i = 0; i < len; ++i) dst[i] = pattern(o + i);
        if (!direct) TC_OK(env->ctx, pp_memcpy(env->ctx, dev + o, stage, len, PP_COPY_HOST_TO_CONTEXT));
    }
    free(stage);
    return dev;
}

/* The transpose of 65537 x 65536 u8 (2^32 + 2^16 elements, 8.6 GB in and out), every element
 * checked. */
static void t_big_transpose(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const size_t rows = 65537, cols = 65536, n = rows * cols;
    tc_case("%s: transpose u8 %zu x %zu", pp_backend_name(env->backend), rows, cols);
    uint8_t *in = make_matrix(env, rows, cols);
    uint8_t *out = (uint8_t *)tc_alloc(ctx, n);
    TC_OK(ctx, pp_transpose(ctx, in, rows, cols, cols, out, rows, PP_U8, 1));
    tc_free(ctx, in);
    uint8_t *host = (uint8_t *)tc_xmalloc(STAGE);
    const size_t per = STAGE / rows; /* output rows (input columns) a chunk */
    size_t bad = 0, first = 0;
    for (size_t j0 = 0; j0 < cols; j0 += per) {
        const size_t nj = cols - j0 < per ? cols - j0 : per;
        tc_download(ctx, host, out + j0 * rows, nj * rows);
        for (size_t j = 0; j < nj; ++j)
            for (size_t i = 0; i < rows; ++i)
                if (host[j * rows + i] != pattern(i * cols + j0 + j) && bad++ == 0) first = (j0 + j) * rows + i;
    }
    free(host);
    tc_free(ctx, out);
    TC_CHECK(bad == 0, "%zu wrong outputs, the first at %zu", bad, first);
}

/* The table of 16385 x 65536 u8 -> u32 (output offsets past 2^32 bytes), both forms' inner
 * values checked row by row against a wrapping oracle. */
static void t_big_sat(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const size_t rows = 16385, cols = 65536;
    tc_case("%s: table u8 -> u32 %zu x %zu", pp_backend_name(env->backend), rows, cols);
    uint8_t *in = make_matrix(env, rows, cols);
    uint32_t *out = (uint32_t *)tc_alloc(ctx, rows * cols * sizeof(uint32_t));
    TC_OK(ctx, pp_summed_area_table(ctx, in, rows, cols, cols, PP_U8, out, cols, PP_U32, PP_SAT_INCLUSIVE));
    uint32_t *acc = (uint32_t *)calloc(cols, sizeof *acc), *row = (uint32_t *)tc_xmalloc(cols * sizeof *row);
    TC_CHECK(acc != NULL, "out of host memory");
    size_t bad = 0, first = 0;
    for (size_t r = 0; r < rows; ++r) {
        tc_download(ctx, row, out + r * cols, cols * sizeof *row);
        uint32_t run = 0;
        for (size_t c = 0; c < cols; ++c) {
            run += pattern(r * cols + c);
            acc[c] += run;
            if (row[c] != acc[c] && bad++ == 0) first = r * cols + c;
        }
    }
    free(acc);
    free(row);
    tc_free(ctx, out);
    tc_free(ctx, in);
    TC_CHECK(bad == 0, "%zu wrong outputs, the first at %zu", bad, first);
}

/* ---- segmented sort (issue 22) ---- */

/* The streamed check of t_big_segsort: the keys of each checked segment [beg, end) descending,
 * with the value counts of its input (cnt[segment][value]); any other key keeps pattern(i). */
#define SEGBIG_N 3
struct segbig_oracle {
    size_t beg[SEGBIG_N], end[SEGBIG_N];
    uint64_t cnt[SEGBIG_N][256];
    int seg, v;
    size_t bad, first_bad;
};

/* Both cases' segments: n = 2^32 + 2^20 + 5 keys, offsets {0, 1000, b, b + 1, n} with b = 1000 +
 * 2^32 + 3 (1000 keys, packed on the GPU; one segment of 2^32 + 3 keys, past 2^32; a one-key
 * segment; the rest, about 2^20 keys), and the three checked segments [beg, end). Returns n. */
static size_t segbig_layout(size_t off[5], size_t beg[SEGBIG_N], size_t end[SEGBIG_N])
{
    const size_t n = ((size_t)1 << 32) + ((size_t)1 << 20) + 5, b = 1000 + ((size_t)1 << 32) + 3;
    const size_t o[5] = {0, 1000, b, b + 1, n}, bg[SEGBIG_N] = {0, 1000, b + 1}, en[SEGBIG_N] = {1000, b, n};
    memcpy(off, o, sizeof o);
    memcpy(beg, bg, sizeof bg);
    memcpy(end, en, sizeof en);
    return n;
}

static void segbig_visit(const uint8_t *chunk, size_t base, size_t len, void *arg)
{
    struct segbig_oracle *o = (struct segbig_oracle *)arg;
    for (size_t k = 0; k < len; ++k) {
        const size_t i = base + k;
        while (o->seg < SEGBIG_N && i >= o->end[o->seg]) o->seg++, o->v = 255;
        if (o->seg >= SEGBIG_N || i < o->beg[o->seg]) {
            if (chunk[k] != pattern(i) && o->bad++ == 0) o->first_bad = i;
            continue;
        }
        uint64_t *c = o->cnt[o->seg];
        while (o->v > 0 && c[o->v] == 0) o->v--;
        if (chunk[k] != o->v && o->bad++ == 0) o->first_bad = i;
        if (c[o->v]) c[o->v]--;
    }
}

/* u8 keys sorted descending in place, in segbig_layout's segments. */
static void t_big_segsort(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    size_t off[5], beg[SEGBIG_N], end[SEGBIG_N];
    const size_t n = segbig_layout(off, beg, end);
    uint8_t *d = (uint8_t *)tc_alloc(ctx, n);
    big_fill(env, d, n, pattern);
    struct segbig_oracle o;
    memset(&o, 0, sizeof o);
    for (int s = 0; s < SEGBIG_N; ++s) {
        o.beg[s] = beg[s];
        o.end[s] = end[s];
        for (size_t i = beg[s]; i < end[s]; ++i) o.cnt[s][pattern(i)]++;
    }
    o.v = 255;
    size_t *doff = (size_t *)tc_upload(ctx, off, sizeof off);
    tc_case("%s: pp_segmented_sort_keys u8 descending in place, n = %zu, a segment of 2^32 + 3 keys",
            pp_backend_name(env->backend), n);
    TC_OK(ctx, pp_segmented_sort_keys(ctx, d, d, n, PP_U8, doff, 4, PP_SORT_DESCENDING));
    big_visit(env, d, n, segbig_visit, &o);
    TC_CHECK(o.bad == 0, "%zu wrong keys, the first at %zu", o.bad, o.first_bad);
    tc_free(ctx, doff);
    tc_free(ctx, d);
}

/* t_big_segsort_u32: u32 keys past 2^32 in all, sorted by the GPU's radix levels (three of them for
 * random 32-bit keys in a segment of 2^32 + 3) with places past 2^32. Key i is mix32(i). */
static uint32_t mix32(uint64_t i)
{
    uint64_t z = i * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)(z >> 32);
}
/* A key's term in a segment's multiset sum (mod 2^64): equal multisets give equal sums. */
static uint64_t seg32_term(uint32_t k)
{
    uint64_t z = (uint64_t)k * 0xD6E8FEB86659FD93ull + 0x632BE59BD9B4E019ull;
    return z ^ (z >> 29);
}

/* The streamed check: keys of each checked segment non-decreasing and with the input's multiset
 * sum; any key outside them keeps its input. */
struct segbig32_oracle {
    size_t beg[SEGBIG_N], end[SEGBIG_N];
    uint64_t want[SEGBIG_N], got[SEGBIG_N];
    uint32_t prev;
    size_t bad, first_bad;
};

static void segbig32_visit(const uint8_t *chunk, size_t base, size_t len, void *arg)
{
    struct segbig32_oracle *o = (struct segbig32_oracle *)arg;
    const uint32_t *k = (const uint32_t *)(const void *)chunk; /* STAGE is a multiple of 4 */
    int seg = 0;
    for (size_t q = 0; q < len / 4; ++q) {
        const size_t i = base / 4 + q;
        while (seg < SEGBIG_N && i >= o->end[seg]) ++seg;
        if (seg >= SEGBIG_N || i < o->beg[seg]) {
            if (k[q] != mix32(i) && o->bad++ == 0) o->first_bad = i;
            continue;
        }
        if (i > o->beg[seg] && k[q] < o->prev && o->bad++ == 0) o->first_bad = i;
        o->prev = k[q];
        o->got[seg] += seg32_term(k[q]);
    }
}

/* u32 keys (16 GiB) sorted ascending in place, in segbig_layout's segments (the segment of 2^32 +
 * 3 keys through the radix levels on the GPU, places past 2^32). */
static void t_big_segsort_u32(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = tc_ctx(state);
    size_t off[5], beg[SEGBIG_N], end[SEGBIG_N];
    const size_t n = segbig_layout(off, beg, end);
    uint8_t *d = (uint8_t *)tc_alloc(ctx, n * 4);
    const struct big_gen g = {NULL, mix32};
    big_fill_gen(env, d, n * 4, g);
    struct segbig32_oracle o;
    memset(&o, 0, sizeof o);
    for (int s = 0; s < SEGBIG_N; ++s) {
        o.beg[s] = beg[s];
        o.end[s] = end[s];
        for (size_t i = beg[s]; i < end[s]; ++i) o.want[s] += seg32_term(mix32(i));
    }
    size_t *doff = (size_t *)tc_upload(ctx, off, sizeof off);
    tc_case("%s: pp_segmented_sort_keys u32 ascending in place, n = %zu, a segment of 2^32 + 3 keys",
            pp_backend_name(env->backend), n);
    TC_OK(ctx, pp_segmented_sort_keys(ctx, d, d, n, PP_U32, doff, 4, PP_SORT_ASCENDING));
    big_visit(env, d, n * 4, segbig32_visit, &o);
    TC_CHECK(o.bad == 0, "%zu keys out of order or changed, the first at %zu", o.bad, o.first_bad);
    for (int s = 0; s < SEGBIG_N; ++s)
        TC_CHECK(o.got[s] == o.want[s], "segment %d [%zu, %zu): the keys' multiset changed", s, beg[s], end[s]);
    tc_free(ctx, doff);
    tc_free(ctx, d);
}

int main(void)
{
    tc_init("test_big");
    const struct CMUnitTest tests[] = {
        TC_BOTH(t_big_2g),
        TC_BOTH(t_big_4g),
        TC_HIP(t_big_f32),
        TC_BOTH(t_big_scan),
        TC_BOTH(t_big_scan_flags),
        /* radix sort family (issue 20) */
        TC_BOTH(t_big_sort),
        /* summed-area table, transpose (issue 21) */
        TC_BOTH(t_big_transpose),
        TC_BOTH(t_big_sat),
        /* segmented sort (issue 22) */
        TC_BOTH(t_big_segsort),
        /* the GPU's radix levels past 2^32; on the CPU it needs 32 GB of host memory (the keys
         * and the sort's scratch copy), more than CI's machine has: the CPU's segments past
         * 2^32 are t_big_segsort's */
        TC_HIP(t_big_segsort_u32),
    };
    return TC_RUN("big", tests);
}
