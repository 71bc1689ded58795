/*
 * blocks.h -- wave-level and block-level building blocks shared by every kernel family,
 * in the layering of CUB and rocPRIM (wave -> block -> tile -> device), much smaller.
 * Everything is written over the compile-time wave width PP_WAVE of the device pass
 * (port.h); block sizes are multiples of it; nothing assumes 32 or 64.
 */
#ifndef PP_HIP_BLOCKS_H
#define PP_HIP_BLOCKS_H

#include "port.h"

/* ---- numeric limits usable on the device ---- */
template <typename T> struct pp_limits;
template <> struct pp_limits<uint8_t> {
    static PP_DEVICE uint8_t lowest() { return 0; }
    static PP_DEVICE uint8_t highest() { return 0xFFu; }
};
template <> struct pp_limits<int32_t> {
    static PP_DEVICE int32_t lowest() { return INT32_MIN; }
    static PP_DEVICE int32_t highest() { return INT32_MAX; }
};
template <> struct pp_limits<uint32_t> {
    static PP_DEVICE uint32_t lowest() { return 0; }
    static PP_DEVICE uint32_t highest() { return UINT32_MAX; }
};
template <> struct pp_limits<int64_t> {
    static PP_DEVICE int64_t lowest() { return INT64_MIN; }
    static PP_DEVICE int64_t highest() { return INT64_MAX; }
};
template <> struct pp_limits<uint64_t> {
    static PP_DEVICE uint64_t lowest() { return 0; }
    static PP_DEVICE uint64_t highest() { return UINT64_MAX; }
};
template <> struct pp_limits<float> {
    static PP_DEVICE float lowest() { return -__builtin_huge_valf(); }
    static PP_DEVICE float highest() { return __builtin_huge_valf(); }
};
template <> struct pp_limits<double> {
    static PP_DEVICE double lowest() { return -__builtin_huge_val(); }
    static PP_DEVICE double highest() { return __builtin_huge_val(); }
};

template <typename T> PP_DEVICE bool pp_isnan(T x) { return x != x; } /* false for integers */

/* ---- binary operators over an accumulator type A ----
 * Integer sums and products are done in unsigned types by the callers (wrapping, no UB).
 * Floating min/max propagate NaN: the NaN side wins. */
template <typename A> struct pp_op_sum {
    static PP_DEVICE A identity() { return A(0); }
    static PP_DEVICE A apply(A a, A b) { return a + b; }
};
template <typename A> struct pp_op_prod {
    static PP_DEVICE A identity() { return A(1); }
    static PP_DEVICE A apply(A a, A b) { return a * b; }
};
template <typename A> struct pp_op_min {
    static PP_DEVICE A identity() { return pp_limits<A>::highest(); }
    static PP_DEVICE A apply(A a, A b) { return (a < b || pp_isnan(a)) ? a : b; }
};
template <typename A> struct pp_op_max {
    static PP_DEVICE A identity() { return pp_limits<A>::lowest(); }
    static PP_DEVICE A apply(A a, A b) { return (a > b || pp_isnan(a)) ? a : b; }
};
template <typename A> struct pp_op_and {
    static PP_DEVICE A identity() { return A(~A(0)); }
    static PP_DEVICE A apply(A a, A b) { return a & b; }
};
template <typename A> struct pp_op_or {
    static PP_DEVICE A identity() { return A(0); }
    static PP_DEVICE A apply(A a, A b) { return a | b; }
};
template <typename A> struct pp_op_xor {
    static PP_DEVICE A identity() { return A(0); }
    static PP_DEVICE A apply(A a, A b) { return a ^ b; }
};

