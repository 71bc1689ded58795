/*
 * histogram.c -- the histogram family on the CPU (OpenMP): pp_histogram_even,
 * pp_histogram_range and pp_reduce_by_index.
 *
 * Bins. Every sample's bin comes from src/histogram_bins.h, the arithmetic every backend
 * shares, so the counts are bitwise those of the HIP backend; bins from edges through an
 * exact grid of cells over the edges (GRID_BLOCK) where there are enough samples to repay it,
 * else by binary searches in lockstep. The plan of every call is recorded (hist_plan).
 *
 * Histograms (u32 / u64 counts). The threads claim chunks of CHUNK samples in turn; a
 * thread computes the bins of a block of BLK samples into a small index buffer (a loop that
 * vectorizes for float even bins), then increments its private table; the tables are summed
 * into the counts at the end (in parallel over the bins). Three layouts by the size of a
 * private table (nbins + 1 counters: the last one takes the samples in no bin, so the
 * increment loop has no branch):
 *   nbins small (SUB_TABLE_BYTES): SUBS = 4 interleaved sub-tables per thread, sample j of a
 *       block going to sub-table j % 4, so that runs of one bin (skewed data) do not chain
 *       every increment through store-to-load forwarding;
 *   private table up to PRIVATE_BYTES (a share of the L3; all threads' together at most
 *       PRIVATE_TOTAL_BYTES): one table per thread;
 *   larger: the bins are split into ranges of PRIVATE_BYTES, one pass over the samples per
 *       range (each pass re-reads the samples and counts only its range), and beyond
 *       MAX_PASSES ranges (or with fewer samples than nbins / 4) the threads increment the
 *       output counts directly with relaxed atomics (few collisions when the bins are that
 *       many).
 * Private counters are 32-bit: the threads count at most ROUND samples in all before the
 * tables are added to the counts, so none can overflow.
 * u8 samples are first counted by value (256 counters, 4 sub-tables), whatever the binning;
 * the 256 value counts are then folded into the bins (bin of each value).
 *
 * Reduce by index. Outputs of at most RBI_PRIVATE_BYTES per thread: each thread reduces its slice
 * into a private copy (initialised to the op's identity); the copies are combined into out in
 * thread order (out[j] op copy_0[j] op copy_1[j] ...), so float sums are reproducible for a
 * given n and thread count. More outputs: each thread owns a range of outputs and scans all
 * the indices (every output then receives its values in index order). The plan: strategy
 * "private", "owner" or "serial", param[0] = threads. Min and max go through
 * the keys of histogram_bins.h (the order parprim.h defines, NaN sticky), exactly as on the GPU.
 */
#include <float.h>
#include <math.h>
#include <omp.h>
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "histogram_bins.h"

#ifndef BLK
#define BLK 256 /* samples per block: bins computed (vectorized), then counted, while in L1 */
#endif
#define SUBS 4                                    /* interleaved sub-tables for small nbins */
#define SUB_TABLE_BYTES ((size_t)16 << 10)        /* nbins up to this (x 4 bytes): SUBS tables */
/* Largest private table (one per thread): 8 MiB, about a thread's share of a server's L3.
 * Measured here (EPYC, 2 cores, 1 MiB L2, 32 MiB L3): random increments into a 4 MiB table
 * cost 1.0 ns, against 9.5 ns a sample for the same counts as 4 passes over 1 MiB ranges
 * (the split, which re-bins every sample per pass, only pays beyond the L3). */
#define PRIVATE_BYTES ((size_t)8 << 20)
#define PRIVATE_TOTAL_BYTES ((size_t)64 << 20) /* all threads' tables together, at most */
#define RBI_PRIVATE_BYTES ((size_t)4 << 20) /* reduce by index: private copies up to this */
#define MAX_PASSES 16                             /* more bin ranges: atomics into the counts */
#define ROUND ((size_t)1 << 31)                   /* samples between table flushes (all threads) */
#define CHUNK ((size_t)1 << 16)                   /* samples a thread claims at a time */
#define PAR_MIN_SAMPLES ((size_t)1 << 16)         /* fewer samples: one thread */

/* ---- bin of every sample of a block ---- */

/* How a block of samples becomes table indices: for i in [b, b + len), the bin of samples[i]
 * relative to the pass's first bin r0, written to idx[0, len), or rb (the trash counter) for a
 * sample in no bin or in a bin outside [r0, r0 + rb). (Unsigned wrap-around sends the bins
 * below r0, and PP_HIST_NOBIN, past rb.) */
typedef struct binner {
    const pp_histogram_args *a;
    uint32_t step; /* range: binary-lifting start (pp_hist_pow2_floor(nbins)) */
    uint32_t r0, rb;
    /* range: the cell grid (NULL: none; the lockstep search then) */
    const struct range_grid *grid;
    /* even f32 samples: the float-vector form for this CPU (f32_vec_fn below), NULL: none */
    size_t (*f32_vec)(const struct binner *, const float *, size_t, uint32_t *);
    size_t round; /* samples per round of the private tables (ROUND, or the option's) */
    int lanes;    /* f32_vec's lanes (the plan), 0: none */
} binner;

/* The entry point, for messages. */
static const char *hist_fn(const pp_histogram_args *a)
{
    return a->kind == PP_HIST_RANGE ? "pp_histogram_range" : "pp_histogram_even";
}

static inline uint32_t rel(uint32_t bin, uint32_t r0, uint32_t rb)
{
    const uint32_t k = bin - r0;
    return k < rb ? k : rb;
}

/* The float bins vectorize; on x86-64 the widest vectors the CPU has are chosen at load time
 * (PP_WIDE_CLONES, cpu/common.h). Every clone computes the same bins: the same IEEE
 * operations, no contraction (-ffp-contract=off for this file). */

/* NAME(bn, s, b, len, idx): the table index of every sample of a block, BIN an expression of
 * the sample x[i] and of p (the even parameters), e and step (the edges). p is a local copy:
 * the stores to idx cannot alias it, so its fields stay in registers and the loop vectorizes. */
#define BIN_BLOCK(ATTR, NAME, T, BIN)                                                          \
    ATTR static void NAME(const binner *bn, const void *s, size_t b, size_t len, uint32_t *idx) \
    {                                                                                          \
        const pp_hist_even p = bn->a->even;                                                    \
        const double *e = bn->a->edges;                                                        \
        const uint32_t step = bn->step, r0 = bn->r0, rb = bn->rb;                              \
        const T *x = (const T *)s + b;                                                         \
        (void)e;                                                                               \
        (void)step;                                                                            \
        for (size_t i = 0; i < len; ++i) idx[i] = rel(BIN, r0, rb);                            \
    }
BIN_BLOCK(PP_WIDE_CLONES, even_f64, double, pp_hist_bin_float((double)x[i], &p))

/* f32 samples: the same bins as pp_hist_bin_float, in a form gcc vectorizes better (25% fewer
 * cycles per sample here): the range test on the float itself (flower <= x < fupper is
 * lower <= x < upper for every f32 x), and t clamped to [0, nbins - 1] before the conversion
 * (the clamp at 0 only touches samples outside the range, which the test then drops; min with
 * nbins - 1 has the floor of the definition's "t < nbins ? floor(t) : nbins - 1"). */
PP_WIDE_CLONES
static void even_f32_double(const binner *bn, const void *s, size_t b, size_t len, uint32_t *idx)
{
    const float flo = bn->a->even.flower, fhi = bn->a->even.fupper;
    const double lo = bn->a->even.lower, scale = bn->a->even.scale, top = (double)(bn->a->even.nbins - 1);
    const uint32_t r0 = bn->r0, rb = bn->rb;
    const float *x = (const float *)s + b;
    for (size_t i = 0; i < len; ++i) {
        const float xf = x[i];
        const int in = (xf >= flo) & (xf < fhi);
        double t = ((double)xf - lo) * scale;
        t = t > 0.0 ? t : 0.0; /* NaN too */
        t = t < top ? t : top;
        uint32_t k = (uint32_t)(int32_t)t - r0;
        k = k < rb ? k : rb;
        idx[i] = in ? k : rb;
    }
}

/* The float form only where the redone lanes are few: a block with a near lane is derived
 * again vector by vector, and a vector with one is redone lane by lane, so the fraction of
 * such blocks (about 512 ferr) must stay moderate. Measured, one thread, 2^15 samples in L2
 * over [-1, 1), min of 200, ns a sample in floats / in doubles: 1024 bins (ferr 3.7e-4) 0.55 /
 * 0.63; 1536 0.62-0.63 / 0.68; 2048 (7.3e-4) 0.70 / 0.74; 3072 (1.1e-3) 0.82-0.83 / 0.84;
 * 4096 (1.5e-3) 0.86-0.91 / 0.77; 65536 3.9 / 3.6. So floats where ferr <= 2^-10, about 2700
 * bins over [-1, 1). */
#ifndef F32_MAX_ERR
#define F32_MAX_ERR (1.0f / 1024)
#endif
#ifndef PF_AHEAD
#define PF_AHEAD 2048 /* samples: 8 KiB ahead */
#endif

