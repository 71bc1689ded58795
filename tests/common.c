/* common.c -- helpers shared by parprim's tests; see common.h. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- seed and random numbers ---- */

unsigned long long tc_seed;
static int tc_seeded;
static const char *tc_suite = "tests"; /* the program, as tc_init names it */

void tc_init(const char *suite)
{
    const char *env = getenv("PP_TEST_SEED");
    if (env && *env) {
        tc_seed = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        tc_seed = ((unsigned long long)ts.tv_sec * 1000003ull) ^ (unsigned long long)ts.tv_nsec;
        tc_seed %= 1000000000000ull; /* short enough to copy by hand */
    }
    tc_seeded = 1;
    tc_suite = suite;
    const char *filter = getenv("PP_TEST_FILTER"); /* a cmocka pattern, e.g. "t_seg_*" */
    if (filter && *filter) cmocka_set_test_filter(filter);
    printf("[%s] PP_TEST_SEED=%llu  parprim %s  backends: cpu%s\n", suite, tc_seed, pp_version_string(),
           pp_backend_available(PP_BACKEND_HIP) ? ", hip" : " (no HIP device: HIP tests skip)");
    fflush(stdout);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

tc_rng tc_rng_for(const char *what)
{
    if (!tc_seeded) tc_init("tests");
    uint64_t h = 0xCBF29CE484222325ull; /* FNV-1a */
    for (const char *p = what; *p; ++p) h = (h ^ (unsigned char)*p) * 0x100000001B3ull;
    tc_rng r = {tc_seed ^ h};
    splitmix(&r.s);
    return r;
}

uint64_t tc_next(tc_rng *r) { return splitmix(&r->s); }

uint64_t tc_below(tc_rng *r, uint64_t bound)
{
    /* Lemire's multiply-shift; the tiny bias does not matter here. */
    return (uint64_t)(((unsigned __int128)tc_next(r) * bound) >> 64);
}

double tc_unit(tc_rng *r) { return (double)(tc_next(r) >> 11) * 0x1p-53; }

/* ---- failures ---- */

static char tc_case_buf[512];

void tc_case(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tc_case_buf, sizeof tc_case_buf, fmt, ap);
    va_end(ap);
}

const char *tc_case_text(void) { return tc_case_buf; }

void tc_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    print_error("%s:%d: %s%s%s%s\n    case: %s\n    reproduce with PP_TEST_SEED=%llu\n", file, line,
                cond ? "check failed: " : "", cond ? cond : "", cond ? ": " : "", msg,
                tc_case_buf[0] ? tc_case_buf : "(none)", tc_seed);
    _fail(file, line);
    abort(); /* _fail does not return inside a test */
}

/* ---- contexts ---- */

tc_env tc_env_cpu = {PP_BACKEND_CPU, NULL, NULL};
tc_env tc_env_hip = {PP_BACKEND_HIP, NULL, NULL};

int tc_setup(void **state)
{
    tc_env *env = (tc_env *)*state;
    env->ctx = NULL;
    env->res = NULL;
    tc_case("setup, backend %s", pp_backend_name(env->backend));
    if (!pp_backend_available(env->backend)) return 0;
    pp_status st = pp_context_create(&env->ctx, env->backend, 0);
    if (st != PP_OK) {
        print_error("pp_context_create(%s) failed: %s: %s (PP_TEST_SEED=%llu)\n",
                    pp_backend_name(env->backend), pp_status_string(st), pp_last_create_error(), tc_seed);
        return -1;
    }
    st = pp_malloc(env->ctx, &env->res, 64);
    if (st != PP_OK) {
        print_error("pp_malloc(64) failed: %s\n", pp_context_last_error(env->ctx));
        pp_context_destroy(env->ctx);
        env->ctx = NULL;
        return -1;
    }
    tc_case("backend %s", pp_backend_name(env->backend));
    return 0;
}

