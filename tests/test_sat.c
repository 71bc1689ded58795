/*
 * test_sat.c -- pp_summed_area_table, pp_axis_scan and pp_transpose (issue 21) against serial
 * oracles, on the CPU backend and, where a device is present, on HIP.
 *
 * Shapes: 1 x 1, 1 x n, n x 1, odd and prime sizes, every tile boundary +-1 in each dimension
 * (the GPU's tiles of 16 / 32 rows x 512 columns, the transpose's 64 x 64, the CPU's row
 * blocks), pitches larger than the width (the padding must stay untouched), batches of
 * transposes. Integer results exact (sums wrap), float tables within parprim.h's bound
 * (D = (r + 1) + (c + 1) + PP_SAT_DEPTH_SLACK) against a long double oracle, axis scans within
 * the scan family's bound with D = m + PP_SAT_DEPTH_SLACK; the same bits on a second run, and
 * on the CPU for any thread count; the forced two-pass strategy (asked through
 * pp_context_last_plan) gives the one-pass bits.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define FILL 0xA5

typedef struct shape {
    size_t rows, cols;
} shape;

/* Every table pair. */
static const pp_dtype sat_pairs[][2] = {{PP_U8, PP_U32},  {PP_U8, PP_U64},  {PP_I32, PP_I64}, {PP_U32, PP_U64},
                                        {PP_F32, PP_F32}, {PP_F32, PP_F64}, {PP_F64, PP_F64}};
#define N_SAT_PAIRS (sizeof sat_pairs / sizeof sat_pairs[0])

/* 1 x 1, 1 x n, n x 1, odd / prime, tile boundaries +-1 (rows 16 / 32 / 64, columns 512 /
 * 1024), several of the CPU's row blocks (256 KiB of output each). */
static const shape shapes_all[] = {{1, 1},     {1, 7},     {1, 1000},   {7, 1},     {1000, 1},  {37, 53},
                                   {101, 257}, {15, 511},  {16, 512},   {17, 513},  {31, 1023}, {32, 1024},
                                   {33, 1025}, {63, 511},  {64, 512},   {65, 513},  {3, 2049},  {129, 63},
                                   {300, 1031}, {2003, 67}};
static const shape shapes_quick[] = {{1, 1}, {1, 1000}, {1000, 1}, {37, 53}, {31, 511}, {33, 513}, {65, 1025},
                                     {300, 1031}};

static const shape *test_shapes(size_t *n)
{
    if (tc_thorough()) {
        *n = sizeof shapes_all / sizeof shapes_all[0];
        return shapes_all;
    }
    *n = sizeof shapes_quick / sizeof shapes_quick[0];
    return shapes_quick;
}

/* A pitch for a matrix of `cols` columns: the width, or more. */
static size_t draw_pitch(tc_rng *r, size_t cols, int padded) { return padded ? cols + 1 + (size_t)tc_below(r, 19) : cols; }

/* ---- the table's oracle ---- */

static long double gamma_of(size_t d, pp_dtype out)
{
    const long double u = po_unit_roundoff(out);
    return (long double)d * u / (1.0L - (long double)d * u);
}

/* Check the table `got` (rows x cols of `out`, pitch gp) of host `in` (pitch ip): integers
 * exact modulo 2^bits, floats within the header's bound. */
