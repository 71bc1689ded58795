/* histogram.c -- parprim_mpi (being written) */
#include "mpi_common.h"
