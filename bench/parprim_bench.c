/*
 * parprim_bench.c -- parprim-bench, the project's main job: runs the reduce and scan families
 * on the chosen backends and sizes, verifies every result, and reports time, items/s and
 * effective GB/s (the fewest bytes the primitive must move, divided by the time); on NVIDIA,
 * CUB runs the same rows in the same process on the same device buffers (cub_peer.cu).
 *
 * Timing. GPU: a warm-up call, then events on the context's stream around each repetition
 * of `batch` back-to-back calls (batch > 1 only when one call takes under 100 us); the
 * median over repetitions, divided by batch, is reported. Rows whose result goes to host
 * memory (they synchronize) are timed with the host clock instead. CPU: the host clock
 * (CLOCK_MONOTONIC) around each repetition. Repetitions go on until about 0.3 s have been
 * timed (at least 5, at most 1000), unless --reps fixes their number.
 *
 * Data. Counter-based (element i depends only on the seed, the array and i, so every
 * backend and every n sees the same prefix): floats uniform in [-1, 1) on a grid exact in
 * the type, u8 random bytes, i32 random over the whole range (u32 rows read the i32 array's
 * bits). Segmented scans use random segment lengths, counter-based from the seed as well.
 *
 * Verification. A GPU row's result is compared with the CPU backend's result on the same
 * input; a CPU row's with a serial loop written here. Integers, min/max and argmin/argmax
 * must be bitwise equal; float sums must agree within 2 g sum|x|, g from parprim.h's bound
 * (D = ceil(log2 n) + PP_SUM_DEPTH_SLACK, u = 2^-24 or 2^-53 by accumulation type). Scans
 * are compared element by element in the same way, a float out[i] within 2 g(D_scan(m))
 * times the running sum of |x| in its segment (D_scan(m) = 2 ceil(log2 m) +
 * PP_SCAN_DEPTH_SLACK, m the elements out[i] combines). A failed verification prints NO and
 * makes the exit status 1.
 *
 * Plain C11: the GPU-only helpers (event timer, CUB) live behind bench_gpu.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "parprim.h"

#if defined(PB_HAVE_GPU_TIMER) || defined(PB_HAVE_CUB)
#include "bench_gpu.h"
#endif

/* ---- options ---------------------------------------------------------------------------- */

enum { PB_BACKEND_CPU = 1, PB_BACKEND_HIP = 2 };

