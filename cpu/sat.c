/*
 * sat.c -- the 2-D family on the CPU (OpenMP, issue 21): scans along rows or columns of a
 * matrix for every (in_type, op, out_type) of the scan family, the summed-area table, and the
 * cache-blocked transpose.
 *
 * Each kernel is the template header cpu/sat_impl.h, included once per (in, op, out), with the
 * operators and accumulator types of cpu/scan.c (cpu/common.h): integer sums, products and
 * bitwise ops wrap in the unsigned type of the output's width (a signed and an unsigned input
 * of one width share the kernel), min / max in the input type, floats in the output type.
 *
 * Orders of evaluation (fixed by the shape alone, never by the thread count, so every run
 * gives the same bits):
 *   rows     each row left to right, one element after another (four rows' chains side by
 *            side, skewed: sat_impl.h's rows4);
 *   columns  each column top to bottom, row r from row r - 1 (vectorized across a strip);
 *   table    P(r, c) = the row prefix of row r at c: as a row scan, except in the f32 -> f32
 *            table, where it is taken four columns at a time (sat_rows_f32, below). The rows
 *            are cut into blocks of rb rows (rb from the shape alone: at most SAT_BLOCKS
 *            blocks); block b's V_b(c) is the row prefix of its column sums (each column
 *            summed top to bottom), its carry C_b = C_(b-1) + V_(b-1) (C_1 = V_0), and the
 *            table is T(r0, c) = C_b(c) + P(r0, c) at the block's first row r0 (P alone in
 *            block 0), T(r, c) = T(r - 1, c) + P(r, c) below it. A term passes through at most (c + 1) + (r + 1) roundings:
 *            parprim.h's bound with slack to spare.
 * A single row (and a single contiguous column) is the 1-D scan of cpu/scan.c.
 *
 * The table: the blocks in one run of consecutive blocks a thread (chunks); the column sums
 * of the blocks above the last chunk (their first read, in parallel), the carries down to
 * it (one thread), then every chunk's blocks in order (in parallel), four rows' prefixes at
 * a time while they are in the cache, the last chunk taking its blocks' column sums as it
 * goes and carrying C_b down itself (sat_impl.h's G_(sat); the tables of other types only
 * when larger than the caches); f32 -> f32: the four rows' T built in registers from P,
 * column group by column group, and stored once. Half the input is read twice on two
 * threads, none of it on one. No thread waits on another but at the
 * ends of the passes. (A first version made one pass over blocks claimed in order, each
 * waiting for the block above's last row: with other processes on the two cores, a waiting
 * thread yielded and the table ran at a fifth of a copy's speed, slower on two threads than
 * on one.)
 *
 * The transpose: tiles of TT x TT elements (64 x 64), each read row by row into a buffer and
 * written row by row of the output from it (transpose_tile; whole tiles of 4-byte elements in
 * 4 x 4 blocks transposed in SSE2 registers, into a second buffer and streamed out where the
 * output is larger than the caches); the tiles of every matrix of the batch, in squares of
 * ST_TILES x ST_TILES tiles where there are enough, are spread over the threads.
 */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "common.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define ROW_BATCH 16                    /* rows a thread takes at a time (row scans) */
#define SKEW 16                         /* columns between the chains of rows scanned together */
#define SAT_BLOCKS 256                  /* the table's blocks of rows (at most) */
#define TT 64                           /* transpose tiles: TT x TT elements */
#define ST_TILES 16                     /* ... taken in squares of ST_TILES x ST_TILES tiles */
#define PAR_MIN_ELEMS ((size_t)1 << 16) /* smaller matrices run on one thread */
#define STREAM_MIN_BYTES ((size_t)32 << 20) /* tables this large are streamed to the output */
#define STAGE_MAX_BYTES ((size_t)1 << 20)   /* ... through staging rows of at most this much */

#define ALWAYS_INLINE static inline __attribute__((always_inline))


/* How a call runs: threads, the table's block rows, its carries (blocks x cols accumulators)
 * and its staging rows (5 rows a thread, or NULL). */
struct grid_plan {
    int threads;
    size_t block_rows;
    void *carry;
    void *stage;
    int chunked; /* the table's column sums taken in its last chunk (sat_impl.h's G_(sat)) */
};

/* Copy `bytes` from the cached row src to dst with non-temporal stores where there are any
 * (SSE2; the 16-byte aligned body of dst), so that an output larger than the caches costs one
 * write instead of a read for ownership and a write-back. */
