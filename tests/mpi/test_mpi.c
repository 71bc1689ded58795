/* test_mpi.c -- parprim_mpi's reduce, scan, histogram and compaction against the
 * single-process calls on the gathered data (being written). */
#include "mpi_check.h"

static void t_ranks(void) { MC_CHECK(mc.size >= 1, "size %d", mc.size); }

int main(int argc, char **argv)
{
    mc_init(&argc, &argv, "test_mpi");
    mc_run("t_ranks", t_ranks);
    return mc_finish();
}
