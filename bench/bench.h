/*
 * bench.h -- what a cases file of parprim-bench sees: a case (one row of the table) and the
 * harness's services (input data, memory in the context's space, the reference context).
 *
 * A family is one cases file (cases_X.c) that defines `const pb_family pb_family_X`, a table
 * of cases, plus one line in registry.c. The harness (parprim_bench.c) runs each selected case
 * on each backend: setup, the call timed (options of the case's tuning set around it),
 * verify, the peer (CUB or a plain kernel on a GPU, oneTBB on the CPU) timed with the same
 * repetitions, teardown. Verify and peer: the family's own, or generic (PB_FAMILY, pb_state).
 */
#ifndef PB_BENCH_H
#define PB_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "parprim.h"
#include "bench_gpu.h" /* the peer jobs' types, in every build */
#include "tbb_peer.h"

/* Input arrays, counter-based from the seed (element i depends only on the seed, the array
 * and i): floats uniform in [-1, 1) on a grid exact in the type, u8 random bytes, i32 random
 * over the whole range (u32 rows read its bits), PB_DS_IDX uniform in [0, PB_RBI_OUTPUTS). */
enum { PB_DS_F32, PB_DS_F64, PB_DS_U8, PB_DS_I32, PB_DS_IDX, PB_DS_COUNT };
#define PB_RBI_OUTPUTS 4096

typedef struct pb_run pb_run; /* one backend's run (harness) */

typedef enum pb_peer_kind { PB_PEER_NONE, PB_PEER_GPU, PB_PEER_TBB } pb_peer_kind; /* where the peer columns come from */

/* One row. `spec` is the family's own parameters. */
typedef struct pb_case {
    const char *name;
    pp_dtype in, out;
    pp_op op;
    size_t fixed_n;     /* n regardless of --n (latency rows); 0: the run's n */
    unsigned n_mul;     /* n x this (u8 rows read as many bytes as f32 rows); 0: 1 */
    const char *tuning; /* GPU only: "option=value ..." (pp_option_from_name names; enum values
                         * by name: auto, shared, global, cluster, u8); NULL: the defaults.
                         * A row NAME@X shares the reference of the row NAME. */
    const void *spec;
    int on_demand; /* run only when --only names it (not in a default run) */
} pb_case;

/* A row with the run's n and no tuning; `spec`: the family's static parameters. */
#define PB_ROW(name, in, out, op, spec) {name, in, out, op, 0, 0, NULL, &(spec), 0}

/* The peer jobs of a row (generic path), filled with its fields (in, n, dtypes, stream, reps,
 * batch; result: zeroed host memory of out_bytes, >= 16; out: s->out; offsets, flags, indices:
 * s->aux, host_aux for TBB). Runs rbi where n_out is set, else cub or tbb where it has a kind. */
typedef struct pb_peer {
    pb_cub_job cub;
    pb_tbb_job tbb;
    pb_rbi_job rbi;
    int to_out; /* the peer writes s->out (scans): filled with 0xff bytes first, then read back */
} pb_peer;

/* A case being run: filled by setup, read by the call, verify and peer. */
typedef struct pb_state {
    const pb_case *c;
    size_t n;
    int host_clock;      /* the call synchronizes (result to host): time with the host clock
                          * (generic verify: out is the family's host memory) */
    double bytes;        /* the fewest bytes the primitive must move */
    double peer_bytes;   /* bytes of the peer's call for its GB/s (0: bytes) */
    const void *in;      /* context space */
    const void *host_in; /* the same input in host memory */
    void *priv;          /* the family's own */
    /* Generic verify and peer (PB_FAMILY sets check and peer_job): the result (context space,
     * allocated zeroed by the harness where setup leaves it NULL), a second input (pb_aux), on
     * GPU runs the CPU backend's result (the call on host_in, host_aux). The verify runs the
     * call once more into a zeroed output; check judges `got` (host, out_bytes; `peer`: the
     * peer's) against ref or the oracle: 1, or 0 (why). peer_job sets the peer jobs' kinds; 0:
     * no peer for this row (or it failed, printed). */
    void *out;
    size_t out_bytes;
    const void *aux, *host_aux, *ref;
    int (*check)(pb_run *r, const struct pb_state *s, const void *got, int peer, char *why, size_t why_size);
    int (*peer_job)(pb_run *r, const struct pb_state *s, pb_peer *j);
} pb_state;