typedef struct options {
    int backend_mask;    /* PB_BACKEND_* bits; 0 = auto */
    int backend_all;     /* --backend all */
    size_t n;            /* 0: the backend's default */
    int reps;            /* 0: adaptive */
    const char *csv;
    const char *only;
    int quick;
    uint64_t seed;
    int device;
    int no_cub;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: parprim-bench [options]\n"
            "\n"
            "Runs parprim's reduce, scan and histogram families on the chosen backends, verifies every\n"
            "result and prints time (median of repetitions), items/s and effective GB/s (the\n"
            "fewest bytes the primitive must move / time). On NVIDIA builds CUB runs the same rows\n"
            "in the same process and the last columns compare the two.\n"
            "\n"
            "options:\n"
            "  --backend B   cpu | hip | auto | all (default auto: hip if a device is present,\n"
            "                else cpu; all: every backend available)\n"
            "  --n N         elements per row (default 2^28 on a GPU, 2^26 on the CPU; with\n"
            "                --quick 2^24 and 2^22); also 2^K, 1<<K, or a k/m/g suffix (x 2^10/20/30)\n"
            "  --reps R      timed repetitions per row (default: repeat until about 0.3 s are\n"
            "                timed, at least 5 and at most 1000 repetitions)\n"
            "  --csv FILE    also write the rows as CSV to FILE\n"
            "  --only NAME   run only rows whose \"name dtype\" contains NAME (e.g. argmax, f64,\n"
            "                scan: every scan row; hist: every histogram row)\n"
            "  --quick       smaller default n and about 0.03 s per row (smoke runs, CI)\n"
            "  --seed S      seed of the input data (default 1); printed in the header\n"
            "  --device D    GPU index for the hip backend (default 0)\n"
            "  --no-cub      skip the CUB columns on NVIDIA builds\n"
            "  --help        this text\n"
            "\n"
            "rows: copy (pp_memcpy within the context, the bandwidth ceiling), reduce_sum f32,\n"
            "  f32->f64, f64, u8->u64, i32->i64, reduce_max i32, reduce_min f32, argmax f32,\n"
            "  argmin f64, segreduce_sum_len256 f32 (n/256 segments of 256),\n"
            "  segreduce_sum_64segs f32 (64 long segments), latency_sum_ctx f32 and\n"
            "  latency_sum_host f32 (n = 1024; result in context memory timed back to back, and\n"
            "  result to host memory including the synchronizing copy; time per call);\n"
            "  scan_incl_sum f32, f64, scan_excl_sum u32, u8->u64, scan_incl_max i32 (output of n\n"
            "  elements in context memory), segscan_sum_flags f32 and segscan_sum_offsets f32\n"
            "  (inclusive, the same random segments of 1..511 elements, mean 256, given as head\n"
            "  flags or as offsets), latency_scan f32 (inclusive sum at n = 1024, calls timed\n"
            "  back to back, time per call).\n"
            "histogram rows (hist_*, u32 counts): hist_even_256/4096/65536/2^20 f32 (uniform over\n"
            "  [-1, 1)), *_skew (every sample in bin 0), hist_even_u8_256 (4n bytes, bin = value),\n"
            "  hist_range_4096 f32 (edges from nbins + 1 doubles), hist_rbi_sum_4096 f32\n"
            "  (pp_reduce_by_index, indices uniform over 4096 outputs); on the GPU CUB's\n"
            "  HistogramEven / HistogramRange (or, for hist_rbi, a plain global-atomics kernel) in\n"
            "  the CUB columns, and the rows NAME@STRATEGY with one GPU strategy forced through the\n"
            "  PP_HIP_HIST_* / PP_HIP_RBI_* variables (hip/histogram.hip), for the chooser.\n"
            "\n"
            "Verification: GPU rows against the CPU backend on the same data, CPU rows against a\n"
            "serial loop; integers, min/max, arg* bitwise, float sums within 2*g*sum|x|; scans\n"
            "element by element, a float out[i] within 2*g(m)*(running sum of |x| in its segment);\n"
            "histogram counts bitwise; reduce-by-index sums per output within 2*g(m)*sum|x|.\n"
            "Exit status: 0 all rows verified, 1 a row failed or errored, 2 usage error.\n");
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    if (!strncmp(s, "2^", 2) || !strncmp(s, "1<<", 3)) {
        unsigned long k = strtoul(s + (s[0] == '2' ? 2 : 3), &end, 10);
        if (*end || k >= 63) return -1;
        *out = (size_t)1 << k;
        return 0;
    }
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s) return -1;
    switch (tolower((unsigned char)*end)) {
    case '\0': break;
    case 'k': v <<= 10; end++; break;
    case 'm': v <<= 20; end++; break;
    case 'g': v <<= 30; end++; break;
    default: return -1;
    }
    if (*end) return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                        \
    do {                                                                    \
        if (!v) {                                                           \
            fprintf(stderr, "parprim-bench: %s needs a value\n", a);        \
            return 2;                                                       \
        }                                                                   \
        i++;                                                                \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--backend")) {
            NEED_VALUE();
            if (!strcmp(v, "cpu")) o->backend_mask = PB_BACKEND_CPU;
            else if (!strcmp(v, "hip")) o->backend_mask = PB_BACKEND_HIP;
            else if (!strcmp(v, "auto")) o->backend_mask = 0;
            else if (!strcmp(v, "all")) o->backend_all = 1;
            else {
                fprintf(stderr, "parprim-bench: --backend takes cpu, hip, auto or all, not '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--n")) {
            NEED_VALUE();
            if (parse_size(v, &o->n) || o->n == 0) {
                fprintf(stderr, "parprim-bench: --n takes a positive count, not '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--reps")) {
            NEED_VALUE();
            o->reps = atoi(v);
            if (o->reps <= 0) {
                fprintf(stderr, "parprim-bench: --reps takes a positive count, not '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--csv")) {
            NEED_VALUE();
            o->csv = v;
        } else if (!strcmp(a, "--only")) {
            NEED_VALUE();
            o->only = v;
        } else if (!strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "--seed")) {
            NEED_VALUE();
            char *end;
            o->seed = strtoull(v, &end, 0);
            if (*end || end == v) {
                fprintf(stderr, "parprim-bench: --seed takes an integer, not '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--device")) {
            NEED_VALUE();
            o->device = atoi(v);
        } else if (!strcmp(a, "--no-cub")) {
            o->no_cub = 1;
        } else {
            fprintf(stderr, "parprim-bench: unknown option '%s' (--help lists them)\n", a);
            return 2;
        }
#undef NEED_VALUE
    }
    return 0;
}

/* ---- rows ------------------------------------------------------------------------------- */

typedef enum row_kind {
    ROW_COPY,      /* pp_memcpy CONTEXT_TO_CONTEXT */
    ROW_REDUCE,    /* pp_reduce, result in context memory */
    ROW_ARG,       /* pp_argmin / pp_argmax (op MIN / MAX), results in context memory */
    ROW_SEG,       /* pp_segmented_reduce */
    ROW_LAT_CTX,   /* pp_reduce at fixed small n, result in context memory */
    ROW_LAT_HOST,  /* pp_reduce at fixed small n, result in host memory (synchronizes) */
    ROW_SCAN_INCL, /* pp_inclusive_scan, n outputs in context memory */
    ROW_SCAN_EXCL, /* pp_exclusive_scan, init NULL (the op's identity) */
    ROW_SEGSCAN_FLAGS,  /* pp_segmented_scan_flags, inclusive */
    ROW_SEGSCAN_OFFSETS, /* pp_segmented_scan_offsets, inclusive, the same segments */
    /* histogram family (issue 4) */
    ROW_HIST_EVEN, /* pp_histogram_even, u32 counts */
    ROW_HIST_RANGE,/* pp_histogram_range, u32 counts */
    ROW_RBI        /* pp_reduce_by_index, sum into RBI_OUTPUTS outputs */
} row_kind;

typedef struct row_spec {
    const char *name;
    row_kind kind;
    pp_dtype in, out;
    pp_op op;
    size_t seg_len;    /* ROW_SEG: segments of this length, or; ROW_SEGSCAN_*: random
                        * lengths in [1, 2 seg_len - 1] (mean seg_len) */
    size_t seg_count;  /* ROW_SEG: this many segments of n / seg_count */
    size_t fixed_n;    /* ROW_LAT_*, latency_scan: n regardless of --n */
} row_spec;

static const row_spec rows[] = {
    {"copy", ROW_COPY, PP_F32, PP_F32, PP_OP_SUM, 0, 0, 0},
    {"reduce_sum", ROW_REDUCE, PP_F32, PP_F32, PP_OP_SUM, 0, 0, 0},
    {"reduce_sum", ROW_REDUCE, PP_F32, PP_F64, PP_OP_SUM, 0, 0, 0},
    {"reduce_sum", ROW_REDUCE, PP_F64, PP_F64, PP_OP_SUM, 0, 0, 0},
    {"reduce_sum", ROW_REDUCE, PP_U8, PP_U64, PP_OP_SUM, 0, 0, 0},
    {"reduce_sum", ROW_REDUCE, PP_I32, PP_I64, PP_OP_SUM, 0, 0, 0},
    {"reduce_max", ROW_REDUCE, PP_I32, PP_I32, PP_OP_MAX, 0, 0, 0},
    {"reduce_min", ROW_REDUCE, PP_F32, PP_F32, PP_OP_MIN, 0, 0, 0},
    {"argmax", ROW_ARG, PP_F32, PP_F32, PP_OP_MAX, 0, 0, 0},
    {"argmin", ROW_ARG, PP_F64, PP_F64, PP_OP_MIN, 0, 0, 0},
    {"segreduce_sum_len256", ROW_SEG, PP_F32, PP_F32, PP_OP_SUM, 256, 0, 0},
    {"segreduce_sum_64segs", ROW_SEG, PP_F32, PP_F32, PP_OP_SUM, 0, 64, 0},
    {"latency_sum_ctx", ROW_LAT_CTX, PP_F32, PP_F32, PP_OP_SUM, 0, 0, 1024},
    {"latency_sum_host", ROW_LAT_HOST, PP_F32, PP_F32, PP_OP_SUM, 0, 0, 1024},
    {"scan_incl_sum", ROW_SCAN_INCL, PP_F32, PP_F32, PP_OP_SUM, 0, 0, 0},
    {"scan_incl_sum", ROW_SCAN_INCL, PP_F64, PP_F64, PP_OP_SUM, 0, 0, 0},
    {"scan_excl_sum", ROW_SCAN_EXCL, PP_U32, PP_U32, PP_OP_SUM, 0, 0, 0},
    {"scan_excl_sum", ROW_SCAN_EXCL, PP_U8, PP_U64, PP_OP_SUM, 0, 0, 0},
    {"scan_incl_max", ROW_SCAN_INCL, PP_I32, PP_I32, PP_OP_MAX, 0, 0, 0},
    {"segscan_sum_flags", ROW_SEGSCAN_FLAGS, PP_F32, PP_F32, PP_OP_SUM, 256, 0, 0},
    {"segscan_sum_offsets", ROW_SEGSCAN_OFFSETS, PP_F32, PP_F32, PP_OP_SUM, 256, 0, 0},
    {"latency_scan", ROW_SCAN_INCL, PP_F32, PP_F32, PP_OP_SUM, 0, 0, 1024},
};
#define N_ROWS (sizeof rows / sizeof rows[0])

static int row_is_scan(const row_spec *r)
{
    return r->kind == ROW_SCAN_INCL || r->kind == ROW_SCAN_EXCL || r->kind == ROW_SEGSCAN_FLAGS ||
           r->kind == ROW_SEGSCAN_OFFSETS;
}

static int row_is_segscan(const row_spec *r)
{
    return r->kind == ROW_SEGSCAN_FLAGS || r->kind == ROW_SEGSCAN_OFFSETS;
}
/* ---- histogram family rows (issue 4): a table of their own, run after `rows` ---- */

typedef struct hist_spec {
    row_spec base;     /* base.name, kind (ROW_HIST_EVEN / ROW_HIST_RANGE / ROW_RBI), in */
    size_t nbins;      /* ROW_HIST_*: bins; ROW_RBI: outputs */
    int skew;          /* ROW_HIST_EVEN f32: bins of width 2 over [-1, 2 nbins - 1): every sample in bin 0 */
    unsigned n_mul;    /* n x this (u8 rows: the same bytes as f32 rows) */
    const char *tuning;/* HIP only: "VAR=value ..." set around the row (a forced strategy) */
} hist_spec;

#define RBI_OUTPUTS 4096 /* outputs of the reduce-by-index rows (their indices' range) */

/* Histogram rows: the issue's, then on HIP each strategy forced (hip/histogram.hip). */
#define HIST_ROW(name, in, nbins, skew, n_mul, tuning) \
    {{name, ROW_HIST_EVEN, in, PP_U32, PP_OP_SUM, 0, 0, 0}, nbins, skew, n_mul, tuning}
#define RANGE_ROW(name, nbins, tuning) {{name, ROW_HIST_RANGE, PP_F32, PP_U32, PP_OP_SUM, 0, 0, 0}, nbins, 0, 1, tuning}
#define RBI_ROW(name, tuning) {{name, ROW_RBI, PP_F32, PP_F32, PP_OP_SUM, 0, 0, 0}, RBI_OUTPUTS, 0, 1, tuning}
#define HS "PP_HIP_HIST_STRATEGY="
#define B20 ((size_t)1 << 20)

/* The rows, then on HIP each strategy forced (hip/histogram.hip). */
static const hist_spec hist_rows[] = {
    HIST_ROW("hist_even_256", PP_F32, 256, 0, 1, NULL),
    HIST_ROW("hist_even_4096", PP_F32, 4096, 0, 1, NULL),
    HIST_ROW("hist_even_65536", PP_F32, 65536, 0, 1, NULL),
    HIST_ROW("hist_even_2^20", PP_F32, B20, 0, 1, NULL),
    HIST_ROW("hist_even_256_skew", PP_F32, 256, 1, 1, NULL),
    HIST_ROW("hist_even_65536_skew", PP_F32, 65536, 1, 1, NULL),
    HIST_ROW("hist_even_2^20_skew", PP_F32, B20, 1, 1, NULL),
    HIST_ROW("hist_even_u8_256", PP_U8, 256, 0, 4, NULL),
    RANGE_ROW("hist_range_4096", 4096, NULL),
    RBI_ROW("hist_rbi_sum_4096", NULL),
    /* HIP: every strategy forced, per bin count (the chooser's thresholds come from these) */
    HIST_ROW("hist_even_256@shared_c32", PP_F32, 256, 0, 1, HS "shared PP_HIP_HIST_COPIES=32"),
    HIST_ROW("hist_even_256@shared_c32_agg", PP_F32, 256, 0, 1, HS "shared PP_HIP_HIST_COPIES=32 PP_HIP_HIST_AGG=1"),
    HIST_ROW("hist_even_256@shared_c32_w2", PP_F32, 256, 0, 1, HS "shared PP_HIP_HIST_COPIES=32 PP_HIP_HIST_GRID_WAVES=2"),
    HIST_ROW("hist_even_256@shared_c8", PP_F32, 256, 0, 1, HS "shared PP_HIP_HIST_COPIES=8"),
    HIST_ROW("hist_even_256@shared_c1", PP_F32, 256, 0, 1, HS "shared PP_HIP_HIST_COPIES=1"),
    HIST_ROW("hist_even_256@global", PP_F32, 256, 0, 1, HS "global"),
    HIST_ROW("hist_even_256@cluster_k2", PP_F32, 256, 0, 1, HS "cluster PP_HIP_HIST_CLUSTER=2"),
    HIST_ROW("hist_even_256_skew@shared_c32", PP_F32, 256, 1, 1, HS "shared PP_HIP_HIST_COPIES=32"),
    HIST_ROW("hist_even_256_skew@shared_c1", PP_F32, 256, 1, 1, HS "shared PP_HIP_HIST_COPIES=1"),
    HIST_ROW("hist_even_256_skew@global", PP_F32, 256, 1, 1, HS "global"),
    HIST_ROW("hist_even_4096@shared_c1", PP_F32, 4096, 0, 1, HS "shared PP_HIP_HIST_COPIES=1"),
    HIST_ROW("hist_even_4096@shared_c2", PP_F32, 4096, 0, 1, HS "shared PP_HIP_HIST_COPIES=2"),
    HIST_ROW("hist_even_4096@shared_c4", PP_F32, 4096, 0, 1, HS "shared PP_HIP_HIST_COPIES=4"),
    HIST_ROW("hist_even_4096@shared_c8", PP_F32, 4096, 0, 1, HS "shared PP_HIP_HIST_COPIES=8"),
    HIST_ROW("hist_even_4096@shared_r2048", PP_F32, 4096, 0, 1, HS "shared PP_HIP_HIST_RANGE_BINS=2048"),
    HIST_ROW("hist_even_4096@global", PP_F32, 4096, 0, 1, HS "global"),
    HIST_ROW("hist_even_4096@cluster_k2", PP_F32, 4096, 0, 1, HS "cluster PP_HIP_HIST_CLUSTER=2"),
    HIST_ROW("hist_even_4096@cluster_k4", PP_F32, 4096, 0, 1, HS "cluster PP_HIP_HIST_CLUSTER=4"),
    HIST_ROW("hist_even_65536@shared_r8192", PP_F32, 65536, 0, 1, HS "shared PP_HIP_HIST_RANGE_BINS=8192"),
    HIST_ROW("hist_even_65536@shared_r16384", PP_F32, 65536, 0, 1, HS "shared PP_HIP_HIST_RANGE_BINS=16384"),
    HIST_ROW("hist_even_65536@shared_r32768", PP_F32, 65536, 0, 1, HS "shared PP_HIP_HIST_RANGE_BINS=32768"),
    HIST_ROW("hist_even_65536@global", PP_F32, 65536, 0, 1, HS "global"),
    HIST_ROW("hist_even_65536@cluster_k2", PP_F32, 65536, 0, 1, HS "cluster PP_HIP_HIST_CLUSTER=2"),
    HIST_ROW("hist_even_65536@cluster_k4", PP_F32, 65536, 0, 1, HS "cluster PP_HIP_HIST_CLUSTER=4"),
    HIST_ROW("hist_even_65536@cluster_k8", PP_F32, 65536, 0, 1, HS "cluster PP_HIP_HIST_CLUSTER=8"),
    HIST_ROW("hist_even_65536@cluster_k16", PP_F32, 65536, 0, 1, HS "cluster PP_HIP_HIST_CLUSTER=16"),
    HIST_ROW("hist_even_65536_skew@shared", PP_F32, 65536, 1, 1, HS "shared"),
    HIST_ROW("hist_even_65536_skew@global", PP_F32, 65536, 1, 1, HS "global"),
    HIST_ROW("hist_even_65536_skew@cluster_k4", PP_F32, 65536, 1, 1, HS "cluster PP_HIP_HIST_CLUSTER=4"),
    HIST_ROW("hist_even_2^20@shared", PP_F32, B20, 0, 1, HS "shared"),
    HIST_ROW("hist_even_2^20@shared_r32768", PP_F32, B20, 0, 1, HS "shared PP_HIP_HIST_RANGE_BINS=32768"),
    HIST_ROW("hist_even_2^20@global", PP_F32, B20, 0, 1, HS "global"),
    HIST_ROW("hist_even_2^20@cluster_k4", PP_F32, B20, 0, 1, HS "cluster PP_HIP_HIST_CLUSTER=4"),
    HIST_ROW("hist_even_2^20@cluster_k8", PP_F32, B20, 0, 1, HS "cluster PP_HIP_HIST_CLUSTER=8"),
    HIST_ROW("hist_even_2^20@cluster_k16", PP_F32, B20, 0, 1, HS "cluster PP_HIP_HIST_CLUSTER=16"),
    HIST_ROW("hist_even_2^20_skew@global", PP_F32, B20, 1, 1, HS "global"),
    HIST_ROW("hist_even_2^20_skew@cluster_k16", PP_F32, B20, 1, 1, HS "cluster PP_HIP_HIST_CLUSTER=16"),
    HIST_ROW("hist_even_u8_256@u8", PP_U8, 256, 0, 4, HS "u8"),
    HIST_ROW("hist_even_u8_256@u8_w2", PP_U8, 256, 0, 4, HS "u8 PP_HIP_HIST_GRID_WAVES=2"),
    HIST_ROW("hist_even_u8_256@shared_c32", PP_U8, 256, 0, 4, HS "shared PP_HIP_HIST_COPIES=32"),
    HIST_ROW("hist_even_u8_256@global", PP_U8, 256, 0, 4, HS "global"),
    RANGE_ROW("hist_range_4096@shared_c1", 4096, HS "shared PP_HIP_HIST_COPIES=1"),
    RANGE_ROW("hist_range_4096@shared_c2", 4096, HS "shared PP_HIP_HIST_COPIES=2"),
    RANGE_ROW("hist_range_4096@global", 4096, HS "global"),
    RBI_ROW("hist_rbi_sum_4096@shared_c1", "PP_HIP_RBI_STRATEGY=shared PP_HIP_RBI_COPIES=1"),
    RBI_ROW("hist_rbi_sum_4096@shared_c2", "PP_HIP_RBI_STRATEGY=shared PP_HIP_RBI_COPIES=2"),
    RBI_ROW("hist_rbi_sum_4096@shared_c4", "PP_HIP_RBI_STRATEGY=shared PP_HIP_RBI_COPIES=4"),
    RBI_ROW("hist_rbi_sum_4096@global", "PP_HIP_RBI_STRATEGY=global"),
};
#define N_HIST_ROWS (sizeof hist_rows / sizeof hist_rows[0])

static void row_dtype(const row_spec *r, char *buf, size_t size)
{
    if (r->in == r->out)
        snprintf(buf, size, "%s", pp_dtype_name(r->in));
    else
        snprintf(buf, size, "%s->%s", pp_dtype_name(r->in), pp_dtype_name(r->out));
}

static int row_selected(const row_spec *r, const char *only)
{
    if (!only) return 1;
    char full[96], dt[32];
    row_dtype(r, dt, sizeof dt);
    snprintf(full, sizeof full, "%s %s", r->name, dt);
    return strstr(full, only) != NULL;
}

/* ---- input data: counter-based, so element i depends only on (seed, stream, i) ------------ */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The input arrays, one per input dtype the rows use, generated on first use; DS_IDX holds
 * the reduce-by-index rows' indices, uniform in [0, RBI_OUTPUTS). */
enum { DS_F32, DS_F64, DS_U8, DS_I32, DS_IDX, DS_COUNT };

static int dataset_of(pp_dtype t)
{
    switch (t) {
    case PP_F32: return DS_F32;
    case PP_F64: return DS_F64;
    case PP_U8: return DS_U8;
    case PP_I32:
    case PP_U32: return DS_I32; /* the same random bits, read as u32 */
    default: return -1;
    }
}

static const pp_dtype dataset_type[DS_COUNT] = {PP_F32, PP_F64, PP_U8, PP_I32, PP_U32};

/* Elements of a dataset per element of n: u8 rows may run on 4 n bytes (hist_even_u8_256
 * reads as many bytes as the f32 rows). */
static size_t dataset_mul(int ds) { return ds == DS_U8 ? 4 : 1; }

typedef struct host_data {
    size_t len;   /* elements in each array (the largest n of any backend, at least 1024) */
    uint64_t seed;
    void *a[DS_COUNT];
} host_data;

static void *alloc_host(size_t bytes)
{
    size_t b = (bytes + 255) & ~(size_t)255;
    return aligned_alloc(256, b ? b : 256);
}

/* floats uniform in [-1, 1) on a grid (exact in the type), u8 random bytes, i32 random. */
static const void *host_array(host_data *h, int ds)
{
    if (h->a[ds]) return h->a[ds];
    size_t n = h->len * dataset_mul(ds);
    void *p = alloc_host(n * pp_dtype_size(dataset_type[ds]));
    if (!p) {
        fprintf(stderr, "parprim-bench: out of host memory for %zu elements of %s\n", n,
                pp_dtype_name(dataset_type[ds]));
        exit(1);
    }
    const uint64_t base = mix64(h->seed ^ (0x243f6a8885a308d3ull * (uint64_t)(ds + 1)));
    const uint64_t golden = 0x9e3779b97f4a7c15ull;
    const long long nn = (long long)n;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < nn; i++) {
        uint64_t r = mix64(base + (uint64_t)(i + 1) * golden);
        switch (ds) {
        case DS_F32: ((float *)p)[i] = (float)(r >> 40) * 0x1p-23f - 1.0f; break;
        case DS_F64: ((double *)p)[i] = (double)(r >> 11) * 0x1p-52 - 1.0; break;
        case DS_U8: ((uint8_t *)p)[i] = (uint8_t)(r >> 56); break;
        case DS_I32: ((int32_t *)p)[i] = (int32_t)(uint32_t)(r >> 32); break;
        case DS_IDX: ((uint32_t *)p)[i] = (uint32_t)((r >> 32) % RBI_OUTPUTS); break;
        }
    }
    h->a[ds] = p;
    return p;
}

