/*
 * fuzz_api.c -- libFuzzer target over parprim's public API on the CPU backend.
 *
 * Each input is a little program: a sequence of calls (reduce, argmin/argmax, segmented
 * reduce, the four scans, both histograms, reduce by index, options, scratch, memory, and
 * (issue 21) the summed-area table, axis scans and transpose), each
 * with arguments drawn from the input: dtypes and ops (valid and not), counts (small ones
 * with real buffers of exactly that size, so ASan sees any read or write past them, and
 * huge ones whose byte size overflows size_t, such as SIZE_MAX and SIZE_MAX / size + 2,
 * with NULL or small buffers), element offsets, flags, edges, bin counts, result spaces,
 * NULL and valid pointers, overlapping in and out, and options set through
 * pp_context_set_option (PP_OPTION_FAIL_ALLOC included).
 *
 * Besides the sanitizers (ASan, UBSan, LeakSanitizer), every call is checked against what
 * parprim.h promises for any arguments:
 *   - the status is a pp_status;
 *   - a failure on a context leaves a message, and writes no output (the output buffers are
 *     compared with a copy taken before the call);
 *   - a count whose byte size overflows size_t is never PP_OK.
 * A broken promise aborts with the call and its arguments printed.
 *
 * Build: tests/fuzz/CMakeLists.txt (clang-15, -fsanitize=fuzzer,address,undefined). Run:
 *   build-fuzz/fuzz_api -max_total_time=60 <new-inputs dir> tests/fuzz/corpus
 * Replay one input, printing each call before it is made:
 *   FUZZ_API_VERBOSE=1 build-fuzz/fuzz_api <file>
 */
#define PP_EXPERIMENTAL 1
#include "parprim.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading the input ---- */

typedef struct reader {
    const uint8_t *p;
    size_t left;
} reader;

static uint64_t take(reader *r, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes && r->left > 0; ++i, --r->left) v |= (uint64_t)*r->p++ << (8 * i);
    return v;
}

static unsigned byte(reader *r) { return (unsigned)take(r, 1); }

/* ---- argument choices ---- */

static const pp_dtype all_dtypes[] = {PP_U8, PP_I32, PP_U32, PP_I64, PP_U64, PP_F32, PP_F64};

static pp_dtype pick_dtype(reader *r)
{
    const unsigned v = byte(r) % 10;
    if (v < 7) return all_dtypes[v];
    return (pp_dtype)(v == 7 ? 0 : v == 8 ? 8 : 0x7fffffff); /* not dtypes */
}

static pp_op pick_op(reader *r)
{
    const unsigned v = byte(r) % 9;
    return (pp_op)(v == 0 ? 0 : v == 8 ? 99 : (int)v);
}

/* Element size, 1 for an invalid dtype (so that buffers stay small and real). */
static size_t esize(pp_dtype t)
{
    const size_t s = pp_dtype_size(t);
    return s ? s : 1;
}

/* A count: mostly small; sometimes one whose byte size in elements of `widest` bytes
 * overflows size_t (the library must reject it). *huge says which. */
static size_t pick_count(reader *r, size_t widest, int *huge)
{
    const unsigned m = byte(r) % 16;
    *huge = 0;
    switch (m) {
    case 0: return 0;
    case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8: return byte(r) % 97;
    case 9: case 10: return byte(r);
    case 11: case 12: return take(r, 2) % 5000;
    case 13: *huge = 1; return SIZE_MAX - byte(r) % 4;
    default: /* for 1-byte elements the byte size cannot overflow; the range runs past the address space */
        *huge = 1;
        return widest > 1 ? SIZE_MAX / widest + 1 + byte(r) % 4 : SIZE_MAX - 4 - byte(r) % 4;
    }
}

static pp_result_space pick_space(reader *r)
{
    const unsigned v = byte(r) % 8;
    return (pp_result_space)(v < 3 ? PP_RESULT_HOST : v < 6 ? PP_RESULT_CONTEXT : v == 6 ? 2 : -1);
}

/* ---- buffers: exact sizes, filled from the input, remembered for the checks ---- */

#define MAX_BUFS 8

typedef struct buf {
    unsigned char *p;
    size_t bytes;
    unsigned char *before; /* copy taken before the call, for the outputs */
    int output;
} buf;

typedef struct call {
    reader *r;
    buf b[MAX_BUFS];
    int nb;
    char what[512];
} call;

/* A buffer of `bytes` (NULL when the input says so, or for 0 bytes), filled from the input.
 * Outputs are compared with their copy after a failed call. */
static void *make_buf(call *c, size_t bytes, int output, int may_be_null)
{
    if (may_be_null && byte(c->r) % 8 == 0) return NULL;
    if (c->nb == MAX_BUFS) return NULL;
    buf *b = &c->b[c->nb++];
    b->bytes = bytes;
    b->output = output;
    b->p = (unsigned char *)malloc(bytes ? bytes : 1);
    b->before = (unsigned char *)malloc(bytes ? bytes : 1);
    if (!b->p || !b->before) abort();
    for (size_t i = 0; i < bytes; ++i) b->p[i] = c->r->left ? (unsigned char)byte(c->r) : (unsigned char)(i * 37);
    memcpy(b->before, b->p, bytes);
    return b->p;
}

/* A buffer for `n` elements of `size` bytes, or a small one (64 bytes) for a huge n; it
 * starts 0 to 3 elements into its allocation (aligned for the element, not for vectors) and
 * ends where the allocation ends. */