/* ---- (value, index) pairs for argmin / argmax ---- */
template <typename V> struct pp_argpair {
    V v;
    uint64_t i;
};
/* Shuffles of the types kernels exchange: scalars directly, pairs member by member. */
template <typename T> PP_DEVICE T pp_shfl_xor_any(T v, int m, int w = PP_WAVE) { return pp_shfl_xor(v, m, w); }
template <typename V> PP_DEVICE pp_argpair<V> pp_shfl_xor_any(pp_argpair<V> p, int m, int w = PP_WAVE)
{
    pp_argpair<V> r;
    r.v = pp_shfl_xor(p.v, m, w);
    r.i = pp_shfl_xor(p.i, m, w);
    return r;
}
template <typename T> PP_DEVICE T pp_shfl_any(T v, int src, int w = PP_WAVE) { return pp_shfl(v, src, w); }
template <typename V> PP_DEVICE pp_argpair<V> pp_shfl_any(pp_argpair<V> p, int src, int w = PP_WAVE)
{
    pp_argpair<V> r;
    r.v = pp_shfl(p.v, src, w);
    r.i = pp_shfl(p.i, src, w);
    return r;
}

/* IsMax selects argmax; otherwise argmin. The winner of a and b: the more extreme value,
 * a NaN before any number, and on ties (NaN ties NaN) the lower index. */
template <typename V, bool IsMax> struct pp_op_arg {
    using A = pp_argpair<V>;
    static PP_DEVICE A identity()
    {
        A r;
        r.v = IsMax ? pp_limits<V>::lowest() : pp_limits<V>::highest();
        r.i = UINT64_MAX;
        return r;
    }
    static PP_DEVICE A apply(A a, A b)
    {
        bool an = pp_isnan(a.v), bn = pp_isnan(b.v);
        bool b_better = IsMax ? (b.v > a.v) : (b.v < a.v);
        bool tie = (a.v == b.v) || (an && bn);
        bool take_b = (bn && !an) || (!an && !bn && b_better) || (tie && b.i < a.i);
        return take_b ? b : a;
    }
};

/* ---- 16-byte vectors of elements ---- */

/* Element k of a 16-byte vector holding 16 / sizeof(T) elements of T. */
template <typename T> PP_DEVICE T pp_vec_elem(const pp_vec16 &v, int k)
{
    union {
        pp_vec16 v;
        T e[16 / sizeof(T)];
    } u;
    u.v = v;
    return u.e[k];
}

/* An array of n elements of T at p, cut for 16-byte loads: `head` elements before the first
 * 16-byte boundary (at most n), `nvec` whole vectors from there, `tail` elements after them
 * (fewer than one vector). Host and device. */
struct pp_split16 {
    uint64_t head, nvec, tail;
};
template <typename T> __host__ __device__ inline pp_split16 pp_split_for16(const T *p, uint64_t n)
{
    constexpr uint64_t VEC = 16 / sizeof(T);
    pp_split16 s;
    const uintptr_t mis = (uintptr_t)p & 15u;
    s.head = mis ? (16u - mis) / sizeof(T) : 0;
    if (s.head > n) s.head = n;
    s.nvec = (n - s.head) / VEC;
    s.tail = (n - s.head) % VEC;
    return s;
}

/* ---- reductions over registers, waves and blocks ---- */

/* Pairwise tree over a register array (compile-time indices only, so it stays in
 * registers): depth ceil(log2 N). */
template <typename Op, typename A, int N> PP_DEVICE A pp_tree_reduce(A (&v)[N])
{
#pragma unroll
    for (int s = 1; s < N; s <<= 1) {
#pragma unroll
        for (int i = 0; i + s < N; i += 2 * s) v[i] = Op::apply(v[i], v[i + s]);
    }
    return v[0];
}

/* Butterfly over the lanes of groups of `Width` lanes (a power of two dividing PP_WAVE):
 * every lane of the group ends with the group's result, and, for a commutative op, the
 * same bits. Depth log2(Width). */
template <typename Op, int Width = PP_WAVE, typename A> PP_DEVICE A pp_wave_reduce(A v)
{
#pragma unroll
    for (int m = Width / 2; m > 0; m >>= 1) v = Op::apply(v, pp_shfl_xor_any(v, m, Width));
    return v;
}

/* One halving step of pp_wave_reduce_many over the first C values, partner distance M, then the
 * next (template recursion: every index a constant, whatever the compiler's unroll limits). */
