/*
 * common.h -- what parprim's cmocka tests share: a seeded PRNG, fill functions per dtype,
 * one context per test for each backend (the HIP variant skips where no device is present),
 * moving host data to and from the context's space, and the serial oracles (tests/oracles.h,
 * shared with parprim-bench) under the names the tests use.
 *
 * Only the public API (parprim.h) is used. Every failure message carries the seed
 * (PP_TEST_SEED=... reproduces the run) and a description of the case that failed.
 */
#ifndef PP_TESTS_COMMON_H
#define PP_TESTS_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "oracles.h"
#include "parprim.h"

/* ---- seed and random numbers ---------------------------------------------------------- */

/* The run's seed: PP_TEST_SEED (decimal or 0x hex) or the time. Printed by tc_init. */
extern unsigned long long tc_seed;

/* Read the seed and print it with the suite name and the library's version string. */
void tc_init(const char *suite);

/* splitmix64: small, fast, good enough for test data. */
typedef struct tc_rng {
    uint64_t s;
} tc_rng;

/* A generator for one purpose: the run's seed mixed with a hash of `what`, so that each
 * test draws the same numbers whatever the order or subset of tests run. */
tc_rng tc_rng_for(const char *what);
uint64_t tc_next(tc_rng *r);
uint64_t tc_below(tc_rng *r, uint64_t bound); /* uniform in [0, bound), bound > 0 */
double tc_unit(tc_rng *r);                    /* uniform in [0, 1) */

/* ---- failures ------------------------------------------------------------------------- */

const char *tc_call_message(void);

/* Describe the case being checked (backend, dtype, op, n, ...); shown on failure. */
void tc_case(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *tc_case_text(void);

/* Print the failed condition (or NULL), the message, the case and the seed, then fail the
 * test (does not return). */
void tc_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));

