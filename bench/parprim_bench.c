/*
 * parprim_bench.c -- parprim-bench's harness: options, input data, the services of bench.h,
 * the rows' options, timing, the generic verify and peer, printing, CSV and the plot. The
 * rows are the families' (cases_X.c, listed in registry.c); what the bench measures and how
 * it verifies is usage()'s text (--help).
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

#include "bench.h"
#include "oracles.h"
#include "plot.h"

/* ---- options ---------------------------------------------------------------------------- */

typedef struct options {
    const char *backend, *csv, *plot, *only;
    size_t n;                 /* 0: the backend's default */
    int reps, quick, no_peer; /* reps 0: adaptive */
    uint64_t seed;
    char assignments[512]; /* --option, space-separated */
} options;

static FILE *g_csv;     /* --csv */
static pb_plot g_plot;  /* --plot */
static char g_date[64]; /* the run's start, UTC */

/* What the columns mean: in --help and at the head of every run. */
static const char legend[] =
    "data: counter-based from the seed; floats uniform in [-1,1), u8 random bytes, i32 random\n"
    "GB/s: fewest bytes the primitive must move / median time (copy: 2 x 4n; reduce: n x in + out;\n"
    "      scan: n x (in + out), + n flag bytes or the offsets if segmented; CUB's scan by key: + 4n keys;\n"
    "      histogram: n x in + counts, + the edges for hist_range; hist_rbi: n x (value + index) + 2 x outputs;\n"
    "      hist_rbi's CUB columns: the plain global-atomics kernel of bench/atomic_peer.hip).\n"
    "pp/CUB, pp/TBB: parprim throughput / the peer's (> 1: parprim faster); '?' after it: the peer's own result\n"
    "      failed the same check. plan: the strategy the library recorded (pp_context_last_plan).\n";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: parprim-bench [options]\n"
            "\n"
            "Runs parprim's families on the chosen backends, verifies every result and prints time, items/s\n"
            "and GB/s, the plan that ran, and a peer in the same process (CUB on NVIDIA builds, oneTBB on the\n"
            "CPU backend where built with TBB) beside it.\n%s"
            "\n"
            "options:\n"
            "  --backend B   cpu | hip | auto | all (default auto: hip if a device is present,\n"
            "                else cpu; all: every backend available)\n"
            "  --n N         elements per row (default 2^28 on a GPU, 2^26 on the CPU; with\n"
            "                --quick 2^24 and 2^22); also 2^K, 1<<K, or a k/m/g suffix (x 2^10/20/30)\n"
            "  --reps R      timed repetitions per row (default: repeat until about 0.3 s are\n"
            "                timed, at least 5 and at most 1000 repetitions)\n"
            "  --csv FILE    also write the rows as CSV to FILE\n"
            "  --plot FILE   also draw GB/s per row as an SVG bar chart (parprim and its peer side by\n"
            "                side, the copy row's GB/s as the ceiling line)\n"
            "  --only NAME   run only rows whose \"name dtype\" contains NAME (e.g. argmax, f64,\n"
            "                scan: every scan row; hist: every histogram row; NAME,NAME2: either)\n"
            "  --quick       smaller default n and about 0.03 s per row (smoke runs, CI)\n"
            "  --seed S      seed of the input data (default 1); printed in the header\n"
            "  --no-peer     skip the peer columns (also --no-cub)\n"
            "  --option A    set an experimental option of the context under test for every row,\n"
            "                A = name=value (pp_option_name's names, e.g. reduce_grid_waves=2,\n"
            "                hist_strategy=global); repeatable; rows that force options reset to these\n"
            "  --help        this text\n"
            "\n"
            "rows:\n", legend);
    for (size_t k = 0; k < pb_n_families; k++) fprintf(f, "%s", pb_families[k]->help);
    fprintf(f,
            "\n"
            "Verification: one more call into a zeroed output; GPU rows against the CPU backend on the\n"
            "same data, CPU rows against the serial oracles of tests/oracles.c; integers, min/max, arg*\n"
            "bitwise, float sums within 2*g*sum|x| (g from parprim.h's bound); scans element by\n"
            "element, a float out[i] within 2*g(m)*(running sum of |x| in its segment); histogram\n"
            "counts bitwise; reduce-by-index sums per output within 2*g(m)*sum|x|.\n"
            "Exit status: 0 all rows verified, 1 a row failed or errored, 2 usage error.\n");
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    if (!strncmp(s, "2^", 2) || !strncmp(s, "1<<", 3)) {
        unsigned long k = strtoul(s + (s[0] == '2' ? 2 : 3), &end, 10);
        *out = (size_t)1 << (k < 63 ? k : 0);
        return *end || k >= 63 ? -1 : 0;
    }
    unsigned long long v = strtoull(s, &end, 0);
    const char *sfx = strchr("kmg", tolower((unsigned char)*end)); /* no suffix: the "kmg" terminator */
    if (errno || end == s || (*end && (!sfx || end[1]))) return -1;
    *out = (size_t)(*end ? v << (10 * (sfx - "kmg" + 1)) : v);
    return 0;
}

/* Whether `word` is one of the words of `list` (" a b c "). */
static int in_list(const char *list, const char *word)
{
    char key[40];
    return !strchr(word, ' ') && (size_t)snprintf(key, sizeof key, " %s ", word) < sizeof key && strstr(list, key);
}

