/*
 * test_compaction.c -- the compaction family (pp_select_flagged, pp_select_if,
 * pp_partition_flagged, pp_partition_if, pp_unique, pp_run_length_encode, pp_where,
 * pp_nonzero) against the serial oracles of tests/oracles.c (po_compact), on the CPU backend
 * and, where a device is present, on HIP.
 *
 * Every dtype and form; selections of 0%, 100%, 50% (random), alternating and 1 in 1000;
 * sizes 0, 1, a wave +-1 (32, 64), GPU tiles +-1 (2048, 4096), many tiles +-1 (64 x 4096),
 * 2^20 + 3; payloads of every size; counts to context and to host memory; in place (select);
 * misaligned pointers; every predicate kind with NaN, infinities and signed zeros in the data
 * and in the constants; runs with NaN and -0.0 / +0.0. Outputs are compared bitwise, and the
 * bytes past what a call may write must keep their sentinel.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "compaction_keep.h" /* the device kernels' prepared predicate, checked on the host */

#define PAD 64 /* sentinel bytes past every output */

static size_t sizes_of(size_t *out, int quick)
{
    static const size_t fixed[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 2047, 2048, 2049, 4095, 4096, 4097};
    size_t k = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i) out[k++] = fixed[i];
    if (!quick) {
        out[k++] = 64 * 4096 - 1;
        out[k++] = 64 * 4096;
        out[k++] = 64 * 4096 + 1;
        out[k++] = ((size_t)1 << 20) + 3;
    }
    return k;
}

static const char *op_name(po_compact_op op)
{
    static const char *const names[] = {"?", "select", "partition", "unique", "rle", "where"};
    return names[op];
}

/* One call. */
typedef struct ccase {
    po_compact_op op;
    pp_dtype t;
    size_t n;
    const void *in;          /* host */
    const uint8_t *flags;    /* host; NULL: by pred (or unique / rle) */
    const pp_predicate *pred;
    const void *payload;     /* host; NULL: none */
    pp_dtype ptype;
    pp_dtype aux_type;       /* indices (where) / lengths (rle): u32 or u64 */
    int in_place;            /* select: out == in, payload_out == payload */
    pp_result_space space;
    size_t misalign;         /* elements by which every array is shifted */
} ccase;

static pp_status call(pp_context *ctx, const ccase *c, const void *din, const uint8_t *dfl, const void *dpay,
                      void *dout, void *dpout, void *daux, uint64_t *cnt)
{
    switch (c->op) {
    case PO_SELECT:
        return c->pred ? pp_select_if(ctx, din, c->n, c->t, c->pred, dpay, c->ptype, dout, dpout, cnt, c->space)
                       : pp_select_flagged(ctx, din, c->n, c->t, dfl, dpay, c->ptype, dout, dpout, cnt, c->space);
    case PO_PARTITION:
        return c->pred ? pp_partition_if(ctx, din, c->n, c->t, c->pred, dpay, c->ptype, dout, dpout, cnt, c->space)
                       : pp_partition_flagged(ctx, din, c->n, c->t, dfl, dpay, c->ptype, dout, dpout, cnt, c->space);
    case PO_UNIQUE: return pp_unique(ctx, din, c->n, c->t, dpay, c->ptype, dout, dpout, cnt, c->space);
    case PO_RLE: return pp_run_length_encode(ctx, din, c->n, c->t, dout, daux, c->aux_type, cnt, c->space);
    case PO_WHERE:
        if (c->pred && c->pred->kind == PP_PRED_NONZERO && c->pred->a.u64 == 0xC0FFEE)
            return pp_nonzero(ctx, din, c->n, c->t, daux, c->aux_type, cnt, c->space);
        return pp_where(ctx, din, c->n, c->t, c->pred, daux, c->aux_type, cnt, c->space);
    }
    return PP_ERROR_INVALID_ARGUMENT;
}

/* Bytes [from, to) of got must be the sentinel. */
static void check_sentinel(const unsigned char *got, size_t from, size_t to, const char *what)
{
    for (size_t b = from; b < to; ++b)
        TC_CHECK(got[b] == TC_SENTINEL, "%s: byte %zu (past the %zu bytes it may write) was written", what, b, from);
}

static void check_bits(const unsigned char *got, const unsigned char *want, size_t count, size_t size,
                       const char *what)
{
    for (size_t i = 0; i < count; ++i)
        if (memcmp(got + i * size, want + i * size, size) != 0) {
            uint64_t g = 0, w = 0;
            memcpy(&g, got + i * size, size);
            memcpy(&w, want + i * size, size);
            TC_FAIL("%s[%zu] = 0x%llx, expected 0x%llx", what, i, (unsigned long long)g, (unsigned long long)w);
        }
}

/* Context-space copies of host data at `misalign` elements past an allocation (+ PAD). */
static void *put(pp_context *ctx, void **base, const void *host, size_t bytes, size_t shift)
{
    *base = tc_alloc(ctx, bytes + shift + PAD);
    TC_OK(ctx, pp_memset(ctx, *base, TC_SENTINEL, bytes + shift + PAD));
    if (bytes && host) TC_OK(ctx, pp_memcpy(ctx, (char *)*base + shift, host, bytes, PP_COPY_HOST_TO_CONTEXT));
    return (char *)*base + shift;
}

