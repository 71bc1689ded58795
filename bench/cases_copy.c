/* cases_copy.c -- the copy row: pp_memcpy within the context, the bandwidth ceiling of every
 * other row (2 x 4n bytes); on NVIDIA CUB's column is cudaMemcpyAsync of the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const pb_case cases[] = {{"copy", PP_F32, PP_F32, PP_OP_SUM, 0, 0, NULL, NULL}};

static size_t copy_bytes(const pb_state *s) { return s->n * pp_dtype_size(s->c->in); }

static int setup(pb_run *r, pb_state *s)
{
    s->bytes = 2.0 * (double)copy_bytes(s);
    return (s->priv = pb_alloc(r, copy_bytes(s))) ? 0 : -1;
}

static pp_status call(pp_context *ctx, const pb_state *s)
{
    return pp_memcpy(ctx, s->priv, s->in, copy_bytes(s), PP_COPY_CONTEXT_TO_CONTEXT);
}

/* The copy against its source, read back in chunks of 64 MiB. */
static int verify(pb_run *r, pb_state *s, char *why, size_t why_size)
{
    const size_t bytes = copy_bytes(s), chunk = (size_t)64 << 20;
    int ok = 1;
    if (!pb_gpu(r)) {
        ok = !memcmp(s->priv, s->host_in, bytes);
    } else {
        char *buf = pb_host_alloc(bytes < chunk ? bytes : chunk);
        for (size_t off = 0; off < bytes && ok; off += chunk) {
            const size_t b = bytes - off < chunk ? bytes - off : chunk;
            ok = !pb_download(r, buf, (const char *)s->priv + off, b) && !memcmp(buf, (const char *)s->host_in + off, b);
        }
        free(buf);
    }
    if (!ok) snprintf(why, why_size, "the copy differs from its source");
    return ok;
}

static double peer(pb_run *r, pb_state *s, pb_peer_kind kind, int reps, int batch, int *ok)
{
    (void)r, (void)s, (void)reps, (void)batch;
    *ok = -1;
    if (kind != PB_PEER_GPU) return -1; /* the CPU's copy row is the ceiling, with no peer */
#ifdef PB_HAVE_CUB
    pb_cub_job j = pb_cub_job_of(r, s, PB_CUB_COPY, reps, batch);
    double ms = pb_cub_run(&j);
    if (ms < 0) fprintf(stderr, "parprim-bench: CUB copy: %s\n", pb_cub_last_error());
    return ms;
#else
    return -1;
#endif
}

static void teardown(pb_run *r, pb_state *s) { pb_release(r, s->priv); }

const pb_family pb_family_copy = {
    "copy", cases, sizeof cases / sizeof cases[0], setup, call, verify, peer, teardown, NULL,
    "  copy f32 (pp_memcpy within the context, the bandwidth ceiling)\n"};
