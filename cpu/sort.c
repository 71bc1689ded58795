/*
 * sort.c -- the radix sort family on the CPU (OpenMP): pp_sort_keys, pp_sort_pairs and
 * pp_argsort, one LSD radix sort for every key and value type.
 *
 * Keys are ordered by 8-bit digits of their sort encoding (src/key_encoding.h: the order of
 * parprim.h, -0.0 == +0.0, NaN last; complemented when descending), least significant first,
 * over the bits [begin_bit, end_bit); every pass is a stable counting scatter, so the sort is
 * stable. Keys move as their own bits (1, 4 or 8 bytes), values as 1, 4 or 8 bytes: the
 * kernels (cpu/sort_impl.h) are instantiated per (key width, value width), the key's kind
 * (unsigned, signed, float) and order are run-time values of the encoding.
 *
 * One OpenMP region runs the whole sort over blocks of the array (several per thread), which the
 * threads claim in turn (dynamic schedule), so that a thread slowed by a shared core takes fewer
 * of them instead of holding every other thread at the pass's barrier. First one read of the
 * keys counts the digits of every pass (per block); their sums give each digit's start in every
 * pass and show the passes whose digit is the same for every key, which are skipped. Then per
 * pass: each block's offsets (the digit's start plus the counts of the blocks before it), one
 * scatter per block, a barrier. A scatter also counts the next pass's digits of the keys it
 * writes, per block of their new positions, so that the next pass needs no read of its own.
 * The passes alternate between the output and a buffer from scratch, arranged so that the
 * last one lands in the output; in place with an odd number of passes, the last lands in the
 * buffer and is copied.
 * Small inputs run on one thread (the fork and barriers cost more than the work).
 */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE: glibc declares it only outside strict C11 */
#endif
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "key_encoding.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define SORT_MAX_PASSES 8
/* Blocks: the threads claim about SORT_BLOCKS_PER_THREAD blocks each (a thread that loses its
 * core to another process for a while takes fewer), none of fewer than SORT_BLOCK_MIN keys. */
#define SORT_BLOCKS_PER_THREAD 8
#define SORT_BLOCK_MIN ((size_t)1 << 16)
/* Up to this many blocks, a scatter also counts the next pass's digits for the block that will
 * hold each position (a table of blocks x 256 counts per thread), which saves the next pass a
 * read of the keys; above, the tables would outgrow the caches and the keys are read. */
#define SORT_FUSED_MAX_BLOCKS 64
/* Inputs below this many keys sort on one thread: 2^16 u32 keys took 0.7 ms on one thread here
 * and 263 ms on two while the 2 cores were shared (load 15): each barrier then waits for a
 * time slice of the other thread. */
#define SORT_PARALLEL_MIN ((size_t)1 << 18)

/* The scatter's buffer per digit holds SORT_LINES cache lines of the widest of key and value:
 * two lines written together took a pass of 2^26 u32 keys from 104 to 89 ms here (four: 85 ms)
 * in a standalone loop (bench/NOTES.md, "sort, CPU: fourth session"); fewer, longer writes per
 * stream. Two keep a pass's buffers of u32 pairs at 64 KiB of stack. */
#define SORT_LINES 2

/* A buffer's run to its place in the output: whole 64-byte lines at a 64-byte boundary with
 * non-temporal stores (no read of the lines they replace: the scatter's writes would otherwise
 * read every line of the output once more; perf showed the plain copy at 41% of a pass),
 * anything else with memcpy. sort_put_done orders the non-temporal stores before the barrier. */
