/*
 * test_big.c -- counts past 2^31 and 2^32 (ctest label "big"; needs about 4 GiB of memory
 * in the context's space, plus a 256 MiB staging buffer on the host for HIP).
 *
 * u8 arrays of n = 2^31 + 2^20 + 7 and n = 2^32 + 5 elements hold a known pattern in
 * [1, 253] with one 255 and one 0 placed past 2^31 (and past 2^32): sum u8 -> u64 and
 * u8 -> u32 (wrapping), max, min, xor, argmax/argmin (indices past 2^31 / 2^32), and a
 * segmented sum whose segments cross 2^31 and 2^32. HIP also sums 2^31 + 2^20 + 3 f32
 * (memset, no host copy), which the CPU skips (8.6 GB of host memory).
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
};

/* Fill the array chunk by chunk, straight into context memory on the CPU (host memory
 * there) and through a staging buffer on HIP; the oracle is computed on the way. */
static struct big make_big(tc_env *env, size_t n, uint64_t imax, uint64_t imin)
{
    struct big b = {NULL, n, 0, 0, imax, imin, {0}};
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

static void t_big_2g(void **state)
{
    tc_env *env = tc_envp(state);
    const size_t n = ((size_t)1 << 31) + ((size_t)1 << 20) + 7;
    struct big b = make_big(env, n, ((size_t)1 << 31) + 12345, ((size_t)1 << 31) + 777);
    check_big(env, &b);
    tc_free(env->ctx, b.dev);
}

static void t_big_4g(void **state)
{
    tc_env *env = tc_envp(state);
    const size_t n = ((size_t)1 << 32) + 5;
    struct big b = make_big(env, n, ((size_t)1 << 32) + 2, ((size_t)1 << 32) + 1);
    check_big(env, &b);
    tc_free(env->ctx, b.dev);
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
    tc_free(ctx, d);
}

int main(void)
{
    tc_init("test_big");
    const struct CMUnitTest tests[] = {
        TC_BOTH(t_big_2g),
        TC_BOTH(t_big_4g),
        TC_HIP(t_big_f32),
    };
    return cmocka_run_group_tests_name("big", tests, NULL, NULL);
}