static inline void stream_row(void *dst, const void *src, size_t bytes)
{
#if defined(__SSE2__)
    const size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
    if (bytes >= head + 16) {
        memcpy(dst, src, head);
        const size_t body = (bytes - head) & ~(size_t)15;
        __m128i *d = (__m128i *)((char *)dst + head);
        const char *q = (const char *)src + head;
        for (size_t i = 0; i < body / 16; ++i) _mm_stream_si128(d + i, _mm_loadu_si128((const __m128i *)(q + 16 * i)));
        memcpy((char *)dst + head + body, q + body, bytes - head - body);
        return;
    }
#endif
    memcpy(dst, src, bytes);
}

/* Order the non-temporal stores before whatever follows. */
static inline void stream_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/* ---- the f32 table's rows: a prefix four columns at a time ----
 *
 * P(r, c), the row prefix of the f32 -> f32 table, is taken in groups of four columns: within a
 * group by two shifted adds (lane k: s_k = x_k + x_(k-1), then s_k + s_(k-2): a tree of depth
 * 2), then the running sum of the groups to its left added to every lane (c + s_k, one add).
 * The one-add-per-element chain of a row becomes one add and a broadcast per four elements, so
 * four rows side by side leave the adds' latency hidden with room to spare. The lanes a shift
 * empties, the missing carry of a row's first group, the missing row above of the table's first
 * row and a row's last partial group hold -0.0, which every x + -0.0 returns bit for bit: the
 * order is the shape's alone, on every target (generic vectors, no ISA dispatch). A term's
 * roundings in P(r, c): at most 2 + 1 + (c / 4) <= c + 1 (parprim.h's D counts c + 1). */
typedef float v4f __attribute__((vector_size(16)));
#if defined(__SSE2__)
/* the lanes shifted by 1 / 2, the emptied ones -0.0; lane 3 in every lane */
ALWAYS_INLINE v4f shift1_f32(v4f v)
{
    const __m128i s = _mm_slli_si128(_mm_castps_si128((__m128)v), 4);
    return (v4f)_mm_or_ps(_mm_castsi128_ps(s), _mm_castsi128_ps(_mm_set_epi32(0, 0, 0, INT32_MIN)));
}
ALWAYS_INLINE v4f shift2_f32(v4f v)
{
    const __m128i s = _mm_slli_si128(_mm_castps_si128((__m128)v), 8);
    return (v4f)_mm_or_ps(_mm_castsi128_ps(s), _mm_castsi128_ps(_mm_set_epi32(0, 0, INT32_MIN, INT32_MIN)));
}
ALWAYS_INLINE v4f lane3_f32(v4f v) { return (v4f)_mm_shuffle_ps((__m128)v, (__m128)v, 0xFF); }
#else
ALWAYS_INLINE v4f shift1_f32(v4f v) { return (v4f){-0.0f, v[0], v[1], v[2]}; }
ALWAYS_INLINE v4f shift2_f32(v4f v) { return (v4f){-0.0f, -0.0f, v[0], v[1]}; }
ALWAYS_INLINE v4f lane3_f32(v4f v) { return (v4f){v[3], v[3], v[3], v[3]}; }
#endif

ALWAYS_INLINE v4f pfx4_f32(v4f v)
{
    v = v + shift1_f32(v);
    return v + shift2_f32(v);
}

ALWAYS_INLINE v4f load4_f32(const float *src)
{
#if defined(__SSE2__)
    return (v4f)_mm_loadu_ps(src);
#else
    v4f v;
    memcpy(&v, src, sizeof v);
    return v;
#endif
}

ALWAYS_INLINE void store4_f32(float *dst, v4f v, const int nt)
{
#if defined(__SSE2__)
    if (nt) {
        _mm_stream_ps(dst, (__m128)v);
        return;
    }
#else
    (void)nt;
#endif
    memcpy(dst, &v, sizeof v);
}

/* Row j of a group at columns [i, i + 4): P from its carry c_j, T = t + P into t, stored. */
#define SAT_F32_ROW(j)                                                                          \
    do {                                                                                        \
        const v4f p = c##j + pfx4_f32(v##j);                                                    \
        c##j = lane3_f32(p);                                                                    \
        t = t + p;                                                                              \
        store4_f32(y + j * op + i, t, nt);                                                      \
    } while (0)

