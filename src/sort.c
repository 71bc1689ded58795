/* sort.c -- argument checks and dispatch of the radix sort family (issue 20): pp_sort_keys,
 * pp_sort_pairs and pp_argsort go to the backend's one `sort` entry with a pp_sort_args whose
 * bit range is resolved ([0, width) for the whole key). */
#include <string.h>

#include "internal.h"

/* Whether [a, a + an) and [b, b + bn) share a byte. */
static int overlaps(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    if (an == 0 || bn == 0) return 0;
    return x < y + bn && y < x + an;
}

/* An array that is NULL while n > 0. */
static pp_status check_not_null(pp_context *ctx, const char *fn, const char *arg, const void *p, size_t n)
{
    if (!p && n > 0)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is NULL with n = %zu", fn, arg, n);
    return PP_OK;
}

/* order, the key type and the bit range; fills a's key_type, descending and bits. */
static pp_status check_keys(pp_context *ctx, const char *fn, pp_dtype key_type, pp_sort_order order, int begin_bit,
                            int end_bit, pp_sort_args *a)
{
    PP_TRY(pp__check_dtype(ctx, fn, "key_type", key_type, PP_DT_ALL));
    if (order != PP_SORT_ASCENDING && order != PP_SORT_DESCENDING)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'order' has unknown value %d", fn, (int)order);
    const int width = (int)(8 * pp_dtype_size(key_type));
    if (pp__dtype_is_float(key_type) && (begin_bit != 0 || end_bit != 0))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'begin_bit' / 'end_bit' (%d, %d): float keys (%s) sort on the whole key "
                        "(pass 0, 0)",
                        fn, begin_bit, end_bit, pp_dtype_name(key_type));
    if (begin_bit < 0 || begin_bit > width)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'begin_bit' is %d, outside [0, %d] for %s keys",
                        fn, begin_bit, width, pp_dtype_name(key_type));
    if (end_bit < 0 || end_bit > width)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'end_bit' is %d, outside [0, %d] for %s keys (0: the key's width)", fn,
                        end_bit, width, pp_dtype_name(key_type));
    const int end = end_bit == 0 ? width : end_bit;
    if (begin_bit > end)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'begin_bit' (%d) is above 'end_bit' (%d%s)", fn, begin_bit, end,
                        end_bit == 0 ? ", the key's width" : "");
    memset(a, 0, sizeof *a);
    a->key_type = key_type;
    a->descending = order == PP_SORT_DESCENDING;
    a->begin_bit = begin_bit;
    a->end_bit = end;
    return PP_OK;
}

static pp_status dispatch(pp_context *ctx, const char *fn, const pp_sort_args *a)
{
    if (!ctx->ops->sort)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no sort", fn, ctx->ops->name);
    if (a->n == 0) return PP_OK;
    return ctx->ops->sort(ctx, a);
}

pp_status pp_sort_keys(pp_context *ctx, const void *keys_in, void *keys_out, size_t n, pp_dtype key_type,
                       pp_sort_order order, int begin_bit, int end_bit)
{
    static const char fn[] = "pp_sort_keys";
    PP_ENTER(ctx);
    pp_sort_args a;
    PP_TRY(check_keys(ctx, fn, key_type, order, begin_bit, end_bit, &a));
    PP_TRY(check_not_null(ctx, fn, "keys_in", keys_in, n));
    PP_TRY(check_not_null(ctx, fn, "keys_out", keys_out, n));
    const size_t ks = pp_dtype_size(key_type);
    PP_TRY(pp__check_array(ctx, fn, "keys_in", keys_in, n, ks, "n"));
    PP_TRY(pp__check_array(ctx, fn, "keys_out", keys_out, n, ks, "n"));
    if (keys_out != keys_in && overlaps(keys_in, n * ks, keys_out, n * ks))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'keys_out' overlaps 'keys_in' (only keys_out == keys_in is allowed)", fn);
    a.keys_in = keys_in;
    a.keys_out = keys_out;
    a.n = n;
    return dispatch(ctx, fn, &a);
}