static void *make_array(call *c, size_t n, size_t size, int huge, int output)
{
    const size_t shift = byte(c->r) % 4 == 0 ? byte(c->r) % 4 : 0;
    unsigned char *p = (unsigned char *)make_buf(c, (huge ? 64 : n * size) + shift * size, output, 1);
    return p ? p + shift * size : NULL;
}

/* After the harness wrote into the last buffer it made: take its copy again. */
static void resnap_last(call *c)
{
    if (c->nb > 0) memcpy(c->b[c->nb - 1].before, c->b[c->nb - 1].p, c->b[c->nb - 1].bytes);
}

static void free_bufs(call *c)
{
    for (int i = 0; i < c->nb; ++i) {
        free(c->b[i].p);
        free(c->b[i].before);
    }
    c->nb = 0;
}

/* A broken promise aborts (libFuzzer then saves the input). Built with
 * -DFUZZ_API_SURVEY=1 the run goes on instead, printing each (promise, entry point) once: a
 * survey of a tree with known findings, to find the others behind them. */
static void broken(const call *c, pp_context *ctx, pp_status st, const char *promise)
{
#if FUZZ_API_SURVEY
    static char seen[64][160];
    static int n_seen;
    char key[160];
    snprintf(key, sizeof key, "%s | %.*s", promise, (int)strcspn(c->what, "("), c->what);
    for (int i = 0; i < n_seen; ++i)
        if (!strcmp(seen[i], key)) return;
    if (n_seen < 64) snprintf(seen[n_seen++], sizeof seen[0], "%s", key);
#endif
    fprintf(stderr, "fuzz_api: broken promise: %s\n  call: %s\n  status: %s\n  message: \"%s\"\n", promise,
            c->what, pp_status_string(st), ctx ? pp_context_last_error(ctx) : "(no context)");
#if !FUZZ_API_SURVEY
    abort();
#endif
}

static void check(call *c, pp_context *ctx, pp_status st, int huge)
{
    if ((int)st < PP_OK || (int)st > PP_ERROR_DEVICE) broken(c, ctx, st, "the status is a pp_status");
    if (huge && st == PP_OK) broken(c, ctx, st, "a count whose byte size overflows size_t is rejected");
    if (st != PP_OK && ctx) {
        if (!pp_context_last_error(ctx)[0]) broken(c, ctx, st, "a failure leaves a message");
        for (int i = 0; i < c->nb; ++i)
            if (c->b[i].output && memcmp(c->b[i].p, c->b[i].before, c->b[i].bytes) != 0)
                broken(c, ctx, st, "a failed call writes no output");
    }
    free_bufs(c);
}

/* FUZZ_API_VERBOSE=1 prints every call before it is made (to replay one input). */
static int verbose;

#define DESCRIBE(...)                                                        \
    do {                                                                     \
        snprintf(c->what, sizeof c->what, __VA_ARGS__);                      \
        if (verbose) fprintf(stderr, "fuzz_api: %s\n", c->what);             \
    } while (0)

/* ---- the calls ---- */

static size_t maxz(size_t a, size_t b) { return a > b ? a : b; }

static void do_reduce(call *c, pp_context *ctx)
{
    reader *r = c->r;
    const pp_dtype in_t = pick_dtype(r), out_t = byte(r) % 4 ? in_t : pick_dtype(r);
    const pp_op op = pick_op(r);
    const pp_result_space space = pick_space(r);
    int huge;
    const size_t n = pick_count(r, esize(in_t), &huge);
    const void *in = make_array(c, n, esize(in_t), huge, 0);
    void *out = make_buf(c, 16, 1, 1);
    DESCRIBE("pp_reduce(in %p, n %zu, %d, op %d, out %p, %d, space %d)", in, n, in_t, op, out, out_t, space);
    check(c, ctx, pp_reduce(ctx, in, n, in_t, op, out, out_t, space), huge);
}

static void do_arg(call *c, pp_context *ctx)
{
    reader *r = c->r;
    const int max = byte(r) & 1;
    const pp_dtype t = pick_dtype(r);
    const pp_result_space space = pick_space(r);
    int huge;
    const size_t n = pick_count(r, esize(t), &huge);
    const void *in = make_array(c, n, esize(t), huge, 0);
    void *value = make_buf(c, 8, 1, 1);
    uint64_t *index = (uint64_t *)make_buf(c, 8, 1, 1);
    DESCRIBE("pp_arg%s(in %p, n %zu, %d, value %p, index %p, space %d)", max ? "max" : "min", in, n, t, value,
             (void *)index, space);
    check(c, ctx, (max ? pp_argmax : pp_argmin)(ctx, in, n, t, value, index, space), huge);
}

/* n_segments + 1 offsets: sorted, random (clamped by the library) or past n. */
static size_t *make_offsets(call *c, size_t n, size_t n_seg, int huge_seg)
{
    if (huge_seg) return (size_t *)make_buf(c, 64, 0, 1);
    size_t *o = (size_t *)make_buf(c, (n_seg + 1) * sizeof(size_t), 0, 1);
    if (!o) return NULL;
    const unsigned mode = byte(c->r) % 4;
    size_t pos = 0;
    for (size_t s = 0; s <= n_seg; ++s) {
        if (mode == 0) {
            pos += byte(c->r) % 8;
            o[s] = pos;
        } else if (mode == 1) {
            o[s] = n ? (size_t)take(c->r, 2) % (n + 2) : 0;
        } else if (mode == 2) {
            o[s] = s == n_seg ? SIZE_MAX - byte(c->r) % 2 : (size_t)take(c->r, 2) % (n + 1);
        } /* mode 3: the bytes make_buf put there */
    }
    resnap_last(c);
    return o;
}