int tc_teardown(void **state)
{
    tc_env *env = (tc_env *)*state;
    if (env->ctx) {
        pp_free(env->ctx, env->res);
        pp_context_destroy(env->ctx);
    }
    env->ctx = NULL;
    env->res = NULL;
    tc_case_buf[0] = '\0';
    return 0;
}

tc_env *tc_envp(void **state)
{
    tc_env *env = (tc_env *)*state;
    if (!env->ctx) {
        print_message("    (skipped: backend '%s' is not available here)\n", pp_backend_name(env->backend));
        skip();
    }
    return env;
}

pp_context *tc_ctx(void **state) { return tc_envp(state)->ctx; }

/* A GPU device node: the machine has a GPU whether or not this build can reach it. */
static const char *gpu_device_node(void)
{
    static const char *const nodes[] = {"/dev/nvidia0", "/dev/kfd"};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; ++i)
        if (access(nodes[i], F_OK) == 0) return nodes[i];
    const char *req = getenv("PP_TEST_REQUIRE_GPU");
    return req && *req && strcmp(req, "0") != 0 ? "PP_TEST_REQUIRE_GPU" : NULL;
}

int tc_run_group(const char *suite, const struct CMUnitTest *tests, size_t count)
{
    const char *sel = getenv("PP_TEST_BACKEND");
    if (!sel || !*sel) sel = "all";
    const int all = strcmp(sel, "all") == 0, want_hip = all || strcmp(sel, "hip") == 0;
    if (!all && !want_hip && strcmp(sel, "cpu") != 0) {
        print_error("%s: PP_TEST_BACKEND must be cpu, hip or all (got '%s')\n", suite, sel);
        return 1;
    }
    struct CMUnitTest *chosen = (struct CMUnitTest *)malloc((count ? count : 1) * sizeof *chosen);
    if (!chosen) {
        print_error("%s: out of host memory\n", suite);
        return 1;
    }
    size_t k = 0, n_hip = 0;
    for (size_t i = 0; i < count; ++i) {
        const int hip = tests[i].initial_state == &tc_env_hip;
        n_hip += hip;
        if (all || hip == want_hip) chosen[k++] = tests[i];
    }
    if (want_hip && n_hip > 0 && !pp_backend_available(PP_BACKEND_HIP)) {
        pp_context *probe = NULL;
        if (pp_context_create(&probe, PP_BACKEND_HIP, 0) == PP_OK) pp_context_destroy(probe);
        const char *why = pp_last_create_error();
        const char *node = gpu_device_node();
        if (node) {
            print_error("%s: FAILED: a GPU is present (%s) but the HIP backend is not available (%s): "
                        "%zu HIP cases cannot run\n",
                        tc_suite, node, why[0] ? why : "no reason given", n_hip);
            free(chosen);
            return 1;
        }
        printf("[gpu-skip] %s: %zu HIP cases not run (%s)\n", tc_suite, n_hip, why[0] ? why : "no HIP device");
        fflush(stdout);
        if (!all) {
            free(chosen);
            return TC_SKIP_RETURN_CODE;
        }
    }
    char name[128];
    snprintf(name, sizeof name, all ? "%s" : "%s [%s]", suite, sel);
    const int failed = _cmocka_run_group_tests(name, chosen, k, NULL, NULL);
    free(chosen);
    return failed;
}

int tc_thorough(void)
{
    const char *q = getenv("PP_TEST_QUICK");
    return !(q && *q && strcmp(q, "0") != 0);
}

/* ---- dtypes ---- */

const pp_dtype tc_dtypes[7] = {PP_U8, PP_I32, PP_U32, PP_I64, PP_U64, PP_F32, PP_F64};
const pp_op tc_ops[7] = {PP_OP_SUM, PP_OP_PROD, PP_OP_MIN, PP_OP_MAX, PP_OP_AND, PP_OP_OR, PP_OP_XOR};
const pp_dtype tc_widenings[TC_N_WIDENINGS][2] = {
    {PP_U8, PP_U32}, {PP_U8, PP_U64}, {PP_I32, PP_I64}, {PP_U32, PP_U64}, {PP_F32, PP_F64}};

