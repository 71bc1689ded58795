/*
 * histogram_bins.h -- the arithmetic that decides a histogram sample's bin and orders the
 * min / max of reduce-by-index, written once and compiled by every backend: the CPU backend
 * (C, gcc), the HIP kernels on AMD (clang) and on NVIDIA (nvcc, host and device). Counts are
 * bitwise identical across backends because every backend calls these functions; parprim.h
 * states the definitions, this file is their only implementation.
 *
 * Not installed. Plain C11 with no library calls, usable from C++ and from device code; on the
 * device, include it after hip/port.h (it uses __umul64hi and, on NVIDIA, __dmul_rn).
 */
#ifndef PARPRIM_HISTOGRAM_BINS_H
#define PARPRIM_HISTOGRAM_BINS_H

#include <stdint.h>

#include "internal.h"
#include "key_encoding.h" /* PP_HD (host and device functions); the keys of reduce-by-index MIN / MAX */

/* "In no bin": larger than every bin (nbins <= 2^31). */
#define PP_HIST_NOBIN 0xFFFFFFFFu

/* pp_hist_even (internal.h) holds the parameters of even bins, computed once by
 * src/histogram.c. Float samples: (x - lower) * scale cannot be contracted into a fused
 * multiply-add (the multiplication comes second), so plain C and device code round
 * identically; on NVIDIA the intrinsics __dsub_rn / __dmul_rn make the rounding explicit
 * anyway. Integer samples: the division by the invariant div is exact for every 64-bit
 * numerator (libdivide's branch-free algorithm; magic and shift from src/histogram.c). */

/* High 64 bits of a 64 x 64-bit product. */
PP_HD uint64_t pp_mulhi64(uint64_t a, uint64_t b)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return __umul64hi(a, b);
#else
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* floor(n / p->div), exact for every n. */
PP_HD uint64_t pp_hist_divide(uint64_t n, const pp_hist_even *p)
{
    if (p->div_is_one) return n;
    const uint64_t q = pp_mulhi64(p->magic, n);
    return (((n - q) >> 1) + q) >> p->shift;
}

/* Bin of a float sample (converted to double exactly), or PP_HIST_NOBIN. Branch-free, so the
 * CPU backend's loop over a block of samples vectorizes: the t of a sample outside [lower,
 * upper) is replaced by 0 before the conversion, and min(t, nbins - 1) has the same floor as
 * the definition's "t < nbins ? floor(t) : nbins - 1", so the conversion always sees a value in
 * [0, nbins - 1] (exact truncation; int32 since nbins <= 2^31, the conversion SSE2 vectorizes). */
PP_HD uint32_t pp_hist_bin_float(double x, const pp_hist_even *p)
{
    const int in = (x >= p->lower) & (x < p->upper); /* NaN fails both */
#if defined(__CUDA_ARCH__)
    /* The same bin in fewer instructions (NVIDIA, where FP64 adds run at half the FP32 rate
     * and conversions at a sixteenth): in range, 0 <= t < 2^32, so t + 2^52 rounded down is
     * 2^52 + floor(t) (the ulp there is 1) and its low word is floor(t); one DADD instead
     * of the F2I conversion, and the clamp to nbins - 1 in integers. Outside the range t may
     * be anything (inf, NaN): the result is discarded. */
    const double t = __dmul_rn(__dsub_rn(x, p->lower), p->scale);
    const uint32_t fl = (uint32_t)__double2loint(__dadd_rd(t, 4503599627370496.0 /* 2^52 */));
    const uint32_t top = p->nbins - 1;
    return in ? (fl < top ? fl : top) : PP_HIST_NOBIN;
#else
    double t = (x - p->lower) * p->scale;
    const double top = (double)(p->nbins - 1);
    t = in ? t : 0.0;
    t = t < top ? t : top;
    const uint32_t b = (uint32_t)(int32_t)t;
    return in ? b : PP_HIST_NOBIN;
#endif
}

/* The least float >= x (x finite): -FLT_MAX below it, +inf above FLT_MAX (flower / fupper). */
PP_HD float pp_hist_ceil_to_float(double x)
{
    union {
        float f;
        uint32_t u;
    } c;
    c.f = (float)x;
    if ((double)c.f < x) /* the next float up (no libm): one ulp along the bits */
        c.u = (c.u & 0x80000000u) ? c.u - 1 : c.u + 1; /* -0.0 cannot occur: x would be below it */
    return c.f;
}