/* Run c on env's backend and compare every output with the oracle. */
static void run_check(tc_env *env, const ccase *c)
{
    pp_context *ctx = env->ctx;
    const size_t n = c->n, es = tc_size(c->t), ps = c->payload ? tc_size(c->ptype) : 0;
    const size_t as = tc_size(c->aux_type), sh = c->misalign;
    tc_case("%s: %s %s by %s, n = %zu, payload %s, %s%s, count to %s, misaligned by %zu", pp_backend_name(env->backend),
            op_name(c->op), tc_dname(c->t),
            c->op == PO_UNIQUE || c->op == PO_RLE ? "runs" : c->pred ? pp_pred_name(c->pred->kind) : "flags", n,
            ps ? tc_dname(c->ptype) : "none", c->op == PO_RLE || c->op == PO_WHERE ? tc_dname(c->aux_type) : "-",
            c->in_place ? ", in place" : "", c->space == PP_RESULT_HOST ? "host" : "context", sh);
    /* expected */
    unsigned char *want = (unsigned char *)tc_xmalloc(n * es + 8), *wantp = (unsigned char *)tc_xmalloc(n * 8 + 8);
    uint64_t *waux = (uint64_t *)tc_xmalloc(n * 8 + 8);
    const uint64_t wc = po_compact(c->op, c->in, n, c->t, c->flags, c->pred, c->payload, ps, want, wantp, waux);
    /* inputs and outputs in the context's space */
    void *b_in, *b_fl = NULL, *b_pay = NULL, *b_out = NULL, *b_pout = NULL, *b_aux = NULL;
    void *din = put(ctx, &b_in, c->in, n * es, sh * es);
    uint8_t *dfl = c->flags ? (uint8_t *)put(ctx, &b_fl, c->flags, n, sh) : NULL;
    void *dpay = c->payload ? put(ctx, &b_pay, c->payload, n * ps, sh * ps) : NULL;
    void *dout = NULL, *dpout = NULL, *daux = NULL;
    if (c->op != PO_WHERE) dout = c->in_place ? din : put(ctx, &b_out, NULL, n * es, sh * es);
    if (ps) dpout = c->in_place ? dpay : put(ctx, &b_pout, NULL, n * ps, sh * ps);
    if (c->op == PO_WHERE || c->op == PO_RLE) daux = put(ctx, &b_aux, NULL, n * as, sh * as);
    uint64_t hcount = 0xA5A5A5A5A5A5A5A5ull, *cnt = &hcount;
    if (c->space == PP_RESULT_CONTEXT) {
        cnt = (uint64_t *)env->res;
        TC_OK(ctx, pp_memset(ctx, cnt, TC_SENTINEL, 8));
    }
    TC_OK(ctx, call(ctx, c, din, dfl, dpay, dout, dpout, daux, cnt));
    if (c->space == PP_RESULT_CONTEXT) tc_download(ctx, &hcount, cnt, 8);
    TC_CHECK(hcount == wc, "count %llu, expected %llu", (unsigned long long)hcount, (unsigned long long)wc);
    const size_t written = c->op == PO_PARTITION ? n : (size_t)wc;
    unsigned char *got = (unsigned char *)tc_xmalloc(n * 8 + PAD);
    if (dout) {
        tc_download(ctx, got, dout, n * es + (c->in_place ? 0 : PAD));
        check_bits(got, want, written, es, "out");
        if (!c->in_place) check_sentinel(got, written * es, n * es + PAD, "out");
    }
    if (dpout) {
        tc_download(ctx, got, dpout, n * ps + (c->in_place ? 0 : PAD));
        check_bits(got, wantp, written, ps, "payload_out");
        if (!c->in_place) check_sentinel(got, written * ps, n * ps + PAD, "payload_out");
    }
    if (daux) {
        tc_download(ctx, got, daux, n * as + PAD);
        for (size_t i = 0; i < written; ++i) {
            uint64_t g = 0;
            memcpy(&g, got + i * as, as);
            const uint64_t w = as == 4 ? (uint32_t)waux[i] : waux[i];
            TC_CHECK(g == w, "%s[%zu] = %llu, expected %llu", c->op == PO_RLE ? "lengths" : "indices", i,
                     (unsigned long long)g, (unsigned long long)w);
        }
        check_sentinel(got, written * as, n * as + PAD, c->op == PO_RLE ? "lengths" : "indices");
    }
    if (!c->in_place) { /* inputs untouched */
        tc_download(ctx, got, din, n * es);
        TC_CHECK(n == 0 || memcmp(got, c->in, n * es) == 0, "the input was written");
    }
    free(got);
    tc_free(ctx, b_in);
    tc_free(ctx, b_fl);
    tc_free(ctx, b_pay);
    tc_free(ctx, b_out);
    tc_free(ctx, b_pout);
    tc_free(ctx, b_aux);
    free(want);
    free(wantp);
    free(waux);
}

/* ---- data ---- */

enum { SEL_NONE, SEL_ALL, SEL_HALF, SEL_ALTERNATE, SEL_RARE, SEL_COUNT_ };
static const char *const sel_names[] = {"0%", "100%", "50%", "alternating", "1 in 1000"};