/* Four rows of the table from the row above (`above`, NULL for the table's first row): row
 * j's T = T(row j - 1) + P(row j), column group by column group (the four rows' loads first:
 * a store to one row and a load of the next at the same offset would alias 4 KiB apart); the
 * last row's T also goes to `keep` where given (the next group's row above); nt: the output
 * with non-temporal stores (16-byte aligned rows). The last partial group: sat_rows_f32_tail. */
ALWAYS_INLINE size_t sat_rows4_f32_k(const float *x, size_t ip, float *y, size_t op, size_t n, const float *above,
                                     float *keep, const int nt, float *sums, const int first, v4f *carry)
{
    const v4f nz = {-0.0f, -0.0f, -0.0f, -0.0f};
    v4f c0 = nz, c1 = nz, c2 = nz, c3 = nz;
    const float *x0 = x, *x1 = x + ip, *x2 = x + 2 * ip, *x3 = x + 3 * ip;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4f t = above ? load4_f32(above + i) : nz;
        const v4f v0 = load4_f32(x0 + i), v1 = load4_f32(x1 + i), v2 = load4_f32(x2 + i), v3 = load4_f32(x3 + i);
        if (sums) {
            const v4f s = (first ? nz : load4_f32(sums + i)) + v0;
            const v4f s3 = ((s + v1) + v2) + v3;
            memcpy(sums + i, &s3, sizeof s3);
        }
        SAT_F32_ROW(0);
        SAT_F32_ROW(1);
        SAT_F32_ROW(2);
        SAT_F32_ROW(3);
        if (keep) memcpy(keep + i, &t, sizeof t);
    }
    carry[0] = c0;
    carry[1] = c1;
    carry[2] = c2;
    carry[3] = c3;
    return i;
}

/* One row, the same operations. */
ALWAYS_INLINE size_t sat_row1_f32_k(const float *x, float *y, size_t n, const float *above, float *keep,
                                    const int nt, float *sums, const int first, v4f *carry)
{
    const v4f nz = {-0.0f, -0.0f, -0.0f, -0.0f};
    const size_t op = 0;
    v4f c0 = nz;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4f t = above ? load4_f32(above + i) : nz;
        const v4f v0 = load4_f32(x + i);
        if (sums) {
            const v4f s = (first ? nz : load4_f32(sums + i)) + v0;
            memcpy(sums + i, &s, sizeof s);
        }
        SAT_F32_ROW(0);
        if (keep) memcpy(keep + i, &t, sizeof t);
    }
    carry[0] = c0;
    return i;
}
#undef SAT_F32_ROW

/* Columns [i, n) (fewer than four) of g rows, padded with -0.0, from their carries. */
static void sat_rows_f32_tail(const float *x, size_t ip, float *y, size_t op, size_t n, size_t i, size_t g,
                              const float *above, float *keep, float *sums, int first, const v4f *carry)
{
    if (i == n) return;
    const size_t w = n - i;
    v4f t = {-0.0f, -0.0f, -0.0f, -0.0f}, s = t;
    if (above) memcpy(&t, above + i, w * sizeof(float));
    if (sums && !first) memcpy(&s, sums + i, w * sizeof(float));
    for (size_t j = 0; j < g; ++j) {
        v4f v = {-0.0f, -0.0f, -0.0f, -0.0f};
        memcpy(&v, x + j * ip + i, w * sizeof(float));
        s = s + v;
        t = t + (carry[j] + pfx4_f32(v));
        memcpy(y + j * op + i, &t, w * sizeof(float));
    }
    if (keep) memcpy(keep + i, &t, w * sizeof(float));
    if (sums) memcpy(sums + i, &s, w * sizeof(float));
}

/* Rows [0, h) of one block of the f32 table (cpu/sat_impl.h's third pass): four rows at a
 * time, then one. above: the block's carry C_b (NULL in block 0); keep: a row of the thread's
 * own that carries T from one group of rows to the next (then the output is streamed out), or
 * NULL (the row above is read back from the output); sums: where not NULL, receives the
 * block's column sums (each column top to bottom, its first row's element as it is: the bits
 * of sat_impl.h's colsums). */
