/* scan.c -- argument checks and dispatch of the scan family (pp_inclusive_scan,
 * pp_exclusive_scan, pp_segmented_scan_flags, pp_segmented_scan_offsets). Every form goes
 * to the backend's one `scan` entry with a pp_scan_args. */
#include <string.h>

#include "internal.h"

/* The common part of every scan: types, pointers, overlap, spaces, init. `a` is filled. */
static pp_status check_scan(pp_context *ctx, const char *fn, const void *in, size_t n, pp_dtype in_type,
                            pp_op op, int kind, const void *init, void *out, pp_dtype out_type,
                            const uint8_t *head_flags, pp_scan_args *a)
{
    PP_TRY(pp__check_op_types(ctx, fn, in_type, op, out_type));
    if (kind != PP_SCAN_INCLUSIVE && kind != PP_SCAN_EXCLUSIVE)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'kind' has unknown value %d", fn, kind);
    if (kind == PP_SCAN_INCLUSIVE && init)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'init' must be NULL for an inclusive scan (it has no initial value)", fn);
    if (!in && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'in' is NULL with n = %zu", fn, n);
    if (!out && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' is NULL with n = %zu", fn, n);
    size_t isz = pp_dtype_size(in_type), osz = pp_dtype_size(out_type);
    PP_TRY(pp__check_array(ctx, fn, "in", in, n, isz, "n"));
    PP_TRY(pp__check_array(ctx, fn, "out", out, n, osz, "n"));
    if (n > 0 && !(out == in && isz == osz) && pp__overlaps(out, n * osz, in, n * isz))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'out' overlaps 'in' (only out == in with equal element sizes is "
                        "allowed)",
                        fn);
    if (n > 0 && head_flags && pp__overlaps(out, n * osz, head_flags, n))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' overlaps 'head_flags'", fn);
    if (!ctx->ops->scan)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no scan", fn, ctx->ops->name);
    memset(a, 0, sizeof *a);
    a->in = in;
    a->n = n;
    a->in_type = in_type;
    a->op = op;
    a->exclusive = kind == PP_SCAN_EXCLUSIVE;
    if (init)
        memcpy(a->init, init, osz);
    else
        pp__identity(op, out_type, a->init);
    a->out = out;
    a->out_type = out_type;
    return PP_OK;
}

/* The unsegmented scans: checks, nothing to do for n == 0, one call through the table. */
static pp_status plain_scan(pp_context *ctx, const char *fn, const void *in, size_t n, pp_dtype in_type, pp_op op,
                            int kind, const void *init, void *out, pp_dtype out_type)
{
    PP_ENTER(ctx);
    pp_scan_args a;
    PP_TRY(check_scan(ctx, fn, in, n, in_type, op, kind, init, out, out_type, NULL, &a));
    if (n == 0) return PP_OK;
    return ctx->ops->scan(ctx, &a);
}

pp_status pp_inclusive_scan(pp_context *ctx, const void *in, size_t n, pp_dtype in_type, pp_op op, void *out,
                            pp_dtype out_type)
{
    return plain_scan(ctx, "pp_inclusive_scan", in, n, in_type, op, PP_SCAN_INCLUSIVE, NULL, out, out_type);
}

pp_status pp_exclusive_scan(pp_context *ctx, const void *in, size_t n, pp_dtype in_type, pp_op op,
                            const void *init, void *out, pp_dtype out_type)
{
    return plain_scan(ctx, "pp_exclusive_scan", in, n, in_type, op, PP_SCAN_EXCLUSIVE, init, out, out_type);
}

pp_status pp_segmented_scan_flags(pp_context *ctx, const void *in, size_t n, pp_dtype in_type,
                                  const uint8_t *head_flags, pp_op op, pp_scan_kind kind, const void *init,
                                  void *out, pp_dtype out_type)
{
    static const char fn[] = "pp_segmented_scan_flags";
    PP_ENTER(ctx);
    if (!head_flags && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'head_flags' is NULL with n = %zu", fn,
                        n);
    PP_TRY(pp__check_array(ctx, fn, "head_flags", head_flags, n, 1, "n"));
    pp_scan_args a;
    PP_TRY(check_scan(ctx, fn, in, n, in_type, op, (int)kind, init, out, out_type, head_flags, &a));
    if (n == 0) return PP_OK;
    a.head_flags = head_flags;
    return ctx->ops->scan(ctx, &a);
}

pp_status pp_segmented_scan_offsets(pp_context *ctx, const void *in, size_t n, pp_dtype in_type,
                                    const size_t *offsets, size_t n_segments, pp_op op, pp_scan_kind kind,
                                    const void *init, void *out, pp_dtype out_type)
{
    static const char fn[] = "pp_segmented_scan_offsets";
    PP_ENTER(ctx);
    PP_TRY(pp__check_offsets(ctx, fn, offsets, n_segments));
    pp_scan_args a;
    PP_TRY(check_scan(ctx, fn, in, n, in_type, op, (int)kind, init, out, out_type, NULL, &a));
    if (n == 0 || n_segments == 0) return PP_OK;
    a.offsets = offsets;
    a.n_segments = n_segments;
    return ctx->ops->scan(ctx, &a);
}