static void fill_flags(tc_rng *r, uint8_t *f, size_t n, int sel)
{
    for (size_t i = 0; i < n; ++i) {
        int k = sel == SEL_ALL || (sel == SEL_HALF && (tc_next(r) & 1)) || (sel == SEL_ALTERNATE && (i & 1)) ||
                (sel == SEL_RARE && tc_below(r, 1000) == 0);
        f[i] = k ? (uint8_t)(1 + tc_below(r, 255)) : 0; /* any nonzero byte selects */
    }
}

/* Runs of 1 .. 2 mean - 1 equal elements, values from a few (adjacent runs may be equal);
 * floats get NaNs of several payloads and both zeros among them. */
static void fill_runs(tc_rng *r, void *a, size_t n, pp_dtype t, size_t mean)
{
    const size_t es = tc_size(t);
    unsigned char *few = (unsigned char *)tc_xmalloc(8 * es);
    tc_fill(r, few, 8, t, TC_RANDOM);
    if (tc_is_float(t)) {
        tc_store_value(few, 0, t, NAN);
        tc_store_bits(few, 1, t, tc_bits(few, 0, t) | 1 | (t == PP_F32 ? 0x80000000ull : 0x8000000000000000ull));
        tc_store_value(few, 2, t, -0.0L);
        tc_store_value(few, 3, t, 0.0L);
        tc_store_value(few, 4, t, INFINITY);
    }
    size_t i = 0;
    while (i < n) {
        size_t len = 1 + tc_below(r, 2 * mean - 1);
        const size_t pick = tc_below(r, 8);
        for (size_t k = 0; k < len && i < n; ++k, ++i) {
            /* within a run of a float zero or NaN, vary the bits among equal keys */
            size_t v = pick;
            if (tc_is_float(t) && pick <= 1 && (tc_next(r) & 1)) v = 1 - pick;
            if (tc_is_float(t) && (pick == 2 || pick == 3) && (tc_next(r) & 1)) v = 5 - pick;
            memcpy((char *)a + i * es, few + v * es, es);
        }
    }
    free(few);
}

/* A payload of dtype pt: element i holds bits that identify i. */
static void fill_payload(void *p, size_t n, pp_dtype pt)
{
    for (size_t i = 0; i < n; ++i) tc_store_bits(p, i, pt, (uint64_t)i * 0x9E3779B97F4A7C15ull + 7);
}

static const pp_dtype ptypes[4] = {PP_U8, PP_F32, PP_I64, PP_U32};

/* ---- tests ---- */

/* Select and partition by flags: every dtype, selection, size; payloads of 1, 4, 8 bytes;
 * counts to both spaces. */
static void flagged(void **state, po_compact_op op)
{
    tc_env *env = tc_envp(state);
    size_t sizes[32];
    const size_t ns = sizes_of(sizes, !tc_thorough());
    const size_t nmax = sizes[ns - 1];
    tc_rng r = tc_rng_for(op == PO_SELECT ? "select flagged" : "partition flagged");
    uint8_t *f = (uint8_t *)tc_xmalloc(nmax + 1);
    unsigned char *in = (unsigned char *)tc_xmalloc(nmax * 8 + 8), *pay = (unsigned char *)tc_xmalloc(nmax * 8 + 8);
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        tc_fill(&r, in, nmax, t, TC_RANDOM);
        for (int sel = 0; sel < SEL_COUNT_; ++sel) {
            fill_flags(&r, f, nmax, sel);
            for (size_t si = 0; si < ns; ++si) {
                const int k = (int)((si + (size_t)sel + (size_t)ti) % 5); /* payload: none or one of 4 */
                ccase c = {op, t, sizes[si], in, f, NULL, k ? pay : NULL, k ? ptypes[k - 1] : PP_U8, PP_U64, 0,
                           (si & 1) ? PP_RESULT_HOST : PP_RESULT_CONTEXT, 0};
                if (k) fill_payload(pay, sizes[si], c.ptype);
                (void)sel_names;
                run_check(env, &c);
            }
        }
    }
    free(f);
    free(in);
    free(pay);
}
static void t_select_flagged(void **state) { flagged(state, PO_SELECT); }
static void t_partition_flagged(void **state) { flagged(state, PO_PARTITION); }

/* A constant drawn from the data (element j), or a special one. */
static pp_scalar scalar_of(const void *a, size_t j, pp_dtype t)
{
    pp_scalar s;
    memset(&s, 0, sizeof s);
    const uint64_t b = tc_bits(a, j, t);
    memcpy(&s, &b, tc_size(t)); /* little-endian: the member of t holds the element */
    return s;
}

/* Select, partition and where by predicate: every dtype and kind, constants from the data and
 * special ones (NaN, infinities, zeros of both signs, the type's extremes). */