static void do_segreduce(call *c, pp_context *ctx)
{
    reader *r = c->r;
    const pp_dtype in_t = pick_dtype(r), out_t = byte(r) % 4 ? in_t : pick_dtype(r);
    const pp_op op = pick_op(r);
    int huge, huge_seg;
    const size_t n = pick_count(r, esize(in_t), &huge);
    size_t n_seg = pick_count(r, maxz(sizeof(size_t), esize(out_t)), &huge_seg);
    if (!huge_seg) n_seg %= 64;
    const void *in = make_array(c, n, esize(in_t), huge, 0);
    const size_t *offsets = make_offsets(c, huge ? 0 : n, n_seg, huge_seg);
    void *out = make_array(c, n_seg, esize(out_t), huge_seg, 1);
    DESCRIBE("pp_segmented_reduce(in %p, n %zu, %d, offsets %p, n_segments %zu, op %d, out %p, %d)", in, n, in_t,
             (const void *)offsets, n_seg, op, out, out_t);
    check(c, ctx, pp_segmented_reduce(ctx, in, n, in_t, offsets, n_seg, op, out, out_t), huge || huge_seg);
}

static void do_scan(call *c, pp_context *ctx)
{
    reader *r = c->r;
    const unsigned form = byte(r) % 4; /* inclusive, exclusive, flags, offsets */
    const pp_dtype in_t = pick_dtype(r), out_t = byte(r) % 4 ? in_t : pick_dtype(r);
    const pp_op op = pick_op(r);
    const pp_scan_kind kind = (pp_scan_kind)(byte(r) % 5 == 0 ? 7 : byte(r) & 1);
    int huge, huge_seg = 0;
    const size_t n = pick_count(r, maxz(esize(in_t), esize(out_t)), &huge);
    unsigned char initb[8];
    for (int i = 0; i < 8; ++i) initb[i] = (unsigned char)byte(r);
    const void *init = byte(r) % 3 == 0 ? NULL : initb;
    /* out: its own buffer, the input itself, or overlapping the input at an element offset */
    const unsigned overlap = byte(r) % 6;
    void *in, *out;
    if (!huge && overlap >= 4 && n > 0) {
        /* out starts `shift` bytes into in, aligned for out's elements */
        size_t shift = overlap == 4 ? 0 : (1 + byte(r) % n) * esize(in_t);
        shift = (shift + esize(out_t) - 1) / esize(out_t) * esize(out_t);
        const size_t bytes = maxz(n * esize(in_t), shift + n * esize(out_t));
        in = make_buf(c, bytes, 1, 0);
        out = (unsigned char *)in + shift;
    } else {
        in = make_array(c, n, esize(in_t), huge, 0);
        out = make_array(c, n, esize(out_t), huge, 1);
    }
    pp_status st;
    switch (form) {
    case 0:
        DESCRIBE("pp_inclusive_scan(in %p, n %zu, %d, op %d, out %p, %d)", in, n, in_t, op, out, out_t);
        st = pp_inclusive_scan(ctx, in, n, in_t, op, out, out_t);
        break;
    case 1:
        DESCRIBE("pp_exclusive_scan(in %p, n %zu, %d, op %d, init %p, out %p, %d)", in, n, in_t, op, init, out,
                 out_t);
        st = pp_exclusive_scan(ctx, in, n, in_t, op, init, out, out_t);
        break;
    case 2: {
        const uint8_t *flags = (const uint8_t *)make_array(c, n, 1, huge, 0);
        DESCRIBE("pp_segmented_scan_flags(in %p, n %zu, %d, flags %p, op %d, kind %d, init %p, out %p, %d)", in, n,
                 in_t, (const void *)flags, op, kind, init, out, out_t);
        st = pp_segmented_scan_flags(ctx, in, n, in_t, flags, op, kind, init, out, out_t);
        break;
    }
    default: {
        size_t n_seg = pick_count(r, sizeof(size_t), &huge_seg);
        if (!huge_seg) n_seg %= 64;
        const size_t *offsets = make_offsets(c, huge ? 0 : n, n_seg, huge_seg);
        DESCRIBE("pp_segmented_scan_offsets(in %p, n %zu, %d, offsets %p, n_segments %zu, op %d, kind %d, init %p, "
                 "out %p, %d)",
                 in, n, in_t, (const void *)offsets, n_seg, op, kind, init, out, out_t);
        st = pp_segmented_scan_offsets(ctx, in, n, in_t, offsets, n_seg, op, kind, init, out, out_t);
        break;
    }
    }
    check(c, ctx, st, huge || huge_seg);
}

static size_t pick_bins(reader *r, size_t count_size, int *huge)
{
    const unsigned m = byte(r) % 12;
    *huge = 0;
    if (m == 0) return 0;
    if (m < 8) return 1 + byte(r) % 64;
    if (m < 10) return 1 + take(r, 2) % 4096;
    if (m == 10) return PP_HISTOGRAM_MAX_BINS + 1 + byte(r) % 2; /* over the limit: rejected */
    *huge = 1;
    return SIZE_MAX / count_size + 1 + byte(r) % 2;
}

