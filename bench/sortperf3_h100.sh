#!/bin/bash
# bench/sortperf3_h100.sh -- one device call for the third sort session (issue 20): builds the
# tree (sm_90, Release: parprim, parprim-bench, test_sort, test_blocks, test_big) and beside it
# parprim-bench with SORT_ONESWEEP_MIN_BLOCKS_KEYS=4 (the keys-only pass at 64 registers, four
# blocks per SM); test_sort[hip] and test_blocks[hip] (quick), compute-sanitizer memcheck /
# racecheck / synccheck on small filters, the sort rows with CUB in the same run for both
# builds, ncu on two passes of the u32 and sorted rows, and the > 2^32 key sort of test_big if
# time is left. Every step has a timeout cut to what is left of BUDGET s. Output: one tarball
# under $OUT (the device returns at most 8 files) and summary.txt.
BUDGET="${BUDGET:-400}"
OUT="${OUT:-/tmp/sortperf3-out}"; mkdir -p "$OUT"; L=/tmp/logs; mkdir -p $L
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
left() { local l=$(( BUDGET - $(el) - ${1:-0} )); [ "$l" -lt 5 ] && l=5; echo "$l"; }
cap() { local l; l=$(left "${2:-0}"); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
log() { echo "[$(el) s] $*" | tee -a "$OUT/summary.txt"; }
finish() { tar -czf "$OUT/logs.tgz" -C $L . 2>/dev/null; log "done"; exit 0; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a "$OUT/summary.txt"
log "commit ${COMMIT:-?}"
NV=(-G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release)
(cmake -S . -B /tmp/b3 "${NV[@]}" && cmake --build /tmp/b3 -j10 --target parprim parprim-bench test_sort \
    test_blocks test_big) >$L/build.txt 2>&1 &
(cmake -S . -B /tmp/b4 "${NV[@]}" -DPP_BUILD_TESTS=OFF -DCMAKE_CUDA_FLAGS=-DSORT_ONESWEEP_MIN_BLOCKS_KEYS=4 &&
    cmake --build /tmp/b4 -j6 --target parprim-bench) >$L/build4.txt 2>&1 &
wait
log "build: $(tail -1 $L/build.txt) | b4: $(tail -1 $L/build4.txt)"
grep -E 'error|FAILED|[1-9][0-9]* bytes spill stores' $L/build.txt | head -10 | tee -a "$OUT/summary.txt"
cd /tmp/b3 || finish
B=./bench/parprim-bench
PP_TEST_QUICK=1 PP_TEST_REQUIRE_GPU=1 PP_TEST_BACKEND=hip timeout "$(cap 70 300)" ./tests/test_sort >$L/test_sort.txt 2>&1
log "test_sort[hip] rc=$?: $(grep -cE '^\[       OK' $L/test_sort.txt) ok, $(grep -E 'PASSED|FAILED|SKIPPED' $L/test_sort.txt | tr '\n' ' ')"
PP_TEST_QUICK=1 PP_TEST_REQUIRE_GPU=1 PP_TEST_BACKEND=hip timeout "$(cap 40 280)" ./tests/test_blocks >$L/test_blocks.txt 2>&1
log "test_blocks[hip] rc=$?: $(grep -E 'PASSED|FAILED|SKIPPED' $L/test_blocks.txt | tr '\n' ' ')"
timeout "$(cap 80 190)" $B --backend hip --only sort >$L/bench.txt 2>&1
log "bench rc=$?"; grep -E '^(sort|argsort|latency)' $L/bench.txt | tr -s ' ' | tee -a "$OUT/summary.txt"
timeout "$(cap 45 140)" /tmp/b4/bench/parprim-bench --backend hip \
    --only 'sort_keys u32,sort_keys f32,sort_keys_16,sort_keys_sorted,latency' >$L/bench4.txt 2>&1
log "bench MIN_BLOCKS_KEYS=4 rc=$?"; grep -E '^(sort|argsort|latency)' $L/bench4.txt | tr -s ' ' | tee -a "$OUT/summary.txt"
san() {  # tool, test, filter
    PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_FILTER="$3" timeout "$(cap 50 60)" \
        compute-sanitizer --tool "$1" --error-exitcode 9 ./tests/"$2" >$L/san.$1.$2.txt 2>&1
    echo "$1 $2 [$3] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san.$1.$2.txt | tail -1)"
}
{
    san memcheck test_sort 't_sort_u32*' & san racecheck test_sort 't_sort_in_place*' &
    san synccheck test_sort 't_sort_in_place*' & san racecheck test_blocks 't_radix_rank' &
    wait
} >$L/san.txt 2>&1
log "sanitizers: $(tr '\n' ' ' <$L/san.txt)"
NCU="ncu --set full --import-source no --page details"
timeout "$(cap 30 60)" $NCU -k regex:onesweep_pass -c 1 --launch-skip 4 $B --backend hip --only 'sort_keys u32' \
    --reps 1 --no-peer >$L/ncu_u32.txt 2>&1
timeout "$(cap 30 40)" $NCU -k regex:onesweep_pass -c 1 --launch-skip 4 $B --backend hip --only 'sort_keys_sorted' \
    --reps 1 --no-peer >$L/ncu_sorted.txt 2>&1
for f in ncu_u32 ncu_sorted; do
    log "$f: $(grep -E '^    (Duration|Registers Per Thread|Achieved Occupancy|Executed Instructions  |Issue Slots Busy)' $L/$f.txt | tr -s ' ' | tr '\n' ';')"
done
if [ "$(left)" -gt 60 ]; then
    PP_TEST_BACKEND=hip PP_TEST_FILTER='t_big_sort*' timeout "$(left 5)" ./tests/test_big >$L/big.txt 2>&1
    log "test_big[hip] t_big_sort rc=$?: $(grep -E 'PASSED|FAILED|SKIPPED' $L/big.txt | tr '\n' ' ')"
fi
finish