/* 0 parsed, 1 --help, 2 usage error (printed). */
static int parse_options(int argc, char **argv, options *o)
{
    static const char *const valued = " --backend --n --reps --csv --plot --only --seed --option ";
    *o = (options){.backend = "auto", .seed = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = argv[i + 1], *want = NULL; /* argv[argc] is NULL */
        char *end = "";
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), 1;
        if (in_list(" --quick --no-peer --no-cub ", a)) {
            *(a[2] == 'q' ? &o->quick : &o->no_peer) = 1;
            continue;
        }
        if (!in_list(valued, a) || !v) {
            fprintf(stderr, in_list(valued, a) ? "parprim-bench: %s needs a value\n"
                                               : "parprim-bench: unknown option '%s' (--help lists them)\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--backend")) {
            if (!in_list(" cpu hip auto all ", o->backend = v)) want = "cpu, hip, auto or all";
        } else if (!strcmp(a, "--n") || !strcmp(a, "--reps")) {
            if (a[2] == 'n' ? parse_size(v, &o->n) || !o->n : (o->reps = atoi(v)) <= 0) want = "a positive count";
        } else if (!strcmp(a, "--seed")) {
            if ((o->seed = strtoull(v, &end, 0)), *end || end == v) want = "an integer";
        } else if (!strcmp(a, "--option")) {
            const size_t len = strlen(o->assignments), room = sizeof o->assignments - len;
            if (snprintf(o->assignments + len, room, "%s%s", len ? " " : "", v) >= (int)room) want = "shorter assignments";
        } else {
            *(!strcmp(a, "--csv") ? &o->csv : !strcmp(a, "--plot") ? &o->plot : &o->only) = v;
        }
        if (want) {
            fprintf(stderr, "parprim-bench: %s takes %s, not '%s'\n", a, want, v);
            return 2;
        }
    }
    return 0;
}

/* "name dtype" of a row, or its dtype alone. */
static const char *case_label(const pb_case *c, int with_name, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s%s%s", with_name ? c->name : "", with_name ? " " : "", pp_dtype_name(c->in),
             c->in == c->out ? "" : "->", c->in == c->out ? "" : pp_dtype_name(c->out));
    return buf;
}

/* Whether --only's NAME is in the row's "name dtype" (left in label, 128 bytes); without --only,
 * every row but the on-demand ones. */
static int case_selected(const pb_case *c, const char *only, char *label)
{
    const char *full = case_label(c, 1, label, 128);
    if (!only) return !c->on_demand;
    /* NAME may list alternatives separated by commas (e.g. copy,hist_range: a row and the
     * ceiling in the same run) */
    for (const char *p = only;; ++p) {
        const char *q = strchr(p, ',');
        const size_t len = q ? (size_t)(q - p) : strlen(p);
        if (!len) return 1; /* as strstr: the empty name is in every row */
        for (const char *f = full; *f; ++f)
            if (!strncmp(f, p, len)) return 1;
        if (!q) return 0;
        p = q;
    }
}

/* ---- input data ------------------------------------------------------------------------- */

uint64_t pb_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static const pp_dtype dataset_type[PB_DS_COUNT] = {PP_F32, PP_F64, PP_U8, PP_I32, PP_U32};

/* u8 rows may run on 4 n bytes. */
static size_t dataset_len(int ds, size_t len) { return len * (ds == PB_DS_U8 ? 4 : 1); }

int pb_dataset_of(pp_dtype t)
{
    for (int k = 0; k < PB_DS_IDX; k++)
        if (dataset_type[k] == t) return k;
    if (t == PP_U32) return PB_DS_I32; /* the same random bits, read as u32 */
    /* radix sort family (issue 20): 8-byte integer rows make their own keys in setup */
    return t == PP_I64 || t == PP_U64 ? PB_DS_F64 : -1;
}

static struct {
    size_t len; /* elements in each array (the largest n so far, at least 1024) */
    uint64_t seed;
    void *a[PB_DS_COUNT];
} g_host; /* the input arrays, host memory */

