/* test_mpi_sort.c -- pp_mpi_sort_keys / pp_mpi_sort_pairs against the single-process sort of
 * the gathered array: every rank's output must be, bit for bit, its slice
 * [pp_mpi_sort_first(N, r, P), pp_mpi_sort_first(N, r + 1, P)) of pp_sort_keys /
 * pp_sort_pairs on the CPU. Values carry the global input index, so the slices also check
 * stability across ranks. The exchange's bytes are compared with the minimum computed here
 * from the oracle's permutation (each key whose output lies on another rank, once). */
#include <math.h>
#include <omp.h>

#include "mpi_check.h"

typedef enum dist {
    D_RANDOM,  /* every bit random */
    D_FEW,     /* three distinct values */
    D_EQUAL,   /* one value */
    D_SPECIAL, /* floats: NaNs, zeros of both signs, infinities, subnormals; integers: extremes */
    D_NARROW   /* small values (a bit range then has ties and keys outside it) */
} dist;

typedef enum layout {
    L_RANDOM, /* each rank 0 .. max_n keys, a third of the ranks' parts empty */
    L_EMPTY,  /* every rank empty */
    L_ONE,    /* the last rank holds every key */
    L_FULL    /* every rank max_n keys */
} layout;

typedef struct scase {
    pp_dtype kt;
    int pairs;
    pp_dtype vt;
    pp_sort_order order;
    int begin_bit, end_bit;
    dist d;
    layout l;
    size_t max_n;
    int in_place; /* keys_out == keys_in (values_out == values_in) */
} scase;

static void store_bits(void *a, size_t i, size_t es, uint64_t bits)
{
    switch (es) {
    case 1: ((uint8_t *)a)[i] = (uint8_t)bits; break;
    case 4: ((uint32_t *)a)[i] = (uint32_t)bits; break;
    default: ((uint64_t *)a)[i] = bits; break;
    }
}

/* The bits of key i of the part: drawn from the case's distribution. */
static uint64_t draw_key(mc_rng *g, pp_dtype t, dist d)
{
    static const uint32_t f32_odd[] = {0x7FC00000u, 0xFFC00001u, 0x7F800005u, 0x80000000u, 0x00000000u,
                                       0x7F800000u, 0xFF800000u, 0x00000003u, 0x80000002u, 0x3F800000u};
    static const uint64_t f64_odd[] = {0x7FF8000000000000ull, 0xFFF8000000000123ull, 0x7FF0000000000009ull,
                                       0x8000000000000000ull, 0x0000000000000000ull, 0x7FF0000000000000ull,
                                       0xFFF0000000000000ull, 0x0000000000000007ull, 0x8000000000000005ull,
                                       0xBFF0000000000000ull};
    const uint64_t r = mc_next(g);
    switch (d) {
    case D_RANDOM: return r;
    case D_FEW: {
        const uint64_t k = r % 3;
        if (t == PP_F32) return k == 0 ? 0xC0000000u : k == 1 ? 0x80000000u : 0x3F800000u; /* -2, -0, 1 */
        if (t == PP_F64) return k == 0 ? 0xC000000000000000ull : k == 1 ? 0ull : 0x3FF0000000000000ull;
        return k == 0 ? 0 : k == 1 ? 0x5A5A5A5A5A5A5A5Aull : ~0ull;
    }
    case D_EQUAL: return t == PP_F32 ? 0x40490FDBu : t == PP_F64 ? 0x400921FB54442D18ull : 0x1234567890ABCDEFull;
    case D_SPECIAL:
        if (r & 1) return mc_next(g);
        if (t == PP_F32) return f32_odd[(r >> 1) % 10];
        if (t == PP_F64) return f64_odd[(r >> 1) % 10];
        return (r >> 1) % 4 == 0 ? 0 : (r >> 1) % 4 == 1 ? ~0ull : (r >> 1) % 4 == 2 ? 1ull << 63 : (1ull << 63) - 1;
    case D_NARROW: return r % 1000;
    }
    return r;
}

