/*
 * segsort.c -- the segmented sort on the CPU (issue 22): every segment sorted on its own, stably,
 * by the radix sort family's order (src/key_encoding.h).
 *
 * One OpenMP loop over the segments with a dynamic schedule, in batches of about CPU_TASK_BYTES
 * of keys (from the mean segment length, so that many short segments do not pay one scheduling
 * step each): a segment of up to SEGSORT_INSERTION_MAX keys is sorted by insertion (its keys,
 * encoded once, in a stack array); keys of at most 32 bits in segments of up to
 * SEGSORT_MERGE_MAX keys by a merge sort of 64-bit words (encoding, place); longer ones (and
 * 8-byte keys) by the radix sort family's LSD sort on the thread (pp__cpu_sort_serial), each
 * with the thread's own part of the scratch. Segments of at least
 * SEGSORT_PARALLEL_MIN keys are left to a second phase that sorts them one after another, each
 * with every thread (pp__cpu_sort). A first pass over the offsets finds the longest segment of
 * the loop (the size of each thread's scratch). Clamping as pp_segmented_reduce: segment s is
 * [min(offsets[s], n), min(offsets[s+1], n)), empty unless its end is above its begin.
 */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "cpu.h"
#include "key_encoding.h"

/* Segments of up to this many keys are sorted by insertion, in a stack array (not measured
 * against the merge sort below, whose runs of 16 are sorted the same way). */
#define SEGSORT_INSERTION_MAX 32
/* Keys of at most 32 bits in segments of up to this many keys are merge sorted (as 64-bit words
 * of encoding and place, runs of SEGSORT_RUN by insertion). parprim-bench on the build machine
 * (2 shared cores, one thread, 2^22 u32 keys, three runs alternating between a build with the
 * merge sort up to 1024 keys and one without it, 2026-11-26; Gitems/s): segments of 64 keys
 * 0.029-0.053 merged against 0.007-0.009 by the radix sort (four passes, each setting up 256
 * digits), 256: 0.021-0.041 against 0.012-0.016, 512: 0.018-0.037 against 0.018-0.024, 1024:
 * 0.016-0.030 against 0.025-0.036. */
#ifndef SEGSORT_MERGE_MAX
#define SEGSORT_MERGE_MAX 512
#endif
#define SEGSORT_RUN 16

/* The merge sort of distinct-or-interchangeable words (segsort_impl.h's two forms: (encoding,
 * place) words, and integer keys' 32-bit encodings): x[0, m) sorted in runs of SEGSORT_RUN by
 * insertion, then merged bottom-up between x and y without a branch on the comparison; returns
 * the buffer holding the result. One definition per word type. */
#define SEG_DEFINE_MERGE_SORT(T, NAME)                                                                      \
    static T *NAME(T *x, T *y, size_t m)                                                                    \
    {                                                                                                       \
        for (size_t r = 0; r < m; r += SEGSORT_RUN) {                                                       \
            const size_t e = r + SEGSORT_RUN < m ? r + SEGSORT_RUN : m;                                     \
            for (size_t i = r + 1; i < e; ++i) {                                                            \
                const T t = x[i];                                                                           \
                size_t j = i;                                                                               \
                for (; j > r && x[j - 1] > t; --j) x[j] = x[j - 1];                                         \
                x[j] = t;                                                                                   \
            }                                                                                               \
        }                                                                                                   \
        for (size_t width = SEGSORT_RUN; width < m; width *= 2) {                                           \
            for (size_t lo = 0; lo < m; lo += 2 * width) {                                                  \
                const size_t mid = lo + width < m ? lo + width : m, hi = lo + 2 * width < m ? lo + 2 * width : m; \
                size_t i = lo, j = mid, o = lo;                                                             \
                while (i < mid && j < hi) {                                                                 \
                    const T p = x[i], q = x[j];                                                             \
                    const size_t t = q < p;                                                                 \
                    y[o++] = t ? q : p;                                                                     \
                    j += t;                                                                                 \
                    i += 1 - t;                                                                             \
                }                                                                                           \
                while (i < mid) y[o++] = x[i++];                                                            \
                while (j < hi) y[o++] = x[j++];                                                             \
            }                                                                                               \
            T *t = x;                                                                                       \
            x = y;                                                                                          \
            y = t;                                                                                          \
        }                                                                                                   \
        return x;                                                                                           \
    }
SEG_DEFINE_MERGE_SORT(uint64_t, seg_merge_sort64)
SEG_DEFINE_MERGE_SORT(uint32_t, seg_merge_sort32)
/* Segments of at least this many keys are sorted with every thread (the radix sort's own
 * threshold for going parallel). */
#define SEGSORT_PARALLEL_MIN ((size_t)1 << 18)