void *pb_host_alloc(size_t bytes)
{
    void *p = aligned_alloc(256, bytes ? (bytes + 255) & ~(size_t)255 : 256);
    if (!p) {
        fprintf(stderr, "parprim-bench: out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

static const void *host_array(int ds)
{
    if (g_host.a[ds]) return g_host.a[ds];
    const long long n = (long long)dataset_len(ds, g_host.len);
    void *p = g_host.a[ds] = pb_host_alloc((size_t)n * pp_dtype_size(dataset_type[ds]));
    const uint64_t base = pb_mix64(g_host.seed ^ (0x243f6a8885a308d3ull * (uint64_t)(ds + 1)));
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) {
        uint64_t r = pb_mix64(base + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull);
        switch (ds) {
        case PB_DS_F32: ((float *)p)[i] = (float)(r >> 40) * 0x1p-23f - 1.0f; break;
        case PB_DS_F64: ((double *)p)[i] = (double)(r >> 11) * 0x1p-52 - 1.0; break;
        case PB_DS_U8: ((uint8_t *)p)[i] = (uint8_t)(r >> 56); break;
        case PB_DS_I32: ((int32_t *)p)[i] = (int32_t)(uint32_t)(r >> 32); break;
        case PB_DS_IDX: ((uint32_t *)p)[i] = (uint32_t)((r >> 32) % PB_RBI_OUTPUTS); break;
        }
    }
    return p;
}

/* ---- one backend's run: the services of bench.h ------------------------------------------ */

struct pb_run {
    pp_context *ctx, *ref_ctx;
    int gpu;
    const options *opt;
    size_t n, len;
    void *dev[PB_DS_COUNT]; /* context-space copies of the inputs (GPU) */
    pb_peer_kind peer;
    const pb_state *current;
    struct { void *p; int ctx; } keep[32]; /* freed after the row */
    int nkeep;
    void *ref; /* the last reference (generic verify), for the rows that share it */
    char ref_key[160];
#ifdef PB_HAVE_GPU_TIMER
    pb_timer *timer;
#endif
};

pp_context *pb_ctx(pb_run *r) { return r->ctx; }
pp_context *pb_ref_ctx(pb_run *r) { return r->ref_ctx; }
int pb_gpu(pb_run *r) { return r->gpu; }
uint64_t pb_seed(pb_run *r) { return (void)r, g_host.seed; }
void *pb_stream(pb_run *r) { return pp_context_stream(r->ctx); }
const void *pb_host_input(pb_run *r, int ds) { return (void)r, host_array(ds); }

void pb_fail(pb_run *r, const pb_state *s, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *ctx_msg = pp_context_last_error(r->ctx);
    fprintf(stderr, "parprim-bench: %s: %s%s%s\n", s ? s->c->name : "setup", msg, ctx_msg[0] ? ": " : "", ctx_msg);
}

void *pb_alloc(pb_run *r, size_t bytes)
{
    void *p = NULL;
    if (pp_malloc(r->ctx, &p, bytes ? bytes : 1) == PP_OK) return p;
    pb_fail(r, r->current, "allocating %zu bytes", bytes);
    return NULL;
}

const void *pb_upload(pb_run *r, const void *host, size_t bytes)
{
    void *p = r->gpu ? pb_alloc(r, bytes) : NULL;
    if (p && bytes && pp_memcpy(r->ctx, p, host, bytes, PP_COPY_HOST_TO_CONTEXT) != PP_OK) {
        pb_fail(r, r->current, "uploading %zu bytes", bytes);
        pp_free(r->ctx, p);
        return NULL;
    }
    return r->gpu ? p : host;
}

void pb_release(pb_run *r, const void *p) { if (p) pp_free(r->ctx, (void *)p); }
void pb_release_upload(pb_run *r, const void *p) { if (r->gpu) pb_release(r, p); }

/* p (context space where ctx), freed after the row. */
static void *keep(pb_run *r, void *p, int ctx)
{
    if (p && r->nkeep == (int)(sizeof r->keep / sizeof r->keep[0])) {
        fprintf(stderr, "parprim-bench: more than %d buffers in one row\n", r->nkeep);
        exit(1);
    }
    if (p) r->keep[r->nkeep].p = p, r->keep[r->nkeep++].ctx = ctx;
    return p;
}

void *pb_scratch(pb_run *r, size_t bytes) { return keep(r, memset(pb_host_alloc(bytes), 0, bytes), 0); }
const void *pb_upload_row(pb_run *r, const void *host, size_t bytes)
{
    return r->gpu ? keep(r, (void *)pb_upload(r, host, bytes), 1) : host;
}
const void *pb_aux(pb_run *r, pb_state *s, const void *host, size_t bytes)
{
    return s->host_aux = host, s->aux = pb_upload_row(r, host, bytes);
}

int pb_download(pb_run *r, void *host, const void *src, size_t bytes)
{
    if (!bytes || pp_memcpy(r->ctx, host, src, bytes, PP_COPY_CONTEXT_TO_HOST) == PP_OK) return 0;
    pb_fail(r, r->current, "reading back %zu bytes", bytes);
    return -1;
}

const void *pb_input(pb_run *r, int ds)
{
    const void *host = host_array(ds);
    const size_t bytes = dataset_len(ds, r->len) * pp_dtype_size(dataset_type[ds]);
    if (r->gpu && !r->dev[ds]) r->dev[ds] = (void *)pb_upload(r, host, bytes);
    return r->gpu ? r->dev[ds] : host;
}

void pb_parallel_reduce(struct po_red *o, const void *in, size_t lo, size_t hi)
{
    const size_t chunk = (size_t)1 << 16, nc = (hi - lo + chunk - 1) / chunk;
    po_red *part = pb_host_alloc(nc * sizeof *part);
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < (long long)nc; c++) {
        const size_t a = lo + (size_t)c * chunk, b = hi - a < chunk ? hi : a + chunk;
        po_red_init(&part[c], o->op, o->in, o->out);
        po_red_push(&part[c], in, a, b);
    }
    for (size_t c = 0; c < nc; c++) po_red_merge(o, &part[c]);
    free(part);
}

pb_cub_job pb_cub_job_of(pb_run *r, const pb_state *s, pb_cub_kind kind, int reps, int batch)
{
    return (pb_cub_job){.kind = kind, .in_type = (int)s->c->in, .out_type = (int)s->c->out, .in = s->in, .n = s->n,
                        .stream = pb_stream(r), .reps = reps, .batch = batch};
}

pb_tbb_job pb_tbb_job_of(const pb_state *s, pb_tbb_kind kind, int reps, int batch)
{
    return (pb_tbb_job){.kind = kind, .in_type = (int)s->c->in, .out_type = (int)s->c->out, .in = s->host_in,
                        .n = s->n, .reps = reps, .batch = batch};
}

/* ---- options of the context: --option and the rows' tunings --------------------------------- */

/* Set "name=value ..." on the context (enum values of the strategy options may be given by
 * name). 0 on success, else -1 (printed). */
static int set_options(pb_run *r, const pb_state *s, const char *assignments)
{
    static const char *const strategies[] = {"auto", "shared", "global", "cluster", "u8"};
    char buf[512];
    if (!assignments) return 0;
    snprintf(buf, sizeof buf, "%s", assignments);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '='), *end = "?";
        pp_option opt;
        int64_t v = 0;
        if (eq) {
            *eq = '\0';
            v = strtoll(eq + 1, &end, 0);
            for (int k = 0; *end && k < 5; k++)
                if (!strcmp(eq + 1, strategies[k])) v = k, end = "";
            /* radix sort family (issue 20): pp_sort_strategy's names */
            static const char *const sort_strategies[] = {"auto", "tile_merge", "onesweep"};
            for (int k = 0; *end && !strcmp(tok, "sort_strategy") && k < 3; k++)
                if (!strcmp(eq + 1, sort_strategies[k])) v = k, end = "";
            /* summed-area table (issue 21): pp_sat_strategy's names */
            if (*end && !strcmp(eq + 1, "one_pass")) v = PP_SAT_STRATEGY_ONE_PASS, end = "";
            if (*end && !strcmp(eq + 1, "two_pass")) v = PP_SAT_STRATEGY_TWO_PASS, end = "";
            if (*end && !strcmp(eq + 1, "reduce_scan")) v = PP_SAT_STRATEGY_REDUCE_SCAN, end = "";
        }
        if (!eq || *end || pp_option_from_name(tok, &opt) != PP_OK) {
            pb_fail(r, s, "'%s%s%s' is not an option assignment (name=value; pp_option_name gives the names)", tok,
                    eq ? "=" : "", eq ? eq + 1 : "");
            return -1;
        }
        if (pp_context_set_option(r->ctx, opt, v) != PP_OK) {
            pb_fail(r, s, "setting %s = %lld", tok, (long long)v);
            return -1;
        }
    }
    return 0;
}

