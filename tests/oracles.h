/*
 * oracles.h -- the serial oracles of parprim's tests and of parprim-bench, written once: the
 * reduction (pushed element by element, mergeable), argmin / argmax, the check of a scan's
 * outputs, the histogram bins, and the float error bounds of parprim.h (the g of a sum and of a
 * scan). Nothing here calls the library's primitives: parprim.h's definitions are computed
 * directly (long double, 64- and 128-bit integers). Checks return 1 when the result passes and
 * otherwise 0 with a description in `why`; the tests turn that into a cmocka failure, the bench
 * into a NOT VERIFIED row.
 *
 * Plain C11 (gcc's __int128 for the integer histogram bins).
 */
#ifndef PP_TESTS_ORACLES_H
#define PP_TESTS_ORACLES_H

#include <stddef.h>
#include <stdint.h>

#include "parprim.h"

/* ---- elements of any dtype ----------------------------------------------------------- */

size_t po_size(pp_dtype t); /* computed here, not with pp_dtype_size */
int po_is_float(pp_dtype t);
int po_is_signed(pp_dtype t);
const char *po_dname(pp_dtype t);
const char *po_oname(pp_op op);
uint64_t po_mask(pp_dtype t);                             /* the low 8 * size bits */
uint64_t po_bits(const void *a, size_t i, pp_dtype t);    /* zero-extended raw bits */
long double po_value(const void *a, size_t i, pp_dtype t); /* exact value */
void po_store_bits(void *a, size_t i, pp_dtype t, uint64_t bits);
void po_store_value(void *a, size_t i, pp_dtype t, long double v); /* converted */
uint64_t po_widen_bits(uint64_t b, pp_dtype t);            /* i32 sign-extended to 64 bits */
uint64_t po_identity_bits(pp_op op, pp_dtype t);           /* identity of op in t, raw bits */

/* ---- bounds of parprim.h ------------------------------------------------------------- */

unsigned po_ceil_log2(size_t n);
long double po_unit_roundoff(pp_dtype out_type); /* 2^-24 (f32), 2^-53 (f64) */
/* A float sum of n elements: g = D u / (1 - D u), D = ceil(log2 n) + PP_SUM_DEPTH_SLACK. */
long double po_sum_gamma(size_t n, pp_dtype out_type);
/* A scan output combining m terms: D = 2 ceil(log2 m) + PP_SCAN_DEPTH_SLACK. */
long double po_scan_gamma(size_t m, pp_dtype out_type);

/* ---- reduction ------------------------------------------------------------------------- */

/* A reduction of a range, pushed element by element (so that a caller can grow n, or cut the
 * range into chunks and merge them in order). */
typedef struct po_red {
    pp_op op;
    pp_dtype in, out;
    size_t n;
    uint64_t acc;         /* integers: the result modulo 2^64 (sign-extended inputs) */
    long double sum, c;   /* floats: Neumaier-compensated sum, exact product, min/max */
    long double abssum;   /* sum |x| */
    int nan;              /* a NaN was seen (min/max) */
    int exact;            /* set by the caller: the data make every float order exact
                             (small-integer sums, power-of-two products): demand equality */
} po_red;

void po_red_init(po_red *o, pp_op op, pp_dtype in, pp_dtype out);
void po_red_push(po_red *o, const void *a, size_t from, size_t to);
/* o = o followed by b (b's range comes right after o's). */
void po_red_merge(po_red *o, const po_red *b);
/* The reduction as one out_type element (float sums rounded once from the exact value). */
void po_red_value(const po_red *o, void *out);
/* Check a result (out_type element at `got`): integers exact; float min / max equal (a NaN
 * where one was seen); float sums within slack x g x sum|x| of the exact value (equal with
 * o->exact); float products within slack x gamma_{n-1} |exact|. With `ref` (another backend's
 * result), integers and min / max are compared with ref bitwise (a NaN with a NaN) and float
 * sums with ref within the same bound. */
int po_red_check(const po_red *o, const void *got, const void *ref, double slack, char *why, size_t why_size);

/* Argmin / argmax: the first index of the extreme; a NaN beats every number. */
typedef struct po_arg {
    pp_op op; /* MIN or MAX */
    pp_dtype t;
    size_t n;
    uint64_t index; /* UINT64_MAX while empty */
    uint64_t bits;  /* value at index */
} po_arg;

void po_arg_init(po_arg *o, pp_op op, pp_dtype t);
void po_arg_push(po_arg *o, const void *a, size_t from, size_t to);
int po_arg_check(const po_arg *o, const void *got_value, uint64_t got_index, char *why, size_t why_size);

/* ---- scans ----------------------------------------------------------------------------- */

/* One scan call: the form (plain, head flags or offsets) and its arguments, host arrays. */
typedef struct po_scan {
    pp_dtype in, out;
    pp_op op;
    int exclusive;
    const void *init;      /* one out_type element, or NULL (the op's identity) */
    const uint8_t *flags;  /* pp_segmented_scan_flags: n head flags; else NULL */
    const size_t *offsets; /* pp_segmented_scan_offsets: n_segments + 1 offsets; else NULL */
    size_t n_segments;
    int exact;             /* float sums / products: the data make every order exact */
} po_scan;

