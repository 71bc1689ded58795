/*
 * sort.c -- parprim_mpi's distributed sort: pp_mpi_sort_keys, pp_mpi_sort_pairs,
 * pp_mpi_last_sort_stats (parprim_mpi.h, "sort").
 *
 * Each rank sorts its part (pp_sort_keys / pp_sort_pairs into pp_malloc'd scratch). Every key
 * then has a "sort word": its order-preserving unsigned form (src/key_encoding.h, the one the
 * radix sort ranks: -0.0 and +0.0 one word, every NaN the largest, complemented when
 * descending) restricted to the bits [begin_bit, end_bit), so that the sorted part is
 * non-decreasing in the word and the global stable order is (word, rank, position).
 *
 * Exact splitters: for each boundary t_k = pp_mpi_sort_first(N, k, P), the smallest word v_k
 * with count(word <= v_k) > t_k is found by bisection over the word's bits, MSB first, all
 * P - 1 boundaries at once: one MPI_Allreduce of the P - 1 counts per bit, each rank counting
 * by binary search in its sorted part (on the host: a rank whose arrays the host cannot read
 * in place, pm_host_access 0, copies its sorted keys to the host once). The keys equal to v_k
 * that go before t_k are taken in rank order (an exclusive scan over the ranks of each rank's
 * equal count): a radix select over the radix sort's own bits, distributed. Exact splitters
 * (rather than sampled ones) make the output balanced to the key and let every rank send
 * exactly the keys whose output position lies elsewhere; one partitioning and one all-to-all
 * exchange is the shape of RMG sort (Ilic, Tolovski and Rabl 2023), whose MSD radix partition
 * this refines to exact boundaries.
 *
 * One exchange (MPI_Alltoallv of keys, then of values, in a contiguous datatype of the element
 * size; point-to-point in chunks when some rank holds more than INT_MAX elements). Keys that
 * stay on their rank are not sent: a CPU rank merges them from its sorted part, a HIP rank
 * copies them in place. Then a CPU rank merges the P sorted runs (stable: the lower rank wins
 * ties; OpenMP threads each merge one slice of the output, the slices split exactly as the
 * ranks were), and a HIP rank sorts the runs again in place in keys_out (a stable radix sort
 * of runs in rank order is their merge). "CPU rank" is pm_host_access: a CPU context with
 * PP_OPTION_MPI_STAGING takes the HIP rank's staged path, which is how CI tests that path.
 */
#include "mpi_common.h"

#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../src/key_encoding.h"

static _Thread_local pp_mpi_sort_stats last_stats;

pp_status pp_mpi_last_sort_stats(pp_mpi_sort_stats *stats)
{
    if (!stats) return PP_ERROR_INVALID_ARGUMENT;
    *stats = last_stats;
    return PP_OK;
}

/* ---- sort words --------------------------------------------------------------------------- */

typedef struct pm_enc {
    int ks;        /* key bytes: 1, 4 or 8 */
    int kind;      /* PP_SORT_KIND_* */
    uint64_t flip; /* descending: all ones of the encoding's width (u8: 0xFF), else 0 */
    int shift;     /* begin_bit (0 for an empty range) */
    int width;     /* end_bit - begin_bit: the word's bits */
    uint64_t mask; /* the word's bits, as a mask */
} pm_enc;

static pm_enc make_enc(pp_dtype key_type, pp_sort_order order, int begin, int end)
{
    pm_enc e;
    e.ks = (int)pp_dtype_size(key_type);
    e.kind = (key_type == PP_F32 || key_type == PP_F64) ? PP_SORT_KIND_FLOAT
             : (key_type == PP_I32 || key_type == PP_I64) ? PP_SORT_KIND_SIGNED
                                                          : PP_SORT_KIND_UNSIGNED;
    e.flip = order == PP_SORT_DESCENDING ? (e.ks == 8 ? ~0ull : (1ull << (8 * e.ks)) - 1) : 0;
    e.width = end - begin;
    e.shift = e.width ? begin : 0;
    e.mask = e.width == 64 ? ~0ull : (1ull << e.width) - 1;
    return e;
}

static inline uint64_t word1(const pm_enc *e, uint8_t k)
{
    return ((uint64_t)pp_sort_key_u32(k, e->kind, (uint32_t)e->flip) >> e->shift) & e->mask;
}
static inline uint64_t word4(const pm_enc *e, uint32_t k)
{
    return ((uint64_t)pp_sort_key_u32(k, e->kind, (uint32_t)e->flip) >> e->shift) & e->mask;
}
static inline uint64_t word8(const pm_enc *e, uint64_t k)
{
    return (pp_sort_key_u64(k, e->kind, e->flip) >> e->shift) & e->mask;
}

static inline uint64_t word_at(const pm_enc *e, const void *keys, size_t i)
{
    switch (e->ks) {
    case 1: return word1(e, ((const uint8_t *)keys)[i]);
    case 4: return word4(e, ((const uint32_t *)keys)[i]);
    default: return word8(e, ((const uint64_t *)keys)[i]);
    }
}