/*
 * f32 samples where pp_hist_f32_params allows (f32_fast): the bins in float arithmetic, L
 * samples a vector (gcc's vector extensions), with no float comparison (gcc 12 turns vector
 * float comparisons into scalar code) and no float-to-int conversion:
 *   t = x * fscale + foff, pp_hist_bin_f32's estimate of the definition's t (within ferr);
 *   y = t + 1.5 * 2^23 rounds t to the nearest integer r, which is bits(y) - bits(1.5 * 2^23)
 *   for |t| < 2^22; d = t - (y - 1.5 * 2^23) = t - r is exact, in [-1/2, 1/2].
 * Where |d| > ferr no integer lies between t and the estimate, so floor(t) = r - (d < 0); the
 * lanes with |d| <= ferr (2 ferr of the samples: 1.8e-4 for 256 bins over [-1, 1); they
 * include t near 0 and near nbins, the range's ends) are found again after the block and
 * redone with the double definition. Out of range the estimate is < -ferr or > nbins + ferr,
 * and r - (d < 0) falls outside [0, nbins); for |t| >= 2^22, infinities and NaN the bit
 * difference is at least 2^22 > nbins (f32_fast implies nbins < 2^19) or, for negative y,
 * wraps above 2^31: also outside. So every bin is the definition's (test_histogram's
 * t_f32_binning checks the scalar form; the CPU cases check this one against the oracle, at
 * every vector width: t_even_f32_widths).
 *
 * The vector width is the machine's own, one function per width (gcc lowers a generic vector
 * wider than the target's registers lane by lane: 16 lanes built for AVX2 ran 6x slower than
 * for AVX-512 here), chosen per call (f32_vec_choose): 16 lanes with AVX-512 (x86-64-v4), 8
 * with AVX2 and FMA, else 4 (SSE2, NEON). Returns how many samples (a multiple of L) it
 * binned. MINU / MINS: lane-wise unsigned / signed minimum; FMA: t's multiply-add.
 */
#define EVEN_F32_VEC(NAME, ATTR, L, MINU, MINS, FMA)                                                    \
    ATTR static size_t NAME(const binner *bn, const float *x, size_t len, uint32_t *idx)                 \
    {                                                                                                    \
        typedef float vf __attribute__((vector_size(4 * L)));                                            \
        typedef int32_t vi __attribute__((vector_size(4 * L)));                                          \
        typedef uint32_t vu __attribute__((vector_size(4 * L)));                                         \
        const pp_hist_even *pe = &bn->a->even;                                                           \
        const float magic = 12582912.0f; /* 1.5 * 2^23 */                                                \
        int32_t magic_bits, err_bits;                                                                    \
        memcpy(&magic_bits, &magic, 4);                                                                  \
        memcpy(&err_bits, &pe->ferr, 4);                                                                 \
        const vf zf = {0};                                                                               \
        const vi zi = {0};                                                                               \
        const vf sc = zf + pe->fscale, off = zf + pe->foff, vmagic = zf + magic;                         \
        const vi vmagic_bits = zi + magic_bits, abs_mask = zi + 0x7FFFFFFF;                              \
        const vu r0 = (vu)zi + bn->r0, rb = (vu)zi + bn->rb;                                             \
        /* |d| as bits (signed compares: no lane is negative), per lane the least of the block */     \
        vi dmin = zi + 0x7FFFFFFF;                                                                       \
        size_t i = 0;                                                                                    \
        for (; i + L <= len; i += L) {                                                                   \
            vf v;                                                                                        \
            /* the hardware prefetcher idles while a block is counted; the address as an integer, \
             * since it may lie past the array (a prefetch never faults) */                           \
            if (i % 16 == 0) __builtin_prefetch((const void *)((uintptr_t)(x + i) + PF_AHEAD * sizeof(float))); \
            memcpy(&v, x + i, sizeof v);                                                                 \
            const vf t = FMA(v, sc, off), y = t + vmagic;                                                   \
            const vi db = (vi)(t - (y - vmagic));                                                        \
            const vu r = (vu)y - (vu)vmagic_bits; /* unsigned: wraps, defined */                         \
            const vu k = r + (vu)(db >> 31) - r0; /* floor, relative to the pass */                      \
            const vu out = MINU(k, rb); /* rel(): rb outside */                                          \
            memcpy(idx + i, &out, sizeof out);                                                           \
            dmin = MINS(db & abs_mask, dmin);                                                            \
        }                                                                                                \
        int redo = 0;                                                                                    \
        for (int j = 0; j < L; ++j) redo |= dmin[j] <= err_bits;                                         \
        /* Rare (256 bins over [-1, 1): 1.8e-4 of the samples, in 4.5% of the blocks): the lanes \
         * too near a bin boundary, found again vector by vector (the same operations, so the  \
         * same d) and redone with the double definition. */                                          \
        for (size_t c = 0; redo && c < i; c += L) {                                                      \
            vf v;                                                                                        \
            memcpy(&v, x + c, sizeof v);                                                                 \
            const vf t = FMA(v, sc, off), y = t + vmagic;                                                   \
            const vi near = ((vi)(t - (y - vmagic)) & abs_mask) <= err_bits;                             \
            uint64_t w[L / 2];                                                                           \
            memcpy(w, &near, sizeof w);                                                                  \
            uint64_t any = 0;                                                                            \
            for (int j = 0; j < L / 2; ++j) any |= w[j];                                                 \
            if (!any) continue;                                                                          \
            for (int j = 0; j < L; ++j)                                                                  \
                if (near[j]) idx[c + j] = rel(pp_hist_bin_float((double)x[c + j], pe), bn->r0, bn->rb);  \
        }                                                                                                \
        return i;                                                                                        \
    }

/* Lane-wise minima: generic (a compare and a blend: SSE2 has no unsigned compare), and one
 * instruction with AVX2 / AVX-512 (gcc does not turn the generic form into it). */
#define MIN_GENERIC(A, B) (__typeof__(A))(((vi)(A) & (vi)((A) < (B))) | ((vi)(B) & ~(vi)((A) < (B))))
/* t = x fscale + foff, fused where the CPU has FMA (the bound of pp_hist_f32_params holds
 * fused or not; the main loop and the redo compute the same t, so they agree on the near
 * lanes) */
#define MULADD_GENERIC(V, S, O) ((V) * (S) + (O))
typedef size_t (*f32_vec_fn)(const binner *, const float *, size_t, uint32_t *);
EVEN_F32_VEC(even_f32_v4, , 4, MIN_GENERIC, MIN_GENERIC, MULADD_GENERIC)
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MINU8(A, B) (vu) _mm256_min_epu32((__m256i)(A), (__m256i)(B))
#define MINS8(A, B) (vi) _mm256_min_epi32((__m256i)(A), (__m256i)(B))
#define MINU16(A, B) (vu) _mm512_min_epu32((__m512i)(A), (__m512i)(B))
#define MINS16(A, B) (vi) _mm512_min_epi32((__m512i)(A), (__m512i)(B))
#define FMA8(V, S, O) (vf) _mm256_fmadd_ps((__m256)(V), (__m256)(S), (__m256)(O))
#define FMA16(V, S, O) (vf) _mm512_fmadd_ps((__m512)(V), (__m512)(S), (__m512)(O))
EVEN_F32_VEC(even_f32_v8, __attribute__((target("avx2,fma"))), 8, MINU8, MINS8, FMA8)
EVEN_F32_VEC(even_f32_v16, __attribute__((target("arch=x86-64-v4"))), 16, MINU16, MINS16, FMA16)
#define PP_F32_WIDTHS 1
#endif

/* The width for this call: the widest the CPU runs, or PP_OPTION_CPU_HIST_LANES (4, 8, 16: the
 * tests run every width the CPU has; a width it lacks gives the widest it has). NULL: the
 * double form. *lanes: the width chosen (the plan's param[0]), 0 for the double form. */
static f32_vec_fn f32_vec_choose(const pp_context *ctx, const pp_histogram_args *a, int *lanes)
{
    *lanes = 0;
    if (a->kind != PP_HIST_EVEN || a->sample_type != PP_F32 || !a->even.f32_fast || a->even.ferr > F32_MAX_ERR)
        return NULL;
    const int64_t want = pp__option(ctx, PP_OPTION_CPU_HIST_LANES);
    *lanes = 4;
#ifdef PP_F32_WIDTHS
    const int v16 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                    __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    const int v8 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (want == 4) return even_f32_v4;
    *lanes = 8;
    if (want == 8 && v8) return even_f32_v8;
    *lanes = 16;
    if (v16 && want != 8) return even_f32_v16;
    *lanes = 8;
    if (v8) return even_f32_v8;
    *lanes = 4;
#else
    (void)want;
#endif
    return even_f32_v4;
}

static void even_f32(const binner *bn, const void *s, size_t b, size_t len, uint32_t *idx)
{
    if (!bn->f32_vec) {
        even_f32_double(bn, s, b, len, idx);
        return;
    }
    const float *x = (const float *)s + b;
    size_t i = bn->f32_vec(bn, x, len, idx);
    for (; i < len; ++i) idx[i] = rel(pp_hist_bin_f32(x[i], &bn->a->even), bn->r0, bn->rb);
}

BIN_BLOCK(, even_u8, uint8_t, pp_hist_bin_int((int64_t)x[i], &p))
BIN_BLOCK(, even_i32, int32_t, pp_hist_bin_int((int64_t)x[i], &p))
BIN_BLOCK(, even_u32, uint32_t, pp_hist_bin_int((int64_t)x[i], &p))

