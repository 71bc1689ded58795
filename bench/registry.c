/* registry.c -- the families of parprim-bench, in the order they run: one line per cases file. */
#include "bench.h"

#define PB_FAMILIES(X) \
    X(copy)            \
    X(reduce)          \
    X(scan)            \
    X(histogram)       \
    X(compaction) /* compaction family (issue 19) */ \
    X(sort)       /* radix sort family (issue 20) */ \
    X(sat)        /* summed-area table, axis scans, transpose (issue 21) */ \
    X(segsort)    /* segmented sort (issue 22) */

#define PB_DECLARE(name) extern const pb_family pb_family_##name;
#define PB_ENTRY(name) &pb_family_##name,
PB_FAMILIES(PB_DECLARE)
const pb_family *const pb_families[] = {PB_FAMILIES(PB_ENTRY)};
const size_t pb_n_families = sizeof pb_families / sizeof pb_families[0];
