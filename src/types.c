/* types.c -- dtype and op facts shared by the checks of every primitive. */
#include "internal.h"

int pp__dtype_valid(pp_dtype t) { return t >= PP_U8 && t <= PP_F64; }

int pp__dtype_is_float(pp_dtype t) { return t == PP_F32 || t == PP_F64; }

int pp__dtype_is_signed(pp_dtype t) { return t == PP_I32 || t == PP_I64 || pp__dtype_is_float(t); }

size_t pp_dtype_size(pp_dtype t)
{
    switch (t) {
    case PP_U8: return 1;
    case PP_I32: case PP_U32: case PP_F32: return 4;
    case PP_I64: case PP_U64: case PP_F64: return 8;
    }
    return 0;
}

const char *pp_dtype_name(pp_dtype t)
{
    static const char *const names[] = {NULL, "u8", "i32", "u32", "i64", "u64", "f32", "f64"};
    return pp__dtype_valid(t) ? names[t] : NULL;
}

int pp__op_valid(pp_op op) { return op >= PP_OP_SUM && op <= PP_OP_XOR; }

const char *pp_op_name(pp_op op)
{
    static const char *const names[] = {NULL, "sum", "prod", "min", "max", "and", "or", "xor"};
    return pp__op_valid(op) ? names[op] : NULL;
}

int pp__op_defined(pp_op op, pp_dtype t)
{
    if (!pp__op_valid(op) || !pp__dtype_valid(t)) return 0;
    if (op == PP_OP_AND || op == PP_OP_OR || op == PP_OP_XOR) return !pp__dtype_is_float(t);
    return 1;
}

int pp__reduce_out_allowed(pp_op op, pp_dtype in, pp_dtype out)
{
    if (in == out) return 1;
    if (op != PP_OP_SUM) return 0;
    return (in == PP_U8 && (out == PP_U32 || out == PP_U64)) || (in == PP_I32 && out == PP_I64) ||
           (in == PP_U32 && out == PP_U64) || (in == PP_F32 && out == PP_F64);
}