/* ---- numeric helpers ------------------------------------------------------------------------ */

static inline double load_as_double(const void *p, pp_dtype t, size_t i)
{
    switch (t) {
    case PP_U8: return ((const uint8_t *)p)[i];
    case PP_I32: return ((const int32_t *)p)[i];
    case PP_U32: return ((const uint32_t *)p)[i];
    case PP_I64: return (double)((const int64_t *)p)[i];
    case PP_U64: return (double)((const uint64_t *)p)[i];
    case PP_F32: return ((const float *)p)[i];
    case PP_F64: return ((const double *)p)[i];
    }
    return 0;
}

static int pp_dtype_is_floating(pp_dtype t) { return t == PP_F32 || t == PP_F64; }

/* Pairwise sum in long double of float data: error <= ceil(log2 n) * 2^-64 * sum|x|, far
 * below the bound being checked. */
static long double pairwise_ld(const void *p, pp_dtype t, size_t lo, size_t hi)
{
    if (hi - lo <= 1024) {
        long double s = 0;
        if (t == PP_F32)
            for (size_t i = lo; i < hi; i++) s += ((const float *)p)[i];
        else
            for (size_t i = lo; i < hi; i++) s += ((const double *)p)[i];
        return s;
    }
    size_t mid = lo + (hi - lo) / 2;
    return pairwise_ld(p, t, lo, mid) + pairwise_ld(p, t, mid, hi);
}

static long double abs_sum_ld(const void *p, pp_dtype t, size_t lo, size_t hi)
{
    long double s = 0;
    const long long a = (long long)lo, b = (long long)hi;
    if (hi - lo < 65536) {
        for (size_t i = lo; i < hi; i++) s += fabs(load_as_double(p, t, i));
        return s;
    }
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (long long i = a; i < b; i++) s += fabs(load_as_double(p, t, (size_t)i));
    return s;
}

static unsigned ceil_log2(size_t n)
{
    unsigned k = 0;
    while (k < 64 && ((size_t)1 << k) < n) k++;
    return k;
}

/* g = D u / (1 - D u) of parprim.h's bounds for `depth` roundings in acc_type. */
static double depth_g(unsigned depth, pp_dtype acc_type)
{
    double u = acc_type == PP_F64 ? 0x1p-53 : 0x1p-24;
    double d = (double)depth;
    return d * u / (1.0 - d * u);
}

/* g of parprim.h's bound for a float sum of n elements accumulated in acc_type. */
static double sum_bound_g(size_t n, pp_dtype acc_type)
{
    return depth_g(ceil_log2(n) + PP_SUM_DEPTH_SLACK, acc_type);
}

/* An integer element, converted as the widening sums do (sign-extended, then modulo 2^64). */
static uint64_t load_as_u64(const void *p, pp_dtype t, size_t i)
{
    switch (t) {
    case PP_U8: return ((const uint8_t *)p)[i];
    case PP_I32: return (uint64_t)(int64_t)((const int32_t *)p)[i];
    case PP_U32: return ((const uint32_t *)p)[i];
    case PP_I64: return (uint64_t)((const int64_t *)p)[i];
    case PP_U64: return ((const uint64_t *)p)[i];
    default: return 0;
    }
}

/* Element i of an integer array of type t = the low bits of v (integer sums wrap). */
static void store_low_bits(void *p, pp_dtype t, size_t i, uint64_t v)
{
    size_t sz = pp_dtype_size(t);
    uint8_t u8 = (uint8_t)v;
    uint32_t u32 = (uint32_t)v;
    memcpy((char *)p + i * sz, sz == 1 ? (void *)&u8 : sz == 4 ? (void *)&u32 : (void *)&v, sz);
}

/* Serial reference of one reduction of in[lo, hi) (the CPU-only oracle). Writes one
 * element of out_type to out. */
static void serial_reduce(const void *in, pp_dtype in_type, size_t lo, size_t hi, pp_op op,
                          pp_dtype out_type, void *out)
{
    if (op == PP_OP_SUM && (out_type == PP_F32 || out_type == PP_F64)) {
        long double s = pairwise_ld(in, in_type, lo, hi);
        if (out_type == PP_F32) *(float *)out = (float)s;
        else *(double *)out = (double)s;
        return;
    }
    if (op == PP_OP_SUM) { /* integers wrap: sum in 64-bit unsigned, keep the low bits */
        uint64_t s = 0;
        for (size_t i = lo; i < hi; i++) s += load_as_u64(in, in_type, i);
        store_low_bits(out, out_type, 0, s);
        return;
    }
    /* MIN / MAX, same type; NaN propagates */
    int is_max = op == PP_OP_MAX;
#define MINMAX_LOOP(T, IDENT)                                                    \
    do {                                                                          \
        const T *x = (const T *)in;                                               \
        T m = IDENT;                                                              \
        for (size_t i = lo; i < hi; i++) {                                        \
            T v = x[i];                                                           \
            if (v != v) { m = v; break; }                                         \
            if (is_max ? v > m : v < m) m = v;                                    \
        }                                                                         \
        *(T *)out = m;                                                            \
    } while (0)
    switch (in_type) {
    case PP_U8: MINMAX_LOOP(uint8_t, is_max ? 0 : UINT8_MAX); break;
    case PP_I32: MINMAX_LOOP(int32_t, is_max ? INT32_MIN : INT32_MAX); break;
    case PP_U32: MINMAX_LOOP(uint32_t, is_max ? 0 : UINT32_MAX); break;
    case PP_I64: MINMAX_LOOP(int64_t, is_max ? INT64_MIN : INT64_MAX); break;
    case PP_U64: MINMAX_LOOP(uint64_t, is_max ? 0 : UINT64_MAX); break;
    case PP_F32: MINMAX_LOOP(float, is_max ? -INFINITY : INFINITY); break;
    case PP_F64: MINMAX_LOOP(double, is_max ? -INFINITY : INFINITY); break;
    }
#undef MINMAX_LOOP
}

/* Serial argmin/argmax: first index of the extreme; the first NaN wins. */
static void serial_arg(const void *in, pp_dtype t, size_t n, int is_max, void *value, uint64_t *index)
{
    size_t best = 0;
    double bv = n ? load_as_double(in, t, 0) : 0;
    if (n && bv != bv) goto done;
    for (size_t i = 1; i < n; i++) {
        double v = load_as_double(in, t, i); /* exact for every type the rows use */
        if (v != v) { best = i; goto done; }
        if (is_max ? v > bv : v < bv) { bv = v; best = i; }
    }
done:
    if (n == 0) {
        *index = UINT64_MAX;
        return;
    }
    *index = best;
    memcpy(value, (const char *)in + best * pp_dtype_size(t), pp_dtype_size(t));
}

/* Compare one scalar result. Float sums: within 2 g(n) sum|x|; everything else bitwise.
 * On a mismatch, describes it in `why`. */
static int check_scalar(const row_spec *r, const void *got, const void *ref, size_t n, long double abs_sum,
                        char *why, size_t why_size)
{
    size_t sz = pp_dtype_size(r->out);
    if (r->op == PP_OP_SUM && (r->out == PP_F32 || r->out == PP_F64)) {
        double g = load_as_double(got, r->out, 0), e = load_as_double(ref, r->out, 0);
        double bound = 2.0 * sum_bound_g(n, r->out) * (double)abs_sum;
        double err = fabs(g - e);
        if (err <= bound) return 1;
        snprintf(why, why_size, "got %.17g, reference %.17g, |diff| %.3g > bound %.3g", g, e, err, bound);
        return 0;
    }
    if (!memcmp(got, ref, sz)) return 1;
    snprintf(why, why_size, "got %.17g, reference %.17g (bitwise comparison)", load_as_double(got, r->out, 0),
             load_as_double(ref, r->out, 0));
    return 0;
}

/* out[i] of the serial scan oracle: the float sum `fs`, the integer sum `is` (low bits), or
 * for min/max the element `elem` (out_type == in_type). */
static inline void scan_store(void *out, pp_dtype out_type, pp_op op, size_t i, long double fs, uint64_t is,
                              const void *elem)
{
    if (op != PP_OP_SUM) {
        size_t sz = pp_dtype_size(out_type);
        memcpy((char *)out + i * sz, elem, sz);
    } else if (out_type == PP_F32) {
        ((float *)out)[i] = (float)fs;
    } else if (out_type == PP_F64) {
        ((double *)out)[i] = (double)fs;
    } else {
        store_low_bits(out, out_type, i, is);
    }
}

/* Serial oracle of a scan of n elements (the reference of CPU rows): a nonzero flags[i]
 * (flags may be NULL) starts a new segment, as element 0 does; every segment starts at the
 * op's identity. Sums, max and min only (the ops the rows use). Float sums: compensated in
 * long double (error far below the bound being checked); integer sums: 64-bit, wrapping, the
 * low bits kept; min/max: the first extreme element so far, the first NaN sticks (compared
 * through load_as_double: exact for every type the rows use). */
