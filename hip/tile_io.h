/*
 * tile_io.h -- moving a tile between global memory and the registers of its threads: 16-byte
 * vectors coalesced across the wave, in the blocked arrangement a thread scans (ITEMS
 * consecutive elements per lane), through a per-wave shared-memory exchange.
 *
 * A wave's run is PP_WAVE * ITEMS consecutive elements. Striped order (what a coalesced load
 * gives): vector j * PP_WAVE + lane of the run belongs to lane `lane`; blocked order (what a
 * lane scans): lane l holds elements [l * ITEMS, (l + 1) * ITEMS). The exchange goes through
 * the wave's buffer of 16-byte slots, slot v stored at pp_swz(v): consecutive lanes reading
 * blocked runs of vectors, and consecutive lanes writing striped vectors, hit 8 distinct
 * slots mod 8, so neither side has bank conflicts.
 * Whole, 16-byte aligned runs move as vectors (asynchronously where the target has such
 * copies, port.h's pp_copy16_async); a partial or misaligned run moves element by element
 * through the same buffer (its head, body and tail all take the scalar path, in one loop).
 * Everything is per wave: only wave barriers (pp_wave_sync), no block barrier.
 */
#ifndef PP_HIP_TILE_IO_H
#define PP_HIP_TILE_IO_H

#include <type_traits>

#include "blocks.h"

/* Where 16-byte slot v of a wave's exchange buffer lives. */
PP_DEVICE unsigned pp_swz(unsigned v) { return v ^ ((v >> 3) & 7u); }

/* Element e of the run whose buffer is buf, in place. */
template <typename X> PP_DEVICE X &pp_slot_elem(pp_vec16 *buf, unsigned e)
{
    constexpr unsigned EPV = 16 / sizeof(X);
    return reinterpret_cast<X *>(buf + pp_swz(e / EPV))[e % EPV];
}

/* A lane's run of ITEMS elements of X, and the wave's: whole vectors only. */
template <typename X, int ITEMS> struct pp_lane_run {
    static constexpr int EPV = 16 / sizeof(X);       /* elements per vector */
    static constexpr int V = ITEMS / EPV;            /* vectors per lane */
    static constexpr uint32_t RUN = (uint32_t)PP_WAVE * ITEMS; /* elements per wave */
    static constexpr int VECS = V * PP_WAVE;         /* slots of a wave's buffer */
    static_assert(ITEMS % EPV == 0, "a lane's run is whole vectors");
};

/* Element e of a sequence of wave runs laid out one after another, each in its own buffer
 * of VECS slots from `bufs` (e < RUN: the first run's buffer, pp_slot_elem). */
template <typename X, int ITEMS> PP_DEVICE X &pp_run_elem(pp_vec16 *bufs, uint32_t e)
{
    using L = pp_lane_run<X, ITEMS>;
    return pp_slot_elem<X>(bufs + (e / L::RUN) * L::VECS, e % L::RUN);
}

/* Start copying the wave's whole, 16-byte aligned run at src into its buffer, striped (slot
 * pp_swz(j * PP_WAVE + lane) for vector j * PP_WAVE + lane), and close the batch. Complete
 * after pp_tile_load_finish (or pp_copy_async_wait and a wave barrier). */
template <typename X, int ITEMS> PP_DEVICE void pp_tile_load_start(const X *src, pp_vec16 *ib)
{
    using L = pp_lane_run<X, ITEMS>;
    const unsigned lane = pp_lane_id();
#pragma unroll
    for (int j = 0; j < L::V; ++j) {
        const unsigned vi = (unsigned)j * PP_WAVE + lane;
        pp_copy16_async(ib + pp_swz(vi), src + (size_t)vi * L::EPV);
    }
    pp_copy_async_commit();
}

/* Element by element: elements [0, count) of the runs at src into the buffers (pp_run_elem),
 * lane l moving elements l, l + PP_WAVE, ...; not unrolled (a caller holding a tile in
 * registers meanwhile has none to spare for the loads of an unrolled loop). */
template <typename X, int ITEMS> PP_DEVICE void pp_tile_stage_elems(const X *src, uint32_t count, pp_vec16 *bufs)
{
#pragma unroll 1
    for (uint32_t e = pp_lane_id(); e < count; e += PP_WAVE) pp_run_elem<X, ITEMS>(bufs, e) = src[e];
}

