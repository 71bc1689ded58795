#!/usr/bin/env bash
# bench/run_sort_h100.sh -- one device call for the radix sort family (issue 20), within a
# budget of about BUDGET seconds (default 285): builds the NVIDIA path (sm_90) of this tree and,
# beside it, parprim-bench against CCCL 3.6.0's CUB; runs test_sort[hip], test_blocks[hip] and
# the sort cases of test_errors / test_alloc_fail; parprim-bench's sort rows with CUB 3.0.1 (the
# toolkit's) and 3.6.0; the CPU sort rows pinned to 2 cores with oneTBB / std::sort in the
# same run; compute-sanitizer memcheck / racecheck / synccheck on small sort cases; and, if
# time is left, the 2^32 + 5 key sort of test_big. Every step has a timeout cut to the time
# left, so a hang costs one step. Run from the repository root after `source .gpu/prep.sh`;
# logs go to $OUT (8 files at most).
set -uo pipefail
OUT="${OUT:-/tmp/sort-out}"; mkdir -p "$OUT"
BUDGET="${BUDGET:-285}"
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
left() { local l=$(( BUDGET - $(el) - ${1:-0} )); [ "$l" -lt 5 ] && l=5; echo "$l"; }
cap() { local l; l=$(left "${2:-0}"); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
log() { echo "[$(el) s] $*" | tee -a "$OUT/summary.txt"; }
NV=(-G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a "$OUT/summary.txt"

(cmake -S . -B /tmp/bs "${NV[@]}" && cmake --build /tmp/bs -j12 --target parprim test_sort test_blocks test_errors \
    test_alloc_fail test_big parprim-bench) >/tmp/build.txt 2>&1 &
main=$!
if [ -f .gpu/cccl-3.6.0.tar.gz ]; then
    mkdir -p /tmp/cccl && tar -xzf .gpu/cccl-3.6.0.tar.gz -C /tmp/cccl
    I="-I/tmp/cccl/cub -I/tmp/cccl/libcudacxx/include -I/tmp/cccl/thrust"
    (cmake -S . -B /tmp/b36 "${NV[@]}" -DPP_BUILD_TESTS=OFF "-DCMAKE_CUDA_FLAGS=$I" &&
        cmake --build /tmp/b36 -j4 --target parprim-bench) >/tmp/build36.txt 2>&1 &
fi
wait $main
log "build: $(tail -1 /tmp/build.txt)"
grep -E 'error|FAILED' /tmp/build.txt | head -20 | tee -a "$OUT/summary.txt"

cd /tmp/bs || exit 1
PP_TEST_QUICK=1 PP_TEST_REQUIRE_GPU=1 timeout "$(cap 110 120)" ctest -j4 --output-on-failure \
    -R 'test_sort\[hip|test_blocks\[hip|test_errors\[hip|test_alloc_fail\[hip' >"$OUT/ctest.txt" 2>&1
log "ctest rc=$?: $(grep -E 'tests passed|tests failed' "$OUT/ctest.txt")"

timeout "$(cap 90 70)" ./bench/parprim-bench --backend hip --only sort --csv /tmp/bench.csv >"$OUT/bench.txt" 2>&1
log "bench (CUB 3.0.1) rc=$?"
wait # the 3.6.0 build
if [ -x /tmp/b36/bench/parprim-bench ]; then
    timeout "$(cap 45 50)" /tmp/b36/bench/parprim-bench --backend hip --only sort >"$OUT/bench36.txt" 2>&1
    log "bench (CUB 3.6.0) rc=$?"
else
    tail -5 /tmp/build36.txt >"$OUT/bench36.txt" 2>/dev/null
    log "no CUB 3.6.0 bench"
fi

# CPU rows on 2 cores (the CI machine's count) beside the sanitizers (GPU, other cores).
(taskset -c 0,1 env OMP_NUM_THREADS=2 timeout "$(cap 60 5)" ./bench/parprim-bench --backend cpu \
    --only 'sort_keys u32' --n 2^26 --reps 3
 taskset -c 0,1 env OMP_NUM_THREADS=2 timeout "$(cap 40 5)" ./bench/parprim-bench --backend cpu \
    --only vs_std --n 2^26 --reps 1) >"$OUT/bench_cpu.txt" 2>&1 &
san() {  # tool, test, filter
    PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_FILTER="$3" taskset -c 2-15 timeout "$(cap 60 10)" \
        compute-sanitizer --tool "$1" --error-exitcode 9 ./tests/"$2" >/tmp/san.$1.$2.$$ 2>&1
    echo "$1 $2 [$3] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.$1.$2.$$ | tail -1)"
    grep -E '^========= (Invalid|Race|Barrier|Error)' /tmp/san.$1.$2.$$ | head -3
}
{
    san memcheck test_sort 't_sort_u32*' & san memcheck test_blocks '*' &
    san racecheck test_sort 't_sort_in_place*' & san synccheck test_sort 't_sort_in_place*' &
    san racecheck test_blocks 't_radix_rank' & san memcheck test_errors '*sort*' &
    wait # the sanitizers, and the CPU rows started before them
} >"$OUT/san.txt" 2>&1
log "sanitizers: $(grep -c 'rc=0' "$OUT/san.txt") of $(grep -c 'rc=' "$OUT/san.txt") clean; cpu bench done"

if [ "$(left)" -gt 40 ]; then
    PP_TEST_BACKEND=hip PP_TEST_FILTER='t_big_sort*' timeout "$(left 3)" ./tests/test_big >"$OUT/big.txt" 2>&1
    log "test_big t_big_sort rc=$?"
fi
{ grep -E 'sort|latency|row ' "$OUT/bench.txt"; } | cut -c1-200
log "total"