static void serial_scan(const void *in, pp_dtype in_type, size_t n, const uint8_t *flags, pp_op op, int exclusive,
                        void *out, pp_dtype out_type)
{
    const int fsum = op == PP_OP_SUM && pp_dtype_is_floating(out_type);
    const size_t isz = pp_dtype_size(in_type);
    char ident[8];
    serial_reduce(in, in_type, 0, 0, op, out_type, ident); /* empty range: the identity */
    long double s = 0, c = 0; /* float sum and its compensation */
    uint64_t u = 0;           /* integer sum */
    size_t best = SIZE_MAX;   /* min/max: index of the extreme so far; SIZE_MAX: none yet */
#define ELEM_BEST (best == SIZE_MAX ? (const void *)ident : (const char *)in + best * isz)
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || (flags && flags[i])) {
            s = c = 0;
            u = 0;
            best = SIZE_MAX;
        }
        if (exclusive) scan_store(out, out_type, op, i, s + c, u, ELEM_BEST);
        if (fsum) {
            long double x = load_as_double(in, in_type, i), t = s + x;
            c += fabsl(s) >= fabsl(x) ? (s - t) + x : (x - t) + s;
            s = t;
        } else if (op == PP_OP_SUM) {
            u += load_as_u64(in, in_type, i);
        } else {
            double v = load_as_double(in, in_type, i), b = best == SIZE_MAX ? 0 : load_as_double(in, in_type, best);
            if (best == SIZE_MAX || (b == b && (v != v || (op == PP_OP_MAX ? v > b : v < b)))) best = i;
        }
        if (!exclusive) scan_store(out, out_type, op, i, s + c, u, ELEM_BEST);
    }
#undef ELEM_BEST
}

/* Compare a scan's n outputs with its reference, element by element. Float sums: within
 * 2 g(D_scan(m)) times the sum of |x| that out[i] combines, counted from its segment's start
 * (up to and including x[i] for an inclusive scan, before it for an exclusive one, whose init
 * is the identity 0), with m = its position in the segment + 1 (an inclusive out[i] combines
 * that many elements, an exclusive one that many minus one, plus init). Everything else
 * bitwise. `flags` (host; NULL: one segment) marks segment heads. The work is split into
 * chunks; for float sums a first pass finds, per chunk, where the segment of its first
 * element starts and the sum of |x| from there (a segmented scan over the chunks). On a
 * mismatch, describes the first one in `why`. */
static int check_scan(const row_spec *r, const void *in, size_t n, const uint8_t *flags, const void *got,
                      const void *ref, char *why, size_t why_size)
{
    const size_t chunk = (size_t)1 << 16, osz = pp_dtype_size(r->out);
    const int fsum = r->op == PP_OP_SUM && pp_dtype_is_floating(r->out), excl = r->kind == ROW_SCAN_EXCL;
    const long long nc = (long long)((n + chunk - 1) / chunk);
    double g[65]; /* g[k]: the bound's g for m with ceil(log2 m) = k */
    for (unsigned k = 0; k <= 64; k++) g[k] = depth_g(2 * k + PP_SCAN_DEPTH_SLACK, r->out);
    size_t *start = NULL; /* chunk c: its first element's segment starts at start[c] */
    double *carry = NULL; /* ... and sum |x| over [start[c], c * chunk) is carry[c] */
    if (fsum) {
        start = malloc((size_t)(nc + 1) * sizeof *start);
        carry = malloc((size_t)(nc + 1) * sizeof *carry);
        if (!start || !carry) {
            free(start);
            free(carry);
            snprintf(why, why_size, "out of host memory for the check");
            return 0;
        }
        /* pass 1, chunk c -> entry c + 1: its last head (SIZE_MAX: none) and sum |x| from it */
#pragma omp parallel for schedule(static)
        for (long long c = 0; c < nc; c++) {
            size_t lo = (size_t)c * chunk, hi = n - lo < chunk ? n : lo + chunk, h = SIZE_MAX;
            double t = 0;
            for (size_t i = lo; i < hi; i++) {
                if (i == 0 || (flags && flags[i])) {
                    h = i;
                    t = 0;
                }
                t += fabs(load_as_double(in, r->in, i));
            }
            start[c + 1] = h;
            carry[c + 1] = t;
        }
        start[0] = 0;
        carry[0] = 0;
        for (long long c = 0; c < nc; c++) {
            if (start[c + 1] != SIZE_MAX) continue;
            start[c + 1] = start[c];
            carry[c + 1] += carry[c];
        }
    }
    long long bad = -1;
#pragma omp parallel for schedule(dynamic, 1)
    for (long long c = 0; c < nc; c++) {
        size_t lo = (size_t)c * chunk, hi = n - lo < chunk ? n : lo + chunk;
        size_t s0 = fsum ? start[c] : 0;
        double as = fsum ? carry[c] : 0;
        unsigned k = ceil_log2(lo - s0 + 1);
        for (size_t i = lo; i < hi; i++) {
            int ok;
            if (fsum) {
                if (i == 0 || (flags && flags[i])) {
                    s0 = i;
                    as = 0;
                    k = 0;
                }
                double ax = fabs(load_as_double(in, r->in, i));
                if (!excl) as += ax;
                while (((size_t)1 << k) < i - s0 + 1) k++; /* m grows by one per element */
                double err = fabs(load_as_double(got, r->out, i) - load_as_double(ref, r->out, i));
                ok = err <= 2.0 * g[k] * as;
                if (excl) as += ax;
            } else {
                ok = !memcmp((const char *)got + i * osz, (const char *)ref + i * osz, osz);
            }
            if (!ok) {
#pragma omp critical
                if (bad < 0 || (long long)i < bad) bad = (long long)i;
                break;
            }
        }
    }
    free(start);
    free(carry);
    if (bad < 0) return 1;
    double gv = load_as_double(got, r->out, (size_t)bad), rv = load_as_double(ref, r->out, (size_t)bad);
    snprintf(why, why_size, "element %lld: got %.17g, reference %.17g (%s)", bad, gv, rv,
             fsum ? "beyond 2 g(m) times the running sum of |x|" : "bitwise comparison");
    return 0;
}

/* ---- timing --------------------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *v, int k)
{
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

typedef struct bench_env {
    pp_context *ctx;
    int gpu;
    const options *opt;
#ifdef PB_HAVE_GPU_TIMER
    pb_timer *timer;
#endif
} bench_env;

/* What one call of a row needs. */
typedef struct call_args {
    const row_spec *r;
    const void *in;
    size_t n;
    void *out;            /* context space, or host for ROW_LAT_HOST */
    uint64_t *index;      /* ROW_ARG, context space */
    const size_t *offsets; /* ROW_SEG, ROW_SEGSCAN_OFFSETS */
    size_t n_segments;
    const uint8_t *flags; /* ROW_SEGSCAN_FLAGS */
    void *dst;            /* ROW_COPY */
    /* histogram family (issue 4) */
    size_t nbins;         /* ROW_HIST_*: bins; ROW_RBI: outputs */
    double lower, upper;  /* ROW_HIST_EVEN */
    const double *edges;  /* ROW_HIST_RANGE, context space */
    void *counts;         /* ROW_HIST_*: u32 counts; ROW_RBI: f32 outputs (accumulate) */
    const uint32_t *indices; /* ROW_RBI, context space */
} call_args;

static pp_status do_call(pp_context *ctx, const call_args *a)
{
    const row_spec *r = a->r;
    switch (r->kind) {
    case ROW_COPY:
        return pp_memcpy(ctx, a->dst, a->in, a->n * pp_dtype_size(r->in), PP_COPY_CONTEXT_TO_CONTEXT);
    case ROW_REDUCE:
    case ROW_LAT_CTX:
        return pp_reduce(ctx, a->in, a->n, r->in, r->op, a->out, r->out, PP_RESULT_CONTEXT);
    case ROW_LAT_HOST:
        return pp_reduce(ctx, a->in, a->n, r->in, r->op, a->out, r->out, PP_RESULT_HOST);
    case ROW_ARG:
        return r->op == PP_OP_MAX ? pp_argmax(ctx, a->in, a->n, r->in, a->out, a->index, PP_RESULT_CONTEXT)
                                  : pp_argmin(ctx, a->in, a->n, r->in, a->out, a->index, PP_RESULT_CONTEXT);
    case ROW_SEG:
        return pp_segmented_reduce(ctx, a->in, a->n, r->in, a->offsets, a->n_segments, r->op, a->out, r->out);
    case ROW_SCAN_INCL:
        return pp_inclusive_scan(ctx, a->in, a->n, r->in, r->op, a->out, r->out);
    case ROW_SCAN_EXCL:
        return pp_exclusive_scan(ctx, a->in, a->n, r->in, r->op, NULL, a->out, r->out);
    case ROW_SEGSCAN_FLAGS:
        return pp_segmented_scan_flags(ctx, a->in, a->n, r->in, a->flags, r->op, PP_SCAN_INCLUSIVE, NULL, a->out,
                                       r->out);
    case ROW_SEGSCAN_OFFSETS:
        return pp_segmented_scan_offsets(ctx, a->in, a->n, r->in, a->offsets, a->n_segments, r->op,
                                         PP_SCAN_INCLUSIVE, NULL, a->out, r->out);
    case ROW_HIST_EVEN:
        return pp_histogram_even(ctx, a->in, a->n, r->in, a->nbins, a->lower, a->upper, a->counts, PP_U32);
    case ROW_HIST_RANGE:
        return pp_histogram_range(ctx, a->in, a->n, r->in, a->edges, a->nbins, a->counts, PP_U32);
    case ROW_RBI:
        return pp_reduce_by_index(ctx, a->in, a->n, r->in, a->indices, PP_OP_SUM, a->counts, a->nbins, NULL);
    }
    return PP_ERROR_INVALID_ARGUMENT;
}

/* Seconds for `batch` back-to-back calls: events on the context's stream on a GPU (host
 * clock + synchronize where no event timer is built, or where host_clock is set), the
 * host clock on the CPU. Negative on failure (message already printed). */
static double time_batch(bench_env *e, const call_args *a, int batch, int host_clock)
{
    pp_status st = PP_OK;
#ifdef PB_HAVE_GPU_TIMER
    if (e->gpu && !host_clock) {
        if (pb_timer_start(e->timer)) goto gpu_fail;
        for (int k = 0; k < batch && st == PP_OK; k++) st = do_call(e->ctx, a);
        if (st != PP_OK) goto call_fail;
        if (pb_timer_stop(e->timer)) goto gpu_fail;
        double ms = pb_timer_ms(e->timer);
        if (ms < 0) goto gpu_fail;
        return ms * 1e-3;
    gpu_fail:
        fprintf(stderr, "parprim-bench: event timer: %s\n", pb_gpu_last_error());
        return -1;
    }
#endif
    (void)host_clock;
    if (e->gpu && (st = pp_context_synchronize(e->ctx)) != PP_OK) goto call_fail;
    double t0 = now_s();
    for (int k = 0; k < batch && st == PP_OK; k++) st = do_call(e->ctx, a);
    if (st == PP_OK && e->gpu) st = pp_context_synchronize(e->ctx);
    if (st != PP_OK) goto call_fail;
    return now_s() - t0;
call_fail:
    fprintf(stderr, "parprim-bench: %s %s: %s: %s\n", a->r->name, pp_dtype_name(a->r->in), pp_status_string(st),
            pp_context_last_error(e->ctx));
    return -1;
}

typedef struct timing {
    double t;   /* seconds per call, median */
    int reps, batch;
} timing;

/* Calls per repetition: 1, or enough back-to-back calls of about t1 seconds each to fill
 * about 1 ms when one call takes under 100 us (launch-bound sizes). */
static int plan_batch(double t1)
{
    if (t1 >= 100e-6) return 1;
    double want = 1e-3 / (t1 > 1e-7 ? t1 : 1e-7);
    return want > 10000 ? 10000 : want < 1 ? 1 : (int)ceil(want);
}

/* Warm-up, then repetitions until about 0.3 s (0.03 s with --quick) have been timed and at
 * least 5 (3) repetitions were made, at most 1000; or exactly --reps. Median per call. */
