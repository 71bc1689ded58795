#!/usr/bin/env bash
# bench/sat_h100.sh -- one device call for the 2-D family (issue 21), run from the directory
# that holds the trees (after `source .gpu/prep.sh`):
#   SRC=.wt/sat BASE=. OUT=$OUT bash .wt/sat/bench/sat_h100.sh
# Builds SRC (parprim, parprim-bench, test_sat) and, if BASE is set, BASE's parprim-bench side
# by side; runs test_sat[hip] (PP_TEST_QUICK=1); the family's rows with the copy row (ROWS,
# --only's syntax) for BASE, then SRC, then BASE again; compute-sanitizer memcheck / racecheck
# / synccheck on SAN_FILTER (cmocka pattern) side by side; then, while the call is younger than
# VAR_UNTIL seconds, each VARIANTS entry "name|sed script" (entries separated by @) is applied to SRC's
# hip/tuning_sat.h, only the bench is rebuilt, and the VAR_ROWS rows run (the edit is undone
# afterwards). Logs under $OUT.
set -uo pipefail
OUT="${OUT:-/tmp/sat-out}"; mkdir -p "$OUT"
SRC="${SRC:-.}"; BASE="${BASE:-}"
ROWS="${ROWS:-copy,transpose,colscan,sat}"
VAR_ROWS="${VAR_ROWS:-copy,sat}"
t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
echo "SRC commit: $(cat "$SRC/COMMIT_ID" 2>/dev/null)  BASE commit: ${BASE_COMMIT:-}"
cfg() { cmake -S "$1" -B "$2" -G Ninja -DPP_HIP=NVIDIA -DCMAKE_CUDA_ARCHITECTURES=90 ${3:-} >/dev/null 2>&1; }
{ cfg "$SRC" /tmp/bsat && cmake --build /tmp/bsat -j16 --target parprim parprim-bench test_sat; } >"$OUT/build-sat.txt" 2>&1 &
if [ -n "$BASE" ]; then
    { cfg "$BASE" /tmp/bbase -DPP_BUILD_TESTS=OFF && cmake --build /tmp/bbase -j16 --target parprim-bench; } \
        >"$OUT/build-base.txt" 2>&1 &
fi
wait
[ -x /tmp/bsat/bench/parprim-bench ] && [ -x /tmp/bsat/tests/test_sat ] || { tail -40 "$OUT/build-sat.txt"; exit 1; }
el "built"
PP_TEST_QUICK=1 ctest --test-dir /tmp/bsat -R 'test_sat\[hip\]' --output-on-failure >"$OUT/test_sat.txt" 2>&1
el "test_sat[hip] rc=$?: $(grep -cE '^\[       OK \]' "$OUT/test_sat.txt") ok, $(grep -cE '^\[  FAILED  \]' "$OUT/test_sat.txt") failed lines"
grep -E "FAILED|SKIPPED|tests passed|tests failed" "$OUT/test_sat.txt" | head -12
bench() { "$1/bench/parprim-bench" --backend hip --no-peer --only "$2" "${@:3}" 2>&1 | grep -vE "^#|^$"; }
if [ -n "$BASE" ] && [ -x /tmp/bbase/bench/parprim-bench ]; then
    echo "== BASE"; bench /tmp/bbase "$ROWS" --csv "$OUT/bench-base.csv" | tee "$OUT/bench-base.txt"
fi
echo "== SRC"; bench /tmp/bsat "$ROWS" --csv "$OUT/bench-sat.csv" | tee "$OUT/bench-sat.txt"
if [ -n "$BASE" ] && [ -x /tmp/bbase/bench/parprim-bench ]; then
    echo "== BASE again"; bench /tmp/bbase "$VAR_ROWS" | tee -a "$OUT/bench-base.txt"
fi
el "benches done"
san() {  # tool, cmocka filter, log name
    PP_TEST_FILTER="$2" timeout "${SAN_TIMEOUT:-90}" compute-sanitizer --tool "$1" --error-exitcode 9 \
        /tmp/bsat/tests/test_sat >"$OUT/$3.full" 2>&1
    echo "compute-sanitizer $1 [$2] rc=$? : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$3.full" | tail -1)"
    { head -c 20000 "$OUT/$3.full"; echo ...; tail -c 20000 "$OUT/$3.full"; } >"$OUT/$3.txt"
    rm -f "$OUT/$3.full"
}
if [ "${SKIP_SAN:-0}" != 1 ]; then
    san memcheck "${SAN_FILTER:-t_sat_shapes*hip*}" san-memcheck &
    san racecheck "${SAN_FILTER:-t_sat_shapes*hip*}" san-racecheck &
    san synccheck "${SAN_FILTER:-t_sat_shapes*hip*}" san-synccheck &
    san memcheck "t_transpose*hip*" san-memcheck-transpose &
    san memcheck "t_axis_shapes*hip*" san-memcheck-axis &
    wait
    el "sanitizers done"
fi
IFS='@' read -ra vars <<<"${VARIANTS:-}"
for v in "${vars[@]}"; do
    [ -n "$v" ] || continue
    [ $(( $(date +%s) - t0 )) -lt "${VAR_UNTIL:-280}" ] || { echo "variant ${v%%|*}: no time left"; continue; }
    cp "$SRC/hip/tuning_sat.h" /tmp/tuning_sat.h.orig
    sed -i -e "${v#*|}" "$SRC/hip/tuning_sat.h"
    if cmake --build /tmp/bsat -j16 --target parprim-bench >"$OUT/build-var.txt" 2>&1; then
        echo "== variant ${v%%|*}"; bench /tmp/bsat "$VAR_ROWS" | tee -a "$OUT/bench-variants.txt"
    else
        echo "variant ${v%%|*}: build failed"; tail -5 "$OUT/build-var.txt"
    fi
    cp /tmp/tuning_sat.h.orig "$SRC/hip/tuning_sat.h"
    el "variant ${v%%|*} done"
done
el "total"
