#!/bin/bash
# bench/sortperf4_h100.sh -- one device call for the onesweep variant FUSED (5) against
# EARLY_WINDOW (4) (issue 20, third session, round 2): builds parprim, parprim-bench, test_sort
# and test_blocks (sm_90, Release); the sort rows once per variant (4 then 5, CUB in the same
# process in every row); test_sort[hip] and test_blocks[hip] (quick); compute-sanitizer memcheck
# and racecheck on small filters. Each step has a timeout cut to what is left of BUDGET s.
# Output under $OUT: summary.txt, logs.tgz. The first call (b63362a, BUDGET 280) cut the bench at
# 60 s a variant (the 7 rows take longer) and test_sort at 110 s (inside t_sort_onesweep_variants,
# which runs 5 variants now): the caps here are those steps' measured needs, about 480 s in all.
BUDGET="${BUDGET:-480}"
OUT="${OUT:-/tmp/sortperf4-out}"; L=/tmp/logs4; BUILD=/tmp/b4
source "$(dirname "$0")/sortperf_prologue.sh"
ROWS='sort_keys u32,sort_keys f32,sort_pairs u32,sort_keys_half_n u64,argsort f32,sort_keys_sorted,latency_sort'
for v in 4 5; do
    timeout "$(cap 90 220)" $B --backend hip --only "$ROWS" --option sort_onesweep=$v >$L/bench_v$v.txt 2>&1
    log "bench sort_onesweep=$v rc=$?"
    grep -E '^(sort|argsort|latency)' $L/bench_v$v.txt | tr -s ' ' | tee -a "$OUT/summary.txt"
done
PP_TEST_QUICK=1 PP_TEST_REQUIRE_GPU=1 PP_TEST_BACKEND=hip timeout "$(cap 170 50)" ./tests/test_sort >$L/test_sort.txt 2>&1
log "test_sort[hip] rc=$?: $(grep -cE '^\[       OK' $L/test_sort.txt) ok: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)|FAILED|fail' $L/test_sort.txt | head -5 | tr '\n' ' ')"
PP_TEST_QUICK=1 PP_TEST_REQUIRE_GPU=1 PP_TEST_BACKEND=hip PP_TEST_FILTER='t_radix_rank' timeout "$(cap 20 45)" \
    ./tests/test_blocks >$L/test_blocks.txt 2>&1
log "test_blocks[hip] t_radix_rank rc=$?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $L/test_blocks.txt | tr '\n' ' ')"
san() {  # tool, test, filter
    PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_FILTER="$3" timeout "$(cap 40 3)" \
        compute-sanitizer --tool "$1" --error-exitcode 9 ./tests/"$2" >$L/san.$1.$2.txt 2>&1
    echo "$1 $2 [$3] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san.$1.$2.txt | tail -1)"
}
{
    san memcheck test_sort 't_sort_u32*' & san racecheck test_blocks 't_radix_rank' &
    san racecheck test_sort 't_sort_in_place*' &
    wait
} >$L/san.txt 2>&1
log "sanitizers: $(tr '\n' ' ' <$L/san.txt)"
finish
