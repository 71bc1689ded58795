/*
 * sort_impl.h -- one LSD radix sort kernel of cpu/sort.c, included once per (key width, value
 * width). Before including, define:
 *   NAME   the kernel's name
 *   KT     the key's unsigned type (uint8_t, uint32_t, uint64_t): keys move as these bits
 *   VT     the value's unsigned type (uint8_t, uint32_t, uint64_t); leave it undefined for keys
 *          only. With values_in NULL the values are the indices 0, 1, ... (pp_argsort).
 * The plan (passes, buffers) comes from cpu/sort.c (struct sort_plan); this file holds the loops
 * that touch elements: the digit counts of every pass in one read, and one pass.
 */

#if !defined(NAME) || !defined(KT)
#error "sort_impl.h: define NAME and KT"
#endif

#define SORT_CAT_(a, b) a##b
#define SORT_CAT(a, b) SORT_CAT_(a, b)
#define FN(part) SORT_CAT(NAME, part)

/* The encoded key of k (src/key_encoding.h): 64-bit keys in 64 bits, others in 32. */
#if defined(KT_IS_64)
#define SORT_ENC(k, kind, flip) pp_sort_key_u64((uint64_t)(k), (kind), (flip))
typedef uint64_t FN(_enc_t);
#else
#define SORT_ENC(k, kind, flip) pp_sort_key_u32((uint32_t)(k), (kind), (uint32_t)(flip))
typedef uint32_t FN(_enc_t);
#endif

/* Counts of every pass's digits over keys[lo, hi): cnt[p * 256 + d]. The loop is written once
 * per number of passes P and key kind, so that the passes' loop unrolls with the shifts and
 * masks in registers: the loop over a run-time number of passes took 2.3 times as long (178 ms
 * against 77 ms for 2^26 u32 keys on one thread here, bench/NOTES.md). */
static inline __attribute__((always_inline)) void FN(_count_all_pk)(const KT *keys, size_t lo, size_t hi,
                                                                    const struct sort_plan *pl, uint64_t *cnt,
                                                                    const int P, const int kind)
{
    const FN(_enc_t) flip = (FN(_enc_t))pl->flip;
    int sh[SORT_MAX_PASSES];
    unsigned m[SORT_MAX_PASSES];
    for (int p = 0; p < P; ++p) {
        sh[p] = pl->shift[p];
        m[p] = pl->mask[p];
    }
    for (size_t i = lo; i < hi; ++i) {
        const FN(_enc_t) e = SORT_ENC(keys[i], kind, flip);
        for (int p = 0; p < P; ++p) ++cnt[(size_t)p * 256 + ((e >> sh[p]) & m[p])];
    }
}
static inline __attribute__((always_inline)) void FN(_count_all_k)(const KT *keys, size_t lo, size_t hi,
                                                                   const struct sort_plan *pl, uint64_t *cnt,
                                                                   const int kind)
{
    switch (pl->passes) {
    case 1: FN(_count_all_pk)(keys, lo, hi, pl, cnt, 1, kind); break;
    case 2: FN(_count_all_pk)(keys, lo, hi, pl, cnt, 2, kind); break;
    case 3: FN(_count_all_pk)(keys, lo, hi, pl, cnt, 3, kind); break;
    case 4: FN(_count_all_pk)(keys, lo, hi, pl, cnt, 4, kind); break;
#if defined(KT_IS_64)
    case 5: FN(_count_all_pk)(keys, lo, hi, pl, cnt, 5, kind); break;
    case 6: FN(_count_all_pk)(keys, lo, hi, pl, cnt, 6, kind); break;
    case 7: FN(_count_all_pk)(keys, lo, hi, pl, cnt, 7, kind); break;
    case 8: FN(_count_all_pk)(keys, lo, hi, pl, cnt, 8, kind); break;
#endif
    default: break;
    }
}
static void FN(_count_all)(const void *keys_, size_t lo, size_t hi, const struct sort_plan *pl, uint64_t *cnt)
{
    const KT *keys = (const KT *)keys_;
    memset(cnt, 0, (size_t)pl->passes * 256 * sizeof *cnt);
    switch (pl->kind) {
    case PP_SORT_KIND_FLOAT: FN(_count_all_k)(keys, lo, hi, pl, cnt, PP_SORT_KIND_FLOAT); break;
    case PP_SORT_KIND_SIGNED: FN(_count_all_k)(keys, lo, hi, pl, cnt, PP_SORT_KIND_SIGNED); break;
    default: FN(_count_all_k)(keys, lo, hi, pl, cnt, PP_SORT_KIND_UNSIGNED); break;
    }
}

