/* oracles.c -- the serial oracles shared by the tests and the bench; see oracles.h. */
#include "oracles.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* ---- elements ---- */

size_t po_size(pp_dtype t) { return pp_dtype_size(t); /* the library's own answer */ }

int po_is_float(pp_dtype t) { return t == PP_F32 || t == PP_F64; }
int po_is_signed(pp_dtype t) { return t == PP_I32 || t == PP_I64 || po_is_float(t); }

const char *po_dname(pp_dtype t)
{
    static const char *const names[] = {"?", "u8", "i32", "u32", "i64", "u64", "f32", "f64"};
    return t >= PP_U8 && t <= PP_F64 ? names[t] : "?";
}

const char *po_oname(pp_op op)
{
    static const char *const names[] = {"?", "sum", "prod", "min", "max", "and", "or", "xor"};
    return op >= PP_OP_SUM && op <= PP_OP_XOR ? names[op] : "?";
}

uint64_t po_mask(pp_dtype t) { return po_size(t) == 8 ? ~0ull : (1ull << (8 * po_size(t))) - 1; }

uint64_t po_bits(const void *a, size_t i, pp_dtype t)
{
    const unsigned char *p = (const unsigned char *)a + i * po_size(t);
    switch (po_size(t)) {
    case 1: return *p;
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

void po_store_bits(void *a, size_t i, pp_dtype t, uint64_t bits)
{
    unsigned char *p = (unsigned char *)a + i * po_size(t);
    switch (po_size(t)) {
    case 1: *p = (unsigned char)bits; break;
    case 4: { uint32_t v = (uint32_t)bits; memcpy(p, &v, 4); break; }
    default: memcpy(p, &bits, 8); break;
    }
}

static float f32_of(uint64_t b) { uint32_t u = (uint32_t)b; float f; memcpy(&f, &u, 4); return f; }
static double f64_of(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static uint64_t bits_f32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t bits_f64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

long double po_value(const void *a, size_t i, pp_dtype t)
{
    uint64_t b = po_bits(a, i, t);
    switch (t) {
    case PP_I32: return (long double)(int32_t)(uint32_t)b;
    case PP_I64: return (long double)(int64_t)b;
    case PP_F32: return (long double)f32_of(b);
    case PP_F64: return (long double)f64_of(b);
    default: return (long double)b;
    }
}

void po_store_value(void *a, size_t i, pp_dtype t, long double v)
{
    switch (t) {
    case PP_U8: po_store_bits(a, i, t, (uint8_t)(int64_t)v); break;
    case PP_I32: po_store_bits(a, i, t, (uint32_t)(int32_t)v); break;
    case PP_U32: po_store_bits(a, i, t, (uint32_t)(uint64_t)v); break;
    case PP_I64: po_store_bits(a, i, t, (uint64_t)(int64_t)v); break;
    case PP_U64: po_store_bits(a, i, t, (uint64_t)v); break;
    case PP_F32: po_store_bits(a, i, t, bits_f32((float)v)); break;
    case PP_F64: po_store_bits(a, i, t, bits_f64((double)v)); break;
    }
}

uint64_t po_widen_bits(uint64_t b, pp_dtype t)
{
    if (t == PP_I32) return (uint64_t)(int64_t)(int32_t)(uint32_t)b;
    return b;
}

static uint64_t type_max_bits(pp_dtype t)
{
    switch (t) {
    case PP_I32: return 0x7FFFFFFFull;
    case PP_I64: return 0x7FFFFFFFFFFFFFFFull;
    case PP_F32: return 0x7F800000ull;
    case PP_F64: return 0x7FF0000000000000ull;
    default: return po_mask(t);
    }
}

static uint64_t type_min_bits(pp_dtype t)
{
    switch (t) {
    case PP_I32: return 0x80000000ull;
    case PP_I64: return 0x8000000000000000ull;
    case PP_F32: return 0xFF800000ull;
    case PP_F64: return 0xFFF0000000000000ull;
    default: return 0;
    }
}

uint64_t po_identity_bits(pp_op op, pp_dtype t)
{
    switch (op) {
    case PP_OP_PROD: return t == PP_F32 ? bits_f32(1.0f) : t == PP_F64 ? bits_f64(1.0) : 1;
    case PP_OP_MIN: return type_max_bits(t);
    case PP_OP_MAX: return type_min_bits(t);
    case PP_OP_AND: return po_mask(t);
    default: return 0; /* sum, or, xor; +0.0 for floats */
    }
}

/* ---- bounds ---- */

unsigned po_ceil_log2(size_t n)
{
    unsigned k = 0;
    while (k < 64 && ((size_t)1 << k) < n) ++k;
    return k;
}

long double po_unit_roundoff(pp_dtype out) { return out == PP_F32 ? 0x1p-24L : 0x1p-53L; }

long double po_sum_gamma(size_t n, pp_dtype out_type)
{
    long double du = (long double)(po_ceil_log2(n) + PP_SUM_DEPTH_SLACK) * po_unit_roundoff(out_type);
    return du / (1 - du);
}

long double po_scan_gamma(size_t m, pp_dtype out_type)
{
    long double du = (long double)(2 * po_ceil_log2(m) + PP_SCAN_DEPTH_SLACK) * po_unit_roundoff(out_type);
    return du / (1 - du);
}

/* gamma_{n-1} of a product of n terms (each of the n - 1 products rounds once); INFINITY when
 * there is no useful bound. */
static long double prod_gamma(size_t n, pp_dtype out)
{
    const long double nu = (long double)(n ? n - 1 : 0) * po_unit_roundoff(out);
    return nu >= 0.5L ? INFINITY : nu / (1 - nu);
}

/* ---- reduction ---- */

void po_red_init(po_red *o, pp_op op, pp_dtype in, pp_dtype out)
{
    memset(o, 0, sizeof *o);
    o->op = op;
    o->in = in;
    o->out = out;
    if (po_is_float(in)) {
        o->sum = op == PP_OP_PROD ? 1.0L : op == PP_OP_MIN ? INFINITY : op == PP_OP_MAX ? -INFINITY : 0.0L;
    } else {
        /* Sign-extended identity of the input type (the output type where it widens). */
        o->acc = po_widen_bits(po_identity_bits(op, in), in);
        if (op == PP_OP_AND) o->acc = ~0ull;
    }
}

/* Neumaier's step: (sum, c) += x. */
static void add_compensated(po_red *o, long double x)
{
    long double s = o->sum + x;
    if (fabsl(o->sum) >= fabsl(x)) o->c += (o->sum - s) + x;
    else o->c += (x - s) + o->sum;
    o->sum = s;
}

/* One float term (a value, or another reduction's result) combined into o. */
static void float_combine(po_red *o, long double x, int x_nan)
{
    switch (o->op) {
    case PP_OP_SUM: add_compensated(o, x); break;
    case PP_OP_PROD: o->sum *= x; break;
    case PP_OP_MIN:
        if (x_nan || isnan(x)) o->nan = 1;
        else if (x < o->sum) o->sum = x;
        break;
    case PP_OP_MAX:
        if (x_nan || isnan(x)) o->nan = 1;
        else if (x > o->sum) o->sum = x;
        break;
    default: break;
    }
}

static uint64_t int_combine(pp_op op, int sg, uint64_t acc, uint64_t x)
{
    switch (op) {
    case PP_OP_SUM: return acc + x;
    case PP_OP_PROD: return acc * x;
    case PP_OP_MIN: return (sg ? (int64_t)x < (int64_t)acc : x < acc) ? x : acc;
    case PP_OP_MAX: return (sg ? (int64_t)x > (int64_t)acc : x > acc) ? x : acc;
    case PP_OP_AND: return acc & x;
    case PP_OP_OR: return acc | x;
    case PP_OP_XOR: return acc ^ x;
    }
    return acc;
}

void po_red_push(po_red *o, const void *a, size_t from, size_t to)
{
    const pp_dtype t = o->in;
    o->n += to - from;
    if (po_is_float(t)) {
        for (size_t i = from; i < to; ++i) {
            long double x = po_value(a, i, t);
            float_combine(o, x, 0);
            if (o->op == PP_OP_SUM) o->abssum += fabsl(x);
        }
        return;
    }
    const int sg = po_is_signed(t);
    uint64_t acc = o->acc;
    for (size_t i = from; i < to; ++i) acc = int_combine(o->op, sg, acc, po_widen_bits(po_bits(a, i, t), t));
    o->acc = acc;
}

void po_red_merge(po_red *o, const po_red *b)
{
    o->n += b->n;
    if (!po_is_float(o->in)) {
        o->acc = int_combine(o->op, po_is_signed(o->in), o->acc, b->acc);
        return;
    }
    float_combine(o, b->sum, b->nan);
    if (o->op == PP_OP_SUM) add_compensated(o, b->c);
    o->abssum += b->abssum;
}

void po_red_value(const po_red *o, void *out)
{
    if (!po_is_float(o->out)) {
        po_store_bits(out, 0, o->out, o->acc);
        return;
    }
    long double v = o->op == PP_OP_SUM ? o->sum + o->c : o->sum;
    if (o->nan) v = NAN;
    po_store_value(out, 0, o->out, v);
}

int po_red_check(const po_red *o, const void *got, const void *ref, double slack, char *why, size_t why_size)
{
    const pp_dtype out = o->out;
    const char *vs = ref ? "reference" : "want";
    if (!po_is_float(out)) {
        uint64_t want = ref ? po_bits(ref, 0, out) : o->acc & po_mask(out), have = po_bits(got, 0, out);
        if (want == have) return 1;
        snprintf(why, why_size, "%s %s->%s over %zu elements: got 0x%llx (%lld), %s 0x%llx (%lld)", po_oname(o->op),
                 po_dname(o->in), po_dname(out), o->n, (unsigned long long)have, (long long)po_widen_bits(have, out),
                 vs, (unsigned long long)want, (long long)po_widen_bits(want, out));
        return 0;
    }
    const long double v = po_value(got, 0, out);
    if (o->exact && !ref && (o->op == PP_OP_SUM || o->op == PP_OP_PROD)) {
        const long double want = o->op == PP_OP_SUM ? o->sum + o->c : o->sum;
        if (v == want) return 1;
        snprintf(why, why_size,
                 "%s %s->%s over %zu elements (data on which every order is exact): got %.21Lg, want exactly %.21Lg",
                 po_oname(o->op), po_dname(o->in), po_dname(out), o->n, v, want);
        return 0;
    }
    if (o->op == PP_OP_SUM || o->op == PP_OP_PROD) {
        const int sum = o->op == PP_OP_SUM;
        const long double exact = sum ? o->sum + o->c : o->sum;
        const long double center = ref ? po_value(ref, 0, out) : exact;
        const long double bound =
            (sum ? po_sum_gamma(o->n, out) * o->abssum : prod_gamma(o->n, out) * fabsl(exact)) * (long double)slack;
        if (fabsl(v - center) <= bound) return 1;
        snprintf(why, why_size,
                 "%s %s->%s over %zu elements: got %.21Lg, %s %.21Lg (exact %.21Lg), |difference| %.3Lg > bound "
                 "%.3Lg (= %g x g x %s, sum|x| = %.6Lg)",
                 po_oname(o->op), po_dname(o->in), po_dname(out), o->n, v, vs, center, exact, fabsl(v - center), bound,
                 slack, sum ? "sum|x|" : "|exact|", o->abssum);
        return 0;
    }
    /* min, max */
    const int want_nan = ref ? isnan(po_value(ref, 0, out)) : o->nan;
    const long double want = ref ? po_value(ref, 0, out) : o->sum;
    if (want_nan ? isnan(v) : v == want) return 1;
    snprintf(why, why_size, "%s %s over %zu elements%s: got %.17Lg, %s %.17Lg", po_oname(o->op), po_dname(out), o->n,
             want_nan ? " with a NaN" : "", v, vs, want_nan ? (long double)NAN : want);
    return 0;
}

/* ---- argmin / argmax ---- */

void po_arg_init(po_arg *o, pp_op op, pp_dtype t)
{
    o->op = op;
    o->t = t;
    o->n = 0;
    o->index = UINT64_MAX;
    o->bits = po_identity_bits(op, t);
}

/* Whether x is strictly more extreme than the current best y (a NaN beats every number). */
static int more_extreme(pp_op op, pp_dtype t, uint64_t xb, uint64_t yb)
{
    if (po_is_float(t)) {
        double x = t == PP_F32 ? f32_of(xb) : f64_of(xb), y = t == PP_F32 ? f32_of(yb) : f64_of(yb);
        if (isnan(y)) return 0;
        if (isnan(x)) return 1;
        return op == PP_OP_MIN ? x < y : x > y;
    }
    if (po_is_signed(t)) {
        int64_t x = (int64_t)po_widen_bits(xb, t), y = (int64_t)po_widen_bits(yb, t);
        return op == PP_OP_MIN ? x < y : x > y;
    }
    return op == PP_OP_MIN ? xb < yb : xb > yb;
}

void po_arg_push(po_arg *o, const void *a, size_t from, size_t to)
{
    for (size_t i = from; i < to; ++i) {
        uint64_t b = po_bits(a, i, o->t);
        if (o->index == UINT64_MAX || more_extreme(o->op, o->t, b, o->bits)) {
            o->index = o->n + (i - from);
            o->bits = b;
        }
    }
    o->n += to - from;
}

int po_arg_check(const po_arg *o, const void *got_value, uint64_t got_index, char *why, size_t why_size)
{
    const char *name = o->op == PP_OP_MIN ? "argmin" : "argmax";
    const uint64_t gb = po_bits(got_value, 0, o->t);
    if (got_index != o->index) {
        snprintf(why, why_size,
                 "%s %s over %zu elements: got index %llu (value bits 0x%llx), want index %llu (value bits 0x%llx)",
                 name, po_dname(o->t), o->n, (unsigned long long)got_index, (unsigned long long)gb,
                 (unsigned long long)o->index, (unsigned long long)o->bits);
        return 0;
    }
    if (po_is_float(o->t) && isnan((double)po_value(&o->bits, 0, o->t))) {
        if (isnan((double)po_value(got_value, 0, o->t))) return 1;
        snprintf(why, why_size, "%s %s over %zu elements: the winner is a NaN, got value bits 0x%llx", name,
                 po_dname(o->t), o->n, (unsigned long long)gb);
        return 0;
    }
    if (gb == o->bits) return 1;
    snprintf(why, why_size,
             "%s %s over %zu elements (index %llu): got value bits 0x%llx, want 0x%llx (the element at the index%s)",
             name, po_dname(o->t), o->n, (unsigned long long)o->index, (unsigned long long)gb,
             (unsigned long long)o->bits, o->n == 0 ? "; n == 0: the identity" : "");
    return 0;
}

/* ---- scans ---- */

void po_scan_seed(po_red *o, const po_scan *s)
{
    po_red_init(o, s->op, s->in, s->out);
    if (!s->exclusive) return;
    o->n = 1;
    if (!s->init) return;
    if (!po_is_float(s->out)) {
        o->acc = po_widen_bits(po_bits(s->init, 0, s->out), s->out);
        return;
    }
    const long double v = po_value(s->init, 0, s->out);
    if ((s->op == PP_OP_MIN || s->op == PP_OP_MAX) && isnan(v)) o->nan = 1;
    else o->sum = v;
    o->abssum = fabsl(v);
}

/* Compare output i (value oracle o); on a mismatch describe it. */
static int scan_check_one(const po_scan *s, const po_red *o, size_t i, size_t seg_start, const void *got,
                          const void *ref, double slack, char *why, size_t why_size)
{
    const pp_dtype out = s->out;
    const char *vs = ref ? "the reference's" : "the oracle's";
    if (!po_is_float(out)) {
        const uint64_t have = po_bits(got, i, out), want = ref ? po_bits(ref, i, out) : o->acc & po_mask(out);
        if (have == want) return 1;
        snprintf(why, why_size, "%s %s->%s: out[%zu] (segment from %zu, m = %zu) is 0x%llx (%lld), %s is 0x%llx (%lld)",
                 po_oname(s->op), po_dname(s->in), po_dname(out), i, seg_start, o->n, (unsigned long long)have,
                 (long long)po_widen_bits(have, out), vs, (unsigned long long)want, (long long)po_widen_bits(want, out));
        return 0;
    }
    const long double v = po_value(got, i, out);
    if (s->op == PP_OP_MIN || s->op == PP_OP_MAX) {
        const int want_nan = ref ? isnan(po_value(ref, i, out)) : o->nan;
        const long double want = ref ? po_value(ref, i, out) : o->sum;
        if (want_nan ? isnan(v) : v == want) return 1;
        snprintf(why, why_size, "%s %s: out[%zu] (segment from %zu) is %.17Lg, %s is %.17Lg", po_oname(s->op),
                 po_dname(out), i, seg_start, v, vs, want_nan ? (long double)NAN : want);
        return 0;
    }
    long double exact, bound;
    if (s->op == PP_OP_SUM) {
        exact = o->sum + o->c;
        bound = po_scan_gamma(o->n, out) * o->abssum * (long double)slack;
    } else {
        exact = o->sum;
        bound = prod_gamma(o->n, out) * fabsl(exact) * 1.0001L * (long double)slack;
    }
    const long double center = ref ? po_value(ref, i, out) : exact;
    if (s->exact && !ref ? v == exact : fabsl(v - center) <= bound) return 1;
    snprintf(why, why_size,
             "%s %s->%s: out[%zu] (segment from %zu, m = %zu) is %.21Lg, %s is %.21Lg (exact %.21Lg): "
             "|difference| %.3Lg, %s %.3Lg",
             po_oname(s->op), po_dname(s->in), po_dname(out), i, seg_start, o->n, v, vs, center, exact,
             fabsl(v - center), s->exact && !ref ? "want equality; bound" : "bound", bound);
    return 0;
}

int po_scan_check_span(const po_scan *s, const void *in, size_t b, size_t e, const po_red *carry,
                       const void *got, const void *ref, double slack, size_t *bad, char *why, size_t why_size)
{
    po_red o;
    size_t start = b;
    if (carry) o = *carry;
    for (size_t i = b; i < e; ++i) {
        if ((i == b && !carry) || (s->flags && s->flags[i])) {
            po_scan_seed(&o, s);
            start = i;
        }
        if (!s->exclusive) po_red_push(&o, in, i, i + 1);
        if (!scan_check_one(s, &o, i, start, got, ref, slack, why, why_size)) {
            *bad = i;
            return 0;
        }
        if (s->exclusive) po_red_push(&o, in, i, i + 1);
    }
    return 1;
}

/* Elements [b, e) that no segment covers hold what they held before. */
static int scan_check_untouched(const po_scan *s, size_t b, size_t e, const void *before, unsigned char fill,
                                const void *got, char *why, size_t why_size)
{
    const size_t osz = po_size(s->out);
    for (size_t i = b; i < e; ++i) {
        const unsigned char *g = (const unsigned char *)got + i * osz;
        for (size_t k = 0; k < osz; ++k) {
            const unsigned char want = before ? ((const unsigned char *)before)[i * osz + k] : fill;
            if (g[k] == want) continue;
            snprintf(why, why_size, "out[%zu] lies outside every segment but was written (byte %zu is 0x%02x, was 0x%02x)",
                     i, k, g[k], want);
            return 0;
        }
    }
    return 1;
}

int po_scan_check(const po_scan *s, const void *in, size_t n, const void *before, unsigned char fill,
                  const void *got, const void *ref, double slack, char *why, size_t why_size)
{
    size_t bad;
    if (!s->offsets) return po_scan_check_span(s, in, 0, n, NULL, got, ref, slack, &bad, why, why_size);
    size_t pos = 0;
    for (size_t k = 0; k < s->n_segments; ++k) {
        const size_t b = s->offsets[k] < n ? s->offsets[k] : n, e = s->offsets[k + 1] < n ? s->offsets[k + 1] : n;
        if (e <= b) continue;
        if (b < pos) {
            snprintf(why, why_size, "po_scan_check: segment %zu [%zu, %zu) overlaps an earlier one (caller's bug)", k,
                     b, e);
            return 0;
        }
        if (!scan_check_untouched(s, pos, b, before, fill, got, why, why_size) ||
            !po_scan_check_span(s, in, b, e, NULL, got, ref, slack, &bad, why, why_size))
            return 0;
        pos = e;
    }
    return scan_check_untouched(s, pos, n, before, fill, got, why, why_size);
}

/* ---- histograms ---- */

uint32_t po_hist_even_bin(long double xv, pp_dtype st, size_t nbins, double lo, double hi)
{
    if (po_is_float(st)) {
        const double x = (double)xv;
        if (!(x >= lo && x < hi)) return PO_NOBIN;
        volatile double width = hi - lo; /* volatile: each operation rounded on its own */
        volatile double scale = (double)nbins / width;
        volatile double d = x - lo;
        volatile double t = d * scale;
        return t < (double)nbins ? (uint32_t)floor(t) : (uint32_t)(nbins - 1);
    }
    const long long x = (long long)xv, l = (long long)lo, h = (long long)hi;
    if (x < l || x >= h) return PO_NOBIN;
    return (uint32_t)(((unsigned __int128)(uint64_t)(x - l) * nbins) / (uint64_t)(h - l));
}

uint32_t po_hist_range_bin(long double xv, const double *e, size_t nbins)
{
    const double x = (double)xv;
    if (!(x >= e[0] && x < e[nbins])) return PO_NOBIN;
    size_t lo = 0, hi = nbins; /* e[lo] <= x < e[hi] */
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (e[mid] <= x) lo = mid;
        else hi = mid;
    }
    return (uint32_t)lo;
}

void po_hist_counts(const void *in, pp_dtype st, size_t n, size_t nbins, double lo, double hi, const double *edges,
                    uint32_t *counts)
{
    memset(counts, 0, nbins * sizeof *counts);
    for (size_t i = 0; i < n; ++i) {
        const long double x = po_value(in, i, st);
        const uint32_t b = edges ? po_hist_range_bin(x, edges, nbins) : po_hist_even_bin(x, st, nbins, lo, hi);
        if (b != PO_NOBIN) counts[b]++;
    }
}

/* ---- compaction (issue 19) ---- */

/* -1, 0, 1, or 2 when unordered (a NaN), of element x against the constant c. */
static int cmp_const(const void *a, size_t i, pp_dtype t, const pp_scalar *c)
{
    const uint64_t b = po_bits(a, i, t);
    if (t == PP_F32 || t == PP_F64) {
        const double x = t == PP_F32 ? (double)f32_of(b) : f64_of(b);
        const double y = t == PP_F32 ? (double)c->f32 : c->f64;
        if (x != x || y != y) return 2;
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (t == PP_I32 || t == PP_I64) {
        const int64_t x = t == PP_I32 ? (int64_t)(int32_t)(uint32_t)b : (int64_t)b;
        const int64_t y = t == PP_I32 ? (int64_t)c->i32 : c->i64;
        return x < y ? -1 : x > y ? 1 : 0;
    }
    const uint64_t y = t == PP_U8 ? c->u8 : t == PP_U32 ? c->u32 : c->u64;
    return b < y ? -1 : b > y ? 1 : 0;
}

int po_pred_holds(const pp_predicate *p, const void *a, size_t i, pp_dtype t)
{
    pp_scalar zero;
    memset(&zero, 0, sizeof zero);
    const int ca = cmp_const(a, i, t, &p->a);
    switch (p->kind) {
    case PP_PRED_LT: return ca == -1;
    case PP_PRED_LE: return ca == -1 || ca == 0;
    case PP_PRED_GT: return ca == 1;
    case PP_PRED_GE: return ca == 1 || ca == 0;
    case PP_PRED_EQ: return ca == 0;
    case PP_PRED_NE: return ca != 0;
    case PP_PRED_INSIDE: {
        const int cb = cmp_const(a, i, t, &p->b);
        return (ca == 0 || ca == 1) && cb == -1;
    }
    case PP_PRED_OUTSIDE: {
        const int cb = cmp_const(a, i, t, &p->b);
        return ca == -1 || cb == 0 || cb == 1;
    }
    case PP_PRED_ISNAN: return (t == PP_F32 || t == PP_F64) && cmp_const(a, i, t, &zero) == 2;
    case PP_PRED_NOTNAN: return !((t == PP_F32 || t == PP_F64) && cmp_const(a, i, t, &zero) == 2);
    case PP_PRED_NONZERO: return cmp_const(a, i, t, &zero) != 0;
    }
    return 0;
}

int po_same_key(const void *a, size_t i, size_t j, pp_dtype t)
{
    const uint64_t x = po_bits(a, i, t), y = po_bits(a, j, t);
    if (t == PP_F32) {
        const float fx = f32_of(x), fy = f32_of(y);
        return (fx != fx && fy != fy) || fx == fy;
    }
    if (t == PP_F64) {
        const double fx = f64_of(x), fy = f64_of(y);
        return (fx != fx && fy != fy) || fx == fy;
    }
    return x == y;
}

static void copy_elem(void *dst, size_t di, const void *src, size_t si, size_t size)
{
    memcpy((char *)dst + di * size, (const char *)src + si * size, size);
}

uint64_t po_compact(po_compact_op op, const void *in, size_t n, pp_dtype t, const uint8_t *flags,
                    const pp_predicate *pred, const void *payload, size_t psize, void *out, void *pout, uint64_t *aux)
{
    const size_t es = po_size(t);
    uint64_t c = 0;
    for (size_t i = 0; i < n; ++i) {
        int keep;
        if (op == PO_UNIQUE || op == PO_RLE) keep = i == 0 || !po_same_key(in, i, i - 1, t);
        else keep = pred ? po_pred_holds(pred, in, i, t) : flags[i] != 0;
        if (!keep) continue;
        if (op == PO_WHERE) aux[c] = i;
        else copy_elem(out, c, in, i, es);
        if (payload) copy_elem(pout, c, payload, i, psize);
        if (op == PO_RLE) {
            if (c > 0) aux[c - 1] = i - aux[c - 1];
            aux[c] = i; /* the start, until the next head */
        }
        ++c;
    }
    if (op == PO_RLE && c > 0) aux[c - 1] = n - aux[c - 1];
    if (op == PO_PARTITION) {
        uint64_t r = c;
        for (size_t i = 0; i < n; ++i) {
            if (pred ? po_pred_holds(pred, in, i, t) : flags[i] != 0) continue;
            copy_elem(out, r, in, i, es);
            if (payload) copy_elem(pout, r, payload, i, psize);
            ++r;
        }
    }
    return c;
}

/* ---- radix sort (issue 20) ---- */

/* The sort order's comparison of keys i and j: < 0, 0, > 0 (ascending). */
struct po_sort_cmp {
    const void *keys;
    pp_dtype t;
    int ranged;       /* compare bit fields of the unsigned form */
    int shift;
    uint64_t mask;
};

static int po_cmp_keys(const struct po_sort_cmp *c, size_t i, size_t j)
{
    const pp_dtype t = c->t;
    const uint64_t a = po_bits(c->keys, i, t), b = po_bits(c->keys, j, t);
    if (c->ranged) {
        if (c->mask == 0) return 0; /* an empty range: every key equal (and no shift by 64) */
        const uint64_t sign = (t == PP_I32) ? 0x80000000ull : (t == PP_I64) ? 0x8000000000000000ull : 0;
        const uint64_t fa = ((a ^ sign) >> c->shift) & c->mask, fb = ((b ^ sign) >> c->shift) & c->mask;
        return fa < fb ? -1 : fa > fb;
    }
    switch (t) {
    case PP_F32: {
        float x, y;
        uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
        memcpy(&x, &ua, 4);
        memcpy(&y, &ub, 4);
        const int nx = x != x, ny = y != y;
        if (nx || ny) return nx - ny;
        return x < y ? -1 : x > y; /* -0.0 == +0.0 */
    }
    case PP_F64: {
        double x, y;
        memcpy(&x, &a, 8);
        memcpy(&y, &b, 8);
        const int nx = x != x, ny = y != y;
        if (nx || ny) return nx - ny;
        return x < y ? -1 : x > y;
    }
    case PP_I32: {
        const int32_t x = (int32_t)(uint32_t)a, y = (int32_t)(uint32_t)b;
        return x < y ? -1 : x > y;
    }
    case PP_I64: {
        const int64_t x = (int64_t)a, y = (int64_t)b;
        return x < y ? -1 : x > y;
    }
    default: return a < b ? -1 : a > b;
    }
}

int po_sort_cmp(const void *keys, size_t i, size_t j, pp_dtype t)
{
    const struct po_sort_cmp c = {keys, t, 0, 0, 0};
    return po_cmp_keys(&c, i, j);
}

int po_sort_perm(const void *keys, size_t n, pp_dtype t, int descending, int begin_bit, int end_bit, uint64_t *perm)
{
    struct po_sort_cmp c = {keys, t, 0, 0, 0};
    const int width = (int)(8 * po_size(t));
    if (begin_bit != 0 || end_bit != 0) {
        const int end = end_bit == 0 ? width : end_bit;
        c.ranged = 1;
        c.shift = begin_bit;
        c.mask = end - begin_bit >= 64 ? ~0ull : ((1ull << (end - begin_bit)) - 1);
    }
    for (size_t i = 0; i < n; ++i) perm[i] = i;
    if (n < 2) return 0;
    uint64_t *tmp = (uint64_t *)malloc(n * sizeof *tmp);
    if (!tmp) return -1;
    /* Bottom-up merge sort: stable (the left run wins ties). */
    uint64_t *src = perm, *dst = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            const size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                int r = po_cmp_keys(&c, src[j], src[i]);
                if (descending) r = -r;
                dst[k++] = r < 0 ? src[j++] : src[i++];
            }
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        uint64_t *x = src;
        src = dst;
        dst = x;
    }
    if (src != perm) memcpy(perm, src, n * sizeof *perm);
    free(tmp);
    return 0;
}

int po_sort_check(const void *keys_in, const void *keys_out, size_t n, pp_dtype t, const void *values_in,
                  const void *values_out, size_t vsize, const uint64_t *perm, char *why, size_t why_size)
{
    const size_t ks = po_size(t);
    for (size_t j = 0; j < n; ++j) {
        if (keys_out && memcmp((const char *)keys_out + j * ks, (const char *)keys_in + perm[j] * ks, ks) != 0) {
            snprintf(why, why_size, "keys_out[%zu] = 0x%llx, want keys_in[%llu] = 0x%llx", j,
                     (unsigned long long)po_bits(keys_out, j, t), (unsigned long long)perm[j],
                     (unsigned long long)po_bits(keys_in, perm[j], t));
            return 0;
        }
        if (!values_out) continue;
        const unsigned char *got = (const unsigned char *)values_out + j * vsize;
        if (values_in) {
            if (memcmp(got, (const unsigned char *)values_in + perm[j] * vsize, vsize) != 0) {
                snprintf(why, why_size, "values_out[%zu] is not values_in[%llu] (the value of keys_in[%llu])", j,
                         (unsigned long long)perm[j], (unsigned long long)perm[j]);
                return 0;
            }
        } else {
            uint64_t idx = 0;
            if (vsize == 4) {
                uint32_t v;
                memcpy(&v, got, 4);
                idx = v;
            } else {
                memcpy(&idx, got, 8);
            }
            if (idx != perm[j]) {
                snprintf(why, why_size, "indices[%zu] = %llu, want %llu", j, (unsigned long long)idx,
                         (unsigned long long)perm[j]);
                return 0;
            }
        }
    }
    return 1;
}
