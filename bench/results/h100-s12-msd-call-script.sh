#!/usr/bin/env bash
set -uo pipefail
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
log() { echo "[$(el) s] $*" | tee -a $OUT/summary.txt; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a $OUT/summary.txt
T=${TREE:-.wt/msd-new}
cat $T/COMMIT 2>/dev/null | tee -a $OUT/summary.txt
NV=(-G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release)
(cmake -S $T -B /tmp/bm "${NV[@]}" && cmake --build /tmp/bm -j16 --target parprim test_segsort parprim-bench) >/tmp/build.txt 2>&1
log "build rc=$? $(tail -1 /tmp/build.txt)"; grep -E 'error' /tmp/build.txt | head -20 | tee -a $OUT/summary.txt
cd /tmp/bm
PP_TEST_BACKEND=hip PP_TEST_QUICK=1 timeout 150 ./tests/test_segsort > /tmp/test_segsort.txt 2>&1
log "test_segsort[hip] rc=$?: $(grep -cE '^\[       OK' /tmp/test_segsort.txt) ok, $(grep -cE '^\[  FAILED' /tmp/test_segsort.txt) failed lines"
grep -E "FAILED|error|mismatch|differ" /tmp/test_segsort.txt | head -20 | tee -a $OUT/summary.txt
timeout 200 ./bench/parprim-bench --backend hip --only 'segsort_keys,segsort_pairs_256,segsort_one_vs,segsort_mixed_vs' --n 2^26 --reps 10 > /tmp/bench.txt 2>&1
log "bench rc=$?"; grep -E "segsort" /tmp/bench.txt | head -60 | tee -a $OUT/summary.txt
timeout 60 ncu --csv --metrics gpu__time_duration.sum -k regex:"seg" ./bench/parprim-bench --backend hip --only "segsort_keys_16384 u32" --option segsort_merge_launch=1 --option segsort_long=2 --no-peer --n 2^26 --reps 1 > /tmp/ncu_t.txt 2>&1
python3 - /tmp/ncu_t.txt <<'PY' | head -24 | tee -a $OUT/summary.txt
import csv,sys
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index("Kernel Name"); vi=h.index("Metric Value"); ii=h.index("ID")
for r in rows[1:]:
    print(r[ii], r[ki].split("(")[0][:60], r[vi])
PY
for tool in memcheck racecheck synccheck; do
PP_TEST_BACKEND=hip PP_TEST_QUICK=1 PP_TEST_FILTER='*radix_levels*' timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 ./tests/test_segsort > /tmp/san.txt 2>&1
log "$tool radix_levels rc=$?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.txt | tail -1) $(grep -cE '^\[       OK' /tmp/san.txt) ok"
done
log done