/* Counts of one pass's digits over keys[lo, hi). */
static inline __attribute__((always_inline)) void FN(_count_one_kind)(const KT *keys, size_t lo, size_t hi,
                                                                      const struct sort_plan *pl, int p,
                                                                      uint64_t *cnt, const int kind)
{
    const int sh = pl->shift[p];
    const unsigned m = pl->mask[p];
    const FN(_enc_t) flip = (FN(_enc_t))pl->flip;
    for (size_t i = lo; i < hi; ++i) ++cnt[(SORT_ENC(keys[i], kind, flip) >> sh) & m];
}
static void FN(_count_one)(const void *keys_, size_t lo, size_t hi, const struct sort_plan *pl, int p, uint64_t *cnt)
{
    const KT *keys = (const KT *)keys_;
    memset(cnt, 0, 256 * sizeof *cnt);
    switch (pl->kind) {
    case PP_SORT_KIND_FLOAT: FN(_count_one_kind)(keys, lo, hi, pl, p, cnt, PP_SORT_KIND_FLOAT); break;
    case PP_SORT_KIND_SIGNED: FN(_count_one_kind)(keys, lo, hi, pl, p, cnt, PP_SORT_KIND_SIGNED); break;
    default: FN(_count_one_kind)(keys, lo, hi, pl, p, cnt, PP_SORT_KIND_UNSIGNED); break;
    }
}

/* The next pass's digits of k keys that land at positions q, q + 1, ...: counted for the
 * block that holds each position in the next pass (q >> nx->block_shift). */
static inline __attribute__((always_inline)) void FN(_count_run)(const KT *k, unsigned cnt, uint64_t q,
                                                                 const struct sort_next *nx, const int kind,
                                                                 const FN(_enc_t) flip)
{
    const int sh = nx->shift, bs = nx->block_shift;
    const unsigned m = nx->mask;
    uint32_t *c = nx->cnt + (size_t)(q >> bs) * 256;
    if ((q >> bs) == ((q + cnt - 1) >> bs)) { /* the usual case: one block */
        for (unsigned i = 0; i < cnt; ++i) ++c[(SORT_ENC(k[i], kind, flip) >> sh) & m];
        return;
    }
    for (unsigned i = 0; i < cnt; ++i, ++q) ++nx->cnt[(size_t)(q >> bs) * 256 + ((SORT_ENC(k[i], kind, flip) >> sh) & m)];
}

/* Pass p over src[lo, hi): each key (and value) to dst[off[digit]++]. kd NULL: the keys are not
 * written (the last pass of an argsort). vs NULL with vd set: the value is the index.
 * Software write-combining: each digit's elements gather in a buffer of SORT_LINES cache lines
 * (cpu/sort.c) that is written out whole, so the 256 streams of a pass reach memory as whole
 * lines instead of one element at a time (a digit's first buffer starts at its offset's place
 * in the buffer, so that the later ones are aligned). */
#if defined(VT)
#define SORT_WIDE (sizeof(KT) > sizeof(VT) ? sizeof(KT) : sizeof(VT))
#else
#define SORT_WIDE sizeof(KT)
#endif
#define SORT_L (SORT_LINES * 64 / SORT_WIDE)
/* _count_run of a whole buffer (SORT_L keys from q, a multiple of 4), four keys a step: the
 * loop of a run-time length took 131 ms a pass against 119 ms unrolled (2^26 u32 keys, one
 * thread, standalone; bench/NOTES.md). */
