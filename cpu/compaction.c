/*
 * compaction.c -- the compaction family on the CPU (OpenMP): select and partition by flags or
 * predicate, unique, run-length encoding, where / nonzero (one `compact` entry, pp_compact_args).
 *
 * Two passes over per-thread ranges (cut at BLOCK elements): each thread counts what it keeps
 * (for flags only the flags are read), the counts are scanned over the threads, and each
 * thread scatters its range from its offset. Within a range, blocks of BLOCK elements: the
 * keep bytes of the block (src/compaction_keep.h, the predicates and the run heads every
 * backend evaluates), then the kept elements packed branch-free into a thread's buffer
 * (buf[o] = x; o += keep: no mispredicted branch at 50%) and copied to the output in one
 * piece, so nothing outside out[0 .. count) is ever written. Elements move as bits by their
 * size (1, 4 or 8 bytes), whatever the dtype.
 *
 * Partition: the rejected elements of a thread go to out[count + (range start - kept before
 * it) ...]. Run-length encoding: each run head writes the length of the run before it (its
 * index minus the previous head's; the first pass also finds the last head of each range),
 * and the last run's length is n minus its head. In place (select with out == in or
 * payload_out == payload): each thread packs its range to the front of the range itself
 * (writes never pass the reads), then the ranges are moved down in order by one thread.
 */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "compaction_keep.h"

#define BLOCK 4096                             /* elements per block (keep bytes, buffers) */
/* Smaller inputs: one thread. (At 2^16 two threads took 16-22 ms instead of 0.07 ms on this
 * shared 2-core machine whenever another process held a core: the barrier waits for it.) */
#define PAR_MIN ((size_t)1 << 20)
#define MAX_THREADS 256