static void sat_rows_f32(const float *x, size_t ip, float *y, size_t op, size_t n, size_t h, const float *above,
                         float *keep, float *sums)
{
    const int nt = keep && ((uintptr_t)y & 15) == 0 && op % 4 == 0;
    for (size_t r = 0; r < h;) {
        const size_t g = h - r >= 4 ? 4 : 1;
        const float *xr = x + r * ip;
        float *yr = y + r * op;
        const int first = r == 0;
        v4f carry[4];
        size_t i;
        /* the variants spelled out, so that each loop is compiled without the branches */
#define SAT_ROWS_CALL(ABOVE, NT)                                                                         \
    (g == 4 ? sat_rows4_f32_k(xr, ip, yr, op, n, ABOVE, keep, NT, sums, first, carry)                    \
            : sat_row1_f32_k(xr, yr, n, ABOVE, keep, NT, sums, first, carry))
        if (nt) i = above ? SAT_ROWS_CALL(above, 1) : SAT_ROWS_CALL(NULL, 1);
        else i = above ? SAT_ROWS_CALL(above, 0) : SAT_ROWS_CALL(NULL, 0);
#undef SAT_ROWS_CALL
        sat_rows_f32_tail(xr, ip, yr, op, n, i, g, above, keep, sums, first, carry);
        above = keep ? keep : y + (r + g - 1) * op;
        r += g;
    }
}

/* ---- instantiations: sat_impl.h once per kernel ---- */
#define NAME u8_u8_sum
#define IN uint8_t
#define A uint8_t
#define OP OP_SUM
#define SAT 0
#include "sat_impl.h"
#define NAME u8_u8_prod
#define IN uint8_t
#define A uint8_t
#define OP OP_PROD
#define SAT 0
#include "sat_impl.h"
#define NAME u8_u8_and
#define IN uint8_t
#define A uint8_t
#define OP OP_AND
#define SAT 0
#include "sat_impl.h"
#define NAME u8_u8_or
#define IN uint8_t
#define A uint8_t
#define OP OP_OR
#define SAT 0
#include "sat_impl.h"
#define NAME u8_u8_xor
#define IN uint8_t
#define A uint8_t
#define OP OP_XOR
#define SAT 0
#include "sat_impl.h"
#define NAME u32_u32_sum
#define IN uint32_t
#define A uint32_t
#define OP OP_SUM
#define SAT 0
#include "sat_impl.h"
#define NAME u32_u32_prod
#define IN uint32_t
#define A uint32_t
#define OP OP_PROD
#define SAT 0
#include "sat_impl.h"
#define NAME u32_u32_and
#define IN uint32_t
#define A uint32_t
#define OP OP_AND
#define SAT 0
#include "sat_impl.h"
#define NAME u32_u32_or
#define IN uint32_t
#define A uint32_t
#define OP OP_OR
#define SAT 0
#include "sat_impl.h"
#define NAME u32_u32_xor
#define IN uint32_t
#define A uint32_t
#define OP OP_XOR
#define SAT 0
#include "sat_impl.h"
#define NAME u64_u64_sum
#define IN uint64_t
#define A uint64_t
#define OP OP_SUM
#define SAT 0
#include "sat_impl.h"
#define NAME u64_u64_prod
#define IN uint64_t
#define A uint64_t
#define OP OP_PROD
#define SAT 0
#include "sat_impl.h"
#define NAME u64_u64_and
#define IN uint64_t
#define A uint64_t
#define OP OP_AND
#define SAT 0
#include "sat_impl.h"
#define NAME u64_u64_or
#define IN uint64_t
#define A uint64_t
#define OP OP_OR
#define SAT 0
#include "sat_impl.h"
#define NAME u64_u64_xor
#define IN uint64_t
#define A uint64_t
#define OP OP_XOR
#define SAT 0
#include "sat_impl.h"
#define NAME u8_u8_min
#define IN uint8_t
#define A uint8_t
#define OP OP_IMIN
#define SAT 0
#include "sat_impl.h"
#define NAME u8_u8_max
#define IN uint8_t
#define A uint8_t
#define OP OP_IMAX
#define SAT 0
#include "sat_impl.h"
#define NAME i32_i32_min
#define IN int32_t
#define A int32_t
#define OP OP_IMIN
#define SAT 0
#include "sat_impl.h"
#define NAME i32_i32_max
#define IN int32_t
#define A int32_t
#define OP OP_IMAX
#define SAT 0
#include "sat_impl.h"
#define NAME u32_u32_min
#define IN uint32_t
#define A uint32_t
#define OP OP_IMIN
#define SAT 0
#include "sat_impl.h"
#define NAME u32_u32_max
#define IN uint32_t
#define A uint32_t
#define OP OP_IMAX
#define SAT 0
#include "sat_impl.h"
#define NAME i64_i64_min
#define IN int64_t
#define A int64_t
#define OP OP_IMIN
#define SAT 0
#include "sat_impl.h"
#define NAME i64_i64_max
#define IN int64_t
#define A int64_t
#define OP OP_IMAX
#define SAT 0
#include "sat_impl.h"
#define NAME u64_u64_min
#define IN uint64_t
#define A uint64_t
#define OP OP_IMIN
#define SAT 0
#include "sat_impl.h"
#define NAME u64_u64_max
#define IN uint64_t
#define A uint64_t
#define OP OP_IMAX
#define SAT 0
#include "sat_impl.h"
#define NAME f32_f32_min
#define IN float
#define A float
#define OP OP_FMIN
#define SAT 0
#include "sat_impl.h"
#define NAME f32_f32_max
#define IN float
#define A float
#define OP OP_FMAX
#define SAT 0
#include "sat_impl.h"
#define NAME f32_f32_sum
#define IN float
#define A float
#define OP OP_SUM
#define SAT 1
#define SAT_ROWS sat_rows_f32
#include "sat_impl.h"
#define NAME f32_f32_prod
#define IN float
#define A float
#define OP OP_PROD
#define SAT 0
#include "sat_impl.h"
#define NAME f64_f64_min
#define IN double
#define A double
#define OP OP_FMIN
#define SAT 0
#include "sat_impl.h"
#define NAME f64_f64_max
#define IN double
#define A double
#define OP OP_FMAX
#define SAT 0
#include "sat_impl.h"
#define NAME f64_f64_sum
#define IN double
#define A double
#define OP OP_SUM
#define SAT 1
#include "sat_impl.h"
#define NAME f64_f64_prod
#define IN double
#define A double
#define OP OP_PROD
#define SAT 0
#include "sat_impl.h"
#define NAME u8_u32_sum
#define IN uint8_t
#define A uint32_t
#define OP OP_SUM
#define SAT 1
#include "sat_impl.h"
#define NAME u8_u64_sum
#define IN uint8_t
#define A uint64_t
#define OP OP_SUM
#define SAT 1
#include "sat_impl.h"
#define NAME i32_i64_sum
#define IN int32_t
#define A uint64_t
#define OP OP_SUM
#define SAT 1
#include "sat_impl.h"
#define NAME u32_u64_sum
#define IN uint32_t
#define A uint64_t
#define OP OP_SUM
#define SAT 1
#include "sat_impl.h"
#define NAME f32_f64_sum
#define IN float
#define A double
#define OP OP_SUM
#define SAT 1
#include "sat_impl.h"

