/*
 * bitonic.h -- a block's bitonic sorting network over a tile of slots (issue 22's packed
 * segmented sort; the radix sort's one-tile path, issue 20). Thread t holds slots
 * t * ITEMS .. + ITEMS - 1 of the tile in registers; pp_bn_bitonic(x, tile, t * ITEMS, c) sorts
 * every group of 2^c consecutive slots on its own, ascending by pp_bn_less.
 *
 * The network in the form without descending halves: phase k (2, 4, .., 2^c) compares slot i
 * with i ^ (k - 1) (the "flip"), then with i ^ j for j = k/4 .. 1, always keeping the smaller in
 * the lower slot, so groups of 2^c never see each other. Partners nearer than ITEMS are
 * compare-exchanges in registers, nearer than ITEMS * PP_WAVE shuffles (a 64-bit word as two
 * 32-bit shuffles), farther ones go through the shared tile (pp_bn_tile: one pad slot per 128
 * bytes, so that a wave's blocked accesses, ITEMS consecutive slots a lane, and its striped ones
 * fall in distinct banks). Every thread of the block calls it (block barriers inside).
 *
 * Slot words (pp_bn_word<K, STABLE>): the encoded key alone (u32, u64 for 8-byte keys: equal
 * encodings must then be indistinguishable, i.e. integer keys sorted alone), or a stable word of
 * the encoded key and a place (< 2^16) that breaks ties: (encoding << 32 | place) for keys of up
 * to 4 bytes, the pair pp_bn_kv for 8-byte keys. pp_bn_sentinel sorts after every real word of
 * its kind; after the sort a stable word can carry a key's bits instead (pp_bn_set_bits).
 */
#ifndef PP_HIP_BITONIC_H
#define PP_HIP_BITONIC_H

#include <stdint.h>

#include <type_traits>

#include "port.h"

/* A slot of the stable 8-byte-key sort: the encoded key, then the key's place in its segment. */
struct pp_bn_kv {
    uint64_t k;
    uint32_t i;
};

PP_DEVICE bool pp_bn_less(const pp_bn_kv &a, const pp_bn_kv &b) { return a.k < b.k || (a.k == b.k && a.i < b.i); }
PP_DEVICE uint32_t pp_bn_min(uint32_t a, uint32_t b) { return a < b ? a : b; }
PP_DEVICE uint32_t pp_bn_max(uint32_t a, uint32_t b) { return a < b ? b : a; }
PP_DEVICE uint64_t pp_bn_min(uint64_t a, uint64_t b) { return a < b ? a : b; }
PP_DEVICE uint64_t pp_bn_max(uint64_t a, uint64_t b) { return a < b ? b : a; }
PP_DEVICE pp_bn_kv pp_bn_min(const pp_bn_kv &a, const pp_bn_kv &b) { return pp_bn_less(b, a) ? b : a; }
PP_DEVICE pp_bn_kv pp_bn_max(const pp_bn_kv &a, const pp_bn_kv &b) { return pp_bn_less(b, a) ? a : b; }
PP_DEVICE uint32_t pp_bn_shfl_xor(uint32_t v, int m) { return pp_shfl_xor(v, m); }
PP_DEVICE uint64_t pp_bn_shfl_xor(uint64_t v, int m)
{
    const uint32_t lo = pp_shfl_xor((uint32_t)v, m), hi = pp_shfl_xor((uint32_t)(v >> 32), m);
    return (uint64_t)hi << 32 | lo;
}
PP_DEVICE pp_bn_kv pp_bn_shfl_xor(const pp_bn_kv &v, int m)
{
    pp_bn_kv r;
    r.k = pp_bn_shfl_xor(v.k, m);
    r.i = pp_shfl_xor(v.i, m);
    return r;
}
/* The slot a compare-exchange leaves here: the smaller of the two in the lower slot. */
template <typename W> PP_DEVICE W pp_bn_keep(const W &mine, const W &other, bool lower)
{
    return lower ? pp_bn_min(mine, other) : pp_bn_max(mine, other);
}
template <typename W> PP_DEVICE void pp_bn_cx(W &a, W &b)
{
    const W lo = pp_bn_min(a, b), hi = pp_bn_max(a, b);
    a = lo;
    b = hi;
}

/* The slot type: the encoded key alone (integer keys only), else the stable forms above. */
template <typename K, bool STABLE> struct pp_bn_word_of {
    using type = typename std::conditional<sizeof(K) == 8, uint64_t, uint32_t>::type;
};
template <typename K> struct pp_bn_word_of<K, true> {
    using type = typename std::conditional<sizeof(K) == 8, pp_bn_kv, uint64_t>::type;
};
template <typename K, bool STABLE> using pp_bn_word = typename pp_bn_word_of<K, STABLE>::type;

