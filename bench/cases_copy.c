/* cases_copy.c -- the copy row: pp_memcpy within the context, the bandwidth ceiling of every
 * other row (2 x 4n bytes); on NVIDIA CUB's column is cudaMemcpyAsync of the same bytes, the
 * CPU row has no peer. */
#include <stdio.h>
#include <string.h>

#include "bench.h"

static const pb_case cases[] = {{"copy", PP_F32, PP_F32, PP_OP_SUM, 0, 0, NULL, NULL, 0}};

static int setup(pb_run *r, pb_state *s)
{
    (void)r;
    s->out_bytes = s->n * pp_dtype_size(s->c->in);
    s->bytes = 2.0 * (double)s->out_bytes;
    return 0;
}

static pp_status call(pp_context *ctx, const pb_state *s)
{
    return pp_memcpy(ctx, s->out, s->in, s->out_bytes, PP_COPY_CONTEXT_TO_CONTEXT);
}

static int check(pb_run *r, const pb_state *s, const void *got, int peer, char *why, size_t why_size)
{
    (void)r, (void)peer;
    if (!memcmp(got, s->host_in, s->out_bytes)) return 1;
    snprintf(why, why_size, "the copy differs from its source");
    return 0;
}

static int peer_job(pb_run *r, const pb_state *s, pb_peer *j)
{
    (void)r, (void)s;
    j->cub.kind = PB_CUB_COPY;
    return 1;
}

PB_FAMILY(copy, .help = "  copy f32 (pp_memcpy within the context, the bandwidth ceiling)\n");
