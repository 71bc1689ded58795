#!/bin/bash
# bench/sortperf3_h100.sh -- one device call for the third sort session (issue 20): builds the
# tree (sm_90, Release: parprim, parprim-bench, test_sort, test_blocks); test_sort[hip]
# and test_blocks[hip] (quick); the sort rows with CUB in the same run; the u32 row under other
# look-back sleeps (scan_pause_ns / scan_delay_ns, which the sort reads too); compute-sanitizer
# memcheck / racecheck / synccheck on small filters; ncu: per-instruction (SASS) counters and
# stall samples of one u32 pass, the durations of the kernels of the 2^16 and 1024 latency
# sorts. Each step has a timeout cut to what
# is left of BUDGET s. Output: logs.tgz and summary.txt under $OUT (the device returns at most
# 8 files).
BUDGET="${BUDGET:-400}"
OUT="${OUT:-/tmp/sortperf3-out}"; L=/tmp/logs; BUILD=/tmp/b3
source "$(dirname "$0")/sortperf_prologue.sh"
PP_TEST_QUICK=1 PP_TEST_REQUIRE_GPU=1 PP_TEST_BACKEND=hip timeout "$(cap 120 200)" ./tests/test_sort >$L/test_sort.txt 2>&1
log "test_sort[hip] rc=$?: $(grep -cE '^\[       OK' $L/test_sort.txt) ok: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $L/test_sort.txt | tr '\n' ' ')"
PP_TEST_QUICK=1 PP_TEST_REQUIRE_GPU=1 PP_TEST_BACKEND=hip timeout "$(cap 30 180)" ./tests/test_blocks >$L/test_blocks.txt 2>&1
log "test_blocks[hip] rc=$?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $L/test_blocks.txt | tr '\n' ' ')"
timeout "$(cap 90 90)" $B --backend hip --only sort >$L/bench.txt 2>&1
log "bench rc=$?"; grep -E '^(sort|argsort|latency)' $L/bench.txt | tr -s ' ' | tee -a "$OUT/summary.txt"
for o in scan_pause_ns=200 scan_pause_ns=1000 scan_delay_ns=1000 scan_delay_ns=3000; do
    timeout "$(cap 12 80)" $B --backend hip --only 'sort_keys u32' --option $o >$L/bench_$o.txt 2>&1
    log "$o: $(grep -E '^sort_keys u32' $L/bench_$o.txt | tr -s ' ')"
done
san() {  # tool, test, filter
    PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_FILTER="$3" timeout "$(cap 45 60)" \
        compute-sanitizer --tool "$1" --error-exitcode 9 ./tests/"$2" >$L/san.$1.$2.txt 2>&1
    echo "$1 $2 [$3] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san.$1.$2.txt | tail -1)"
}
{
    san memcheck test_sort 't_sort_u32*' & san racecheck test_sort 't_sort_in_place*' &
    san synccheck test_sort 't_sort_bits*' & san racecheck test_blocks 't_radix_rank' &
    san memcheck test_sort 't_sort_layouts*' &
    wait
} >$L/san.txt 2>&1
log "sanitizers: $(tr '\n' ' ' <$L/san.txt)"
timeout "$(cap 40 40)" ncu --set full --import-source no -k regex:onesweep_pass -c 1 --launch-skip 5 \
    --page source --print-source sass --csv $B --backend hip --only 'sort_keys u32' --reps 1 --no-peer >$L/ncu_sass.csv 2>&1
log "ncu sass rc=$? lines $(wc -l <$L/ncu_sass.csv)"
timeout "$(cap 20 25)" ncu --metrics gpu__time_duration.sum -k regex:'sort_histogram|onesweep_pass|tile_sort' -c 14 \
    $B --backend hip --only 'latency_sort' --reps 1 --no-peer >$L/ncu_lat.txt 2>&1
log "ncu latency kernels: $(grep -E '^  [a-z_<>]|gpu__time_duration' $L/ncu_lat.txt | sed -E 's/\(.*//' | tr -s ' ' | tr '\n' ' ' | cut -c1-900)"
finish