static void sat_check(const void *in, size_t rows, size_t cols, size_t ip, pp_dtype it, const void *got, size_t gp,
                      pp_dtype ot)
{
    const int fl = tc_is_float(ot);
    const uint64_t mask = tc_mask(ot);
    uint64_t *ib = NULL;
    long double *fv = NULL, *fa = NULL;
    if (fl) {
        fv = (long double *)tc_xmalloc(cols * sizeof *fv);
        fa = (long double *)tc_xmalloc(cols * sizeof *fa);
    } else {
        ib = (uint64_t *)tc_xmalloc(cols * sizeof *ib);
    }
    for (size_t r = 0; r < rows; ++r) {
        uint64_t rowi = 0;
        long double rowf = 0, rowa = 0;
        for (size_t c = 0; c < cols; ++c) {
            const size_t i = r * ip + c, o = r * gp + c;
            if (fl) {
                const long double x = tc_value(in, i, it);
                rowf += x;
                rowa += fabsl(x);
                fv[c] = (r ? fv[c] : 0) + rowf;
                fa[c] = (r ? fa[c] : 0) + rowa;
                const long double g = tc_value(got, o, ot);
                const long double bound = gamma_of((r + 1) + (c + 1) + PP_SAT_DEPTH_SLACK, ot) * fa[c];
                TC_CHECK(fabsl(g - fv[c]) <= bound, "table (%zu, %zu) of %zu x %zu: got %.21Lg, exact %.21Lg, bound %Lg",
                         r, c, rows, cols, g, fv[c], bound);
            } else {
                rowi += po_widen_bits(tc_bits(in, i, it), it);
                ib[c] = (r ? ib[c] : 0) + rowi;
                const uint64_t g = tc_bits(got, o, ot);
                TC_CHECK(g == (ib[c] & mask), "table (%zu, %zu) of %zu x %zu: got %llu, want %llu", r, c, rows, cols,
                         (unsigned long long)g, (unsigned long long)(ib[c] & mask));
            }
        }
    }
    free(ib);
    free(fv);
    free(fa);
}

/* Bytes of a matrix: rows of pitch (the last row `cols` long), plus 64 sentinel bytes. */
static size_t matrix_bytes(size_t rows, size_t cols, size_t pitch, size_t es)
{
    return rows ? ((rows - 1) * pitch + cols) * es + 64 : 64;
}

/* The bytes outside the table's rows x cols elements (pitch padding, the 64 past the end)
 * still hold FILL. */
static void check_untouched(const unsigned char *out, size_t rows, size_t cols, size_t pitch, size_t es)
{
    const size_t total = matrix_bytes(rows, cols, pitch, es);
    for (size_t b = 0; b < total; ++b) {
        const size_t e = b / es, r = e / pitch, c = e % pitch;
        if (r < rows && c < cols && b < total - 64) continue;
        TC_CHECK(out[b] == FILL, "byte %zu (row %zu, column %zu) outside the %zu x %zu matrix was written", b, r, c,
                 rows, cols);
    }
}

/* Run the table of host `in` (rows x cols, pitch ip) in env's context; the output (pitch op, with
 * its border for the integral form) comes back in a new host buffer. */
static unsigned char *run_sat(tc_env *env, const void *in, size_t rows, size_t cols, size_t ip, pp_dtype it,
                              size_t op, pp_dtype ot, pp_sat_form form)
{
    const size_t is = tc_size(it), os = tc_size(ot);
    const size_t orows = rows + (form == PP_SAT_INTEGRAL), ocols = cols + (form == PP_SAT_INTEGRAL);
    const size_t ib = matrix_bytes(rows, cols, ip, is), ob = matrix_bytes(orows, ocols, op, os);
    unsigned char *host = (unsigned char *)tc_xmalloc(ob);
    memset(host, FILL, ob);
    void *din = tc_upload(env->ctx, in, ib);
    void *dout = tc_upload(env->ctx, host, ob);
    TC_OK(env->ctx, pp_summed_area_table(env->ctx, din, rows, cols, ip, it, dout, op, ot, form));
    tc_download(env->ctx, host, dout, ob);
    tc_free(env->ctx, din);
    tc_free(env->ctx, dout);
    return host;
}