/* Bin from the edges: in range iff edges[0] <= x < edges[nbins]. */
static inline uint32_t range_bin(double x, const double *e, uint32_t nbins, uint32_t step)
{
    if (!(x >= e[0] && x < e[nbins])) return PP_HIST_NOBIN;
    return pp_hist_search(e, nbins, step, x);
}

/*
 * Range bins through a grid of cells (exact, no fall-back to a check against the edges).
 * The keys: K = float for f32 samples, compared with the edges rounded up to floats (for a
 * float x, e <= x iff ceil_float(e) <= x, pp_hist_ceil_to_float; infinities included), K =
 * double for the other types (exact conversions). The cell of a key x is
 *     cell(x) = floor(clamp((x - lo) * inv, 0, cells - 1))
 * in K arithmetic, for a finite lo and a finite inv >= 0: a non-decreasing function of x
 * (each rounded operation is), NaN aside. Each edge's cell is computed with that same
 * function, so for a sample x in cell j, every edge in a cell below j is < x and every edge
 * in a cell above j is > x; only the edges of cell j itself need a comparison. So with
 * start[j] = the edges in the cells below j, the count of edges <= x is start[j] plus the
 * edges of cell j that are <= x, and the bin is that count - 1 (in range iff 1 <= count <=
 * nbins): the last b with edges[b] <= x, as the header defines, equal and infinite edges
 * included, whatever rounding did to the cell. A cell holds at most one edge almost always;
 * then the count is base[j] + (x >= key[base[j]]), where key[base[j]] is the cell's edge or,
 * in a cell with none, the next edge, which lies in a later cell and so above x (the keys are
 * padded with NaN, which no comparison passes, past the last edge). For f32 samples the
 * grid holds both side by side (cell_f: 8 bytes, one load or one 64-bit gather a sample:
 * the key loaded through base, a dependent gather, took 1.35x the time here); for the others
 * the key is loaded through base. A cell with more edges has base[j] = the
 * sentinel (nbins + 2, a NaN key): its samples are marked and then counted by a binary search
 * over that cell's edges (start[j] .. start[j + 1]).
 * lo and inv spread the finite edges over the cells (cells = 16 nbins rounded up to a power
 * of two, at most GRID_MAX_CELLS), so that with edges of similar widths almost every cell
 * holds at most one. Measured here (the bench's quadratic edges, 4096 bins, 2^24 f32 samples,
 * one thread, CPU time a sample, three runs each): 4 nbins cells 1.77-1.80 ns (1.6% of the
 * samples in multi-edge cells), 8 nbins 1.52-1.56, 16 nbins 1.43-1.47 (0.1%), 32 nbins
 * 1.60-1.75 (a 1 MiB grid); the binary searches before it 6.97 ns. gcc 12 emulates the
 * gathers lane by lane (2.2x the time), hence the AVX-512 loop.
 */
#define GRID_REDO 0xFFFFFFFFu /* idx of a sample still to be binned (never a table index) */
#define GRID_CELLS_PER_BIN 16
#define GRID_MAX_CELLS ((size_t)1 << 18)
#define GRID_MAX_BINS ((size_t)1 << 24)
typedef struct range_grid {
    uint32_t cells;
    uint32_t multi;             /* the sentinel base of a cell with several edges: nbins + 2 */
    float lo_f, inv_f;          /* f32 samples */
    uint32_t log_f;             /* f32 samples: the octave grid (grid_t_flog), cells in cell_w */
    uint32_t bmin_f, sh_f, tmax_f; /* the octave grid: its first cell's bits, shift, largest t */
    double lo_d, inv_d;         /* other samples */
    const uint32_t *base;       /* cells: start[j], or the sentinel */
    const uint32_t *start;      /* cells + 1: the edges in the cells below j */
    const float *key_f;         /* f32 samples: the edges rounded up to floats, then 2 NaN */
    const struct grid_cell_f {  /* f32 samples, cells: base[j] and key_f[base[j]] */
        uint32_t base;
        float split;
    } *cell_f;
    const uint32_t *cell_w;     /* the octave grid's cells: base << (sh + 1) | code */
    const double *key_d;        /* other samples: the edges, then 2 NaN */
    /* f32 samples: the loop of GRID_BLOCK for this CPU */
    int (*loop_f)(const struct range_grid *, const float *, size_t, uint32_t, uint32_t, uint32_t *);
} range_grid;

static inline uint32_t grid_cell_f(float x, float lo, float inv, float top)
{
    float t = (x - lo) * inv;
    t = t > 0.0f ? t : 0.0f; /* NaN too */
    t = t < top ? t : top;
    return (uint32_t)(int32_t)t;
}
/*
 * The octave grid of f32 samples (the first finite key lo): from the bits of y = x - lo
 * (rounded, so a non-decreasing function of x) read as a signed integer,
 *     t(x) = min(max(bits(y), bmin) - bmin, tmax),  cell(x) = t >> sh,  off(x) = t & (2^sh - 1),
 * with tmax = cells 2^sh - 1. For y >= +0 the bits grow with y; every y < 0 (negative bits)
 * and every y below the float with bits bmin has t = 0: t is non-decreasing in x, NaN aside.
 * Each octave of y gets 2^(23 - sh) cells, narrow near lo and wide far from it, so edges whose
 * widths grow with their distance from the first edge (the bench's quadratic edges) resolve
 * with few cells, and samples spread evenly fall mostly in the top octaves' cells, half of
 * them in the top octave's, which stay in the L1 cache.
 * A cell is 4 bytes, base << (sh + 1) | code: base as in the linear grid (start[j], or the
 * multi-edge sentinel), code = off(e) for the cell's edge e, 2^sh for a cell with none. Since
 * t is non-decreasing, t(x) > t(e) implies x > e and t(x) < t(e) implies x < e: the count of
 * edges <= x is base + (off(x) > code), except where off(x) == code: x and e may be in either
 * order, and the sample is redone by binary search, as in a multi-edge cell (about one sample
 * in 2000 with the bench's edges), unless x < lo (t = 0 there: x is below the cell's edge,
 * whose key is >= lo).
 */
static inline uint32_t grid_t_flog(float x, float lo, uint32_t bmin, uint32_t tmax)
{
    const float y = x - lo;
    int32_t b;
    memcpy(&b, &y, sizeof b);
    const uint32_t t = b > (int32_t)bmin ? (uint32_t)b - bmin : 0u;
    return t < tmax ? t : tmax;
}
static inline uint32_t grid_cell_d(double x, double lo, double inv, double top)
{
    double t = (x - lo) * inv;
    t = t > 0.0 ? t : 0.0;
    t = t < top ? t : top;
    return (uint32_t)(int32_t)t;
}

static inline uint32_t grid_cell_of_f(const range_grid *g, float x)
{
    return g->log_f ? grid_t_flog(x, g->lo_f, g->bmin_f, g->tmax_f) >> g->sh_f
                    : grid_cell_f(x, g->lo_f, g->inv_f, (float)(g->cells - 1));
}
static inline uint32_t grid_cell_of_d(const range_grid *g, double x)
{
    return grid_cell_d(x, g->lo_d, g->inv_d, (double)(g->cells - 1));
}

/* The edges of a multi-edge cell j that are <= x, counted by binary search. */
#define GRID_COUNT(K, e, lo_i, hi_i, x) \
    do {                               \
        while (lo_i < hi_i) {          \
            const uint32_t m_ = lo_i + (hi_i - lo_i) / 2; \
            if ((e)[m_] <= (x)) lo_i = m_ + 1;            \
            else hi_i = m_;                               \
        }                                                 \
    } while (0)

/* The loop: the bin of each sample from its cell's base and split, relative to the pass
 * (rel: rb out of the pass or out of range), GRID_REDO where the cell holds several edges;
 * returns whether any does. */
