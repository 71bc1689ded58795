/*
 * test_reduce.c -- pp_reduce, pp_argmin / pp_argmax and pp_segmented_reduce against serial
 * oracles (common.c), on the CPU backend and, where a device is present, on HIP.
 *
 * Sizes: 0, 1, 2, around 32/64/256/1024/4096/8192/65536, 2^20 + 3, and for each element
 * size the GPU's tiles (256 threads x 8 x 16 bytes; 256 x 2 or 4 x 16 bytes for argmin/argmax)
 * and 8 tiles, each +-1. Both result spaces. Integer results exact (wrapping); float sums
 * within the header's bound against a compensated long double sum; float products exact on
 * data where every order is exact, else within gamma_{n-1}.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MAX_SIZES 64

static const pp_result_space spaces[2] = {PP_RESULT_HOST, PP_RESULT_CONTEXT};
static const char *space_name(pp_result_space s) { return s == PP_RESULT_HOST ? "host" : "context"; }


/* Reduce (in -> out, op) over every size of the list, both result spaces, against the
 * oracle grown incrementally over one array. */
static void reduce_sizes(tc_env *env, pp_dtype in, pp_op op, pp_dtype out, tc_dist dist, int exact)
{
    size_t sizes[MAX_SIZES];
    const size_t ns = tc_sizes(in, sizes, MAX_SIZES), nmax = sizes[ns - 1], es = tc_size(in);
    char tag[96];
    snprintf(tag, sizeof tag, "reduce %s %s->%s dist %d", tc_oname(op), tc_dname(in), tc_dname(out), (int)dist);
    tc_rng r = tc_rng_for(tag);
    void *host = tc_xmalloc(nmax * es);
    tc_fill(&r, host, nmax, in, dist);
    void *dev = tc_upload(env->ctx, host, nmax * es);
    for (int s = 0; s < 2; ++s) {
        tc_red o;
        tc_red_init(&o, op, in, out);
        o.exact = exact;
        size_t pushed = 0;
        for (size_t k = 0; k < ns; ++k) {
            const size_t n = sizes[k];
            tc_red_push(&o, host, pushed, n);
            pushed = n;
            tc_case("%s: %s, n = %zu, result space %s", pp_backend_name(env->backend), tag, n,
                    space_name(spaces[s]));
            _Alignas(16) unsigned char res[16];
            pp_status st = tc_reduce(env, dev, n, in, op, out, spaces[s], res);
            TC_CHECK(st == PP_OK, "status %s: %s", pp_status_string(st), tc_call_message());
            tc_red_check(&o, res, 1.0);
        }
    }
    tc_free(env->ctx, dev);
    free(host);
}

static void reduce_dtype(void **state, pp_dtype t) { tc_each_op(tc_envp(state), t, reduce_sizes); }

static void t_reduce_u8(void **state) { reduce_dtype(state, PP_U8); }
static void t_reduce_i32(void **state) { reduce_dtype(state, PP_I32); }
static void t_reduce_u32(void **state) { reduce_dtype(state, PP_U32); }
static void t_reduce_i64(void **state) { reduce_dtype(state, PP_I64); }
static void t_reduce_u64(void **state) { reduce_dtype(state, PP_U64); }
static void t_reduce_f32(void **state) { reduce_dtype(state, PP_F32); }
static void t_reduce_f64(void **state) { reduce_dtype(state, PP_F64); }


static void t_reduce_widening(void **state)
{
    tc_env *env = tc_envp(state);
    for (size_t w = 0; w < TC_N_WIDENINGS; ++w)
        reduce_sizes(env, tc_widenings[w][0], PP_OP_SUM, tc_widenings[w][1], TC_RANDOM, 0);
    /* u8 -> u32 must wrap modulo 2^32 only past 2^32 / 255 elements (test_big); here
     * the u8 -> u32 sum must not wrap at 2^8 and i32 -> i64 must not wrap at 2^32. */
}

/* Integer sums and products wrap modulo 2^bits, signed ones too (hand-written cases). */
static void t_integer_wrap(void **state)
{
    tc_env *env = tc_envp(state);
    const struct {
        pp_dtype in, out;
        pp_op op;
        size_t n;
        uint64_t x[4]; /* elements, as bits */
        uint64_t want; /* result bits */
    } cases[] = {
        {PP_I32, PP_I32, PP_OP_SUM, 2, {0x7FFFFFFF, 1}, 0x80000000},             /* INT32_MAX + 1 */
        {PP_I32, PP_I32, PP_OP_SUM, 2, {0x80000000, 0xFFFFFFFF}, 0x7FFFFFFF},    /* INT32_MIN - 1 */
        {PP_I32, PP_I64, PP_OP_SUM, 2, {0x7FFFFFFF, 1}, 0x80000000},             /* no wrap when widened */
        {PP_I32, PP_I64, PP_OP_SUM, 2, {0x80000000, 0xFFFFFFFF}, 0xFFFFFFFF7FFFFFFFull},
        {PP_I64, PP_I64, PP_OP_SUM, 2, {0x7FFFFFFFFFFFFFFFull, 1}, 0x8000000000000000ull},
        {PP_U8, PP_U8, PP_OP_SUM, 3, {200, 100, 255}, (200 + 100 + 255) & 0xFF},
        {PP_U8, PP_U32, PP_OP_SUM, 3, {200, 100, 255}, 555},
        {PP_U32, PP_U32, PP_OP_SUM, 2, {0xFFFFFFFF, 2}, 1},
        {PP_U32, PP_U64, PP_OP_SUM, 2, {0xFFFFFFFF, 2}, 0x100000001ull},
        {PP_U64, PP_U64, PP_OP_SUM, 2, {~0ull, 2}, 1},
        {PP_I32, PP_I32, PP_OP_PROD, 2, {65536, 65536}, 0},
        {PP_I32, PP_I32, PP_OP_PROD, 2, {0xFFFFFFFF, 0x80000000}, 0x80000000},   /* -1 * INT32_MIN */
        {PP_I32, PP_I32, PP_OP_PROD, 3, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFD}, 0xFFFFFFFD}, /* -1*-1*-3 */
        {PP_I64, PP_I64, PP_OP_PROD, 2, {0xFFFFFFFFFFFFFFFFull, 0x8000000000000000ull}, 0x8000000000000000ull},
        {PP_U8, PP_U8, PP_OP_PROD, 2, {16, 16}, 0},
        {PP_U8, PP_U8, PP_OP_PROD, 3, {3, 5, 7}, 105},
        {PP_U8, PP_U8, PP_OP_PROD, 2, {255, 255}, 1},
        {PP_I32, PP_I32, PP_OP_MIN, 3, {5, 0xFFFFFFFF, 0x80000000}, 0x80000000},
        {PP_I32, PP_I32, PP_OP_MAX, 3, {0xFFFFFFFF, 0x80000000, 0xFFFFFFFE}, 0xFFFFFFFF},
        {PP_I64, PP_I64, PP_OP_MIN, 2, {1, 0x8000000000000000ull}, 0x8000000000000000ull},
        {PP_U64, PP_U64, PP_OP_MAX, 2, {1, 0x8000000000000000ull}, 0x8000000000000000ull},
        {PP_I32, PP_I32, PP_OP_AND, 2, {0xFFFFFFFF, 0x80000001}, 0x80000001},
        {PP_I32, PP_I32, PP_OP_OR, 2, {0x80000000, 1}, 0x80000001},
        {PP_I64, PP_I64, PP_OP_XOR, 3, {0x8000000000000000ull, 1, 0x8000000000000000ull}, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        unsigned char host[32];
        for (size_t i = 0; i < cases[c].n; ++i) tc_store_bits(host, i, cases[c].in, cases[c].x[i]);
        void *dev = tc_upload(env->ctx, host, cases[c].n * tc_size(cases[c].in));
        for (int s = 0; s < 2; ++s) {
            tc_case("%s: case %zu: %s %s->%s, space %s", pp_backend_name(env->backend), c, tc_oname(cases[c].op),
                    tc_dname(cases[c].in), tc_dname(cases[c].out), space_name(spaces[s]));
            _Alignas(16) unsigned char res[16];
            TC_OK(env->ctx, tc_reduce(env, dev, cases[c].n, cases[c].in, cases[c].op, cases[c].out, spaces[s], res));
            const uint64_t got = tc_bits(res, 0, cases[c].out);
            TC_CHECK(got == cases[c].want, "got 0x%llx, want 0x%llx", (unsigned long long)got,
                     (unsigned long long)cases[c].want);
        }
        tc_free(env->ctx, dev);
    }
}

