/* sat.c -- argument checks and dispatch of the 2-D family (issue 21): pp_transpose,
 * pp_axis_scan and pp_summed_area_table. The scans and the table go to the backend's
 * `grid_scan` entry with a pp_grid_args, the transpose to `transpose`. */
#include <string.h>

#include "internal.h"

/* A rows x cols matrix of `esize`-byte elements with row pitch `pitch` (elements), named
 * `arg` / `pitch_arg`: the pitch is at least the row, rows * cols and the extent
 * ((rows - 1) * pitch + cols elements, times `batch` matrices of rows * pitch) fit size_t,
 * and the array check (address space, allocation, memory space). *bytes: the extent. */
static pp_status check_matrix(pp_context *ctx, const char *fn, const char *arg, const void *p, size_t rows,
                              size_t cols, size_t pitch, const char *pitch_arg, size_t esize, size_t batch,
                              size_t *bytes)
{
    *bytes = 0;
    if (rows == 0 || cols == 0 || batch == 0) return PP_OK;
    if (!p)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is NULL with a %zu x %zu matrix", fn,
                        arg, rows, cols);
    if (pitch < cols)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument '%s' (%zu) is smaller than the row of '%s' (%zu elements)", fn, pitch_arg,
                        pitch, arg, cols);
    if (rows > SIZE_MAX / cols)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: arguments 'rows' x 'cols' (%zu x %zu) overflow size_t",
                        fn, rows, cols);
    /* elements from the first to one past the last: ((batch * rows) - 1) * pitch + cols */
    const size_t all_rows = rows > SIZE_MAX / batch ? SIZE_MAX : rows * batch;
    if (all_rows == SIZE_MAX || (all_rows - 1) > (SIZE_MAX - cols) / pitch)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: the extent of '%s' (%zu rows of pitch %zu%s) overflows size_t (arguments 'rows', "
                        "'cols')",
                        fn, arg, all_rows, pitch, batch > 1 ? ", all matrices of the batch" : "");
    const size_t count = (all_rows - 1) * pitch + cols;
    PP_TRY(pp__check_array(ctx, fn, arg, p, count, esize, "rows, cols and the pitch"));
    *bytes = count * esize;
    return PP_OK;
}

pp_status pp_transpose(pp_context *ctx, const void *in, size_t rows, size_t cols, size_t in_pitch, void *out,
                       size_t out_pitch, pp_dtype dtype, size_t batch)
{
    static const char fn[] = "pp_transpose";
    PP_ENTER(ctx);
    PP_TRY(pp__check_dtype(ctx, fn, "dtype", dtype, PP_DT_ALL));
    const size_t es = pp_dtype_size(dtype);
    size_t ib, ob;
    PP_TRY(check_matrix(ctx, fn, "in", in, rows, cols, in_pitch, "in_pitch", es, batch, &ib));
    PP_TRY(check_matrix(ctx, fn, "out", out, cols, rows, out_pitch, "out_pitch", es, batch, &ob));
    if (pp__overlaps(out, ob, in, ib))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' overlaps 'in' (out of place only)", fn);
    if (!ctx->ops->transpose)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no transpose", fn, ctx->ops->name);
    if (rows == 0 || cols == 0 || batch == 0) return PP_OK;
    pp_transpose_args a;
    memset(&a, 0, sizeof a);
    a.in = in;
    a.rows = rows;
    a.cols = cols;
    a.in_pitch = in_pitch;
    a.out = out;
    a.out_pitch = out_pitch;
    a.esize = es;
    a.batch = batch;
    return ctx->ops->transpose(ctx, &a);
}

pp_status pp_axis_scan(pp_context *ctx, const void *in, size_t rows, size_t cols, size_t in_pitch, pp_dtype in_type,
                       pp_axis axis, pp_op op, pp_scan_kind kind, const void *init, void *out, size_t out_pitch,
                       pp_dtype out_type)
{
    static const char fn[] = "pp_axis_scan";
    PP_ENTER(ctx);
    PP_TRY(pp__check_op_types(ctx, fn, in_type, op, out_type));
    if (axis != PP_AXIS_ROWS && axis != PP_AXIS_COLS)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'axis' has unknown value %d", fn, (int)axis);
    if (kind != PP_SCAN_INCLUSIVE && kind != PP_SCAN_EXCLUSIVE)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'kind' has unknown value %d", fn, (int)kind);
    if (kind == PP_SCAN_INCLUSIVE && init)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'init' must be NULL for an inclusive scan (it has no initial value)", fn);
    const size_t isz = pp_dtype_size(in_type), osz = pp_dtype_size(out_type);
    size_t ib, ob;
    PP_TRY(check_matrix(ctx, fn, "in", in, rows, cols, in_pitch, "in_pitch", isz, 1, &ib));
    PP_TRY(check_matrix(ctx, fn, "out", out, rows, cols, out_pitch, "out_pitch", osz, 1, &ob));
    if (pp__overlaps(out, ob, in, ib))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' overlaps 'in' (out of place only)", fn);
    if (!ctx->ops->grid_scan)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no axis scan", fn, ctx->ops->name);
    if (rows == 0 || cols == 0) return PP_OK;
    pp_grid_args a;
    memset(&a, 0, sizeof a);
    a.kind = axis == PP_AXIS_ROWS ? PP_GRID_SCAN_ROWS : PP_GRID_SCAN_COLS;
    a.in = in;
    a.rows = rows;
    a.cols = cols;
    a.in_pitch = in_pitch;
    a.in_type = in_type;
    a.op = op;
    a.exclusive = kind == PP_SCAN_EXCLUSIVE;
    if (init) memcpy(a.init, init, osz);
    else pp__identity(op, out_type, a.init);
    a.out = out;
    a.out_pitch = out_pitch;
    a.out_type = out_type;
    return ctx->ops->grid_scan(ctx, &a);
}