/* ---- dispatch ---- */

typedef void (*grid_fn)(const pp_grid_args *a, const struct grid_plan *p);

/* [in][out][op], as cpu/scan.c's table: a same-type row takes the kernel of the unsigned type
 * of its width for the exact ops, its own for min and max. */
#define SAT_UNS_PP_U8 PP_U8
#define SAT_UNS_PP_I32 PP_U32
#define SAT_UNS_PP_U32 PP_U32
#define SAT_UNS_PP_I64 PP_U64
#define SAT_UNS_PP_U64 PP_U64
#define SAT_UNS_PP_F32 PP_F32
#define SAT_UNS_PP_F64 PP_F64
#define SAT_EXACT(IN, op) CPU_KERNEL(CPU_CAT(SAT_UNS_, IN), CPU_CAT(SAT_UNS_, IN), op, grid)
#define SAT_PICK_SUM SAT_EXACT
#define SAT_PICK_PROD SAT_EXACT
#define SAT_PICK_AND SAT_EXACT
#define SAT_PICK_OR SAT_EXACT
#define SAT_PICK_XOR SAT_EXACT
#define SAT_PICK_MIN(IN, op) CPU_KERNEL(IN, IN, op, grid)
#define SAT_PICK_MAX(IN, op) CPU_KERNEL(IN, IN, op, grid)
#define SAT_SAME(IN, OUT, OP, op) [PP_OP_##OP] = SAT_PICK_##OP(IN, op),
#define SAT_WIDE(IN, OUT, OP, op) [PP_OP_##OP] = CPU_KERNEL(IN, OUT, op, grid),
static const grid_fn grid_impls CPU_TABLE_DIMS = {CPU_DISPATCH_ROWS(SAT_SAME, SAT_WIDE)};