/* Sums of small integers are exact in every order; so are products of +-1 and a few +-2^e. */
static void t_float_exact(void **state)
{
    tc_env *env = tc_envp(state);
    reduce_sizes(env, PP_F32, PP_OP_SUM, PP_F32, TC_SMALLINT, 1);
    reduce_sizes(env, PP_F64, PP_OP_SUM, PP_F64, TC_SMALLINT, 1);
    reduce_sizes(env, PP_F32, PP_OP_SUM, PP_F64, TC_SMALLINT, 1);
    reduce_sizes(env, PP_F32, PP_OP_PROD, PP_F32, TC_PRODSAFE, 1);
    reduce_sizes(env, PP_F64, PP_OP_PROD, PP_F64, TC_PRODSAFE, 1);
}

/* Sums of positive numbers: partial sums grow with n, so an order that puts an element
 * through more than D(n) roundings (a long sequential chain) exceeds the bound. */
static void t_float_sum_positive(void **state)
{
    tc_env *env = tc_envp(state);
    reduce_sizes(env, PP_F32, PP_OP_SUM, PP_F32, TC_POSITIVE, 0);
    reduce_sizes(env, PP_F64, PP_OP_SUM, PP_F64, TC_POSITIVE, 0);
    reduce_sizes(env, PP_F32, PP_OP_SUM, PP_F64, TC_POSITIVE, 0);
}

/* Products that round: within gamma_{n-1} of the exact product. */
static void t_float_prod_rounding(void **state)
{
    tc_env *env = tc_envp(state);
    reduce_sizes(env, PP_F32, PP_OP_PROD, PP_F32, TC_NEAR_ONE, 0);
    reduce_sizes(env, PP_F64, PP_OP_PROD, PP_F64, TC_NEAR_ONE, 0);
}

/* Sums with heavy cancellation: pairs x, -x (shuffled) plus small noise; the bound is
 * relative to sum |x|, which is large, so this mainly checks that nothing is lost. */
static void t_float_sum_cancellation(void **state)
{
    tc_env *env = tc_envp(state);
    for (int fi = 0; fi < 2; ++fi) {
        const pp_dtype t = fi ? PP_F64 : PP_F32, outs[2] = {t, PP_F64};
        const size_t n = 100003;
        tc_rng r = tc_rng_for(fi ? "cancel f64" : "cancel f32");
        void *host = tc_xmalloc(n * tc_size(t));
        tc_fill(&r, host, n, t, TC_RANDOM);
        for (size_t i = 0; i + 1 < n; i += 2) /* x, -x, ... then shuffle */
            tc_store_value(host, i + 1, t, -tc_value(host, i, t) * 1.0L);
        tc_shuffle(&r, host, n, t);
        void *dev = tc_upload(env->ctx, host, n * tc_size(t));
        for (int oi = 0; oi < (t == PP_F32 ? 2 : 1); ++oi) {
            tc_red o;
            tc_red_init(&o, PP_OP_SUM, t, outs[oi]);
            tc_red_push(&o, host, 0, n);
            tc_case("%s: cancelling sum %s->%s n = %zu", pp_backend_name(env->backend), tc_dname(t),
                    tc_dname(outs[oi]), n);
            _Alignas(16) unsigned char res[16];
            TC_OK(env->ctx, tc_reduce(env, dev, n, t, PP_OP_SUM, outs[oi], PP_RESULT_HOST, res));
            tc_red_check(&o, res, 1.0);
        }
        tc_free(env->ctx, dev);
        free(host);
    }
}

/* Min / max with NaN (propagates), infinities, signed zeros. */
static void t_float_minmax_special(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t sizes[] = {1, 2, 33, 257, 4097, 8193, 32769, 65537};
    for (int fi = 0; fi < 2; ++fi) {
        const pp_dtype t = fi ? PP_F64 : PP_F32;
        const size_t es = tc_size(t);
        tc_rng r = tc_rng_for(fi ? "minmax special f64" : "minmax special f32");
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
            const size_t n = sizes[si];
            void *host = tc_xmalloc(n * es);
            /* every kind of tc_fill_special: NaNs, infinities, signed zeros */
            for (int kind = 0; kind < TC_N_SPECIAL; ++kind) {
                tc_fill_special(&r, host, n, t, kind);
                void *dev = tc_upload(env->ctx, host, n * es);
                for (int m = 0; m < 2; ++m) {
                    const pp_op op = m ? PP_OP_MAX : PP_OP_MIN;
                    for (int s = 0; s < 2; ++s) {
                        tc_red o;
                        tc_red_init(&o, op, t, t);
                        tc_red_push(&o, host, 0, n);
                        tc_case("%s: %s %s n = %zu special kind %d, space %s", pp_backend_name(env->backend),
                                tc_oname(op), tc_dname(t), n, kind, space_name(spaces[s]));
                        _Alignas(16) unsigned char res[16];
                        TC_OK(env->ctx, tc_reduce(env, dev, n, t, op, t, spaces[s], res));
                        tc_red_check(&o, res, 1.0);
                    }
                }
                tc_free(env->ctx, dev);
            }
            free(host);
        }
    }
}