/* Every option at its default, then those of --option (after a tuned row). 0 on success. */
static int reset_options(pb_run *r)
{
    int64_t lo, hi, dflt;
    for (int k = 1; k < PP_OPTION_COUNT_; k++)
        if (pp_option_bounds((pp_option)k, &lo, &hi, &dflt) == PP_OK && pp_context_set_option(r->ctx, (pp_option)k, dflt))
            return -1;
    return set_options(r, NULL, r->opt->assignments);
}

/* ---- a row's result; timing ------------------------------------------------------------------ */

typedef struct row_result {
    const pb_case *c;
    size_t n;
    double t, gbs; /* seconds per call (median), GB/s */
    int reps, batch;
    int error;               /* the call failed; nothing measured */
    int verified;            /* 1 yes, 0 NO */
    double peer_t, peer_gbs; /* < 0 if not run */
    int peer_ok;             /* 1, 0, or -1 not checked */
    char plan[96];           /* the plan of the last timed call ("" if the library records none) */
} row_result;

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

/* Seconds for `batch` back-to-back calls: events on the context's stream on a GPU (host
 * clock + synchronize where no event timer is built, or for host-clock rows), the host clock
 * on the CPU. Negative on failure (message printed). */
static double time_batch(pb_run *r, const pb_family *f, const pb_state *s, int batch)
{
    pp_status st = PP_OK;
#ifdef PB_HAVE_GPU_TIMER
    if (r->gpu && !s->host_clock) {
        if (pb_timer_start(r->timer)) goto gpu_fail;
        for (int k = 0; k < batch && st == PP_OK; k++) st = f->call(r->ctx, s);
        if (st != PP_OK) goto call_fail;
        if (pb_timer_stop(r->timer)) goto gpu_fail;
        double ms = pb_timer_ms(r->timer);
        if (ms < 0) goto gpu_fail;
        return ms * 1e-3;
    gpu_fail:
        fprintf(stderr, "parprim-bench: event timer: %s\n", pb_gpu_last_error());
        return -1;
    }
#endif
    if (r->gpu && (st = pp_context_synchronize(r->ctx)) != PP_OK) goto call_fail;
    double t0 = now_s();
    for (int k = 0; k < batch && st == PP_OK; k++) st = f->call(r->ctx, s);
    if (st == PP_OK && r->gpu) st = pp_context_synchronize(r->ctx);
    if (st != PP_OK) goto call_fail;
    return now_s() - t0;
call_fail:
    pb_fail(r, s, "%s", pp_status_string(st));
    return -1;
}

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
static int measure(pb_run *r, const pb_family *f, const pb_state *s, row_result *out)
{
    const options *o = r->opt;
    const double target = o->quick ? 0.03 : 0.3;
    const int min_reps = o->quick ? 3 : 5, max_reps = o->reps ? o->reps : 1000;
    /* warm-up: grows the scratch arena, loads the kernels, touches the pages */
    if (time_batch(r, f, s, 1) < 0) return -1;
    double t1 = time_batch(r, f, s, 1);
    if (t1 < 0) return -1;
    out->batch = plan_batch(t1);
    double *v = pb_host_alloc(sizeof *v * (size_t)max_reps), total = 0, t = 0;
    int k = 0;
    while (k < max_reps && (o->reps || k < min_reps || total < target) && (t = time_batch(r, f, s, out->batch)) >= 0)
        total += t, v[k++] = t / out->batch;
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    out->reps = k;
    out->t = k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
    free(v);
    return t < 0 ? -1 : 0;
}

