#!/usr/bin/env bash
# bench/segsort_h100.sh -- one device call for the segmented sort (issue 22), within a budget of
# about BUDGET seconds (default 380): builds the NVIDIA path (sm_90) of this tree and, beside it,
# parprim-bench against CCCL 3.6.0's CUB; runs test_segsort[hip] and the segmented-sort cases of
# test_errors / test_alloc_fail; parprim-bench's segsort rows at 2^26 u32 keys with CUB 3.0.1
# (the toolkit's) and 3.6.0; compute-sanitizer memcheck / racecheck / synccheck on small
# segmented-sort cases; then, if time is left, the CPU rows pinned to 2 cores and test_big's
# segmented sort. Every step has a timeout cut to the time left. Run from the repository root
# after `source .gpu/prep.sh`; logs go to $OUT.
set -uo pipefail
OUT="${OUT:-/tmp/segsort-out}"; mkdir -p "$OUT"
BUDGET="${BUDGET:-380}"
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
left() { local l=$(( BUDGET - $(el) - ${1:-0} )); [ "$l" -lt 5 ] && l=5; echo "$l"; }
cap() { local l; l=$(left "${2:-0}"); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
log() { echo "[$(el) s] $*" | tee -a "$OUT/summary.txt"; }
NV=(-G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a "$OUT/summary.txt"
git log --oneline -1 2>/dev/null | tee -a "$OUT/summary.txt"

(cmake -S . -B /tmp/bseg "${NV[@]}" && cmake --build /tmp/bseg -j12 --target parprim test_segsort test_errors \
    test_alloc_fail test_big parprim-bench) >/tmp/build.txt 2>&1 &
main=$!
if [ -f "${CCCL_TGZ:-}" ]; then
    mkdir -p /tmp/cccl && tar -xzf "$CCCL_TGZ" -C /tmp/cccl
    I="-I/tmp/cccl/cub -I/tmp/cccl/libcudacxx/include -I/tmp/cccl/thrust"
    (cmake -S . -B /tmp/b36 "${NV[@]}" -DPP_BUILD_TESTS=OFF "-DCMAKE_CUDA_FLAGS=$I" &&
        cmake --build /tmp/b36 -j4 --target parprim-bench) >/tmp/build36.txt 2>&1 &
fi
wait $main
log "build: $(tail -1 /tmp/build.txt)"
grep -E 'error|FAILED' /tmp/build.txt | head -20 | tee -a "$OUT/summary.txt"
cp /tmp/build.txt "$OUT/build.txt" 2>/dev/null

cd /tmp/bseg || exit 1
PP_TEST_QUICK=1 PP_TEST_REQUIRE_GPU=1 timeout "$(cap 100 200)" ctest -j3 --output-on-failure \
    -R 'test_segsort\[hip|test_errors\[hip|test_alloc_fail\[hip' >"$OUT/ctest.txt" 2>&1
log "ctest rc=$?: $(grep -E 'tests passed|tests failed' "$OUT/ctest.txt")"

timeout "$(cap 70 110)" ./bench/parprim-bench --backend hip --only segsort --n 2^26 --reps 10 \
    --csv "$OUT/bench301.csv" >"$OUT/bench.txt" 2>&1
log "bench (CUB 3.0.1) rc=$?"
if [ -x /tmp/b36/bench/parprim-bench ] || wait; then
    if [ -x /tmp/b36/bench/parprim-bench ]; then
        timeout "$(cap 60 50)" /tmp/b36/bench/parprim-bench --backend hip --only segsort --n 2^26 --reps 10 \
            --csv "$OUT/bench360.csv" >"$OUT/bench36.txt" 2>&1
        log "bench (CUB 3.6.0) rc=$?"
    else
        log "no CCCL 3.6.0 build: $(tail -2 /tmp/build36.txt 2>/dev/null)"
    fi
fi

for tool in memcheck racecheck synccheck; do
    PP_TEST_BACKEND=hip PP_TEST_QUICK=1 PP_TEST_FILTER='*segsort_clamped*' timeout "$(cap 25 20)" \
        compute-sanitizer --tool $tool --error-exitcode 9 ./tests/test_segsort >"$OUT/san_$tool.txt" 2>&1
    log "compute-sanitizer $tool (segsort_clamped) rc=$?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_$tool.txt" | tail -1)"
done
PP_TEST_BACKEND=hip PP_TEST_QUICK=1 PP_TEST_FILTER='*segsort_u32*' timeout "$(cap 30 15)" \
    compute-sanitizer --tool memcheck --error-exitcode 9 ./tests/test_segsort >"$OUT/san_memcheck_u32.txt" 2>&1
log "compute-sanitizer memcheck (segsort_u32) rc=$?: $(grep -E 'ERROR SUMMARY' "$OUT/san_memcheck_u32.txt" | tail -1)"

if [ "$(left)" -gt 40 ]; then
    OMP_NUM_THREADS=2 timeout "$(cap 60 15)" taskset -c 0,1 ./bench/parprim-bench --backend cpu --only segsort \
        --n 2^24 --reps 3 >"$OUT/bench_cpu.txt" 2>&1
    log "bench cpu (2 cores, 2^24) rc=$?"
fi
if [ "$(left)" -gt 40 ]; then
    PP_TEST_BACKEND=hip PP_TEST_FILTER='*big_segsort*' timeout "$(cap 120 5)" ./tests/test_big >"$OUT/big.txt" 2>&1
    log "test_big segsort [hip] rc=$?: $(grep -E 'PASSED|FAILED' "$OUT/big.txt" | tail -1)"
fi
log "done"
