/*
 * test_mpi.c -- parprim_mpi's reduce, argmin/argmax, scans, histograms and compaction under
 * mpiexec: each rank draws its part (sizes differ between ranks, some are 0), calls the
 * collective, and compares with the single-process call on the gathered data (a CPU context):
 * integers, counts, indices and selections bitwise; floats bitwise where the data makes every
 * sum exact (small whole numbers), else within the header's bound. Bad input on one rank must
 * give every rank the same error (t_errors).
 */
#include <math.h>

#include "mpi_check.h"

/* One element of any dtype: parprim.h's pp_scalar. */
typedef pp_scalar cell;

static const pp_dtype all_types[] = {PP_U8, PP_I32, PP_U32, PP_I64, PP_U64, PP_F32, PP_F64};

/* This rank's count for `what`: up to maxn, 0 on about one rank in four. */
static size_t part_size(const char *what, size_t maxn)
{
    mc_rng r = mc_rng_for(what, mc.rank);
    if (mc_below(&r, 4) == 0) return 0;
    return (size_t)mc_below(&r, maxn + 1);
}

/* n elements of t for `what` on this rank: whole numbers in [lo, lo + range) (range 0: any
 * bits; floats then finite values of either sign), with a NaN in about one of nan_in (0:
 * none). */
static void *fill(const char *what, pp_dtype t, size_t n, int64_t lo, uint64_t range, unsigned nan_in)
{
    const size_t es = pp_dtype_size(t);
    unsigned char *p = (unsigned char *)malloc(n * es + 8);
    if (!p) abort();
    mc_rng r = mc_rng_for(what, mc.rank);
    for (size_t i = 0; i < n; ++i) {
        const uint64_t bits = mc_next(&r);
        const int64_t v = range ? lo + (int64_t)(bits % range) : (int64_t)bits;
        cell c;
        switch (t) {
        case PP_U8: c.u8 = (uint8_t)v; break;
        case PP_I32: c.i32 = (int32_t)v; break;
        case PP_U32: c.u32 = (uint32_t)v; break;
        case PP_I64: c.i64 = v; break;
        case PP_U64: c.u64 = (uint64_t)v; break;
        case PP_F32: c.f32 = range ? (float)v : (float)((double)(int64_t)bits / 9.2e16); break;
        case PP_F64: c.f64 = range ? (double)v : (double)(int64_t)bits / 9.2e16; break;
        }
        if (nan_in && (t == PP_F32 || t == PP_F64) && mc_below(&r, nan_in) == 0) {
            if (t == PP_F32) c.f32 = NAN;
            else c.f64 = NAN;
        }
        memcpy(p + i * es, &c, es);
    }
    return p;
}

static int is_float(pp_dtype t) { return t == PP_F32 || t == PP_F64; }

/* Two values of t: equal bits, or both NaN. */
static int same_value(pp_dtype t, const void *a, const void *b)
{
    if (t == PP_F32) {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
    } else if (t == PP_F64) {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
    }
    return memcmp(a, b, pp_dtype_size(t)) == 0;
}

/* The out types a SUM may widen to (and the input type itself). */
static int widen_targets(pp_dtype in, pp_dtype *out)
{
    int k = 0;
    out[k++] = in;
    if (in == PP_U8) out[k++] = PP_U32, out[k++] = PP_U64;
    if (in == PP_I32) out[k++] = PP_I64;
    if (in == PP_U32) out[k++] = PP_U64;
    if (in == PP_F32) out[k++] = PP_F64;
    return k;
}

/* ---- reduce, argmin / argmax ---------------------------------------------------------------- */