static double pick_bound(reader *r)
{
    static const double special[] = {0.0, 1.0, -1.0, 256.0, 1e300, -1e300, 0x1p53, -0x1p53, 0x1p64, 0.5};
    const unsigned m = byte(r) % 4;
    if (m == 0) return special[byte(r) % 10];
    if (m == 1) return (double)(int)(byte(r) % 512) - 256;
    uint64_t bits = take(r, 8);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d; /* NaN, infinities and denormals included */
}

static void do_histogram(call *c, pp_context *ctx)
{
    reader *r = c->r;
    const int range = byte(r) & 1;
    const pp_dtype st_ = pick_dtype(r);
    const pp_dtype ct = byte(r) % 8 ? (byte(r) & 1 ? PP_U64 : PP_U32) : pick_dtype(r);
    int huge, huge_bins;
    const size_t n = pick_count(r, esize(st_), &huge);
    const size_t nbins = pick_bins(r, esize(ct), &huge_bins);
    const int small_bins = !huge_bins && nbins <= 4096;
    const void *samples = make_array(c, n, esize(st_), huge, 0);
    void *counts = make_buf(c, small_bins ? nbins * esize(ct) : 64, 1, 1);
    pp_status st;
    if (!range) {
        double lo = pick_bound(r), hi = pick_bound(r);
        if (byte(r) % 2 && lo > hi) {
            const double t = lo;
            lo = hi;
            hi = t;
        }
        DESCRIBE("pp_histogram_even(samples %p, n %zu, %d, nbins %zu, lower %a, upper %a, counts %p, %d)", samples,
                 n, st_, nbins, lo, hi, counts, ct);
        st = pp_histogram_even(ctx, samples, n, st_, nbins, lo, hi, counts, ct);
    } else {
        double *edges = small_bins ? (double *)make_buf(c, (nbins + 1) * sizeof(double), 0, 1)
                                   : (double *)make_buf(c, 64, 0, 1);
        if (edges && small_bins && byte(r) % 4) { /* mostly sorted */
            double e = (double)(int)(byte(r) % 64) - 32;
            for (size_t b = 0; b <= nbins; ++b) {
                edges[b] = e;
                e += (double)(byte(r) % 4) * 0.25;
            }
            if (byte(r) % 8 == 0) edges[byte(r) % (nbins + 1)] = pick_bound(r);
            resnap_last(c);
        }
        DESCRIBE("pp_histogram_range(samples %p, n %zu, %d, edges %p, nbins %zu, counts %p, %d)", samples, n, st_,
                 (void *)edges, nbins, counts, ct);
        st = pp_histogram_range(ctx, samples, n, st_, edges, nbins, counts, ct);
    }
    check(c, ctx, st, huge || huge_bins);
}

static void do_reduce_by_index(call *c, pp_context *ctx)
{
    reader *r = c->r;
    const pp_dtype t = pick_dtype(r);
    const pp_op op = pick_op(r);
    int huge, huge_out;
    const size_t n = pick_count(r, maxz(esize(t), 4), &huge);
    size_t n_out = pick_count(r, esize(t), &huge_out);
    if (!huge_out) n_out %= 300;
    const void *values = make_array(c, n, esize(t), huge, 0);
    uint32_t *indices = (uint32_t *)make_array(c, n, 4, huge, 0);
    if (indices && !huge && !huge_out && byte(r) % 2) /* mostly in range, some skipped */
        for (size_t i = 0; i < n; ++i) indices[i] %= (uint32_t)n_out + 2;
    if (indices) resnap_last(c);
    void *out = make_array(c, n_out, esize(t), huge_out, 1);
    uint64_t *skipped = byte(r) % 3 ? (uint64_t *)make_buf(c, 8, 1, 0) : NULL;
    DESCRIBE("pp_reduce_by_index(values %p, n %zu, %d, indices %p, op %d, out %p, n_out %zu, n_skipped %p)",
             values, n, t, (void *)indices, op, out, n_out, (void *)skipped);
    check(c, ctx, pp_reduce_by_index(ctx, values, n, t, indices, op, out, n_out, skipped), huge || huge_out);
}

static void do_option(call *c, pp_context *ctx)
{
    reader *r = c->r;
    const pp_option o = (pp_option)(byte(r) % (PP_OPTION_COUNT_ + 2));
    int64_t lo = 0, hi = 0, dflt = 0, v;
    const int known = pp_option_bounds(o, &lo, &hi, &dflt) == PP_OK;
    switch (byte(r) % 6) {
    case 0: v = lo - 1; break;
    case 1: v = hi + 1; break;
    case 2: v = (int64_t)take(r, 8); break;
    case 3: v = dflt; break;
    default: v = known && hi >= lo ? lo + (int64_t)(take(r, 8) % ((uint64_t)(hi - lo) + 1)) : 0; break;
    }
    if (o == PP_OPTION_FAIL_ALLOC && v > 4 && v <= hi) v = 1 + v % 4; /* fail an allocation soon */
    DESCRIBE("pp_context_set_option(%d, %lld)", o, (long long)v);
    const pp_status st = pp_context_set_option(ctx, o, v);
    const int in_bounds = known && v >= lo && v <= hi;
    /* (a value within the bounds may still be refused, with a message: cpu_hist_round) */
    if (st == PP_OK && !in_bounds) broken(c, ctx, st, "an option outside its bounds is refused");
    if (st != PP_OK && known && v == dflt) broken(c, ctx, st, "an option's default is accepted");
    int64_t got = 0;
    if (st == PP_OK && (pp_context_get_option(ctx, o, &got) != PP_OK || got != v))
        broken(c, ctx, st, "an option reads back as set");
    if (known && pp_option_name(o)) {
        pp_option back;
        if (pp_option_from_name(pp_option_name(o), &back) != PP_OK || back != o)
            broken(c, ctx, st, "pp_option_from_name inverts pp_option_name");
    }
    check(c, ctx, st, 0);
}