template <typename Op, int C, int M, typename A, int CH> PP_DEVICE void pp_wave_halve(A (&v)[CH], unsigned lane)
{
    if constexpr (C > 1) {
        const bool up = (lane & (unsigned)M) != 0u;
#pragma unroll
        for (int i = 0; i < C / 2; ++i) {
            const A send = up ? v[i] : v[i + C / 2], keep = up ? v[i + C / 2] : v[i];
            v[i] = Op::apply(keep, pp_shfl_xor_any(send, M));
        }
        pp_wave_halve<Op, C / 2, M / 2>(v, lane);
    }
}

/* CH values a lane, each reduced over the wave at once (CH a power of two, at most PP_WAVE):
 * a butterfly that halves the values a step (each lane keeps the half of the values its bit of
 * the step selects and sends the other half to its partner, who keeps that), then a plain
 * butterfly over groups of PP_WAVE / CH lanes. Lane l returns the wave's total of value
 * l / (PP_WAVE / CH), the same bits in every lane of that group. CH - 1 + log2(PP_WAVE / CH)
 * shuffles, where CH pp_wave_reduce calls take CH log2(PP_WAVE) (8 values on a wave of 32: 9
 * against 40). For an op that commutes (a + b and b + a the same bits, as IEEE sums are), the
 * order of each value's terms is fixed: the same bits every run. */
template <typename Op, int CH, typename A> PP_DEVICE A pp_wave_reduce_many(A (&v)[CH])
{
    static_assert((CH & (CH - 1)) == 0 && CH >= 1 && CH <= PP_WAVE, "a power of two of values, at most a wave's");
    pp_wave_halve<Op, CH, PP_WAVE / 2>(v, pp_lane_id());
    A s = v[0];
#pragma unroll
    for (int m = PP_WAVE / (2 * CH); m > 0; m >>= 1) s = Op::apply(s, pp_shfl_xor_any(s, m));
    return s;
}

/* Block-wide reduction for blocks of BLOCK threads (a multiple of PP_WAVE). The result is
 * valid in thread 0 (and in every thread of wave 0). Depth log2(BLOCK). Contains
 * __syncthreads(): every thread of the block must call it. */
template <typename Op, int BLOCK, typename A> PP_DEVICE A pp_block_reduce(A v)
{
    constexpr int WAVES = BLOCK / PP_WAVE;
    constexpr int LAST = WAVES < 2 ? 2 : WAVES; /* width of the final butterfly */
    static_assert(BLOCK % PP_WAVE == 0, "block must be a multiple of the wave");
    static_assert(WAVES <= PP_WAVE, "one wave combines the per-wave partials");
    __shared__ A partial[WAVES];
    v = pp_wave_reduce<Op>(v);
    if (WAVES == 1) return v;
    if (pp_lane_id() == 0) partial[pp_wave_id()] = v;
    __syncthreads();
    if (pp_wave_id() == 0) {
        v = pp_lane_id() < (unsigned)WAVES ? partial[pp_lane_id()] : Op::identity();
        v = pp_wave_reduce<Op, LAST>(v);
    }
    return v;
}

/* Butterfly over the lanes of groups of Width lanes that keeps the order of the operands: after
 * the step of distance s the lower half of every aligned pair of runs is on the left, so
 * lane c ends with the balanced binary fold, lower lanes first, of the aligned run of
 * `block` lanes (a power of two <= Width) that holds it; every lane of that run has the same
 * bits whether Op commutes or not (pp_wave_reduce's butterfly does not keep the order). Op
 * may be any operator of this header's shape whose values pp_shfl_xor_any moves (scalars,
 * pp_argpair, pp_scan_val). Depth log2(Width). */
template <typename Op, int Width = PP_WAVE, typename A> PP_DEVICE A pp_wave_reduce_ordered(A v, unsigned block = Width)
{
    const unsigned lane = pp_lane_id();
#pragma unroll
    for (unsigned s = 1; s < (unsigned)Width; s <<= 1) {
        const A o = pp_shfl_xor_any(v, (int)s);
        if (s < block) v = (lane & s) ? Op::apply(o, v) : Op::apply(v, o);
    }
    return v;
}