int tc_op_defined(pp_op op, pp_dtype t)
{
    return !(tc_is_float(t) && (op == PP_OP_AND || op == PP_OP_OR || op == PP_OP_XOR));
}

size_t tc_all_combos(tc_combo *c)
{
    size_t k = 0;
    for (int ti = 0; ti < 7; ++ti)
        for (int oi = 0; oi < 7; ++oi)
            if (tc_op_defined(tc_ops[oi], tc_dtypes[ti])) c[k++] = (tc_combo){tc_dtypes[ti], tc_dtypes[ti], tc_ops[oi]};
    for (size_t w = 0; w < TC_N_WIDENINGS; ++w) c[k++] = (tc_combo){tc_widenings[w][0], tc_widenings[w][1], PP_OP_SUM};
    return k;
}

int tc_is_float(pp_dtype t) { return po_is_float(t); }
int tc_is_signed(pp_dtype t) { return po_is_signed(t); }
size_t tc_size(pp_dtype t) { return po_size(t); }
const char *tc_dname(pp_dtype t) { return po_dname(t); }
const char *tc_oname(pp_op op) { return po_oname(op); }
uint64_t tc_mask(pp_dtype t) { return po_mask(t); }
uint64_t tc_bits(const void *a, size_t i, pp_dtype t) { return po_bits(a, i, t); }
void tc_store_bits(void *a, size_t i, pp_dtype t, uint64_t bits) { po_store_bits(a, i, t, bits); }
long double tc_value(const void *a, size_t i, pp_dtype t) { return po_value(a, i, t); }
void tc_store_value(void *a, size_t i, pp_dtype t, long double v) { po_store_value(a, i, t, v); }
uint64_t tc_identity_bits(pp_op op, pp_dtype t) { return po_identity_bits(op, t); }

void tc_shuffle(tc_rng *r, void *a, size_t n, pp_dtype t)
{
    for (size_t i = n; i > 1; --i) {
        const size_t j = (size_t)tc_below(r, i);
        const uint64_t x = tc_bits(a, i - 1, t), y = tc_bits(a, j, t);
        tc_store_bits(a, i - 1, t, y);
        tc_store_bits(a, j, t, x);
    }
}

/* ---- fills ---- */

static void store_float(void *a, size_t i, pp_dtype t, double v) { po_store_value(a, i, t, v); }