static void sat_case(tc_env *env, pp_dtype it, pp_dtype ot, size_t rows, size_t cols, int padded, pp_sat_form form,
                     tc_dist dist)
{
    char tag[128];
    snprintf(tag, sizeof tag, "sat %s->%s %zux%zu pad %d form %d dist %d", tc_dname(it), tc_dname(ot), rows, cols,
             padded, (int)form, (int)dist);
    tc_rng r = tc_rng_for(tag);
    const size_t ip = draw_pitch(&r, cols, padded);
    const size_t op = draw_pitch(&r, cols + (form == PP_SAT_INTEGRAL), padded);
    tc_case("%s: %s (pitches %zu / %zu)", pp_backend_name(env->backend), tag, ip, op);
    const size_t is = tc_size(it), os = tc_size(ot);
    unsigned char *in = (unsigned char *)tc_xmalloc(matrix_bytes(rows, cols, ip, is));
    memset(in, 0x5A, matrix_bytes(rows, cols, ip, is));
    for (size_t row = 0; row < rows; ++row) tc_fill(&r, in + row * ip * is, cols, it, dist);
    unsigned char *got = run_sat(env, in, rows, cols, ip, it, op, ot, form);
    if (form == PP_SAT_INTEGRAL) {
        for (size_t c = 0; c <= cols; ++c) TC_CHECK(tc_bits(got, c, ot) == 0, "integral row 0, column %zu not zero", c);
        for (size_t row = 1; row <= rows; ++row)
            TC_CHECK(tc_bits(got, row * op, ot) == 0, "integral column 0, row %zu not zero", row);
        check_untouched(got, rows + 1, cols + 1, op, os);
        sat_check(in, rows, cols, ip, it, got + (op + 1) * os, op, ot);
    } else {
        check_untouched(got, rows, cols, op, os);
        sat_check(in, rows, cols, ip, it, got, op, ot);
    }
    free(got);
    free(in);
}

static void t_sat_shapes(void **state)
{
    tc_env *env = tc_envp(state);
    size_t ns;
    const shape *sh = test_shapes(&ns);
    for (size_t p = 0; p < N_SAT_PAIRS; ++p)
        for (size_t k = 0; k < ns; ++k)
            for (int form = 0; form < 2; ++form)
                sat_case(env, sat_pairs[p][0], sat_pairs[p][1], sh[k].rows, sh[k].cols, (int)((k + form) % 2),
                         (pp_sat_form)form, TC_RANDOM);
}

/* Positive floats: sums grow, so roundings pile up along the longest chains (the bound's
 * D); and small integers, whose sums are exact in any order. */
static void t_sat_float_data(void **state)
{
    tc_env *env = tc_envp(state);
    const shape sh[] = {{513, 1025}, {2000, 700}, {3001, 2900}}; /* the last: 35 MB of f32 output (the CPU
                                                                   * streams such tables out) */
    for (size_t k = 0; k < (tc_thorough() ? 3u : 2u); ++k) {
        sat_case(env, PP_F32, PP_F32, sh[k].rows, sh[k].cols, 1, PP_SAT_INCLUSIVE, TC_POSITIVE);
        sat_case(env, PP_F32, PP_F64, sh[k].rows, sh[k].cols, 0, PP_SAT_INTEGRAL, TC_POSITIVE);
        sat_case(env, PP_F64, PP_F64, sh[k].rows, sh[k].cols, 0, PP_SAT_INCLUSIVE, TC_POSITIVE);
        sat_case(env, PP_F32, PP_F32, sh[k].rows, sh[k].cols, 0, PP_SAT_INCLUSIVE, TC_SMALLINT);
    }
}

