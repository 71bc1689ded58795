/*
 * compaction_keep.h -- which elements the compaction family keeps, written once for every
 * backend (the CPU's gcc, the HIP kernels on AMD and NVIDIA), so that the selections are
 * bitwise the same everywhere: a compiled predicate (pp_keep_pred, from src/compaction.c)
 * evaluated on an element's bits, and the equality of pp_unique / pp_run_length_encode.
 *
 * An element travels as its zero-extended bits (uint64_t) with its width (1, 4 or 8 bytes)
 * and its encoding (PP_ENC_*). Compares go through order-preserving keys (key_encoding.h)
 * of the value with -0.0 folded onto +0.0 (IEEE: they are equal), so every compare of
 * parprim.h's predicates is a key range [lo, hi], possibly inverted; a NaN's answer is
 * carried on its own (nan_val), as IEEE's compares with a NaN do not follow any order.
 * Not installed; plain C11, no library calls.
 */
#ifndef PARPRIM_COMPACTION_KEEP_H
#define PARPRIM_COMPACTION_KEEP_H

#include <stdint.h>

#include "internal.h"
#include "key_encoding.h"

/* How an element's bits are read. */
enum { PP_ENC_UNSIGNED = 0, PP_ENC_SIGNED = 1, PP_ENC_FLOAT = 2 };

