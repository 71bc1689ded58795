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

#undef SEG_ENC
#undef SEG_ENC_T
#undef NAME
#undef KT
#undef VT
#undef KT_IS_64