void tc_fill(tc_rng *r, void *a, size_t n, pp_dtype t, tc_dist dist)
{
    const int fl = tc_is_float(t), sg = tc_is_signed(t);
    const unsigned bits = 8 * (unsigned)tc_size(t);
    switch (dist) {
    case TC_RANDOM:
        for (size_t i = 0; i < n; ++i) {
            if (fl) {
                double m = 1.0 + tc_unit(r);
                double v = ldexp(m, (int)tc_below(r, 17) - 8);
                store_float(a, i, t, (tc_next(r) & 1) ? -v : v);
            } else {
                tc_store_bits(a, i, t, tc_next(r));
            }
        }
        break;
    case TC_SMALLINT:
        for (size_t i = 0; i < n; ++i) {
            long v = sg ? (long)tc_below(r, 17) - 8 : (long)tc_below(r, 9);
            tc_store_value(a, i, t, (long double)v);
        }
        break;
    case TC_PRODSAFE:
        if (!fl) {
            for (size_t i = 0; i < n; ++i) tc_store_bits(a, i, t, tc_next(r) | 1);
        } else {
            /* +-1 everywhere, and a budget of +-2^e (|e| <= 2) elements whose |e| add up to
             * at most 100 (f32) / 900 (f64): every product of any subset is exact. */
            long budget = t == PP_F32 ? 100 : 900;
            for (size_t i = 0; i < n; ++i) {
                double v = 1.0;
                if (budget > 0 && tc_below(r, 16) == 0) {
                    int e = (int)tc_below(r, 5) - 2;
                    if (e == 0) e = 1;
                    budget -= e < 0 ? -e : e;
                    v = ldexp(1.0, e);
                }
                store_float(a, i, t, (tc_next(r) & 1) ? -v : v);
            }
        }
        break;
    case TC_NEAR_ONE:
        if (!fl) {
            tc_fill(r, a, n, t, TC_PRODSAFE);
        } else {
            for (size_t i = 0; i < n; ++i) store_float(a, i, t, 1.0 + (2.0 * tc_unit(r) - 1.0) * 0x1p-10);
        }
        break;
    case TC_DENSE_ONES: {
        /* Bits outside `keep` are cleared in about one element in 32; `keep` never is. */
        uint64_t keep = tc_next(r) & tc_next(r);
        for (size_t i = 0; i < n; ++i) {
            uint64_t v = ~0ull;
            if (tc_below(r, 32) == 0) v &= ~(1ull << tc_below(r, bits));
            tc_store_bits(a, i, t, v | keep);
        }
        break;
    }
    case TC_SPARSE: {
        uint64_t allowed = tc_next(r) | tc_next(r);
        for (size_t i = 0; i < n; ++i) {
            uint64_t v = 0;
            if (tc_below(r, 32) == 0) v = (1ull << tc_below(r, bits)) & allowed;
            tc_store_bits(a, i, t, v);
        }
        break;
    }
    case TC_POSITIVE:
        for (size_t i = 0; i < n; ++i) {
            if (fl) store_float(a, i, t, 1.0 + tc_unit(r));
            else tc_store_bits(a, i, t, tc_next(r) >> 1 >> (64 - bits));
        }
        break;
    case TC_FEW: {
        unsigned char set[5][8];
        tc_fill(r, set, 5, t, TC_RANDOM);
        for (size_t i = 0; i < n; ++i) tc_store_bits(a, i, t, tc_bits(set, tc_below(r, 5), t));
        break;
    }
    }
}

tc_dist tc_dist_for(pp_op op, pp_dtype t)
{
    (void)t;
    switch (op) {
    case PP_OP_PROD: return TC_PRODSAFE;
    case PP_OP_AND: return TC_DENSE_ONES;
    case PP_OP_OR: return TC_SPARSE;
    default: return TC_RANDOM;
    }
}

void tc_fill_special(tc_rng *r, void *a, size_t n, pp_dtype t, int kind)
{
    tc_fill(r, a, n, t, TC_RANDOM);
    const long double nanv = NAN;
    switch (kind) {
    case 0: tc_store_value(a, 0, t, nanv); break;
    case 1: tc_store_value(a, n - 1, t, nanv); break;
    case 2: tc_store_value(a, tc_below(r, n), t, nanv); break;
    case 3:
        tc_store_value(a, tc_below(r, n), t, nanv);
        tc_store_value(a, tc_below(r, n), t, nanv);
        break;
    case 4:
        tc_store_value(a, tc_below(r, n), t, INFINITY);
        tc_store_value(a, tc_below(r, n), t, -INFINITY);
        break;
    case 5:
        for (size_t i = 0; i < n; ++i) tc_store_value(a, i, t, (tc_next(r) & 1) ? -0.0L : 0.0L);
        break;
    case 6:
        for (size_t i = 0; i < n; ++i) tc_store_value(a, i, t, nanv);
        break;
    case 7:
        tc_store_value(a, n / 2, t, nanv);
        tc_store_bits(a, n / 2, t, tc_bits(a, n / 2, t) | (t == PP_F32 ? 0x80000000ull : 0x8000000000000000ull));
        break;
    }
}