/* n == 0: the identity, with `in` NULL and not NULL, every allowed (in, op, out), both spaces. */
static void t_identity_empty(void **state)
{
    tc_env *env = tc_envp(state);
    void *some = tc_alloc(env->ctx, 256);
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype in = tc_dtypes[ti];
        for (int oi = 0; oi < 7; ++oi) {
            const pp_op op = tc_ops[oi];
            if (!tc_op_defined(op, in)) continue;
            for (int ui = 0; ui < 7; ++ui) {
                const pp_dtype out = tc_dtypes[ui];
                int ok = out == in;
                for (size_t w = 0; w < TC_N_WIDENINGS; ++w)
                    ok |= op == PP_OP_SUM && tc_widenings[w][0] == in && tc_widenings[w][1] == out;
                if (!ok) continue;
                for (int s = 0; s < 2; ++s)
                    for (int withp = 0; withp < 2; ++withp) {
                        tc_case("%s: %s %s->%s n = 0, in %s, space %s", pp_backend_name(env->backend),
                                tc_oname(op), tc_dname(in), tc_dname(out), withp ? "non-NULL" : "NULL",
                                space_name(spaces[s]));
                        _Alignas(16) unsigned char res[16];
                        TC_OK(env->ctx, tc_reduce(env, withp ? some : NULL, 0, in, op, out, spaces[s], res));
                        const uint64_t want = tc_identity_bits(op, out), got = tc_bits(res, 0, out);
                        if (tc_is_float(out) && op == PP_OP_SUM)
                            TC_CHECK(tc_value(res, 0, out) == 0.0L, "empty float sum gave bits 0x%llx",
                                     (unsigned long long)got);
                        else
                            TC_CHECK(got == want, "identity: got bits 0x%llx, want 0x%llx",
                                     (unsigned long long)got, (unsigned long long)want);
                    }
            }
        }
    }
    tc_free(env->ctx, some);
}

/* Inputs that start off a 16-byte boundary (the GPU folds a head and a tail around its
 * vectors): offsets of 1 .. 16/size - 1 elements. */
static void t_misaligned(void **state)
{
    tc_env *env = tc_envp(state);
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        const size_t es = tc_size(t), vec = 16 / es, tile = 256 * 8 * vec;
        const size_t sizes[] = {0, 1, 2, 3, vec - 1, vec, vec + 1, 31, 33, 257, tile - 1, tile + 1, 8 * tile + 5, 65537};
        size_t nmax = 0;
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
            if (sizes[si] > nmax) nmax = sizes[si];
        nmax += vec;
        char tag[64];
        snprintf(tag, sizeof tag, "misaligned %s", tc_dname(t));
        tc_rng r = tc_rng_for(tag);
        void *host = tc_xmalloc(nmax * es);
        tc_fill(&r, host, nmax, t, tc_is_float(t) ? TC_RANDOM : TC_FEW);
        unsigned char *dev = (unsigned char *)tc_upload(env->ctx, host, nmax * es);
        const size_t offs[] = {1, 2, 3, vec - 1};
        for (size_t oi = 0; oi < 4; ++oi) {
            const size_t off = offs[oi];
            if (off >= vec || (oi > 0 && off == offs[oi - 1])) continue;
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
                const size_t n = sizes[si];
                const unsigned char *hin = (const unsigned char *)host + off * es;
                const pp_op ops[] = {PP_OP_SUM, PP_OP_MIN, PP_OP_MAX, PP_OP_XOR};
                for (int k = 0; k < 4; ++k) {
                    if (!tc_op_defined(ops[k], t)) continue;
                    tc_red o;
                    tc_red_init(&o, ops[k], t, t);
                    tc_red_push(&o, hin, 0, n);
                    tc_case("%s: %s %s n = %zu at element offset %zu", pp_backend_name(env->backend),
                            tc_oname(ops[k]), tc_dname(t), n, off);
                    _Alignas(16) unsigned char res[16];
                    TC_OK(env->ctx, tc_reduce(env, dev + off * es, n, t, ops[k], t, PP_RESULT_HOST, res));
                    tc_red_check(&o, res, 1.0);
                }
                for (int m = 0; m < 2; ++m) {
                    tc_arg a;
                    tc_arg_init(&a, m ? PP_OP_MAX : PP_OP_MIN, t);
                    tc_arg_push(&a, hin, 0, n);
                    tc_case("%s: arg%s %s n = %zu at element offset %zu", pp_backend_name(env->backend),
                            m ? "max" : "min", tc_dname(t), n, off);
                    _Alignas(16) unsigned char val[16];
                    uint64_t idx;
                    TC_OK(env->ctx, tc_argreduce(env, dev + off * es, n, t, a.op, PP_RESULT_HOST, val, &idx));
                    tc_arg_check(&a, val, idx);
                }
            }
        }
        tc_free(env->ctx, dev);
        free(host);
    }
}

/* ---- argmin / argmax ---- */

static void arg_sizes(tc_env *env, pp_dtype t, tc_dist dist)
{
    size_t sizes[MAX_SIZES];
    const size_t ns = tc_sizes(t, sizes, MAX_SIZES), nmax = sizes[ns - 1], es = tc_size(t);
    char tag[64];
    snprintf(tag, sizeof tag, "arg %s dist %d", tc_dname(t), (int)dist);
    tc_rng r = tc_rng_for(tag);
    void *host = tc_xmalloc(nmax * es);
    tc_fill(&r, host, nmax, t, dist);
    void *dev = tc_upload(env->ctx, host, nmax * es);
    for (int m = 0; m < 2; ++m)
        for (int s = 0; s < 2; ++s) {
            tc_arg a;
            tc_arg_init(&a, m ? PP_OP_MAX : PP_OP_MIN, t);
            size_t pushed = 0;
            for (size_t k = 0; k < ns; ++k) {
                const size_t n = sizes[k];
                tc_arg_push(&a, host, pushed, n);
                pushed = n;
                tc_case("%s: %s, arg%s n = %zu, space %s", pp_backend_name(env->backend), tag, m ? "max" : "min", n,
                        space_name(spaces[s]));
                _Alignas(16) unsigned char val[16];
                uint64_t idx;
                TC_OK(env->ctx, tc_argreduce(env, dev, n, t, a.op, spaces[s], val, &idx));
                tc_arg_check(&a, val, idx);
            }
        }
    tc_free(env->ctx, dev);
    free(host);
}