/* Whether bits (width 4: f32, 8: f64) are a NaN. */
PP_HD int pp_bits_isnan(uint64_t bits, int width)
{
    if (width == 4) return (bits & 0x7FFFFFFFull) > 0x7F800000ull;
    return (bits & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
}

/* The compare key of a value that is not a NaN: unsigned order = the value's order, with
 * -0.0 and +0.0 on one key. */
PP_HD uint64_t pp_cmp_key(uint64_t bits, int width, int enc)
{
    if (enc == PP_ENC_FLOAT) {
        if (width == 4) {
            uint32_t b = (uint32_t)bits;
            if ((b & 0x7FFFFFFFu) == 0) b = 0;
            return pp_key_u32_of_f32(b, 1);
        }
        if ((bits & 0x7FFFFFFFFFFFFFFFull) == 0) bits = 0;
        return pp_key_u64_of_f64(bits, 1);
    }
    if (enc == PP_ENC_SIGNED) return width == 4 ? pp_key_u32_of_i32((uint32_t)bits) : pp_key_u64_of_i64(bits);
    return bits;
}

/* The largest key of a width. */
PP_HD uint64_t pp_key_max(int width)
{
    return width == 8 ? ~0ull : width == 4 ? 0xFFFFFFFFull : 0xFFull;
}

/* Whether the compiled predicate p keeps the element with these bits. */
PP_HD int pp_keep_eval(const pp_keep_pred *p, uint64_t bits, int width, int enc)
{
    if (enc == PP_ENC_FLOAT && pp_bits_isnan(bits, width)) return (int)p->nan_val;
    const uint64_t k = pp_cmp_key(bits, width, enc);
    return (int)((uint32_t)(k >= p->lo && k <= p->hi) ^ p->invert);
}

/* The same for 4-byte elements in 32-bit arithmetic (every key and bound of width 4 fits),
 * written with selects only, so that a loop over elements vectorizes (the CPU backend's). */
PP_HD uint32_t pp_keep_eval32(uint32_t lo, uint32_t hi, uint32_t invert, uint32_t nan_val, uint32_t bits, int enc)
{
    uint32_t k = bits;
    if (enc == PP_ENC_SIGNED) k = bits ^ 0x80000000u;
    if (enc == PP_ENC_FLOAT) {
        const uint32_t z = (bits & 0x7FFFFFFFu) == 0 ? 0u : bits; /* -0.0 -> +0.0 */
        k = (z & 0x80000000u) ? ~z : z ^ 0x80000000u;
    }
    const uint32_t in = (uint32_t)((k >= lo) & (k <= hi)) ^ invert;
    return enc == PP_ENC_FLOAT && (bits & 0x7FFFFFFFu) > 0x7F800000u ? nan_val : in;
}

/* A predicate on 4-byte elements prepared once per call so that each element costs a few
 * integer operations (the GPU kernels' form; pp_keep_eval32 folds -0.0 and tests for a NaN
 * per element instead). The key of the bits b is b ^ m(b), m = (sign(b) ? fmask : 0) | smask:
 * float keys without the -0.0 fold (-0.0 has key 0x7FFFFFFF, +0.0 0x80000000, nothing else
 * has either), so the bounds take the fold instead: a range starting at +0.0 starts at -0.0,
 * one ending just below +0.0 ends just below -0.0. The bounds are clamped to the keys of
 * -inf .. +inf, so a NaN is never inside and gets `invert`; where the NaN answer differs from
 * that (is NaN, != NaN, outside a range), nanfix flips it. Bitwise the same answers as
 * pp_keep_eval for width 4 (tests/test_compaction.c checks it). */
typedef struct pp_keep32 {
    uint32_t fmask, smask; /* the key's mask: sign-dependent part, constant part */
    uint32_t lo, hi;       /* kept when lo <= key <= hi, ... */
    uint32_t invert;       /* ... or when not, with invert; */
    uint32_t nanfix;       /* 1: a NaN's answer is !invert */
} pp_keep32;

PP_HD pp_keep32 pp_keep32_of(const pp_keep_pred *p, int enc)
{
    pp_keep32 q;
    const int empty = p->lo > p->hi;
    q.fmask = enc == PP_ENC_FLOAT ? 0xFFFFFFFFu : 0u;
    q.smask = enc == PP_ENC_UNSIGNED ? 0u : 0x80000000u;
    q.lo = empty ? 1u : (uint32_t)p->lo;
    q.hi = empty ? 0u : (uint32_t)p->hi;
    q.invert = p->invert;
    q.nanfix = 0;
    if (enc == PP_ENC_FLOAT) {
        if (q.lo < 0x007FFFFFu) q.lo = 0x007FFFFFu; /* key(-inf) */
        if (q.hi > 0xFF800000u) q.hi = 0xFF800000u; /* key(+inf) */
        if (q.lo == 0x80000000u) q.lo = 0x7FFFFFFFu; /* from +0.0: from -0.0 */
        if (q.hi == 0x7FFFFFFFu) q.hi = 0x7FFFFFFEu; /* below +0.0: below -0.0 */
        q.nanfix = p->nan_val != p->invert;
    }
    return q;
}

/* Whether the prepared predicate keeps the 4-byte element with bits b (0 or 1). */
PP_HD uint32_t pp_keep32_eval(const pp_keep32 *q, uint32_t b)
{
    const uint32_t k = b ^ (((0u - (b >> 31)) & q->fmask) | q->smask);
    uint32_t in = (uint32_t)((k >= q->lo) & (k <= q->hi)) ^ q->invert;
    if (q->nanfix) in ^= (uint32_t)((b & 0x7FFFFFFFu) > 0x7F800000u);
    return in;
}

/* Whether two elements are duplicates for pp_unique: equal bits for integers; for floats
 * numerically equal (-0.0 == +0.0) or both NaN. */
PP_HD int pp_same_key(uint64_t a, uint64_t b, int width, int enc)
{
    if (enc != PP_ENC_FLOAT) return a == b;
    const int na = pp_bits_isnan(a, width), nb = pp_bits_isnan(b, width);
    if (na || nb) return na && nb;
    return pp_cmp_key(a, width, enc) == pp_cmp_key(b, width, enc);
}

/* pp_same_key for elements of at most 4 bytes in 32-bit arithmetic, selects only (a loop over
 * elements vectorizes; the CPU backend's). */
PP_HD uint32_t pp_same_key32(uint32_t a, uint32_t b, int enc)
{
    if (enc != PP_ENC_FLOAT) return a == b;
    const uint32_t na = (a & 0x7FFFFFFFu) > 0x7F800000u, nb = (b & 0x7FFFFFFFu) > 0x7F800000u;
    const uint32_t za = (a & 0x7FFFFFFFu) == 0 ? 0u : a, zb = (b & 0x7FFFFFFFu) == 0 ? 0u : b;
    return (na & nb) | ((na | nb) == 0 && za == zb);
}

#endif
