/*
 * options.c -- the experimental options of a context (pp_context_set_option and friends), the
 * plan of the last call, and the allocation-failure test hook. One table gives each option's
 * name, bounds and default; the backends read the values through pp__option().
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

typedef struct option_info {
    const char *name;
    int64_t lo, hi, dflt;
} option_info;

static const option_info option_table[PP_OPTION_COUNT_] = {
    [PP_OPTION_REDUCE_GRID_WAVES] = {"reduce_grid_waves", 0, 64, 0},
    [PP_OPTION_REDUCE_MAX_TILES] = {"reduce_max_tiles", 0, 65536, 0},
    [PP_OPTION_SCAN_MAX_BLOCKS] = {"scan_max_blocks", 0, (int64_t)1 << 24, 0},
    [PP_OPTION_SCAN_DELAY_NS] = {"scan_delay_ns", -1, 100000, -1},
    [PP_OPTION_SCAN_PAUSE_NS] = {"scan_pause_ns", -1, 100000, -1},
    [PP_OPTION_HIST_STRATEGY] = {"hist_strategy", PP_HIST_STRATEGY_AUTO, PP_HIST_STRATEGY_U8, 0},
    [PP_OPTION_HIST_COPIES] = {"hist_copies", 0, 32, 0},
    [PP_OPTION_HIST_RANGE_BINS] = {"hist_range_bins", 0, (int64_t)1 << 31, 0},
    [PP_OPTION_HIST_CLUSTER] = {"hist_cluster", 0, 16, 0},
    [PP_OPTION_HIST_GRID_WAVES] = {"hist_grid_waves", 0, 64, 0},
    [PP_OPTION_HIST_WAVE_AGGREGATION] = {"hist_wave_aggregation", 0, 2, 0},
    [PP_OPTION_RBI_STRATEGY] = {"rbi_strategy", PP_HIST_STRATEGY_AUTO, PP_HIST_STRATEGY_GLOBAL, 0},
    [PP_OPTION_RBI_COPIES] = {"rbi_copies", 0, 32, 0},
    [PP_OPTION_CPU_HIST_LANES] = {"cpu_hist_lanes", 0, 16, 0},
    [PP_OPTION_CPU_HIST_ROUND] = {"cpu_hist_round", 0, (int64_t)1 << 31, 0},
    [PP_OPTION_FAIL_ALLOC] = {"fail_alloc", 0, (int64_t)1 << 31, 0},
    /* radix sort family (issue 20) */
    [PP_OPTION_SORT_STRATEGY] = {"sort_strategy", PP_SORT_STRATEGY_AUTO, PP_SORT_STRATEGY_ONESWEEP, 0},
    /* summed-area table (issue 21) */
    [PP_OPTION_SAT_STRATEGY] = {"sat_strategy", PP_SAT_STRATEGY_AUTO, PP_SAT_STRATEGY_REDUCE_SCAN, 0},
    /* radix sort performance (issue 20, s2-sortperf) */
    [PP_OPTION_SORT_ONESWEEP] = {"sort_onesweep", PP_SORT_ONESWEEP_AUTO, PP_SORT_ONESWEEP_FUSED, 0},
    /* compaction family (issue 19) */
    [PP_OPTION_COMPACT_PUBLISH] = {"compact_publish", 0, 2, 0},
    [PP_OPTION_COMPACT_BLOCKS] = {"compact_blocks", 0, 3, 0},
    [PP_OPTION_COMPACT_PARTITION] = {"compact_partition", 0, 2, 0},
    /* segmented sort (issue 22) */
    [PP_OPTION_SEGSORT_PACK_LOG] = {"segsort_pack_log", 0, 12, 0},
    /* parprim_mpi (issue 23) */
    [PP_OPTION_MPI_STAGING] = {"mpi_staging", 0, 1, 0},
    /* segmented sort: the merge passes' launches (sixth session) */
    [PP_OPTION_SEGSORT_MERGE_LAUNCH] = {"segsort_merge_launch", 0, 1, 0},
    /* radix sort: the onesweep tiles' size (sixth session) */
    [PP_OPTION_SORT_SMALL_TILES] = {"sort_small_tiles", 0, 2, 0},
    /* radix sort: wide onesweep tiles (eighth session) */
    [PP_OPTION_SORT_WIDE_TILES] = {"sort_wide_tiles", 0, 2, 0},
    /* CPU range histogram: the cell grid (tenth session) */
    [PP_OPTION_CPU_HIST_GRID] = {"cpu_hist_grid", 0, 2, 0},
    /* segmented sort: the long class's algorithm (twelfth session) */
    [PP_OPTION_SEGSORT_LONG] = {"segsort_long", 0, 2, 0},
    /* segmented sort: the packed kernel's pipeline (twelfth session) */
    [PP_OPTION_SEGSORT_PACK_PIPE] = {"segsort_pack_pipe", 0, 4, 0},
    [PP_OPTION_SEGSORT_MSD_GROUP] = {"segsort_msd_group", 0, 2, 0},
    /* segmented sort: the pipelined kernel's second launch (nineteenth session) */
    [PP_OPTION_SEGSORT_PIPE_PDL] = {"segsort_pipe_pdl", 0, 1, 0},
};

static const option_info *info(pp_option o)
{
    if ((int)o <= 0 || (int)o >= PP_OPTION_COUNT_ || !option_table[o].name) return NULL;
    return &option_table[o];
}