static void predicated(void **state, po_compact_op op)
{
    tc_env *env = tc_envp(state);
    static const size_t sizes[] = {0, 1, 33, 2049, 4097, 64 * 4096 + 1};
    const size_t nsz = tc_thorough() ? 6 : 5, nmax = 64 * 4096 + 1;
    tc_rng r = tc_rng_for(op == PO_SELECT ? "select if" : op == PO_PARTITION ? "partition if" : "where");
    unsigned char *in = (unsigned char *)tc_xmalloc(nmax * 8), *pay = (unsigned char *)tc_xmalloc(nmax * 8);
    fill_payload(pay, nmax, PP_U32);
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        for (int data = 0; data < 3; ++data) {
            if (data == 0) tc_fill(&r, in, nmax, t, TC_RANDOM);
            if (data == 1) tc_fill(&r, in, nmax, t, TC_FEW);
            if (data == 2) {
                if (!tc_is_float(t)) continue;
                tc_fill_special(&r, in, nmax, t, 3);
                for (size_t i = 0; i < nmax; i += 1 + tc_below(&r, 16)) {
                    const long double sp[5] = {NAN, INFINITY, -INFINITY, 0.0L, -0.0L};
                    tc_store_value(in, i, t, sp[tc_below(&r, 5)]);
                }
            }
            for (int kind = PP_PRED_LT; kind <= PP_PRED_NONZERO; ++kind)
                for (int cst = 0; cst < 3; ++cst) {
                    pp_predicate p;
                    memset(&p, 0, sizeof p);
                    p.kind = (pp_pred_kind)kind;
                    p.a = scalar_of(in, tc_below(&r, 4096), t);
                    p.b = scalar_of(in, tc_below(&r, 4096), t);
                    if (cst == 1) { /* special constants */
                        unsigned char tmp[16];
                        const long double sp[4] = {tc_is_float(t) ? (long double)NAN : 0.0L, -0.0L,
                                                   tc_is_float(t) ? (long double)INFINITY : 1.0L, 0.0L};
                        tc_store_value(tmp, 0, t, sp[tc_below(&r, 4)]);
                        tc_store_value(tmp, 1, t, sp[1 + tc_below(&r, 3)]);
                        p.a = scalar_of(tmp, 0, t);
                        if (kind == PP_PRED_INSIDE || kind == PP_PRED_OUTSIDE) {
                            p.a = scalar_of(tmp, 1, t);
                            p.b = scalar_of(in, tc_below(&r, 4096), t);
                        }
                    }
                    if (cst == 2) { /* a ordered below b */
                        if (tc_value(&p.a, 0, t) > tc_value(&p.b, 0, t)) {
                            pp_scalar x = p.a;
                            p.a = p.b;
                            p.b = x;
                        }
                    }
                    /* ranges refuse NaN bounds (t_errors checks that); draw again */
                    if ((kind == PP_PRED_INSIDE || kind == PP_PRED_OUTSIDE) && tc_is_float(t) &&
                        (isnan((double)tc_value(&p.a, 0, t)) || isnan((double)tc_value(&p.b, 0, t))))
                        continue;
                    const size_t n = sizes[(size_t)(kind + cst + data) % nsz];
                    const int with_pay = op != PO_WHERE && ((kind + cst) & 1);
                    ccase c = {op, t, n, in, NULL, &p, with_pay ? pay : NULL, PP_U32, (kind & 1) ? PP_U32 : PP_U64,
                               0, (kind & 2) ? PP_RESULT_HOST : PP_RESULT_CONTEXT, 0};
                    run_check(env, &c);
                }
        }
    }
    free(in);
    free(pay);
}
static void t_select_if(void **state) { predicated(state, PO_SELECT); }
static void t_partition_if(void **state) { predicated(state, PO_PARTITION); }
static void t_where(void **state) { predicated(state, PO_WHERE); }

/* The five selections through a predicate (NONZERO on 0 / 1 data) and nonzero itself, every
 * size: select, partition and where. */
static void t_pred_selections(void **state)
{
    tc_env *env = tc_envp(state);
    size_t sizes[32];
    const size_t ns = sizes_of(sizes, !tc_thorough()), nmax = sizes[ns - 1];
    tc_rng r = tc_rng_for("predicate selections");
    uint8_t *f = (uint8_t *)tc_xmalloc(nmax + 1);
    unsigned char *in = (unsigned char *)tc_xmalloc(nmax * 8 + 8);
    pp_predicate nz;
    memset(&nz, 0, sizeof nz);
    nz.kind = PP_PRED_NONZERO;
    pp_predicate via_nonzero = nz; /* run_check calls pp_nonzero for this marker */
    via_nonzero.a.u64 = 0xC0FFEE;
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        for (int sel = 0; sel < SEL_COUNT_; ++sel) {
            fill_flags(&r, f, nmax, sel);
            for (size_t i = 0; i < nmax; ++i) tc_store_value(in, i, t, f[i] ? (tc_is_float(t) ? -0.5L : 3.0L) : 0.0L);
            if (tc_is_float(t)) /* -0.0 is zero */
                for (size_t i = 0; i < nmax; i += 7)
                    if (!f[i]) tc_store_value(in, i, t, -0.0L);
            for (size_t si = 0; si < ns; ++si) {
                const po_compact_op op = si % 3 == 0 ? PO_SELECT : si % 3 == 1 ? PO_PARTITION : PO_WHERE;
                ccase c = {op, t, sizes[si], in, NULL, op == PO_WHERE && (si & 1) ? &via_nonzero : &nz, NULL, PP_U8,
                           (si & 2) ? PP_U32 : PP_U64, 0, (si & 4) ? PP_RESULT_HOST : PP_RESULT_CONTEXT, 0};
                run_check(env, &c);
            }
        }
    }
    free(f);
    free(in);
}

/* Unique and run-length encoding: runs of mean 1, 4 and 300, every dtype, with and without a
 * payload, u32 and u64 lengths. */