/* Wrapping: u8 -> u32 of 2^24 + bytes of 255 passes 2^32 (checked modulo 2^32). */
static void t_sat_wrap(void **state)
{
    tc_env *env = tc_envp(state);
    const size_t rows = 4100, cols = 4100;
    tc_case("%s: u8->u32 table of %zu x %zu bytes of 255 (wraps)", pp_backend_name(env->backend), rows, cols);
    unsigned char *in = (unsigned char *)tc_xmalloc(matrix_bytes(rows, cols, cols, 1));
    memset(in, 255, matrix_bytes(rows, cols, cols, 1));
    unsigned char *got = run_sat(env, in, rows, cols, cols, PP_U8, cols, PP_U32, PP_SAT_INCLUSIVE);
    for (size_t r = 0; r < rows; r += 97)
        for (size_t c = 0; c < cols; c += 89) {
            const uint32_t want = (uint32_t)((uint64_t)255 * (r + 1) * (c + 1));
            TC_CHECK(tc_bits(got, r * cols + c, PP_U32) == want, "(%zu, %zu)", r, c);
        }
    const uint32_t last = (uint32_t)((uint64_t)255 * rows * cols);
    TC_CHECK(tc_bits(got, rows * cols - 1, PP_U32) == last, "last element");
    free(got);
    free(in);
}

/* The same bits on a second run; on the CPU for 1 and 2 threads; the one-pass and the
 * two-pass strategies forced give the same bits (HIP: the plans say which ran; the CPU ignores
 * the option), and so does the reduce-then-scan one for integers. */
static void t_sat_determinism(void **state)
{
    tc_env *env = tc_envp(state);
    const size_t rows = 700, cols = 1500;
    for (size_t p = 0; p < N_SAT_PAIRS; ++p) {
        const pp_dtype it = sat_pairs[p][0], ot = sat_pairs[p][1];
        tc_case("%s: %s->%s %zu x %zu, repeated", pp_backend_name(env->backend), tc_dname(it), tc_dname(ot), rows, cols);
        char tag[64];
        snprintf(tag, sizeof tag, "determinism %s->%s", tc_dname(it), tc_dname(ot));
        tc_rng r = tc_rng_for(tag);
        unsigned char *in = (unsigned char *)tc_xmalloc(rows * cols * tc_size(it) + 64);
        tc_fill(&r, in, rows * cols, it, TC_RANDOM);
        const size_t ob = rows * cols * tc_size(ot);
        unsigned char *a = run_sat(env, in, rows, cols, cols, it, cols, ot, PP_SAT_INCLUSIVE);
        unsigned char *b = run_sat(env, in, rows, cols, cols, it, cols, ot, PP_SAT_INCLUSIVE);
        TC_CHECK(!memcmp(a, b, ob), "a second run gave other bits");
        free(b);
        if (env->backend == PP_BACKEND_CPU) {
            const int saved = omp_get_max_threads();
            omp_set_num_threads(saved > 1 ? 1 : 2);
            b = run_sat(env, in, rows, cols, cols, it, cols, ot, PP_SAT_INCLUSIVE);
            omp_set_num_threads(saved);
            TC_CHECK(!memcmp(a, b, ob), "another thread count gave other bits");
            free(b);
        }
        static const struct {
            int strategy;
            const char *name;
        } forced[] = {{PP_SAT_STRATEGY_ONE_PASS, "one_pass"},
                      {PP_SAT_STRATEGY_TWO_PASS, "two_pass"},
                      {PP_SAT_STRATEGY_REDUCE_SCAN, "reduce_scan"}};
        unsigned char *one = NULL;
        for (size_t f = 0; f < 3; ++f) {
            TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_SAT_STRATEGY, forced[f].strategy));
            b = run_sat(env, in, rows, cols, cols, it, cols, ot, PP_SAT_INCLUSIVE);
            pp_plan plan;
            TC_OK(env->ctx, pp_context_last_plan(env->ctx, &plan));
            TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_SAT_STRATEGY, PP_SAT_STRATEGY_AUTO));
            TC_CHECK(!strcmp(plan.family, "sat"), "plan family %s", plan.family);
            if (env->backend == PP_BACKEND_HIP)
                TC_CHECK(!strcmp(plan.strategy, forced[f].name), "forced %s ran '%s'", forced[f].name, plan.strategy);
            /* one-pass == two-pass always; every form == AUTO on the CPU (one order) and for
             * integers; HIP's reduce-then-scan floats are checked against the bound below */
            if (f == 0) one = b;
            else if (f == 1) TC_CHECK(!memcmp(one, b, ob), "the two-pass strategy gave other bits than the one-pass");
            if (!tc_is_float(ot) || env->backend == PP_BACKEND_CPU)
                TC_CHECK(!memcmp(a, b, ob), "strategy %s gave other bits than AUTO", forced[f].name);
            else if (f == 2)
                sat_check(in, rows, cols, cols, it, b, cols, ot);
            if (f != 0) free(b);
        }
        free(one);
        free(a);
        free(in);
    }
}