/* How many of the n sorted keys have a word <= x (an upper bound by binary search). */
static size_t count_le(const pm_enc *e, const void *keys, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (word_at(e, keys, mid) <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
static size_t count_lt(const pm_enc *e, const void *keys, size_t n, uint64_t x)
{
    return x == 0 ? 0 : count_le(e, keys, n, x - 1);
}

/* ---- exact splitting -----------------------------------------------------------------------
 * Several sorted sequences (the ranks' parts, or the runs one rank merges) hold keys in the
 * order (word, sequence, position). For each target t_k (< the total), find the word v_k with
 * count(< v_k) <= t_k < count(<= v_k): bit by bit from the top, sum_le(candidates) giving the
 * total count of words <= each candidate. */
typedef void (*pm_sum_le)(void *arg, const uint64_t *cand, uint64_t *count, int m);

static void bisect_words(int m, const uint64_t *target, int width, pm_sum_le sum_le, void *arg, uint64_t *v,
                         uint64_t *cand, uint64_t *count)
{
    for (int k = 0; k < m; ++k) v[k] = 0;
    for (int b = width - 1; b >= 0; --b) {
        const uint64_t low = (1ull << b) - 1;
        for (int k = 0; k < m; ++k) cand[k] = v[k] | low;
        sum_le(arg, cand, count, m);
        for (int k = 0; k < m; ++k)
            if (count[k] <= target[k]) v[k] |= 1ull << b;
    }
}

/* Of a sequence's eq keys equal to v (after its lt keys below v), how many lie before the
 * target t: the first t - below_all of the equal keys of every sequence, taken in sequence
 * order, equal_before of them in the sequences before this one. */
static size_t split_point(uint64_t t, uint64_t below_all, uint64_t equal_before, size_t lt, size_t eq)
{
    const uint64_t needed = t - below_all;
    if (needed <= equal_before) return lt;
    const uint64_t take = needed - equal_before;
    return lt + (take < eq ? (size_t)take : eq);
}

/* The ranks' parts: counts summed by MPI_Allreduce. */
typedef struct global_arg {
    const pm_enc *e;
    const void *keys;
    size_t n;
    MPI_Comm comm;
    pm_check *c;
} global_arg;

static void global_sum_le(void *arg, const uint64_t *cand, uint64_t *count, int m)
{
    global_arg *g = (global_arg *)arg;
    for (int k = 0; k < m; ++k) count[k] = count_le(g->e, g->keys, g->n, cand[k]);
    pm_mpi(g->c, MPI_Allreduce(MPI_IN_PLACE, count, m, MPI_UINT64_T, MPI_SUM, g->comm), "MPI_Allreduce (splitters)");
}

/* split[0 .. P]: this rank's sorted keys [split[d], split[d + 1]) go to rank d. work holds
 * 5 (P - 1) entries. */
static void global_splits(pm_check *c, MPI_Comm comm, const pm_enc *e, const void *keys, size_t n, int rank, int P,
                          uint64_t N, size_t *split, uint64_t *work)
{
    const int m = P - 1;
    uint64_t *t = work, *v = t + m, *cand = v + m, *lt = cand + m, *eq = lt + m;
    for (int k = 0; k < m; ++k) t[k] = pp_mpi_sort_first(N, k + 1, P);
    global_arg g = {e, keys, n, comm, c};
    bisect_words(m, t, e->width, global_sum_le, &g, v, cand, lt);
    for (int k = 0; k < m; ++k) {
        lt[k] = count_lt(e, keys, n, v[k]);
        eq[k] = count_le(e, keys, n, v[k]) - lt[k];
        cand[k] = lt[k];
    }
    /* below_all (in cand) and equal_before (in eq's scan, in place of the no longer needed t) */
    uint64_t *below = cand, *before = v;
    pm_mpi(c, MPI_Allreduce(MPI_IN_PLACE, below, m, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce (splitters)");
    pm_mpi(c, MPI_Exscan(eq, before, m, MPI_UINT64_T, MPI_SUM, comm), "MPI_Exscan (splitters)");
    if (rank == 0)
        for (int k = 0; k < m; ++k) before[k] = 0; /* MPI_Exscan leaves rank 0's undefined */
    split[0] = 0;
    split[P] = n;
    for (int k = 0; k < m; ++k)
        split[k + 1] = split_point(pp_mpi_sort_first(N, k + 1, P), below[k], before[k], (size_t)lt[k], (size_t)eq[k]);
}

/* One rank's received runs: counts summed over the runs. */
typedef struct runs_arg {
    const pm_enc *e;
    int nr;
    const void *const *keys;
    const size_t *len;
} runs_arg;

static void runs_sum_le(void *arg, const uint64_t *cand, uint64_t *count, int m)
{
    const runs_arg *a = (const runs_arg *)arg;
    for (int k = 0; k < m; ++k) {
        count[k] = 0;
        for (int r = 0; r < a->nr; ++r) count[k] += count_le(a->e, a->keys[r], a->len[r], cand[k]);
    }
}

/* ---- the CPU merge ---------------------------------------------------------------------------
 * merge_kK_vV moves the runs' heads [cur[r], end[r]) to out in (word, run) order: a copy for
 * one run, a two-way merge for two, a binary heap of run heads for more. heap and head hold nr
 * entries. */
#define PM_MERGE(NAME, KT, VT, HASV, WORD)                                                                        \
    static void NAME(const pm_enc *e, int nr, const void *const *rkv, const void *const *rvv, size_t *cur,        \
                     const size_t *end, int *heap, uint64_t *head, void *okv, void *ovv)                          \
    {                                                                                                             \
        const KT *const *rk = (const KT *const *)rkv;                                                             \
        const VT *const *rv = (const VT *const *)rvv;                                                             \
        KT *ok = (KT *)okv;                                                                                       \
        VT *ov = (VT *)ovv;                                                                                       \
        size_t o = 0;                                                                                             \
        int m = 0;                                                                                                \
        for (int r = 0; r < nr; ++r)                                                                              \
            if (cur[r] < end[r]) heap[m++] = r;                                                                   \
        if (m == 2) {                                                                                             \
            const int a = heap[0], b = heap[1];                                                                   \
            const KT *A = rk[a], *B = rk[b];                                                                      \
            size_t i = cur[a], j = cur[b];                                                                        \
            const size_t ie = end[a], je = end[b];                                                                \
            const VT *AV = rv[a], *BV = rv[b];                                                                    \
            /* branch-free: the comparison only selects (random keys mispredict half the time) */    \
            const pm_enc E = *e; /* a copy the output's stores cannot alias */                                   \
            while (i < ie && j < je) {                                                                            \
                const KT x = A[i], y = B[j];                                                                      \
                const size_t tb = WORD(&E, y) < WORD(&E, x);                                                      \
                const KT km = (KT)0 - (KT)tb; /* masks, not ?: (which gcc turns back into a branch) */            \
                ok[o] = (KT)((y & km) | (x & (KT)~km));                                                           \
                if (HASV) {                                                                                       \
                    const VT vm = (VT)0 - (VT)tb;                                                                 \
                    ov[o] = (VT)((BV[j] & vm) | (AV[i] & (VT)~vm));                                               \
                }                                                                                                 \
                ++o;                                                                                              \
                j += tb;                                                                                          \
                i += 1 - tb;                                                                                      \
            }                                                                                                     \
            cur[a] = i;                                                                                           \
            cur[b] = j;                                                                                           \
            m = 0;                                                                                                \
            heap[m++] = i < ie ? a : b;                                                                           \
        }                                                                                                         \
        if (m == 1) {                                                                                             \
            const int r = heap[0];                                                                                \
            const size_t len = end[r] - cur[r];                                                                   \
            memcpy(ok + o, rk[r] + cur[r], len * sizeof(KT));                                                     \
            if (HASV) memcpy(ov + o, rv[r] + cur[r], len * sizeof(VT));                                           \
            cur[r] = end[r];                                                                                      \
            return;                                                                                               \
        }                                                                                                         \
        if (m == 0) return;                                                                                       \
        /* a min-heap on (head word, run): equal words leave the lower run on top */                              \
        for (int q = 0; q < m; ++q) head[heap[q]] = WORD(e, rk[heap[q]][cur[heap[q]]]);                           \
        for (int q = m / 2 - 1; q >= 0; --q) pm_sift_down(heap, head, m, q);                                         \
        while (m > 0) {                                                                                           \
            const int r = heap[0];                                                                                \
            ok[o] = rk[r][cur[r]];                                                                                \
            if (HASV) ov[o] = rv[r][cur[r]];                                                                      \
            ++o;                                                                                                  \
            if (++cur[r] == end[r])                                                                               \
                heap[0] = heap[--m];                                                                              \
            else                                                                                                  \
                head[r] = WORD(e, rk[r][cur[r]]);                                                                 \
            if (m > 0) pm_sift_down(heap, head, m, 0);                                                            \
        }                                                                                                         \
    }

/* (head[a], a) < (head[b], b) */
static inline int pm_heap_less(const uint64_t *head, int a, int b)
{
    return head[a] < head[b] || (head[a] == head[b] && a < b);
}

static void pm_sift_down(int *heap, const uint64_t *head, int m, int q)
{
    for (;;) {
        int s = q;
        const int l = 2 * q + 1, r = l + 1;
        if (l < m && pm_heap_less(head, heap[l], heap[s])) s = l;
        if (r < m && pm_heap_less(head, heap[r], heap[s])) s = r;
        if (s == q) return;
        const int x = heap[q];
        heap[q] = heap[s];
        heap[s] = x;
        q = s;
    }
}

/* the four value widths (none, 1, 4, 8 bytes) of one key width */
#define PM_MERGE_VALUES(K, KT, WORD)                    \
    PM_MERGE(merge_k##K##_v0, KT, uint8_t, 0, WORD)     \
    PM_MERGE(merge_k##K##_v1, KT, uint8_t, 1, WORD)     \
    PM_MERGE(merge_k##K##_v4, KT, uint32_t, 1, WORD)    \
    PM_MERGE(merge_k##K##_v8, KT, uint64_t, 1, WORD)
PM_MERGE_VALUES(1, uint8_t, word1)
PM_MERGE_VALUES(4, uint32_t, word4)
PM_MERGE_VALUES(8, uint64_t, word8)
#undef PM_MERGE_VALUES
#undef PM_MERGE

typedef void (*pm_merge_fn)(const pm_enc *, int, const void *const *, const void *const *, size_t *, const size_t *,
                            int *, uint64_t *, void *, void *);

static pm_merge_fn merge_for(int ks, size_t vs)
{
    static const pm_merge_fn table[3][4] = {{merge_k1_v0, merge_k1_v1, merge_k1_v4, merge_k1_v8},
                                            {merge_k4_v0, merge_k4_v1, merge_k4_v4, merge_k4_v8},
                                            {merge_k8_v0, merge_k8_v1, merge_k8_v4, merge_k8_v8}};
    const int ki = ks == 1 ? 0 : ks == 4 ? 1 : 2, vi = vs == 0 ? 0 : vs == 1 ? 1 : vs == 4 ? 2 : 3;
    return table[ki][vi];
}

/* Merge the nr runs (keys rk[r], values rv[r], len[r] each) into out (total keys): each thread
 * merges one slice of the output, the slices' starts split over the runs exactly (the same
 * bisection as the ranks'). False when the host memory for the threads' state is missing. */
static int merge_runs(const pm_enc *e, size_t vs, int nr, const void *const *rk, const void *const *rv,
                      const size_t *len, size_t total, void *keys_out, void *values_out)
{
    if (total == 0) return 1;
    int T = omp_get_max_threads();
    if (total < ((size_t)1 << 16)) T = 1; /* the fork and the splitting cost more than the merge */
    /* per thread: its runs' starts (the next's are its ends), a heap and the heads; T - 1
     * targets with their bisection state */
    const size_t nrs = (size_t)nr;
    size_t *split = (size_t *)malloc(sizeof(size_t) * (size_t)(T + 1) * nrs);
    int *heap = (int *)malloc(sizeof(int) * (size_t)T * nrs);
    uint64_t *head = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)T * nrs);
    uint64_t *work = (uint64_t *)malloc(sizeof(uint64_t) * (4 * (size_t)T + 1));
    if (!split || !heap || !head || !work) {
        free(split), free(heap), free(head), free(work);
        return 0;
    }
    const int m = T - 1;
    uint64_t *t = work, *v = t + m, *cand = v + m, *count = cand + m;
    for (int k = 0; k < m; ++k) t[k] = (uint64_t)total / (uint64_t)T * (uint64_t)(k + 1) +
                                       (uint64_t)total % (uint64_t)T * (uint64_t)(k + 1) / (uint64_t)T;
    runs_arg a = {e, nr, rk, len};
    bisect_words(m, t, e->width, runs_sum_le, &a, v, cand, count);
    for (int r = 0; r < nr; ++r) {
        split[r] = 0;
        split[(size_t)T * nrs + (size_t)r] = len[r];
    }
    for (int k = 0; k < m; ++k) {
        uint64_t below = 0, before = 0;
        size_t *row = split + (size_t)(k + 1) * nrs;
        for (int r = 0; r < nr; ++r) below += count_lt(e, rk[r], len[r], v[k]);
        for (int r = 0; r < nr; ++r) {
            const size_t lt = count_lt(e, rk[r], len[r], v[k]), eq = count_le(e, rk[r], len[r], v[k]) - lt;
            row[r] = split_point(t[k], below, before, lt, eq);
            before += eq;
        }
    }
    const pm_merge_fn merge = merge_for(e->ks, vs);
#pragma omp parallel for num_threads(T) schedule(static, 1)
    for (int q = 0; q < T; ++q) {
        size_t *cur = split + (size_t)q * nrs, at = 0;
        for (int r = 0; r < nr; ++r) at += cur[r];
        merge(e, nr, rk, rv, cur, cur + nrs, heap + (size_t)q * nrs, head + (size_t)q * nrs,
              (unsigned char *)keys_out + at * (size_t)e->ks,
              values_out ? (unsigned char *)values_out + at * vs : NULL);
    }
    free(split), free(heap), free(head), free(work);
    return 1;
}

/* ---- the exchange --------------------------------------------------------------------------- */

/* The largest number of elements one point-to-point message of the big exchange carries. */
#define PM_CHUNK ((uint64_t)1 << 30)
/* The tag of the big exchange's messages on comm. */
#define PM_SORT_TAG 23023

/* Elements of esize bytes: send[sdispl[d] ..] (scount[d] of them) to rank d, receive rcount[s]
 * from rank s at recv[rdispl[s] ..]; this rank's own count is skipped (moved by the caller).
 * MPI_Alltoallv unless big (some count or displacement above INT_MAX, agreed by every rank):
 * then MPI_Isend / MPI_Irecv in chunks of PM_CHUNK elements, rq holding exchange_requests()
 * handles. */
static size_t exchange_requests(int rank, int P, const uint64_t *scount, const uint64_t *rcount)
{
    size_t nreq = 0;
    for (int d = 0; d < P; ++d)
        if (d != rank) nreq += (size_t)((scount[d] + PM_CHUNK - 1) / PM_CHUNK + (rcount[d] + PM_CHUNK - 1) / PM_CHUNK);
    return nreq;
}

static void exchange(pm_check *c, MPI_Comm comm, int rank, int P, int big, size_t esize, const void *send,
                     const size_t *sdispl, const uint64_t *scount, void *recv, const uint64_t *rdispl,
                     const uint64_t *rcount, int *ibuf, MPI_Request *rq)
{
    MPI_Datatype t;
    if (pm_mpi(c, MPI_Type_contiguous((int)esize, MPI_BYTE, &t), "MPI_Type_contiguous") != PP_OK) return;
    if (pm_mpi(c, MPI_Type_commit(&t), "MPI_Type_commit") != PP_OK) {
        MPI_Type_free(&t);
        return;
    }
    if (!big) {
        int *sc = ibuf, *sd = sc + P, *rc = sd + P, *rd = rc + P;
        for (int d = 0; d < P; ++d) {
            sc[d] = d == rank ? 0 : (int)scount[d];
            sd[d] = (int)sdispl[d];
            rc[d] = d == rank ? 0 : (int)rcount[d];
            rd[d] = (int)rdispl[d];
        }
        pm_mpi(c, MPI_Alltoallv(send, sc, sd, t, recv, rc, rd, t, comm), "MPI_Alltoallv");
    } else {
        size_t q = 0;
        for (int s = 0; s < P; ++s)
            for (uint64_t o = 0; s != rank && o < rcount[s]; o += PM_CHUNK) {
                const uint64_t k = rcount[s] - o < PM_CHUNK ? rcount[s] - o : PM_CHUNK;
                pm_mpi(c,
                       MPI_Irecv((unsigned char *)recv + (rdispl[s] + o) * esize, (int)k, t, s, PM_SORT_TAG, comm,
                                 &rq[q++]),
                       "MPI_Irecv");
            }
        for (int d = 0; d < P; ++d)
            for (uint64_t o = 0; d != rank && o < scount[d]; o += PM_CHUNK) {
                const uint64_t k = scount[d] - o < PM_CHUNK ? scount[d] - o : PM_CHUNK;
                pm_mpi(c,
                       MPI_Isend((const unsigned char *)send + (sdispl[d] + o) * esize, (int)k, t, d, PM_SORT_TAG, comm,
                                 &rq[q++]),
                       "MPI_Isend");
            }
        pm_mpi(c, MPI_Waitall((int)q, rq, MPI_STATUSES_IGNORE), "MPI_Waitall");
    }
    MPI_Type_free(&t);
}

/* ---- the call ------------------------------------------------------------------------------- */

/* The local checks of one call (as pp_sort_keys / pp_sort_pairs, plus n_out, out_capacity and
 * the outputs' overlaps). *end receives the resolved end_bit. */
static void check_local(pm_check *c, const char *fn, pp_context *ctx, const void *keys_in, const void *values_in,
                        size_t n, const void *keys_out, const void *values_out, size_t cap, const size_t *n_out,
                        pp_dtype key_type, int pairs, pp_dtype value_type, pp_sort_order order, int begin_bit,
                        int end_bit, int *end)
{
    /* end_bit 0 is the key's width: resolved before anything can stop the checks, so that
     * ranks compare the same range (pm_same) whatever else fails here */
    *end = end_bit == 0 ? (int)(8 * pp_dtype_size(key_type)) : end_bit;
    if (!n_out) pm_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'n_out' is NULL", fn);
    if (!ctx) return; /* recorded by pm_begin */
    /* key_type, value_type, order and the bit range: the local sort's own checks, asked with
     * n = 0 (which sorts nothing) */
    const pp_status st = pairs ? pp_sort_pairs(ctx, NULL, NULL, NULL, NULL, 0, key_type, value_type, order, begin_bit,
                                               end_bit)
                               : pp_sort_keys(ctx, NULL, NULL, 0, key_type, order, begin_bit, end_bit);
    if (st != PP_OK) {
        pm_fail(c, st, "%s: %s", fn, pp_context_last_error(ctx));
        return;
    }
    const size_t ks = pp_dtype_size(key_type), vs = pairs ? pp_dtype_size(value_type) : 0;
    if (n > SIZE_MAX / 8 || cap > SIZE_MAX / 8)
        pm_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' (%zu) overflows the byte size of its arrays", fn,
                n > SIZE_MAX / 8 ? "n" : "out_capacity", n > SIZE_MAX / 8 ? n : cap);
    if (!keys_in && n) pm_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'keys_in' is NULL with n = %zu", fn, n);
    if (pairs && !values_in && n)
        pm_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'values_in' is NULL with n = %zu", fn, n);
    if (!keys_out && cap)
        pm_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'keys_out' is NULL with out_capacity = %zu", fn, cap);
    if (pairs && !values_out && cap)
        pm_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'values_out' is NULL with out_capacity = %zu", fn, cap);
    if (c->st != PP_OK) return;
    /* keys_out may be keys_in and values_out values_in (the part is sorted into scratch before
     * any output is written); the inputs may overlap each other; nothing else may */
    const struct {
        const char *name;
        const void *p;
        size_t bytes;
    } arr[4] = {{"keys_in", keys_in, n * ks},
                {"values_in", values_in, n * vs},
                {"keys_out", keys_out, cap * ks},
                {"values_out", values_out, cap * vs}};
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) {
            if (i == 0 && j == 1) continue;
            if (((i == 0 && j == 2) || (i == 1 && j == 3)) && arr[i].p == arr[j].p) continue;
            if (pm_overlaps(arr[i].p, arr[i].bytes, arr[j].p, arr[j].bytes))
                pm_fail(c, PP_ERROR_INVALID_ARGUMENT,
                        "%s: argument '%s' overlaps '%s' (only keys_out == keys_in and values_out == values_in are "
                        "allowed)",
                        fn, arr[j].name, arr[i].name);
        }
}

/* Everything a call holds, freed at its end. */
typedef struct sort_mem {
    pp_context *ctx;
    uint64_t *counts;  /* every rank's n, P */
    uint64_t *scount;  /* P: sent to each rank (this rank's own: kept) */
    uint64_t *rcount;  /* P: received from each rank */
    uint64_t *rdispl;  /* P */
    uint64_t *work;    /* 5 (P - 1) + 1: the splitters' */
    size_t *split;     /* P + 1 */
    int *ibuf;         /* 4 P: MPI_Alltoallv's counts */
    const void **runs; /* 2 P: the runs' keys, then values */
    size_t *run_len;   /* P */
    void *sk, *sv;     /* the sorted part (context space) */
    void *hk, *hv;     /* its host copies (device path; pm_stage_alloc) */
    void *rk, *rv;     /* received keys and values (host path: context space; staged: pm_stage_alloc) */
    int staged_recv;   /* rk and rv are staging buffers */
    MPI_Request *rq;   /* the big exchange's requests */
} sort_mem;

static void release(sort_mem *m)
{
    free(m->counts), free(m->scount), free(m->rcount), free(m->rdispl), free(m->work), free(m->split);
    free(m->ibuf), free(m->runs), free(m->run_len), free(m->rq);
    if (m->ctx) {
        pm_stage_free(m->ctx, m->hk), pm_stage_free(m->ctx, m->hv);
        pp_free(m->ctx, m->sk), pp_free(m->ctx, m->sv);
        if (m->staged_recv)
            pm_stage_free(m->ctx, m->rk), pm_stage_free(m->ctx, m->rv);
        else
            pp_free(m->ctx, m->rk), pp_free(m->ctx, m->rv);
    }
}

static pp_status alloc_ctx(pm_check *c, pp_context *ctx, void **p, size_t bytes, const char *what)
{
    return pm_local(c, ctx, pp_malloc(ctx, p, bytes), what);
}
static pp_status alloc_stage(pm_check *c, pp_context *ctx, void **p, size_t bytes)
{
    *p = bytes ? pm_stage_alloc(c, ctx, bytes) : NULL;
    return c->st;
}
static pp_status alloc_host(pm_check *c, void **p, size_t bytes, const char *what)
{
    *p = bytes ? malloc(bytes) : NULL;
    if (bytes && !*p) return pm_fail(c, PP_ERROR_OUT_OF_MEMORY, "%s: %zu bytes of host memory", what, bytes);
    return PP_OK;
}

static pp_status finish(pp_status st, sort_mem *m)
{
    release(m);
    if (st != PP_OK) memset(&last_stats, 0, sizeof last_stats);
    return st;
}

static pp_status sort_call(const char *fn, pp_context *ctx, MPI_Comm comm, const void *keys_in,
                           const void *values_in, size_t n, void *keys_out, void *values_out, size_t cap,
                           size_t *n_out, pp_dtype key_type, int pairs, pp_dtype value_type, pp_sort_order order,
                           int begin_bit, int end_bit)
{
    memset(&last_stats, 0, sizeof last_stats);
    pm_check c;
    memset(&c, 0, sizeof c);
    sort_mem m;
    memset(&m, 0, sizeof m);
    int rank = 0, P = 1, end = end_bit;
    if (!pm_begin(&c, comm, fn, ctx, &rank, &P)) return c.st;
    const size_t Ps = (size_t)P;
    m.counts = (uint64_t *)malloc(sizeof(uint64_t) * Ps);
    m.scount = (uint64_t *)malloc(sizeof(uint64_t) * Ps);
    m.rcount = (uint64_t *)malloc(sizeof(uint64_t) * Ps);
    m.rdispl = (uint64_t *)malloc(sizeof(uint64_t) * Ps);
    m.work = (uint64_t *)malloc(sizeof(uint64_t) * (5 * Ps + 1));
    m.split = (size_t *)malloc(sizeof(size_t) * (Ps + 1));
    m.ibuf = (int *)malloc(sizeof(int) * 4 * Ps);
    m.runs = (const void **)malloc(sizeof(void *) * 2 * Ps);
    m.run_len = (size_t *)malloc(sizeof(size_t) * Ps);
    if (!m.counts || !m.scount || !m.rcount || !m.rdispl || !m.work || !m.split || !m.ibuf || !m.runs || !m.run_len) {
        /* without its count arrays a rank cannot take part in the collectives below: every
         * rank stops here */
        pm_fail(&c, PP_ERROR_OUT_OF_MEMORY, "%s: host memory for %d ranks' counts", fn, P);
    }
    {
        const pp_status st0 = pm_agree(&c, comm, fn);
        if (st0 != PP_OK) return finish(st0, &m);
    }

    /* 1. arguments, on every rank, then the same call everywhere, then the capacities */
    check_local(&c, fn, ctx, keys_in, values_in, n, keys_out, values_out, cap, n_out, key_type, pairs, value_type,
                order, begin_bit, end_bit, &end);
    {
        const int64_t v[6] = {pairs, key_type, pairs ? (int64_t)value_type : -1, order, begin_bit, end};
        static const char *const names[6] = {"pairs (pp_mpi_sort_keys on some ranks, pp_mpi_sort_pairs on others)",
                                             "key_type", "value_type", "order", "begin_bit", "end_bit"};
        pm_same(&c, comm, fn, v, names, 6);
    }
    pm_allgather_u64(&c, comm, (uint64_t)n, m.counts);
    uint64_t N = 0, max_n = 0, max_share = 0;
    for (int r = 0; r < P; ++r) {
        N += m.counts[r];
        max_n = m.counts[r] > max_n ? m.counts[r] : max_n;
    }
    for (int r = 0; r < P; ++r) {
        const uint64_t s = pp_mpi_sort_first(N, r + 1, P) - pp_mpi_sort_first(N, r, P);
        max_share = s > max_share ? s : max_share;
    }
    const uint64_t share = pp_mpi_sort_first(N, rank + 1, P) - pp_mpi_sort_first(N, rank, P);
    if (share > (uint64_t)cap)
        pm_fail(&c, PP_ERROR_INVALID_ARGUMENT,
                "%s: argument 'out_capacity' is %zu, below this rank's share of the output: %llu keys (%llu in all "
                "over %d ranks)",
                fn, cap, (unsigned long long)share, (unsigned long long)N, P);
    pp_status st = pm_agree(&c, comm, fn);
    if (st != PP_OK) return finish(st, &m);
    m.ctx = ctx;
    /* host: the host reads and writes ctx's arrays in place (a CPU rank); otherwise the device
     * path (a HIP rank, or any rank with PP_OPTION_MPI_STAGING), staged unless direct */
    const int host = pm_host_access(ctx), direct = pm_direct(ctx);
    const size_t ks = pp_dtype_size(key_type), vs = pairs ? pp_dtype_size(value_type) : 0;
    const pm_enc e = make_enc(key_type, order, begin_bit, end);
    double t0 = pm_seconds();

    if (N == 0) {
        *n_out = 0;
        return finish(PP_OK, &m);
    }
    if (P == 1) {
        /* the whole array is here: one local sort, straight into the output */
        st = pairs ? pp_sort_pairs(ctx, keys_in, keys_out, values_in, values_out, n, key_type, value_type, order,
                                   begin_bit, end_bit)
                   : pp_sort_keys(ctx, keys_in, keys_out, n, key_type, order, begin_bit, end_bit);
        if (pm_local(&c, ctx, st, "the local sort") == PP_OK)
            pm_local(&c, ctx, pp_context_synchronize(ctx), "the local sort");
        st = pm_agree(&c, comm, fn);
        last_stats.seconds_local_sort = pm_seconds() - t0;
        if (st == PP_OK) *n_out = n;
        return finish(st, &m);
    }

    /* 2. the local sort, into scratch (and to the host on a HIP rank) */
    if (alloc_ctx(&c, ctx, &m.sk, n * ks, "the sorted part's keys") == PP_OK &&
        alloc_ctx(&c, ctx, &m.sv, n * vs, "the sorted part's values") == PP_OK) {
        st = pairs ? pp_sort_pairs(ctx, keys_in, m.sk, values_in, m.sv, n, key_type, value_type, order, begin_bit,
                                   end_bit)
                   : pp_sort_keys(ctx, keys_in, m.sk, n, key_type, order, begin_bit, end_bit);
        if (pm_local(&c, ctx, st, "the local sort") == PP_OK) {
            if (!host) {
                if (alloc_stage(&c, ctx, &m.hk, n * ks) == PP_OK) pm_to_host(&c, ctx, m.hk, m.sk, n * ks);
                if (!direct && alloc_stage(&c, ctx, &m.hv, n * vs) == PP_OK) pm_to_host(&c, ctx, m.hv, m.sv, n * vs);
                pm_local(&c, ctx, pp_context_synchronize(ctx), "the local sort");
            }
        }
    }
    st = pm_agree(&c, comm, fn);
    double t1 = pm_seconds();
    last_stats.seconds_local_sort = t1 - t0;
    if (st != PP_OK) return finish(st, &m);
    const void *search = host ? m.sk : m.hk;

    /* 3. exact splitters, and what every rank receives from every other */
    global_splits(&c, comm, &e, search, n, rank, P, N, m.split, m.work);
    for (int d = 0; d < P; ++d) m.scount[d] = m.split[d + 1] - m.split[d];
    pm_mpi(&c, MPI_Alltoall(m.scount, 1, MPI_UINT64_T, m.rcount, 1, MPI_UINT64_T, comm), "MPI_Alltoall (counts)");
    double t2 = pm_seconds();
    last_stats.seconds_splitters = t2 - t1;

    /* 4. the exchange. Received runs lie in rank order: a CPU rank's and a staged HIP rank's
     * in a buffer of the other ranks' runs; a direct HIP rank's in keys_out, with its own run
     * (copied, not sent) in its place among them */
    const uint64_t own = m.scount[rank];
    uint64_t at = 0, own_at = 0;
    for (int s = 0; s < P; ++s) {
        if (s == rank) own_at = at;
        m.rdispl[s] = at;
        if (s != rank || (!host && direct)) at += m.rcount[s];
    }
    const size_t others = (size_t)(share - own);
    const int big = max_n > INT_MAX || max_share > INT_MAX;
    if (host) {
        alloc_ctx(&c, ctx, &m.rk, others * ks, "the received keys");
        if (c.st == PP_OK) alloc_ctx(&c, ctx, &m.rv, others * vs, "the received values");
    } else if (!direct) {
        m.staged_recv = 1;
        if (alloc_stage(&c, ctx, &m.rk, others * ks) == PP_OK) alloc_stage(&c, ctx, &m.rv, others * vs);
    } else {
        pm_local(&c, ctx, pp_context_synchronize(ctx), "the local sort");
    }
    if (big && c.st == PP_OK) {
        const size_t nreq = exchange_requests(rank, P, m.scount, m.rcount);
        alloc_host(&c, (void **)&m.rq, sizeof(MPI_Request) * nreq, "the exchange's request handles");
    }
    st = pm_agree(&c, comm, fn);
    if (st != PP_OK) return finish(st, &m);
    void *rk = !host && direct ? keys_out : m.rk, *rv = !host && direct ? values_out : m.rv;
    const void *sk = direct ? m.sk : m.hk, *sv = direct ? m.sv : m.hv;
    exchange(&c, comm, rank, P, big, ks, sk, m.split, m.scount, rk, m.rdispl, m.rcount, m.ibuf, m.rq);
    if (pairs) exchange(&c, comm, rank, P, big, vs, sv, m.split, m.scount, rv, m.rdispl, m.rcount, m.ibuf, m.rq);
    if (!host && c.st == PP_OK) {
        /* the own run to its place in keys_out; a staged rank's received runs around it */
        const size_t before = (size_t)own_at, after = others - before;
        unsigned char *ko = (unsigned char *)keys_out, *vo = (unsigned char *)values_out;
        if (!direct) {
            if (before) pm_from_host(&c, ctx, ko, m.rk, before * ks);
            if (after) pm_from_host(&c, ctx, ko + (before + own) * ks, (unsigned char *)m.rk + before * ks, after * ks);
            if (pairs && before) pm_from_host(&c, ctx, vo, m.rv, before * vs);
            if (pairs && after)
                pm_from_host(&c, ctx, vo + (before + own) * vs, (unsigned char *)m.rv + before * vs, after * vs);
        }
        if (own) {
            pm_local(&c, ctx,
                     pp_memcpy(ctx, ko + before * ks, (unsigned char *)m.sk + m.split[rank] * ks, own * ks,
                               PP_COPY_CONTEXT_TO_CONTEXT),
                     "copying the kept keys");
            if (pairs)
                pm_local(&c, ctx,
                         pp_memcpy(ctx, vo + before * vs, (unsigned char *)m.sv + m.split[rank] * vs, own * vs,
                                   PP_COPY_CONTEXT_TO_CONTEXT),
                         "copying the kept values");
        }
    }
    double t3 = pm_seconds();
    last_stats.seconds_exchange = t3 - t2;
    last_stats.staged = !direct;
    uint64_t sent = 0, received = 0;
    for (int d = 0; d < P; ++d)
        if (d != rank) sent += m.scount[d], received += m.rcount[d];
    last_stats.bytes_sent = sent * (ks + vs);
    last_stats.bytes_received = received * (ks + vs);
    /* the output position of every key not kept lies on another rank: exact splitters send
     * exactly those */
    last_stats.bytes_min = ((uint64_t)n - own) * (ks + vs);

    /* 5. the runs into one: a merge (CPU) or a stable sort in place (HIP) */
    if (c.st == PP_OK) {
        if (host) {
            for (int s = 0; s < P; ++s) {
                /* (an empty run's buffer may be NULL: no pointer arithmetic on it) */
                const int mine = s == rank, has = m.rcount[s] > 0;
                m.runs[s] = !has ? NULL
                            : mine ? (const unsigned char *)m.sk + m.split[rank] * ks
                                   : (const unsigned char *)m.rk + m.rdispl[s] * ks;
                m.runs[P + s] = !pairs || !has ? NULL
                                : mine         ? (const unsigned char *)m.sv + m.split[rank] * vs
                                               : (const unsigned char *)m.rv + m.rdispl[s] * vs;
                m.run_len[s] = (size_t)m.rcount[s];
            }
            if (!merge_runs(&e, vs, P, m.runs, m.runs + P, m.run_len, (size_t)share, keys_out,
                            pairs ? values_out : NULL))
                pm_fail(&c, PP_ERROR_OUT_OF_MEMORY, "the merge's per-thread state: host memory");
        } else {
            st = pairs ? pp_sort_pairs(ctx, keys_out, keys_out, values_out, values_out, (size_t)share, key_type,
                                       value_type, order, begin_bit, end_bit)
                       : pp_sort_keys(ctx, keys_out, keys_out, (size_t)share, key_type, order, begin_bit, end_bit);
            if (pm_local(&c, ctx, st, "the sort of the received runs") == PP_OK)
                pm_local(&c, ctx, pp_context_synchronize(ctx), "the sort of the received runs");
        }
    }
    last_stats.seconds_merge = pm_seconds() - t3;
    st = pm_agree(&c, comm, fn);
    if (st == PP_OK) *n_out = (size_t)share;
    return finish(st, &m);
}

pp_status pp_mpi_sort_keys(pp_context *ctx, MPI_Comm comm, const void *keys_in, size_t n, void *keys_out,
                           size_t out_capacity, size_t *n_out, pp_dtype key_type, pp_sort_order order,
                           int begin_bit, int end_bit)
{
    return sort_call("pp_mpi_sort_keys", ctx, comm, keys_in, NULL, n, keys_out, NULL, out_capacity, n_out, key_type,
                     0, key_type, order, begin_bit, end_bit);
}

pp_status pp_mpi_sort_pairs(pp_context *ctx, MPI_Comm comm, const void *keys_in, const void *values_in, size_t n,
                            void *keys_out, void *values_out, size_t out_capacity, size_t *n_out, pp_dtype key_type,
                            pp_dtype value_type, pp_sort_order order, int begin_bit, int end_bit)
{
    return sort_call("pp_mpi_sort_pairs", ctx, comm, keys_in, values_in, n, keys_out, values_out, out_capacity, n_out,
                     key_type, 1, value_type, order, begin_bit, end_bit);
}