#define GRID_LOOP(NAME, T, K, SFX)                                                                \
    PP_WIDE_CLONES static int NAME##_loop(const range_grid *g, const T *restrict x, size_t len,   \
                                          uint32_t r0, uint32_t rb, uint32_t *restrict idx)       \
    {                                                                                             \
        const K lo = g->lo_##SFX, inv = g->inv_##SFX, top = (K)(g->cells - 1);                    \
        const uint32_t *restrict base = g->base, multi_b = g->multi;                              \
        const K *restrict key = g->key_##SFX;                                                     \
        const struct grid_cell_f *restrict cell = g->cell_f;                                      \
        (void)base, (void)key, (void)cell;                                                        \
        uint32_t multi = 0;                                                                       \
        for (size_t i = 0; i < len; ++i) {                                                        \
            const K v = (K)x[i];                                                                  \
            const uint32_t j = grid_cell_##SFX(v, lo, inv, top);                                  \
            const uint32_t b = GRID_BASE_##SFX(j);                                                \
            const uint32_t bin = b + (uint32_t)(v >= GRID_SPLIT_##SFX(j, b)) - 1u; /* count - 1 */ \
            uint32_t k = (v == v ? bin : PP_HIST_NOBIN) - r0;                                     \
            k = k < rb ? k : rb;                                                                  \
            const uint32_t is_multi = b == multi_b;                                               \
            multi |= is_multi;                                                                    \
            idx[i] = is_multi ? GRID_REDO : k;                                                    \
        }                                                                                         \
        return multi != 0;                                                                        \
    }
#define GRID_BASE_f(j) cell[j].base
#define GRID_SPLIT_f(j, b) cell[j].split
#define GRID_BASE_d(j) base[j]
#define GRID_SPLIT_d(j, b) key[b]
/* The block function: the loop, then the samples of multi-edge cells. */
#define GRID_BLOCK(NAME, T, K, SFX, KEY_EDGES, LOOP)                                             \
    static void NAME(const binner *bn, const void *s, size_t b, size_t len, uint32_t *idx)       \
    {                                                                                             \
        const range_grid *g = bn->grid;                                                           \
        const T *x = (const T *)s + b;                                                            \
        if (!g) {                                                                                 \
            range_lockstep_##T(bn, x, len, idx);                                                  \
            return;                                                                               \
        }                                                                                         \
        if (!LOOP(g, x, len, bn->r0, bn->rb, idx)) return;                                        \
        const K *e = KEY_EDGES;                                                                   \
        for (size_t i0 = 0; i0 < len; i0 += 16) { /* 16 at a time: a vectorized test first */  \
            const size_t i1 = min_size(len, i0 + 16);                                             \
            uint32_t any = 0;                                                                     \
            for (size_t i = i0; i < i1; ++i) any |= idx[i] == GRID_REDO;                          \
            for (size_t i = i0; any && i < i1; ++i) {                                             \
                if (idx[i] != GRID_REDO) continue;                                                \
                const K v = (K)x[i];                                                              \
                const uint32_t j = grid_cell_of_##SFX(g, v);                                      \
                uint32_t c = g->start[j], hi = g->start[j + 1];                                   \
                GRID_COUNT(K, e, c, hi, v);                                                       \
                idx[i] = rel(v == v ? c - 1u : PP_HIST_NOBIN, bn->r0, bn->rb);                    \
            }                                                                                     \
        }                                                                                         \
    }

/* Without a grid (few samples, or more bins than GRID_MAX_BINS): the samples' full searches
 * (pp_hist_search's binary lifting) in lockstep, every sample taking step s before any takes
 * step s / 2, so that the loads of a step are independent and overlap. */
#define RANGE_LOCKSTEP(T)                                                                      \
    static void range_lockstep_##T(const binner *bn, const T *x, size_t len, uint32_t *idx)   \
    {                                                                                          \
        const double *e = bn->a->edges;                                                        \
        const uint32_t nb = (uint32_t)bn->a->nbins, r0 = bn->r0, rb = bn->rb;                  \
        const double e0 = e[0], en = e[nb];                                                    \
        double v[BLK];                                                                         \
        uint32_t k[BLK];                                                                       \
        for (size_t i = 0; i < len; ++i) {                                                     \
            const double xi = (double)x[i];                                                    \
            v[i] = xi >= e0 ? xi : e0; /* NaN too: searches harmlessly, dropped below */       \
            k[i] = 0;                                                                          \
        }                                                                                      \
        for (uint32_t step = bn->step; step; step >>= 1)                                       \
            for (size_t i = 0; i < len; ++i) {                                                 \
                const uint32_t c = k[i] + step;                                                \
                k[i] = c < nb && e[c] <= v[i] ? c : k[i];                                      \
            }                                                                                  \
        for (size_t i = 0; i < len; ++i) {                                                     \
            const double xi = (double)x[i];                                                    \
            idx[i] = xi >= e0 && xi < en ? rel(k[i], r0, rb) : rb;                             \
        }                                                                                      \
    }
RANGE_LOCKSTEP(uint8_t)
RANGE_LOCKSTEP(int32_t)
RANGE_LOCKSTEP(uint32_t)
RANGE_LOCKSTEP(float)
RANGE_LOCKSTEP(double)
/* u8 samples are counted by value (histogram_u8); this serves only the n = 0 path */
static void range_u8(const binner *bn, const void *s, size_t b, size_t len, uint32_t *idx)
{
    range_lockstep_uint8_t(bn, (const uint8_t *)s + b, len, idx);
}
GRID_LOOP(range_f32, float, float, f)
GRID_LOOP(range_i32, int32_t, double, d)
GRID_LOOP(range_u32, uint32_t, double, d)
GRID_LOOP(range_f64, double, double, d)
/* The octave grid's loop (grid_t_flog). */
PP_WIDE_CLONES static int range_f32log_loop(const range_grid *g, const float *restrict x, size_t len, uint32_t r0,
                                            uint32_t rb, uint32_t *restrict idx)
{
    const float lo = g->lo_f;
    const uint32_t bmin = g->bmin_f, sh = g->sh_f, tmax = g->tmax_f, mask = (1u << sh) - 1u, multi_b = g->multi;
    const uint32_t *restrict cell = g->cell_w;
    uint32_t multi = 0;
    for (size_t i = 0; i < len; ++i) {
        const float v = x[i];
        const uint32_t t = grid_t_flog(v, lo, bmin, tmax), w = cell[t >> sh];
        const uint32_t off = t & mask, code = w & (2u * mask + 1u), b = w >> (sh + 1u);
        const uint32_t above = v >= lo; /* false for NaN, dropped below anyway */
        const uint32_t bin = b + (uint32_t)(off > code) - 1u; /* x < lo: off = 0, never above */
        uint32_t k = (v == v ? bin : PP_HIST_NOBIN) - r0;
        k = k < rb ? k : rb;
        const uint32_t redo = (b == multi_b) | (above & (off == code));
        multi |= redo;
        idx[i] = redo ? GRID_REDO : k;
    }
    return multi != 0;
}
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* The AVX-512 grid loops' last steps for 16 samples: the bin base - 1 + above (NaN lanes no
 * bin), relative to the pass (rel), GRID_REDO in the lanes of a multi-edge cell (base ==
 * multi_b) or of `redo`, stored at out; returns the redone lanes. */
__attribute__((target("avx512f"), always_inline)) static inline __mmask16 grid_v16_store(
    __m512i b, __mmask16 above, __mmask16 nan, __mmask16 redo, __m512i vr0, __m512i vrb, __m512i multi_b, uint32_t *out)
{
    const __m512i one = _mm512_set1_epi32(1), none = _mm512_set1_epi32(-1);
    __m512i bin = _mm512_sub_epi32(b, one);
    bin = _mm512_mask_add_epi32(bin, above, bin, one);
    bin = _mm512_mask_mov_epi32(bin, nan, none);
    __m512i k = _mm512_min_epu32(_mm512_sub_epi32(bin, vr0), vrb);
    const __mmask16 m = _mm512_cmpeq_epi32_mask(b, multi_b) | redo;
    k = _mm512_mask_mov_epi32(k, m, none); /* GRID_REDO */
    _mm512_storeu_si512(out, k);
    return m;
}
/* range_f32_loop with AVX-512: the same operations (max / min are the clamps' selects, NaN
 * to 0; _CMP_GE_OQ is C's >=, false with a NaN), the two table loads as gathers. */