/* The oracle's state at the start of a segment (the identity, or init as the first term of an
 * exclusive scan). */
void po_scan_seed(po_red *o, const po_scan *s);
/* Check outputs [b, e) of scan `s` (plain or flags form; element 0 and every flagged element
 * start a segment): `carry` is the oracle's state just before b when b lies inside a segment
 * that started earlier (NULL: b starts a segment). Integers exact; float min / max equal;
 * float sums within slack x po_scan_gamma(m) x the running sum |x| of the segment (equal with
 * s->exact); products within slack x gamma_{m-1} |exact|. With `ref`, the value compared
 * against is ref's (integers and min / max bitwise, except a NaN's payload and a zero's sign).
 * On a mismatch returns 0, *bad = its index, and describes it in `why`. */
int po_scan_check_span(const po_scan *s, const void *in, size_t b, size_t e, const po_red *carry,
                       const void *got, const void *ref, double slack, size_t *bad, char *why, size_t why_size);
/* Check all n outputs, every form: elements outside every segment of the offsets form must
 * equal `before` (NULL: `fill` bytes). */
int po_scan_check(const po_scan *s, const void *in, size_t n, const void *before, unsigned char fill,
                  const void *got, const void *ref, double slack, char *why, size_t why_size);

/* ---- histograms ------------------------------------------------------------------------ */

#define PO_NOBIN UINT32_MAX

/* The bin of sample x (of dtype st) among nbins even bins over [lo, hi) (parprim.h's
 * definition: floats (x - lo) * (nbins / (hi - lo)) in double, each operation rounded on its
 * own; integers exactly), or PO_NOBIN. */
uint32_t po_hist_even_bin(long double x, pp_dtype st, size_t nbins, double lo, double hi);
/* The bin b with e[b] <= x < e[b + 1], or PO_NOBIN. */
uint32_t po_hist_range_bin(long double x, const double *e, size_t nbins);
/* u32 counts of n samples: even bins (edges NULL) or bins from edges (nbins + 1). */
void po_hist_counts(const void *in, pp_dtype st, size_t n, size_t nbins, double lo, double hi, const double *edges,
                    uint32_t *counts);

/* ---- compaction (issue 19) --------------------------------------------------------------- */

/* What a compaction call computes. */
typedef enum po_compact_op {
    PO_SELECT = 1,    /* the kept elements (flags or predicate) */
    PO_PARTITION = 2, /* the kept, then the rejected, both in input order */
    PO_UNIQUE = 3,    /* the first element of every run of equal keys */
    PO_RLE = 4,       /* those, and the run lengths (aux) */
    PO_WHERE = 5      /* the indices of the kept elements (aux) */
} po_compact_op;

/* Whether pred holds for element i of `a` (dtype t), computed directly from parprim.h's text:
 * C's compares in the element's own type (floats as doubles: IEEE, NaN unordered). */
int po_pred_holds(const pp_predicate *pred, const void *a, size_t i, pp_dtype t);
/* Whether elements i and j of `a` are duplicates (bits for integers; floats equal as numbers or
 * both NaN). */
int po_same_key(const void *a, size_t i, size_t j, pp_dtype t);
/* The expected outputs of `op` over in[0 .. n) (dtype t), kept by flags (pred NULL) or by pred:
 * values into out (n elements of t; may be NULL for PO_WHERE), payload (psize bytes each; NULL:
 * none) into pout, and for PO_RLE the run lengths / for PO_WHERE the indices into aux (u64).
 * Returns the count. */
uint64_t po_compact(po_compact_op op, const void *in, size_t n, pp_dtype t, const uint8_t *flags,
                    const pp_predicate *pred, const void *payload, size_t psize, void *out, void *pout, uint64_t *aux);

/* ---- radix sort (issue 20) ------------------------------------------------------------- */

/* The stable sorted order of keys[0, n) (dtype t) by parprim.h's definition, computed with
 * comparisons (a merge sort), never with the library's key encoding: integers numerically, or
 * by the bits [begin_bit, end_bit) of their unsigned form (signed: sign bit inverted; end_bit
 * 0 is the width; begin_bit == end_bit == 0 the whole key); floats with -0.0 == +0.0 and every
 * NaN equal and above +inf; descending reverses the comparison, equal keys stay in input
 * order. perm[j] = the input position of the j-th key. 0 on success, -1 out of memory. */
int po_sort_perm(const void *keys, size_t n, pp_dtype t, int descending, int begin_bit, int end_bit,
                 uint64_t *perm);
/* The sort order of keys i and j of dtype t (whole keys, ascending): < 0, 0 (equal keys), > 0. */
int po_sort_cmp(const void *keys, size_t i, size_t j, pp_dtype t);
/* Check a sort's outputs against perm: keys_out[j] == keys_in[perm[j]] (bits), values_out[j] ==
 * values_in[perm[j]] (vsize bytes each; values_in NULL: values_out[j] == perm[j] as a vsize
 * index). Either output may be NULL (not checked). 1 passes; 0 with `why`. */
int po_sort_check(const void *keys_in, const void *keys_out, size_t n, pp_dtype t, const void *values_in,
                  const void *values_out, size_t vsize, const uint64_t *perm, char *why, size_t why_size);

#endif
