/* segsort.c -- argument checks and dispatch of the segmented sort (issue 22):
 * pp_segmented_sort_keys / _pairs and their fixed-length forms go to the backend's one
 * `segmented_sort` entry with a pp_segsort_args (offsets NULL for the fixed form). */
#include <string.h>

#include "internal.h"

static pp_status check_not_null(pp_context *ctx, const char *fn, const char *arg, const void *p, size_t n)
{
    if (!p && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is NULL with n = %zu", fn, arg, n);
    return PP_OK;
}

/* Everything but the segments: types, order, pointers, sizes and overlaps. vt < 0: keys only. */
static pp_status check_arrays(pp_context *ctx, const char *fn, const void *keys_in, void *keys_out,
                              const void *values_in, void *values_out, size_t n, pp_dtype key_type, int vt,
                              pp_sort_order order, const size_t *offsets, size_t n_offsets, const char *n_arg,
                              pp_segsort_args *a)
{
    PP_TRY(pp__check_dtype(ctx, fn, "key_type", key_type, PP_DT_ALL));
    if (vt >= 0) PP_TRY(pp__check_dtype(ctx, fn, "value_type", (pp_dtype)vt, PP_DT_ALL));
    if (order != PP_SORT_ASCENDING && order != PP_SORT_DESCENDING)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'order' has unknown value %d", fn, (int)order);
    PP_TRY(check_not_null(ctx, fn, "keys_in", keys_in, n));
    PP_TRY(check_not_null(ctx, fn, "keys_out", keys_out, n));
    const size_t ks = pp_dtype_size(key_type), vs = vt >= 0 ? pp_dtype_size((pp_dtype)vt) : 0;
    if (vt >= 0) {
        PP_TRY(check_not_null(ctx, fn, "values_in", values_in, n));
        PP_TRY(check_not_null(ctx, fn, "values_out", values_out, n));
    }
    PP_TRY(pp__check_array(ctx, fn, "keys_in", keys_in, n, ks, n_arg));
    PP_TRY(pp__check_array(ctx, fn, "keys_out", keys_out, n, ks, n_arg));
    if (vt >= 0) {
        PP_TRY(pp__check_array(ctx, fn, "values_in", values_in, n, vs, n_arg));
        PP_TRY(pp__check_array(ctx, fn, "values_out", values_out, n, vs, n_arg));
    }
    if (n > 0) {
        /* Each output may be its own input; the inputs may overlap each other (neither is
         * written); the offsets may overlap the inputs; no other two may share a byte. */
        const struct {
            const char *name;
            const void *p;
            size_t bytes;
        } arr[5] = {{"keys_in", keys_in, n * ks},
                    {"keys_out", keys_out, n * ks},
                    {"values_in", values_in, vt >= 0 ? n * vs : 0},
                    {"values_out", values_out, vt >= 0 ? n * vs : 0},
                    {"offsets", offsets, offsets ? n_offsets * sizeof *offsets : 0}};
        for (int i = 0; i < 5; ++i)
            for (int j = i + 1; j < 5; ++j) {
                const int i_out = i == 1 || i == 3, j_out = j == 1 || j == 3;
                if (!i_out && !j_out) continue; /* two inputs */
                if ((i == 0 && j == 1) || (i == 2 && j == 3)) {
                    if (arr[i].p == arr[j].p) continue; /* in place */
                }
                if (pp__overlaps(arr[i].p, arr[i].bytes, arr[j].p, arr[j].bytes))
                    return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                                    "%s: argument '%s' overlaps '%s' (only keys_out == keys_in and values_out == "
                                    "values_in are allowed)",
                                    fn, arr[j].name, arr[i].name);
            }
    }
    memset(a, 0, sizeof *a);
    a->keys_in = keys_in;
    a->keys_out = keys_out;
    a->values_in = vt >= 0 ? values_in : NULL;
    a->values_out = vt >= 0 ? values_out : NULL;
    a->n = n;
    a->key_type = key_type;
    a->value_size = vs;
    a->descending = order == PP_SORT_DESCENDING;
    return PP_OK;
}

