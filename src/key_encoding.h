/*
 * key_encoding.h -- order-preserving encodings of numbers as unsigned integers: x < y (in the
 * order parprim.h gives: numeric, -0.0 below +0.0, NaN beyond every number) exactly when
 * key(x) < key(y) as unsigned integers. One unsigned min / max (an atomic one on the GPU)
 * then implements MIN / MAX for every type (reduce-by-index), and the keys are what a radix
 * sort ranks. A NaN's key is the smallest for MIN (is_max 0) and the largest for MAX
 * (is_max 1); decode(encode(x)) == x except that a NaN comes back as one fixed NaN.
 *
 * Not installed. Plain C11 with no library calls, written once for every backend: the CPU
 * backend (gcc), the HIP kernels on AMD (clang) and on NVIDIA (nvcc, host and device).
 * Functions take and return the bits (the caller reinterprets the float), so no backend needs
 * a type pun here.
 */
#ifndef PARPRIM_KEY_ENCODING_H
#define PARPRIM_KEY_ENCODING_H

#include <stdint.h>

/* A function of this header and of histogram_bins.h: host and device code, one copy per
 * translation unit. */
#ifndef PP_HD
#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__HIP__)
#define PP_HD static __host__ __device__ __forceinline__
#else
#define PP_HD static inline
#endif
#endif

/* Floats: a negative number's bits inverted (larger magnitude, smaller key), a positive
 * number's sign bit set (above every negative one). */
PP_HD uint32_t pp_key_u32_of_f32(uint32_t bits, int is_max)
{
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return is_max ? 0xFFFFFFFFu : 0u; /* NaN */
    return (bits & 0x80000000u) ? ~bits : bits ^ 0x80000000u;
}
PP_HD uint32_t pp_f32_of_key_u32(uint32_t key)
{
    return (key & 0x80000000u) ? key ^ 0x80000000u : ~key;
}
PP_HD uint64_t pp_key_u64_of_f64(uint64_t bits, int is_max)
{
    if ((bits & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull) return is_max ? ~0ull : 0ull;
    return (bits & 0x8000000000000000ull) ? ~bits : bits ^ 0x8000000000000000ull;
}
PP_HD uint64_t pp_f64_of_key_u64(uint64_t key)
{
    return (key & 0x8000000000000000ull) ? key ^ 0x8000000000000000ull : ~key;
}
/* Signed integers: flip the sign bit (its own inverse). Unsigned integers are their key. */
PP_HD uint32_t pp_key_u32_of_i32(uint32_t bits) { return bits ^ 0x80000000u; }
PP_HD uint64_t pp_key_u64_of_i64(uint64_t bits) { return bits ^ 0x8000000000000000ull; }

/* ---- sort keys (issue 20) ----
 * The order of parprim.h's sort family: like the keys above, except that -0.0 and +0.0 are one
 * key (the key of +0.0) and every NaN, whatever its sign and payload, is the largest key, so
 * that both are equal keys and a stable sort keeps their input order. `kind` is
 * PP_SORT_KIND_*; `flip` is 0 (ascending) or all ones of the key's width (descending: the
 * complement reverses the order and keeps ties as they are). u8 keys go through the 32-bit form
 * (unsigned, flip 0xFF). The sort moves the input's bits; only digits come from the key.
 * Float keys: 2^(w-1) + |x| from +-0.0 up, 2^(w-1) - |x| below (|x| is the bits less the
 * sign: -0.0 and +0.0 both 2^(w-1), without a test of their own), all ones for a NaN; made
 * as (bits ^ (s | 2^(w-1))) - s with s the sign's mask (all ones below zero: ~bits + 1). Float
 * keys take no bit range, so only the order of these numbers matters (the form before, ~bits
 * below zero, was one below these and cost three instructions more a key on sm_90: f32 keys
 * at 2^28 7.746 -> 7.531 ms, H100, 2026-11-27, commit 7f314ce, same process). */
enum { PP_SORT_KIND_UNSIGNED = 0, PP_SORT_KIND_SIGNED = 1, PP_SORT_KIND_FLOAT = 2 };

PP_HD uint32_t pp_sort_key_u32(uint32_t bits, int kind, uint32_t flip)
{
    if (kind == PP_SORT_KIND_FLOAT) {
        const uint32_t s = 0u - (bits >> 31);
        return ((bits & 0x7FFFFFFFu) > 0x7F800000u ? 0xFFFFFFFFu : (bits ^ (s | 0x80000000u)) - s) ^ flip;
    }
    return (kind == PP_SORT_KIND_SIGNED ? bits ^ 0x80000000u : bits) ^ flip;
}
PP_HD uint64_t pp_sort_key_u64(uint64_t bits, int kind, uint64_t flip)
{
    if (kind == PP_SORT_KIND_FLOAT) {
        const uint64_t s = 0ull - (bits >> 63);
        return ((bits & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull ? ~0ull : (bits ^ (s | 0x8000000000000000ull)) - s) ^ flip;
    }
    return (kind == PP_SORT_KIND_SIGNED ? bits ^ 0x8000000000000000ull : bits) ^ flip;
}

#endif