__attribute__((target("avx512f"))) static int range_f32_loop_v16(const range_grid *g, const float *x, size_t len,
                                                                 uint32_t r0, uint32_t rb, uint32_t *idx)
{
    const __m512 lo = _mm512_set1_ps(g->lo_f), inv = _mm512_set1_ps(g->inv_f);
    const __m512 top = _mm512_set1_ps((float)(g->cells - 1)), zero = _mm512_setzero_ps();
    const __m512i vr0 = _mm512_set1_epi32((int)r0), vrb = _mm512_set1_epi32((int)rb);
    const __m512i one = _mm512_set1_epi32(1);
    const long long *cell = (const long long *)g->cell_f;
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_add_epi32(even, one);
    const __m512i multi_b = _mm512_set1_epi32((int)g->multi);
    __mmask16 multi = 0;
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        __m512 t = _mm512_mul_ps(_mm512_sub_ps(v, lo), inv);
        t = _mm512_min_ps(_mm512_max_ps(t, zero), top);
        const __m512i j = _mm512_cvttps_epi32(t);
        /* the cells of lanes 0-7 and 8-15 (8 bytes each), then base and split apart */
        const __m512i c0 = _mm512_i32gather_epi64(_mm512_castsi512_si256(j), cell, 8);
        const __m512i c1 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(j, 1), cell, 8);
        const __m512i b = _mm512_permutex2var_epi32(c0, even, c1);
        const __m512 sp = _mm512_castsi512_ps(_mm512_permutex2var_epi32(c0, odd, c1));
        const __mmask16 ge = _mm512_cmp_ps_mask(v, sp, _CMP_GE_OQ);
        const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        multi |= grid_v16_store(b, ge, nan, 0, vr0, vrb, multi_b, idx + i);
    }
    return range_f32_loop(g, x + i, len - i, r0, rb, idx + i) | (multi != 0);
}
/* range_f32log_loop with AVX-512: one 16-lane gather of the 4-byte cells. */
__attribute__((target("avx512f"))) static int range_f32log_loop_v16(const range_grid *g, const float *x, size_t len,
                                                                    uint32_t r0, uint32_t rb, uint32_t *idx)
{
    const __m512 lo = _mm512_set1_ps(g->lo_f);
    const uint32_t mask_s = (1u << g->sh_f) - 1u;
    const __m512i bmin = _mm512_set1_epi32((int)g->bmin_f), tmax = _mm512_set1_epi32((int)g->tmax_f);
    const __m512i mask = _mm512_set1_epi32((int)mask_s), cmask = _mm512_set1_epi32((int)(2u * mask_s + 1u));
    const __m128i sh = _mm_cvtsi32_si128((int)g->sh_f), sh1 = _mm_cvtsi32_si128((int)g->sh_f + 1);
    const __m512i vr0 = _mm512_set1_epi32((int)r0), vrb = _mm512_set1_epi32((int)rb);
    const __m512i multi_b = _mm512_set1_epi32((int)g->multi);
    const int *cell = (const int *)g->cell_w;
    __mmask16 multi = 0;
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        const __m512i y = _mm512_castps_si512(_mm512_sub_ps(v, lo));
        const __m512i t = _mm512_min_epu32(_mm512_sub_epi32(_mm512_max_epi32(y, bmin), bmin), tmax);
        const __m512i w = _mm512_i32gather_epi32(_mm512_srl_epi32(t, sh), cell, 4);
        const __m512i off = _mm512_and_si512(t, mask), code = _mm512_and_si512(w, cmask);
        const __m512i b = _mm512_srl_epi32(w, sh1);
        const __mmask16 above = _mm512_cmp_ps_mask(v, lo, _CMP_GE_OQ);
        const __mmask16 gt = _mm512_cmpgt_epu32_mask(off, code);
        const __mmask16 eq = _mm512_mask_cmpeq_epi32_mask(above, off, code);
        const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        multi |= grid_v16_store(b, gt, nan, eq, vr0, vrb, multi_b, idx + i);
    }
    return range_f32log_loop(g, x + i, len - i, r0, rb, idx + i) | (multi != 0);
}
_Static_assert(GRID_REDO == 0xFFFFFFFFu, "the AVX-512 loop's all-ones lanes");
#define PP_GRID_V16 1
#endif
#define RANGE_F32_LOOP(g, x, len, r0, rb, idx) (g)->loop_f(g, x, len, r0, rb, idx)
#define RANGE_F64_LOOP range_f64_loop
#define RANGE_I32_LOOP range_i32_loop
#define RANGE_U32_LOOP range_u32_loop
GRID_BLOCK(range_f32, float, float, f, g->key_f, RANGE_F32_LOOP)
GRID_BLOCK(range_i32, int32_t, double, d, g->key_d, RANGE_I32_LOOP)
GRID_BLOCK(range_u32, uint32_t, double, d, g->key_d, RANGE_U32_LOOP)
GRID_BLOCK(range_f64, double, double, d, g->key_d, RANGE_F64_LOOP)

typedef void (*block_fn)(const binner *, const void *, size_t, size_t, uint32_t *);

static block_fn block_fn_for(const pp_histogram_args *a)
{
    const int even = a->kind == PP_HIST_EVEN;
    switch (a->sample_type) {
    case PP_U8: return even ? even_u8 : range_u8;
    case PP_I32: return even ? even_i32 : range_i32;
    case PP_U32: return even ? even_u32 : range_u32;
    case PP_F32: return even ? even_f32 : range_f32;
    case PP_F64: return even ? even_f64 : range_f64;
    default: return NULL;
    }
}

/* The bin of one value (u8 folding). */
static uint32_t bin_of_value(const binner *bn, double v)
{
    const pp_histogram_args *a = bn->a;
    if (a->kind == PP_HIST_EVEN) return pp_hist_bin_int((int64_t)v, &a->even);
    return range_bin(v, a->edges, (uint32_t)a->nbins, bn->step);
}

/* ---- writing counts ---- */

static inline void count_store(void *counts, pp_dtype t, size_t b, uint64_t v, int add)
{
    if (t == PP_U32) {
        uint32_t *c = (uint32_t *)counts + b;
        *c = add ? *c + (uint32_t)v : (uint32_t)v;
    } else {
        uint64_t *c = (uint64_t *)counts + b;
        *c = add ? *c + v : v;
    }
}

static void zero_counts(void *counts, pp_dtype t, size_t nbins)
{
    const size_t bytes = nbins * (t == PP_U32 ? 4 : 8);
    const long long chunks = (long long)((bytes + ((size_t)1 << 20) - 1) >> 20);
#pragma omp parallel for schedule(static) if (chunks > 4)
    for (long long c = 0; c < chunks; ++c) {
        const size_t lo = (size_t)c << 20, len = min_size((size_t)1 << 20, bytes - lo);
        memset((char *)counts + lo, 0, len);
    }
}

/* ---- u8: count by value, fold into bins ---- */

static pp_status histogram_u8(pp_context *ctx, const pp_histogram_args *a, const binner *bn)
{
    const int threads = a->n >= PAR_MIN_SAMPLES ? omp_get_max_threads() : 1;
    uint64_t *value_counts = NULL;
    PP_TRY(cpu_scratch(ctx, hist_fn(a), (size_t)threads * 256 * sizeof(uint64_t), (void **)&value_counts));
    const uint8_t *x = (const uint8_t *)a->samples;
    const size_t n = a->n;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const size_t lo = n / (size_t)nt * (size_t)t + min_size((size_t)t, n % (size_t)nt);
        const size_t hi = lo + n / (size_t)nt + ((size_t)t < n % (size_t)nt);
        uint64_t *mine = value_counts + (size_t)t * 256;
        uint32_t sub[SUBS][256];
        for (int v = 0; v < 256; ++v) mine[v] = 0;
        /* 32-bit sub-table counters, flushed every 2^24 samples. */
        for (size_t b = lo; b < hi; b += (size_t)1 << 24) {
            const size_t e = min_size(hi, b + ((size_t)1 << 24));
            memset(sub, 0, sizeof sub);
            size_t i = b;
            for (; i + SUBS <= e; i += SUBS) {
                sub[0][x[i]]++;
                sub[1][x[i + 1]]++;
                sub[2][x[i + 2]]++;
                sub[3][x[i + 3]]++;
            }
            for (; i < e; ++i) sub[0][x[i]]++;
            for (int v = 0; v < 256; ++v) mine[v] += (uint64_t)sub[0][v] + sub[1][v] + sub[2][v] + sub[3][v];
        }
    }
    zero_counts(a->counts, a->count_type, a->nbins);
    for (int v = 0; v < 256; ++v) {
        uint64_t c = 0;
        for (int t = 0; t < threads; ++t) c += value_counts[(size_t)t * 256 + v];
        const uint32_t bin = bin_of_value(bn, (double)v);
        if (c && bin != PP_HIST_NOBIN) count_store(a->counts, a->count_type, bin, c, 1);
    }
    return PP_OK;
}

/* ---- private tables ---- */

/* Count samples [lo, hi) into table: SUBS sub-tables `stride` apart, or one. */
static void count_slice(const binner *bn, block_fn f, size_t lo, size_t hi, uint32_t *table, size_t stride,
                        int subs)
{
    uint32_t idx[BLK];
    const void *s = bn->a->samples;
    for (size_t b = lo; b < hi; b += BLK) {
        const size_t len = min_size(BLK, hi - b);
        f(bn, s, b, len, idx);
        if (subs == SUBS) {
            uint32_t *t1 = table + stride, *t2 = table + 2 * stride, *t3 = table + 3 * stride;
            size_t i = 0;
            for (; i + SUBS <= len; i += SUBS) {
                table[idx[i]]++;
                t1[idx[i + 1]]++;
                t2[idx[i + 2]]++;
                t3[idx[i + 3]]++;
            }
            for (; i < len; ++i) table[idx[i]]++;
        } else {
            for (size_t i = 0; i < len; ++i) table[idx[i]]++;
        }
    }
}

static pp_status histogram_private(pp_context *ctx, const pp_histogram_args *a, binner *bn, block_fn f,
                                   size_t range_bins)
{
    const size_t n = a->n, nbins = a->nbins;
    const int threads = n >= PAR_MIN_SAMPLES ? omp_get_max_threads() : 1;
    const int subs = (range_bins + 1) * 4 <= SUB_TABLE_BYTES ? SUBS : 1;
    const size_t stride = (range_bins + 1 + 15) & ~(size_t)15; /* 64-byte rows */
    const size_t per_thread = stride * (size_t)subs;
    const size_t round = bn->round;
    uint32_t *tables = NULL;
    PP_TRY(cpu_scratch(ctx, hist_fn(a), (size_t)threads * per_thread * sizeof(uint32_t), (void **)&tables));
    if (n == 0) zero_counts(a->counts, a->count_type, nbins);
    for (size_t r0 = 0; r0 < nbins; r0 += range_bins) {
        const uint32_t rb = (uint32_t)min_size(range_bins, nbins - r0);
        bn->r0 = (uint32_t)r0;
        bn->rb = rb;
        /* A round is at most ROUND samples in all (so no 32-bit counter can overflow, however
         * the chunks fall to the threads), claimed CHUNK samples at a time: on a shared or
         * virtual machine a thread that loses its core for a while leaves its chunks to the
         * others instead of holding up the whole call (a fixed split waits for the slowest). */
        for (size_t base = 0; base < n; base += round) {
            const size_t m = min_size(round, n - base);
            const long long chunks = (long long)((m + CHUNK - 1) / CHUNK);
            const int add = base > 0;
#pragma omp parallel num_threads(threads)
            {
                const int t = omp_get_thread_num(), nt = omp_get_num_threads();
                uint32_t *mine = tables + (size_t)t * per_thread;
                memset(mine, 0, per_thread * sizeof(uint32_t));
#pragma omp for schedule(dynamic, 1) nowait
                for (long long c = 0; c < chunks; ++c) {
                    const size_t lo = base + (size_t)c * CHUNK;
                    count_slice(bn, f, lo, lo + min_size(CHUNK, base + m - lo), mine, stride, subs);
                }
#pragma omp barrier
                /* Sum the tables into the counts, the bins split over the threads. */
#pragma omp for schedule(static)
                for (long long k = 0; k < (long long)rb; ++k) {
                    uint64_t c = 0;
                    for (int u = 0; u < nt; ++u)
                        for (int sb = 0; sb < subs; ++sb) c += tables[(size_t)u * per_thread + (size_t)sb * stride + (size_t)k];
                    count_store(a->counts, a->count_type, r0 + (size_t)k, c, add);
                }
            }
        }
    }
    return PP_OK;
}

