/* compaction.c -- argument checks and dispatch of the compaction family (pp_select_flagged,
 * pp_select_if, pp_partition_flagged, pp_partition_if, pp_unique, pp_run_length_encode,
 * pp_where, pp_nonzero). Every form goes to the backend's one `compact` entry with a
 * pp_compact_args; predicates are compiled here into key ranges (src/compaction_keep.h), so
 * that every backend evaluates the same thing. */
#include <string.h>

#include "internal.h"
#include "compaction_keep.h"

const char *pp_pred_name(pp_pred_kind kind)
{
    static const char *const names[] = {NULL,     "lt",     "le",      "gt",    "ge",    "eq",
                                        "ne",     "inside", "outside", "isnan", "notnan", "nonzero"};
    if ((int)kind < PP_PRED_LT || (int)kind > PP_PRED_NONZERO) return NULL;
    return names[kind];
}

static int encoding_of(pp_dtype t)
{
    if (t == PP_F32 || t == PP_F64) return PP_ENC_FLOAT;
    if (t == PP_I32 || t == PP_I64) return PP_ENC_SIGNED;
    return PP_ENC_UNSIGNED;
}

/* The bits of the union member of dtype t. */
static uint64_t scalar_bits(const pp_scalar *s, pp_dtype t)
{
    switch (t) {
    case PP_U8: return s->u8;
    case PP_I32: return (uint32_t)s->i32;
    case PP_U32: return s->u32;
    case PP_F32: {
        uint32_t b;
        memcpy(&b, &s->f32, 4);
        return b;
    }
    case PP_I64: return (uint64_t)s->i64;
    case PP_U64: return s->u64;
    default: {
        uint64_t b;
        memcpy(&b, &s->f64, 8);
        return b;
    }
    }
}

/* *pred compiled for dtype t into a key range (see pp_keep_pred); the caller checked it. */
static pp_keep_pred compile_pred(const pp_predicate *pred, pp_dtype t)
{
    const int w = (int)pp_dtype_size(t), enc = encoding_of(t);
    const uint64_t max = pp_key_max(w);
    pp_keep_pred p = {1, 0, 0, 0}; /* lo > hi: no number */
    const uint64_t ab = scalar_bits(&pred->a, t), bb = scalar_bits(&pred->b, t);
    const int a_nan = enc == PP_ENC_FLOAT && pp_bits_isnan(ab, w);
    const uint64_t ka = a_nan ? 0 : pp_cmp_key(ab, w, enc);
    switch (pred->kind) {
    case PP_PRED_ISNAN: p.nan_val = 1; break;
    case PP_PRED_NOTNAN: p.lo = 0, p.hi = max; break;
    case PP_PRED_NONZERO:
        p.lo = p.hi = pp_cmp_key(0, w, enc);
        p.invert = 1;
        p.nan_val = 1;
        break;
    case PP_PRED_NE:
        if (a_nan) p.lo = 0, p.hi = max;
        else p.lo = p.hi = ka, p.invert = 1;
        p.nan_val = 1;
        break;
    case PP_PRED_INSIDE:
    case PP_PRED_OUTSIDE: {
        const uint64_t kb = pp_cmp_key(bb, w, enc);
        if (kb > ka) p.lo = ka, p.hi = kb - 1;
        p.invert = pred->kind == PP_PRED_OUTSIDE;
        break;
    }
    default: /* LT .. EQ: nothing for a NaN constant, and a NaN x never passes */
        if (a_nan) break;
        if (pred->kind == PP_PRED_LT && ka > 0) p.lo = 0, p.hi = ka - 1;
        if (pred->kind == PP_PRED_LE) p.lo = 0, p.hi = ka;
        if (pred->kind == PP_PRED_GT && ka < max) p.lo = ka + 1, p.hi = max;
        if (pred->kind == PP_PRED_GE) p.lo = ka, p.hi = max;
        if (pred->kind == PP_PRED_EQ) p.lo = p.hi = ka;
        break;
    }
    return p;
}

