/*
 * parprim_bench.c -- parprim-bench, the project's main job: the harness. It runs the cases of
 * every family in registry.c (one cases_X.c per family: setup, call, verify, bytes, peer,
 * teardown; bench.h) on the chosen backends and sizes, verifies every result, and reports
 * time, items/s and effective GB/s (the fewest bytes the primitive must move, divided by the
 * time), the plan the library ran (pp_context_last_plan), and beside it a peer timed the same
 * way in the same process: on NVIDIA CUB on the same device buffers (cub_peer.cu), on the CPU
 * oneTBB on the same host arrays (tbb_peer.cpp).
 *
 * Timing. GPU: a warm-up call, then events on the context's stream around each repetition
 * of `batch` back-to-back calls (batch > 1 only when one call takes under 100 us); the
 * median over repetitions, divided by batch, is reported. Rows whose result goes to host
 * memory (they synchronize) are timed with the host clock instead. CPU: the host clock
 * (CLOCK_MONOTONIC) around each repetition. Repetitions go on until about 0.3 s have been
 * timed (at least 5, at most 1000), unless --reps fixes their number. The peer runs the same
 * repetitions and batch.
 *
 * Data. Counter-based (element i depends only on the seed, the array and i, so every
 * backend and every n sees the same prefix): floats uniform in [-1, 1) on a grid exact in
 * the type, u8 random bytes, i32 random over the whole range (u32 rows read the i32 array's
 * bits). Segmented scans use random segment lengths, counter-based from the seed as well.
 *
 * Verification (the oracles of tests/oracles.c, shared with the tests). A GPU row's result is
 * compared with the CPU backend's result on the same input; a CPU row's with the serial
 * oracle. Integers, min/max and argmin/argmax must be bitwise equal; float sums must agree
 * within 2 g sum|x|, g from parprim.h's bound (D = ceil(log2 n) + PP_SUM_DEPTH_SLACK, u =
 * 2^-24 or 2^-53 by accumulation type). Scans are compared element by element in the same
 * way, a float out[i] within 2 g(D_scan(m)) times the running sum of |x| in its segment
 * (D_scan(m) = 2 ceil(log2 m) + PP_SCAN_DEPTH_SLACK, m the terms out[i] combines). A failed
 * verification prints NO and makes the exit status 1; a peer's failed check prints '?' after
 * its ratio (a warning: parprim is under test).
 *
 * Tuned rows (NAME@STRATEGY) set experimental options of the context (pp_context_set_option)
 * around the row and reset them to their defaults after it; the plan column shows what ran.
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

enum { PB_BACKEND_CPU = 1, PB_BACKEND_HIP = 2 };

typedef struct options {
    int backend_mask; /* PB_BACKEND_* bits; 0 = auto */
    int backend_all;  /* --backend all */
    size_t n;         /* 0: the backend's default */
    int reps;         /* 0: adaptive */
    const char *csv, *plot, *only;
    char assignments[512]; /* --option, space-separated */
    int quick;
    uint64_t seed;
    int device;
    int no_peer;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: parprim-bench [options]\n"
            "\n"
            "Runs parprim's families on the chosen backends, verifies every result and prints time\n"
            "(median of repetitions), items/s and effective GB/s (the fewest bytes the primitive must\n"
            "move / time), the plan that ran, and a peer in the same process: CUB on NVIDIA builds,\n"
            "oneTBB on the CPU backend (where built with TBB); the last columns compare the two.\n"
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
            "  --device D    GPU index for the hip backend (default 0)\n"
            "  --no-peer     skip the peer columns (also --no-cub)\n"
            "  --option A    set an experimental option of the context under test for every row,\n"
            "                A = name=value (pp_option_name's names, e.g. reduce_grid_waves=2,\n"
            "                hist_strategy=global); repeatable; rows that force options reset to these\n"
            "  --help        this text\n"
            "\n"
            "rows:\n");
    for (size_t k = 0; k < pb_n_families; k++) fprintf(f, "%s", pb_families[k]->help);
    fprintf(f,
            "\n"
            "Verification: GPU rows against the CPU backend on the same data, CPU rows against the\n"
            "serial oracles of tests/oracles.c; integers, min/max, arg* bitwise, float sums within\n"
            "2*g*sum|x|; scans element by element, a float out[i] within 2*g(m)*(running sum of |x|\n"
            "in its segment); histogram counts bitwise; reduce-by-index sums per output within\n"
            "2*g(m)*sum|x|. Exit status: 0 all rows verified, 1 a row failed or errored, 2 usage error.\n");
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