static void t_unique_rle(void **state)
{
    tc_env *env = tc_envp(state);
    size_t sizes[32];
    const size_t ns = sizes_of(sizes, !tc_thorough()), nmax = sizes[ns - 1];
    tc_rng r = tc_rng_for("unique and rle");
    unsigned char *in = (unsigned char *)tc_xmalloc(nmax * 8 + 8), *pay = (unsigned char *)tc_xmalloc(nmax * 8 + 8);
    static const size_t means[3] = {1, 4, 300};
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        for (int mi = 0; mi < 3; ++mi) {
            fill_runs(&r, in, nmax, t, means[mi]);
            for (size_t si = 0; si < ns; ++si)
                for (int op = PO_UNIQUE; op <= PO_RLE; ++op) {
                    const int k = (int)((si + (size_t)mi) % 5);
                    ccase c = {(po_compact_op)op, t, sizes[si], in, NULL, NULL, op == PO_UNIQUE && k ? pay : NULL,
                               k ? ptypes[k - 1] : PP_U8, (si & 1) ? PP_U32 : PP_U64, 0,
                               (si & 2) ? PP_RESULT_HOST : PP_RESULT_CONTEXT, 0};
                    if (c.payload) fill_payload(pay, sizes[si], c.ptype);
                    run_check(env, &c);
                }
        }
    }
    free(in);
    free(pay);
}

/* Run-length encoding's runs against the GPU's tiles (4096 elements of 1 and 4 bytes, 2048 of 8;
 * each head writes the length of the run before it, which may have begun many tiles back):
 * one run of everything; every element its own run; runs of 1 .. 3 tiles; runs of exactly a
 * wave run or a tile +-1 (heads on and beside every boundary); a first run of one element then
 * one run to the end; one run to the end but a last run of one element. Sizes 1 .. 13 tiles,
 * both length types and count spaces; on HIP each also with the kernel's variants (persistent
 * blocks looping over many tiles, tiles by block index, the counts published early). */
enum { RUNS_ONE, RUNS_DISTINCT, RUNS_LONG, RUNS_EXACT, RUNS_FIRST_ALONE, RUNS_LAST_ALONE, RUNS_COUNT_ };

static void fill_rle_pattern(tc_rng *r, void *a, size_t n, pp_dtype t, int pat, size_t exact)
{
    uint64_t v = 1 + tc_below(r, 100); /* the run's value: changes at each head */
    size_t left = 0;                   /* of the current run */
    for (size_t i = 0; i < n; ++i) {
        int head = i == 0;
        switch (pat) {
        case RUNS_ONE: break;
        case RUNS_DISTINCT: head = 1; break;
        case RUNS_LONG:
        case RUNS_EXACT:
            if (left == 0) {
                head = 1;
                left = pat == RUNS_LONG ? 1 + tc_below(r, 3 * 4096) : exact;
            }
            --left;
            break;
        case RUNS_FIRST_ALONE: head = head || i == 1; break;
        case RUNS_LAST_ALONE: head = head || i == n - 1; break;
        }
        if (head && i) v = v % 100 + 1; /* 1 .. 100: differs from the value before */
        tc_store_value(a, i, t, (long double)v);
    }
}

static void t_rle_runs(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const int quick = !tc_thorough(), hip = env->backend == PP_BACKEND_HIP;
    static const size_t all_sizes[] = {1, 2, 2047, 2048, 2049, 4095, 4096, 4097, 2 * 4096 + 1, 3 * 4096 + 5,
                                       13 * 4096 + 77};
    static const size_t quick_sizes[] = {1, 2049, 4095, 4097, 3 * 4096 + 5, 13 * 4096 + 77};
    const size_t *sizes = quick ? quick_sizes : all_sizes;
    const size_t ns = quick ? sizeof quick_sizes / sizeof quick_sizes[0] : sizeof all_sizes / sizeof all_sizes[0];
    const size_t nmax = 13 * 4096 + 77;
    static const size_t exacts[] = {511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097};
    static const pp_dtype ts[3] = {PP_U8, PP_F32, PP_U64};
    /* variants: {publish, blocks, max blocks}; 0: the tuning table's */
    static const int variants[3][3] = {{0, 0, 0}, {2, 2, 3}, {1, 3, 0}};
    const int nvar = !hip ? 1 : quick ? 2 : 3;
    tc_rng r = tc_rng_for("rle runs");
    unsigned char *in = (unsigned char *)tc_xmalloc(nmax * 8);
    size_t k = 0;
    for (int vi = 0; vi < nvar; ++vi) {
        TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_COMPACT_PUBLISH, variants[vi][0]));
        TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_COMPACT_BLOCKS, variants[vi][1]));
        TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SCAN_MAX_BLOCKS, variants[vi][2]));
        for (int ti = 0; ti < 3; ++ti)
            for (int pat = 0; pat < RUNS_COUNT_; ++pat)
                for (size_t si = 0; si < ns; ++si, ++k) {
                    fill_rle_pattern(&r, in, sizes[si], ts[ti], pat, exacts[k % (sizeof exacts / sizeof exacts[0])]);
                    ccase c = {PO_RLE, ts[ti], sizes[si], in, NULL, NULL, NULL, PP_U8, (k & 1) ? PP_U32 : PP_U64, 0,
                               (k & 2) ? PP_RESULT_HOST : PP_RESULT_CONTEXT, 0};
                    run_check(env, &c);
                }
    }
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_COMPACT_PUBLISH, 0));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_COMPACT_BLOCKS, 0));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SCAN_MAX_BLOCKS, 0));
    free(in);
}

