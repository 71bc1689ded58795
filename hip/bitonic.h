/*
 * bitonic.h -- a block's bitonic sorting network over a tile of slots (issue 22's packed
 * segmented sort; the radix sort's one-tile path, issue 20). Thread t holds slots
 * t * ITEMS .. + ITEMS - 1 of the tile in registers; pp_bn_bitonic(x, tile, c) sorts every group
 * of 2^c consecutive slots on its own, ascending by pp_bn_less.
 *
 * A thread's own slots sort in registers in the form without descending halves: phase k (2, 4,
 * .. ITEMS) compares slot i with i ^ (k - 1) (the "flip"), then with i ^ j for j = k/4 .. 1,
 * keeping the smaller in the lower slot. Longer groups go on in the same form, each stage across
 * threads moving every word of a thread (shuffles within a wave, the shared tile across waves:
 * pp_bn_tile, one pad slot per 128 bytes); or, for 4-byte words from the caller's XMIN class up,
 * in the direction form (each phase's halves sorted in opposite directions, every stage a
 * half-cleaner; pp_bn_bitonic says how), whose stages across threads exchange half of each
 * thread's words and leave the threads' runs permuted, so pp_bn_bitonic returns where the
 * calling thread's run ended; or, for 4-byte words with a negative XMIN (pp_bn_merge_form), the
 * merge form: the flip form up to groups of 2^R slots, then merge rounds through the shared tile
 * (pp_bn_merge_rounds), the runs in place. Every thread of the block calls it (block barriers
 * inside).
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
    /* slot i + r * S for S a multiple of the pad group: a constant offset from slot i's word */
    template <int S> PP_DEVICE W get(unsigned i, int r) const { return w[at(i) + (unsigned)(r * (S + S / PADN))]; }
    template <int S> PP_DEVICE void put(unsigned i, int r, const W &v) { w[at(i) + (unsigned)(r * (S + S / PADN))] = v; }
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
    template <int S> PP_DEVICE pp_bn_kv get(unsigned i, int r) const
    {
        pp_bn_kv v;
        v.k = k[i + i / 16 + (unsigned)(r * (S + S / 16))];
        v.i = p[i + i / 32 + (unsigned)(r * (S + S / 32))];
        return v;
    }
    template <int S> PP_DEVICE void put(unsigned i, int r, const pp_bn_kv &v)
    {
        k[i + i / 16 + (unsigned)(r * (S + S / 16))] = v.k;
        p[i + i / 32 + (unsigned)(r * (S + S / 32))] = v.i;
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

/* The flip form throughout (the network before the exchanges): each cross-thread stage moves all
 * of a thread's words in place, so the runs stay where they were. */
template <int I, typename W, int N> PP_DEVICE void pp_bn_bitonic_flip(W (&x)[I], pp_bn_tile<W, N> &t, unsigned base, int c)
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

/* pp_bn_bitonic's XMIN past every tile: the flip form only, the exchange form not compiled */
constexpr int PP_BN_FLIP_ONLY = 32;
/* pp_bn_bitonic's XMIN for the merge form (4-byte words): the flip form sorts groups of up to 2^R
 * slots, then pp_bn_merge_rounds merges them in pairs up to the groups of 2^c. */
constexpr int pp_bn_merge_form(int r) { return -r; }

/* log2 of a power of two, at compile time */
constexpr int pp_bn_log2(int v) { return v > 1 ? 1 + pp_bn_log2(v / 2) : 0; }

/* Complements w where m is all ones (m is 0 or ~0u): complemented words sort in the reverse order
 * of the words (pp_bn_kv: both fields, so its lexicographic order reverses too). */
PP_DEVICE void pp_bn_not_if(uint32_t &w, uint32_t m) { w ^= m; }
PP_DEVICE void pp_bn_not_if(uint64_t &w, uint32_t m) { w ^= (uint64_t)(int64_t)(int32_t)m; }
PP_DEVICE void pp_bn_not_if(pp_bn_kv &w, uint32_t m)
{
    w.k ^= (uint64_t)(int64_t)(int32_t)m;
    w.i ^= m;
}

/* Where the network goes on past a thread's registers (c > log2(I)), phase log2(I) must leave a
 * thread's run descending where data bit log2(I) (thread bit 0) is set: the flip form left every
 * run ascending, so the odd threads reverse theirs. */
template <int I, typename W> PP_DEVICE void pp_bn_reverse_if(W (&x)[I], bool rev)
{
#pragma unroll
    for (int r = 0; r < I / 2; ++r) {
        const W a = x[r], b = x[I - 1 - r];
        x[r] = rev ? b : a;
        x[I - 1 - r] = rev ? a : b;
    }
}

/* Where each data bit sits in the direction form's phases (pp_bn_bitonic), at compile time: a
 * word of PB-bit fields, field j - LI + 1 the thread position of data bit j (j = LI - 1 .. LN - 1;
 * the pivot's own field is stale while it holds the bit). Phase p exchanges data bits p - 1 ..
 * LI - 1 in turn with the pivot; the layout before a phase depends only on the phases before it,
 * so every place below is a constant. */
template <int I, int N> struct pp_bn_places {
    static constexpr int LI = pp_bn_log2(I), LN = pp_bn_log2(N), LW = pp_bn_log2(PP_WAVE);
    static constexpr int PB = LN - LI <= 8 ? 3 : 4;
    static_assert(PB * (LN - LI + 1) <= 64, "places in 64 bits");
    static constexpr uint64_t PM = (1u << PB) - 1;
    static constexpr int field(int j) { return PB * (j - LI + 1); }
    static constexpr int at(uint64_t pos, int j) { return (int)((pos >> field(j)) & PM); }
    /* the word before phase P's exchange on data bit J (J = LI - 2: after the phase's chain) */
    static constexpr uint64_t before(int P, int J)
    {
        uint64_t pos = 0;
        for (int j = LI; j < LN; ++j) pos |= (uint64_t)(j - LI) << field(j);
        for (int p = LI + 1; p <= P; ++p)
            for (int j = p - 1; j >= LI - 1; --j) {
                if (p == P && j == J) return pos;
                const uint64_t q = (pos >> field(j)) & PM;
                const int sh = j == p - 1 ? 0 : field(j + 1); /* the pivot's bit before: LI - 1, or j + 1 */
                pos = (pos & ~(PM << sh)) | q << sh;
            }
        return pos;
    }
    /* exchanges through the shared tile before that one (they use its two halves in turn) */
    static constexpr int shared_before(int P, int J)
    {
        int n = 0;
        for (int p = LI + 1; p <= P; ++p)
            for (int j = p - 1; j >= LI - 1; --j) {
                if (p == P && j == J) return n;
                n += at(before(p, j), j) >= LW;
            }
        return n;
    }
};

/* One half-cleaner by exchange: the stage's data bit sits at thread position Q (partner thread
 * tid ^ 2^Q), the pivot register bit (I / 2) holds another data bit a. The lower thread (bit Q
 * clear) sends registers I / 2 .. I - 1 and keeps 0 .. I / 2 - 1, the upper one the reverse; each
 * compare-exchange of a kept word with the received one leaves the smaller in register r, the
 * larger in r + I / 2, so afterwards the pivot holds the stage's bit and thread position Q holds
 * bit a: half of each thread's words cross, where a compare-exchange in place moves all of them.
 * Partners within a wave by shuffles, others through the shared tile from slot HALF (striped, so
 * a wave's accesses are conflict-free; the tile's two halves in turn, so one barrier an
 * exchange). */
template <int Q, unsigned HALF, int I, typename W, int N> PP_DEVICE void pp_bn_exchange(W (&x)[I], pp_bn_tile<W, N> &t)
{
    constexpr int H = I / 2;
    constexpr int T = N / I; /* threads: a multiple of the pad group (put<T>, get<T>) */
    const unsigned tid = pp_thread_index(); /* not hoisted: pp_bn_bitonic */
    const bool lower = ((tid >> Q) & 1u) == 0;
    /* the words chosen as values: a conditional of the two registers as lvalues would select
     * their addresses, which puts x in local memory (seen with 8-byte words) */
    const auto kept = [&](int r) { return lower ? W(x[r]) : W(x[r + H]); };
    const auto sent = [&](int r) { return lower ? W(x[r + H]) : W(x[r]); };
    if constexpr ((1 << Q) < PP_WAVE) {
#pragma unroll
        for (int r = 0; r < H; ++r) {
            const W keep = kept(r), recv = pp_bn_shfl_xor(sent(r), 1 << Q);
            x[r] = pp_bn_min(keep, recv);
            x[r + H] = pp_bn_max(keep, recv);
        }
    } else {
#pragma unroll
        for (int r = 0; r < H; ++r) t.template put<T>(HALF + tid, r, sent(r));
        __syncthreads();
        const unsigned from = HALF + (tid ^ (1u << Q));
#pragma unroll
        for (int r = 0; r < H; ++r) {
            const W keep = kept(r), recv = t.template get<T>(from, r);
            x[r] = pp_bn_min(keep, recv);
            x[r + H] = pp_bn_max(keep, recv);
        }
    }
}

/* Phase P's exchanges, data bits J .. LI - 1. */
template <int P, int J, int I, typename W, int N> PP_DEVICE void pp_bn_chain(W (&x)[I], pp_bn_tile<W, N> &t)
{
    using PL = pp_bn_places<I, N>;
    if constexpr (J >= PL::LI - 1) {
        constexpr int Q = PL::at(PL::before(P, J), J);
        pp_bn_exchange<Q, (PL::shared_before(P, J) & 1) ? (unsigned)(N / 2) : 0u>(x, t);
        pp_bn_chain<P, J - 1>(x, t);
    }
}

/* Phases P .. c of the direction form (P > log2(I)); sets `first` at the last. */
template <int P, int I, typename W, int N>
PP_DEVICE void pp_bn_phases(W (&x)[I], pp_bn_tile<W, N> &t, int c, unsigned &first)
{
    using PL = pp_bn_places<I, N>;
    if constexpr (P <= PL::LN) {
        if (P > c) return;
        const unsigned tid = pp_thread_index(); /* not hoisted: pp_bn_bitonic */
        constexpr uint64_t POS = PL::before(P, P - 1);
        /* from phase P - 1's complement (none after the registers' phases) to phase P's */
        uint32_t m = P > PL::LI + 1 ? 0u - ((tid >> PL::at(POS, P - 1)) & 1u) : 0u;
        if constexpr (P < PL::LN)
            if (P < c) m ^= 0u - ((tid >> PL::at(POS, P)) & 1u);
#pragma unroll
        for (int r = 0; r < I; ++r) pp_bn_not_if(x[r], m);
        pp_bn_chain<P, P - 1>(x, t);
        pp_bn_reg_half<I / 4>(x);
        if (P == c) {
            constexpr uint64_t END = PL::before(P, PL::LI - 2);
            unsigned f = 0;
#pragma unroll
            for (int j = PL::LI; j < PL::LN; ++j) f |= ((tid >> PL::at(END, j)) & 1u) << j;
            first = f;
        }
        pp_bn_phases<P + 1>(x, t, c, first);
    }
}

/* The merge form's rounds (4-byte words): on entry every group of 2^R slots is sorted, the thread's
 * registers its run of slots tid * I .. + I - 1 (as pp_bn_bitonic_flip leaves them); round k
 * (k = R .. c - 1) merges the sorted groups of 2^k in pairs, so that on return every group of
 * 2^c is sorted, the registers the same run. A round: the runs stored (conflict-free through the
 * tile's pad slot a 32), a block barrier, then each thread finds its run's start on the merge
 * path of its pair (a binary search over the pair's first group A and second B, ties from A)
 * and merges I steps from there, one shared-memory read a step.
 *
 * Where a group ends, what the merge reads next must sort after every real key, ties included:
 * the tile's pad slots give that. Each round the pad slot before slot s (s a multiple of 32)
 * holds a copy of slot s, or ~0 where s begins a group of 2^k (the tile's last pad slot: ~0);
 * the merge's reads go through near(s) (slot s, or for s a multiple of 32 the pad slot before it),
 * so a read one past a group's end returns ~0. Taken from A on a tie, B's ~0 is never taken (B's
 * reads stay within its group and the pad after it); A's ~0 is taken only against a real ~0 of
 * B, where every output left is ~0: A's reads then go on into B's group (in the tile), and the
 * thread's outputs from there are made ~0 afterwards by a running maximum (rare: no test in
 * the step). Counted in SASS (ncu, H100, 4096 keys a segment, R = 8, eighteenth session, call
 * 4): 11 instructions a merge step (the estimate was 10), 7.5 a key a round for the search, 2.8
 * for the stores and the round's setup; the four rounds 87 of the kernel's 194 a key. */
template <int R, int I, int N> PP_DEVICE void pp_bn_merge_rounds(uint32_t (&x)[I], pp_bn_tile<uint32_t, N> &t, int c)
{
    using T = pp_bn_tile<uint32_t, N>;
    static_assert(T::PADN == 32 && (1 << R) >= T::PADN && (1 << R) >= I && I <= T::PADN, "groups of whole pad groups");
    constexpr int PADL = pp_bn_log2(T::PADN); /* near(s) = s + ((s - 1) >> PADL) */
    const unsigned base = pp_thread_index() * (unsigned)I;
    uint32_t *const w = t.w;
#pragma unroll 1
    for (int k = R; k < c; ++k) {
        const unsigned g = 1u << k;
        if (k > R) __syncthreads(); /* the last round's reads are done */
        const auto q = t.run_at(base);
#pragma unroll
        for (int r = 0; r < I; ++r) t.put(q, r, x[r]);
        if ((base & (T::PADN - 1)) == 0 && base != 0) w[q.o - 1] = (base & (g - 1)) ? x[0] : ~0u;
        if (base + I == (unsigned)N) w[N + N / T::PADN - 1] = ~0u;
        __syncthreads();
        const unsigned pa = base & ~(2 * g - 1), diag = base - pa, pb = pa + g;
        /* the merge path: r = how many of the pair's first diag outputs come from A, the first
         * t in [lo, hi) with B[diag - 1 - t] < A[t] (else hi) */
        const unsigned lo = diag > g ? diag - g : 0, hi = diag < g ? diag : g, bd = pb + diag - 1;
        /* binary lifting, clamped to hi: floor(log2(hi - lo)) + 1 steps, no branch but the loop's
         * (H100, 2^26 u32 keys, eighteenth session, call 3: 2048 / 4096 keys a segment 0.6% / 1.5%
         * faster than the halving loop; k + 1 steps for every thread cost 52 instructions a key
         * at 4096 against the halving loop's 34, call 2) */
        unsigned r = lo;
        if (hi > lo) {
            for (unsigned s = 1u << (31 - __clz(hi - lo)); s; s >>= 1) {
                const unsigned u = r + s < hi ? r + s : hi;
                if (!(t.get(bd + 1 - u) < t.get(pa + u - 1))) r = u;
            }
        }
        /* a: A's slot the merge holds in ka (b, in kb, is a0b - a + i at step i) */
        unsigned a = pa + r;
        const unsigned a0b = pa + pb + diag;
        uint32_t ka = r < g ? t.get(a) : ~0u, kb = diag - r < g ? t.get(bd + 1 - r) : ~0u;
#pragma unroll
        for (int i = 0; i < I; ++i) {
            const bool p = ka <= kb;
            x[i] = p ? ka : kb;
            if (i + 1 < I) {
                /* the next slot s on the side taken, as u = s - 1: near(s) = u + 1 + (u >> PADL) */
                const unsigned u = p ? a : a0b + (unsigned)i - a;
                if (p) ++a;
                const uint32_t v = w[u + (u >> PADL) + 1];
                if (p) ka = v;
                else kb = v;
            }
        }
        if (a > pb) { /* A's ~0 was taken: every output from it on is ~0 */
#pragma unroll
            for (int i = 1; i < I; ++i) x[i] = x[i] > x[i - 1] ? x[i] : x[i - 1];
        }
    }
    if (c > R) __syncthreads(); /* the caller's stores after every read */
}

/* Sorts every group of 2^c slots of the block's tile, held ITEMS a thread: thread t's registers
 * are slots t * ITEMS .. + ITEMS - 1 on entry; on return they are the slots from the value
 * returned (ITEMS consecutive slots, the same set of thread-held runs permuted among the
 * threads). The tile is scratch in between; the caller's reads of it must be done before the
 * call (a barrier is taken first where the tile is used) and its writes come after.
 *
 * Groups of fewer than 2^XMIN slots, and 8-byte words, take the flip form throughout
 * (pp_bn_bitonic_flip: the runs stay in place); XMIN below 0 (pp_bn_merge_form): the merge form
 * (pp_bn_merge_rounds) for every group. Longer groups of 4-byte words: phases up to ITEMS slots
 * run in registers in the flip form (pp_bn_reg_phases), the odd threads then reverse their runs
 * (pp_bn_reverse_if) and the later phases take the direction form, where phase p leaves each
 * group of 2^p sorted ascending where data bit p of its slots is 0 and descending where it is 1
 * (the last phase ascending everywhere), so every stage is a half-cleaner. Each phase runs on
 * words complemented where its direction is descending, so every compare-exchange keeps the
 * smaller word low. A half-cleaner on a data bit held by a thread position is an exchange with
 * the pivot register bit (pp_bn_exchange), which swaps the two bits' places (pp_bn_places, at
 * compile time); a phase's chain of exchanges ends with the pivot's own bit back in it, so the
 * register bits below the pivot never move and the last stages of a phase stay in registers.
 * Shuffles and shared-memory operations a key (ITEMS 16,
 * waves of 32): c = 10 / 11 / 12: 14.5 / 20 / 26.5, against 22 / 31 / 42 for the flip form with
 * every cross-thread stage in place. Where that form wins is the callers' tuning (XMIN: on the
 * H100 from c = 11 for 4-byte words; it lost at c <= 10 and with 8-byte words).
 *
 * The exchanges and phases read the thread's index where they use it (pp_thread_index): with
 * threadIdx.x, or with the index read once here and passed down, the compiler held what they
 * derive from it in registers across the callers' item loops, and segsort_packed_pipe's loop of
 * the exchange form alone spilled 4 (20) bytes at its cap of 40 (sm_90, CUDA 13); read where
 * used, none. */
template <int XMIN, int I, typename W, int N> PP_DEVICE unsigned pp_bn_bitonic(W (&x)[I], pp_bn_tile<W, N> &t, int c)
{
    using PL = pp_bn_places<I, N>;
    static_assert(I >= 4 && (I & (I - 1)) == 0 && (N & (N - 1)) == 0, "a power-of-two tile and run");
    static_assert(XMIN < 0 || XMIN > PL::LI, "the exchange form past the registers");
    static_assert(XMIN > 0 || sizeof(W) == 4, "the merge form: 4-byte words");
    const unsigned tid = threadIdx.x;
    if constexpr (XMIN < 0) { /* the merge form */
        constexpr int R = -XMIN;
        pp_bn_bitonic_flip(x, t, tid * (unsigned)I, c < R ? c : R);
        pp_bn_merge_rounds<R>(x, t, c);
        return tid * (unsigned)I;
    } else if constexpr (sizeof(W) > 4 || XMIN > PL::LN) { /* the exchange form not compiled at all */
        pp_bn_bitonic_flip(x, t, tid * (unsigned)I, c);
        return tid * (unsigned)I;
    } else {
        if (c < XMIN) {
            pp_bn_bitonic_flip(x, t, tid * (unsigned)I, c);
            return tid * (unsigned)I;
        }
        pp_bn_reg_phases<2>(x, c);
        pp_bn_reverse_if(x, (tid & 1u) != 0);
        const bool shared = c > PL::LI + PL::LW;
        if (shared) __syncthreads();
        unsigned first = tid * (unsigned)I;
        pp_bn_phases<PL::LI + 1>(x, t, c, first);
        /* the caller's stores may land on slots other threads read before the network: a block's
         * barrier where the exchanges crossed waves, else the wave's (only its own slots moved) */
        if (shared) __syncthreads();
        else pp_wave_sync();
        return first;
    }
}

#endif /* PP_HIP_BITONIC_H */