static void t_reduce(void)
{
    static const pp_op ops[] = {PP_OP_SUM, PP_OP_PROD, PP_OP_MIN, PP_OP_MAX, PP_OP_AND, PP_OP_OR, PP_OP_XOR};
    for (size_t ti = 0; ti < sizeof all_types / sizeof *all_types; ++ti)
        for (size_t oi = 0; oi < sizeof ops / sizeof *ops; ++oi) {
            const pp_dtype t = all_types[ti];
            const pp_op op = ops[oi];
            if (is_float(t) && op >= PP_OP_AND) continue;
            char what[64];
            snprintf(what, sizeof what, "reduce %d %d", (int)t, (int)op);
            const size_t n = part_size(what, 3000);
            /* PROD: values -1, 1 (floats) or any (integers wrap); others: small whole numbers,
             * so float sums are exact and compare bitwise; MIN/MAX: NaNs sometimes */
            const int prod = op == PP_OP_PROD;
            void *h = fill(what, t, n, prod && is_float(t) ? -1 : -50, prod && is_float(t) ? 3 : 100,
                           op == PP_OP_MIN || op == PP_OP_MAX ? 500 : 0);
            if (prod && is_float(t))
                for (size_t i = 0; i < n; ++i) {
                    if (t == PP_F32 && ((float *)h)[i] == 0) ((float *)h)[i] = 1;
                    if (t == PP_F64 && ((double *)h)[i] == 0) ((double *)h)[i] = 1;
                }
            uint64_t total = 0;
            void *g = mc_allgather(h, n, pp_dtype_size(t), &total);
            void *d = mc_to_ctx(h, n * pp_dtype_size(t));
            pp_dtype outs[3];
            const int no = op == PP_OP_SUM ? widen_targets(t, outs) : (outs[0] = t, 1);
            for (int k = 0; k < no; ++k) {
                cell got, want, got_ctx;
                memset(&got, 0, sizeof got), memset(&want, 0, sizeof want), memset(&got_ctx, 0, sizeof got_ctx);
                MC_OK(pp_mpi_reduce(mc.ctx, mc.comm, d, n, t, op, &got, outs[k], PP_RESULT_HOST));
                MC_OK(pp_reduce(mc.cpu, g, (size_t)total, t, op, &want, outs[k], PP_RESULT_HOST));
                MC_CHECK(same_value(outs[k], &got, &want), "reduce %s %s -> %s, total %llu: got %llx, want %llx",
                         pp_dtype_name(t), pp_op_name(op), pp_dtype_name(outs[k]), (unsigned long long)total,
                         (unsigned long long)got.u64, (unsigned long long)want.u64);
                /* the result in the context's space */
                void *r = mc_ctx_alloc(8);
                MC_OK(pp_mpi_reduce(mc.ctx, mc.comm, d, n, t, op, r, outs[k], PP_RESULT_CONTEXT));
                void *rh = mc_from_ctx(r, pp_dtype_size(outs[k]));
                MC_CHECK(same_value(outs[k], rh, &want), "reduce to the context: %s %s", pp_dtype_name(t), pp_op_name(op));
                free(rh);
                mc_ctx_free(r);
            }
            mc_ctx_free(d);
            free(g);
            free(h);
        }
}

/* Float sums of real numbers: within the header's bound of the exact sum. */
static void t_reduce_float_bound(void)
{
    for (int k = 0; k < 2; ++k) {
        const pp_dtype t = k ? PP_F64 : PP_F32;
        const size_t n = part_size(k ? "fsum64" : "fsum32", 20000);
        void *h = fill(k ? "fsum64" : "fsum32", t, n, 0, 0, 0);
        uint64_t total = 0, nmax = n;
        void *g = mc_allgather(h, n, pp_dtype_size(t), &total);
        MPI_Allreduce(MPI_IN_PLACE, &nmax, 1, MPI_UINT64_T, MPI_MAX, mc.comm);
        long double exact = 0, abs_sum = 0;
        for (uint64_t i = 0; i < total; ++i) {
            const long double x = t == PP_F32 ? (long double)((float *)g)[i] : (long double)((double *)g)[i];
            exact += x;
            abs_sum += fabsl(x);
        }
        void *d = mc_to_ctx(h, n * pp_dtype_size(t));
        cell got;
        memset(&got, 0, sizeof got);
        MC_OK(pp_mpi_reduce(mc.ctx, mc.comm, d, n, t, PP_OP_SUM, &got, t, PP_RESULT_HOST));
        const double u = t == PP_F32 ? 0x1p-24 : 0x1p-53;
        const double D = ceil(log2((double)(nmax > 1 ? nmax : 2))) + PP_SUM_DEPTH_SLACK + mc.size;
        const long double bound = D * u / (1 - D * u) * abs_sum;
        const long double v = t == PP_F32 ? (long double)got.f32 : (long double)got.f64;
        MC_CHECK(fabsl(v - exact) <= bound, "%s sum of %llu: error %Lg above the bound %Lg", pp_dtype_name(t),
                 (unsigned long long)total, fabsl(v - exact), bound);
        /* every rank the same bits */
        cell r0 = got;
        MPI_Bcast(&r0, 8, MPI_BYTE, 0, mc.comm);
        MC_CHECK(memcmp(&r0, &got, 8) == 0, "ranks disagree on the bits of the %s sum", pp_dtype_name(t));
        mc_ctx_free(d);
        free(g);
        free(h);
    }
}

