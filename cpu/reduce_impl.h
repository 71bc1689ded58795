/*
 * reduce_impl.h -- one reduce kernel of cpu/reduce.c, a template: included once per
 * instantiation with these macros defined, which it #undefs at its end:
 *   NAME   the kernel's name prefix (NAME_base, NAME_reduce, ... are defined)
 *   IN     the input type;   A  the accumulator (and output) type
 *   LT     the lanes' type (A, or a narrower type that cannot overflow within a chunk)
 *   OP     the operator (OP_SUM, ... of cpu/common.h);   IDENT its identity in A
 * and, defined by the includer for a run of inclusions (left defined): LANES (a power of two
 * from 1 to 64), CHUNK and LANE_LOOP (the pragma of the loop over the lanes).
 *   NAME_short(x, n)       n < LANES elements, in order
 *   NAME_base(x, n)        n <= CHUNK elements: full rows of LANES into LANES accumulators
 *                          of type LT, converted to A for a halving tree; then the tail in
 *                          order
 *   NAME_serial(x, n)      chunks of CHUNK, combined by the pairwise chunk tree
 *   NAME_range(x, n, par)  the same value, computed by all threads when par and n is large
 *   NAME_reduce, NAME_segmented: the entries of the dispatch table.
 * LANE_LOOP "GCC unroll 64" unrolls the loop over the lanes for the basic-block vectorizer,
 * which keeps the accumulators in registers; "GCC unroll 1" leaves it to the loop vectorizer,
 * which is the one that handles the NaN-aware select and the u8 widening (the accumulators
 * then live in L1, cheap next to the memory stream). NAME_base is kept out of line so that
 * its vectorization does not depend on the caller it would be inlined into.
 * A template header rather than a macro so that a debugger, a sanitizer and the compiler's
 * messages point at these lines.
 */
#ifndef LT
#define LT A
#endif
#define RED_(x) CPU_CAT(NAME, _##x)

static inline LT RED_(lane_op)(LT a, LT b) { return (LT)OP(a, b); }
static inline A RED_(op)(A a, A b) { return (A)OP(a, b); }

/* Fewer than LANES elements: one sequential pass (also inlined for short segments). */
static inline A RED_(short)(const IN *x, size_t n)
{
    A r = (IDENT);
    for (size_t i = 0; i < n; ++i) r = RED_(op)(r, (A)x[i]);
    return r;
}

static __attribute__((noinline)) A RED_(base)(const IN *restrict x, size_t n)
{
    if (n < (LANES)) return RED_(short)(x, n);
    LT lane[LANES];
    for (size_t l = 0; l < (LANES); ++l) lane[l] = (LT)x[l];
    size_t i = (LANES);
    for (; i + (LANES) <= n; i += (LANES)) {
        CPU_PRAGMA(LANE_LOOP)
        for (size_t l = 0; l < (LANES); ++l) lane[l] = RED_(lane_op)(lane[l], (LT)x[i + l]);
    }
    A acc[LANES];
    for (size_t l = 0; l < (LANES); ++l) acc[l] = (A)lane[l];
    if ((LANES) > 32) for (size_t l = 0; l < 32; ++l) acc[l] = RED_(op)(acc[l], acc[l + 32]);
    if ((LANES) > 16) for (size_t l = 0; l < 16; ++l) acc[l] = RED_(op)(acc[l], acc[l + 16]);
    if ((LANES) > 8) for (size_t l = 0; l < 8; ++l) acc[l] = RED_(op)(acc[l], acc[l + 8]);
    if ((LANES) > 4) for (size_t l = 0; l < 4; ++l) acc[l] = RED_(op)(acc[l], acc[l + 4]);
    if ((LANES) > 2) for (size_t l = 0; l < 2; ++l) acc[l] = RED_(op)(acc[l], acc[l + 2]);
    if ((LANES) > 1) for (size_t l = 0; l < 1; ++l) acc[l] = RED_(op)(acc[l], acc[l + 1]);
    A r = acc[0];
    if (i < n) { /* fewer than LANES left: one sequential tail, joined last */
        A t = (A)x[i];
        for (++i; i < n; ++i) t = RED_(op)(t, (A)x[i]);
        r = RED_(op)(r, t);
    }
    return r;
}

/* Binary counter of subtree results: slot[l] holds a complete subtree of 2^l leaves. */
static inline void RED_(push)(A *slot, uint64_t *count, A v)
{
    uint64_t c = *count;
    unsigned l = 0;
    for (; c & 1u; c >>= 1, ++l) v = RED_(op)(slot[l], v);
    slot[l] = v;
    ++*count;
}
/* The root: the partial subtrees joined from the smallest (rightmost) one up. */
static inline A RED_(root)(const A *slot, uint64_t count)
{
    A r = (IDENT);
    int any = 0;
    for (unsigned l = 0; count; count >>= 1, ++l) {
        if (count & 1u) {
            r = any ? RED_(op)(slot[l], r) : slot[l];
            any = 1;
        }
    }
    return r;
}

static A RED_(serial)(const IN *x, size_t n)
{
    if (n <= (CHUNK)) return RED_(base)(x, n);
    A slot[64];
    uint64_t count = 0;
    for (size_t b = 0; b < n; b += (CHUNK))
        RED_(push)(slot, &count, RED_(base)(x + b, min_size(CHUNK, n - b)));
    return RED_(root)(slot, count);
}

static A RED_(range)(const IN *x, size_t n, int parallel)
{
    if (!parallel || !use_threads(n, sizeof(IN))) return RED_(serial)(x, n);
    size_t task = task_chunks((n + (CHUNK) - 1) / (CHUNK), CHUNK, sizeof(IN)) * (CHUNK);
    size_t n_tasks = (n + task - 1) / task;
    A part[MAX_TASKS];
    _Pragma("omp parallel for schedule(static)")
    for (size_t t = 0; t < n_tasks; ++t)
        part[t] = RED_(serial)(x + t * task, min_size(task, n - t * task));
    A slot[64];
    uint64_t count = 0;
    for (size_t t = 0; t < n_tasks; ++t) RED_(push)(slot, &count, part[t]);
    return RED_(root)(slot, count);
}

static void RED_(reduce)(const void *in, size_t n, void *out)
{
    A r = RED_(range)((const IN *)in, n, 1);
    memcpy(out, &r, sizeof r);
}

static void RED_(segmented)(const void *in_, size_t n, const size_t *offsets,
                             size_t n_segments, void *out_)
{
    const IN *in = (const IN *)in_;
    A *out = (A *)out_;
    struct seg_plan p = make_seg_plan(n, n_segments, sizeof(IN));
    size_t deferred[SEG_MAX_DEFERRED];
    size_t n_deferred = 0;
    _Pragma("omp parallel for schedule(dynamic, p.batch) if(p.parallel)")
    for (size_t s = 0; s < n_segments; ++s) {
        size_t b, len;
        segment_bounds(offsets, s, n, &b, &len);
        if (len < (LANES)) { /* short: inline, the same sequence as NAME_base */
            out[s] = len ? RED_(short)(in + b, len) : (A)(IDENT);
            continue;
        }
        if (len >= p.long_len && defer_segment(deferred, &n_deferred, s)) continue;
        out[s] = RED_(serial)(in + b, len);
    }
    for (size_t k = 0; k < n_deferred; ++k) {
        size_t b, len;
        segment_bounds(offsets, deferred[k], n, &b, &len);
        out[deferred[k]] = RED_(range)(in + b, len, 1);
    }
}

#undef RED_
#undef NAME
#undef IN
#undef LT
#undef A
#undef OP
#undef IDENT
