/*
 * test_errors.c -- every bad input of the contracts: each must return its status, leave a
 * message naming the argument ("'in'", "'op'", ...) in pp_context_last_error (or
 * pp_last_create_error), and change no output (a sentinel in every output survives).
 * Also the names and strings of the API (status, dtype, op, backend, version).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define BAD_DTYPE ((pp_dtype)99)
#define BAD_OP ((pp_op)99)
#define BAD_SPACE ((pp_result_space)7)

/* The failure must be `want`, with a message that contains `arg` (e.g. "'in'"). */
static void expect_fail_msg(const char *msg, pp_status got, pp_status want, const char *arg)
{
    TC_CHECK(got == want, "returned %s, want %s (message: \"%s\")", pp_status_string(got),
             pp_status_string(want), msg);
    TC_CHECK(msg != NULL && msg[0] != '\0', "no message after a failure");
    if (arg) TC_CHECK(strstr(msg, arg) != NULL, "the message \"%s\" does not name %s", msg, arg);
}

/* The same, with the message of the context's last call. */
static void expect_fail(pp_context *ctx, pp_status got, pp_status want, const char *arg)
{
    expect_fail_msg(pp_context_last_error(ctx), got, want, arg);
}

static int allowed_out(pp_op op, pp_dtype in, pp_dtype out)
{
    if (in == out) return 1;
    if (op != PP_OP_SUM) return 0;
    return (in == PP_U8 && (out == PP_U32 || out == PP_U64)) || (in == PP_I32 && out == PP_I64) ||
           (in == PP_U32 && out == PP_U64) || (in == PP_F32 && out == PP_F64);
}


/* ---- pp_reduce ---- */

struct rcase {
    const char *what;
    int in_null;
    size_t n;
    pp_dtype in;
    pp_op op;
    int out_null;
    pp_dtype out;
    pp_result_space space;
    pp_status want;
    const char *arg;
};

/* Run one bad pp_reduce with a sentinel result, in host memory or in the context's space. */
static void reduce_case(tc_env *env, const void *in_buf, const struct rcase *c)
{
    pp_context *ctx = env->ctx;
    _Alignas(16) unsigned char host[16];
    memset(host, TC_SENTINEL, sizeof host);
    const int in_ctx_space = c->space == PP_RESULT_CONTEXT;
    if (in_ctx_space) TC_OK(ctx, pp_memset(ctx, env->res, TC_SENTINEL, 16));
    void *out = c->out_null ? NULL : in_ctx_space ? env->res : (void *)host;
    tc_case("%s: pp_reduce %s (%s %s->%s, n = %zu, space %d)", pp_backend_name(env->backend), c->what,
            tc_oname(c->op), tc_dname(c->in), tc_dname(c->out), c->n, (int)c->space);
    pp_status st = pp_reduce(ctx, c->in_null ? NULL : in_buf, c->n, c->in, c->op, out, c->out, c->space);
    expect_fail(ctx, st, c->want, c->arg); /* before any other call replaces the message */
    if (in_ctx_space) tc_download(ctx, host, env->res, 16);
    for (int i = 0; i < 16; ++i) TC_CHECK(host[i] == TC_SENTINEL, "byte %d of the result was written", i);
}