static int measure(bench_env *e, const call_args *a, int host_clock, timing *out)
{
    const options *o = e->opt;
    const double target = o->quick ? 0.03 : 0.3;
    const int min_reps = o->quick ? 3 : 5, max_reps = o->reps ? o->reps : 1000;
    /* warm-up: grows the scratch arena, loads the kernels, touches the pages */
    if (time_batch(e, a, 1, host_clock) < 0) return -1;
    double t1 = time_batch(e, a, 1, host_clock);
    if (t1 < 0) return -1;
    out->batch = plan_batch(t1);
    double *v = malloc(sizeof *v * (size_t)max_reps);
    if (!v) return -1;
    double total = 0;
    int k = 0;
    while (k < max_reps && (o->reps ? 1 : (k < min_reps || total < target))) {
        double t = time_batch(e, a, out->batch, host_clock);
        if (t < 0) {
            free(v);
            return -1;
        }
        total += t;
        v[k++] = t / out->batch;
    }
    out->reps = k;
    out->t = median_of(v, k);
    free(v);
    return 0;
}

/* ---- output ----------------------------------------------------------------------------- */

static void fmt_time(char *buf, size_t size, double s)
{
    if (s < 0) snprintf(buf, size, "-");
    else if (s < 1e-3) snprintf(buf, size, "%.2f us", s * 1e6);
    else if (s < 10.0) snprintf(buf, size, "%.3f ms", s * 1e3);
    else snprintf(buf, size, "%.2f s", s);
}

static void fmt_n(char *buf, size_t size, size_t n)
{
    unsigned k = ceil_log2(n);
    if (n && ((size_t)1 << k) == n) snprintf(buf, size, "2^%u", k);
    else snprintf(buf, size, "%zu", n);
}

static void print_table_header(void)
{
    printf("%-32s %-9s %10s %9s %11s %9s %9s %-4s %11s %9s %7s\n", "row", "dtype", "n", "reps", "time",
           "Gitems/s", "GB/s", "ok", "CUB time", "CUB GB/s", "pp/CUB");
}

typedef struct row_result {
    const row_spec *r;
    size_t n;
    timing tm;
    double bytes;
    double cub_bytes; /* bytes of CUB's call for its GB/s (its scan by key also reads keys);
                       * the ratio compares times */
    int error;        /* the call failed; nothing measured */
    int verified;     /* 1 yes, 0 NO */
    double cub_t;     /* seconds, < 0 if not run */
    int cub_verified; /* 1, 0, or -1 not checked */
} row_result;

static void print_row(const row_result *x)
{
    char dt[32], n[24], reps[24], t[24], ct[24], cg[16], ratio[16];
    row_dtype(x->r, dt, sizeof dt);
    fmt_n(n, sizeof n, x->n);
    if (x->error) {
        printf("%-32s %-9s %10s %9s %11s %9s %9s %-4s\n", x->r->name, dt, n, "-", "-", "-", "-", "ERR");
        return;
    }
    snprintf(reps, sizeof reps, "%dx%d", x->tm.reps, x->tm.batch);
    fmt_time(t, sizeof t, x->tm.t);
    double items = (double)x->n / x->tm.t * 1e-9, gbs = x->bytes / x->tm.t * 1e-9;
    if (x->cub_t > 0) {
        fmt_time(ct, sizeof ct, x->cub_t);
        snprintf(cg, sizeof cg, "%.1f", x->cub_bytes / x->cub_t * 1e-9);
        snprintf(ratio, sizeof ratio, "%.3f%s", x->cub_t / x->tm.t, x->cub_verified == 0 ? "?" : "");
    } else {
        snprintf(ct, sizeof ct, "-");
        snprintf(cg, sizeof cg, "-");
        snprintf(ratio, sizeof ratio, "-");
    }
    printf("%-32s %-9s %10s %9s %11s %9.3f %9.1f %-4s %11s %9s %7s\n", x->r->name, dt, n, reps, t, items, gbs,
           x->verified ? "yes" : "NO", ct, cg, ratio);
}

static void csv_header(FILE *f)
{
    fprintf(f, "backend,device,build,date_utc,seed,row,dtype,n,reps,batch,time_ms,gitems_per_s,gb_per_s,"
               "verified,cub_time_ms,cub_gb_per_s,ratio_vs_cub\n");
}

static void csv_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_row(FILE *f, const char *backend, const char *device, const char *date, uint64_t seed,
                    const row_result *x)
{
    char dt[32];
    row_dtype(x->r, dt, sizeof dt);
    fprintf(f, "%s,", backend);
    csv_quoted(f, device);
    fputc(',', f);
    csv_quoted(f, pp_version_string());
    fprintf(f, ",%s,%" PRIu64 ",%s,%s,%zu,", date, seed, x->r->name, dt, x->n);
    if (x->error) {
        fprintf(f, ",,,,,ERR,,,\n");
        return;
    }
    fprintf(f, "%d,%d,%.6g,%.6g,%.6g,%s,", x->tm.reps, x->tm.batch, x->tm.t * 1e3, (double)x->n / x->tm.t * 1e-9,
            x->bytes / x->tm.t * 1e-9, x->verified ? "yes" : "NO");
    if (x->cub_t > 0)
        fprintf(f, "%.6g,%.6g,%.6g\n", x->cub_t * 1e3, x->cub_bytes / x->cub_t * 1e-9, x->cub_t / x->tm.t);
    else
        fprintf(f, ",,\n");
    fflush(f);
}

/* ---- one backend -------------------------------------------------------------------------- */

/* Device-side (context-space) copies of the input arrays, uploaded on first use. On the CPU
 * backend the context's space is host memory, so the host arrays are used directly. */
typedef struct ctx_data {
    bench_env *e;
    host_data *h;
    size_t len;
    void *a[DS_COUNT];
} ctx_data;

static const void *ctx_array(ctx_data *d, int ds)
{
    const void *host = host_array(d->h, ds);
    if (!d->e->gpu) return host;
    if (d->a[ds]) return d->a[ds];
    size_t bytes = d->len * dataset_mul(ds) * pp_dtype_size(dataset_type[ds]);
    void *p = NULL;
    pp_status st = pp_malloc(d->e->ctx, &p, bytes);
    if (st == PP_OK) st = pp_memcpy(d->e->ctx, p, host, bytes, PP_COPY_HOST_TO_CONTEXT);
    if (st != PP_OK) {
        fprintf(stderr, "parprim-bench: uploading %zu elements of %s: %s: %s\n", d->len,
                pp_dtype_name(dataset_type[ds]), pp_status_string(st), pp_context_last_error(d->e->ctx));
        if (p) pp_free(d->e->ctx, p);
        return NULL;
    }
    d->a[ds] = p;
    return p;
}

/* Compare a context-space copy of n elements with host memory, in chunks. */
static int compare_context_copy(pp_context *ctx, int gpu, const void *dev, const void *host, size_t bytes)
{
    if (!gpu) return memcmp(dev, host, bytes) == 0;
    size_t chunk = (size_t)64 << 20;
    void *buf = malloc(bytes < chunk ? (bytes ? bytes : 1) : chunk);
    if (!buf) return 0;
    int ok = 1;
    for (size_t off = 0; off < bytes && ok; off += chunk) {
        size_t b = bytes - off < chunk ? bytes - off : chunk;
        if (pp_memcpy(ctx, buf, (const char *)dev + off, b, PP_COPY_CONTEXT_TO_HOST) != PP_OK ||
            memcmp(buf, (const char *)host + off, b))
            ok = 0;
    }
    free(buf);
    return ok;
}

typedef struct backend_run {
    bench_env *e;
    pp_context *ref_ctx; /* CPU backend for references on GPU runs; NULL: serial oracle */
    ctx_data *d;
    size_t n;
    int use_cub;
} backend_run;

/* 0 if the reference call on the cpu backend succeeded; else says why and gives -1. */
static int reference_status(backend_run *b, pp_status st)
{
    if (st == PP_OK) return 0;
    fprintf(stderr, "parprim-bench: reference on the cpu backend failed: %s: %s\n", pp_status_string(st),
            pp_context_last_error(b->ref_ctx));
    return -1;
}

/* Reference result of a scalar row on the host copy of the input. */
static int reference_scalar(backend_run *b, const row_spec *r, const void *host, size_t n, void *value,
                            uint64_t *index)
{
    if (b->ref_ctx) {
        if (r->kind == ROW_ARG)
            return reference_status(b, r->op == PP_OP_MAX
                                           ? pp_argmax(b->ref_ctx, host, n, r->in, value, index, PP_RESULT_HOST)
                                           : pp_argmin(b->ref_ctx, host, n, r->in, value, index, PP_RESULT_HOST));
        return reference_status(b, pp_reduce(b->ref_ctx, host, n, r->in, r->op, value, r->out, PP_RESULT_HOST));
    }
    if (r->kind == ROW_ARG) serial_arg(host, r->in, n, r->op == PP_OP_MAX, value, index);
    else serial_reduce(host, r->in, 0, n, r->op, r->out, value);
    return 0;
}

/* `bytes` of host data in the context's space: on the GPU a copy, returned and also stored in
 * *owned (pp_free it); on the CPU the host pointer itself (*owned untouched). NULL on failure. */
static const void *to_context(bench_env *e, const void *host, size_t bytes, void **owned)
{
    if (!e->gpu) return host;
    void *p = NULL;
    if (pp_malloc(e->ctx, &p, bytes) != PP_OK) return NULL;
    *owned = p;
    if (pp_memcpy(e->ctx, p, host, bytes, PP_COPY_HOST_TO_CONTEXT) != PP_OK) return NULL;
    return p;
}

/* The segments of the segmented-scan rows, in host memory, as head flags (n bytes) and as
 * offsets (ns + 1 entries): lengths in [1, 2 mean - 1], counter-based (segment s's length
 * depends only on the seed and s, so every backend and every n sees the same prefix), the
 * last one cut at n. */
typedef struct seg_layout {
    size_t ns;
    size_t *offsets;
    uint8_t *flags;
} seg_layout;

static size_t segment_length(uint64_t seed, size_t s, size_t mean)
{
    uint64_t r = mix64(mix64(seed ^ 0x452821e638d01377ull) + (uint64_t)(s + 1) * 0x9e3779b97f4a7c15ull);
    return 1 + (size_t)(r % (2 * mean - 1));
}

static int build_segments(uint64_t seed, size_t n, size_t mean, seg_layout *L)
{
    size_t ns = 0;
    for (size_t o = 0; o < n; ns++) o += segment_length(seed, ns, mean);
    L->ns = ns;
    L->offsets = malloc((ns + 1) * sizeof *L->offsets);
    L->flags = alloc_host(n);
    if (!L->offsets || !L->flags) return -1;
    size_t o = 0;
    for (size_t s = 0; s < ns; s++) {
        L->offsets[s] = o;
        o += segment_length(seed, s, mean);
    }
    L->offsets[ns] = n;
    memset(L->flags, 0, n);
    for (size_t s = 0; s < ns; s++) L->flags[L->offsets[s]] = 1;
    return 0;
}

/* Reference output of a scan row (`a` as timed, in context space) on the host copy of its
 * input: the same call on the cpu backend with host arrays, or on CPU runs the serial oracle
 * (segmented by the flags: offsets rows cover [0, n) with the same segments). */
static int reference_scan(backend_run *b, const call_args *a, const void *host, const seg_layout *L, void *ref)
{
    const row_spec *r = a->r;
    if (b->ref_ctx) {
        call_args ra = *a;
        ra.in = host;
        ra.out = ref;
        ra.flags = L->flags;
        ra.offsets = L->offsets;
        return reference_status(b, do_call(b->ref_ctx, &ra));
    }
    serial_scan(host, r->in, a->n, L->flags, r->op, r->kind == ROW_SCAN_EXCL, ref, r->out);
    return 0;
}

/* Copy a scan's output (n elements in context space) to `got` (host) and check it against
 * `ref` (check_scan). */
static int readback_check_scan(pp_context *ctx, const row_spec *r, const void *out, size_t n, const void *host,
                               const uint8_t *flags, void *got, const void *ref, char *why, size_t why_size)
{
    if (pp_memcpy(ctx, got, out, n * pp_dtype_size(r->out), PP_COPY_CONTEXT_TO_HOST) != PP_OK) {
        snprintf(why, why_size, "could not read back the output: %s", pp_context_last_error(ctx));
        return 0;
    }
    return check_scan(r, host, n, flags, got, ref, why, why_size);
}

#ifdef PB_HAVE_CUB
/* CUB's keys for the segmented scan by key, in host memory: each element's segment id as a
 * uint32 (wrapping: only neighbouring segments must differ). NULL if out of memory. */