static int bad_value(const char *opt, const char *want, const char *v)
{
    fprintf(stderr, "parprim-bench: %s takes %s, not '%s'\n", opt, want, v);
    return 2;
}

static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(a, "--quick")) {
            o->quick = 1;
            continue;
        }
        if (!strcmp(a, "--no-peer") || !strcmp(a, "--no-cub")) {
            o->no_peer = 1;
            continue;
        }
        static const char *const valued[] = {"--backend", "--n", "--reps", "--csv", "--plot",
                                             "--only", "--seed", "--device", "--option"};
        int known = 0;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) known |= !strcmp(a, valued[k]);
        if (!known) {
            fprintf(stderr, "parprim-bench: unknown option '%s' (--help lists them)\n", a);
            return 2;
        }
        if (!v) {
            fprintf(stderr, "parprim-bench: %s needs a value\n", a);
            return 2;
        }
        i++;
        char *end;
        if (!strcmp(a, "--backend")) {
            if (!strcmp(v, "cpu")) o->backend_mask = PB_BACKEND_CPU;
            else if (!strcmp(v, "hip")) o->backend_mask = PB_BACKEND_HIP;
            else if (!strcmp(v, "auto")) o->backend_mask = 0;
            else if (!strcmp(v, "all")) o->backend_all = 1;
            else return bad_value(a, "cpu, hip, auto or all", v);
        } else if (!strcmp(a, "--n")) {
            if (parse_size(v, &o->n) || o->n == 0) return bad_value(a, "a positive count", v);
        } else if (!strcmp(a, "--reps")) {
            if ((o->reps = atoi(v)) <= 0) return bad_value(a, "a positive count", v);
        } else if (!strcmp(a, "--seed")) {
            o->seed = strtoull(v, &end, 0);
            if (*end || end == v) return bad_value(a, "an integer", v);
        } else if (!strcmp(a, "--device")) {
            o->device = atoi(v);
        } else if (!strcmp(a, "--option")) {
            size_t len = strlen(o->assignments);
            if (len + strlen(v) + 2 > sizeof o->assignments) return bad_value(a, "shorter assignments", v);
            snprintf(o->assignments + len, sizeof o->assignments - len, "%s%s", len ? " " : "", v);
        } else {
            *(!strcmp(a, "--csv") ? &o->csv : !strcmp(a, "--plot") ? &o->plot : &o->only) = v;
        }
    }
    return 0;
}

/* ---- cases ------------------------------------------------------------------------------ */

static void case_dtype(const pb_case *c, char *buf, size_t size)
{
    if (c->in == c->out) snprintf(buf, size, "%s", pp_dtype_name(c->in));
    else snprintf(buf, size, "%s->%s", pp_dtype_name(c->in), pp_dtype_name(c->out));
}

