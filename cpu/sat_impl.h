/*
 * sat_impl.h -- one 2-D kernel of cpu/sat.c, a template: included once per instantiation with
 * these macros defined, which it #undefs at its end:
 *   NAME   the kernel's name prefix;   IN  the input type;   A  the accumulator (output) type
 *   OP     the operator (OP_SUM, ... of cpu/common.h);   SAT  1 where NAME is a sum that
 *          pp_summed_area_table offers (defines NAME_sat), else 0
 *   SAT_ROWS (optional) the table's third pass for one block, in place of rows4 and the
 *          staging below: SAT_ROWS(x, ip, y, op, cols, rows, above, keep, colsums) (cpu/sat.c's
 *          sat_rows_f32; colsums, where not NULL, receives the block's column sums as
 *          G_(colsums) computes them)
 * It defines NAME_rows (every row scanned), NAME_cols (every column), NAME_sat (the table) and
 * NAME_grid, the dispatch-table entry. Orders of evaluation: cpu/sat.c's header.
 */
#define G_(x) CPU_CAT(NAME, _##x)

ALWAYS_INLINE A G_(op)(A a, A b) { return (A)OP(a, b); }

/* One row of n elements, x -> y, left to right in one chain (exclusive: y[c] is the fold
 * before x[c], starting at init). */
static void G_(row)(const IN *x, A *y, size_t n, int excl, A init)
{
    if (excl) {
        A acc = init;
        for (size_t c = 0; c < n; ++c) {
            y[c] = acc;
            acc = G_(op)(acc, (A)x[c]);
        }
    } else {
        A acc = (A)x[0];
        y[0] = acc;
        for (size_t c = 1; c < n; ++c) y[c] = acc = G_(op)(acc, (A)x[c]);
    }
}

/* Four rows (pitches ip, op), each exactly as G_(row) scans it, their chains side by side so
 * that the operator's latency is hidden: row j runs (3 - j) * SKEW + 1 columns ahead of row 3,
 * so that the four rows' current elements lie in different cache sets even at a power-of-two
 * pitch (without the skew, 8 rows at a 4 KiB pitch ran at a tenth of a copy's speed and 4 at
 * a third; one row at a time is bound by the operator's latency). */