static void t_argminmax(void **state)
{
    tc_env *env = tc_envp(state);
    for (int ti = 0; ti < 7; ++ti) {
        arg_sizes(env, tc_dtypes[ti], TC_RANDOM);
        arg_sizes(env, tc_dtypes[ti], TC_FEW); /* ties everywhere: the first index wins */
    }
}

/* One argmin and one argmax of a host array against the oracle, both spaces. */
static void arg_one(tc_env *env, const void *host, size_t n, pp_dtype t, const char *what)
{
    const size_t es = tc_size(t);
    void *dev = tc_upload(env->ctx, host, n * es);
    for (int m = 0; m < 2; ++m)
        for (int s = 0; s < 2; ++s) {
            tc_arg a;
            tc_arg_init(&a, m ? PP_OP_MAX : PP_OP_MIN, t);
            tc_arg_push(&a, host, 0, n);
            tc_case("%s: arg%s %s n = %zu: %s, space %s", pp_backend_name(env->backend), m ? "max" : "min",
                    tc_dname(t), n, what, space_name(spaces[s]));
            _Alignas(16) unsigned char val[16];
            uint64_t idx;
            TC_OK(env->ctx, tc_argreduce(env, dev, n, t, a.op, spaces[s], val, &idx));
            tc_arg_check(&a, val, idx);
        }
    tc_free(env->ctx, dev);
}

static void t_argminmax_special(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t sizes[] = {1, 2, 3, 17, 255, 1025, 4097, 8193, 16385, 65537, 300007};
    tc_rng r = tc_rng_for("arg special");
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        const size_t es = tc_size(t);
        /* n == 0: index UINT64_MAX, value = identity of MIN (argmin) or MAX (argmax). */
        arg_one(env, NULL, 0, t, "empty");
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
            const size_t n = sizes[si];
            void *h = tc_xmalloc(n * es);
            /* All equal, also to each op's identity (type min / max, +-inf): index 0. */
            const uint64_t fills[] = {tc_bits(&(uint64_t){tc_next(&r)}, 0, t), tc_identity_bits(PP_OP_MIN, t),
                                      tc_identity_bits(PP_OP_MAX, t)};
            for (int f = 0; f < 3; ++f) {
                for (size_t i = 0; i < n; ++i) tc_store_bits(h, i, t, fills[f]);
                arg_one(env, h, n, t, f == 0 ? "all equal" : f == 1 ? "all equal to MIN's identity" : "all equal to MAX's identity");
            }
            /* The extreme value twice (at random places): the first wins. */
            tc_fill(&r, h, n, t, TC_RANDOM);
            if (n >= 2) {
                size_t i = tc_below(&r, n), j = tc_below(&r, n);
                tc_store_bits(h, i, t, tc_identity_bits(PP_OP_MIN, t));
                tc_store_bits(h, j, t, tc_identity_bits(PP_OP_MIN, t));
                i = tc_below(&r, n), j = tc_below(&r, n);
                tc_store_bits(h, i, t, tc_identity_bits(PP_OP_MAX, t));
                tc_store_bits(h, j, t, tc_identity_bits(PP_OP_MAX, t));
            }
            arg_one(env, h, n, t, "extremes twice");
            /* Extremes near the end (the last tile / tail path). */
            tc_fill(&r, h, n, t, TC_RANDOM);
            tc_store_bits(h, n - 1, t, tc_identity_bits(PP_OP_MIN, t));
            if (n >= 2) tc_store_bits(h, n - 2, t, tc_identity_bits(PP_OP_MAX, t));
            arg_one(env, h, n, t, "extremes at the end");
            if (tc_is_float(t)) {
                /* NaNs: the first NaN wins for both. */
                tc_fill(&r, h, n, t, TC_RANDOM);
                size_t i = tc_below(&r, n), j = tc_below(&r, n);
                tc_store_value(h, i, t, NAN);
                tc_store_value(h, j, t, NAN);
                arg_one(env, h, n, t, "two NaNs");
                tc_fill(&r, h, n, t, TC_RANDOM);
                tc_store_value(h, n - 1, t, NAN);
                tc_store_value(h, 0, t, -INFINITY);
                if (n > 1) tc_store_value(h, 1, t, INFINITY);
                arg_one(env, h, n, t, "NaN last, infinities first");
                /* Signed zeros tie: the first of them wins, whichever sign. */
                for (int z = 0; z < 2; ++z) {
                    for (size_t k = 0; k < n; ++k) tc_store_value(h, k, t, (tc_next(&r) & 1) ? -0.0L : 0.0L);
                    if (z) { /* zeros among positives (argmin) ... and negatives (argmax) */
                        tc_fill(&r, h, n, t, TC_RANDOM);
                        for (size_t k = 0; k < n; ++k) {
                            long double v = fabsl(tc_value(h, k, t));
                            tc_store_value(h, k, t, v);
                        }
                        tc_store_value(h, tc_below(&r, n), t, -0.0L);
                        tc_store_value(h, tc_below(&r, n), t, 0.0L);
                        tc_store_value(h, tc_below(&r, n), t, -0.0L);
                    }
                    arg_one(env, h, n, t, z ? "signed zeros among positives" : "signed zeros only");
                }
                /* Argmax of numbers that are all <= -0.0 with zeros: first zero wins. */
                tc_fill(&r, h, n, t, TC_RANDOM);
                for (size_t k = 0; k < n; ++k) tc_store_value(h, k, t, -fabsl(tc_value(h, k, t)));
                tc_store_value(h, tc_below(&r, n), t, 0.0L);
                tc_store_value(h, tc_below(&r, n), t, -0.0L);
                arg_one(env, h, n, t, "signed zeros among negatives");
            }
            free(h);
        }
    }
}

/* ---- determinism ---- */