static void t_argminmax(void)
{
    for (size_t ti = 0; ti < sizeof all_types / sizeof *all_types; ++ti)
        for (int is_max = 0; is_max < 2; ++is_max)
            for (int nan = 0; nan < 2; ++nan) {
                const pp_dtype t = all_types[ti];
                if (nan && !is_float(t)) continue;
                char what[64];
                snprintf(what, sizeof what, "arg %d %d %d", (int)t, is_max, nan);
                const size_t n = part_size(what, 2000);
                /* few distinct values: ties across ranks */
                void *h = fill(what, t, n, 3, 20, nan ? 700 : 0);
                uint64_t total = 0;
                void *g = mc_allgather(h, n, pp_dtype_size(t), &total);
                void *d = mc_to_ctx(h, n * pp_dtype_size(t));
                cell v, wv;
                uint64_t idx = 7, widx = 9;
                memset(&v, 0, sizeof v), memset(&wv, 0, sizeof wv);
                MC_OK((is_max ? pp_mpi_argmax : pp_mpi_argmin)(mc.ctx, mc.comm, d, n, t, &v, &idx, PP_RESULT_HOST));
                MC_OK((is_max ? pp_argmax : pp_argmin)(mc.cpu, g, (size_t)total, t, &wv, &widx, PP_RESULT_HOST));
                MC_CHECK(idx == widx && same_value(t, &v, &wv), "arg%s %s nan %d total %llu: index %llu, want %llu",
                         is_max ? "max" : "min", pp_dtype_name(t), nan, (unsigned long long)total,
                         (unsigned long long)idx, (unsigned long long)widx);
                mc_ctx_free(d);
                free(g);
                free(h);
            }
}

/* ---- scans -------------------------------------------------------------------------------- */

/* Check this rank's slice of a global scan against the oracle's. */
static void check_scan_slice(const void *got, const void *want_all, uint64_t offset, size_t n, pp_dtype t,
                             const char *what)
{
    const size_t es = pp_dtype_size(t);
    const unsigned char *w = (const unsigned char *)want_all + offset * es;
    for (size_t i = 0; i < n; ++i)
        if (!same_value(t, (const unsigned char *)got + i * es, w + i * es)) {
            MC_FAIL("%s: out[%zu] (global %llu) differs from the single-process scan", what, i,
                    (unsigned long long)(offset + i));
            return;
        }
}

