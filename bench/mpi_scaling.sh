#!/usr/bin/env bash
# bench/mpi_scaling.sh BUILD_DIR [N] [BACKEND] -- parprim-bench-mpi's scaling series (issue 23):
# strong scaling (N keys in all; default 2^26) at 1, 2 and 4 ranks, then weak scaling (N / 2
# keys per rank) at 1 and 2 ranks. One OpenMP thread per rank where the ranks fill the
# cores (2 ranks on a 2-core machine), every core at 1 rank. Prints the tables as they come.
set -euo pipefail
build="${1:?usage: bench/mpi_scaling.sh BUILD_DIR [N] [BACKEND]}"
n="${2:-67108864}"
backend="${3:-cpu}"
bin="$build/bench/parprim-bench-mpi"
cores=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for np in 1 2 4; do
    threads=$((cores / np)); [ "$threads" -ge 1 ] || threads=1
    echo "== strong, $np ranks, OMP_NUM_THREADS=$threads"
    OMP_NUM_THREADS=$threads mpirun --oversubscribe --bind-to none -np "$np" "$bin" --backend "$backend" --n "$n" --reps 3
done
for np in 1 2; do
    threads=$((cores / np)); [ "$threads" -ge 1 ] || threads=1
    echo "== weak, $np ranks, OMP_NUM_THREADS=$threads"
    OMP_NUM_THREADS=$threads mpirun --oversubscribe --bind-to none -np "$np" "$bin" --backend "$backend" --n $((n / 2)) --weak --reps 3
done