static pp_status check_pred(pp_context *ctx, const char *fn, const pp_predicate *pred, pp_dtype t)
{
    if (!pred) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'pred' is NULL", fn);
    if (!pp_pred_name(pred->kind))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'pred' has unknown kind %d", fn,
                        (int)pred->kind);
    if ((pred->kind == PP_PRED_INSIDE || pred->kind == PP_PRED_OUTSIDE) && encoding_of(t) == PP_ENC_FLOAT) {
        const int w = (int)pp_dtype_size(t);
        if (pp_bits_isnan(scalar_bits(&pred->a, t), w) || pp_bits_isnan(scalar_bits(&pred->b, t), w))
            return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                            "%s: argument 'pred' (%s) has a NaN bound (a range needs numbers)", fn,
                            pp_pred_name(pred->kind));
    }
    return PP_OK;
}

/* One array of a call, for the NULL, extent and overlap checks. */
typedef struct arr {
    const char *name;
    const void *p;
    size_t size;  /* element size; 0: not part of this call */
    int output;
} arr;

static int overlaps(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    if (an == 0 || bn == 0 || !a || !b) return 0;
    return x < y + bn && y < x + an;
}

/* The checks every form shares, then one call through the table. arrays[0 .. na): every
 * array the call reads or writes (n elements each); `in_place` allows out == in and
 * payload_out == payload (select). */
static pp_status finish(pp_context *ctx, const char *fn, pp_compact_args *a, arr *arrays, int na, int in_place)
{
    if (a->space != PP_RESULT_CONTEXT && a->space != PP_RESULT_HOST)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'space' has unknown value %d", fn,
                        (int)a->space);
    for (int i = 0; i < na; ++i)
        if (arrays[i].size && !arrays[i].p && a->n > 0)
            return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is NULL with n = %zu", fn,
                            arrays[i].name, a->n);
    if (!a->count) return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'count' is NULL", fn);
    for (int i = 0; i < na; ++i)
        if (arrays[i].size) PP_TRY(pp__check_array(ctx, fn, arrays[i].name, arrays[i].p, a->n, arrays[i].size, "n"));
    if (a->space == PP_RESULT_CONTEXT) PP_TRY(pp__check_array(ctx, fn, "count", a->count, 1, 8, "count"));
    /* n * size fits (checked above): overlaps of outputs with everything else */
    for (int i = 0; i < na; ++i) {
        if (!arrays[i].output || !arrays[i].size) continue;
        const size_t bi = a->n * arrays[i].size;
        if (overlaps(a->count, 8, arrays[i].p, bi))
            return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'count' overlaps '%s'", fn, arrays[i].name);
        for (int j = 0; j < na; ++j) {
            if (j == i || !arrays[j].size || (arrays[j].output && j < i)) continue;
            const size_t bj = a->n * arrays[j].size;
            if (!overlaps(arrays[i].p, bi, arrays[j].p, bj)) continue;
            if (in_place && arrays[i].p == arrays[j].p && arrays[j].size == arrays[i].size &&
                ((arrays[i].p == a->out && arrays[j].p == a->in) ||
                 (arrays[i].p == a->payload_out && arrays[j].p == a->payload)))
                continue;
            return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' overlaps '%s'%s", fn,
                            arrays[i].name, arrays[j].name,
                            in_place ? " (only out == in and payload_out == payload are allowed)" : "");
        }
    }
    if (!ctx->ops->compact)
        return pp__fail(ctx, PP_ERROR_UNSUPPORTED, "%s: backend '%s' has no compaction", fn, ctx->ops->name);
    return ctx->ops->compact(ctx, a);
}

/* The fields every form sets; the rest zero. */
static void init_args(pp_compact_args *a, pp_compact_kind kind, pp_keep_mode keep, const void *in, size_t n,
                      pp_dtype dtype, uint64_t *count, pp_result_space space)
{
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->keep = keep;
    a->in = in;
    a->n = n;
    a->dtype = dtype;
    a->count = count;
    a->space = space;
}

/* The payload pair: payload_type checked where there is a payload; payload_out without one
 * is an error. */