#define NAME seg_ins_k1
#define KT uint8_t
#include "segsort_impl.h"
#define NAME seg_ins_k1_v1
#define KT uint8_t
#define VT uint8_t
#include "segsort_impl.h"
#define NAME seg_ins_k1_v4
#define KT uint8_t
#define VT uint32_t
#include "segsort_impl.h"
#define NAME seg_ins_k1_v8
#define KT uint8_t
#define VT uint64_t
#include "segsort_impl.h"
#define NAME seg_ins_k4
#define KT uint32_t
#include "segsort_impl.h"
#define NAME seg_ins_k4_v1
#define KT uint32_t
#define VT uint8_t
#include "segsort_impl.h"
#define NAME seg_ins_k4_v4
#define KT uint32_t
#define VT uint32_t
#include "segsort_impl.h"
#define NAME seg_ins_k4_v8
#define KT uint32_t
#define VT uint64_t
#include "segsort_impl.h"
#define NAME seg_ins_k8
#define KT uint64_t
#define KT_IS_64 1
#include "segsort_impl.h"
#define NAME seg_ins_k8_v1
#define KT uint64_t
#define KT_IS_64 1
#define VT uint8_t
#include "segsort_impl.h"
#define NAME seg_ins_k8_v4
#define KT uint64_t
#define KT_IS_64 1
#define VT uint32_t
#include "segsort_impl.h"
#define NAME seg_ins_k8_v8
#define KT uint64_t
#define KT_IS_64 1
#define VT uint64_t
#include "segsort_impl.h"

typedef void (*seg_merge_fn)(const void *kin, void *kout, const void *vin, void *vout, size_t b, size_t m, int kind,
                             uint64_t flip, uint64_t *w);
/* [key width 1, 4][value width 0, 1, 4, 8]; 8-byte keys go to the radix sort */
static const seg_merge_fn merge[2][4] = {
    {seg_ins_k1_merge, seg_ins_k1_v1_merge, seg_ins_k1_v4_merge, seg_ins_k1_v8_merge},
    {seg_ins_k4_merge, seg_ins_k4_v1_merge, seg_ins_k4_v4_merge, seg_ins_k4_v8_merge},
};
typedef void (*seg_merge_int_fn)(const void *kin, void *kout, size_t b, size_t m, int kind, uint64_t flip, uint32_t *w);
/* [key width 1, 4], integer keys without values */
static const seg_merge_int_fn merge_int[2] = {seg_ins_k1_merge_int, seg_ins_k4_merge_int};
/* The merge sort's words for m keys (ks, vs bytes each). */
static size_t merge_bytes(size_t m, size_t ks, size_t vs)
{
    return (2 * m + (m * ks + 7) / 8 + (m * vs + 7) / 8 + 1) * sizeof(uint64_t);
}

typedef void (*seg_ins_fn)(const void *kin, void *kout, const void *vin, void *vout, size_t b, size_t m, int kind,
                           uint64_t flip);
/* [key width 1, 4, 8][value width 0, 1, 4, 8] */
static const seg_ins_fn insertion[3][4] = {
    {seg_ins_k1, seg_ins_k1_v1, seg_ins_k1_v4, seg_ins_k1_v8},
    {seg_ins_k4, seg_ins_k4_v1, seg_ins_k4_v4, seg_ins_k4_v8},
    {seg_ins_k8, seg_ins_k8_v1, seg_ins_k8_v4, seg_ins_k8_v8},
};

static int width_index(size_t bytes) { return bytes == 1 ? 0 : bytes == 4 ? 1 : 2; }

/* Segment s's clamped bounds; 0 when it is empty. */
static inline int seg_bounds(const pp_segsort_args *a, size_t s, size_t *b, size_t *e)
{
    if (!a->offsets) {
        *b = s * a->segment_length;
        *e = *b + a->segment_length;
        return 1;
    }
    const size_t lo = a->offsets[s] < a->n ? a->offsets[s] : a->n;
    const size_t hi = a->offsets[s + 1] < a->n ? a->offsets[s + 1] : a->n;
    *b = lo;
    *e = hi;
    return hi > lo;
}

/* The radix sort's arguments for keys (values) [b, b + m). */
static pp_sort_args sub_args(const pp_segsort_args *a, size_t b, size_t m)
{
    const size_t ks = pp_dtype_size(a->key_type), vs = a->value_size;
    pp_sort_args r;
    memset(&r, 0, sizeof r);
    r.keys_in = (const char *)a->keys_in + b * ks;
    r.keys_out = (char *)a->keys_out + b * ks;
    if (vs) {
        r.values_in = (const char *)a->values_in + b * vs;
        r.values_out = (char *)a->values_out + b * vs;
    }
    r.n = m;
    r.key_type = a->key_type;
    r.value_size = vs;
    r.descending = a->descending;
    r.begin_bit = 0;
    r.end_bit = (int)(8 * ks);
    return r;
}