/* Values inside [lo, hi] that the option still refuses. */
static const char *refused(pp_option o, int64_t v)
{
    switch (o) {
    case PP_OPTION_HIST_CLUSTER: return v == 1 ? "a cluster has 2 to 16 blocks (0: the chooser)" : NULL;
    case PP_OPTION_CPU_HIST_LANES:
        return v == 0 || v == 4 || v == 8 || v == 16 ? NULL : "the lanes are 0 (widest), 4, 8 or 16";
    case PP_OPTION_CPU_HIST_ROUND:
        return v == 0 || v >= 65536 ? NULL : "a round is 0 (2^31) or at least 2^16 samples";
    case PP_OPTION_RBI_STRATEGY:
        return v == PP_HIST_STRATEGY_AUTO || v == PP_HIST_STRATEGY_SHARED || v == PP_HIST_STRATEGY_GLOBAL
                   ? NULL
                   : "reduce by index has the strategies auto, shared and global";
    default: return NULL;
    }
}

void pp__options_init(pp_context *ctx);
void pp__options_init(pp_context *ctx)
{
    for (int o = 1; o < PP_OPTION_COUNT_; ++o) ctx->options[o] = option_table[o].dflt;
    memset(&ctx->plan, 0, sizeof ctx->plan);
}

pp_status pp_context_set_option(pp_context *ctx, pp_option option, int64_t value)
{
    PP_ENTER(ctx);
    const option_info *in = info(option);
    if (!in)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "pp_context_set_option: argument 'option' has unknown value %d", (int)option);
    if (value < in->lo || value > in->hi)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "pp_context_set_option: argument 'value' (%lld) is outside %s's bounds [%lld, %lld]",
                        (long long)value, in->name, (long long)in->lo, (long long)in->hi);
    const char *why = refused(option, value);
    if (why)
        return pp__fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                        "pp_context_set_option: argument 'value' (%lld) is not accepted by %s: %s",
                        (long long)value, in->name, why);
    ctx->options[option] = value;
    return PP_OK;
}

pp_status pp_context_get_option(const pp_context *ctx, pp_option option, int64_t *value)
{
    if (!ctx || !value || !info(option)) return PP_ERROR_INVALID_ARGUMENT;
    *value = ctx->options[option];
    return PP_OK;
}

pp_status pp_option_bounds(pp_option option, int64_t *lo, int64_t *hi, int64_t *dflt)
{
    const option_info *in = info(option);
    if (!in) return PP_ERROR_INVALID_ARGUMENT;
    if (lo) *lo = in->lo;
    if (hi) *hi = in->hi;
    if (dflt) *dflt = in->dflt;
    return PP_OK;
}

const char *pp_option_name(pp_option option)
{
    const option_info *in = info(option);
    return in ? in->name : NULL;
}

pp_status pp_option_from_name(const char *name, pp_option *option)
{
    if (!name || !option) return PP_ERROR_INVALID_ARGUMENT;
    for (int o = 1; o < PP_OPTION_COUNT_; ++o)
        if (option_table[o].name && !strcmp(option_table[o].name, name)) {
            *option = (pp_option)o;
            return PP_OK;
        }
    return PP_ERROR_INVALID_ARGUMENT;
}

pp_status pp_context_last_plan(const pp_context *ctx, pp_plan *plan)
{
    if (!ctx || !plan) return PP_ERROR_INVALID_ARGUMENT;
    *plan = ctx->plan;
    return PP_OK;
}

/* A bounded copy of a static name (NULL: ""): every primitive call records its plan, and a
 * formatted print cost more than the copy on the small-n paths. */
static void copy_name(char *dst, size_t size, const char *src)
{
    size_t len = 0;
    if (src)
        while (len + 1 < size && src[len]) ++len;
    memcpy(dst, src ? src : "", len);
    dst[len] = '\0';
}

void pp__set_plan(pp_context *ctx, const char *family, const char *strategy, uint64_t grid,
                  uint64_t tiles, int64_t p0, int64_t p1, int64_t p2, int64_t p3)
{
    pp_plan *p = &ctx->plan;
    copy_name(p->family, sizeof p->family, family);
    copy_name(p->strategy, sizeof p->strategy, strategy);
    p->grid = grid;
    p->tiles = tiles;
    p->param[0] = p0;
    p->param[1] = p1;
    p->param[2] = p2;
    p->param[3] = p3;
}

int pp__alloc_fails(pp_context *ctx)
{
    int64_t *k = &ctx->options[PP_OPTION_FAIL_ALLOC];
    if (*k <= 0) return 0;
    return --*k == 0;
}

pp_status pp__alloc_with(pp_context *ctx, void **ptr, size_t bytes, const char *what,
                         pp_status (*alloc)(pp_context *ctx, void **ptr, size_t bytes))
{
    *ptr = NULL;
    if (pp__alloc_fails(ctx))
        return pp__fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes (failed on purpose: "
                        "PP_OPTION_FAIL_ALLOC)", what, bytes);
    pp_status st = alloc(ctx, ptr, bytes);
    if (st != PP_OK) {
        *ptr = NULL;
        if (ctx->message[0] == '\0') pp__fail(ctx, st, "%s: cannot allocate %zu bytes", what, bytes);
    }
    return st;
}

pp_status pp__mem_alloc(pp_context *ctx, void **ptr, size_t bytes, const char *what)
{
    return pp__alloc_with(ctx, ptr, bytes, what, ctx->ops->mem_alloc);
}