void tc_each_op(tc_env *env, pp_dtype t,
                void (*run)(tc_env *env, pp_dtype in, pp_op op, pp_dtype out, tc_dist dist, int exact))
{
    for (int k = 0; k < 7; ++k) {
        const pp_op op = tc_ops[k];
        if (!tc_op_defined(op, t)) continue;
        const tc_dist d = tc_dist_for(op, t);
        run(env, t, op, t, d, tc_is_float(t) && d == TC_PRODSAFE);
    }
}

/* ---- memory ---- */

void *tc_alloc(pp_context *ctx, size_t bytes)
{
    void *p = NULL;
    TC_OK(ctx, pp_malloc(ctx, &p, bytes));
    return p;
}

void *tc_upload(pp_context *ctx, const void *host, size_t bytes)
{
    if (bytes == 0) return NULL;
    void *p = tc_alloc(ctx, bytes);
    TC_OK(ctx, pp_memcpy(ctx, p, host, bytes, PP_COPY_HOST_TO_CONTEXT));
    return p;
}

void tc_download(pp_context *ctx, void *host, const void *src, size_t bytes)
{
    TC_OK(ctx, pp_memcpy(ctx, host, src, bytes, PP_COPY_CONTEXT_TO_HOST));
}

void tc_free(pp_context *ctx, void *p) { TC_OK(ctx, pp_free(ctx, p)); }

void *tc_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) TC_FAIL("host malloc(%zu) failed", bytes);
    return p;
}

/* ---- running the reduce family ---- */

static char tc_call_msg[1024];

const char *tc_call_message(void) { return tc_call_msg; }

static void save_message(pp_context *ctx, pp_status st)
{
    snprintf(tc_call_msg, sizeof tc_call_msg, "%s", st == PP_OK ? "" : pp_context_last_error(ctx));
}

static void check_tail(const unsigned char *p, size_t from, size_t to, const char *what)
{
    for (size_t i = from; i < to; ++i)
        if (p[i] != TC_SENTINEL)
            TC_FAIL("%s: byte %zu past the result was overwritten (0x%02x)", what, i, p[i]);
}

pp_status tc_reduce(tc_env *env, const void *in, size_t n, pp_dtype in_type, pp_op op,
                    pp_dtype out_type, pp_result_space space, unsigned char res16[16])
{
    _Alignas(16) unsigned char buf[16];
    pp_status st;
    memset(buf, TC_SENTINEL, sizeof buf);
    if (space == PP_RESULT_CONTEXT) {
        TC_OK(env->ctx, pp_memset(env->ctx, env->res, TC_SENTINEL, 16));
        st = pp_reduce(env->ctx, in, n, in_type, op, env->res, out_type, space);
        save_message(env->ctx, st);
        TC_OK(env->ctx, pp_memcpy(env->ctx, buf, env->res, 16, PP_COPY_CONTEXT_TO_HOST));
    } else {
        st = pp_reduce(env->ctx, in, n, in_type, op, buf, out_type, space);
        save_message(env->ctx, st);
    }
    check_tail(buf, st == PP_OK ? tc_size(out_type) : 0, 16, "pp_reduce");
    memcpy(res16, buf, 16);
    return st;
}