PP_DEVICE void pp_bn_make(uint32_t &w, uint32_t e, unsigned) { w = e; }
PP_DEVICE void pp_bn_make(uint64_t &w, uint64_t e, unsigned) { w = e; } /* 8-byte integer keys only */
PP_DEVICE void pp_bn_make(uint64_t &w, uint32_t e, unsigned o) { w = (uint64_t)e << 32 | o; }
PP_DEVICE void pp_bn_make(pp_bn_kv &w, uint64_t e, unsigned o)
{
    w.k = e;
    w.i = o;
}
PP_DEVICE void pp_bn_sentinel(uint32_t &w) { w = ~0u; }
PP_DEVICE void pp_bn_sentinel(uint64_t &w) { w = ~0ull; }
PP_DEVICE void pp_bn_sentinel(pp_bn_kv &w)
{
    w.k = ~0ull;
    w.i = ~0u;
}
/* The encoded key and the place of a stable slot. */
PP_DEVICE uint32_t pp_bn_word_key(uint64_t w) { return (uint32_t)(w >> 32); }
PP_DEVICE uint64_t pp_bn_word_key(const pp_bn_kv &w) { return w.k; }
PP_DEVICE unsigned pp_bn_word_place(uint64_t w) { return (unsigned)(w & 0xFFFFu); }
PP_DEVICE unsigned pp_bn_word_place(const pp_bn_kv &w) { return w.i; }

/* A stable slot reused for a key's bits once sorted. */
PP_DEVICE void pp_bn_set_bits(uint64_t &w, uint64_t k) { w = k; }
PP_DEVICE void pp_bn_set_bits(pp_bn_kv &w, uint64_t k) { w.k = k; }
PP_DEVICE uint64_t pp_bn_bits(uint64_t w) { return w; }
PP_DEVICE uint64_t pp_bn_bits(const pp_bn_kv &w) { return w.k; }

/* The shared tile of N slots, one pad slot per 128 bytes so that a thread's ITEMS consecutive
 * slots, read by a wave at once, fall in distinct banks. */
template <typename W, int N> struct pp_bn_tile {
    static constexpr int PADN = 128 / (int)sizeof(W);
    W w[N + N / PADN];
    PP_DEVICE static unsigned at(unsigned i) { return i + i / PADN; }
    PP_DEVICE W get(unsigned i) const { return w[at(i)]; }
    PP_DEVICE void put(unsigned i, const W &v) { w[at(i)] = v; }
    PP_DEVICE W *slot(unsigned i) { return &w[at(i)]; } /* for an asynchronous copy into slot i */
    /* A thread's run of slots i0 .. i0 + n - 1 with i0 a multiple of n and n <= PADN: no pad
     * slot inside, so slot i0 + s is word at(i0) + s (a constant offset from one address). */
    struct run {
        unsigned o; /* the run's first word */
    };
    PP_DEVICE static run run_at(unsigned i0) { return run{at(i0)}; }
    PP_DEVICE W get(run q, int s) const { return w[q.o + (unsigned)s]; }
    PP_DEVICE void put(run q, int s, const W &v) { w[q.o + (unsigned)s] = v; }
};
template <int N> struct pp_bn_tile<pp_bn_kv, N> {
    uint64_t k[N + N / 16];
    uint32_t p[N + N / 32];
    PP_DEVICE pp_bn_kv get(unsigned i) const
    {
        pp_bn_kv v;
        v.k = k[i + i / 16];
        v.i = p[i + i / 32];
        return v;
    }
    PP_DEVICE void put(unsigned i, const pp_bn_kv &v)
    {
        k[i + i / 16] = v.k;
        p[i + i / 32] = v.i;
    }
    struct run { /* as pp_bn_tile's, n <= 16 */
        unsigned ok, op;
    };
    PP_DEVICE static run run_at(unsigned i0) { return run{i0 + i0 / 16, i0 + i0 / 32}; }
    PP_DEVICE pp_bn_kv get(run q, int s) const
    {
        pp_bn_kv v;
        v.k = k[q.ok + (unsigned)s];
        v.i = p[q.op + (unsigned)s];
        return v;
    }
    PP_DEVICE void put(run q, int s, const pp_bn_kv &v)
    {
        k[q.ok + (unsigned)s] = v.k;
        p[q.op + (unsigned)s] = v.i;
    }
};