static void t_scan(void)
{
    static const pp_op ops[] = {PP_OP_SUM, PP_OP_MAX, PP_OP_MIN, PP_OP_XOR, PP_OP_PROD};
    for (size_t ti = 0; ti < sizeof all_types / sizeof *all_types; ++ti)
        for (size_t oi = 0; oi < sizeof ops / sizeof *ops; ++oi) {
            const pp_dtype t = all_types[ti];
            const pp_op op = ops[oi];
            if (is_float(t) && (op == PP_OP_XOR || op == PP_OP_PROD)) continue;
            char what[64];
            snprintf(what, sizeof what, "scan %d %d", (int)t, (int)op);
            const size_t n = part_size(what, 5000);
            void *h = fill(what, t, n, -20, 40, op == PP_OP_MAX ? 3000 : 0);
            uint64_t total = 0, offset = 0;
            free(mc_counts(n, NULL, &offset));
            void *g = mc_allgather(h, n, pp_dtype_size(t), &total);
            pp_dtype outs[3];
            const int no = op == PP_OP_SUM ? widen_targets(t, outs) : (outs[0] = t, 1);
            for (int k = 0; k < no; ++k)
                for (int excl = 0; excl < 2; ++excl)
                    for (int in_place = 0; in_place < 2; ++in_place) {
                        const pp_dtype ot = outs[k];
                        const size_t oes = pp_dtype_size(ot);
                        if (in_place && oes != pp_dtype_size(t)) continue;
                        cell init;
                        memset(&init, 0, sizeof init);
                        init.u8 = 3; /* 3 in any integer type; a small float's bytes otherwise */
                        if (ot == PP_F32) init.f32 = 3;
                        if (ot == PP_F64) init.f64 = 3;
                        const void *ip = excl && (ti + oi) % 2 ? &init : NULL;
                        void *want = malloc(total * oes + 8);
                        if (excl) MC_OK(pp_exclusive_scan(mc.cpu, g, (size_t)total, t, op, ip, want, ot));
                        else MC_OK(pp_inclusive_scan(mc.cpu, g, (size_t)total, t, op, want, ot));
                        void *d = mc_to_ctx(h, n * pp_dtype_size(t));
                        void *o = in_place ? d : mc_ctx_alloc(n * oes);
                        if (excl) MC_OK(pp_mpi_exclusive_scan(mc.ctx, mc.comm, d, n, t, op, ip, o, ot));
                        else MC_OK(pp_mpi_inclusive_scan(mc.ctx, mc.comm, d, n, t, op, o, ot));
                        void *got = mc_from_ctx(o, n * oes);
                        char desc[160];
                        snprintf(desc, sizeof desc, "%s scan %s %s -> %s%s%s, n %zu of %llu", excl ? "exclusive" : "inclusive",
                                 pp_dtype_name(t), pp_op_name(op), pp_dtype_name(ot), in_place ? ", in place" : "",
                                 ip ? ", init 3" : "", n, (unsigned long long)total);
                        check_scan_slice(got, want, offset, n, ot, desc);
                        free(got);
                        if (!in_place) mc_ctx_free(o);
                        mc_ctx_free(d);
                        free(want);
                    }
            free(g);
            free(h);
        }
}

/* ---- histograms ---------------------------------------------------------------------------- */

static void t_histogram(void)
{
    static const pp_dtype samples[] = {PP_U8, PP_I32, PP_U32, PP_F32, PP_F64};
    for (size_t si = 0; si < sizeof samples / sizeof *samples; ++si)
        for (int ct = 0; ct < 2; ++ct)
            for (int range = 0; range < 2; ++range) {
                const pp_dtype t = samples[si], cty = ct ? PP_U64 : PP_U32;
                char what[64];
                snprintf(what, sizeof what, "hist %d %d %d", (int)t, ct, range);
                const size_t n = part_size(what, 20000);
                void *h = fill(what, t, n, 0, 200, is_float(t) ? 100 : 0);
                uint64_t total = 0;
                void *g = mc_allgather(h, n, pp_dtype_size(t), &total);
                const size_t nbins = 37;
                const size_t cs = pp_dtype_size(cty);
                void *want = calloc(nbins, cs), *counts = mc_ctx_alloc(nbins * cs);
                void *d = mc_to_ctx(h, n * pp_dtype_size(t));
                double edges[38];
                for (size_t b = 0; b <= nbins; ++b) edges[b] = 4.0 * (double)b + (b % 3 == 0 ? 0.5 : 0);
                void *ed = mc_to_ctx(edges, sizeof edges);
                if (range) {
                    MC_OK(pp_mpi_histogram_range(mc.ctx, mc.comm, d, n, t, ed, nbins, counts, cty));
                    MC_OK(pp_histogram_range(mc.cpu, g, (size_t)total, t, edges, nbins, want, cty));
                } else {
                    MC_OK(pp_mpi_histogram_even(mc.ctx, mc.comm, d, n, t, nbins, 10, 195, counts, cty));
                    MC_OK(pp_histogram_even(mc.cpu, g, (size_t)total, t, nbins, 10, 195, want, cty));
                }
                void *got = mc_from_ctx(counts, nbins * cs);
                MC_CHECK(memcmp(got, want, nbins * cs) == 0, "histogram %s %s of %s, %llu samples: counts differ",
                         range ? "range" : "even", pp_dtype_name(cty), pp_dtype_name(t), (unsigned long long)total);
                free(got);
                mc_ctx_free(ed);
                mc_ctx_free(d);
                mc_ctx_free(counts);
                free(want);
                free(g);
                free(h);
            }
}