static void G_(rows4)(const IN *x, size_t ip, A *y, size_t op, size_t n, int excl, A init)
{
    if (n < 3 * SKEW + 2) {
        for (size_t j = 0; j < 4; ++j) G_(row)(x + j * ip, y + j * op, n, excl, init);
        return;
    }
    const IN *x0 = x, *x1 = x + ip, *x2 = x + 2 * ip, *x3 = x + 3 * ip;
    A *y0 = y, *y1 = y + op, *y2 = y + 2 * op, *y3 = y + 3 * op;
    A a0, a1, a2, a3;
    /* row j's first (3 - j) SKEW + 1 columns, on its own */
    const size_t p0 = 3 * SKEW + 1, p1 = 2 * SKEW + 1, p2 = SKEW + 1, p3 = 1, m = n - 3 * SKEW - 1;
#define ROW_HEAD(j)                                                              \
    do {                                                                         \
        if (excl) {                                                              \
            a##j = init;                                                         \
            for (size_t c = 0; c < p##j; ++c) {                                  \
                y##j[c] = a##j;                                                  \
                a##j = G_(op)(a##j, (A)x##j[c]);                                 \
            }                                                                    \
        } else {                                                                 \
            a##j = (A)x##j[0];                                                   \
            y##j[0] = a##j;                                                      \
            for (size_t c = 1; c < p##j; ++c) y##j[c] = a##j = G_(op)(a##j, (A)x##j[c]); \
        }                                                                        \
    } while (0)
    ROW_HEAD(0);
    ROW_HEAD(1);
    ROW_HEAD(2);
    ROW_HEAD(3);
#undef ROW_HEAD
    /* all four: row j at column p_j + i */
    if (excl) {
        for (size_t i = 0; i < m; ++i) {
            y0[p0 + i] = a0;
            a0 = G_(op)(a0, (A)x0[p0 + i]);
            y1[p1 + i] = a1;
            a1 = G_(op)(a1, (A)x1[p1 + i]);
            y2[p2 + i] = a2;
            a2 = G_(op)(a2, (A)x2[p2 + i]);
            y3[p3 + i] = a3;
            a3 = G_(op)(a3, (A)x3[p3 + i]);
        }
    } else {
        for (size_t i = 0; i < m; ++i) {
            y0[p0 + i] = a0 = G_(op)(a0, (A)x0[p0 + i]);
            y1[p1 + i] = a1 = G_(op)(a1, (A)x1[p1 + i]);
            y2[p2 + i] = a2 = G_(op)(a2, (A)x2[p2 + i]);
            y3[p3 + i] = a3 = G_(op)(a3, (A)x3[p3 + i]);
        }
    }
    /* the rows' last columns, on their own (row j: j SKEW of them) */
#define ROW_TAIL(j)                                                              \
    for (size_t c = p##j + m; c < n; ++c) {                                      \
        if (excl) {                                                              \
            y##j[c] = a##j;                                                      \
            a##j = G_(op)(a##j, (A)x##j[c]);                                     \
        } else {                                                                 \
            y##j[c] = a##j = G_(op)(a##j, (A)x##j[c]);                           \
        }                                                                        \
    }
    ROW_TAIL(1)
    ROW_TAIL(2)
    ROW_TAIL(3)
#undef ROW_TAIL
}

/* Rows [r0, r1) of the matrix. */
static void G_(rows_range)(const pp_grid_args *a, size_t r0, size_t r1)
{
    A init;
    memcpy(&init, a->init, sizeof init);
    const IN *x = (const IN *)a->in;
    A *y = (A *)a->out;
    size_t r = r0;
    for (; r + 4 <= r1; r += 4)
        G_(rows4)(x + r * a->in_pitch, a->in_pitch, y + r * a->out_pitch, a->out_pitch, a->cols, a->exclusive, init);
    for (; r < r1; ++r) G_(row)(x + r * a->in_pitch, y + r * a->out_pitch, a->cols, a->exclusive, init);
}

static void G_(rows)(const pp_grid_args *a, int threads)
{
    const size_t groups = (a->rows + ROW_BATCH - 1) / ROW_BATCH;
    _Pragma("omp parallel for schedule(static) num_threads(threads) if (threads > 1)")
    for (size_t k = 0; k < groups; ++k) G_(rows_range)(a, k * ROW_BATCH, min_size(a->rows, (k + 1) * ROW_BATCH));
}

/* Columns [c0, c1), top to bottom: row r from row r - 1 of the output (inclusive) or of the
 * output and the input (exclusive), both still in the cache; each row's strip vectorizes. */
static void G_(cols_range)(const pp_grid_args *a, size_t c0, size_t c1)
{
    const IN *x = (const IN *)a->in;
    A *y = (A *)a->out;
    A init;
    memcpy(&init, a->init, sizeof init);
    const size_t ip = a->in_pitch, op = a->out_pitch;
    if (a->exclusive) {
        for (size_t c = c0; c < c1; ++c) y[c] = init;
        for (size_t r = 1; r < a->rows; ++r) {
            const IN *xp = x + (r - 1) * ip;
            const A *yp = y + (r - 1) * op;
            A *yr = y + r * op;
            for (size_t c = c0; c < c1; ++c) yr[c] = G_(op)(yp[c], (A)xp[c]);
        }
    } else {
        for (size_t c = c0; c < c1; ++c) y[c] = (A)x[c];
        for (size_t r = 1; r < a->rows; ++r) {
            const IN *xr = x + r * ip;
            const A *yp = y + (r - 1) * op;
            A *yr = y + r * op;
            for (size_t c = c0; c < c1; ++c) yr[c] = G_(op)(yp[c], (A)xr[c]);
        }
    }
}

static void G_(cols)(const pp_grid_args *a, int threads)
{
    /* strips of whole cache lines, one or a few per thread */
    const size_t line = 64 / sizeof(A) > 0 ? 64 / sizeof(A) : 1;
    size_t w = (a->cols + (size_t)threads - 1) / (size_t)threads;
    w = (w + line - 1) / line * line;
    const size_t strips = (a->cols + w - 1) / w;
    _Pragma("omp parallel for schedule(static) num_threads(threads) if (threads > 1 && strips > 1)")
    for (size_t k = 0; k < strips; ++k) G_(cols_range)(a, k * w, min_size(a->cols, (k + 1) * w));
}

#if SAT
/* The column sums of the h rows of x into v, each column top to bottom: four rows an update
 * of v (the same additions in the same order as one row at a time, a quarter of v's loads and
 * stores), at the widest vectors the CPU has (a column's sum is its own: any width, the same
 * bits). */
PP_WIDE_CLONES static void G_(colsums)(const IN *restrict x, size_t ip, size_t n, size_t h, A *restrict v)
{
    for (size_t c = 0; c < n; ++c) v[c] = (A)x[c];
    size_t r = 1;
    for (; r + 4 <= h; r += 4) {
        const IN *x0 = x + r * ip, *x1 = x0 + ip, *x2 = x1 + ip, *x3 = x2 + ip;
        for (size_t c = 0; c < n; ++c) {
            A t = (A)(v[c] + (A)x0[c]);
            t = (A)(t + (A)x1[c]);
            t = (A)(t + (A)x2[c]);
            v[c] = (A)(t + (A)x3[c]);
        }
    }
    for (; r < h; ++r) {
        const IN *xr = x + r * ip;
        for (size_t c = 0; c < n; ++c) v[c] = (A)(v[c] + (A)xr[c]);
    }
}

/* V_b from the column sums in v, in place: their row prefix (one row's chain). */
static void G_(v_of_sums)(A *v, size_t n)
{
    for (size_t c = 1; c < n; ++c) v[c] = (A)(v[c - 1] + v[c]);
}

/* V_b of the block of rows [r0, r1) into v. */
static void G_(block_v)(const IN *x, size_t ip, size_t n, size_t r0, size_t r1, A *v)
{
    G_(colsums)(x + r0 * ip, ip, n, r1 - r0, v);
    G_(v_of_sums)(v, n);
}

/* The table over blocks of `rb` rows (cpu/sat.c's header). The blocks are cut into `chunks`
 * runs of consecutive blocks (one a thread), the last starting at block `last0`; `vfrom`, the
 * first block whose V_b pass 3 takes, is last0 where `chunked` (else the last block: every V_b
 * from pass 1, the form for tables in the caches whose rows do not take the column sums with
 * them, where the last chunk's extra reads made its thread the slowest):
 *   1. every block above vfrom, in parallel: V_b (the input's first read of them);
 *   2. the carries C_b = C_(b-1) + V_(b-1) from C_1 = V_0, down to block vfrom;
 *   3. every chunk, in parallel, its blocks in order; from vfrom on (the last chunk) each
 *      block's column sums are taken with its rows (SAT_ROWS) or just before them (the rows
 *      then read the block from the cache), and V_b and C_(b+1) = C_b + V_b carried down (the
 *      same operations as passes 1 and 2: the same bits for any number of chunks).
 *      A block's rows: the row prefixes P of four rows at a time (rows4) into the output, or,
 *      for outputs larger than the caches, into five rows of the thread's own (`stage`), then
 *      each of those rows made the table's: row r0 of block b is C_b + P, row r the row above
 *      + P, while the four rows are in the cache; rows built in `stage` go to the output with
 *      non-temporal stores (SAT_ROWS, where defined, does all of it in registers).
 * So only the blocks above vfrom are read twice (chunked: half the input on two threads, none
 * on one), and no thread waits on another but at the ends of the passes.
 * carry holds blocks x cols accumulators (slot b: V_(b-1), then C_b). */
static void G_(sat)(const pp_grid_args *a, int threads, size_t rb, A *carry, A *stage, int chunked)
{
    const IN *x = (const IN *)a->in;
    A *y = (A *)a->out;
    const size_t n = a->cols, ip = a->in_pitch, op = a->out_pitch;
    const size_t blocks = (a->rows + rb - 1) / rb;
    const size_t chunks = min_size((size_t)threads, blocks), last0 = (chunks - 1) * blocks / chunks;
#ifdef SAT_ROWS
    (void)chunked; /* the rows take the column sums at no extra read */
    const size_t vfrom = last0;
#else
    const size_t vfrom = chunked ? last0 : blocks - 1;
#endif
    _Pragma("omp parallel for schedule(static) num_threads(threads) if (threads > 1 && vfrom > 1)")
    for (size_t b = 0; b < vfrom; ++b) G_(block_v)(x, ip, n, b * rb, b * rb + rb, carry + (b + 1) * n);
    for (size_t b = 2; b <= vfrom; ++b) {
        const A *cp = carry + (b - 1) * n;
        A *cb = carry + b * n;
        for (size_t c = 0; c < n; ++c) cb[c] = (A)(cp[c] + cb[c]);
    }
    /* with `stage` (5 rows a thread): the rows built there and streamed to the output, which is
     * then written once, without being read for ownership */
    _Pragma("omp parallel num_threads(threads) if (threads > 1)")
    {
        A *st = stage ? stage + (size_t)omp_get_thread_num() * 5 * n : NULL;
        _Pragma("omp for schedule(static, 1)")
        for (size_t k = 0; k < chunks; ++k) {
            for (size_t b = k * blocks / chunks; b < (k + 1) * blocks / chunks; ++b) {
                const size_t r0 = b * rb, r1 = min_size(a->rows, r0 + rb);
                const A *above = b > 0 ? carry + b * n : NULL;
                /* from vfrom on: the block's column sums, for V_b and C_(b+1) (the next block's) */
                A *v = b >= vfrom && b + 1 < blocks ? carry + (b + 1) * n : NULL;
#ifdef SAT_ROWS /* rows built in registers, the column sums with them; `st` carries T to the next rows */
                SAT_ROWS(x + r0 * ip, ip, y + r0 * op, op, n, r1 - r0, above, st, v);
#else
                if (v) G_(colsums)(x + r0 * ip, ip, n, r1 - r0, v); /* the rows then read the block from the cache */
                for (size_t r = r0; r < r1; r += 4) {
                    const size_t g = min_size(4, r1 - r);
                    A *dst = st ? st : y + r * op;
                    const size_t dp = st ? n : op;
                    if (st && above && above >= st && above < st + 4 * n) { /* keep the row above out of the way */
                        memcpy(st + 4 * n, above, n * sizeof(A));
                        above = st + 4 * n;
                    }
                    if (g == 4) G_(rows4)(x + r * ip, ip, dst, dp, n, 0, (A)0);
                    else
                        for (size_t j = 0; j < g; ++j) G_(row)(x + (r + j) * ip, dst + j * dp, n, 0, (A)0);
                    for (size_t j = 0; j < g; ++j) {
                        A *yr = dst + j * dp;
                        if (above)
                            for (size_t c = 0; c < n; ++c) yr[c] = (A)(above[c] + yr[c]);
                        above = yr;
                        if (st) stream_row(y + (r + j) * op, yr, n * sizeof(A));
                    }
                }
#endif
                if (v) {
                    G_(v_of_sums)(v, n);
                    if (b > 0) {
                        const A *cb = carry + b * n;
                        for (size_t c = 0; c < n; ++c) v[c] = (A)(cb[c] + v[c]);
                    }
                }
            }
        }
        if (st) stream_fence();
    }
}
#endif

static void G_(grid)(const pp_grid_args *a, const struct grid_plan *p)
{
    switch (a->kind) {
    case PP_GRID_SCAN_ROWS: G_(rows)(a, p->threads); break;
    case PP_GRID_SCAN_COLS: G_(cols)(a, p->threads); break;
    case PP_GRID_SAT:
#if SAT
        G_(sat)(a, p->threads, p->block_rows, (A *)p->carry, (A *)p->stage, p->chunked);
#endif
        break;
    }
}

#undef G_
#undef NAME
#undef IN
#undef A
#undef OP
#undef SAT
#undef SAT_ROWS
