/* cases_sat.c -- the 2-D family's rows (issue 21): the transpose (f32, u8), the column scan
 * (f32 sum), the summed-area table (f32 -> f32, u8 -> u32; the forced two-pass form on the
 * GPU), on 16384-row images of the run's n elements (--n 268435456: 16384 x 16384; on the CPU,
 * --n 134217728: 16384 x 8192), per call at 1920 x 1080, and (sat_square, on demand: --only
 * sat_square) on square images of the largest side whose square is at most n, with --option
 * sat_strategy=... to compare the forms where the tuning table switches between them. Bytes:
 * input and output once each (the table's ceiling is the copy row of the same run, reading and
 * writing 8 bytes an f32 pixel). No peer: neither CUB nor oneTBB has these; the copy row is the ceiling.
 * Verified against serial oracles: the f32 inputs are multiples of 2^-23 in [-1, 1), so every
 * sum of up to 2^29 of them is exact in double, and the results must lie within parprim.h's
 * bound of that exact value (with |x| <= 1 bounding sum |x| by the box's area); integers and
 * transposes must be exact. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef enum sat_kind { K_TRANSPOSE, K_COLSCAN, K_SAT } sat_kind;

typedef struct sat_spec {
    sat_kind kind;
    size_t rows; /* 0: 16384 rows of n / 16384 columns; else rows x (n / rows) */
    int square;  /* rows = cols = floor(sqrt(n)) instead */
} sat_spec;

static const sat_spec transpose = {K_TRANSPOSE, 0, 0}, colscan = {K_COLSCAN, 0, 0}, sat = {K_SAT, 0, 0},
                      sat_hd = {K_SAT, 1080, 0}, sat_sq = {K_SAT, 0, 1};

#define HD (1920 * 1080)

static const pb_case cases[] = {
    PB_ROW("transpose", PP_F32, PP_F32, PP_OP_SUM, transpose),
    PB_ROW("transpose", PP_U8, PP_U8, PP_OP_SUM, transpose),
    PB_ROW("colscan_sum", PP_F32, PP_F32, PP_OP_SUM, colscan),
    PB_ROW("sat", PP_F32, PP_F32, PP_OP_SUM, sat),
    PB_ROW("sat", PP_U8, PP_U32, PP_OP_SUM, sat),
    {"sat_two_pass", PP_F32, PP_F32, PP_OP_SUM, 0, 0, "sat_strategy=two_pass", &sat, 0},
    {"sat_two_pass", PP_U8, PP_U32, PP_OP_SUM, 0, 0, "sat_strategy=two_pass", &sat, 0},
    {"sat_one_pass", PP_F32, PP_F32, PP_OP_SUM, 0, 0, "sat_strategy=one_pass", &sat, 0},
    {"sat_one_pass", PP_U8, PP_U32, PP_OP_SUM, 0, 0, "sat_strategy=one_pass", &sat, 0},
    {"sat_1080p", PP_F32, PP_F32, PP_OP_SUM, HD, 0, NULL, &sat_hd, 0},
    {"sat_1080p", PP_U8, PP_U32, PP_OP_SUM, HD, 0, NULL, &sat_hd, 0},
    {"sat_1080p_one_pass", PP_F32, PP_F32, PP_OP_SUM, HD, 0, "sat_strategy=one_pass", &sat_hd, 0},
    {"sat_1080p_one_pass", PP_U8, PP_U32, PP_OP_SUM, HD, 0, "sat_strategy=one_pass", &sat_hd, 0},
    /* on demand: at the GPU's default n it is the sat row again */
    {"sat_square", PP_F32, PP_F32, PP_OP_SUM, 0, 0, NULL, &sat_sq, 1},
    {"sat_square", PP_U8, PP_U32, PP_OP_SUM, 0, 0, NULL, &sat_sq, 1},
};

typedef struct sat_priv {
    size_t rows, cols;
    void *out;           /* context space */
    void *own_host;      /* rows of a fixed size: their own input (the run's arrays hold n) */
    const void *own_dev;
} sat_priv;

static const sat_spec *spec_of(const pb_state *s) { return (const sat_spec *)s->c->spec; }

static int setup(pb_run *r, pb_state *s)
{
    const pb_case *c = s->c;
    sat_priv *p = calloc(1, sizeof *p);
    if (!(s->priv = p)) return -1;
    p->rows = spec_of(s)->rows ? spec_of(s)->rows : (s->n >= 16384 ? 16384 : 1);
    if (spec_of(s)->square)
        for (p->rows = 1; (p->rows + 1) * (p->rows + 1) <= s->n;) ++p->rows;
    p->cols = s->n / p->rows;
    if (p->cols == 0) {
        pb_fail(r, s, "n = %zu is below one row", s->n);
        return -1;
    }
    const size_t px = p->rows * p->cols;
    if (c->fixed_n) { /* the run's input arrays may be shorter than a fixed-size row */
        const size_t es = pp_dtype_size(c->in);
        p->own_host = pb_host_alloc(px * es);
        for (size_t i = 0; i < px; ++i) {
            const uint64_t z = pb_mix64(pb_seed(r) + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull);
            if (c->in == PP_U8) ((uint8_t *)p->own_host)[i] = (uint8_t)(z >> 56);
            else ((float *)p->own_host)[i] = (float)(z >> 40) * 0x1p-23f - 1.0f;
        }
        if (!(p->own_dev = pb_upload(r, p->own_host, px * es))) return -1;
        s->host_in = p->own_host;
        s->in = p->own_dev;
    }
    s->bytes = (double)px * (double)(pp_dtype_size(c->in) + pp_dtype_size(c->out));
    return (p->out = pb_alloc(r, px * pp_dtype_size(c->out))) ? 0 : -1;
}