/* This rank's payload for compaction: the global index of each element (u64, malloc). */
static uint64_t *global_index(size_t n, uint64_t offset)
{
    uint64_t *pl = (uint64_t *)malloc(n * 8 + 8);
    if (!pl) abort();
    for (size_t i = 0; i < n; ++i) pl[i] = offset + i;
    return pl;
}

/* ---- compaction ---------------------------------------------------------------------------- */

/* The ranks' outputs (count elements of es bytes each) gathered equal want[0 .. want_count),
 * and the counts' offsets and totals are right. */
static void check_gathered(const void *out_ctx, const pp_mpi_counts *c, size_t es, const void *want,
                           uint64_t want_count, const char *what)
{
    void *mine = mc_from_ctx(out_ctx, (size_t)c->count * es);
    uint64_t total = 0, offset = 0;
    free(mc_counts(c->count, NULL, &offset));
    void *all = mc_allgather(mine, c->count, es, &total);
    MC_CHECK(c->offset == offset && c->total == total, "%s: offset %llu / total %llu, want %llu / %llu", what,
             (unsigned long long)c->offset, (unsigned long long)c->total, (unsigned long long)offset,
             (unsigned long long)total);
    MC_CHECK(total == want_count, "%s: %llu kept in all, the single-process call keeps %llu", what,
             (unsigned long long)total, (unsigned long long)want_count);
    if (total == want_count)
        MC_CHECK(memcmp(all, want, (size_t)total * es) == 0, "%s: the gathered outputs differ", what);
    free(all);
    free(mine);
}