/* ---- scans over waves and blocks ----
 * A scanned value: the accumulator and, for segmented scans, whether a segment starts inside
 * the span it covers. The segmented operator (a, b) -> b.f ? b : a op b is associative, so a
 * segmented scan is the plain scan of pp_scan_op<Op, A, true>; for SEG false f stays 0 and
 * is never shuffled (no cost over a scan of A). */
template <typename A, bool SEG> struct pp_scan_val {
    A v;
    uint32_t f;
};
template <typename A, bool SEG> PP_DEVICE pp_scan_val<A, SEG> pp_shfl_any(pp_scan_val<A, SEG> x, int src, int w = PP_WAVE)
{
    pp_scan_val<A, SEG> r;
    r.v = pp_shfl_any(x.v, src, w);
    r.f = SEG ? pp_shfl(x.f, src, w) : 0u;
    return r;
}
template <typename A, bool SEG>
PP_DEVICE pp_scan_val<A, SEG> pp_shfl_xor_any(pp_scan_val<A, SEG> x, int m, int w = PP_WAVE)
{
    pp_scan_val<A, SEG> r;
    r.v = pp_shfl_xor_any(x.v, m, w);
    r.f = SEG ? pp_shfl_xor(x.f, m, w) : 0u;
    return r;
}

/* Op (identity, apply over A) lifted to scanned values, plain or segmented (SEG). */
template <typename Op, typename A, bool SEG> struct pp_scan_op {
    using T = pp_scan_val<A, SEG>;
    using acc_t = A;
    using base_op = Op;
    static constexpr bool segmented = SEG;
    static PP_DEVICE T make(A v, uint32_t f)
    {
        T r;
        r.v = v;
        r.f = SEG ? f : 0u;
        return r;
    }
    static PP_DEVICE T identity() { return make(Op::identity(), 0); }
    static PP_DEVICE T apply(T a, T b)
    {
        if constexpr (SEG) return make(b.f ? b.v : Op::apply(a.v, b.v), a.f | b.f);
        else return make(Op::apply(a.v, b.v), 0);
    }
};

/* Inclusive scan over lanes 0 .. Width - 1 of the wave (Kogge-Stone / Hillis-Steele: log2(Width)
 * steps with every lane busy; a Blelloch up/down sweep does half the operations in twice the
 * steps, and shuffles, not operations, are what costs here). Lanes from Width on hold
 * values of no use. Every lane of the wave calls it. */
template <typename Op, int Width = PP_WAVE, typename T> PP_DEVICE T pp_wave_scan_incl(T v)
{
    static_assert(Width <= PP_WAVE, "a wave scan spans at most the wave");
    const int lane = (int)pp_lane_id();
#pragma unroll
    for (int d = 1; d < Width; d <<= 1) {
        const T y = pp_shfl_any(v, lane >= d ? lane - d : 0);
        if (lane >= d) v = Op::apply(y, v);
    }
    return v;
}

/* The exclusive scan from the inclusive one: each lane takes its lower neighbour's value,
 * lane 0 the identity. */
template <typename Op, typename T> PP_DEVICE T pp_wave_excl_of_incl(T incl)
{
    const unsigned lane = pp_lane_id();
    T ex = pp_shfl_any(incl, lane > 0 ? (int)lane - 1 : 0);
    if (lane == 0) ex = Op::identity();
    return ex;
}

/* pp_wave_scan_incl over the lanes taken `stride` apart (a power of two known only at run time):
 * `stride` interleaved scans, lane l at position pos = l / stride of scan l % stride, each scan
 * `count` positions (count x stride <= PP_WAVE); lane l ends with the fold of its scan's values
 * at positions <= pos. pos and count come from the caller, who has them as shifts (a division
 * here cost a div.u32; count computed as PP_WAVE / stride, up to 24 more registers in sat.hip's
 * rs_carries on sm_90). Not unrolled: log2(count) steps. The plain scans above are not written
 * over this one: with its source lane where a lane takes nothing (the lane itself, as rs_carries
 * had it; lane 0 there) they changed the registers of 40 kernels of scan.hip, sort.hip and
 * compaction.hip on sm_90, and lane 0 here cost rs_carries up to 28 (bench/NOTES.md, twelfth
 * session). */