/* Select in place (out == in, payload_out == payload), by flags and by predicate. */
static void t_in_place(void **state)
{
    tc_env *env = tc_envp(state);
    size_t sizes[32];
    const size_t ns = sizes_of(sizes, 0), nmax = sizes[ns - 1];
    tc_rng r = tc_rng_for("select in place");
    uint8_t *f = (uint8_t *)tc_xmalloc(nmax + 1);
    unsigned char *in = (unsigned char *)tc_xmalloc(nmax * 8 + 8), *pay = (unsigned char *)tc_xmalloc(nmax * 8 + 8);
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        tc_fill(&r, in, nmax, t, TC_RANDOM);
        pp_predicate p;
        memset(&p, 0, sizeof p);
        p.kind = PP_PRED_GE;
        p.a = scalar_of(in, 0, t);
        for (int sel = 0; sel < SEL_COUNT_; ++sel) {
            fill_flags(&r, f, nmax, sel);
            for (size_t si = 0; si < ns; si += 2) {
                const int k = (int)((si + (size_t)sel) % 5);
                ccase c = {PO_SELECT, t, sizes[si], in, (sel & 1) ? NULL : f, (sel & 1) ? &p : NULL, k ? pay : NULL,
                           k ? ptypes[k - 1] : PP_U8, PP_U64, 1, (si & 2) ? PP_RESULT_HOST : PP_RESULT_CONTEXT, 0};
                if (k) fill_payload(pay, sizes[si], c.ptype);
                run_check(env, &c);
            }
        }
    }
    free(f);
    free(in);
    free(pay);
}

/* Arrays that start 1 .. 3 elements past 16-byte boundaries (every form). */
static void t_misaligned(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t sizes[] = {5, 4097, 64 * 4096 + 1};
    const size_t nmax = 64 * 4096 + 1;
    tc_rng r = tc_rng_for("compaction misaligned");
    uint8_t *f = (uint8_t *)tc_xmalloc(nmax);
    unsigned char *in = (unsigned char *)tc_xmalloc(nmax * 8), *pay = (unsigned char *)tc_xmalloc(nmax * 8);
    fill_flags(&r, f, nmax, SEL_HALF);
    fill_payload(pay, nmax, PP_F64);
    pp_predicate p;
    memset(&p, 0, sizeof p);
    p.kind = PP_PRED_NONZERO;
    for (int ti = 0; ti < 7; ++ti) {
        const pp_dtype t = tc_dtypes[ti];
        for (size_t si = 0; si < 3; ++si)
            for (int op = PO_SELECT; op <= PO_WHERE; ++op) {
                if (op == PO_UNIQUE || op == PO_RLE) fill_runs(&r, in, nmax, t, 4);
                else tc_fill(&r, in, nmax, t, TC_FEW);
                ccase c = {(po_compact_op)op, t, sizes[si], in, op == PO_SELECT ? f : NULL,
                           op == PO_PARTITION || op == PO_WHERE ? &p : NULL, op <= PO_UNIQUE ? pay : NULL, PP_F64,
                           PP_U64, 0, PP_RESULT_CONTEXT, 1 + (si + (size_t)op) % 3};
                run_check(env, &c);
            }
    }
    free(f);
    free(in);
    free(pay);
}

/* n == 0 with NULL arrays: count 0 in both spaces; the plan names the family. */
static void t_empty_and_plan(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    uint64_t c = 77;
    pp_predicate p;
    memset(&p, 0, sizeof p);
    p.kind = PP_PRED_NONZERO;
    tc_case("%s: n = 0", pp_backend_name(env->backend));
    TC_OK(ctx, pp_select_flagged(ctx, NULL, 0, PP_F32, NULL, NULL, PP_U8, NULL, NULL, &c, PP_RESULT_HOST));
    TC_CHECK(c == 0, "count %llu", (unsigned long long)c);
    c = 77;
    TC_OK(ctx, pp_run_length_encode(ctx, NULL, 0, PP_U8, NULL, NULL, PP_U32, &c, PP_RESULT_HOST));
    TC_CHECK(c == 0, "count %llu", (unsigned long long)c);
    TC_OK(ctx, pp_memset(ctx, env->res, TC_SENTINEL, 8));
    TC_OK(ctx, pp_nonzero(ctx, NULL, 0, PP_F64, NULL, PP_U32, (uint64_t *)env->res, PP_RESULT_CONTEXT));
    c = 77;
    tc_download(ctx, &c, env->res, 8);
    TC_CHECK(c == 0, "count %llu", (unsigned long long)c);
    pp_plan plan;
    TC_OK(ctx, pp_context_last_plan(ctx, &plan));
    TC_CHECK(strcmp(plan.family, "compaction") == 0, "plan family '%s'", plan.family);
}

/* Small cases of every form for the GPU's sanitizers (compute-sanitizer racecheck / synccheck
 * run this one: PP_TEST_FILTER='t_small*'): 1-, 4- and 8-byte elements at sizes of up to three
 * tiles (several tiles: the look-back runs), payloads and both count spaces. */