static uint32_t *segment_keys(const seg_layout *L, size_t n)
{
    uint32_t *k = alloc_host(n * sizeof *k);
    if (!k) return NULL;
    const long long ns = (long long)L->ns;
#pragma omp parallel for schedule(static)
    for (long long s = 0; s < ns; s++)
        for (size_t i = L->offsets[s]; i < L->offsets[s + 1]; i++) k[i] = (uint32_t)s;
    return k;
}
#endif

/* ---- histogram family rows (issue 4) ------------------------------------------------------- */

/* Bounds of an even row: u8 [0, 256); f32 [-1, 1), or for a skewed row bins of width 2 from
 * -1, so that every sample (all in [-1, 1)) falls into bin 0. Exact in float (CUB's levels). */
static void hist_bounds(const hist_spec *r, double *lo, double *hi)
{
    if (r->base.in == PP_U8) {
        *lo = 0;
        *hi = 256;
        return;
    }
    *lo = -1.0;
    *hi = r->skew ? -1.0 + 2.0 * (double)r->nbins : 1.0;
}

/* Edges of a range row: -1 + 2 (k / nbins)^2, rounded to float (so that CUB's float levels
 * are the same numbers): narrow bins near -1, wide near 1. */
static double *range_edges(size_t nbins)
{
    double *e = malloc((nbins + 1) * sizeof *e);
    if (!e) return NULL;
    for (size_t k = 0; k <= nbins; k++) {
        double f = (double)k / (double)nbins;
        e[k] = (float)(-1.0 + 2.0 * f * f);
    }
    e[nbins] = 1.0;
    return e;
}

/* Serial oracles of the CPU rows: parprim.h's definitions, written out. */
static void serial_hist(const row_spec *r, const void *in, size_t n, size_t nbins, double lo, double hi,
                        const double *edges, uint32_t *c)
{
    memset(c, 0, nbins * sizeof *c);
    if (r->kind == ROW_HIST_RANGE) {
        for (size_t i = 0; i < n; i++) {
            double x = load_as_double(in, r->in, i);
            if (!(x >= edges[0] && x < edges[nbins])) continue;
            size_t a = 0, z = nbins; /* edges[a] <= x < edges[z] */
            while (z - a > 1) {
                size_t m = a + (z - a) / 2;
                if (edges[m] <= x) a = m;
                else z = m;
            }
            c[a]++;
        }
        return;
    }
    if (r->in == PP_U8) { /* exact: floor((x - lo) nbins / (hi - lo)) */
        const uint8_t *x = in;
        for (size_t i = 0; i < n; i++)
            c[(uint64_t)(x[i] - (int64_t)lo) * nbins / (uint64_t)(hi - lo)]++;
        return;
    }
    volatile double scale = (double)nbins / (hi - lo);
    for (size_t i = 0; i < n; i++) {
        double x = load_as_double(in, r->in, i);
        if (!(x >= lo && x < hi)) continue;
        volatile double t = (x - lo) * scale;
        c[t < (double)nbins ? (size_t)t : nbins - 1]++;
    }
}

/* The reference of the last configuration, kept for the strategy rows that follow it. */
typedef struct hist_ref {
    int valid;
    row_kind kind;
    pp_dtype in;
    size_t n, nbins;
    int skew, gpu;
    void *data;       /* u32 counts, or f32 sums (ROW_RBI) */
    double *abs_sum;  /* ROW_RBI: sum |x| per output */
    uint64_t *count;  /* ROW_RBI: values per output */
} hist_ref;
static hist_ref g_ref;

static void hist_ref_free(void)
{
    free(g_ref.data);
    free(g_ref.abs_sum);
    free(g_ref.count);
    memset(&g_ref, 0, sizeof g_ref);
}

/* The reference for row r on the host copy of its input: the CPU backend's result on GPU
 * runs, the serial oracle on CPU runs. Returns 0 on success. */
static int hist_reference(backend_run *b, const hist_spec *h, const void *host, const uint32_t *hidx, size_t n,
                          double lo, double hi, const double *edges)
{
    const row_spec *r = &h->base;
    const int gpu = b->ref_ctx != NULL;
    if (g_ref.valid && g_ref.kind == r->kind && g_ref.in == r->in && g_ref.n == n && g_ref.nbins == h->nbins &&
        g_ref.skew == h->skew && g_ref.gpu == gpu)
        return 0;
    hist_ref_free();
    const size_t nb = h->nbins;
    if (r->kind == ROW_RBI) {
        float *sum = calloc(nb, sizeof *sum);
        double *as = calloc(nb, sizeof *as), *ds = calloc(nb, sizeof *ds);
        uint64_t *cnt = calloc(nb, sizeof *cnt);
        if (!sum || !as || !ds || !cnt) {
            free(sum), free(as), free(ds), free(cnt);
            return -1;
        }
        const float *v = host;
        for (size_t i = 0; i < n; i++)
            if (hidx[i] < nb) {
                ds[hidx[i]] += v[i];
                as[hidx[i]] += fabs(v[i]);
                cnt[hidx[i]]++;
            }
        if (gpu) {
            pp_status st = pp_reduce_by_index(b->ref_ctx, host, n, PP_F32, hidx, PP_OP_SUM, sum, nb, NULL);
            if (st != PP_OK) {
                fprintf(stderr, "parprim-bench: reference on the cpu backend failed: %s\n", pp_context_last_error(b->ref_ctx));
                free(sum), free(as), free(ds), free(cnt);
                return -1;
            }
        } else {
            for (size_t j = 0; j < nb; j++) sum[j] = (float)ds[j];
        }
        free(ds);
        g_ref.data = sum;
        g_ref.abs_sum = as;
        g_ref.count = cnt;
    } else {
        uint32_t *c = malloc(nb * sizeof *c);
        if (!c) return -1;
        pp_status st = PP_OK;
        if (gpu && r->kind == ROW_HIST_EVEN)
            st = pp_histogram_even(b->ref_ctx, host, n, r->in, nb, lo, hi, c, PP_U32);
        else if (gpu)
            st = pp_histogram_range(b->ref_ctx, host, n, r->in, edges, nb, c, PP_U32);
        else
            serial_hist(r, host, n, nb, lo, hi, edges, c);
        if (st != PP_OK) {
            fprintf(stderr, "parprim-bench: reference on the cpu backend failed: %s\n", pp_context_last_error(b->ref_ctx));
            free(c);
            return -1;
        }
        g_ref.data = c;
    }
    g_ref.valid = 1;
    g_ref.kind = r->kind;
    g_ref.in = r->in;
    g_ref.n = n;
    g_ref.nbins = nb;
    g_ref.skew = h->skew;
    g_ref.gpu = gpu;
    return 0;
}

/* Compare a result with the reference: counts bitwise; reduce-by-index sums within 2 g(m)
 * sum|x| per output (parprim.h's bound for each side). */
static int hist_check(const hist_spec *h, const void *got, char *why, size_t why_size)
{
    const size_t nb = h->nbins;
    if (h->base.kind == ROW_RBI) {
        const float *g = got, *f = g_ref.data;
        for (size_t j = 0; j < nb; j++) {
            const double m = (double)g_ref.count[j], u = 0x1p-24;
            const double bound = 2.0 * m * u / (1.0 - m * u) * g_ref.abs_sum[j];
            if (!(fabs((double)g[j] - (double)f[j]) <= bound)) {
                snprintf(why, why_size, "output %zu: got %.9g, reference %.9g, bound %.3g", j, (double)g[j], (double)f[j],
                         bound);
                return 0;
            }
        }
        return 1;
    }
    const uint32_t *g = got, *c = g_ref.data;
    for (size_t k = 0; k < nb; k++)
        if (g[k] != c[k]) {
            snprintf(why, why_size, "bin %zu: count %u, reference %u", k, g[k], c[k]);
            return 0;
        }
    return 1;
}

/* Set (or, with set == 0, unset) the variables of a row's "VAR=value VAR=value" tuning. */
static void apply_tuning(const char *tuning, int set)
{
    char buf[256];
    if (!tuning) return;
    snprintf(buf, sizeof buf, "%s", tuning);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = '\0';
        if (set) setenv(tok, eq + 1, 1);
        else unsetenv(tok);
    }
}

static row_result run_hist_row(backend_run *b, const hist_spec *h)
{
    const row_spec *r = &h->base;
    bench_env *e = b->e;
    pp_context *ctx = e->ctx;
    row_result x;
    memset(&x, 0, sizeof x);
    x.r = r;
    x.n = b->n * (h->n_mul ? h->n_mul : 1);
    x.cub_t = -1;
    x.cub_verified = -1;
    x.error = 1;
    const int ds = dataset_of(r->in);
    const void *host = host_array(b->d->h, ds);
    const void *in = ctx_array(b->d, ds);
    if (!in) return x;
    const size_t isz = pp_dtype_size(r->in), nb = h->nbins;
    const size_t osz = r->kind == ROW_RBI ? sizeof(float) : sizeof(uint32_t);
    call_args a;
    memset(&a, 0, sizeof a);
    a.r = r;
    a.in = in;
    a.n = x.n;
    a.nbins = nb;
    double *edges = NULL;
    void *dev_edges = NULL, *dev_counts = NULL, *got = NULL;
    const uint32_t *hidx = NULL;
    char why[256] = "";
    hist_bounds(h, &a.lower, &a.upper);
    switch (r->kind) {
    case ROW_HIST_EVEN: x.bytes = (double)(x.n * isz + nb * osz); break;
    case ROW_HIST_RANGE:
        edges = range_edges(nb);
        if (!edges) goto fail;
        x.bytes = (double)(x.n * isz + (nb + 1) * sizeof(double) + nb * osz);
        if (e->gpu) {
            if (pp_malloc(ctx, &dev_edges, (nb + 1) * sizeof(double)) != PP_OK ||
                pp_memcpy(ctx, dev_edges, edges, (nb + 1) * sizeof(double), PP_COPY_HOST_TO_CONTEXT) != PP_OK)
                goto fail;
            a.edges = dev_edges;
        } else {
            a.edges = edges;
        }
        break;
    default: /* ROW_RBI */
        hidx = host_array(b->d->h, DS_IDX);
        a.indices = ctx_array(b->d, DS_IDX);
        if (!a.indices) goto fail;
        x.bytes = (double)(x.n * (isz + sizeof(uint32_t)) + 2 * nb * osz);
        break;
    }
    if (pp_malloc(ctx, &dev_counts, nb * osz) != PP_OK || pp_memset(ctx, dev_counts, 0, nb * osz) != PP_OK) goto fail;
    a.counts = dev_counts;

    apply_tuning(h->tuning, 1);
    const int mst = measure(e, &a, 0, &x.tm);
    /* reduce-by-index accumulated over the timed calls: start again from 0 for the check */
    if (!mst && r->kind == ROW_RBI && (pp_memset(ctx, dev_counts, 0, nb * osz) != PP_OK || do_call(ctx, &a) != PP_OK))
        x.tm.reps = 0;
    apply_tuning(h->tuning, 0);
    if (mst || (r->kind == ROW_RBI && x.tm.reps == 0)) goto cleanup;
    x.error = 0;

    got = malloc(nb * osz);
    if (!got || pp_memcpy(ctx, got, dev_counts, nb * osz, PP_COPY_CONTEXT_TO_HOST) != PP_OK ||
        hist_reference(b, h, host, hidx, x.n, a.lower, a.upper, edges) != 0) {
        x.verified = 0;
        snprintf(why, sizeof why, "could not read back or compute the reference");
    } else {
        x.verified = hist_check(h, got, why, sizeof why);
    }
    if (!x.verified)
        fprintf(stderr, "parprim-bench: %s %s n=%zu on %s NOT VERIFIED: %s\n", r->name, pp_dtype_name(r->in), x.n,
                pp_backend_name(pp_context_backend(ctx)), why);

    /* The peers, on the rows without a forced strategy: CUB's histograms, and for
     * reduce-by-index the plain global-atomics kernel of bench/atomic_peer.hip. */
    if (e->gpu && !h->tuning && !e->opt->no_cub) {
        void *peer = calloc(nb, osz);
        double ms = -1;
        const char *err = "";
        if (r->kind == ROW_RBI) {
#ifdef PB_HAVE_GPU_TIMER
            pb_rbi_job j;
            memset(&j, 0, sizeof j);
            j.values = in;
            j.indices = a.indices;
            j.n = x.n;
            j.n_out = nb;
            j.stream = pp_context_stream(ctx);
            j.reps = x.tm.reps;
            j.batch = x.tm.batch;
            j.result = peer;
            ms = pb_rbi_atomic_run(&j);
            err = pb_rbi_last_error();
#endif
        } else {
#ifdef PB_HAVE_CUB
            pb_cub_job j;
            memset(&j, 0, sizeof j);
            j.kind = r->kind == ROW_HIST_EVEN ? PB_CUB_HIST_EVEN : PB_CUB_HIST_RANGE;
            j.in_type = (int)r->in;
            j.out_type = (int)PP_U32;
            j.in = in;
            j.n = x.n;
            j.stream = pp_context_stream(ctx);
            j.reps = x.tm.reps;
            j.batch = x.tm.batch;
            j.result = peer;
            j.nbins = nb;
            j.lower = a.lower;
            j.upper = a.upper;
            j.edges_host = edges;
            ms = pb_cub_run(&j);
            err = pb_cub_last_error();
#endif
        }
        if (ms >= 0) {
            x.cub_t = ms * 1e-3;
            char w[256];
            x.cub_verified = peer && g_ref.valid && hist_check(h, peer, w, sizeof w);
            if (!x.cub_verified)
                fprintf(stderr, "parprim-bench: warning: the peer's result for %s differs from the reference\n", r->name);
        } else if (err[0]) {
            fprintf(stderr, "parprim-bench: peer of %s: %s\n", r->name, err);
        }
        free(peer);
    }
    goto cleanup;
fail:
    fprintf(stderr, "parprim-bench: %s: setting up: %s\n", r->name, pp_context_last_error(ctx));
cleanup:
    if (dev_counts) pp_free(ctx, dev_counts);
    if (dev_edges) pp_free(ctx, dev_edges);
    free(edges);
    free(got);
    return x;
}