static void t_determinism(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t sizes[] = {1023, 8193, 65537, (1u << 20) + 3, 3u * (1u << 20) + 7};
    const struct { pp_dtype in, out; pp_op op; tc_dist d; } cases[] = {
        {PP_F32, PP_F32, PP_OP_SUM, TC_RANDOM}, {PP_F64, PP_F64, PP_OP_SUM, TC_RANDOM},
        {PP_F32, PP_F64, PP_OP_SUM, TC_RANDOM}, {PP_F32, PP_F32, PP_OP_PROD, TC_NEAR_ONE},
        {PP_F64, PP_F64, PP_OP_PROD, TC_NEAR_ONE}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const size_t nmax = sizes[sizeof sizes / sizeof sizes[0] - 1], es = tc_size(cases[c].in);
        tc_rng r = tc_rng_for("determinism");
        void *host = tc_xmalloc(nmax * es);
        tc_fill(&r, host, nmax, cases[c].in, cases[c].d);
        void *dev = tc_upload(env->ctx, host, nmax * es);
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
            const size_t n = sizes[si];
            for (int s = 0; s < 2; ++s) {
                tc_case("%s: %s %s->%s n = %zu twice, space %s", pp_backend_name(env->backend),
                        tc_oname(cases[c].op), tc_dname(cases[c].in), tc_dname(cases[c].out), n,
                        space_name(spaces[s]));
                _Alignas(16) unsigned char a[16], b[16];
                TC_OK(env->ctx, tc_reduce(env, dev, n, cases[c].in, cases[c].op, cases[c].out, spaces[s], a));
                TC_OK(env->ctx, tc_reduce(env, dev, n, cases[c].in, cases[c].op, cases[c].out, spaces[s], b));
                TC_CHECK(memcmp(a, b, tc_size(cases[c].out)) == 0, "two runs gave bits 0x%llx and 0x%llx",
                         (unsigned long long)tc_bits(a, 0, cases[c].out), (unsigned long long)tc_bits(b, 0, cases[c].out));
                tc_red o;
                tc_red_init(&o, cases[c].op, cases[c].in, cases[c].out);
                tc_red_push(&o, host, 0, n);
                tc_red_check(&o, a, 1.0);
            }
        }
        tc_free(env->ctx, dev);
        free(host);
    }
}

/* HIP: the reduce's experimental options (grid waves, tiles per block) change the plan, never
 * the result: each setting against the oracle, and the plan (pp_context_last_plan) says so. */
static void t_hip_reduce_options(void **state)
{
    tc_env *env = tc_envp(state);
    static const int64_t settings[][2] = {{0, 0}, {1, 1}, {64, 1}, {1, 65536}, {3, 2}};
    static const size_t sizes[] = {1, 1023, 8193, 65537, (1u << 20) + 3};
    const size_t nmax = sizes[sizeof sizes / sizeof sizes[0] - 1];
    tc_rng r = tc_rng_for("reduce options");
    float *host = (float *)tc_xmalloc(nmax * sizeof *host);
    tc_fill(&r, host, nmax, PP_F32, TC_RANDOM);
    void *dev = tc_upload(env->ctx, host, nmax * sizeof *host);
    for (size_t k = 0; k < sizeof settings / sizeof settings[0]; ++k) {
        TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_REDUCE_GRID_WAVES, settings[k][0]));
        TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_REDUCE_MAX_TILES, settings[k][1]));
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
            const size_t n = sizes[si];
            tc_case("hip: sum f32, n = %zu, grid_waves %lld, max_tiles %lld", n, (long long)settings[k][0],
                    (long long)settings[k][1]);
            _Alignas(16) unsigned char res[16];
            TC_OK(env->ctx, tc_reduce(env, dev, n, PP_F32, PP_OP_SUM, PP_F32, PP_RESULT_CONTEXT, res));
            tc_red o;
            tc_red_init(&o, PP_OP_SUM, PP_F32, PP_F32);
            tc_red_push(&o, host, 0, n);
            tc_red_check(&o, res, 1.0);
            pp_plan plan;
            TC_OK(env->ctx, pp_context_last_plan(env->ctx, &plan));
            TC_CHECK(!strcmp(plan.family, "reduce"), "plan family '%s'", plan.family);
            TC_CHECK(plan.param[2] > 0 && plan.param[3] > 0, "plan without the device's tuning row (%lld, %lld)",
                     (long long)plan.param[2], (long long)plan.param[3]);
            if (settings[k][0])
                TC_CHECK(plan.param[2] == settings[k][0], "grid_waves %lld in the plan", (long long)plan.param[2]);
            if (settings[k][1])
                TC_CHECK(plan.param[3] == settings[k][1], "max_tiles %lld in the plan", (long long)plan.param[3]);
            /* one tile per block and at least two tiles (a tile: 256 threads x 8 16-byte vectors,
             * 8192 f32, plus a misaligned head and tail of at most 3 each): more than one level */
            if (settings[k][1] == 1 && n > 2 * 8192 + 6)
                TC_CHECK(!strcmp(plan.strategy, "tiles") && plan.param[0] >= 2, "plan %s with %lld levels",
                         plan.strategy, (long long)plan.param[0]);
            if (n <= 1023) TC_CHECK(!strcmp(plan.strategy, "single_tile"), "plan %s for n = %zu", plan.strategy, n);
        }
    }
    TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_REDUCE_GRID_WAVES, 0));
    TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_REDUCE_MAX_TILES, 0));
    tc_free(env->ctx, dev);
    free(host);
}

/* CPU: the float tree does not depend on the OpenMP thread count. A context is created
 * after each omp_set_num_threads, in case the backend reads the count at creation. */
static void t_cpu_thread_count(void **state)
{
    tc_env *env = tc_envp(state);
    (void)env;
    static const size_t sizes[] = {1, 1000, 8193, 65537, (1u << 20) + 3, 5u * (1u << 20) + 1};
    static const int threads[] = {1, 2, 3, 4, 7};
    const struct { pp_dtype in, out; pp_op op; tc_dist d; } cases[] = {
        {PP_F32, PP_F32, PP_OP_SUM, TC_RANDOM}, {PP_F64, PP_F64, PP_OP_SUM, TC_RANDOM},
        {PP_F32, PP_F64, PP_OP_SUM, TC_RANDOM}, {PP_F32, PP_F32, PP_OP_PROD, TC_NEAR_ONE},
        {PP_F64, PP_F64, PP_OP_PROD, TC_NEAR_ONE}};
    const int saved = omp_get_max_threads();
    const size_t nmax = sizes[sizeof sizes / sizeof sizes[0] - 1];
    tc_rng r = tc_rng_for("threads");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const size_t es = tc_size(cases[c].in);
        void *host = tc_xmalloc(nmax * es);
        tc_fill(&r, host, nmax, cases[c].in, cases[c].d);
        uint64_t ref[sizeof sizes / sizeof sizes[0]];
        for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ++ti) {
            omp_set_num_threads(threads[ti]);
            tc_env e = {PP_BACKEND_CPU, NULL, NULL};
            TC_CHECK(pp_context_create(&e.ctx, PP_BACKEND_CPU, 0) == PP_OK, "%s", pp_last_create_error());
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
                tc_case("cpu: %s %s->%s n = %zu with %d OpenMP threads", tc_oname(cases[c].op),
                        tc_dname(cases[c].in), tc_dname(cases[c].out), sizes[si], threads[ti]);
                _Alignas(16) unsigned char res[16];
                pp_status st = pp_reduce(e.ctx, host, sizes[si], cases[c].in, cases[c].op, res, cases[c].out,
                                         PP_RESULT_HOST);
                if (st != PP_OK) {
                    omp_set_num_threads(saved);
                    TC_FAIL("status %s: %s", pp_status_string(st), pp_context_last_error(e.ctx));
                }
                const uint64_t bits = tc_bits(res, 0, cases[c].out);
                if (ti == 0) {
                    ref[si] = bits;
                    tc_red o;
                    tc_red_init(&o, cases[c].op, cases[c].in, cases[c].out);
                    tc_red_push(&o, host, 0, sizes[si]);
                    tc_red_check(&o, res, 1.0);
                } else if (bits != ref[si]) {
                    omp_set_num_threads(saved);
                    TC_FAIL("bits 0x%llx differ from 0x%llx with 1 thread", (unsigned long long)bits,
                            (unsigned long long)ref[si]);
                }
            }
            pp_context_destroy(e.ctx);
        }
        free(host);
    }
    omp_set_num_threads(saved);
}