static void t_select(void)
{
    for (size_t ti = 0; ti < sizeof all_types / sizeof *all_types; ++ti)
        for (int form = 0; form < 3; ++form) { /* flagged, if, if in place */
            const pp_dtype t = all_types[ti];
            const size_t es = pp_dtype_size(t);
            char what[64];
            snprintf(what, sizeof what, "select %d %d", (int)t, form);
            const size_t n = part_size(what, 6000);
            void *h = fill(what, t, n, 0, 100, 0);
            uint64_t total = 0, offset = 0;
            free(mc_counts(n, NULL, &offset));
            void *g = mc_allgather(h, n, es, &total);
            /* payload: the global index (u64) */
            uint64_t *pl = global_index(n, offset);
            uint64_t *gpl = (uint64_t *)mc_allgather(pl, n, 8, NULL);
            uint8_t *fl = (uint8_t *)fill("flags", PP_U8, n, 0, 3, 0);
            uint8_t *gfl = (uint8_t *)mc_allgather(fl, n, 1, NULL);
            pp_predicate pred;
            memset(&pred, 0, sizeof pred);
            pred.kind = PP_PRED_LT;
            switch (t) {
            case PP_U8: pred.a.u8 = 40; break;
            case PP_I32: pred.a.i32 = 40; break;
            case PP_U32: pred.a.u32 = 40; break;
            case PP_I64: pred.a.i64 = 40; break;
            case PP_U64: pred.a.u64 = 40; break;
            case PP_F32: pred.a.f32 = 40; break;
            case PP_F64: pred.a.f64 = 40; break;
            }
            void *want = malloc(total * es + 8), *wantp = malloc(total * 8 + 8);
            uint64_t wc = 0;
            if (form == 0)
                MC_OK(pp_select_flagged(mc.cpu, g, (size_t)total, t, gfl, gpl, PP_U64, want, wantp, &wc, PP_RESULT_HOST));
            else MC_OK(pp_select_if(mc.cpu, g, (size_t)total, t, &pred, gpl, PP_U64, want, wantp, &wc, PP_RESULT_HOST));
            void *d = mc_to_ctx(h, n * es), *dp = mc_to_ctx(pl, n * 8), *dfl = mc_to_ctx(fl, n);
            void *o = form == 2 ? d : mc_ctx_alloc(n * es), *op = form == 2 ? dp : mc_ctx_alloc(n * 8);
            pp_mpi_counts c = {0, 0, 0};
            if (form == 0) MC_OK(pp_mpi_select_flagged(mc.ctx, mc.comm, d, n, t, dfl, dp, PP_U64, o, op, &c));
            else MC_OK(pp_mpi_select_if(mc.ctx, mc.comm, d, n, t, &pred, dp, PP_U64, o, op, &c));
            char desc[96];
            snprintf(desc, sizeof desc, "select %s %s", form == 0 ? "flagged" : form == 1 ? "if" : "if in place",
                     pp_dtype_name(t));
            check_gathered(o, &c, es, want, wc, desc);
            check_gathered(op, &c, 8, wantp, wc, desc);
            if (form != 2) mc_ctx_free(o), mc_ctx_free(op);
            mc_ctx_free(d), mc_ctx_free(dp), mc_ctx_free(dfl);
            free(want), free(wantp), free(g), free(h), free(pl), free(gpl), free(fl), free(gfl);
        }
}

static void t_unique(void)
{
    for (size_t ti = 0; ti < sizeof all_types / sizeof *all_types; ++ti)
        for (int shape = 0; shape < 3; ++shape) {
            const pp_dtype t = all_types[ti];
            const size_t es = pp_dtype_size(t);
            char what[64];
            snprintf(what, sizeof what, "unique %d %d", (int)t, shape);
            /* shape 0: short runs; 1: long runs that cross ranks; 2: one value everywhere */
            const size_t n = part_size(what, shape == 2 ? 50 : 3000);
            unsigned char *h = (unsigned char *)fill(what, t, n, 0, shape == 0 ? 3 : 2, is_float(t) ? 9 : 0);
            if (shape) { /* runs: the value changes rarely (shape 1) or never (2) */
                mc_rng r = mc_rng_for(what, mc.rank);
                unsigned char cur[8];
                memcpy(cur, h, n ? es : 0);
                for (size_t i = 0; i < n; ++i) {
                    if (shape == 1 && mc_below(&r, 700) == 0) memcpy(cur, h + i * es, es);
                    memcpy(h + i * es, shape == 2 ? h : cur, es);
                }
                if (shape == 2 && n) { /* the same value on every rank: rank-independent bytes */
                    memset(h, 0, es);
                    for (size_t i = 1; i < n; ++i) memcpy(h + i * es, h, es);
                }
            }
            uint64_t total = 0, offset = 0;
            free(mc_counts(n, NULL, &offset));
            void *g = mc_allgather(h, n, es, &total);
            uint64_t *pl = global_index(n, offset);
            uint64_t *gpl = (uint64_t *)mc_allgather(pl, n, 8, NULL);
            void *want = malloc(total * es + 8), *wantp = malloc(total * 8 + 8);
            uint64_t wc = 0;
            MC_OK(pp_unique(mc.cpu, g, (size_t)total, t, gpl, PP_U64, want, wantp, &wc, PP_RESULT_HOST));
            void *d = mc_to_ctx(h, n * es), *dp = mc_to_ctx(pl, n * 8);
            void *o = mc_ctx_alloc(n * es), *op = mc_ctx_alloc(n * 8);
            pp_mpi_counts c = {0, 0, 0};
            MC_OK(pp_mpi_unique(mc.ctx, mc.comm, d, n, t, dp, PP_U64, o, op, &c));
            char desc[64];
            snprintf(desc, sizeof desc, "unique %s shape %d", pp_dtype_name(t), shape);
            check_gathered(o, &c, es, want, wc, desc);
            check_gathered(op, &c, 8, wantp, wc, desc);
            mc_ctx_free(o), mc_ctx_free(op), mc_ctx_free(d), mc_ctx_free(dp);
            free(want), free(wantp), free(g), free(h), free(pl), free(gpl);
        }
}