static int case_selected(const pb_case *c, const char *only)
{
    if (!only) return 1;
    char full[96], dt[32];
    case_dtype(c, dt, sizeof dt);
    snprintf(full, sizeof full, "%s %s", c->name, dt);
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

/* Elements of a dataset per element of n: u8 rows may run on 4 n bytes. */
static size_t dataset_mul(int ds) { return ds == PB_DS_U8 ? 4 : 1; }

int pb_dataset_of(pp_dtype t)
{
    switch (t) {
    case PP_F32: return PB_DS_F32;
    case PP_F64: return PB_DS_F64;
    case PP_U8: return PB_DS_U8;
    case PP_I32:
    case PP_U32: return PB_DS_I32; /* the same random bits, read as u32 */
    default: return -1;
    }
}

typedef struct host_data {
    size_t len; /* elements in each array (the largest n of any backend, at least 1024) */
    uint64_t seed;
    void *a[PB_DS_COUNT];
} host_data;

void *pb_host_alloc(size_t bytes)
{
    size_t b = (bytes + 255) & ~(size_t)255;
    void *p = aligned_alloc(256, b ? b : 256);
    if (!p) {
        fprintf(stderr, "parprim-bench: out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

static const void *host_array(host_data *h, int ds)
{
    if (h->a[ds]) return h->a[ds];
    const size_t n = h->len * dataset_mul(ds);
    void *p = pb_host_alloc(n * pp_dtype_size(dataset_type[ds]));
    const uint64_t base = pb_mix64(h->seed ^ (0x243f6a8885a308d3ull * (uint64_t)(ds + 1)));
    const uint64_t golden = 0x9e3779b97f4a7c15ull;
    const long long nn = (long long)n;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < nn; i++) {
        uint64_t r = pb_mix64(base + (uint64_t)(i + 1) * golden);
        switch (ds) {
        case PB_DS_F32: ((float *)p)[i] = (float)(r >> 40) * 0x1p-23f - 1.0f; break;
        case PB_DS_F64: ((double *)p)[i] = (double)(r >> 11) * 0x1p-52 - 1.0; break;
        case PB_DS_U8: ((uint8_t *)p)[i] = (uint8_t)(r >> 56); break;
        case PB_DS_I32: ((int32_t *)p)[i] = (int32_t)(uint32_t)(r >> 32); break;
        case PB_DS_IDX: ((uint32_t *)p)[i] = (uint32_t)((r >> 32) % PB_RBI_OUTPUTS); break;
        }
    }
    h->a[ds] = p;
    return p;
}

/* ---- one backend's run: the services of bench.h ------------------------------------------ */

struct pb_run {
    pp_context *ctx, *ref_ctx;
    int gpu;
    const options *opt;
    host_data *h;
    size_t n, len;
    void *dev[PB_DS_COUNT]; /* context-space copies of the inputs (GPU) */
    pb_peer_kind peer;
    const pb_state *current;
#ifdef PB_HAVE_GPU_TIMER
    pb_timer *timer;
#endif
};

pp_context *pb_ctx(pb_run *r) { return r->ctx; }
pp_context *pb_ref_ctx(pb_run *r) { return r->ref_ctx; }
int pb_gpu(pb_run *r) { return r->gpu; }
uint64_t pb_seed(pb_run *r) { return r->h->seed; }
void *pb_stream(pb_run *r) { return pp_context_stream(r->ctx); }
const void *pb_host_input(pb_run *r, int ds) { return host_array(r->h, ds); }

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
    if (pp_malloc(r->ctx, &p, bytes ? bytes : 1) != PP_OK) {
        pb_fail(r, r->current, "allocating %zu bytes", bytes);
        return NULL;
    }
    return p;
}

const void *pb_upload(pb_run *r, const void *host, size_t bytes)
{
    if (!r->gpu) return host;
    void *p = pb_alloc(r, bytes);
    if (p && bytes && pp_memcpy(r->ctx, p, host, bytes, PP_COPY_HOST_TO_CONTEXT) != PP_OK) {
        pb_fail(r, r->current, "uploading %zu bytes", bytes);
        pp_free(r->ctx, p);
        return NULL;
    }
    return p;
}

void pb_release(pb_run *r, const void *p)
{
    if (p) pp_free(r->ctx, (void *)p);
}

void pb_release_upload(pb_run *r, const void *p)
{
    if (r->gpu) pb_release(r, p);
}

int pb_download(pb_run *r, void *host, const void *src, size_t bytes)
{
    if (!bytes) return 0;
    if (pp_memcpy(r->ctx, host, src, bytes, PP_COPY_CONTEXT_TO_HOST) == PP_OK) return 0;
    pb_fail(r, r->current, "reading back %zu bytes", bytes);
    return -1;
}

const void *pb_input(pb_run *r, int ds)
{
    const void *host = host_array(r->h, ds);
    if (!r->gpu) return host;
    if (!r->dev[ds]) r->dev[ds] = (void *)pb_upload(r, host, r->len * dataset_mul(ds) * pp_dtype_size(dataset_type[ds]));
    return r->dev[ds];
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

#ifdef PB_HAVE_CUB
pb_cub_job pb_cub_job_of(pb_run *r, const pb_state *s, pb_cub_kind kind, int reps, int batch)
{
    pb_cub_job j = {.kind = kind, .in_type = (int)s->c->in, .out_type = (int)s->c->out, .in = s->in, .n = s->n};
    j.stream = pb_stream(r);
    j.reps = reps;
    j.batch = batch;
    return j;
}
#endif

#ifdef PB_HAVE_TBB
pb_tbb_job pb_tbb_job_of(const pb_state *s, pb_tbb_kind kind, int reps, int batch)
{
    pb_tbb_job j = {.kind = kind, .in_type = (int)s->c->in, .out_type = (int)s->c->out, .in = s->host_in, .n = s->n};
    j.reps = reps;
    j.batch = batch;
    return j;
}
#endif

/* ---- options of the context: --option and the rows' tunings --------------------------------- */

typedef struct saved_options {
    int n;
    pp_option opt[16];
    int64_t value[16];
} saved_options;

/* Set "name=value ..." on the context (enum values of the strategy options may be given by
 * name), saving the previous values in *sv when sv is not NULL. 0 on success, else -1 (printed). */
static int set_options(pb_run *r, const pb_state *s, const char *assignments, saved_options *sv)
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
        }
        if (!eq || *end || pp_option_from_name(tok, &opt) != PP_OK) {
            pb_fail(r, s, "'%s%s%s' is not an option assignment (name=value; pp_option_name gives the names)", tok,
                    eq ? "=" : "", eq ? eq + 1 : "");
            return -1;
        }
        if (sv && sv->n < 16 && pp_context_get_option(r->ctx, opt, &sv->value[sv->n]) == PP_OK) sv->opt[sv->n++] = opt;
        if (pp_context_set_option(r->ctx, opt, v) != PP_OK) {
            pb_fail(r, s, "setting %s = %lld", tok, (long long)v);
            return -1;
        }
    }
    return 0;
}