/* ---- the generic verify and peer ---------------------------------------------------------- */

/* The CPU backend's result of the row's call on the host arrays (GPU runs), in r->ref: kept for
 * the next rows of the same family, base name (before '@'), dtypes, n and size. 0 on success. */
static int reference(pb_run *r, const pb_family *f, pb_state *s, char *why, size_t why_size)
{
    char key[sizeof r->ref_key];
    snprintf(key, sizeof key, "%s %.*s %d %d %zu %zu", f->name, (int)strcspn(s->c->name, "@"), s->c->name, s->c->in,
             s->c->out, s->n, s->out_bytes);
    if (!r->ref || strcmp(key, r->ref_key)) {
        pb_state t = *s;
        free(r->ref);
        t.in = s->host_in, t.aux = s->host_aux, t.out = r->ref = memset(pb_host_alloc(s->out_bytes), 0, s->out_bytes);
        pp_status st = f->call(r->ref_ctx, &t);
        snprintf(r->ref_key, sizeof r->ref_key, "%s", st == PP_OK ? key : "");
        if (st != PP_OK) {
            snprintf(why, why_size, "reference on the cpu backend failed: %s: %s", pp_status_string(st),
                     pp_context_last_error(r->ref_ctx));
            return -1;
        }
    }
    s->ref = r->ref;
    return 0;
}

static int verify(pb_run *r, const pb_family *f, pb_state *s, char *why, size_t why_size)
{
    if (f->verify || !s->check) return f->verify ? f->verify(r, s, why, why_size) : 0;
    void *got = pb_scratch(r, s->out_bytes);
    pp_status st = s->host_clock ? (memset(s->out, 0, s->out_bytes), PP_OK) : pp_memset(r->ctx, s->out, 0, s->out_bytes);
    if (st == PP_OK && (st = f->call(r->ctx, s)) == PP_OK && s->host_clock) memcpy(got, s->out, s->out_bytes);
    if (st != PP_OK || (!s->host_clock && pb_download(r, got, s->out, s->out_bytes))) {
        snprintf(why, why_size, "running once more into a zeroed output: %s", pp_context_last_error(r->ctx));
        return 0;
    }
    return (!r->ref_ctx || !reference(r, f, s, why, why_size)) && s->check(r, s, got, 0, why, why_size);
}

static double peer(pb_run *r, const pb_family *f, pb_state *s, int reps, int batch, int *ok)
{
    if (f->peer || !s->peer_job) return f->peer ? f->peer(r, s, r->peer, reps, batch, ok) : -1;
    void *got = pb_scratch(r, s->out_bytes > 16 ? s->out_bytes : 16);
    pb_peer j = {pb_cub_job_of(r, s, 0, reps, batch), pb_tbb_job_of(s, 0, reps, batch),
                 {s->in, s->aux, s->n, 0, pb_stream(r), reps, batch, got}, 0};
    j.cub.result = j.tbb.result = got, j.cub.out = j.tbb.out = s->out;
    j.cub.offsets = s->aux, j.tbb.offsets = s->host_aux, j.tbb.flags = s->host_aux;
    if (!s->peer_job(r, s, &j) || (j.to_out && pp_memset(r->ctx, s->out, 0xff, s->out_bytes) != PP_OK)) return -1;
    double ms = -1;
    const char *err = "";
#ifdef PB_HAVE_GPU_TIMER
    if (r->peer == PB_PEER_GPU && j.rbi.n_out) ms = pb_rbi_atomic_run(&j.rbi), err = pb_rbi_last_error();
#endif
#ifdef PB_HAVE_CUB
    if (r->peer == PB_PEER_GPU && !j.rbi.n_out && j.cub.kind) ms = pb_cub_run(&j.cub), err = pb_cub_last_error();
#endif
#ifdef PB_HAVE_TBB
    if (r->peer == PB_PEER_TBB && j.tbb.kind) ms = pb_tbb_run(&j.tbb), err = pb_tbb_last_error();
#endif
    char w[512];
    if (ms >= 0) *ok = !(j.to_out && pb_download(r, got, s->out, s->out_bytes)) && s->check(r, s, got, 1, w, sizeof w);
    else if (err[0]) fprintf(stderr, "parprim-bench: peer of %s: %s\n", s->c->name, err);
    return ms;
}

/* ---- one row ---------------------------------------------------------------------------- */

/* "strategy grid=G tiles=T p=a,b,c,d"; a forced strategy that did not run is flagged. */
static void describe_plan(pb_run *r, const pb_case *c, char *buf, size_t size)
{
    pp_plan p;
    buf[0] = '\0';
    if (pp_context_last_plan(r->ctx, &p) != PP_OK || !p.strategy[0]) return;
    int n = snprintf(buf, size, "%s grid=%" PRIu64 " tiles=%" PRIu64 " p=%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64,
                     p.strategy, p.grid, p.tiles, p.param[0], p.param[1], p.param[2], p.param[3]);
    const char *forced = c->tuning ? strstr(c->tuning, "strategy=") : NULL;
    if (forced && n > 0 && (size_t)n < size) {
        char want[24];
        sscanf(forced + 9, "%23[^ ]", want);
        if (strcmp(want, p.strategy)) snprintf(buf + n, size - (size_t)n, " (forced %s did not run)", want);
    }
}

