/*
 * type_pairs.h -- the one list of the (input, result) dtype pairs that reductions and scans
 * accept, for src/ (checks), cpu/ (dispatch rows) and hip/ (template dispatch). Plain C
 * X-macros, usable from C and C++.
 *
 * PP_FOR_EACH_SAME(X, A)     X(A, IN, OUT, in_c, out_c) for the 7 pairs with OUT == IN (every
 *                            op that is defined for the dtype: bitwise ops on integers only);
 *                            A is passed through unchanged (a macro name, a variable, ...).
 * PP_FOR_EACH_WIDENING(X, A) the 5 widening pairs, allowed for PP_OP_SUM only:
 *                            u8 -> u32, u8 -> u64, i32 -> i64, u32 -> u64, f32 -> f64.
 * PP_FOR_EACH_IN_OUT(X, A)   both lists.
 */
#ifndef PARPRIM_TYPE_PAIRS_H
#define PARPRIM_TYPE_PAIRS_H

#define PP_FOR_EACH_SAME(X, A)                \
    X(A, PP_U8, PP_U8, uint8_t, uint8_t)      \
    X(A, PP_I32, PP_I32, int32_t, int32_t)    \
    X(A, PP_U32, PP_U32, uint32_t, uint32_t)  \
    X(A, PP_I64, PP_I64, int64_t, int64_t)    \
    X(A, PP_U64, PP_U64, uint64_t, uint64_t)  \
    X(A, PP_F32, PP_F32, float, float)        \
    X(A, PP_F64, PP_F64, double, double)

#define PP_FOR_EACH_WIDENING(X, A)            \
    X(A, PP_U8, PP_U32, uint8_t, uint32_t)    \
    X(A, PP_U8, PP_U64, uint8_t, uint64_t)    \
    X(A, PP_I32, PP_I64, int32_t, int64_t)    \
    X(A, PP_U32, PP_U64, uint32_t, uint64_t)  \
    X(A, PP_F32, PP_F64, float, double)

#define PP_FOR_EACH_IN_OUT(X, A) PP_FOR_EACH_SAME(X, A) PP_FOR_EACH_WIDENING(X, A)

#endif
