/* reduce.c -- argument checks and dispatch of the reduce family (pp_reduce, pp_argmin,
 * pp_argmax, pp_segmented_reduce). */
#include "internal.h"

pp_status pp__check_op_types(pp_context *ctx, const char *fn, pp_dtype in_type, pp_op op,
                             pp_dtype out_type)
{
    PP_TRY(pp__check_dtype(ctx, fn, "in_type", in_type, PP_DT_ALL));
    if (!pp__op_valid(op))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'op' has unknown value %d", fn,
                        (int)op);
    if (!pp__op_defined(op, in_type))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'op' (%s) is not defined for in_type %s (bitwise ops take integers)",
                        fn, pp_op_name(op), pp_dtype_name(in_type));
    PP_TRY(pp__check_dtype(ctx, fn, "out_type", out_type, PP_DT_ALL));
    if (!pp__reduce_out_allowed(op, in_type, out_type)) {
        char widenings[128];
        pp__widenings_text(widenings, sizeof widenings);
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'out_type' (%s) is not allowed for %s over %s (only a sum may "
                        "widen: %s)",
                        fn, pp_dtype_name(out_type), pp_op_name(op), pp_dtype_name(in_type), widenings);
    }
    return PP_OK;
}

static pp_status check_space_arg(pp_context *ctx, const char *fn, pp_result_space space)
{
    if (space != PP_RESULT_CONTEXT && space != PP_RESULT_HOST)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'space' has unknown value %d", fn,
                        (int)space);
    return PP_OK;
}

/* A scalar result of `size` bytes: in the context's space (space and extent checked) or in
 * host memory. */
static pp_status check_result(pp_context *ctx, const char *fn, const char *arg, void *p, size_t size,
                              pp_result_space space)
{
    if (!p) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", fn, arg);
    if (space == PP_RESULT_CONTEXT) return pp__check_array(ctx, fn, arg, p, 1, size, arg);
    return PP_OK;
}

pp_status pp_reduce(pp_context *ctx, const void *in, size_t n, pp_dtype in_type, pp_op op, void *out,
                    pp_dtype out_type, pp_result_space space)
{
    static const char fn[] = "pp_reduce";
    PP_ENTER(ctx);
    PP_TRY(pp__check_op_types(ctx, fn, in_type, op, out_type));
    PP_TRY(check_space_arg(ctx, fn, space));
    if (!in && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in' is NULL with n = %zu", fn, n);
    PP_TRY(check_result(ctx, fn, "out", out, pp_dtype_size(out_type), space));
    PP_TRY(pp__check_array(ctx, fn, "in", in, n, pp_dtype_size(in_type), "n"));
    if (!ctx->ops->reduce)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no reduce", fn, ctx->ops->name);
    pp_reduce_args a = {in, n, in_type, op, out, out_type, space};
    return ctx->ops->reduce(ctx, &a);
}

static pp_status argreduce(pp_context *ctx, const char *fn, const void *in, size_t n, pp_dtype dtype,
                           pp_op op, void *value, uint64_t *index, pp_result_space space)
{
    PP_ENTER(ctx);
    PP_TRY(pp__check_dtype(ctx, fn, "dtype", dtype, PP_DT_ALL));
    PP_TRY(check_space_arg(ctx, fn, space));
    if (!in && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in' is NULL with n = %zu", fn, n);
    PP_TRY(check_result(ctx, fn, "value", value, pp_dtype_size(dtype), space));
    PP_TRY(check_result(ctx, fn, "index", index, sizeof *index, space));
    PP_TRY(pp__check_array(ctx, fn, "in", in, n, pp_dtype_size(dtype), "n"));
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

pp_status pp__check_offsets(pp_context *ctx, const char *fn, const size_t *offsets, size_t n_segments)
{
    if (n_segments == 0) return PP_OK;
    if (!offsets)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'offsets' is NULL with n_segments = %zu",
                        fn, n_segments);
    if (n_segments == SIZE_MAX)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'n_segments' is SIZE_MAX (offsets would need SIZE_MAX + 1 entries)", fn);
    return pp__check_array(ctx, fn, "offsets", offsets, n_segments + 1, sizeof *offsets, "n_segments");
}

pp_status pp_segmented_reduce(pp_context *ctx, const void *in, size_t n, pp_dtype in_type,
                              const size_t *offsets, size_t n_segments, pp_op op, void *out,
                              pp_dtype out_type)
{
    static const char fn[] = "pp_segmented_reduce";
    PP_ENTER(ctx);
    PP_TRY(pp__check_op_types(ctx, fn, in_type, op, out_type));
    if (!in && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in' is NULL with n = %zu", fn, n);
    PP_TRY(pp__check_offsets(ctx, fn, offsets, n_segments));
    if (!out && n_segments > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' is NULL with n_segments = %zu",
                        fn, n_segments);
    PP_TRY(pp__check_array(ctx, fn, "in", in, n, pp_dtype_size(in_type), "n"));
    PP_TRY(pp__check_array(ctx, fn, "out", out, n_segments, pp_dtype_size(out_type), "n_segments"));
    if (n_segments == 0) return PP_OK;
    if (!ctx->ops->segmented_reduce)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no segmented reduce", fn,
                        ctx->ops->name);
    pp_segreduce_args a = {in, n, in_type, offsets, n_segments, op, out, out_type};
    return ctx->ops->segmented_reduce(ctx, &a);
}
