/*
 * mpi_common.c -- verdicts, messages, host arithmetic and staging for parprim_mpi (see
 * mpi_common.h).
 */
#include "mpi_common.h"

#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_ROCM_AWARE_SUPPORT where Open MPI has them */
#endif

static _Thread_local char last_error[512];

void pm_set_error(const char *msg) { snprintf(last_error, sizeof last_error, "%s", msg ? msg : ""); }

const char *pp_mpi_last_error(void) { return last_error; }

const char *pp_mpi_status_string(pp_status status)
{
    if (status == PP_ERROR_COMMUNICATION) return "PP_ERROR_COMMUNICATION: an MPI call failed";
    return pp_status_string(status);
}

pp_status pm_fail(pm_check *c, pp_status st, const char *fmt, ...)
{
    if (c->st == PP_OK) {
        c->st = st;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->msg, sizeof c->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}

pp_status pm_local(pm_check *c, pp_context *ctx, pp_status st, const char *what)
{
    if (st != PP_OK) pm_fail(c, st, "%s: %s", what, pp_context_last_error(ctx));
    return st;
}

pp_status pm_mpi(pm_check *c, int rc, const char *what)
{
    if (rc == MPI_SUCCESS) return PP_OK;
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "MPI error %d", rc);
    return pm_fail(c, PP_ERROR_COMMUNICATION, "%s: %s", what, s);
}

pp_status pm_comm(pm_check *c, MPI_Comm comm, const char *fn, int *rank, int *size)
{
    *rank = 0;
    *size = 1;
    if (comm == MPI_COMM_NULL) return pm_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'comm' is MPI_COMM_NULL", fn);
    if (pm_mpi(c, MPI_Comm_rank(comm, rank), "MPI_Comm_rank") != PP_OK) return c->st;
    return pm_mpi(c, MPI_Comm_size(comm, size), "MPI_Comm_size");
}

int pm_begin(pm_check *c, MPI_Comm comm, const char *fn, const pp_context *ctx, int *rank, int *size)
{
    if (pm_comm(c, comm, fn, rank, size) != PP_OK) {
        pm_set_error(c->msg);
        return 0;
    }
    if (!ctx) pm_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'ctx' is NULL", fn);
    return 1;
}

pp_status pm_agree(pm_check *c, MPI_Comm comm, const char *fn)
{
    int mine = (int)c->st, worst = 0, rank = 0, first;
    MPI_Comm_rank(comm, &rank);
    if (MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) {
        pm_fail(c, PP_ERROR_COMMUNICATION, "%s: MPI_Allreduce of the ranks' verdicts failed", fn);
        pm_set_error(c->msg);
        return PP_ERROR_COMMUNICATION;
    }
    if (worst == 0) return PP_OK;
    /* the lowest rank that failed with the worst status tells every rank why */
    int cand = mine == worst ? rank : 1 << 30;
    if (MPI_Allreduce(&cand, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) first = rank;
    char msg[sizeof c->msg + 64];
    if (first == rank) snprintf(msg, sizeof msg, "%s", c->msg);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, comm);
    msg[sizeof msg - 1] = '\0';
    char full[sizeof msg + 96];
    snprintf(full, sizeof full, "%s (found on rank %d)", msg, first);
    pm_set_error(full);
    return (pp_status)worst;
}

