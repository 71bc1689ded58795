/*
 * reduce_arg_impl.h -- argmin or argmax over one type (cpu/reduce.c), a template: included
 * once per instantiation with these macros defined, which it #undefs at its end:
 *   NAME           the kernel's name prefix (NAME_arg is the dispatch-table entry)
 *   T              the element type
 *   BLOCK_EXTREME  the min (argmin) or max (argmax) kernel of a block (a NAME_base of
 *                  reduce_impl.h)
 *   IS_NAN         IS_NAN_FLOAT or IS_NAN_NONE;   BETTER  LESS (argmin) or GREATER (argmax)
 *   IDENT          the extreme's identity
 */
#define ARG_(x) CPU_CAT(NAME, _##x)

/* First index in x[0, n) holding m (or a NaN if m is one); m occurs. Checks 64 at a time
 * with a branch-free (vectorizable) test before looking for the exact place. */
static size_t ARG_(find)(const T *x, size_t n, T m)
{
    const int want_nan = IS_NAN(m);
    for (size_t c = 0; c < n; c += 64) {
        size_t e = min_size(64, n - c);
        int hit = 0;
        if (want_nan)
            for (size_t i = 0; i < e; ++i) hit |= IS_NAN(x[c + i]);
        else
            for (size_t i = 0; i < e; ++i) hit |= x[c + i] == m;
        if (hit)
            for (size_t i = 0; i < e; ++i)
                if (want_nan ? IS_NAN(x[c + i]) : x[c + i] == m) return c + i;
    }
    return n;
}
/* Whether (v, i) precedes (bv, bi): NaN first, then BETTER, then the lower index. */
static inline int ARG_(precedes)(T v, uint64_t i, T bv, uint64_t bi)
{
    if (i == NO_INDEX) return 0;
    if (bi == NO_INDEX) return 1;
    int vn = IS_NAN(v), bn = IS_NAN(bv);
    if (vn || bn) return vn && (!bn || i < bi);
    return BETTER(v, bv) || (v == bv && i < bi);
}
static void ARG_(arg)(const void *in, size_t n, void *value, uint64_t *index)
{
    const T *x = (const T *)in;
    size_t n_blocks = (n + FLAT_CHUNK - 1) / FLAT_CHUNK;
    T best = (IDENT);
    uint64_t best_i = NO_INDEX;
    const int threaded = use_threads(n, sizeof(T));
    _Pragma("omp parallel if(threaded)")
    {
        T v = (IDENT);
        uint64_t vi = NO_INDEX;
        _Pragma("omp for schedule(static) nowait")
        for (size_t k = 0; k < n_blocks; ++k) {
            size_t b = k * FLAT_CHUNK, len = min_size(FLAT_CHUNK, n - b);
            T m = BLOCK_EXTREME(x + b, len);
            /* m first occurs at some j >= b: search only if (m, b) would precede. */
            if (ARG_(precedes)(m, b, v, vi)) {
                size_t j = b + ARG_(find)(x + b, len, m);
                if (ARG_(precedes)(x[j], j, v, vi)) {
                    v = x[j];
                    vi = j;
                }
            }
        }
        _Pragma("omp critical(pp_cpu_argreduce)")
        if (ARG_(precedes)(v, vi, best, best_i)) {
            best = v;
            best_i = vi;
        }
    }
    memcpy(value, &best, sizeof best);
    *index = best_i;
}

#undef ARG_
#undef NAME
#undef BLOCK_EXTREME
#undef IS_NAN
#undef BETTER
#undef IDENT
