/*
 * reduce_float.h -- the reduce kernels of one float type (cpu/reduce.c): sum and prod in
 * the ordered chunk kernel (ORD_LANES lanes, unrolled), min and max by the loop-vectorized
 * select (a 128-byte row, sticky NaN), argmin / argmax. Included once per type with TN (the
 * name prefix: in_out, e.g. f32_f32) and T; both #undef'd at the end.
 */
#define LANES ORD_LANES
#define CHUNK ORD_CHUNK
#define LANE_LOOP "GCC unroll 64"
#define IN T
#define NAME CPU_CAT(TN, _sum)
#define A T
#define OP OP_SUM
#define IDENT 0
#include "reduce_impl.h"
#define IN T
#define NAME CPU_CAT(TN, _prod)
#define A T
#define OP OP_PROD
#define IDENT 1
#include "reduce_impl.h"
#undef LANES
#undef CHUNK
#undef LANE_LOOP
#define LANES (128 / sizeof(T))
#define CHUNK FLAT_CHUNK
#define LANE_LOOP "GCC unroll 1"
#define IN T
#define NAME CPU_CAT(TN, _min)
#define A T
#define OP OP_FMIN
#define IDENT (T)INFINITY
#include "reduce_impl.h"
#define IN T
#define NAME CPU_CAT(TN, _max)
#define A T
#define OP OP_FMAX
#define IDENT -(T)INFINITY
#include "reduce_impl.h"
#undef LANES
#undef CHUNK
#undef LANE_LOOP
#define NAME CPU_CAT(TN, _argmin)
#define BLOCK_EXTREME CPU_CAT(TN, _min_base)
#define IS_NAN IS_NAN_FLOAT
#define BETTER LESS
#define IDENT (T)INFINITY
#include "reduce_arg_impl.h"
#define NAME CPU_CAT(TN, _argmax)
#define BLOCK_EXTREME CPU_CAT(TN, _max_base)
#define IS_NAN IS_NAN_FLOAT
#define BETTER GREATER
#define IDENT -(T)INFINITY
#include "reduce_arg_impl.h"
#undef TN
#undef T