static row_result run_row(backend_run *b, const row_spec *r)
{
    bench_env *e = b->e;
    pp_context *ctx = e->ctx;
    row_result x;
    memset(&x, 0, sizeof x);
    x.r = r;
    x.n = r->fixed_n ? r->fixed_n : b->n;
    x.cub_t = -1;
    x.cub_verified = -1;
    x.error = 1;

    int ds = dataset_of(r->in);
    const void *host = host_array(b->d->h, ds);
    const void *in = ctx_array(b->d, ds);
    if (!in) return x;
    size_t isz = pp_dtype_size(r->in), osz = pp_dtype_size(r->out);

    call_args a;
    memset(&a, 0, sizeof a);
    a.r = r;
    a.in = in;
    a.n = x.n;

    void *dev_out = NULL, *dev_index = NULL, *dev_offsets = NULL, *dev_flags = NULL, *dev_keys = NULL, *dst = NULL;
    size_t *h_offsets = NULL;
    uint32_t *h_keys = NULL; /* CUB's scan by key */
    seg_layout seg;          /* ROW_SEGSCAN_* */
    memset(&seg, 0, sizeof seg);
    void *got = NULL, *ref = NULL;
    uint64_t got_index = 0, ref_index = 0;
    size_t n_out = 1;

    switch (r->kind) {
    case ROW_COPY:
        x.bytes = 2.0 * (double)(x.n * isz);
        if (pp_malloc(ctx, &dst, x.n * isz) != PP_OK) goto fail;
        a.dst = dst;
        break;
    case ROW_REDUCE:
    case ROW_LAT_CTX:
        x.bytes = (double)(x.n * isz + osz);
        if (pp_malloc(ctx, &dev_out, osz) != PP_OK) goto fail;
        a.out = dev_out;
        break;
    case ROW_LAT_HOST:
        x.bytes = (double)(x.n * isz + osz);
        a.out = got = calloc(1, 16);
        if (!got) goto fail;
        break;
    case ROW_ARG:
        x.bytes = (double)(x.n * isz + osz + sizeof(uint64_t));
        if (pp_malloc(ctx, &dev_out, osz) != PP_OK || pp_malloc(ctx, &dev_index, sizeof(uint64_t)) != PP_OK)
            goto fail;
        a.out = dev_out;
        a.index = dev_index;
        break;
    case ROW_SEG: {
        size_t ns = r->seg_len ? (x.n + r->seg_len - 1) / r->seg_len : r->seg_count;
        h_offsets = malloc((ns + 1) * sizeof *h_offsets);
        if (!h_offsets) goto fail;
        for (size_t s = 0; s <= ns; s++) {
            /* segments of seg_len, or ns near-equal segments (integer arithmetic, exact) */
            size_t o = r->seg_len ? s * r->seg_len : s * (x.n / ns) + s * (x.n % ns) / ns;
            h_offsets[s] = o > x.n || s == ns ? x.n : o;
        }
        n_out = ns;
        x.bytes = (double)(x.n * isz + ns * osz + (ns + 1) * sizeof(size_t));
        if (!(a.offsets = to_context(e, h_offsets, (ns + 1) * sizeof(size_t), &dev_offsets))) goto fail;
        a.n_segments = ns;
        if (pp_malloc(ctx, &dev_out, ns * osz) != PP_OK) goto fail;
        a.out = dev_out;
        break;
    }
    case ROW_SCAN_INCL:
    case ROW_SCAN_EXCL:
    case ROW_SEGSCAN_FLAGS:
    case ROW_SEGSCAN_OFFSETS:
        n_out = x.n;
        x.bytes = (double)x.n * (double)(isz + osz);
        if (row_is_segscan(r)) {
            if (build_segments(b->d->h->seed, x.n, r->seg_len, &seg)) {
                fprintf(stderr, "parprim-bench: %s: out of host memory for the segments\n", r->name);
                goto cleanup;
            }
            if (r->kind == ROW_SEGSCAN_FLAGS) {
                x.bytes += (double)x.n;
                if (!(a.flags = to_context(e, seg.flags, x.n, &dev_flags))) goto fail;
            } else {
                x.bytes += (double)((seg.ns + 1) * sizeof(size_t));
                if (!(a.offsets = to_context(e, seg.offsets, (seg.ns + 1) * sizeof(size_t), &dev_offsets)))
                    goto fail;
                a.n_segments = seg.ns;
            }
        }
        if (pp_malloc(ctx, &dev_out, x.n * osz) != PP_OK) goto fail;
        a.out = dev_out;
        break;
    default: goto fail; /* histogram rows: run_hist_row */
    }
    x.cub_bytes = x.bytes;

    if (measure(e, &a, r->kind == ROW_LAT_HOST, &x.tm)) goto cleanup;
    x.error = 0;

    /* ---- verify the last timed call's result ---- */
    char why[256] = "";
    if (r->kind == ROW_COPY) {
        x.verified = compare_context_copy(ctx, e->gpu, dst, host, x.n * isz);
        if (!x.verified) snprintf(why, sizeof why, "the copy differs from its source");
    } else if (row_is_scan(r)) {
        got = alloc_host(x.n * osz);
        ref = alloc_host(x.n * osz);
        if (!got || !ref || reference_scan(b, &a, host, &seg, ref)) {
            free(ref);
            ref = NULL; /* no reference for CUB's check either */
            goto fail_verify;
        }
        x.verified = readback_check_scan(ctx, r, dev_out, x.n, host, seg.flags, got, ref, why, sizeof why);
    } else {
        if (!got) got = calloc(n_out, osz > 8 ? osz : 8);
        ref = calloc(n_out, osz > 8 ? osz : 8);
        if (!got || !ref) goto fail_verify;
        if (r->kind != ROW_LAT_HOST) {
            if (pp_memcpy(ctx, got, dev_out, n_out * osz, PP_COPY_CONTEXT_TO_HOST) != PP_OK) goto fail_verify;
            if (dev_index &&
                pp_memcpy(ctx, &got_index, dev_index, sizeof got_index, PP_COPY_CONTEXT_TO_HOST) != PP_OK)
                goto fail_verify;
        }
        if (r->kind == ROW_SEG) {
            /* per segment: bitwise for integers/min/max, 2 g(len) sum|x| for float sums */
            if (b->ref_ctx) {
                pp_status st = pp_segmented_reduce(b->ref_ctx, host, x.n, r->in, h_offsets, n_out, r->op, ref, r->out);
                if (st != PP_OK) {
                    fprintf(stderr, "parprim-bench: reference on the cpu backend failed: %s: %s\n",
                            pp_status_string(st), pp_context_last_error(b->ref_ctx));
                    goto fail_verify;
                }
            }
            long long bad = -1;
            const long long ns = (long long)n_out;
            const int serial = b->ref_ctx == NULL;
#pragma omp parallel for schedule(dynamic, 64)
            for (long long s = 0; s < ns; s++) {
                size_t lo = h_offsets[s], hi = h_offsets[s + 1] > lo ? h_offsets[s + 1] : lo;
                char *rs = (char *)ref + (size_t)s * osz;
                if (serial) serial_reduce(host, r->in, lo, hi, r->op, r->out, rs);
                const char *gs = (const char *)got + (size_t)s * osz;
                int ok;
                if (r->op == PP_OP_SUM && pp_dtype_is_floating(r->out)) {
                    long double as = 0;
                    for (size_t i = lo; i < hi; i++) as += fabs(load_as_double(host, r->in, i));
                    double err = fabs(load_as_double(gs, r->out, 0) - load_as_double(rs, r->out, 0));
                    ok = err <= 2.0 * sum_bound_g(hi - lo, r->out) * (double)as;
                } else {
                    ok = !memcmp(gs, rs, osz);
                }
                if (!ok) {
#pragma omp critical
                    if (bad < 0 || s < bad) bad = s;
                }
            }
            x.verified = bad < 0;
            if (!x.verified)
                snprintf(why, sizeof why, "segment %lld [%zu, %zu): got %.17g, reference %.17g", bad,
                         h_offsets[bad], h_offsets[bad + 1], load_as_double(got, r->out, (size_t)bad),
                         load_as_double(ref, r->out, (size_t)bad));
        } else {
            if (reference_scalar(b, r, host, x.n, ref, &ref_index)) goto fail_verify;
            long double as = (r->op == PP_OP_SUM && pp_dtype_is_floating(r->out)) ? abs_sum_ld(host, r->in, 0, x.n) : 0;
            x.verified = check_scalar(r, got, ref, x.n, as, why, sizeof why);
            if (x.verified && r->kind == ROW_ARG && got_index != ref_index) {
                x.verified = 0;
                snprintf(why, sizeof why, "index %" PRIu64 ", reference index %" PRIu64, got_index, ref_index);
            }
        }
    }
    if (0) {
    fail_verify:
        x.verified = 0;
        if (!why[0]) snprintf(why, sizeof why, "could not read back or compute the reference");
    }
    if (!x.verified) {
        char dt[32];
        row_dtype(r, dt, sizeof dt);
        fprintf(stderr, "parprim-bench: %s %s n=%zu on %s NOT VERIFIED: %s\n", r->name, dt, x.n,
                pp_backend_name(pp_context_backend(ctx)), why);
    }

    /* ---- CUB peer: same device buffers, same reps and batch ---- */
#ifdef PB_HAVE_CUB
    if (b->use_cub) {
        pb_cub_job j;
        memset(&j, 0, sizeof j);
        j.in_type = (int)r->in;
        j.out_type = (int)r->out;
        j.in = in;
        j.n = x.n;
        j.stream = pp_context_stream(ctx);
        j.reps = x.tm.reps;
        j.batch = x.tm.batch;
        /* scans write into the row's own output buffer (n elements; parprim's result in it is
         * verified already), overwritten with 0xff bytes first so that a call that writes
         * nothing cannot pass the check */
        void *cub_res = r->kind == ROW_COPY || row_is_scan(r) ? NULL : calloc(n_out, osz > 8 ? osz : 8);
        uint64_t cub_index = 0;
        j.result = cub_res;
        switch (r->kind) {
        case ROW_COPY: j.kind = PB_CUB_COPY; break;
        case ROW_REDUCE:
        case ROW_LAT_CTX:
            j.kind = r->op == PP_OP_SUM ? PB_CUB_SUM : r->op == PP_OP_MAX ? PB_CUB_MAX : PB_CUB_MIN;
            break;
        case ROW_LAT_HOST: j.kind = PB_CUB_SUM_HOST; break;
        case ROW_ARG:
            j.kind = r->op == PP_OP_MAX ? PB_CUB_ARGMAX : PB_CUB_ARGMIN;
            j.index = &cub_index;
            break;
        case ROW_SEG:
            j.kind = PB_CUB_SEGSUM;
            j.offsets = dev_offsets;
            j.n_segments = n_out;
            break;
        case ROW_SCAN_INCL:
            j.kind = r->op == PP_OP_SUM ? PB_CUB_INCLUSIVE_SUM : r->op == PP_OP_MAX ? PB_CUB_INCLUSIVE_MAX : 0;
            break;
        case ROW_SCAN_EXCL: j.kind = r->op == PP_OP_SUM ? PB_CUB_EXCLUSIVE_SUM : 0; break;
        case ROW_SEGSCAN_FLAGS:
            j.kind = PB_CUB_SEGSCAN_SUM;
            x.cub_bytes += (double)(x.n * sizeof(uint32_t));
            if (!(h_keys = segment_keys(&seg, x.n)) ||
                !(j.keys = to_context(e, h_keys, x.n * sizeof *h_keys, &dev_keys))) {
                fprintf(stderr, "parprim-bench: CUB %s: uploading the keys failed\n", r->name);
                j.kind = 0;
            }
            break;
        case ROW_SEGSCAN_OFFSETS: break; /* no CUB peer: CUB scans by key, not by offsets */
        default: break;
        }
        if (row_is_scan(r)) {
            j.out = dev_out;
            if (j.kind && pp_memset(ctx, dev_out, 0xff, x.n * osz) != PP_OK) {
                fprintf(stderr, "parprim-bench: CUB %s: clearing the output: %s\n", r->name, pp_context_last_error(ctx));
                j.kind = 0;
            }
        }
        double ms = j.kind ? pb_cub_run(&j) : 0;
        if (!j.kind) {
            /* no CUB row */
        } else if (ms < 0) {
            fprintf(stderr, "parprim-bench: CUB %s: %s\n", r->name, pb_cub_last_error());
        } else {
            x.cub_t = ms * 1e-3;
            /* CUB's result against the same reference: a warning only (parprim is under test) */
            char w[256] = "";
            if (row_is_scan(r) && got && ref) {
                x.cub_verified = readback_check_scan(ctx, r, dev_out, x.n, host, seg.flags, got, ref, w, sizeof w);
            } else if (cub_res && ref) {
                if (r->kind == ROW_SEG) {
                    x.cub_verified = 1;
                    for (size_t s = 0; s < n_out && x.cub_verified; s++) {
                        double g = load_as_double(cub_res, r->out, s), f = load_as_double(ref, r->out, s);
                        if (fabs(g - f) > 1e-3 * (1.0 + fabs(f))) x.cub_verified = 0;
                    }
                } else {
                    long double as =
                        (r->op == PP_OP_SUM && pp_dtype_is_floating(r->out)) ? abs_sum_ld(host, r->in, 0, x.n) : 0;
                    x.cub_verified = check_scalar(r, cub_res, ref, x.n, as, w, sizeof w);
                    if (r->kind == ROW_ARG && cub_index != ref_index) x.cub_verified = 0;
                }
            }
            if (!x.cub_verified)
                fprintf(stderr, "parprim-bench: warning: CUB's result for %s %s differs from the reference%s%s\n",
                        r->name, pp_dtype_name(r->in), w[0] ? ": " : "", w);
        }
        free(cub_res);
    }
#endif
    goto cleanup;

fail:
    fprintf(stderr, "parprim-bench: %s: setting up: %s\n", r->name, pp_context_last_error(ctx));
cleanup:
    if (dst) pp_free(ctx, dst);
    if (dev_out) pp_free(ctx, dev_out);
    if (dev_index) pp_free(ctx, dev_index);
    if (dev_offsets) pp_free(ctx, dev_offsets);
    if (dev_flags) pp_free(ctx, dev_flags);
    if (dev_keys) pp_free(ctx, dev_keys);
    free(h_offsets);
    free(seg.offsets);
    free(seg.flags);
    free(h_keys);
    free(got);
    free(ref);
    return x;
}