pp_status tc_argreduce(tc_env *env, const void *in, size_t n, pp_dtype t, pp_op op,
                       pp_result_space space, unsigned char val16[16], uint64_t *index)
{
    _Alignas(16) unsigned char buf[16];
    uint64_t idx;
    pp_status st;
    memset(buf, TC_SENTINEL, sizeof buf);
    memset(&idx, TC_SENTINEL, sizeof idx);
    const uint64_t idx_sentinel = idx;
    if (space == PP_RESULT_CONTEXT) {
        unsigned char *r = (unsigned char *)env->res;
        TC_OK(env->ctx, pp_memset(env->ctx, r, TC_SENTINEL, 64));
        st = op == PP_OP_MIN ? pp_argmin(env->ctx, in, n, t, r, (uint64_t *)(r + 32), space)
                             : pp_argmax(env->ctx, in, n, t, r, (uint64_t *)(r + 32), space);
        save_message(env->ctx, st);
        TC_OK(env->ctx, pp_memcpy(env->ctx, buf, r, 16, PP_COPY_CONTEXT_TO_HOST));
        TC_OK(env->ctx, pp_memcpy(env->ctx, &idx, r + 32, 8, PP_COPY_CONTEXT_TO_HOST));
    } else {
        st = op == PP_OP_MIN ? pp_argmin(env->ctx, in, n, t, buf, &idx, space)
                             : pp_argmax(env->ctx, in, n, t, buf, &idx, space);
        save_message(env->ctx, st);
    }
    check_tail(buf, st == PP_OK ? tc_size(t) : 0, 16, op == PP_OP_MIN ? "pp_argmin" : "pp_argmax");
    if (st != PP_OK && idx != idx_sentinel) TC_FAIL("failed argreduce wrote its index");
    memcpy(val16, buf, 16);
    *index = idx;
    return st;
}

pp_status tc_segreduce(tc_env *env, const void *in, size_t n, pp_dtype in_type,
                       const size_t *offsets, size_t n_segments, pp_op op, void *out,
                       pp_dtype out_type)
{
    pp_context *ctx = env->ctx;
    const size_t osz = tc_size(out_type), bytes = (n_segments + 1) * osz;
    size_t *doff = (size_t *)tc_upload(ctx, offsets, (n_segments + 1) * sizeof(size_t));
    void *dout = tc_alloc(ctx, bytes);
    TC_OK(ctx, pp_memset(ctx, dout, TC_SENTINEL, bytes));
    pp_status st = pp_segmented_reduce(ctx, in, n, in_type, doff, n_segments, op, dout, out_type);
    save_message(ctx, st);
    unsigned char *host = (unsigned char *)tc_xmalloc(bytes);
    tc_download(ctx, host, dout, bytes);
    check_tail(host, st == PP_OK ? n_segments * osz : 0, bytes, "pp_segmented_reduce");
    memcpy(out, host, n_segments * osz);
    free(host);
    tc_free(ctx, dout);
    tc_free(ctx, doff);
    if (st != PP_OK) TC_FAIL("pp_segmented_reduce returned %s: %s", pp_status_string(st), tc_call_msg);
    return st;
}

/* ---- oracles (tests/oracles.c; a mismatch fails the test) ---- */

void tc_red_init(tc_red *o, pp_op op, pp_dtype in, pp_dtype out) { po_red_init(o, op, in, out); }
void tc_red_push(tc_red *o, const void *a, size_t from, size_t to) { po_red_push(o, a, from, to); }
long double tc_sum_gamma(size_t n, pp_dtype out_type) { return po_sum_gamma(n, out_type); }
long double tc_scan_gamma(size_t m, pp_dtype out_type) { return po_scan_gamma(m, out_type); }

void tc_red_check(const tc_red *o, const void *got, double slack)
{
    char why[1024];
    if (!po_red_check(o, got, NULL, slack, why, sizeof why)) TC_FAIL("%s", why);
}

void tc_arg_init(tc_arg *o, pp_op op, pp_dtype t) { po_arg_init(o, op, t); }
void tc_arg_push(tc_arg *o, const void *a, size_t from, size_t to) { po_arg_push(o, a, from, to); }

void tc_arg_check(const tc_arg *o, const void *got_value, uint64_t got_index)
{
    char why[1024];
    if (!po_arg_check(o, got_value, got_index, why, sizeof why)) TC_FAIL("%s", why);
}

void tc_scan_check(const tc_scan *s, const void *in, size_t n, const void *before, const void *got,
                   const void *ref, double slack)
{
    char why[1024];
    if (!po_scan_check(s, in, n, before, TC_SENTINEL, got, ref, slack, why, sizeof why)) TC_FAIL("%s", why);
}