#define TC_FAIL(...) tc_fail_at(__FILE__, __LINE__, NULL, __VA_ARGS__)
#define TC_CHECK(cond, ...)                                            \
    do {                                                               \
        if (!(cond)) tc_fail_at(__FILE__, __LINE__, #cond, __VA_ARGS__); \
    } while (0)
/* A call that must succeed; on failure shows the status and the context's message (or,
 * for the tc_* wrappers, whose copies clear it, the message saved after the library call). */
#define TC_OK(ctx, call)                                                                   \
    do {                                                                                   \
        pp_status st_ = (call);                                                            \
        if (st_ != PP_OK) {                                                                \
            const char *m_ = pp_context_last_error(ctx);                                   \
            tc_fail_at(__FILE__, __LINE__, NULL, "%s returned %s (message: \"%s\")", #call, \
                       pp_status_string(st_), m_[0] ? m_ : tc_call_message());             \
        }                                                                                  \
    } while (0)

/* ---- one context per test, per backend ------------------------------------------------ */

typedef struct tc_env {
    pp_backend backend;
    pp_context *ctx; /* NULL when the backend is not available (the test skips) */
    void *res;       /* 64 bytes in the context's space for PP_RESULT_CONTEXT results */
} tc_env;

extern tc_env tc_env_cpu, tc_env_hip;

int tc_setup(void **state);
int tc_teardown(void **state);
/* The test's context; skip()s the test when its backend is not available. */
pp_context *tc_ctx(void **state);
tc_env *tc_envp(void **state);

/* Register test function f once per backend ("f [cpu]", "f [hip]"), or for one. */
#define TC_CPU(f) {#f " [cpu]", f, tc_setup, tc_teardown, &tc_env_cpu}
#define TC_HIP(f) {#f " [hip]", f, tc_setup, tc_teardown, &tc_env_hip}
#define TC_BOTH(f) TC_CPU(f), TC_HIP(f)

/* ---- running a program's cases, per backend ------------------------------------------ */

/* ctest registers each program once per backend (tests/CMakeLists.txt: "test_scan[cpu]",
 * "test_scan[hip]") and says which through PP_TEST_BACKEND: "cpu" runs the cases registered
 * with TC_CPU (and any not tied to a backend), "hip" those registered with TC_HIP; unset or
 * "all" runs every case (a program started by hand).
 *
 * Where the HIP cases are selected but the HIP backend is not available, none of them runs:
 * the program prints "[gpu-skip] <program>: <k> HIP cases not run (<why>)" (CI adds these
 * up) and, for "hip", exits TC_SKIP_RETURN_CODE, which ctest reports as Skipped. If a GPU is
 * present all the same (/dev/nvidia0 or /dev/kfd exists, or PP_TEST_REQUIRE_GPU=1), a
 * skipped GPU case is an error instead: the program fails. */
#define TC_SKIP_RETURN_CODE 77
int tc_run_group(const char *suite, const struct CMUnitTest *tests, size_t count);
#define TC_RUN(suite, tests) tc_run_group(suite, tests, sizeof(tests) / sizeof((tests)[0]))

/* Whether the test run may do the slow parts (PP_TEST_QUICK unset or 0). */
int tc_thorough(void);

/* ---- dtypes --------------------------------------------------------------------------- */

extern const pp_dtype tc_dtypes[7];
extern const pp_op tc_ops[7];
/* Whether op applies to elements of type t (and/or/xor: integers only). */
int tc_op_defined(pp_op op, pp_dtype t);
/* The widening sums the API offers: {in, out}. */
#define TC_N_WIDENINGS 5
extern const pp_dtype tc_widenings[TC_N_WIDENINGS][2];
/* An (in, op, out) of the reduce and scan families. */
typedef struct tc_combo {
    pp_dtype in, out;
    pp_op op;
} tc_combo;
#define TC_MAX_COMBOS 64
/* Every (in, op, out) the API offers, into c[0 .. return value). */
size_t tc_all_combos(tc_combo *c);
int tc_is_float(pp_dtype t);
int tc_is_signed(pp_dtype t);
size_t tc_size(pp_dtype t); /* computed here, not with pp_dtype_size */
const char *tc_dname(pp_dtype t);
const char *tc_oname(pp_op op);
/* Element i of an array of dtype t. */
uint64_t tc_bits(const void *a, size_t i, pp_dtype t);      /* zero-extended raw bits */
long double tc_value(const void *a, size_t i, pp_dtype t);  /* exact value */
void tc_store_bits(void *a, size_t i, pp_dtype t, uint64_t bits);
void tc_store_value(void *a, size_t i, pp_dtype t, long double v); /* converted */
/* Elements 0 .. n - 1 of an array of dtype t in a uniformly random order (Fisher-Yates). */
void tc_shuffle(tc_rng *r, void *a, size_t n, pp_dtype t);
/* Mask of the low 8 * size bits. */
uint64_t tc_mask(pp_dtype t);
/* Identity of op in dtype t, as raw bits. */
uint64_t tc_identity_bits(pp_op op, pp_dtype t);

/* What to fill with. */
typedef enum tc_dist {
    TC_RANDOM,    /* ints: all bits random; floats: random sign, mantissa, exponent in [-8, 8] */
    TC_SMALLINT,  /* integers in [-8, 8] (unsigned: [0, 8]); floats hold them exactly */
    TC_PRODSAFE,  /* ints: odd values; floats: +-2^k, k a walk kept in [-20, 20]: every
                     partial product of a contiguous range is exact */
    TC_NEAR_ONE,  /* floats: 1 + d, |d| < 2^-10 (products stay in range, not exact) */
    TC_DENSE_ONES,/* ints: all ones except a rare cleared bit (AND stays interesting) */
    TC_SPARSE,    /* ints: zero except a rare set bit (OR stays interesting) */
    TC_FEW,       /* values from a set of 5 (ties everywhere) */
    TC_POSITIVE   /* floats in [1, 2): sums grow, so a long chain of roundings shows */
} tc_dist;

void tc_fill(tc_rng *r, void *a, size_t n, pp_dtype t, tc_dist dist);
/* The distribution reduce tests use for an op. */
tc_dist tc_dist_for(pp_op op, pp_dtype t);

/* Float data (t F32 or F64) with special values, kind 0 .. TC_N_SPECIAL - 1 (n > 0): random
 * (TC_RANDOM) with a NaN at 0 / at n - 1 / at a random place / at two random places (0..3);
 * +inf and -inf at random places (4); signed zeros only (5); all NaN (6); a NaN with the sign
 * bit set at n / 2 (7). */
#define TC_N_SPECIAL 8
void tc_fill_special(tc_rng *r, void *a, size_t n, pp_dtype t, int kind);

/* run(env, t, op, t, dist, exact) for every op defined on t, in tc_ops order, with the
 * distribution tc_dist_for(op, t) and exact set for floats on TC_PRODSAFE data (the
 * per-dtype tests of the reduce and scan families). */
void tc_each_op(tc_env *env, pp_dtype t,
                void (*run)(tc_env *env, pp_dtype in, pp_op op, pp_dtype out, tc_dist dist, int exact));

/* ---- memory in the context's space ---------------------------------------------------- */

void *tc_upload(pp_context *ctx, const void *host, size_t bytes); /* NULL when bytes == 0 */
void *tc_alloc(pp_context *ctx, size_t bytes);
void tc_download(pp_context *ctx, void *host, const void *src, size_t bytes);
void tc_free(pp_context *ctx, void *p);
void *tc_xmalloc(size_t bytes); /* host; fails the test when out of memory */

/* ---- running the reduce family with host results -------------------------------------- */

#define TC_SENTINEL 0xA5

/* pp_reduce on `in` (context space) with the result in `space`; the result's 16 bytes come
 * back in res16 (the bytes past the result type's size must still hold TC_SENTINEL: the
 * call checks it). Returns the call's status. */
pp_status tc_reduce(tc_env *env, const void *in, size_t n, pp_dtype in_type, pp_op op,
                    pp_dtype out_type, pp_result_space space, unsigned char res16[16]);
/* The context's message right after the library call inside the last tc_reduce /
 * tc_argreduce / tc_segreduce ("" if it succeeded): the copies that follow the call clear it. */
const char *tc_call_message(void);
/* pp_argmin (op MIN) or pp_argmax (op MAX); value in val16, index in *index. */
pp_status tc_argreduce(tc_env *env, const void *in, size_t n, pp_dtype t, pp_op op,
                       pp_result_space space, unsigned char val16[16], uint64_t *index);
/* pp_segmented_reduce with host offsets and host results: uploads the offsets, runs, and
 * downloads n_segments results into out (out_type elements); the element past the last
 * must stay sentinel (checked). */
pp_status tc_segreduce(tc_env *env, const void *in, size_t n, pp_dtype in_type,
                       const size_t *offsets, size_t n_segments, pp_op op, void *out,
                       pp_dtype out_type);

/* ---- serial oracles ------------------------------------------------------------------- */

/* Reduction of a range, pushed element by element (so a test can grow n incrementally). */
typedef po_red tc_red; /* tests/oracles.h */

void tc_red_init(tc_red *o, pp_op op, pp_dtype in, pp_dtype out);
void tc_red_push(tc_red *o, const void *a, size_t from, size_t to);
/* Check a result (out_type element at `got`) against the oracle; float sums within the
 * header's bound times `slack` (1 against the exact value). */
void tc_red_check(const tc_red *o, const void *got, double slack);
/* The header's bound for a float sum of n elements accumulated with unit roundoff of
 * out_type: g = D u / (1 - D u), D = ceil(log2 n) + PP_SUM_DEPTH_SLACK. */
long double tc_sum_gamma(size_t n, pp_dtype out_type);

/* Argmin / argmax. */
typedef po_arg tc_arg;

void tc_arg_init(tc_arg *o, pp_op op, pp_dtype t);
void tc_arg_push(tc_arg *o, const void *a, size_t from, size_t to);
void tc_arg_check(const tc_arg *o, const void *got_value, uint64_t got_index);

/* ---- scans ---------------------------------------------------------------------------- */

/* One scan call: the form (plain, head flags or offsets) and its arguments, host arrays. */
typedef po_scan tc_scan;

/* The header's scan bound for an output combining m terms: g = D u / (1 - D u),
 * D = 2 ceil(log2 m) + PP_SCAN_DEPTH_SLACK, u of out_type's accumulation. */
long double tc_scan_gamma(size_t m, pp_dtype out_type);

/* Run the scan `s` on the host array in[0, n) in env's context: in, flags and offsets are
 * uploaded; out is filled with TC_SENTINEL first (in_place: out is the uploaded input), and
 * 64 bytes past it must stay TC_SENTINEL (checked). The n outputs come back in host `out`.
 * Returns the call's status (message in tc_call_message()). */
pp_status tc_scan_run(tc_env *env, const tc_scan *s, const void *in, size_t n, int in_place, void *out);

/* Check the n outputs `got` (host, out_type) of scan `s` over host in[0, n) against a serial
 * oracle: integers exact; float min / max equal (a NaN where the oracle has seen one);
 * float sums within slack x the bound above (equal with s->exact); float products within
 * slack x gamma_{m-1} |exact product|. With `ref` (another backend's outputs), the value
 * compared against is ref's instead of the oracle's (integers and min / max bitwise, except a
 * NaN's payload and a zero's sign); the oracle still gives the bounds. Elements outside every
 * segment of the offsets form must equal `before` (NULL: TC_SENTINEL bytes). */
void tc_scan_check(const tc_scan *s, const void *in, size_t n, const void *before, const void *got,
                   const void *ref, double slack);

/* ---- sizes ---------------------------------------------------------------------------- */

/* The sizes reduce tests use for dtype t: the fixed list (0, 1, 2, 31..65537, 2^20+3) and,
 * for t's element size, the GPU tile (256 threads x 8 x 16 bytes), the argmin tile
 * (256 x 2 or 4 x 16 bytes) and 8 tiles, each +-1. Sorted, distinct; returns the count. */
size_t tc_sizes(pp_dtype t, size_t *out, size_t cap);

#endif