/* Memory calls and scratch. The scratch buffer handed to the context lives until the input
 * ends (the caller resets the scratch before freeing it). */
static void do_memory(call *c, pp_context *ctx, void **scratch)
{
    reader *r = c->r;
    const unsigned what = byte(r) % 6;
    int huge;
    const size_t n = pick_count(r, 1, &huge);
    pp_status st;
    if (what == 0) {
        void *p = NULL;
        DESCRIBE("pp_malloc(%zu bytes)", n);
        st = pp_malloc(ctx, &p, n);
        if (st == PP_OK) {
            if (n && p) memset(p, 0x5a, n);
            pp_free(ctx, p);
        } else if (p) {
            broken(c, ctx, st, "a failed pp_malloc gives NULL");
        }
        check(c, ctx, st, huge);
    } else if (what == 1 || what == 2) {
        const pp_copy_kind kind = (pp_copy_kind)(byte(r) % 4 == 3 ? 9 : byte(r) % 3);
        void *src = make_array(c, n, 1, huge, 0);
        void *dst = make_array(c, n, 1, huge, 1);
        DESCRIBE("pp_memcpy(dst %p, src %p, %zu bytes, kind %d)", dst, src, n, kind);
        check(c, ctx, pp_memcpy(ctx, dst, src, n, kind), huge);
    } else if (what == 3) {
        void *dst = make_array(c, n, 1, huge, 1);
        const int value = (int)take(r, 4);
        DESCRIBE("pp_memset(%p, %d, %zu bytes)", dst, value, n);
        check(c, ctx, pp_memset(ctx, dst, value, n), huge);
    } else if (what == 4) {
        free(*scratch);
        *scratch = NULL;
        pp_context_set_scratch(ctx, NULL, 0);
        const size_t bytes = huge ? 64 : n * 64;
        *scratch = byte(r) % 5 ? malloc(bytes ? bytes : 1) : NULL;
        const size_t claim = huge ? n : bytes;
        DESCRIBE("pp_context_set_scratch(%p, %zu)", *scratch, claim);
        st = pp_context_set_scratch(ctx, *scratch, claim);
        check(c, ctx, st, 0);
        /* a claim past the buffer is the caller's error, unless its range wraps the address
         * space; either way the library must not use it, so it does not stay */
        if (st != PP_OK || claim > bytes) {
            pp_context_set_scratch(ctx, NULL, 0);
            free(*scratch);
            *scratch = NULL;
        }
    } else {
        const size_t bytes = huge ? n : n * 64;
        DESCRIBE("pp_context_reserve_scratch(%zu)", bytes);
        st = pp_context_reserve_scratch(ctx, bytes);
        check(c, ctx, st, 0);
    }
}

/* Every entry point with a NULL context: INVALID_ARGUMENT, nothing else. */
static void do_null_context(call *c)
{
    float x = 1.0f, out = 0.0f;
    uint64_t at = 0, counts[4] = {0};
    DESCRIBE("the API with ctx NULL");
    const pp_status s[] = {
        pp_reduce(NULL, &x, 1, PP_F32, PP_OP_SUM, &out, PP_F32, PP_RESULT_HOST),
        pp_argmax(NULL, &x, 1, PP_F32, &out, &at, PP_RESULT_HOST),
        pp_inclusive_scan(NULL, &x, 1, PP_F32, PP_OP_SUM, &out, PP_F32),
        pp_histogram_even(NULL, &x, 1, PP_F32, 4, 0.0, 1.0, counts, PP_U64),
        pp_context_set_option(NULL, PP_OPTION_FAIL_ALLOC, 0),
        pp_memset(NULL, &out, 0, sizeof out),
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; ++i)
        if (s[i] != PP_ERROR_INVALID_ARGUMENT) broken(c, NULL, s[i], "a NULL context is an invalid argument");
}

/* ---- the target ---- */

/* Requests of SIZE_MAX bytes must give NULL (an out-of-memory status), as without ASan,
 * instead of ASan's abort. ASAN_OPTIONS still overrides this. */
const char *__asan_default_options(void) __attribute__((used, visibility("default")));
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

/* radix sort family (issue 20): keys, pairs or argsort with any dtypes, orders and bit ranges
 * (valid and not), in place or overlapping, counts small or huge. */