static inline void sort_put(void *dst, const void *src, size_t bytes)
{
#if defined(__SSE2__)
    if (bytes && (bytes & 63) == 0 && ((uintptr_t)dst & 63) == 0) {
        const __m128i *s = (const __m128i *)src;
        __m128i *d = (__m128i *)dst;
        for (size_t i = 0; i < bytes / 16; i += 4) {
            _mm_stream_si128(d + i, _mm_load_si128(s + i));
            _mm_stream_si128(d + i + 1, _mm_load_si128(s + i + 1));
            _mm_stream_si128(d + i + 2, _mm_load_si128(s + i + 2));
            _mm_stream_si128(d + i + 3, _mm_load_si128(s + i + 3));
        }
        return;
    }
#endif
    memcpy(dst, src, bytes);
}
static inline void sort_put_done(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/* The buffer [p, p + bytes) of scratch in 2 MiB pages where the system has them (Linux's
 * transparent huge pages, on request): a pass writes 256 streams, each in another 4 KiB page,
 * and the translations of those pages outnumber the TLB's first level. Pages already touched
 * stay as they are until the kernel merges them, so this asks before a new scratch's first
 * use (every call asks: one system call, none below 2 MiB). */
static void sort_huge_pages(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)1 << 21, lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    const uintptr_t hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

struct sort_plan {
    int kind;        /* PP_SORT_KIND_* */
    uint64_t flip;   /* all ones of the key width when descending, else 0 */
    int passes;      /* digits in [begin_bit, end_bit) */
    int shift[SORT_MAX_PASSES];
    unsigned mask[SORT_MAX_PASSES];
};

/* Counting the next pass's digits during a scatter: the next pass's shift and mask, the blocks'
 * size (2^block_shift keys), and this thread's counts per block of the positions the keys land
 * on ([blocks][256]; a block holds fewer than 2^32 keys). */
struct sort_next {
    int shift;
    unsigned mask;
    int block_shift;
    uint32_t *cnt;
};

struct sort_kernel {
    void (*count_all)(const void *keys, size_t lo, size_t hi, const struct sort_plan *pl, uint64_t *cnt);
    void (*count_one)(const void *keys, size_t lo, size_t hi, const struct sort_plan *pl, int p, uint64_t *cnt);
    void (*scatter)(const void *ks, void *kd, const void *vs, void *vd, size_t lo, size_t hi,
                    const struct sort_plan *pl, int p, uint64_t *off, const struct sort_next *nx);
};

#define NAME sort_k1
#define KT uint8_t
#include "sort_impl.h"
#define NAME sort_k1_v1
#define KT uint8_t
#define VT uint8_t
#include "sort_impl.h"
#define NAME sort_k1_v4
#define KT uint8_t
#define VT uint32_t
#include "sort_impl.h"
#define NAME sort_k1_v8
#define KT uint8_t
#define VT uint64_t
#include "sort_impl.h"
#define NAME sort_k4
#define KT uint32_t
#include "sort_impl.h"
#define NAME sort_k4_v1
#define KT uint32_t
#define VT uint8_t
#include "sort_impl.h"
#define NAME sort_k4_v4
#define KT uint32_t
#define VT uint32_t
#include "sort_impl.h"
#define NAME sort_k4_v8
#define KT uint32_t
#define VT uint64_t
#include "sort_impl.h"
#define NAME sort_k8
#define KT uint64_t
#define KT_IS_64 1
#include "sort_impl.h"
#define NAME sort_k8_v1
#define KT uint64_t
#define KT_IS_64 1
#define VT uint8_t
#include "sort_impl.h"
#define NAME sort_k8_v4
#define KT uint64_t
#define KT_IS_64 1
#define VT uint32_t
#include "sort_impl.h"
#define NAME sort_k8_v8
#define KT uint64_t
#define KT_IS_64 1
#define VT uint64_t
#include "sort_impl.h"

/* [key width 1, 4, 8][value width 0, 1, 4, 8] */
static const struct sort_kernel *const kernels[3][4] = {
    {&sort_k1, &sort_k1_v1, &sort_k1_v4, &sort_k1_v8},
    {&sort_k4, &sort_k4_v1, &sort_k4_v4, &sort_k4_v8},
    {&sort_k8, &sort_k8_v1, &sort_k8_v4, &sort_k8_v8},
};

static size_t align256(size_t x) { return (x + 255) & ~(size_t)255; }

static int width_index(size_t bytes) { return bytes == 1 ? 0 : bytes == 4 ? 1 : 2; }

/* Thread t's chunk of n among nt. */
static void chunk(size_t n, int t, int nt, size_t *lo, size_t *hi)
{
    const size_t per = n / (size_t)nt, extra = n % (size_t)nt;
    *lo = (size_t)t * per + ((size_t)t < extra ? (size_t)t : extra);
    *hi = *lo + per + ((size_t)t < extra ? 1 : 0);
}

/* Thread t's part of a copy of `bytes` (or of writing the indices lo .. hi as values). */
static void copy_part(void *dst, const void *src, size_t n, size_t size, int t, int nt)
{
    size_t lo, hi;
    chunk(n, t, nt, &lo, &hi);
    if (hi > lo && dst != src) memcpy((char *)dst + lo * size, (const char *)src + lo * size, (hi - lo) * size);
}
static void iota_part(void *dst, size_t n, size_t size, int t, int nt)
{
    size_t lo, hi;
    chunk(n, t, nt, &lo, &hi);
    if (size == 4)
        for (size_t i = lo; i < hi; ++i) ((uint32_t *)dst)[i] = (uint32_t)i;
    else
        for (size_t i = lo; i < hi; ++i) ((uint64_t *)dst)[i] = (uint64_t)i;
}

/* The encoding and the digits of a's bit range. */
static void make_plan(const pp_sort_args *a, struct sort_plan *pl)
{
    const size_t ks = pp_dtype_size(a->key_type);
    memset(pl, 0, sizeof *pl);
    pl->kind = pp__dtype_is_float(a->key_type) ? PP_SORT_KIND_FLOAT
               : pp__dtype_is_signed(a->key_type) ? PP_SORT_KIND_SIGNED
                                                   : PP_SORT_KIND_UNSIGNED;
    pl->flip = a->descending ? (ks == 8 ? ~0ull : ((1ull << (8 * ks)) - 1)) : 0;
    for (int b = a->begin_bit; b < a->end_bit; b += 8) {
        const int w = a->end_bit - b < 8 ? a->end_bit - b : 8;
        pl->shift[pl->passes] = b;
        pl->mask[pl->passes] = (1u << w) - 1u;
        ++pl->passes;
    }
}

/* The blocks of n keys on `threads` threads: 2^shift keys each (the last one shorter, one block
 * on one thread), so that a position's block is the position >> shift; returns their number. */
static int sort_blocks(size_t n, int threads, int *shift)
{
    int s = 0;
    while (s < 62 && ((size_t)1 << s) < n) ++s;
    if (threads > 1) {
        const size_t want = (size_t)threads * SORT_BLOCKS_PER_THREAD;
        while (s > 0 && ((size_t)1 << (s - 1)) >= SORT_BLOCK_MIN && ((n - 1) >> (s - 1)) + 1 <= want) --s;
    }
    *shift = s;
    return n ? (int)((n - 1) >> s) + 1 : 1;
}

/* The scratch of pp__cpu_sort (its layout is carved there): digit counts of every pass per
 * block, one pass's per block, the digits' starts, the blocks' starts, the blocks' offsets of
 * the current pass, the next pass's counts of each thread per block, then the second key and
 * value buffers (second), then argsort's first key buffer (first_keys). */
static size_t sort_scratch_bytes(size_t n, size_t ks, size_t vs, int P, int threads, int second, int first_keys)
{
    int bshift;
    const int nb = sort_blocks(n, threads, &bshift), fused = nb <= SORT_FUSED_MAX_BLOCKS && bshift < 32;
    const size_t cnt_all_n = (size_t)nb * (size_t)(P ? P : 1) * 256;
    const size_t cnt_one_n = (size_t)nb * 256, start_n = (size_t)(P ? P : 1) * 256;
    const size_t bounds_n = (size_t)nb + 1, boff_n = (size_t)nb * 256;
    const size_t priv_n = fused ? (size_t)threads * (size_t)nb * 256 : 0;
    size_t bytes = (cnt_all_n + cnt_one_n + start_n + bounds_n + boff_n) * sizeof(uint64_t) + priv_n * sizeof(uint32_t);
    if (second) bytes = align256(bytes) + align256(n * ks) + (vs ? align256(n * vs) : 0);
    if (first_keys) bytes = align256(bytes) + align256(n * ks);
    return bytes;
}

size_t pp__cpu_sort_bytes_bound(size_t n, size_t key_size, size_t value_size)
{
    const int threads = n >= SORT_PARALLEL_MIN ? omp_get_max_threads() : 1;
    return sort_scratch_bytes(n, key_size, value_size, SORT_MAX_PASSES, threads, 1, 0);
}

/* ---- the same sort on the calling thread, with the caller's scratch (cpu/segsort.c sorts one
 * segment per call, several threads at once, each with its own scratch) ---- */

size_t pp__cpu_sort_serial_bytes(size_t n, size_t key_size, size_t value_size)
{
    return align256((size_t)SORT_MAX_PASSES * 256 * sizeof(uint64_t)) + align256(n * key_size) +
           (value_size ? align256(n * value_size) : 0);
}

void pp__cpu_sort_serial(const pp_sort_args *a, void *scratch)
{
    const size_t n = a->n, ks = pp_dtype_size(a->key_type), vs = a->value_size;
    const struct sort_kernel *kern = kernels[width_index(ks)][vs == 0 ? 0 : 1 + width_index(vs)];
    struct sort_plan pl;
    make_plan(a, &pl);
    const int P = pl.passes;
    uint64_t *cnt = (uint64_t *)scratch;
    char *k1 = (char *)scratch + align256((size_t)SORT_MAX_PASSES * 256 * sizeof(uint64_t));
    char *v1 = vs ? k1 + align256(n * ks) : NULL;
    int active[SORT_MAX_PASSES], Q = 0;
    if (P) kern->count_all(a->keys_in, 0, n, &pl, cnt);
    for (int p = 0; p < P; ++p) { /* counts to starts; a pass whose digit holds every key is skipped */
        uint64_t sum = 0, *c = cnt + (size_t)p * 256;
        int constant = 0;
        for (int d = 0; d < 256; ++d) {
            const uint64_t t = c[d];
            c[d] = sum;
            sum += t;
            if (t == n) constant = 1;
        }
        if (!constant) active[Q++] = p;
    }
    const int in_place = a->keys_out == a->keys_in || (vs && a->values_out == a->values_in);
    const int shift = in_place && (Q & 1);
    void *kbuf[2] = {a->keys_out, k1}, *vbuf[2] = {a->values_out, v1};
    const void *ksrc = a->keys_in, *vsrc = a->values_in;
    for (int j = 0; j < Q; ++j) {
        const int b = (Q - 1 - j + shift) & 1;
        uint64_t off[256];
        memcpy(off, cnt + (size_t)active[j] * 256, sizeof off);
        kern->scatter(ksrc, kbuf[b], vsrc, vs ? vbuf[b] : NULL, 0, n, &pl, active[j], off, NULL);
        ksrc = kbuf[b];
        vsrc = vbuf[b];
    }
    if (Q == 0) {
        if (a->keys_out != a->keys_in) memcpy(a->keys_out, a->keys_in, n * ks);
        if (vs && a->values_out != a->values_in) memcpy(a->values_out, a->values_in, n * vs);
    } else if (shift) {
        memcpy(a->keys_out, k1, n * ks);
        if (vs) memcpy(a->values_out, v1, n * vs);
    }
}

pp_status pp__cpu_sort(pp_context *ctx, const pp_sort_args *a)
{
    static const char fn[] = "pp_sort";
    const size_t n = a->n, ks = pp_dtype_size(a->key_type), vs = a->value_size;
    const struct sort_kernel *kern = kernels[width_index(ks)][vs == 0 ? 0 : 1 + width_index(vs)];

    struct sort_plan pl;
    make_plan(a, &pl);
    const int P = pl.passes;
    const int argsort = a->keys_out == NULL;
    const int in_place = (a->keys_out && a->keys_out == a->keys_in) || (vs && a->values_out == a->values_in);
    const int threads = n >= SORT_PARALLEL_MIN ? omp_get_max_threads() : 1;
    int bshift;
    const int nb = sort_blocks(n, threads, &bshift);

    /* Scratch (sort_scratch_bytes): digit counts of every pass per block, one pass's per block,
     * the digits' starts, the blocks' starts, the blocks' offsets of the current pass, the next
     * pass's counts of each thread per block, then the second key and value buffers (and, for
     * argsort, the first key buffer). */
    const int fused = nb <= SORT_FUSED_MAX_BLOCKS && bshift < 32;
    const size_t cnt_all_n = (size_t)nb * (size_t)(P ? P : 1) * 256;
    const size_t cnt_one_n = (size_t)nb * 256, start_n = (size_t)(P ? P : 1) * 256;
    const size_t bounds_n = (size_t)nb + 1, boff_n = (size_t)nb * 256;
    const size_t priv_n = fused ? (size_t)threads * (size_t)nb * 256 : 0;
    const int need_second = P >= 2 || in_place;
    const size_t koff = align256((cnt_all_n + cnt_one_n + start_n + bounds_n + boff_n) * sizeof(uint64_t) +
                                 priv_n * sizeof(uint32_t));
    const size_t k0off = align256(sort_scratch_bytes(n, ks, vs, P, threads, need_second, 0));
    const size_t bytes = sort_scratch_bytes(n, ks, vs, P, threads, need_second, argsort && P >= 2);
    void *scratch = NULL;
    PP_TRY(cpu_scratch(ctx, fn, bytes, &scratch));
    uint64_t *cnt_all = (uint64_t *)scratch, *cnt_one = cnt_all + cnt_all_n, *start = cnt_one + cnt_one_n;
    size_t *bounds = (size_t *)(start + start_n);
    uint64_t *boff = (uint64_t *)(bounds + bounds_n);
    uint32_t *priv = (uint32_t *)(boff + boff_n);
    void *k1 = need_second ? (char *)scratch + koff : NULL;
    void *v1 = need_second && vs ? (char *)scratch + koff + align256(n * ks) : NULL;
    void *kbuf[2] = {argsort ? (P >= 2 ? (char *)scratch + k0off : NULL) : a->keys_out, k1};
    void *vbuf[2] = {a->values_out, v1};
    if (need_second) sort_huge_pages(k1, bytes - koff);
    for (int u = 0; u < nb; ++u) bounds[u] = (size_t)u << bshift;
    bounds[nb] = n;

    int active[SORT_MAX_PASSES], Q = 0, shift = 0;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        if (P) {
#pragma omp for schedule(dynamic, 1)
            for (int B = 0; B < nb; ++B) kern->count_all(a->keys_in, bounds[B], bounds[B + 1], &pl, cnt_all + (size_t)B * P * 256);
        }
#pragma omp single
        {
            /* Each pass's digit totals, starts, and whether one digit holds every key. */
            for (int p = 0; p < P; ++p) {
                uint64_t sum = 0;
                int constant = 0;
                for (int d = 0; d < 256; ++d) {
                    uint64_t tot = 0;
                    for (int B = 0; B < nb; ++B) tot += cnt_all[((size_t)B * P + p) * 256 + d];
                    start[(size_t)p * 256 + d] = sum;
                    sum += tot;
                    if (tot == n) constant = 1;
                }
                if (!constant) active[Q++] = p;
            }
            shift = in_place && !argsort && (Q & 1);
        }
        const void *ksrc = a->keys_in, *vsrc = a->values_in;
        for (int j = 0; j < Q; ++j) {
            const int p = active[j], last = j == Q - 1;
            const int b = (Q - 1 - j + shift) & 1;
            void *kdst = argsort && last ? NULL : kbuf[b], *vdst = vs ? vbuf[b] : NULL;
            if (j > 0 && !fused) { /* many blocks: one more read of the keys */
#pragma omp for schedule(dynamic, 1)
                for (int B = 0; B < nb; ++B) kern->count_one(ksrc, bounds[B], bounds[B + 1], &pl, p, cnt_one + (size_t)B * 256);
            }
#pragma omp single
            {
                /* each block's offsets: the digit's start and the counts of the blocks before it
                 * (those of the first read, those counted by every thread during the last scatter,
                 * or those of this pass's read) */
                uint64_t run[256];
                memcpy(run, start + (size_t)p * 256, sizeof run);
                for (int B = 0; B < nb; ++B) {
                    memcpy(boff + (size_t)B * 256, run, sizeof run);
                    if (j == 0) {
                        for (int d = 0; d < 256; ++d) run[d] += cnt_all[((size_t)B * P + p) * 256 + d];
                    } else if (fused) {
                        for (int u = 0; u < nt; ++u)
                            for (int d = 0; d < 256; ++d) run[d] += priv[((size_t)u * nb + B) * 256 + d];
                    } else {
                        for (int d = 0; d < 256; ++d) run[d] += cnt_one[(size_t)B * 256 + d];
                    }
                }
            }
            struct sort_next nx, *nxp = NULL;
            if (fused && !last) {
                const int q = active[j + 1];
                nx.shift = pl.shift[q];
                nx.mask = pl.mask[q];
                nx.block_shift = bshift;
                nx.cnt = priv + (size_t)t * (size_t)nb * 256;
                memset(nx.cnt, 0, (size_t)nb * 256 * sizeof *nx.cnt);
                nxp = &nx;
            }
#pragma omp for schedule(dynamic, 1)
            for (int B = 0; B < nb; ++B) {
                uint64_t off[256];
                memcpy(off, boff + (size_t)B * 256, sizeof off);
                kern->scatter(ksrc, kdst, vsrc, vdst, bounds[B], bounds[B + 1], &pl, p, off, nxp);
            }
            ksrc = kdst;
            vsrc = vdst;
        }
        if (Q == 0) { /* nothing to order: the input as it is */
            if (!argsort) copy_part(a->keys_out, a->keys_in, n, ks, t, nt);
            if (vs && a->values_in) copy_part(a->values_out, a->values_in, n, vs, t, nt);
            else if (vs) iota_part(a->values_out, n, vs, t, nt);
        } else if (shift) { /* in place with an odd number of passes: the buffer to the output */
            copy_part(a->keys_out, k1, n, ks, t, nt);
            if (vs) copy_part(a->values_out, v1, n, vs, t, nt);
        }
    }
    pp__set_plan(ctx, "sort", "lsd", 0, 0, Q, P, threads, shift);
    return PP_OK;
}