/* The forced strategy over the tile boundaries, against the oracle (HIP asks the plan). */
static void t_sat_two_pass(void **state)
{
    tc_env *env = tc_envp(state);
    TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_SAT_STRATEGY, PP_SAT_STRATEGY_TWO_PASS));
    const shape sh[] = {{1, 1}, {33, 513}, {300, 1031}};
    for (size_t k = 0; k < 3; ++k) {
        sat_case(env, PP_F32, PP_F32, sh[k].rows, sh[k].cols, 1, PP_SAT_INTEGRAL, TC_RANDOM);
        sat_case(env, PP_U8, PP_U32, sh[k].rows, sh[k].cols, 0, PP_SAT_INCLUSIVE, TC_RANDOM);
        pp_plan plan;
        TC_OK(env->ctx, pp_context_last_plan(env->ctx, &plan));
        if (env->backend == PP_BACKEND_HIP && sh[k].rows > 1)
            TC_CHECK(!strcmp(plan.strategy, "two_pass"), "forced two-pass ran '%s'", plan.strategy);
    }
    TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_SAT_STRATEGY, PP_SAT_STRATEGY_AUTO));
}

/* Every strategy forced (HIP: the plan says it ran; the CPU ignores the option) over the edges
 * of the reduce-then-scan form's bands (multiples of 8 rows) and wave tiles (128 or 256
 * columns) and of the one-pass form's tiles, against the oracle. 40 x 4500 and 24 x 16700 have
 * more wave tiles across than a wave has lanes (36 and 131 of 128 columns, 66 of 256), so that
 * a lane sums more than one tile into the corner of the bands' prefix; 8300 x 2 (519 bands of
 * 16 rows) and 3 x 66000 (516 tile columns) give rs_carries walks longer than a wave's lanes
 * hold at once (32 x 16 sums), on a wave of 32. */
static void t_sat_strategies(void **state)
{
    tc_env *env = tc_envp(state);
    static const struct {
        int strategy;
        const char *name;
    } forced[] = {{PP_SAT_STRATEGY_REDUCE_SCAN, "reduce_scan"}, {PP_SAT_STRATEGY_ONE_PASS, "one_pass"}};
    const shape sh[] = {{2, 1},      {8, 128},  {9, 129},   {17, 127},  {7, 255},    {63, 257},
                        {65, 513},   {300, 1031}, {1029, 3}, {40, 4500}, {24, 16700}, {8300, 2},
                        {3, 66000}};
    for (size_t f = 0; f < 2; ++f) {
        TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_SAT_STRATEGY, forced[f].strategy));
        for (size_t k = 0; k < sizeof sh / sizeof sh[0]; ++k)
            for (size_t p = 0; p < N_SAT_PAIRS; ++p) {
                sat_case(env, sat_pairs[p][0], sat_pairs[p][1], sh[k].rows, sh[k].cols, (int)((k + p) % 2),
                         (pp_sat_form)((k + p + f) % 2), TC_RANDOM);
                pp_plan plan;
                TC_OK(env->ctx, pp_context_last_plan(env->ctx, &plan));
                if (env->backend == PP_BACKEND_HIP)
                    TC_CHECK(!strcmp(plan.strategy, forced[f].name), "forced %s ran '%s'", forced[f].name,
                             plan.strategy);
            }
        if (tc_thorough()) /* bands taller than 8 rows where the tiles outnumber the device's aim */
            sat_case(env, PP_U8, PP_U32, 4001, 3000, 1, PP_SAT_INTEGRAL, TC_RANDOM);
    }
    TC_OK(env->ctx, pp_context_set_option(env->ctx, PP_OPTION_SAT_STRATEGY, PP_SAT_STRATEGY_AUTO));
}

