/* histogram.c -- argument checks and dispatch of the histogram family (pp_histogram_even,
 * pp_histogram_range, pp_reduce_by_index), and the bin parameters of even histograms, computed
 * here once for every backend (histogram_bins.h uses them). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "histogram_bins.h"

#define TRY PP_TRY

#define SAMPLE_TYPES (PP_DT(PP_U8) | PP_DT(PP_I32) | PP_DT(PP_U32) | PP_DT(PP_F32) | PP_DT(PP_F64))
#define COUNT_TYPES (PP_DT(PP_U32) | PP_DT(PP_U64))
#define VALUE_TYPES (PP_DT_ALL & ~PP_DT(PP_U8))

/* Checks shared by pp_histogram_even and pp_histogram_range (everything but the bins), the
 * scalar arguments; check_arrays then checks the arrays' extents (after the bins' own scalar
 * checks, so that a bad 'lower' is named as such, not as a 'counts' too short for its nbins). */
static pp_status check_common(pp_context *ctx, const char *fn, const void *samples, size_t n,
                              pp_dtype sample_type, size_t nbins, const void *counts, pp_dtype count_type)
{
    TRY(pp__check_dtype(ctx, fn, "sample_type", sample_type, SAMPLE_TYPES));
    TRY(pp__check_dtype(ctx, fn, "count_type", count_type, COUNT_TYPES));
    if (nbins == 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'nbins' is 0 (at least one bin)", fn);
    if (nbins > PP_HISTOGRAM_MAX_BINS)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'nbins' is %zu, above PP_HISTOGRAM_MAX_BINS (%zu)",
                        fn, nbins, (size_t)PP_HISTOGRAM_MAX_BINS);
    if (!samples && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'samples' is NULL with n = %zu", fn, n);
    if (!counts) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'counts' is NULL", fn);
    return PP_OK;
}

static pp_status check_arrays(pp_context *ctx, const char *fn, const void *samples, size_t n,
                              pp_dtype sample_type, size_t nbins, const void *counts, pp_dtype count_type)
{
    TRY(pp__check_array(ctx, fn, "samples", samples, n, pp_dtype_size(sample_type), "n"));
    return pp__check_array(ctx, fn, "counts", counts, nbins, pp_dtype_size(count_type), "nbins");
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* libdivide's branch-free unsigned 64-bit divider for d >= 2: floor(n / d) ==
 * ((((n - hi) >> 1) + hi) >> shift) with hi = mulhi(magic, n), for every 64-bit n. */
static void divider_u64(uint64_t d, uint64_t *magic, uint32_t *shift)
{
    uint32_t l = 63;
    while (!((d >> l) & 1)) --l; /* floor(log2 d), l >= 1 */
    if ((d & (d - 1)) == 0) {
        *magic = 0;
        *shift = l - 1;
        return;
    }
    const unsigned __int128 num = (unsigned __int128)1 << (64 + l);
    uint64_t m = (uint64_t)(num / d); /* < 2^64 since 2^l < d */
    const uint64_t rem = (uint64_t)(num % d);
    m += m; /* the 65-bit multiplier 2 m + (2 rem >= d), minus 2^64 */
    const uint64_t twice_rem = rem + rem;
    if (twice_rem >= d || twice_rem < rem) m += 1;
    *magic = m + 1;
    *shift = l;
}

#define TWO53 9007199254740992.0

/* Bin parameters of pp_histogram_even, or a failure naming 'lower' or 'upper'. */
static pp_status even_params(pp_context *ctx, const char *fn, pp_dtype t, size_t nbins, double lower,
                             double upper, pp_hist_even *p)
{
    p->nbins = (uint32_t)nbins;
    p->lower = lower;
    p->upper = upper;
    if (!isfinite(lower))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'lower' is %g (must be finite)", fn, lower);
    if (!isfinite(upper))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'upper' is %g (must be finite)", fn, upper);
    if (!(lower < upper))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'lower' (%.17g) is not below argument 'upper' (%.17g)", fn, lower, upper);
    if (t == PP_F32 || t == PP_F64) {
        const double width = upper - lower;
        if (!isfinite(width))
            return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                            "%s: arguments 'lower' and 'upper' are too far apart (upper - lower overflows)", fn);
        p->flower = pp_hist_ceil_to_float(lower);
        p->fupper = pp_hist_ceil_to_float(upper);
        p->scale = (double)nbins / width;
        if (!isfinite(p->scale) || !(p->scale > 0))
            return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                            "%s: arguments 'lower' and 'upper' are too close for %zu bins (nbins / (upper - "
                            "lower) overflows)",
                            fn, nbins);
        pp_hist_f32_params(p);
        return PP_OK;
    }
    /* Integer samples: exact arithmetic on whole-number bounds. */
    if (lower != floor(lower) || lower < -TWO53 || lower > TWO53)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'lower' is %.17g; with %s samples it must be a whole number in [-2^53, 2^53]",
                        fn, lower, pp_dtype_name(t));
    if (upper != floor(upper) || upper < -TWO53 || upper > TWO53)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'upper' is %.17g; with %s samples it must be a whole number in [-2^53, 2^53]",
                        fn, upper, pp_dtype_name(t));
    p->ilower = (int64_t)lower;
    p->iupper = (int64_t)upper;
    const uint64_t width = (uint64_t)(p->iupper - p->ilower); /* <= 2^54 */
    if ((unsigned __int128)width * nbins > ((unsigned __int128)1 << 64))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: arguments 'lower' and 'upper' span %llu, and (upper - lower) * nbins = %llu * %zu "
                        "exceeds 2^64 (integer samples are binned exactly in 64 bits)",
                        fn, (unsigned long long)width, (unsigned long long)width, nbins);
    const uint64_t g = gcd_u64(width, (uint64_t)nbins);
    p->mul = (uint64_t)nbins / g;
    p->div = width / g;
    p->div_is_one = p->div == 1;
    p->magic = 0;
    p->shift = 0;
    if (!p->div_is_one) divider_u64(p->div, &p->magic, &p->shift);
    return PP_OK;
}