static row_result run_case(pb_run *r, const pb_family *f, const pb_case *c)
{
    row_result x = {.c = c, .error = 1, .peer_t = -1, .peer_gbs = -1, .peer_ok = -1};
    pb_state s = {.c = c, .n = x.n = (c->fixed_n ? c->fixed_n : r->n) * (c->n_mul ? c->n_mul : 1)};
    char why[512] = "", label[128];
    r->current = &s;
    const int ds = pb_dataset_of(c->in);
    if (ds < 0) pb_fail(r, &s, "no input array of %s (pb_dataset_of)", pp_dtype_name(c->in));
    if (ds < 0 || !(s.in = pb_input(r, ds))) goto done;
    s.host_in = host_array(ds);
    if (f->setup(r, &s)) goto teardown;
    x.n = s.n; /* a row may run on fewer elements (the sort's u64 keys: n / 2) */
    if (!s.out && s.out_bytes &&
        (!(s.out = keep(r, pb_alloc(r, s.out_bytes), 1)) || pp_memset(r->ctx, s.out, 0, s.out_bytes) != PP_OK))
        goto teardown;
    if (set_options(r, &s, c->tuning) == 0 && measure(r, f, &s, &x) == 0) {
        x.error = 0;
        x.gbs = s.bytes / x.t * 1e-9;
        describe_plan(r, c, x.plan, sizeof x.plan);
        if (!(x.verified = verify(r, f, &s, why, sizeof why)))
            fprintf(stderr, "parprim-bench: %s n=%zu on %s NOT VERIFIED: %s\n", case_label(c, 1, label, sizeof label), x.n,
                    pp_backend_name(pp_context_backend(r->ctx)), why[0] ? why : "(no reason given)");
    }
    if (c->tuning && reset_options(r)) x.error = 1;
    /* the peer runs the rows without a tuning, with parprim's repetitions and batch */
    if (!x.error && !c->tuning && r->peer != PB_PEER_NONE) {
        double ms = peer(r, f, &s, x.reps, x.batch, &x.peer_ok);
        if (ms > 0) x.peer_t = ms * 1e-3, x.peer_gbs = (s.peer_bytes > 0 ? s.peer_bytes : s.bytes) / x.peer_t * 1e-9;
        if (ms > 0 && x.peer_ok == 0)
            fprintf(stderr, "parprim-bench: warning: the peer's result for %s %s differs from the reference\n",
                    c->name, pp_dtype_name(c->in));
    }
teardown:
    if (f->teardown) f->teardown(r, &s);
done:
    while (r->nkeep > 0) r->nkeep--, r->keep[r->nkeep].ctx ? pb_release(r, r->keep[r->nkeep].p) : free(r->keep[r->nkeep].p);
    r->current = NULL;
    return x;
}

/* ---- output ----------------------------------------------------------------------------- */

static void fmt_time(char *buf, size_t size, double s)
{
    if (s < 0) snprintf(buf, size, "-");
    else snprintf(buf, size, s < 1e-3 ? "%.2f us" : s < 10.0 ? "%.3f ms" : "%.2f s",
                  s < 1e-3 ? s * 1e6 : s < 10.0 ? s * 1e3 : s);
}

static const char *fmt_n(char *buf, size_t size, size_t n)
{
    const unsigned k = po_ceil_log2(n);
    snprintf(buf, size, n && ((size_t)1 << k) == n ? "2^%zu" : "%zu", n && ((size_t)1 << k) == n ? (size_t)k : n);
    return buf;
}

static void print_row(const row_result *x)
{
    char dt[32], n[24], reps[24], t[24], pt[24] = "-", pg[16] = "-", ratio[16] = "-";
    case_label(x->c, 0, dt, sizeof dt);
    fmt_n(n, sizeof n, x->n);
    if (x->error) {
        printf("%-32s %-9s %10s %9s %11s %9s %9s %-4s\n", x->c->name, dt, n, "-", "-", "-", "-", "ERR");
        return;
    }
    snprintf(reps, sizeof reps, "%dx%d", x->reps, x->batch);
    fmt_time(t, sizeof t, x->t);
    if (x->peer_t > 0) {
        fmt_time(pt, sizeof pt, x->peer_t);
        snprintf(pg, sizeof pg, "%.1f", x->peer_gbs);
        snprintf(ratio, sizeof ratio, "%.3f%s", x->peer_t / x->t, x->peer_ok == 0 ? "?" : "");
    }
    /* the strategy only (grid, tiles and parameters go to the CSV) */
    const int plan_len = x->plan[0] ? (int)strcspn(x->plan, " ") : 1;
    printf("%-32s %-9s %10s %9s %11s %9.3f %9.1f %-4s %11s %9s %7s  %.*s%s\n", x->c->name, dt, n, reps, t,
           (double)x->n / x->t * 1e-9, x->gbs, x->verified ? "yes" : "NO", pt, pg, ratio, plan_len,
           x->plan[0] ? x->plan : "-", strstr(x->plan, "did not run") ? " (NOT the forced one)" : "");
}