static pp_status call(pp_context *ctx, const pb_state *s)
{
    const pb_case *c = s->c;
    const sat_priv *p = s->priv;
    switch (spec_of(s)->kind) {
    case K_TRANSPOSE: return pp_transpose(ctx, s->in, p->rows, p->cols, p->cols, p->out, p->rows, c->in, 1);
    case K_COLSCAN:
        return pp_axis_scan(ctx, s->in, p->rows, p->cols, p->cols, c->in, PP_AXIS_COLS, c->op, PP_SCAN_INCLUSIVE, NULL,
                            p->out, p->cols, c->out);
    default:
        return pp_summed_area_table(ctx, s->in, p->rows, p->cols, p->cols, c->in, p->out, p->cols, c->out,
                                    PP_SAT_INCLUSIVE);
    }
}

/* u of the output type and the g of a D-rounding sum. */
static double gamma_of(double d, pp_dtype out)
{
    const double u = out == PP_F32 ? 0x1p-24 : 0x1p-53;
    return d * u / (1 - d * u);
}

static int verify(pb_run *r, pb_state *s, char *why, size_t why_size)
{
    const pb_case *c = s->c;
    sat_priv *p = s->priv;
    const size_t rows = p->rows, cols = p->cols, px = rows * cols, osz = pp_dtype_size(c->out);
    unsigned char *got = pb_host_alloc(px * osz);
    if (pb_download(r, got, p->out, px * osz)) {
        free(got);
        snprintf(why, why_size, "could not read back the output");
        return 0;
    }
    int ok = 1;
    const sat_kind k = spec_of(s)->kind;
    if (k == K_TRANSPOSE) {
        const size_t es = pp_dtype_size(c->in);
        const unsigned char *in = s->host_in;
        for (size_t i = 0; i < rows && ok; ++i)
            for (size_t j = 0; j < cols && ok; ++j)
                if (memcmp(got + (j * rows + i) * es, in + (i * cols + j) * es, es)) {
                    snprintf(why, why_size, "out (%zu, %zu) is not in (%zu, %zu)", j, i, i, j);
                    ok = 0;
                }
        free(got);
        return ok;
    }
    /* columns (k == K_COLSCAN) or the table, row after row: acc[c] is the exact output above */
    double *acc = calloc(cols, sizeof *acc);
    uint32_t *iacc = calloc(cols, sizeof *iacc);
    if (!acc || !iacc) {
        free(acc), free(iacc), free(got);
        snprintf(why, why_size, "out of host memory");
        return 0;
    }
    for (size_t i = 0; i < rows && ok; ++i) {
        double row = 0;
        uint32_t irow = 0;
        for (size_t j = 0; j < cols && ok; ++j) {
            const size_t e = i * cols + j;
            if (c->in == PP_U8) {
                irow += ((const uint8_t *)s->host_in)[e];
                iacc[j] += k == K_SAT ? irow : ((const uint8_t *)s->host_in)[e];
                const uint32_t g = ((const uint32_t *)got)[e];
                if (g != iacc[j]) {
                    snprintf(why, why_size, "(%zu, %zu) = %u, want %u", i, j, g, iacc[j]);
                    ok = 0;
                }
            } else {
                const double x = ((const float *)s->host_in)[e];
                row += x;
                acc[j] += k == K_SAT ? row : x;
                const double g = c->out == PP_F32 ? ((const float *)got)[e] : ((const double *)got)[e];
                /* |x| <= 1 bounds sum |x| by the area the output covers */
                const double area = k == K_SAT ? (double)(i + 1) * (double)(j + 1) : (double)(i + 1);
                const double d = k == K_SAT ? (double)(i + j + 2 + PP_SAT_DEPTH_SLACK) : (double)(i + 1 + PP_SAT_DEPTH_SLACK);
                if (!(fabs(g - acc[j]) <= gamma_of(d, c->out) * area)) {
                    snprintf(why, why_size, "(%zu, %zu) = %.9g, exact %.17g, bound %.3g", i, j, g, acc[j],
                             gamma_of(d, c->out) * area);
                    ok = 0;
                }
            }
        }
    }
    free(acc);
    free(iacc);
    free(got);
    return ok;
}

static void teardown(pb_run *r, pb_state *s)
{
    sat_priv *p = s->priv;
    if (p) {
        pb_release(r, p->out);
        if (p->own_dev) pb_release_upload(r, p->own_dev);
        free(p->own_host);
    }
    free(p);
    s->priv = NULL;
}

const pb_family pb_family_sat = {
    "sat", cases, sizeof cases / sizeof cases[0], setup, call, verify, NULL, teardown, NULL,
    "  transpose f32, u8; colscan_sum f32; sat f32->f32, u8->u32 (16384 rows of n / 16384 columns),\n"
    "  sat_two_pass, sat_one_pass (GPU: those strategies forced; sat runs the device's AUTO),\n"
    "  sat_1080p (1920 x 1080 per call), sat_1080p_one_pass; on demand (--only sat_square):\n"
    "  sat_square f32->f32, u8->u32 (the largest square image within n)\n"};
