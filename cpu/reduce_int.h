/*
 * reduce_int.h -- the reduce kernels of one integer input type (cpu/reduce.c): every op and
 * argmin / argmax, through reduce_impl.h and reduce_arg_impl.h. Included once per type with
 * TN (the name prefix: in_out, e.g. i32_i32), T, U (the unsigned type of T's width: sums,
 * products and bitwise ops accumulate in it, wrapping), TMIN, TMAX, and the row of the lane
 * loop: ROW_BYTES (LANES = ROW_BYTES / sizeof(A)) and ROW_LOOP (its pragma); all #undef'd at
 * the end.
 */
#define IN T
#define LANES (ROW_BYTES / sizeof(A))
#define CHUNK FLAT_CHUNK
#define LANE_LOOP ROW_LOOP
#define NAME CPU_CAT(TN, _sum)
#define A U
#define OP OP_SUM
#define IDENT 0
#include "reduce_impl.h"
#define IN T
#define NAME CPU_CAT(TN, _prod)
#define A U
#define OP OP_PROD
#define IDENT 1
#include "reduce_impl.h"
#define IN T
#define NAME CPU_CAT(TN, _min)
#define A T
#define OP OP_IMIN
#define IDENT TMAX
#include "reduce_impl.h"
#define IN T
#define NAME CPU_CAT(TN, _max)
#define A T
#define OP OP_IMAX
#define IDENT TMIN
#include "reduce_impl.h"
#define IN T
#define NAME CPU_CAT(TN, _and)
#define A U
#define OP OP_AND
#define IDENT (U)~(U)0
#include "reduce_impl.h"
#define IN T
#define NAME CPU_CAT(TN, _or)
#define A U
#define OP OP_OR
#define IDENT 0
#include "reduce_impl.h"
#define IN T
#define NAME CPU_CAT(TN, _xor)
#define A U
#define OP OP_XOR
#define IDENT 0
#include "reduce_impl.h"
#undef LANES
#undef CHUNK
#undef LANE_LOOP
#define NAME CPU_CAT(TN, _argmin)
#define BLOCK_EXTREME CPU_CAT(TN, _min_base)
#define IS_NAN IS_NAN_NONE
#define BETTER LESS
#define IDENT TMAX
#include "reduce_arg_impl.h"
#define NAME CPU_CAT(TN, _argmax)
#define BLOCK_EXTREME CPU_CAT(TN, _max_base)
#define IS_NAN IS_NAN_NONE
#define BETTER GREATER
#define IDENT TMIN
#include "reduce_arg_impl.h"
#undef TN
#undef T
#undef U
#undef TMIN
#undef TMAX
#undef ROW_BYTES
#undef ROW_LOOP