/* In registers: a flip of distance K - 1, a half-cleaner of distance J (within a thread). */
template <int K, int I, typename W> PP_DEVICE void pp_bn_reg_flip(W (&x)[I])
{
#pragma unroll
    for (int r = 0; r < I; ++r)
        if ((r & (K / 2)) == 0) pp_bn_cx(x[r], x[r ^ (K - 1)]);
}
template <int J, int I, typename W> PP_DEVICE void pp_bn_reg_half(W (&x)[I])
{
    if constexpr (J >= 1) {
#pragma unroll
        for (int r = 0; r < I; ++r)
            if ((r & J) == 0) pp_bn_cx(x[r], x[r ^ J]);
        pp_bn_reg_half<J / 2>(x);
    }
}
/* Phases K, 2K, .. up to min(2^c, I), wholly in registers. */
template <int K, int I, typename W> PP_DEVICE void pp_bn_reg_phases(W (&x)[I], int c)
{
    if constexpr (K <= I) {
        if (K > (1 << c)) return;
        pp_bn_reg_flip<K>(x);
        pp_bn_reg_half<K / 4>(x);
        pp_bn_reg_phases<2 * K>(x, c);
    }
}

/* Across threads, by shuffles: partner thread tid ^ m (m < PP_WAVE); the flip also reverses the
 * registers (slot i ^ (k - 1) with k - 1 >= ITEMS). */
template <int I, typename W> PP_DEVICE void pp_bn_shfl_half(W (&x)[I], int m, bool lower)
{
#pragma unroll
    for (int r = 0; r < I; ++r) x[r] = pp_bn_keep(x[r], pp_bn_shfl_xor(x[r], m), lower);
}
template <int I, typename W> PP_DEVICE void pp_bn_shfl_flip(W (&x)[I], int m, bool lower)
{
#pragma unroll
    for (int r = 0; r < I / 2; ++r) {
        const W a = pp_bn_shfl_xor(x[I - 1 - r], m), b = pp_bn_shfl_xor(x[r], m);
        x[r] = pp_bn_keep(x[r], a, lower);
        x[I - 1 - r] = pp_bn_keep(x[I - 1 - r], b, lower);
    }
}
/* Through shared memory: slot i against slot i ^ pm (pm >= ITEMS * PP_WAVE). A flip's pm = k - 1
 * has its low log2(ITEMS) bits all set, a half-cleaner's pm = j none, so the partner of slot
 * base + r is slot (base ^ pm) - r + ITEMS - 1 (flip) or (base ^ pm) + r of the partner thread's
 * run: both runs are read at constant offsets (pp_bn_tile::run_at). */
template <bool FLIP, int I, typename W, int N>
PP_DEVICE void pp_bn_smem_step(W (&x)[I], pp_bn_tile<W, N> &t, unsigned base, unsigned pm, bool lower)
{
    static_assert((I & (I - 1)) == 0 && I <= 16, "runs of a power of two, within a pad group");
#pragma unroll
    for (int r = 0; r < I; ++r) t.put(base + (unsigned)r, x[r]);
    __syncthreads();
    if constexpr (sizeof(W) > 4) {
        const auto other = t.run_at((base ^ pm) & ~(unsigned)(I - 1));
#pragma unroll
        for (int r = 0; r < I; ++r) x[r] = pp_bn_keep(x[r], t.get(other, FLIP ? I - 1 - r : r), lower);
    } else {
        /* 4-byte words: the slot's own address (the run form held more registers: 40 -> 48 on
         * sm_90, or a 36-byte spill under the packed kernel's cap of 40) */
#pragma unroll
        for (int r = 0; r < I; ++r) x[r] = pp_bn_keep(x[r], t.get((base + (unsigned)r) ^ pm), lower);
    }
    __syncthreads();
}

/* Sorts every group of 2^c slots of the block's tile, held ITEMS a thread from slot base. */
template <int I, typename W, int N> PP_DEVICE void pp_bn_bitonic(W (&x)[I], pp_bn_tile<W, N> &t, unsigned base, int c)
{
    constexpr unsigned WS = (unsigned)I * PP_WAVE; /* slots of a wave */
    pp_bn_reg_phases<2>(x, c);
    for (unsigned k = 2 * I; k <= (1u << c); k *= 2) {
        const bool lf = (base & (k / 2)) == 0;
        if (k <= WS) pp_bn_shfl_flip(x, (int)(k / I - 1), lf);
        else pp_bn_smem_step<true>(x, t, base, k - 1, lf);
        for (unsigned j = k / 4; j >= (unsigned)I; j /= 2) {
            const bool lj = (base & j) == 0;
            if (j < WS) pp_bn_shfl_half(x, (int)(j / I), lj);
            else pp_bn_smem_step<false>(x, t, base, j, lj);
        }
        pp_bn_reg_half<I / 2>(x);
    }
}

#endif /* PP_HIP_BITONIC_H */