/* A value of type t carrying the global index g (as far as t holds it). */
static uint64_t index_value(pp_dtype t, uint64_t g)
{
    if (t == PP_F32) {
        const float f = (float)g;
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    if (t == PP_F64) {
        const double f = (double)g;
        uint64_t b;
        memcpy(&b, &f, 8);
        return b;
    }
    return g;
}

static uint64_t share_of(uint64_t N, int r)
{
    return pp_mpi_sort_first(N, r + 1, mc.size) - pp_mpi_sort_first(N, r, mc.size);
}

static void run_case(const scase *c, const char *what)
{
    const size_t ks = pp_dtype_size(c->kt), vs = c->pairs ? pp_dtype_size(c->vt) : 0, pad = 3;
    mc_rng g = mc_rng_for(what, mc.rank);
    size_t n = 0;
    if (c->l == L_RANDOM) n = mc_below(&g, 3) == 0 ? 0 : (size_t)mc_below(&g, c->max_n + 1);
    if ((c->l == L_ONE && mc.rank == mc.size - 1) || c->l == L_FULL) n = c->max_n;
    uint64_t N = 0, offset = 0;
    free(mc_counts(n, &N, &offset));
    const uint64_t share = share_of(N, mc.rank);

    /* (keys only: hv is a zeroed stand-in of one byte per key, gathered and not used) */
    unsigned char *hk = (unsigned char *)malloc(n * ks + 1), *hv = (unsigned char *)calloc(n * (vs ? vs : 1) + 1, 1);
    if (!hk || !hv) abort();
    for (size_t i = 0; i < n; ++i) store_bits(hk, i, ks, draw_key(&g, c->kt, c->d));
    for (size_t i = 0; vs && i < n; ++i) store_bits(hv, i, vs, index_value(c->vt, offset + i));

    /* outputs: the share plus pad elements that must keep their 0xA5 bytes (in place: the
     * larger of the part and the share) */
    const size_t cap = c->in_place ? (n > share ? n : (size_t)share) : (size_t)share;
    void *kin, *vin = NULL, *kout, *vout = NULL;
    if (c->in_place) {
        kout = kin = mc_ctx_alloc((cap + pad) * ks);
        if (kin && n) pp_memcpy(mc.ctx, kin, hk, n * ks, PP_COPY_HOST_TO_CONTEXT);
        if (c->pairs) {
            vout = vin = mc_ctx_alloc((cap + pad) * vs);
            if (vin && n) pp_memcpy(mc.ctx, vin, hv, n * vs, PP_COPY_HOST_TO_CONTEXT);
        }
    } else {
        kin = mc_to_ctx(hk, n * ks);
        kout = mc_ctx_alloc((cap + pad) * ks);
        if (c->pairs) {
            vin = mc_to_ctx(hv, n * vs);
            vout = mc_ctx_alloc((cap + pad) * vs);
        }
    }
    size_t n_out = 12345;
    pp_status st = c->pairs ? pp_mpi_sort_pairs(mc.ctx, mc.comm, kin, vin, n, kout, vout, cap, &n_out, c->kt, c->vt,
                                                c->order, c->begin_bit, c->end_bit)
                            : pp_mpi_sort_keys(mc.ctx, mc.comm, kin, n, kout, cap, &n_out, c->kt, c->order,
                                               c->begin_bit, c->end_bit);
    MC_CHECK(st == PP_OK, "%s: status %s, message \"%s\"", what, pp_mpi_status_string(st), pp_mpi_last_error());
    MC_CHECK(n_out == share, "%s: n_out %zu, share %llu", what, n_out, (unsigned long long)share);
    pp_mpi_sort_stats stats;
    MC_OK(pp_mpi_last_sort_stats(&stats));

    /* the oracle: the whole array sorted in one process; rank r's slice */
    uint64_t total = 0;
    unsigned char *ak = (unsigned char *)mc_allgather(hk, n, ks, &total);
    unsigned char *av = (unsigned char *)mc_allgather(hv, n, vs ? vs : 1, NULL);
    unsigned char *ok = (unsigned char *)malloc(total * ks + 1), *ov = (unsigned char *)malloc(total * vs + 1);
    uint64_t *idx = (uint64_t *)malloc(sizeof(uint64_t) * (total + 1)),
             *sidx = (uint64_t *)malloc(sizeof(uint64_t) * (total + 1));
    if (!ok || !ov || !idx || !sidx) abort();
    for (uint64_t i = 0; i < total; ++i) idx[i] = i;
    MC_OK(c->pairs ? pp_sort_pairs(mc.cpu, ak, ok, av, ov, total, c->kt, c->vt, c->order, c->begin_bit, c->end_bit)
                   : pp_sort_keys(mc.cpu, ak, ok, total, c->kt, c->order, c->begin_bit, c->end_bit));
    MC_OK(pp_sort_pairs(mc.cpu, ak, ak, idx, sidx, total, c->kt, PP_U64, c->order, c->begin_bit, c->end_bit));

    const uint64_t first = pp_mpi_sort_first(N, mc.rank, mc.size);
    unsigned char *gk = (unsigned char *)mc_from_ctx(kout, (cap + pad) * ks);
    unsigned char *gv = c->pairs ? (unsigned char *)mc_from_ctx(vout, (cap + pad) * vs) : NULL;
    if (st == PP_OK) {
        size_t bad = 0, first_bad = 0;
        for (size_t i = 0; i < share; ++i)
            if (memcmp(gk + i * ks, ok + (first + i) * ks, ks) ||
                (vs && memcmp(gv + i * vs, ov + (first + i) * vs, vs)))
                if (!bad++) first_bad = i;
        MC_CHECK(bad == 0, "%s: %zu of %llu outputs differ from the oracle's, the first at %zu", what, bad,
                 (unsigned long long)share, first_bad);
        /* nothing past the output (in place: past the larger of part and share) */
        const size_t from = c->in_place ? cap : (size_t)share;
        size_t dirty = 0;
        for (size_t b = from * ks; b < (cap + pad) * ks; ++b) dirty += gk[b] != 0xA5;
        for (size_t b = from * vs; vs && b < (cap + pad) * vs; ++b) dirty += gv[b] != 0xA5;
        MC_CHECK(dirty == 0, "%s: %zu bytes written past the output", what, dirty);
        if (!c->in_place) { /* the inputs are read only */
            unsigned char *ik = (unsigned char *)mc_from_ctx(kin, n * ks);
            unsigned char *iv = c->pairs ? (unsigned char *)mc_from_ctx(vin, n * vs) : NULL;
            MC_CHECK(memcmp(ik, hk, n * ks) == 0 && (!iv || memcmp(iv, hv, n * vs) == 0), "%s: an input was written",
                     what);
            free(ik), free(iv);
        }
    }

    /* the least any exchange must move out of this rank: its keys whose output position
     * lies elsewhere */
    uint64_t leave = 0;
    for (uint64_t j = 0; j < total; ++j)
        if (sidx[j] >= offset && sidx[j] < offset + n && !(j >= first && j < first + share)) ++leave;
    const uint64_t min_bytes = leave * (ks + vs);
    MC_CHECK(stats.bytes_min == min_bytes, "%s: stats.bytes_min %llu, expected %llu", what,
             (unsigned long long)stats.bytes_min, (unsigned long long)min_bytes);
    MC_CHECK(stats.bytes_sent == min_bytes, "%s: bytes sent %llu, the minimum %llu", what,
             (unsigned long long)stats.bytes_sent, (unsigned long long)min_bytes);
    uint64_t io[2] = {stats.bytes_sent, stats.bytes_received}, sums[2];
    MPI_Allreduce(io, sums, 2, MPI_UINT64_T, MPI_SUM, mc.comm);
    MC_CHECK(sums[0] == sums[1], "%s: %llu bytes sent in all, %llu received", what, (unsigned long long)sums[0],
             (unsigned long long)sums[1]);
    MC_CHECK(stats.staged == (pp_mpi_direct(mc.ctx) ? 0 : mc.size > 1 && N > 0), "%s: staged %d", what, stats.staged);

    free(gk), free(gv), free(ok), free(ov), free(idx), free(sidx), free(ak), free(av), free(hk), free(hv);
    if (!c->in_place) mc_ctx_free(kin), mc_ctx_free(vin);
    mc_ctx_free(kout), mc_ctx_free(vout);
}

static const pp_dtype key_types[] = {PP_U8, PP_I32, PP_U32, PP_I64, PP_U64, PP_F32, PP_F64};

/* Keys and pairs (u64 values), ascending and descending, for each key type and distribution. */
static void sweep(dist d, layout l, size_t max_n, const char *tag)
{
    for (int t = 0; t < 7; ++t)
        for (int o = 0; o < 2; ++o)
            for (int p = 0; p < 2; ++p) {
                const scase c = {key_types[t], p, PP_U64, (pp_sort_order)o, 0, 0, d, l, max_n, 0};
                char what[96];
                snprintf(what, sizeof what, "%s %s %s %s", tag, pp_dtype_name(key_types[t]), o ? "desc" : "asc",
                         p ? "pairs" : "keys");
                run_case(&c, what);
            }
}

static void t_random(void) { sweep(D_RANDOM, L_RANDOM, 3000, "random"); }
static void t_few(void) { sweep(D_FEW, L_RANDOM, 2000, "few"); }
static void t_equal(void) { sweep(D_EQUAL, L_RANDOM, 1500, "equal"); }
static void t_special(void) { sweep(D_SPECIAL, L_RANDOM, 2000, "special"); }
static void t_empty(void) { sweep(D_RANDOM, L_EMPTY, 0, "empty"); }
static void t_one_rank(void) { sweep(D_FEW, L_ONE, 2500, "one rank"); }

/* Values of every dtype behind u32 and f64 keys. */
static void t_value_types(void)
{
    for (int kt = 0; kt < 2; ++kt)
        for (int v = 0; v < 7; ++v)
            for (int o = 0; o < 2; ++o) {
                const scase c = {kt ? PP_F64 : PP_U32, 1, key_types[v], (pp_sort_order)o, 0, 0,
                                 kt ? D_SPECIAL : D_FEW, L_RANDOM, 2000, 0};
                char what[96];
                snprintf(what, sizeof what, "values %s / %s %s", kt ? "f64" : "u32", pp_dtype_name(key_types[v]),
                         o ? "desc" : "asc");
                run_case(&c, what);
            }
}

static void t_bit_ranges(void)
{
    static const struct {
        pp_dtype t;
        int begin, end;
    } r[] = {{PP_U32, 8, 20}, {PP_U32, 0, 32}, {PP_I32, 16, 0}, {PP_I32, 0, 7},  {PP_I64, 4, 40}, {PP_U64, 60, 64},
             {PP_U64, 0, 1},  {PP_U8, 2, 5},   {PP_U8, 8, 0},   {PP_U32, 5, 5},  {PP_I64, 33, 0}, {PP_U8, 0, 8}};
    for (size_t i = 0; i < sizeof r / sizeof r[0]; ++i)
        for (int o = 0; o < 2; ++o)
            for (int d = 0; d < 2; ++d) {
                const scase c = {r[i].t, 1, PP_U32, (pp_sort_order)o, r[i].begin, r[i].end, d ? D_NARROW : D_RANDOM,
                                 L_RANDOM, 1500, 0};
                char what[96];
                snprintf(what, sizeof what, "bits %s [%d, %d) %s %s", pp_dtype_name(r[i].t), r[i].begin, r[i].end,
                         o ? "desc" : "asc", d ? "narrow" : "random");
                run_case(&c, what);
            }
}

static void t_in_place(void)
{
    for (int t = 0; t < 7; ++t)
        for (int p = 0; p < 2; ++p) {
            const scase c = {key_types[t], p, PP_I32, PP_SORT_ASCENDING, 0, 0, D_FEW, L_RANDOM, 2500, 1};
            char what[96];
            snprintf(what, sizeof what, "in place %s %s", pp_dtype_name(key_types[t]), p ? "pairs" : "keys");
            run_case(&c, what);
        }
}

/* Cases of about 2^20 keys in all (and pairs of 2^18), where the merge runs on threads. */
static void t_large(void)
{
    const size_t per = ((size_t)1 << 20) / (size_t)mc.size;
    const scase k = {PP_U32, 0, PP_U32, PP_SORT_ASCENDING, 0, 0, D_RANDOM, L_FULL, per, 0};
    run_case(&k, "large u32 keys");
    const scase p = {PP_F64, 1, PP_U32, PP_SORT_DESCENDING, 0, 0, D_SPECIAL, L_FULL, per / 4, 0};
    run_case(&p, "large f64 / u32 pairs");
    /* the merge on three threads (uneven slices; the entries run one thread per rank) */
    const int threads = omp_get_max_threads();
    omp_set_num_threads(3);
    const scase f = {PP_I64, 1, PP_U8, PP_SORT_ASCENDING, 0, 0, D_FEW, L_FULL, per / 4, 0};
    run_case(&f, "large i64 / u8 pairs, few distinct, 3 threads");
    const scase r = {PP_U32, 0, PP_U32, PP_SORT_DESCENDING, 3, 29, D_RANDOM, L_RANDOM, per / 2, 0};
    run_case(&r, "large u32 keys [3, 29) desc, 3 threads");
    omp_set_num_threads(threads);
}

/* ---- errors: one rank's bad argument, every rank's status ------------------------------------ */

typedef enum bad {
    B_NULL_KEYS_OUT, /* the last rank: keys_out NULL with out_capacity > 0 */
    B_KEY_TYPE,      /* the last rank: i32 keys where the others pass u32 */
    B_CAPACITY,      /* the last rank: out_capacity one below its share */
    B_ORDER,         /* rank 0: an unknown order */
    B_FLOAT_BITS,    /* every rank: a bit range on f32 keys */
    B_KEYS_VS_PAIRS, /* rank 0 calls pp_mpi_sort_keys, the others pp_mpi_sort_pairs */
    B_N_OUT,         /* the last rank: n_out NULL */
    B_OVERLAP,       /* the last rank: values_out inside keys_out */
    B_BEGIN_BIT,     /* the last rank: another begin_bit */
    B_CTX            /* the last rank: ctx NULL */
} bad;

static void run_bad(bad b, const char *arg, int needs_two)
{
    const int last = mc.rank == mc.size - 1;
    const size_t n = 100;
    uint64_t N = 0, offset = 0;
    free(mc_counts(n, &N, &offset));
    const size_t share = (size_t)share_of(N, mc.rank), cap = share;
    uint32_t hk[100], hv[100];
    for (size_t i = 0; i < n; ++i) hk[i] = (uint32_t)(i * 2654435761u), hv[i] = (uint32_t)(offset + i);
    void *kin = mc_to_ctx(hk, sizeof hk), *vin = mc_to_ctx(hv, sizeof hv);
    void *kout = mc_ctx_alloc(2 * cap * 4 + 4), *vout = mc_ctx_alloc(cap * 4 + 4);
    size_t n_out = 777;
    pp_dtype kt = b == B_FLOAT_BITS ? PP_F32 : PP_U32;
    if (b == B_KEY_TYPE && last) kt = PP_I32;
    pp_sort_order order = b == B_ORDER && mc.rank == 0 ? (pp_sort_order)7 : PP_SORT_ASCENDING;
    const int begin = b == B_FLOAT_BITS ? 0 : b == B_BEGIN_BIT && last ? 4 : 0;
    const int end = b == B_FLOAT_BITS ? 16 : 0;
    void *ko = b == B_NULL_KEYS_OUT && last ? NULL : kout;
    void *vo = b == B_OVERLAP && last ? (unsigned char *)kout + 4 : vout;
    size_t *no = b == B_N_OUT && last ? NULL : &n_out;
    const size_t c = b == B_CAPACITY && last ? cap - 1 : cap;
    pp_context *ctx = b == B_CTX && last ? NULL : mc.ctx;
    pp_status st;
    if (b == B_KEYS_VS_PAIRS ? mc.rank == 0 : 0)
        st = pp_mpi_sort_keys(ctx, mc.comm, kin, n, ko, c, no, kt, order, begin, end);
    else
        st = pp_mpi_sort_pairs(ctx, mc.comm, kin, vin, n, ko, vo, c, no, kt, PP_U32, order, begin, end);
    const int expect_fail = !needs_two || mc.size > 1;
    if (expect_fail) {
        MC_CHECK(st == PP_ERROR_INVALID_ARGUMENT, "bad '%s': status %s", arg, pp_mpi_status_string(st));
        MC_CHECK(strstr(pp_mpi_last_error(), arg) != NULL, "bad '%s': message \"%s\"", arg, pp_mpi_last_error());
        MC_CHECK(n_out == 777, "bad '%s': n_out written (%zu)", arg, n_out);
        unsigned char *gk = (unsigned char *)mc_from_ctx(kout, 2 * cap * 4 + 4),
                      *gv = (unsigned char *)mc_from_ctx(vout, cap * 4 + 4);
        size_t dirty = 0;
        for (size_t i = 0; i < 2 * cap * 4 + 4; ++i) dirty += gk[i] != 0xA5;
        for (size_t i = 0; i < cap * 4 + 4; ++i) dirty += gv[i] != 0xA5;
        MC_CHECK(dirty == 0, "bad '%s': %zu output bytes written", arg, dirty);
        free(gk), free(gv);
    } else {
        MC_CHECK(st == PP_OK, "'%s' on the only rank: status %s (%s)", arg, pp_mpi_status_string(st),
                 pp_mpi_last_error());
    }
    /* every rank agrees on the status */
    int s = (int)st, lo = 0, hi = 0;
    MPI_Allreduce(&s, &lo, 1, MPI_INT, MPI_MIN, mc.comm);
    MPI_Allreduce(&s, &hi, 1, MPI_INT, MPI_MAX, mc.comm);
    MC_CHECK(lo == hi, "bad '%s': the ranks' statuses differ (%d .. %d)", arg, lo, hi);
    mc_ctx_free(kin), mc_ctx_free(vin), mc_ctx_free(kout), mc_ctx_free(vout);
}

static void t_errors(void)
{
    run_bad(B_NULL_KEYS_OUT, "keys_out", 0);
    run_bad(B_KEY_TYPE, "key_type", 1);
    run_bad(B_CAPACITY, "out_capacity", 0);
    run_bad(B_ORDER, "order", 0);
    run_bad(B_FLOAT_BITS, "begin_bit", 0);
    run_bad(B_KEYS_VS_PAIRS, "pairs", 1);
    run_bad(B_N_OUT, "n_out", 0);
    run_bad(B_OVERLAP, "values_out", 0);
    run_bad(B_BEGIN_BIT, "begin_bit", 1);
    run_bad(B_CTX, "ctx", 0);
    pp_mpi_sort_stats s;
    MC_CHECK(pp_mpi_last_sort_stats(NULL) == PP_ERROR_INVALID_ARGUMENT, "stats NULL");
    MC_OK(pp_mpi_last_sort_stats(&s));
    MC_CHECK(s.bytes_sent == 0 && s.bytes_min == 0, "a failed call's stats are not zero");
}

int main(int argc, char **argv)
{
    mc_init(&argc, &argv, "test_mpi_sort");
    mc_run("random", t_random);
    mc_run("few distinct", t_few);
    mc_run("all equal", t_equal);
    mc_run("float specials, integer extremes", t_special);
    mc_run("every rank empty", t_empty);
    mc_run("one rank holds every key", t_one_rank);
    mc_run("value types", t_value_types);
    mc_run("bit ranges", t_bit_ranges);
    mc_run("in place", t_in_place);
    mc_run("large", t_large);
    mc_run("errors", t_errors);
    return mc_finish();
}