static void do_sort(call *c, pp_context *ctx)
{
    reader *r = c->r;
    const unsigned form = byte(r) % 3;
    const pp_dtype kt = pick_dtype(r), vt = form == 2 ? (byte(r) % 4 ? (byte(r) & 1 ? PP_U64 : PP_U32) : pick_dtype(r))
                                                      : pick_dtype(r);
    const pp_sort_order order = (pp_sort_order)(byte(r) % 8 == 0 ? 5 : byte(r) & 1);
    int begin_bit = 0, end_bit = 0;
    if (byte(r) % 2) {
        begin_bit = (int)(byte(r) % 72) - 4;
        end_bit = (int)(byte(r) % 72) - 4;
    }
    int huge;
    const size_t n = pick_count(r, maxz(esize(kt), esize(vt)), &huge);
    const int in_place = byte(r) % 4 == 0;
    void *kin = make_array(c, n, esize(kt), huge, in_place);
    void *kout = in_place ? kin : make_array(c, n, esize(kt), huge, 1);
    pp_status st;
    if (form == 0) {
        DESCRIBE("pp_sort_keys(keys_in %p, keys_out %p, n %zu, %d, order %d, bits %d %d)", kin, kout, n, kt, order,
                 begin_bit, end_bit);
        st = pp_sort_keys(ctx, kin, kout, n, kt, order, begin_bit, end_bit);
    } else if (form == 1) {
        void *vin = make_array(c, n, esize(vt), huge, in_place);
        void *vout = in_place ? vin : make_array(c, n, esize(vt), huge, 1);
        DESCRIBE("pp_sort_pairs(keys_in %p, keys_out %p, values_in %p, values_out %p, n %zu, %d, %d, order %d, bits "
                 "%d %d)",
                 kin, kout, vin, vout, n, kt, vt, order, begin_bit, end_bit);
        st = pp_sort_pairs(ctx, kin, kout, vin, vout, n, kt, vt, order, begin_bit, end_bit);
    } else {
        void *idx = make_array(c, n, esize(vt), huge, 1);
        DESCRIBE("pp_argsort(keys %p, n %zu, %d, order %d, indices %p, %d)", kin, n, kt, order, idx, vt);
        st = pp_argsort(ctx, kin, n, kt, order, idx, vt);
    }
    check(c, ctx, st, huge);
}

/* segmented sort (issue 22): keys or pairs, offsets or the fixed form, any dtypes and orders
 * (valid and not), offsets sorted, random or past n, in place or overlapping, counts small or
 * huge. */
static void do_segsort(call *c, pp_context *ctx)
{
    reader *r = c->r;
    const unsigned form = byte(r) % 4; /* keys, pairs, fixed keys, fixed pairs */
    const pp_dtype kt = pick_dtype(r), vt = pick_dtype(r);
    const pp_sort_order order = (pp_sort_order)(byte(r) % 8 == 0 ? 5 : byte(r) & 1);
    int huge, huge_seg = 0;
    const size_t n = pick_count(r, form & 1 ? maxz(esize(kt), esize(vt)) : esize(kt), &huge);
    size_t n_seg = form < 2 ? pick_count(r, sizeof(size_t), &huge_seg) : (size_t)(1 + byte(r) % 16);
    if (!huge_seg) n_seg %= 64;
    const int in_place = byte(r) % 4 == 0;
    void *kin = make_array(c, n, esize(kt), huge, in_place);
    void *kout = in_place ? kin : make_array(c, n, esize(kt), huge, 1);
    void *vin = NULL, *vout = NULL;
    if (form & 1) {
        vin = make_array(c, n, esize(vt), huge, in_place);
        vout = in_place ? vin : make_array(c, n, esize(vt), huge, 1);
    }
    pp_status st;
    if (form < 2) {
        const size_t *offsets = make_offsets(c, huge ? 0 : n, n_seg, huge_seg);
        DESCRIBE("pp_segmented_sort_%s(keys_in %p, keys_out %p, values %p %p, n %zu, %d, %d, offsets %p, n_segments "
                 "%zu, order %d)",
                 form ? "pairs" : "keys", kin, kout, vin, vout, n, kt, vt, (const void *)offsets, n_seg, order);
        st = form ? pp_segmented_sort_pairs(ctx, kin, kout, vin, vout, n, kt, vt, offsets, n_seg, order)
                  : pp_segmented_sort_keys(ctx, kin, kout, n, kt, offsets, n_seg, order);
    } else {
        /* n_seg (1 .. 16) segments of n / n_seg keys */
        const size_t len = n / n_seg;
        DESCRIBE("pp_segmented_sort_%s_fixed(keys_in %p, keys_out %p, values %p %p, n_segments %zu, length %zu, %d, "
                 "%d, order %d)",
                 form & 1 ? "pairs" : "keys", kin, kout, vin, vout, n_seg, len, kt, vt, order);
        st = form & 1 ? pp_segmented_sort_pairs_fixed(ctx, kin, kout, vin, vout, n_seg, len, kt, vt, order)
                      : pp_segmented_sort_keys_fixed(ctx, kin, kout, n_seg, len, kt, order);
    }
    check(c, ctx, st, huge || huge_seg);
}

static pp_context *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *v = getenv("FUZZ_API_VERBOSE");
    verbose = v && *v && strcmp(v, "0") != 0;
    if (pp_context_create(&ctx, PP_BACKEND_CPU, 0) != PP_OK) {
        fprintf(stderr, "fuzz_api: pp_context_create: %s\n", pp_last_create_error());
        abort();
    }
    return 0;
}

/* compaction family (issue 19): every entry point, flags or predicates (kinds valid and not,
 * constants from the input, NaN bounds), payloads, index / length types, in place and other
 * overlaps. */