/* ---- segmented reduce ---- */


/* A few combos that cover every accumulation kind, for the heavier layouts. */
static const tc_combo some_combos[] = {
    {PP_F32, PP_F32, PP_OP_SUM}, {PP_F32, PP_F64, PP_OP_SUM}, {PP_F64, PP_F64, PP_OP_SUM},
    {PP_I32, PP_I32, PP_OP_SUM}, {PP_U8, PP_U64, PP_OP_SUM},  {PP_U8, PP_U8, PP_OP_MAX},
    {PP_U64, PP_U64, PP_OP_MAX}, {PP_F64, PP_F64, PP_OP_MIN}, {PP_I64, PP_I64, PP_OP_XOR},
    {PP_F32, PP_F32, PP_OP_PROD}};

/* Segmented reduce of host[0, n) with host offsets against per-segment oracles. */
static void seg_check(tc_env *env, const void *host, size_t n, const tc_combo *c, const size_t *off,
                      size_t nseg, const char *layout)
{
    const size_t es = tc_size(c->in), os = tc_size(c->out);
    const int exact = tc_is_float(c->in) && c->op == PP_OP_PROD;
    void *dev = tc_upload(env->ctx, host, n * es);
    unsigned char *out = (unsigned char *)tc_xmalloc(nseg * os + 16);
    tc_case("%s: segmented %s %s->%s, %s, n = %zu, %zu segments", pp_backend_name(env->backend), tc_oname(c->op),
            tc_dname(c->in), tc_dname(c->out), layout, n, nseg);
    tc_segreduce(env, dev, n, c->in, off, nseg, c->op, out, c->out);
    for (size_t s = 0; s < nseg; ++s) {
        size_t b = off[s] < n ? off[s] : n, e = off[s + 1] < n ? off[s + 1] : n;
        if (e < b) e = b;
        tc_red o;
        tc_red_init(&o, c->op, c->in, c->out);
        o.exact = exact;
        tc_red_push(&o, host, b, e);
        tc_case("%s: segmented %s %s->%s, %s, n = %zu, segment %zu of %zu = [%zu, %zu) (offsets %zu, %zu)",
                pp_backend_name(env->backend), tc_oname(c->op), tc_dname(c->in), tc_dname(c->out), layout, n, s,
                nseg, b, e, off[s], off[s + 1]);
        _Alignas(16) unsigned char got[16];
        memcpy(got, out + s * os, os);
        tc_red_check(&o, got, 1.0);
    }
    free(out);
    tc_free(env->ctx, dev);
}

/* Offsets of consecutive segments with lengths from `len` (called per segment). */
static size_t *make_offsets(size_t nseg, size_t (*len)(tc_rng *, size_t), tc_rng *r, size_t *n_out)
{
    size_t *off = (size_t *)tc_xmalloc((nseg + 1) * sizeof *off);
    off[0] = 0;
    for (size_t s = 0; s < nseg; ++s) off[s + 1] = off[s] + len(r, s);
    *n_out = off[nseg];
    return off;
}

static void seg_layout(tc_env *env, const tc_combo *combos, size_t ncombos, const size_t *off, size_t nseg,
                       size_t n, const char *layout)
{
    for (size_t k = 0; k < ncombos; ++k) {
        char tag[128];
        snprintf(tag, sizeof tag, "seg %s %s %s %s", layout, tc_oname(combos[k].op), tc_dname(combos[k].in),
                 tc_dname(combos[k].out));
        tc_rng r = tc_rng_for(tag);
        void *host = tc_xmalloc(n * tc_size(combos[k].in) + 1);
        tc_fill(&r, host, n, combos[k].in, tc_dist_for(combos[k].op, combos[k].in));
        seg_check(env, host, n, &combos[k], off, nseg, layout);
        free(host);
    }
}

static size_t len_0_5(tc_rng *r, size_t s) { (void)s; return tc_below(r, 6); }

static void t_seg_short(void **state)
{
    tc_env *env = tc_envp(state);
    tc_combo combos[TC_MAX_COMBOS];
    const size_t nc = tc_all_combos(combos);
    tc_rng r = tc_rng_for("seg short");
    size_t n;
    const size_t nseg = 20011;
    size_t *off = make_offsets(nseg, len_0_5, &r, &n);
    seg_layout(env, combos, nc, off, nseg, n, "lengths 0..5");
    free(off);
}

static size_t fixed_len;
static size_t len_fixed(tc_rng *r, size_t s) { (void)r; (void)s; return fixed_len; }

/* Segments of one length: 256 (the brief's), and around the GPU's group sizes (4, 16, 32
 * lanes x 64 elements) and its 4096-element chunk. */
static void t_seg_fixed(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t lens[] = {1, 16, 17, 128, 129, 255, 256, 257, 1023, 1024, 1025, 2047, 2048, 2049, 4096, 4097};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; ++li) {
        fixed_len = lens[li];
        const size_t nseg = lens[li] <= 256 ? 2000 : 300;
        size_t n;
        size_t *off = make_offsets(nseg, len_fixed, NULL, &n);
        char layout[64];
        snprintf(layout, sizeof layout, "all of length %zu", lens[li]);
        seg_layout(env, some_combos, sizeof some_combos / sizeof some_combos[0], off, nseg, n, layout);
        free(off);
    }
    /* Every combo at exactly 256. */
    tc_combo combos[TC_MAX_COMBOS];
    const size_t nc = tc_all_combos(combos);
    fixed_len = 256;
    size_t n;
    size_t *off = make_offsets(1000, len_fixed, NULL, &n);
    seg_layout(env, combos, nc, off, 1000, n, "all of length 256 (every combo)");
    free(off);
}