pp_status pp_sort_pairs(pp_context *ctx, const void *keys_in, void *keys_out, const void *values_in,
                        void *values_out, size_t n, pp_dtype key_type, pp_dtype value_type, pp_sort_order order,
                        int begin_bit, int end_bit)
{
    static const char fn[] = "pp_sort_pairs";
    PP_ENTER(ctx);
    pp_sort_args a;
    PP_TRY(check_keys(ctx, fn, key_type, order, begin_bit, end_bit, &a));
    PP_TRY(pp__check_dtype(ctx, fn, "value_type", value_type, PP_DT_ALL));
    PP_TRY(check_not_null(ctx, fn, "keys_in", keys_in, n));
    PP_TRY(check_not_null(ctx, fn, "keys_out", keys_out, n));
    PP_TRY(check_not_null(ctx, fn, "values_in", values_in, n));
    PP_TRY(check_not_null(ctx, fn, "values_out", values_out, n));
    const size_t ks = pp_dtype_size(key_type), vs = pp_dtype_size(value_type);
    PP_TRY(pp__check_array(ctx, fn, "keys_in", keys_in, n, ks, "n"));
    PP_TRY(pp__check_array(ctx, fn, "keys_out", keys_out, n, ks, "n"));
    PP_TRY(pp__check_array(ctx, fn, "values_in", values_in, n, vs, "n"));
    PP_TRY(pp__check_array(ctx, fn, "values_out", values_out, n, vs, "n"));
    if (n > 0) {
        /* Each output may be its own input; no other two arrays may share a byte. */
        const struct {
            const char *name;
            const void *p;
            size_t bytes;
        } arr[4] = {{"keys_in", keys_in, n * ks}, {"keys_out", keys_out, n * ks},
                    {"values_in", values_in, n * vs}, {"values_out", values_out, n * vs}};
        for (int i = 0; i < 4; ++i)
            for (int j = i + 1; j < 4; ++j) {
                if ((i == 0 && j == 1) || (i == 2 && j == 3)) {
                    if (arr[i].p == arr[j].p) continue; /* in place */
                } else if (i == 0 && j == 2) {
                    continue; /* two inputs may overlap: neither is written */
                }
                if (overlaps(arr[i].p, arr[i].bytes, arr[j].p, arr[j].bytes))
                    return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                                    "%s: argument '%s' overlaps '%s' (only keys_out == keys_in and values_out == "
                                    "values_in are allowed)",
                                    fn, arr[j].name, arr[i].name);
            }
    }
    a.keys_in = keys_in;
    a.keys_out = keys_out;
    a.values_in = values_in;
    a.values_out = values_out;
    a.value_size = vs;
    a.n = n;
    return dispatch(ctx, fn, &a);
}

pp_status pp_argsort(pp_context *ctx, const void *keys, size_t n, pp_dtype key_type, pp_sort_order order,
                     void *indices, pp_dtype index_type)
{
    static const char fn[] = "pp_argsort";
    PP_ENTER(ctx);
    pp_sort_args a;
    PP_TRY(check_keys(ctx, fn, key_type, order, 0, 0, &a));
    PP_TRY(pp__check_dtype(ctx, fn, "index_type", index_type, PP_DT(PP_U32) | PP_DT(PP_U64)));
    if (index_type == PP_U32 && (uint64_t)n > ((uint64_t)1 << 32))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'index_type' is u32, which cannot index n = %zu keys (at most 2^32; use u64)",
                        fn, n);
    PP_TRY(check_not_null(ctx, fn, "keys", keys, n));
    PP_TRY(check_not_null(ctx, fn, "indices", indices, n));
    const size_t ks = pp_dtype_size(key_type), is = pp_dtype_size(index_type);
    PP_TRY(pp__check_array(ctx, fn, "keys", keys, n, ks, "n"));
    PP_TRY(pp__check_array(ctx, fn, "indices", indices, n, is, "n"));
    if (overlaps(keys, n * ks, indices, n * is))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'indices' overlaps 'keys'", fn);
    a.keys_in = keys;
    a.values_out = indices;
    a.value_size = is;
    a.n = n;
    return dispatch(ctx, fn, &a);
}