static void do_compaction(call *c, pp_context *ctx)
{
    reader *r = c->r;
    const unsigned form = byte(r) % 8;
    const pp_dtype t0 = pick_dtype(r), pt = pick_dtype(r), at = pick_dtype(r);
    const pp_result_space space = pick_space(r);
    int huge;
    const size_t n = pick_count(r, 8, &huge);
    /* a huge count is sized for 8-byte elements: its byte size overflows only there, so the
     * input (which every form reads) is then of 8 bytes; with 4-byte elements in and out (say
     * select_if in place, or run-length encoding with u32 lengths) it is a count the library
     * cannot refuse (CI's finding of 2026-11-26: the harness's bug) */
    const pp_dtype t = huge && pp_dtype_size(t0) && pp_dtype_size(t0) < 8 ? PP_U64 : t0;
    pp_predicate pred;
    memset(&pred, 0, sizeof pred);
    pred.kind = (pp_pred_kind)(byte(r) % 13);
    pred.a.u64 = take(r, 8);
    pred.b.u64 = take(r, 8);
    const pp_predicate *pp = byte(r) % 16 ? &pred : NULL;
    const void *in = make_array(c, n, esize(t), huge, 0);
    const uint8_t *flags = (const uint8_t *)make_array(c, n, 1, huge, 0);
    const void *payload = byte(r) % 2 ? make_array(c, n, esize(pt), huge, 0) : NULL;
    const unsigned overlap = byte(r) % 5;
    void *out = overlap == 0 ? (void *)in : make_array(c, n, 8, huge, 1);
    void *pout = payload && overlap == 0 ? (void *)payload : make_array(c, n, 8, huge, 1);
    if (overlap == 1 && pout && out) pout = out;
    uint64_t *cnt = (uint64_t *)make_buf(c, 8, 1, 1);
    pp_status st;
    switch (form) {
    case 0:
        DESCRIBE("pp_select_flagged(in %p, n %zu, %d, flags %p, payload %p, %d, out %p, pout %p, count %p, space %d)",
                 in, n, t, (const void *)flags, payload, pt, out, pout, (void *)cnt, space);
        st = pp_select_flagged(ctx, in, n, t, flags, payload, pt, out, pout, cnt, space);
        break;
    case 1:
        DESCRIBE("pp_select_if(in %p, n %zu, %d, pred %p kind %d, payload %p, %d, out %p, pout %p, count %p, space %d)",
                 in, n, t, (const void *)pp, pred.kind, payload, pt, out, pout, (void *)cnt, space);
        st = pp_select_if(ctx, in, n, t, pp, payload, pt, out, pout, cnt, space);
        break;
    case 2:
        DESCRIBE("pp_partition_flagged(in %p, n %zu, %d, flags %p, payload %p, %d, out %p, pout %p, count %p, space %d)",
                 in, n, t, (const void *)flags, payload, pt, out, pout, (void *)cnt, space);
        st = pp_partition_flagged(ctx, in, n, t, flags, payload, pt, out, pout, cnt, space);
        break;
    case 3:
        DESCRIBE("pp_partition_if(in %p, n %zu, %d, pred %p kind %d, payload %p, %d, out %p, pout %p, count %p, "
                 "space %d)", in, n, t, (const void *)pp, pred.kind, payload, pt, out, pout, (void *)cnt, space);
        st = pp_partition_if(ctx, in, n, t, pp, payload, pt, out, pout, cnt, space);
        break;
    case 4:
        DESCRIBE("pp_unique(keys %p, n %zu, %d, payload %p, %d, out %p, pout %p, count %p, space %d)", in, n, t, payload,
                 pt, out, pout, (void *)cnt, space);
        st = pp_unique(ctx, in, n, t, payload, pt, out, pout, cnt, space);
        break;
    case 5:
        DESCRIBE("pp_run_length_encode(in %p, n %zu, %d, values %p, lengths %p, %d, count %p, space %d)", in, n, t, out,
                 pout, at, (void *)cnt, space);
        st = pp_run_length_encode(ctx, in, n, t, out, pout, at, cnt, space);
        break;
    case 6:
        DESCRIBE("pp_where(in %p, n %zu, %d, pred %p kind %d, indices %p, %d, count %p, space %d)", in, n, t,
                 (const void *)pp, pred.kind, out, at, (void *)cnt, space);
        st = pp_where(ctx, in, n, t, pp, out, at, cnt, space);
        break;
    default:
        DESCRIBE("pp_nonzero(in %p, n %zu, %d, indices %p, %d, count %p, space %d)", in, n, t, out, at, (void *)cnt,
                 space);
        st = pp_nonzero(ctx, in, n, t, out, at, cnt, space);
        break;
    }
    check(c, ctx, st, huge);
}

/* ---- summed-area table, axis scans, transpose (issue 21) ---- */

/* A matrix's row count: small, or (rarely) one whose extent overflows size_t (*huge; the
 * caller then makes the other dimensions nonzero, so that the matrix is not empty). */
static size_t pick_dim(reader *r, int *huge)
{
    const unsigned m = byte(r) % 32;
    if (m == 0) {
        *huge = 1;
        return SIZE_MAX - byte(r) % 3;
    }
    return m < 4 ? 0 : byte(r) % 40;
}

/* Elements from the first of a rows x cols matrix of pitch `pitch` to one past its last. */
static size_t extent_of(size_t rows, size_t cols, size_t pitch) { return rows && cols ? (rows - 1) * pitch + cols : 0; }