/* Empty matrices: nothing written, except the integral image's border. */
static void t_sat_empty(void **state)
{
    tc_env *env = tc_envp(state);
    const shape sh[] = {{0, 0}, {0, 5}, {6, 0}};
    for (size_t k = 0; k < 3; ++k) {
        tc_case("%s: empty %zu x %zu", pp_backend_name(env->backend), sh[k].rows, sh[k].cols);
        TC_OK(env->ctx, pp_summed_area_table(env->ctx, NULL, sh[k].rows, sh[k].cols, sh[k].cols, PP_F32, NULL,
                                             sh[k].cols, PP_F32, PP_SAT_INCLUSIVE));
        const size_t op = sh[k].cols + 3;
        unsigned char *in = (unsigned char *)tc_xmalloc(128);
        memset(in, 0, 128);
        unsigned char *got = run_sat(env, in, sh[k].rows, sh[k].cols, sh[k].cols + 1, PP_F32, op, PP_F64,
                                     PP_SAT_INTEGRAL);
        for (size_t r = 0; r <= sh[k].rows; ++r)
            for (size_t c = 0; c <= sh[k].cols; ++c) TC_CHECK(tc_bits(got, r * op + c, PP_F64) == 0, "(%zu, %zu)", r, c);
        check_untouched(got, sh[k].rows + 1, sh[k].cols + 1, op, 8);
        free(got);
        free(in);
    }
}

/* ---- axis scans ---- */

/* The scan family's bound scaled to D = m + PP_SAT_DEPTH_SLACK. */
static double axis_slack(size_t m)
{
    const double mine = (double)m + PP_SAT_DEPTH_SLACK, scan = 2.0 * po_ceil_log2(m) + PP_SCAN_DEPTH_SLACK;
    return mine > scan ? mine / scan : 1.0;
}

static void axis_case(tc_env *env, pp_dtype it, pp_op opr, pp_dtype ot, pp_axis axis, int variant, size_t rows,
                      size_t cols, int padded)
{
    char tag[160];
    snprintf(tag, sizeof tag, "axis %s %s %s->%s %s v%d %zux%zu pad %d", axis == PP_AXIS_ROWS ? "rows" : "cols",
             tc_oname(opr), tc_dname(it), tc_dname(ot), "scan", variant, rows, cols, padded);
    tc_rng r = tc_rng_for(tag);
    const size_t ip = draw_pitch(&r, cols, padded), op = draw_pitch(&r, cols, padded);
    tc_case("%s: %s (pitches %zu / %zu)", pp_backend_name(env->backend), tag, ip, op);
    const size_t is = tc_size(it), os = tc_size(ot);
    const tc_dist dist = tc_dist_for(opr, it);
    unsigned char *in = (unsigned char *)tc_xmalloc(matrix_bytes(rows, cols, ip, is));
    memset(in, 0x5A, matrix_bytes(rows, cols, ip, is));
    for (size_t row = 0; row < rows; ++row) tc_fill(&r, in + row * ip * is, cols, it, dist);
    _Alignas(8) unsigned char init[8];
    memset(init, 0, 8);
    tc_fill(&r, init, 1, ot, tc_is_float(ot) ? dist : TC_RANDOM);
    const size_t ob = matrix_bytes(rows, cols, op, os);
    unsigned char *got = (unsigned char *)tc_xmalloc(ob);
    memset(got, FILL, ob);
    void *din = tc_upload(env->ctx, in, matrix_bytes(rows, cols, ip, is));
    void *dout = tc_upload(env->ctx, got, ob);
    TC_OK(env->ctx, pp_axis_scan(env->ctx, din, rows, cols, ip, it, axis, opr,
                                 variant ? PP_SCAN_EXCLUSIVE : PP_SCAN_INCLUSIVE, variant == 2 ? init : NULL, dout, op,
                                 ot));
    tc_download(env->ctx, got, dout, ob);
    tc_free(env->ctx, din);
    tc_free(env->ctx, dout);
    check_untouched(got, rows, cols, op, os);
    /* each row / column gathered and checked as a 1-D scan */
    const size_t lines = axis == PP_AXIS_ROWS ? rows : cols, m = axis == PP_AXIS_ROWS ? cols : rows;
    unsigned char *li = (unsigned char *)tc_xmalloc(m * is + 8), *lo = (unsigned char *)tc_xmalloc(m * os + 8);
    const tc_scan s = {it, ot, opr, variant > 0, variant == 2 ? init : NULL, NULL, NULL, 0, 0};
    char why[512];
    for (size_t l = 0; l < lines; ++l) {
        for (size_t k = 0; k < m; ++k) {
            const size_t rr = axis == PP_AXIS_ROWS ? l : k, cc = axis == PP_AXIS_ROWS ? k : l;
            memcpy(li + k * is, in + (rr * ip + cc) * is, is);
            memcpy(lo + k * os, got + (rr * op + cc) * os, os);
        }
        TC_CHECK(po_scan_check(&s, li, m, NULL, FILL, lo, NULL, axis_slack(m), why, sizeof why), "line %zu: %s", l,
                 why);
    }
    free(li);
    free(lo);
    free(got);
    free(in);
}