static void t_small(void **state)
{
    tc_env *env = tc_envp(state);
    static const size_t sizes[] = {1, 2049, 3 * 4096 + 5};
    const size_t nmax = 3 * 4096 + 5;
    static const pp_dtype ts[3] = {PP_U8, PP_F32, PP_F64};
    tc_rng r = tc_rng_for("compaction small");
    uint8_t *f = (uint8_t *)tc_xmalloc(nmax);
    unsigned char *in = (unsigned char *)tc_xmalloc(nmax * 8), *pay = (unsigned char *)tc_xmalloc(nmax * 8);
    fill_flags(&r, f, nmax, SEL_HALF);
    fill_payload(pay, nmax, PP_U32);
    pp_predicate p;
    memset(&p, 0, sizeof p);
    p.kind = PP_PRED_NONZERO;
    for (int ti = 0; ti < 3; ++ti)
        for (size_t si = 0; si < 3; ++si)
            for (int op = PO_SELECT; op <= PO_WHERE; ++op) {
                if (op == PO_UNIQUE || op == PO_RLE) fill_runs(&r, in, nmax, ts[ti], 3);
                else tc_fill(&r, in, nmax, ts[ti], TC_FEW);
                ccase c = {(po_compact_op)op, ts[ti], sizes[si], in, op == PO_SELECT && (si & 1) ? f : NULL,
                           op == PO_SELECT && (si & 1) ? NULL : &p, op <= PO_UNIQUE ? pay : NULL, PP_U32,
                           (si & 1) ? PP_U32 : PP_U64, 0, (si & 1) ? PP_RESULT_HOST : PP_RESULT_CONTEXT, 0};
                if (op == PO_UNIQUE || op == PO_RLE) c.pred = NULL;
                run_check(env, &c);
            }
    free(f);
    free(in);
    free(pay);
}

/* The HIP kernel's variants (PP_OPTION_COMPACT_PUBLISH / _BLOCKS / _PARTITION), each forced
 * and checked through pp_context_last_plan (param[1]: the digits built, publish, blocks,
 * partition): every form over many tiles, aligned and misaligned, in place with and without a payload (a
 * payload written in place publishes late whatever the option says); persistent blocks capped
 * at 3 (PP_OPTION_SCAN_MAX_BLOCKS) so that each loops over many tiles; tiles by block index. The CPU backend has
 * none of them: its cases run (the options are ignored) and the test then skips visibly. */
static void t_variants(void **state)
{
    tc_env *env = tc_envp(state);
    pp_context *ctx = env->ctx;
    const int hip = env->backend == PP_BACKEND_HIP;
    static const size_t sizes[] = {2 * 4096 + 1, 13 * 4096 + 77};
    const size_t nmax = 13 * 4096 + 77;
    static const pp_dtype ts[3] = {PP_U8, PP_F32, PP_F64};
    tc_rng r = tc_rng_for("compaction variants");
    size_t lacking = 0; /* cases whose variant the device's target does not build */
    uint8_t *f = (uint8_t *)tc_xmalloc(nmax);
    unsigned char *in = (unsigned char *)tc_xmalloc(nmax * 8), *pay = (unsigned char *)tc_xmalloc(nmax * 8);
    fill_payload(pay, nmax, PP_U32);
    pp_predicate p;
    memset(&p, 0, sizeof p);
    p.kind = PP_PRED_NONZERO;
    for (int pub = 1; pub <= 2; ++pub)
        for (int blk = 1; blk <= 3; ++blk)
            for (int part = 1; part <= 2; ++part) {
                if (part == 2 && pub != 2) continue; /* partition's variants once per block kind */
                TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_COMPACT_PUBLISH, pub));
                TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_COMPACT_BLOCKS, blk));
                TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_COMPACT_PARTITION, part));
                TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SCAN_MAX_BLOCKS, blk == 2 ? 3 : 0));
                for (int ti = 0; ti < 3; ++ti)
                    for (size_t si = 0; si < 2; ++si)
                        for (int op = PO_SELECT; op <= PO_WHERE + 2; ++op) {
                            /* PO_WHERE + 1, + 2: select in place, without and with a payload */
                            const int inpl = op > PO_WHERE;
                            const po_compact_op o = inpl ? PO_SELECT : (po_compact_op)op;
                            if (o == PO_UNIQUE || o == PO_RLE) fill_runs(&r, in, sizes[si], ts[ti], 3);
                            else tc_fill(&r, in, sizes[si], ts[ti], TC_FEW);
                            fill_flags(&r, f, sizes[si], SEL_HALF);
                            const int by_flags = (o == PO_SELECT || o == PO_PARTITION) && ((si + (size_t)ti) & 1);
                            const int with_pay = (o <= PO_UNIQUE && !inpl) || op == PO_WHERE + 2;
                            ccase c = {o, ts[ti], sizes[si], in, by_flags ? f : NULL,
                                       by_flags || o == PO_UNIQUE || o == PO_RLE ? NULL : &p, with_pay ? pay : NULL,
                                       PP_U32, (si & 1) ? PP_U32 : PP_U64, inpl,
                                       (si & 1) ? PP_RESULT_HOST : PP_RESULT_CONTEXT, (size_t)(ti == 1 && si == 1)};
                            run_check(env, &c);
                            if (!hip) continue;
                            pp_plan plan;
                            TC_OK(ctx, pp_context_last_plan(ctx, &plan));
                            /* a target without the publish / blocks variants (digit 1000 off)
                             * runs publish 1 in one tile per block */
                            const int built = plan.param[1] >= 1000;
                            const int want_pub = op == PO_WHERE + 2 || !built ? 1 : pub;
                            const int want_blk = built ? blk : 1;
                            const int64_t want =
                                built * 1000 + want_pub * 100 + want_blk * 10 + (o == PO_PARTITION ? part : 0);
                            lacking += !built && (pub != 1 || blk != 1);
                            TC_CHECK(plan.tiles > 1 && plan.param[1] == want &&
                                         strcmp(plan.strategy, want_blk == 2 ? "persistent" : "tiles") == 0 &&
                                         (want_blk != 2 ? plan.grid == plan.tiles : plan.grid <= 3),
                                     "plan %s grid %llu tiles %llu variant %lld, expected %lld", plan.strategy,
                                     (unsigned long long)plan.grid, (unsigned long long)plan.tiles,
                                     (long long)plan.param[1], (long long)want);
                        }
            }
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_COMPACT_PUBLISH, 0));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_COMPACT_BLOCKS, 0));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_COMPACT_PARTITION, 0));
    TC_OK(ctx, pp_context_set_option(ctx, PP_OPTION_SCAN_MAX_BLOCKS, 0));
    free(f);
    free(in);
    free(pay);
    if (!hip) {
        print_message("    (skipped: the kernel variants are the HIP backend's; the cases ran on %s)\n",
                      pp_backend_name(env->backend));
        skip();
    }
    if (lacking) {
        print_message("    (skipped: %zu cases ran the first version's kernel: the device's target builds no "
                      "publish / blocks variants)\n",
                      lacking);
        skip();
    }
}