static const char *grid_entry(const pp_grid_args *a)
{
    return a->kind == PP_GRID_SAT ? "pp_summed_area_table" : "pp_axis_scan";
}

/* The 1-D scan of n contiguous elements (a single row, or a single column of pitch 1). */
static pp_status scan_1d(pp_context *ctx, const pp_grid_args *a, size_t n)
{
    pp_scan_args s;
    memset(&s, 0, sizeof s);
    s.in = a->in;
    s.n = n;
    s.in_type = a->in_type;
    s.op = a->op;
    s.exclusive = a->exclusive;
    memcpy(s.init, a->init, sizeof s.init);
    s.out = a->out;
    s.out_type = a->out_type;
    return pp__cpu_scan(ctx, &s);
}

/* The integral image's zero row and column. */
static void integral_border(const pp_grid_args *a)
{
    const size_t osz = pp_dtype_size(a->out_type), op = a->out_pitch;
    char *base = (char *)a->out - (op + 1) * osz;
    memset(base, 0, (a->cols + 1) * osz);
    for (size_t r = 1; r <= a->rows; ++r) memset(base + r * op * osz, 0, osz);
}

/* The plan: family "sat" (the table) or "axis_scan", strategy "cpu" or "cpu_1d" (a single row
 * or contiguous column, cpu/scan.c), tiles = the table's row blocks, param[0] = threads,
 * param[1] = rows per block of the table, param[2] = 1 where the table is streamed out. */
pp_status pp__cpu_grid_scan(pp_context *ctx, const pp_grid_args *a)
{
    const grid_fn fn = cpu_table_index_ok(a->in_type, a->op, a->out_type) ? grid_impls[a->in_type][a->out_type][a->op]
                                                                          : NULL;
    if (!fn) return cpu_no_kernel(ctx, grid_entry(a), a->in_type, a->op, a->out_type);
    const char *family = a->kind == PP_GRID_SAT ? "sat" : "axis_scan";
    const int one_row = a->rows == 1 && a->kind != PP_GRID_SCAN_COLS;
    const int one_col = a->cols == 1 && a->in_pitch == 1 && a->out_pitch == 1 && a->kind != PP_GRID_SCAN_ROWS;
    if (one_row || one_col) {
        const size_t n = one_row ? a->cols : a->rows;
        PP_TRY(scan_1d(ctx, a, n));
        if (a->kind == PP_GRID_SAT && a->integral) integral_border(a);
        const pp_plan inner = ctx->plan;
        pp__set_plan(ctx, family, "cpu_1d", 0, inner.tiles, inner.param[0], 0, 0, 0);
        return PP_OK;
    }
    const size_t osz = pp_dtype_size(a->out_type);
    const size_t elems = a->rows * a->cols;
    struct grid_plan p = {elems >= PAR_MIN_ELEMS ? omp_get_max_threads() : 1, 0, NULL, NULL, 0};
    size_t blocks = 0;
    if (a->kind == PP_GRID_SAT) {
        /* at most SAT_BLOCKS blocks, of at least 16 rows: from the shape alone */
        const size_t rb = (a->rows + SAT_BLOCKS - 1) / SAT_BLOCKS;
        p.block_rows = rb < 16 ? 16 : rb;
        blocks = (a->rows + p.block_rows - 1) / p.block_rows;
        const size_t row_bytes = a->cols * osz;
        /* tables larger than the caches: each block's column sums taken just before its rows,
         * in the last chunk, rather than read once more from memory (the f32 table takes them
         * in its rows at any size) */
        p.chunked = elems * osz >= STREAM_MIN_BYTES;
        const int stage = p.chunked && 5 * row_bytes <= STAGE_MAX_BYTES;
        const size_t carry_bytes = blocks > 1 ? blocks * row_bytes : 0; /* blocks <= SAT_BLOCKS: no overflow */
        if (row_bytes > SIZE_MAX / SAT_BLOCKS)
            return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: the carries of %zu blocks of %zu columns overflow",
                            grid_entry(a), blocks, a->cols);
        const size_t stage_bytes = stage ? (size_t)p.threads * 5 * row_bytes : 0;
        if (carry_bytes + stage_bytes > 0) {
            void *mem;
            PP_TRY(cpu_scratch(ctx, grid_entry(a), carry_bytes + stage_bytes, &mem));
            p.carry = mem;
            p.stage = stage ? (char *)mem + carry_bytes : NULL;
        }
        if (a->integral) integral_border(a);
    }
    pp__set_plan(ctx, family, "cpu", 0, blocks, p.threads, (int64_t)p.block_rows, p.stage != NULL, 0);
    fn(a, &p);
    return PP_OK;
}