static void csv_quoted(FILE *f, const char *s, const char *after)
{
    fputc('"', f);
    for (; *s; s++) fprintf(f, *s == '"' ? "\"\"" : "%c", *s);
    fprintf(f, "\"%s", after);
}

/* The first 17 columns are those of the bench before its peers and plans (cub_*: the GPU
 * peer's, empty on the CPU); peer* repeat the row's peer whichever it is (CUB, the atomics
 * kernel, oneTBB), plan is the library's plan of the last timed call. */
static void csv_row(FILE *f, pb_run *r, const char *peer, const row_result *x)
{
    char dt[32], p[96] = ",,";
    fprintf(f, "%s,", pp_backend_name(pp_context_backend(r->ctx)));
    csv_quoted(f, pp_context_device_name(r->ctx), ",");
    csv_quoted(f, pp_version_string(), "");
    fprintf(f, ",%s,%" PRIu64 ",%s,%s,%zu,", g_date, g_host.seed, x->c->name, case_label(x->c, 0, dt, sizeof dt), x->n);
    if (x->error) {
        fprintf(f, ",,,,,ERR,,,,,,,,,\n");
        return;
    }
    fprintf(f, "%d,%d,%.6g,%.6g,%.6g,%s,", x->reps, x->batch, x->t * 1e3, (double)x->n / x->t * 1e-9,
            x->gbs, x->verified ? "yes" : "NO");
    if (x->peer_t > 0) snprintf(p, sizeof p, "%.6g,%.6g,%.6g", x->peer_t * 1e3, x->peer_gbs, x->peer_t / x->t);
    fprintf(f, "%s,", r->peer == PB_PEER_GPU ? p : ",,");
    csv_quoted(f, x->peer_t > 0 ? peer : "", ",");
    fprintf(f, "%s,%s,", p, x->peer_t > 0 ? (x->peer_ok == 1 ? "yes" : x->peer_ok == 0 ? "NO" : "unchecked") : "");
    csv_quoted(f, x->plan, "\n");
    fflush(f);
}

/* ---- one backend -------------------------------------------------------------------------- */

/* Runs every selected case on one backend. Returns the number of rows that failed. */
static int run_backend(pp_backend backend, const options *o)
{
    const int gpu = backend == PP_BACKEND_HIP;
    const size_t n = o->n ? o->n : (size_t)1 << (gpu ? (o->quick ? 24 : 28) : (o->quick ? 22 : 26));
    pb_run r = {.opt = o, .n = n, .len = n > 1024 ? n : 1024, .gpu = gpu};
    char sel[128];
    for (size_t k = 0; k < pb_n_families; k++) /* the input arrays also serve the fixed-size rows */
        for (size_t i = 0; i < pb_families[k]->count; i++) {
            const pb_case *c = &pb_families[k]->cases[i];
            const size_t len = c->fixed_n * (c->n_mul ? c->n_mul : 1);
            if (len > r.len && case_selected(c, o->only, sel)) r.len = len;
        }
    const char *timing_how = gpu ? "host clock + pp_context_synchronize (no event timer built)" : "host clock";
    const char *peer = "peer";
    char peer_desc[96] = "", nbuf[24], label[128];
    int failed = 1;
    for (int k = 0; k < PB_DS_COUNT && r.len > g_host.len; k++) free(g_host.a[k]), g_host.a[k] = NULL; /* grown on use */
    g_host.len = r.len > g_host.len ? r.len : g_host.len;
    pp_status st = pp_context_create(&r.ctx, backend, 0);
    if (st != PP_OK) {
        fprintf(stderr, "parprim-bench: cannot create a %s context: %s: %s\n", pp_backend_name(backend),
                pp_status_string(st), pp_last_create_error());
        return 1;
    }
    r.peer = o->no_peer ? PB_PEER_NONE : gpu ? PB_PEER_GPU : PB_PEER_TBB; /* AMD: the atomics kernel of hist_rbi */
#ifdef PB_HAVE_GPU_TIMER
    if (gpu && !(r.timer = pb_timer_create(pp_context_stream(r.ctx)))) {
        fprintf(stderr, "parprim-bench: event timer: %s\n", pb_gpu_last_error());
        goto out;
    }
    timing_how = gpu ? "events on the context's stream" : timing_how;
#else
    r.peer = gpu ? PB_PEER_NONE : r.peer;
#endif
#ifdef PB_HAVE_CUB
    if (r.peer == PB_PEER_GPU)
        peer = "CUB", snprintf(peer_desc, sizeof peer_desc, "; CUB %s in the same run", pb_cub_version());
#endif
#ifdef PB_HAVE_TBB
    if (r.peer == PB_PEER_TBB)
        peer = "TBB", snprintf(peer_desc, sizeof peer_desc, "; %s in the same run, %d took part in a probe",
                               pb_tbb_describe(), pb_tbb_probe_threads());
#else
    r.peer = gpu ? r.peer : PB_PEER_NONE;
#endif
    if (set_options(&r, NULL, o->assignments)) goto out;
    if (gpu && pp_context_create(&r.ref_ctx, PP_BACKEND_CPU, 0) != PP_OK) {
        fprintf(stderr, "parprim-bench: cannot create the cpu reference context: %s\n", pp_last_create_error());
        goto out;
    }
    printf("\n== backend %s: %s\n", pp_backend_name(backend), pp_context_device_name(r.ctx));
    printf("   n %s | timing: %s, median of reps; verify: %s%s%s%s%s\n", fmt_n(nbuf, sizeof nbuf, n), timing_how,
           r.ref_ctx ? "against the cpu backend" : "against the serial oracles", o->quick ? "; --quick" : "",
           peer_desc, o->assignments[0] ? "; options: " : "", o->assignments);
    printf("%-32s %-9s %10s %9s %11s %9s %9s %-4s %6s time %4s GB/s %*s%s  plan\n", "row", "dtype", "n", "reps", "time",
           "Gitems/s", "GB/s", "ok", peer, peer, 7 - (int)strlen(peer), "pp/", peer);
    fflush(stdout);

    failed = 0;
    pb_plot_group *pg = pb_plot_add_group(&g_plot, pp_backend_name(backend), pp_context_device_name(r.ctx),
                                          r.peer == PB_PEER_NONE ? NULL : peer);
    for (size_t k = 0; k < pb_n_families; k++) {
        const pb_family *f = pb_families[k];
        for (size_t i = 0; i < f->count; i++) {
            const pb_case *c = &f->cases[i];
            if (!case_selected(c, o->only, label) || (c->tuning && !gpu)) continue; /* tunings: GPU strategies */
            row_result x = run_case(&r, f, c);
            print_row(&x);
            fflush(stdout);
            if (g_csv) csv_row(g_csv, &r, peer, &x);
            failed += x.error || !x.verified;
            if (!x.error && pg) pb_plot_add_bar(&g_plot, label, x.gbs, x.peer_gbs, x.verified, !strcmp(c->name, "copy"));
        }
        if (f->finish) f->finish();
    }
out:
    for (int k = 0; k < PB_DS_COUNT; k++) pb_release(&r, r.dev[k]);
#ifdef PB_HAVE_GPU_TIMER
    pb_timer_destroy(r.timer);
#endif
    free(r.ref);
    pp_context_destroy(r.ref_ctx);
    pp_context_destroy(r.ctx);
    return failed;
}