static inline __attribute__((always_inline)) void FN(_count_full)(const KT *k, uint64_t q, const struct sort_next *nx,
                                                                  const int kind, const FN(_enc_t) flip)
{
    const int sh = nx->shift, bs = nx->block_shift;
    if ((q >> bs) != ((q + SORT_L - 1) >> bs)) {
        FN(_count_run)(k, SORT_L, q, nx, kind, flip);
        return;
    }
    const unsigned m = nx->mask;
    uint32_t *c = nx->cnt + (size_t)(q >> bs) * 256;
    for (unsigned i = 0; i < SORT_L; i += 4) {
        ++c[(SORT_ENC(k[i], kind, flip) >> sh) & m];
        ++c[(SORT_ENC(k[i + 1], kind, flip) >> sh) & m];
        ++c[(SORT_ENC(k[i + 2], kind, flip) >> sh) & m];
        ++c[(SORT_ENC(k[i + 3], kind, flip) >> sh) & m];
    }
}
static inline __attribute__((always_inline)) void FN(_scatter_kind)(const void *ks_, void *kd_, const void *vs_,
                                                                    void *vd_, size_t lo, size_t hi,
                                                                    const struct sort_plan *pl, int p, uint64_t *off,
                                                                    const struct sort_next *nx, const int kind)
{
    const KT *ks = (const KT *)ks_;
    KT *kd = (KT *)kd_;
    const int sh = pl->shift[p];
    const unsigned m = pl->mask[p];
    const FN(_enc_t) flip = (FN(_enc_t))pl->flip;
    _Alignas(64) KT kb[256][SORT_L];
    unsigned fill[256], first[256];
    uint64_t base[256]; /* the output position of buffer slot 0 */
#if defined(VT)
    const VT *vs = (const VT *)vs_;
    VT *vd = (VT *)vd_;
    _Alignas(64) VT vb[256][SORT_L];
#else
    (void)vs_;
    (void)vd_;
#endif
    for (int d = 0; d < 256; ++d) {
        first[d] = fill[d] = (unsigned)(off[d] % SORT_L);
        base[d] = off[d] - first[d];
    }
    for (size_t i = lo; i < hi; ++i) {
        const KT k = ks[i];
        const unsigned d = (unsigned)((SORT_ENC(k, kind, flip) >> sh) & m);
        const unsigned f = fill[d];
        kb[d][f] = k;
#if defined(VT)
        vb[d][f] = vs ? vs[i] : (VT)i;
#endif
        if (f + 1 < SORT_L) {
            fill[d] = f + 1;
            continue;
        }
        const unsigned a = first[d];
        if (nx) {
            if (a == 0) FN(_count_full)(kb[d], base[d], nx, kind, flip);
            else FN(_count_run)(&kb[d][a], SORT_L - a, base[d] + a, nx, kind, flip);
        }
        if (kd) sort_put(kd + base[d] + a, &kb[d][a], (SORT_L - a) * sizeof(KT));
#if defined(VT)
        sort_put(vd + base[d] + a, &vb[d][a], (SORT_L - a) * sizeof(VT));
#endif
        base[d] += SORT_L;
        fill[d] = first[d] = 0;
    }
    sort_put_done();
    for (int d = 0; d < 256; ++d) {
        const unsigned a = first[d], f = fill[d];
        if (f <= a) continue;
        if (nx) FN(_count_run)(&kb[d][a], f - a, base[d] + a, nx, kind, flip);
        if (kd) memcpy(kd + base[d] + a, &kb[d][a], (f - a) * sizeof(KT));
#if defined(VT)
        memcpy(vd + base[d] + a, &vb[d][a], (f - a) * sizeof(VT));
#endif
    }
}
#undef SORT_L
#undef SORT_WIDE

/* The scatter with the key's kind a constant of each copy of the loop. */
static void FN(_scatter)(const void *ks, void *kd, const void *vs, void *vd, size_t lo, size_t hi,
                         const struct sort_plan *pl, int p, uint64_t *off, const struct sort_next *nx)
{
    switch (pl->kind) {
    case PP_SORT_KIND_FLOAT: FN(_scatter_kind)(ks, kd, vs, vd, lo, hi, pl, p, off, nx, PP_SORT_KIND_FLOAT); break;
    case PP_SORT_KIND_SIGNED: FN(_scatter_kind)(ks, kd, vs, vd, lo, hi, pl, p, off, nx, PP_SORT_KIND_SIGNED); break;
    default: FN(_scatter_kind)(ks, kd, vs, vd, lo, hi, pl, p, off, nx, PP_SORT_KIND_UNSIGNED); break;
    }
}

/* The kernel's entry: the table of cpu/sort.c holds these. */
static const struct sort_kernel NAME = {FN(_count_all), FN(_count_one), FN(_scatter)};

#undef SORT_ENC
#undef FN
#undef SORT_CAT
#undef SORT_CAT_
#undef NAME
#undef KT
#undef VT
#undef KT_IS_64