/* ---- huge bin counts: relaxed atomic increments of the counts ---- */

static pp_status histogram_atomic(const pp_histogram_args *a, const binner *bn, block_fn f)
{
    const size_t n = a->n;
    zero_counts(a->counts, a->count_type, a->nbins);
    const int threads = n >= PAR_MIN_SAMPLES ? omp_get_max_threads() : 1;
    const long long blocks = (long long)((n + BLK - 1) / BLK);
    const int u64 = a->count_type == PP_U64;
#pragma omp parallel num_threads(threads)
    {
        uint32_t idx[BLK];
#pragma omp for schedule(static)
        for (long long k = 0; k < blocks; ++k) {
            const size_t b = (size_t)k * BLK, len = min_size(BLK, n - b);
            f(bn, a->samples, b, len, idx);
            for (size_t i = 0; i < len; ++i) {
                if (idx[i] >= bn->rb) continue; /* no bin */
                if (u64) __atomic_fetch_add((uint64_t *)a->counts + idx[i], 1, __ATOMIC_RELAXED);
                else __atomic_fetch_add((uint32_t *)a->counts + idx[i], 1, __ATOMIC_RELAXED);
            }
        }
    }
    return PP_OK;
}

static pp_status check_edges(pp_context *ctx, const double *e, size_t nbins)
{
    for (size_t k = 0; k <= nbins; ++k) {
        if (isnan(e[k]))
            return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_histogram_range: argument 'edges' has a NaN at index %zu",
                            k);
        if (k > 0 && e[k] < e[k - 1])
            return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                            "pp_histogram_range: argument 'edges' is not sorted: edges[%zu] = %.17g is below "
                            "edges[%zu] = %.17g",
                            k, e[k], k - 1, e[k - 1]);
    }
    return PP_OK;
}

/* The choice between the two grids of f32 samples, for samples spread evenly over the finite
 * edges (the only guess the edges allow): each grid's expected cost a sample, in loads that
 * miss the L1 cache (those outside the GRID_HOT_BYTES of cells most samples fall in) plus
 * GRID_REDO_COST for a sample in a multi-edge cell (its binary search). The octave grid takes
 * the shift with the least cost, and wins where its top octaves hold most of the width in
 * fewer bytes than the linear grid's cells. Measured here (AMD EPYC with AVX-512, one thread,
 * 2^24 f32 uniform over [-1, 1), the bench's 4096 quadratic edges, 65536 cells, best of 3-5
 * processes, 2026-11-27): equal cells 1.39-1.44 ns a sample; the octave grid (sh = 12: 2048
 * cells an octave) 1.16-1.20, and 1.19-1.21 with 8-byte cells (base and the edge's float, two
 * 8-lane gathers). Only f32 samples have it (the bench's row); the double keys of the other
 * types would take the same form on the bits of a double. */
#define GRID_HOT_BYTES ((size_t)16 << 10) /* half the 32 KiB L1 data cache */
#define GRID_REDO_COST 64.0
/* The octave grid's shifts the model tries: from a sixteenth of an octave in its `cells` cells
 * (sh0 - 4) to 64 octaves (sh0 + 6), sh0 = 23 - log2(cells) the shift of one octave. More
 * octaves only add cells below 2^-64 of the span, which change the model's cost by less than
 * that. The model's time a call, 4096 bins (65536 cells), one thread: these 11 shifts ~70 us,
 * all 23 shifts 1..23 ~100 us (18% of a call of 300,000 samples); the build with equal cells
 * alone 140 us. */
#define GRID_SH_BELOW 4
#define GRID_SH_ABOVE 6
static float grid_float_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}
/* Where the octave grid c's cell j starts in y = key - lo (0 for the first cell; ytop for the
 * cells from the one holding the top key ytop on). */
static double grid_cell_y0(const range_grid *c, uint32_t j, float ytop)
{
    uint32_t btop;
    memcpy(&btop, &ytop, sizeof btop);
    const uint64_t bj = c->bmin_f + ((uint64_t)j << c->sh_f);
    return !j ? 0.0 : bj < btop ? (double)grid_float_of((uint32_t)bj) : (double)ytop;
}
/* Grid c's expected cost a sample (above) for the finite keys key[kf .. kl]: 1 - the share of
 * their span in its GRID_HOT_BYTES of hottest cells (the octave grid's top cells; any of equal
 * cells), + GRID_REDO_COST x the share in cells that hold several keys. */
static double grid_cost(const range_grid *c, const float *key, size_t kf, size_t kl)
{
    const float ytop = key[kl] - c->lo_f;
    double multi = 0.0;
    for (size_t k = kf; k < kl;) {
        const uint32_t j = grid_cell_of_f(c, key[k]);
        size_t e = k + 1;
        while (e <= kl && grid_cell_of_f(c, key[e]) == j) ++e;
        if (e - k > 1)
            multi += !c->log_f ? 1.0 / c->cells
                               : ((j + 1 < c->cells ? grid_cell_y0(c, j + 1, ytop) : ytop) - grid_cell_y0(c, j, ytop)) / ytop;
        k = e;
    }
    const size_t hot_cells = GRID_HOT_BYTES / (c->log_f ? sizeof(uint32_t) : sizeof(struct grid_cell_f));
    const double hot = c->cells <= hot_cells ? 1.0
                       : !c->log_f      ? (double)hot_cells / c->cells
                                        : 1.0 - grid_cell_y0(c, c->cells - (uint32_t)hot_cells, ytop) / ytop;
    return (1.0 - hot) + GRID_REDO_COST * multi;
}
/* Makes c the octave grid with shift sh over the finite keys key[kf .. kl] (lo_f and cells
 * set): the top key at the start of the last cell. False where it cannot serve: no finite
 * positive span, or base and code not fitting 32 bits for nb bins. */
static int grid_log_set(range_grid *c, const float *key, size_t kl, size_t nb, uint32_t sh)
{
    const float ytop = key[kl] - c->lo_f;
    if (!(ytop > 0.0f) || !isfinite(ytop) || sh < 1 || sh > 23 || nb + 2 >= (size_t)1 << (31 - sh)) return 0;
    uint32_t btop;
    memcpy(&btop, &ytop, sizeof btop);
    const uint64_t span = (uint64_t)(c->cells - 1) << sh, tm = ((uint64_t)c->cells << sh) - 1;
    c->log_f = 1;
    c->sh_f = sh;
    c->bmin_f = btop > span ? btop - (uint32_t)span : 0u;
    c->tmax_f = tm < INT32_MAX ? (uint32_t)tm : INT32_MAX;
    return 1;
}

/* The grid of a range histogram (see GRID_BLOCK) in one allocation (*mem, freed by the
 * caller), or none (*mem NULL) for u8 samples (counted by value), more than GRID_MAX_BINS
 * bins, or too few samples to repay it (fewer than 4 (cells + nbins)). */
static pp_status range_grid_build(pp_context *ctx, const pp_histogram_args *a, range_grid *g, void **mem)
{
    *mem = NULL;
    const size_t nb = a->nbins;
    if (a->kind != PP_HIST_RANGE || a->sample_type == PP_U8 || nb > GRID_MAX_BINS) return PP_OK;
    size_t cells = 1;
    while (cells < GRID_CELLS_PER_BIN * nb && cells < GRID_MAX_CELLS) cells *= 2;
    if (a->n / 4 < cells + nb) return PP_OK;
    const int f32 = a->sample_type == PP_F32;
    /* the keys (nbins + 3, doubles first), base, start */
    const size_t key_bytes = (nb + 3) * (f32 ? sizeof(float) : sizeof(double));
    const size_t cell_bytes = f32 ? cells * sizeof(struct grid_cell_f) : 0;
    const size_t bytes = key_bytes + cell_bytes + (2 * cells + 1) * sizeof(uint32_t);
    const int fail = pp__alloc_fails(ctx);
    unsigned char *p = fail ? NULL : (unsigned char *)malloc(bytes);
    if (!p)
        return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY, "pp_histogram_range: cannot allocate %zu bytes of host memory "
                        "(the search grid)%s", bytes, fail ? " (failed on purpose: PP_OPTION_FAIL_ALLOC)" : "");
    *mem = p;
    float *key_f = f32 ? (float *)p : NULL;
    double *key_d = f32 ? NULL : (double *)p;
    struct grid_cell_f *cell_f = f32 ? (struct grid_cell_f *)(p + key_bytes) : NULL;
    uint32_t *cell_w = (uint32_t *)cell_f; /* the octave grid's cells, in the same bytes */
    uint32_t *base = (uint32_t *)(p + key_bytes + cell_bytes);
    uint32_t *start = base + cells;
    const double *e = a->edges;
    for (size_t k = 0; k <= nb; ++k) {
        if (f32) key_f[k] = pp_hist_ceil_to_float(e[k]);
        else key_d[k] = e[k];
    }
    for (size_t k = nb + 1; k < nb + 3; ++k) {
        if (f32) key_f[k] = NAN;
        else key_d[k] = NAN;
    }