template <typename Op, typename T>
PP_DEVICE T pp_wave_scan_incl_strided(T v, unsigned stride, unsigned pos, unsigned count)
{
    const unsigned lane = pp_lane_id();
    for (unsigned d = 1; d < count; d <<= 1) {
        const T y = pp_shfl_any(v, (int)(pos >= d ? lane - d * stride : lane));
        if (pos >= d) v = Op::apply(y, v);
    }
    return v;
}

/* The exclusive scans from the inclusive ones of pp_wave_scan_incl_strided (the same stride and
 * pos): each lane takes the value `stride` lanes below it, each scan's first lane the identity. */
template <typename Op, typename T> PP_DEVICE T pp_wave_excl_of_incl_strided(T incl, unsigned stride, unsigned pos)
{
    const unsigned lane = pp_lane_id();
    T ex = pp_shfl_any(incl, (int)(pos >= 1 ? lane - stride : lane));
    if (pos == 0) ex = Op::identity();
    return ex;
}

/* Exclusive scan over lanes 0 .. Width - 1; *total (if given) receives the fold of all Width
 * lanes, in every lane. */
template <typename Op, int Width = PP_WAVE, typename T> PP_DEVICE T pp_wave_scan_excl(T v, T *total = nullptr)
{
    const T incl = pp_wave_scan_incl<Op, Width>(v);
    if (total) *total = pp_shfl_any(incl, Width - 1);
    return pp_wave_excl_of_incl<Op>(incl);
}

/* The block step of a block scan, run by every lane of wave 0: totals[0 .. WAVES) holds each
 * wave's total; they are replaced by each wave's exclusive prefix within the block, and the
 * block's total is returned (in every lane of wave 0). The caller orders totals' writes and
 * reads with barriers on both sides. */
template <typename Op, int WAVES, typename T> PP_DEVICE T pp_block_scan_waves(T *totals)
{
    static_assert(WAVES <= PP_WAVE, "one wave scans the wave totals");
    const unsigned lane = pp_lane_id();
    T s = lane < (unsigned)WAVES ? totals[lane] : Op::identity();
    s = pp_wave_scan_incl<Op, WAVES>(s);
    const T ex = pp_wave_excl_of_incl<Op>(s);
    const T total = pp_shfl_any(s, WAVES - 1);
    pp_wave_sync();
    if (lane < (unsigned)WAVES) totals[lane] = ex;
    return total;
}

/* Block-wide scan of one value per thread, for blocks of BLOCK threads (a multiple of
 * PP_WAVE, at most PP_WAVE waves): thread i gets the fold of threads [0, i) (exclusive) or
 * [0, i] (INCLUSIVE) and *total (if given) the block's. Contains __syncthreads(): every
 * thread of the block calls it, and a second call needs a barrier between the two (the
 * totals' buffer is reused). */
template <typename Op, int BLOCK, bool INCLUSIVE, typename T> PP_DEVICE T pp_block_scan(T v, T *total = nullptr)
{
    constexpr int WAVES = BLOCK / PP_WAVE;
    static_assert(BLOCK % PP_WAVE == 0 && WAVES <= PP_WAVE, "blocks are 1 .. PP_WAVE whole waves");
    __shared__ T totals[WAVES];
    __shared__ T block_total;
    const unsigned lane = pp_lane_id(), w = pp_wave_id();
    const T incl = pp_wave_scan_incl<Op>(v);
    const T ex = pp_wave_excl_of_incl<Op>(incl);
    if (lane == PP_WAVE - 1) totals[w] = incl;
    __syncthreads();
    if (w == 0) {
        const T t = pp_block_scan_waves<Op, WAVES>(totals);
        if (lane == 0) block_total = t;
    }
    __syncthreads();
    if (total) *total = block_total;
    return Op::apply(totals[w], INCLUSIVE ? incl : ex);
}

#endif /* PP_HIP_BLOCKS_H */