pp_status pp__cpu_segmented_sort(pp_context *ctx, const pp_segsort_args *a)
{
    static const char fn[] = "pp_segmented_sort";
    const size_t ks = pp_dtype_size(a->key_type), vs = a->value_size, S = a->n_segments;
    const seg_ins_fn ins = insertion[width_index(ks)][vs == 0 ? 0 : 1 + width_index(vs)];
    const int kind = pp__dtype_is_float(a->key_type) ? PP_SORT_KIND_FLOAT
                     : pp__dtype_is_signed(a->key_type) ? PP_SORT_KIND_SIGNED
                                                         : PP_SORT_KIND_UNSIGNED;
    const uint64_t flip = a->descending ? (ks == 8 ? ~0ull : ((1ull << (8 * ks)) - 1)) : 0;

    /* The longest segment of the loop, and whether any is left to the second phase. */
    size_t longest = 0, n_long = 0, covered = 0, longest_long = 0;
    if (!a->offsets) {
        if (a->segment_length >= SEGSORT_PARALLEL_MIN) {
            n_long = S;
            longest_long = a->segment_length;
        } else {
            longest = a->segment_length;
        }
        covered = a->n;
    } else {
        for (size_t s = 0; s < S; ++s) {
            size_t b, e;
            if (!seg_bounds(a, s, &b, &e)) continue;
            const size_t m = e - b;
            covered += m;
            if (m >= SEGSORT_PARALLEL_MIN) {
                ++n_long;
                if (m > longest_long) longest_long = m;
            } else if (m > longest) {
                longest = m;
            }
        }
    }
    const size_t mean = S ? covered / S : 0;
    const int threads = covered * ks >= CPU_PAR_MIN_BYTES && S > 1 ? omp_get_max_threads() : 1;
    const int use_merge = ks <= 4;
    const seg_merge_fn mrg = use_merge ? merge[width_index(ks)][vs == 0 ? 0 : 1 + width_index(vs)] : NULL;
    const seg_merge_int_fn mrg_int = use_merge && vs == 0 && kind != PP_SORT_KIND_FLOAT ? merge_int[width_index(ks)] : NULL;
    size_t per = longest > SEGSORT_INSERTION_MAX ? pp__cpu_sort_serial_bytes(longest, ks, vs) : 0;
    if (use_merge && longest > SEGSORT_INSERTION_MAX) {
        const size_t mb = merge_bytes(longest < SEGSORT_MERGE_MAX ? longest : SEGSORT_MERGE_MAX, ks, vs);
        if (mb > per) per = mb;
    }
    per = (per + 255) & ~(size_t)255;
    /* All the scratch of both phases is asked for now, so that a failure writes nothing. */
    const size_t long_bytes = n_long ? pp__cpu_sort_bytes_bound(longest_long, ks, vs) : 0;
    void *scratch = NULL;
    if (per || long_bytes)
        PP_TRY(cpu_scratch(ctx, fn, per * (size_t)threads > long_bytes ? per * (size_t)threads : long_bytes, &scratch));
    size_t batch = CPU_TASK_BYTES / ks / (mean ? mean : 1);
    if (batch < 1) batch = 1;
    const long long nseg = (long long)S;
#pragma omp parallel num_threads(threads)
    {
        void *mine = per ? (char *)scratch + per * (size_t)omp_get_thread_num() : NULL;
#pragma omp for schedule(dynamic, batch)
        for (long long si = 0; si < nseg; ++si) {
            size_t b, e;
            if (!seg_bounds(a, (size_t)si, &b, &e)) continue;
            const size_t m = e - b;
            if (m >= SEGSORT_PARALLEL_MIN) continue;
            if (m <= SEGSORT_INSERTION_MAX) {
                ins(a->keys_in, a->keys_out, a->values_in, a->values_out, b, m, kind, flip);
            } else if (mrg_int && m <= SEGSORT_MERGE_MAX) {
                mrg_int(a->keys_in, a->keys_out, b, m, kind, flip, (uint32_t *)mine);
            } else if (use_merge && m <= SEGSORT_MERGE_MAX) {
                mrg(a->keys_in, a->keys_out, a->values_in, a->values_out, b, m, kind, flip, (uint64_t *)mine);
            } else {
                const pp_sort_args r = sub_args(a, b, m);
                pp__cpu_sort_serial(&r, mine);
            }
        }
    }
    /* The long segments, each with every thread. */
    for (size_t s = 0; n_long && s < S; ++s) {
        size_t b, e;
        if (!seg_bounds(a, s, &b, &e) || e - b < SEGSORT_PARALLEL_MIN) continue;
        const pp_sort_args r = sub_args(a, b, e - b);
        PP_TRY(pp__cpu_sort(ctx, &r));
    }
    pp__set_plan(ctx, "segmented_sort", "cpu", 0, 0, threads, SEGSORT_INSERTION_MAX, (int64_t)n_long,
                 (int64_t)longest);
    return PP_OK;
}
