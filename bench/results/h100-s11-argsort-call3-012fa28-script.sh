#!/bin/bash
# eleventh session, helper argsort, call 3: round 2 of base 03dd50d (main 60e49cf's library + the
# split rows) against s11-argsort (012fa28: argsort keys as their encodings, CUB in its process),
# and the experiment s11-argsort-hoist (8d8d261: values passes' loads before their digits) beside
# them; the experiment's test_sort[hip] and memcheck.
BUDGET=${BUDGET:-390}
t0=$(date +%s); el(){ echo $(( $(date +%s) - t0 )); }
cap(){ local l=$(( BUDGET - $(el) - ${2:-0} )); [ $l -lt 5 ] && l=5; [ $1 -lt $l ] && echo $1 || echo $l; }
log(){ echo "[$(el) s] $*" | tee -a $OUT/summary.txt; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a $OUT/summary.txt
NV="-G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release"
bld(){ (cmake -S .wt/$1 -B /tmp/b-$1 $NV $2 > /tmp/cfg-$1.txt 2>&1 && cmake --build /tmp/b-$1 -j5 --target $3 > /tmp/build-$1.txt 2>&1; echo "build $1 rc=$? $(tail -1 /tmp/build-$1.txt)" >> $OUT/summary.txt); }
bld argsort-c1 -DPP_BUILD_TESTS=OFF parprim-bench &
bld argsort-c2 -DPP_BUILD_TESTS=OFF parprim-bench &
bld argsort-c3 -DPP_BUILD_TESTS=ON "parprim-bench test_sort" &
wait; log built
bn(){ timeout $(cap $2 $3) /tmp/b-$1/bench/parprim-bench --backend hip --only "$4" $5 > $OUT/bench-$1.txt 2>&1
  log "$1 rc=$?"; grep -E '^(sort_|argsort)' $OUT/bench-$1.txt | tr -s ' ' | tee -a $OUT/summary.txt; }
bn argsort-c1 45 170 'argsort f32,sort_pairs' --no-peer
bn argsort-c2 80 90 'argsort,sort_pairs u32' ''
bn argsort-c3 45 45 'argsort f32,sort_pairs' --no-peer
cd /tmp/b-argsort-c3
tst(){ PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_REQUIRE_GPU=1 PP_TEST_FILTER="$1" timeout $(cap 90 3) ./tests/test_sort > /tmp/t.$2.txt 2>&1; echo "test $1 rc=$? $(grep -E '^\[  (PASSED|FAILED)|test\(s\) run' /tmp/t.$2.txt | tr '\n' ' ')"; grep -E 'FAIL|error' /tmp/t.$2.txt | head -3; }
san(){ PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_FILTER="$2" timeout $(cap 90 2) compute-sanitizer --tool $1 --error-exitcode 9 ./tests/test_sort > /tmp/s.$1.$3.txt 2>&1; echo "$1 [$2] rc=$? $(grep -E 'test\(s\) run|ERROR SUMMARY|RACECHECK SUMMARY' /tmp/s.$1.$3.txt | tr '\n' ' ')"; grep -E '^========= (Invalid|Race|Barrier|Error)' /tmp/s.$1.$3.txt | head -3; }
{
  i=0; for p in 't_sort_u8*' 't_sort_i32*' 't_sort_u32*' 't_sort_i64*' 't_sort_u64*' 't_sort_f32*' 't_sort_f64*' 't_sort_layouts*' 't_sort_float_specials*' 't_sort_bits*' 't_sort_in_place*' 't_sort_strategies*' 't_sort_empty*' 't_sort_onesweep_variants*' 't_sort_wide_tiles*' 't_sort_argsort_skips*'; do i=$((i+1)); tst "$p" $i & done
  san memcheck 't_sort_argsort_skips*' a & san synccheck 't_sort_in_place*' b &
  wait
} > $OUT/tests_san.txt 2>&1
log "tests: $(grep -c 'rc=0' $OUT/tests_san.txt) of $(grep -c 'rc=' $OUT/tests_san.txt) rc=0"; cut -c1-200 $OUT/tests_san.txt | tee -a $OUT/summary.txt
log done
