/*
 * cpu.h -- what the CPU backend's files share (private to cpu/).
 * cpu/backend.c holds the ops table; each primitive family's file defines its entries.
 * cpu/common.h holds what the kernels share (operators, segments, dispatch rows); the
 * *_impl.h headers are templates included once per kernel.
 */
#ifndef PARPRIM_CPU_H
#define PARPRIM_CPU_H

#include "internal.h"

/* cpu/reduce.c */
pp_status pp__cpu_reduce(pp_context *ctx, const pp_reduce_args *a);
pp_status pp__cpu_argreduce(pp_context *ctx, const pp_argreduce_args *a);
pp_status pp__cpu_segmented_reduce(pp_context *ctx, const pp_segreduce_args *a);

/* cpu/scan.c */
pp_status pp__cpu_scan(pp_context *ctx, const pp_scan_args *a);

/* cpu/histogram.c (issue 4) */
pp_status pp__cpu_histogram(pp_context *ctx, const pp_histogram_args *a);
pp_status pp__cpu_reduce_by_index(pp_context *ctx, const pp_reduce_by_index_args *a);

/* cpu/compaction.c (issue 19) */
pp_status pp__cpu_compact(pp_context *ctx, const pp_compact_args *a);
/* cpu/sort.c (issue 20) */
pp_status pp__cpu_sort(pp_context *ctx, const pp_sort_args *a);
/* The same sort of a (values_in set where value_size > 0; no argsort) on the calling thread, with
 * the caller's scratch of pp__cpu_sort_serial_bytes(n, ...) bytes (cpu/segsort.c, issue 22). */
size_t pp__cpu_sort_serial_bytes(size_t n, size_t key_size, size_t value_size);
void pp__cpu_sort_serial(const pp_sort_args *a, void *scratch);
/* At least the scratch pp__cpu_sort asks for a sort of n keys (values) without argsort. */
size_t pp__cpu_sort_bytes_bound(size_t n, size_t key_size, size_t value_size);

/* cpu/sat.c (issue 21) */
pp_status pp__cpu_grid_scan(pp_context *ctx, const pp_grid_args *a);
pp_status pp__cpu_transpose(pp_context *ctx, const pp_transpose_args *a);

/* cpu/segsort.c (issue 22) */
pp_status pp__cpu_segmented_sort(pp_context *ctx, const pp_segsort_args *a);

#endif