static inline uint64_t bits_at(const void *p, size_t i, int w)
{
    if (w == 1) return ((const uint8_t *)p)[i];
    if (w == 4) {
        uint32_t v;
        memcpy(&v, (const char *)p + 4 * i, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, (const char *)p + 8 * i, 8);
    return v;
}

/* keep[j] = whether element i0 + j is kept (0 or 1), j < m. The (width, encoding) pairs of
 * the seven dtypes are spelled out, so that each loop is compiled for constants. */
#define PRED_LOOP(W, ENC)                                                                                   \
    if (W == 4) {                                                                                           \
        const uint32_t *x = (const uint32_t *)a->in + i0;                                                   \
        const uint32_t lo = (uint32_t)a->pred.lo, hi = (uint32_t)a->pred.hi, inv = a->pred.invert,          \
                       nv = a->pred.nan_val;                                                                \
        for (size_t j = 0; j < m; ++j) keep[j] = (uint8_t)pp_keep_eval32(lo, hi, inv, nv, x[j], ENC);       \
    } else if (W == 1) { /* u8: its keys and bounds fit 32 bits as well */                                   \
        const uint8_t *x = (const uint8_t *)a->in + i0;                                                     \
        const uint32_t lo = (uint32_t)a->pred.lo, hi = (uint32_t)a->pred.hi, inv = a->pred.invert,          \
                       nv = a->pred.nan_val;                                                                \
        for (size_t j = 0; j < m; ++j) keep[j] = (uint8_t)pp_keep_eval32(lo, hi, inv, nv, x[j], ENC);       \
    } else {                                                                                                \
        const pp_keep_pred p = a->pred;                                                                     \
        for (size_t j = 0; j < m; ++j) keep[j] = (uint8_t)pp_keep_eval(&p, bits_at(a->in, i0 + j, W), W, ENC); \
    }
#define HEAD_LOOP(W, ENC)                                                                             \
    do {                                                                                              \
        size_t j0 = 0;                                                                                \
        if (i0 == 0) keep[j0++] = 1;                                                                  \
        if (W == 4) {                                                                                 \
            const uint32_t *x = (const uint32_t *)a->in + i0;                                         \
            for (size_t j = j0; j < m; ++j) keep[j] = (uint8_t)!pp_same_key32(x[j], x[j - 1], ENC);   \
        } else if (W == 1) {                                                                          \
            const uint8_t *x = (const uint8_t *)a->in + i0;                                           \
            for (size_t j = j0; j < m; ++j) keep[j] = x[j] != x[j - 1];                               \
        } else {                                                                                      \
            for (size_t j = j0; j < m; ++j)                                                           \
                keep[j] = (uint8_t)!pp_same_key(bits_at(a->in, i0 + j, W), bits_at(a->in, i0 + j - 1, W), W, ENC); \
        }                                                                                             \
    } while (0)
#define BY_DTYPE(LOOP)                                        \
    switch (a->dtype) {                                       \
    case PP_U8: LOOP(1, PP_ENC_UNSIGNED); break;              \
    case PP_I32: LOOP(4, PP_ENC_SIGNED); break;               \
    case PP_U32: LOOP(4, PP_ENC_UNSIGNED); break;             \
    case PP_F32: LOOP(4, PP_ENC_FLOAT); break;                \
    case PP_I64: LOOP(8, PP_ENC_SIGNED); break;               \
    case PP_U64: LOOP(8, PP_ENC_UNSIGNED); break;             \
    default: LOOP(8, PP_ENC_FLOAT); break;                    \
    }

PP_WIDE_CLONES static void keep_block(const pp_compact_args *a, size_t i0, size_t m, uint8_t *keep)
{
    if (a->keep == PP_KEEP_FLAGS) {
        const uint8_t *f = a->flags + i0;
        for (size_t j = 0; j < m; ++j) keep[j] = f[j] != 0;
    } else if (a->keep == PP_KEEP_PRED) {
        BY_DTYPE(PRED_LOOP)
    } else {
        BY_DTYPE(HEAD_LOOP)
    }
}

/* AVX-512 (x86-64 with gcc, chosen at run time): 16 (4-byte) or 8 (8-byte) elements packed by
 * one compress; the whole vector is stored, so `d` has room for a vector past the packed ones
 * (o <= j: never past m). keep ^ flip selects the kept (flip 0) or the rejected (flip 1). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(PP_NO_TARGET_CLONES)
#include <immintrin.h>
#define HAVE_V512 1
#define V512 __attribute__((target("avx512f,avx512bw,avx512vl")))
V512 static size_t pack4_v512(const uint32_t *s, const uint8_t *keep, size_t m, uint8_t flip, uint32_t *d)
{
    size_t o = 0, j = 0;
    const __m128i f = _mm_set1_epi8((char)flip);
    for (; j + 16 <= m; j += 16) {
        const __m128i kb = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(keep + j)), f);
        const __mmask16 k = _mm_test_epi8_mask(kb, kb);
        _mm512_storeu_si512(d + o, _mm512_maskz_compress_epi32(k, _mm512_loadu_si512(s + j)));
        o += (size_t)__builtin_popcount(k);
    }
    for (; j < m; ++j) {
        d[o] = s[j];
        o += (size_t)(keep[j] ^ flip);
    }
    return o;
}
V512 static size_t pack8_v512(const uint64_t *s, const uint8_t *keep, size_t m, uint8_t flip, uint64_t *d)
{
    size_t o = 0, j = 0;
    const __m128i f = _mm_set1_epi8((char)flip);
    for (; j + 8 <= m; j += 8) {
        const __m128i kb = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(keep + j)), f);
        const __mmask8 k = (__mmask8)_mm_test_epi8_mask(kb, kb);
        _mm512_storeu_si512(d + o, _mm512_maskz_compress_epi64(k, _mm512_loadu_si512(s + j)));
        o += (size_t)__builtin_popcount(k);
    }
    for (; j < m; ++j) {
        d[o] = s[j];
        o += (size_t)(keep[j] ^ flip);
    }
    return o;
}
/* Indices i0 + j of the kept elements (8 bytes: 8 at a time). */
V512 static size_t pack_idx8_v512(uint64_t i0, const uint8_t *keep, size_t m, uint64_t *d)
{
    size_t o = 0, j = 0;
    const __m512i step = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    for (; j + 8 <= m; j += 8) {
        const __m128i kb = _mm_loadl_epi64((const __m128i *)(keep + j));
        const __mmask8 k = (__mmask8)_mm_test_epi8_mask(kb, kb);
        const __m512i idx = _mm512_add_epi64(_mm512_set1_epi64((long long)(i0 + j)), step);
        _mm512_storeu_si512(d + o, _mm512_maskz_compress_epi64(k, idx));
        o += (size_t)__builtin_popcount(k);
    }
    for (; j < m; ++j) {
        d[o] = i0 + j;
        o += keep[j];
    }
    return o;
}
static int have_v512(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
}
#else
#define HAVE_V512 0
static int have_v512(void) { return 0; }
#endif

/* The kept (want 1) or rejected (want 0) elements of src[i0 .. i0 + m) of `size` bytes, packed
 * into buf; returns how many. */
#define PACK(T)                                                                   \
    do {                                                                          \
        const T *s = (const T *)src + i0;                                         \
        T *d = (T *)buf;                                                          \
        for (size_t j = 0; j < m; ++j) {                                          \
            d[o] = s[j];                                                          \
            o += (size_t)(keep[j] ^ flip);                                        \
        }                                                                         \
    } while (0)
static size_t pack(const void *src, size_t size, size_t i0, size_t m, const uint8_t *keep, int want, void *buf,
                   int v512)
{
    size_t o = 0;
    const uint8_t flip = (uint8_t)(want ? 0 : 1);
#if HAVE_V512
    if (v512 && size == 4) return pack4_v512((const uint32_t *)src + i0, keep, m, flip, (uint32_t *)buf);
    if (v512 && size == 8) return pack8_v512((const uint64_t *)src + i0, keep, m, flip, (uint64_t *)buf);
#else
    (void)v512;
#endif
    if (size == 1) PACK(uint8_t);
    else if (size == 4) PACK(uint32_t);
    else PACK(uint64_t);
    return o;
}

/* Indices i0 + j of the kept elements, as `size`-byte integers. */
static size_t pack_indices(size_t size, size_t i0, size_t m, const uint8_t *keep, void *buf, int v512)
{
    size_t o = 0;
#if HAVE_V512
    if (v512 && size == 8) return pack_idx8_v512(i0, keep, m, (uint64_t *)buf);
#else
    (void)v512;
#endif
    if (size == 4) {
        uint32_t *d = (uint32_t *)buf;
        for (size_t j = 0; j < m; ++j) {
            d[o] = (uint32_t)(i0 + j);
            o += keep[j];
        }
    } else {
        uint64_t *d = (uint64_t *)buf;
        for (size_t j = 0; j < m; ++j) {
            d[o] = (uint64_t)(i0 + j);
            o += keep[j];
        }
    }
    return o;
}

static void store_len(void *lengths, size_t size, uint64_t r, uint64_t len)
{
    if (size == 4) ((uint32_t *)lengths)[r] = (uint32_t)len;
    else ((uint64_t *)lengths)[r] = len;
}

/* Per thread: its kept count, and (run heads) its last head. */
struct range_info {
    uint64_t kept;
    uint64_t last_head; /* UINT64_MAX: none */
};

/* Bytes of a thread's buffers: keep bytes, then one packed block of values, payload, and
 * indices. */
#define THREAD_BYTES (BLOCK + 3 * BLOCK * 8)

pp_status pp__cpu_compact(pp_context *ctx, const pp_compact_args *a)
{
    static const char fn[] = "compaction";
    const size_t n = a->n;
    if (n == 0) {
        *a->count = 0;
        pp__set_plan(ctx, "compaction", "cpu", 0, 0, 0, 0, 0, 0);
        return PP_OK;
    }
    int nt = omp_get_max_threads();
    if (nt > MAX_THREADS) nt = MAX_THREADS;
    if (n < PAR_MIN) nt = 1;
    void *mem = NULL;
    PP_TRY(cpu_scratch(ctx, fn, (size_t)nt * THREAD_BYTES + MAX_THREADS * sizeof(struct range_info), &mem));
    struct range_info *info = (struct range_info *)mem;
    unsigned char *bufs = (unsigned char *)mem + MAX_THREADS * sizeof(struct range_info);
    const size_t esz = pp_dtype_size(a->dtype), psz = a->payload_size;
    const int head_mode = a->keep == PP_KEEP_RUN_HEAD;
    const int inpl_v = a->out && a->out == a->in, inpl_p = psz && a->payload_out == a->payload;
    const size_t nblocks = (n + BLOCK - 1) / BLOCK;
    const int v512 = have_v512();
    uint64_t total = 0, last_head = 0;
    int teams = 1;
    size_t lo_of[MAX_THREADS + 1];

#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), T = omp_get_num_threads();
        const size_t lo = (nblocks * (size_t)t / (size_t)T) * BLOCK;
        size_t hi = (nblocks * (size_t)(t + 1) / (size_t)T) * BLOCK;
        if (hi > n) hi = n;
        unsigned char *mine = bufs + (size_t)t * THREAD_BYTES;
        uint8_t *keep = mine;
        void *vbuf = mine + BLOCK, *pbuf = mine + BLOCK + BLOCK * 8, *ibuf = mine + BLOCK + 2 * BLOCK * 8;
        lo_of[t] = lo;
        if (t == T - 1) {
            lo_of[T] = n;
            teams = T;
        }
        /* pass 1: count (flags: the flags alone are read) */
        uint64_t kept = 0, lh = UINT64_MAX;
        for (size_t i0 = lo; i0 < hi; i0 += BLOCK) {
            const size_t m = hi - i0 < BLOCK ? hi - i0 : BLOCK;
            keep_block(a, i0, m, keep);
            size_t c = 0;
            for (size_t j = 0; j < m; ++j) c += keep[j];
            if (head_mode)
                for (size_t j = m; j-- > 0;)
                    if (keep[j]) {
                        lh = i0 + j;
                        break;
                    }
            kept += c;
        }
        info[t].kept = kept;
        info[t].last_head = lh;
#pragma omp barrier
        uint64_t before = 0, prev_head = UINT64_MAX, all = 0;
        for (int u = 0; u < T; ++u) {
            if (u < t) {
                before += info[u].kept;
                if (info[u].last_head != UINT64_MAX) prev_head = info[u].last_head;
            }
            all += info[u].kept;
        }
        if (t == T - 1) total = all;
        /* pass 2: scatter */
        uint64_t o = before, rej = (uint64_t)lo - before;
        uint64_t ov = inpl_v ? lo : before, op = inpl_p ? lo : before;
        for (size_t i0 = lo; i0 < hi; i0 += BLOCK) {
            const size_t m = hi - i0 < BLOCK ? hi - i0 : BLOCK;
            keep_block(a, i0, m, keep);
            size_t c = 0;
            if (a->kind == PP_COMPACT_WHERE) {
                c = pack_indices(a->index_size, i0, m, keep, ibuf, v512);
                memcpy((char *)a->indices + o * a->index_size, ibuf, c * a->index_size);
            } else {
                c = pack(a->in, esz, i0, m, keep, 1, vbuf, v512);
                memcpy((char *)a->out + ov * esz, vbuf, c * esz);
                if (psz) {
                    pack(a->payload, psz, i0, m, keep, 1, pbuf, v512);
                    memcpy((char *)a->payload_out + op * psz, pbuf, c * psz);
                }
                if (a->kind == PP_COMPACT_PARTITION) {
                    const size_t r = pack(a->in, esz, i0, m, keep, 0, vbuf, v512);
                    memcpy((char *)a->out + (all + rej) * esz, vbuf, r * esz);
                    if (psz) {
                        pack(a->payload, psz, i0, m, keep, 0, pbuf, v512);
                        memcpy((char *)a->payload_out + (all + rej) * psz, pbuf, r * psz);
                    }
                    rej += r;
                }
                if (a->kind == PP_COMPACT_RLE && c > 0) { /* each head ends the run before it */
                    const uint64_t *heads = (const uint64_t *)ibuf;
                    pack_indices(8, i0, m, keep, ibuf, v512);
                    if (prev_head != UINT64_MAX) store_len(a->lengths, a->length_size, o - 1, heads[0] - prev_head);
                    if (a->length_size == 4) {
                        uint32_t *len = (uint32_t *)a->lengths + o;
                        for (size_t h = 1; h < c; ++h) len[h - 1] = (uint32_t)(heads[h] - heads[h - 1]);
                    } else {
                        uint64_t *len = (uint64_t *)a->lengths + o;
                        for (size_t h = 1; h < c; ++h) len[h - 1] = heads[h] - heads[h - 1];
                    }
                    prev_head = heads[c - 1];
                }
            }
            o += c;
            ov += c;
            op += c;
        }
        if (head_mode && t == T - 1) {
            for (int u = T; u-- > 0;)
                if (info[u].last_head != UINT64_MAX) {
                    last_head = info[u].last_head;
                    break;
                }
        }
    }
    /* in place: the packed ranges down to their offsets, in order */
    if (inpl_v || inpl_p) {
        uint64_t before = 0;
        for (int u = 0; u < teams; ++u) {
            const size_t c = info[u].kept;
            if (inpl_v && c) memmove((char *)a->out + before * esz, (char *)a->out + lo_of[u] * esz, c * esz);
            if (inpl_p && c) memmove((char *)a->payload_out + before * psz, (char *)a->payload_out + lo_of[u] * psz, c * psz);
            before += c;
        }
    }
    if (a->kind == PP_COMPACT_RLE) store_len(a->lengths, a->length_size, total - 1, (uint64_t)n - last_head);
    *a->count = total;
    /* The plan: param = {threads, block elements, in place}. */
    pp__set_plan(ctx, "compaction", "cpu", 0, nblocks, teams, BLOCK, inpl_v || inpl_p, 0);
    return PP_OK;
}
