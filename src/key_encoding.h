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

#endif