static pp_status check_payload(pp_context *ctx, const char *fn, const void *payload, pp_dtype payload_type,
                               const void *payload_out)
{
    if (payload) return pp__check_dtype(ctx, fn, "payload_type", payload_type, PP_DT_ALL);
    if (payload_out)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'payload_out' is given without 'payload'", fn);
    return PP_OK;
}

/* select / partition, by flags (by_pred 0) or by predicate. */
static pp_status select_or_partition(pp_context *ctx, const char *fn, pp_compact_kind kind, int by_pred,
                                     const void *in, size_t n, pp_dtype dtype, const uint8_t *flags,
                                     const pp_predicate *pred, const void *payload, pp_dtype payload_type, void *out,
                                     void *payload_out, uint64_t *count, pp_result_space space)
{
    PP_ENTER(ctx);
    PP_TRY(pp__check_dtype(ctx, fn, "dtype", dtype, PP_DT_ALL));
    if (by_pred) PP_TRY(check_pred(ctx, fn, pred, dtype));
    PP_TRY(check_payload(ctx, fn, payload, payload_type, payload_out));
    pp_compact_args a;
    init_args(&a, kind, by_pred ? PP_KEEP_PRED : PP_KEEP_FLAGS, in, n, dtype, count, space);
    if (by_pred) a.pred = compile_pred(pred, dtype);
    a.flags = by_pred ? NULL : flags;
    a.payload = payload;
    a.payload_size = payload ? pp_dtype_size(payload_type) : 0;
    a.out = out;
    a.payload_out = payload_out;
    const size_t es = pp_dtype_size(dtype);
    arr arrays[] = {{"in", in, es, 0},
                    {"flags", flags, by_pred ? 0 : 1, 0},
                    {"payload", payload, a.payload_size, 0},
                    {"out", out, es, 1},
                    {"payload_out", payload_out, a.payload_size, 1}};
    return finish(ctx, fn, &a, arrays, 5, kind == PP_COMPACT_SELECT);
}

pp_status pp_select_flagged(pp_context *ctx, const void *in, size_t n, pp_dtype dtype, const uint8_t *flags,
                            const void *payload, pp_dtype payload_type, void *out, void *payload_out, uint64_t *count,
                            pp_result_space space)
{
    return select_or_partition(ctx, "pp_select_flagged", PP_COMPACT_SELECT, 0, in, n, dtype, flags, NULL, payload,
                               payload_type, out, payload_out, count, space);
}

pp_status pp_select_if(pp_context *ctx, const void *in, size_t n, pp_dtype dtype, const pp_predicate *pred,
                       const void *payload, pp_dtype payload_type, void *out, void *payload_out, uint64_t *count,
                       pp_result_space space)
{
    return select_or_partition(ctx, "pp_select_if", PP_COMPACT_SELECT, 1, in, n, dtype, NULL, pred, payload,
                               payload_type, out, payload_out, count, space);
}

pp_status pp_partition_flagged(pp_context *ctx, const void *in, size_t n, pp_dtype dtype, const uint8_t *flags,
                               const void *payload, pp_dtype payload_type, void *out, void *payload_out,
                               uint64_t *count, pp_result_space space)
{
    return select_or_partition(ctx, "pp_partition_flagged", PP_COMPACT_PARTITION, 0, in, n, dtype, flags, NULL,
                               payload, payload_type, out, payload_out, count, space);
}

pp_status pp_partition_if(pp_context *ctx, const void *in, size_t n, pp_dtype dtype, const pp_predicate *pred,
                          const void *payload, pp_dtype payload_type, void *out, void *payload_out, uint64_t *count,
                          pp_result_space space)
{
    return select_or_partition(ctx, "pp_partition_if", PP_COMPACT_PARTITION, 1, in, n, dtype, NULL, pred, payload,
                               payload_type, out, payload_out, count, space);
}