/* ---- transpose ---- */

/* One tile, rows [r0, r1) x columns [c0, c1) of one matrix, through a buffer in L1: its rows
 * read one after another into the buffer, then the output's rows written one after another
 * from it. Every cache line is then touched once, in one go: at a power-of-two pitch the
 * tile's 64 rows share a few cache sets, and the element-by-element transpose, which visits
 * every row of the tile for each element, ran at a tenth of a copy's speed. */
#define TRANSPOSE_TILE(T)                                                                       \
    do {                                                                                        \
        const T *x = (const T *)in;                                                             \
        T *y = (T *)out;                                                                        \
        T *b = (T *)buf;                                                                        \
        const size_t h = r1 - r0, w = c1 - c0;                                                  \
        for (size_t i = 0; i < h; ++i) memcpy(b + i * TT, x + (r0 + i) * ip + c0, w * sizeof(T)); \
        for (size_t j = 0; j < w; ++j) {                                                        \
            T *yr = y + (c0 + j) * op + r0;                                                     \
            for (size_t i = 0; i < h; ++i) yr[i] = b[i * TT + j];                               \
        }                                                                                       \
    } while (0)

#if defined(__SSE2__)
/* 4-byte elements, a whole TT x TT tile: blocks of 4 x 4 transposed in SSE registers, read from
 * the buffer b and written to y 16 bytes at a time (a quarter of the stores). */
static void transpose_tile4_sse(const uint32_t *x, uint32_t *y, size_t ip, size_t op, uint32_t *b)
{
    for (size_t i = 0; i < TT; ++i) {
        memcpy(b + i * TT, x + i * ip, TT * sizeof(uint32_t));
        const uintptr_t next = (uintptr_t)(x + i * ip) + TT * sizeof(uint32_t);
        for (size_t l = 0; l < TT * sizeof(uint32_t); l += 64) __builtin_prefetch((const void *)(next + l));
    }
    for (size_t j = 0; j < TT; j += 4)
        for (size_t i = 0; i < TT; i += 4) {
            const __m128 q0 = _mm_castsi128_ps(_mm_load_si128((const __m128i *)(b + i * TT + j)));
            const __m128 q1 = _mm_castsi128_ps(_mm_load_si128((const __m128i *)(b + (i + 1) * TT + j)));
            const __m128 q2 = _mm_castsi128_ps(_mm_load_si128((const __m128i *)(b + (i + 2) * TT + j)));
            const __m128 q3 = _mm_castsi128_ps(_mm_load_si128((const __m128i *)(b + (i + 3) * TT + j)));
            const __m128 t0 = _mm_unpacklo_ps(q0, q1), t1 = _mm_unpacklo_ps(q2, q3);
            const __m128 t2 = _mm_unpackhi_ps(q0, q1), t3 = _mm_unpackhi_ps(q2, q3);
            uint32_t *yr = y + j * op + i;
            _mm_storeu_si128((__m128i *)yr, _mm_castps_si128(_mm_movelh_ps(t0, t1)));
            _mm_storeu_si128((__m128i *)(yr + op), _mm_castps_si128(_mm_movehl_ps(t1, t0)));
            _mm_storeu_si128((__m128i *)(yr + 2 * op), _mm_castps_si128(_mm_movelh_ps(t2, t3)));
            _mm_storeu_si128((__m128i *)(yr + 3 * op), _mm_castps_si128(_mm_movehl_ps(t3, t2)));
        }
}

/* The same tile for outputs larger than the caches (16-byte aligned output rows): transposed
 * into a second buffer o, then each of the output's 64 row pieces (256 bytes, four whole cache
 * lines) written in one go with non-temporal stores, so that the output costs one write, not a
 * read for ownership and a write-back. (Non-temporal stores straight from the 4 x 4 blocks,
 * which leave four rows' lines open at once, ran 25% slower than plain stores: bench/NOTES.md.) */