/*
 * Parameters of pp_hist_bin_f32 (below), set by src/histogram.c from the others: the bin of an f32 sample x from float
 * arithmetic, tf = x * fscale + foff (fused or not), wherever tf is farther than ferr from every
 * integer. The bound, with u = 2^-24 and M = max(|lower|, |upper|), for x in [lower, upper):
 * fscale and foff carry relative errors <= u (foff also the double product's 2^-53), the
 * product and the sum (or the fused operation) add <= u |x| scale and <= u (nbins + 1), and
 * the definition's own t (two double roundings) lies within 2^-52 (2 M scale + nbins) of the
 * exact (x - lower) scale; so |tf - t| <= 3u (M scale + nbins + 1) < ferr = 4u (M scale + nbins + 1).
 * Float underflow adds at most 2^-149 per operation, far below ferr >= 4u. Used only where ferr
 * < 1/8 (nbins up to about 2^19 for a range around zero) and every float is finite and normal.
 */
PP_HD void pp_hist_f32_params(pp_hist_even *p)
{
    p->f32_fast = 0;
    p->fscale = p->foff = p->ferr = 0.0f;
    const double al = p->lower < 0 ? -p->lower : p->lower, au = p->upper < 0 ? -p->upper : p->upper;
    const double M = al > au ? al : au;
    const double s = p->scale, off = -p->lower * p->scale;
    if (!(s >= 0x1p-100 && s <= 0x1p100 && M * s <= 0x1p100 && off <= 0x1p100 && off >= -0x1p100)) return;
    const double err = 4 * 0x1p-24 * (M * s + (double)p->nbins + 1);
    if (!(err < 0.125)) return;
    p->fscale = (float)s;
    p->foff = (float)off;
    p->ferr = (float)(err * (1 + 0x1p-20)); /* rounded to float: never below err */
    p->f32_fast = 1;
}

/*
 * Bin of an f32 sample, the same as pp_hist_bin_float((double)x, p), mostly in float arithmetic:
 * the scalar form of the CPU backend's vector loop for f32 samples (cpu/histogram.c, twice the
 * lanes per vector of doubles). (Measured on the H100 and not used there: FP64 adds run at half
 * the FP32 rate, and the fallback's divergence cost more than the floats saved.)
 * The range test is exact on the float (flower / fupper). In range, tf estimates the
 * definition's t within ferr (pp_hist_f32_params above proves the bound); where tf is more than ferr
 * from every integer, floor(t) = floor(tf) (t >= 0 in range, so truncation is the floor). A
 * tf within ferr of an integer (about 2 ferr of the samples, 2.5e-4 for 256 bins over [-1, 1))
 * takes the double definition.
 */
PP_HD uint32_t pp_hist_bin_f32(float x, const pp_hist_even *p)
{
    const int in = (x >= p->flower) & (x < p->fupper); /* NaN fails both */
    if (!p->f32_fast) return pp_hist_bin_float((double)x, p);
    float t = x * p->fscale + p->foff;
    t = in ? t : 0.0f; /* out of range: any finite value (the conversion below stays defined) */
    const int32_t b = (int32_t)t; /* |t| <= nbins + 1 < 2^20 */
    const float frac = t - (float)b; /* exact; negative for t in (-1, 0) */
    if (!in) return PP_HIST_NOBIN;
    if (frac > p->ferr && frac < 1.0f - p->ferr) {
        const uint32_t top = p->nbins - 1;
        return (uint32_t)b < top ? (uint32_t)b : top;
    }
    return pp_hist_bin_float((double)x, p);
}

/* Bin of an integer sample, or PP_HIST_NOBIN. */
PP_HD uint32_t pp_hist_bin_int(int64_t x, const pp_hist_even *p)
{
    if (x < p->ilower || x >= p->iupper) return PP_HIST_NOBIN;
    return (uint32_t)pp_hist_divide((uint64_t)(x - p->ilower) * p->mul, p);
}

/*
 * Bin from edges: the last k in [0, len) with e[k] <= x, for x with e[0] <= x < e[len]
 * (the caller checks that range). Binary lifting from `step` = the largest power of two
 * <= len (or any larger power of two); the edges are non-decreasing, so the predicate
 * e[k] <= x holds on a prefix and the answer is unique.
 */
PP_HD uint32_t pp_hist_search(const double *e, uint32_t len, uint32_t step, double x)
{
    uint32_t k = 0;
    for (; step; step >>= 1)
        if (k + step < len && e[k + step] <= x) k += step;
    return k;
}

/* The largest power of two <= v (v >= 1). */
PP_HD uint32_t pp_hist_pow2_floor(uint32_t v)
{
    uint32_t p = 1;
    while (p <= v / 2) p *= 2;
    return p;
}

#endif