pp_status pp_unique(pp_context *ctx, const void *keys, size_t n, pp_dtype dtype, const void *payload,
                    pp_dtype payload_type, void *keys_out, void *payload_out, uint64_t *count, pp_result_space space)
{
    static const char fn[] = "pp_unique";
    PP_ENTER(ctx);
    PP_TRY(pp__check_dtype(ctx, fn, "dtype", dtype, PP_DT_ALL));
    PP_TRY(check_payload(ctx, fn, payload, payload_type, payload_out));
    pp_compact_args a;
    init_args(&a, PP_COMPACT_SELECT, PP_KEEP_RUN_HEAD, keys, n, dtype, count, space);
    a.payload = payload;
    a.payload_size = payload ? pp_dtype_size(payload_type) : 0;
    a.out = keys_out;
    a.payload_out = payload_out;
    const size_t es = pp_dtype_size(dtype);
    arr arrays[] = {{"keys", keys, es, 0},
                    {"payload", payload, a.payload_size, 0},
                    {"keys_out", keys_out, es, 1},
                    {"payload_out", payload_out, a.payload_size, 1}};
    return finish(ctx, fn, &a, arrays, 4, 0);
}

/* u32 or u64 for index_type / length_type. */
static pp_status check_count_type(pp_context *ctx, const char *fn, const char *arg, pp_dtype t)
{
    return pp__check_dtype(ctx, fn, arg, t, PP_DT(PP_U32) | PP_DT(PP_U64));
}

pp_status pp_run_length_encode(pp_context *ctx, const void *in, size_t n, pp_dtype dtype, void *values_out,
                               void *lengths_out, pp_dtype length_type, uint64_t *count, pp_result_space space)
{
    static const char fn[] = "pp_run_length_encode";
    PP_ENTER(ctx);
    PP_TRY(pp__check_dtype(ctx, fn, "dtype", dtype, PP_DT_ALL));
    PP_TRY(check_count_type(ctx, fn, "length_type", length_type));
    pp_compact_args a;
    init_args(&a, PP_COMPACT_RLE, PP_KEEP_RUN_HEAD, in, n, dtype, count, space);
    a.out = values_out;
    a.lengths = lengths_out;
    a.length_size = pp_dtype_size(length_type);
    const size_t es = pp_dtype_size(dtype);
    arr arrays[] = {{"in", in, es, 0}, {"values_out", values_out, es, 1}, {"lengths_out", lengths_out, a.length_size, 1}};
    return finish(ctx, fn, &a, arrays, 3, 0);
}

static pp_status where(pp_context *ctx, const char *fn, const void *in, size_t n, pp_dtype dtype,
                       const pp_predicate *pred, void *indices, pp_dtype index_type, uint64_t *count,
                       pp_result_space space)
{
    PP_TRY(pp__check_dtype(ctx, fn, "dtype", dtype, PP_DT_ALL));
    PP_TRY(check_count_type(ctx, fn, "index_type", index_type));
    PP_TRY(check_pred(ctx, fn, pred, dtype));
    if (index_type == PP_U32 && (uint64_t)n > ((uint64_t)1 << 32))
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument 'index_type' is u32 with n = %zu (indices past 2^32 - 1 need u64)", fn, n);
    pp_compact_args a;
    init_args(&a, PP_COMPACT_WHERE, PP_KEEP_PRED, in, n, dtype, count, space);
    a.pred = compile_pred(pred, dtype);
    a.indices = indices;
    a.index_size = pp_dtype_size(index_type);
    arr arrays[] = {{"in", in, pp_dtype_size(dtype), 0}, {"indices", indices, a.index_size, 1}};
    return finish(ctx, fn, &a, arrays, 2, 0);
}

pp_status pp_where(pp_context *ctx, const void *in, size_t n, pp_dtype dtype, const pp_predicate *pred,
                   void *indices, pp_dtype index_type, uint64_t *count, pp_result_space space)
{
    PP_ENTER(ctx);
    return where(ctx, "pp_where", in, n, dtype, pred, indices, index_type, count, space);
}

pp_status pp_nonzero(pp_context *ctx, const void *in, size_t n, pp_dtype dtype, void *indices, pp_dtype index_type,
                     uint64_t *count, pp_result_space space)
{
    PP_ENTER(ctx);
    pp_predicate nz;
    memset(&nz, 0, sizeof nz);
    nz.kind = PP_PRED_NONZERO;
    return where(ctx, "pp_nonzero", in, n, dtype, &nz, indices, index_type, count, space);
}