/* Runs every selected row on one backend. Returns the number of rows that failed. */
static int run_backend(pp_backend backend, const options *o, host_data *h, size_t n, FILE *csv, const char *date)
{
    pp_context *ctx = NULL;
    pp_status st = pp_context_create(&ctx, backend, o->device);
    if (st != PP_OK) {
        fprintf(stderr, "parprim-bench: cannot create a %s context: %s: %s\n", pp_backend_name(backend),
                pp_status_string(st), pp_last_create_error());
        return 1;
    }
    bench_env e;
    memset(&e, 0, sizeof e);
    e.ctx = ctx;
    e.gpu = backend == PP_BACKEND_HIP;
    e.opt = o;
    const char *timing_how = e.gpu ? "host clock + pp_context_synchronize (no event timer built)" : "host clock";
#ifdef PB_HAVE_GPU_TIMER
    if (e.gpu) {
        e.timer = pb_timer_create(pp_context_stream(ctx));
        if (!e.timer) {
            fprintf(stderr, "parprim-bench: event timer: %s\n", pb_gpu_last_error());
            pp_context_destroy(ctx);
            return 1;
        }
        timing_how = "events on the context's stream";
    }
#endif

    backend_run b;
    memset(&b, 0, sizeof b);
    b.e = &e;
    b.n = n;
    ctx_data d;
    memset(&d, 0, sizeof d);
    d.e = &e;
    d.h = h;
    d.len = n > 1024 ? n : 1024;
    b.d = &d;
    if (e.gpu) {
        st = pp_context_create(&b.ref_ctx, PP_BACKEND_CPU, 0);
        if (st != PP_OK) {
            fprintf(stderr, "parprim-bench: cannot create the cpu reference context: %s\n", pp_last_create_error());
            pp_context_destroy(ctx);
            return 1;
        }
    }
#ifdef PB_HAVE_CUB
    b.use_cub = e.gpu && !o->no_cub;
#endif

    char nbuf[24];
    fmt_n(nbuf, sizeof nbuf, n);
    printf("\n== backend %s: %s\n", pp_backend_name(backend), pp_context_device_name(ctx));
    printf("   build %s | %s | n %zu%s%s%s | seed %" PRIu64 "\n", pp_version_string(), date, n,
           nbuf[0] == '2' && nbuf[1] == '^' ? " (" : "", nbuf[0] == '2' && nbuf[1] == '^' ? nbuf : "",
           nbuf[0] == '2' && nbuf[1] == '^' ? ")" : "", o->seed);
    printf("   timing: %s, median of reps; verify: %s%s", timing_how,
           b.ref_ctx ? "against the cpu backend" : "against serial loops",
           o->quick ? "; --quick" : "");
#ifdef PB_HAVE_CUB
    if (b.use_cub) printf("; CUB %s in the same run", pb_cub_version());
#endif
    printf("\n");
    print_table_header();
    fflush(stdout);

    int failed = 0;
    for (size_t i = 0; i < N_ROWS; i++) {
        if (!row_selected(&rows[i], o->only)) continue;
        row_result x = run_row(&b, &rows[i]);
        print_row(&x);
        fflush(stdout);
        if (csv) csv_row(csv, pp_backend_name(backend), pp_context_device_name(ctx), date, o->seed, &x);
        if (x.error || !x.verified) failed++;
    }
    /* histogram family (issue 4) */
    for (size_t i = 0; i < N_HIST_ROWS; i++) {
        const hist_spec *h = &hist_rows[i];
        if (!row_selected(&h->base, o->only)) continue;
        if (h->tuning && !e.gpu) continue; /* forced GPU strategies */
        row_result x = run_hist_row(&b, h);
        print_row(&x);
        fflush(stdout);
        if (csv) csv_row(csv, pp_backend_name(backend), pp_context_device_name(ctx), date, o->seed, &x);
        if (x.error || !x.verified) failed++;
    }

    hist_ref_free();
    for (int k = 0; k < DS_COUNT; k++)
        if (e.gpu && d.a[k]) pp_free(ctx, d.a[k]);
#ifdef PB_HAVE_GPU_TIMER
    pb_timer_destroy(e.timer);
#endif
    pp_context_destroy(b.ref_ctx);
    pp_context_destroy(ctx);
    return failed;
}

int main(int argc, char **argv)
{
    options o;
    int pr = parse_options(argc, argv, &o);
    if (pr == 1) return 0; /* --help */
    if (pr) return 2;

    int selected = 0;
    for (size_t i = 0; i < N_ROWS; i++) selected += row_selected(&rows[i], o.only);
    for (size_t i = 0; i < N_HIST_ROWS; i++) selected += row_selected(&hist_rows[i].base, o.only);
    if (!selected) {
        fprintf(stderr, "parprim-bench: --only '%s' matches no row (--help lists them)\n", o.only);
        return 2;
    }

    /* which backends */
    int hip_ok = pp_backend_available(PP_BACKEND_HIP);
    pp_backend list[2];
    int nb = 0;
    if (o.backend_all) {
        if (hip_ok) list[nb++] = PP_BACKEND_HIP;
        else printf("note: backend hip not available (%s); running cpu only\n", pp_version_string());
        list[nb++] = PP_BACKEND_CPU;
    } else if (o.backend_mask == PB_BACKEND_HIP) {
        if (!hip_ok) {
            fprintf(stderr, "parprim-bench: backend hip is not available (build: %s)\n", pp_version_string());
            return 1;
        }
        list[nb++] = PP_BACKEND_HIP;
    } else if (o.backend_mask == PB_BACKEND_CPU) {
        list[nb++] = PP_BACKEND_CPU;
    } else {
        list[nb++] = hip_ok ? PP_BACKEND_HIP : PP_BACKEND_CPU;
    }

    size_t ns[2];
    size_t maxn = 1024;
    for (int i = 0; i < nb; i++) {
        int gpu = list[i] == PP_BACKEND_HIP;
        ns[i] = o.n ? o.n : (size_t)1 << (gpu ? (o.quick ? 24 : 28) : (o.quick ? 22 : 26));
        if (ns[i] > maxn) maxn = ns[i];
    }

    char date[64];
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tmv);

    printf("parprim-bench | %s | %s | seed %" PRIu64, pp_version_string(), date, o.seed);
#ifdef _OPENMP
    printf(" | OpenMP threads %d", omp_get_max_threads());
#endif
    printf("\n");
    printf("data: counter-based from the seed; floats uniform in [-1,1), u8 random bytes, i32 random\n");
    printf("GB/s: fewest bytes the primitive must move / median time (copy: 2 x 4n; reduce: n x in + out;\n"
           "      scan: n x (in + out), + n flag bytes or the offsets if segmented; CUB's scan by key: + 4n keys;\n"
           "      histogram: n x in + counts, + the edges for hist_range; hist_rbi: n x (value + index) + 2 x outputs;\n"
           "      hist_rbi's CUB columns: the plain global-atomics kernel of bench/atomic_peer.hip).\n");
#ifdef PB_HAVE_CUB
    if (!o.no_cub && (list[0] == PP_BACKEND_HIP || (nb > 1 && list[1] == PP_BACKEND_HIP)))
        printf("pp/CUB: parprim throughput / CUB throughput (> 1: parprim faster); '?' after it: CUB's own "
               "result failed the same check.\n");
#endif

    FILE *csv = NULL;
    if (o.csv) {
        csv = fopen(o.csv, "w");
        if (!csv) {
            fprintf(stderr, "parprim-bench: cannot open '%s' for writing: %s\n", o.csv, strerror(errno));
            return 2;
        }
        csv_header(csv);
    }

    host_data h;
    memset(&h, 0, sizeof h);
    h.len = maxn;
    h.seed = o.seed;

    int failed = 0;
    for (int i = 0; i < nb; i++) failed += run_backend(list[i], &o, &h, ns[i], csv, date);

    if (csv) fclose(csv);
    for (int k = 0; k < DS_COUNT; k++) free(h.a[k]);
    if (failed) {
        printf("\n%d row(s) failed verification or errored.\n", failed);
        return 1;
    }
    printf("\nall rows verified.\n");
    return 0;
}