/* Back to the values before set_options (the defaults, or those of --option). */
static int restore_options(pb_run *r, saved_options *sv)
{
    int rc = 0;
    while (sv->n > 0) sv->n--, rc |= pp_context_set_option(r->ctx, sv->opt[sv->n], sv->value[sv->n]) != PP_OK;
    return rc ? -1 : 0;
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

typedef struct timing {
    double t; /* seconds per call, median */
    int reps, batch;
} timing;

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
static int measure(pb_run *r, const pb_family *f, const pb_state *s, timing *out)
{
    const options *o = r->opt;
    const double target = o->quick ? 0.03 : 0.3;
    const int min_reps = o->quick ? 3 : 5, max_reps = o->reps ? o->reps : 1000;
    /* warm-up: grows the scratch arena, loads the kernels, touches the pages */
    if (time_batch(r, f, s, 1) < 0) return -1;
    double t1 = time_batch(r, f, s, 1);
    if (t1 < 0) return -1;
    out->batch = plan_batch(t1);
    double *v = malloc(sizeof *v * (size_t)max_reps);
    if (!v) return -1;
    double total = 0;
    int k = 0;
    while (k < max_reps && (o->reps ? 1 : (k < min_reps || total < target))) {
        double t = time_batch(r, f, s, out->batch);
        if (t < 0) {
            free(v);
            return -1;
        }
        total += t;
        v[k++] = t / out->batch;
    }
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    out->reps = k;
    out->t = k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
    free(v);
    return 0;
}

/* ---- one row ---------------------------------------------------------------------------- */

typedef struct row_result {
    const pb_case *c;
    size_t n;
    timing tm;
    double bytes, peer_bytes;
    int error;    /* the call failed; nothing measured */
    int verified; /* 1 yes, 0 NO */
    double peer_t; /* seconds, < 0 if not run */
    int peer_ok;   /* 1, 0, or -1 not checked */
    char plan[96]; /* the plan of the last timed call ("" if the library records none) */
} row_result;

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
    row_result x;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.error = 1;
    x.peer_t = -1;
    x.peer_ok = -1;
    pb_state s;
    memset(&s, 0, sizeof s);
    s.c = c;
    s.n = x.n = (c->fixed_n ? c->fixed_n : r->n) * (c->n_mul ? c->n_mul : 1);
    r->current = &s;
    const int ds = pb_dataset_of(c->in);
    s.host_in = host_array(r->h, ds);
    if (!(s.in = pb_input(r, ds))) goto done;
    if (f->setup(r, &s)) goto teardown;
    x.bytes = s.bytes;
    x.peer_bytes = s.peer_bytes > 0 ? s.peer_bytes : s.bytes;

    saved_options saved = {0};
    if (set_options(r, &s, c->tuning, &saved) == 0 && measure(r, f, &s, &x.tm) == 0) {
        x.error = 0;
        describe_plan(r, c, x.plan, sizeof x.plan);
        char why[512] = "";
        x.verified = f->verify(r, &s, why, sizeof why);
        if (!x.verified) {
            char dt[32];
            case_dtype(c, dt, sizeof dt);
            fprintf(stderr, "parprim-bench: %s %s n=%zu on %s NOT VERIFIED: %s\n", c->name, dt, x.n,
                    pp_backend_name(pp_context_backend(r->ctx)), why[0] ? why : "(no reason given)");
        }
    }
    if (restore_options(r, &saved)) x.error = 1;
    /* the peer runs the rows without a tuning, with parprim's repetitions and batch */
    if (!x.error && f->peer && !c->tuning && r->peer != PB_PEER_NONE) {
        double ms = f->peer(r, &s, r->peer, x.tm.reps, x.tm.batch, &x.peer_ok);
        if (ms > 0) x.peer_t = ms * 1e-3;
        if (ms > 0 && x.peer_ok == 0)
            fprintf(stderr, "parprim-bench: warning: the peer's result for %s %s differs from the reference\n",
                    c->name, pp_dtype_name(c->in));
    }
teardown:
    f->teardown(r, &s);
done:
    r->current = NULL;
    return x;
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
    unsigned k = po_ceil_log2(n);
    if (n && ((size_t)1 << k) == n) snprintf(buf, size, "2^%u", k);
    else snprintf(buf, size, "%zu", n);
}