int main(int argc, char **argv)
{
    options o;
    int pr = parse_options(argc, argv, &o), selected = 0;
    char label[128];
    if (pr) return pr == 1 ? 0 : 2; /* 1: --help */
    for (size_t k = 0; k < pb_n_families; k++)
        for (size_t i = 0; i < pb_families[k]->count; i++)
            selected += case_selected(&pb_families[k]->cases[i], o.only, label);
    if (!selected) {
        fprintf(stderr, "parprim-bench: --only '%s' matches no row (--help lists them)\n", o.only);
        return 2;
    }
    /* the backends: hip where present (not for cpu), cpu for all or without hip */
    const int hip_ok = pp_backend_available(PP_BACKEND_HIP), all = !strcmp(o.backend, "all");
    if (!hip_ok && !strcmp(o.backend, "hip")) {
        fprintf(stderr, "parprim-bench: backend hip is not available (build: %s)\n", pp_version_string());
        return 1;
    }
    if (!hip_ok && all) printf("note: backend hip not available (%s); running cpu only\n", pp_version_string());
    pp_backend list[2];
    int nb = 0;
    if (hip_ok && strcmp(o.backend, "cpu")) list[nb++] = PP_BACKEND_HIP;
    if (!nb || all) list[nb++] = PP_BACKEND_CPU;

    const time_t now = time(NULL);
    struct tm tmv;
    strftime(g_date, sizeof g_date, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&now, &tmv));
    printf("parprim-bench | %s | %s | seed %" PRIu64, pp_version_string(), g_date, o.seed);
#ifdef _OPENMP
    printf(" | OpenMP threads %d", omp_get_max_threads());
#endif
    printf("\n%s", legend);

    if (o.csv && !(g_csv = fopen(o.csv, "w"))) {
        fprintf(stderr, "parprim-bench: cannot open '%s' for writing: %s\n", o.csv, strerror(errno));
        return 2;
    }
    if (g_csv)
        fprintf(g_csv, "backend,device,build,date_utc,seed,row,dtype,n,reps,batch,time_ms,gitems_per_s,gb_per_s,"
                         "verified,cub_time_ms,cub_gb_per_s,ratio_vs_cub,peer,peer_time_ms,peer_gb_per_s,ratio_vs_peer,"
                         "peer_verified,plan\n");
    int failed = 0;
    g_host.seed = o.seed;
    for (int i = 0; i < nb; i++) failed += run_backend(list[i], &o);
    if (g_csv) fclose(g_csv);
    if (o.plot) {
        char title[160];
        snprintf(title, sizeof title, "parprim-bench %s, %s, seed %" PRIu64, pp_version_string(), g_date, o.seed);
        if (pb_plot_write(&g_plot, o.plot, title)) {
            fprintf(stderr, "parprim-bench: cannot write the plot '%s': %s\n", o.plot, strerror(errno));
            failed++;
        }
    }
    pb_plot_free(&g_plot);
    for (int k = 0; k < PB_DS_COUNT; k++) free(g_host.a[k]);
    if (failed) printf("\n%d row(s) failed verification or errored.\n", failed);
    else printf("\nall rows verified.\n");
    return failed ? 1 : 0;
}
