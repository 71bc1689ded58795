#!/bin/bash
# eleventh session, helper argsort, call 2: base 03dd50d (= main 60e49cf's library + the split rows)
# against s11-argsort (argsort keys as their encodings), same process as CUB for the branch,
# alternating, two rounds; ncu per kernel of the branch's argsort f32; test_sort[hip]; sanitizers.
# (.wt/argsort-c1 = 03dd50d, .wt/argsort-c2 = cfe3b50, whose library is 012fa28's)
BUDGET=${BUDGET:-385}
t0=$(date +%s); el(){ echo $(( $(date +%s) - t0 )); }
cap(){ local l=$(( BUDGET - $(el) - ${2:-0} )); [ $l -lt 5 ] && l=5; [ $1 -lt $l ] && echo $1 || echo $l; }
log(){ echo "[$(el) s] $*" | tee -a $OUT/summary.txt; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a $OUT/summary.txt
NV="-G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release"
(cmake -S .wt/argsort-c1 -B /tmp/bb $NV -DPP_BUILD_TESTS=OFF > /tmp/cfg-b.txt 2>&1 && cmake --build /tmp/bb -j7 --target parprim-bench > /tmp/build-b.txt 2>&1; echo "build base rc=$? $(tail -1 /tmp/build-b.txt)" >> $OUT/summary.txt) &
(cmake -S .wt/argsort-c2 -B /tmp/bn $NV -DPP_BUILD_TESTS=ON > /tmp/cfg-n.txt 2>&1 && cmake --build /tmp/bn -j9 --target parprim-bench test_sort > /tmp/build-n.txt 2>&1; echo "build new rc=$? $(tail -1 /tmp/build-n.txt)" >> $OUT/summary.txt) &
wait; log built
for r in 1 2; do
  timeout $(cap 40 200) /tmp/bb/bench/parprim-bench --backend hip --only 'argsort f32,sort_pairs u32' --no-peer > $OUT/bench-base-r$r.txt 2>&1
  log "base round $r rc=$?"; grep -E '^(sort_|argsort)' $OUT/bench-base-r$r.txt | tr -s ' ' | tee -a $OUT/summary.txt
  timeout $(cap 75 120) /tmp/bn/bench/parprim-bench --backend hip --only 'argsort,sort_pairs u32' > $OUT/bench-new-r$r.txt 2>&1
  log "new round $r rc=$?"; grep -E '^(sort_|argsort)' $OUT/bench-new-r$r.txt | tr -s ' ' | tee -a $OUT/summary.txt
done
M=gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
timeout $(cap 30 95) ncu --clock-control none -k regex:'sort_histogram|onesweep_pass' -c 5 --metrics $M /tmp/bn/bench/parprim-bench --backend hip --only 'argsort f32' --no-peer --reps 1 > $OUT/ncu-new-argsort_f32.txt 2>&1
log "ncu rc=$?"; grep -E 'gpu__time|smsp__inst_executed.sum ' $OUT/ncu-new-argsort_f32.txt | awk '{print $1, $(NF-1), $NF}' | paste - - | tee -a $OUT/summary.txt
cd /tmp/bn
tst(){ PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_REQUIRE_GPU=1 PP_TEST_FILTER="$1" timeout $(cap 80 5) ./tests/test_sort > /tmp/t.$2.txt 2>&1; echo "test $1 rc=$? $(grep -E '^\[  (PASSED|FAILED)|test\(s\) run' /tmp/t.$2.txt | tr '\n' ' ')"; grep -E 'FAIL|error' /tmp/t.$2.txt | head -3; }
san(){ PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_FILTER="$2" timeout $(cap 85 3) compute-sanitizer --tool $1 --error-exitcode 9 ./tests/test_sort > /tmp/s.$1.$3.txt 2>&1; echo "$1 [$2] rc=$? $(grep -E 'test\(s\) run|ERROR SUMMARY|RACECHECK SUMMARY' /tmp/s.$1.$3.txt | tr '\n' ' ')"; grep -E '^========= (Invalid|Race|Barrier|Error)' /tmp/s.$1.$3.txt | head -3; }
{
  i=0; for p in 't_sort_u8*' 't_sort_i32*' 't_sort_u32*' 't_sort_i64*' 't_sort_u64*' 't_sort_f32*' 't_sort_f64*' 't_sort_layouts*' 't_sort_float_specials*' 't_sort_bits*' 't_sort_in_place*' 't_sort_strategies*' 't_sort_empty*' 't_sort_onesweep_variants*' 't_sort_wide_tiles*' 't_sort_argsort_skips*'; do i=$((i+1)); tst "$p" $i & done
  san memcheck 't_sort_argsort_skips*' a & san racecheck 't_sort_argsort_skips*' b & san synccheck 't_sort_argsort_skips*' c &
  wait
} > $OUT/tests_san.txt 2>&1
log "tests: $(grep -c 'rc=0' $OUT/tests_san.txt) of $(grep -c 'rc=' $OUT/tests_san.txt) rc=0"; cat $OUT/tests_san.txt | cut -c1-220 | tee -a $OUT/summary.txt
log done
