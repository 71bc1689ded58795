#!/usr/bin/env bash
# bench/compare_h100.sh -- one device call that compares a base tree with this one on the same
# GPU: builds both (NVIDIA, sm_90; the base's bench only), runs parprim-bench of the base and
# of this tree back to back (CUB 3.0.1 in the same processes), the latency rows against a bench
# built with CCCL 3.6.0 (../shared/gpu/), then this tree's GPU tests (ctest -L gpu) and
# compute-sanitizer on small GPU cases. Run from the repository root after
# `source .gpu/prep.sh`, with the base's sources in BASE (e.g. `git archive <commit>` unpacked
# into an ignored folder carried with the call). Logs go to $OUT (at most 8 files come back).
# Env: BASE (required), BENCH_ONLY (a --only filter), SKIP_SAN=1, SKIP_36=1, CTEST_TIMEOUT,
# SAN_TIMEOUT.
set -uo pipefail
OUT="${OUT:-/tmp/compare-out}"; mkdir -p "$OUT"
: "${BASE:?set BASE to the base tree}"
NV=(-G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90)
t0=$(date +%s)
log() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$OUT/summary.txt"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a "$OUT/summary.txt"
{
    (cmake -S "$BASE" -B /tmp/cmp-base "${NV[@]}" -DPP_BUILD_TESTS=OFF && cmake --build /tmp/cmp-base -j6 --target parprim-bench) >"$OUT/build.txt.base" 2>&1 &
    (cmake -S . -B /tmp/cmp-head "${NV[@]}" && cmake --build /tmp/cmp-head -j8) >"$OUT/build.txt.head" 2>&1 &
    if [ "${SKIP_36:-0}" != 1 ]; then
        mkdir -p /tmp/cccl && tar -xzf .gpu/cccl-3.6.0.tar.gz -C /tmp/cccl
        I="-I/tmp/cccl/cub -I/tmp/cccl/libcudacxx/include -I/tmp/cccl/thrust"
        (cmake -S . -B /tmp/cmp-36 "${NV[@]}" -DPP_BUILD_TESTS=OFF "-DCMAKE_CUDA_FLAGS=$I" && cmake --build /tmp/cmp-36 -j4 --target parprim-bench) >"$OUT/build.txt.36" 2>&1 &
    fi
    wait
}
for b in base head 36; do
    [ -f "$OUT/build.txt.$b" ] || continue
    log "build $b: $(tail -1 "$OUT/build.txt.$b")"
    grep -E 'error|FAILED' "$OUT/build.txt.$b" | head -5
done
cat "$OUT"/build.txt.* > "$OUT/build.txt" 2>/dev/null; rm -f "$OUT"/build.txt.*
ONLY=()
[ -n "${BENCH_ONLY:-}" ] && ONLY=(--only "$BENCH_ONLY")
/tmp/cmp-base/bench/parprim-bench --backend hip "${ONLY[@]}" --csv /tmp/bench-base.csv >"$OUT/bench-base.txt" 2>&1
log "bench base rc=$?"
/tmp/cmp-head/bench/parprim-bench --backend hip "${ONLY[@]}" --csv "$OUT/bench-head.csv" --plot "$OUT/bench-head.svg" >"$OUT/bench-head.txt" 2>&1
log "bench head rc=$?"
if [ -x /tmp/cmp-36/bench/parprim-bench ]; then
    { echo "== CUB 3.6.0 build (this tree): latency rows"; /tmp/cmp-36/bench/parprim-bench --backend hip --only latency; } >>"$OUT/bench-head.txt" 2>&1
    log "bench 3.6.0 latency rc=$?"
    # radix sort family (issue 20): CUB 3.6.0's DeviceRadixSort on every sort row (the goals
    # take the better of the two CUB versions)
    { echo "== CUB 3.6.0 build (this tree): sort rows"; /tmp/cmp-36/bench/parprim-bench --backend hip --only sort; } >>"$OUT/bench-head.txt" 2>&1
    log "bench 3.6.0 sort rc=$?"
fi
PP_TEST_REQUIRE_GPU=1 timeout "${CTEST_TIMEOUT:-240}" ctest --test-dir /tmp/cmp-head -L gpu -LE big -j4 --output-on-failure >"$OUT/ctest.txt" 2>&1
log "ctest -L gpu -LE big rc=$?: $(grep -E 'tests passed|tests failed' "$OUT/ctest.txt")"
if [ "${SKIP_SAN:-0}" != 1 ]; then
    san() {  # tool, test, filter
        PP_TEST_QUICK=1 PP_TEST_BACKEND=hip PP_TEST_FILTER="$3" timeout "${SAN_TIMEOUT:-120}" compute-sanitizer --tool "$1" --error-exitcode 9 \
            /tmp/cmp-head/tests/"$2" >/tmp/san.$$.$1.$2 2>&1
        echo "$1 $2 [$3] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.$$.$1.$2 | tail -1)"
    }
    {
        san memcheck test_blocks '*' & san synccheck test_blocks '*' & san racecheck test_blocks 't_lookback' &
        san memcheck test_scan '*few_blocks_small*' & san racecheck test_scan '*few_blocks_small*' &
        san synccheck test_scan '*few_blocks_small*' & san memcheck test_histogram 't_range*' &
        san racecheck test_histogram 't_range_uneven*' & san memcheck test_reduce 't_seg*' &
        san memcheck test_alloc_fail '*' & san memcheck test_errors '*' &
        wait
    } >"$OUT/san.txt" 2>&1
    log "sanitizers: $(grep -c 'rc=0' "$OUT/san.txt") of $(grep -c 'rc=' "$OUT/san.txt") clean"
    cat "$OUT/san.txt" >>"$OUT/summary.txt" && rm -f "$OUT/san.txt"
fi
log "total"