#define KEY(k) (f32 ? (double)key_f[k] : key_d[k])
    /* lo, inv: the finite keys spread over the cells; exactness needs only a finite lo and a
     * finite inv >= 0 (inv = 0 puts every key in cell 0) */
    size_t kf = 0, kl = nb;
    while (kf <= nb && !isfinite(KEY(kf))) ++kf;
    while (kl > kf && !isfinite(KEY(kl))) --kl;
    double lo = 0.0, inv = 0.0;
    if (kf <= nb) {
        lo = KEY(kf);
        const double width = KEY(kl) - lo;
        inv = width > 0 ? (double)cells / width : 0.0;
        if (f32 && !((float)inv <= FLT_MAX)) inv = 0.0;
        if (!(inv <= DBL_MAX)) inv = 0.0;
    }
#undef KEY
    g->cells = (uint32_t)cells;
    g->multi = (uint32_t)nb + 2;
    g->lo_f = (float)lo;
    g->inv_f = (float)inv;
    g->log_f = g->bmin_f = g->sh_f = g->tmax_f = 0;
    const int64_t want = pp__option(ctx, PP_OPTION_CPU_HIST_GRID); /* 1: equal cells, 2: octave */
    if (f32 && kf < kl && want != 1) { /* the octave grid where it costs less (grid_cost) */
        double best = want == 2 ? HUGE_VAL : grid_cost(g, key_f, kf, kl);
        range_grid c = *g, pick = *g;
        int sh0 = 23;
        for (size_t m = cells; m > 1; m >>= 1) --sh0;
        for (int sh = sh0 - GRID_SH_BELOW; sh <= sh0 + GRID_SH_ABOVE; ++sh) {
            if (sh < 1 || !grid_log_set(&c, key_f, kl, nb, (uint32_t)sh)) continue;
            const double cost = grid_cost(&c, key_f, kf, kl);
            if (cost < best) best = cost, pick = c;
        }
        *g = pick;
    }
    g->lo_d = lo;
    g->inv_d = inv;
    /* start[j]: the edges in the cells below j (an edge's cell never decreases along the
     * sorted edges, so one walk assigns them) */
    size_t k = 0;
    for (size_t j = 0; j < cells; ++j) {
        start[j] = (uint32_t)k;
        if (f32)
            while (k <= nb && grid_cell_of_f(g, key_f[k]) == j) ++k;
        else
            while (k <= nb && grid_cell_of_d(g, key_d[k]) == j) ++k;
        base[j] = k - start[j] <= 1 ? start[j] : g->multi;
        if (g->log_f) /* the octave grid's cell (grid_t_flog) */
            cell_w[j] = base[j] << (g->sh_f + 1) |
                        (k - start[j] == 1 ? grid_t_flog(key_f[start[j]], g->lo_f, g->bmin_f, g->tmax_f) & ((1u << g->sh_f) - 1u)
                                           : 1u << g->sh_f);
        else if (f32)
            cell_f[j] = (struct grid_cell_f){base[j], key_f[base[j]]};
    }
    start[cells] = (uint32_t)k; /* nb + 1 */
    g->base = base;
    g->start = start;
    g->key_f = key_f;
    g->key_d = key_d;
    g->cell_f = cell_f;
    g->cell_w = cell_w;
    g->loop_f = g->log_f ? range_f32log_loop : range_f32_loop;
#ifdef PP_GRID_V16
    const int64_t lanes = pp__option(ctx, PP_OPTION_CPU_HIST_LANES); /* 4, 8: the scalar loops (tests) */
    if (__builtin_cpu_supports("avx512f") && lanes != 4 && lanes != 8)
        g->loop_f = g->log_f ? range_f32log_loop_v16 : range_f32_loop_v16;
#endif
    return PP_OK;
}

static pp_status histogram_dispatch(pp_context *ctx, const pp_histogram_args *a, binner *bn);

pp_status pp__cpu_histogram(pp_context *ctx, const pp_histogram_args *a)
{
    if (a->kind == PP_HIST_RANGE) PP_TRY(check_edges(ctx, a->edges, a->nbins));
    int lanes;
    binner bn = {a, pp_hist_pow2_floor((uint32_t)a->nbins), 0, (uint32_t)a->nbins, NULL,
                 f32_vec_choose(ctx, a, &lanes), ROUND, lanes};
    /* samples per round: ROUND, or fewer (a multiple of CHUNK) with PP_OPTION_CPU_HIST_ROUND, so
     * that the tests run many rounds (the counts added round after round) on small inputs */
    const int64_t want_round = pp__option(ctx, PP_OPTION_CPU_HIST_ROUND);
    if (want_round >= (int64_t)CHUNK && (size_t)want_round < ROUND) bn.round = (size_t)want_round / CHUNK * CHUNK;
    range_grid grid;
    void *mem = NULL;
    PP_TRY(range_grid_build(ctx, a, &grid, &mem));
    bn.grid = mem ? &grid : NULL;
    pp_status st = histogram_dispatch(ctx, a, &bn);
    free(mem);
    return st;
}

/* The plan: strategy "u8" (counted by value), "private" (private tables, `tiles` = passes
 * over the samples, one per range of bins) or "atomic"; param[0] = the lanes of the f32
 * even-bin vectors (0: doubles or not f32 even bins), param[1] = the range search (0: even
 * bins, 1: the cell grid of equal cells, 2: lockstep binary searches, 3: the octave grid of
 * f32 samples), param[2] = samples per round of the
 * private tables, param[3] = threads. */
static void hist_plan(pp_context *ctx, const binner *bn, const char *strategy, size_t passes, size_t threads)
{
    const int64_t search = bn->a->kind == PP_HIST_EVEN ? 0 : !bn->grid ? 2 : bn->grid->log_f ? 3 : 1;
    pp__set_plan(ctx, "histogram", strategy, 0, passes, bn->lanes, search, (int64_t)bn->round, (int64_t)threads);
}

static pp_status histogram_dispatch(pp_context *ctx, const pp_histogram_args *a, binner *bn)
{
    block_fn f = block_fn_for(a);
    if (!f)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: the CPU backend has no kernel for %s samples", hist_fn(a),
                        pp_dtype_name(a->sample_type) ? pp_dtype_name(a->sample_type) : "?");
    const size_t threads = a->n >= PAR_MIN_SAMPLES ? (size_t)omp_get_max_threads() : 1;
    if (a->sample_type == PP_U8 && a->n > 0) {
        hist_plan(ctx, bn, "u8", 1, threads);
        return histogram_u8(ctx, a, bn);
    }
    /* Fewer samples than bins: zeroing and summing private tables would cost more. */
    const size_t private_bins = min_size(PRIVATE_BYTES, PRIVATE_TOTAL_BYTES / threads) / 4 - 1;
    const size_t passes = (a->nbins + private_bins - 1) / private_bins;
    if ((double)a->n < 0.25 * (double)a->nbins || passes > MAX_PASSES) {
        hist_plan(ctx, bn, "atomic", 1, threads);
        return histogram_atomic(a, bn, f);
    }
    hist_plan(ctx, bn, "private", passes, threads);
    return histogram_private(ctx, a, bn, f, (a->nbins + passes - 1) / passes);
}

/* ======================= reduce by index ======================= */

/*
 * RBI(NAME, V, A, IDENT, ENC, DEC, COMBINE): values of type V accumulated in A.
 *   sums:     A = V for floats, the unsigned type of V's width for integers (wrapping);
 *   min/max:  A = the key (histogram_bins.h), COMBINE an unsigned min / max.
 * ENC(v) maps a value (or an initial out[j]) to A, DEC(a) back.
 */