static void transpose_tile4_stream(const uint32_t *x, uint32_t *y, size_t ip, size_t op, uint32_t *b)
{
    uint32_t *o = b + TT * TT;
    transpose_tile4_sse(x, o, ip, TT, b);
    for (size_t j = 0; j < TT; ++j) {
        __m128i *yr = (__m128i *)(y + j * op);
        const __m128i *orow = (const __m128i *)(o + j * TT);
        for (size_t i = 0; i < TT / 4; ++i) _mm_stream_si128(yr + i, _mm_load_si128(orow + i));
    }
}
#endif

static void transpose_tile(const void *in, void *out, size_t ip, size_t op, size_t es, size_t r0, size_t r1,
                           size_t c0, size_t c1, void *buf, int nt)
{
    switch (es) {
    case 1: TRANSPOSE_TILE(uint8_t); break;
    case 4:
#if defined(__SSE2__)
        if (r1 - r0 == TT && c1 - c0 == TT) {
            const uint32_t *x = (const uint32_t *)in + r0 * ip + c0;
            uint32_t *y = (uint32_t *)out + c0 * op + r0;
            if (nt) transpose_tile4_stream(x, y, ip, op, (uint32_t *)buf);
            else transpose_tile4_sse(x, y, ip, op, (uint32_t *)buf);
            break;
        }
#endif
        TRANSPOSE_TILE(uint32_t);
        break;
    default: TRANSPOSE_TILE(uint64_t); break;
    }
}

/* The plan: family "transpose", strategy "cpu", tiles = TT x TT tiles of all matrices,
 * param[0] = threads, param[1] = TT, param[2] = 1 where the whole 4-byte tiles are streamed out
 * (outputs of STREAM_MIN_BYTES and more, with 16-byte aligned rows). */
pp_status pp__cpu_transpose(pp_context *ctx, const pp_transpose_args *a)
{
    const size_t tr = (a->rows + TT - 1) / TT, tc = (a->cols + TT - 1) / TT;
    const size_t per = tr * tc, tiles = per * a->batch;
    const int threads = a->rows * a->cols * a->batch >= PAR_MIN_ELEMS ? omp_get_max_threads() : 1;
    const size_t es = a->esize;
    const char *in = (const char *)a->in;
    char *out = (char *)a->out;
#if defined(__SSE2__)
    const int nt = es == 4 && a->rows * a->cols * a->batch * es >= STREAM_MIN_BYTES && ((uintptr_t)out & 15) == 0 &&
                   a->out_pitch % 4 == 0;
#else
    const int nt = 0;
#endif
    pp__set_plan(ctx, "transpose", "cpu", 0, tiles, threads, TT, nt, 0);
    /* squares of ST x ST tiles, one after another (a thread's tiles in row order within its
     * square): 1024 input and 1024 output rows of 4 KiB pages for 4-byte elements, whose
     * translations stay in the TLB while the square is written (tile rows in order touched a
     * new output page for every row of every tile); single tiles where there are fewer than
     * four squares a thread */
    const size_t sq = ((tr + ST_TILES - 1) / ST_TILES) * ((tc + ST_TILES - 1) / ST_TILES) * a->batch;
    const size_t st = sq >= 4 * (size_t)threads ? ST_TILES : 1;
    const size_t sr = (tr + st - 1) / st, sc = (tc + st - 1) / st, squares = sr * sc * a->batch;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        _Alignas(64) unsigned char buf[TT * TT * 8];
#pragma omp for schedule(static)
        for (size_t u = 0; u < squares; ++u) {
            const size_t k = u / (sr * sc), si = (u % (sr * sc)) / sc, sj = u % sc;
            const char *x = in + k * a->rows * a->in_pitch * es;
            char *y = out + k * a->cols * a->out_pitch * es;
            for (size_t i = si * st; i < min_size(tr, (si + 1) * st); ++i)
                for (size_t j = sj * st; j < min_size(tc, (sj + 1) * st); ++j)
                    transpose_tile(x, y, a->in_pitch, a->out_pitch, es, i * TT, min_size(a->rows, (i + 1) * TT),
                                   j * TT, min_size(a->cols, (j + 1) * TT), buf, nt);
        }
        if (nt) stream_fence();
    }
    return PP_OK;
}