static pp_status call_histogram(pp_context *ctx, const char *fn, const pp_histogram_args *a)
{
    if (!ctx->ops->histogram)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no histogram", fn, ctx->ops->name);
    return ctx->ops->histogram(ctx, a);
}

/* The arguments both histogram entry points share (kind-specific fields left zero). */
static pp_histogram_args hist_args(pp_hist_kind kind, const void *samples, size_t n, pp_dtype sample_type,
                                   size_t nbins, void *counts, pp_dtype count_type)
{
    pp_histogram_args a = {0};
    a.kind = kind;
    a.samples = samples;
    a.n = n;
    a.sample_type = sample_type;
    a.nbins = nbins;
    a.counts = counts;
    a.count_type = count_type;
    return a;
}

pp_status pp_histogram_even(pp_context *ctx, const void *samples, size_t n, pp_dtype sample_type, size_t nbins,
                            double lower, double upper, void *counts, pp_dtype count_type)
{
    static const char fn[] = "pp_histogram_even";
    PP_ENTER(ctx);
    TRY(check_common(ctx, fn, samples, n, sample_type, nbins, counts, count_type));
    pp_histogram_args a = hist_args(PP_HIST_EVEN, samples, n, sample_type, nbins, counts, count_type);
    TRY(even_params(ctx, fn, sample_type, nbins, lower, upper, &a.even));
    TRY(check_arrays(ctx, fn, samples, n, sample_type, nbins, counts, count_type));
    return call_histogram(ctx, fn, &a);
}

pp_status pp_histogram_range(pp_context *ctx, const void *samples, size_t n, pp_dtype sample_type,
                             const double *edges, size_t nbins, void *counts, pp_dtype count_type)
{
    static const char fn[] = "pp_histogram_range";
    PP_ENTER(ctx);
    TRY(check_common(ctx, fn, samples, n, sample_type, nbins, counts, count_type));
    if (!edges) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'edges' is NULL", fn);
    TRY(check_arrays(ctx, fn, samples, n, sample_type, nbins, counts, count_type));
    TRY(pp__check_array(ctx, fn, "edges", edges, nbins + 1, sizeof *edges, "nbins"));
    pp_histogram_args a = hist_args(PP_HIST_RANGE, samples, n, sample_type, nbins, counts, count_type);
    a.edges = edges;
    a.even.nbins = (uint32_t)nbins;
    /* The edges' order is checked by the backend: on the host by the CPU backend, on the device
     * (before counting) by the HIP backend. */
    return call_histogram(ctx, fn, &a);
}

pp_status pp_reduce_by_index(pp_context *ctx, const void *values, size_t n, pp_dtype value_type,
                             const uint32_t *indices, pp_op op, void *out, size_t n_out, uint64_t *n_skipped)
{
    static const char fn[] = "pp_reduce_by_index";
    PP_ENTER(ctx);
    TRY(pp__check_dtype(ctx, fn, "value_type", value_type, VALUE_TYPES));
    if (!pp__op_valid(op))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'op' has unknown value %d", fn, (int)op);
    if (op != PP_OP_SUM && op != PP_OP_MIN && op != PP_OP_MAX)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'op' is %s; reduce-by-index takes sum, min or max", fn, pp_op_name(op));
    if (!values && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'values' is NULL with n = %zu", fn, n);
    if (!indices && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'indices' is NULL with n = %zu", fn, n);
    if (!out && n_out > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' is NULL with n_out = %zu", fn, n_out);
    TRY(pp__check_array(ctx, fn, "values", values, n, pp_dtype_size(value_type), "n"));
    TRY(pp__check_array(ctx, fn, "indices", indices, n, sizeof *indices, "n"));
    TRY(pp__check_array(ctx, fn, "out", out, n_out, pp_dtype_size(value_type), "n_out"));
    TRY(pp__check_array(ctx, fn, "n_skipped", n_skipped, n_skipped ? 1 : 0, sizeof *n_skipped, "n_skipped"));
    if (!ctx->ops->reduce_by_index)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no reduce-by-index", fn, ctx->ops->name);
    /* Indices are 32-bit: outputs past 2^32 can never be reached. */
    const size_t reach = n_out > (size_t)UINT32_MAX + 1 ? (size_t)UINT32_MAX + 1 : n_out;
    pp_reduce_by_index_args a = {values, n, value_type, indices, op, out, reach, n_skipped};
    return ctx->ops->reduce_by_index(ctx, &a);
}