static void print_table_header(const char *peer)
{
    char t[32], g[32], q[32];
    snprintf(t, sizeof t, "%s time", peer);
    snprintf(g, sizeof g, "%s GB/s", peer);
    snprintf(q, sizeof q, "pp/%s", peer);
    printf("%-32s %-9s %10s %9s %11s %9s %9s %-4s %11s %9s %7s  %s\n", "row", "dtype", "n", "reps", "time",
           "Gitems/s", "GB/s", "ok", t, g, q, "plan");
}

static void print_row(const row_result *x)
{
    char dt[32], n[24], reps[24], t[24], pt[24] = "-", pg[16] = "-", ratio[16] = "-";
    case_dtype(x->c, dt, sizeof dt);
    fmt_n(n, sizeof n, x->n);
    if (x->error) {
        printf("%-32s %-9s %10s %9s %11s %9s %9s %-4s\n", x->c->name, dt, n, "-", "-", "-", "-", "ERR");
        return;
    }
    snprintf(reps, sizeof reps, "%dx%d", x->tm.reps, x->tm.batch);
    fmt_time(t, sizeof t, x->tm.t);
    if (x->peer_t > 0) {
        fmt_time(pt, sizeof pt, x->peer_t);
        snprintf(pg, sizeof pg, "%.1f", x->peer_bytes / x->peer_t * 1e-9);
        snprintf(ratio, sizeof ratio, "%.3f%s", x->peer_t / x->tm.t, x->peer_ok == 0 ? "?" : "");
    }
    /* the strategy only (grid, tiles and parameters go to the CSV) */
    const int plan_len = x->plan[0] ? (int)strcspn(x->plan, " ") : 1;
    printf("%-32s %-9s %10s %9s %11s %9.3f %9.1f %-4s %11s %9s %7s  %.*s%s\n", x->c->name, dt, n, reps, t,
           (double)x->n / x->tm.t * 1e-9, x->bytes / x->tm.t * 1e-9, x->verified ? "yes" : "NO", pt, pg, ratio,
           plan_len, x->plan[0] ? x->plan : "-", strstr(x->plan, "did not run") ? " (NOT the forced one)" : "");
}

/* The first 17 columns are those of the bench before its peers and plans (cub_*: the GPU
 * peer's, empty on the CPU); peer* repeat the row's peer whichever it is (CUB, the atomics
 * kernel, oneTBB), plan is the library's plan of the last timed call. */