/* This lane's ITEMS consecutive elements of the wave's run at src, in x. `started`: the run
 * was whole and aligned and pp_tile_load_start copied it into ib; otherwise the `valid`
 * elements that exist are loaded one by one through buf, unrolled (elements past `valid` are
 * left undefined in x: the caller masks them). */
template <typename X, int ITEMS>
PP_DEVICE void pp_tile_load_finish(const X *src, uint32_t valid, bool started, const pp_vec16 *ib, pp_vec16 *buf,
                                   X (&x)[ITEMS])
{
    using L = pp_lane_run<X, ITEMS>;
    const unsigned lane = pp_lane_id();
    union U {
        pp_vec16 v[L::V];
        X e[ITEMS];
    } u;
    if (started) {
        pp_copy_async_wait();
        pp_wave_sync();
#pragma unroll
        for (int k = 0; k < L::V; ++k) u.v[k] = ib[pp_swz(lane * L::V + k)];
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const unsigned e = (unsigned)j * PP_WAVE + lane;
            if (e < valid) pp_slot_elem<X>(buf, e) = src[e];
        }
        pp_wave_sync();
#pragma unroll
        for (int k = 0; k < L::V; ++k) u.v[k] = buf[pp_swz(lane * L::V + k)];
        pp_wave_sync(); /* the buffer is reused */
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) x[k] = u.e[k];
}

/* One wave copies REGIONS consecutive runs at src into REGIONS buffers of VECS slots from ib
 * (run r where wave r's pp_tile_load_finish reads it), in pp_tile_load_start's layout:
 * vectors, and complete on return, where `vec` (src 16-byte aligned); element by element
 * otherwise. */
template <typename X, int ITEMS, int REGIONS> PP_DEVICE void pp_tile_copy_runs(const X *src, bool vec, pp_vec16 *ib)
{
    using L = pp_lane_run<X, ITEMS>;
    if (vec) {
#pragma unroll
        for (int r = 0; r < REGIONS; ++r) pp_tile_load_start<X, ITEMS>(src + (size_t)r * L::RUN, ib + r * L::VECS);
        pp_copy_async_wait();
    } else {
        pp_tile_stage_elems<X, ITEMS>(src, REGIONS * L::RUN, ib);
    }
    pp_wave_sync();
}

/* Store this lane's ITEMS consecutive values y to the wave's run at dst. `fast` (whole run,
 * dst 16-byte aligned): vectors, striped through buf (or straight from the registers when a
 * lane holds one vector); otherwise element by element, only elements e < valid with
 * lo <= e < hi (relative to dst). */
template <typename X, int ITEMS>
PP_DEVICE void pp_tile_store(X *dst, uint32_t valid, int64_t lo, int64_t hi, bool fast, pp_vec16 *buf,
                             const X (&y)[ITEMS])
{
    using L = pp_lane_run<X, ITEMS>;
    constexpr int EPV = L::EPV, V = L::V;
    const unsigned lane = pp_lane_id();
    union U {
        pp_vec16 v[V];
        X e[ITEMS];
    } u;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) u.e[k] = y[k];
    if (fast && V == 1) {
        *reinterpret_cast<pp_vec16 *>(dst + (size_t)lane * EPV) = u.v[0];
        return;
    }
#pragma unroll
    for (int k = 0; k < V; ++k) buf[pp_swz(lane * V + k)] = u.v[k];
    pp_wave_sync();
    if (fast) {
#pragma unroll
        for (int j = 0; j < V; ++j) {
            const unsigned vi = (unsigned)j * PP_WAVE + lane;
            *reinterpret_cast<pp_vec16 *>(dst + (size_t)vi * EPV) = buf[pp_swz(vi)];
        }
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const unsigned e = (unsigned)j * PP_WAVE + lane;
            if (e < valid && (int64_t)e >= lo && (int64_t)e < hi) dst[e] = pp_slot_elem<X>(buf, e);
        }
    }
    pp_wave_sync();
}

/* Head flags (bytes, nonzero: a segment starts) of this lane's ITEMS elements of the wave's
 * run at src, as a mask (bit k: element k). `fast`: whole run, src 16-byte aligned. */