/* The GPU kernels' prepared 4-byte predicate (pp_keep32, src/compaction_keep.h) against
 * pp_keep_eval, the definition every backend shares: every encoding, key ranges whose bounds
 * are the keys around the infinities, the zeros and the NaNs (and random ones), both inverts
 * and NaN answers, on special and random bit patterns. No library call: runs once, on the
 * host. */
static void t_keep32_matches(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("keep32");
    uint32_t keys[24] = {0u,          1u,          0x007FFFFEu, 0x007FFFFFu, 0x00800000u, 0x3F7FFFFFu,
                         0x7FFFFFFEu, 0x7FFFFFFFu, 0x80000000u, 0x80000001u, 0xBF800000u, 0xFF7FFFFFu,
                         0xFF800000u, 0xFF800001u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    for (int i = 16; i < 24; ++i) keys[i] = (uint32_t)tc_next(&r);
    uint32_t bits[64] = {0u,          0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
                         0x7F800001u, 0xFF800001u, 0x7FFFFFFFu, 0xFFFFFFFFu, 0x00000001u, 0x80000001u,
                         0x007FFFFFu, 0x807FFFFFu, 0x3F800000u, 0xBF800000u, 0x7F7FFFFFu, 0xFF7FFFFFu};
    for (int i = 18; i < 64; ++i) bits[i] = (uint32_t)tc_next(&r);
    const int encs[3] = {PP_ENC_UNSIGNED, PP_ENC_SIGNED, PP_ENC_FLOAT};
    size_t checked = 0;
    for (int e = 0; e < 3; ++e)
        for (int a = 0; a < 24; ++a)
            for (int b = 0; b < 24; ++b)
                for (int f = 0; f < 4; ++f) {
                    const pp_keep_pred p = {keys[a], keys[b], (uint32_t)(f & 1), (uint32_t)(f >> 1)};
                    const pp_keep32 q = pp_keep32_of(&p, encs[e]);
                    for (int i = 0; i < 64 + 4096; ++i) {
                        /* the specials, then bits next to the bounds, then random */
                        const uint32_t x = i < 64 ? bits[i] : i < 64 + 8 ? keys[a] + (uint32_t)(i - 68)
                                                                         : (uint32_t)tc_next(&r);
                        const uint32_t want = (uint32_t)pp_keep_eval(&p, x, 4, encs[e]);
                        const uint32_t got = pp_keep32_eval(&q, x);
                        if (got != want)
                            TC_FAIL("enc %d, lo 0x%08x, hi 0x%08x, invert %u, nan_val %u, bits 0x%08x: "
                                    "pp_keep32_eval %u, pp_keep_eval %u",
                                    encs[e], keys[a], keys[b], p.invert, p.nan_val, x, got, want);
                        ++checked;
                    }
                }
    print_message("    %zu evaluations agree\n", checked);
}

int main(void)
{
    tc_init("test_compaction");
    const struct CMUnitTest tests[] = {
        TC_BOTH(t_select_flagged), TC_BOTH(t_partition_flagged), TC_BOTH(t_select_if),
        TC_BOTH(t_partition_if),   TC_BOTH(t_where),             TC_BOTH(t_pred_selections),
        TC_BOTH(t_unique_rle),     TC_BOTH(t_rle_runs),          TC_BOTH(t_in_place),
        TC_BOTH(t_misaligned),
        TC_BOTH(t_empty_and_plan), TC_BOTH(t_small),        TC_BOTH(t_variants),
        TC_CPU(t_keep32_matches),
    };
    return TC_RUN("test_compaction", tests);
}