static void do_grid(call *c, pp_context *ctx)
{
    reader *r = c->r;
    const unsigned which = byte(r) % 3; /* table, axis scan, transpose */
    const pp_dtype in_t = pick_dtype(r), out_t = byte(r) % 3 ? (which == 2 ? in_t : pick_dtype(r)) : in_t;
    const pp_op op = pick_op(r);
    int huge = 0;
    const size_t rows = pick_dim(r, &huge);
    size_t cols = byte(r) % 40;
    if (huge && cols == 0) cols = 1;
    const unsigned form = byte(r) % 5; /* the table's form, the scan's axis and kind, the batch */
    const int integral = which == 0 && form % 3 == PP_SAT_INTEGRAL;
    size_t ipitch = cols + byte(r) % 4, opitch = (which == 2 ? rows : cols + integral) + byte(r) % 4;
    if (byte(r) % 8 == 0) { /* maybe below the width */
        const size_t d = 1 + byte(r) % 2;
        ipitch = ipitch > d ? ipitch - d : 0;
    }
    if (byte(r) % 8 == 0) opitch = opitch > 0 ? opitch - 1 : 0;
    const size_t batch = which == 2 ? form % 3 + (huge ? 1 : 0) : 1;
    const size_t orows = which == 2 ? cols : rows + integral, ocols = which == 2 ? rows : cols + integral;
    void *in, *out;
    if (huge) {
        in = make_buf(c, 64, 0, 1);
        out = make_buf(c, 64, 1, 1);
    } else {
        const size_t ie = batch ? extent_of(rows * batch, cols, ipitch) : 0;
        const size_t oe = batch ? extent_of(orows * batch, ocols, opitch) : 0;
        /* out overlapping in, sometimes */
        if (byte(r) % 6 == 0 && ie > 0) {
            /* room for the shift (up to 3 elements of out_t) past both extents: 8 + 24 bytes
             * (8 alone let a 1 x 1 i64 table start at the buffer's end: CI's finding of 2026-11-26) */
            in = make_buf(c, (ie + oe) * 8 + 32, 1, 0);
            out = (unsigned char *)in + (byte(r) % 4) * esize(out_t);
        } else {
            in = make_array(c, ie, esize(in_t), 0, 0);
            out = make_array(c, oe, esize(out_t), 0, 1);
        }
    }
    unsigned char initb[8];
    for (int i = 0; i < 8; ++i) initb[i] = (unsigned char)byte(r);
    const void *init = byte(r) % 3 == 0 ? NULL : initb;
    if (which == 0) {
        DESCRIBE("pp_summed_area_table(in %p, %zu x %zu, pitch %zu, %d, out %p, pitch %zu, %d, form %u)", in, rows, cols,
                 ipitch, in_t, out, opitch, out_t, form % 3);
        check(c, ctx,
              pp_summed_area_table(ctx, in, rows, cols, ipitch, in_t, out, opitch, out_t, (pp_sat_form)(form % 3)), huge);
    } else if (which == 1) {
        const pp_axis axis = (pp_axis)(form % 4);
        const pp_scan_kind kind = (pp_scan_kind)(form / 4 ? 3 : byte(r) & 1);
        DESCRIBE("pp_axis_scan(in %p, %zu x %zu, pitch %zu, %d, axis %d, op %d, kind %d, init %p, out %p, pitch %zu, %d)",
                 in, rows, cols, ipitch, in_t, axis, op, kind, init, out, opitch, out_t);
        check(c, ctx, pp_axis_scan(ctx, in, rows, cols, ipitch, in_t, axis, op, kind, init, out, opitch, out_t), huge);
    } else {
        DESCRIBE("pp_transpose(in %p, %zu x %zu, pitch %zu, out %p, pitch %zu, %d, batch %zu)", in, rows, cols, ipitch,
                 out, opitch, in_t, batch);
        check(c, ctx, pp_transpose(ctx, in, rows, cols, ipitch, out, opitch, in_t, batch), huge);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    call c = {.r = &r};
    void *scratch = NULL;
    /* every input starts from a context in its initial state */
    for (int o = 1; o < PP_OPTION_COUNT_; ++o) {
        int64_t dflt;
        if (pp_option_bounds((pp_option)o, NULL, NULL, &dflt) == PP_OK) pp_context_set_option(ctx, (pp_option)o, dflt);
    }
    for (int k = 0; k < 12 && r.left > 0; ++k) {
        switch (byte(&r) % 14) {
        case 0: do_reduce(&c, ctx); break;
        case 1: do_arg(&c, ctx); break;
        case 2: do_segreduce(&c, ctx); break;
        case 3: case 4: do_scan(&c, ctx); break;
        case 5: do_histogram(&c, ctx); break;
        case 6: do_reduce_by_index(&c, ctx); break;
        case 7: do_option(&c, ctx); break;
        case 8: do_memory(&c, ctx, &scratch); break;
        case 9: do_null_context(&c); break;
        case 10: do_sort(&c, ctx); break; /* radix sort family (issue 20) */
        case 11: do_grid(&c, ctx); break; /* summed-area table, axis scans, transpose (issue 21) */
        case 12: do_segsort(&c, ctx); break; /* segmented sort (issue 22) */
        /* compaction family (issue 19) */
        default: do_compaction(&c, ctx); break;
        }
        pp_plan plan;
        if (pp_context_last_plan(ctx, &plan) != PP_OK) abort();
    }
    pp_context_set_scratch(ctx, NULL, 0);
    free(scratch);
    return 0;
}
