#!/bin/sh
# ab4.sh rounds reps threads drivers...: each round runs every driver once, one line per run
r=$1; reps=$2; th=$3; shift 3
for i in $(seq 1 $r); do for v in "$@"; do echo "$v $(cut -d' ' -f1 /proc/loadavg) $(OMP_NUM_THREADS=$th build/drv/$v $((1<<26)) $reps | head -1 | sed 's/.*best \([0-9.]*\) mean \([0-9.]*\).*/best \1 mean \2/')"; done; done