/* ---- scans ---- */

pp_status tc_scan_run(tc_env *env, const tc_scan *s, const void *in, size_t n, int in_place, void *out)
{
    pp_context *ctx = env->ctx;
    const size_t isz = tc_size(s->in), osz = tc_size(s->out), bytes = n * osz;
    if (in_place && isz != osz) TC_FAIL("tc_scan_run: in place needs equal element sizes");
    /* out (and, in place, in) is followed by 64 guard bytes */
    unsigned char *dout = (unsigned char *)tc_alloc(ctx, bytes + 64);
    TC_OK(ctx, pp_memset(ctx, dout, TC_SENTINEL, bytes + 64));
    void *din = in_place ? dout : tc_upload(ctx, in, n * isz);
    if (in_place && n > 0) TC_OK(ctx, pp_memcpy(ctx, dout, in, bytes, PP_COPY_HOST_TO_CONTEXT));
    uint8_t *dflags = s->flags ? (uint8_t *)tc_upload(ctx, s->flags, n) : NULL;
    size_t *doff = s->offsets ? (size_t *)tc_upload(ctx, s->offsets, (s->n_segments + 1) * sizeof(size_t)) : NULL;
    const pp_scan_kind kind = s->exclusive ? PP_SCAN_EXCLUSIVE : PP_SCAN_INCLUSIVE;
    pp_status st;
    if (s->offsets)
        st = pp_segmented_scan_offsets(ctx, din, n, s->in, doff, s->n_segments, s->op, kind, s->init, dout, s->out);
    else if (s->flags)
        st = pp_segmented_scan_flags(ctx, din, n, s->in, dflags, s->op, kind, s->init, dout, s->out);
    else if (s->exclusive)
        st = pp_exclusive_scan(ctx, din, n, s->in, s->op, s->init, dout, s->out);
    else
        st = pp_inclusive_scan(ctx, din, n, s->in, s->op, dout, s->out);
    save_message(ctx, st);
    unsigned char *host = (unsigned char *)tc_xmalloc(bytes + 64);
    tc_download(ctx, host, dout, bytes + 64);
    check_tail(host, bytes, bytes + 64, "scan (64 bytes past out)");
    memcpy(out, host, bytes);
    free(host);
    if (doff) tc_free(ctx, doff);
    if (dflags) tc_free(ctx, dflags);
    if (!in_place && din) tc_free(ctx, din);
    tc_free(ctx, dout);
    return st;
}

/* ---- sizes ---- */

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

size_t tc_sizes(pp_dtype t, size_t *out, size_t cap)
{
    static const size_t fixed[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025,
                                   4095, 4096, 4097, 8191, 8192, 8193, 65535, 65536, 65537,
                                   (1u << 20) + 3};
    size_t k = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && k < cap; ++i) out[k++] = fixed[i];
    const size_t es = tc_size(t);
    const size_t tiles[] = {256 * 8 * 16 / es, 256 * (es == 1 ? 2 : 4) * 16 / es};
    for (int j = 0; j < 2; ++j) {
        const size_t bases[] = {tiles[j], 8 * tiles[j]};
        for (int b = 0; b < 2; ++b)
            for (int d = -1; d <= 1; ++d)
                if (k < cap) out[k++] = bases[b] + (size_t)d;
    }
    qsort(out, k, sizeof *out, cmp_size);
    size_t m = 0;
    for (size_t i = 0; i < k; ++i)
        if (m == 0 || out[i] != out[m - 1]) out[m++] = out[i];
    return m;
}

/* The out-of-memory tests ask for SIZE_MAX / 2 bytes: under AddressSanitizer, malloc must
 * then return NULL (as it does without it) instead of aborting the test. ASAN_OPTIONS in
 * the environment still overrides this. Unused without ASan. */
const char *__asan_default_options(void) __attribute__((used, visibility("default")));
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