/* Few long segments (longer than 8 GPU tiles of f32) */
static size_t len_long(tc_rng *r, size_t s)
{
    static const size_t base[] = {8192 * 8 + 1, 8192 * 8 - 1, 200003, 4096 * 17 + 5};
    return base[s % 4] + tc_below(r, 3);
}

static void t_seg_long(void **state)
{
    tc_env *env = tc_envp(state);
    tc_rng r = tc_rng_for("seg long");
    size_t n;
    size_t *off = make_offsets(5, len_long, &r, &n);
    seg_layout(env, some_combos, sizeof some_combos / sizeof some_combos[0], off, 5, n, "5 long segments");
    free(off);
    off = make_offsets(1, len_long, &r, &n);
    seg_layout(env, some_combos, sizeof some_combos / sizeof some_combos[0], off, 1, n, "1 long segment");
    free(off);
    /* Segments of more than 1 MiB (the CPU splits those over its threads), with short ones. */
    const size_t huge[6] = {0, 1200007, 1200007 + 300001, 1200007 + 300001 + 5, 2500013, 2500013 + 17};
    seg_layout(env, some_combos, sizeof some_combos / sizeof some_combos[0], huge, 5, huge[5],
               "segments over 1 MiB among short ones");
}

/* Many short segments with a few long ones among them (on the GPU: small groups, and the
 * long ones queued and split), for three mean lengths. */
static size_t mix_mean;
static size_t len_mixed(tc_rng *r, size_t s)
{
    (void)s;
    if (tc_below(r, 997) == 0) return 70001 + tc_below(r, 30000);
    if (tc_below(r, 50) == 0) return 257 + tc_below(r, 4000);
    return tc_below(r, 2 * mix_mean + 1);
}

static size_t len_0_2(tc_rng *r, size_t s) { (void)s; return tc_below(r, 3); }

static void t_seg_mixed(void **state)
{
    tc_env *env = tc_envp(state);
    {   /* Very many tiny segments: a wide grid of small groups. */
        tc_rng r = tc_rng_for("seg many");
        size_t n;
        size_t *off = make_offsets(200003, len_0_2, &r, &n);
        seg_layout(env, some_combos, 4, off, 200003, n, "200003 segments of length 0..2");
        free(off);
    }
    static const size_t means[] = {3, 60, 400};
    for (int m = 0; m < 3; ++m) {
        mix_mean = means[m];
        char tag[64];
        snprintf(tag, sizeof tag, "seg mixed %zu", means[m]);
        tc_rng r = tc_rng_for(tag);
        size_t n;
        const size_t nseg = means[m] < 100 ? 6000 : 1500;
        size_t *off = make_offsets(nseg, len_mixed, &r, &n);
        snprintf(tag, sizeof tag, "short around %zu with long ones", means[m]);
        seg_layout(env, some_combos, sizeof some_combos / sizeof some_combos[0], off, nseg, n, tag);
        free(off);
    }
}

/* Empty segments at the start and end, offsets past n (clamped), decreasing offsets (empty),
 * elements before the first offset and after the last (not read into any segment). */
static void t_seg_edges(void **state)
{
    tc_env *env = tc_envp(state);
    const size_t n = 5000;
    const size_t offs[][10] = {
        {0, 0, 0, 10, 2000, 2000, 5000, 5000, 5000, 5000},       /* empty at start and end */
        {7, 7, 100, 4999, 5000, 6000, 7000, 7000, 100000, SIZE_MAX}, /* past n: clamped, empty */
        {0, 3000, 1000, 4000, 2000, 2000, 5000, 0, 5000, 10},     /* decreasing: empty */
        {100, 200, 300, 400, 500, 600, 700, 800, 900, 1000},      /* elements outside every segment */
        {SIZE_MAX, 0, SIZE_MAX, 5000, 4999, 4999, 0, 0, 0, 0},
    };
    tc_combo combos[TC_MAX_COMBOS];
    const size_t nc = tc_all_combos(combos);
    for (size_t l = 0; l < sizeof offs / sizeof offs[0]; ++l) {
        char layout[48];
        snprintf(layout, sizeof layout, "edge layout %zu", l);
        seg_layout(env, combos, nc, offs[l], 9, n, layout);
    }
    /* The same with long segments (split across blocks on the GPU) among bad offsets. */
    const size_t big_n = 300000;
    const size_t big_off[8] = {0, 100000, 50000, big_n + 10, SIZE_MAX, 200000, 270001, 270001};
    seg_layout(env, some_combos, sizeof some_combos / sizeof some_combos[0], big_off, 7, big_n,
               "long segments among clamped and decreasing offsets");
}

/* Overlapping segments (offsets 0, n, 0, n, ...): every other segment is all of `in`, the
 * others are empty; more long segments than fit in `in` side by side. Offsets are unchecked,
 * so this is valid input: each segment is reduced as given, nothing is read outside `in`.
 * (Last in the list: a GPU failure here can leave the device unusable for later cases.) */
static void t_seg_overlapping(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t ov_n[] = {5000, 300000};
    for (int k = 0; k < 2; ++k) {
        const size_t nseg = 400;
        size_t ov[401];
        for (size_t i = 0; i <= nseg; ++i) ov[i] = (i & 1) ? ov_n[k] : 0;
        char layout[64];
        snprintf(layout, sizeof layout, "overlapping: 200 x [0, %zu) and 200 empty", ov_n[k]);
        seg_layout(env, some_combos, sizeof some_combos / sizeof some_combos[0], ov, nseg, ov_n[k], layout);
    }
}

/* n == 0 (in NULL): every segment is empty and gets the identity, whatever the offsets. */
static void t_seg_empty_input(void **state)
{
    tc_env *env = tc_envp(state);
    const size_t off[6] = {0, 0, 5, 3, SIZE_MAX, 1};
    tc_combo combos[TC_MAX_COMBOS];
    const size_t nc = tc_all_combos(combos);
    for (size_t k = 0; k < nc; ++k) {
        _Alignas(16) unsigned char out[5 * 8 + 16];
        tc_case("%s: segmented %s %s->%s over n = 0, in NULL", pp_backend_name(env->backend), tc_oname(combos[k].op),
                tc_dname(combos[k].in), tc_dname(combos[k].out));
        tc_segreduce(env, NULL, 0, combos[k].in, off, 5, combos[k].op, out, combos[k].out);
        for (size_t s = 0; s < 5; ++s) {
            const uint64_t got = tc_bits(out, s, combos[k].out), want = tc_identity_bits(combos[k].op, combos[k].out);
            if (tc_is_float(combos[k].out) && combos[k].op == PP_OP_SUM)
                TC_CHECK(tc_value(out, s, combos[k].out) == 0.0L, "segment %zu: bits 0x%llx", s, (unsigned long long)got);
            else
                TC_CHECK(got == want, "segment %zu: bits 0x%llx, want the identity 0x%llx", s,
                         (unsigned long long)got, (unsigned long long)want);
        }
    }
}

