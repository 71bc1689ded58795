/* sort.c -- parprim_mpi's distributed sort: NOT WRITTEN YET (placeholder of the skeleton
 * commit; every call says PP_ERROR_UNSUPPORTED). */
#include "mpi_common.h"

#include <string.h>

pp_status pp_mpi_sort_keys(pp_context *ctx, MPI_Comm comm, const void *keys_in, size_t n, void *keys_out,
                           size_t out_capacity, size_t *n_out, pp_dtype key_type, pp_sort_order order,
                           int begin_bit, int end_bit)
{
    (void)ctx, (void)comm, (void)keys_in, (void)n, (void)keys_out, (void)out_capacity, (void)n_out;
    (void)key_type, (void)order, (void)begin_bit, (void)end_bit;
    pm_set_error("pp_mpi_sort_keys: not written yet");
    return PP_ERROR_UNSUPPORTED;
}

pp_status pp_mpi_sort_pairs(pp_context *ctx, MPI_Comm comm, const void *keys_in, const void *values_in, size_t n,
                            void *keys_out, void *values_out, size_t out_capacity, size_t *n_out, pp_dtype key_type,
                            pp_dtype value_type, pp_sort_order order, int begin_bit, int end_bit)
{
    (void)ctx, (void)comm, (void)keys_in, (void)values_in, (void)n, (void)keys_out, (void)values_out;
    (void)out_capacity, (void)n_out, (void)key_type, (void)value_type, (void)order, (void)begin_bit, (void)end_bit;
    pm_set_error("pp_mpi_sort_pairs: not written yet");
    return PP_ERROR_UNSUPPORTED;
}

pp_status pp_mpi_last_sort_stats(pp_mpi_sort_stats *stats)
{
    if (!stats) return PP_ERROR_INVALID_ARGUMENT;
    memset(stats, 0, sizeof *stats);
    return PP_OK;
}