static void t_where(void)
{
    for (int it = 0; it < 2; ++it)
        for (int nz = 0; nz < 2; ++nz) {
            const pp_dtype t = nz ? PP_F32 : PP_I32, ity = it ? PP_U64 : PP_U32;
            const size_t is = pp_dtype_size(ity);
            char what[64];
            snprintf(what, sizeof what, "where %d %d", it, nz);
            const size_t n = part_size(what, 8000);
            void *h = fill(what, t, n, -2, 5, nz ? 50 : 0);
            uint64_t total = 0;
            void *g = mc_allgather(h, n, pp_dtype_size(t), &total);
            pp_predicate pred;
            memset(&pred, 0, sizeof pred);
            pred.kind = PP_PRED_GE;
            pred.a.i32 = 1;
            void *want = malloc(total * is + 8);
            uint64_t wc = 0;
            if (nz) MC_OK(pp_nonzero(mc.cpu, g, (size_t)total, t, want, ity, &wc, PP_RESULT_HOST));
            else MC_OK(pp_where(mc.cpu, g, (size_t)total, t, &pred, want, ity, &wc, PP_RESULT_HOST));
            void *d = mc_to_ctx(h, n * pp_dtype_size(t)), *o = mc_ctx_alloc(n * is);
            pp_mpi_counts c = {0, 0, 0};
            if (nz) MC_OK(pp_mpi_nonzero(mc.ctx, mc.comm, d, n, t, o, ity, &c));
            else MC_OK(pp_mpi_where(mc.ctx, mc.comm, d, n, t, &pred, o, ity, &c));
            check_gathered(o, &c, is, want, wc, nz ? "nonzero" : "where");
            mc_ctx_free(o), mc_ctx_free(d);
            free(want), free(g), free(h);
        }
}

/* ---- errors: bad input on one rank, the same status everywhere, no hang --------------------- */