#define RBI(NAME, V, A, IDENT, ENC, DEC, COMBINE)                                                             \
    static void NAME##_private(const V *v, const uint32_t *ix, size_t lo, size_t hi, uint64_t n_out, A *acc, \
                               uint64_t *skipped)                                                             \
    {                                                                                                         \
        uint64_t sk = 0;                                                                                      \
        for (size_t i = lo; i < hi; ++i) {                                                                    \
            const uint64_t j = ix[i];                                                                         \
            if (j >= n_out) {                                                                                 \
                ++sk;                                                                                         \
                continue;                                                                                     \
            }                                                                                                 \
            const A x = ENC(v[i]);                                                                            \
            acc[j] = COMBINE(acc[j], x);                                                                      \
        }                                                                                                     \
        *skipped += sk;                                                                                       \
    }                                                                                                         \
    static pp_status NAME(pp_context *ctx, const pp_reduce_by_index_args *a)                                  \
    {                                                                                                         \
        const V *v = (const V *)a->values;                                                                    \
        const uint32_t *ix = a->indices;                                                                      \
        V *out = (V *)a->out;                                                                                 \
        const size_t n = a->n;                                                                                \
        const uint64_t lim = a->n_out; /* <= 2^32 (src/): compared as 64-bit, 2^32 keeps every index */     \
        uint64_t skipped = 0;                                                                                 \
        int threads = n >= PAR_MIN_SAMPLES ? omp_get_max_threads() : 1;                                       \
        if (threads > 1 && (size_t)lim * sizeof(A) <= RBI_PRIVATE_BYTES) {                                     \
            A *priv = NULL;                                                                                   \
            PP_TRY(cpu_scratch(ctx, "pp_reduce_by_index",                                                    \
                               (size_t)threads * lim * sizeof(A) + 64 * (size_t)threads, (void **)&priv));    \
            pp__set_plan(ctx, "reduce_by_index", "private", 0, 0, threads, 0, 0, 0);                          \
            uint64_t *sk = (uint64_t *)(priv + (size_t)threads * lim);                                        \
            _Pragma("omp parallel num_threads(threads)")                                                      \
            {                                                                                                 \
                const int t = omp_get_thread_num(), nt = omp_get_num_threads();                               \
                const size_t lo = n / (size_t)nt * (size_t)t + min_size((size_t)t, n % (size_t)nt);             \
                const size_t hi = lo + n / (size_t)nt + ((size_t)t < n % (size_t)nt);                         \
                A *mine = priv + (size_t)t * lim;                                                             \
                for (uint64_t j = 0; j < lim; ++j) mine[j] = (IDENT);                                         \
                sk[t] = 0;                                                                                    \
                NAME##_private(v, ix, lo, hi, lim, mine, &sk[t]);                                             \
                _Pragma("omp barrier")                                                                        \
                _Pragma("omp for schedule(static)")                                                           \
                for (long long j = 0; j < (long long)lim; ++j) {                                              \
                    A r = ENC(out[j]);                                                                        \
                    for (int u = 0; u < nt; ++u) r = COMBINE(r, priv[(size_t)u * lim + (size_t)j]);           \
                    out[j] = DEC(r);                                                                          \
                }                                                                                             \
                _Pragma("omp single")                                                                         \
                for (int u = 0; u < nt; ++u) skipped += sk[u];                                                \
            }                                                                                                 \
        } else if (threads > 1 && lim >= (uint64_t)threads * 64) {                                            \
            /* Many outputs: thread t owns outputs [t lim / T, (t + 1) lim / T) and scans every index. */     \
            pp__set_plan(ctx, "reduce_by_index", "owner", 0, 0, threads, 0, 0, 0);                            \
            uint64_t sk0 = 0;                                                                                 \
            _Pragma("omp parallel num_threads(threads)")                                                      \
            {                                                                                                 \
                const int t = omp_get_thread_num(), nt = omp_get_num_threads();                              \
                const uint64_t j0 = lim * (uint64_t)t / (uint64_t)nt;                                         \
                const uint64_t width = lim * (uint64_t)(t + 1) / (uint64_t)nt - j0;                           \
                uint64_t sk = 0;                                                                              \
                for (size_t i = 0; i < n; ++i) {                                                              \
                    const uint64_t k = (uint64_t)ix[i] - j0; /* wraps above width when below j0 */            \
                    if (k < width) out[ix[i]] = DEC(COMBINE(ENC(out[ix[i]]), ENC(v[i])));                     \
                    else if (t == 0 && ix[i] >= lim) ++sk;                                                    \
                }                                                                                             \
                if (t == 0) sk0 = sk;                                                                         \
            }                                                                                                 \
            skipped = sk0;                                                                                    \
        } else {                                                                                              \
            pp__set_plan(ctx, "reduce_by_index", "serial", 0, 0, 1, 0, 0, 0);                                 \
            for (size_t i = 0; i < n; ++i) {                                                                  \
                const uint64_t j = ix[i];                                                                     \
                if (j >= lim) {                                                                               \
                    ++skipped;                                                                                \
                    continue;                                                                                 \
                }                                                                                             \
                out[j] = DEC(COMBINE(ENC(out[j]), ENC(v[i])));                                                \
            }                                                                                                 \
        }                                                                                                     \
        if (a->n_skipped) *a->n_skipped = skipped;                                                            \
        return PP_OK;                                                                                         \
    }

/* Bit views of floats (memcpy compiles to a register move). */
static inline uint32_t bits32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline uint64_t bits64(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
static inline float f32_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline double f64_of(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }

#define ADD(a, b) ((a) + (b))
#define UMIN(a, b) ((b) < (a) ? (b) : (a))
#define UMAX(a, b) ((b) > (a) ? (b) : (a))
#define SAME(x) (x)
#define U32(x) ((uint32_t)(x))
#define U64(x) ((uint64_t)(x))
#define I32_OF(x) ((int32_t)(x))
#define I64_OF(x) ((int64_t)(x))

#define KEY_F32_MIN(x) pp_key_u32_of_f32(bits32(x), 0)
#define KEY_F32_MAX(x) pp_key_u32_of_f32(bits32(x), 1)
#define DEC_F32(k) f32_of(pp_f32_of_key_u32(k))
#define KEY_F64_MIN(x) pp_key_u64_of_f64(bits64(x), 0)
#define KEY_F64_MAX(x) pp_key_u64_of_f64(bits64(x), 1)
#define DEC_F64(k) f64_of(pp_f64_of_key_u64(k))
#define KEY_I32(x) pp_key_u32_of_i32((uint32_t)(x))
#define DEC_I32(k) ((int32_t)pp_key_u32_of_i32(k))
#define KEY_I64(x) pp_key_u64_of_i64((uint64_t)(x))
#define DEC_I64(k) ((int64_t)pp_key_u64_of_i64(k))

RBI(rbi_f32_sum, float, float, 0.0f, SAME, SAME, ADD)
RBI(rbi_f64_sum, double, double, 0.0, SAME, SAME, ADD)
RBI(rbi_i32_sum, int32_t, uint32_t, 0u, U32, I32_OF, ADD)
RBI(rbi_u32_sum, uint32_t, uint32_t, 0u, SAME, SAME, ADD)
RBI(rbi_i64_sum, int64_t, uint64_t, 0u, U64, I64_OF, ADD)
RBI(rbi_u64_sum, uint64_t, uint64_t, 0u, SAME, SAME, ADD)

RBI(rbi_f32_min, float, uint32_t, 0xFFFFFFFFu, KEY_F32_MIN, DEC_F32, UMIN)
RBI(rbi_f32_max, float, uint32_t, 0u, KEY_F32_MAX, DEC_F32, UMAX)
RBI(rbi_f64_min, double, uint64_t, ~0ull, KEY_F64_MIN, DEC_F64, UMIN)
RBI(rbi_f64_max, double, uint64_t, 0ull, KEY_F64_MAX, DEC_F64, UMAX)
RBI(rbi_i32_min, int32_t, uint32_t, 0xFFFFFFFFu, KEY_I32, DEC_I32, UMIN)
RBI(rbi_i32_max, int32_t, uint32_t, 0u, KEY_I32, DEC_I32, UMAX)
RBI(rbi_u32_min, uint32_t, uint32_t, 0xFFFFFFFFu, SAME, SAME, UMIN)
RBI(rbi_u32_max, uint32_t, uint32_t, 0u, SAME, SAME, UMAX)
RBI(rbi_i64_min, int64_t, uint64_t, ~0ull, KEY_I64, DEC_I64, UMIN)
RBI(rbi_i64_max, int64_t, uint64_t, 0ull, KEY_I64, DEC_I64, UMAX)
RBI(rbi_u64_min, uint64_t, uint64_t, ~0ull, SAME, SAME, UMIN)
RBI(rbi_u64_max, uint64_t, uint64_t, 0ull, SAME, SAME, UMAX)

typedef pp_status (*rbi_fn)(pp_context *, const pp_reduce_by_index_args *);

/* [value_type][0 sum, 1 min, 2 max] */
static const rbi_fn rbi_impls[PP_F64 + 1][3] = {
    [PP_I32] = {rbi_i32_sum, rbi_i32_min, rbi_i32_max}, [PP_U32] = {rbi_u32_sum, rbi_u32_min, rbi_u32_max},
    [PP_I64] = {rbi_i64_sum, rbi_i64_min, rbi_i64_max}, [PP_U64] = {rbi_u64_sum, rbi_u64_min, rbi_u64_max},
    [PP_F32] = {rbi_f32_sum, rbi_f32_min, rbi_f32_max}, [PP_F64] = {rbi_f64_sum, rbi_f64_min, rbi_f64_max},
};

pp_status pp__cpu_reduce_by_index(pp_context *ctx, const pp_reduce_by_index_args *a)
{
    const int k = a->op == PP_OP_SUM ? 0 : a->op == PP_OP_MIN ? 1 : a->op == PP_OP_MAX ? 2 : -1;
    if (!pp__dtype_valid(a->value_type) || k < 0 || !rbi_impls[a->value_type][k])
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_reduce_by_index: the CPU backend has no %s over %s",
                        pp_op_name(a->op) ? pp_op_name(a->op) : "?",
                        pp_dtype_name(a->value_type) ? pp_dtype_name(a->value_type) : "?");
    return rbi_impls[a->value_type][k](ctx, a);
}
