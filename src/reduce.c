/* reduce.c -- argument checks and dispatch of the reduce family (pp_reduce, pp_argmin,
 * pp_argmax, pp_segmented_reduce). */
#include "internal.h"

pp_status pp__check_op_types(pp_context *ctx, const char *fn, pp_dtype in_type, pp_op op,
                             pp_dtype out_type)
{
    if (!pp__dtype_valid(in_type))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in_type' has unknown value %d",
                        fn, (int)in_type);
    if (!pp__op_valid(op))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'op' has unknown value %d", fn,
                        (int)op);
    if (!pp__op_defined(op, in_type))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'op' (%s) is not defined for in_type %s (bitwise ops take integers)",
                        fn, pp_op_name(op), pp_dtype_name(in_type));
    if (!pp__dtype_valid(out_type))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out_type' has unknown value %d",
                        fn, (int)out_type);
    if (!pp__reduce_out_allowed(op, in_type, out_type))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'out_type' (%s) is not allowed for %s over %s (only a sum may "
                        "widen: u8->u32/u64, i32->i64, u32->u64, f32->f64)",
                        fn, pp_dtype_name(out_type), pp_op_name(op), pp_dtype_name(in_type));
    return PP_OK;
}

static pp_status check_space_arg(pp_context *ctx, const char *fn, pp_result_space space)
{
    if (space != PP_RESULT_CONTEXT && space != PP_RESULT_HOST)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'space' has unknown value %d", fn,
                        (int)space);
    return PP_OK;
}

pp_status pp_reduce(pp_context *ctx, const void *in, size_t n, pp_dtype in_type, pp_op op, void *out,
                    pp_dtype out_type, pp_result_space space)
{
    static const char fn[] = "pp_reduce";
    if (!ctx) return PP_ERROR_INVALID_ARGUMENT;
    ctx->message[0] = '\0';
    PP_TRY(pp__check_op_types(ctx, fn, in_type, op, out_type));
    PP_TRY(check_space_arg(ctx, fn, space));
    if (!in && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in' is NULL with n = %zu", fn, n);
    if (!out) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", fn);
    if (n > 0) PP_TRY(pp__check_in_space(ctx, fn, "in", in));
    if (space == PP_RESULT_CONTEXT) PP_TRY(pp__check_in_space(ctx, fn, "out", out));
    if (!ctx->ops->reduce)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no reduce", fn, ctx->ops->name);
    pp_reduce_args a = {in, n, in_type, op, out, out_type, space};
    return ctx->ops->reduce(ctx, &a);
}

static pp_status argreduce(pp_context *ctx, const char *fn, const void *in, size_t n, pp_dtype dtype,
                           pp_op op, void *value, uint64_t *index, pp_result_space space)
{
    if (!ctx) return PP_ERROR_INVALID_ARGUMENT;
    ctx->message[0] = '\0';
    if (!pp__dtype_valid(dtype))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'dtype' has unknown value %d", fn,
                        (int)dtype);
    PP_TRY(check_space_arg(ctx, fn, space));
    if (!in && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in' is NULL with n = %zu", fn, n);
    if (!value) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'value' is NULL", fn);
    if (!index) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'index' is NULL", fn);
    if (n > 0) PP_TRY(pp__check_in_space(ctx, fn, "in", in));
    if (space == PP_RESULT_CONTEXT) {
        PP_TRY(pp__check_in_space(ctx, fn, "value", value));
        PP_TRY(pp__check_in_space(ctx, fn, "index", index));
    }
    if (!ctx->ops->argreduce)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no argmin/argmax", fn,
                        ctx->ops->name);
    pp_argreduce_args a = {in, n, dtype, op, value, index, space};
    return ctx->ops->argreduce(ctx, &a);
}

pp_status pp_argmin(pp_context *ctx, const void *in, size_t n, pp_dtype dtype, void *value,
                    uint64_t *index, pp_result_space space)
{
    return argreduce(ctx, "pp_argmin", in, n, dtype, PP_OP_MIN, value, index, space);
}

pp_status pp_argmax(pp_context *ctx, const void *in, size_t n, pp_dtype dtype, void *value,
                    uint64_t *index, pp_result_space space)
{
    return argreduce(ctx, "pp_argmax", in, n, dtype, PP_OP_MAX, value, index, space);
}

pp_status pp_segmented_reduce(pp_context *ctx, const void *in, size_t n, pp_dtype in_type,
                              const size_t *offsets, size_t n_segments, pp_op op, void *out,
                              pp_dtype out_type)
{
    static const char fn[] = "pp_segmented_reduce";
    if (!ctx) return PP_ERROR_INVALID_ARGUMENT;
    ctx->message[0] = '\0';
    PP_TRY(pp__check_op_types(ctx, fn, in_type, op, out_type));
    if (n_segments == 0) return PP_OK;
    if (!in && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in' is NULL with n = %zu", fn, n);
    if (!offsets)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'offsets' is NULL with n_segments = %zu", fn, n_segments);
    if (!out)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' is NULL with n_segments = %zu",
                        fn, n_segments);
    if (n_segments == SIZE_MAX)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'n_segments' is SIZE_MAX (offsets would need SIZE_MAX + 1 entries)", fn);
    if (n > 0) PP_TRY(pp__check_in_space(ctx, fn, "in", in));
    PP_TRY(pp__check_in_space(ctx, fn, "offsets", offsets));
    PP_TRY(pp__check_in_space(ctx, fn, "out", out));
    if (!ctx->ops->segmented_reduce)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no segmented reduce", fn,
                        ctx->ops->name);
    pp_segreduce_args a = {in, n, in_type, offsets, n_segments, op, out, out_type};
    return ctx->ops->segmented_reduce(ctx, &a);
}