/* Every (in, op, out) of the scan family, along rows and columns, inclusive, exclusive with
 * the identity and with an init. */
static void t_axis_combos(void **state)
{
    tc_env *env = tc_envp(state);
    tc_combo c[TC_MAX_COMBOS];
    const size_t nc = tc_all_combos(c);
    const shape sh = tc_thorough() ? (shape){45, 1031} : (shape){19, 517};
    for (size_t k = 0; k < nc; ++k)
        for (int axis = 1; axis <= 2; ++axis)
            for (int v = 0; v < 3; ++v)
                axis_case(env, c[k].in, c[k].op, c[k].out, (pp_axis)axis, v, sh.rows, sh.cols, (int)(k % 2));
}

/* Shapes and tile boundaries for a few combos. */
static void t_axis_shapes(void **state)
{
    tc_env *env = tc_envp(state);
    static const tc_combo some[] = {{PP_F32, PP_F32, PP_OP_SUM}, {PP_U8, PP_U32, PP_OP_SUM},
                                    {PP_F64, PP_F64, PP_OP_MAX}, {PP_U32, PP_U32, PP_OP_XOR}};
    size_t ns;
    const shape *sh = test_shapes(&ns);
    for (size_t q = 0; q < sizeof some / sizeof some[0]; ++q)
        for (size_t k = 0; k < ns; ++k)
            for (int axis = 1; axis <= 2; ++axis)
                axis_case(env, some[q].in, some[q].op, some[q].out, (pp_axis)axis, (int)((k + q) % 3), sh[k].rows,
                          sh[k].cols, (int)((k + axis) % 2));
}

/* ---- transpose ---- */