typedef struct pb_family {
    const char *name;
    const pb_case *cases;
    size_t count;
    /* 0 on success; else says why (pb_fail) and returns -1 (the row is an error). */
    int (*setup)(pb_run *r, pb_state *s);
    pp_status (*call)(pp_context *ctx, const pb_state *s);
    /* 1 verified, 0 not (with `why`). NULL: the generic verify (s->check). */
    int (*verify)(pb_run *r, pb_state *s, char *why, size_t why_size);
    /* The peer, `reps` x `batch` calls: seconds per call (median), < 0 none or failed
     * (message printed); *ok: its result passed the same check (1), failed it (0), unchecked (-1).
     * NULL: the generic peer (s->peer_job), or none. */
    double (*peer)(pb_run *r, pb_state *s, pb_peer_kind kind, int reps, int batch, int *ok);
    void (*teardown)(pb_run *r, pb_state *s); /* may be NULL */
    void (*finish)(void); /* after each backend's rows (frees caches); may be NULL */
    const char *help;    /* the rows, for --help */
} pb_family;

/* A family of the generic path from its file's cases, setup, call, check and peer_job. */
#define PB_FAMILY(fam, ...)                                                                                 \
    static int pb_setup_(pb_run *r, pb_state *s) { return s->check = check, s->peer_job = peer_job, setup(r, s); } \
    const pb_family pb_family_##fam = {.name = #fam, .cases = cases, .count = sizeof cases / sizeof cases[0], \
                                       .setup = pb_setup_, .call = call, __VA_ARGS__}

/* The families, in the order they run (registry.c: one line per family). */
extern const pb_family *const pb_families[];
extern const size_t pb_n_families;

/* ---- harness services ---- */

pp_context *pb_ctx(pb_run *r);     /* the context under test */
pp_context *pb_ref_ctx(pb_run *r); /* the CPU backend for references of GPU rows; NULL on CPU runs */
int pb_gpu(pb_run *r);
uint64_t pb_seed(pb_run *r);
void *pb_stream(pb_run *r);        /* the context's stream (GPU) */
/* Input array ds of n elements (as len elements of the run; see PB_DS_*): host copy and
 * context-space copy (the host one on the CPU). NULL on failure (message printed). */
const void *pb_host_input(pb_run *r, int ds);
const void *pb_input(pb_run *r, int ds);
int pb_dataset_of(pp_dtype t);
/* splitmix64's finaliser: the counter-based generator of the inputs (and the segment lengths). */
uint64_t pb_mix64(uint64_t z);
/* Context-space memory: NULL on failure (message printed). pb_alloc / pb_release: pp_malloc /
 * pp_free (NULL ignored). pb_upload copies `bytes` of host data on a GPU and returns host
 * itself on the CPU; pb_release_upload frees what it gave (nothing on the CPU). */
void *pb_alloc(pb_run *r, size_t bytes);
void pb_release(pb_run *r, const void *p);
const void *pb_upload(pb_run *r, const void *host, size_t bytes);
void pb_release_upload(pb_run *r, const void *p);
/* Freed by the harness after the row: pb_scratch zeroed host memory (exits when out of memory),
 * pb_upload_row as pb_upload; pb_aux sets s->host_aux = host and s->aux = its upload. */
void *pb_scratch(pb_run *r, size_t bytes);
const void *pb_upload_row(pb_run *r, const void *host, size_t bytes);
const void *pb_aux(pb_run *r, pb_state *s, const void *host, size_t bytes);
/* Copy `bytes` from context space to host; 0 on success. */
int pb_download(pb_run *r, void *host, const void *src, size_t bytes);
/* Host memory aligned to 256 bytes (free with free()); exits when out of memory. */
void *pb_host_alloc(size_t bytes);
/* Print "parprim-bench: <row>: <message>" to stderr. */
void pb_fail(pb_run *r, const pb_state *s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The reduction of host in[lo, hi) into o (initialised by the caller, and possibly holding a
 * prefix already): chunks pushed in parallel (OpenMP), merged in order. */
struct po_red;
void pb_parallel_reduce(struct po_red *o, const void *in, size_t lo, size_t hi);
/* The peer jobs of a row: the kind, the row's dtypes, its input (context space for CUB, host
 * for TBB) and n, the stream, reps and batch; every other field zero. */
pb_cub_job pb_cub_job_of(pb_run *r, const pb_state *s, pb_cub_kind kind, int reps, int batch);
pb_tbb_job pb_tbb_job_of(const pb_state *s, pb_tbb_kind kind, int reps, int batch);

#endif