static pp_status dispatch(pp_context *ctx, const char *fn, const pp_segsort_args *a)
{
    if (!ctx->ops->segmented_sort)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no segmented sort", fn, ctx->ops->name);
    if (a->n == 0 || a->n_segments == 0) return PP_OK;
    return ctx->ops->segmented_sort(ctx, a);
}

static pp_status with_offsets(pp_context *ctx, const char *fn, const void *keys_in, void *keys_out,
                              const void *values_in, void *values_out, size_t n, pp_dtype key_type, int vt,
                              const size_t *offsets, size_t n_segments, pp_sort_order order)
{
    PP_ENTER(ctx);
    PP_TRY(pp__check_offsets(ctx, fn, offsets, n_segments));
    pp_segsort_args a;
    PP_TRY(check_arrays(ctx, fn, keys_in, keys_out, values_in, values_out, n, key_type, vt, order,
                        n_segments ? offsets : NULL, n_segments + 1, "n", &a));
    a.offsets = offsets;
    a.n_segments = n_segments;
    return dispatch(ctx, fn, &a);
}

static pp_status fixed(pp_context *ctx, const char *fn, const void *keys_in, void *keys_out, const void *values_in,
                       void *values_out, size_t n_segments, size_t segment_length, pp_dtype key_type, int vt,
                       pp_sort_order order)
{
    PP_ENTER(ctx);
    if (segment_length && n_segments > SIZE_MAX / segment_length)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'segment_length' (%zu) times n_segments (%zu) overflows size_t", fn,
                        segment_length, n_segments);
    const size_t n = n_segments * segment_length;
    pp_segsort_args a;
    PP_TRY(check_arrays(ctx, fn, keys_in, keys_out, values_in, values_out, n, key_type, vt, order, NULL, 0,
                        "n_segments * segment_length", &a));
    a.n_segments = n_segments;
    a.segment_length = segment_length;
    return dispatch(ctx, fn, &a);
}

pp_status pp_segmented_sort_keys(pp_context *ctx, const void *keys_in, void *keys_out, size_t n, pp_dtype key_type,
                                 const size_t *offsets, size_t n_segments, pp_sort_order order)
{
    return with_offsets(ctx, "pp_segmented_sort_keys", keys_in, keys_out, NULL, NULL, n, key_type, -1, offsets,
                        n_segments, order);
}

pp_status pp_segmented_sort_pairs(pp_context *ctx, const void *keys_in, void *keys_out, const void *values_in,
                                  void *values_out, size_t n, pp_dtype key_type, pp_dtype value_type,
                                  const size_t *offsets, size_t n_segments, pp_sort_order order)
{
    return with_offsets(ctx, "pp_segmented_sort_pairs", keys_in, keys_out, values_in, values_out, n, key_type,
                        (int)value_type, offsets, n_segments, order);
}

pp_status pp_segmented_sort_keys_fixed(pp_context *ctx, const void *keys_in, void *keys_out, size_t n_segments,
                                       size_t segment_length, pp_dtype key_type, pp_sort_order order)
{
    return fixed(ctx, "pp_segmented_sort_keys_fixed", keys_in, keys_out, NULL, NULL, n_segments, segment_length,
                 key_type, -1, order);
}

pp_status pp_segmented_sort_pairs_fixed(pp_context *ctx, const void *keys_in, void *keys_out, const void *values_in,
                                        void *values_out, size_t n_segments, size_t segment_length,
                                        pp_dtype key_type, pp_dtype value_type, pp_sort_order order)
{
    return fixed(ctx, "pp_segmented_sort_pairs_fixed", keys_in, keys_out, values_in, values_out, n_segments,
                 segment_length, key_type, (int)value_type, order);
}