static void transpose_case(tc_env *env, pp_dtype t, size_t rows, size_t cols, size_t batch, int padded)
{
    char tag[96];
    snprintf(tag, sizeof tag, "transpose %s %zux%zu batch %zu pad %d", tc_dname(t), rows, cols, batch, padded);
    tc_rng r = tc_rng_for(tag);
    const size_t ip = draw_pitch(&r, cols, padded), op = draw_pitch(&r, rows, padded), es = tc_size(t);
    tc_case("%s: %s (pitches %zu / %zu)", pp_backend_name(env->backend), tag, ip, op);
    const size_t ib = matrix_bytes(rows * batch, cols, ip, es), ob = matrix_bytes(cols * batch, rows, op, es);
    unsigned char *in = (unsigned char *)tc_xmalloc(ib), *got = (unsigned char *)tc_xmalloc(ob);
    tc_fill(&r, in, ib / es, t, TC_RANDOM);
    memset(got, FILL, ob);
    void *din = tc_upload(env->ctx, in, ib);
    void *dout = tc_upload(env->ctx, got, ob);
    TC_OK(env->ctx, pp_transpose(env->ctx, din, rows, cols, ip, dout, op, t, batch));
    pp_plan plan;
    TC_OK(env->ctx, pp_context_last_plan(env->ctx, &plan));
    TC_CHECK(!strcmp(plan.family, "transpose"), "plan family %s", plan.family);
    tc_download(env->ctx, got, dout, ob);
    tc_free(env->ctx, din);
    tc_free(env->ctx, dout);
    for (size_t k = 0; k < batch; ++k)
        for (size_t i = 0; i < rows; ++i)
            for (size_t j = 0; j < cols; ++j) {
                const uint64_t x = tc_bits(in, (k * rows + i) * ip + j, t);
                const uint64_t y = tc_bits(got, (k * cols + j) * op + i, t);
                TC_CHECK(x == y, "matrix %zu: out (%zu, %zu) = 0x%llx, in (%zu, %zu) = 0x%llx", k, j, i,
                         (unsigned long long)y, i, j, (unsigned long long)x);
            }
    check_untouched(got, cols * batch, rows, op, es);
    free(in);
    free(got);
}

static void t_transpose(void **state)
{
    tc_env *env = tc_envp(state);
    static const shape sh[] = {{1, 1},   {1, 300},  {300, 1},  {37, 53},  {63, 65},   {64, 64},
                               {65, 63}, {127, 129}, {129, 257}, {1000, 3}, {517, 1031}};
    static const pp_dtype ts[] = {PP_U8, PP_F32, PP_U64};
    const size_t ns = tc_thorough() ? sizeof sh / sizeof sh[0] : 7;
    for (size_t t = 0; t < 3; ++t)
        for (size_t k = 0; k < ns; ++k) {
            transpose_case(env, ts[t], sh[k].rows, sh[k].cols, 1, (int)(k % 2));
            transpose_case(env, ts[t], sh[k].rows, sh[k].cols, 3, (int)((k + 1) % 2));
        }
    /* whole tiles with rows of whole vectors (the GPU's vector path: tiles of 128 x 128 1-byte
     * or 64 x 64 4-byte elements), beside edge tiles, in a batch */
    static const shape vs[] = {{256, 260}, {388, 132}};
    for (size_t t = 0; t < 3; ++t)
        for (size_t k = 0; k < 2; ++k) transpose_case(env, ts[t], vs[k].rows, vs[k].cols, 2, 0);
    /* f32 outputs of 32 MiB and more (the CPU streams whole tiles out where the output rows are
     * 16-byte aligned: the unpadded one), edge tiles on both sides */
    transpose_case(env, PP_F32, 2100, 4100, 1, 0);
    if (tc_thorough()) transpose_case(env, PP_F32, 1400, 2050, 3, 1);
    /* the CPU's squares of 16 x 16 tiles (where there are four a thread), partial ones at the
     * edges */
    transpose_case(env, PP_U8, 2100, 2150, 1, 1);
}

int main(void)
{
    tc_init("sat");
    const struct CMUnitTest tests[] = {
        TC_BOTH(t_sat_shapes),    TC_BOTH(t_sat_float_data), TC_BOTH(t_sat_wrap),   TC_BOTH(t_sat_determinism),
        TC_BOTH(t_sat_two_pass),  TC_BOTH(t_sat_strategies), TC_BOTH(t_sat_empty),      TC_BOTH(t_axis_combos), TC_BOTH(t_axis_shapes),
        TC_BOTH(t_transpose),
    };
    return TC_RUN("sat", tests);
}