static void csv_header(FILE *f)
{
    fprintf(f, "backend,device,build,date_utc,seed,row,dtype,n,reps,batch,time_ms,gitems_per_s,gb_per_s,"
               "verified,cub_time_ms,cub_gb_per_s,ratio_vs_cub,peer,peer_time_ms,peer_gb_per_s,ratio_vs_peer,"
               "peer_verified,plan\n");
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

static void csv_row(FILE *f, pb_run *r, const char *peer, const char *date, const row_result *x)
{
    char dt[32];
    case_dtype(x->c, dt, sizeof dt);
    fprintf(f, "%s,", pp_backend_name(pp_context_backend(r->ctx)));
    csv_quoted(f, pp_context_device_name(r->ctx));
    fputc(',', f);
    csv_quoted(f, pp_version_string());
    fprintf(f, ",%s,%" PRIu64 ",%s,%s,%zu,", date, r->h->seed, x->c->name, dt, x->n);
    if (x->error) {
        fprintf(f, ",,,,,ERR,,,,,,,,,\n");
        return;
    }
    fprintf(f, "%d,%d,%.6g,%.6g,%.6g,%s,", x->tm.reps, x->tm.batch, x->tm.t * 1e3, (double)x->n / x->tm.t * 1e-9,
            x->bytes / x->tm.t * 1e-9, x->verified ? "yes" : "NO");
    char p[96] = ",,";
    if (x->peer_t > 0)
        snprintf(p, sizeof p, "%.6g,%.6g,%.6g", x->peer_t * 1e3, x->peer_bytes / x->peer_t * 1e-9, x->peer_t / x->tm.t);
    fprintf(f, "%s,", r->peer == PB_PEER_GPU ? p : ",,");
    csv_quoted(f, x->peer_t > 0 ? peer : "");
    fprintf(f, ",%s,%s,", p, x->peer_t > 0 ? (x->peer_ok == 1 ? "yes" : x->peer_ok == 0 ? "NO" : "unchecked") : "");
    csv_quoted(f, x->plan);
    fputc('\n', f);
    fflush(f);
}

/* ---- one backend -------------------------------------------------------------------------- */

typedef struct run_log {
    FILE *csv;
    const char *date;
    pb_plot plot;
} run_log;

/* Runs every selected case on one backend. Returns the number of rows that failed. */
static int run_backend(pp_backend backend, const options *o, host_data *h, size_t n, run_log *log)
{
    pb_run r;
    memset(&r, 0, sizeof r);
    r.opt = o;
    r.h = h;
    r.n = n;
    r.len = n > 1024 ? n : 1024;
    r.gpu = backend == PP_BACKEND_HIP;
    pp_status st = pp_context_create(&r.ctx, backend, o->device);
    if (st != PP_OK) {
        fprintf(stderr, "parprim-bench: cannot create a %s context: %s: %s\n", pp_backend_name(backend),
                pp_status_string(st), pp_last_create_error());
        return 1;
    }
    const char *timing_how = r.gpu ? "host clock + pp_context_synchronize (no event timer built)" : "host clock";
    const char *peer = "peer";
    char peer_desc[96] = "";
#ifdef PB_HAVE_GPU_TIMER
    if (r.gpu) {
        r.timer = pb_timer_create(pp_context_stream(r.ctx));
        if (!r.timer) {
            fprintf(stderr, "parprim-bench: event timer: %s\n", pb_gpu_last_error());
            pp_context_destroy(r.ctx);
            return 1;
        }
        timing_how = "events on the context's stream";
        r.peer = o->no_peer ? PB_PEER_NONE : PB_PEER_GPU; /* AMD: the atomics kernel of hist_rbi only */
    }
#endif
#ifdef PB_HAVE_CUB
    if (r.peer == PB_PEER_GPU) {
        peer = "CUB";
        snprintf(peer_desc, sizeof peer_desc, "; CUB %s in the same run", pb_cub_version());
    }
#endif
#ifdef PB_HAVE_TBB
    if (!r.gpu && !o->no_peer) {
        r.peer = PB_PEER_TBB;
        peer = "TBB";
        snprintf(peer_desc, sizeof peer_desc, "; %s in the same run, %d took part in a probe", pb_tbb_describe(),
                 pb_tbb_probe_threads());
    }
#endif
    int failed = 0;
    if (set_options(&r, NULL, o->assignments, NULL)) {
        failed = 1;
        goto out;
    }
    if (r.gpu && (st = pp_context_create(&r.ref_ctx, PP_BACKEND_CPU, 0)) != PP_OK) {
        fprintf(stderr, "parprim-bench: cannot create the cpu reference context: %s\n", pp_last_create_error());
        failed = 1;
        goto out;
    }

    char nbuf[24];
    fmt_n(nbuf, sizeof nbuf, n);
    const int pow2 = nbuf[0] == '2' && nbuf[1] == '^';
    printf("\n== backend %s: %s\n", pp_backend_name(backend), pp_context_device_name(r.ctx));
    printf("   build %s | %s | n %zu%s%s%s | seed %" PRIu64 "\n", pp_version_string(), log->date, n, pow2 ? " (" : "",
           pow2 ? nbuf : "", pow2 ? ")" : "", o->seed);
    printf("   timing: %s, median of reps; verify: %s%s%s%s%s\n", timing_how,
           r.ref_ctx ? "against the cpu backend" : "against the serial oracles", o->quick ? "; --quick" : "",
           peer_desc, o->assignments[0] ? "; options: " : "", o->assignments);
    print_table_header(peer);
    fflush(stdout);

    pb_plot_group *g = pb_plot_add_group(&log->plot, pp_backend_name(backend), pp_context_device_name(r.ctx),
                                         r.peer == PB_PEER_NONE ? NULL : peer);
    for (size_t k = 0; k < pb_n_families; k++) {
        const pb_family *f = pb_families[k];
        for (size_t i = 0; i < f->count; i++) {
            const pb_case *c = &f->cases[i];
            if (!case_selected(c, o->only) || (c->tuning && !r.gpu)) continue; /* tunings: GPU strategies */
            row_result x = run_case(&r, f, c);
            print_row(&x);
            fflush(stdout);
            if (log->csv) csv_row(log->csv, &r, peer, log->date, &x);
            if (x.error || !x.verified) failed++;
            if (!x.error && g) {
                char label[128], dt[32];
                case_dtype(c, dt, sizeof dt);
                snprintf(label, sizeof label, "%s %s", c->name, dt);
                pb_plot_add_bar(&log->plot, label, x.bytes / x.tm.t * 1e-9,
                                x.peer_t > 0 ? x.peer_bytes / x.peer_t * 1e-9 : -1, x.verified, !strcmp(c->name, "copy"));
            }
        }
        if (f->finish) f->finish();
    }
out:
    for (int k = 0; k < PB_DS_COUNT; k++)
        if (r.dev[k]) pp_free(r.ctx, r.dev[k]);
#ifdef PB_HAVE_GPU_TIMER
    pb_timer_destroy(r.timer);
#endif
    pp_context_destroy(r.ref_ctx);
    pp_context_destroy(r.ctx);
    return failed;
}

int main(int argc, char **argv)
{
    options o;
    int pr = parse_options(argc, argv, &o);
    if (pr == 1) return 0; /* --help */
    if (pr) return 2;

    int selected = 0;
    for (size_t k = 0; k < pb_n_families; k++)
        for (size_t i = 0; i < pb_families[k]->count; i++) selected += case_selected(&pb_families[k]->cases[i], o.only);
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

    size_t ns[2], maxn = 1024;
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
    if (!o.no_peer)
        printf("pp/CUB, pp/TBB: parprim throughput / the peer's (> 1: parprim faster); '?' after it: the peer's own "
               "result failed the same check. plan: the strategy the library recorded (pp_context_last_plan).\n");

    run_log log;
    memset(&log, 0, sizeof log);
    log.date = date;
    if (o.csv) {
        log.csv = fopen(o.csv, "w");
        if (!log.csv) {
            fprintf(stderr, "parprim-bench: cannot open '%s' for writing: %s\n", o.csv, strerror(errno));
            return 2;
        }
        csv_header(log.csv);
    }

    host_data h;
    memset(&h, 0, sizeof h);
    h.len = maxn;
    h.seed = o.seed;

    int failed = 0;
    for (int i = 0; i < nb; i++) failed += run_backend(list[i], &o, &h, ns[i], &log);

    if (log.csv) fclose(log.csv);
    if (o.plot) {
        char title[160];
        snprintf(title, sizeof title, "parprim-bench %s, %s, seed %" PRIu64, pp_version_string(), date, o.seed);
        if (pb_plot_write(&log.plot, o.plot, title)) {
            fprintf(stderr, "parprim-bench: cannot write the plot '%s': %s\n", o.plot, strerror(errno));
            failed++;
        }
    }
    pb_plot_free(&log.plot);
    for (int k = 0; k < PB_DS_COUNT; k++) free(h.a[k]);
    if (failed) {
        printf("\n%d row(s) failed verification or errored.\n", failed);
        return 1;
    }
    printf("\nall rows verified.\n");
    return 0;
}
