#!/usr/bin/env bash
# bench/run_h100.sh -- one device call: build the NVIDIA path, run the tests (GPU cases run
# there), the big test, parprim-bench with CUB, then compute-sanitizer on the GPU cases.
# Run on the lent H100 from the repository root:  bash bench/run_h100.sh  (after
# `source .gpu/prep.sh`). Logs go to $OUT (or /tmp/h100-out). Env: SKIP_BIG=1, SKIP_SAN=1,
# SKIP_CTEST=1, SKIP_BENCH=1, BENCH_ARGS="...", SAN_TOOLS="racecheck ...", SAN_TESTS="test_scan ...", SAN_FILTER=cmocka-pattern, SAN_TIMEOUT=seconds,
# SAN_PAR=1 (the three tools at once), SAN_CASES="pattern ..." (one sanitizer process per cmocka
# pattern, side by side; e.g. for test_histogram: "t_even* t_u8* t_range* t_hip_strategies_shared*
# t_hip_strategies_global* t_hip_strategies_cluster* t_hip_strategies_u8_auto* *rbi*"; racecheck of the
# cluster cases alone: "t_hip_strategies_cluster?[hip] t_hip_strategies_cluster_big* t_hip_strategies_cluster_k16?[hip]
# t_hip_strategies_cluster_k16_big*", ~300-600 s each), SWEEP=1 (reduce grid-size sweep through the option reduce_grid_waves).
set -uo pipefail
OUT="${OUT:-/tmp/h100-out}"; mkdir -p "$OUT"
B=/tmp/b
t0=$(date +%s)
san_one() {  # tool, test, cmocka filter, log name
    PP_TEST_FILTER="$3" timeout ${SAN_TIMEOUT:-300} compute-sanitizer --tool $1 --error-exitcode 9 \
        $B/tests/$2 >"$OUT/$4.full" 2>&1
    echo "compute-sanitizer $1 $2 [$3] rc=$? : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$4.full" | tail -1)"
    { head -c 20000 "$OUT/$4.full"; echo ...; tail -c 20000 "$OUT/$4.full"; } >"$OUT/$4.txt"
    rm -f "$OUT/$4.full"
}
san_tool() {  # one compute-sanitizer tool over the GPU cases of each test in SAN_TESTS
    for t in ${SAN_TESTS:-test_reduce test_scan test_parity}; do
        if [ -n "${SAN_CASES:-}" ]; then  # one process per cmocka pattern, side by side
            k=0
            set -f  # the patterns are cmocka's, not the shell's
            for f in $SAN_CASES; do k=$((k + 1)); san_one $1 $t "$f" "san_$1_${t}_$k" & done
            set +f
            wait
        else
            san_one $1 $t "${SAN_FILTER:-*hip*}" "san_$1_$t"
        fi
    done
}
cmake -S . -B $B -G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/build.txt" 2>&1 &&
    cmake --build $B -j16 >>"$OUT/build.txt" 2>&1 || { tail -40 "$OUT/build.txt"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [ "${SKIP_CTEST:-0}" != 1 ]; then
    ctest --test-dir $B --output-on-failure -LE big >"$OUT/ctest.txt" 2>&1; echo "ctest rc=$?"
    grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT/ctest.txt" | tail -8
fi
if [ "${SKIP_BIG:-0}" != 1 ]; then
    ctest --test-dir $B --output-on-failure -L big >"$OUT/big.txt" 2>&1; echo "big rc=$?"; grep -E "tests passed|Failed" "$OUT/big.txt" | tail -3
fi
if [ "${SWEEP:-0}" = 1 ]; then
    for w in 1 2 4; do
        echo "== reduce_grid_waves=$w"
        $B/bench/parprim-bench --backend hip --only reduce_sum --no-cub --option reduce_grid_waves=$w 2>&1 | grep -E "reduce_sum +f32 "
    done
fi
if [ "${SKIP_BENCH:-0}" != 1 ]; then
    $B/bench/parprim-bench --backend hip ${BENCH_ARGS:-} --csv "$OUT/bench.csv" 2>&1 | tee "$OUT/bench.txt"
    echo "bench done: $(( $(date +%s) - t0 )) s"
fi
# The sanitizers run after the bench (so they cannot disturb its timings), the three tools
# side by side (SAN_PAR=1) or one after another; each log is cut to its first and last 20 KB.
if [ "${SKIP_SAN:-0}" != 1 ]; then
    for tool in ${SAN_TOOLS:-memcheck racecheck synccheck}; do
        if [ "${SAN_PAR:-0}" = 1 ]; then san_tool $tool & else san_tool $tool; fi
    done
    wait
fi
echo "total: $(( $(date +%s) - t0 )) s"
if [ "${LOADEXP:-0}" = 1 ]; then  # the load-hint experiment of bench/NOTES.md
    cmake -S . -B /tmp/b2 -G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 -DPP_BUILD_TESTS=OFF \
        -DCMAKE_CUDA_FLAGS=-DPP_NV_LOAD_L2_256B >/dev/null 2>&1 && cmake --build /tmp/b2 -j16 >/dev/null 2>&1
    for rep in 1 2; do
        echo "== plain __ldcs (run $rep)"; $B/bench/parprim-bench --backend hip --only reduce --no-cub 2>&1 | grep -E "^reduce_(sum|max|min) "
        echo "== L2::256B (run $rep)"; /tmp/b2/bench/parprim-bench --backend hip --only reduce --no-cub 2>&1 | grep -E "^reduce_(sum|max|min) "
    done
fi