template <int ITEMS> PP_DEVICE uint32_t pp_tile_load_flags(const uint8_t *src, uint32_t valid, bool fast)
{
    static_assert(ITEMS <= 32, "a lane's head flags are one 32-bit mask");
    const unsigned lane = pp_lane_id();
    const uint8_t *p = src + (size_t)lane * ITEMS;
    uint8_t b[ITEMS];
    if (fast) {
        if constexpr (ITEMS == 16) {
            /* per 4-byte word: bit 7 of each nonzero byte, then those 4 bits gathered by one
             * multiply (the products of bits 0, 8, 16, 24 by 2^28, 2^21, 2^14, 2^7 land on
             * bits 28 .. 31, no other product on those bits, no carries) */
            const pp_vec16 v = pp_load16_stream(p);
            uint32_t m = 0;
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const uint32_t u = v.w[k], hi = (((u & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | u) & 0x80808080u;
                m |= (((hi >> 7) * 0x10204080u) >> 28) << (4 * k);
            }
            return m;
        } else {
            static_assert(ITEMS % 8 == 0, "flags are read 8 bytes at a time");
            union {
                uint2 v[ITEMS / 8];
                uint8_t e[ITEMS];
            } u;
#pragma unroll
            for (int j = 0; j < ITEMS / 8; ++j) u.v[j] = reinterpret_cast<const uint2 *>(p)[j];
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) b[k] = u.e[k];
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) b[k] = (lane * ITEMS + k < valid) ? p[k] : 0;
    }
    uint32_t m = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) m |= (b[k] != 0 ? 1u : 0u) << k;
    return m;
}

/* ---- a lane's own run of elements (no exchange) ----
 * Where consecutive lanes own consecutive runs of N elements (the 2-D tiles of sat.hip: a lane
 * holds N columns of each row), one lane's loads and stores are already coalesced across
 * the wave: each moves its N * sizeof(X) bytes in the widest pieces of at most 16 bytes that
 * divide them, when `vec` says the run is aligned to its size and whole. */
template <int B> struct pp_piece_of {
    using type = typename std::conditional<
        B % 16 == 0, pp_vec16,
        typename std::conditional<B % 8 == 0, uint2,
                                  typename std::conditional<B % 4 == 0, uint32_t,
                                                            typename std::conditional<B % 2 == 0, uint16_t,
                                                                                      uint8_t>::type>::type>::type>::type;
};

/* x[k] = p[k] for k < min(valid, N); the other x[k] are left as they were. */
template <typename X, int N> PP_DEVICE void pp_lane_load(const X *p, uint32_t valid, bool vec, X (&x)[N])
{
    using V = typename pp_piece_of<N * (int)sizeof(X)>::type;
    constexpr int PIECES = N * (int)sizeof(X) / (int)sizeof(V);
    if (vec && valid >= (uint32_t)N) {
        union {
            V v[PIECES];
            X e[N];
        } u;
#pragma unroll
        for (int i = 0; i < PIECES; ++i) u.v[i] = reinterpret_cast<const V *>(p)[i];
#pragma unroll
        for (int k = 0; k < N; ++k) x[k] = u.e[k];
    } else {
#pragma unroll
        for (int k = 0; k < N; ++k)
            if ((uint32_t)k < valid) x[k] = p[k];
    }
}

/* p[k] = y[k] for k < min(valid, N). */
template <typename X, int N> PP_DEVICE void pp_lane_store(X *p, uint32_t valid, bool vec, const X (&y)[N])
{
    using V = typename pp_piece_of<N * (int)sizeof(X)>::type;
    constexpr int PIECES = N * (int)sizeof(X) / (int)sizeof(V);
    if (vec && valid >= (uint32_t)N) {
        union {
            V v[PIECES];
            X e[N];
        } u;
#pragma unroll
        for (int k = 0; k < N; ++k) u.e[k] = y[k];
#pragma unroll
        for (int i = 0; i < PIECES; ++i) reinterpret_cast<V *>(p)[i] = u.v[i];
    } else {
#pragma unroll
        for (int k = 0; k < N; ++k)
            if ((uint32_t)k < valid) p[k] = y[k];
    }
}

#endif /* PP_HIP_TILE_IO_H */
