/*
 * segsort_impl.h -- the insertion sort of cpu/segsort.c's short segments, included once per
 * (key width, value width). Before including, define:
 *   NAME   the function's name
 *   KT     the key's unsigned type (uint8_t, uint32_t, uint64_t): keys move as these bits
 *   VT     the value's unsigned type; leave it undefined for keys only
 *   KT_IS_64  for 8-byte keys
 * Keys compare by their sort encoding (src/key_encoding.h), so the order is the radix sort's.
 */
#if !defined(NAME) || !defined(KT)
#error "segsort_impl.h: define NAME and KT"
#endif

#define SEG_CAT_(a, b) a##b
#define SEG_CAT(a, b) SEG_CAT_(a, b)
#if defined(KT_IS_64)
#define SEG_ENC(k) pp_sort_key_u64((uint64_t)(k), kind, flip)
#define SEG_ENC_T uint64_t
#else
#define SEG_ENC(k) pp_sort_key_u32((uint32_t)(k), kind, (uint32_t)flip)
#define SEG_ENC_T uint32_t
#endif

/* Sort keys (and values) [b, b + m) of the inputs into the outputs (which may be the inputs),
 * stably: an element moves below the ones before it only past strictly greater keys. */
static void NAME(const void *kin_, void *kout_, const void *vin_, void *vout_, size_t b, size_t m, int kind,
                 uint64_t flip)
{
    const KT *kin = (const KT *)kin_ + b;
    KT *kout = (KT *)kout_ + b;
    SEG_ENC_T enc[SEGSORT_INSERTION_MAX];
#if defined(VT)
    const VT *vin = (const VT *)vin_ + b;
    VT *vout = (VT *)vout_ + b;
    VT val[SEGSORT_INSERTION_MAX];
#else
    (void)vin_;
    (void)vout_;
#endif
    KT key[SEGSORT_INSERTION_MAX];
    for (size_t i = 0; i < m; ++i) {
        const KT k = kin[i];
        const SEG_ENC_T e = SEG_ENC(k);
#if defined(VT)
        const VT v = vin[i];
#endif
        size_t j = i;
        for (; j > 0 && enc[j - 1] > e; --j) {
            enc[j] = enc[j - 1];
            key[j] = key[j - 1];
#if defined(VT)
            val[j] = val[j - 1];
#endif
        }
        enc[j] = e;
        key[j] = k;
#if defined(VT)
        val[j] = v;
#endif
    }
    memcpy(kout, key, m * sizeof(KT));
#if defined(VT)
    memcpy(vout, val, m * sizeof(VT));
#endif
}

#if !defined(KT_IS_64)
/* Segments of up to SEGSORT_MERGE_MAX keys of at most 32 bits: each key's encoding and its place
 * in the segment as one 64-bit word (all distinct, so any order of the words is the stable
 * order of the keys), merge sorted (seg_merge_sort64, cpu/segsort.c); the keys
 * (values) are gathered by the places. `w` holds 2 m words and m keys and values (the gather's
 * copy of the input: the outputs may be the inputs). */
static void SEG_CAT(NAME, _merge)(const void *kin_, void *kout_, const void *vin_, void *vout_, size_t b, size_t m,
                                  int kind, uint64_t flip, uint64_t *w)
{
    const KT *kin = (const KT *)kin_ + b;
    KT *kout = (KT *)kout_ + b;
    uint64_t *x = w, *y = w + m;
    KT *kc = (KT *)(w + 2 * m);
    for (size_t i = 0; i < m; ++i) {
        kc[i] = kin[i];
        x[i] = ((uint64_t)SEG_ENC(kc[i]) << 32) | i;
    }
    x = seg_merge_sort64(x, y, m);
#if defined(VT)
    const VT *vin = (const VT *)vin_ + b;
    VT *vout = (VT *)vout_ + b;
    VT *vc = (VT *)(w + 2 * m + (m * sizeof(KT) + 7) / 8);
    memcpy(vc, vin, m * sizeof(VT));
#else
    (void)vin_;
    (void)vout_;
#endif
    for (size_t i = 0; i < m; ++i) {
        const size_t s = (size_t)(x[i] & 0xFFFFFFFFu);
        kout[i] = kc[s];
#if defined(VT)
        vout[i] = vc[s];
#endif
    }
}
#endif

#if !defined(KT_IS_64) && !defined(VT)
/* Integer keys of at most 32 bits sorted alone, segments of up to SEGSORT_MERGE_MAX keys: the
 * same merge sort on the 32-bit encodings themselves (a bijection: equal encodings are equal
 * keys, so no place is needed for stability), decoded at the end (the integer encoding is an
 * xor, its own inverse). Half the words of the (encoding, place) form and no gather: segments of
 * 256 u32 keys ran at 0.47-0.50x the CPU radix sort of the whole array with that form (2 cores,
 * 2^24 keys, thirteenth session). `w` holds 2 m 32-bit words. */
static void SEG_CAT(NAME, _merge_int)(const void *kin_, void *kout_, size_t b, size_t m, int kind, uint64_t flip,
                                      uint32_t *w)
{
    const KT *kin = (const KT *)kin_ + b;
    KT *kout = (KT *)kout_ + b;
    uint32_t *x = w, *y = w + m;
    for (size_t i = 0; i < m; ++i) x[i] = SEG_ENC(kin[i]);
    x = seg_merge_sort32(x, y, m);
    for (size_t i = 0; i < m; ++i) kout[i] = (KT)SEG_ENC(x[i]);
}
#endif

#undef SEG_ENC
#undef SEG_ENC_T
#undef SEG_CAT
#undef SEG_CAT_
#undef NAME
#undef KT
#undef VT
#undef KT_IS_64
