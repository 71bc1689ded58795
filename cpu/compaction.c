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
#define PAR_MIN ((size_t)1 << 16)              /* smaller inputs: one thread */
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
#define PRED_LOOP(W, ENC) \
    for (size_t j = 0; j < m; ++j) keep[j] = (uint8_t)pp_keep_eval(&a->pred, bits_at(a->in, i0 + j, W), W, ENC)
#define HEAD_LOOP(W, ENC)                                                                             \
    for (size_t j = 0; j < m; ++j) {                                                                  \
        const size_t i = i0 + j;                                                                      \
        keep[j] = (uint8_t)(i == 0 || !pp_same_key(bits_at(a->in, i, W), bits_at(a->in, i - 1, W), W, ENC)); \
    }
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

static void keep_block(const pp_compact_args *a, size_t i0, size_t m, uint8_t *keep)
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
static size_t pack(const void *src, size_t size, size_t i0, size_t m, const uint8_t *keep, int want, void *buf)
{
    size_t o = 0;
    const uint8_t flip = (uint8_t)(want ? 0 : 1);
    if (size == 1) PACK(uint8_t);
    else if (size == 4) PACK(uint32_t);
    else PACK(uint64_t);
    return o;
}

/* Indices i0 + j of the kept elements, as `size`-byte integers. */
static size_t pack_indices(size_t size, size_t i0, size_t m, const uint8_t *keep, void *buf)
{
    size_t o = 0;
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
                c = pack_indices(a->index_size, i0, m, keep, ibuf);
                memcpy((char *)a->indices + o * a->index_size, ibuf, c * a->index_size);
            } else {
                c = pack(a->in, esz, i0, m, keep, 1, vbuf);
                memcpy((char *)a->out + ov * esz, vbuf, c * esz);
                if (psz) {
                    pack(a->payload, psz, i0, m, keep, 1, pbuf);
                    memcpy((char *)a->payload_out + op * psz, pbuf, c * psz);
                }
                if (a->kind == PP_COMPACT_PARTITION) {
                    const size_t r = pack(a->in, esz, i0, m, keep, 0, vbuf);
                    memcpy((char *)a->out + (all + rej) * esz, vbuf, r * esz);
                    if (psz) {
                        pack(a->payload, psz, i0, m, keep, 0, pbuf);
                        memcpy((char *)a->payload_out + (all + rej) * psz, pbuf, r * psz);
                    }
                    rej += r;
                }
                if (a->kind == PP_COMPACT_RLE) {
                    uint64_t r = o;
                    for (size_t j = 0; j < m; ++j) {
                        if (!keep[j]) continue;
                        if (prev_head != UINT64_MAX) store_len(a->lengths, a->length_size, r - 1, i0 + j - prev_head);
                        prev_head = i0 + j;
                        ++r;
                    }
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