/* The (in, out) pairs of the table. */
static int sat_pair_ok(pp_dtype in, pp_dtype out)
{
    return (in == PP_U8 && (out == PP_U32 || out == PP_U64)) || (in == PP_I32 && out == PP_I64) ||
           (in == PP_U32 && out == PP_U64) || (in == PP_F32 && (out == PP_F32 || out == PP_F64)) ||
           (in == PP_F64 && out == PP_F64);
}

pp_status pp_summed_area_table(pp_context *ctx, const void *in, size_t rows, size_t cols, size_t in_pitch,
                               pp_dtype in_type, void *out, size_t out_pitch, pp_dtype out_type, pp_sat_form form)
{
    static const char fn[] = "pp_summed_area_table";
    PP_ENTER(ctx);
    PP_TRY(pp__check_dtype(ctx, fn, "in_type", in_type,
                           PP_DT(PP_U8) | PP_DT(PP_I32) | PP_DT(PP_U32) | PP_DT(PP_F32) | PP_DT(PP_F64)));
    PP_TRY(pp__check_dtype(ctx, fn, "out_type", out_type,
                           PP_DT(PP_U32) | PP_DT(PP_U64) | PP_DT(PP_I64) | PP_DT(PP_F32) | PP_DT(PP_F64)));
    if (!sat_pair_ok(in_type, out_type))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'out_type' %s is not allowed for in_type %s (the pairs: u8->u32, u8->u64, "
                        "i32->i64, u32->u64, f32->f32, f32->f64, f64->f64)",
                        fn, pp_dtype_name(out_type), pp_dtype_name(in_type));
    if (form != PP_SAT_INCLUSIVE && form != PP_SAT_INTEGRAL)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'form' has unknown value %d", fn, (int)form);
    const int integral = form == PP_SAT_INTEGRAL;
    const size_t isz = pp_dtype_size(in_type), osz = pp_dtype_size(out_type);
    size_t ib, ob;
    PP_TRY(check_matrix(ctx, fn, "in", in, rows, cols, in_pitch, "in_pitch", isz, 1, &ib));
    if (integral) {
        if (rows == SIZE_MAX || cols == SIZE_MAX)
            return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                            "%s: arguments 'rows' / 'cols' (%zu x %zu): the integral image's (rows + 1) x (cols + 1) "
                            "overflows",
                            fn, rows, cols);
        PP_TRY(check_matrix(ctx, fn, "out", out, rows + 1, cols + 1, out_pitch, "out_pitch", osz, 1, &ob));
    } else {
        PP_TRY(check_matrix(ctx, fn, "out", out, rows, cols, out_pitch, "out_pitch", osz, 1, &ob));
    }
    if (pp__overlaps(out, ob, in, ib))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' overlaps 'in' (out of place only)", fn);
    if (!ctx->ops->grid_scan || !ctx->ops->mem_set)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no summed-area table", fn, ctx->ops->name);
    if (rows == 0 || cols == 0) {
        if (!integral) return PP_OK;
        /* the border alone: (rows + 1) x (cols + 1) zeros, a row or a column of them */
        for (size_t r = 0; r <= rows; ++r)
            PP_TRY(ctx->ops->mem_set(ctx, (char *)out + r * out_pitch * osz, 0, (cols + 1) * osz));
        return PP_OK;
    }
    pp_grid_args a;
    memset(&a, 0, sizeof a);
    a.kind = PP_GRID_SAT;
    a.in = in;
    a.rows = rows;
    a.cols = cols;
    a.in_pitch = in_pitch;
    a.in_type = in_type;
    a.op = PP_OP_SUM;
    a.out = integral ? (char *)out + (out_pitch + 1) * osz : out;
    a.out_pitch = out_pitch;
    a.out_type = out_type;
    a.integral = integral;
    return ctx->ops->grid_scan(ctx, &a);
}