static void t_reduce_bad_args(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    void *in = tc_alloc(ctx, 1024);
    TC_OK(ctx, pp_memset(ctx, in, 1, 1024));
    static const pp_result_space sp[2] = {PP_RESULT_HOST, PP_RESULT_CONTEXT};
    for (int s = 0; s < 2; ++s) {
        const struct rcase cases[] = {
            {"in NULL with n > 0", 1, 5, PP_F32, PP_OP_SUM, 0, PP_F32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'in'"},
            {"in NULL with n = 1", 1, 1, PP_U8, PP_OP_MAX, 0, PP_U8, sp[s], PP_ERROR_INVALID_ARGUMENT, "'in'"},
            {"out NULL", 0, 5, PP_I32, PP_OP_SUM, 1, PP_I32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'out'"},
            {"out NULL with n = 0", 0, 0, PP_I32, PP_OP_SUM, 1, PP_I32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'out'"},
            {"unknown in_type 99", 0, 5, BAD_DTYPE, PP_OP_SUM, 0, PP_F32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'in_type'"},
            {"unknown in_type 0", 0, 5, (pp_dtype)0, PP_OP_SUM, 0, PP_F32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'in_type'"},
            {"unknown in_type 8", 0, 5, (pp_dtype)8, PP_OP_SUM, 0, PP_F32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'in_type'"},
            {"unknown out_type", 0, 5, PP_F32, PP_OP_SUM, 0, BAD_DTYPE, sp[s], PP_ERROR_INVALID_ARGUMENT, "'out_type'"},
            {"unknown op 99", 0, 5, PP_I32, BAD_OP, 0, PP_I32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'op'"},
            {"unknown op 0", 0, 5, PP_I32, (pp_op)0, 0, PP_I32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'op'"},
            {"unknown op -1", 0, 5, PP_I32, (pp_op)-1, 0, PP_I32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'op'"},
            {"unknown op with n = 0", 0, 0, PP_U8, BAD_OP, 0, PP_U8, sp[s], PP_ERROR_INVALID_ARGUMENT, "'op'"},
            {"xor on f32", 0, 5, PP_F32, PP_OP_XOR, 0, PP_F32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'op'"},
            {"and on f32", 0, 5, PP_F32, PP_OP_AND, 0, PP_F32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'op'"},
            {"or on f32", 0, 5, PP_F32, PP_OP_OR, 0, PP_F32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'op'"},
            {"xor on f64", 0, 5, PP_F64, PP_OP_XOR, 0, PP_F64, sp[s], PP_ERROR_INVALID_ARGUMENT, "'op'"},
            {"and on f64", 0, 5, PP_F64, PP_OP_AND, 0, PP_F64, sp[s], PP_ERROR_INVALID_ARGUMENT, "'op'"},
            {"or on f64", 0, 5, PP_F64, PP_OP_OR, 0, PP_F64, sp[s], PP_ERROR_INVALID_ARGUMENT, "'op'"},
            {"xor on f32, n = 0", 0, 0, PP_F32, PP_OP_XOR, 0, PP_F32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'op'"},
            {"prod widening u8->u32", 0, 5, PP_U8, PP_OP_PROD, 0, PP_U32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'out_type'"},
            {"max widening f32->f64", 0, 5, PP_F32, PP_OP_MAX, 0, PP_F64, sp[s], PP_ERROR_INVALID_ARGUMENT, "'out_type'"},
            {"sum narrowing f64->f32", 0, 5, PP_F64, PP_OP_SUM, 0, PP_F32, sp[s], PP_ERROR_INVALID_ARGUMENT, "'out_type'"},
            {"sum i32->u64", 0, 5, PP_I32, PP_OP_SUM, 0, PP_U64, sp[s], PP_ERROR_INVALID_ARGUMENT, "'out_type'"},
            {"unknown space", 0, 5, PP_F32, PP_OP_SUM, 0, PP_F32, BAD_SPACE, PP_ERROR_INVALID_ARGUMENT, "'space'"},
            {"space -1", 0, 5, PP_F32, PP_OP_SUM, 0, PP_F32, (pp_result_space)-1, PP_ERROR_INVALID_ARGUMENT, "'space'"},
        };
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) reduce_case(env, in, &cases[k]);
    }
    /* Every (in, op, out) pair that is not allowed, exhaustively. */
    for (int ti = 0; ti < 7; ++ti)
        for (int oi = 0; oi < 7; ++oi)
            for (int ui = 0; ui < 7; ++ui) {
                const pp_dtype t = tc_dtypes[ti], u = tc_dtypes[ui];
                const pp_op op = tc_ops[oi];
                if (!tc_op_defined(op, t) || allowed_out(op, t, u)) continue;
                struct rcase c = {"out_type not allowed", 0, 5, t, op, 0, u, PP_RESULT_HOST,
                                  PP_ERROR_INVALID_ARGUMENT, "'out_type'"};
                reduce_case(env, in, &c);
            }
    /* Undefined ops on floats with every out type. */
    for (int fi = 0; fi < 2; ++fi)
        for (int oi = 4; oi < 7; ++oi)
            for (int ui = 0; ui < 7; ++ui) {
                struct rcase c = {"bitwise op on a float", 0, 5, fi ? PP_F64 : PP_F32, tc_ops[oi], 0, tc_dtypes[ui],
                                  PP_RESULT_HOST, PP_ERROR_INVALID_ARGUMENT, "'op'"};
                reduce_case(env, in, &c);
            }
    tc_free(ctx, in);
}

/* ctx NULL: only a status (there is nowhere to keep a message); outputs untouched. */
static void t_null_context(void **state)
{
    (void)state;
    tc_case("NULL context");
    _Alignas(16) unsigned char out[16];
    uint64_t index = 0x1234;
    float in[4] = {1, 2, 3, 4};
    size_t off[2] = {0, 4};
    memset(out, TC_SENTINEL, sizeof out);
    TC_CHECK(pp_reduce(NULL, in, 4, PP_F32, PP_OP_SUM, out, PP_F32, PP_RESULT_HOST) == PP_ERROR_INVALID_ARGUMENT, "reduce");
    TC_CHECK(pp_argmin(NULL, in, 4, PP_F32, out, &index, PP_RESULT_HOST) == PP_ERROR_INVALID_ARGUMENT, "argmin");
    TC_CHECK(pp_argmax(NULL, in, 4, PP_F32, out, &index, PP_RESULT_HOST) == PP_ERROR_INVALID_ARGUMENT, "argmax");
    TC_CHECK(pp_segmented_reduce(NULL, in, 4, PP_F32, off, 1, PP_OP_SUM, out, PP_F32) == PP_ERROR_INVALID_ARGUMENT,
             "segmented");
    const uint8_t flags[4] = {1, 0, 1, 0};
    TC_CHECK(pp_inclusive_scan(NULL, in, 4, PP_F32, PP_OP_SUM, out, PP_F32) == PP_ERROR_INVALID_ARGUMENT, "inclusive scan");
    TC_CHECK(pp_exclusive_scan(NULL, in, 4, PP_F32, PP_OP_SUM, NULL, out, PP_F32) == PP_ERROR_INVALID_ARGUMENT,
             "exclusive scan");
    TC_CHECK(pp_segmented_scan_flags(NULL, in, 4, PP_F32, flags, PP_OP_SUM, PP_SCAN_INCLUSIVE, NULL, out, PP_F32) ==
                 PP_ERROR_INVALID_ARGUMENT,
             "segmented scan (flags)");
    TC_CHECK(pp_segmented_scan_offsets(NULL, in, 4, PP_F32, off, 1, PP_OP_SUM, PP_SCAN_EXCLUSIVE, NULL, out, PP_F32) ==
                 PP_ERROR_INVALID_ARGUMENT,
             "segmented scan (offsets)");
    TC_CHECK(pp_inclusive_scan(NULL, NULL, 0, PP_F32, PP_OP_SUM, NULL, PP_F32) == PP_ERROR_INVALID_ARGUMENT,
             "inclusive scan, n = 0");
    for (int i = 0; i < 16; ++i) TC_CHECK(out[i] == TC_SENTINEL, "byte %d written", i);
    TC_CHECK(index == 0x1234, "index written");
    void *p = (void *)out;
    TC_CHECK(pp_malloc(NULL, &p, 16) == PP_ERROR_INVALID_ARGUMENT, "malloc");
    TC_CHECK(pp_host_malloc(NULL, &p, 16) == PP_ERROR_INVALID_ARGUMENT, "host_malloc");
    TC_CHECK(pp_host_free(NULL, NULL) == PP_ERROR_INVALID_ARGUMENT, "host_free");
    TC_CHECK(pp_memcpy(NULL, out, in, 4, PP_COPY_HOST_TO_CONTEXT) == PP_ERROR_INVALID_ARGUMENT, "memcpy");
    TC_CHECK(pp_memset(NULL, out, 0, 4) == PP_ERROR_INVALID_ARGUMENT, "memset");
    for (int i = 0; i < 16; ++i) TC_CHECK(out[i] == TC_SENTINEL, "byte %d written", i);
    TC_CHECK(pp_context_set_stream(NULL, NULL) == PP_ERROR_INVALID_ARGUMENT, "set_stream");
    TC_CHECK(pp_context_synchronize(NULL) == PP_ERROR_INVALID_ARGUMENT, "synchronize");
    TC_CHECK(pp_context_set_scratch(NULL, NULL, 0) == PP_ERROR_INVALID_ARGUMENT, "set_scratch");
    TC_CHECK(pp_context_reserve_scratch(NULL, 16) == PP_ERROR_INVALID_ARGUMENT, "reserve_scratch");
    const char *m = pp_context_last_error(NULL);
    TC_CHECK(m != NULL, "pp_context_last_error(NULL) returned NULL");
    pp_context_destroy(NULL); /* accepted */
}

/* ---- argmin / argmax ---- */

static void arg_case(tc_env *env, const char *what, int argmax, const void *in, size_t n, pp_dtype t, int value_null,
                     int index_null, pp_result_space space, pp_status want, const char *arg)
{
    pp_context *ctx = env->ctx;
    _Alignas(16) unsigned char val[16];
    uint64_t idx;
    memset(val, TC_SENTINEL, sizeof val);
    memset(&idx, TC_SENTINEL, sizeof idx);
    const uint64_t idx0 = idx;
    unsigned char *r = (unsigned char *)env->res;
    const int cs = space == PP_RESULT_CONTEXT;
    if (cs) TC_OK(ctx, pp_memset(ctx, r, TC_SENTINEL, 64));
    void *vp = value_null ? NULL : cs ? (void *)r : (void *)val;
    uint64_t *ip = index_null ? NULL : cs ? (uint64_t *)(r + 32) : &idx;
    tc_case("%s: pp_arg%s %s (%s, n = %zu)", pp_backend_name(env->backend), argmax ? "max" : "min", what, tc_dname(t), n);
    pp_status st = argmax ? pp_argmax(ctx, in, n, t, vp, ip, space) : pp_argmin(ctx, in, n, t, vp, ip, space);
    expect_fail(ctx, st, want, arg);
    if (cs) {
        tc_download(ctx, val, r, 16);
        tc_download(ctx, &idx, r + 32, 8);
    }
    for (int i = 0; i < 16; ++i) TC_CHECK(val[i] == TC_SENTINEL, "byte %d of the value was written", i);
    TC_CHECK(idx == idx0, "the index was written");
}

static void t_arg_bad_args(void **state)
{
    tc_env *env = tc_envp(state);
    void *in = tc_alloc(env->ctx, 256);
    TC_OK(env->ctx, pp_memset(env->ctx, in, 0, 256));
    const pp_status E = PP_ERROR_INVALID_ARGUMENT;
    for (int m = 0; m < 2; ++m)
        for (int s = 0; s < 2; ++s) {
            const pp_result_space sp = s ? PP_RESULT_CONTEXT : PP_RESULT_HOST;
            arg_case(env, "value NULL", m, in, 8, PP_F32, 1, 0, sp, E, "'value'");
            arg_case(env, "index NULL", m, in, 8, PP_I32, 0, 1, sp, E, "'index'");
            arg_case(env, "value NULL with n = 0", m, in, 0, PP_U8, 1, 0, sp, E, "'value'");
            arg_case(env, "index NULL with n = 0", m, NULL, 0, PP_U64, 0, 1, sp, E, "'index'");
            arg_case(env, "in NULL with n > 0", m, NULL, 8, PP_F64, 0, 0, sp, E, "'in'");
            arg_case(env, "unknown dtype", m, in, 8, BAD_DTYPE, 0, 0, sp, E, "'dtype'");
            arg_case(env, "dtype 0", m, in, 8, (pp_dtype)0, 0, 0, sp, E, "'dtype'");
        }
    arg_case(env, "unknown space", 0, in, 8, PP_F32, 0, 0, BAD_SPACE, E, "'space'");
    arg_case(env, "unknown space", 1, in, 8, PP_F32, 0, 0, BAD_SPACE, E, "'space'");
    tc_free(env->ctx, in);
}

/* ---- segmented reduce ---- */

static void seg_case(tc_env *env, const char *what, const void *in, size_t n, pp_dtype it, const size_t *off,
                     size_t nseg, pp_op op, int out_null, pp_dtype ot, pp_status want, const char *arg)
{
    pp_context *ctx = env->ctx;
    unsigned char *dout = (unsigned char *)tc_alloc(ctx, 256);
    TC_OK(ctx, pp_memset(ctx, dout, TC_SENTINEL, 256));
    tc_case("%s: pp_segmented_reduce %s (%s %s->%s, n = %zu, %zu segments)", pp_backend_name(env->backend), what,
            tc_oname(op), tc_dname(it), tc_dname(ot), n, nseg);
    pp_status st = pp_segmented_reduce(ctx, in, n, it, off, nseg, op, out_null ? NULL : dout, ot);
    expect_fail(ctx, st, want, arg);
    unsigned char back[256];
    tc_download(ctx, back, dout, 256);
    for (int i = 0; i < 256; ++i) TC_CHECK(back[i] == TC_SENTINEL, "byte %d of out was written", i);
    tc_free(ctx, dout);
}

static void t_seg_bad_args(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const size_t hoff[4] = {0, 2, 4, 8};
    size_t *off = (size_t *)tc_upload(ctx, hoff, sizeof hoff);
    void *in = tc_alloc(ctx, 256);
    TC_OK(ctx, pp_memset(ctx, in, 0, 256));
    const pp_status E = PP_ERROR_INVALID_ARGUMENT;
    seg_case(env, "offsets NULL", in, 8, PP_F32, NULL, 3, PP_OP_SUM, 0, PP_F32, E, "'offsets'");
    seg_case(env, "out NULL", in, 8, PP_F32, off, 3, PP_OP_SUM, 1, PP_F32, E, "'out'");
    seg_case(env, "in NULL with n > 0", NULL, 8, PP_I32, off, 3, PP_OP_SUM, 0, PP_I32, E, "'in'");
    seg_case(env, "unknown in_type", in, 8, BAD_DTYPE, off, 3, PP_OP_SUM, 0, PP_I32, E, "'in_type'");
    seg_case(env, "unknown out_type", in, 8, PP_I32, off, 3, PP_OP_SUM, 0, BAD_DTYPE, E, "'out_type'");
    seg_case(env, "unknown op", in, 8, PP_I32, off, 3, BAD_OP, 0, PP_I32, E, "'op'");
    seg_case(env, "xor on f32", in, 8, PP_F32, off, 3, PP_OP_XOR, 0, PP_F32, E, "'op'");
    seg_case(env, "and on f64", in, 8, PP_F64, off, 3, PP_OP_AND, 0, PP_F64, E, "'op'");
    seg_case(env, "prod widening", in, 8, PP_U8, off, 3, PP_OP_PROD, 0, PP_U64, E, "'out_type'");
    seg_case(env, "sum f64->f32", in, 8, PP_F64, off, 3, PP_OP_SUM, 0, PP_F32, E, "'out_type'");
    seg_case(env, "sum i32->u64", in, 8, PP_I32, off, 3, PP_OP_SUM, 0, PP_U64, E, "'out_type'");
    /* Type errors are errors even with nothing to do. */
    seg_case(env, "xor on f32, n_segments = 0", in, 8, PP_F32, off, 0, PP_OP_XOR, 0, PP_F32, E, "'op'");
    seg_case(env, "unknown in_type, n_segments = 0", in, 8, BAD_DTYPE, off, 0, PP_OP_SUM, 0, PP_F32, E, "'in_type'");
    seg_case(env, "n_segments SIZE_MAX", in, 8, PP_I32, off, SIZE_MAX, PP_OP_SUM, 0, PP_I32, E, "'n_segments'");
    /* The header lists NULL in with n > 0 as invalid, with nothing to do too. */
    seg_case(env, "in NULL with n > 0, n_segments = 0", NULL, 8, PP_F32, off, 0, PP_OP_SUM, 0, PP_F32, E, "'in'");
    seg_case(env, "in NULL with n > 0, n_segments = 0, offsets and out NULL", NULL, 8, PP_F32, NULL, 0, PP_OP_SUM,
             1, PP_F32, E, "'in'");
    tc_free(ctx, in);
    tc_free(ctx, off);
}

/* ---- scans ---- */

enum scan_form { SCAN_INCLUSIVE, SCAN_EXCLUSIVE, SCAN_FLAGS, SCAN_OFFSETS };

struct scan_call {
    enum scan_form form;
    const void *in;
    size_t n;
    pp_dtype in_type;
    pp_op op;
    pp_scan_kind kind; /* the segmented forms */
    const void *init;  /* host; not for SCAN_INCLUSIVE */
    const uint8_t *flags;
    const size_t *offsets;
    size_t n_segments;
    void *out;
    pp_dtype out_type;
};

static pp_status call_scan(pp_context *ctx, const struct scan_call *c)
{
    switch (c->form) {
    case SCAN_INCLUSIVE: return pp_inclusive_scan(ctx, c->in, c->n, c->in_type, c->op, c->out, c->out_type);
    case SCAN_EXCLUSIVE:
        return pp_exclusive_scan(ctx, c->in, c->n, c->in_type, c->op, c->init, c->out, c->out_type);
    case SCAN_FLAGS:
        return pp_segmented_scan_flags(ctx, c->in, c->n, c->in_type, c->flags, c->op, c->kind, c->init, c->out,
                                       c->out_type);
    default:
        return pp_segmented_scan_offsets(ctx, c->in, c->n, c->in_type, c->offsets, c->n_segments, c->op, c->kind,
                                         c->init, c->out, c->out_type);
    }
}

static const char *const scan_form_names[] = {"pp_inclusive_scan", "pp_exclusive_scan", "pp_segmented_scan_flags",
                                              "pp_segmented_scan_offsets"};

#define SCAN_BUF 1024

/* One bad scan call; `buf` (SCAN_BUF bytes in the context's space, holding in, out and the
 * flags of every case) is filled with TC_SENTINEL before and must be unchanged after. */
static void scan_case(tc_env *env, unsigned char *buf, const char *what, const struct scan_call *c, pp_status want,
                      const char *arg)
{
    pp_context *ctx = env->ctx;
    TC_OK(ctx, pp_memset(ctx, buf, TC_SENTINEL, SCAN_BUF));
    tc_case("%s: %s %s (%s %s->%s, n = %zu)", pp_backend_name(env->backend), scan_form_names[c->form], what,
            tc_oname(c->op), tc_dname(c->in_type), tc_dname(c->out_type), c->n);
    pp_status st = call_scan(ctx, c);
    expect_fail(ctx, st, want, arg);
    unsigned char back[SCAN_BUF];
    tc_download(ctx, back, buf, SCAN_BUF);
    for (int i = 0; i < SCAN_BUF; ++i) TC_CHECK(back[i] == TC_SENTINEL, "byte %d of in / out / flags was written", i);
}

static void t_scan_bad_args(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const pp_status E = PP_ERROR_INVALID_ARGUMENT;
    unsigned char *buf = (unsigned char *)tc_alloc(ctx, SCAN_BUF);
    unsigned char *in = buf, *out = buf + 256, *flags = buf + 768;
    const size_t hoff[4] = {0, 2, 4, 8};
    size_t *off = (size_t *)tc_upload(ctx, hoff, sizeof hoff);
    const double init_f64 = 1.0;
    const pp_scan_kind INC = PP_SCAN_INCLUSIVE, EXC = PP_SCAN_EXCLUSIVE;
    for (int f = 0; f < 4; ++f) {
        const enum scan_form form = (enum scan_form)f;
        const pp_scan_kind k = form == SCAN_INCLUSIVE ? INC : EXC;
        /* A valid call of this form, changed one argument at a time. */
        const struct scan_call ok = {form, in, 8, PP_F32, PP_OP_SUM, k, NULL, flags, off, 3, out, PP_F32};
        struct scan_call c;
#define BAD(WHAT, CHANGE, ARG)                 \
    do {                                       \
        c = ok;                                \
        CHANGE;                                \
        scan_case(env, buf, WHAT, &c, E, ARG); \
    } while (0)
        BAD("in NULL with n > 0", c.in = NULL, "'in'");
        BAD("in NULL with n = 1", (c.in = NULL, c.n = 1, c.in_type = PP_U8, c.out_type = PP_U8), "'in'");
        BAD("out NULL with n > 0", c.out = NULL, "'out'");
        BAD("unknown in_type", c.in_type = BAD_DTYPE, "'in_type'");
        BAD("in_type 0", c.in_type = (pp_dtype)0, "'in_type'");
        BAD("unknown out_type", c.out_type = BAD_DTYPE, "'out_type'");
        BAD("unknown op", c.op = BAD_OP, "'op'");
        BAD("op 0", c.op = (pp_op)0, "'op'");
        BAD("unknown op with n = 0", (c.op = BAD_OP, c.n = 0), "'op'");
        BAD("xor on f32", c.op = PP_OP_XOR, "'op'");
        BAD("and on f64", (c.op = PP_OP_AND, c.in_type = c.out_type = PP_F64), "'op'");
        BAD("xor on f32 with n = 0", (c.op = PP_OP_XOR, c.n = 0), "'op'");
        BAD("sum i32->u64", (c.in_type = PP_I32, c.out_type = PP_U64), "'out_type'");
        BAD("min widening u8->u32", (c.op = PP_OP_MIN, c.in_type = PP_U8, c.out_type = PP_U32), "'out_type'");
        BAD("prod widening f32->f64", (c.op = PP_OP_PROD, c.out_type = PP_F64), "'out_type'");
        BAD("sum narrowing f64->f32", c.in_type = PP_F64, "'out_type'");
        BAD("out overlaps in (one element on)", c.out = in + 4, "'out'");
        BAD("out overlaps in (two elements back)", (c.in = out, c.out = out - 8), "'out'");
        BAD("out == in with a widening (f32->f64)", (c.out = in, c.out_type = PP_F64), "'out'");
        BAD("out == in with a widening (u8->u32)", (c.out = in, c.in_type = PP_U8, c.out_type = PP_U32), "'out'");
        BAD("n overflows the output size", (c.n = SIZE_MAX / 4 + 1), "'n'");
        if (form == SCAN_FLAGS || form == SCAN_OFFSETS) {
            BAD("unknown kind", c.kind = (pp_scan_kind)5, "'kind'");
            BAD("kind -1", c.kind = (pp_scan_kind)-1, "'kind'");
            BAD("init given to an inclusive scan", (c.kind = INC, c.init = &init_f64, c.out_type = c.in_type = PP_F64),
                "'init'");
        }
        if (form == SCAN_FLAGS) {
            BAD("head_flags NULL with n > 0", c.flags = NULL, "'head_flags'");
            BAD("out overlaps head_flags", c.out = flags - 16, "'head_flags'");
            BAD("out overlaps head_flags (u8 in place)", (c.in_type = c.out_type = PP_U8, c.in = c.out = flags + 4),
                "'head_flags'");
        }
        if (form == SCAN_OFFSETS) {
            BAD("offsets NULL with n_segments > 0", c.offsets = NULL, "'offsets'");
            BAD("n_segments SIZE_MAX", c.n_segments = SIZE_MAX, "'n_segments'");
            BAD("n_segments SIZE_MAX, n = 0", (c.n_segments = SIZE_MAX, c.n = 0), "'n_segments'");
        }
#undef BAD
    }
    tc_free(ctx, off);
    tc_free(ctx, buf);
}

/* ---- memory ---- */

static void t_memory_bad_args(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    tc_case("%s: pp_malloc / pp_memcpy / pp_memset", pp_backend_name(env->backend));
    const pp_status E = PP_ERROR_INVALID_ARGUMENT;
    expect_fail(ctx, pp_malloc(ctx, NULL, 16), E, "'ptr'");
    void *p = (void *)&p;
    TC_OK(ctx, pp_malloc(ctx, &p, 0));
    TC_CHECK(p == NULL, "pp_malloc of 0 bytes gave %p, want NULL", p);

    unsigned char host[64], back[64];
    memset(host, TC_SENTINEL, sizeof host);
    unsigned char *dev = (unsigned char *)tc_alloc(ctx, 64);
    TC_OK(ctx, pp_memset(ctx, dev, TC_SENTINEL, 64));
    unsigned char src[64];
    memset(src, 0x11, sizeof src);
    expect_fail(ctx, pp_memcpy(ctx, dev, src, 64, (pp_copy_kind)99), E, "'kind'");
    expect_fail(ctx, pp_memcpy(ctx, dev, src, 64, (pp_copy_kind)-1), E, "'kind'");
    expect_fail(ctx, pp_memcpy(ctx, dev, src, 0, (pp_copy_kind)3), E, "'kind'");
    expect_fail(ctx, pp_memcpy(ctx, NULL, src, 64, PP_COPY_HOST_TO_CONTEXT), E, "'dst'");
    expect_fail(ctx, pp_memcpy(ctx, dev, NULL, 64, PP_COPY_HOST_TO_CONTEXT), E, "'src'");
    expect_fail(ctx, pp_memcpy(ctx, host, NULL, 64, PP_COPY_CONTEXT_TO_HOST), E, "'src'");
    expect_fail(ctx, pp_memcpy(ctx, dev, NULL, 64, PP_COPY_CONTEXT_TO_CONTEXT), E, "'src'");
    expect_fail(ctx, pp_memset(ctx, NULL, 0, 64), E, "'ptr'");
    for (int i = 0; i < 64; ++i) TC_CHECK(host[i] == TC_SENTINEL, "host byte %d written", i);
    tc_download(ctx, back, dev, 64);
    for (int i = 0; i < 64; ++i) TC_CHECK(back[i] == TC_SENTINEL, "context byte %d written", i);
    /* Zero bytes: nothing to do, NULL is fine. */
    TC_OK(ctx, pp_memcpy(ctx, NULL, NULL, 0, PP_COPY_HOST_TO_CONTEXT));
    TC_OK(ctx, pp_memset(ctx, NULL, 0, 0));
    TC_OK(ctx, pp_free(ctx, NULL));
    /* And a working round trip. */
    TC_OK(ctx, pp_memcpy(ctx, dev, src, 64, PP_COPY_HOST_TO_CONTEXT));
    unsigned char *dev2 = (unsigned char *)tc_alloc(ctx, 64);
    TC_OK(ctx, pp_memcpy(ctx, dev2, dev, 64, PP_COPY_CONTEXT_TO_CONTEXT));
    tc_download(ctx, back, dev2, 64);
    TC_CHECK(memcmp(back, src, 64) == 0, "round trip through the context space changed the data");
    TC_OK(ctx, pp_memset(ctx, dev2 + 3, 0x7e, 5));
    tc_download(ctx, back, dev2, 64);
    for (int i = 0; i < 64; ++i)
        TC_CHECK(back[i] == (i >= 3 && i < 8 ? 0x7e : 0x11), "pp_memset: byte %d is 0x%02x", i, back[i]);
    tc_free(ctx, dev2);
    tc_free(ctx, dev);

    /* pp_host_malloc: host memory (pinned on HIP) that staging copies go through */
    tc_case("%s: pp_host_malloc / pp_host_free", pp_backend_name(env->backend));
    expect_fail(ctx, pp_host_malloc(ctx, NULL, 16), E, "'ptr'");
    p = (void *)&p;
    expect_fail(ctx, pp_host_malloc(ctx, &p, SIZE_MAX), E, "'bytes'");
    TC_CHECK(p == NULL, "a failed pp_host_malloc left %p", p);
    p = (void *)&p;
    TC_OK(ctx, pp_host_malloc(ctx, &p, 0));
    TC_CHECK(p == NULL, "pp_host_malloc of 0 bytes gave %p, want NULL", p);
    TC_OK(ctx, pp_host_free(ctx, NULL));
    unsigned char *h = NULL;
    TC_OK(ctx, pp_host_malloc(ctx, (void **)&h, 1000));
    TC_CHECK(h != NULL && ((uintptr_t)h & 255) == 0, "pp_host_malloc gave %p (want 256-byte aligned)", (void *)h);
    for (int i = 0; i < 1000; ++i) h[i] = (unsigned char)(i * 7); /* host memory: the host writes it */
    unsigned char *dev3 = (unsigned char *)tc_alloc(ctx, 1000);
    TC_OK(ctx, pp_memcpy(ctx, dev3, h, 1000, PP_COPY_HOST_TO_CONTEXT));
    memset(h, 0, 1000);
    TC_OK(ctx, pp_memcpy(ctx, h, dev3, 1000, PP_COPY_CONTEXT_TO_HOST));
    for (int i = 0; i < 1000; ++i) TC_CHECK(h[i] == (unsigned char)(i * 7), "staged byte %d is %u", i, h[i]);
    tc_free(ctx, dev3);
    TC_OK(ctx, pp_host_free(ctx, h));
    /* the allocation-failure hook covers it */
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_FAIL_ALLOC, 1));
    p = (void *)&p;
    expect_fail(ctx, pp_host_malloc(ctx, &p, 64), PP_ERROR_OUT_OF_MEMORY, "pp_host_malloc");
    TC_CHECK(p == NULL, "a failed pp_host_malloc left %p", p);
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_FAIL_ALLOC, 0));
}

/* The context still works after failures: a small reduce gives its sum. */
static void expect_works(tc_env *env, const char *after)
{
    tc_case("%s: a reduce after %s", pp_backend_name(env->backend), after);
    const int32_t data[5] = {1, 2, 3, 4, 5};
    void *din = tc_upload(env->ctx, data, sizeof data);
    int32_t sum = 0;
    TC_OK(env->ctx, pp_reduce(env->ctx, din, 5, PP_I32, PP_OP_SUM, &sum, PP_I32, PP_RESULT_HOST));
    TC_CHECK(sum == 15, "sum %d", (int)sum);
    tc_free(env->ctx, din);
}

static int contains_number(const char *msg, unsigned long long v)
{
    char num[32];
    snprintf(num, sizeof num, "%llu", v);
    return strstr(msg, num) != NULL;
}

static void t_out_of_memory(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const size_t huge = SIZE_MAX / 2;
    tc_case("%s: pp_malloc(SIZE_MAX / 2)", pp_backend_name(env->backend));
    void *p = NULL;
    pp_status st = pp_malloc(ctx, &p, huge);
    expect_fail(ctx, st, PP_ERROR_OUT_OF_MEMORY, NULL);
    TC_CHECK(p == NULL, "pp_malloc failed but left %p", p);
    TC_CHECK(contains_number(pp_context_last_error(ctx), huge), "message \"%s\" does not give the size %zu",
             pp_context_last_error(ctx), huge);
    tc_case("%s: pp_context_reserve_scratch(SIZE_MAX / 2)", pp_backend_name(env->backend));
    st = pp_context_reserve_scratch(ctx, huge);
    expect_fail(ctx, st, PP_ERROR_OUT_OF_MEMORY, NULL);
    expect_works(env, "out-of-memory");
}

/* A caller's scratch buffer that is too small: PP_ERROR_OUT_OF_MEMORY naming the size. */
static void t_scratch(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    tc_case("%s: pp_context_set_scratch", pp_backend_name(env->backend));
    expect_fail(ctx, pp_context_set_scratch(ctx, NULL, 64), PP_ERROR_INVALID_ARGUMENT, "'buffer'");
    void *buf = tc_alloc(ctx, 64);
    TC_OK(ctx, pp_context_set_scratch(ctx, buf, 64));
    TC_OK(ctx, pp_context_reserve_scratch(ctx, 64));
    TC_OK(ctx, pp_context_reserve_scratch(ctx, 0));
    pp_status st = pp_context_reserve_scratch(ctx, 1000000);
    expect_fail(ctx, st, PP_ERROR_OUT_OF_MEMORY, NULL);
    TC_CHECK(contains_number(pp_context_last_error(ctx), 1000000),
             "message \"%s\" does not name the size needed (1000000)", pp_context_last_error(ctx));
    TC_CHECK(contains_number(pp_context_last_error(ctx), 64),
             "message \"%s\" does not name the buffer's size (64)", pp_context_last_error(ctx));

    /* A reduce that needs more scratch than 64 bytes (the GPU's always does): either it
     * needs none (CPU may not) or it fails cleanly. */
    const size_t n = 3u << 20;
    float *h = (float *)tc_xmalloc(n * sizeof *h);
    for (size_t i = 0; i < n; ++i) h[i] = 1.0f;
    void *din = tc_upload(ctx, h, n * sizeof *h);
    for (int s = 0; s < 2; ++s) {
        const pp_result_space sp = s ? PP_RESULT_CONTEXT : PP_RESULT_HOST;
        _Alignas(16) unsigned char res[16];
        tc_case("%s: pp_reduce f32 sum n = %zu with a 64-byte caller scratch, space %d", pp_backend_name(env->backend), n, s);
        st = tc_reduce(env, din, n, PP_F32, PP_OP_SUM, PP_F32, sp, res);
        if (env->backend == PP_BACKEND_HIP || st != PP_OK) {
            expect_fail_msg(tc_call_message(), st, PP_ERROR_OUT_OF_MEMORY, NULL);
            TC_CHECK(strstr(tc_call_message(), "64") != NULL, "message \"%s\" does not name the buffer's size",
                     tc_call_message());
            for (int i = 0; i < 16; ++i) TC_CHECK(res[i] == TC_SENTINEL, "byte %d of the result was written", i);
        } else {
            float v;
            memcpy(&v, res, 4);
            TC_CHECK(v == (float)n, "sum %g", (double)v);
        }
        _Alignas(16) unsigned char val[16];
        uint64_t idx;
        st = tc_argreduce(env, din, n, PP_F32, PP_OP_MAX, sp, val, &idx);
        if (env->backend == PP_BACKEND_HIP || st != PP_OK)
            expect_fail_msg(tc_call_message(), st, PP_ERROR_OUT_OF_MEMORY, NULL);
        else TC_CHECK(idx == 0, "argmax index %llu", (unsigned long long)idx);
    }
    /* Back to the context's own arena: everything works again. */
    TC_OK(ctx, pp_context_set_scratch(ctx, NULL, 0));
    _Alignas(16) unsigned char res[16];
    TC_OK(ctx, tc_reduce(env, din, n, PP_F32, PP_OP_SUM, PP_F32, PP_RESULT_HOST, res));
    float v;
    memcpy(&v, res, 4);
    TC_CHECK(v == (float)n, "sum %g with the context's own arena", (double)v);
    /* A big enough caller buffer works too. */
    void *big = tc_alloc(ctx, 16u << 20);
    TC_OK(ctx, pp_context_set_scratch(ctx, big, 16u << 20));
    TC_OK(ctx, tc_reduce(env, din, n, PP_F32, PP_OP_SUM, PP_F32, PP_RESULT_HOST, res));
    memcpy(&v, res, 4);
    TC_CHECK(v == (float)n, "sum %g with a 16 MiB caller scratch", (double)v);
    TC_OK(ctx, pp_context_reserve_scratch(ctx, 1u << 20));
    TC_OK(ctx, pp_context_set_scratch(ctx, NULL, 0));
    TC_OK(ctx, pp_context_reserve_scratch(ctx, 1u << 20));
    tc_free(ctx, big);
    tc_free(ctx, buf);
    tc_free(ctx, din);
    free(h);
}

/* ---- contexts ---- */

static void t_context_create(void **state)
{
    (void)state;
    pp_context *c = (pp_context *)&c;
    tc_case("pp_context_create with a bad backend");
    TC_CHECK(pp_context_create(&c, (pp_backend)99, 0) == PP_ERROR_INVALID_ARGUMENT, "backend 99");
    TC_CHECK(c == NULL, "*out not set to NULL on failure");
    TC_CHECK(strstr(pp_last_create_error(), "'backend'") != NULL, "message \"%s\"", pp_last_create_error());
    c = (pp_context *)&c;
    TC_CHECK(pp_context_create(&c, (pp_backend)-1, 0) == PP_ERROR_INVALID_ARGUMENT, "backend -1");
    TC_CHECK(c == NULL, "*out not set to NULL on failure");
    TC_CHECK(strstr(pp_last_create_error(), "'backend'") != NULL, "message \"%s\"", pp_last_create_error());
    /* Only PP_BACKEND_HIP reads `device` (the header): -1 is an error there, and ignored by
     * the CPU backend and by AUTO (which takes device 0 when it chooses HIP). */
    tc_case("pp_context_create HIP with device -1");
    c = (pp_context *)&c;
    TC_CHECK(pp_context_create(&c, PP_BACKEND_HIP, -1) == PP_ERROR_INVALID_ARGUMENT, "backend hip");
    TC_CHECK(c == NULL, "*out not set to NULL on failure");
    TC_CHECK(strstr(pp_last_create_error(), "'device'") != NULL, "message \"%s\"", pp_last_create_error());
    const pp_backend ignoring[2] = {PP_BACKEND_CPU, PP_BACKEND_AUTO};
    const int devices[3] = {-1, 7, INT32_MIN};
    for (int b = 0; b < 2; ++b)
        for (int d = 0; d < 3; ++d) {
            tc_case("pp_context_create %s with device %d", pp_backend_name(ignoring[b]), devices[d]);
            c = NULL;
            TC_CHECK(pp_context_create(&c, ignoring[b], devices[d]) == PP_OK, "%s", pp_last_create_error());
            TC_CHECK(c != NULL, "no context");
            _Alignas(16) int32_t one = 1, sum = 0;
            int32_t *din = (int32_t *)tc_upload(c, &one, sizeof one);
            TC_OK(c, pp_reduce(c, din, 1, PP_I32, PP_OP_SUM, &sum, PP_I32, PP_RESULT_HOST));
            TC_CHECK(sum == 1, "sum %d", (int)sum);
            tc_free(c, din);
            pp_context_destroy(c);
        }
    tc_case("pp_context_create with out NULL");
    TC_CHECK(pp_context_create(NULL, PP_BACKEND_CPU, 0) == PP_ERROR_INVALID_ARGUMENT, "out NULL");
    TC_CHECK(strstr(pp_last_create_error(), "'out'") != NULL, "message \"%s\"", pp_last_create_error());
    tc_case("pp_context_create HIP");
    c = (pp_context *)&c;
    if (pp_backend_available(PP_BACKEND_HIP)) {
        TC_CHECK(pp_context_create(&c, PP_BACKEND_HIP, 100000) == PP_ERROR_INVALID_ARGUMENT, "device 100000");
        TC_CHECK(c == NULL, "*out not set to NULL on failure");
        TC_CHECK(strstr(pp_last_create_error(), "'device'") != NULL, "message \"%s\"", pp_last_create_error());
    } else {
        TC_CHECK(pp_context_create(&c, PP_BACKEND_HIP, 0) == PP_ERROR_NO_DEVICE, "HIP without a device");
        TC_CHECK(c == NULL, "*out not set to NULL on failure");
        TC_CHECK(pp_last_create_error()[0] != '\0', "no message");
    }
    /* The CPU ignores `device`; a success clears the create error. */
    tc_case("pp_context_create CPU, device 3");
    TC_CHECK(pp_context_create(&c, PP_BACKEND_CPU, 3) == PP_OK, "%s", pp_last_create_error());
    TC_CHECK(pp_last_create_error()[0] == '\0', "create error \"%s\" after a success", pp_last_create_error());
    TC_CHECK(pp_context_backend(c) == PP_BACKEND_CPU, "backend");
    TC_CHECK(pp_context_device_name(c)[0] != '\0', "empty device name");
    TC_CHECK(pp_context_last_error(c)[0] == '\0', "fresh context has message \"%s\"", pp_context_last_error(c));
    TC_CHECK(pp_context_stream(c) == NULL, "the CPU context has a stream");
    pp_context_destroy(c);
}

static void t_set_stream(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    tc_case("%s: pp_context_set_stream", pp_backend_name(env->backend));
    void *own = pp_context_stream(ctx);
    TC_OK(ctx, pp_context_set_stream(ctx, NULL));
    TC_CHECK(pp_context_stream(ctx) == own, "set_stream(NULL) did not return to the context's stream");
    if (env->backend == PP_BACKEND_CPU) {
        int dummy;
        expect_fail(ctx, pp_context_set_stream(ctx, &dummy), PP_ERROR_INVALID_ARGUMENT, "'stream'");
        TC_CHECK(pp_context_stream(ctx) == NULL, "stream changed on failure");
    } else {
        TC_CHECK(own != NULL, "a HIP context without a stream");
    }
    TC_OK(ctx, pp_context_synchronize(ctx));
}

/* HIP: host pointers that the runtime does not know are in the wrong space. */
static void t_wrong_memory_space(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    if (env->backend != PP_BACKEND_HIP) skip();
    const pp_status W = PP_ERROR_WRONG_MEMORY_SPACE;
    float *host = (float *)tc_xmalloc(4096 * sizeof(float));
    for (int i = 0; i < 4096; ++i) host[i] = 1.0f;
    _Alignas(16) unsigned char res[16];
    memset(res, TC_SENTINEL, sizeof res);
    tc_case("hip: host pointer as pp_reduce's in");
    expect_fail(ctx, pp_reduce(ctx, host, 4096, PP_F32, PP_OP_SUM, res, PP_F32, PP_RESULT_HOST), W, "'in'");
    for (int i = 0; i < 16; ++i) TC_CHECK(res[i] == TC_SENTINEL, "byte %d written", i);
    float *dev = (float *)tc_upload(ctx, host, 4096 * sizeof(float));
    tc_case("hip: host pointer as pp_reduce's out with PP_RESULT_CONTEXT");
    expect_fail(ctx, pp_reduce(ctx, dev, 4096, PP_F32, PP_OP_SUM, res, PP_F32, PP_RESULT_CONTEXT), W, "'out'");
    for (int i = 0; i < 16; ++i) TC_CHECK(res[i] == TC_SENTINEL, "byte %d written", i);
    uint64_t idx = 77;
    tc_case("hip: host pointers in argmin");
    expect_fail(ctx, pp_argmin(ctx, host, 4096, PP_F32, env->res, (uint64_t *)env->res + 4, PP_RESULT_CONTEXT), W, "'in'");
    expect_fail(ctx, pp_argmin(ctx, dev, 4096, PP_F32, res, (uint64_t *)env->res + 4, PP_RESULT_CONTEXT), W, "'value'");
    expect_fail(ctx, pp_argmax(ctx, dev, 4096, PP_F32, env->res, &idx, PP_RESULT_CONTEXT), W, "'index'");
    TC_CHECK(idx == 77, "index written");
    tc_case("hip: host pointers in pp_segmented_reduce");
    size_t hoff[3] = {0, 10, 4096};
    size_t *doff = (size_t *)tc_upload(ctx, hoff, sizeof hoff);
    float *dout = (float *)tc_alloc(ctx, 64);
    float hout[2] = {-1, -1};
    expect_fail(ctx, pp_segmented_reduce(ctx, host, 4096, PP_F32, doff, 2, PP_OP_SUM, dout, PP_F32), W, "'in'");
    expect_fail(ctx, pp_segmented_reduce(ctx, dev, 4096, PP_F32, hoff, 2, PP_OP_SUM, dout, PP_F32), W, "'offsets'");
    expect_fail(ctx, pp_segmented_reduce(ctx, dev, 4096, PP_F32, doff, 2, PP_OP_SUM, hout, PP_F32), W, "'out'");
    TC_CHECK(hout[0] == -1 && hout[1] == -1, "host out written");
    tc_case("hip: host pointers in the scans");
    float *dscan = (float *)tc_alloc(ctx, 4096 * sizeof(float));
    uint8_t *hflags = (uint8_t *)tc_xmalloc(4096);
    memset(hflags, 0, 4096);
    float *hscan = (float *)tc_xmalloc(4096 * sizeof(float));
    for (int i = 0; i < 4096; ++i) hscan[i] = -1.0f;
    uint8_t *dflags = (uint8_t *)tc_upload(ctx, hflags, 4096);
    const pp_scan_kind EXC = PP_SCAN_EXCLUSIVE;
    expect_fail(ctx, pp_inclusive_scan(ctx, host, 4096, PP_F32, PP_OP_SUM, dscan, PP_F32), W, "'in'");
    expect_fail(ctx, pp_exclusive_scan(ctx, dev, 4096, PP_F32, PP_OP_SUM, NULL, hscan, PP_F32), W, "'out'");
    expect_fail(ctx, pp_segmented_scan_flags(ctx, dev, 4096, PP_F32, hflags, PP_OP_SUM, EXC, NULL, dscan, PP_F32), W,
                "'head_flags'");
    expect_fail(ctx, pp_segmented_scan_offsets(ctx, dev, 4096, PP_F32, hoff, 2, PP_OP_SUM, EXC, NULL, dscan, PP_F32), W,
                "'offsets'");
    for (int i = 0; i < 4096; ++i) TC_CHECK(hflags[i] == 0 && hscan[i] == -1.0f, "host element %d written", i);
    tc_free(ctx, dflags);
    free(hscan);
    free(hflags);
    tc_free(ctx, dscan);
    tc_case("hip: host pointers in pp_memcpy / pp_memset / pp_context_set_scratch");
    float back[4];
    expect_fail(ctx, pp_memcpy(ctx, back, host, 16, PP_COPY_CONTEXT_TO_HOST), W, "'src'");
    expect_fail(ctx, pp_memcpy(ctx, host, dev, 16, PP_COPY_CONTEXT_TO_CONTEXT), W, "'dst'");
    expect_fail(ctx, pp_memset(ctx, host, 0, 16), W, "'ptr'");
    TC_CHECK(host[0] == 1.0f, "host memory written");
    expect_fail(ctx, pp_context_set_scratch(ctx, host, 4096), W, "'buffer'");
    tc_free(ctx, dout);
    tc_free(ctx, doff);
    tc_free(ctx, dev);
    free(host);
}

/* ---- names and strings ---- */

static void t_names(void **state)
{
    (void)state;
    tc_case("pp_status_string / pp_dtype_name / pp_op_name / pp_backend_name / pp_version");
    static const struct { pp_status s; const char *name; } st[] = {
        {PP_OK, "PP_OK"},
        {PP_ERROR_INVALID_ARGUMENT, "PP_ERROR_INVALID_ARGUMENT"},
        {PP_ERROR_UNSUPPORTED, "PP_ERROR_UNSUPPORTED"},
        {PP_ERROR_OUT_OF_MEMORY, "PP_ERROR_OUT_OF_MEMORY"},
        {PP_ERROR_NO_DEVICE, "PP_ERROR_NO_DEVICE"},
        {PP_ERROR_WRONG_MEMORY_SPACE, "PP_ERROR_WRONG_MEMORY_SPACE"},
        {PP_ERROR_DEVICE, "PP_ERROR_DEVICE"},
    };
    for (size_t i = 0; i < sizeof st / sizeof st[0]; ++i) {
        const char *s = pp_status_string(st[i].s);
        TC_CHECK(s != NULL && strstr(s, st[i].name) == s, "status %d: \"%s\" does not start with %s", (int)st[i].s,
                 s ? s : "(null)", st[i].name);
        for (size_t j = 0; j < i; ++j)
            TC_CHECK(strcmp(s, pp_status_string(st[j].s)) != 0, "statuses %zu and %zu share a string", i, j);
    }
    TC_CHECK(strcmp(pp_status_string((pp_status)99), "unknown status") == 0, "\"%s\"", pp_status_string((pp_status)99));
    TC_CHECK(strcmp(pp_status_string((pp_status)-1), "unknown status") == 0, "\"%s\"", pp_status_string((pp_status)-1));

    static const char *const dn[] = {"u8", "i32", "u32", "i64", "u64", "f32", "f64"};
    static const size_t ds[] = {1, 4, 4, 8, 8, 4, 8};
    for (int i = 0; i < 7; ++i) {
        const char *n = pp_dtype_name(tc_dtypes[i]);
        TC_CHECK(n && strcmp(n, dn[i]) == 0, "dtype %d named \"%s\"", (int)tc_dtypes[i], n ? n : "(null)");
        TC_CHECK(pp_dtype_size(tc_dtypes[i]) == ds[i], "size of %s", dn[i]);
    }
    TC_CHECK(pp_dtype_name((pp_dtype)0) == NULL && pp_dtype_name((pp_dtype)8) == NULL &&
                 pp_dtype_name(BAD_DTYPE) == NULL && pp_dtype_name((pp_dtype)-1) == NULL,
             "unknown dtypes must have no name");
    TC_CHECK(pp_dtype_size((pp_dtype)0) == 0 && pp_dtype_size(BAD_DTYPE) == 0, "unknown dtypes must have size 0");
    static const char *const on[] = {"sum", "prod", "min", "max", "and", "or", "xor"};
    for (int i = 0; i < 7; ++i) {
        const char *n = pp_op_name(tc_ops[i]);
        TC_CHECK(n && strcmp(n, on[i]) == 0, "op %d named \"%s\"", (int)tc_ops[i], n ? n : "(null)");
    }
    TC_CHECK(pp_op_name((pp_op)0) == NULL && pp_op_name((pp_op)8) == NULL && pp_op_name(BAD_OP) == NULL &&
                 pp_op_name((pp_op)-1) == NULL,
             "unknown ops must have no name");
    TC_CHECK(strcmp(pp_backend_name(PP_BACKEND_AUTO), "auto") == 0, "auto");
    TC_CHECK(strcmp(pp_backend_name(PP_BACKEND_CPU), "cpu") == 0, "cpu");
    TC_CHECK(strcmp(pp_backend_name(PP_BACKEND_HIP), "hip") == 0, "hip");
    TC_CHECK(pp_backend_available(PP_BACKEND_CPU), "the CPU backend is always available");
    TC_CHECK(!pp_backend_available((pp_backend)99), "backend 99 available");

    TC_CHECK(pp_version() == PARPRIM_VERSION, "pp_version() = %u, header says %u", pp_version(), (unsigned)PARPRIM_VERSION);
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", PARPRIM_VERSION_MAJOR, PARPRIM_VERSION_MINOR, PARPRIM_VERSION_PATCH);
    TC_CHECK(strncmp(pp_version_string(), v, strlen(v)) == 0, "pp_version_string() = \"%s\", want it to start with %s",
             pp_version_string(), v);
    TC_CHECK(strstr(pp_version_string(), "cpu") != NULL, "pp_version_string() = \"%s\" does not list cpu",
             pp_version_string());
}

/* A failure names its argument; the next failure replaces the message. */
static void t_message_replaced(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    tc_case("%s: messages", pp_backend_name(env->backend));
    _Alignas(16) unsigned char out[16];
    expect_fail(ctx, pp_reduce(ctx, NULL, 3, PP_F32, PP_OP_SUM, out, PP_F32, PP_RESULT_HOST), PP_ERROR_INVALID_ARGUMENT, "'in'");
    expect_fail(ctx, pp_reduce(ctx, NULL, 0, PP_F32, PP_OP_SUM, NULL, PP_F32, PP_RESULT_HOST), PP_ERROR_INVALID_ARGUMENT, "'out'");
    TC_CHECK(strstr(pp_context_last_error(ctx), "'in'") == NULL, "stale message \"%s\"", pp_context_last_error(ctx));
    /* The header: the message of the last failed call, kept by later successes (clean-up calls
     * between a failure and reading its message do not lose it), replaced by the next failure. */
    char kept[512];
    snprintf(kept, sizeof kept, "%s", pp_context_last_error(ctx));
    const float x[3] = {1, 2, 3};
    float *din = (float *)tc_upload(ctx, x, sizeof x);
    float sum = 0;
    TC_OK(ctx, pp_reduce(ctx, din, 3, PP_F32, PP_OP_SUM, &sum, PP_F32, PP_RESULT_HOST));
    TC_CHECK(sum == 6.0f, "sum %g", sum);
    TC_OK(ctx, pp_context_synchronize(ctx));
    tc_free(ctx, din);
    TC_CHECK(strcmp(pp_context_last_error(ctx), kept) == 0, "after successes the message is \"%s\", want \"%s\"",
             pp_context_last_error(ctx), kept);
    expect_fail(ctx, pp_reduce(ctx, NULL, 3, PP_F32, BAD_OP, out, PP_F32, PP_RESULT_HOST), PP_ERROR_INVALID_ARGUMENT, "'op'");
    TC_CHECK(strcmp(pp_context_last_error(ctx), kept) != 0, "the next failure did not replace the message");
    /* A fresh context has none. */
    pp_context *c = NULL;
    TC_CHECK(pp_context_create(&c, env->backend, 0) == PP_OK, "%s", pp_last_create_error());
    TC_CHECK(pp_context_last_error(c)[0] == '\0', "fresh context has message \"%s\"", pp_context_last_error(c));
    pp_context_destroy(c);
}

/* ---- histogram family (issue 4) ---- */

/* One bad histogram call: the counts (64 bins' worth of u64, sentinel-filled) must be
 * untouched. kind: 0 even, 1 range. */
struct hcase {
    const char *what;
    int kind;
    int samples_null;
    size_t n;
    pp_dtype st;
    size_t nbins;
    double lo, hi;
    const double *edges_host; /* uploaded; NULL: edges NULL */
    int counts_null;
    pp_dtype ct;
    pp_status want;
    const char *arg;
};

static void hist_case(tc_env *env, const void *samples, const struct hcase *c)
{
    pp_context *ctx = env->ctx;
    unsigned char *dcounts = (unsigned char *)tc_alloc(ctx, 64 * 8);
    TC_OK(ctx, pp_memset(ctx, dcounts, TC_SENTINEL, 64 * 8));
    double *dedges = NULL;
    if (c->edges_host) dedges = (double *)tc_upload(ctx, c->edges_host, (c->nbins + 1) * sizeof(double));
    tc_case("%s: pp_histogram_%s %s (%s samples, %zu bins, n = %zu)", pp_backend_name(env->backend),
            c->kind ? "range" : "even", c->what, tc_dname(c->st) ? tc_dname(c->st) : "?", c->nbins, c->n);
    const void *s = c->samples_null ? NULL : samples;
    void *out = c->counts_null ? NULL : dcounts;
    pp_status st = c->kind ? pp_histogram_range(ctx, s, c->n, c->st, dedges, c->nbins, out, c->ct)
                           : pp_histogram_even(ctx, s, c->n, c->st, c->nbins, c->lo, c->hi, out, c->ct);
    expect_fail(ctx, st, c->want, c->arg);
    unsigned char back[64 * 8];
    tc_download(ctx, back, dcounts, sizeof back);
    for (size_t i = 0; i < sizeof back; ++i) TC_CHECK(back[i] == TC_SENTINEL, "byte %zu of the counts was written", i);
    if (dedges) tc_free(ctx, dedges);
    tc_free(ctx, dcounts);
}

static void t_hist_bad_args(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    void *samples = tc_alloc(ctx, 4096);
    TC_OK(ctx, pp_memset(ctx, samples, 0x3f, 4096)); /* f32 ~0.75, u8 63 */
    const pp_status E = PP_ERROR_INVALID_ARGUMENT;
    double sorted[65], unsorted[65], with_nan[65];
    for (int k = 0; k <= 64; ++k) sorted[k] = unsorted[k] = with_nan[k] = k;
    unsorted[40] = 38.5;
    with_nan[17] = NAN;
    const double big = 9007199254740992.0; /* 2^53 */
    const struct hcase cases[] = {
        {"samples NULL with n > 0", 0, 1, 10, PP_F32, 16, 0, 1, NULL, 0, PP_U32, E, "'samples'"},
        {"counts NULL", 0, 0, 10, PP_F32, 16, 0, 1, NULL, 1, PP_U32, E, "'counts'"},
        {"counts NULL with n = 0", 0, 0, 0, PP_F32, 16, 0, 1, NULL, 1, PP_U32, E, "'counts'"},
        {"nbins 0", 0, 0, 10, PP_F32, 0, 0, 1, NULL, 0, PP_U32, E, "'nbins'"},
        {"nbins 0 with n = 0", 0, 0, 0, PP_U8, 0, 0, 256, NULL, 0, PP_U64, E, "'nbins'"},
        {"nbins above 2^31", 0, 0, 10, PP_F32, ((size_t)1 << 31) + 1, 0, 1, NULL, 0, PP_U32, E, "'nbins'"},
        {"sample_type i64", 0, 0, 10, PP_I64, 16, 0, 1, NULL, 0, PP_U32, E, "'sample_type'"},
        {"sample_type u64", 0, 0, 10, PP_U64, 16, 0, 1, NULL, 0, PP_U32, E, "'sample_type'"},
        {"sample_type 99", 0, 0, 10, BAD_DTYPE, 16, 0, 1, NULL, 0, PP_U32, E, "'sample_type'"},
        {"count_type f32", 0, 0, 10, PP_F32, 16, 0, 1, NULL, 0, PP_F32, E, "'count_type'"},
        {"count_type i32", 0, 0, 10, PP_F32, 16, 0, 1, NULL, 0, PP_I32, E, "'count_type'"},
        {"count_type u8", 0, 0, 10, PP_F32, 16, 0, 1, NULL, 0, PP_U8, E, "'count_type'"},
        {"count_type 99", 0, 0, 10, PP_F32, 16, 0, 1, NULL, 0, BAD_DTYPE, E, "'count_type'"},
        {"lower NaN", 0, 0, 10, PP_F32, 16, NAN, 1, NULL, 0, PP_U32, E, "'lower'"},
        {"upper NaN", 0, 0, 10, PP_F64, 16, 0, NAN, NULL, 0, PP_U32, E, "'upper'"},
        {"lower -inf", 0, 0, 10, PP_F32, 16, -INFINITY, 1, NULL, 0, PP_U32, E, "'lower'"},
        {"upper +inf", 0, 0, 10, PP_F32, 16, 0, INFINITY, NULL, 0, PP_U32, E, "'upper'"},
        {"lower == upper", 0, 0, 10, PP_F32, 16, 1, 1, NULL, 0, PP_U32, E, "'lower'"},
        {"lower > upper", 0, 0, 10, PP_F64, 16, 2, 1, NULL, 0, PP_U64, E, "'lower'"},
        {"lower >= upper, n = 0", 0, 0, 0, PP_F64, 16, 2, 1, NULL, 0, PP_U64, E, "'lower'"},
        {"upper - lower overflows", 0, 0, 10, PP_F64, 16, -1.5e308, 1.5e308, NULL, 0, PP_U32, E, "'upper'"},
        {"nbins / (upper - lower) overflows", 0, 0, 10, PP_F64, 1u << 20, 0, 1e-310, NULL, 0, PP_U32, E, "'upper'"},
        {"u8: lower not whole", 0, 0, 10, PP_U8, 16, 0.5, 256, NULL, 0, PP_U32, E, "'lower'"},
        {"i32: upper not whole", 0, 0, 10, PP_I32, 16, 0, 100.25, NULL, 0, PP_U32, E, "'upper'"},
        {"u32: lower below -2^53", 0, 0, 10, PP_U32, 16, -2 * big, 0, NULL, 0, PP_U32, E, "'lower'"},
        {"u32: upper above 2^53", 0, 0, 10, PP_U32, 16, 0, 2 * big, NULL, 0, PP_U32, E, "'upper'"},
        {"i32: (upper - lower) * nbins > 2^64", 0, 0, 10, PP_I32, 1u << 20, -big, big, NULL, 0, PP_U32, E, "'upper'"},
        {"i32: lower >= upper", 0, 0, 10, PP_I32, 16, 5, -5, NULL, 0, PP_U32, E, "'lower'"},
        {"edges NULL", 1, 0, 10, PP_F32, 64, 0, 0, NULL, 0, PP_U32, E, "'edges'"},
        {"edges unsorted", 1, 0, 10, PP_F32, 64, 0, 0, unsorted, 0, PP_U32, E, "'edges'"},
        {"edges unsorted, n = 0", 1, 0, 0, PP_F32, 64, 0, 0, unsorted, 0, PP_U64, E, "'edges'"},
        {"edges with a NaN", 1, 0, 10, PP_F64, 64, 0, 0, with_nan, 0, PP_U32, E, "'edges'"},
        {"edges unsorted (u8 samples)", 1, 0, 10, PP_U8, 64, 0, 0, unsorted, 0, PP_U32, E, "'edges'"},
        {"range: nbins 0", 1, 0, 10, PP_F32, 0, 0, 0, sorted, 0, PP_U32, E, "'nbins'"},
        {"range: sample_type i64", 1, 0, 10, PP_I64, 64, 0, 0, sorted, 0, PP_U32, E, "'sample_type'"},
        {"range: count_type f64", 1, 0, 10, PP_F32, 64, 0, 0, sorted, 0, PP_F64, E, "'count_type'"},
        {"range: samples NULL", 1, 1, 10, PP_F32, 64, 0, 0, sorted, 0, PP_U32, E, "'samples'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) hist_case(env, samples, &cases[k]);
    /* The same edges, sorted, work (the failure was the edges'). */
    tc_case("%s: pp_histogram_range with sorted edges", pp_backend_name(env->backend));
    double *dedges = (double *)tc_upload(ctx, sorted, sizeof sorted);
    uint32_t *dcounts = (uint32_t *)tc_alloc(ctx, 64 * 4);
    TC_OK(ctx, pp_histogram_range(ctx, samples, 1024, PP_F32, dedges, 64, dcounts, PP_U32));
    uint32_t back[64];
    tc_download(ctx, back, dcounts, sizeof back);
    TC_CHECK(back[0] == 1024, "bin 0 holds %u, want 1024 (every sample is 0.7470...)", back[0]);
    tc_free(ctx, dcounts);
    tc_free(ctx, dedges);
    tc_free(ctx, samples);
}

struct rbicase {
    const char *what;
    int values_null, indices_null, out_null;
    size_t n, n_out;
    pp_dtype t;
    pp_op op;
    pp_status want;
    const char *arg;
};

static void t_rbi_bad_args(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    void *values = tc_alloc(ctx, 1024);
    uint32_t *indices = (uint32_t *)tc_alloc(ctx, 1024);
    TC_OK(ctx, pp_memset(ctx, values, 1, 1024));
    TC_OK(ctx, pp_memset(ctx, indices, 0, 1024));
    unsigned char *dout = (unsigned char *)tc_alloc(ctx, 256);
    uint64_t *dsk = (uint64_t *)tc_alloc(ctx, 8);
    const pp_status E = PP_ERROR_INVALID_ARGUMENT;
    const struct rbicase cases[] = {
        {"values NULL", 1, 0, 0, 10, 8, PP_F32, PP_OP_SUM, E, "'values'"},
        {"indices NULL", 0, 1, 0, 10, 8, PP_F32, PP_OP_SUM, E, "'indices'"},
        {"out NULL", 0, 0, 1, 10, 8, PP_I32, PP_OP_MAX, E, "'out'"},
        {"out NULL with n = 0", 0, 0, 1, 0, 8, PP_I32, PP_OP_MAX, E, "'out'"},
        {"value_type u8", 0, 0, 0, 10, 8, PP_U8, PP_OP_SUM, E, "'value_type'"},
        {"value_type 99", 0, 0, 0, 10, 8, BAD_DTYPE, PP_OP_SUM, E, "'value_type'"},
        {"value_type 0", 0, 0, 0, 10, 8, (pp_dtype)0, PP_OP_SUM, E, "'value_type'"},
        {"op prod", 0, 0, 0, 10, 8, PP_F32, PP_OP_PROD, E, "'op'"},
        {"op xor", 0, 0, 0, 10, 8, PP_U32, PP_OP_XOR, E, "'op'"},
        {"op and on f64", 0, 0, 0, 10, 8, PP_F64, PP_OP_AND, E, "'op'"},
        {"op 99", 0, 0, 0, 10, 8, PP_I64, BAD_OP, E, "'op'"},
        {"op 0 with n = 0", 0, 0, 0, 0, 8, PP_I64, (pp_op)0, E, "'op'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const struct rbicase *c = &cases[k];
        TC_OK(ctx, pp_memset(ctx, dout, TC_SENTINEL, 256));
        TC_OK(ctx, pp_memset(ctx, dsk, TC_SENTINEL, 8));
        tc_case("%s: pp_reduce_by_index %s", pp_backend_name(env->backend), c->what);
        pp_status st = pp_reduce_by_index(ctx, c->values_null ? NULL : values, c->n, c->t,
                                          c->indices_null ? NULL : indices, c->op, c->out_null ? NULL : dout,
                                          c->n_out, dsk);
        expect_fail(ctx, st, c->want, c->arg);
        unsigned char back[256 + 8];
        tc_download(ctx, back, dout, 256);
        tc_download(ctx, back + 256, dsk, 8);
        for (size_t i = 0; i < sizeof back; ++i) TC_CHECK(back[i] == TC_SENTINEL, "byte %zu of out / n_skipped was written", i);
    }
    tc_free(ctx, dsk);
    tc_free(ctx, dout);
    tc_free(ctx, indices);
    tc_free(ctx, values);
}

/* NULL context, and (HIP) host pointers in the wrong space, for the histogram family. */
static void t_hist_null_context(void **state)
{
    (void)state;
    tc_case("histogram family with a NULL context");
    float in[4] = {1, 2, 3, 4};
    uint32_t counts[4] = {7, 7, 7, 7}, ix[4] = {0, 1, 2, 3};
    double edges[5] = {0, 1, 2, 3, 4};
    TC_CHECK(pp_histogram_even(NULL, in, 4, PP_F32, 4, 0, 4, counts, PP_U32) == PP_ERROR_INVALID_ARGUMENT, "even");
    TC_CHECK(pp_histogram_range(NULL, in, 4, PP_F32, edges, 4, counts, PP_U32) == PP_ERROR_INVALID_ARGUMENT, "range");
    TC_CHECK(pp_reduce_by_index(NULL, in, 4, PP_F32, ix, PP_OP_SUM, counts, 4, NULL) == PP_ERROR_INVALID_ARGUMENT,
             "reduce_by_index");
    for (int i = 0; i < 4; ++i) TC_CHECK(counts[i] == 7, "counts[%d] written", i);
}

static void t_hist_wrong_memory_space(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    if (env->backend != PP_BACKEND_HIP) skip();
    const pp_status W = PP_ERROR_WRONG_MEMORY_SPACE;
    float host[64];
    uint32_t hcounts[8] = {9, 9, 9, 9, 9, 9, 9, 9}, hix[64] = {0};
    double hedges[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    for (int i = 0; i < 64; ++i) host[i] = 1.5f;
    float *dev = (float *)tc_upload(ctx, host, sizeof host);
    uint32_t *dcounts = (uint32_t *)tc_alloc(ctx, 64);
    double *dedges = (double *)tc_upload(ctx, hedges, sizeof hedges);
    uint32_t *dix = (uint32_t *)tc_upload(ctx, hix, sizeof hix);
    tc_case("hip: host pointers in the histogram family");
    expect_fail(ctx, pp_histogram_even(ctx, host, 64, PP_F32, 8, 0, 8, dcounts, PP_U32), W, "'samples'");
    expect_fail(ctx, pp_histogram_even(ctx, dev, 64, PP_F32, 8, 0, 8, hcounts, PP_U32), W, "'counts'");
    expect_fail(ctx, pp_histogram_range(ctx, dev, 64, PP_F32, hedges, 8, dcounts, PP_U32), W, "'edges'");
    expect_fail(ctx, pp_reduce_by_index(ctx, host, 64, PP_F32, dix, PP_OP_SUM, dcounts, 8, NULL), W, "'values'");
    expect_fail(ctx, pp_reduce_by_index(ctx, dev, 64, PP_F32, hix, PP_OP_SUM, dcounts, 8, NULL), W, "'indices'");
    expect_fail(ctx, pp_reduce_by_index(ctx, dev, 64, PP_F32, dix, PP_OP_SUM, hcounts, 8, NULL), W, "'out'");
    uint64_t hsk = 5;
    expect_fail(ctx, pp_reduce_by_index(ctx, dev, 64, PP_F32, dix, PP_OP_SUM, dcounts, 8, &hsk), W, "'n_skipped'");
    TC_CHECK(hsk == 5, "host n_skipped written");
    for (int i = 0; i < 8; ++i) TC_CHECK(hcounts[i] == 9, "host counts written");
    tc_free(ctx, dix);
    tc_free(ctx, dedges);
    tc_free(ctx, dcounts);
    tc_free(ctx, dev);
}

/* ---- counts whose byte size overflows (issue 18, item 6) ---- */

#define SZ_BUF 4096

/* The counts of the header's "Counts" rule for elements of `size` bytes: SIZE_MAX, and
 * SIZE_MAX / size + 2, whose byte size wraps (for 1-byte elements it would wrap to a count
 * of 1, which is no test). Returns how many. */
static int huge_counts(size_t size, size_t c[2])
{
    c[0] = SIZE_MAX;
    c[1] = SIZE_MAX / size + 2;
    return size > 1 ? 2 : 1;
}

/* The call's status and message, then nothing written: `buf` (SZ_BUF bytes in the context's
 * space, sentinel-filled) and `host` (64 host bytes, sentinel-filled) unchanged. */
static void expect_untouched(tc_env *env, const unsigned char *buf, const unsigned char *host, pp_status st,
                             pp_status want, const char *arg)
{
    expect_fail(env->ctx, st, want, arg);
    unsigned char *back = (unsigned char *)tc_xmalloc(SZ_BUF);
    TC_OK(env->ctx, pp_context_synchronize(env->ctx));
    tc_download(env->ctx, back, buf, SZ_BUF);
    for (size_t i = 0; i < SZ_BUF; ++i) TC_CHECK(back[i] == TC_SENTINEL, "byte %zu of the context buffer written", i);
    for (size_t i = 0; i < 64; ++i) TC_CHECK(host[i] == TC_SENTINEL, "host byte %zu written", i);
    free(back);
}

/* Every entry point with counts whose byte size overflows size_t (n = SIZE_MAX and
 * SIZE_MAX / size + 2): PP_ERROR_INVALID_ARGUMENT naming the count, no crash, nothing
 * written. The pointers are valid (small buffers), so only the sizes are wrong. */
static void t_bad_sizes(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const pp_status E = PP_ERROR_INVALID_ARGUMENT;
    const char *bk = pp_backend_name(env->backend);
    unsigned char *buf = (unsigned char *)tc_alloc(ctx, SZ_BUF); /* in / out / flags / counts */
    const size_t hoff[2] = {0, 8};
    size_t *off = (size_t *)tc_upload(ctx, hoff, sizeof hoff);
    const double hedges[3] = {0, 1, 2};
    double *edges = (double *)tc_upload(ctx, hedges, sizeof hedges);
    unsigned char *in = (unsigned char *)tc_alloc(ctx, 256);
    TC_OK(ctx, pp_memset(ctx, in, 0, 256));
    _Alignas(16) unsigned char host[64];
    unsigned char *out = buf + SZ_BUF / 2;
    const pp_scan_kind EXC = PP_SCAN_EXCLUSIVE;
    size_t cnt[2];
    TC_OK(ctx, pp_memset(ctx, buf, TC_SENTINEL, SZ_BUF));
    memset(host, TC_SENTINEL, sizeof host);

    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        const int k = huge_counts(tc_size(t), cnt);
        for (int j = 0; j < k; ++j) {
            const size_t n = cnt[j];
            tc_case("%s: pp_reduce %s, n = %zu", bk, tc_dname(t), n);
            expect_untouched(env, buf, host, pp_reduce(ctx, in, n, t, PP_OP_SUM, host, t, PP_RESULT_HOST), E, "'n'");
            expect_untouched(env, buf, host, pp_reduce(ctx, in, n, t, PP_OP_MAX, out, t, PP_RESULT_CONTEXT), E, "'n'");
            tc_case("%s: pp_argmin / pp_argmax %s, n = %zu", bk, tc_dname(t), n);
            expect_untouched(env, buf, host, pp_argmin(ctx, in, n, t, host, (uint64_t *)(host + 16), PP_RESULT_HOST), E,
                             "'n'");
            expect_untouched(env, buf, host,
                             pp_argmax(ctx, in, n, t, out, (uint64_t *)(out + 16), PP_RESULT_CONTEXT), E, "'n'");
            tc_case("%s: pp_segmented_reduce %s, n = %zu, one segment", bk, tc_dname(t), n);
            expect_untouched(env, buf, host, pp_segmented_reduce(ctx, in, n, t, off, 1, PP_OP_SUM, out, t), E, "'n'");
            tc_case("%s: the scans %s, n = %zu", bk, tc_dname(t), n);
            expect_untouched(env, buf, host, pp_inclusive_scan(ctx, in, n, t, PP_OP_SUM, out, t), E, "'n'");
            expect_untouched(env, buf, host, pp_exclusive_scan(ctx, in, n, t, PP_OP_SUM, NULL, out, t), E, "'n'");
            expect_untouched(env, buf, host,
                             pp_segmented_scan_flags(ctx, in, n, t, (const uint8_t *)in, PP_OP_SUM, EXC, NULL, out, t),
                             E, "'n'");
            expect_untouched(env, buf, host,
                             pp_segmented_scan_offsets(ctx, in, n, t, off, 1, PP_OP_SUM, EXC, NULL, out, t), E, "'n'");
            if (t != PP_I64 && t != PP_U64) {
                tc_case("%s: pp_histogram_even / range %s, n = %zu", bk, tc_dname(t), n);
                expect_untouched(env, buf, host, pp_histogram_even(ctx, in, n, t, 4, 0, 4, out, PP_U32), E, "'n'");
                expect_untouched(env, buf, host, pp_histogram_range(ctx, in, n, t, edges, 2, out, PP_U64), E, "'n'");
            }
            if (t != PP_U8) {
                tc_case("%s: pp_reduce_by_index %s, n = %zu", bk, tc_dname(t), n);
                expect_untouched(env, buf, host,
                                 pp_reduce_by_index(ctx, in, n, t, (const uint32_t *)in, PP_OP_SUM, out, 8, NULL), E,
                                 "'n'");
                expect_untouched(env, buf, host,
                                 pp_reduce_by_index(ctx, in, 8, t, (const uint32_t *)in, PP_OP_SUM, out, n, NULL), E,
                                 "'n_out'");
            }
        }
    }
    /* n_segments: offsets hold n_segments + 1 entries of 8 bytes. */
    huge_counts(8, cnt);
    for (int j = 0; j < 2; ++j) {
        const size_t ns = j == 0 ? SIZE_MAX - 1 : cnt[1];
        tc_case("%s: n_segments = %zu", bk, ns);
        expect_untouched(env, buf, host, pp_segmented_reduce(ctx, in, 8, PP_F32, off, ns, PP_OP_SUM, out, PP_F32), E,
                         "'n_segments'");
        expect_untouched(env, buf, host,
                         pp_segmented_scan_offsets(ctx, in, 8, PP_F32, off, ns, PP_OP_SUM, EXC, NULL, out, PP_F32), E,
                         "'n_segments'");
    }
    /* Memory calls: a range from a valid pointer that wraps the address space. */
    tc_case("%s: pp_malloc / pp_memcpy / pp_memset / pp_context_set_scratch, bytes = SIZE_MAX", bk);
    void *p = (void *)&p;
    expect_untouched(env, buf, host, pp_malloc(ctx, &p, SIZE_MAX), E, "'bytes'");
    TC_CHECK(p == NULL, "pp_malloc failed but left %p", p);
    expect_untouched(env, buf, host, pp_malloc(ctx, &p, SIZE_MAX - 100), E, "'bytes'");
    expect_untouched(env, buf, host, pp_memcpy(ctx, buf, host, SIZE_MAX, PP_COPY_HOST_TO_CONTEXT), E, "'bytes'");
    expect_untouched(env, buf, host, pp_memcpy(ctx, host, in, SIZE_MAX, PP_COPY_CONTEXT_TO_HOST), E, "'bytes'");
    expect_untouched(env, buf, host, pp_memcpy(ctx, buf, in, SIZE_MAX, PP_COPY_CONTEXT_TO_CONTEXT), E, "'bytes'");
    expect_untouched(env, buf, host, pp_memset(ctx, buf, 0, SIZE_MAX), E, "'bytes'");
    expect_untouched(env, buf, host, pp_context_set_scratch(ctx, buf, SIZE_MAX), E, "'bytes'");
    expect_works(env, "the bad sizes");
    tc_free(ctx, in);
    tc_free(ctx, edges);
    tc_free(ctx, off);
    tc_free(ctx, buf);
}

/* HIP: counts that run past the end of a pp_malloc'd buffer (the runtime tells the extent):
 * PP_ERROR_INVALID_ARGUMENT naming the count, nothing written. The CPU cannot tell a heap
 * block's extent, so this runs on a GPU only (and skips visibly elsewhere). */
static void t_past_allocation(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    if (env->backend != PP_BACKEND_HIP) skip();
    const pp_status E = PP_ERROR_INVALID_ARGUMENT;
    unsigned char *buf = (unsigned char *)tc_alloc(ctx, SZ_BUF); /* outputs, sentinel */
    float *in = (float *)tc_alloc(ctx, 4096);                     /* 1024 floats */
    size_t *off = (size_t *)tc_alloc(ctx, 4096);                  /* 512 offsets */
    TC_OK(ctx, pp_memset(ctx, in, 0, 4096));
    TC_OK(ctx, pp_memset(ctx, off, 0, 4096));
    TC_OK(ctx, pp_memset(ctx, buf, TC_SENTINEL, SZ_BUF));
    _Alignas(16) unsigned char host[64];
    memset(host, TC_SENTINEL, sizeof host);
    const pp_scan_kind EXC = PP_SCAN_EXCLUSIVE;
    unsigned char *out = buf; /* SZ_BUF bytes */

    tc_case("hip: in of 1024 floats, n = 1025");
    expect_untouched(env, buf, host, pp_reduce(ctx, in, 1025, PP_F32, PP_OP_SUM, host, PP_F32, PP_RESULT_HOST), E, "'n'");
    expect_untouched(env, buf, host, pp_reduce(ctx, in + 1, 1024, PP_F32, PP_OP_SUM, host, PP_F32, PP_RESULT_HOST), E,
                     "'n'");
    expect_untouched(env, buf, host, pp_argmax(ctx, in, 1025, PP_F32, host, (uint64_t *)(host + 16), PP_RESULT_HOST), E,
                     "'n'");
    expect_untouched(env, buf, host, pp_inclusive_scan(ctx, in, 1025, PP_F32, PP_OP_SUM, out, PP_F32), E, "'n'");
    expect_untouched(env, buf, host, pp_histogram_even(ctx, in, 1025, PP_F32, 4, 0, 4, out, PP_U32), E, "'n'");
    expect_untouched(env, buf, host, pp_reduce_by_index(ctx, in, 1025, PP_F32, (const uint32_t *)in, PP_OP_SUM, out, 8, NULL),
                     E, "'n'");
    expect_untouched(env, buf, host, pp_segmented_reduce(ctx, in, 1025, PP_F32, off, 1, PP_OP_SUM, out, PP_F32), E,
                     "'n'");
    tc_case("hip: outputs of SZ_BUF bytes, counts one past");
    expect_untouched(env, buf, host, pp_reduce(ctx, in, 8, PP_F64, PP_OP_SUM, out + SZ_BUF - 4, PP_F64, PP_RESULT_CONTEXT),
                     E, "'out'");
    expect_untouched(env, buf, host, pp_exclusive_scan(ctx, in, 1024, PP_F32, PP_OP_SUM, NULL, out + 4, PP_F32), E, "'n'");
    expect_untouched(env, buf, host, pp_histogram_even(ctx, in, 8, PP_F32, SZ_BUF / 8 + 1, 0, 4, out, PP_U64), E,
                     "'nbins'");
    expect_untouched(env, buf, host,
                     pp_reduce_by_index(ctx, in, 8, PP_F32, (const uint32_t *)in, PP_OP_SUM, out, SZ_BUF / 4 + 1, NULL),
                     E, "'n_out'");
    expect_untouched(env, buf, host, pp_segmented_reduce(ctx, in, 8, PP_F32, off, SZ_BUF / 8 + 1, PP_OP_SUM, out, PP_F64),
                     E, "'n_segments'");
    tc_case("hip: offsets of 512 entries, n_segments = 512");
    expect_untouched(env, buf, host, pp_segmented_reduce(ctx, in, 8, PP_F32, off, 512, PP_OP_SUM, out, PP_F32), E,
                     "'n_segments'");
    expect_untouched(env, buf, host,
                     pp_segmented_scan_offsets(ctx, in, 8, PP_F32, off, 512, PP_OP_SUM, EXC, NULL, out, PP_F32), E,
                     "'n_segments'");
    tc_case("hip: memory calls one byte past");
    expect_untouched(env, buf, host, pp_memset(ctx, buf, 0, SZ_BUF + 1), E, "'bytes'");
    expect_untouched(env, buf, host, pp_memcpy(ctx, buf, in, 4097, PP_COPY_CONTEXT_TO_CONTEXT), E, "'bytes'");
    unsigned char *big = (unsigned char *)tc_xmalloc(8192);
    memset(big, 0, 8192);
    expect_untouched(env, buf, host, pp_memcpy(ctx, buf + 1, big, SZ_BUF, PP_COPY_HOST_TO_CONTEXT), E, "'bytes'");
    free(big);
    expect_untouched(env, buf, host, pp_context_set_scratch(ctx, buf, SZ_BUF + 1), E, "'bytes'");
    /* In bounds, at the very end: fine. */
    tc_case("hip: the last element of each buffer");
    TC_OK(ctx, pp_reduce(ctx, in + 1023, 1, PP_F32, PP_OP_SUM, out + SZ_BUF - 4, PP_F32, PP_RESULT_CONTEXT));
    float last = -1;
    tc_download(ctx, &last, out + SZ_BUF - 4, 4);
    TC_CHECK(last == 0.0f, "sum of the last element %g", last);
    tc_free(ctx, off);
    tc_free(ctx, in);
    tc_free(ctx, buf);
}

/* ---- compaction family (issue 19) ---- */

/* Every bad input of the compaction calls: the status, a message naming the argument, and no
 * output written (buffers and the host count keep their sentinel), n = SIZE_MAX included. The
 * context buffer `buf` (SZ_BUF bytes) is cut into an input [0, 1024), flags [1024, 1280), a
 * payload [1280, 2048) and outputs [2048, 4096); `host` is the host count. */
static void t_compaction_bad_args(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const pp_status E = PP_ERROR_INVALID_ARGUMENT;
    unsigned char *buf = (unsigned char *)tc_alloc(ctx, SZ_BUF);
    TC_OK(ctx, pp_memset(ctx, buf, TC_SENTINEL, SZ_BUF));
    unsigned char host[64];
    memset(host, TC_SENTINEL, sizeof host);
    void *in = buf, *out = buf + 2048, *pout = buf + 3072;
    const uint8_t *fl = buf + 1024;
    const void *pay = buf + 1280;
    uint64_t *cnt = (uint64_t *)host, *dcnt = (uint64_t *)(buf + SZ_BUF - 8);
    const pp_result_space H = PP_RESULT_HOST, C = PP_RESULT_CONTEXT;
    pp_predicate lt, bad_kind, nan_lo, nan_hi;
    memset(&lt, 0, sizeof lt);
    lt.kind = PP_PRED_LT;
    lt.a.f32 = 0.5f;
    bad_kind = lt;
    bad_kind.kind = (pp_pred_kind)42;
    nan_lo = lt;
    nan_lo.kind = PP_PRED_INSIDE;
    nan_lo.a.f32 = NAN;
    nan_lo.b.f32 = 1;
    nan_hi = nan_lo;
    nan_hi.kind = PP_PRED_OUTSIDE;
    nan_hi.a.f64 = 0;
    nan_hi.b.f64 = NAN;
    const char *bk = pp_backend_name(env->backend);
#define CBAD(what, call, arg)                                                  \
    do {                                                                       \
        tc_case("%s: compaction: %s", bk, what);                              \
        expect_untouched(env, buf, host, (call), E, arg);                      \
    } while (0)
    CBAD("select_flagged in NULL", pp_select_flagged(ctx, NULL, 8, PP_F32, fl, NULL, PP_U8, out, NULL, cnt, H), "'in'");
    CBAD("select_flagged flags NULL", pp_select_flagged(ctx, in, 8, PP_F32, NULL, NULL, PP_U8, out, NULL, cnt, H), "'flags'");
    CBAD("select_flagged out NULL", pp_select_flagged(ctx, in, 8, PP_F32, fl, NULL, PP_U8, NULL, NULL, cnt, H), "'out'");
    CBAD("select_flagged payload_out NULL", pp_select_flagged(ctx, in, 8, PP_F32, fl, pay, PP_U32, out, NULL, cnt, H),
         "'payload_out'");
    CBAD("select_flagged payload_out without payload",
         pp_select_flagged(ctx, in, 8, PP_F32, fl, NULL, PP_U32, out, pout, cnt, H), "'payload_out'");
    CBAD("select_flagged count NULL", pp_select_flagged(ctx, in, 8, PP_F32, fl, NULL, PP_U8, out, NULL, NULL, H), "'count'");
    CBAD("select_flagged count NULL, n = 0", pp_select_flagged(ctx, in, 0, PP_F32, fl, NULL, PP_U8, out, NULL, NULL, C),
         "'count'");
    CBAD("select_flagged dtype 99", pp_select_flagged(ctx, in, 8, BAD_DTYPE, fl, NULL, PP_U8, out, NULL, cnt, H), "'dtype'");
    CBAD("select_flagged payload_type 99",
         pp_select_flagged(ctx, in, 8, PP_F32, fl, pay, BAD_DTYPE, out, pout, cnt, H), "'payload_type'");
    CBAD("select_flagged space 7", pp_select_flagged(ctx, in, 8, PP_F32, fl, NULL, PP_U8, out, NULL, cnt, BAD_SPACE),
         "'space'");
    CBAD("select_flagged n = SIZE_MAX", pp_select_flagged(ctx, in, SIZE_MAX, PP_F32, fl, NULL, PP_U8, out, NULL, cnt, H),
         "'n'");
    CBAD("select_flagged n = SIZE_MAX, u8", pp_select_flagged(ctx, in, SIZE_MAX, PP_U8, fl, NULL, PP_U8, out, NULL, cnt, H),
         "'n'");
    CBAD("select_flagged out overlaps in (shifted)",
         pp_select_flagged(ctx, in, 64, PP_F32, fl, NULL, PP_U8, buf + 4, NULL, cnt, H), "'out'");
    CBAD("select_flagged out overlaps flags",
         pp_select_flagged(ctx, in, 64, PP_F32, fl, NULL, PP_U8, buf + 1024, NULL, cnt, H), "'out'");
    CBAD("select_flagged payload_out overlaps out",
         pp_select_flagged(ctx, in, 64, PP_F32, fl, pay, PP_U32, out, buf + 2048 + 8, cnt, H), "'payload_out'");
    CBAD("select_flagged count overlaps out", pp_select_flagged(ctx, in, 64, PP_F32, fl, NULL, PP_U8, out, NULL,
                                                                 (uint64_t *)(buf + 2048 + 16), C),
         "'count'");
    CBAD("select_if pred NULL", pp_select_if(ctx, in, 8, PP_F32, NULL, NULL, PP_U8, out, NULL, cnt, H), "'pred'");
    CBAD("select_if pred kind 42", pp_select_if(ctx, in, 8, PP_F32, &bad_kind, NULL, PP_U8, out, NULL, cnt, H), "'pred'");
    CBAD("select_if inside with a NaN bound", pp_select_if(ctx, in, 8, PP_F32, &nan_lo, NULL, PP_U8, out, NULL, cnt, H),
         "'pred'");
    CBAD("select_if n = SIZE_MAX", pp_select_if(ctx, in, SIZE_MAX, PP_U64, &lt, NULL, PP_U8, out, NULL, cnt, H), "'n'");
    CBAD("partition_if outside with a NaN bound",
         pp_partition_if(ctx, in, 8, PP_F64, &nan_hi, NULL, PP_U8, out, NULL, cnt, H), "'pred'");
    CBAD("partition_flagged in place", pp_partition_flagged(ctx, in, 8, PP_F32, fl, NULL, PP_U8, in, NULL, cnt, H),
         "'out'");
    CBAD("partition_if dtype 0", pp_partition_if(ctx, in, 8, (pp_dtype)0, &lt, NULL, PP_U8, out, NULL, cnt, H), "'dtype'");
    CBAD("partition_flagged n = SIZE_MAX",
         pp_partition_flagged(ctx, in, SIZE_MAX, PP_I64, fl, NULL, PP_U8, out, NULL, cnt, H), "'n'");
    CBAD("unique keys NULL", pp_unique(ctx, NULL, 8, PP_U32, NULL, PP_U8, out, NULL, cnt, H), "'keys'");
    CBAD("unique keys_out NULL", pp_unique(ctx, in, 8, PP_U32, NULL, PP_U8, NULL, NULL, cnt, H), "'keys_out'");
    CBAD("unique in place", pp_unique(ctx, in, 8, PP_U32, NULL, PP_U8, in, NULL, cnt, H), "'keys_out'");
    CBAD("unique n = SIZE_MAX", pp_unique(ctx, in, SIZE_MAX, PP_U32, NULL, PP_U8, out, NULL, cnt, C), "'n'");
    CBAD("rle lengths_out NULL", pp_run_length_encode(ctx, in, 8, PP_U32, out, NULL, PP_U32, cnt, H), "'lengths_out'");
    CBAD("rle values_out NULL", pp_run_length_encode(ctx, in, 8, PP_U32, NULL, pout, PP_U32, cnt, H), "'values_out'");
    CBAD("rle length_type i32", pp_run_length_encode(ctx, in, 8, PP_U32, out, pout, PP_I32, cnt, H), "'length_type'");
    CBAD("rle lengths overlap values", pp_run_length_encode(ctx, in, 8, PP_U32, out, buf + 2048 + 4, PP_U64, cnt, H),
         "'lengths_out'");
    CBAD("rle n = SIZE_MAX", pp_run_length_encode(ctx, in, SIZE_MAX, PP_U8, out, pout, PP_U64, cnt, H), "'n'");
    CBAD("where indices NULL", pp_where(ctx, in, 8, PP_F32, &lt, NULL, PP_U64, cnt, H), "'indices'");
    CBAD("where index_type f64", pp_where(ctx, in, 8, PP_F32, &lt, out, PP_F64, cnt, H), "'index_type'");
    CBAD("where pred NULL", pp_where(ctx, in, 8, PP_F32, NULL, out, PP_U64, cnt, H), "'pred'");
    CBAD("nonzero index_type u8", pp_nonzero(ctx, in, 8, PP_U8, out, PP_U8, cnt, H), "'index_type'");
    CBAD("nonzero u32 indices, n = 2^32 + 1",
         pp_nonzero(ctx, in, ((size_t)1 << 32) + 1, PP_U8, out, PP_U32, cnt, H), "'index_type'");
    CBAD("nonzero n = SIZE_MAX", pp_nonzero(ctx, in, SIZE_MAX, PP_U8, out, PP_U64, cnt, H), "'n'");
    CBAD("nonzero indices overlap in", pp_nonzero(ctx, in, 64, PP_U32, buf + 8, PP_U64, cnt, H), "'indices'");
    CBAD("nonzero space 7", pp_nonzero(ctx, in, 8, PP_U32, out, PP_U64, cnt, BAD_SPACE), "'space'");
#undef CBAD
    (void)dcnt;
    /* In place is allowed for select (not an error), and n = 0 with NULL arrays works. */
    tc_case("%s: compaction: select in place, n = 0", bk);
    TC_OK(ctx, pp_select_flagged(ctx, in, 8, PP_F32, fl, NULL, PP_U8, in, NULL, cnt, H));
    TC_OK(ctx, pp_select_if(ctx, NULL, 0, PP_F32, &lt, NULL, PP_U8, NULL, NULL, cnt, H));
    tc_free(ctx, buf);
}

/* A NULL context: PP_ERROR_INVALID_ARGUMENT and nothing else from each entry point. */
static void t_compaction_null_context(void **state)
{
    (void)state;
    uint64_t c = 5;
    pp_predicate p;
    memset(&p, 0, sizeof p);
    p.kind = PP_PRED_NONZERO;
    TC_CHECK(pp_select_flagged(NULL, NULL, 0, PP_U8, NULL, NULL, PP_U8, NULL, NULL, &c, PP_RESULT_HOST) ==
                 PP_ERROR_INVALID_ARGUMENT, "select_flagged");
    TC_CHECK(pp_select_if(NULL, NULL, 0, PP_U8, &p, NULL, PP_U8, NULL, NULL, &c, PP_RESULT_HOST) ==
                 PP_ERROR_INVALID_ARGUMENT, "select_if");
    TC_CHECK(pp_partition_flagged(NULL, NULL, 0, PP_U8, NULL, NULL, PP_U8, NULL, NULL, &c, PP_RESULT_HOST) ==
                 PP_ERROR_INVALID_ARGUMENT, "partition_flagged");
    TC_CHECK(pp_partition_if(NULL, NULL, 0, PP_U8, &p, NULL, PP_U8, NULL, NULL, &c, PP_RESULT_HOST) ==
                 PP_ERROR_INVALID_ARGUMENT, "partition_if");
    TC_CHECK(pp_unique(NULL, NULL, 0, PP_U8, NULL, PP_U8, NULL, NULL, &c, PP_RESULT_HOST) == PP_ERROR_INVALID_ARGUMENT,
             "unique");
    TC_CHECK(pp_run_length_encode(NULL, NULL, 0, PP_U8, NULL, NULL, PP_U32, &c, PP_RESULT_HOST) ==
                 PP_ERROR_INVALID_ARGUMENT, "rle");
    TC_CHECK(pp_where(NULL, NULL, 0, PP_U8, &p, NULL, PP_U32, &c, PP_RESULT_HOST) == PP_ERROR_INVALID_ARGUMENT, "where");
    TC_CHECK(pp_nonzero(NULL, NULL, 0, PP_U8, NULL, PP_U32, &c, PP_RESULT_HOST) == PP_ERROR_INVALID_ARGUMENT, "nonzero");
    TC_CHECK(c == 5, "count written");
    TC_CHECK(strcmp(pp_pred_name(PP_PRED_INSIDE), "inside") == 0 && pp_pred_name((pp_pred_kind)0) == NULL,
             "pp_pred_name");
}

/* HIP: host pointers among a compaction call's arrays, and a host count given as context
 * memory: PP_ERROR_WRONG_MEMORY_SPACE naming the argument, nothing written. */
static void t_compaction_wrong_memory_space(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    if (env->backend != PP_BACKEND_HIP) skip();
    const pp_status W = PP_ERROR_WRONG_MEMORY_SPACE;
    float host[64];
    uint8_t hflags[64];
    for (int i = 0; i < 64; ++i) host[i] = 1.5f, hflags[i] = (uint8_t)(i & 1);
    float *dev = (float *)tc_upload(ctx, host, sizeof host);
    uint8_t *dflags = (uint8_t *)tc_upload(ctx, hflags, sizeof hflags);
    float *dout = (float *)tc_alloc(ctx, sizeof host);
    uint64_t hcount = 5;
    pp_predicate p;
    memset(&p, 0, sizeof p);
    p.kind = PP_PRED_NONZERO;
    tc_case("hip: host pointers in the compaction family");
    expect_fail(ctx, pp_select_flagged(ctx, host, 64, PP_F32, dflags, NULL, PP_U8, dout, NULL, &hcount, PP_RESULT_HOST),
                W, "'in'");
    expect_fail(ctx, pp_select_flagged(ctx, dev, 64, PP_F32, hflags, NULL, PP_U8, dout, NULL, &hcount, PP_RESULT_HOST),
                W, "'flags'");
    expect_fail(ctx, pp_select_if(ctx, dev, 64, PP_F32, &p, NULL, PP_U8, host, NULL, &hcount, PP_RESULT_HOST), W,
                "'out'");
    expect_fail(ctx, pp_nonzero(ctx, dev, 64, PP_F32, dout, PP_U32, &hcount, PP_RESULT_CONTEXT), W, "'count'");
    TC_CHECK(hcount == 5, "host count written");
    tc_free(ctx, dout);
    tc_free(ctx, dflags);
    tc_free(ctx, dev);
}

/* ---- radix sort family (issue 20) ---- */

/* Every bad input of pp_sort_keys / pp_sort_pairs / pp_argsort: the status, the argument named,
 * nothing written (the outputs live in the sentinel-filled buffer). */
static void t_sort_bad_args(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const pp_status E = PP_ERROR_INVALID_ARGUMENT;
    const char *bk = pp_backend_name(env->backend);
    unsigned char *buf = (unsigned char *)tc_alloc(ctx, SZ_BUF);
    unsigned char *in = (unsigned char *)tc_alloc(ctx, 1024), *vin = (unsigned char *)tc_alloc(ctx, 1024);
    TC_OK(ctx, pp_memset(ctx, in, 0, 1024));
    TC_OK(ctx, pp_memset(ctx, vin, 0, 1024));
    _Alignas(16) unsigned char host[64];
    unsigned char *out = buf, *vout = buf + SZ_BUF / 2;
    const pp_sort_order A = PP_SORT_ASCENDING;
    TC_OK(ctx, pp_memset(ctx, buf, TC_SENTINEL, SZ_BUF));
    memset(host, TC_SENTINEL, sizeof host);

    tc_case("%s: sort NULL arrays", bk);
    expect_untouched(env, buf, host, pp_sort_keys(ctx, NULL, out, 8, PP_U32, A, 0, 0), E, "'keys_in'");
    expect_untouched(env, buf, host, pp_sort_keys(ctx, in, NULL, 8, PP_U32, A, 0, 0), E, "'keys_out'");
    expect_untouched(env, buf, host, pp_sort_pairs(ctx, in, out, NULL, vout, 8, PP_U32, PP_U32, A, 0, 0), E,
                     "'values_in'");
    expect_untouched(env, buf, host, pp_sort_pairs(ctx, in, out, vin, NULL, 8, PP_U32, PP_U32, A, 0, 0), E,
                     "'values_out'");
    expect_untouched(env, buf, host, pp_argsort(ctx, NULL, 8, PP_F32, A, vout, PP_U32), E, "'keys'");
    expect_untouched(env, buf, host, pp_argsort(ctx, in, 8, PP_F32, A, NULL, PP_U32), E, "'indices'");
    tc_case("%s: sort unknown or refused dtypes and order", bk);
    expect_untouched(env, buf, host, pp_sort_keys(ctx, in, out, 8, BAD_DTYPE, A, 0, 0), E, "'key_type'");
    expect_untouched(env, buf, host, pp_sort_pairs(ctx, in, out, vin, vout, 8, PP_U32, BAD_DTYPE, A, 0, 0), E,
                     "'value_type'");
    expect_untouched(env, buf, host, pp_argsort(ctx, in, 8, PP_U32, A, vout, PP_I32), E, "'index_type'");
    expect_untouched(env, buf, host, pp_argsort(ctx, in, 8, PP_U32, A, vout, PP_F64), E, "'index_type'");
    expect_untouched(env, buf, host, pp_sort_keys(ctx, in, out, 8, PP_U32, (pp_sort_order)2, 0, 0), E, "'order'");
    expect_untouched(env, buf, host, pp_argsort(ctx, in, 8, PP_U32, (pp_sort_order)-1, vout, PP_U32), E, "'order'");
    tc_case("%s: sort bit ranges", bk);
    expect_untouched(env, buf, host, pp_sort_keys(ctx, in, out, 8, PP_F32, A, 0, 16), E, "'begin_bit'");
    expect_untouched(env, buf, host, pp_sort_keys(ctx, in, out, 8, PP_F64, A, 4, 0), E, "'begin_bit'");
    expect_untouched(env, buf, host, pp_sort_keys(ctx, in, out, 8, PP_U32, A, -1, 8), E, "'begin_bit'");
    expect_untouched(env, buf, host, pp_sort_keys(ctx, in, out, 8, PP_U32, A, 33, 0), E, "'begin_bit'");
    expect_untouched(env, buf, host, pp_sort_keys(ctx, in, out, 8, PP_U8, A, 0, 9), E, "'end_bit'");
    expect_untouched(env, buf, host, pp_sort_keys(ctx, in, out, 8, PP_U64, A, 0, 65), E, "'end_bit'");
    expect_untouched(env, buf, host, pp_sort_keys(ctx, in, out, 8, PP_I32, A, 0, -3), E, "'end_bit'");
    expect_untouched(env, buf, host, pp_sort_keys(ctx, in, out, 8, PP_U32, A, 9, 8), E, "'begin_bit'");
    expect_untouched(env, buf, host, pp_sort_pairs(ctx, in, out, vin, vout, 8, PP_I64, PP_U8, A, 40, 20), E,
                     "'begin_bit'");
    tc_case("%s: sort overlaps", bk);
    expect_untouched(env, buf, host, pp_sort_keys(ctx, out, out + 4, 8, PP_U32, A, 0, 0), E, "'keys_out'");
    expect_untouched(env, buf, host, pp_sort_pairs(ctx, in, out, vin, out + 16, 8, PP_U32, PP_U32, A, 0, 0), E,
                     "'values_out'");
    expect_untouched(env, buf, host, pp_sort_pairs(ctx, out, out, vin, out + 8, 8, PP_U32, PP_U32, A, 0, 0), E,
                     "overlaps");
    expect_untouched(env, buf, host, pp_sort_pairs(ctx, in, out, out, vout, 8, PP_U32, PP_U32, A, 0, 0), E,
                     "overlaps");
    expect_untouched(env, buf, host, pp_argsort(ctx, out, 8, PP_U32, A, out + 8, PP_U32), E, "'indices'");
    tc_case("%s: sort sizes", bk);
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        size_t cnt[2];
        const int k = huge_counts(tc_size(t), cnt);
        for (int j = 0; j < k; ++j) {
            const size_t n = cnt[j];
            expect_untouched(env, buf, host, pp_sort_keys(ctx, in, out, n, t, A, 0, 0), E, "'n'");
            expect_untouched(env, buf, host, pp_sort_pairs(ctx, in, out, vin, vout, n, t, PP_U8, A, 0, 0), E, "'n'");
            expect_untouched(env, buf, host, pp_argsort(ctx, in, n, t, A, vout, PP_U64), E, "'n'");
        }
    }
    /* u32 indices index at most 2^32 keys (checked before the arrays' sizes) */
    expect_untouched(env, buf, host, pp_argsort(ctx, in, ((size_t)1 << 32) + 1, PP_U8, A, vout, PP_U32), E,
                     "'index_type'");
    tc_case("sort with a NULL context");
    TC_CHECK(pp_sort_keys(NULL, in, out, 8, PP_U32, A, 0, 0) == E, "keys");
    TC_CHECK(pp_sort_pairs(NULL, in, out, vin, vout, 8, PP_U32, PP_U32, A, 0, 0) == E, "pairs");
    TC_CHECK(pp_argsort(NULL, in, 8, PP_U32, A, vout, PP_U32) == E, "argsort");
    tc_free(ctx, vin);
    tc_free(ctx, in);
    tc_free(ctx, buf);
}

/* ---- summed-area table, axis scans, transpose (issue 21) ---- */

enum grid_form { GRID_SAT, GRID_AXIS, GRID_TRANSPOSE };

struct grid_call {
    enum grid_form form;
    const void *in;
    size_t rows, cols, in_pitch;
    pp_dtype in_type;
    pp_axis axis;
    pp_op op;
    pp_scan_kind kind;
    const void *init;
    void *out;
    size_t out_pitch;
    pp_dtype out_type;
    int form_arg; /* pp_sat_form; the transpose's batch */
};

static pp_status call_grid(pp_context *ctx, const struct grid_call *c)
{
    switch (c->form) {
    case GRID_SAT:
        return pp_summed_area_table(ctx, c->in, c->rows, c->cols, c->in_pitch, c->in_type, c->out, c->out_pitch,
                                    c->out_type, (pp_sat_form)c->form_arg);
    case GRID_AXIS:
        return pp_axis_scan(ctx, c->in, c->rows, c->cols, c->in_pitch, c->in_type, c->axis, c->op, c->kind, c->init,
                            c->out, c->out_pitch, c->out_type);
    default:
        return pp_transpose(ctx, c->in, c->rows, c->cols, c->in_pitch, c->out, c->out_pitch, c->in_type,
                            (size_t)c->form_arg);
    }
}

static const char *const grid_names[] = {"pp_summed_area_table", "pp_axis_scan", "pp_transpose"};

/* Every bad argument of the three calls, one at a time, on a valid 4 x 6 f32 call (pitch 8):
 * the status, the argument named, and in / out (one buffer) unchanged. */
static void t_sat_bad_args(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const pp_status E = PP_ERROR_INVALID_ARGUMENT;
    unsigned char *buf = (unsigned char *)tc_alloc(ctx, SCAN_BUF);
    unsigned char *in = buf, *out = buf + 256; /* 4 x 8 f32 = 128 bytes; the integral 5 x 8 */
    const double init_f64 = 1.0;
    for (int f = 0; f < 3; ++f) {
        const enum grid_form form = (enum grid_form)f;
        const size_t opitch = form == GRID_TRANSPOSE ? 4 : 8;
        const struct grid_call ok = {form, in, 4, 6, 8, PP_F32, PP_AXIS_ROWS, PP_OP_SUM, PP_SCAN_INCLUSIVE, NULL,
                                     out, opitch, PP_F32, form == GRID_TRANSPOSE ? 1 : PP_SAT_INCLUSIVE};
        struct grid_call c;
#define BAD(WHAT, CHANGE, ARG)                                                                                      \
    do {                                                                                                            \
        c = ok;                                                                                                     \
        CHANGE;                                                                                                     \
        TC_OK(ctx, pp_memset(ctx, buf, TC_SENTINEL, SCAN_BUF));                                                     \
        tc_case("%s: %s %s", pp_backend_name(env->backend), grid_names[form], WHAT);                               \
        expect_fail(ctx, call_grid(ctx, &c), E, ARG);                                                               \
        unsigned char back[SCAN_BUF];                                                                               \
        tc_download(ctx, back, buf, SCAN_BUF);                                                                      \
        for (int i = 0; i < SCAN_BUF; ++i) TC_CHECK(back[i] == TC_SENTINEL, "byte %d of in / out was written", i); \
    } while (0)
        /* the valid call works */
        c = ok;
        TC_OK(ctx, call_grid(ctx, &c));
        BAD("in NULL", c.in = NULL, "'in'");
        BAD("out NULL", c.out = NULL, "'out'");
        BAD("in_pitch < cols", c.in_pitch = 5, "'in_pitch'");
        BAD("out_pitch < width", c.out_pitch = form == GRID_TRANSPOSE ? 3 : 5, "'out_pitch'");
        BAD("rows * cols overflows", (c.rows = SIZE_MAX / 2, c.cols = 4, c.in_pitch = 4), "'rows'");
        BAD("extent overflows (pitch)", (c.rows = (size_t)1 << 40, c.in_pitch = (size_t)1 << 30), "'rows'");
        BAD("rows SIZE_MAX", c.rows = SIZE_MAX, "'rows'");
        BAD("unknown dtype", c.in_type = BAD_DTYPE, form == GRID_TRANSPOSE ? "'dtype'" : "'in_type'");
        BAD("dtype 0", c.in_type = (pp_dtype)0, form == GRID_TRANSPOSE ? "'dtype'" : "'in_type'");
        BAD("out overlaps in", c.out = in + 16, "'out'");
        BAD("out == in", c.out = in, "'out'");
        if (form == GRID_TRANSPOSE) {
            BAD("batch overflows", c.form_arg = -1, "'rows'");
            BAD("cols SIZE_MAX", (c.cols = SIZE_MAX, c.in_pitch = SIZE_MAX), "'");
        }
        if (form == GRID_SAT) {
            BAD("unknown out_type", c.out_type = BAD_DTYPE, "'out_type'");
            BAD("u8 -> u8", c.in_type = c.out_type = PP_U8, "'out_type'");
            BAD("i32 -> i32", c.in_type = c.out_type = PP_I32, "'out_type'");
            BAD("f64 -> f32", c.in_type = PP_F64, "'out_type'");
            BAD("i64 in", (c.in_type = c.out_type = PP_I64), "'in_type'");
            BAD("unknown form", c.form_arg = 7, "'form'");
            BAD("integral out_pitch = cols", (c.form_arg = PP_SAT_INTEGRAL, c.out_pitch = 6), "'out_pitch'");
            BAD("integral out overlaps in", (c.form_arg = PP_SAT_INTEGRAL, c.out = in + 96), "'out'");
            BAD("integral cols SIZE_MAX", (c.form_arg = PP_SAT_INTEGRAL, c.rows = 1, c.cols = SIZE_MAX,
                                           c.in_pitch = SIZE_MAX), "'");
        }
        if (form == GRID_AXIS) {
            BAD("unknown out_type", c.out_type = BAD_DTYPE, "'out_type'");
            BAD("unknown op", c.op = BAD_OP, "'op'");
            BAD("xor on f32", c.op = PP_OP_XOR, "'op'");
            BAD("min widening f32->f64", (c.op = PP_OP_MIN, c.out_type = PP_F64), "'out_type'");
            BAD("unknown axis", c.axis = (pp_axis)0, "'axis'");
            BAD("axis 3", c.axis = (pp_axis)3, "'axis'");
            BAD("unknown kind", c.kind = (pp_scan_kind)4, "'kind'");
            BAD("init with an inclusive scan", (c.init = &init_f64, c.in_type = c.out_type = PP_F64), "'init'");
        }
#undef BAD
    }
    /* empty matrices with NULL pointers are fine */
    TC_OK(ctx, pp_transpose(ctx, NULL, 0, 5, 5, NULL, 0, PP_U8, 3));
    TC_OK(ctx, pp_transpose(ctx, NULL, 5, 5, 5, NULL, 5, PP_U8, 0));
    TC_OK(ctx, pp_axis_scan(ctx, NULL, 3, 0, 0, PP_F32, PP_AXIS_COLS, PP_OP_SUM, PP_SCAN_INCLUSIVE, NULL, NULL, 0,
                            PP_F32));
    TC_OK(ctx, pp_summed_area_table(ctx, NULL, 0, 0, 0, PP_U8, NULL, 0, PP_U32, PP_SAT_INCLUSIVE));
    tc_case("%s: NULL context", pp_backend_name(env->backend));
    TC_CHECK(pp_summed_area_table(NULL, in, 4, 6, 8, PP_F32, out, 8, PP_F32, PP_SAT_INCLUSIVE) == E, "sat");
    TC_CHECK(pp_axis_scan(NULL, in, 4, 6, 8, PP_F32, PP_AXIS_ROWS, PP_OP_SUM, PP_SCAN_INCLUSIVE, NULL, out, 8, PP_F32) ==
                 E,
             "axis scan");
    TC_CHECK(pp_transpose(NULL, in, 4, 6, 8, out, 4, PP_F32, 1) == E, "transpose");
    tc_free(ctx, buf);
}

/* ---- segmented sort (issue 22) ---- */

/* Every bad input of the segmented sorts: the status, the argument named, nothing written (the
 * outputs live in the sentinel-filled buffer). */
static void t_segsort_bad_args(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const pp_status E = PP_ERROR_INVALID_ARGUMENT;
    const char *bk = pp_backend_name(env->backend);
    unsigned char *buf = (unsigned char *)tc_alloc(ctx, SZ_BUF);
    unsigned char *in = (unsigned char *)tc_alloc(ctx, 1024), *vin = (unsigned char *)tc_alloc(ctx, 1024);
    const size_t hoff[3] = {0, 3, 8};
    size_t *off = (size_t *)tc_upload(ctx, hoff, sizeof hoff);
    TC_OK(ctx, pp_memset(ctx, in, 0, 1024));
    TC_OK(ctx, pp_memset(ctx, vin, 0, 1024));
    _Alignas(16) unsigned char host[64];
    unsigned char *out = buf, *vout = buf + SZ_BUF / 2;
    const pp_sort_order A = PP_SORT_ASCENDING;
    TC_OK(ctx, pp_memset(ctx, buf, TC_SENTINEL, SZ_BUF));
    memset(host, TC_SENTINEL, sizeof host);

    tc_case("%s: segmented sort NULL arrays", bk);
    expect_untouched(env, buf, host, pp_segmented_sort_keys(ctx, NULL, out, 8, PP_U32, off, 2, A), E, "'keys_in'");
    expect_untouched(env, buf, host, pp_segmented_sort_keys(ctx, in, NULL, 8, PP_U32, off, 2, A), E, "'keys_out'");
    expect_untouched(env, buf, host, pp_segmented_sort_keys(ctx, in, out, 8, PP_U32, NULL, 2, A), E, "'offsets'");
    expect_untouched(env, buf, host, pp_segmented_sort_pairs(ctx, in, out, NULL, vout, 8, PP_U32, PP_U8, off, 2, A),
                     E, "'values_in'");
    expect_untouched(env, buf, host, pp_segmented_sort_pairs(ctx, in, out, vin, NULL, 8, PP_U32, PP_U8, off, 2, A),
                     E, "'values_out'");
    expect_untouched(env, buf, host, pp_segmented_sort_keys_fixed(ctx, NULL, out, 2, 4, PP_U32, A), E, "'keys_in'");
    expect_untouched(env, buf, host, pp_segmented_sort_pairs_fixed(ctx, in, out, vin, NULL, 2, 4, PP_U32, PP_F64, A),
                     E, "'values_out'");
    tc_case("%s: segmented sort dtypes, order, n_segments", bk);
    expect_untouched(env, buf, host, pp_segmented_sort_keys(ctx, in, out, 8, BAD_DTYPE, off, 2, A), E, "'key_type'");
    expect_untouched(env, buf, host,
                     pp_segmented_sort_pairs(ctx, in, out, vin, vout, 8, PP_U32, BAD_DTYPE, off, 2, A), E,
                     "'value_type'");
    expect_untouched(env, buf, host, pp_segmented_sort_keys(ctx, in, out, 8, PP_U32, off, 2, (pp_sort_order)2), E,
                     "'order'");
    expect_untouched(env, buf, host, pp_segmented_sort_keys_fixed(ctx, in, out, 2, 4, PP_F32, (pp_sort_order)-1), E,
                     "'order'");
    expect_untouched(env, buf, host, pp_segmented_sort_keys(ctx, in, out, 8, PP_U32, off, SIZE_MAX, A), E,
                     "'n_segments'");
    tc_case("%s: segmented sort overlaps", bk);
    expect_untouched(env, buf, host, pp_segmented_sort_keys(ctx, out, out + 4, 8, PP_U32, off, 2, A), E,
                     "'keys_out'");
    expect_untouched(env, buf, host,
                     pp_segmented_sort_pairs(ctx, in, out, vin, out + 16, 8, PP_U32, PP_U32, off, 2, A), E,
                     "'values_out'");
    expect_untouched(env, buf, host,
                     pp_segmented_sort_keys(ctx, in, out, 8, PP_U32, (const size_t *)(void *)(out + 8), 2, A), E,
                     "'offsets'");
    expect_untouched(env, buf, host, pp_segmented_sort_keys_fixed(ctx, out, out + 4, 2, 4, PP_U32, A), E,
                     "'keys_out'");
    tc_case("%s: segmented sort sizes", bk);
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        size_t cnt[2];
        const int k = huge_counts(tc_size(t), cnt);
        for (int j = 0; j < k; ++j) {
            const size_t n = cnt[j];
            expect_untouched(env, buf, host, pp_segmented_sort_keys(ctx, in, out, n, t, off, 2, A), E, "'n'");
            expect_untouched(env, buf, host, pp_segmented_sort_pairs(ctx, in, out, vin, vout, n, t, PP_U8, off, 2, A),
                             E, "'n'");
            expect_untouched(env, buf, host, pp_segmented_sort_keys_fixed(ctx, in, out, 1, n, t, A), E,
                             "segment_length");
        }
    }
    expect_untouched(env, buf, host, pp_segmented_sort_keys_fixed(ctx, in, out, SIZE_MAX / 2, 3, PP_U8, A), E,
                     "'segment_length'");
    expect_untouched(env, buf, host, pp_segmented_sort_keys(ctx, in, out, 8, PP_U32, off, SIZE_MAX / 4, A), E,
                     "'n_segments'");
    tc_case("segmented sort with a NULL context");
    TC_CHECK(pp_segmented_sort_keys(NULL, in, out, 8, PP_U32, off, 2, A) == E, "keys");
    TC_CHECK(pp_segmented_sort_pairs(NULL, in, out, vin, vout, 8, PP_U32, PP_U32, off, 2, A) == E, "pairs");
    TC_CHECK(pp_segmented_sort_keys_fixed(NULL, in, out, 2, 4, PP_U32, A) == E, "fixed keys");
    TC_CHECK(pp_segmented_sort_pairs_fixed(NULL, in, out, vin, vout, 2, 4, PP_U32, PP_U32, A) == E, "fixed pairs");
    tc_free(ctx, off);
    tc_free(ctx, vin);
    tc_free(ctx, in);
    tc_free(ctx, buf);
}

int main(void)
{
    tc_init("test_errors");
    const struct CMUnitTest tests[] = {
        TC_BOTH(t_reduce_bad_args), TC_CPU(t_null_context),     TC_BOTH(t_arg_bad_args),
        TC_BOTH(t_seg_bad_args),    TC_BOTH(t_scan_bad_args),   TC_BOTH(t_memory_bad_args),
        TC_BOTH(t_out_of_memory),
        TC_BOTH(t_scratch),         TC_CPU(t_context_create),   TC_BOTH(t_set_stream),
        TC_HIP(t_wrong_memory_space), TC_CPU(t_names),          TC_BOTH(t_message_replaced),
        /* histogram family (issue 4) */
        TC_BOTH(t_hist_bad_args),   TC_BOTH(t_rbi_bad_args),    TC_CPU(t_hist_null_context),
        TC_HIP(t_hist_wrong_memory_space),
        /* sizes (issue 18) */
        TC_BOTH(t_bad_sizes),       TC_HIP(t_past_allocation),
        /* compaction family (issue 19) */
        TC_BOTH(t_compaction_bad_args), TC_CPU(t_compaction_null_context),
        TC_HIP(t_compaction_wrong_memory_space),
        /* radix sort family (issue 20) */
        TC_BOTH(t_sort_bad_args),
        /* summed-area table, axis scans, transpose (issue 21) */
        TC_BOTH(t_sat_bad_args),
        /* segmented sort (issue 22) */
        TC_BOTH(t_segsort_bad_args),
    };
    return TC_RUN("errors", tests);
}