static void t_errors(void)
{
    const int bad = mc.size - 1; /* the last rank misbehaves */
    const size_t n = 100;
    void *h = fill("errors", PP_U32, n, 0, 10, 0);
    void *d = mc_to_ctx(h, n * 4);
    uint64_t out = 0;
    pp_status st;
    /* NULL input with n > 0 on one rank */
    st = pp_mpi_reduce(mc.ctx, mc.comm, mc.rank == bad ? NULL : d, n, PP_U32, PP_OP_SUM, &out, PP_U32, PP_RESULT_HOST);
    MC_CHECK(st == PP_ERROR_INVALID_ARGUMENT, "NULL in on rank %d: %s", bad, pp_mpi_status_string(st));
    MC_CHECK(strstr(pp_mpi_last_error(), "'in'") != NULL, "message \"%s\" names 'in'", pp_mpi_last_error());
    /* a dtype that differs on one rank */
    st = pp_mpi_reduce(mc.ctx, mc.comm, d, n, mc.rank == bad ? PP_I32 : PP_U32, PP_OP_SUM, &out, PP_U32, PP_RESULT_HOST);
    MC_CHECK(st == PP_ERROR_INVALID_ARGUMENT, "in_type differing (or i32 -> u32 where one rank): %s", pp_mpi_status_string(st));
    /* an unknown dtype on one rank */
    st = pp_mpi_inclusive_scan(mc.ctx, mc.comm, d, n, mc.rank == bad ? (pp_dtype)99 : PP_U32, PP_OP_SUM, d, PP_U32);
    MC_CHECK(st == PP_ERROR_INVALID_ARGUMENT, "unknown dtype on rank %d: %s", bad, pp_mpi_status_string(st));
    /* an op undefined for the dtype everywhere: the local call's verdict, shared */
    st = pp_mpi_exclusive_scan(mc.ctx, mc.comm, d, n, PP_U32, (pp_op)77, NULL, d, PP_U32);
    MC_CHECK(st == PP_ERROR_INVALID_ARGUMENT, "unknown op: %s", pp_mpi_status_string(st));
    /* nbins that differ ("a count mismatch") */
    void *counts = mc_ctx_alloc(64 * 8);
    st = pp_mpi_histogram_even(mc.ctx, mc.comm, d, n, PP_U32, mc.rank == bad ? 63 : 64, 0, 10, counts, PP_U64);
    MC_CHECK(st == (mc.size > 1 ? PP_ERROR_INVALID_ARGUMENT : PP_OK), "nbins differing: %s", pp_mpi_status_string(st));
    /* the histogram's local check fails on one rank only (nbins 0 there, and differing) */
    st = pp_mpi_histogram_even(mc.ctx, mc.comm, d, n, PP_U32, 8, 0, mc.rank == bad ? -1.0 / 0.0 : 10, counts, PP_U64);
    MC_CHECK(st == PP_ERROR_INVALID_ARGUMENT, "infinite lower bound on rank %d: %s", bad, pp_mpi_status_string(st));
    /* compaction: NULL counts on one rank, NULL flags on one rank */
    pp_mpi_counts c;
    st = pp_mpi_select_flagged(mc.ctx, mc.comm, d, n, PP_U32, mc.rank == bad ? NULL : (const uint8_t *)d, NULL, PP_U8,
                               counts, NULL, &c);
    MC_CHECK(st == PP_ERROR_INVALID_ARGUMENT, "NULL flags on rank %d: %s", bad, pp_mpi_status_string(st));
    st = pp_mpi_unique(mc.ctx, mc.comm, d, n, PP_U32, NULL, PP_U8, counts, NULL, mc.rank == bad ? NULL : &c);
    MC_CHECK(st == PP_ERROR_INVALID_ARGUMENT, "NULL counts on rank %d: %s", bad, pp_mpi_status_string(st));
    /* a predicate constant that differs */
    pp_predicate pred;
    memset(&pred, 0, sizeof pred);
    pred.kind = PP_PRED_LT;
    pred.a.u32 = mc.rank == bad ? 4 : 5;
    st = pp_mpi_where(mc.ctx, mc.comm, d, n, PP_U32, &pred, counts, PP_U64, &c);
    MC_CHECK(st == (mc.size > 1 ? PP_ERROR_INVALID_ARGUMENT : PP_OK), "pred->a differing: %s", pp_mpi_status_string(st));
    /* the ranks still work together afterwards */
    MC_OK(pp_mpi_reduce(mc.ctx, mc.comm, d, n, PP_U32, PP_OP_SUM, &out, PP_U64, PP_RESULT_HOST));
    mc_ctx_free(counts);
    mc_ctx_free(d);
    free(h);
}

int main(int argc, char **argv)
{
    mc_init(&argc, &argv, "test_mpi");
    mc_run("t_reduce", t_reduce);
    mc_run("t_reduce_float_bound", t_reduce_float_bound);
    mc_run("t_argminmax", t_argminmax);
    mc_run("t_scan", t_scan);
    mc_run("t_histogram", t_histogram);
    mc_run("t_select", t_select);
    mc_run("t_unique", t_unique);
    mc_run("t_where", t_where);
    mc_run("t_errors", t_errors);
    return mc_finish();
}