pp_status pm_same(pm_check *c, MPI_Comm comm, const char *fn, const int64_t *v, const char *const *names, int count)
{
    enum { MAXV = 16 };
    int64_t both[2 * MAXV] = {0}, ext[2 * MAXV] = {0};
    if (count > MAXV) count = MAXV;
    for (int i = 0; i < count; ++i) {
        both[i] = v[i];
        both[count + i] = v[i] == INT64_MIN ? INT64_MAX : -v[i];
    }
    if (pm_mpi(c, MPI_Allreduce(both, ext, 2 * count, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce") != PP_OK)
        return c->st;
    for (int i = 0; i < count; ++i)
        if (ext[i] != v[i] || ext[count + i] != both[count + i])
            return pm_fail(c, PP_ERROR_INVALID_ARGUMENT,
                           "%s: argument '%s' differs between ranks (this rank: %lld; every rank must pass the same)",
                           fn, names[i], (long long)v[i]);
    return PP_OK;
}

pp_status pm_allgather_u64(pm_check *c, MPI_Comm comm, uint64_t v, uint64_t *all)
{
    return pm_mpi(c, MPI_Allgather(&v, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, comm), "MPI_Allgather");
}

void *pm_gather_alloc(pm_check *c, int size, size_t bytes)
{
    void *all = malloc(bytes * (size_t)size);
    if (!all) pm_fail(c, PP_ERROR_OUT_OF_MEMORY, "gathering %zu bytes from each of %d ranks: out of host memory", bytes, size);
    return all;
}

pp_status pm_allgather(pm_check *c, MPI_Comm comm, const void *mine, size_t bytes, void *all)
{
    return pm_mpi(c, MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, comm), "MPI_Allgather");
}

pp_status pm_offset_total(pm_check *c, MPI_Comm comm, uint64_t v, uint64_t *offset, uint64_t *total)
{
    int rank = 0;
    *offset = 0;
    MPI_Comm_rank(comm, &rank);
    if (pm_mpi(c, MPI_Exscan(&v, offset, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Exscan") != PP_OK) return c->st;
    if (rank == 0) *offset = 0; /* MPI_Exscan leaves rank 0's result undefined */
    return pm_mpi(c, MPI_Allreduce(&v, total, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
}

int pm_overlaps(const void *a, size_t an, const void *b, size_t bn)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return an && bn && x < y + bn && y < x + an;
}

/* ---- host arithmetic ---------------------------------------------------------------------- */

pm_cell pm_identity(pp_dtype t, pp_op op)
{
    pm_cell c;
    memset(&c, 0, sizeof c);
    switch (op) {
    case PP_OP_PROD:
        switch (t) {
        case PP_U8: c.u8 = 1; break;
        case PP_I32: c.i32 = 1; break;
        case PP_U32: c.u32 = 1; break;
        case PP_I64: c.i64 = 1; break;
        case PP_U64: c.u64 = 1; break;
        case PP_F32: c.f32 = 1.0f; break;
        case PP_F64: c.f64 = 1.0; break;
        }
        break;
    case PP_OP_MIN:
        switch (t) {
        case PP_U8: c.u8 = UINT8_MAX; break;
        case PP_I32: c.i32 = INT32_MAX; break;
        case PP_U32: c.u32 = UINT32_MAX; break;
        case PP_I64: c.i64 = INT64_MAX; break;
        case PP_U64: c.u64 = UINT64_MAX; break;
        case PP_F32: c.f32 = INFINITY; break;
        case PP_F64: c.f64 = INFINITY; break;
        }
        break;
    case PP_OP_MAX:
        switch (t) {
        case PP_U8: c.u8 = 0; break;
        case PP_I32: c.i32 = INT32_MIN; break;
        case PP_U32: c.u32 = 0; break;
        case PP_I64: c.i64 = INT64_MIN; break;
        case PP_U64: c.u64 = 0; break;
        case PP_F32: c.f32 = -INFINITY; break;
        case PP_F64: c.f64 = -INFINITY; break;
        }
        break;
    case PP_OP_AND: memset(&c, 0xFF, pp_dtype_size(t)); break;
    default: break; /* SUM, OR, XOR: 0 */
    }
    return c;
}

#define PM_MINMAX(x, y, lt) ((lt) ? (x) : (y))

pm_cell pm_combine(pp_dtype t, pp_op op, pm_cell a, pm_cell b)
{
    pm_cell r;
    memset(&r, 0, sizeof r);
    switch (t) {
#define PM_INT(T, M)                                                                        \
    case T:                                                                                 \
        switch (op) {                                                                       \
        case PP_OP_SUM: r.M = (__typeof__(r.M))((uint64_t)a.M + (uint64_t)b.M); break;      \
        case PP_OP_PROD: r.M = (__typeof__(r.M))((uint64_t)a.M * (uint64_t)b.M); break;     \
        case PP_OP_MIN: r.M = PM_MINMAX(a.M, b.M, a.M < b.M); break;                       \
        case PP_OP_MAX: r.M = PM_MINMAX(a.M, b.M, a.M > b.M); break;                       \
        case PP_OP_AND: r.M = a.M & b.M; break;                                             \
        case PP_OP_OR: r.M = a.M | b.M; break;                                              \
        case PP_OP_XOR: r.M = a.M ^ b.M; break;                                             \
        }                                                                                   \
        break;
        PM_INT(PP_U8, u8)
        PM_INT(PP_I32, i32)
        PM_INT(PP_U32, u32)
        PM_INT(PP_I64, i64)
        PM_INT(PP_U64, u64)
#undef PM_INT
#define PM_FLT(T, M)                                                                        \
    case T:                                                                                 \
        switch (op) {                                                                       \
        case PP_OP_SUM: r.M = a.M + b.M; break;                                             \
        case PP_OP_PROD: r.M = a.M * b.M; break;                                            \
        case PP_OP_MIN: r.M = isnan(a.M) ? a.M : isnan(b.M) ? b.M : PM_MINMAX(a.M, b.M, a.M < b.M); break; \
        case PP_OP_MAX: r.M = isnan(a.M) ? a.M : isnan(b.M) ? b.M : PM_MINMAX(a.M, b.M, a.M > b.M); break; \
        default: break;                                                                     \
        }                                                                                   \
        break;
        PM_FLT(PP_F32, f32)
        PM_FLT(PP_F64, f64)
#undef PM_FLT
    }
    return r;
}

pm_cell pm_widen(pp_dtype from, pp_dtype to, pm_cell x)
{
    if (from == to) return x;
    pm_cell r;
    memset(&r, 0, sizeof r);
    switch (to) {
    case PP_U32: r.u32 = x.u8; break; /* only u8 widens to u32 */
    case PP_U64: r.u64 = from == PP_U8 ? x.u8 : x.u32; break;
    case PP_I64: r.i64 = x.i32; break;
    case PP_F64: r.f64 = x.f32; break;
    default: r = x; break;
    }
    return r;
}

int pm_more_extreme(pp_dtype t, int is_max, pm_cell a, pm_cell b)
{
    switch (t) {
    case PP_U8: return is_max ? a.u8 > b.u8 : a.u8 < b.u8;
    case PP_I32: return is_max ? a.i32 > b.i32 : a.i32 < b.i32;
    case PP_U32: return is_max ? a.u32 > b.u32 : a.u32 < b.u32;
    case PP_I64: return is_max ? a.i64 > b.i64 : a.i64 < b.i64;
    case PP_U64: return is_max ? a.u64 > b.u64 : a.u64 < b.u64;
    case PP_F32:
        if (isnan(a.f32)) return !isnan(b.f32);
        if (isnan(b.f32)) return 0;
        return is_max ? a.f32 > b.f32 : a.f32 < b.f32;
    case PP_F64:
        if (isnan(a.f64)) return !isnan(b.f64);
        if (isnan(b.f64)) return 0;
        return is_max ? a.f64 > b.f64 : a.f64 < b.f64;
    }
    return 0;
}

int pm_keys_equal(pp_dtype t, pm_cell a, pm_cell b)
{
    switch (t) {
    case PP_F32: return a.f32 == b.f32 || (isnan(a.f32) && isnan(b.f32));
    case PP_F64: return a.f64 == b.f64 || (isnan(a.f64) && isnan(b.f64));
    default: return memcmp(&a, &b, pp_dtype_size(t)) == 0;
    }
}

/* ---- memory ------------------------------------------------------------------------------- */

pp_status pm_to_host(pm_check *c, pp_context *ctx, void *host, const void *src, size_t bytes)
{
    return pm_local(c, ctx, pp_memcpy(ctx, host, src, bytes, PP_COPY_CONTEXT_TO_HOST), "copying to the host");
}

pp_status pm_from_host(pm_check *c, pp_context *ctx, void *dst, const void *host, size_t bytes)
{
    return pm_local(c, ctx, pp_memcpy(ctx, dst, host, bytes, PP_COPY_HOST_TO_CONTEXT), "copying from the host");
}

void *pm_stage_alloc(pm_check *c, pp_context *ctx, size_t bytes)
{
    void *p = NULL;
    if (pm_local(c, ctx, pp_host_malloc(ctx, &p, bytes ? bytes : 1), "a host staging buffer") != PP_OK) return NULL;
    return p;
}

void pm_stage_free(pp_context *ctx, void *p)
{
    if (p) pp_host_free(ctx, p);
}

static int gpu_aware_mpi(void)
{
#if defined(PM_HIP_NVIDIA) && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#elif defined(PM_HIP_AMD) && defined(MPIX_ROCM_AWARE_SUPPORT) && MPIX_ROCM_AWARE_SUPPORT
    return MPIX_Query_rocm_support() == 1;
#else
    return 0;
#endif
}

/* PP_OPTION_MPI_STAGING set to 1 on the context */
static int forced_staging(const pp_context *ctx)
{
    int64_t v = 0;
    return pp_context_get_option(ctx, PP_OPTION_MPI_STAGING, &v) == PP_OK && v == 1;
}

int pm_direct(const pp_context *ctx)
{
    if (forced_staging(ctx)) return 0;
    return pp_context_backend(ctx) == PP_BACKEND_CPU || gpu_aware_mpi();
}

int pm_host_access(const pp_context *ctx) { return pp_context_backend(ctx) == PP_BACKEND_CPU && !forced_staging(ctx); }

int pp_mpi_direct(const pp_context *ctx) { return ctx && pm_direct(ctx); }

MPI_Datatype pm_mpi_type(pp_dtype t)
{
    switch (t) {
    case PP_U8: return MPI_UINT8_T;
    case PP_I32: return MPI_INT32_T;
    case PP_U32: return MPI_UINT32_T;
    case PP_I64: return MPI_INT64_T;
    case PP_U64: return MPI_UINT64_T;
    case PP_F32: return MPI_FLOAT;
    case PP_F64: return MPI_DOUBLE;
    }
    return MPI_DATATYPE_NULL;
}

double pm_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
