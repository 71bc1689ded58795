#!/bin/bash
# twelfth session, helper segpack (prepared, not run): prebuilt binaries of s12-segpack's head
# (.wt/segpack-bin/COMMIT), no build here. test_segsort[hip] (quick) in parallel groups,
# memcheck / racecheck / synccheck of t_segsort_pipe (forms 1-4), memcheck of t_segsort_equal
# (the default form); bench rows at 2^26 u32 by PP_OPTION_SEGSORT_PACK_PIPE in alternating
# processes (round 1: 1 3 4 2, round 2: 1 2), CUB in each; ncu occupancy of the default form.
# Run: carry [".gpu", ".wt/segpack.sh", ".wt/segpack-bin"], command
# `source .gpu/prep.sh && bash .wt/segpack.sh 2>&1 | tee $OUT/segpack.txt` (~170 s).
BUDGET=${BUDGET:-175}
t0=$(date +%s); el(){ echo $(( $(date +%s) - t0 )); }
cap(){ local l=$(( BUDGET - $(el) - ${2:-0} )); [ $l -lt 5 ] && l=5; [ $1 -lt $l ] && echo $1 || echo $l; }
log(){ echo "[$(el) s] $*" | tee -a $OUT/summary.txt; }
L=/tmp/segpack-logs; mkdir -p $L
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a $OUT/summary.txt
cat .wt/segpack-bin/COMMIT 2>/dev/null | tee -a $OUT/summary.txt
# prebuilt on the build machine (same CUDA 13.0, sm_90) from the commit above: no build here
D=$PWD/.wt/segpack-bin; export LD_LIBRARY_PATH=$D${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ldd $D/parprim-bench | grep -E 'not found|parprim' | tee -a $OUT/summary.txt
B=$D/parprim-bench
T=$D/test_segsort
tst(){ PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_REQUIRE_GPU=1 PP_TEST_FILTER="$1" timeout $(cap 70 105) $T > $L/t.$2.txt 2>&1; echo "test $1 rc=$? $(grep -E '^\[  (PASSED|FAILED)|test\(s\) run|FAILED TEST' $L/t.$2.txt | tr '\n' ' ')"; grep -E 'FAIL|rror' $L/t.$2.txt | head -3; }
san(){ PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_FILTER="$2" timeout $(cap 70 105) compute-sanitizer --tool $1 --error-exitcode 9 $T > $L/san.$1.$3.txt 2>&1; echo "$1 [$2] rc=$? $(grep -E 'test\(s\) run|PASSED|ERROR SUMMARY|RACECHECK SUMMARY' $L/san.$1.$3.txt | tr '\n' ' ')"; grep -E '^========= (Invalid|Race|Barrier|Error|Warning)' $L/san.$1.$3.txt | head -3; }
{
  i=0; for p in 't_segsort_u8*' 't_segsort_i32*' 't_segsort_u32*' 't_segsort_i64*' 't_segsort_u64*' 't_segsort_f32*' 't_segsort_f64*' 't_segsort_equal*' 't_segsort_one_segment*' 't_segsort_long*' 't_segsort_clamped*' 't_segsort_empty*' 't_segsort_float_ties*' 't_segsort_pack_log*' 't_segsort_pipe*'; do i=$((i+1)); tst "$p" $i & done
  san memcheck 't_segsort_pipe*' p & san racecheck 't_segsort_pipe*' p & san synccheck 't_segsort_pipe*' p & san memcheck 't_segsort_equal*' e &
  wait
} > $L/tests_san.txt 2>&1
log "tests: $(grep -c '^test.*rc=0' $L/tests_san.txt) of $(grep -c '^test' $L/tests_san.txt) rc=0"; cut -c1-220 $L/tests_san.txt | tee -a $OUT/summary.txt
R='segsort_keys_16 u32,segsort_keys_64 u32,segsort_keys_112 u32,segsort_keys_256 u32,segsort_keys_1024 u32,segsort_keys_4096 u32'
bn(){ timeout $(cap 30 12) $B --backend hip --n 2^26 --only "$R" --option segsort_pack_pipe=$2 > $L/bench-r$1-p$2.txt 2>&1
  log "bench round $1 pipe $2 rc=$?"; grep -E '^segsort' $L/bench-r$1-p$2.txt | tr -s ' ' | cut -c1-140 | tee -a $OUT/summary.txt; }
bn 1 1; bn 1 3; bn 1 4; bn 1 2; bn 2 1; bn 2 2
timeout $(cap 25 0) ncu --section SpeedOfLight --section Occupancy --section LaunchStats -k regex:segsort_packed -c 1 $B --backend hip --n 2^26 --only 'segsort_keys_16 u32' --reps 1 --no-peer > $L/ncu-p2.txt 2>&1
log "ncu pipe 2 (default) rc=$?"; grep -E 'Duration|DRAM Throughput|Compute \(SM\) Throughput|Occupancy|Block Limit|Shared Memory Configuration|Dynamic Shared|Static Shared|Grid Size|Waves' $L/ncu-p2.txt | tr -s ' ' | tee -a $OUT/summary.txt
tar -czf $OUT/logs.tgz -C /tmp segpack-logs
log done