/* n_segments == 0 writes nothing (also with NULL offsets and out). */
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
    tc_case("%s: segmented reduce with n_segments == 0", pp_backend_name(env->backend));
    TC_OK(ctx, pp_segmented_reduce(ctx, din, 4, PP_I32, doff, 0, PP_OP_SUM, dout, PP_I32));
    TC_OK(ctx, pp_segmented_reduce(ctx, din, 4, PP_I32, NULL, 0, PP_OP_SUM, NULL, PP_I32));
    TC_OK(ctx, pp_segmented_reduce(ctx, NULL, 0, PP_F32, NULL, 0, PP_OP_MAX, NULL, PP_F32));
    TC_OK(ctx, pp_segmented_reduce(ctx, din, 4, PP_U8, doff, 0, PP_OP_SUM, dout, PP_U64));
    unsigned char back[64];
    tc_download(ctx, back, dout, 64);
    for (int i = 0; i < 64; ++i) TC_CHECK(back[i] == TC_SENTINEL, "byte %d of out was written", i);
    tc_free(ctx, dout);
    tc_free(ctx, doff);
    tc_free(ctx, din);
}

/* Non-monotone offsets (clamped; a segment with end <= begin is empty), float sums: the header
 * promises the same bits on every repeat. On the GPU the long segments of such offsets can ask
 * for more than the long-segment queue holds, and which of them got queued used to depend on
 * the order the groups ran in (H100: different bits on two identical calls, n = 4095 .. 4097).
 * Each layout is run five times and every output compared bitwise, then checked against the
 * oracle. */
static void t_seg_repeat_bits(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t sizes[] = {4095, 4096, 4097, 300001};
    static const size_t nsegs[] = {16, 64, 400, 3000};
    const struct { pp_dtype in, out; } cases[] = {{PP_F32, PP_F32}, {PP_F32, PP_F64}, {PP_F64, PP_F64}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
            for (size_t gi = 0; gi < sizeof nsegs / sizeof nsegs[0]; ++gi) {
                const size_t n = sizes[si], nseg = nsegs[gi], os = tc_size(cases[c].out);
                if (n * nseg > (size_t)300001 * 64) continue; /* the oracle's work: about n * nseg / 3 */
                if (n > 5000 && !tc_thorough()) continue;
                char tag[96];
                snprintf(tag, sizeof tag, "seg repeat %s %s %zu %zu", tc_dname(cases[c].in), tc_dname(cases[c].out),
                         n, nseg);
                tc_rng r = tc_rng_for(tag);
                void *host = tc_xmalloc(n * tc_size(cases[c].in));
                tc_fill(&r, host, n, cases[c].in, TC_RANDOM);
                size_t *off = (size_t *)tc_xmalloc((nseg + 1) * sizeof *off);
                for (size_t k = 0; k <= nseg; ++k) off[k] = tc_below(&r, n + n / 8); /* some past n */
                void *dev = tc_upload(env->ctx, host, n * tc_size(cases[c].in));
                unsigned char *first = (unsigned char *)tc_xmalloc(nseg * os + 16);
                unsigned char *again = (unsigned char *)tc_xmalloc(nseg * os + 16);
                tc_case("%s: segmented sum %s->%s, n = %zu, %zu segments, random non-monotone offsets",
                        pp_backend_name(env->backend), tc_dname(cases[c].in), tc_dname(cases[c].out), n, nseg);
                TC_OK(env->ctx, tc_segreduce(env, dev, n, cases[c].in, off, nseg, PP_OP_SUM, first, cases[c].out));
                for (int rep = 1; rep < 5; ++rep) {
                    TC_OK(env->ctx, tc_segreduce(env, dev, n, cases[c].in, off, nseg, PP_OP_SUM, again, cases[c].out));
                    for (size_t sg = 0; sg < nseg; ++sg)
                        TC_CHECK(memcmp(first + sg * os, again + sg * os, os) == 0,
                                 "repeat %d, segment %zu (offsets %zu, %zu): bits 0x%llx, first call 0x%llx", rep, sg,
                                 off[sg], off[sg + 1], (unsigned long long)tc_bits(again, sg, cases[c].out),
                                 (unsigned long long)tc_bits(first, sg, cases[c].out));
                }
                for (size_t sg = 0; sg < nseg; ++sg) {
                    size_t b = off[sg] < n ? off[sg] : n, e = off[sg + 1] < n ? off[sg + 1] : n;
                    if (e < b) e = b;
                    tc_red o;
                    tc_red_init(&o, PP_OP_SUM, cases[c].in, cases[c].out);
                    tc_red_push(&o, host, b, e);
                    _Alignas(16) unsigned char got[16];
                    memcpy(got, first + sg * os, os);
                    tc_red_check(&o, got, 1.0);
                }
                free(again);
                free(first);
                tc_free(env->ctx, dev);
                free(off);
                free(host);
            }
}

int main(void)
{
    tc_init("test_reduce");
    const struct CMUnitTest tests[] = {
        TC_BOTH(t_reduce_u8),        TC_BOTH(t_reduce_i32),
        TC_BOTH(t_reduce_u32),       TC_BOTH(t_reduce_i64),
        TC_BOTH(t_reduce_u64),       TC_BOTH(t_reduce_f32),
        TC_BOTH(t_reduce_f64),       TC_BOTH(t_reduce_widening),
        TC_BOTH(t_integer_wrap),
        TC_BOTH(t_float_exact),      TC_BOTH(t_float_sum_positive),
        TC_BOTH(t_float_prod_rounding),
        TC_BOTH(t_float_sum_cancellation), TC_BOTH(t_float_minmax_special),
        TC_BOTH(t_identity_empty),   TC_BOTH(t_misaligned),
        TC_BOTH(t_argminmax),        TC_BOTH(t_argminmax_special),
        TC_BOTH(t_determinism),      TC_HIP(t_hip_reduce_options), TC_CPU(t_cpu_thread_count),
        TC_BOTH(t_seg_short),        TC_BOTH(t_seg_fixed),
        TC_BOTH(t_seg_long),         TC_BOTH(t_seg_mixed),
        TC_BOTH(t_seg_edges),        TC_BOTH(t_seg_empty_input),
        TC_BOTH(t_seg_zero_segments), TC_BOTH(t_seg_repeat_bits),
        TC_BOTH(t_seg_overlapping),
    };
    return TC_RUN("reduce", tests);
}
