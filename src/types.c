/* types.c -- dtype and op facts shared by the checks of every primitive. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "type_pairs.h"

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
#define PP_WIDENS(unused, I, O, ci, co) if (in == I && out == O) return 1;
    PP_FOR_EACH_WIDENING(PP_WIDENS, ~)
#undef PP_WIDENS
    return 0;
}

pp_status pp__check_dtype(pp_context *ctx, const char *fn, const char *arg, pp_dtype t, unsigned allowed)
{
    if (!pp__dtype_valid(t))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' has unknown value %d", fn, arg, (int)t);
    if (allowed & PP_DT(t)) return PP_OK;
    char set[64] = "";
    size_t len = 0;
    for (int d = PP_U8; d <= PP_F64; ++d)
        if (allowed & PP_DT(d))
            len += (size_t)snprintf(set + len, sizeof set - len, "%s%s", len ? ", " : "", pp_dtype_name((pp_dtype)d));
    return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is %s; it must be one of %s", fn, arg,
                    pp_dtype_name(t), set);
}

void pp__widenings_text(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
#define PP_WIDENING_TEXT(unused, I, O, ci, co)                                                          \
    if (len < size)                                                                                   \
        len += (size_t)snprintf(buf + len, size - len, "%s%s->%s", len ? ", " : "", pp_dtype_name(I), \
                                pp_dtype_name(O));
    PP_FOR_EACH_WIDENING(PP_WIDENING_TEXT, ~)
#undef PP_WIDENING_TEXT
}

void pp__identity(pp_op op, pp_dtype t, void *out)
{
    /* 0 for sum/or/xor, 1 for prod, all ones for and, the type's extreme for min/max. */
    uint8_t u8;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    switch (op) {
    case PP_OP_PROD: u8 = 1; i32 = 1; u32 = 1; i64 = 1; u64 = 1; f32 = 1.0f; f64 = 1.0; break;
    case PP_OP_MIN:
        u8 = UINT8_MAX; i32 = INT32_MAX; u32 = UINT32_MAX; i64 = INT64_MAX; u64 = UINT64_MAX;
        f32 = INFINITY; f64 = INFINITY;
        break;
    case PP_OP_MAX:
        u8 = 0; i32 = INT32_MIN; u32 = 0; i64 = INT64_MIN; u64 = 0; f32 = -INFINITY; f64 = -INFINITY;
        break;
    case PP_OP_AND: u8 = UINT8_MAX; i32 = -1; u32 = UINT32_MAX; i64 = -1; u64 = UINT64_MAX; f32 = 0; f64 = 0; break;
    default: u8 = 0; i32 = 0; u32 = 0; i64 = 0; u64 = 0; f32 = 0.0f; f64 = 0.0; break;
    }
    switch (t) {
    case PP_U8: memcpy(out, &u8, 1); break;
    case PP_I32: memcpy(out, &i32, 4); break;
    case PP_U32: memcpy(out, &u32, 4); break;
    case PP_I64: memcpy(out, &i64, 8); break;
    case PP_U64: memcpy(out, &u64, 8); break;
    case PP_F32: memcpy(out, &f32, 4); break;
    case PP_F64: memcpy(out, &f64, 8); break;
    }
}
